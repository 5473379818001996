//===- DecomposeOps.cpp - amk-decompose-ops -------------------------------===//
//
// Part of AMK. Rewrites DFT, STFT, MeanVarianceNormalization and
// reductions over non-adjacent axes into ops with runtime kernels
// (Passes.td has the contract). The DFT becomes a product with a constant
// matrix because the GEMM kernels are the fastest code the runtime has:
// for the frame lengths audio front-ends use (256-1024) the dense product
// costs 2 L^2 flops per frame at near peak, against an FFT's ~5 L log L
// in scalar code.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/PassUtils.h"
#include "transforms/graph/Passes.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "reference/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>
#include <numeric>

namespace amk {
#define GEN_PASS_DEF_DECOMPOSEOPS
#include "transforms/graph/Passes.h.inc"
} // namespace amk

using namespace mlir;
namespace onnx = amk::onnx;
using amk::ref::Tensor;

namespace {

/// Builds onnx ops by name at the module's opset (21 after
/// amk-normalize-opset): operands in schema order, `none` for omitted ones.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value op(StringRef name, Type result, ValueRange operands,
           ArrayRef<NamedAttribute> attrs = {}) {
    OperationState st(loc, ("onnx." + name).str());
    st.addOperands(operands);
    st.addTypes(result);
    // MaxPool's optional Indices result: none when unused.
    if (name == "MaxPool")
      st.addTypes(b.getNoneType());
    st.addAttributes(attrs);
    return b.create(st)->getResult(0);
  }
  Value ints(ArrayRef<int64_t> v) {
    return amk::createConstant(b, loc,
                               Tensor::fromInt64(v, {(int64_t)v.size()}));
  }
  Value scalar(float v) {
    return amk::createConstant(b, loc, Tensor::scalar(onnx::DataType::FLOAT, v));
  }
  Value none() { return amk::getNoneValue(b, loc); }
  NamedAttribute attr(StringRef n, int64_t v) {
    return b.getNamedAttr(n, b.getI64IntegerAttr(v));
  }
  NamedAttribute attr(StringRef n, ArrayRef<int64_t> v) {
    return b.getNamedAttr(n, b.getDenseI64ArrayAttr(v));
  }

  Value transpose(Value x, ArrayRef<int64_t> perm) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    return op("Transpose", t.clone(shape), {x}, {attr("perm", perm)});
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    auto t = cast<RankedTensorType>(x.getType());
    return op("Reshape", t.clone(shape), {x, ints(shape)});
  }

  OpBuilder &b;
  Location loc;
};

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if ((int64_t)i != p)
      return false;
  return true;
}

/// An integer scalar operand or attribute: the constant's value.
std::optional<int64_t> constInt(Value v) {
  if (!v || amk::isNone(v))
    return std::nullopt;
  auto t = amk::getConstantTensor(v);
  if (!t || t->numel() != 1)
    return std::nullopt;
  return t->getInt(0);
}

class DecomposeOpsPass : public amk::impl::DecomposeOpsBase<DecomposeOpsPass> {
public:
  using DecomposeOpsBase::DecomposeOpsBase;

  /// x: [..., L, c] (c = 1 or 2) with the signal on axis -2, already of
  /// the transform's length. Returns [..., bins, 2].
  FailureOr<Value> dftLastAxis(Emitter &e, Value x, bool inverse,
                               bool onesided) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t rank = t.getRank(), L = t.getDimSize(rank - 2),
            c = t.getDimSize(rank - 1);
    int64_t bins = onesided ? L / 2 + 1 : L;
    if (L * c * bins * 2 > maxDftElements)
      return failure();
    // W[(n c + r), (k 2 + o)]: x_n = a + ib times e^{sign i 2pi kn/L}.
    Tensor w(onnx::DataType::FLOAT, {L * c, bins * 2});
    double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / L : 1.0;
    for (int64_t n = 0; n < L; ++n)
      for (int64_t k = 0; k < bins; ++k) {
        double ang = sign * 2 * M_PI * (double)((k * n) % L) / L;
        double co = std::cos(ang) * scale, si = std::sin(ang) * scale;
        // (a + ib)(co + i si) = (a co - b si) + i (a si + b co)
        w.setDouble((n * c) * bins * 2 + k * 2, co);
        w.setDouble((n * c) * bins * 2 + k * 2 + 1, si);
        if (c == 2) {
          w.setDouble((n * c + 1) * bins * 2 + k * 2, -si);
          w.setDouble((n * c + 1) * bins * 2 + k * 2 + 1, co);
        }
      }
    SmallVector<int64_t> lead(t.getShape().drop_back(2));
    int64_t rows = std::accumulate(lead.begin(), lead.end(), int64_t(1),
                                   std::multiplies<int64_t>());
    Value flat = e.reshape(x, {rows, L * c});
    Value m = e.op("MatMul", t.clone({rows, bins * 2}),
                   {flat, amk::createConstant(e.b, e.loc, w)});
    SmallVector<int64_t> out(lead);
    out.append({bins, 2});
    return e.reshape(m, out);
  }

  /// x cut or zero-padded along `axis` to `len`.
  Value fitLength(Emitter &e, Value x, int64_t axis, int64_t len) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t n = t.getDimSize(axis);
    if (n == len)
      return x;
    SmallVector<int64_t> shape(t.getShape());
    shape[axis] = len;
    if (n > len)
      return e.op("Slice", t.clone(shape),
                  {x, e.ints({0}), e.ints({len}), e.ints({axis}), e.ints({1})});
    SmallVector<int64_t> pads(2 * t.getRank(), 0);
    pads[t.getRank() + axis] = len - n;
    return e.op("Pad", t.clone(shape),
                {x, e.ints(pads), e.none(), e.none()},
                {e.b.getNamedAttr("mode", e.b.getStringAttr("constant"))});
  }

  LogicalResult decomposeDFT(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32() || !yt ||
        !yt.hasStaticShape())
      return failure();
    const onnx::VersionInfo *v = onnx::getVersionInfo(op);
    int64_t since = v ? v->since : 17;
    int64_t rank = t.getRank();
    std::optional<int64_t> axis =
        since >= 20 ? (op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))
                           ? constInt(op->getOperand(2))
                           : std::optional<int64_t>(-2))
                    : std::optional<int64_t>(
                          op->hasAttr("axis")
                              ? cast<IntegerAttr>(op->getAttr("axis")).getInt()
                              : 1);
    if (!axis)
      return failure();
    int64_t a = *axis < 0 ? *axis + rank - 1 : *axis;
    if (a < 1 || a >= rank - 1)
      return failure();
    int64_t len = t.getDimSize(a);
    if (op->getNumOperands() > 1 && !amk::isNone(op->getOperand(1))) {
      auto l = constInt(op->getOperand(1));
      if (!l || *l < 1)
        return failure();
      len = *l;
    }
    auto flag = [&](StringRef n) {
      auto at = op->getAttrOfType<IntegerAttr>(n);
      return at && at.getInt() != 0;
    };
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    // Signal axis next to the real/imaginary one.
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank - 1; ++d)
      if (d != a)
        perm.push_back(d);
    perm.append({a, rank - 1});
    Value moved = isIdentity(perm) ? x : e.transpose(x, perm);
    Value fitted = fitLength(e, moved, rank - 2, len);
    auto r = dftLastAxis(e, fitted, flag("inverse"), flag("onesided"));
    if (failed(r))
      return failure();
    Value y = *r;
    if (!isIdentity(perm)) {
      SmallVector<int64_t> inv(rank);
      for (auto [i, p] : llvm::enumerate(perm))
        inv[p] = i;
      y = e.transpose(y, inv);
    }
    if (y.getType() != yt)
      return failure();
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  LogicalResult decomposeSTFT(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32() ||
        t.getRank() != 3 || !yt || !yt.hasStaticShape())
      return failure();
    auto step = constInt(op->getOperand(1));
    Value window = op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))
                       ? op->getOperand(2)
                       : Value();
    std::optional<int64_t> frameLen;
    if (op->getNumOperands() > 3 && !amk::isNone(op->getOperand(3)))
      frameLen = constInt(op->getOperand(3));
    else if (window)
      frameLen = cast<RankedTensorType>(window.getType()).getDimSize(0);
    if (!step || !frameLen || *step < 1 || *frameLen < 1)
      return failure();
    int64_t B = t.getDimSize(0), N = t.getDimSize(1), c = t.getDimSize(2);
    int64_t frames = (N - *frameLen) / *step + 1;
    if (frames < 1)
      return failure();
    auto one = op->getAttrOfType<IntegerAttr>("onesided");
    bool onesided = !one || one.getInt() != 0;
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Tensor idx(onnx::DataType::INT64, {frames, *frameLen});
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t i = 0; i < *frameLen; ++i)
        idx.setInt(f * *frameLen + i, f * *step + i);
    Value framed = e.op("Gather", t.clone({B, frames, *frameLen, c}),
                        {x, amk::createConstant(b, op->getLoc(), idx)},
                        {e.attr("axis", 1)});
    if (window) {
      auto wt = cast<RankedTensorType>(window.getType());
      if (!wt.getElementType().isF32() || wt.getRank() != 1 ||
          wt.getDimSize(0) != *frameLen)
        return failure();
      Value w = e.reshape(window, {*frameLen, 1});
      framed = e.op("Mul", framed.getType(), {framed, w});
    }
    auto r = dftLastAxis(e, framed, false, onesided);
    if (failed(r) || (*r).getType() != yt)
      return failure();
    op->getResult(0).replaceAllUsesWith(*r);
    op->erase();
    return success();
  }

  LogicalResult decomposeMVN(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return failure();
    SmallVector<int64_t> axes = {0, 2, 3};
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
      axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    SmallVector<int64_t> keep(t.getShape());
    for (int64_t &ax : axes) {
      if (ax < 0)
        ax += t.getRank();
      if (ax < 0 || ax >= t.getRank())
        return failure();
      keep[ax] = 1;
    }
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    auto mean = [&](Value v) {
      return e.op("ReduceMean", t.clone(keep), {v, e.ints(axes)},
                  {e.attr("keepdims", 1)});
    };
    Value d = e.op("Sub", t, {x, mean(x)});
    Value var = mean(e.op("Mul", t, {d, d}));
    Value sd = e.op("Sqrt", var.getType(), {var});
    Value den = e.op("Add", var.getType(), {sd, e.scalar(1e-9f)});
    Value y = e.op("Div", t, {d, den});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// A reduction over axes that are not adjacent, through a Transpose that
  /// makes them the trailing ones.
  LogicalResult decomposeReduction(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !t.hasStaticShape() || !yt || !yt.hasStaticShape() ||
        op->getNumOperands() < 2)
      return failure();
    auto at = amk::getConstantTensor(op->getOperand(1));
    if (!at || at->numel() < 2)
      return failure();
    int64_t rank = t.getRank();
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < at->numel(); ++i) {
      int64_t a = at->getInt(i);
      axes.push_back(a < 0 ? a + rank : a);
    }
    llvm::sort(axes);
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    if (axes.front() < 0 || axes.back() >= rank ||
        axes.back() - axes.front() + 1 == (int64_t)axes.size())
      return failure(); // adjacent: the runtime's kernels take it as it is
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(axes, d))
        perm.push_back(d);
    int64_t kept = perm.size();
    perm.append(axes.begin(), axes.end());
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Value moved = e.transpose(x, perm);
    SmallVector<int64_t> trailing, reducedShape;
    for (int64_t d = kept; d < rank; ++d)
      trailing.push_back(d);
    for (int64_t d = 0; d < kept; ++d)
      reducedShape.push_back(t.getDimSize(perm[d]));
    SmallVector<NamedAttribute> attrs(op->getAttrs());
    llvm::erase_if(attrs, [](NamedAttribute a) {
      return a.getName() == "keepdims";
    });
    attrs.push_back(e.attr("keepdims", 0));
    Value r = e.op(op->getName().stripDialect(), yt.clone(reducedShape),
                   {moved, e.ints(trailing)}, attrs);
    if (r.getType() != yt)
      r = e.reshape(r, yt.getShape());
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
    return success();
  }

  /// 3-D MaxPool/AveragePool as two 2-D pools: over H x W of each depth
  /// slice, then over D with a kd x 1 window. Max and sum separate by axis,
  /// and so do the padded-window counts of count_include_pad=0 averages.
  LogicalResult decomposePool3D(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !t.hasStaticShape() || t.getRank() != 5 || !yt ||
        !yt.hasStaticShape() || !t.getElementType().isF32() ||
        (op->getNumResults() > 1 && !op->getResult(1).use_empty()))
      return failure();
    auto ints = [&](StringRef n, int64_t d) {
      SmallVector<int64_t> v(3, d);
      if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(n))
        v.assign(a.asArrayRef().begin(), a.asArrayRef().end());
      return v;
    };
    SmallVector<int64_t> k = ints("kernel_shape", 1), s = ints("strides", 1),
                         dl = ints("dilations", 1);
    SmallVector<int64_t> pads(6, 0);
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("pads"))
      pads.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    if (k.size() != 3 || s.size() != 3 || dl.size() != 3 || pads.size() != 6)
      return failure();
    int64_t N = t.getDimSize(0), C = t.getDimSize(1), D = t.getDimSize(2),
            H = t.getDimSize(3), W = t.getDimSize(4);
    int64_t OD = yt.getDimSize(2), OH = yt.getDimSize(3), OW = yt.getDimSize(4);
    auto strAttr = op->getAttrOfType<StringAttr>("auto_pad");
    StringRef autoPad = strAttr ? strAttr.getValue() : "NOTSET";
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t in[3] = {D, H, W}, out[3] = {OD, OH, OW};
      for (int i = 0; i < 3; ++i) {
        int64_t total = std::max<int64_t>(
            0, (out[i] - 1) * s[i] + (k[i] - 1) * dl[i] + 1 - in[i]);
        pads[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        pads[i + 3] = total - pads[i];
      }
    } else if (autoPad == "VALID") {
      pads.assign(6, 0);
    }
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    SmallVector<NamedAttribute> common;
    for (StringRef n : {"ceil_mode", "count_include_pad"})
      if (auto a = op->getAttr(n))
        common.push_back(b.getNamedAttr(n, a));
    auto pool = [&](Value in, ArrayRef<int64_t> outShape,
                    ArrayRef<int64_t> kk, ArrayRef<int64_t> ss,
                    ArrayRef<int64_t> pp, ArrayRef<int64_t> dd) {
      SmallVector<NamedAttribute> attrs(common);
      attrs.append({e.attr("kernel_shape", kk), e.attr("strides", ss),
                    e.attr("pads", pp)});
      if (isa<onnx::MaxPoolOp>(op))
        attrs.push_back(e.attr("dilations", dd));
      else if (dd[0] != 1 || dd[1] != 1)
        attrs.push_back(e.attr("dilations", dd));
      return e.op(op->getName().stripDialect(), t.clone(outShape), {in},
                  attrs);
    };
    Value planes = e.reshape(x, {N, C * D, H, W});
    Value hw = pool(planes, {N, C * D, OH, OW}, {k[1], k[2]}, {s[1], s[2]},
                    {pads[1], pads[2], pads[4], pads[5]}, {dl[1], dl[2]});
    Value cols = e.reshape(hw, {N, C, D, OH * OW});
    Value d = pool(cols, {N, C, OD, OH * OW}, {k[0], 1}, {s[0], 1},
                   {pads[0], 0, pads[3], 0}, {dl[0], 1});
    Value y = e.reshape(d, yt.getShape());
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// MaxPool on 8- or 16-bit integers: through float32, which holds every
  /// such value exactly (a max picks one of them).
  LogicalResult widenIntMaxPool(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !yt || !t.getElementType().isInteger() ||
        t.getElementType().getIntOrFloatBitWidth() > 16 ||
        (op->getNumResults() > 1 && !op->getResult(1).use_empty()))
      return failure();
    auto dt = onnx::getDataType(t.getElementType());
    if (!dt)
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Type f32 = b.getF32Type();
    Value xf = e.op("Cast", t.clone(f32), {x},
                    {e.attr("to", (int64_t)onnx::DataType::FLOAT)});
    Value pooled = e.op("MaxPool", yt.clone(f32), {xf}, op->getAttrs());
    Value y = e.op("Cast", yt, {pooled}, {e.attr("to", (int64_t)*dt)});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::DFTOp, onnx::STFTOp, onnx::MeanVarianceNormalizationOp,
              onnx::MaxPoolOp, onnx::AveragePoolOp>(op))
        ops.push_back(op);
    });
    int64_t done = 0;
    for (Operation *op : ops) {
      LogicalResult r = failure();
      if (isa<onnx::DFTOp>(op))
        r = decomposeDFT(op);
      else if (isa<onnx::STFTOp>(op))
        r = decomposeSTFT(op);
      else if (isa<onnx::MeanVarianceNormalizationOp>(op))
        r = decomposeMVN(op);
      else if (failed(r = widenIntMaxPool(op)))
        r = decomposePool3D(op);
      done += succeeded(r);
    }
    // Reductions last: MeanVarianceNormalization's are among them.
    ops.clear();
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::ReduceMeanOp, onnx::ReduceSumOp, onnx::ReduceMaxOp,
              onnx::ReduceMinOp, onnx::ReduceProdOp, onnx::ReduceL1Op,
              onnx::ReduceL2Op, onnx::ReduceLogSumOp, onnx::ReduceLogSumExpOp,
              onnx::ReduceSumSquareOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      done += succeeded(decomposeReduction(op));
    numDecomposed = done;
    amk::PassCounters::add(this, "decomposed", done, "ops rewritten");
  }
};

} // namespace
