//===- ModelLibrary.cpp - A model as a library with a C API ---------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/ModelLibrary.h"

#include "conversion/Passes.h"
#include "execution/HostCode.h"
#include "runtime/include/amk/model.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdlib>

using namespace mlir;
using namespace amk;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

std::string amk::defaultModelName(llvm::StringRef outputPath) {
  llvm::StringRef stem = llvm::sys::path::filename(outputPath);
  stem.consume_front("lib");
  stem = stem.take_until([](char c) { return c == '.'; });
  std::string name;
  for (char c : stem)
    name.push_back(llvm::isAlnum(c) ? c : '_');
  if (name.empty() || llvm::isDigit(name[0]))
    name = "model_" + name;
  return name;
}

bool amk::isCName(llvm::StringRef s) {
  if (s.empty() || llvm::isDigit(s[0]))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::optional<LibraryKind> amk::libraryKind(llvm::StringRef path) {
  if (path.ends_with(".a"))
    return LibraryKind::Archive;
  if (path.ends_with(".so"))
    return LibraryKind::Shared;
  if (path.ends_with(".o"))
    return LibraryKind::Object;
  return std::nullopt;
}

llvm::Expected<llvm::SmallString<0>>
amk::emitModelObject(task::ProgramOp program, llvm::StringRef name,
                     llvm::StringRef pipeline) {
  MLIRContext *ctx = program.getContext();
  OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
  (*host)->setAttr("amk.pipeline", StringAttr::get(ctx, pipeline));
  host->push_back(program.clone());
  PassManager pm(ctx);
  LowerTaskToLLVMOptions lopts;
  lopts.prefix = name.str();
  lopts.embedConstants = true;
  buildLowerToLLVMPipeline(pm, lopts);
  if (failed(pm.run(*host)))
    return error("cannot lower the task program to LLVM");
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  if (failed(emitObjectFile(*host, os)))
    return error("cannot emit the object file");
  return std::move(object);
}

llvm::Error amk::writeFileData(llvm::StringRef path, llvm::StringRef data) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  out.os() << data;
  out.os().close();
  if (out.os().has_error()) {
    out.os().clear_error();
    return error("cannot write '" + path + "'");
  }
  out.keep();
  return llvm::Error::success();
}

static llvm::Error writeArchive(llvm::StringRef path, llvm::StringRef name,
                                llvm::StringRef object) {
  std::vector<llvm::NewArchiveMember> members(1);
  members[0].Buf =
      llvm::MemoryBuffer::getMemBuffer(object, (name + ".o").str(), false);
  members[0].MemberName = members[0].Buf->getBufferIdentifier();
  if (llvm::Error e = llvm::writeArchive(
          path, members, llvm::SymtabWritingMode::NormalSymtab,
          llvm::object::Archive::K_GNU, /*Deterministic=*/true,
          /*Thin=*/false))
    return error("cannot write '" + path +
                 "': " + llvm::toString(std::move(e)));
  return llvm::Error::success();
}

/// A temporary file holding `data`, removed when `remover` goes.
static llvm::Error temporaryFile(llvm::StringRef suffix, llvm::StringRef data,
                                 llvm::SmallVectorImpl<char> &path,
                                 std::optional<llvm::FileRemover> &remover) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("amk-compile", suffix, path))
    return error("cannot create a temporary file: " + ec.message());
  remover.emplace(path);
  return writeFileData(llvm::StringRef(path.data(), path.size()), data);
}

static llvm::Error linkShared(llvm::StringRef path, llvm::StringRef name,
                              llvm::StringRef object,
                              const SharedLibraryOptions &options) {
  // The model's object and the runtime in one library that exports only
  // the C API and the model's entry points; the runtime's C++ internals
  // stay local.
  if (!llvm::sys::fs::exists(options.runtimeLibrary))
    return error("the AMK runtime library '" + options.runtimeLibrary +
                 "' does not exist (--runtime-library)");
  llvm::SmallString<128> tmpObj, tmpMap;
  std::optional<llvm::FileRemover> removeObj, removeMap;
  if (llvm::Error e = temporaryFile("o", object, tmpObj, removeObj))
    return e;
  if (llvm::Error e = temporaryFile(
          "map", "{ global: amk_*; " + name.str() + "_*; local: *; };\n",
          tmpMap, removeMap))
    return e;
  std::string driver = options.linker;
  if (driver.empty())
    driver = std::getenv("CXX") ? std::getenv("CXX") : "c++";
  auto driverPath = llvm::sys::findProgramByName(driver);
  if (!driverPath)
    return error("cannot find the linker driver '" + driver +
                 "' (--linker, $CXX)");
  std::vector<std::string> args = {*driverPath,
                                   "-shared",
                                   "-o",
                                   path.str(),
                                   std::string(tmpObj),
                                   "-Wl,--whole-archive",
                                   options.runtimeLibrary,
                                   "-Wl,--no-whole-archive",
                                   "-Wl,--version-script=" +
                                       std::string(tmpMap),
                                   "-lxsmm",
                                   "-lxsmmnoblas",
                                   "-lpthread",
                                   "-ldl",
                                   "-lm"};
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string linkErr;
  int rc = llvm::sys::ExecuteAndWait(*driverPath, argRefs, std::nullopt, {}, 0,
                                     0, &linkErr);
  if (rc != 0)
    return error("linking '" + path + "' failed (" + llvm::join(args, " ") +
                 ")" + (linkErr.empty() ? "" : ": " + linkErr));
  return llvm::Error::success();
}

llvm::Error amk::writeModelLibrary(llvm::StringRef path, llvm::StringRef name,
                                   llvm::StringRef object,
                                   const SharedLibraryOptions &options) {
  switch (*libraryKind(path)) {
  case LibraryKind::Object:
    return writeFileData(path, object);
  case LibraryKind::Archive:
    return writeArchive(path, name, object);
  case LibraryKind::Shared:
    return linkShared(path, name, object, options);
  }
  llvm_unreachable("a library kind");
}

static const char *dtypeName(uint32_t dtype) {
  switch (dtype) {
  case AMK_DTYPE_FLOAT32:
    return "float32";
  case AMK_DTYPE_UINT8:
    return "uint8";
  case AMK_DTYPE_INT8:
    return "int8";
  case AMK_DTYPE_INT32:
    return "int32";
  case AMK_DTYPE_INT64:
    return "int64";
  case AMK_DTYPE_BOOL:
    return "bool";
  }
  return "?";
}

/// A C comment cannot hold "*/".
static std::string commentSafe(llvm::StringRef s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    out.push_back(s[i]);
    if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/')
      out.push_back(' ');
  }
  return out;
}

std::string amk::modelHeader(llvm::StringRef name, llvm::StringRef modelFile,
                             const LoadedProgram &lp, uint64_t hash,
                             llvm::StringRef pipeline) {
  std::string upper = name.upper();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by amk-compile from "
     << commentSafe(llvm::sys::path::filename(modelFile)) << ". Do not edit.\n"
     << " * Pipeline: " << commentSafe(pipeline) << "\n"
     << " * Scheduled for " << lp.program.num_workers
     << " workers. The API is amk/model.h; docs/integration.md. */\n"
     << "#ifndef AMK_MODEL_" << upper << "_H\n"
     << "#define AMK_MODEL_" << upper << "_H\n\n"
     << "#include <amk/model.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#define " << upper << "_MODEL_HASH UINT64_C("
     << llvm::formatv("{0:x16}", hash) << ")\n"
     << "#define " << upper << "_NUM_INPUTS " << lp.inputs.size() << "u\n"
     << "#define " << upper << "_NUM_OUTPUTS " << lp.outputs.size() << "u\n\n";
  auto io = [&](const char *kind, const char *macro,
                const std::vector<amk_rt_io> &v) {
    for (auto [i, t] : llvm::enumerate(v)) {
      os << "/* " << kind << " " << i << " '" << commentSafe(t.name)
         << "': " << dtypeName(t.dtype) << " [";
      for (uint32_t d = 0; d < t.rank; ++d)
        os << (d ? ", " : "") << t.dims[d];
      os << "] */\n#define " << upper << "_" << macro << "_" << i << "_BYTES "
         << t.bytes << "u\n";
    }
  };
  io("input", "INPUT", lp.inputs);
  io("output", "OUTPUT", lp.outputs);
  os << "\n/* The compiled model (defined in the library). */\n"
     << "const amk_model *" << name << "_model(void);\n\n"
     << "/* A session of this model; checks that this header, the library "
        "and\n * the runtime belong together. */\n"
     << "static inline amk_status " << name
     << "_session_create(const amk_session_options *options,\n"
     << "                                          amk_session **session) {\n"
     << "  return amk_session_create(" << name
     << "_model(), AMK_MODEL_API_VERSION,\n"
     << "                            " << upper
     << "_MODEL_HASH, options, session);\n}\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}
