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
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

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
/// LayerNorm or RMSNorm ending at `root` (the Add of the bias, the Mul of
/// the scale, or, without either, the Div normalizing the input: then
/// `scale` is null).
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

struct RopeMatch {
  mlir::Value input, cos, sin;
  /// Pairs (x[2i], x[2i+1]) rather than rotate_half's (x[i], x[i + D/2]).
  bool interleaved = false;
  llvm::SmallVector<mlir::Operation *> ops;
};
/// Rotary position embedding ending at `root`: `x * cos + rotate_half(x) *
/// sin` (the Add; rotate_half as Concat(Neg(x[..., D/2:]), x[..., :D/2])
/// with the halves sliced or split), or the interleaved pairs (the Reshape
/// flattening Concat(Unsqueeze(x0 c - x1 s), Unsqueeze(x0 s + x1 c)) with
/// x0, x1 = x[..., 0::2], x[..., 1::2]). Static shapes only.
std::optional<RopeMatch> matchRope(mlir::Operation *root);

/// Whether the ops of a match other than its root have no users outside
/// the match (the match can be replaced as a whole).
bool isSelfContained(llvm::ArrayRef<mlir::Operation *> ops);

/// An activation applied to `input`: one op (Relu, Clip with constant
/// bounds, LeakyRelu, Sigmoid, HardSwish, Tanh, Gelu) or a decomposed Gelu.
struct ActivationMatch {
  mlir::Value input;
  /// "relu", "clip", "leaky_relu", "sigmoid", "hard_swish", "tanh",
  /// "gelu", "gelu_tanh" or "quick_gelu" (the names AMK's fused ops use).
  std::string kind;
  /// clip: min and max (infinite when absent); leaky_relu: alpha in `alpha`.
  double alpha = 0, beta = 0;
  llvm::SmallVector<mlir::Operation *> ops;
};
/// The activation applied to `input` by its only consumer (a decomposed
/// Gelu may use it several times). `convKinds` restricts to the
/// activations Conv fusion takes (Relu, Clip, HardSwish, Sigmoid,
/// LeakyRelu).
std::optional<ActivationMatch> matchActivationOf(mlir::Value input,
                                                 bool convKinds);

/// Conv [-> BatchNormalization] [-> Add] [-> activation], each link the
/// only use of the value before it: what Conv fusion folds into one op.
struct ConvChainMatch {
  mlir::Operation *conv = nullptr;
  /// An inference-mode BatchNormalization with constant parameters, when
  /// the Conv's weights (and bias) are constants too.
  mlir::Operation *bn = nullptr;
  /// An Add of a value (residual or bias) that does not change the shape.
  mlir::Operation *add = nullptr;
  mlir::Value addend;
  std::optional<ActivationMatch> act;
  /// Every op of the chain, conv first, root last.
  llvm::SmallVector<mlir::Operation *> ops;
  mlir::Operation *root() const { return ops.back(); }
};
/// The chain starting at `conv` (an onnx.Conv); ops for which `isClaimed`
/// returns true (already in another chain) end it.
std::optional<ConvChainMatch>
matchConvChain(mlir::Operation *conv,
               llvm::function_ref<bool(mlir::Operation *)> isClaimed);

/// MatMul(A, B) + C where the MatMul's only use is the Add and C
/// broadcasts to the product's shape without changing it.
struct MatMulBiasMatch {
  mlir::Operation *matmul = nullptr, *add = nullptr;
  mlir::Value bias;
};
std::optional<MatMulBiasMatch> matchMatMulBias(mlir::Operation *add);

/// Whether `v`'s shape broadcast with `onto`'s is `onto`'s (static shapes).
bool broadcastsOnto(mlir::Value v, mlir::Value onto);

/// A readable label for an op in reports: its ONNX node name, else the
/// name of its first result, else "<op type>".
std::string nodeLabel(mlir::Operation *op);
/// The labels of `ops` joined by " + " (remarks and reports).
std::string describeMatch(llvm::ArrayRef<mlir::Operation *> ops);

/// The groups that the ops `eligible` accepts form along single-use edges
/// (a producer whose only use is a consumer in the same block): the
/// connected groups have one root each. Groups and their ops are in the
/// order of `ops` (program order); groups of one op are included. With
/// `joinable`, a producer joins its consumer's group only when
/// joinable(producer, consumer) holds.
std::vector<std::vector<mlir::Operation *>> singleUseGroups(
    llvm::ArrayRef<mlir::Operation *> ops,
    llvm::function_ref<bool(mlir::Operation *)> eligible,
    llvm::function_ref<bool(mlir::Operation *, mlir::Operation *)> joinable =
        nullptr);

} // namespace amk

#endif // AMK_PASSES_PATTERNS_H
