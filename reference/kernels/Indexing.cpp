//===- Indexing.cpp - Slicing, joining, gathering and scattering ----------===//
//
// Part of AMK. The gathers and scatters refuse an index out of range
// rather than read or write outside the tensor; negative indices count
// from the end. Older Split and Slice take as attributes what newer ones
// take as inputs (sizes, starts) and read whichever form the op carries.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace amk::ref {
namespace {

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
    int64_t part =
        (dim + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
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
  if (failed(checkComputedSize(ctx, out)))
    return failure();
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

} // namespace

std::optional<Tensor> concatTensors(llvm::ArrayRef<Tensor> parts, int64_t axis,
                                    std::string &err) {
  // An input without elements adds nothing, and ONNX Runtime ignores its
  // other dims: torchvision's detection exports concatenate boxes [N, 4]
  // with an empty [0, 0] when a level has none.
  const Tensor *ref = &parts.front();
  for (const Tensor &t : parts)
    if (t.numel() > 0) {
      ref = &t;
      break;
    }
  const Tensor &first = *ref;
  Shape out(first.shape());
  out[axis] = 0;
  for (const Tensor &t : parts) {
    bool same = t.rank() == first.rank();
    for (int64_t d = 0; same && d < t.rank(); ++d)
      same = d == axis || t.dim(d) == first.dim(d);
    if (!same && t.numel() == 0 && t.rank() == first.rank())
      continue;
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
    if (t.numel() == 0) // nothing to copy, and maybe not [.., 0, ..] here
      continue;
    int64_t chunk = t.dim(axis) * inner;
    for (int64_t o = 0; o < outer; ++o)
      copyElements(t, o * chunk, y, o * out[axis] * inner + offset, chunk);
    offset += chunk;
  }
  return y;
}

void registerIndexingKernels(KernelRegistry &r) {
  r.add("Concat", concatK);
  r.add("Split", splitK);
  r.add("Slice", sliceK);
  r.add("Gather", gatherK);
  r.add("GatherElements", gatherElementsK);
  r.add("GatherND", gatherNDK);
  r.add("ScatterND", scatterNDK);
  r.add("ScatterElements", scatterElementsK);
  r.add("Scatter", scatterElementsK);
  r.add("OneHot", oneHotK);
  r.add("Trilu", triluK);
  r.add("NonZero", nonZeroK);
  r.add("Compress", compressK);
  r.add("ReverseSequence", reverseSequenceK);
}

} // namespace amk::ref
