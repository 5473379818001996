//===- FuzzCommon.h - Shared setup of AMK's fuzz targets --------*- C++ -*-===//
//
// Part of AMK. Each fuzz target defines LLVMFuzzerTestOneInput; built with
// AMK_FUZZ=ON it links libFuzzer, otherwise StandaloneMain.cpp replays the
// files it is given (the crash regressions of test/fuzz/regressions run
// that way in every build). docs/security.md explains how to run them.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TEST_FUZZ_FUZZCOMMON_H
#define AMK_TEST_FUZZ_FUZZCOMMON_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace amk::fuzz {

/// A fresh context per input (no state carried between inputs, so every
/// crash reproduces from its file alone), single-threaded, with every
/// diagnostic swallowed: errors are the expected outcome for most inputs.
struct QuietContext {
  explicit QuietContext(const mlir::DialectRegistry &registry)
      : ctx(registry, mlir::MLIRContext::Threading::DISABLED),
        handler(&ctx, [](mlir::Diagnostic &) { return mlir::success(); }) {}
  mlir::MLIRContext ctx;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace amk::fuzz

#endif // AMK_TEST_FUZZ_FUZZCOMMON_H
