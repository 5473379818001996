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

#include <map>

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
  if (dtype < 0)
    return unsupported(op, "its element type has no kernel");
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
  int64_t dtype = runtimeDtype(xt.getElementType());
  if (dtype < 0 || xt.getElementType().isInteger(1))
    return unsupported(op, "its element type has no kernel");
  int64_t eb = elemBytes(xt.getElementType());
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
  kop.ip = {outer, len, inner, k, intAttr(op, "largest", 1) != 0, dtype};
  kop.rows = outer;
  kop.flops = 2.0 * outer * len * inner;
  kop.bytes = eb * outer * len * inner + (eb + 8.0) * outer * k * inner;
  int xs = *xi;
  kop.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                   SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * len * inner * eb, r1 * len * inner * eb));
    wr.push_back(span(vi, r0 * k * inner * eb, r1 * k * inner * eb));
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

namespace amk::totask {

/// Einsum: the equation parsed into labels (an ellipsis into one label per
/// dim it covers, aligned to the right across operands), output labels
/// first, each input given a stride per label.
LogicalResult Scheduler::lowerEinsum(Operation *op) {
  std::string eq;
  for (char ch : strAttr(op, "equation", ""))
    if (ch != ' ')
      eq.push_back(ch);
  return lowerEinsumEquation(op, eq);
}

LogicalResult Scheduler::lowerEinsumEquation(Operation *op,
                                             const std::string &eq) {
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  if (runtimeDtype(yt.getElementType()) < 0)
    return unsupported(op, "its element type has no kernel");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int64_t nin = op->getNumOperands();
  if ((int64_t)terms.size() != nin || nin > 3)
    return unsupported(op, "the equation does not name 1 to 3 operands");
  // Ellipsis dims: labels '0', '1', ... aligned to the right.
  int64_t ell = 0;
  SmallVector<std::string> expanded;
  for (auto [i, t] : llvm::enumerate(terms)) {
    int64_t rank = cast<RankedTensorType>(op->getOperand(i).getType()).getRank();
    size_t dots = t.find("...");
    int64_t explicitLabels = (int64_t)t.size() - (dots == std::string::npos ? 0 : 3);
    int64_t n = dots == std::string::npos ? 0 : rank - explicitLabels;
    if (n < 0 || (dots == std::string::npos && explicitLabels != rank))
      return unsupported(op, "term '" + t + "' does not match its operand's "
                                            "rank");
    ell = std::max(ell, n);
    expanded.push_back(t);
  }
  auto ellLabels = [&](int64_t n) {
    std::string s;
    for (int64_t k = ell - n; k < ell; ++k)
      s.push_back(char('0' + k));
    return s;
  };
  for (auto [i, t] : llvm::enumerate(expanded)) {
    size_t dots = t.find("...");
    if (dots == std::string::npos)
      continue;
    int64_t rank = cast<RankedTensorType>(op->getOperand(i).getType()).getRank();
    t = t.substr(0, dots) + ellLabels(rank - ((int64_t)t.size() - 3)) +
        t.substr(dots + 3);
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    size_t dots = out.find("...");
    if (dots != std::string::npos)
      out = out.substr(0, dots) + ellLabels(ell) + out.substr(dots + 3);
  } else {
    // Implicit output: the ellipsis, then labels seen once, sorted.
    std::map<char, int> count;
    for (const std::string &t : expanded)
      for (char ch : t)
        if (!isdigit(ch))
          ++count[ch];
    out = ellLabels(ell);
    for (auto [ch, n] : count)
      if (n == 1)
        out.push_back(ch);
  }
  std::string labels = out;
  for (const std::string &t : expanded)
    for (char ch : t)
      if (labels.find(ch) == std::string::npos)
        labels.push_back(ch);
  int64_t L = labels.size();
  if (L > AMK_EINSUM_MAX_LABELS || (int64_t)out.size() != yt.getRank())
    return unsupported(op, "the equation's output does not match the "
                           "result, or it has more than 16 labels");
  SmallVector<int64_t> sizes(L, 1);
  SmallVector<SmallVector<int64_t>> strides;
  for (auto [i, t] : llvm::enumerate(expanded)) {
    auto it = cast<RankedTensorType>(op->getOperand(i).getType());
    SmallVector<int64_t> st = contiguousStrides(it.getShape()), s(L, 0);
    for (auto [d, ch] : llvm::enumerate(t)) {
      int64_t l = labels.find(ch), n = it.getDimSize(d);
      if (n != 1)
        sizes[l] = n;
      if (n != 1)
        s[l] += st[d];
    }
    strides.push_back(s);
  }
  SmallVector<int> ins;
  for (Value v : op->getOperands()) {
    auto t = getTensor(v, op);
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_EINSUM);
  k.slots.push_back(yi);
  k.slots.append(ins.begin(), ins.end());
  k.ip = {nin, L, (int64_t)out.size(), runtimeDtype(yt.getElementType())};
  k.ip.append(sizes.begin(), sizes.end());
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    k.ip.push_back(
        runtimeDtype(cast<ShapedType>(v.getType()).getElementType()));
    k.ip.append(strides[i].begin(), strides[i].end());
  }
  int64_t numel = yt.getNumElements(), yb = elemBytes(yt.getElementType());
  k.rows = numel;
  k.flops = (double)product(sizes) * nin;
  k.bytes = (double)numel * yb;
  SmallVector<std::pair<int, int64_t>> reads;
  for (int t : ins)
    reads.push_back({t, tensors[t].bytes});
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    for (auto [t, b] : reads)
      rd.push_back(whole(t, b));
    wr.push_back(span(yi, r0 * yb, r1 * yb));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

/// OneHot: depth from the result's extent along the axis (so a depth
/// input works once specialized), values [off, on].
LogicalResult Scheduler::lowerOneHot(Operation *op) {
  auto it = cast<RankedTensorType>(op->getOperand(0).getType());
  auto yt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = yt.getRank(), axis = intAttr(op, "axis", -1);
  if (axis < -rank || axis >= rank)
    return unsupported(op, "axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  int64_t depth = yt.getDimSize(axis);
  int64_t outer = product(it.getShape().take_front(axis)),
          inner = product(it.getShape().drop_front(axis));
  auto ii = getTensor(op->getOperand(0), op);
  auto vi = getTensor(op->getOperand(2), op);
  if (failed(ii) || failed(vi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_ONE_HOT);
  int64_t eb = elemBytes(yt.getElementType());
  k.slots = {*ii, *vi, yi};
  k.ip = {outer, depth, inner, runtimeDtype(it.getElementType()), eb};
  k.rows = outer;
  k.bytes = (double)yt.getNumElements() * eb;
  int64_t iBytes = tensors[*ii].bytes, vBytes = tensors[*vi].bytes;
  int is = *ii, vs = *vi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(is, iBytes));
    rd.push_back(whole(vs, vBytes));
    wr.push_back(span(yi, r0 * depth * inner * eb, r1 * depth * inner * eb));
  };
  return success();
}

/// ReverseSequence with constant (or specialized) lengths: a GatherElements
/// along the time axis with a constant index tensor.
LogicalResult Scheduler::lowerReverseSequence(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  auto lens = amk::getConstantTensor(op->getOperand(1));
  if (!lens)
    return unsupported(op, "its sequence lengths are not constants");
  int64_t rank = xt.getRank(), tAxis = intAttr(op, "time_axis", 0),
          bAxis = intAttr(op, "batch_axis", 1);
  if (rank < 2 || rank > AMK_GE_MAX_RANK || tAxis < 0 || bAxis < 0 ||
      tAxis >= rank || bAxis >= rank)
    return unsupported(op, "its axes do not fit its rank");
  MLIRContext *ctx = op->getContext();
  auto idxType = RankedTensorType::get(xt.getShape(), IntegerType::get(ctx, 64));
  SmallVector<int64_t> idx(xt.getNumElements());
  SmallVector<int64_t> st = contiguousStrides(xt.getShape());
  for (int64_t p = 0; p < (int64_t)idx.size(); ++p) {
    int64_t t = p / st[tAxis] % xt.getDimSize(tAxis),
            b = p / st[bAxis] % xt.getDimSize(bAxis);
    int64_t len = std::clamp<int64_t>(lens->getInt(b), 0, xt.getDimSize(tAxis));
    idx[p] = t < len ? len - 1 - t : t;
  }
  int ii = newConstTensor(
      idxType, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(idx)),
      "reverse_sequence.index");
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_GATHER_ELEMENTS);
  k.slots = {*xi, ii, yi};
  int64_t eb = elemBytes(xt.getElementType());
  k.ip = {rank, tAxis, eb, AMK_RT_I64};
  k.ip.append(xt.getShape().begin(), xt.getShape().end());
  k.ip.append(xt.getShape().begin(), xt.getShape().end());
  k.rows = xt.getNumElements();
  k.rowAlign = 256;
  k.bytes = 2.0 * xt.getNumElements() * eb;
  int64_t xBytes = tensors[*xi].bytes;
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(whole(xs, xBytes));
    rd.push_back(span(ii, r0 * 8, r1 * 8));
    wr.push_back(span(yi, r0 * eb, r1 * eb));
  };
  return success();
}

} // namespace amk::totask

namespace amk::totask {

LogicalResult Scheduler::lowerDet(Operation *op) {
  auto xt = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = xt.getRank();
  if (!xt.getElementType().isF32() || rank < 2 ||
      xt.getDimSize(rank - 1) != xt.getDimSize(rank - 2))
    return unsupported(op, "only float32 square matrices are implemented");
  int64_t n = xt.getDimSize(rank - 1),
          batch = product(xt.getShape().drop_back(2));
  auto xi = getTensor(op->getOperand(0), op);
  if (failed(xi))
    return failure();
  int yi = defineOutput(op->getResult(0));
  KOp &k = newKOp(op, AMK_RT_K_DET);
  k.slots = {*xi, yi};
  k.ip = {batch, n};
  k.rows = batch;
  k.flops = 2.0 * batch * n * n * n / 3;
  k.bytes = 4.0 * batch * (n * n + 1);
  int xs = *xi;
  k.access = [=](int64_t r0, int64_t r1, int64_t, int64_t,
                 SmallVectorImpl<TAccess> &rd, SmallVectorImpl<TAccess> &wr) {
    rd.push_back(span(xs, r0 * n * n * 4, r1 * n * n * 4));
    wr.push_back(span(yi, r0 * 4, r1 * 4));
  };
  return success();
}

} // namespace amk::totask
