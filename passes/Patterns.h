//===- Patterns.h - Matchers for decomposed ONNX subgraphs ------*- C++ -*-===//
//
// Part of AMK. Exporters write Gelu, LayerNorm, RMSNorm and attention as
// chains of primitive ops; these matchers recognize them (in the forms
// PyTorch, TensorFlow and Hugging Face exporters produce) for opset
// normalization (recomposition), fusion-candidate detection and fusion.
// Each match lists the ops it covers, root last.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_PASSES_PATTERNS_H
#define AMK_PASSES_PATTERNS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace amk {

struct GeluMatch {
  mlir::Value input;
  /// "none" (erf form), "tanh", or "quick" (x * sigmoid(1.702 x)).
  std::string form;
  llvm::SmallVector<mlir::Operation *> ops;
};
/// Gelu ending at `root` (the last Mul).
std::optional<GeluMatch> matchGelu(mlir::Operation *root);

struct NormMatch {
  mlir::Value input, scale, bias; // bias may be null
  /// Normalized axis (negative: from the back), as LayerNormalization's.
  int64_t axis = -1;
  double epsilon = 0;
  /// True for RMSNorm (no mean subtraction).
  bool rms = false;
  llvm::SmallVector<mlir::Operation *> ops;
};
/// LayerNorm or RMSNorm ending at `root` (the Add of the bias, or the Mul
/// of the scale).
std::optional<NormMatch> matchNorm(mlir::Operation *root);

struct AttentionMatch {
  mlir::Value query, key, value; // key as multiplied: [.., S, D] or [.., D, S]
  mlir::Value mask;              // additive mask, or null
  double scale = 1;
  bool keyTransposed = false;    // key already [.., D, S]
  llvm::SmallVector<mlir::Operation *> ops;
};
/// Scaled-dot-product attention ending at `root` (the MatMul with V):
/// MatMul(Softmax(MatMul(Q, K^T) * s [+ mask]), V).
std::optional<AttentionMatch> matchAttention(mlir::Operation *root);

/// Whether the ops of a match other than its root have no users outside
/// the match (the match can be replaced as a whole).
bool isSelfContained(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace amk

#endif // AMK_PASSES_PATTERNS_H
