//===- Reduction.cpp - ReduceX, ArgMax and ArgMin -------------------------===//
//
// Part of AMK. Floating-point reductions accumulate in double and round
// once, which is at least as accurate as the ONNX reference (numpy in the
// input type); integer Mean/L2/LogSum/LogSumExp truncate toward zero. Axes come
// from the attribute (before opset 18; ReduceSum before 13) or from the
// optional second input.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

using namespace mlir;

namespace amk::ref {
namespace {

enum class Reduce { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

struct Plan {
  Shape outShape;     // with keepdims applied
  Shape keepShape;    // reduced dims set to 1
  Shape outStrides;   // strides into the output, 0 on reduced dims
  int64_t groupSize = 1;
};

/// The reduced axes of `x`: from the attribute, the input, or all of them.
/// `noop` is set when the op must return its input unchanged.
FailureOr<std::vector<bool>> reducedAxes(KernelContext &ctx, const Tensor &x,
                                         bool &noop) {
  std::vector<int64_t> axes;
  if (auto a = ctx.getInts("axes"))
    axes = *a;
  else if (ctx.has(1))
    axes = ctx.in(1).toInt64Vector();
  noop = false;
  std::vector<bool> reduced(x.rank(), false);
  if (axes.empty()) {
    // No axes: reduce everything, unless the op asks to be a no-op.
    noop = ctx.getInt("noop_with_empty_axes", 0) != 0;
    reduced.assign(x.rank(), !noop);
    return reduced;
  }
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, x.rank());
    if (!n)
      return ctx.error("axis " + std::to_string(a) + " out of range for " +
                       "rank " + std::to_string(x.rank()));
    reduced[*n] = true;
  }
  return reduced;
}

Plan makePlan(const Tensor &x, const std::vector<bool> &reduced,
              bool keepdims) {
  Plan p;
  for (int64_t d = 0; d < x.rank(); ++d) {
    p.keepShape.push_back(reduced[d] ? 1 : x.dim(d));
    if (reduced[d])
      p.groupSize *= x.dim(d);
    if (!reduced[d] || keepdims)
      p.outShape.push_back(reduced[d] ? 1 : x.dim(d));
  }
  Shape ks = stridesOf(p.keepShape);
  for (int64_t d = 0; d < x.rank(); ++d)
    p.outStrides.push_back(reduced[d] ? 0 : ks[d]);
  return p;
}

LogicalResult reduce(KernelContext &ctx, Reduce kind) {
  const Tensor &x = ctx.in(0);
  bool noop;
  auto reduced = reducedAxes(ctx, x, noop);
  if (failed(reduced))
    return failure();
  if (noop) {
    ctx.set(0, x);
    return success();
  }
  Plan p = makePlan(x, *reduced, ctx.getInt("keepdims", 1) != 0);
  int64_t outN = numElements(p.keepShape);
  // Identity elements make reductions over empty sets well defined.
  double init = 0;
  switch (kind) {
  case Reduce::Max:
  case Reduce::LogSumExp:
    init = -std::numeric_limits<double>::infinity();
    break;
  case Reduce::Min:
    init = std::numeric_limits<double>::infinity();
    break;
  case Reduce::Prod:
    init = 1;
    break;
  default:
    break;
  }
  std::vector<double> acc(outN, init);
  // LogSumExp: the maximum first, for a stable sum.
  std::vector<double> maxv;
  std::array<Shape, 1> strides = {p.outStrides};
  bool isFloat = dispatch<kFloats>(x.dtype(), [](auto) {});
  bool isUnsigned64 = x.dtype() == DataType::UINT64;
  if (kind == Reduce::LogSumExp) {
    maxv.assign(outN, -std::numeric_limits<double>::infinity());
    forEachBroadcast<1>(x.shape(), strides, [&](int64_t i, const auto &off) {
      maxv[off[0]] = std::max(maxv[off[0]], x.getDouble(i));
    });
  }
  // Integer sums and products wrap like the ONNX reference; keep them in
  // int64 rather than double so large values stay exact.
  std::vector<int64_t> iacc;
  bool intPath = !isFloat && (kind == Reduce::Sum || kind == Reduce::Prod ||
                              kind == Reduce::SumSquare ||
                              kind == Reduce::L1 || kind == Reduce::Max ||
                              kind == Reduce::Min);
  if (intPath) {
    int64_t iinit = kind == Reduce::Prod  ? 1
                    : kind == Reduce::Max ? std::numeric_limits<int64_t>::min()
                    : kind == Reduce::Min ? std::numeric_limits<int64_t>::max()
                                          : 0;
    iacc.assign(outN, iinit);
  }
  forEachBroadcast<1>(x.shape(), strides, [&](int64_t i, const auto &off) {
    int64_t o = off[0];
    if (intPath) {
      int64_t v = isUnsigned64 ? static_cast<int64_t>(x.data<uint64_t>()[i])
                               : x.getInt(i);
      int64_t &a = iacc[o];
      switch (kind) {
      case Reduce::Sum:
        a = static_cast<int64_t>(static_cast<uint64_t>(a) +
                                 static_cast<uint64_t>(v));
        break;
      case Reduce::Prod:
        a = static_cast<int64_t>(static_cast<uint64_t>(a) *
                                 static_cast<uint64_t>(v));
        break;
      case Reduce::SumSquare:
        a += v * v;
        break;
      case Reduce::L1:
        a += v < 0 ? -v : v;
        break;
      case Reduce::Max:
        a = std::max(a, v);
        break;
      case Reduce::Min:
        a = std::min(a, v);
        break;
      default:
        break;
      }
      return;
    }
    double v = x.getDouble(i);
    double &a = acc[o];
    switch (kind) {
    case Reduce::Sum:
    case Reduce::Mean:
    case Reduce::LogSum:
      a += v;
      break;
    case Reduce::Max:
      a = (std::isnan(v) || std::isnan(a)) ? std::nan("") : std::max(a, v);
      break;
    case Reduce::Min:
      a = (std::isnan(v) || std::isnan(a)) ? std::nan("") : std::min(a, v);
      break;
    case Reduce::Prod:
      a *= v;
      break;
    case Reduce::L1:
      a += std::abs(v);
      break;
    case Reduce::L2:
    case Reduce::SumSquare:
      a += v * v;
      break;
    case Reduce::LogSumExp:
      if (std::isfinite(maxv[o]))
        a = (a == -std::numeric_limits<double>::infinity() ? 0 : a) +
            std::exp(v - maxv[o]);
      break;
    }
  });
  Tensor y(x.dtype(), p.outShape);
  for (int64_t o = 0; o < outN; ++o) {
    if (intPath) {
      int64_t v = iacc[o];
      if (p.groupSize == 0 && (kind == Reduce::Max || kind == Reduce::Min))
        v = 0; // No elements: the type has no infinity.
      y.setInt(o, v);
      continue;
    }
    double v = acc[o];
    switch (kind) {
    case Reduce::Mean:
      v = p.groupSize ? v / p.groupSize : std::nan("");
      break;
    case Reduce::L2:
      v = std::sqrt(v);
      break;
    case Reduce::LogSum:
      v = std::log(v);
      break;
    case Reduce::LogSumExp:
      if (std::isfinite(maxv[o]))
        v = std::log(v) + maxv[o];
      else
        v = maxv[o];
      break;
    default:
      break;
    }
    // Integer results truncate toward zero, as the ONNX reference's
    // astype and ONNX Runtime's integer division do.
    y.setDouble(o, isFloat ? v : std::trunc(v));
  }
  ctx.set(0, y);
  return success();
}

#define AMK_REDUCE(NAME, KIND)                                                 \
  LogicalResult NAME(KernelContext &ctx) { return reduce(ctx, Reduce::KIND); }
AMK_REDUCE(reduceSumK, Sum)
AMK_REDUCE(reduceMeanK, Mean)
AMK_REDUCE(reduceMaxK, Max)
AMK_REDUCE(reduceMinK, Min)
AMK_REDUCE(reduceProdK, Prod)
AMK_REDUCE(reduceL1K, L1)
AMK_REDUCE(reduceL2K, L2)
AMK_REDUCE(reduceLogSumK, LogSum)
AMK_REDUCE(reduceLogSumExpK, LogSumExp)
AMK_REDUCE(reduceSumSquareK, SumSquare)
#undef AMK_REDUCE

LogicalResult argReduce(KernelContext &ctx, bool isMax) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  bool keepdims = ctx.getInt("keepdims", 1) != 0;
  bool last = ctx.getInt("select_last_index", 0) != 0;
  int64_t dim = x.dim(*axis);
  if (dim == 0)
    return ctx.error("cannot take an arg" + std::string(isMax ? "max" : "min") +
                     " over an empty axis");
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != *axis || keepdims)
      out.push_back(d == *axis ? 1 : x.dim(d));
  Tensor y(DataType::INT64, out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t best = 0;
      double bv = x.getDouble(o * dim * inner + in);
      for (int64_t j = 1; j < dim; ++j) {
        double v = x.getDouble((o * dim + j) * inner + in);
        bool better = isMax ? (v > bv || (last && v == bv))
                            : (v < bv || (last && v == bv));
        if (better) {
          best = j;
          bv = v;
        }
      }
      y.data<int64_t>()[o * inner + in] = best;
    }
  ctx.set(0, y);
  return success();
}

LogicalResult argMaxK(KernelContext &ctx) { return argReduce(ctx, true); }
LogicalResult argMinK(KernelContext &ctx) { return argReduce(ctx, false); }

} // namespace

void registerReductionKernels(KernelRegistry &r) {
  r.add("ReduceSum", reduceSumK);
  r.add("ReduceMean", reduceMeanK);
  r.add("ReduceMax", reduceMaxK);
  r.add("ReduceMin", reduceMinK);
  r.add("ReduceProd", reduceProdK);
  r.add("ReduceL1", reduceL1K);
  r.add("ReduceL2", reduceL2K);
  r.add("ReduceLogSum", reduceLogSumK);
  r.add("ReduceLogSumExp", reduceLogSumExpK);
  r.add("ReduceSumSquare", reduceSumSquareK);
  r.add("ArgMax", argMaxK);
  r.add("ArgMin", argMinK);
}

} // namespace amk::ref
