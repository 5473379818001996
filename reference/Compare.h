//===- Compare.h - Comparing interpreter values -----------------*- C++ -*-===//
//
// Part of AMK. Checks actual values against expected ones the way the ONNX
// backend tests do (numpy's assert_allclose: |a - e| <= atol + rtol * |e|,
// NaN equals NaN) for floating-point types, and exactly for integers, bool
// and strings; reports the worst element.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_REFERENCE_COMPARE_H
#define AMK_REFERENCE_COMPARE_H

#include "reference/Tensor.h"
#include "translate/TensorIO.h"

#include <string>

namespace amk::ref {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
  /// How far integer elements may differ. Nonzero only for the 8-bit
  /// outputs of QuantizeLinear, whose reference value rounds float32 sums
  /// (an integer kernel's exact sum may round to the next step).
  int64_t intSteps = 0;
};

struct Comparison {
  bool ok = true;
  /// Why it failed ("shape [2,3] vs [3,2]", "element 5: 1.5 vs 1.25").
  std::string message;
  /// Over all elements (floating-point outputs).
  double maxAbsError = 0;
  double maxRelError = 0;
  double cosine = 1;
  /// The element that violates the tolerance most (or the largest error).
  int64_t worstIndex = -1;
  double worstExpected = 0;
  double worstActual = 0;
  /// Integer elements that differ within Tolerance::intSteps.
  int64_t stepsOff = 0;
};

/// A tolerance relative to the scale of `expected`: rtol, and an absolute
/// tolerance of rtol times the largest finite magnitude of `expected` (so
/// near-zero elements, whose relative error only measures cancellation, are
/// judged against the output's scale). Non-float values compare exactly
/// whatever the tolerance.
Tolerance scaledTolerance(const RValue &expected, double rtol);

Comparison compareValues(const RValue &expected, const RValue &actual,
                         const Tolerance &tol);

/// Converts a value read from a test-data file. ONNX's test generator
/// stores bfloat16 tensors as uint16 bit patterns (numpy has no bfloat16);
/// with `expected` a bfloat16 tensor type they are read as bfloat16.
RValue toRValue(const ValueFile &file, mlir::Type expected = nullptr);

} // namespace amk::ref

#endif // AMK_REFERENCE_COMPARE_H
