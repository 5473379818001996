//===- Compare.cpp - Comparing interpreter values -------------------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/Compare.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace amk::ref {

static bool isFloatType(DataType dt) {
  switch (dt) {
  case DataType::FLOAT:
  case DataType::DOUBLE:
  case DataType::FLOAT16:
  case DataType::BFLOAT16:
  case DataType::FLOAT8E4M3FN:
  case DataType::FLOAT8E4M3FNUZ:
  case DataType::FLOAT8E5M2:
  case DataType::FLOAT8E5M2FNUZ:
    return true;
  default:
    return false;
  }
}

/// Enough digits to tell any two floats apart.
static std::string num(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

static std::string typeNameOf(const Tensor &t) {
  return onnx::getDataTypeName(t.dtype()).str();
}

static Comparison compareTensors(const Tensor &e, const Tensor &a,
                                 const Tolerance &tol) {
  Comparison c;
  if (e.dtype() != a.dtype()) {
    c.ok = false;
    c.message = "type " + typeNameOf(a) + " where " + typeNameOf(e) +
                " is expected";
    return c;
  }
  if (e.shape() != a.shape()) {
    c.ok = false;
    c.message = "shape " + shapeToString(a.shape()) + " where " +
                shapeToString(e.shape()) + " is expected";
    return c;
  }
  int64_t n = e.numel();
  if (e.isString()) {
    for (int64_t i = 0; i < n; ++i)
      if (e.strings()[i] != a.strings()[i]) {
        c.ok = false;
        c.worstIndex = i;
        c.message = llvm::formatv("element {0}: \"{1}\" where \"{2}\" is "
                                  "expected",
                                  i, a.strings()[i], e.strings()[i]);
        return c;
      }
    return c;
  }
  bool fp = isFloatType(e.dtype());
  double dot = 0, ne = 0, na = 0;
  double worstExcess = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    if (!fp) {
      bool u64 = e.dtype() == DataType::UINT64;
      if (!u64 && tol.intSteps > 0 && e.getInt(i) != a.getInt(i) &&
          std::abs(e.getInt(i) - a.getInt(i)) <= tol.intSteps) {
        ++c.stepsOff;
        continue;
      }
      if (e.getInt(i) != a.getInt(i) ||
          (u64 && e.data<uint64_t>()[i] != a.data<uint64_t>()[i])) {
        c.ok = false;
        c.worstIndex = i;
        c.worstExpected = static_cast<double>(e.getInt(i));
        c.worstActual = static_cast<double>(a.getInt(i));
        c.message = llvm::formatv("element {0}: {1} where {2} is expected", i,
                                  a.getInt(i), e.getInt(i));
        return c;
      }
      continue;
    }
    double ev = e.getDouble(i), av = a.getDouble(i);
    bool bothNaN = std::isnan(ev) && std::isnan(av);
    if (bothNaN)
      continue;
    double err = (std::isinf(ev) && ev == av) ? 0 : std::abs(av - ev);
    if (std::isnan(err))
      err = std::numeric_limits<double>::infinity();
    double rel = ev != 0 ? err / std::abs(ev) : (err == 0 ? 0 : err);
    c.maxAbsError = std::max(c.maxAbsError, err);
    c.maxRelError = std::max(c.maxRelError, rel);
    double excess = err - (tol.atol + tol.rtol * std::abs(ev));
    if (excess > worstExcess) {
      worstExcess = excess;
      c.worstIndex = i;
      c.worstExpected = ev;
      c.worstActual = av;
    }
    if (std::isfinite(ev) && std::isfinite(av)) {
      dot += ev * av;
      ne += ev * ev;
      na += av * av;
    }
  }
  if (fp) {
    c.cosine = (ne == 0 && na == 0) ? 1 : dot / (std::sqrt(ne * na) + 1e-300);
    if (worstExcess > 0) {
      c.ok = false;
      c.message = llvm::formatv("element {0}: {1} where {2} is expected "
                                "(abs error {3:e}, rtol {4:e}, atol {5:e})",
                                c.worstIndex, num(c.worstActual),
                                num(c.worstExpected),
                                std::abs(c.worstActual - c.worstExpected),
                                tol.rtol, tol.atol);
    }
  }
  return c;
}

Tolerance scaledTolerance(const RValue &expected, double rtol) {
  double scale = 0;
  if (expected.isTensor() && !expected.getTensor().isString()) {
    const Tensor &e = expected.getTensor();
    for (int64_t k = 0; k < e.numel(); ++k)
      if (std::isfinite(e.getDouble(k)))
        scale = std::max(scale, std::abs(e.getDouble(k)));
  }
  return Tolerance{rtol, rtol * scale};
}

Comparison compareValues(const RValue &expected, const RValue &actual,
                         const Tolerance &tol) {
  Comparison c;
  if (expected.getKind() != actual.getKind()) {
    c.ok = false;
    c.message = actual.describe() + " where " + expected.describe() +
                " is expected";
    return c;
  }
  if (expected.isTensor())
    return compareTensors(expected.getTensor(), actual.getTensor(), tol);
  if (expected.isSequence()) {
    const auto &es = expected.getSequence(), &as = actual.getSequence();
    if (es.size() != as.size()) {
      c.ok = false;
      c.message = llvm::formatv("sequence of {0} where {1} are expected",
                                as.size(), es.size());
      return c;
    }
    for (size_t i = 0; i < es.size(); ++i) {
      Comparison item = compareValues(es[i], as[i], tol);
      if (!item.ok) {
        item.message = "item " + std::to_string(i) + ": " + item.message;
        return item;
      }
      c.maxAbsError = std::max(c.maxAbsError, item.maxAbsError);
      c.maxRelError = std::max(c.maxRelError, item.maxRelError);
    }
  }
  return c;
}

RValue toRValue(const ValueFile &file, mlir::Type expected) {
  switch (file.kind) {
  case ValueFile::Kind::Tensor: {
    auto t = Tensor::fromAttr(file.tensor);
    if (!t) {
      llvm::consumeError(t.takeError());
      return RValue::none();
    }
    auto tt = mlir::dyn_cast_or_null<mlir::TensorType>(expected);
    if (tt && tt.getElementType().isBF16() &&
        t->dtype() == DataType::UINT16)
      return RValue(t->bitcast(DataType::BFLOAT16));
    return RValue(std::move(*t));
  }
  case ValueFile::Kind::Sequence: {
    std::vector<RValue> items;
    for (const ValueFile &item : file.items)
      items.push_back(toRValue(item));
    return RValue::sequence(std::move(items));
  }
  case ValueFile::Kind::None:
    break;
  }
  return RValue::none();
}

} // namespace amk::ref
