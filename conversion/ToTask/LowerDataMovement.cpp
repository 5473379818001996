//===- LowerDataMovement.cpp - Data movement ------------------------------===//
//
// Part of AMK. amk-schedule-megakernel: Transpose, Slice, Concat, Split and Gather as strided copies and gathers (design.md).
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"
#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

void Scheduler::addCopy(Operation *op, int src, int dst,
                        ArrayRef<int64_t> dimsIn, ArrayRef<int64_t> srcIn,
                        int64_t srcOff, ArrayRef<int64_t> dstIn,
                        int64_t dstOff, int64_t eb, bool dstContiguous) {
  // The same copy over fewer, longer rows: size-1 axes dropped, and an
  // innermost axis shorter than 64 elements merged with the next outer one
  // when both sides step through them as one axis. An interleave (RoPE's
  // stack of pairs, a Concat along a last axis of 1) otherwise runs one
  // row per element.
  SmallVector<int64_t> dims, srcStrides, dstStrides;
  for (auto [d, ss, ds] : llvm::zip(dimsIn, srcIn, dstIn))
    if (d != 1) {
      dims.push_back(d);
      srcStrides.push_back(ss);
      dstStrides.push_back(ds);
    }
  if (dims.empty() && !dimsIn.empty()) {
    dims.push_back(1);
    srcStrides.push_back(1);
    dstStrides.push_back(1);
  }
  while (dims.size() >= 2 && dims.back() < 64) {
    size_t i = dims.size() - 1;
    if (srcStrides[i - 1] != srcStrides[i] * dims[i] ||
        dstStrides[i - 1] != dstStrides[i] * dims[i])
      break;
    dims[i - 1] *= dims[i];
    srcStrides[i - 1] = srcStrides[i];
    dstStrides[i - 1] = dstStrides[i];
    dims.pop_back();
    srcStrides.pop_back();
    dstStrides.pop_back();
  }
  // Still a short innermost axis (an interleave: DepthToSpace of a
  // transposed convolution's phases, a stack of pairs): iterate along the
  // axis the source reads contiguously instead when it is long, so each
  // row is a long strided store rather than a couple of elements.
  if (dims.size() >= 2 && dims.back() < 8) {
    size_t best = dims.size();
    for (size_t j = 0; j + 1 < dims.size(); ++j)
      if (srcStrides[j] == 1 && dims[j] >= 16 &&
          (best == dims.size() || dims[j] > dims[best]))
        best = j;
    if (best != dims.size()) {
      auto rotate = [&](SmallVector<int64_t> &v) {
        int64_t x = v[best];
        v.erase(v.begin() + best);
        v.push_back(x);
      };
      rotate(dims);
      rotate(srcStrides);
      rotate(dstStrides);
      dstContiguous = false;
    }
  }
  KOp &k = newKOp(op, AMK_RT_K_COPY);
  k.slots = {src, dst};
  int64_t rank = dims.size();
  k.ip = {eb, rank, srcOff, dstOff};
  k.ip.append(dims.begin(), dims.end());
  k.ip.append(srcStrides.begin(), srcStrides.end());
  k.ip.append(dstStrides.begin(), dstStrides.end());
  int64_t last = rank ? dims.back() : 1;
  k.rows = rank ? product(ArrayRef<int64_t>(dims).drop_back()) : 1;
  int64_t numel = product(dims);
  k.bytes = 2.0 * numel * eb;
  k.flops = 0;
  int64_t srcBytes = tensors[src].bytes, dstBytes = tensors[dst].bytes;
  // Bytes of the destination a piece spans (for non-contiguous pieces).
  int64_t lo = dstOff, hi = dstOff;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ext = (dims[d] - 1) * dstStrides[d];
    (ext < 0 ? lo : hi) += ext;
  }
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(src, srcBytes));
    if (dstContiguous)
      wr.push_back(span(dst, (dstOff + r0 * last) * eb,
                        (dstOff + r1 * last) * eb));
    else
      wr.push_back(span(dst, lo * eb, std::min(dstBytes, (hi + 1) * eb)));
  };
}

LogicalResult Scheduler::lowerTranspose(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> perm = intsAttr(op, "perm");
  int64_t rank = xt.getRank();
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  // A permutation that only moves axes of size 1 keeps every element where
  // it was (a decoder's [1, 1, H, D] -> [1, H, 1, D] per token): a view,
  // not a copy task and the dependency level it costs.
  int64_t lastMoved = -1;
  bool sameOrder = true;
  for (int64_t p : perm) {
    if (xt.getDimSize(p) == 1)
      continue;
    sameOrder &= p > lastMoved;
    lastMoved = p;
  }
  if (sameOrder)
    return lowerView(op);
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  for (int64_t p : perm)
    src.push_back(inStrides[p]);
  addCopy(op, *xi, yi, yt.getShape(), src, 0,
          contiguousStrides(yt.getShape()), 0,
          elemBytes(xt.getElementType()), true);
  return success();
}

/// A Slice's start and step along every axis of its input (negative and
/// out-of-range starts resolved), when starts, ends, axes and steps are
/// constants.
struct SliceBounds {
  SmallVector<int64_t> start, step;
};
static std::optional<SliceBounds> sliceBounds(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = xt.getRank();
  auto starts = amk::onnx::getIntValues(op->getOperand(1));
  auto ends = amk::onnx::getIntValues(op->getOperand(2));
  std::optional<SmallVector<int64_t>> axes, steps;
  bool hasAxes = op->getNumOperands() > 3 && !isNoneValue(op->getOperand(3));
  bool hasSteps = op->getNumOperands() > 4 && !isNoneValue(op->getOperand(4));
  if (hasAxes)
    axes = amk::onnx::getIntValues(op->getOperand(3));
  if (hasSteps)
    steps = amk::onnx::getIntValues(op->getOperand(4));
  if (!starts || !ends || (hasAxes && !axes) || (hasSteps && !steps))
    return std::nullopt;
  SliceBounds b{SmallVector<int64_t>(rank, 0), SmallVector<int64_t>(rank, 1)};
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t ax = axes ? (*axes)[i] : (int64_t)i;
    if (ax < 0)
      ax += rank;
    if (ax < 0 || ax >= rank)
      return std::nullopt;
    int64_t dim = xt.getDimSize(ax), step = steps ? (*steps)[i] : 1;
    int64_t s = (*starts)[i];
    if (s < 0)
      s += dim;
    b.start[ax] = step > 0 ? std::clamp<int64_t>(s, 0, dim)
                           : std::clamp<int64_t>(s, 0, dim - 1);
    b.step[ax] = step;
  }
  return b;
}

/// Where a Slice's result is one run of its input's bytes (every axis
/// inside the first sliced one whole, every axis outside it of extent 1,
/// step 1 on it): the run's first element; none otherwise.
static std::optional<int64_t> sliceRun(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  auto bounds = sliceBounds(op);
  if (!bounds || !xt.hasStaticShape() || !yt.hasStaticShape() ||
      xt.getRank() != yt.getRank())
    return std::nullopt;
  int64_t rank = xt.getRank();
  const SmallVector<int64_t> &st = bounds->start, &sp = bounds->step;
  int64_t d = rank - 1;
  for (; d >= 0 && yt.getDimSize(d) == xt.getDimSize(d); --d)
    if (st[d] != 0 || sp[d] != 1)
      return std::nullopt;
  if (d >= 0 && sp[d] != 1 && yt.getDimSize(d) > 1)
    return std::nullopt;
  for (int64_t o = d - 1; o >= 0; --o)
    if (yt.getDimSize(o) != 1)
      return std::nullopt;
  SmallVector<int64_t> strides = contiguousStrides(xt.getShape());
  int64_t off = 0;
  for (int64_t a = 0; a < rank; ++a)
    off += st[a] * strides[a];
  return off;
}

LogicalResult Scheduler::lowerSlice(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  auto bounds = sliceBounds(op);
  if (!bounds)
    return unsupported(op, "Slice with non-constant starts/ends/axes/steps");
  const SmallVector<int64_t> &st = bounds->start, &sp = bounds->step;
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  // One run of an arena tensor's bytes, 64-byte aligned: a view (a
  // chunk of channels at batch 1, as torch.chunk exports), like a Split's
  // pieces (concat-in-place).
  const int64_t eb = elemBytes(xt.getElementType());
  if (auto run = sliceRun(op);
      run && opts.concatInPlace && yt.getNumElements() != 0 &&
      tensors[rootOf(*xi)].kind == TensorInfo::Arena &&
      (tensors[*xi].rootOffset + *run * eb) % kAlign == 0) {
    TensorInfo t = tensors[*xi];
    t.value = op->getResult(0);
    t.type = yt;
    t.bytes = yt.getNumElements() * eb;
    t.rootOffset += *run * eb;
    t.buffer = -1;
    t.name = amk::onnx::getTensorName(t.value).str();
    tensors[t.root].hasSlices = true;
    tensorOf[t.value] = tensors.size();
    tensors.push_back(t);
    return success();
  }
  int yi = defineOutput(op->getResult(0));
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d) {
    off += st[d] * inStrides[d];
    src.push_back(inStrides[d] * sp[d]);
  }
  addCopy(op, *xi, yi, yt.getShape(), src, off,
          contiguousStrides(yt.getShape()), 0, elemBytes(xt.getElementType()),
          true);
  return success();
}

/// Expand: one copy whose source strides are 0 along the broadcast axes.
LogicalResult Scheduler::lowerExpand(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank(), off = rank - xt.getRank();
  if (off < 0)
    return unsupported(op, "its input has a higher rank than its result");
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), src;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t id = d - off;
    if (id >= 0 && xt.getDimSize(id) != 1 &&
        xt.getDimSize(id) != yt.getDimSize(d))
      return unsupported(op, "its input does not broadcast to its result");
    src.push_back(id < 0 || xt.getDimSize(id) == 1 ? 0 : inStrides[id]);
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  if (yt.getNumElements() == 0)
    return success();
  addCopy(op, *xi, yi, yt.getShape(), src, 0,
          contiguousStrides(yt.getShape()), 0, elemBytes(xt.getElementType()),
          true);
  return success();
}

/// Tile: the result seen as [r0, d0, r1, d1, ...] (r repeats of each input
/// dim d) in row-major order, read with stride 0 along every r. The
/// repeats are the result's dims over the input's, so a repeats tensor
/// computed at run time is fine once shapes are bound.
LogicalResult Scheduler::lowerTile(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  SmallVector<int64_t> dims, src, dst;
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()),
                       outStrides = contiguousStrides(yt.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xt.getDimSize(d), out = yt.getDimSize(d);
    if (in == 0 || out % in != 0)
      return unsupported(op, "its result is not a whole number of copies "
                             "of its input");
    dims.append({out / in, in});
    src.append({0, inStrides[d]});
    dst.append({in * outStrides[d], outStrides[d]});
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  if (yt.getNumElements() == 0)
    return success();
  addCopy(op, *xi, yi, dims, src, 0, dst, 0, elemBytes(xt.getElementType()),
          true);
  return success();
}

/// DepthToSpace (DCR and CRD) and SpaceToDepth: a reshape to 6-D, a
/// transpose and a reshape back, as one strided copy.
LogicalResult Scheduler::lowerDepthSpace(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  if (xt.getRank() != 4)
    return unsupported(op, "its input is not 4-D");
  int64_t b = intAttr(op, "blocksize", 0);
  int64_t N = xt.getDimSize(0), C = xt.getDimSize(1), H = xt.getDimSize(2),
          W = xt.getDimSize(3);
  SmallVector<int64_t> shape6, perm;
  if (isa<amk::onnx::DepthToSpaceOp>(op)) {
    if (b <= 0 || C % (b * b))
      return unsupported(op, "channels are not a multiple of blocksize^2");
    if (strAttr(op, "mode", "DCR") == "CRD")
      shape6 = {N, C / (b * b), b, b, H, W}, perm = {0, 1, 4, 2, 5, 3};
    else
      shape6 = {N, b, b, C / (b * b), H, W}, perm = {0, 3, 4, 1, 5, 2};
  } else {
    if (b <= 0 || H % b || W % b)
      return unsupported(op, "height or width is not a multiple of "
                             "blocksize");
    shape6 = {N, C, H / b, b, W / b, b}, perm = {0, 3, 5, 1, 2, 4};
  }
  SmallVector<int64_t> st6 = contiguousStrides(shape6), dims, src;
  for (int64_t p : perm) {
    dims.push_back(shape6[p]);
    src.push_back(st6[p]);
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  addCopy(op, *xi, yi, dims, src, 0, contiguousStrides(dims), 0,
          elemBytes(xt.getElementType()), true);
  return success();
}

/// Pad in constant mode with constant pads: a fill of the result from the
/// constant value (a copy with source strides 0), then the input copied
/// into its place; negative pads crop the input.
LogicalResult Scheduler::lowerPad(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  StringRef mode = strAttr(op, "mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap")
    return unsupported(op, "Pad mode '" + mode + "' is unknown");
  int64_t rank = xt.getRank();
  SmallVector<int64_t> pads = intsAttr(op, "pads");
  if (op->getNumOperands() > 1 && !isNoneValue(op->getOperand(1))) {
    auto p = amk::onnx::getIntValues(op->getOperand(1));
    if (!p)
      return unsupported(op, "its pads are not constants");
    pads.assign(p->begin(), p->end());
  }
  SmallVector<int64_t> axes;
  if (op->getNumOperands() > 3 && !isNoneValue(op->getOperand(3))) {
    auto a = amk::onnx::getIntValues(op->getOperand(3));
    if (!a)
      return unsupported(op, "its axes are not constants");
    axes.assign(a->begin(), a->end());
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    return unsupported(op, "its pads do not match its axes");
  SmallVector<int64_t> begin(rank, 0), end(rank, 0);
  for (auto [i, a] : llvm::enumerate(axes)) {
    int64_t ax = a < 0 ? a + rank : a;
    if (ax < 0 || ax >= rank)
      return unsupported(op, "axis " + Twine(a) + " is out of range");
    begin[ax] = pads[i], end[ax] = pads[i + axes.size()];
  }
  Type et = xt.getElementType();
  if (mode != "constant")
    return lowerPadByIndex(op, mode, begin);
  auto oneType = RankedTensorType::get({1}, et);
  int fill;
  if (op->getNumOperands() > 2 && !isNoneValue(op->getOperand(2))) {
    auto v = cast<RankedTensorType>(op->getOperand(2).getType());
    if (v.getNumElements() != 1)
      return unsupported(op, "its constant value is not one element");
    auto t = getTensor(op->getOperand(2), op);
    if (failed(t))
      return failure();
    fill = *t;
  } else {
    Attribute zero = isa<FloatType>(et) ? Attribute(FloatAttr::get(et, 0.0))
                                        : Attribute(IntegerAttr::get(et, 0));
    fill = newConstTensor(oneType, DenseElementsAttr::get(oneType, zero),
                          "pad.value");
  }
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  int64_t eb = elemBytes(et);
  SmallVector<int64_t> outStrides = contiguousStrides(yt.getShape());
  if (yt.getNumElements() == 0)
    return success();
  addCopy(op, fill, yi, yt.getShape(), SmallVector<int64_t>(rank, 0), 0,
          outStrides, 0, eb, true);
  // The part of the input that lands inside the result.
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape()), dims;
  int64_t srcOff = 0, dstOff = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = std::max<int64_t>(0, -begin[d]);
    int64_t hi = xt.getDimSize(d) - std::max<int64_t>(0, -end[d]);
    if (hi <= lo)
      return success(); // nothing of the input is kept
    dims.push_back(hi - lo);
    srcOff += lo * inStrides[d];
    dstOff += std::max<int64_t>(0, begin[d]) * outStrides[d];
  }
  addCopy(op, *xi, yi, dims, inStrides, srcOff, outStrides, dstOff, eb,
          false);
  return success();
}

/// Inference Dropout is the identity, its mask all true. Training mode is
/// rewritten by amk-decompose-ops (random masks); one left here is refused
/// unless the ratio is a constant 0, which keeps everything too.
LogicalResult Scheduler::lowerDropout(Operation *op) {
  Value training = op->getNumOperands() > 2 && !isNoneValue(op->getOperand(2))
                       ? op->getOperand(2)
                       : Value();
  if (training) {
    auto t = amk::getConstantTensor(training);
    bool off = t && t->numel() == 1 && t->getInt(0) == 0;
    Value ratio = op->getNumOperands() > 1 && !isNoneValue(op->getOperand(1))
                      ? op->getOperand(1)
                      : Value();
    auto r = ratio ? amk::getConstantTensor(ratio) : std::nullopt;
    bool zero = r && r->numel() == 1 && r->getDouble(0) == 0;
    if (!off && !zero)
      return unsupported(op, "training-mode Dropout needs a constant "
                             "training_mode, float32 data and a static "
                             "shape (amk-decompose-ops)");
  }
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  int64_t rank = xt.getRank();
  SmallVector<int64_t> st = contiguousStrides(xt.getShape());
  if (xt.getNumElements())
    addCopy(op, *xi, yi, xt.getShape(), st, 0, st, 0,
            elemBytes(xt.getElementType()), true);
  if (op->getNumResults() > 1 && !isNoneValue(op->getResult(1)) &&
      !op->getResult(1).use_empty()) {
    auto mt = cast<RankedTensorType>(op->getResult(1).getType());
    auto oneType = RankedTensorType::get({1}, mt.getElementType());
    int one = newConstTensor(
        oneType,
        DenseElementsAttr::get(oneType, IntegerAttr::get(mt.getElementType(), 1)),
        "dropout.keep");
    int mi = defineOutput(op->getResult(1));
    if (mt.getNumElements())
      addCopy(op, one, mi, mt.getShape(), SmallVector<int64_t>(rank, 0), 0,
              contiguousStrides(mt.getShape()), 0,
              elemBytes(mt.getElementType()), true);
  }
  return success();
}

void Scheduler::planConcatSlices() {
  namespace onnx = amk::onnx;
  if (!opts.concatInPlace)
    return;
  SmallVector<Operation *> concats;
  for (Operation &op : func.getBody().front())
    if (isa<onnx::ConcatOp>(op))
      concats.push_back(&op);
  // Latest first: a value several Concats read (DenseNet's features, each
  // in every later layer's Concat) goes into the last of them, and an
  // earlier Concat whose inputs then sit side by side in it is a slice of
  // it, no bytes moved.
  for (Operation *op : llvm::reverse(concats)) {
    Value y = op->getResult(0);
    auto yt = cast<RankedTensorType>(y.getType());
    // An empty result gets no kernel (lowerOp) and holds no bytes.
    if (!yt.hasStaticShape() || yt.getNumElements() == 0)
      continue;
    int64_t rank = yt.getRank(), axis = intAttr(op, "axis", 0);
    if (axis < 0)
      axis += rank;
    // With an outer extent of 1 each input is one run of the result's
    // bytes; otherwise its rows interleave with the others'.
    if (axis < 0 || axis >= rank ||
        product(yt.getShape().take_front(axis)) != 1)
      continue;
    int64_t eb = elemBytes(yt.getElementType());
    int64_t inner = product(yt.getShape().drop_front(axis + 1)) * eb;
    Value root = y;
    int64_t base = 0;
    if (auto it = concatSlices.find(y); it != concatSlices.end())
      std::tie(root, base) = it->second;
    // A returned result is the caller's buffer, which holds no other
    // tensor: its inputs are copied there, as without this plan.
    else if (llvm::any_of(y.getUsers(),
                          [](Operation *u) { return isa<func::ReturnOp>(u); }))
      continue;
    // Offsets of the inputs in the result.
    SmallVector<int64_t> at;
    int64_t off = 0;
    for (Value v : op->getOperands()) {
      at.push_back(off);
      off += cast<RankedTensorType>(v.getType()).getDimSize(axis) * inner;
    }
    if (root == y && op->getNumOperands() > 0) {
      auto first = concatSlices.find(op->getOperand(0));
      bool adjacent = first != concatSlices.end();
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        auto it = concatSlices.find(v);
        adjacent &= it != concatSlices.end() &&
                    it->second.first == first->second.first &&
                    it->second.second == first->second.second + at[i];
        if (!adjacent)
          break;
      }
      if (adjacent) {
        concatSlices[y] = first->second;
        continue;
      }
    }
    const int64_t rootBytes =
        cast<RankedTensorType>(root.getType()).getNumElements() * eb;
    for (auto [i, input] : llvm::enumerate(op->getOperands())) {
      Value v = input;
      // A piece of a Split (a view of its input, lowerSplit) is in place
      // when the Split's input is: plan that input around it (a CSP
      // block's Concat of both halves and what follows them).
      int64_t off = base + at[i];
      if (auto split = v.getDefiningOp<onnx::SplitOp>()) {
        auto xt = cast<RankedTensorType>(split.getOperand(0).getType());
        int64_t sAxis = intAttr(split, "axis", 0);
        if (sAxis < 0)
          sAxis += xt.getRank();
        if (!xt.hasStaticShape() || sAxis != axis || xt.getRank() != rank ||
            product(xt.getShape().take_front(axis)) != 1)
          continue;
        int64_t q = 0;
        for (Value r : split->getResults()) {
          if (r == v)
            break;
          q += cast<RankedTensorType>(r.getType()).getDimSize(axis) * inner;
        }
        off -= q;
        v = split.getOperand(0);
        if (off < 0 || off + xt.getNumElements() * eb > rootBytes)
          continue;
      } else if (auto slice = v.getDefiningOp<onnx::SliceOp>()) {
        auto xt = cast<RankedTensorType>(slice.getOperand(0).getType());
        auto run = sliceRun(slice);
        if (!run)
          continue;
        off -= *run * eb;
        v = slice.getOperand(0);
        if (off < 0 || off + xt.getNumElements() * eb > rootBytes)
          continue;
      }
      Operation *def = v.getDefiningOp();
      // Views and constants have no producer of their own to redirect;
      // a channel-blocked value is not laid out as the result's bytes.
      if (!def || concatSlices.count(v) || off % kAlign ||
          cast<RankedTensorType>(v.getType()).getNumElements() == 0 ||
          isa<onnx::ConstantOp, onnx::ReshapeOp, onnx::FlattenOp,
              onnx::SqueezeOp, onnx::UnsqueezeOp, onnx::IdentityOp,
              onnx::TransposeOp, onnx::SplitOp, onnx::SliceOp>(def) ||
          channelBlocked.contains(v) || v == root)
        continue;
      concatSlices[v] = {root, off};
    }
  }
}

bool Scheduler::placeSlice(int t, int rid, int64_t off) {
  TensorInfo &x = tensors[t];
  if (x.root != t || x.kind != TensorInfo::Arena || t == rid ||
      tensors[rid].root != rid || off % kAlign ||
      off + x.bytes > tensors[rid].bytes)
    return false;
  for (TensorInfo &v : tensors)
    if (v.root == t) {
      v.root = rid;
      v.rootOffset += off;
    }
  tensors[rid].hasSlices = true;
  return true;
}

LogicalResult Scheduler::lowerConcat(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  SmallVector<int> ins;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  // A root a planned slice created before this Concat was reached.
  auto tensorFor = [&](Value v) {
    auto it = tensorOf.find(v);
    return it != tensorOf.end() ? it->second : defineOutput(v);
  };
  int yi = tensorFor(op->getResult(0));
  if (auto it = concatSlices.find(op->getResult(0)); it != concatSlices.end())
    if (!placeSlice(yi, tensorFor(it->second.first), it->second.second))
      return unsupported(op, "its planned place in a later Concat is taken");
  SmallVector<int64_t> outStrides = contiguousStrides(yt.getShape());
  int64_t at = 0;
  int64_t eb = elemBytes(yt.getElementType());
  bool contiguous = product(yt.getShape().take_front(axis)) == 1;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto it = cast<RankedTensorType>(v.getType());
    if (it.getNumElements() == 0)
      continue;
    int64_t begin = at * outStrides[axis] * eb;
    at += it.getDimSize(axis);
    const TensorInfo &y = tensors[yi];
    auto inPlace = [&] {
      const TensorInfo &x = tensors[ins[i]];
      return contiguous && x.root == y.root &&
             x.rootOffset == y.rootOffset + begin;
    };
    if (inPlace())
      continue;
    // The input, or the tensor it is a view of (a Split's piece), planned
    // where this Concat wants it.
    const int owner = rootOf(ins[i]);
    const int64_t within = tensors[ins[i]].rootOffset;
    auto plan = tensors[owner].value ? concatSlices.find(tensors[owner].value)
                                     : concatSlices.end();
    auto planned = [&] {
      if (plan == concatSlices.end())
        return false;
      auto r = tensorOf.find(plan->second.first);
      return r != tensorOf.end() && r->second == y.root &&
             plan->second.second + within == y.rootOffset + begin;
    };
    if (contiguous && planned() &&
        placeSlice(owner, y.root, plan->second.second))
      continue;
    addCopy(op, ins[i], yi, it.getShape(), contiguousStrides(it.getShape()), 0,
            outStrides, begin / eb, eb, contiguous);
  }
  return success();
}

LogicalResult Scheduler::lowerSplit(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  // The pieces' extents are the results' static shapes, which shape
  // inference derived from the split sizes (operand, attribute or equal).
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  SmallVector<int64_t> inStrides = contiguousStrides(xt.getShape());
  // With an outer extent of 1 each piece is one run of the input's bytes:
  // where it starts 64-byte aligned in an arena tensor it is a view of
  // those bytes (a CSP block's Split, ShuffleNet's channel halves), as a
  // Concat's inputs are slices of its result (concat-in-place).
  const bool runs = opts.concatInPlace &&
                    product(xt.getShape().take_front(axis)) == 1 &&
                    tensors[rootOf(*xi)].kind == TensorInfo::Arena;
  const int64_t eb = elemBytes(xt.getElementType());
  int64_t at = 0;
  for (Value y : op->getResults()) {
    auto yt = cast<RankedTensorType>(y.getType());
    const int64_t begin = tensors[*xi].rootOffset + at * inStrides[axis] * eb;
    if (runs && begin % kAlign == 0 && yt.getNumElements() != 0) {
      TensorInfo t = tensors[*xi];
      t.value = y;
      t.type = yt;
      t.bytes = yt.getNumElements() * eb;
      t.rootOffset = begin;
      t.buffer = -1;
      t.name = amk::onnx::getTensorName(y).str();
      tensors[t.root].hasSlices = true;
      tensorOf[y] = tensors.size();
      tensors.push_back(t);
      at += yt.getDimSize(axis);
      continue;
    }
    int yi = defineOutput(y);
    if (yt.getNumElements() != 0)
      addCopy(op, *xi, yi, yt.getShape(), inStrides, at * inStrides[axis],
              contiguousStrides(yt.getShape()), 0,
              elemBytes(xt.getElementType()), true);
    at += yt.getDimSize(axis);
  }
  if (at != xt.getDimSize(axis))
    return unsupported(op, "Split whose outputs do not cover the input");
  return success();
}

LogicalResult Scheduler::lowerGather(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  int64_t axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += dt.getRank();
  if (!it.getElementType().isInteger(64) && !it.getElementType().isInteger(32))
    return unsupported(op, "indices must be int32 or int64");
  auto di = getTensor(op->getOperand(0), op),
       ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  emitGather(op, *di, dt, axis, *ii, it.getNumElements(),
             amk::task::runtimeDtype(it.getElementType()), yi);
  return success();
}

/// A GATHER of `nidx` indices (tensor `ii`) along `axis` of tensor `di`
/// (of type `dt`) into `yi`.
void Scheduler::emitGather(Operation *op, int di, RankedTensorType dt,
                           int64_t axis, int ii, int64_t nidx,
                           int64_t idxDtype, int yi) {
  KOp &k = newKOp(op, AMK_RT_K_GATHER);
  k.slots = {di, ii, yi};
  int64_t outer = product(dt.getShape().take_front(axis));
  int64_t inner = product(dt.getShape().drop_front(axis + 1));
  int64_t eb = elemBytes(dt.getElementType());
  k.ip = {outer, dt.getDimSize(axis), inner, nidx, eb, idxDtype};
  k.rows = outer * nidx;
  k.bytes = 2.0 * outer * nidx * inner * eb;
  int64_t dBytes = tensors[di].bytes, iBytes = tensors[ii].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(di, dBytes));
    rd.push_back(whole(ii, iBytes));
    wr.push_back(span(yi, r0 * inner * eb, r1 * inner * eb));
  };
}

/// Edge, reflect and wrap padding: every output element copies one input
/// element, the coordinate along each axis mapped independently, which is
/// a nearest-neighbour RESIZE (one tap per axis) over index tables.
LogicalResult Scheduler::lowerPadByIndex(Operation *op, StringRef mode,
                                         ArrayRef<int64_t> begin) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = xt.getRank();
  if (rank < 1 || rank > AMK_RESIZE_MAX_RANK || yt.getNumElements() == 0)
    return unsupported(op, "its rank is not 1 to 8 or its result is empty");
  SmallVector<int32_t> idx;
  SmallVector<int64_t> offs;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = xt.getDimSize(d), out = yt.getDimSize(d);
    if (in == 0)
      return unsupported(op, "an axis to pad from is empty");
    if (mode == "reflect" && in == 1 && out != 1)
      return unsupported(op, "reflect padding of an axis of size 1");
    offs.push_back(idx.size());
    for (int64_t o = 0; o < out; ++o) {
      int64_t i = o - begin[d];
      if (mode == "edge") {
        i = std::clamp<int64_t>(i, 0, in - 1);
      } else if (mode == "wrap") {
        i = ((i % in) + in) % in;
      } else { // reflect: mirror without repeating the edge
        int64_t period = 2 * (in - 1);
        i = period ? ((i % period) + period) % period : 0;
        if (i >= in)
          i = period - i;
      }
      idx.push_back((int32_t)i);
    }
  }
  MLIRContext *ctx = op->getContext();
  auto idxType = RankedTensorType::get({(int64_t)idx.size()},
                                       IntegerType::get(ctx, 32));
  auto wType = RankedTensorType::get({1}, Float32Type::get(ctx));
  int ii = newConstTensor(
      idxType, DenseElementsAttr::get(idxType, ArrayRef<int32_t>(idx)),
      "pad.index");
  int wi = newConstTensor(wType, DenseElementsAttr::get(wType, 1.f),
                          "pad.weight");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_RESIZE);
  k.variant = AMK_RESIZE_VARIANT_NEAREST;
  k.slots = {*xi, yi, ii, wi};
  int64_t eb = elemBytes(xt.getElementType());
  k.ip = {rank, eb};
  k.ip.append(xt.getShape().begin(), xt.getShape().end());
  k.ip.append(yt.getShape().begin(), yt.getShape().end());
  k.ip.append(rank, 1);
  k.ip.append(offs.begin(), offs.end());
  int64_t lastOut = yt.getShape().back();
  k.rows = product(yt.getShape().drop_back());
  k.bytes = (double)eb * (xt.getNumElements() + yt.getNumElements());
  int64_t xBytes = tensors[*xi].bytes, iBytes = tensors[ii].bytes;
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(whole(ii, iBytes));
    wr.push_back(span(yi, r0 * lastOut * eb, r1 * lastOut * eb));
  };
  return success();
}

/// Compress with a constant condition (a constant, or an input the program
/// was specialized on) is a Gather of the kept positions along the axis
/// (of the flattened input without an axis).
LogicalResult Scheduler::lowerCompress(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto cond = amk::getConstantTensor(op->getOperand(1));
  if (!cond)
    return unsupported(op, "its output size depends on the input values, "
                           "and the runtime runs programs of static shapes "
                           "(a constant condition is supported)");
  bool flat = !op->hasAttr("axis");
  int64_t rank = dt.getRank(), axis = flat ? 0 : intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t len = flat ? dt.getNumElements() : dt.getDimSize(axis);
  SmallVector<int64_t> keep;
  for (int64_t i = 0; i < std::min<int64_t>(len, cond->numel()); ++i)
    if (cond->getInt(i))
      keep.push_back(i);
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (yt.getNumElements() == 0 || keep.empty())
    return unsupported(op, "its result has no elements");
  MLIRContext *ctx = op->getContext();
  auto idxType =
      RankedTensorType::get({(int64_t)keep.size()}, IntegerType::get(ctx, 64));
  int ii = newConstTensor(
      idxType, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(keep)),
      "compress.kept");
  auto di = getTensor(op->getOperand(0), op);
  if (failed(di))
    return failure();
  int yi = defineOutput(op->getResult(0));
  // Without an axis the input is seen flattened.
  RankedTensorType seen =
      flat ? RankedTensorType::get({dt.getNumElements()}, dt.getElementType())
           : dt;
  emitGather(op, *di, seen, axis, ii, keep.size(), AMK_RT_I64, yi);
  return success();
}

/// GatherElements: one task row per output element range; the data is
/// read whole (any element may be picked), the indices in step.
LogicalResult Scheduler::lowerGatherElements(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = dt.getRank(), axis = intAttr(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (rank > AMK_GE_MAX_RANK || axis < 0 || axis >= rank)
    return unsupported(op, "the kernel handles rank 1 to " +
                               Twine(AMK_GE_MAX_RANK));
  if (!it.getElementType().isInteger(64) && !it.getElementType().isInteger(32))
    return unsupported(op, "indices must be int32 or int64");
  if (yt.getNumElements() == 0)
    return unsupported(op, "its result has no elements");
  auto di = getTensor(op->getOperand(0), op),
       ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER_ELEMENTS);
  k.slots = {*di, *ii, yi};
  int64_t eb = elemBytes(dt.getElementType());
  int64_t ib = elemBytes(it.getElementType());
  k.ip = {rank, axis, eb, amk::task::runtimeDtype(it.getElementType())};
  k.ip.append(yt.getShape().begin(), yt.getShape().end());
  k.ip.append(dt.getShape().begin(), dt.getShape().end());
  int64_t numel = yt.getNumElements();
  k.rows = numel, k.rowAlign = 64;
  k.bytes = numel * (2.0 * eb + ib);
  int ds = *di, is = *ii;
  int64_t dBytes = tensors[ds].bytes;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(span(is, r0 * ib, r1 * ib));
    wr.push_back(span(yi, r0 * eb, r1 * eb));
  };
  return success();
}

} // namespace amk::totask
