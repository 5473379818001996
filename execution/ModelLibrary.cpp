//===- ModelLibrary.cpp - A model as a library with a C API ---------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/ModelLibrary.h"

#include "conversion/Passes.h"
#include "execution/HostCode.h"
#include "runtime/include/amk/model.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
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

uint64_t amk::combineVariantHashes(llvm::ArrayRef<uint64_t> hashes) {
  // FNV-1a over the variants' hashes in order: stable across runs and
  // machines, as the header's copy must be.
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t v : hashes)
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ull;
    }
  return h;
}

std::string amk::variantPrefix(llvm::StringRef name, unsigned index) {
  return (name + "_v" + llvm::Twine(index)).str();
}

/// Moves every top-level op of `from` into `into`; an external declaration
/// both hold (a runtime entry point) is kept once, any other symbol both
/// define is an error.
static bool isDeclaration(Operation *op) {
  if (auto f = dyn_cast<LLVM::LLVMFuncOp>(op))
    return f.isExternal();
  if (auto g = dyn_cast<LLVM::GlobalOp>(op))
    return !g.getValueOrNull() && g.getInitializerRegion().empty();
  return false;
}

static llvm::Error mergeModule(ModuleOp into, ModuleOp from) {
  SymbolTable table(into);
  for (Operation &op : llvm::make_early_inc_range(*from.getBody())) {
    if (auto sym = dyn_cast<SymbolOpInterface>(op))
      if (Operation *existing = table.lookup(sym.getName())) {
        if (isDeclaration(&op) && isDeclaration(existing))
          continue;
        return error("two variants define the symbol '" + sym.getName() +
                     "'");
      }
    op.remove();
    into.push_back(&op);
    if (auto sym = dyn_cast<SymbolOpInterface>(op))
      table.insert(&op);
  }
  return llvm::Error::success();
}

/// The model descriptor of a library with several variants: `NAME_model()`
/// returns an amk_model whose program is variant 0's and whose `variants`
/// lists each variant's own descriptor.
static void addVariantTable(ModuleOp module, llvm::StringRef name,
                            unsigned count, uint64_t hash,
                            llvm::StringRef pipeline) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i8 = IntegerType::get(ctx, 8), i32 = IntegerType::get(ctx, 32),
       i64 = IntegerType::get(ctx, 64);
  auto sym = [&](llvm::StringRef suffix) { return (name + "_" + suffix).str(); };
  auto string = [&](llvm::StringRef suffix, llvm::StringRef text) {
    std::string z = text.str();
    z.push_back('\0');
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(i8, z.size()),
                           true, LLVM::Linkage::Internal, sym(suffix),
                           b.getStringAttr(z), 1);
  };
  auto initialized = [&](llvm::StringRef suffix, Type type,
                         llvm::function_ref<Value(OpBuilder &)> fill) {
    auto g = LLVM::GlobalOp::create(b, loc, type, true,
                                    LLVM::Linkage::Internal, sym(suffix),
                                    Attribute(), 8);
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&g.getInitializerRegion());
    LLVM::ReturnOp::create(b, loc, fill(b));
  };
  auto addr = [&](OpBuilder &ib, llvm::StringRef full) -> Value {
    return LLVM::AddressOfOp::create(ib, loc, ptr, full);
  };
  auto cst = [&](OpBuilder &ib, Type t, int64_t v) -> Value {
    return LLVM::ConstantOp::create(ib, loc, t, ib.getIntegerAttr(t, v));
  };
  string("model_name", name);
  string("model_pipeline", pipeline);
  auto arrTy = LLVM::LLVMArrayType::get(ptr, count);
  initialized("variants", arrTy, [&](OpBuilder &ib) {
    Value arr = LLVM::UndefOp::create(ib, loc, arrTy);
    for (unsigned k = 0; k < count; ++k)
      arr = LLVM::InsertValueOp::create(
          ib, loc, arr, addr(ib, variantPrefix(name, k) + "_model_data"),
          ArrayRef<int64_t>{k});
    return arr;
  });
  auto modelTy = LLVM::LLVMStructType::getLiteral(
      ctx, {i32, i32, i64, ptr, ptr, ptr, ptr});
  initialized("model_data", modelTy, [&](OpBuilder &ib) {
    Value s = LLVM::UndefOp::create(ib, loc, modelTy);
    Value fields[7] = {cst(ib, i32, AMK_MODEL_API_VERSION),
                       cst(ib, i32, count),
                       cst(ib, i64, (int64_t)hash),
                       addr(ib, sym("model_name")),
                       addr(ib, sym("model_pipeline")),
                       addr(ib, variantPrefix(name, 0) + "_desc"),
                       addr(ib, sym("variants"))};
    for (int64_t f = 0; f < 7; ++f)
      s = LLVM::InsertValueOp::create(ib, loc, s, fields[f],
                                      ArrayRef<int64_t>{f});
    return s;
  });
  auto fn = LLVM::LLVMFuncOp::create(b, loc, sym("model"),
                                     LLVM::LLVMFunctionType::get(ptr, {}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(fn.addEntryBlock(b));
  LLVM::ReturnOp::create(b, loc, addr(b, sym("model_data")));
}

llvm::Expected<llvm::SmallString<0>>
amk::emitModelVariantsObject(llvm::ArrayRef<task::ProgramOp> programs,
                             llvm::StringRef name, llvm::StringRef pipeline,
                             uint64_t hash) {
  if (programs.size() == 1)
    return emitModelObject(programs.front(), name, pipeline);
  task::ProgramOp first = programs.front();
  MLIRContext *ctx = first.getContext();
  OwningOpRef<ModuleOp> combined = ModuleOp::create(first.getLoc());
  // One constant blob for all variants: variant 0's, extended by the
  // constants only other variants hold, at offsets past its own. Every
  // other variant reads it at those offsets instead of embedding its own
  // copy of the same weights (a decoder's decode step and its prefill
  // share all but a few index tables). Attributes are uniqued, so equal
  // values are equal pointers.
  llvm::DenseMap<Attribute, int64_t> offsets;
  int64_t end = 0;
  first.walk([&](task::BufferOp b) {
    if (b.getKind() == "const" && b.getValue()) {
      offsets.try_emplace(*b.getValue(), b.getOffset());
      end = std::max<int64_t>(end, b.getOffset() + b.getSize());
    }
  });
  SmallVector<task::BufferOp> extra;
  for (task::ProgramOp p : programs.drop_front())
    p.walk([&](task::BufferOp b) {
      if (b.getKind() != "const" || !b.getValue() ||
          offsets.count(*b.getValue()))
        return;
      int64_t at = (end + 63) / 64 * 64;
      offsets[*b.getValue()] = at;
      end = at + b.getSize();
      extra.push_back(b);
    });
  auto i64 = IntegerType::get(ctx, 64);
  std::vector<std::string> sharedBlobs;
  for (auto [k, p] : llvm::enumerate(programs)) {
    task::ProgramOp program = p;
    OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
    (*host)->setAttr("amk.pipeline", StringAttr::get(ctx, pipeline));
    auto clone = cast<task::ProgramOp>(program->clone());
    host->push_back(clone);
    if (k == 0 && !extra.empty()) {
      // After the last buffer: buffer ids are positions, kept as they are.
      task::BufferOp last;
      clone.walk([&](task::BufferOp b) { last = b; });
      OpBuilder b(ctx);
      b.setInsertionPointAfter(last);
      for (task::BufferOp x : extra) {
        Operation *c = b.clone(*x);
        c->setAttr("offset", IntegerAttr::get(i64, offsets[*x.getValue()]));
      }
    } else if (k > 0) {
      clone.walk([&](task::BufferOp b) {
        if (b.getKind() == "const" && b.getValue())
          b->setAttr("offset", IntegerAttr::get(i64, offsets[*b.getValue()]));
      });
    }
    PassManager pm(ctx);
    LowerTaskToLLVMOptions lopts;
    lopts.prefix = variantPrefix(name, k);
    lopts.embedConstants = k == 0;
    if (k > 0)
      sharedBlobs.push_back(lopts.prefix + "_constants");
    buildLowerToLLVMPipeline(pm, lopts);
    if (failed(pm.run(*host)))
      return error("cannot lower variant " + llvm::Twine(k) +
                   "'s task program to LLVM");
    if (k == 0)
      (*combined)->setAttrs((*host)->getAttrDictionary());
    if (llvm::Error e = mergeModule(*combined, *host))
      return std::move(e);
  }
  // The other variants' blob declarations become uses of variant 0's.
  for (const std::string &decl : sharedBlobs) {
    auto from = StringAttr::get(ctx, decl),
         to = StringAttr::get(ctx, variantPrefix(name, 0) + "_constants");
    if (failed(SymbolTable::replaceAllSymbolUses(from, to, *combined)))
      return error("cannot share variant 0's constants with '" + decl + "'");
    if (Operation *d = SymbolTable::lookupSymbolIn(*combined, from))
      d->erase();
  }
  addVariantTable(*combined, name, programs.size(), hash, pipeline);
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  if (failed(emitObjectFile(*combined, os)))
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
  case AMK_DTYPE_UINT16:
    return "uint16";
  case AMK_DTYPE_INT16:
    return "int16";
  case AMK_DTYPE_FLOAT16:
    return "float16";
  case AMK_DTYPE_FLOAT64:
    return "float64";
  case AMK_DTYPE_UINT32:
    return "uint32";
  case AMK_DTYPE_UINT64:
    return "uint64";
  case AMK_DTYPE_BFLOAT16:
    return "bfloat16";
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
                             llvm::ArrayRef<const LoadedProgram *> variants,
                             uint64_t hash, llvm::StringRef pipeline) {
  const LoadedProgram &lp = *variants.front();
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
     << "#define " << upper << "_NUM_OUTPUTS " << lp.outputs.size() << "u\n"
     << "#define " << upper << "_NUM_VARIANTS " << variants.size() << "u\n\n";
  auto io = [&](const char *kind, const char *macro,
                const std::vector<amk_rt_io> &v, const std::string &prefix) {
    for (auto [i, t] : llvm::enumerate(v)) {
      os << "/* " << kind << " " << i << " '" << commentSafe(t.name)
         << "': " << dtypeName(t.dtype) << " [";
      for (uint32_t d = 0; d < t.rank; ++d)
        os << (d ? ", " : "") << t.dims[d];
      os << "] */\n#define " << prefix << macro << "_" << i << "_BYTES "
         << t.bytes << "u\n";
    }
  };
  if (variants.size() > 1)
    os << "/* Variant 0 of " << variants.size()
       << " (the model's own interface; " << name
       << "_session_create runs it). */\n";
  io("input", "INPUT", lp.inputs, upper + "_");
  io("output", "OUTPUT", lp.outputs, upper + "_");
  for (auto [k, v] : llvm::enumerate(variants)) {
    if (variants.size() == 1)
      break;
    os << "\n/* Variant " << k << ": " << name
       << "_session_create_for_shapes selects it for these input shapes. */\n";
    std::string prefix = upper + "_V" + std::to_string(k) + "_";
    io("input", "INPUT", v->inputs, prefix);
    io("output", "OUTPUT", v->outputs, prefix);
  }
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
     << "/* A session of the variant compiled for these input shapes (rank\n"
     << " * and dimensions of each input); amk_last_error(NULL) names the\n"
     << " * compiled variants when none has them. */\n"
     << "static inline amk_status " << name << "_session_create_for_shapes(\n"
     << "    const amk_session_options *options, const uint32_t *ranks,\n"
     << "    const int64_t *const *dims, amk_session **session) {\n"
     << "  return amk_session_create_for_shapes(\n"
     << "      " << name << "_model(), AMK_MODEL_API_VERSION, " << upper
     << "_MODEL_HASH, options,\n"
     << "      " << upper << "_NUM_INPUTS, ranks, dims, session);\n}\n\n"
     << "/* Greedy generation with a decoder compiled by amk-compile\n"
     << " * --generate-prompt-len/--max-context (amk_model_generate). */\n"
     << "static inline amk_status " << name
     << "_generate(const amk_session_options *options,\n"
     << "    const int64_t *prompt, uint32_t prompt_len, uint32_t steps,\n"
     << "    int64_t *tokens) {\n"
     << "  return amk_model_generate(" << name
     << "_model(), AMK_MODEL_API_VERSION, " << upper << "_MODEL_HASH,\n"
     << "      options, prompt, prompt_len, steps, tokens);\n}\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}
