//===- TargetProfile.h - Target profiles of knowledge/targets ---*- C++ -*-===//
//
// Part of AMK. A target profile says what pays on a target (today: when
// Conv fusion does); one JSON file per target in knowledge/targets/.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_TARGETPROFILE_H
#define AMK_PASSES_TARGETPROFILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace amk {

struct TargetProfile {
  std::string name;
  /// The file it was read from.
  std::string path;
  /// Conv fusion pays when the graph's Conv FLOP share and Conv count share
  /// (of all non-constant ops) are at most these.
  double maxConvFlopShare = 1.0;
  double maxConvCountShare = 1.0;
  std::string convFusionEvidence;
};

/// The directories searched for `<target>.json`, in order: `dir` when not
/// empty, $AMK_TARGETS_DIR, the source tree's knowledge/targets, the
/// installed share/amk/targets.
std::vector<std::string> targetSearchPath(llvm::StringRef dir);

/// Loads target `target` (a name searched for in targetSearchPath(dir), or
/// a path to a .json file). On failure, `error` says why (and lists the
/// known targets when the name is unknown).
mlir::FailureOr<TargetProfile> loadTargetProfile(llvm::StringRef target,
                                                 llvm::StringRef dir,
                                                 std::string &error);

} // namespace amk

#endif // AMK_PASSES_TARGETPROFILE_H
