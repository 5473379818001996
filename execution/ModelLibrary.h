//===- ModelLibrary.h - A model as a library with a C API -------*- C++ -*-===//
//
// Part of AMK. What amk-compile writes (docs/integration.md): a task
// program lowered with its weights embedded, as an object file, a static
// archive or a shared library with the runtime linked in, and the C header
// over amk/model.h that goes with it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_EXECUTION_MODELLIBRARY_H
#define AMK_EXECUTION_MODELLIBRARY_H

#include "execution/ProgramLoader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace amk {

/// The C name of the model in library `outputPath`: its file name without
/// "lib" and extensions, as an identifier.
std::string defaultModelName(llvm::StringRef outputPath);
/// Whether `s` is a C identifier.
bool isCName(llvm::StringRef s);

enum class LibraryKind { Archive, Shared, Object };
/// By the name's ending: .a, .so or .o.
std::optional<LibraryKind> libraryKind(llvm::StringRef path);

/// What a model library is made of: the relocatable object of its code and
/// tables and, where the host's object format allows (ELF on x86-64 and
/// AArch64), its weights apart. The weights go from the task program's
/// attributes to the library file without passing through LLVM: embedded,
/// a blob of W bytes is copied into an MLIR attribute, an LLVM constant,
/// the assembler's section and the object's buffer, four copies alive at
/// once (docs/integration.md, "Memory").
struct ModelObjects {
  llvm::SmallString<0> code;
  /// The symbol `code` reads the weights through (64-byte aligned), the
  /// weights' bytes and the constant buffers' values at their offsets;
  /// no symbol when the weights are embedded in `code` (hosts whose object
  /// format writeConstantsObject does not write).
  std::string constantsSymbol;
  uint64_t constantsBytes = 0;
  std::vector<PlacedConstant> constants;
};

/// `program` lowered alone, its symbols prefixed with `name`, for this
/// host. The pipeline that made it is recorded in the module
/// (amk.pipeline).
llvm::Expected<ModelObjects> emitModelObject(amk::task::ProgramOp program,
                                             llvm::StringRef name,
                                             llvm::StringRef pipeline);

/// The symbol prefix of variant `index` of model `name`: `name_v<index>`.
std::string variantPrefix(llvm::StringRef name, unsigned index);
/// The hash of a library of several variants, from theirs in order.
uint64_t combineVariantHashes(llvm::ArrayRef<uint64_t> hashes);
/// Several programs of one model (one per input-shape set) in one object:
/// variant k's symbols are prefixed variantPrefix(name, k), and
/// `name_model()` returns a descriptor whose `variants` lists them, with
/// `hash` (combineVariantHashes). The variants share one set of weights.
/// One program: emitModelObject.
llvm::Expected<ModelObjects>
emitModelVariantsObject(llvm::ArrayRef<amk::task::ProgramOp> programs,
                        llvm::StringRef name, llvm::StringRef pipeline,
                        uint64_t hash);

/// Writes a relocatable ELF object for this host that defines `symbol`
/// (global, hidden, read-only, 64-byte aligned) as `bytes` bytes: each
/// constant at its offset, zeros between (streamConstants).
llvm::Error writeConstantsObject(llvm::StringRef path, llvm::StringRef symbol,
                                 uint64_t bytes,
                                 llvm::ArrayRef<PlacedConstant> constants);

struct SharedLibraryOptions {
  std::string runtimeLibrary; ///< libamk_runtime.a
  std::string linker;         ///< The C++ driver; $CXX, else c++, if empty.
};

/// Writes the model's objects as `path`, the kind its name says: one
/// object (the code and the weights joined by a relocatable link, through
/// the linker driver), an archive holding them, or a shared library that
/// links them with the runtime and exports only the C API and `name`'s
/// entry points.
llvm::Error writeModelLibrary(llvm::StringRef path, llvm::StringRef name,
                              const ModelObjects &objects,
                              const SharedLibraryOptions &options);

/// The model's C header: its hash, each variant's inputs and outputs, and
/// the session constructors (variant 0, or by input shapes) that check
/// header, library and runtime belong together.
std::string modelHeader(llvm::StringRef name, llvm::StringRef modelFile,
                        llvm::ArrayRef<const LoadedProgram *> variants,
                        uint64_t hash, llvm::StringRef pipeline);

/// Writes `data` to `path`, leaving no partial file behind.
llvm::Error writeFileData(llvm::StringRef path, llvm::StringRef data);

} // namespace amk

#endif // AMK_EXECUTION_MODELLIBRARY_H
