//===- Patterns.cpp - Matchers for decomposed ONNX subgraphs --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/Utils/Patterns.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "transforms/Utils/PassUtils.h"

#include "dialect/ONNX/ONNXNames.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
namespace onnx = amk::onnx;

namespace amk {

namespace {

bool near(std::optional<double> v, double x, double tol = 1e-3) {
  return v && std::abs(*v - x) <= tol * std::max(1.0, std::abs(x));
}

/// For a binary op, the operand that is not `c` when the other is a
/// constant near `x`.
Value otherIfConstant(Operation *op, double x, double tol = 1e-3) {
  if (!op || op->getNumOperands() != 2)
    return nullptr;
  if (near(onnx::getSplatValue(op->getOperand(1)), x, tol))
    return op->getOperand(0);
  if (isa<onnx::AddOp, onnx::MulOp>(op) &&
      near(onnx::getSplatValue(op->getOperand(0)), x, tol))
    return op->getOperand(1);
  return nullptr;
}

/// Leaves of a tree of Mul ops rooted at `root` (inner Muls must have one
/// use), at most `depth` levels deep.
void mulLeaves(Value v, int depth, SmallVectorImpl<Value> &leaves,
               SmallVectorImpl<Operation *> &ops, bool isRoot) {
  auto mul = v.getDefiningOp<onnx::MulOp>();
  if (mul && depth > 0 && (isRoot || v.hasOneUse())) {
    ops.push_back(mul);
    mulLeaves(mul.getA(), depth - 1, leaves, ops, false);
    mulLeaves(mul.getB(), depth - 1, leaves, ops, false);
    return;
  }
  leaves.push_back(v);
}

/// x / sqrt(2) or x * (1 / sqrt(2)): returns x.
Value matchScaledBySqrtHalf(Value v, SmallVectorImpl<Operation *> &ops) {
  Operation *op = v.getDefiningOp();
  if (isa_and_nonnull<onnx::DivOp>(op))
    if (Value x = otherIfConstant(op, std::sqrt(2.0))) {
      ops.push_back(op);
      return x;
    }
  if (isa_and_nonnull<onnx::MulOp>(op))
    if (Value x = otherIfConstant(op, std::sqrt(0.5))) {
      ops.push_back(op);
      return x;
    }
  return nullptr;
}

/// sqrt(2/pi) * (x + 0.044715 x^3), in the association exporters write.
Value matchTanhInner(Value v, SmallVectorImpl<Operation *> &ops) {
  auto mul = v.getDefiningOp<onnx::MulOp>();
  if (!mul)
    return nullptr;
  Value sum = otherIfConstant(mul, std::sqrt(2.0 / M_PI));
  auto add = sum ? sum.getDefiningOp<onnx::AddOp>() : nullptr;
  if (!add)
    return nullptr;
  for (int i = 0; i < 2; ++i) {
    Value x = add->getOperand(i), cube = add->getOperand(1 - i);
    auto cmul = cube.getDefiningOp<onnx::MulOp>();
    Value p = cmul ? otherIfConstant(cmul, 0.044715) : nullptr;
    if (!p)
      continue;
    SmallVector<Operation *> local = {mul, add, cmul};
    auto pow = p.getDefiningOp<onnx::PowOp>();
    if (pow && pow.getX() == x && near(onnx::getSplatValue(pow.getY()), 3.0)) {
      local.push_back(pow);
    } else {
      // x * x * x
      SmallVector<Value> leaves;
      SmallVector<Operation *> mops;
      mulLeaves(p, 2, leaves, mops, true);
      if (leaves.size() != 3 ||
          !llvm::all_of(leaves, [&](Value l) { return l == x; }))
        continue;
      local.append(mops.begin(), mops.end());
    }
    ops.append(local.begin(), local.end());
    return x;
  }
  return nullptr;
}

} // namespace

static std::optional<GeluMatch> matchGeluImpl(Operation *root);

std::optional<GeluMatch> matchGelu(Operation *root) {
  auto m = matchGeluImpl(root);
  if (m) {
    // Root last.
    llvm::erase(m->ops, root);
    m->ops.push_back(root);
  }
  return m;
}

static std::optional<GeluMatch> matchGeluImpl(Operation *root) {
  if (!isa_and_nonnull<onnx::MulOp>(root))
    return std::nullopt;
  SmallVector<Value> leaves;
  GeluMatch m;
  mulLeaves(root->getResult(0), 2, leaves, m.ops, true);
  // Quick form: x * sigmoid(1.702 x).
  if (leaves.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      auto sig = leaves[1 - i].getDefiningOp<onnx::SigmoidOp>();
      if (!sig)
        continue;
      auto inner = sig.getX().getDefiningOp<onnx::MulOp>();
      if (inner && otherIfConstant(inner, 1.702) == leaves[i]) {
        m.input = leaves[i];
        m.form = "quick";
        m.ops.append({inner, sig});
        return m;
      }
    }
    return std::nullopt;
  }
  if (leaves.size() != 3)
    return std::nullopt;
  // Erf and tanh forms: x * 0.5 * (1 + f(x)) in any association.
  int half = -1;
  for (int i = 0; i < 3; ++i)
    if (near(onnx::getSplatValue(leaves[i]), 0.5, 1e-6))
      half = i;
  if (half < 0)
    return std::nullopt;
  for (int i = 0; i < 3; ++i) {
    if (i == half)
      continue;
    Value x = leaves[i], onePlus = leaves[3 - i - half];
    auto add = onePlus.getDefiningOp<onnx::AddOp>();
    Value f = add ? otherIfConstant(add, 1.0, 1e-6) : nullptr;
    if (!f)
      continue;
    SmallVector<Operation *> ops = {add};
    if (auto erf = f.getDefiningOp<onnx::ErfOp>()) {
      ops.push_back(erf);
      if (matchScaledBySqrtHalf(erf.getInput(), ops) == x) {
        m.input = x;
        m.form = "none";
        m.ops.append(ops.begin(), ops.end());
        return m;
      }
    } else if (auto tanh = f.getDefiningOp<onnx::TanhOp>()) {
      ops.push_back(tanh);
      if (matchTanhInner(tanh.getInput(), ops) == x) {
        m.input = x;
        m.form = "tanh";
        m.ops.append(ops.begin(), ops.end());
        return m;
      }
    }
  }
  return std::nullopt;
}

namespace {

/// Reduce axes of a ReduceMean (attribute or constant input).
std::optional<SmallVector<int64_t>> reduceAxes(onnx::ReduceMeanOp op) {
  if (auto a = op.getAxes())
    return SmallVector<int64_t>(a->begin(), a->end());
  if (!isNone(op.getAxesInput()))
    return onnx::getIntValues(op.getAxesInput());
  return std::nullopt;
}

/// The trailing-axes start (negative) of `axes` on a tensor of rank `r`
/// (r may be unknown: -1), when they are the last k axes.
std::optional<int64_t> trailingAxis(ArrayRef<int64_t> axes, int64_t r) {
  SmallVector<int64_t> neg;
  for (int64_t a : axes) {
    if (a >= 0) {
      if (r < 0)
        return std::nullopt;
      a -= r;
    }
    neg.push_back(a);
  }
  llvm::sort(neg);
  for (size_t i = 0; i < neg.size(); ++i)
    if (neg[i] != -static_cast<int64_t>(neg.size()) + static_cast<int64_t>(i))
      return std::nullopt;
  return neg.empty() ? std::nullopt : std::optional<int64_t>(neg.front());
}

int64_t rankOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getRank() : -1;
}

} // namespace

/// The normalized value of `n`: d / sqrt(...) or d * reciprocal(sqrt(...)).
static bool matchNormalized(Value n, Value &d, Value &denom,
                            SmallVectorImpl<Operation *> &ops) {
  if (auto div = n.getDefiningOp<onnx::DivOp>()) {
    d = div.getA();
    denom = div.getB();
    ops.push_back(div);
    return true;
  }
  if (auto nm = n.getDefiningOp<onnx::MulOp>()) {
    for (int i = 0; i < 2; ++i)
      if (auto rec =
              nm->getOperand(1 - i).getDefiningOp<onnx::ReciprocalOp>()) {
        d = nm->getOperand(i);
        denom = rec.getX();
        ops.append({nm, rec});
        return true;
      }
  }
  return false;
}

std::optional<NormMatch> matchNorm(Operation *root) {
  NormMatch m;
  Operation *scaled = root;
  if (auto add = dyn_cast_or_null<onnx::AddOp>(root)) {
    for (int i = 0; i < 2 && !m.bias; ++i)
      if (isa_and_nonnull<onnx::MulOp>(add->getOperand(i).getDefiningOp())) {
        m.bias = add->getOperand(1 - i);
        scaled = add->getOperand(i).getDefiningOp();
      }
    if (!m.bias)
      return std::nullopt;
    m.ops.push_back(add);
  }
  // One factor of the Mul is the normalized value, the other the scale.
  Value d, denom;
  if (auto mul = dyn_cast_or_null<onnx::MulOp>(scaled)) {
    size_t mark = m.ops.size();
    m.ops.push_back(mul);
    for (int i = 0; i < 2 && !d; ++i)
      if (matchNormalized(mul->getOperand(i), d, denom, m.ops))
        m.scale = mul->getOperand(1 - i);
    if (!d)
      m.ops.resize(mark);
  }
  // Without scale and bias, the root itself normalizes (exporters and
  // canonicalization drop a scale of ones and a bias of zeros).
  if (!d && !m.bias && root && root->getNumResults() == 1 &&
      !matchNormalized(root->getResult(0), d, denom, m.ops))
    return std::nullopt;
  if (!d)
    return std::nullopt;
  auto sqrt = denom ? denom.getDefiningOp<onnx::SqrtOp>() : nullptr;
  auto addEps = sqrt ? sqrt.getX().getDefiningOp<onnx::AddOp>() : nullptr;
  if (!addEps)
    return std::nullopt;
  m.ops.append({sqrt, addEps});
  onnx::ReduceMeanOp var;
  for (int i = 0; i < 2; ++i)
    if (auto eps = onnx::getSplatValue(addEps->getOperand(1 - i)))
      if ((var = addEps->getOperand(i).getDefiningOp<onnx::ReduceMeanOp>()))
        m.epsilon = *eps;
  if (!var)
    return std::nullopt;
  m.ops.push_back(var);
  // var = mean(d^2).
  Operation *sq = var.getData().getDefiningOp();
  if (auto pow = dyn_cast_or_null<onnx::PowOp>(sq)) {
    if (pow.getX() != d || !near(onnx::getSplatValue(pow.getY()), 2.0, 1e-6))
      return std::nullopt;
  } else if (auto mm = dyn_cast_or_null<onnx::MulOp>(sq)) {
    if (mm.getA() != d || mm.getB() != d)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  m.ops.push_back(sq);
  auto axes = reduceAxes(var);
  if (!axes || var.getKeepdims() != 1)
    return std::nullopt;
  // LayerNorm: d = x - mean(x) over the same axes.
  if (auto sub = d.getDefiningOp<onnx::SubOp>()) {
    auto mean = sub.getB().getDefiningOp<onnx::ReduceMeanOp>();
    if (mean && mean.getData() == sub.getA() && reduceAxes(mean) == axes &&
        mean.getKeepdims() == 1) {
      m.input = sub.getA();
      m.ops.append({sub, mean});
    }
  }
  if (!m.input) {
    m.input = d;
    m.rms = true;
  }
  auto axis = trailingAxis(*axes, rankOf(m.input));
  if (!axis)
    return std::nullopt;
  m.axis = *axis;
  // Scale and bias cover exactly the normalized dims (as LayerNorm's do):
  // a scale that broadcasts otherwise is not a LayerNorm's.
  auto in = dyn_cast<RankedTensorType>(m.input.getType());
  for (Value p : {m.scale, m.bias}) {
    if (!p)
      continue;
    auto pt = dyn_cast<RankedTensorType>(p.getType());
    if (!in || !pt || pt.getRank() > -m.axis)
      return std::nullopt;
    for (int64_t k = 1; k <= pt.getRank(); ++k)
      if (pt.getDimSize(pt.getRank() - k) != in.getDimSize(in.getRank() - k) ||
          pt.isDynamicDim(pt.getRank() - k))
        return std::nullopt;
    if (pt.getRank() != -m.axis)
      return std::nullopt;
  }
  std::reverse(m.ops.begin(), m.ops.end());
  return m;
}

std::optional<AttentionMatch> matchAttention(Operation *root) {
  auto pv = dyn_cast_or_null<onnx::MatMulOp>(root);
  if (!pv)
    return std::nullopt;
  AttentionMatch m;
  m.value = pv.getB();
  auto softmax = pv.getA().getDefiningOp<onnx::SoftmaxOp>();
  if (!softmax)
    return std::nullopt;
  int64_t r = rankOf(softmax.getInput());
  int64_t axis = softmax.getAxis().value_or(-1);
  if (!(axis == -1 || (r > 0 && axis == r - 1)))
    return std::nullopt;
  m.ops = {softmax};
  Value s = softmax.getInput();
  if (auto add = s.getDefiningOp<onnx::AddOp>()) {
    // scores + mask: the scores side comes from a MatMul (maybe scaled).
    for (int i = 0; i < 2; ++i) {
      Operation *d = add->getOperand(i).getDefiningOp();
      if (isa_and_nonnull<onnx::MatMulOp, onnx::MulOp, onnx::DivOp>(d)) {
        m.mask = add->getOperand(1 - i);
        s = add->getOperand(i);
        m.ops.push_back(add);
        break;
      }
    }
  }
  if (Operation *d = s.getDefiningOp();
      isa_and_nonnull<onnx::MulOp, onnx::DivOp>(d)) {
    for (int i = 0; i < 2; ++i) {
      if (isa<onnx::DivOp>(d) && i == 1)
        break;
      auto c = onnx::getSplatValue(d->getOperand(1 - i));
      if (c && d->getOperand(i).getDefiningOp<onnx::MatMulOp>()) {
        m.scale = isa<onnx::DivOp>(d) ? 1.0 / *c : *c;
        s = d->getOperand(i);
        m.ops.push_back(d);
        break;
      }
    }
  }
  auto qk = s.getDefiningOp<onnx::MatMulOp>();
  if (!qk)
    return std::nullopt;
  m.ops.push_back(qk);
  m.query = qk.getA();
  m.key = qk.getB();
  m.keyTransposed = true;
  // A scale applied to Q (Mul/Div by a constant) belongs to the pattern.
  if (Operation *d = m.query.getDefiningOp();
      isa_and_nonnull<onnx::MulOp, onnx::DivOp>(d) && m.query.hasOneUse()) {
    if (auto c = onnx::getSplatValue(d->getOperand(1))) {
      m.scale *= isa<onnx::DivOp>(d) ? 1.0 / *c : *c;
      m.query = d->getOperand(0);
      m.ops.push_back(d);
    }
  }
  std::reverse(m.ops.begin(), m.ops.end());
  m.ops.push_back(pv);
  return m;
}

bool isSelfContained(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> set(ops.begin(), ops.end());
  for (Operation *op : ops.drop_back())
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!set.contains(user))
          return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Rotary position embedding
//===----------------------------------------------------------------------===//

namespace {

/// A strided range of the last axis of `source` (a Slice over that axis
/// alone, or one of the two equal halves of a Split along it).
struct LastAxisRange {
  Value source;
  int64_t start, step, count;
  Operation *op;
};

std::optional<LastAxisRange> lastAxisRange(Value v) {
  Operation *op = v.getDefiningOp();
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!isa_and_nonnull<onnx::SplitOp, onnx::SliceOp>(op) ||
      op->getNumOperands() < 1 || !vt || !vt.hasStaticShape() ||
      vt.getRank() < 1)
    return std::nullopt;
  auto src = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!src || !src.hasStaticShape() || src.getRank() != vt.getRank() ||
      src.getShape().drop_back() != vt.getShape().drop_back())
    return std::nullopt;
  int64_t rank = vt.getRank(), dim = src.getShape().back();
  int64_t count = vt.getShape().back();
  if (auto split = dyn_cast<onnx::SplitOp>(op)) {
    int64_t axis = split.getAxis();
    if (axis < 0)
      axis += rank;
    if (axis != rank - 1 || op->getNumResults() != 2 || 2 * count != dim ||
        op->getResult(0).getType() != op->getResult(1).getType())
      return std::nullopt;
    int64_t index = cast<OpResult>(v).getResultNumber();
    return LastAxisRange{op->getOperand(0), index * count, 1, count, op};
  }
  if (!isa<onnx::SliceOp>(op))
    return std::nullopt;
  auto starts = onnx::getIntValues(op->getOperand(1));
  auto ends = onnx::getIntValues(op->getOperand(2));
  std::optional<SmallVector<int64_t>> axes, steps;
  if (op->getNumOperands() > 3 && !isNone(op->getOperand(3)))
    if (!(axes = onnx::getIntValues(op->getOperand(3))))
      return std::nullopt;
  if (op->getNumOperands() > 4 && !isNone(op->getOperand(4)))
    if (!(steps = onnx::getIntValues(op->getOperand(4))))
      return std::nullopt;
  if (!starts || !ends || starts->size() != ends->size() ||
      (axes && axes->size() != starts->size()) ||
      (steps && steps->size() != starts->size()))
    return std::nullopt;
  std::optional<LastAxisRange> r;
  for (size_t i = 0; i < starts->size(); ++i) {
    int64_t ax = axes ? (*axes)[i] : (int64_t)i;
    if (ax < 0)
      ax += rank;
    int64_t step = steps ? (*steps)[i] : 1;
    int64_t n = src.getDimSize(ax);
    int64_t b = (*starts)[i] < 0 ? (*starts)[i] + n : (*starts)[i];
    b = std::clamp<int64_t>(b, 0, n);
    // Any other axis must be taken whole (tf2onnx slices every axis).
    if (ax != rank - 1) {
      if (b != 0 || step != 1 || (*ends)[i] < n)
        return std::nullopt;
      continue;
    }
    if (step < 1 || r)
      return std::nullopt;
    r = LastAxisRange{op->getOperand(0), b, step, count, op};
  }
  return r;
}

/// `v` negated: Neg(a), or a times -1.
Value negated(Value v, Operation *&op) {
  op = v.getDefiningOp();
  if (auto neg = dyn_cast_or_null<onnx::NegOp>(op))
    return neg.getX();
  if (isa_and_nonnull<onnx::MulOp>(op))
    return otherIfConstant(op, -1.0, 0.0);
  return nullptr;
}

/// The operands of a Mul, as (the one `isA` accepts, the other).
std::optional<std::pair<Value, Value>>
mulOperands(Value v, llvm::function_ref<bool(Value)> isA) {
  auto mul = v.getDefiningOp<onnx::MulOp>();
  if (!mul)
    return std::nullopt;
  for (int i = 0; i < 2; ++i)
    if (isA(mul->getOperand(i)))
      return std::pair(mul->getOperand(i), mul->getOperand(1 - i));
  return std::nullopt;
}

/// Whether `table` broadcasts onto `onto`'s static shape, with the same
/// last axis.
bool isTableFor(Value table, Value onto) {
  auto t = dyn_cast<RankedTensorType>(table.getType());
  auto o = cast<RankedTensorType>(onto.getType());
  return t && t.getRank() >= 1 && t.getShape().back() == o.getShape().back() &&
         broadcastsOnto(table, onto);
}

/// x * cos + rotate_half(x) * sin at the Add `root`.
std::optional<RopeMatch> matchRotateHalf(Operation *root) {
  auto yt = dyn_cast<RankedTensorType>(root->getResult(0).getType());
  if (!isa<onnx::AddOp>(root) || !yt || !yt.hasStaticShape() ||
      yt.getRank() < 1 || yt.getShape().back() % 2)
    return std::nullopt;
  int64_t d = yt.getShape().back(), half = d / 2;
  for (int i = 0; i < 2; ++i) {
    Value direct = root->getOperand(i), rotated = root->getOperand(1 - i);
    RopeMatch m;
    Operation *concat = nullptr;
    // The rotated term: Mul(Concat(-x2, x1), sin).
    auto rot = mulOperands(rotated, [&](Value v) {
      auto c = v.getDefiningOp<onnx::ConcatOp>();
      if (!c || c->getNumOperands() != 2 ||
          (c.getAxis() != -1 && c.getAxis() != yt.getRank() - 1))
        return false;
      concat = c;
      return true;
    });
    if (!rot)
      continue;
    Operation *neg = nullptr;
    Value second = negated(concat->getOperand(0), neg);
    if (!second)
      continue;
    auto hi = lastAxisRange(second), lo = lastAxisRange(concat->getOperand(1));
    if (!hi || !lo || hi->source != lo->source || hi->step != 1 ||
        lo->step != 1 || hi->start != half || hi->count != half ||
        lo->start != 0 || lo->count != half)
      continue;
    Value x = hi->source;
    if (x.getType() != yt)
      continue;
    auto dir = mulOperands(direct, [&](Value v) { return v == x; });
    if (!dir || !isTableFor(dir->second, x) || !isTableFor(rot->second, x))
      continue;
    m.input = x;
    m.cos = dir->second;
    m.sin = rot->second;
    m.ops = {hi->op, neg, concat, rotated.getDefiningOp(),
             direct.getDefiningOp()};
    if (lo->op != hi->op)
      m.ops.insert(m.ops.begin(), lo->op);
    m.ops.push_back(root);
    return m;
  }
  return std::nullopt;
}

/// The value a Reshape or Unsqueeze gives one more trailing axis of 1.
Value withTrailingUnit(Value v, Operation *&op) {
  op = v.getDefiningOp();
  if (!isa_and_nonnull<onnx::UnsqueezeOp, onnx::ReshapeOp>(op))
    return nullptr;
  Value in = op->getOperand(0);
  auto it = dyn_cast<RankedTensorType>(in.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  if (!it || vt.getRank() != it.getRank() + 1 || vt.getShape().back() != 1 ||
      vt.getShape().drop_back() != it.getShape())
    return nullptr;
  return in;
}

/// The interleaved pairs at the Reshape `root`.
std::optional<RopeMatch> matchInterleaved(Operation *root) {
  auto yt = dyn_cast<RankedTensorType>(root->getResult(0).getType());
  if (!isa<onnx::ReshapeOp>(root) || !yt || !yt.hasStaticShape() ||
      yt.getRank() < 1 || yt.getShape().back() % 2)
    return std::nullopt;
  auto concat = root->getOperand(0).getDefiningOp<onnx::ConcatOp>();
  if (!concat || concat->getNumOperands() != 2)
    return std::nullopt;
  auto ct = cast<RankedTensorType>(concat.getType());
  if (ct.getRank() != yt.getRank() + 1 || ct.getShape().back() != 2 ||
      (concat.getAxis() != -1 && concat.getAxis() != ct.getRank() - 1))
    return std::nullopt;
  Operation *u0 = nullptr, *u1 = nullptr;
  Value even = withTrailingUnit(concat->getOperand(0), u0);
  Value odd = withTrailingUnit(concat->getOperand(1), u1);
  auto sub = even ? even.getDefiningOp<onnx::SubOp>() : nullptr;
  auto add = odd ? odd.getDefiningOp<onnx::AddOp>() : nullptr;
  if (!sub || !add)
    return std::nullopt;
  // even = x0 c - x1 s.
  auto isEvenOf = [](Value v) {
    auto r = lastAxisRange(v);
    return r && r->start == 0 && r->step == 2;
  };
  auto isOddOf = [](Value v) {
    auto r = lastAxisRange(v);
    return r && r->start == 1 && r->step == 2;
  };
  auto x0c = mulOperands(sub.getA(), isEvenOf);
  auto x1s = mulOperands(sub.getB(), isOddOf);
  if (!x0c || !x1s)
    return std::nullopt;
  Value x0 = x0c->first, x1 = x1s->first, c = x0c->second, s = x1s->second;
  auto r0 = lastAxisRange(x0), r1 = lastAxisRange(x1);
  if (r0->source != r1->source || r0->source.getType() != yt ||
      2 * r0->count != yt.getShape().back() || r1->count != r0->count)
    return std::nullopt;
  // odd = x0 s + x1 c, in either order.
  for (int i = 0; i < 2; ++i) {
    auto x0s =
        mulOperands(add->getOperand(i), [&](Value v) { return v == x0; });
    auto x1c =
        mulOperands(add->getOperand(1 - i), [&](Value v) { return v == x1; });
    if (!x0s || !x1c || x0s->second != s || x1c->second != c)
      continue;
    if (!isTableFor(c, x0) || !isTableFor(s, x0))
      return std::nullopt;
    RopeMatch m;
    m.input = r0->source;
    m.cos = c;
    m.sin = s;
    m.interleaved = true;
    m.ops = {r0->op};
    if (r1->op != r0->op)
      m.ops.push_back(r1->op);
    m.ops.append({sub.getA().getDefiningOp(), sub.getB().getDefiningOp(), sub,
                  add->getOperand(i).getDefiningOp(),
                  add->getOperand(1 - i).getDefiningOp(), add, u0, u1, concat,
                  root});
    return m;
  }
  return std::nullopt;
}

} // namespace

std::optional<RopeMatch> matchRope(Operation *root) {
  // amk.rope runs on float32 (wider floats keep their elementwise ops).
  auto yt = dyn_cast<RankedTensorType>(root->getResult(0).getType());
  if (!yt || !yt.getElementType().isF32())
    return std::nullopt;
  std::optional<RopeMatch> m = matchRotateHalf(root);
  if (!m)
    m = matchInterleaved(root);
  if (!m)
    return std::nullopt;
  // An op matched twice (the same product on both sides of the Add, or
  // CSE'd products when cos and sin are one value) is not a rotation.
  llvm::SmallPtrSet<Operation *, 16> seen;
  for (Operation *op : m->ops)
    if (!seen.insert(op).second)
      return std::nullopt;
  return m;
}

//===----------------------------------------------------------------------===//
// Activations, Conv chains, MatMul + bias
//===----------------------------------------------------------------------===//

bool broadcastsOnto(Value v, Value onto) {
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  auto ot = dyn_cast<RankedTensorType>(onto.getType());
  if (!vt || !ot || !vt.hasStaticShape() || !ot.hasStaticShape() ||
      vt.getElementType() != ot.getElementType())
    return false;
  auto b = onnx::broadcastShapes({vt.getShape(), ot.getShape()});
  return succeeded(b) && llvm::ArrayRef<int64_t>(*b) == ot.getShape();
}

/// The only user of `v`, or null.
static Operation *onlyUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return *v.getUsers().begin();
}

std::optional<ActivationMatch> matchActivationOf(Value input, bool convKinds) {
  ActivationMatch m;
  m.input = input;
  // SiLU (Swish) as exporters write it, Mul(x, Sigmoid(x)): x has exactly
  // these two users. It is quick_gelu with alpha 1 (EfficientNet's every
  // convolution).
  if (llvm::range_size(input.getUsers()) == 2) {
    onnx::SigmoidOp sig;
    onnx::MulOp mul;
    for (Operation *u : input.getUsers()) {
      if (auto s = dyn_cast<onnx::SigmoidOp>(u))
        sig = s;
      else if (auto mu = dyn_cast<onnx::MulOp>(u))
        mul = mu;
    }
    if (sig && mul && sig.getY().hasOneUse() &&
        *sig.getY().getUsers().begin() == mul.getOperation() &&
        ((mul.getA() == input && mul.getB() == sig.getY()) ||
         (mul.getB() == input && mul.getA() == sig.getY())) &&
        sig.getY().getType() == input.getType() &&
        mul.getC().getType() == input.getType()) {
      m.kind = "quick_gelu";
      m.alpha = 1.0;
      m.ops = {sig, mul};
      return m;
    }
  }
  if (Operation *user = onlyUser(input)) {
    if (user->getNumResults() == 1 &&
        user->getResult(0).getType() == input.getType()) {
      m.ops = {user};
      if (isa<onnx::ReluOp>(user)) {
        m.kind = "relu";
        return m;
      }
      if (isa<onnx::SigmoidOp>(user)) {
        m.kind = "sigmoid";
        return m;
      }
      if (isa<onnx::HardSwishOp>(user)) {
        m.kind = "hard_swish";
        return m;
      }
      if (auto lr = dyn_cast<onnx::LeakyReluOp>(user)) {
        m.kind = "leaky_relu";
        m.alpha = lr.getAlpha().convertToDouble();
        return m;
      }
      if (auto clip = dyn_cast<onnx::ClipOp>(user);
          clip && clip.getInput() == input) {
        m.kind = "clip";
        m.alpha = -std::numeric_limits<double>::infinity();
        m.beta = std::numeric_limits<double>::infinity();
        if (clip->hasAttr("min"))
          m.alpha = clip.getMin().convertToDouble();
        if (clip->hasAttr("max"))
          m.beta = clip.getMax().convertToDouble();
        for (auto [operand, bound] : {std::pair{clip.getMinInput(), &m.alpha},
                                      std::pair{clip.getMaxInput(), &m.beta}}) {
          if (!operand || isNone(operand))
            continue;
          auto c = onnx::getSplatValue(operand);
          if (!c)
            return std::nullopt;
          *bound = *c;
        }
        return m;
      }
      if (!convKinds) {
        if (isa<onnx::TanhOp>(user)) {
          m.kind = "tanh";
          return m;
        }
        if (auto g = dyn_cast<onnx::GeluOp>(user)) {
          m.kind = g.getApproximate() == "tanh" ? "gelu_tanh" : "gelu";
          return m;
        }
      }
    }
  }
  if (convKinds)
    return std::nullopt;
  // A decomposed Gelu: the largest match among the Muls a few ops
  // downstream whose input is `input` and that holds every use of it.
  llvm::SmallVector<Operation *> frontier(input.getUsers().begin(),
                                          input.getUsers().end());
  llvm::SmallPtrSet<Operation *, 16> seen;
  std::optional<GeluMatch> best;
  for (int depth = 0; depth < 6 && !frontier.empty(); ++depth) {
    llvm::SmallVector<Operation *> next;
    for (Operation *op : frontier) {
      if (!seen.insert(op).second)
        continue;
      if (isa<onnx::MulOp>(op))
        if (auto g = matchGelu(op);
            g && g->input == input && isSelfContained(g->ops) &&
            (!best || g->ops.size() > best->ops.size())) {
          llvm::SmallPtrSet<Operation *, 8> in(g->ops.begin(), g->ops.end());
          if (llvm::all_of(input.getUsers(),
                           [&](Operation *u) { return in.contains(u); }))
            best = std::move(g);
        }
      for (Value r : op->getResults())
        next.append(r.getUsers().begin(), r.getUsers().end());
    }
    frontier = std::move(next);
  }
  if (!best)
    return std::nullopt;
  m.kind = best->form == "none"   ? "gelu"
           : best->form == "tanh" ? "gelu_tanh"
                                  : "quick_gelu";
  m.alpha = best->form == "quick" ? 1.702 : 0;
  m.ops = best->ops;
  return m;
}

std::optional<ConvChainMatch>
matchConvChain(Operation *convOp,
               llvm::function_ref<bool(Operation *)> isClaimed) {
  auto conv = dyn_cast_or_null<onnx::ConvOp>(convOp);
  if (!conv || isClaimed(conv))
    return std::nullopt;
  auto yt = dyn_cast<RankedTensorType>(conv.getY().getType());
  // A dynamic batch or image size is fine (the fused op keeps the Conv's
  // type); the channel count decides the BatchNormalization match.
  if (!yt || yt.getRank() < 3 || yt.isDynamicDim(1) ||
      !yt.getElementType().isF32())
    return std::nullopt;
  ConvChainMatch m;
  m.conv = conv;
  m.ops.push_back(conv);
  Value v = conv.getY();
  bool constantWeights =
      isa_and_nonnull<onnx::ConstantOp>(conv.getW().getDefiningOp());
  bool constantBias = isNone(conv.getB()) || isa_and_nonnull<onnx::ConstantOp>(
                                                 conv.getB().getDefiningOp());
  // BatchNormalization in inference form over the Conv's channels.
  if (auto bn = dyn_cast_or_null<onnx::BatchNormalizationOp>(onlyUser(v));
      bn && !isClaimed(bn) && constantWeights && constantBias &&
      bn.getTrainingMode() == 0 && bn.getSpatial() == 1 &&
      bn.getY().getType() == v.getType() &&
      llvm::all_of(bn->getResults().drop_front(),
                   [](Value r) { return r.use_empty(); }) &&
      llvm::all_of(bn->getOperands().drop_front(), [&](Value p) {
        auto t = dyn_cast<RankedTensorType>(p.getType());
        return isa_and_nonnull<onnx::ConstantOp>(p.getDefiningOp()) && t &&
               t.getRank() == 1 && t.getDimSize(0) == yt.getDimSize(1);
      })) {
    m.bn = bn;
    m.ops.push_back(bn);
    v = bn.getY();
  }
  if (auto add = dyn_cast_or_null<onnx::AddOp>(onlyUser(v));
      add && !isClaimed(add) && add.getA() != add.getB() &&
      add.getC().getType() == v.getType()) {
    Value other = add.getA() == v ? add.getB() : add.getA();
    if (broadcastsOnto(other, v)) {
      m.add = add;
      m.addend = other;
      m.ops.push_back(add);
      v = add.getC();
    }
  }
  if (auto act = matchActivationOf(v, /*convKinds=*/true);
      act && !isClaimed(act->ops.back())) {
    m.act = act;
    m.ops.append(act->ops.begin(), act->ops.end());
  }
  return m;
}

std::optional<MatMulBiasMatch> matchMatMulBias(Operation *addOp) {
  auto add = dyn_cast_or_null<onnx::AddOp>(addOp);
  if (!add)
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    auto mm = add->getOperand(i).getDefiningOp<onnx::MatMulOp>();
    Value bias = add->getOperand(1 - i);
    if (mm && mm.getY().hasOneUse() && bias != mm.getY() &&
        add.getC().getType() == mm.getY().getType() &&
        broadcastsOnto(bias, mm.getY()))
      return MatMulBiasMatch{mm, add, bias};
  }
  return std::nullopt;
}

std::string describeMatch(ArrayRef<Operation *> ops) {
  std::string s;
  for (Operation *op : ops)
    s += (s.empty() ? "" : " + ") + nodeLabel(op);
  return s;
}

std::vector<std::vector<Operation *>>
singleUseGroups(ArrayRef<Operation *> ops,
                llvm::function_ref<bool(Operation *)> eligible,
                llvm::function_ref<bool(Operation *, Operation *)> joinable) {
  llvm::EquivalenceClasses<Operation *> classes;
  for (Operation *op : ops) {
    if (!eligible(op))
      continue;
    classes.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && operand.hasOneUse() && def->getBlock() == op->getBlock() &&
          eligible(def) && (!joinable || joinable(def, op)))
        classes.unionSets(def, op);
  }
  llvm::DenseMap<Operation *, size_t> groupOf;
  std::vector<std::vector<Operation *>> groups;
  for (Operation *op : ops) {
    if (!classes.contains(op))
      continue;
    auto [it, fresh] =
        groupOf.try_emplace(classes.getLeaderValue(op), groups.size());
    if (fresh)
      groups.emplace_back();
    groups[it->second].push_back(op);
  }
  return groups;
}

std::string nodeLabel(Operation *op) {
  llvm::StringRef name = onnx::getNodeName(op);
  if (!name.empty())
    return name.str();
  if (op->getNumResults())
    if (llvm::StringRef t = onnx::getTensorName(op->getResult(0)); !t.empty())
      return t.str();
  return op->getName().getStringRef().str();
}

} // namespace amk
