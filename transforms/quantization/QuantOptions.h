//===- QuantOptions.h - Fixed-value quantization options --------*- C++ -*-===//
//
// Part of AMK. The enum types of amk-calibrate's and amk-insert-qdq's
// options (Passes.td); QuantConfig keeps their ONNX/JSON spellings.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_QUANTIZATION_QUANTOPTIONS_H
#define AMK_TRANSFORMS_QUANTIZATION_QUANTOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

namespace amk::quant {

enum class IntType { UInt8, Int8, Int16 };
enum class CalibrationMethod { MinMax, Percentile, Entropy, MSE };
/// amk-quantize's precision.
enum class Precision { FP32, Int8, Mixed, Dynamic, W8, W4 };

inline llvm::StringRef stringify(IntType t) {
  switch (t) {
  case IntType::UInt8:
    return "uint8";
  case IntType::Int8:
    return "int8";
  case IntType::Int16:
    return "int16";
  }
  llvm_unreachable("unknown IntType");
}

inline llvm::StringRef stringify(CalibrationMethod m) {
  switch (m) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Entropy:
    return "entropy";
  case CalibrationMethod::MSE:
    return "mse";
  }
  llvm_unreachable("unknown CalibrationMethod");
}

inline llvm::StringRef stringify(Precision p) {
  switch (p) {
  case Precision::FP32:
    return "fp32";
  case Precision::Int8:
    return "int8";
  case Precision::Mixed:
    return "mixed";
  case Precision::Dynamic:
    return "dynamic";
  case Precision::W8:
    return "w8";
  case Precision::W4:
    return "w4";
  }
  llvm_unreachable("unknown Precision");
}

} // namespace amk::quant

#endif // AMK_TRANSFORMS_QUANTIZATION_QUANTOPTIONS_H
