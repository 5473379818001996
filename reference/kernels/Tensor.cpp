//===- Tensor.cpp - Shape, data movement and type conversion ops ----------===//
//
// Part of AMK. Ops whose older versions take as attributes what newer ones
// take as inputs (Squeeze axes, Pad pads) read whichever form the op
// carries. Slicing, joining and indexing are in Indexing.cpp, constants
// and ranges in Generators.cpp.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstdio>
#include <cstdlib>

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

LogicalResult expandK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  std::vector<int64_t> target = ctx.in(1).toInt64Vector();
  auto shape = broadcastShapes(
      {Shape(x.shape()), Shape(target.begin(), target.end())});
  if (!shape)
    return ctx.error("cannot expand " + shapeToString(x.shape()) + " to " +
                     shapeToString(target));
  if (failed(checkComputedSize(ctx, *shape)))
    return failure();
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
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (reps[d] < 0 || (x.dim(d) && reps[d] > kMaxComputedElements / x.dim(d)))
      return ctx.error("repeats " + shapeToString(reps) +
                       " are negative or too large");
    out.push_back(x.dim(d) * reps[d]);
  }
  if (failed(checkComputedSize(ctx, out)))
    return failure();
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
  for (int64_t d = 0; d < r; ++d)
    if (std::abs(before[d]) > kMaxComputedElements ||
        std::abs(after[d]) > kMaxComputedElements)
      return ctx.error("pads " + shapeToString(pads) + " are too large");
  if (failed(checkComputedSize(ctx, out)))
    return failure();
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
  if (training && ratio != 0) {
    // Element i is kept when draw i of the random ops' generator (seeded
    // by `seed`) reaches the ratio, and scaled by 1 / (1 - ratio).
    if (ratio < 0 || ratio >= 1)
      return ctx.error("training-mode ratio must be in [0, 1)");
    Rng rng(ctx.getInt("seed", 0));
    Tensor y(x.dtype(), x.shape());
    Tensor mask(DataType::BOOL, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      bool keep = rng.uniform() >= ratio;
      mask.data<uint8_t>()[i] = keep;
      y.setDouble(i, keep ? x.getDouble(i) / (1 - ratio) : 0.0);
    }
    ctx.set(0, y);
    if (ctx.numOutputs() > 1 && ctx.wants(1))
      ctx.set(1, mask);
    return success();
  }
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

Tensor permuteTensor(const Tensor &x, llvm::ArrayRef<int64_t> perm) {
  return permute(x, perm);
}

void registerTensorKernels(KernelRegistry &r) {
  r.add("Shape", shapeK);
  r.add("Size", sizeK);
  r.add("Reshape", reshapeK);
  r.add("Flatten", flattenK);
  r.add("Squeeze", squeezeK);
  r.add("Unsqueeze", unsqueezeK);
  r.add("Transpose", transposeK);
  r.add("Expand", expandK);
  r.add("Tile", tileK);
  r.add("Pad", padK);
  r.add("CumSum", cumSumK);
  r.add("DepthToSpace", depthToSpaceK);
  r.add("SpaceToDepth", spaceToDepthK);
  r.add("Cast", castK);
  r.add("CastLike", castLikeK);
  r.add("Dropout", dropoutK);
  r.add("CenterCropPad", centerCropPadK);
}

} // namespace amk::ref
