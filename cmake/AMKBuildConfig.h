//===- AMKBuildConfig.h - Force-included in every AMK translation unit ----===//
//
// Part of AMK. Debian's LLVM/MLIR 22 is built with NDEBUG, so in its
// libraries llvm::Statistic is the empty NoopStatistic. AMK keeps its
// assertions (NDEBUG undefined), which would make llvm/ADT/Statistic.h pick
// the larger TrackingStatistic in our code: mlir::Pass::Statistic would then
// have two layouts, one constructed by libMLIR and one used by us. This
// header includes Statistic.h once with NDEBUG defined, fixing the layout to
// the library's, then restores assertions for everything that follows.
//
// It also includes <memory> with -Wdeprecated-declarations off: GCC 12's
// libstdc++ implements std::stable_sort (behind llvm::stable_sort) with
// std::get_temporary_buffer, which clang 22 flags as deprecated inside the
// library header at every instantiation. Clang judges the warning by the
// pragma state at the library's line, so only that header is silenced;
// our own uses of deprecated declarations still warn.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_BUILD_CONFIG_H
#define AMK_BUILD_CONFIG_H

#ifdef __cplusplus
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <memory>
#pragma clang diagnostic pop
#endif
#ifndef NDEBUG
#define NDEBUG
#define AMK_RESTORE_ASSERTIONS
#endif
#include "llvm/ADT/Statistic.h"
#ifdef AMK_RESTORE_ASSERTIONS
#undef NDEBUG
#undef AMK_RESTORE_ASSERTIONS
#include <cassert>
#endif
#endif

#endif // AMK_BUILD_CONFIG_H
