//===- Control.cpp - If, Loop, Scan, sequences and optionals --------------===//
//
// Part of AMK. Subgraph bodies run through the interpreter itself
// (KernelContext::runRegion); a body sees the values of enclosing graphs.
// An empty optional is the `none` value.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace amk::ref {
namespace {

/// Loops stop with an error after this many iterations: a loop with
/// neither a trip count nor a condition would otherwise run forever.
constexpr int64_t kMaxIterations = int64_t(1) << 31;

bool truthy(const RValue &v) {
  return v.isTensor() && v.getTensor().numel() > 0 &&
         v.getTensor().getInt(0) != 0;
}

/// Stacks equally shaped tensors along a new axis 0.
std::optional<Tensor> stack(const std::vector<Tensor> &items,
                            std::string &err) {
  std::vector<Tensor> parts;
  for (const Tensor &t : items) {
    Shape s(t.shape());
    s.insert(s.begin(), 1);
    parts.push_back(t.reshaped(s));
  }
  return concatTensors(parts, 0, err);
}

/// A [0, ...] tensor for a scan output of a loop that ran zero times, with
/// the element type and inner shape the IR gives (unknown dims are 0).
Tensor emptyScanOutput(Type t) {
  DataType dt = DataType::FLOAT;
  Shape shape = {0};
  if (auto tt = dyn_cast<TensorType>(t)) {
    if (auto d = onnx::getDataType(tt.getElementType()))
      dt = *d;
    if (tt.hasRank())
      for (int64_t d : tt.getShape().drop_front())
        shape.push_back(ShapedType::isDynamic(d) ? 0 : d);
  }
  return Tensor(dt, shape);
}

LogicalResult ifK(KernelContext &ctx) {
  Region &branch = ctx.getOp()->getRegion(truthy(ctx.value(0)) ? 0 : 1);
  auto outs = ctx.runRegion(branch, {});
  if (failed(outs))
    return failure();
  for (size_t i = 0; i < outs->size() && i < ctx.numOutputs(); ++i)
    ctx.set(i, (*outs)[i]);
  return success();
}

LogicalResult loopK(KernelContext &ctx) {
  bool hasM = ctx.has(0);
  int64_t tripCount = hasM ? ctx.in(0).getInt(0) : kMaxIterations;
  bool cond = ctx.has(1) ? truthy(ctx.value(1)) : true;
  size_t nCarried = ctx.numInputs() - 2;
  std::vector<RValue> carried;
  for (size_t i = 0; i < nCarried; ++i)
    carried.push_back(ctx.value(2 + i));
  size_t nScan = ctx.numOutputs() - nCarried;
  std::vector<std::vector<Tensor>> scans(nScan);
  Region &body = ctx.getOp()->getRegion(0);
  int64_t i = 0;
  for (; i < tripCount && cond; ++i) {
    if (i == kMaxIterations)
      return ctx.error("ran more than 2^31 iterations");
    std::vector<RValue> args = {RValue(Tensor::fromInt64({i}, {})),
                                RValue(Tensor::scalar(DataType::BOOL, cond))};
    args.insert(args.end(), carried.begin(), carried.end());
    auto outs = ctx.runRegion(body, args);
    if (failed(outs))
      return failure();
    if (outs->size() != 1 + nCarried + nScan)
      return ctx.error("the body yields " + std::to_string(outs->size()) +
                       " values; expected " +
                       std::to_string(1 + nCarried + nScan));
    cond = truthy((*outs)[0]);
    for (size_t k = 0; k < nCarried; ++k)
      carried[k] = (*outs)[1 + k];
    for (size_t k = 0; k < nScan; ++k) {
      const RValue &v = (*outs)[1 + nCarried + k];
      if (!v.isTensor())
        return ctx.unsupported("scan outputs that are not tensors");
      scans[k].push_back(v.getTensor());
    }
  }
  for (size_t k = 0; k < nCarried; ++k)
    ctx.set(k, carried[k]);
  for (size_t k = 0; k < nScan; ++k) {
    if (scans[k].empty()) {
      ctx.set(nCarried + k,
              emptyScanOutput(ctx.getOp()->getResult(nCarried + k).getType()));
      continue;
    }
    std::string err;
    auto t = stack(scans[k], err);
    if (!t)
      return ctx.error("scan output " + std::to_string(k) + ": " + err);
    ctx.set(nCarried + k, *t);
  }
  return success();
}

/// The loop shared by Scan-8 and Scan-9+: scan inputs arrive with their
/// scan axis first; returns the final states and, per scan output, the
/// element of every step (in step order).
struct ScanResult {
  std::vector<RValue> state;
  std::vector<std::vector<Tensor>> outs;
};

FailureOr<ScanResult> runScan(KernelContext &ctx, std::vector<RValue> state,
                              const std::vector<Tensor> &inputs,
                              llvm::ArrayRef<int64_t> dirs, int64_t nScanOut) {
  int64_t len = inputs.front().dim(0);
  for (const Tensor &t : inputs)
    if (t.dim(0) != len)
      return ctx.error("scan inputs have different lengths");
  ScanResult r;
  r.outs.resize(nScanOut);
  Region &body = ctx.getOp()->getRegion(0);
  for (int64_t step = 0; step < len; ++step) {
    std::vector<RValue> args = state;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Tensor &t = inputs[k];
      int64_t j = dirs[k] ? len - 1 - step : step;
      int64_t inner = t.numel() / std::max<int64_t>(len, 1);
      Tensor slice(t.dtype(), t.shape().drop_front());
      copyElements(t, j * inner, slice, 0, inner);
      args.push_back(RValue(slice));
    }
    auto res = ctx.runRegion(body, args);
    if (failed(res))
      return failure();
    if (res->size() != state.size() + nScanOut)
      return ctx.error("the body yields the wrong number of values");
    for (size_t i = 0; i < state.size(); ++i)
      state[i] = (*res)[i];
    for (int64_t k = 0; k < nScanOut; ++k) {
      if (!(*res)[state.size() + k].isTensor())
        return ctx.unsupported("scan outputs that are not tensors");
      r.outs[k].push_back((*res)[state.size() + k].getTensor());
    }
  }
  r.state = std::move(state);
  return r;
}

/// `t` with axis `a` moved to the front.
Tensor axisFirst(const Tensor &t, int64_t a) {
  std::vector<int64_t> perm = {a};
  for (int64_t d = 0; d < t.rank(); ++d)
    if (d != a)
      perm.push_back(d);
  return permuteTensor(t, perm);
}

/// Scan-8: every input has a leading batch dimension and the scan axis is
/// 1; the batch is scanned element by element.
LogicalResult scan8K(KernelContext &ctx) {
  int64_t nScanIn = ctx.getInt("num_scan_inputs", 0);
  int64_t nIn = ctx.numInputs() - 1; // Input 0 is sequence_lens.
  int64_t nState = nIn - nScanIn;
  int64_t nScanOut = ctx.numOutputs() - nState;
  if (nScanIn < 1 || nState < 0)
    return ctx.error("num_scan_inputs is invalid");
  auto dirs = ctx.getInts("directions")
                  .value_or(std::vector<int64_t>(nScanIn, 0));
  int64_t batch = ctx.in(1).dim(0);
  if (ctx.has(0))
    for (int64_t b = 0; b < batch; ++b)
      if (ctx.in(0).getInt(b) != ctx.in(1 + nState).dim(1))
        return ctx.unsupported("Scan-8 with sequence_lens shorter than the "
                               "sequence");
  auto row = [](const Tensor &t, int64_t b) {
    int64_t inner = t.numel() / t.dim(0);
    Tensor s(t.dtype(), t.shape().drop_front());
    copyElements(t, b * inner, s, 0, inner);
    return s;
  };
  std::vector<std::vector<Tensor>> states(nState), outs(nScanOut);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<RValue> state;
    for (int64_t i = 0; i < nState; ++i)
      state.push_back(RValue(row(ctx.in(1 + i), b)));
    std::vector<Tensor> inputs;
    for (int64_t k = 0; k < nScanIn; ++k)
      inputs.push_back(row(ctx.in(1 + nState + k), b));
    auto r = runScan(ctx, state, inputs, dirs, nScanOut);
    if (failed(r))
      return failure();
    for (int64_t i = 0; i < nState; ++i)
      states[i].push_back(r->state[i].getTensor());
    for (int64_t k = 0; k < nScanOut; ++k) {
      std::string err;
      auto t = stack(r->outs[k], err);
      if (!t)
        return ctx.error(err);
      outs[k].push_back(*t);
    }
  }
  for (int64_t i = 0; i < nState; ++i) {
    std::string err;
    ctx.set(i, *stack(states[i], err));
  }
  for (int64_t k = 0; k < nScanOut; ++k) {
    std::string err;
    ctx.set(nState + k, *stack(outs[k], err));
  }
  return success();
}

LogicalResult scanK(KernelContext &ctx) {
  if (isa<onnx::GenericOp>(ctx.getOp()))
    return scan8K(ctx);
  int64_t nScanIn = ctx.getInt("num_scan_inputs", 0);
  int64_t nState = static_cast<int64_t>(ctx.numInputs()) - nScanIn;
  if (nScanIn < 1 || nState < 0)
    return ctx.error("num_scan_inputs is invalid");
  int64_t nScanOut = ctx.numOutputs() - nState;
  auto inAxes = ctx.getInts("scan_input_axes")
                    .value_or(std::vector<int64_t>(nScanIn, 0));
  auto inDirs = ctx.getInts("scan_input_directions")
                    .value_or(std::vector<int64_t>(nScanIn, 0));
  auto outAxes = ctx.getInts("scan_output_axes")
                     .value_or(std::vector<int64_t>(nScanOut, 0));
  auto outDirs = ctx.getInts("scan_output_directions")
                     .value_or(std::vector<int64_t>(nScanOut, 0));
  std::vector<RValue> state;
  for (int64_t i = 0; i < nState; ++i)
    state.push_back(ctx.value(i));
  std::vector<Tensor> inputs;
  for (int64_t k = 0; k < nScanIn; ++k) {
    const Tensor &t = ctx.in(nState + k);
    auto a = normalizeAxis(inAxes[k], t.rank());
    if (!a)
      return ctx.error("scan input axis out of range");
    inputs.push_back(axisFirst(t, *a));
  }
  auto r = runScan(ctx, state, inputs, inDirs, nScanOut);
  if (failed(r))
    return failure();
  for (int64_t i = 0; i < nState; ++i)
    ctx.set(i, r->state[i]);
  for (int64_t k = 0; k < nScanOut; ++k) {
    std::vector<Tensor> items = r->outs[k];
    if (outDirs[k])
      std::reverse(items.begin(), items.end());
    if (items.empty()) {
      ctx.set(nState + k,
              emptyScanOutput(ctx.getOp()->getResult(nState + k).getType()));
      continue;
    }
    std::string err;
    auto stacked = stack(items, err);
    if (!stacked)
      return ctx.error(err);
    auto a = normalizeAxis(outAxes[k], stacked->rank());
    if (!a)
      return ctx.error("scan output axis out of range");
    if (*a != 0) {
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= *a; ++d)
        perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = *a + 1; d < stacked->rank(); ++d)
        perm.push_back(d);
      *stacked = permuteTensor(*stacked, perm);
    }
    ctx.set(nState + k, *stacked);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Sequences
//===----------------------------------------------------------------------===//

LogicalResult sequenceConstructK(KernelContext &ctx) {
  std::vector<RValue> items;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    items.push_back(ctx.value(i));
  ctx.set(0, RValue::sequence(std::move(items)));
  return success();
}

LogicalResult sequenceEmptyK(KernelContext &ctx) {
  ctx.set(0, RValue::sequence({}));
  return success();
}

/// Resolves a position into [0, size) (or [0, size] when inserting).
std::optional<int64_t> position(KernelContext &ctx, unsigned i, int64_t size,
                                bool insert) {
  if (!ctx.has(i))
    return insert ? size : size - 1;
  int64_t p = ctx.in(i).getInt(0);
  int64_t hi = insert ? size : size - 1;
  if (p < -size || p > hi)
    return std::nullopt;
  return p < 0 ? p + size : p;
}

LogicalResult sequenceAtK(KernelContext &ctx) {
  const auto &seq = ctx.value(0).getSequence();
  auto p = position(ctx, 1, seq.size(), false);
  if (!ctx.has(1) || !p)
    return ctx.error("position out of range for a sequence of " +
                     std::to_string(seq.size()));
  ctx.set(0, seq[*p]);
  return success();
}

LogicalResult sequenceInsertK(KernelContext &ctx) {
  std::vector<RValue> items = ctx.value(0).getSequence();
  auto p = position(ctx, 2, items.size(), true);
  if (!p)
    return ctx.error("position out of range");
  items.insert(items.begin() + *p, ctx.value(1));
  ctx.set(0, RValue::sequence(std::move(items)));
  return success();
}

LogicalResult sequenceEraseK(KernelContext &ctx) {
  std::vector<RValue> items = ctx.value(0).getSequence();
  auto p = position(ctx, 1, items.size(), false);
  if (!p || items.empty())
    return ctx.error("position out of range");
  items.erase(items.begin() + *p);
  ctx.set(0, RValue::sequence(std::move(items)));
  return success();
}

LogicalResult sequenceLengthK(KernelContext &ctx) {
  ctx.set(0, Tensor::fromInt64(
                 {static_cast<int64_t>(ctx.value(0).getSequence().size())},
                 {}));
  return success();
}

LogicalResult splitToSequenceK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), x.rank());
  if (!axis)
    return ctx.error("axis out of range");
  int64_t dim = x.dim(*axis);
  bool keepdims = ctx.getInt("keepdims", 1) != 0;
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!ctx.has(1)) {
    sizes.assign(dim, 1);
    squeeze = !keepdims;
  } else if (ctx.in(1).rank() == 0) {
    int64_t chunk = ctx.in(1).getInt(0);
    if (chunk <= 0)
      return ctx.error("split must be positive");
    for (int64_t s = 0; s < dim; s += chunk)
      sizes.push_back(std::min(chunk, dim - s));
  } else {
    sizes = ctx.in(1).toInt64Vector();
  }
  std::vector<RValue> items;
  int64_t start = 0, outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= x.dim(d);
  for (int64_t d = *axis + 1; d < x.rank(); ++d)
    inner *= x.dim(d);
  for (int64_t len : sizes) {
    Shape s(x.shape());
    s[*axis] = len;
    Tensor t(x.dtype(), s);
    for (int64_t o = 0; o < outer; ++o)
      copyElements(x, (o * dim + start) * inner, t, o * len * inner,
                   len * inner);
    if (squeeze) {
      s.erase(s.begin() + *axis);
      t = t.reshaped(s);
    }
    items.push_back(RValue(t));
    start += len;
  }
  if (start != dim)
    return ctx.error("split sizes do not add up to the dimension");
  ctx.set(0, RValue::sequence(std::move(items)));
  return success();
}

LogicalResult concatFromSequenceK(KernelContext &ctx) {
  const auto &seq = ctx.value(0).getSequence();
  if (seq.empty())
    return ctx.error("cannot concatenate an empty sequence");
  bool newAxis = ctx.getInt("new_axis", 0) != 0;
  std::vector<Tensor> parts;
  for (const RValue &v : seq) {
    Tensor t = v.getTensor();
    parts.push_back(t);
  }
  int64_t rank = parts.front().rank() + (newAxis ? 1 : 0);
  auto axis = normalizeAxis(ctx.getInt("axis", 0), rank);
  if (!axis)
    return ctx.error("axis out of range");
  if (newAxis)
    for (Tensor &t : parts) {
      Shape s(t.shape());
      s.insert(s.begin() + *axis, 1);
      t = t.reshaped(s);
    }
  std::string err;
  auto y = concatTensors(parts, *axis, err);
  if (!y)
    return ctx.error(err);
  ctx.set(0, *y);
  return success();
}

LogicalResult sequenceMapK(KernelContext &ctx) {
  const auto &seq = ctx.value(0).getSequence();
  Region &body = ctx.getOp()->getRegion(0);
  size_t nOut = ctx.numOutputs();
  std::vector<std::vector<RValue>> outs(nOut);
  for (size_t i = 0; i < seq.size(); ++i) {
    std::vector<RValue> args = {seq[i]};
    for (unsigned k = 1; k < ctx.numInputs(); ++k) {
      const RValue &extra = ctx.value(k);
      if (extra.isSequence()) {
        if (extra.getSequence().size() != seq.size())
          return ctx.error("additional sequence lengths differ");
        args.push_back(extra.getSequence()[i]);
      } else {
        args.push_back(extra);
      }
    }
    auto res = ctx.runRegion(body, args);
    if (failed(res))
      return failure();
    for (size_t k = 0; k < nOut; ++k)
      outs[k].push_back((*res)[k]);
  }
  for (size_t k = 0; k < nOut; ++k)
    ctx.set(k, RValue::sequence(std::move(outs[k])));
  return success();
}

//===----------------------------------------------------------------------===//
// Optionals
//===----------------------------------------------------------------------===//

LogicalResult optionalK(KernelContext &ctx) {
  ctx.set(0, ctx.has(0) ? ctx.value(0) : RValue::none());
  return success();
}

LogicalResult optionalHasElementK(KernelContext &ctx) {
  ctx.set(0, Tensor::scalar(DataType::BOOL, ctx.has(0)));
  return success();
}

LogicalResult optionalGetElementK(KernelContext &ctx) {
  if (!ctx.has(0))
    return ctx.error("the optional is empty");
  ctx.set(0, ctx.value(0));
  return success();
}

} // namespace

void registerControlKernels(KernelRegistry &r) {
  r.add("If", ifK);
  r.add("Loop", loopK);
  r.add("Scan", scanK);
  r.add("SequenceConstruct", sequenceConstructK);
  r.add("SequenceEmpty", sequenceEmptyK);
  r.add("SequenceAt", sequenceAtK);
  r.add("SequenceInsert", sequenceInsertK);
  r.add("SequenceErase", sequenceEraseK);
  r.add("SequenceLength", sequenceLengthK);
  r.add("SplitToSequence", splitToSequenceK);
  r.add("ConcatFromSequence", concatFromSequenceK);
  r.add("SequenceMap", sequenceMapK);
  r.add("Optional", optionalK);
  r.add("OptionalHasElement", optionalHasElementK);
  r.add("OptionalGetElement", optionalGetElementK);
}

} // namespace amk::ref
