//===- ONNXCanonicalize.cpp - Canonicalization patterns of the dialect ----===//
//
// Part of AMK. The ONNX dialect's canonicalization patterns, run by MLIR's
// `canonicalize` pass. Each keeps the op's semantics exactly at every opset
// (they only remove or merge ops of the same kind), and keeps the types
// the IR declares: a rewrite that would change a value's type is skipped.
//
//  - Identity(x)                      -> x
//  - Dropout(x) in inference mode     -> x (when its mask is unused)
//  - Transpose(x, identity)           -> x
//  - Transpose(Transpose(x, p), q)    -> Transpose(x, p o q), or x
//  - Reshape(x) to x's own static shape -> x
//  - Reshape(Reshape(x, s), t)        -> Reshape(x, t) (t without 0s)
//  - Cast(x) to x's element type      -> x
//  - Cast(Cast(x, B), C)              -> Cast(x, C) when x -> B is exact
//  - Add/Sub(x, 0), Mul/Div(x, 1), Pow(x, 1) -> x (x's type unchanged)
//  - Expand(x) to x's own shape, Concat/Sum/Max/Min/Mean of one input -> x
//
//===----------------------------------------------------------------------===//

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace amk::onnx;

namespace {

/// Replaces `op`'s single result by `v` when the types agree.
LogicalResult replaceWith(PatternRewriter &rewriter, Operation *op, Value v) {
  if (op->getResult(0).getType() != v.getType())
    return rewriter.notifyMatchFailure(op, "the replacement has another type");
  rewriter.replaceOp(op, v);
  return success();
}

struct EraseIdentity : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IdentityOp op,
                                PatternRewriter &rewriter) const override {
    return replaceWith(rewriter, op, op.getInput());
  }
};

struct EraseInferenceDropout : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<NoneType>(op.getMask().getType()) && !op.getMask().use_empty())
      return rewriter.notifyMatchFailure(op, "its mask is used");
    Value training = op.getTrainingMode();
    if (!isa<NoneType>(training.getType()) && getSplatValue(training) != 0.0)
      return rewriter.notifyMatchFailure(op, "training mode may be on");
    if (op.getOutput().getType() != op.getData().getType())
      return failure();
    rewriter.replaceAllUsesWith(op.getOutput(), op.getData());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The permutation of a Transpose (reversal when absent), if the input is
/// ranked.
std::optional<SmallVector<int64_t>> permOf(TransposeOp op) {
  if (auto perm = op.getPerm())
    return SmallVector<int64_t>(perm->begin(), perm->end());
  auto t = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!t)
    return std::nullopt;
  SmallVector<int64_t> p;
  for (int64_t i = t.getRank() - 1; i >= 0; --i)
    p.push_back(i);
  return p;
}

struct FoldTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto outer = permOf(op);
    if (!outer)
      return failure();
    if (llvm::equal(*outer, llvm::seq<int64_t>(0, outer->size())))
      return replaceWith(rewriter, op, op.getData());
    auto inner = op.getData().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    auto innerPerm = permOf(inner);
    if (!innerPerm || innerPerm->size() != outer->size())
      return failure();
    // out[i] = mid[outer[i]] = x[inner[outer[i]]].
    SmallVector<int64_t> composed;
    for (int64_t i : *outer)
      composed.push_back((*innerPerm)[i]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return replaceWith(rewriter, op, inner.getData());
    auto t = TransposeOp::create(
        rewriter, op.getLoc(), TypeRange{op.getType()},
        ValueRange{inner.getData()},
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "perm", rewriter.getDenseI64ArrayAttr(composed))});
    rewriter.replaceOp(op, t.getResult());
    return success();
  }
};

struct FoldReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getData().getType());
    auto out = dyn_cast<RankedTensorType>(op.getType());
    if (in && out && in == out && in.hasStaticShape())
      return replaceWith(rewriter, op, op.getData());
    auto inner = op.getData().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    // A 0 in the outer shape copies a dimension of the intermediate
    // tensor (unless allowzero): only shapes without 0s compose.
    auto shape = getIntValues(op.getShape());
    if (!shape || llvm::is_contained(*shape, 0))
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op->setOperand(0, inner.getData()); });
    return success();
  }
};

/// Whether converting every value of `from` to `to` is exact.
bool isExactCast(Type from, Type to) {
  if (from == to)
    return true;
  auto fi = dyn_cast<IntegerType>(from);
  auto ti = dyn_cast<IntegerType>(to);
  if (fi && fi.getWidth() == 1)
    return isa<IntegerType, FloatType>(to);
  if (fi && ti && ti.getWidth() > 1) {
    bool fSigned = !fi.isUnsigned(), tSigned = !ti.isUnsigned();
    if (fSigned == tSigned)
      return ti.getWidth() >= fi.getWidth();
    return !fSigned && tSigned && ti.getWidth() > fi.getWidth();
  }
  if (fi && isa<FloatType>(to))
    return cast<FloatType>(to).getFPMantissaWidth() >=
           (fi.getWidth() - (fi.isUnsigned() ? 0 : 1));
  auto ff = dyn_cast<FloatType>(from);
  auto tf = dyn_cast<FloatType>(to);
  if (ff && tf)
    return (ff.isF16() || ff.isBF16()) ? (tf.isF32() || tf.isF64())
                                       : (ff.isF32() && tf.isF64());
  return false;
}

Type elementTypeOf(Value v) {
  if (auto t = dyn_cast<TensorType>(v.getType()))
    return t.getElementType();
  return nullptr;
}

struct FoldCasts : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Type in = elementTypeOf(op.getInput()), out = elementTypeOf(op.getOutput());
    if (!in || !out)
      return failure();
    if (in == out)
      return replaceWith(rewriter, op, op.getInput());
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner)
      return failure();
    Type src = elementTypeOf(inner.getInput());
    if (!src || !isExactCast(src, in))
      return rewriter.notifyMatchFailure(op, "the inner cast rounds");
    rewriter.modifyOpInPlace(op,
                             [&] { op->setOperand(0, inner.getInput()); });
    return success();
  }
};

/// x op c -> x when c is a constant of `neutral` elements.
template <typename OpTy>
struct EraseNeutralOperand : OpRewritePattern<OpTy> {
  EraseNeutralOperand(MLIRContext *ctx, double neutral, bool commutative)
      : OpRewritePattern<OpTy>(ctx), neutral(neutral),
        commutative(commutative) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value a = op->getOperand(0), b = op->getOperand(1);
    if (getSplatValue(b) == neutral &&
        op->getResult(0).getType() == a.getType())
      return replaceWith(rewriter, op, a);
    if (commutative && getSplatValue(a) == neutral &&
        op->getResult(0).getType() == b.getType())
      return replaceWith(rewriter, op, b);
    return failure();
  }
  double neutral;
  bool commutative;
};

/// Variadic ops of one input, and Expand to the input's own shape.
struct EraseTrivialDataMovement : RewritePattern {
  EraseTrivialDataMovement(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (isa<ConcatOp, SumOp, MaxOp, MinOp, MeanOp>(op) &&
        op->getNumOperands() == 1)
      return replaceWith(rewriter, op, op->getOperand(0));
    if (auto e = dyn_cast<ExpandOp>(op)) {
      auto t = dyn_cast<RankedTensorType>(e.getInput().getType());
      if (t && t.hasStaticShape() && e.getType() == t)
        return replaceWith(rewriter, op, e.getInput());
    }
    return failure();
  }
};

} // namespace

void ONNXDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  MLIRContext *ctx = getContext();
  results.add<EraseIdentity, EraseInferenceDropout, FoldTransposes,
              FoldReshapes, FoldCasts, EraseTrivialDataMovement>(ctx);
  results.add<EraseNeutralOperand<AddOp>>(ctx, 0.0, true);
  results.add<EraseNeutralOperand<SubOp>>(ctx, 0.0, false);
  results.add<EraseNeutralOperand<MulOp>>(ctx, 1.0, true);
  results.add<EraseNeutralOperand<DivOp>>(ctx, 1.0, false);
  results.add<EraseNeutralOperand<PowOp>>(ctx, 1.0, false);
}

/// onnx.Constant folds to the attribute that holds its value, whatever the
/// form: MLIR's constant matching (m_Constant) and the canonicalizer's
/// constant deduplication compare these attributes, so two constants are
/// merged only when both their value and their type are equal.
OpFoldResult ConstantOp::fold(FoldAdaptor) {
  for (Attribute a :
       {Attribute(getValueAttr()), Attribute(getSparseValueAttr()),
        Attribute(getValueFloatAttr()), Attribute(getValueFloatsAttr()),
        Attribute(getValueIntAttr()), Attribute(getValueIntsAttr()),
        Attribute(getValueStringAttr()), Attribute(getValueStringsAttr())})
    if (a)
      return a;
  // Invalid (the verifier rejects it); never match it with another.
  return UnitAttr::get(getContext());
}
