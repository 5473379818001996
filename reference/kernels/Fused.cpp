//===- Fused.cpp - Kernels of AMK's fused ops (amk dialect) ---------------===//
//
// Part of AMK. Each fused op is defined as the ONNX ops it replaces, so its
// kernel runs those ops' kernels (Conv, MatMul, Softmax) and applies the
// epilogue here: a fusion can only be checked against the graph it
// replaced if both sides mean the same thing.
//
//===----------------------------------------------------------------------===//

#include "reference/Interpreter.h"
#include "reference/KernelUtils.h"

#include "dialect/ONNX/ONNXSchema.h"

#include <cmath>
#include <limits>

using namespace mlir;

#include <array>

namespace amk::ref {
namespace {

/// Runs the ONNX kernel `opType` on `inputs`, reading attributes from the
/// fused op (which uses the absorbed op's attribute names), at the latest
/// operator version.
FailureOr<Tensor> callKernel(KernelContext &ctx, llvm::StringRef opType,
                             llvm::ArrayRef<RValue> inputs) {
  Kernel k = KernelRegistry::get().lookup("", opType);
  if (!k)
    return ctx.unsupported("no kernel for " + opType);
  KernelContext sub(ctx.getOp(), inputs, ctx.interpreter());
  sub.setVersion(onnx::kMaxOpset);
  if (failed(k(sub)))
    return failure();
  if (!sub.results()[0].isTensor())
    return ctx.error(opType + " produced no tensor");
  return sub.results()[0].getTensor();
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

/// The epilogue activations of amk.conv and amk.gemm (and amk.gelu).
std::optional<double> activate(llvm::StringRef act, double x, double alpha,
                               double beta) {
  if (act == "none")
    return x;
  if (act == "relu")
    return x > 0 ? x : 0;
  if (act == "clip")
    return std::min(std::max(x, alpha), beta);
  if (act == "leaky_relu")
    return x < 0 ? alpha * x : x;
  if (act == "sigmoid")
    return sigmoid(x);
  if (act == "hard_swish")
    return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  if (act == "tanh")
    return std::tanh(x);
  if (act == "gelu")
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (act == "gelu_tanh")
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  if (act == "quick_gelu")
    return x * sigmoid(alpha * x);
  return std::nullopt;
}

/// y = act(y + addend) with the op's activation attributes; `addend`
/// broadcasts to y.
LogicalResult epilogue(KernelContext &ctx, Tensor &y, const Tensor *addend,
                       llvm::StringRef act, double alpha, double beta) {
  if (!dispatch<kFloats>(y.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(y.dtype()));
  if (!activate(act, 0, alpha, beta))
    return ctx.error("unknown activation '" + act + "'");
  std::optional<Shape> addStrides;
  if (addend) {
    auto b = broadcastShapes({Shape(addend->shape()), Shape(y.shape())});
    if (!b || *b != Shape(y.shape()))
      return ctx.error("the addend " + shapeToString(addend->shape()) +
                       " does not broadcast to " + shapeToString(y.shape()));
    addStrides = broadcastStrides(addend->shape(), y.shape());
  }
  if (!addend && act == "none")
    return success();
  auto apply = [&](int64_t i, double add) {
    y.setDouble(i, *activate(act, y.getDouble(i) + add, alpha, beta));
  };
  if (addend) {
    std::array<Shape, 1> s = {*addStrides};
    forEachBroadcast<1>(y.shape(), s, [&](int64_t i, const auto &off) {
      apply(i, addend->getDouble(off[0]));
    });
  } else {
    for (int64_t i = 0; i < y.numel(); ++i)
      apply(i, 0);
  }
  return success();
}

LogicalResult epilogueFromAttrs(KernelContext &ctx, Tensor &y,
                                const Tensor *addend) {
  return epilogue(ctx, y, addend, ctx.getString("activation", "none"),
                  ctx.getFloat("activation_alpha", 0),
                  ctx.getFloat("activation_beta", 0));
}

/// amk.conv: act(Conv(X, W, B) + Z).
LogicalResult convK(KernelContext &ctx) {
  auto y = callKernel(ctx, "Conv",
                      {ctx.value(0), ctx.value(1), ctx.value(2)});
  if (failed(y))
    return failure();
  if (failed(epilogueFromAttrs(ctx, *y, ctx.has(3) ? &ctx.in(3) : nullptr)))
    return failure();
  ctx.set(0, *y);
  return success();
}

/// DequantizeLinear of a weight with per-tensor or per-slice scales along
/// `axis` (the fused op's attribute, whose default differs from
/// DequantizeLinear's).
FailureOr<Tensor> dequantizeWeight(KernelContext &ctx, unsigned first,
                                   int64_t axis) {
  const Tensor &w = ctx.in(first), &s = ctx.in(first + 1);
  const Tensor *z = ctx.has(first + 2) ? &ctx.in(first + 2) : nullptr;
  if (axis < 0)
    axis += w.rank();
  if (s.numel() != 1 && (axis < 0 || axis >= w.rank() ||
                         s.numel() != w.dim(axis) ||
                         (z && z->numel() != s.numel())))
    return ctx.error("the weight's scale of shape " +
                     shapeToString(s.shape()) + " does not match axis " +
                     std::to_string(axis) + " of " +
                     shapeToString(w.shape()));
  int64_t inner = 1;
  if (s.numel() != 1)
    for (int64_t d = axis + 1; d < w.rank(); ++d)
      inner *= w.dim(d);
  Tensor out(DataType::FLOAT, w.shape());
  for (int64_t i = 0; i < w.numel(); ++i) {
    int64_t c = s.numel() == 1 ? 0 : (i / inner) % s.numel();
    double zp = z ? z->getDouble(z->numel() == 1 ? 0 : c) : 0;
    out.setDouble(i, static_cast<float>((w.getDouble(i) - zp) *
                                        s.getDouble(c)));
  }
  return out;
}

/// amk.qconv: Q(act(Conv(DQ(X), DQ(W), B) + DQ(Z))), each step the ONNX
/// kernel (W's DequantizeLinear reads the op's `axis`).
LogicalResult qconvK(KernelContext &ctx) {
  auto x = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(0), ctx.value(1), ctx.value(2)});
  auto w = dequantizeWeight(ctx, 3, ctx.getInt("axis", 0));
  if (failed(x) || failed(w))
    return failure();
  auto y = callKernel(ctx, "Conv", {RValue(*x), RValue(*w), ctx.value(6)});
  if (failed(y))
    return failure();
  std::optional<Tensor> z;
  if (ctx.has(7)) {
    auto dz = callKernel(ctx, "DequantizeLinear",
                         {ctx.value(7), ctx.value(8), ctx.value(9)});
    if (failed(dz))
      return failure();
    z = *dz;
  }
  if (failed(epilogueFromAttrs(ctx, *y, z ? &*z : nullptr)))
    return failure();
  if (!ctx.has(10)) {
    ctx.set(0, *y);
    return success();
  }
  auto q = callKernel(ctx, "QuantizeLinear",
                      {RValue(*y), ctx.value(10), ctx.value(11)});
  if (failed(q))
    return failure();
  ctx.set(0, *q);
  return success();
}

/// `t` with its axes permuted by the op's `attr` (unchanged if absent).
FailureOr<Tensor> permuteBy(KernelContext &ctx, const Tensor &t,
                            llvm::StringRef attr) {
  auto perm = ctx.getInts(attr);
  if (!perm)
    return t;
  if (static_cast<int64_t>(perm->size()) != t.rank())
    return ctx.error(attr + " has " + std::to_string(perm->size()) +
                     " axes, the operand " + std::to_string(t.rank()));
  return permuteTensor(t, *perm);
}

/// amk.gemm: act(alpha * (A' x B') + beta * C).
LogicalResult gemmK(KernelContext &ctx) {
  auto a = permuteBy(ctx, ctx.in(0), "perm_a");
  auto b = permuteBy(ctx, ctx.in(1), "perm_b");
  if (failed(a) || failed(b))
    return failure();
  if (a->rank() < 2 || b->rank() < 2)
    return ctx.error("A and B must have rank >= 2");
  auto y = callKernel(ctx, "MatMul", {RValue(*a), RValue(*b)});
  if (failed(y))
    return failure();
  double alpha = ctx.getFloat("alpha", 1), beta = ctx.getFloat("beta", 1);
  if (alpha != 1)
    for (int64_t i = 0; i < y->numel(); ++i)
      y->setDouble(i, alpha * y->getDouble(i));
  std::optional<Tensor> c;
  if (ctx.has(2)) {
    c = ctx.in(2);
    if (beta != 1) {
      c = Tensor(ctx.in(2).dtype(), ctx.in(2).shape());
      for (int64_t i = 0; i < c->numel(); ++i)
        c->setDouble(i, beta * ctx.in(2).getDouble(i));
    }
  }
  if (failed(epilogueFromAttrs(ctx, *y, c ? &*c : nullptr)))
    return failure();
  ctx.set(0, *y);
  return success();
}

/// amk.qgemm: Q(amk.gemm(DQ(A), DQ(B), C)); B's DequantizeLinear reads
/// the op's `axis`, the gemm its perms, alpha, beta and activation.
LogicalResult qgemmK(KernelContext &ctx) {
  auto a = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(0), ctx.value(1), ctx.value(2)});
  auto b = dequantizeWeight(ctx, 3, ctx.getInt("axis", 1));
  if (failed(a) || failed(b))
    return failure();
  std::vector<RValue> in = {RValue(*a), RValue(*b), ctx.value(6)};
  KernelContext sub(ctx.getOp(), in, ctx.interpreter());
  sub.setVersion(onnx::kMaxOpset);
  if (failed(gemmK(sub)))
    return failure();
  if (!ctx.has(7)) {
    ctx.set(0, sub.results()[0]);
    return success();
  }
  auto q = callKernel(ctx, "QuantizeLinear",
                      {sub.results()[0], ctx.value(7), ctx.value(8)});
  if (failed(q))
    return failure();
  ctx.set(0, *q);
  return success();
}

/// amk.wgemm: amk.gemm(A, DQ(B), C); B's DequantizeLinear reads the op's
/// `axis` and `block_size` (DequantizeLinear-21 semantics, int4 included).
/// With activation_bits 8 and fewer than 6 rows, A is first quantized to
/// int8 per row and block of B and dequantized (the runtime's integer
/// products compute the same values); with activation_bits 16 and at
/// least 6 rows, A is rounded to bfloat16.
LogicalResult wgemmK(KernelContext &ctx) {
  auto b = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(1), ctx.value(2), ctx.value(3)});
  if (failed(b))
    return failure();
  RValue a = ctx.value(0);
  if (ctx.getInt("activation_bits", 0) == 8) {
    const Tensor &x = ctx.in(0);
    int64_t K = x.shape().back(), block = ctx.getInt("block_size", 0) > 0
                                              ? ctx.getInt("block_size", 0)
                                              : K;
    int64_t rows = K ? x.numel() / K : 0;
    if (x.dtype() == DataType::FLOAT && rows < 6) {
      Tensor y(DataType::FLOAT, x.shape());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k0 = 0; k0 < K; k0 += block) {
          int64_t k1 = std::min(K, k0 + block);
          float amax = 0;
          bool finite = true;
          for (int64_t k = k0; k < k1; ++k) {
            float v = x.data<float>()[r * K + k];
            finite &= std::isfinite(v);
            amax = std::max(amax, std::fabs(v));
          }
          // A NaN or infinite activation makes the block NaN.
          float scale =
              finite ? amax / 127.f : std::numeric_limits<float>::quiet_NaN();
          for (int64_t k = k0; k < k1; ++k) {
            float v = x.data<float>()[r * K + k];
            float q = !finite ? 1.f
                      : scale > 0
                          ? std::clamp(std::nearbyint(v / scale), -127.f, 127.f)
                          : 0.f;
            y.data<float>()[r * K + k] = q * scale;
          }
        }
      a = RValue(y);
    }
  }
  if (ctx.getInt("activation_bits", 0) == 16) {
    const Tensor &x = ctx.in(0);
    int64_t K = x.shape().empty() ? 0 : x.shape().back();
    if (x.dtype() == DataType::FLOAT && K && x.numel() / K >= 6) {
      Tensor y(DataType::FLOAT, x.shape());
      for (int64_t i = 0; i < x.numel(); ++i)
        y.data<float>()[i] = bf16ToFloat(floatToBf16(x.data<float>()[i]));
      a = RValue(y);
    }
  }
  std::vector<RValue> in = {a, RValue(*b), ctx.value(4)};
  KernelContext sub(ctx.getOp(), in, ctx.interpreter());
  sub.setVersion(onnx::kMaxOpset);
  if (failed(gemmK(sub)))
    return failure();
  ctx.set(0, sub.results()[0]);
  return success();
}

/// amk.qadd and amk.qmul: QuantizeLinear(act(DequantizeLinear(A) op
/// DequantizeLinear(B))) through the ONNX kernels themselves.
LogicalResult qbinaryK(KernelContext &ctx, llvm::StringRef opType) {
  auto a = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(0), ctx.value(1), ctx.value(2)});
  if (failed(a))
    return failure();
  auto b = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(3), ctx.value(4), ctx.value(5)});
  if (failed(b))
    return failure();
  auto sum = callKernel(ctx, opType, {RValue(*a), RValue(*b)});
  if (failed(sum))
    return failure();
  std::string act = ctx.getString("activation", "none");
  if (act != "none" && act != "relu")
    return ctx.error("activation must be none or relu");
  if (act == "relu") {
    sum = callKernel(ctx, "Relu", {RValue(*sum)});
    if (failed(sum))
      return failure();
  }
  if (!ctx.has(6)) {
    ctx.set(0, *sum);
    return success();
  }
  auto q = callKernel(ctx, "QuantizeLinear",
                      {RValue(*sum), ctx.value(6), ctx.value(7)});
  if (failed(q))
    return failure();
  ctx.set(0, *q);
  return success();
}

LogicalResult qaddK(KernelContext &ctx) { return qbinaryK(ctx, "Add"); }

LogicalResult qmulK(KernelContext &ctx) { return qbinaryK(ctx, "Mul"); }

/// QuantizeLinear(op(DequantizeLinear(X), more...)) through the ONNX
/// kernels: X, its scale and zero point are operands dq[0..2], the
/// QuantizeLinear's scale and zero point q[0..1]; `op` reads the fused
/// op's attributes.
LogicalResult dequantOpQuant(KernelContext &ctx, llvm::StringRef opType,
                             std::array<unsigned, 3> dq,
                             llvm::ArrayRef<unsigned> more,
                             std::array<unsigned, 2> q) {
  auto x = callKernel(ctx, "DequantizeLinear",
                      {ctx.value(dq[0]), ctx.value(dq[1]), ctx.value(dq[2])});
  if (failed(x))
    return failure();
  std::vector<RValue> ins = {RValue(*x)};
  for (unsigned i : more)
    ins.push_back(ctx.value(i));
  auto r = callKernel(ctx, opType, ins);
  if (failed(r))
    return failure();
  auto y = callKernel(ctx, "QuantizeLinear",
                      {RValue(*r), ctx.value(q[0]), ctx.value(q[1])});
  if (failed(y))
    return failure();
  ctx.set(0, *y);
  return success();
}

/// amk.qresize: QuantizeLinear(Resize(DequantizeLinear(X))).
LogicalResult qresizeK(KernelContext &ctx) {
  return dequantOpQuant(ctx, "Resize", {0, 4, 5}, {1, 2, 3}, {6, 7});
}

/// amk.qaverage_pool: QuantizeLinear(AveragePool or GlobalAveragePool(
/// DequantizeLinear(X))).
LogicalResult qaveragePoolK(KernelContext &ctx) {
  return dequantOpQuant(
      ctx, ctx.attr("kernel_shape") ? "AveragePool" : "GlobalAveragePool",
      {0, 1, 2}, {}, {3, 4});
}

/// amk.qtable: Y[i] = table[X[i] - lowest].
LogicalResult qtableK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &t = ctx.in(1);
  if ((x.dtype() != DataType::UINT8 && x.dtype() != DataType::INT8) ||
      (t.dtype() != DataType::UINT8 && t.dtype() != DataType::INT8) ||
      t.numel() != 256)
    return ctx.error("X must be 8-bit and table 256 8-bit values");
  Tensor y(t.dtype(), x.shape());
  const uint8_t *xb = reinterpret_cast<const uint8_t *>(x.raw());
  const uint8_t *tb = reinterpret_cast<const uint8_t *>(t.raw());
  uint8_t *yb = reinterpret_cast<uint8_t *>(y.raw());
  // int8's lowest value, -128, is the byte 0x80: flipping the top bit
  // makes either type's value an offset from its lowest.
  const uint8_t flip = x.dtype() == DataType::INT8 ? 0x80 : 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    yb[i] = tb[xb[i] ^ flip];
  ctx.set(0, y);
  return success();
}

/// amk.gelu.
LogicalResult geluK(KernelContext &ctx) {
  // Tensors share buffers on copy: never write into an input.
  Tensor y(ctx.in(0).dtype(), ctx.in(0).shape());
  copyElements(ctx.in(0), 0, y, 0, y.numel());
  std::string approx = ctx.getString("approximate", "none");
  llvm::StringRef act = approx == "none"   ? "gelu"
                        : approx == "tanh" ? "gelu_tanh"
                        : approx == "quick"
                            ? "quick_gelu"
                            : "";
  if (act.empty())
    return ctx.error("approximate must be none, tanh or quick");
  if (failed(epilogue(ctx, y, nullptr, act, ctx.getFloat("alpha", 1.702f), 0)))
    return failure();
  ctx.set(0, y);
  return success();
}

/// amk.layer_norm: LayerNorm or RMSNorm over the axes from `axis` on,
/// with optional Scale and B broadcasting to the normalized shape.
LogicalResult layerNormK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (!dispatch<kFloats>(x.dtype(), [](auto) {}))
    return ctx.unsupported("element type " + typeName(x.dtype()));
  auto axis = normalizeAxis(ctx.getInt("axis", -1), x.rank());
  if (!axis || *axis >= x.rank())
    return ctx.error("axis out of range");
  double eps = ctx.getFloat("epsilon", 1e-5f);
  bool rms = false;
  if (auto a = dyn_cast_or_null<BoolAttr>(ctx.attr("rms")))
    rms = a.getValue();
  Shape normShape(x.shape().drop_front(*axis));
  int64_t n = numElements(normShape);
  int64_t outer = n ? x.numel() / n : 0;
  std::array<std::vector<int64_t>, 2> idx;
  for (unsigned p = 0; p < 2; ++p) {
    if (!ctx.has(p + 1))
      continue;
    const Tensor &t = ctx.in(p + 1);
    auto s = broadcastShapes({Shape(t.shape()), normShape});
    if (!s || *s != normShape)
      return ctx.error(std::string(p ? "B" : "Scale") +
                       " does not broadcast to the normalized shape " +
                       shapeToString(normShape));
    std::array<Shape, 1> strides = {broadcastStrides(t.shape(), normShape)};
    idx[p].resize(n);
    forEachBroadcast<1>(normShape, strides, [&](int64_t i, const auto &off) {
      idx[p][i] = off[0];
    });
  }
  Tensor y(x.dtype(), x.shape());
  for (int64_t o = 0; o < outer; ++o) {
    int64_t base = o * n;
    auto [mean, inv] = meanInvStd(x, base, n, eps, /*centered=*/!rms);
    for (int64_t i = 0; i < n; ++i) {
      double r = (x.getDouble(base + i) - mean) * inv;
      if (ctx.has(1))
        r *= ctx.in(1).getDouble(idx[0][i]);
      if (ctx.has(2))
        r += ctx.in(2).getDouble(idx[1][i]);
      y.setDouble(base + i, r);
    }
  }
  ctx.set(0, y);
  return success();
}

/// `t` with its heads (dimension -3) repeated to `heads`, head h of the
/// result being head h / (heads / H) of `t`: grouped-query attention's
/// key/value heads as the MatMuls of the definition need them.
static Tensor repeatHeads(const Tensor &t, int64_t heads) {
  int64_t r = t.rank(), h = t.shape()[r - 3];
  if (h == heads || h == 1)
    return t;
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  shape[r - 3] = heads;
  Tensor y(t.dtype(), shape);
  int64_t block = t.shape()[r - 2] * t.shape()[r - 1];
  int64_t outer = t.numel() / (h * block), group = heads / h;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < heads; ++i)
      copyElements(t, (o * h + i / group) * block, y, (o * heads + i) * block,
                   block);
  return y;
}

/// amk.attention: softmax(scale * Q K' + Mask) V.
LogicalResult attentionK(KernelContext &ctx) {
  const Tensor &q = ctx.in(0);
  if (q.rank() < 2 || ctx.in(1).rank() < 2 || ctx.in(2).rank() < 2)
    return ctx.error("Q, K and V must have rank >= 2");
  Tensor k = ctx.in(1), v = ctx.in(2);
  if (q.rank() >= 3 && k.rank() == q.rank() && v.rank() == q.rank()) {
    int64_t hq = q.shape()[q.rank() - 3];
    for (Tensor *t : {&k, &v}) {
      int64_t hk = t->shape()[t->rank() - 3];
      if (hk != 1 && hk != hq && (hk > hq || hq % hk))
        return ctx.error("Q's heads are not a multiple of K's or V's");
      *t = repeatHeads(*t, hq);
    }
  }
  bool keyTransposed = true;
  if (auto a = dyn_cast_or_null<BoolAttr>(ctx.attr("key_transposed")))
    keyTransposed = a.getValue();
  Tensor kt = k;
  if (!keyTransposed) {
    std::vector<int64_t> perm(k.rank());
    for (int64_t i = 0; i < k.rank(); ++i)
      perm[i] = i;
    std::swap(perm[k.rank() - 1], perm[k.rank() - 2]);
    kt = permuteTensor(k, perm);
  }
  auto scores = callKernel(ctx, "MatMul", {RValue(q), RValue(kt)});
  if (failed(scores))
    return failure();
  double scale = ctx.getFloat("scale", 1);
  for (int64_t i = 0; i < scores->numel(); ++i)
    scores->setDouble(i, scale * scores->getDouble(i));
  if (ctx.has(3) &&
      failed(epilogue(ctx, *scores, &ctx.in(3), "none", 0, 0)))
    return failure();
  // amk.attention has no `axis`: Softmax's default, the last axis.
  auto probs = callKernel(ctx, "Softmax", {RValue(*scores)});
  if (failed(probs))
    return failure();
  auto y = callKernel(ctx, "MatMul", {RValue(*probs), RValue(v)});
  if (failed(y))
    return failure();
  ctx.set(0, *y);
  return success();
}

/// amk.bias_softmax: softmax(X + Bias) along `axis` (Softmax's kernel
/// reads the same attribute).
LogicalResult biasSoftmaxK(KernelContext &ctx) {
  Tensor sum(ctx.in(0).dtype(), ctx.in(0).shape());
  copyElements(ctx.in(0), 0, sum, 0, sum.numel());
  if (failed(epilogue(ctx, sum, &ctx.in(1), "none", 0, 0)))
    return failure();
  auto y = callKernel(ctx, "Softmax", {RValue(sum)});
  if (failed(y))
    return failure();
  ctx.set(0, *y);
  return success();
}

/// amk.rope, in the element type with each product and sum rounded as the
/// Mul, Neg, Concat and Add it replaces round them.
template <typename T>
void ropeRows(const Tensor &x, const Tensor &c, const Tensor &s, Tensor &y,
              bool interleaved) {
  auto round = [](double v) -> double {
    if constexpr (std::is_same_v<T, double>)
      return v;
    else
      return static_cast<float>(T(static_cast<float>(v)));
  };
  Shape shape(x.shape());
  int64_t d = shape.back(), half = d / 2;
  Shape table = shape;
  table.back() = interleaved ? half : d;
  std::array<Shape, 2> strides = {broadcastStrides(c.shape(), table),
                                  broadcastStrides(s.shape(), table)};
  // One visit per table element: the pair it rotates and its other half.
  forEachBroadcast(table, strides, [&](int64_t t, std::array<int64_t, 2> off) {
    int64_t row = t / table.back(), j = t % table.back();
    double cv = c.getDouble(off[0]), sv = s.getDouble(off[1]);
    const T *xr = x.data<T>() + row * d;
    T *yr = y.data<T>() + row * d;
    if (interleaved) {
      double x0 = static_cast<float>(xr[2 * j]),
             x1 = static_cast<float>(xr[2 * j + 1]);
      yr[2 * j] = T(round(round(x0 * cv) - round(x1 * sv)));
      yr[2 * j + 1] = T(round(round(x0 * sv) + round(x1 * cv)));
      return;
    }
    // rotate_half(x)[j] = -x[j + D/2] for j < D/2, x[j - D/2] after.
    double xv = static_cast<float>(xr[j]);
    double rv = j < half
                    ? -static_cast<double>(static_cast<float>(xr[j + half]))
                    : static_cast<float>(xr[j - half]);
    yr[j] = T(round(round(xv * cv) + round(rv * sv)));
  });
}

LogicalResult ropeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  bool interleaved = false;
  if (auto a = dyn_cast_or_null<BoolAttr>(ctx.attr("interleaved")))
    interleaved = a.getValue();
  if (x.rank() < 1 || x.shape().back() % 2)
    return ctx.error("X's last axis must be even");
  Tensor y(x.dtype(), x.shape());
  bool known = dispatch<kFloats>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ropeRows<T>(x, ctx.in(1), ctx.in(2), y, interleaved);
  });
  if (!known)
    return ctx.unsupported("element type " + typeName(x.dtype()));
  ctx.set(0, y);
  return success();
}

/// amk.fused_elementwise: runs the body's ops.
LogicalResult fusedElementwiseK(KernelContext &ctx) {
  std::vector<RValue> args;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    args.push_back(ctx.value(i));
  auto results = ctx.runRegion(ctx.getOp()->getRegion(0), args);
  if (failed(results))
    return failure();
  ctx.set(0, (*results)[0]);
  return success();
}

} // namespace

void registerFusedKernels(KernelRegistry &r) {
  r.add("conv", convK, "amk");
  r.add("qconv", qconvK, "amk");
  r.add("qgemm", qgemmK, "amk");
  r.add("wgemm", wgemmK, "amk");
  r.add("qadd", qaddK, "amk");
  r.add("qmul", qmulK, "amk");
  r.add("qtable", qtableK, "amk");
  r.add("qresize", qresizeK, "amk");
  r.add("qaverage_pool", qaveragePoolK, "amk");
  r.add("gemm", gemmK, "amk");
  r.add("gelu", geluK, "amk");
  r.add("layer_norm", layerNormK, "amk");
  r.add("attention", attentionK, "amk");
  r.add("bias_softmax", biasSoftmaxK, "amk");
  r.add("rope", ropeK, "amk");
  r.add("fused_elementwise", fusedElementwiseK, "amk");
}

} // namespace amk::ref
