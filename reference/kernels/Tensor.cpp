//===- Tensor.cpp - Shape, data movement and type conversion ops ----------===//
//
// Part of AMK. Ops whose older versions take as attributes what newer ones
// take as inputs (Squeeze axes, Split sizes, Slice starts, Pad pads) read
// whichever form the op carries.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstdio>
#include <cstdlib>
#include <numeric>

using namespace mlir;

namespace amk::ref {
namespace {

/// Axes from the attribute (older versions) or input `i` (newer ones).
std::optional<std::vector<int64_t>> axesFrom(KernelContext &ctx, unsigned i,
                                             llvm::StringRef attr = "axes") {
  if (auto a = ctx.getInts(attr))
    return a;
  if (ctx.has(i))
    return ctx.in(i).toInt64Vector();
  return std::nullopt;
}

LogicalResult constantK(KernelContext &ctx) {
  Attribute a = ctx.attr("value");
  if (!a)
    a = ctx.attr("sparse_value");
  if (auto e = dyn_cast_or_null<ElementsAttr>(a)) {
    auto t = Tensor::fromAttr(e);
    if (!t)
      return ctx.error(llvm::toString(t.takeError()));
    ctx.set(0, *t);
    return success();
  }
  if (auto f = dyn_cast_or_null<FloatAttr>(ctx.attr("value_float"))) {
    ctx.set(0, Tensor::scalar(DataType::FLOAT, f.getValueAsDouble()));
    return success();
  }
  if (auto fs = ctx.getFloats("value_floats")) {
    Tensor t(DataType::FLOAT, {static_cast<int64_t>(fs->size())});
    std::copy(fs->begin(), fs->end(), t.data<float>());
    ctx.set(0, t);
    return success();
  }
  if (auto i = dyn_cast_or_null<IntegerAttr>(ctx.attr("value_int"))) {
    ctx.set(0, Tensor::fromInt64({i.getInt()}, {}));
    return success();
  }
  if (auto is = ctx.getInts("value_ints")) {
    ctx.set(0, Tensor::fromInt64(*is, {static_cast<int64_t>(is->size())}));
    return success();
  }
  if (auto s = dyn_cast_or_null<StringAttr>(ctx.attr("value_string"))) {
    Tensor t(DataType::STRING, {});
    t.strings()[0] = s.str();
    ctx.set(0, t);
    return success();
  }
  if (ctx.hasAttr("value_strings")) {
    auto strs = ctx.getStrings("value_strings");
    Tensor t(DataType::STRING, {static_cast<int64_t>(strs.size())});
    t.strings() = strs;
    ctx.set(0, t);
    return success();
  }
  return ctx.error("has no value attribute");
}

LogicalResult shapeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t r = x.rank();
  int64_t start = ctx.getInt("start", 0), end = ctx.getInt("end", r);
  auto clampAxis = [&](int64_t a) {
    if (a < 0)
      a += r;
    return std::min(std::max<int64_t>(a, 0), r);
  };
  start = clampAxis(start);
  end = clampAxis(end);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(x.dim(i));
  ctx.set(0, Tensor::fromInt64(dims, {static_cast<int64_t>(dims.size())}));
  return success();
}

LogicalResult sizeK(KernelContext &ctx) {
  ctx.set(0, Tensor::fromInt64({ctx.in(0).numel()}, {}));
  return success();
}

LogicalResult reshapeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> shape = ctx.has(1) ? ctx.in(1).toInt64Vector()
                                          : ctx.getInts("shape").value_or(
                                                std::vector<int64_t>{});
  bool allowZero = ctx.getInt("allowzero", 0) != 0;
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowZero) {
      if (i >= static_cast<size_t>(x.rank()))
        return ctx.error("shape has 0 at position " + std::to_string(i) +
                         " beyond the input's rank");
      shape[i] = x.dim(i);
    }
    if (shape[i] == -1) {
      if (inferred >= 0)
        return ctx.error("shape has more than one -1");
      inferred = i;
      continue;
    }
    if (shape[i] < 0)
      return ctx.error("shape has a negative dimension");
    known *= shape[i];
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0)
      return ctx.error("cannot infer the -1 dimension of " +
                       shapeToString(shape) + " for " +
                       std::to_string(x.numel()) + " elements");
    shape[inferred] = x.numel() / known;
  }
  if (numElements(shape) != x.numel())
    return ctx.error("cannot reshape " + shapeToString(x.shape()) + " to " +
                     shapeToString(shape));
  ctx.set(0, x.reshaped(shape));
  return success();
}

LogicalResult flattenK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.getInt("axis", 1), x.rank(), true);
  if (!axis)
    return ctx.error("axis out of range");
  int64_t outer = 1;
  for (int64_t i = 0; i < *axis; ++i)
    outer *= x.dim(i);
  ctx.set(0, x.reshaped({outer, outer ? x.numel() / outer : 0}));
  return success();
}

LogicalResult squeezeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axes = axesFrom(ctx, 1);
  std::vector<bool> drop(x.rank(), false);
  if (axes) {
    for (int64_t a : *axes) {
      auto n = normalizeAxis(a, x.rank());
      if (!n || x.dim(*n) != 1)
        return ctx.error("cannot squeeze axis " + std::to_string(a) +
                         " of shape " + shapeToString(x.shape()));
      drop[*n] = true;
    }
  } else {
    for (int64_t i = 0; i < x.rank(); ++i)
      drop[i] = x.dim(i) == 1;
  }
  Shape out;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!drop[i])
      out.push_back(x.dim(i));
  ctx.set(0, x.reshaped(out));
  return success();
}

LogicalResult unsqueezeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axes = axesFrom(ctx, 1);
  if (!axes)
    return ctx.error("needs axes");
  int64_t rank = x.rank() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    auto n = normalizeAxis(a, rank);
    if (!n || inserted[*n])
      return ctx.error("invalid or repeated axis " + std::to_string(a));
    inserted[*n] = true;
  }
  Shape out;
  int64_t k = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(inserted[i] ? 1 : x.dim(k++));
  ctx.set(0, x.reshaped(out));
  return success();
}

/// Generic permutation of axes.
Tensor permute(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  Shape outShape;
  for (int64_t p : perm)
    outShape.push_back(x.dim(p));
  Tensor y(x.dtype(), outShape);
  Shape inStrides = stridesOf(x.shape());
  Shape strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    strides[i] = inStrides[perm[i]];
  std::array<Shape, 1> s = {strides};
  if (x.isString()) {
    forEachBroadcast<1>(outShape, s, [&](int64_t i, const auto &off) {
      y.strings()[i] = x.strings()[off[0]];
    });
    return y;
  }
  size_t es = elementSize(x.dtype());
  auto copy = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *src = x.data<T>();
    T *dst = y.data<T>();
    forEachBroadcast<1>(outShape, s, [&](int64_t i, const auto &off) {
      dst[i] = src[off[0]];
    });
  };
  switch (es) {
  case 1:
    copy(Tag<uint8_t>{});
    break;
  case 2:
    copy(Tag<uint16_t>{});
    break;
  case 4:
    copy(Tag<uint32_t>{});
    break;
  case 8:
    copy(Tag<uint64_t>{});
    break;
  default:
    forEachBroadcast<1>(outShape, s, [&](int64_t i, const auto &off) {
      std::memcpy(y.raw() + i * es, x.raw() + off[0] * es, es);
    });
  }
  return y;
}

LogicalResult transposeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> perm;
  if (auto p = ctx.getInts("perm"))
    perm = *p;
  else
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != x.rank())
    return ctx.error("perm does not match the input's rank");
  ctx.set(0, permute(x, perm));
  return success();
}

LogicalResult concatK(KernelContext &ctx) {
  std::vector<Tensor> parts;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    parts.push_back(ctx.in(i));
  auto axis = normalizeAxis(ctx.getInt("axis", 0), parts.front().rank());
  if (!axis)
    return ctx.error("axis out of range");
  std::string err;
  auto y = concatTensors(parts, *axis, err);
  if (!y)
    return ctx.error(err);
  ctx.set(0, *y);
  return success();
}

/// Copies the slab [start, start+len) of `axis` out of `x`.
Tensor sliceAxis(const Tensor &x, int64_t axis, int64_t start, int64_t len) {
  Shape out(x.shape());
  out[axis] = len;
  Tensor y(x.dtype(), out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t o = 0; o < outer; ++o)
    copyElements(x, (o * x.dim(axis) + start) * inner, y, o * len * inner,
                 len * inner);
  return y;
}

LogicalResult splitK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  int64_t dim = x.dim(*axis);
  size_t n = ctx.numOutputs();
  std::vector<int64_t> sizes;
  if (auto s = ctx.getInts("split"))
    sizes = *s;
  else if (ctx.has(1))
    sizes = ctx.in(1).toInt64Vector();
  else {
    // Equal parts; with num_outputs (Split-18) the last may be smaller.
    int64_t part = (dim + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
    if (!ctx.hasAttr("num_outputs") && dim % static_cast<int64_t>(n) != 0)
      return ctx.error("dimension " + std::to_string(dim) +
                       " does not split into " + std::to_string(n) +
                       " equal parts");
    for (size_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(
          0, std::min<int64_t>(part, dim - part * static_cast<int64_t>(i))));
  }
  if (sizes.size() != n ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return ctx.error("split sizes do not match the outputs or the dimension");
  int64_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    ctx.set(i, sliceAxis(x, *axis, start, sizes[i]));
    start += sizes[i];
  }
  return success();
}

LogicalResult sliceK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (auto s = ctx.getInts("starts")) { // Slice-1
    starts = *s;
    ends = ctx.getInts("ends").value_or(std::vector<int64_t>{});
    axes = ctx.getInts("axes").value_or(std::vector<int64_t>{});
  } else {
    starts = intsInput(ctx, 1);
    ends = intsInput(ctx, 2);
    axes = intsInput(ctx, 3);
    steps = intsInput(ctx, 4);
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return ctx.error("starts, ends, axes and steps differ in length");
  int64_t r = x.rank();
  std::vector<int64_t> start(r, 0), step(r, 1);
  Shape out(x.shape());
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto a = normalizeAxis(axes[i], r);
    if (!a || seen[*a])
      return ctx.error("invalid or repeated axis " + std::to_string(axes[i]));
    seen[*a] = true;
    int64_t d = x.dim(*a), s = starts[i], e = ends[i], st = steps[i];
    if (st == 0)
      return ctx.error("step is 0");
    if (s < 0)
      s += d;
    if (e < 0)
      e += d;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      out[*a] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, -1, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      out[*a] = s > e ? (s - e - st - 1) / -st : 0;
    }
    start[*a] = s;
    step[*a] = st;
  }
  Tensor y(x.dtype(), out);
  Shape inStrides = stridesOf(x.shape());
  Shape strides(r);
  int64_t base = 0;
  for (int64_t d = 0; d < r; ++d) {
    strides[d] = inStrides[d] * step[d];
    base += start[d] * inStrides[d];
  }
  std::array<Shape, 1> s = {strides};
  forEachBroadcast<1>(out, s, [&](int64_t i, const auto &off) {
    copyElement(x, base + off[0], y, i);
  });
  ctx.set(0, y);
  return success();
}

LogicalResult gatherK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  int64_t dim = x.dim(*axis);
  Shape out;
  for (int64_t d = 0; d < *axis; ++d)
    out.push_back(x.dim(d));
  for (int64_t d : idx.shape())
    out.push_back(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    out.push_back(x.dim(d));
  Tensor y(x.dtype(), out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  int64_t ni = idx.numel();
  for (int64_t k = 0; k < ni; ++k) {
    int64_t j = idx.getInt(k);
    if (j < -dim || j >= dim)
      return ctx.error("index " + std::to_string(j) + " out of range for " +
                       "dimension " + std::to_string(dim));
    if (j < 0)
      j += dim;
    for (int64_t o = 0; o < outer; ++o)
      copyElements(x, (o * dim + j) * inner, y, (o * ni + k) * inner, inner);
  }
  ctx.set(0, y);
  return success();
}

/// GatherElements/ScatterElements addressing: for each element i of `idx`,
/// the flat offset into `x` of the element at i's coordinates with the
/// coordinate along `axis` replaced by idx[i]; nullopt if an index is out of
/// range.
std::optional<std::vector<int64_t>>
elementOffsets(const Tensor &x, const Tensor &idx, int64_t axis) {
  Shape xs = stridesOf(x.shape()), is = stridesOf(idx.shape());
  int64_t dim = x.dim(axis);
  std::vector<int64_t> offsets(idx.numel());
  for (int64_t i = 0; i < idx.numel(); ++i) {
    int64_t rem = i, off = 0;
    for (int64_t d = 0; d < idx.rank(); ++d) {
      int64_t c = rem / is[d];
      rem %= is[d];
      if (d == axis) {
        c = idx.getInt(i);
        if (c < -dim || c >= dim)
          return std::nullopt;
        if (c < 0)
          c += dim;
      }
      off += c * xs[d];
    }
    offsets[i] = off;
  }
  return offsets;
}

LogicalResult gatherElementsK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis || idx.rank() != x.rank())
    return ctx.error("axis or index rank invalid");
  Tensor y(x.dtype(), idx.shape());
  auto offsets = elementOffsets(x, idx, *axis);
  if (!offsets)
    return ctx.error("index out of range");
  for (int64_t i = 0; i < idx.numel(); ++i)
    copyElement(x, (*offsets)[i], y, i);
  ctx.set(0, y);
  return success();
}

LogicalResult gatherNDK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1);
  int64_t b = ctx.getInt("batch_dims", 0);
  int64_t q = idx.rank(), r = x.rank();
  int64_t k = idx.dim(q - 1);
  if (b + k > r)
    return ctx.error("indices are too long for the data's rank");
  Shape out;
  for (int64_t d = 0; d < q - 1; ++d)
    out.push_back(idx.dim(d));
  for (int64_t d = b + k; d < r; ++d)
    out.push_back(x.dim(d));
  Tensor y(x.dtype(), out);
  int64_t batch = 1, inner = 1;
  for (int64_t d = 0; d < b; ++d)
    batch *= x.dim(d);
  for (int64_t d = b + k; d < r; ++d)
    inner *= x.dim(d);
  Shape xs = stridesOf(x.shape());
  int64_t perBatch = batch ? (idx.numel() / k) / batch : 0;
  int64_t batchStride = b ? xs[b - 1] : 0;
  for (int64_t t = 0; t < batch * perBatch; ++t) {
    int64_t bi = t / std::max<int64_t>(perBatch, 1);
    int64_t off = bi * batchStride;
    for (int64_t j = 0; j < k; ++j) {
      int64_t c = idx.getInt(t * k + j), dim = x.dim(b + j);
      if (c < -dim || c >= dim)
        return ctx.error("index out of range");
      off += (c < 0 ? c + dim : c) * xs[b + j];
    }
    copyElements(x, off, y, t * inner, inner);
  }
  ctx.set(0, y);
  return success();
}

/// Combines an update into a destination element per `reduction`.
void reduceInto(Tensor &y, int64_t di, const Tensor &u, int64_t ui,
                const std::string &reduction) {
  if (reduction == "none" || reduction.empty()) {
    copyElement(u, ui, y, di);
    return;
  }
  double a = y.getDouble(di), b = u.getDouble(ui);
  double r = reduction == "add"   ? a + b
             : reduction == "mul" ? a * b
             : reduction == "max" ? std::max(a, b)
                                  : std::min(a, b);
  y.setDouble(di, r);
}

LogicalResult scatterNDK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1), &upd = ctx.in(2);
  std::string reduction = ctx.getString("reduction", "none");
  Tensor y(x.dtype(), x.shape());
  copyElements(x, 0, y, 0, x.numel());
  int64_t k = idx.dim(-1);
  int64_t inner = 1;
  for (int64_t d = k; d < x.rank(); ++d)
    inner *= x.dim(d);
  Shape xs = stridesOf(x.shape());
  int64_t n = idx.numel() / k;
  for (int64_t t = 0; t < n; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t c = idx.getInt(t * k + j), dim = x.dim(j);
      if (c < -dim || c >= dim)
        return ctx.error("index out of range");
      off += (c < 0 ? c + dim : c) * xs[j];
    }
    for (int64_t e = 0; e < inner; ++e)
      reduceInto(y, off + e, upd, t * inner + e, reduction);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult scatterElementsK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &idx = ctx.in(1), &upd = ctx.in(2);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  std::string reduction = ctx.getString("reduction", "none");
  Tensor y(x.dtype(), x.shape());
  copyElements(x, 0, y, 0, x.numel());
  auto offsets = elementOffsets(x, idx, *axis);
  if (!offsets)
    return ctx.error("index out of range");
  for (int64_t i = 0; i < idx.numel(); ++i)
    reduceInto(y, (*offsets)[i], upd, i, reduction);
  ctx.set(0, y);
  return success();
}

LogicalResult expandK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> target = ctx.in(1).toInt64Vector();
  auto shape = broadcastShapes(
      {Shape(x.shape()), Shape(target.begin(), target.end())});
  if (!shape)
    return ctx.error("cannot expand " + shapeToString(x.shape()) + " to " +
                     shapeToString(target));
  Tensor y(x.dtype(), *shape);
  std::array<Shape, 1> s = {broadcastStrides(x.shape(), *shape)};
  forEachBroadcast<1>(*shape, s, [&](int64_t i, const auto &off) {
    copyElement(x, off[0], y, i);
  });
  ctx.set(0, y);
  return success();
}

LogicalResult tileK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> reps = ctx.in(1).toInt64Vector();
  if (static_cast<int64_t>(reps.size()) != x.rank())
    return ctx.error("repeats must have one entry per dimension");
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d)
    out.push_back(x.dim(d) * reps[d]);
  Tensor y(x.dtype(), out);
  Shape os = stridesOf(out), xs = stridesOf(x.shape());
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rem = i, off = 0;
    for (int64_t d = 0; d < x.rank(); ++d) {
      int64_t c = rem / os[d];
      rem %= os[d];
      off += (c % x.dim(d)) * xs[d];
    }
    copyElement(x, off, y, i);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult padK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::string mode = ctx.getString("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0;
  std::vector<int64_t> axes;
  if (auto p = ctx.getInts("pads")) { // Pad-2
    pads = *p;
    value = ctx.getFloat("value", 0.0f);
  } else {
    pads = intsInput(ctx, 1);
    value = scalarInput(ctx, 2, 0.0);
    axes = intsInput(ctx, 3);
  }
  int64_t r = x.rank();
  std::vector<int64_t> before(r, 0), after(r, 0);
  if (axes.empty()) {
    if (static_cast<int64_t>(pads.size()) != 2 * r)
      return ctx.error("pads must have 2 * rank values");
    for (int64_t d = 0; d < r; ++d) {
      before[d] = pads[d];
      after[d] = pads[d + r];
    }
  } else {
    if (pads.size() != 2 * axes.size())
      return ctx.error("pads must have 2 values per axis");
    for (size_t i = 0; i < axes.size(); ++i) {
      auto a = normalizeAxis(axes[i], r);
      if (!a)
        return ctx.error("axis out of range");
      before[*a] = pads[i];
      after[*a] = pads[i + axes.size()];
    }
  }
  Shape out;
  for (int64_t d = 0; d < r; ++d) {
    out.push_back(x.dim(d) + before[d] + after[d]);
    if (out.back() < 0)
      return ctx.error("padding removes more than the dimension");
    if ((mode == "reflect" || mode == "edge" || mode == "wrap") &&
        x.dim(d) == 0 && (before[d] > 0 || after[d] > 0))
      return ctx.error("cannot pad an empty dimension in mode " + mode);
  }
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return ctx.error("unknown mode '" + mode + "'");
  Tensor y(x.dtype(), out);
  Shape os = stridesOf(out), xs = stridesOf(x.shape());
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rem = i, off = 0;
    bool outside = false;
    for (int64_t d = 0; d < r; ++d) {
      int64_t c = rem / os[d] - before[d];
      rem %= os[d];
      int64_t n = x.dim(d);
      if (c < 0 || c >= n) {
        if (mode == "constant") {
          outside = true;
          break;
        }
        if (mode == "edge")
          c = c < 0 ? 0 : n - 1;
        else if (mode == "wrap")
          c = ((c % n) + n) % n;
        else { // reflect
          if (n == 1)
            c = 0;
          else {
            int64_t period = 2 * (n - 1);
            c = ((c % period) + period) % period;
            if (c >= n)
              c = period - c;
          }
        }
      }
      off += c * xs[d];
    }
    if (outside)
      y.setDouble(i, value);
    else
      copyElement(x, off, y, i);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult constantOfShapeK(KernelContext &ctx) {
  std::vector<int64_t> shape = ctx.in(0).toInt64Vector();
  Tensor fill = Tensor::scalar(DataType::FLOAT, 0.0);
  if (auto v = dyn_cast_or_null<ElementsAttr>(ctx.attr("value"))) {
    auto t = Tensor::fromAttr(v);
    if (!t)
      return ctx.error(llvm::toString(t.takeError()));
    fill = *t;
  }
  for (int64_t d : shape)
    if (d < 0)
      return ctx.error("negative dimension in " + shapeToString(shape));
  Tensor y(fill.dtype(), shape);
  for (int64_t i = 0; i < y.numel(); ++i)
    copyElement(fill, 0, y, i);
  ctx.set(0, y);
  return success();
}

LogicalResult rangeK(KernelContext &ctx) {
  const Tensor &s = ctx.in(0);
  double start = s.getDouble(0), limit = ctx.in(1).getDouble(0),
         delta = ctx.in(2).getDouble(0);
  if (delta == 0)
    return ctx.error("delta is 0");
  int64_t n = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  Tensor y(s.dtype(), {n});
  bool isInt = dispatch<kSigned>(s.dtype(), [](auto) {});
  for (int64_t i = 0; i < n; ++i) {
    if (isInt)
      y.setInt(i, s.getInt(0) + i * ctx.in(2).getInt(0));
    else
      y.setDouble(i, start + i * delta);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult eyeLikeK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  if (x.rank() != 2)
    return ctx.error("input must be 2-D");
  DataType dt = ctx.hasAttr("dtype")
                    ? static_cast<DataType>(ctx.getInt("dtype", 1))
                    : x.dtype();
  int64_t k = ctx.getInt("k", 0);
  Tensor y(dt, x.shape());
  for (int64_t i = 0; i < x.dim(0); ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < x.dim(1))
      y.setDouble(i * x.dim(1) + j, 1);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult oneHotK(KernelContext &ctx) {
  const Tensor &idx = ctx.in(0), &values = ctx.in(2);
  int64_t depth = static_cast<int64_t>(ctx.in(1).getDouble(0));
  if (depth < 1)
    return ctx.error("depth must be positive");
  int64_t r = idx.rank() + 1;
  auto axis = normalizeAxis(ctx.getInt("axis", -1), r);
  if (!axis)
    return ctx.error("axis out of range");
  Shape out;
  for (int64_t d = 0; d < idx.rank(); ++d)
    out.push_back(idx.dim(d));
  out.insert(out.begin() + *axis, depth);
  Tensor y(values.dtype(), out);
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < r; ++d)
    inner *= out[d];
  for (int64_t i = 0; i < y.numel(); ++i)
    copyElement(values, 0, y, i);
  for (int64_t i = 0; i < idx.numel(); ++i) {
    int64_t v = static_cast<int64_t>(idx.getDouble(i));
    if (v < -depth || v >= depth)
      continue;
    if (v < 0)
      v += depth;
    int64_t o = i / inner, in = i % inner;
    copyElement(values, 1, y, (o * depth + v) * inner + in);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult triluK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t k = ctx.has(1) ? ctx.in(1).getInt(0) : 0;
  bool upper = ctx.getInt("upper", 1) != 0;
  Tensor y(x.dtype(), x.shape());
  int64_t rows = x.dim(-2), cols = x.dim(-1);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t c = i % cols, rr = (i / cols) % rows;
    bool keep = upper ? c - rr >= k : c - rr <= k;
    if (keep)
      copyElement(x, i, y, i);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult cumSumK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.in(1).getInt(0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  bool exclusive = ctx.getInt("exclusive", 0), reverse = ctx.getInt("reverse", 0);
  Tensor y(x.dtype(), x.shape());
  int64_t dim = x.dim(*axis), inner = 1, outer = 1;
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  bool ok = dispatch<kNumeric>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CT<T>;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        C acc = 0;
        for (int64_t s = 0; s < dim; ++s) {
          int64_t j = reverse ? dim - 1 - s : s;
          int64_t idx = (o * dim + j) * inner + in;
          C v = static_cast<C>(x.data<T>()[idx]);
          if (exclusive) {
            y.data<T>()[idx] = T(acc);
            acc = static_cast<C>(acc + v);
          } else {
            acc = static_cast<C>(acc + v);
            y.data<T>()[idx] = T(acc);
          }
        }
      }
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(x.dtype()));
  ctx.set(0, y);
  return success();
}

LogicalResult nonZeroK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.getDouble(i) != 0)
      hits.push_back(i);
  int64_t r = x.rank();
  Tensor y(DataType::INT64, {r, static_cast<int64_t>(hits.size())});
  Shape xs = stridesOf(x.shape());
  for (size_t k = 0; k < hits.size(); ++k) {
    int64_t rem = hits[k];
    for (int64_t d = 0; d < r; ++d) {
      y.data<int64_t>()[d * hits.size() + k] = rem / xs[d];
      rem %= xs[d];
    }
  }
  ctx.set(0, y);
  return success();
}

LogicalResult compressK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &cond = ctx.in(1);
  if (!ctx.hasAttr("axis")) {
    Tensor flat = x.reshaped({x.numel()});
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < std::min(cond.numel(), x.numel()); ++i)
      if (cond.getInt(i))
        keep.push_back(i);
    Tensor y(x.dtype(), {static_cast<int64_t>(keep.size())});
    for (size_t k = 0; k < keep.size(); ++k)
      copyElement(flat, keep[k], y, k);
    ctx.set(0, y);
    return success();
  }
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min(cond.numel(), x.dim(*axis)); ++i)
    if (cond.getInt(i))
      keep.push_back(i);
  Shape out(x.shape());
  out[*axis] = keep.size();
  Tensor y(x.dtype(), out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t o = 0; o < outer; ++o)
    for (size_t k = 0; k < keep.size(); ++k)
      copyElements(x, (o * x.dim(*axis) + keep[k]) * inner, y,
                   (o * keep.size() + k) * inner, inner);
  ctx.set(0, y);
  return success();
}

LogicalResult reverseSequenceK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0), &lens = ctx.in(1);
  int64_t batchAxis = ctx.getInt("batch_axis", 1);
  int64_t timeAxis = ctx.getInt("time_axis", 0);
  Tensor y(x.dtype(), x.shape());
  Shape xs = stridesOf(x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t b = (i / xs[batchAxis]) % x.dim(batchAxis);
    int64_t t = (i / xs[timeAxis]) % x.dim(timeAxis);
    int64_t len = lens.getInt(b);
    int64_t src = i;
    if (t < len)
      src = i + (len - 1 - 2 * t) * xs[timeAxis];
    copyElement(x, src, y, i);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult depthToSpaceK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t b = ctx.getInt("blocksize", 0);
  if (x.rank() != 4 || b < 1 || x.dim(1) % (b * b))
    return ctx.error("invalid input shape or blocksize");
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  int64_t oc = c / (b * b);
  bool crd = ctx.getString("mode", "DCR") == "CRD";
  Tensor tmp = crd ? x.reshaped({n, oc, b, b, h, w})
                   : x.reshaped({n, b, b, oc, h, w});
  Tensor p = crd ? permute(tmp, {0, 1, 4, 2, 5, 3})
                 : permute(tmp, {0, 3, 4, 1, 5, 2});
  ctx.set(0, p.reshaped({n, oc, h * b, w * b}));
  return success();
}

LogicalResult spaceToDepthK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  int64_t b = ctx.getInt("blocksize", 0);
  if (x.rank() != 4 || b < 1 || x.dim(2) % b || x.dim(3) % b)
    return ctx.error("invalid input shape or blocksize");
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  Tensor tmp = x.reshaped({n, c, h / b, b, w / b, b});
  Tensor p = permute(tmp, {0, 3, 5, 1, 2, 4});
  ctx.set(0, p.reshaped({n, c * b * b, h / b, w / b}));
  return success();
}

/// The shortest decimal that reads back to the same float, as numpy prints.
std::string formatFloat(double v, bool isFloat32) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "INF" : "-INF";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    snprintf(buf, sizeof(buf), "%.*g", prec, v);
    double back = std::strtod(buf, nullptr);
    if (isFloat32 ? static_cast<float>(back) == static_cast<float>(v)
                  : back == v)
      break;
  }
  return buf;
}

LogicalResult castTo(KernelContext &ctx, const Tensor &x, DataType to) {
  if (!onnx::getDataTypeBitWidth(to) && to != DataType::STRING)
    return ctx.error("cannot cast to data type " +
                     std::to_string(static_cast<int>(to)));
  if (x.isString() && to == DataType::STRING) {
    ctx.set(0, x);
    return success();
  }
  if (to == DataType::STRING) {
    Tensor y(DataType::STRING, x.shape());
    bool isFloat = dispatch<kFloats>(x.dtype(), [](auto) {});
    for (int64_t i = 0; i < x.numel(); ++i)
      y.strings()[i] = isFloat ? formatFloat(x.getDouble(i),
                                             x.dtype() != DataType::DOUBLE)
                     : x.dtype() == DataType::UINT64
                         ? std::to_string(x.data<uint64_t>()[i])
                         : std::to_string(x.getInt(i));
    ctx.set(0, y);
    return success();
  }
  if (x.isString()) {
    Tensor y(to, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string &s = x.strings()[i];
      char *end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (end == s.c_str())
        return ctx.error("cannot parse '" + s + "' as a number");
      y.setDouble(i, v);
    }
    ctx.set(0, y);
    return success();
  }
  // Before Cast-19, ONNX's reference converts float to bfloat16 by
  // truncation (its test data does); Cast-19 specifies rounding to nearest
  // even, which convertTensor does.
  if (to == DataType::BFLOAT16 && ctx.version() < 19 &&
      x.dtype() == DataType::FLOAT) {
    Tensor y(to, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, x.data<float>() + i, 4);
      y.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
    }
    ctx.set(0, y);
    return success();
  }
  ctx.set(0, convertTensor(x, to));
  return success();
}

LogicalResult castK(KernelContext &ctx) {
  return castTo(ctx, ctx.in(0), static_cast<DataType>(ctx.getInt("to", 0)));
}

LogicalResult castLikeK(KernelContext &ctx) {
  return castTo(ctx, ctx.in(0), ctx.in(1).dtype());
}

LogicalResult centerCropPadK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> target = ctx.in(1).toInt64Vector();
  std::vector<int64_t> axes;
  if (auto a = ctx.getInts("axes")) {
    for (int64_t ax : *a) {
      auto n = normalizeAxis(ax, x.rank());
      if (!n)
        return ctx.error("axis out of range");
      axes.push_back(*n);
    }
  } else {
    for (int64_t d = 0; d < x.rank(); ++d)
      axes.push_back(d);
  }
  if (axes.size() != target.size())
    return ctx.error("shape must have one value per axis");
  Shape out(x.shape());
  // Per axis: where the input's kept range starts in the input and output.
  Shape inStart(x.rank(), 0), outStart(x.rank(), 0), len(x.shape());
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = axes[i], want = target[i], have = x.dim(d);
    if (want < 0)
      return ctx.error("negative target size");
    out[d] = want;
    if (want < have)
      inStart[d] = (have - want) / 2;
    else
      outStart[d] = (want - have) / 2;
    len[d] = std::min(want, have);
  }
  Tensor y(x.dtype(), out);
  Shape xs = stridesOf(x.shape()), ys = stridesOf(out);
  int64_t n = numElements(len);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rem = k, src = 0, dst = 0;
    for (int64_t d = x.rank() - 1; d >= 0; --d) {
      int64_t c = rem % len[d];
      rem /= len[d];
      src += (c + inStart[d]) * xs[d];
      dst += (c + outStart[d]) * ys[d];
    }
    copyElement(x, src, y, dst);
  }
  ctx.set(0, y);
  return success();
}

LogicalResult dropoutK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  bool training = ctx.has(2) && ctx.in(2).getInt(0) != 0;
  double ratio = ctx.version() >= 12 ? scalarInput(ctx, 1, 0.5)
                                     : ctx.getFloat("ratio", 0.5f);
  if (training && ratio != 0)
    return ctx.unsupported("training-mode Dropout with a nonzero ratio is "
                           "random");
  ctx.set(0, x);
  if (ctx.numOutputs() > 1 && ctx.wants(1)) {
    Tensor mask(DataType::BOOL, x.shape());
    for (int64_t i = 0; i < mask.numel(); ++i)
      mask.data<uint8_t>()[i] = 1;
    // Dropout-7..10 typed the mask like the data.
    Type t = ctx.getOp()->getResult(1).getType();
    if (auto tt = dyn_cast<TensorType>(t))
      if (auto dt = onnx::getDataType(tt.getElementType());
          dt && *dt != DataType::BOOL)
        mask = convertTensor(mask, *dt);
    ctx.set(1, mask);
  }
  return success();
}

} // namespace

std::optional<Tensor> concatTensors(llvm::ArrayRef<Tensor> parts,
                                    int64_t axis, std::string &err) {
  const Tensor &first = parts.front();
  Shape out(first.shape());
  out[axis] = 0;
  for (const Tensor &t : parts) {
    bool same = t.rank() == first.rank();
    for (int64_t d = 0; same && d < t.rank(); ++d)
      same = d == axis || t.dim(d) == first.dim(d);
    if (!same) {
      err = "inputs " + shapeToString(first.shape()) + " and " +
            shapeToString(t.shape()) + " differ outside axis " +
            std::to_string(axis);
      return std::nullopt;
    }
    out[axis] += t.dim(axis);
  }
  Tensor y(first.dtype(), out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= out[d];
  for (int64_t d = axis + 1; d < first.rank(); ++d)
    inner *= out[d];
  int64_t offset = 0;
  for (const Tensor &t : parts) {
    int64_t chunk = t.dim(axis) * inner;
    for (int64_t o = 0; o < outer; ++o)
      copyElements(t, o * chunk, y, o * out[axis] * inner + offset, chunk);
    offset += chunk;
  }
  return y;
}

Tensor permuteTensor(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  return permute(x, perm);
}

void registerTensorKernels(KernelRegistry &r) {
  r.add("Constant", constantK);
  r.add("Shape", shapeK);
  r.add("Size", sizeK);
  r.add("Reshape", reshapeK);
  r.add("Flatten", flattenK);
  r.add("Squeeze", squeezeK);
  r.add("Unsqueeze", unsqueezeK);
  r.add("Transpose", transposeK);
  r.add("Concat", concatK);
  r.add("Split", splitK);
  r.add("Slice", sliceK);
  r.add("Gather", gatherK);
  r.add("GatherElements", gatherElementsK);
  r.add("GatherND", gatherNDK);
  r.add("ScatterND", scatterNDK);
  r.add("ScatterElements", scatterElementsK);
  r.add("Scatter", scatterElementsK);
  r.add("Expand", expandK);
  r.add("Tile", tileK);
  r.add("Pad", padK);
  r.add("ConstantOfShape", constantOfShapeK);
  r.add("Range", rangeK);
  r.add("EyeLike", eyeLikeK);
  r.add("OneHot", oneHotK);
  r.add("Trilu", triluK);
  r.add("CumSum", cumSumK);
  r.add("NonZero", nonZeroK);
  r.add("Compress", compressK);
  r.add("ReverseSequence", reverseSequenceK);
  r.add("DepthToSpace", depthToSpaceK);
  r.add("SpaceToDepth", spaceToDepthK);
  r.add("Cast", castK);
  r.add("CastLike", castLikeK);
  r.add("Dropout", dropoutK);
  r.add("CenterCropPad", centerCropPadK);
}

} // namespace amk::ref
