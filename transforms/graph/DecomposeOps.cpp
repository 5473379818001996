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

#include <map>

#include <cmath>
#include <limits>
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
    return amk::createConstant(b, loc,
                               Tensor::scalar(onnx::DataType::FLOAT, v));
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

/// An ints attribute of `op`, or `len` copies of `dflt` when it is absent.
SmallVector<int64_t> intsOr(Operation *op, StringRef name, int64_t len,
                            int64_t dflt) {
  SmallVector<int64_t> v(len, dflt);
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(name))
    v.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  return v;
}

/// `pads` ([begins..., ends...]) made explicit for `op`'s auto_pad: SAME
/// pads from the static input and output sizes (the extra one at the end
/// for SAME_UPPER, the start for SAME_LOWER), VALID none, NOTSET as given.
void explicitPads(Operation *op, ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                  ArrayRef<int64_t> k, ArrayRef<int64_t> strides,
                  ArrayRef<int64_t> dil, SmallVectorImpl<int64_t> &pads) {
  auto a = op->getAttrOfType<StringAttr>("auto_pad");
  StringRef autoPad = a ? a.getValue() : "NOTSET";
  size_t n = in.size();
  if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * strides[i] +
                                               (k[i] - 1) * dil[i] + 1 - in[i]);
      pads[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[i + n] = total - pads[i];
    }
  }
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
    return e.op("Pad", t.clone(shape), {x, e.ints(pads), e.none(), e.none()},
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
        since >= 20
            ? (op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))
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
    llvm::erase_if(attrs,
                   [](NamedAttribute a) { return a.getName() == "keepdims"; });
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
    SmallVector<int64_t> k = intsOr(op, "kernel_shape", 3, 1),
                         s = intsOr(op, "strides", 3, 1),
                         dl = intsOr(op, "dilations", 3, 1);
    SmallVector<int64_t> pads(6, 0);
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("pads"))
      pads.assign(a.asArrayRef().begin(), a.asArrayRef().end());
    if (k.size() != 3 || s.size() != 3 || dl.size() != 3 || pads.size() != 6)
      return failure();
    int64_t N = t.getDimSize(0), C = t.getDimSize(1), D = t.getDimSize(2),
            H = t.getDimSize(3), W = t.getDimSize(4);
    int64_t OD = yt.getDimSize(2), OH = yt.getDimSize(3), OW = yt.getDimSize(4);
    explicitPads(op, {D, H, W}, {OD, OH, OW}, k, s, dl, pads);
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    SmallVector<NamedAttribute> common;
    for (StringRef n : {"ceil_mode", "count_include_pad"})
      if (auto a = op->getAttr(n))
        common.push_back(b.getNamedAttr(n, a));
    auto pool = [&](Value in, ArrayRef<int64_t> outShape, ArrayRef<int64_t> kk,
                    ArrayRef<int64_t> ss, ArrayRef<int64_t> pp,
                    ArrayRef<int64_t> dd) {
      SmallVector<NamedAttribute> attrs(common);
      attrs.append({e.attr("kernel_shape", kk), e.attr("strides", ss),
                    e.attr("pads", pp)});
      if (isa<onnx::MaxPoolOp>(op))
        attrs.push_back(e.attr("dilations", dd));
      else if (dd[0] != 1 || dd[1] != 1)
        attrs.push_back(e.attr("dilations", dd));
      return e.op(op->getName().stripDialect(), t.clone(outShape), {in}, attrs);
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

  /// 3-D convolution (video models: r3d, mc3) as one 2-D convolution: the
  /// KD input frames each output frame reads are gathered next to its
  /// channels, [N, C, D, H, W] -> [N * OD, C * KD, H, W] (channel-major,
  /// so a group's channels stay contiguous), and the weights reshaped to
  /// [OC, C/g * KD, KH, KW] to match. The input is copied KD times; the
  /// 2-D convolution kernels do the rest.
  LogicalResult decomposeConv3D(Operation *op) {
    Value x = op->getOperand(0), w = op->getOperand(1);
    Value bias = op->getNumOperands() > 2 ? op->getOperand(2) : Value();
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !wt || !yt || t.getRank() != 5 || !t.hasStaticShape() ||
        !wt.hasStaticShape() || !yt.hasStaticShape() ||
        !t.getElementType().isF32())
      return failure();
    SmallVector<int64_t> s = intsOr(op, "strides", 3, 1),
                         dl = intsOr(op, "dilations", 3, 1),
                         pads = intsOr(op, "pads", 6, 0);
    if (s.size() != 3 || dl.size() != 3 || pads.size() != 6)
      return failure();
    int64_t N = t.getDimSize(0), C = t.getDimSize(1), D = t.getDimSize(2),
            H = t.getDimSize(3), W = t.getDimSize(4);
    int64_t OC = wt.getDimSize(0), CG = wt.getDimSize(1), KD = wt.getDimSize(2),
            KH = wt.getDimSize(3), KW = wt.getDimSize(4);
    int64_t OD = yt.getDimSize(2), OH = yt.getDimSize(3), OW = yt.getDimSize(4);
    explicitPads(op, {D, H, W}, {OD, OH, OW}, {KD, KH, KW}, s, dl, pads);
    int64_t Dp = D + pads[0] + pads[3];
    if (OD != (Dp - dl[0] * (KD - 1) - 1) / s[0] + 1)
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Value xp = x;
    if (pads[0] || pads[3])
      xp = e.op("Pad", t.clone({N, C, Dp, H, W}),
                {x, e.ints({0, 0, pads[0], 0, 0, 0, 0, pads[3], 0, 0}),
                 e.none(), e.none()});
    SmallVector<int64_t> frames;
    for (int64_t o = 0; o < OD; ++o)
      for (int64_t k = 0; k < KD; ++k)
        frames.push_back(o * s[0] + k * dl[0]);
    Value idx = amk::createConstant(b, op->getLoc(),
                                    Tensor::fromInt64(frames, {OD, KD}));
    Value g = e.op("Gather", t.clone({N, C, OD, KD, H, W}), {xp, idx},
                   {e.attr("axis", 2)});
    Value cols =
        e.reshape(e.transpose(g, {0, 2, 1, 3, 4, 5}), {N * OD, C * KD, H, W});
    Value w2 = e.reshape(w, {OC, CG * KD, KH, KW});
    SmallVector<NamedAttribute> attrs = {
        e.attr("kernel_shape", ArrayRef<int64_t>{KH, KW}),
        e.attr("strides", ArrayRef<int64_t>{s[1], s[2]}),
        e.attr("dilations", ArrayRef<int64_t>{dl[1], dl[2]}),
        e.attr("pads", ArrayRef<int64_t>{pads[1], pads[2], pads[4], pads[5]})};
    if (auto grp = op->getAttrOfType<IntegerAttr>("group"))
      attrs.push_back(e.attr("group", grp.getInt()));
    SmallVector<Value> operands = {cols, w2, bias ? bias : e.none()};
    Value conv = e.op("Conv", t.clone({N * OD, OC, OH, OW}), operands, attrs);
    Value y =
        e.transpose(e.reshape(conv, {N, OD, OC, OH, OW}), {0, 2, 1, 3, 4});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// Global pooling over other than two spatial dims (3-D: video models;
  /// 1-D: audio) as the 2-D op over [N, C, prod(spatial), 1].
  LogicalResult decomposeGlobalPool(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !yt || !t.hasStaticShape() || !yt.hasStaticShape() ||
        t.getRank() == 4 || t.getRank() < 3)
      return failure();
    int64_t N = t.getDimSize(0), C = t.getDimSize(1);
    int64_t S = t.getNumElements() / std::max<int64_t>(N * C, 1);
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Value flat = e.reshape(x, {N, C, S, 1});
    Value pooled = e.op(op->getName().stripDialect(), t.clone({N, C, 1, 1}),
                        {flat}, op->getAttrs());
    Value y = e.reshape(pooled, yt.getShape());
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// A float Einsum of two operands that is a batched matrix product
  /// (every label in both inputs and the output, in one input and the
  /// output, or in both inputs only; no diagonals, sums over one operand
  /// or ellipses): Transposes to [batch, M, K] x [batch, K, N], a MatMul,
  /// and back. MaxViT's attention writes its products so; the EINSUM
  /// kernel is a generic loop nest, 8x slower than ORT on MaxViT-T.
  LogicalResult decomposeEinsum(Operation *op) {
    if (op->getNumOperands() != 2)
      return failure();
    auto eqAttr = op->getAttrOfType<StringAttr>("equation");
    Value a = op->getOperand(0), bIn = op->getOperand(1);
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(bIn.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!eqAttr || !at || !bt || !yt || !at.hasStaticShape() ||
        !bt.hasStaticShape() || !yt.hasStaticShape() ||
        !at.getElementType().isF32() || !bt.getElementType().isF32())
      return failure();
    std::string eq;
    for (char c : eqAttr.getValue())
      if (c != ' ')
        eq += c;
    size_t arrow = eq.find("->"), comma = eq.find(',');
    if (arrow == std::string::npos || comma == std::string::npos ||
        comma > arrow || eq.find('.') != std::string::npos)
      return failure();
    std::string la = eq.substr(0, comma),
                lb = eq.substr(comma + 1, arrow - comma - 1),
                lo = eq.substr(arrow + 2);
    if ((int64_t)la.size() != at.getRank() ||
        (int64_t)lb.size() != bt.getRank() ||
        (int64_t)lo.size() != yt.getRank())
      return failure();
    auto unique = [](const std::string &l) {
      return llvm::all_of(l, [&](char c) {
        return llvm::count(l, c) == 1 &&
               ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
      });
    };
    if (!unique(la) || !unique(lb) || !unique(lo))
      return failure();
    auto in = [](const std::string &l, char c) {
      return l.find(c) != std::string::npos;
    };
    std::map<char, int64_t> size;
    for (auto [l, t] : {std::pair(la, at), std::pair(lb, bt)})
      for (auto [i, c] : llvm::enumerate(l)) {
        int64_t d = t.getDimSize(i);
        if (size.count(c) && size[c] != d)
          return failure();
        size[c] = d;
      }
    std::string batch, m, n, k;
    for (char c : lo) {
      if (!in(la, c) && !in(lb, c))
        return failure();
      (in(la, c) && in(lb, c) ? batch : in(la, c) ? m : n) += c;
    }
    for (char c : la)
      if (!in(lo, c)) {
        if (!in(lb, c))
          return failure(); // summed over A alone
        k += c;
      }
    for (char c : lb)
      if (!in(lo, c) && !in(la, c))
        return failure();
    auto prod = [&](const std::string &l) {
      int64_t p = 1;
      for (char c : l)
        p *= size[c];
      return p;
    };
    auto permFor = [](const std::string &from, const std::string &to) {
      SmallVector<int64_t> perm;
      for (char c : to)
        perm.push_back(from.find(c));
      return perm;
    };
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    SmallVector<int64_t> batchDims;
    for (char c : batch)
      batchDims.push_back(size[c]);
    auto operand = [&](Value v, const std::string &l, const std::string &rows,
                       const std::string &cols) {
      SmallVector<int64_t> perm = permFor(l, batch + rows + cols);
      if (!isIdentity(perm))
        v = e.transpose(v, perm);
      SmallVector<int64_t> shape(batchDims);
      shape.append({prod(rows), prod(cols)});
      if (cast<RankedTensorType>(v.getType()).getShape() !=
          ArrayRef<int64_t>(shape))
        v = e.reshape(v, shape);
      return v;
    };
    Value lhs = operand(a, la, m, k), rhs = operand(bIn, lb, k, n);
    SmallVector<int64_t> mmShape(batchDims);
    mmShape.append({prod(m), prod(n)});
    Value y = e.op("MatMul", yt.clone(mmShape), {lhs, rhs});
    std::string natural = batch + m + n;
    SmallVector<int64_t> naturalShape;
    for (char c : natural)
      naturalShape.push_back(size[c]);
    if (ArrayRef<int64_t>(mmShape) != ArrayRef<int64_t>(naturalShape))
      y = e.reshape(y, naturalShape);
    SmallVector<int64_t> perm = permFor(natural, lo);
    if (!isIdentity(perm))
      y = e.transpose(y, perm);
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

  /// A 2-D ConvTranspose with constant weights as one Conv per output
  /// phase (output (s t + c) only receives the taps k = (c + pad) mod s
  /// + s j, a plain convolution with a flipped sub-kernel), the phases
  /// concatenated and interleaved by DepthToSpace (DCR), then cut to the
  /// output size: the transposed convolution runs on the convolution
  /// kernels instead of a gather per output element.
  LogicalResult decomposeConvTranspose(Operation *op) {
    Value x = op->getOperand(0), w = op->getOperand(1);
    Value bias = op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))
                     ? op->getOperand(2)
                     : Value();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    auto wv = amk::getConstantTensor(w);
    if (!xt || !yt || !xt.hasStaticShape() || !yt.hasStaticShape() ||
        xt.getRank() != 4 || !xt.getElementType().isF32() || !wv ||
        wv->rank() != 4)
      return failure();
    SmallVector<int64_t> st = intsOr(op, "strides", 2, 1),
                         dil = intsOr(op, "dilations", 2, 1),
                         pads = intsOr(op, "pads", 4, 0),
                         outPad = intsOr(op, "output_padding", 2, 0);
    int64_t group = 1;
    if (auto g = op->getAttrOfType<IntegerAttr>("group"))
      group = g.getInt();
    if (st.size() != 2 || dil.size() != 2 || pads.size() != 4 ||
        outPad.size() != 2 || dil[0] != 1 || dil[1] != 1 || st[0] != st[1] ||
        st[0] < 1)
      return failure();
    int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), OC = yt.getDimSize(1);
    int64_t OCg = wv->dim(1), Cg = C / std::max<int64_t>(group, 1);
    if (group < 1 || C % group || wv->dim(0) != C || OCg * group != OC)
      return failure();
    auto autoPadAttr = op->getAttrOfType<StringAttr>("auto_pad");
    StringRef autoPad = autoPadAttr ? autoPadAttr.getValue() : "NOTSET";
    bool fromOutput = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" ||
                      op->hasAttr("output_shape");
    int64_t s = st[0];
    struct Axis {
      int64_t in, out, k, begin, T;
    } ax[2];
    for (int i = 0; i < 2; ++i) {
      Axis &a = ax[i];
      a.in = xt.getDimSize(2 + i), a.out = yt.getDimSize(2 + i);
      a.k = wv->dim(2 + i);
      a.begin = pads[i];
      if (fromOutput) {
        // As the ONNX reference (and lowerConvTranspose): SAME_UPPER puts
        // the smaller half first.
        int64_t total = s * (a.in - 1) + outPad[i] + a.k - a.out;
        int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        a.begin = autoPad == "SAME_UPPER" ? half : total - half;
      }
      a.T = (a.out + s - 1) / s;
    }
    // One phase per axis: taps, the input offset of its window.
    auto phase = [&](const Axis &a, int64_t c, int64_t &r, int64_t &J,
                     int64_t &lo) {
      int64_t cp = c + a.begin;
      r = ((cp % s) + s) % s;
      int64_t delta = (cp - r) / s; // floor((c + begin) / s)
      J = r < a.k ? (a.k - r + s - 1) / s : 0;
      int64_t taps = std::max<int64_t>(J, 1);
      lo = delta - (taps - 1); // input index of tap 0 at output t = 0
    };
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Type f32 = b.getF32Type();
    SmallVector<Value> phases;
    for (int64_t cy = 0; cy < s; ++cy)
      for (int64_t cx = 0; cx < s; ++cx) {
        int64_t ry, Jy, loy, rx, Jx, lox;
        phase(ax[0], cy, ry, Jy, loy);
        phase(ax[1], cx, rx, Jx, lox);
        int64_t ky = std::max<int64_t>(Jy, 1), kx = std::max<int64_t>(Jx, 1);
        // The flipped sub-kernel, [OC, C/group, ky, kx].
        Tensor sub(onnx::DataType::FLOAT, {OC, Cg, ky, kx});
        for (int64_t g = 0; g < group; ++g)
          for (int64_t o = 0; o < OCg; ++o)
            for (int64_t ci = 0; ci < Cg; ++ci)
              for (int64_t jy = 0; jy < Jy; ++jy)
                for (int64_t jx = 0; jx < Jx; ++jx) {
                  int64_t sy = ry + s * (Jy - 1 - jy),
                          sx = rx + s * (Jx - 1 - jx);
                  double v = wv->getDouble(((g * Cg + ci) * OCg + o) * ax[0].k *
                                               ax[1].k +
                                           sy * ax[1].k + sx);
                  sub.setDouble((((g * OCg + o) * Cg + ci) * ky + jy) * kx + jx,
                                v);
                }
        // Pads (or crops where negative) that make the window start at
        // input index lo and the output T long.
        int64_t by = -loy, bx = -lox;
        int64_t ey = ax[0].T + ky - 1 - ax[0].in - by,
                ex = ax[1].T + kx - 1 - ax[1].in - bx;
        Value in = x;
        int64_t h = ax[0].in, wdt = ax[1].in;
        int64_t cropB[2] = {std::max<int64_t>(0, -by),
                            std::max<int64_t>(0, -bx)};
        int64_t cropE[2] = {std::max<int64_t>(0, -ey),
                            std::max<int64_t>(0, -ex)};
        if (cropB[0] || cropB[1] || cropE[0] || cropE[1]) {
          h = ax[0].in - cropB[0] - cropE[0];
          wdt = ax[1].in - cropB[1] - cropE[1];
          if (h < 1 || wdt < 1)
            return failure();
          in = e.op("Slice", xt.clone({N, C, h, wdt}),
                    {x, e.ints({cropB[0], cropB[1]}),
                     e.ints({ax[0].in - cropE[0], ax[1].in - cropE[1]}),
                     e.ints({2, 3}), e.ints({1, 1})});
        }
        SmallVector<int64_t> cpads = {
            std::max<int64_t>(0, by), std::max<int64_t>(0, bx),
            std::max<int64_t>(0, ey), std::max<int64_t>(0, ex)};
        SmallVector<Value> operands = {in, amk::createConstant(b, e.loc, sub)};
        operands.push_back(bias ? bias : e.none());
        phases.push_back(e.op(
            "Conv", RankedTensorType::get({N, OC, ax[0].T, ax[1].T}, f32),
            operands,
            {e.attr("kernel_shape", ArrayRef<int64_t>{ky, kx}),
             e.attr("pads", cpads), e.attr("strides", ArrayRef<int64_t>{1, 1}),
             e.attr("dilations", ArrayRef<int64_t>{1, 1}),
             e.attr("group", group)}));
      }
    Value y = phases.front();
    if (s > 1) {
      Value all =
          e.op("Concat",
               RankedTensorType::get({N, s * s * OC, ax[0].T, ax[1].T}, f32),
               phases, {e.attr("axis", 1)});
      y = e.op("DepthToSpace",
               RankedTensorType::get({N, OC, s * ax[0].T, s * ax[1].T}, f32),
               {all},
               {e.attr("blocksize", s),
                b.getNamedAttr("mode", b.getStringAttr("DCR"))});
    }
    if (s * ax[0].T != ax[0].out || s * ax[1].T != ax[1].out)
      y = e.op("Slice", yt,
               {y, e.ints({0, 0}), e.ints({ax[0].out, ax[1].out}),
                e.ints({2, 3}), e.ints({1, 1})});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// GroupNormalization as LayerNormalization over [N, G, C/G * spatial]
  /// (mean and variance per group, epsilon inside the square root as both
  /// define it) followed by the per-channel scale and bias.
  LogicalResult decomposeGroupNorm(Operation *op) {
    Value x = op->getOperand(0), scale = op->getOperand(1),
          bias = op->getOperand(2);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto st = dyn_cast<RankedTensorType>(scale.getType());
    auto bt = dyn_cast<RankedTensorType>(bias.getType());
    auto g = op->getAttrOfType<IntegerAttr>("num_groups");
    if (!t || !t.hasStaticShape() || t.getRank() < 3 ||
        !t.getElementType().isF32() || !st || !bt || !g || g.getInt() < 1)
      return failure();
    int64_t N = t.getDimSize(0), C = t.getDimSize(1), G = g.getInt();
    if (C % G)
      return failure();
    int64_t M = t.getNumElements() / (N * G);
    OpBuilder b(op);
    // Per channel (version 21) or per group (version 18): constants spread
    // to channels.
    auto perChannel = [&](Value v,
                          RankedTensorType vt) -> std::optional<Value> {
      if (vt.getRank() != 1)
        return std::nullopt;
      if (vt.getDimSize(0) == C)
        return v;
      auto c = amk::getConstantTensor(v);
      if (vt.getDimSize(0) != G || !c)
        return std::nullopt;
      Tensor spread(onnx::DataType::FLOAT, {C});
      for (int64_t ch = 0; ch < C; ++ch)
        spread.setDouble(ch, c->getDouble(ch / (C / G)));
      return amk::createConstant(b, op->getLoc(), spread);
    };
    auto sc = perChannel(scale, st), bc = perChannel(bias, bt);
    if (!sc || !bc)
      return failure();
    Emitter e(b, op->getLoc());
    float eps = 1e-5f;
    if (auto a = op->getAttrOfType<FloatAttr>("epsilon"))
      eps = a.getValueAsDouble();
    Tensor ones(onnx::DataType::FLOAT, {M}), zeros(onnx::DataType::FLOAT, {M});
    for (int64_t i = 0; i < M; ++i)
      ones.setDouble(i, 1.0);
    Value grouped = e.reshape(x, {N, G, M});
    OperationState ln(op->getLoc(), "onnx.LayerNormalization");
    ln.addOperands({grouped, amk::createConstant(b, e.loc, ones),
                    amk::createConstant(b, e.loc, zeros)});
    ln.addTypes({grouped.getType(), b.getNoneType(), b.getNoneType()});
    ln.addAttribute("axis", b.getI64IntegerAttr(2));
    ln.addAttribute("epsilon", b.getF32FloatAttr(eps));
    Value normed = b.create(ln)->getResult(0);
    Value y = e.reshape(normed, t.getShape());
    SmallVector<int64_t> bshape(t.getRank() - 1, 1);
    bshape[0] = C;
    Value s4 = e.reshape(*sc, bshape), b4 = e.reshape(*bc, bshape);
    y = e.op("Mul", t, {y, s4});
    y = e.op("Add", t, {y, b4});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// Gemm on integers (alpha = beta = 1, the only values that keep it
  /// integer arithmetic): transposes, an integer MatMul (the EINSUM
  /// kernel) and an Add of C.
  LogicalResult decomposeIntGemm(Operation *op) {
    Value a = op->getOperand(0), bv = op->getOperand(1);
    Value c = op->getNumOperands() > 2 && !amk::isNone(op->getOperand(2))
                  ? op->getOperand(2)
                  : Value();
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(bv.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!at || !bt || !yt || !at.getElementType().isInteger() ||
        at.getElementType().isInteger(1) || at.getRank() != 2 ||
        bt.getRank() != 2 || !yt.hasStaticShape())
      return failure();
    auto fattr = [&](StringRef n) {
      auto f = op->getAttrOfType<FloatAttr>(n);
      return f ? f.getValueAsDouble() : 1.0;
    };
    auto iattr = [&](StringRef n) {
      auto i = op->getAttrOfType<IntegerAttr>(n);
      return i ? i.getInt() : 0;
    };
    if (fattr("alpha") != 1.0 || (c && fattr("beta") != 1.0))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    if (iattr("transA"))
      a = e.transpose(a, {1, 0});
    if (iattr("transB"))
      bv = e.transpose(bv, {1, 0});
    Value y = e.op("MatMul", yt, {a, bv});
    if (c)
      y = e.op("Add", yt, {y, c});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// LpNormalization as x / (norm + (norm == 0)): the L1 or L2 norm along
  /// the axis by a reduction; a zero norm means a zero lane, which stays 0
  /// (as the interpreter defines it) instead of 0 / 0.
  /// ConstantOfShape with a static result: Expand of its scalar value,
  /// which the copy kernel broadcasts. Constant folding turns small ones
  /// into constants either way; a large one (torchvision's RoI pooling
  /// canvases, 20 MB) it leaves alone, and there is no ConstantOfShape
  /// kernel.
  LogicalResult decomposeConstantOfShape(Operation *op) {
    Value shape = op->getOperand(0);
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!yt || !yt.hasStaticShape())
      return failure();
    auto scalarType = RankedTensorType::get({}, yt.getElementType());
    Attribute value;
    if (auto v = op->getAttrOfType<DenseElementsAttr>("value")) {
      if (v.getNumElements() != 1 || v.getElementType() != yt.getElementType())
        return failure();
      value = v.reshape(scalarType);
    } else if (yt.getElementType().isF32()) {
      value = DenseElementsAttr::get(scalarType, 0.f);
    } else {
      return failure();
    }
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Value c = onnx::ConstantOp::create(
                  b, op->getLoc(), TypeRange{scalarType}, ValueRange{},
                  ArrayRef<NamedAttribute>{b.getNamedAttr("value", value)})
                  .getResult();
    Value y = e.op("Expand", yt, {c, shape});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  LogicalResult decomposeLpNorm(Operation *op) {
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return failure();
    int64_t rank = t.getRank(), axis = -1, p = 2;
    if (auto a = op->getAttrOfType<IntegerAttr>("axis"))
      axis = a.getInt();
    if (auto a = op->getAttrOfType<IntegerAttr>("p"))
      p = a.getInt();
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank || (p != 1 && p != 2))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    SmallVector<int64_t> keep(t.getShape());
    keep[axis] = 1;
    auto kt = t.clone(keep);
    Value norm = e.op(p == 1 ? "ReduceL1" : "ReduceL2", kt, {x, e.ints({axis})},
                      {e.attr("keepdims", 1)});
    Value zero = e.op("Equal", kt.clone(b.getI1Type()), {norm, e.scalar(0.f)});
    Value guard = e.op("Cast", kt, {zero},
                       {e.attr("to", (int64_t)onnx::DataType::FLOAT)});
    Value den = e.op("Add", kt, {norm, guard});
    Value y = e.op("Div", t, {x, den});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// MaxUnpool as a scatter: the output starts as zeros and takes each
  /// value of X at its flat index from I (MaxPool's Indices: flat over the
  /// whole tensor), then pads to an output_shape larger than the default.
  LogicalResult decomposeMaxUnpool(Operation *op) {
    Value x = op->getOperand(0), idx = op->getOperand(1);
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto it = dyn_cast<RankedTensorType>(idx.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!xt || !it || !yt || !xt.hasStaticShape() || !it.hasStaticShape() ||
        !yt.hasStaticShape() || xt.getShape() != it.getShape())
      return failure();
    // The indices address the default unpooled layout; an output_shape
    // larger than it only pads the canvas at the end of each axis.
    int64_t rank = xt.getRank(), sp = rank - 2;
    SmallVector<int64_t> k = intsOr(op, "kernel_shape", sp, 0),
                         st = intsOr(op, "strides", sp, 1),
                         pads = intsOr(op, "pads", 2 * sp, 0);
    if ((int64_t)k.size() != sp || (int64_t)st.size() != sp ||
        (int64_t)pads.size() != 2 * sp)
      return failure();
    SmallVector<int64_t> dflt = {xt.getDimSize(0), xt.getDimSize(1)};
    for (int64_t d = 0; d < sp; ++d)
      dflt.push_back((xt.getDimSize(d + 2) - 1) * st[d] + k[d] - pads[d] -
                     pads[d + sp]);
    SmallVector<int64_t> grow(2 * rank, 0);
    for (int64_t d = 0; d < rank; ++d) {
      if (yt.getDimSize(d) < dflt[d])
        return failure();
      grow[rank + d] = yt.getDimSize(d) - dflt[d];
    }
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    int64_t total = 1, n = xt.getNumElements();
    for (int64_t v : dflt)
      total *= v;
    Tensor zeros(*onnx::getDataType(yt.getElementType()), {total});
    Value flatX = e.reshape(x, {n}), flatI = e.reshape(idx, {n});
    Value scattered = e.op("ScatterElements", yt.clone({total}),
                           {amk::createConstant(b, e.loc, zeros), flatI, flatX},
                           {e.attr("axis", 0)});
    Value y = e.reshape(scattered, dflt);
    if (llvm::any_of(grow, [](int64_t g) { return g != 0; }))
      y = e.op("Pad", yt, {y, e.ints(grow), e.none(), e.none()},
               {b.getNamedAttr("mode", b.getStringAttr("constant"))});
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// MaxPool with its Indices output (2-D): the windows gathered from the
  /// -inf padded planes by a constant table, ArgMax over each window (the
  /// first maximum, as ONNX Runtime), and the winner's flat index in the
  /// unpadded input (row-major, or column-major with storage_order=1) from
  /// a second table, plus the plane's offset. Values come from the plain
  /// MaxPool, which stays.
  LogicalResult decomposeMaxPoolIndices(Operation *op) {
    if (op->getNumResults() < 2 || op->getResult(1).use_empty())
      return failure();
    Value x = op->getOperand(0);
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    auto it = dyn_cast<RankedTensorType>(op->getResult(1).getType());
    if (!xt || !yt || !it || !xt.hasStaticShape() || !yt.hasStaticShape() ||
        xt.getRank() != 4 || !xt.getElementType().isF32())
      return failure();
    SmallVector<int64_t> k = intsOr(op, "kernel_shape", 2, 1),
                         st = intsOr(op, "strides", 2, 1),
                         dl = intsOr(op, "dilations", 2, 1),
                         pads = intsOr(op, "pads", 4, 0);
    if (k.size() != 2 || st.size() != 2 || dl.size() != 2 || pads.size() != 4)
      return failure();
    int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
            W = xt.getDimSize(3), OH = yt.getDimSize(2), OW = yt.getDimSize(3);
    explicitPads(op, {H, W}, {OH, OW}, k, st, dl, pads);
    // The padded plane covers every window (ceil_mode may reach past the
    // end pads).
    int64_t Hp = std::max(H + pads[0] + pads[2],
                          (OH - 1) * st[0] + (k[0] - 1) * dl[0] + 1);
    int64_t Wp = std::max(W + pads[1] + pads[3],
                          (OW - 1) * st[1] + (k[1] - 1) * dl[1] + 1);
    int64_t K = k[0] * k[1], P = OH * OW;
    bool colMajor = false;
    if (auto so = op->getAttrOfType<IntegerAttr>("storage_order"))
      colMajor = so.getInt() != 0;
    Tensor win(onnx::DataType::INT64, {P * K}),
        flat(onnx::DataType::INT64, {P, K});
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t ky = 0; ky < k[0]; ++ky)
          for (int64_t kx = 0; kx < k[1]; ++kx) {
            int64_t py = oy * st[0] + ky * dl[0], px = ox * st[1] + kx * dl[1];
            int64_t e = (oy * OW + ox) * K + ky * k[1] + kx;
            win.setInt(e, py * Wp + px);
            int64_t iy = py - pads[0], ix = px - pads[1];
            bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
            flat.setInt(e, !inside ? 0 : colMajor ? ix * H + iy : iy * W + ix);
          }
    Tensor planes(onnx::DataType::INT64, {N, C, 1});
    for (int64_t p = 0; p < N * C; ++p)
      planes.setInt(p, p * H * W);
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Type f32 = b.getF32Type(), i64 = b.getI64Type();
    Value padded = x;
    if (Hp != H || Wp != W || pads[0] || pads[1]) {
      SmallVector<int64_t> p8 = {0, 0, pads[0],          pads[1],
                                 0, 0, Hp - H - pads[0], Wp - W - pads[1]};
      padded =
          e.op("Pad", RankedTensorType::get({N, C, Hp, Wp}, f32),
               {x, e.ints(p8),
                amk::createConstant(
                    b, e.loc,
                    Tensor::scalar(onnx::DataType::FLOAT,
                                   -std::numeric_limits<float>::infinity())),
                e.none()},
               {b.getNamedAttr("mode", b.getStringAttr("constant"))});
    }
    Value rows = e.reshape(padded, {N, C, Hp * Wp});
    Value g =
        e.op("Gather", RankedTensorType::get({N, C, P * K}, f32),
             {rows, amk::createConstant(b, e.loc, win)}, {e.attr("axis", 2)});
    Value windows = e.reshape(g, {N, C, P, K});
    Value arg = e.op("ArgMax", RankedTensorType::get({N, C, P, 1}, i64),
                     {windows}, {e.attr("axis", 3), e.attr("keepdims", 1)});
    Value table =
        e.op("Expand", RankedTensorType::get({N, C, P, K}, i64),
             {amk::createConstant(b, e.loc, flat), e.ints({N, C, P, K})});
    Value pick =
        e.op("GatherElements", RankedTensorType::get({N, C, P, 1}, i64),
             {table, arg}, {e.attr("axis", 3)});
    Value inPlane = e.reshape(pick, {N, C, P});
    Value idx = e.op("Add", RankedTensorType::get({N, C, P}, i64),
                     {inPlane, amk::createConstant(b, e.loc, planes)});
    Value indices = e.reshape(idx, it.getShape());
    op->getResult(1).replaceAllUsesWith(indices);
    // The values: the same MaxPool without its Indices result.
    OperationState pool(op->getLoc(), op->getName());
    pool.addOperands(op->getOperands());
    pool.addTypes({yt, b.getNoneType()});
    pool.addAttributes(op->getAttrs());
    Value y = b.create(pool)->getResult(0);
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// Training-mode BatchNormalization (opset 14+): normalized by the
  /// batch's statistics over every axis but the channel (population
  /// variance), and the running mean and variance, when asked for, moved
  /// toward them by `momentum`, as the spec's function writes it.
  LogicalResult decomposeTrainingBatchNorm(Operation *op) {
    auto tm = op->getAttrOfType<IntegerAttr>("training_mode");
    if (!tm || tm.getInt() == 0)
      return failure();
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32() ||
        t.getRank() < 2)
      return failure();
    int64_t rank = t.getRank(), C = t.getDimSize(1);
    for (unsigned i = 1; i <= 4; ++i) {
      auto pt = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
      if (!pt || pt.getRank() != 1 || pt.getDimSize(0) != C ||
          !pt.getElementType().isF32())
        return failure();
    }
    auto fattr = [&](StringRef n, float d) {
      auto f = op->getAttrOfType<FloatAttr>(n);
      return f ? (float)f.getValueAsDouble() : d;
    };
    float eps = fattr("epsilon", 1e-5f), momentum = fattr("momentum", 0.9f);
    SmallVector<int64_t> axes = {0}, keep(rank, 1), perChannel(rank - 1, 1);
    keep[1] = C;
    perChannel[0] = C;
    for (int64_t d = 2; d < rank; ++d)
      axes.push_back(d);
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    auto stat = t.clone(keep);
    auto mean = [&](Value v) {
      return e.op("ReduceMean", stat, {v, e.ints(axes)},
                  {e.attr("keepdims", 1)});
    };
    Value m = mean(x);
    Value d = e.op("Sub", t, {x, m});
    Value var = mean(e.op("Mul", t, {d, d}));
    Value sd = e.op("Sqrt", stat, {e.op("Add", stat, {var, e.scalar(eps)})});
    Value scaled =
        e.op("Mul", t, {d, e.reshape(op->getOperand(1), perChannel)});
    Value y = e.op("Add", t,
                   {e.op("Div", t, {scaled, sd}),
                    e.reshape(op->getOperand(2), perChannel)});
    op->getResult(0).replaceAllUsesWith(y);
    auto vec = RankedTensorType::get({C}, t.getElementType());
    for (unsigned r = 1; r <= 2 && r < op->getNumResults(); ++r) {
      Value res = op->getResult(r);
      if (res.use_empty() || isa<NoneType>(res.getType()))
        continue;
      Value running =
          e.op("Mul", vec, {op->getOperand(r + 2), e.scalar(momentum)});
      Value batch =
          e.op("Mul", vec,
               {e.reshape(r == 1 ? m : var, {C}), e.scalar(1 - momentum)});
      res.replaceAllUsesWith(e.op("Add", vec, {running, batch}));
    }
    op->erase();
    return success();
  }

  /// Training-mode Dropout (a constant true training_mode, a ratio not 0):
  /// a RandomUniformLike in double (the draws the interpreter's Dropout
  /// makes with the same seed), kept where a draw reaches the ratio, and
  /// the kept values scaled by 1 / (1 - ratio).
  LogicalResult decomposeTrainingDropout(Operation *op) {
    Value training = operandAt(op, 2), ratio = operandAt(op, 1);
    auto tm = training ? amk::getConstantTensor(training) : std::nullopt;
    if (!tm || tm->numel() != 1 || tm->getInt(0) == 0)
      return failure();
    auto rc = ratio ? amk::getConstantTensor(ratio) : std::nullopt;
    if (rc && rc->numel() == 1 && rc->getDouble(0) == 0)
      return failure(); // the identity, which the copy kernel runs
    Value x = op->getOperand(0);
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || !t.hasStaticShape() || !t.getElementType().isF32())
      return failure();
    int64_t seed = 0;
    if (auto a = op->getAttrOfType<IntegerAttr>("seed"))
      seed = a.getInt();
    // RandomUniformLike's seed is a float: exact up to 2^24.
    if (seed < 0 || seed > (1 << 24))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    Type f64 = b.getF64Type(), i1 = b.getI1Type();
    Value u = e.op("RandomUniformLike", t.clone(f64), {x},
                   {e.attr("dtype", (int64_t)onnx::DataType::DOUBLE),
                    b.getNamedAttr("seed", b.getF32FloatAttr((float)seed))});
    Value r32 = ratio ? ratio : e.scalar(0.5f);
    if (cast<RankedTensorType>(r32.getType()).getElementType() !=
        t.getElementType())
      return failure();
    Value rD = castTo(e, r32, f64, onnx::DataType::DOUBLE);
    Value keep = e.op("Not", t.clone(i1), {e.op("Less", t.clone(i1), {u, rD})});
    Value kept =
        e.op("Mul", t,
             {x, castTo(e, keep, t.getElementType(), onnx::DataType::FLOAT)});
    Value scale = binary(e, "Sub", e.scalar(1.f), r32);
    op->getResult(0).replaceAllUsesWith(binary(e, "Div", kept, scale));
    if (op->getNumResults() > 1 && !op->getResult(1).use_empty()) {
      auto mt = dyn_cast<RankedTensorType>(op->getResult(1).getType());
      if (!mt)
        return failure();
      auto dt = onnx::getDataType(mt.getElementType());
      op->getResult(1).replaceAllUsesWith(
          mt.getElementType().isInteger(1)
              ? keep
              : castTo(e, keep, mt.getElementType(), *dt));
    }
    op->erase();
    return success();
  }

  /// Whether `v` is computed from a graph input (or inside control flow):
  /// then no folding makes it a constant, and the integer kernels, which
  /// pack weights and requantization tables at compile time, cannot take
  /// it.
  static bool dependsOnInput(Value v) {
    SmallVector<Value> stack = {v};
    DenseSet<Value> seen;
    while (!stack.empty()) {
      Value x = stack.pop_back_val();
      if (!x || !seen.insert(x).second)
        continue;
      Operation *d = x.getDefiningOp();
      if (!d || d->getNumRegions() > 0)
        return true;
      llvm::append_range(stack, d->getOperands());
    }
    return false;
  }

  /// An operand by schema position; null when absent or none.
  static Value operandAt(Operation *op, unsigned i) {
    if (i >= op->getNumOperands() || amk::isNone(op->getOperand(i)))
      return Value();
    return op->getOperand(i);
  }

  /// `v` cast to `elem` (`dt`), keeping its shape.
  static Value castTo(Emitter &e, Value v, Type elem, onnx::DataType dt) {
    auto t = cast<RankedTensorType>(v.getType());
    return e.op("Cast", t.clone(elem), {v}, {e.attr("to", (int64_t)dt)});
  }

  /// A per-tensor or per-axis parameter (a zero point, a scale, a bias) of
  /// a rank-`rank` tensor cast to `elem`: one element stays [1]; `dim`
  /// elements become [dim, 1, ...] so they broadcast along `axis`.
  static FailureOr<Value> alongAxis(Emitter &e, Value v, Type elem,
                                    onnx::DataType dt, int64_t rank,
                                    int64_t axis, int64_t dim) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape())
      return failure();
    int64_t n = t.getNumElements();
    if (n != 1 && n != dim)
      return failure();
    SmallVector<int64_t> shape = {n};
    if (n > 1)
      shape.append(rank - axis - 1, 1);
    Value c = castTo(e, v, elem, dt);
    return t.getShape() == ArrayRef<int64_t>(shape) ? c : e.reshape(c, shape);
  }

  /// `v` as int32 less its zero point `zp` (none: 0), per tensor or along
  /// `axis`.
  static FailureOr<Value> centered(Emitter &e, Value v, Value zp,
                                   int64_t axis) {
    auto t = cast<RankedTensorType>(v.getType());
    Type i32 = e.b.getI32Type();
    Value c = castTo(e, v, i32, onnx::DataType::INT32);
    if (!zp)
      return c;
    if (t.isDynamicDim(axis))
      return failure();
    auto z = alongAxis(e, zp, i32, onnx::DataType::INT32, t.getRank(), axis,
                       t.getDimSize(axis));
    if (failed(z))
      return failure();
    return e.op("Sub", t.clone(i32), {c, *z});
  }

  /// The static broadcast of two operands' shapes, as `elem` tensors.
  static RankedTensorType broadcastType(Value a, Value b, Type elem) {
    auto at = cast<RankedTensorType>(a.getType()),
         bt = cast<RankedTensorType>(b.getType());
    int64_t r = std::max(at.getRank(), bt.getRank());
    SmallVector<int64_t> shape(r);
    for (int64_t i = 0; i < r; ++i) {
      int64_t ai = i - (r - at.getRank()), bi = i - (r - bt.getRank());
      int64_t da = ai >= 0 ? at.getDimSize(ai) : 1,
              db = bi >= 0 ? bt.getDimSize(bi) : 1;
      shape[i] = da == 1 ? db : da;
    }
    return RankedTensorType::get(shape, elem);
  }
  static Value binary(Emitter &e, StringRef name, Value a, Value b) {
    auto at = cast<RankedTensorType>(a.getType());
    return e.op(name, broadcastType(a, b, at.getElementType()), {a, b});
  }

  /// The int32 accumulator of an integer convolution of x [N, C, S...]
  /// and w [M, C/g, K...]: both centered, x zero-padded, one strided Slice
  /// per kernel position gathering the windows (im2col) and one batched
  /// integer MatMul over the groups. Exact (the EINSUM kernel sums
  /// integers), for weights only known at run time; constant weights take
  /// the QCONV kernel instead.
  FailureOr<Value> intConvAccumulator(Operation *op, Emitter &e, Value x,
                                      Value xzp, Value w, Value wzp) {
    auto t = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !wt || !yt || t.getRank() < 3 || !t.hasStaticShape() ||
        !wt.hasStaticShape() || !yt.hasStaticShape() ||
        wt.getRank() != t.getRank())
      return failure();
    int64_t n = t.getRank() - 2, N = t.getDimSize(0), C = t.getDimSize(1),
            M = wt.getDimSize(0), Cg = wt.getDimSize(1);
    int64_t G = op->getAttrOfType<IntegerAttr>("group")
                    ? op->getAttrOfType<IntegerAttr>("group").getInt()
                    : 1;
    if (G < 1 || C != Cg * G || M % G)
      return failure();
    SmallVector<int64_t> in(t.getShape().drop_front(2)),
        k(wt.getShape().drop_front(2)), out(yt.getShape().drop_front(2));
    SmallVector<int64_t> s = intsOr(op, "strides", n, 1),
                         dl = intsOr(op, "dilations", n, 1),
                         pads = intsOr(op, "pads", 2 * n, 0);
    if ((int64_t)s.size() != n || (int64_t)dl.size() != n ||
        (int64_t)pads.size() != 2 * n)
      return failure();
    explicitPads(op, in, out, k, s, dl, pads);
    int64_t KK = 1, P = 1;
    for (int64_t d = 0; d < n; ++d) {
      KK *= k[d];
      P *= out[d];
      if (in[d] + pads[d] + pads[d + n] <
          (out[d] - 1) * s[d] + (k[d] - 1) * dl[d] + 1)
        return failure();
    }
    // One Slice per kernel position: past this many, the graph grows
    // more than the op is worth.
    if (KK > 256)
      return failure();
    Type i32 = e.b.getI32Type();
    auto xc = centered(e, x, xzp, 1);
    auto wc = centered(e, w, wzp, 0);
    if (failed(xc) || failed(wc))
      return failure();
    Value xp = *xc;
    if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
      SmallVector<int64_t> padded = {N, C}, all(2 * (n + 2), 0);
      for (int64_t d = 0; d < n; ++d) {
        padded.push_back(in[d] + pads[d] + pads[d + n]);
        all[d + 2] = pads[d];
        all[d + 2 + n + 2] = pads[d + n];
      }
      xp = e.op("Pad", RankedTensorType::get(padded, i32),
                {xp, e.ints(all), e.none(), e.none()});
    }
    SmallVector<int64_t> axes, steps(s), window = {N, C, 1};
    for (int64_t d = 0; d < n; ++d)
      axes.push_back(d + 2);
    window.append(out.begin(), out.end());
    SmallVector<int64_t> sliced = {N, C};
    sliced.append(out.begin(), out.end());
    SmallVector<Value> cols;
    SmallVector<int64_t> pos(n, 0);
    for (int64_t i = 0; i < KK; ++i) {
      for (int64_t d = n - 1, r = i; d >= 0; --d) {
        pos[d] = r % k[d];
        r /= k[d];
      }
      SmallVector<int64_t> starts, ends;
      for (int64_t d = 0; d < n; ++d) {
        starts.push_back(pos[d] * dl[d]);
        ends.push_back(starts.back() + (out[d] - 1) * s[d] + 1);
      }
      Value sl =
          e.op("Slice", RankedTensorType::get(sliced, i32),
               {xp, e.ints(starts), e.ints(ends), e.ints(axes), e.ints(steps)});
      cols.push_back(e.reshape(sl, window));
    }
    SmallVector<int64_t> stacked = {N, C, KK};
    stacked.append(out.begin(), out.end());
    Value col = cols.size() == 1
                    ? cols[0]
                    : e.op("Concat", RankedTensorType::get(stacked, i32), cols,
                           {e.attr("axis", 2)});
    Value xm = e.reshape(col, {N, G, Cg * KK, P});
    Value wm = e.reshape(*wc, {G, M / G, Cg * KK});
    Value acc =
        e.op("MatMul", RankedTensorType::get({N, G, M / G, P}, i32), {wm, xm});
    return e.reshape(acc, yt.getShape());
  }

  /// ConvInteger and QLinearConv whose weights, scales or zero points are
  /// only known at run time (every one of them an input in the ONNX node
  /// tests), or whose weights do not fit the int8 kernels: the int32
  /// accumulator above, then QLinearConv's requantization in double as
  /// the spec's reference computes it.
  LogicalResult decomposeIntegerConv(Operation *op) {
    bool qlinear = isa<onnx::QLinearConvOp>(op);
    Value x = op->getOperand(0), w = op->getOperand(qlinear ? 3 : 1);
    Value xzp = operandAt(op, 2), wzp = operandAt(op, qlinear ? 5 : 3);
    // ConvInteger's zero point for X (a scalar, by the spec) may come at
    // run time, as dynamic quantization makes it: the QCONV kernel reads
    // it. Every other operand known only at run time needs the int32 path.
    bool runtime = false;
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      if (qlinear || i != 2)
        runtime |= dependsOnInput(op->getOperand(i));
    if (!runtime && !weightsOutsideInt8(w, wzp))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    auto acc = intConvAccumulator(op, e, x, xzp, w, wzp);
    if (failed(acc))
      return failure();
    Value y = *acc;
    if (qlinear &&
        failed(requantize(e, op, y, operandAt(op, 1), operandAt(op, 4),
                          operandAt(op, 6), operandAt(op, 7), operandAt(op, 8),
                          /*inDouble=*/true, 1)))
      return failure();
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  /// Whether constant weights less their zero point leave the int8 range
  /// the QCONV and QGEMM kernels hold them in (uint8 weights above 127).
  static bool weightsOutsideInt8(Value w, Value wzp) {
    auto wt = amk::getConstantTensor(w);
    if (!wt)
      return false;
    std::optional<Tensor> zt;
    if (wzp)
      zt = amk::getConstantTensor(wzp);
    if (wzp && (!zt || zt->numel() != 1))
      return false;
    double z = zt ? zt->getDouble(0) : 0;
    for (int64_t i = 0; i < wt->numel(); ++i) {
      double v = wt->getDouble(i) - z;
      if (v < -128 || v > 127)
        return true;
    }
    return false;
  }

  /// QLinearConv's and QLinearMatMul's requantization of the int32 `y`:
  /// saturate(round_half_even((y + bias) * xs * ws / ys) + yzp), the
  /// weight scale per tensor or along `wAxis` of y. QLinearConv's
  /// reference computes in double; QLinearMatMul's scales the float32
  /// accumulator by the float32 scale, so `inDouble` picks the type.
  LogicalResult requantize(Emitter &e, Operation *op, Value &y, Value xs,
                           Value ws, Value ys, Value yzp, Value bias,
                           bool inDouble, int64_t wAxis) {
    auto yt = cast<RankedTensorType>(op->getResult(0).getType());
    auto rt = cast<RankedTensorType>(y.getType());
    if (!xs || !ws || !ys || !rt.hasStaticShape())
      return failure();
    auto it = dyn_cast<IntegerType>(yt.getElementType());
    if (!it || it.getWidth() > 16)
      return failure();
    Type f64 = e.b.getF64Type(), f32 = e.b.getF32Type();
    onnx::DataType D = onnx::DataType::DOUBLE, F = onnx::DataType::FLOAT;
    int64_t rank = rt.getRank(), dim = rt.getDimSize(wAxis);
    auto xsD = alongAxis(e, xs, f64, D, rank, 0, 1);
    auto wsD = alongAxis(e, ws, f64, D, rank, wAxis, dim);
    auto ysD = alongAxis(e, ys, f64, D, rank, 0, 1);
    if (failed(xsD) || failed(wsD) || failed(ysD))
      return failure();
    Value scale = binary(e, "Div", binary(e, "Mul", *xsD, *wsD), *ysD);
    Type ft = inDouble ? f64 : f32;
    if (!inDouble)
      scale = castTo(e, scale, f32, F);
    Value v = castTo(e, y, ft, inDouble ? D : F);
    if (bias) {
      auto bD = alongAxis(e, bias, ft, inDouble ? D : F, rank, wAxis, dim);
      if (failed(bD))
        return failure();
      v = binary(e, "Add", v, *bD);
    }
    v = binary(e, "Mul", v, scale);
    v = e.op("Round", cast<RankedTensorType>(v.getType()), {v});
    if (yzp) {
      auto zD = alongAxis(e, yzp, ft, inDouble ? D : F, rank, 0, 1);
      if (failed(zD))
        return failure();
      v = binary(e, "Add", v, *zD);
    }
    bool isSigned = !it.isUnsigned();
    double lo = isSigned ? -std::ldexp(1.0, it.getWidth() - 1) : 0,
           hi = isSigned ? std::ldexp(1.0, it.getWidth() - 1) - 1
                         : std::ldexp(1.0, it.getWidth()) - 1;
    onnx::DataType fdt = inDouble ? D : F;
    Value loV = amk::createConstant(e.b, e.loc, Tensor::scalar(fdt, lo)),
          hiV = amk::createConstant(e.b, e.loc, Tensor::scalar(fdt, hi));
    v = e.op("Clip", cast<RankedTensorType>(v.getType()), {v, loV, hiV});
    auto dt = onnx::getDataType(yt.getElementType());
    if (!dt || cast<RankedTensorType>(v.getType()).getShape() != yt.getShape())
      return failure();
    y = e.op("Cast", yt, {v}, {e.attr("to", (int64_t)*dt)});
    return success();
  }

  /// MatMulInteger and QLinearMatMul that the QGEMM kernel cannot take (B
  /// or a zero point or scale only known at run time, B not 2-D, a
  /// per-row zero point for A): centered int32 operands and an integer
  /// MatMul (the EINSUM kernel, exact), requantized in float32 for
  /// QLinearMatMul as its reference does.
  LogicalResult decomposeIntegerMatMul(Operation *op) {
    bool qlinear = isa<onnx::QLinearMatMulOp>(op);
    Value a = op->getOperand(0), bv = op->getOperand(qlinear ? 3 : 1);
    Value azp = operandAt(op, 2), bzp = operandAt(op, qlinear ? 5 : 3);
    auto at = dyn_cast<RankedTensorType>(a.getType());
    auto bt = dyn_cast<RankedTensorType>(bv.getType());
    auto yt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!at || !bt || !yt || at.getRank() < 2 || bt.getRank() < 2)
      return failure();
    bool runtime = false;
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      if (qlinear || i != 2) // A's zero point: QGEMM reads it at run time
        runtime |= dependsOnInput(op->getOperand(i));
    auto zpType = [](Value v) {
      return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    };
    bool perRowA = azp && (!zpType(azp) || !zpType(azp).hasStaticShape() ||
                           zpType(azp).getNumElements() != 1);
    if (!runtime && bt.getRank() == 2 && !perRowA &&
        !weightsOutsideInt8(bv, bzp))
      return failure();
    OpBuilder b(op);
    Emitter e(b, op->getLoc());
    auto ac = centered(e, a, azp, at.getRank() - 2);
    auto bc = centered(e, bv, bzp, bt.getRank() - 1);
    if (failed(ac) || failed(bc))
      return failure();
    Value y = e.op("MatMul", yt.clone(b.getI32Type()), {*ac, *bc});
    if (qlinear &&
        failed(requantize(e, op, y, operandAt(op, 1), operandAt(op, 4),
                          operandAt(op, 6), operandAt(op, 7), Value(),
                          /*inDouble=*/false, yt.getRank() - 1)))
      return failure();
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<onnx::DFTOp, onnx::STFTOp, onnx::MeanVarianceNormalizationOp,
              onnx::MaxPoolOp, onnx::AveragePoolOp, onnx::ConvTransposeOp,
              onnx::GroupNormalizationOp, onnx::GemmOp, onnx::LpNormalizationOp,
              onnx::MaxUnpoolOp, onnx::ConstantOfShapeOp, onnx::ConvOp,
              onnx::GlobalAveragePoolOp, onnx::GlobalMaxPoolOp, onnx::EinsumOp,
              onnx::ConvIntegerOp, onnx::QLinearConvOp, onnx::MatMulIntegerOp,
              onnx::QLinearMatMulOp, onnx::BatchNormalizationOp,
              onnx::DropoutOp>(op))
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
      else if (isa<onnx::ConvTransposeOp>(op))
        r = decomposeConvTranspose(op);
      else if (isa<onnx::GroupNormalizationOp>(op))
        r = decomposeGroupNorm(op);
      else if (isa<onnx::GemmOp>(op))
        r = decomposeIntGemm(op);
      else if (isa<onnx::LpNormalizationOp>(op))
        r = decomposeLpNorm(op);
      else if (isa<onnx::MaxUnpoolOp>(op))
        r = decomposeMaxUnpool(op);
      else if (isa<onnx::ConstantOfShapeOp>(op))
        r = decomposeConstantOfShape(op);
      else if (isa<onnx::ConvOp>(op))
        r = decomposeConv3D(op);
      else if (isa<onnx::GlobalAveragePoolOp, onnx::GlobalMaxPoolOp>(op))
        r = decomposeGlobalPool(op);
      else if (isa<onnx::EinsumOp>(op))
        r = decomposeEinsum(op);
      else if (isa<onnx::ConvIntegerOp, onnx::QLinearConvOp>(op))
        r = decomposeIntegerConv(op);
      else if (isa<onnx::MatMulIntegerOp, onnx::QLinearMatMulOp>(op))
        r = decomposeIntegerMatMul(op);
      else if (isa<onnx::BatchNormalizationOp>(op))
        r = decomposeTrainingBatchNorm(op);
      else if (isa<onnx::DropoutOp>(op))
        r = decomposeTrainingDropout(op);
      else if (failed(r = decomposeMaxPoolIndices(op)) &&
               failed(r = widenIntMaxPool(op)))
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
