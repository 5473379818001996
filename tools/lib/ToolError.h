//===- ToolError.h - How AMK's tools report errors --------------*- C++ -*-===//
//
// Part of AMK. The tools' libraries return llvm::Error; a tool turns a
// failure into "<tool>: error: <message>" on stderr and its exit status in
// one place, so every tool words its errors the same way.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TOOLS_LIB_TOOLERROR_H
#define AMK_TOOLS_LIB_TOOLERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace amk {

/// A tool's error reporting, like llvm::ExitOnError but with one
/// "<tool>: error: " line per error of a joined list (amk-run reports every
/// unsupported op that way) and the tool's own exit status.
class ToolErrors {
public:
  ToolErrors(llvm::StringRef tool, int status) : tool(tool), status(status) {}

  /// Reports `message` and exits.
  [[noreturn]] void fail(const llvm::Twine &message) const;
  /// Reports every error in `error` and exits.
  [[noreturn]] void fail(llvm::Error error) const;

  /// Exits through fail() if `error` is a failure.
  void operator()(llvm::Error error) const {
    if (error)
      fail(std::move(error));
  }
  /// The value, or exits through fail().
  template <typename T> T operator()(llvm::Expected<T> value) const {
    if (!value)
      fail(value.takeError());
    return std::move(*value);
  }

  /// "<tool>: warning: <message>" and "<tool>: note: <message>"; the tool
  /// goes on.
  void warning(const llvm::Twine &message) const;
  void note(const llvm::Twine &message) const;

  llvm::StringRef name() const { return tool; }

private:
  std::string tool;
  int status;
};

/// `error` with `prefix` in front of its message (nothing on success).
llvm::Error prefixError(const llvm::Twine &prefix, llvm::Error error);

} // namespace amk

#endif // AMK_TOOLS_LIB_TOOLERROR_H
