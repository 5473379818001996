//===- LowerIndexing.cpp - GatherND, scatters, TopK, CumSum, EyeLike ------===//
//
// Part of AMK. amk-schedule-megakernel: the index-driven and scan kernels
// (kernel_params.h). Scatters are one task each (ONNX applies their
// updates in order); the others tile over rows.
//
//===----------------------------------------------------------------------===//

#include "conversion/ToTask/Scheduler.h"

#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXDialect.h"

using namespace mlir;
using namespace amk::task;

namespace amk::totask {

namespace {

int64_t scatterReduction(Operation *op) {
  StringRef r = strAttr(op, "reduction", "none");
  return r == "add"   ? AMK_SCATTER_ADD
         : r == "mul" ? AMK_SCATTER_MUL
         : r == "max" ? AMK_SCATTER_MAX
         : r == "min" ? AMK_SCATTER_MIN
         : r == "none" ? AMK_SCATTER_NONE
                       : -1;
}

bool isIndexType(Type t) {
  auto st = cast<ShapedType>(t);
  return st.getElementType().isInteger(64) || st.getElementType().isInteger(32);
}

bool reducibleType(Type e) {
  return e.isF32() || e.isF64() || e.isSignlessInteger(32) ||
         e.isSignlessInteger(64);
}

} // namespace

LogicalResult Scheduler::lowerGatherND(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  if (!isIndexType(it))
    return unsupported(op, "its indices are not int32 or int64");
  int64_t b = intAttr(op, "batch_dims", 0), q = it.getShape().back();
  if (b < 0 || b + q > dt.getRank() || b >= it.getRank())
    return unsupported(op, "batch_dims and the index length do not fit");
  int64_t B = product(dt.getShape().take_front(b));
  int64_t Ni = product(it.getShape().drop_front(b).drop_back());
  int64_t slice = product(dt.getShape().drop_front(b + q));
  int64_t eb = elemBytes(dt.getElementType());
  auto di = getTensor(op->getOperand(0), op);
  auto ii = getTensor(op->getOperand(1), op);
  if (failed(di) || failed(ii))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER_ND);
  k.slots = {*di, *ii, yi};
  k.ip = {B, Ni, q, slice, eb, runtimeDtype(it.getElementType())};
  for (int64_t d = 0; d < q; ++d)
    k.ip.push_back(dt.getDimSize(b + d));
  k.rows = B * Ni;
  k.bytes = 2.0 * B * Ni * slice * eb;
  int64_t dBytes = tensors[*di].bytes, iBytes = tensors[*ii].bytes;
  int ds = *di, is = *ii;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(whole(is, iBytes));
    wr.push_back(span(yi, r0 * slice * eb, r1 * slice * eb));
  };
  return success();
}

LogicalResult Scheduler::lowerScatter(Operation *op) {
  auto dt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto it = cast<RankedTensorType>(op->getOperand(1).getType());
  if (!isIndexType(it))
    return unsupported(op, "its indices are not int32 or int64");
  int64_t red = scatterReduction(op);
  if (red < 0)
    return unsupported(op, "reduction '" + strAttr(op, "reduction", "") +
                               "' is unknown");
  int64_t dtype = runtimeDtype(dt.getElementType());
  if (red != AMK_SCATTER_NONE && !reducibleType(dt.getElementType()))
    return unsupported(op, "reductions are implemented for float32, "
                           "float64, int32 and int64");
  bool nd = isa<onnx::ScatterNDOp>(op);
  auto di = getTensor(op->getOperand(0), op);
  auto ii = getTensor(op->getOperand(1), op);
  auto ui = getTensor(op->getOperand(2), op);
  if (failed(di) || failed(ii) || failed(ui))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, nd ? AMK_RT_K_SCATTER_ND : AMK_RT_K_SCATTER_ELEMENTS);
  k.slots = {*di, *ii, *ui, yi};
  int64_t idt = runtimeDtype(it.getElementType());
  if (nd) {
    int64_t q = it.getShape().back();
    if (q > dt.getRank())
      return unsupported(op, "its index tuples are longer than the rank");
    int64_t N = product(it.getShape().drop_back());
    int64_t slice = product(dt.getShape().drop_front(q));
    k.ip = {N, q, slice, dtype, red, idt};
    for (int64_t d = 0; d < q; ++d)
      k.ip.push_back(dt.getDimSize(d));
    k.ip.push_back(dt.getNumElements());
  } else {
    int64_t rank = dt.getRank(), axis = intAttr(op, "axis", 0);
    if (axis < -rank || axis >= rank || it.getRank() != rank)
      return unsupported(op, "its axis or index rank does not fit");
    if (axis < 0)
      axis += rank;
    k.ip = {rank, axis, dtype, red, idt};
    k.ip.append(it.getShape().begin(), it.getShape().end());
    k.ip.append(dt.getShape().begin(), dt.getShape().end());
  }
  k.rows = 1;
  k.bytes = 2.0 * tensors[*di].bytes + tensors[*ui].bytes;
  int64_t dBytes = tensors[*di].bytes, iBytes = tensors[*ii].bytes,
          uBytes = tensors[*ui].bytes;
  int ds = *di, is = *ii, us = *ui;
  k.access = [=](int64_t, int64_t, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(ds, dBytes));
    rd.push_back(whole(is, iBytes));
    rd.push_back(whole(us, uBytes));
    wr.push_back(whole(yi, dBytes));
  };
  return success();
}

LogicalResult Scheduler::lowerTopK(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto vt = cast<RankedTensorType>(op->getResult(0).getType());
  if (!xt.getElementType().isF32())
    return unsupported(op, "only float32 TopK is implemented");
  int64_t rank = xt.getRank(), axis = intAttr(op, "axis", -1);
  if (axis < -rank || axis >= rank)
    return unsupported(op, "axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  // k is the result's extent along the axis (shape inference took it from
  // the constant or specialized k).
  int64_t k = vt.getDimSize(axis);
  ArrayRef<int64_t> s = xt.getShape();
  int64_t outer = product(s.take_front(axis)), len = s[axis],
          inner = product(s.drop_front(axis + 1));
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int vi = defineOutput(op->getResult(0));
  int ii = defineOutput(op->getResult(1));
  KOp &kop = newKOp(op, AMK_RT_K_TOPK);
  kop.slots = {*xi, vi, ii};
  kop.ip = {outer, len, inner, k, intAttr(op, "largest", 1) != 0};
  kop.rows = outer;
  kop.flops = 2.0 * outer * len * inner;
  kop.bytes = 4.0 * outer * len * inner + 12.0 * outer * k * inner;
  int xs = *xi;
  kop.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                   SmallVectorImpl<TAccess> &rd,
                   SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * len * inner * 4, r1 * len * inner * 4));
    wr.push_back(span(vi, r0 * k * inner * 4, r1 * k * inner * 4));
    wr.push_back(span(ii, r0 * k * inner * 8, r1 * k * inner * 8));
  };
  return success();
}

LogicalResult Scheduler::lowerCumSum(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  Type e = xt.getElementType();
  if (!reducibleType(e))
    return unsupported(op, "CumSum is implemented for float32, float64, "
                           "int32 and int64");
  auto axisT = amk::getConstantTensor(op->getOperand(1));
  if (!axisT || axisT->numel() != 1)
    return unsupported(op, "its axis is not a constant");
  int64_t rank = xt.getRank(), axis = axisT->getInt(0);
  if (axis < -rank || axis >= rank)
    return unsupported(op, "axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> s = xt.getShape();
  int64_t outer = product(s.take_front(axis)), len = s[axis],
          inner = product(s.drop_front(axis + 1)), eb = elemBytes(e);
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_CUMSUM);
  k.slots = {*xi, yi};
  k.ip = {outer,
          len,
          inner,
          intAttr(op, "exclusive", 0) != 0,
          intAttr(op, "reverse", 0) != 0,
          runtimeDtype(e)};
  k.rows = outer;
  k.flops = 1.0 * xt.getNumElements();
  k.bytes = 2.0 * xt.getNumElements() * eb;
  int xs = *xi;
  int64_t row = len * inner * eb;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * row, r1 * row));
    wr.push_back(span(yi, r0 * row, r1 * row));
  };
  return success();
}

/// EyeLike depends only on its input's (static) shape: a constant, copied
/// into the result.
LogicalResult Scheduler::lowerEyeLike(Operation *op) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (yt.getRank() != 2)
    return unsupported(op, "its input is not 2-D");
  int64_t k = intAttr(op, "k", 0), rows = yt.getDimSize(0),
          cols = yt.getDimSize(1);
  Type e = yt.getElementType();
  SmallVector<Attribute> vals;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      bool one = j - i == k;
      vals.push_back(isa<FloatType>(e)
                         ? Attribute(FloatAttr::get(e, one ? 1.0 : 0.0))
                         : Attribute(IntegerAttr::get(e, one ? 1 : 0)));
    }
  int ci = newConstTensor(yt, DenseElementsAttr::get(yt, vals), "eyelike");
  int yi = defineOutput(op->getResult(0));
  if (yt.getNumElements() == 0)
    return success();
  SmallVector<int64_t> st = contiguousStrides(yt.getShape());
  addCopy(op, ci, yi, yt.getShape(), st, 0, st, 0, elemBytes(e), true);
  return success();
}

} // namespace amk::totask
