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
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

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

/// The ELF machine of this host, when the weights can be written apart.
static std::optional<uint16_t> separateConstantsMachine() {
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (!host.isOSBinFormatELF())
    return std::nullopt;
  switch (host.getArch()) {
  case llvm::Triple::x86_64:
    return llvm::ELF::EM_X86_64;
  case llvm::Triple::aarch64:
    return llvm::ELF::EM_AARCH64;
  default:
    return std::nullopt;
  }
}

llvm::Expected<ModelObjects> amk::emitModelObject(task::ProgramOp program,
                                                  llvm::StringRef name,
                                                  llvm::StringRef pipeline) {
  MLIRContext *ctx = program.getContext();
  OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
  (*host)->setAttr("amk.pipeline", StringAttr::get(ctx, pipeline));
  host->push_back(program.clone());
  ModelObjects objects;
  bool apart = separateConstantsMachine().has_value();
  PassManager pm(ctx);
  LowerTaskToLLVMOptions lopts;
  lopts.prefix = name.str();
  lopts.embedConstants = !apart;
  buildLowerToLLVMPipeline(pm, lopts);
  if (failed(pm.run(*host)))
    return error("cannot lower the task program to LLVM");
  llvm::raw_svector_ostream os(objects.code);
  if (failed(emitObjectFile(*host, os)))
    return error("cannot emit the object file");
  if (apart) {
    objects.constantsSymbol = (name + "_constants").str();
    objects.constants = placedConstants(program);
    for (const PlacedConstant &c : objects.constants)
      objects.constantsBytes =
          std::max(objects.constantsBytes, c.offset + c.size);
  }
  return std::move(objects);
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

llvm::Expected<ModelObjects>
amk::emitModelVariantsObject(llvm::ArrayRef<task::ProgramOp> programs,
                             llvm::StringRef name, llvm::StringRef pipeline,
                             uint64_t hash) {
  if (programs.size() == 1)
    return emitModelObject(programs.front(), name, pipeline);
  bool apart = separateConstantsMachine().has_value();
  task::ProgramOp first = programs.front();
  MLIRContext *ctx = first.getContext();
  OwningOpRef<ModuleOp> combined = ModuleOp::create(first.getLoc());
  // One constant blob for all variants: variant 0's, extended by the
  // constants only other variants hold, at offsets past its own. Every
  // other variant reads it at those offsets instead of embedding its own
  // copy of the same weights (a decoder's decode step and its prefill
  // share all but a few index tables). Attributes are uniqued, so equal
  // values are equal pointers.
  SharedConstantLayout layout = sharedConstantLayout(programs);
  auto offsetOf = [&](task::BufferOp b) {
    return (int64_t)layout.offsets.lookup(*b.getValue());
  };
  auto i64 = IntegerType::get(ctx, 64);
  std::vector<std::string> sharedBlobs;
  for (auto [k, p] : llvm::enumerate(programs)) {
    task::ProgramOp program = p;
    OwningOpRef<ModuleOp> host = ModuleOp::create(program.getLoc());
    (*host)->setAttr("amk.pipeline", StringAttr::get(ctx, pipeline));
    auto clone = cast<task::ProgramOp>(program->clone());
    host->push_back(clone);
    if (k == 0 && !layout.appended.empty()) {
      // After the last buffer: buffer ids are positions, kept as they are.
      task::BufferOp last;
      clone.walk([&](task::BufferOp b) { last = b; });
      OpBuilder b(ctx);
      b.setInsertionPointAfter(last);
      for (task::BufferOp x : layout.appended) {
        Operation *c = b.clone(*x);
        c->setAttr("offset", IntegerAttr::get(i64, offsetOf(x)));
      }
    } else if (k > 0) {
      clone.walk([&](task::BufferOp b) {
        if (b.getKind() == "const" && b.getValue())
          b->setAttr("offset", IntegerAttr::get(i64, offsetOf(b)));
      });
    }
    PassManager pm(ctx);
    LowerTaskToLLVMOptions lopts;
    lopts.prefix = variantPrefix(name, k);
    lopts.embedConstants = k == 0 && !apart;
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
  ModelObjects objects;
  llvm::raw_svector_ostream os(objects.code);
  if (failed(emitObjectFile(*combined, os)))
    return error("cannot emit the object file");
  if (apart) {
    objects.constantsSymbol = variantPrefix(name, 0) + "_constants";
    objects.constants = placedConstants(first);
    for (task::BufferOp x : layout.appended)
      objects.constants.push_back(
          {(uint64_t)offsetOf(x), (uint64_t)x.getSize(), *x.getValue()});
    objects.constantsBytes = layout.bytes;
  }
  return std::move(objects);
}

llvm::Error
amk::writeConstantsObject(llvm::StringRef path, llvm::StringRef symbol,
                          uint64_t bytes,
                          llvm::ArrayRef<PlacedConstant> constants) {
  std::optional<uint16_t> machine = separateConstantsMachine();
  if (!machine)
    return error("this host's object format cannot hold the weights apart");
  // A relocatable ELF64 object: the header, the weights' section at offset
  // 64 (its alignment), then the symbol and string tables and the section
  // headers. Sections: null, weights, .symtab, .strtab, .shstrtab and an
  // empty .note.GNU-stack (no executable stack).
  bytes = std::max<uint64_t>(bytes, 1);
  const char shstrtab[] = "\0.rodata.amk_constants\0.symtab\0.strtab\0"
                          ".shstrtab\0.note.GNU-stack";
  auto nameAt = [&](llvm::StringRef n) {
    return (uint32_t)llvm::StringRef(shstrtab, sizeof(shstrtab)).find(n);
  };
  std::string strtab(1, '\0');
  strtab += symbol;
  strtab.push_back('\0');
  const uint64_t dataAt = 64, symAt = (dataAt + bytes + 7) / 8 * 8,
                 strAt = symAt + 2 * 24, shstrAt = strAt + strtab.size(),
                 headersAt = (shstrAt + sizeof(shstrtab) + 7) / 8 * 8;
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  using llvm::support::endian::write;
  constexpr auto le = llvm::endianness::little;
  auto zeros = [&](uint64_t n) {
    static const char z[4096] = {};
    for (; n > 0; n -= std::min<uint64_t>(n, sizeof(z)))
      out.write(z, std::min<uint64_t>(n, sizeof(z)));
  };
  // The ELF header.
  out.write("\x7f"
            "ELF",
            4);
  out << (char)llvm::ELF::ELFCLASS64 << (char)llvm::ELF::ELFDATA2LSB
      << (char)llvm::ELF::EV_CURRENT;
  zeros(9);
  write<uint16_t>(out, llvm::ELF::ET_REL, le);
  write<uint16_t>(out, *machine, le);
  write<uint32_t>(out, llvm::ELF::EV_CURRENT, le);
  write<uint64_t>(out, 0, le);         // e_entry
  write<uint64_t>(out, 0, le);         // e_phoff
  write<uint64_t>(out, headersAt, le); // e_shoff
  write<uint32_t>(out, 0, le);         // e_flags
  write<uint16_t>(out, 64, le);        // e_ehsize
  write<uint16_t>(out, 0, le);         // e_phentsize
  write<uint16_t>(out, 0, le);         // e_phnum
  write<uint16_t>(out, 64, le);        // e_shentsize
  write<uint16_t>(out, 6, le);         // e_shnum
  write<uint16_t>(out, 4, le);         // e_shstrndx
  // The weights, one tensor in memory at a time.
  if (llvm::Error e = streamConstants(
          std::vector<PlacedConstant>(constants.begin(), constants.end()),
          bytes, [&](const char *d, size_t n) { out.write(d, n); }))
    return e;
  zeros(symAt - (dataAt + bytes));
  // .symtab: the null symbol, then the weights (global, hidden, an object
  // in section 1).
  zeros(24);
  write<uint32_t>(out, 1, le);
  out << (char)((llvm::ELF::STB_GLOBAL << 4) | llvm::ELF::STT_OBJECT)
      << (char)llvm::ELF::STV_HIDDEN;
  write<uint16_t>(out, 1, le);
  write<uint64_t>(out, 0, le);
  write<uint64_t>(out, bytes, le);
  out << strtab;
  out.write(shstrtab, sizeof(shstrtab));
  zeros(headersAt - (shstrAt + sizeof(shstrtab)));
  auto section = [&](uint32_t nameOffset, uint32_t type, uint64_t flags,
                     uint64_t offset, uint64_t size, uint32_t link,
                     uint32_t info, uint64_t align, uint64_t entsize) {
    write<uint32_t>(out, nameOffset, le);
    write<uint32_t>(out, type, le);
    write<uint64_t>(out, flags, le);
    write<uint64_t>(out, 0, le); // sh_addr
    write<uint64_t>(out, offset, le);
    write<uint64_t>(out, size, le);
    write<uint32_t>(out, link, le);
    write<uint32_t>(out, info, le);
    write<uint64_t>(out, align, le);
    write<uint64_t>(out, entsize, le);
  };
  zeros(64);
  section(nameAt(".rodata.amk_constants"), llvm::ELF::SHT_PROGBITS,
          llvm::ELF::SHF_ALLOC, dataAt, bytes, 0, 0, 64, 0);
  // sh_link: the string table; sh_info: the first global symbol.
  section(nameAt(".symtab"), llvm::ELF::SHT_SYMTAB, 0, symAt, 2 * 24, 3, 1, 8,
          24);
  section(nameAt(".strtab"), llvm::ELF::SHT_STRTAB, 0, strAt, strtab.size(), 0,
          0, 1, 0);
  section(nameAt(".shstrtab"), llvm::ELF::SHT_STRTAB, 0, shstrAt,
          sizeof(shstrtab), 0, 0, 1, 0);
  section(nameAt(".note.GNU-stack"), llvm::ELF::SHT_PROGBITS, 0, headersAt, 0,
          0, 0, 1, 0);
  out.close();
  if (out.has_error()) {
    out.clear_error();
    return error("cannot write '" + path + "'");
  }
  return llvm::Error::success();
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

static llvm::Error
writeArchive(llvm::StringRef path,
             std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects) {
  std::vector<llvm::NewArchiveMember> members(objects.size());
  for (auto [m, buf] : llvm::zip(members, objects)) {
    m.MemberName = buf->getBufferIdentifier();
    m.Buf = std::move(buf);
  }
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

/// The C++ driver that links libraries (--linker, $CXX, else c++).
static llvm::Expected<std::string>
linkerDriver(const SharedLibraryOptions &options) {
  std::string driver = options.linker;
  if (driver.empty())
    driver = std::getenv("CXX") ? std::getenv("CXX") : "c++";
  auto driverPath = llvm::sys::findProgramByName(driver);
  if (!driverPath)
    return error("cannot find the linker driver '" + driver +
                 "' (--linker, $CXX)");
  return *driverPath;
}

static llvm::Error runLinker(llvm::StringRef path,
                             const std::vector<std::string> &args) {
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string linkErr;
  int rc = llvm::sys::ExecuteAndWait(args.front(), argRefs, std::nullopt, {}, 0,
                                     0, &linkErr);
  if (rc != 0)
    return error("linking '" + path + "' failed (" + llvm::join(args, " ") +
                 ")" + (linkErr.empty() ? "" : ": " + linkErr));
  return llvm::Error::success();
}

static llvm::Error linkShared(llvm::StringRef path, llvm::StringRef name,
                              llvm::ArrayRef<std::string> objects,
                              const SharedLibraryOptions &options) {
  // The model's objects and the runtime in one library that exports only
  // the C API and the model's entry points; the runtime's C++ internals
  // stay local.
  if (!llvm::sys::fs::exists(options.runtimeLibrary))
    return error("the AMK runtime library '" + options.runtimeLibrary +
                 "' does not exist (--runtime-library)");
  llvm::SmallString<128> tmpMap;
  std::optional<llvm::FileRemover> removeMap;
  if (llvm::Error e = temporaryFile(
          "map", "{ global: amk_*; " + name.str() + "_*; local: *; };\n",
          tmpMap, removeMap))
    return e;
  auto driver = linkerDriver(options);
  if (!driver)
    return driver.takeError();
  std::vector<std::string> args = {*driver, "-shared", "-o", path.str()};
  args.insert(args.end(), objects.begin(), objects.end());
  for (const char *a : {"-Wl,--whole-archive", options.runtimeLibrary.c_str(),
                        "-Wl,--no-whole-archive"})
    args.push_back(a);
  args.push_back("-Wl,--version-script=" + std::string(tmpMap));
  for (const char *a : {"-lxsmm", "-lxsmmnoblas", "-lpthread", "-ldl", "-lm"})
    args.push_back(a);
  return runLinker(path, args);
}

llvm::Error amk::writeModelLibrary(llvm::StringRef path, llvm::StringRef name,
                                   const ModelObjects &objects,
                                   const SharedLibraryOptions &options) {
  LibraryKind kind = *libraryKind(path);
  bool apart = !objects.constantsSymbol.empty();
  if (kind == LibraryKind::Object && !apart)
    return writeFileData(path, objects.code);
  // The linker reads files: the code, and the weights' object, which is
  // streamed to its file (an archive maps it).
  llvm::SmallString<128> code, consts;
  std::optional<llvm::FileRemover> removeCode, removeConsts;
  if (kind != LibraryKind::Archive)
    if (llvm::Error e = temporaryFile("o", objects.code, code, removeCode))
      return e;
  if (apart) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "amk-compile-constants", "o", consts))
      return error("cannot create a temporary file: " + ec.message());
    removeConsts.emplace(consts);
    if (llvm::Error e =
            writeConstantsObject(consts, objects.constantsSymbol,
                                 objects.constantsBytes, objects.constants))
      return e;
  }
  std::vector<std::string> files;
  for (const llvm::SmallString<128> &f : {code, consts})
    if (!f.empty())
      files.push_back(std::string(f));
  switch (kind) {
  case LibraryKind::Object: {
    // One relocatable object, as a build system expects from a .o.
    auto driver = linkerDriver(options);
    if (!driver)
      return driver.takeError();
    std::vector<std::string> args = {*driver, "-r", "-nostdlib", "-o",
                                     path.str()};
    args.insert(args.end(), files.begin(), files.end());
    return runLinker(path, args);
  }
  case LibraryKind::Archive: {
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> members;
    members.push_back(llvm::MemoryBuffer::getMemBuffer(
        objects.code, (name + ".o").str(), false));
    std::unique_ptr<llvm::MemoryBuffer> mapped;
    if (apart) {
      auto buf = llvm::MemoryBuffer::getFile(consts, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      if (!buf)
        return error("cannot read '" + consts +
                     "': " + buf.getError().message());
      mapped = std::move(*buf);
      members.push_back(llvm::MemoryBuffer::getMemBuffer(
          mapped->getBuffer(), (name + "_constants.o").str(), false));
    }
    return writeArchive(path, std::move(members));
  }
  case LibraryKind::Shared:
    return linkShared(path, name, files, options);
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
