//===- ToolError.cpp - How AMK's tools report errors ----------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "tools/lib/ToolError.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace amk;

void ToolErrors::fail(const llvm::Twine &message) const {
  llvm::errs() << tool << ": error: " << message << "\n";
  std::exit(status);
}

void ToolErrors::fail(llvm::Error error) const {
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    llvm::errs() << tool << ": error: " << e.message() << "\n";
  });
  std::exit(status);
}

void ToolErrors::warning(const llvm::Twine &message) const {
  llvm::errs() << tool << ": warning: " << message << "\n";
}

void ToolErrors::note(const llvm::Twine &message) const {
  llvm::errs() << tool << ": note: " << message << "\n";
}

llvm::Error amk::prefixError(const llvm::Twine &prefix, llvm::Error error) {
  if (!error)
    return llvm::Error::success();
  return llvm::createStringError(prefix + llvm::toString(std::move(error)));
}
