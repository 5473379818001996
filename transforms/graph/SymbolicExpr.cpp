//===- SymbolicExpr.cpp - Integer expressions over dimension names --------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "transforms/graph/SymbolicExpr.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"

#include <algorithm>

using namespace amk::sym;

Expr Expr::constant(int64_t value) {
  Expr e;
  if (value)
    e.terms[{}] = value;
  return e;
}

Expr Expr::symbol(llvm::StringRef name) {
  Expr e;
  e.terms[{name.str()}] = 1;
  return e;
}

std::optional<int64_t> Expr::getConstant() const {
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.begin()->first.empty())
    return terms.begin()->second;
  return std::nullopt;
}

std::optional<std::string> Expr::getSymbol() const {
  if (terms.size() == 1 && terms.begin()->first.size() == 1 &&
      terms.begin()->second == 1)
    return terms.begin()->first.front();
  return std::nullopt;
}

bool Expr::isNamed() const {
  for (const auto &[m, c] : terms)
    for (const std::string &s : m)
      if (s.find(kAnonymous) != std::string::npos)
        return false;
  return true;
}

std::string Expr::str() const {
  if (terms.empty())
    return "0";
  std::string out;
  // The constant term (the empty monomial sorts first) goes last, as
  // people write it: batch*seq+1.
  auto emit = [&](const Monomial &m, int64_t c) {
    if (!out.empty())
      out += c < 0 ? "-" : "+";
    else if (c < 0)
      out += "-";
    int64_t mag = c < 0 ? -c : c;
    if (m.empty() || mag != 1)
      out += std::to_string(mag) + (m.empty() ? "" : "*");
    for (size_t i = 0; i < m.size(); ++i)
      out += (i ? "*" : "") + m[i];
  };
  for (const auto &[m, c] : terms)
    if (!m.empty())
      emit(m, c);
  if (auto it = terms.find({}); it != terms.end())
    emit(it->first, it->second);
  return out;
}

namespace amk::sym {

std::optional<Expr> add(const Expr &a, const Expr &b) {
  Expr r = a;
  for (const auto &[m, c] : b.terms) {
    int64_t sum;
    if (__builtin_add_overflow(r.terms[m], c, &sum))
      return std::nullopt;
    if (sum)
      r.terms[m] = sum;
    else
      r.terms.erase(m);
  }
  return r;
}

std::optional<Expr> sub(const Expr &a, const Expr &b) {
  Expr neg;
  for (const auto &[m, c] : b.terms) {
    if (c == INT64_MIN)
      return std::nullopt;
    neg.terms[m] = -c;
  }
  return add(a, neg);
}

std::optional<Expr> mul(const Expr &a, const Expr &b) {
  Expr r;
  for (const auto &[ma, ca] : a.terms)
    for (const auto &[mb, cb] : b.terms) {
      Expr::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t prod;
      if (__builtin_mul_overflow(ca, cb, &prod))
        return std::nullopt;
      Expr t;
      t.terms[m] = prod;
      auto s = add(r, t);
      if (!s)
        return std::nullopt;
      r = *s;
    }
  return r;
}

std::optional<Expr> exactDiv(const Expr &a, const Expr &b) {
  std::optional<int64_t> bc = b.getConstant();
  if (bc && *bc <= 0)
    return std::nullopt;
  if (std::optional<int64_t> ac = a.getConstant(); ac && bc)
    return *ac % *bc ? std::nullopt
                     : std::optional<Expr>(Expr::constant(*ac / *bc));
  if (a.terms.empty())
    return a;
  // Every term of `a` holds the divisor's symbols and a multiple of its
  // coefficient.
  if (b.terms.size() != 1 || b.terms.begin()->second <= 0)
    return std::nullopt;
  const auto &[mb, cb] = *b.terms.begin();
  Expr r;
  for (const auto &[ma, ca] : a.terms) {
    if (ca % cb)
      return std::nullopt;
    Expr::Monomial rest = ma;
    for (const std::string &s : mb) {
      auto it = std::find(rest.begin(), rest.end(), s);
      if (it == rest.end())
        return std::nullopt;
      rest.erase(it);
    }
    r.terms[rest] = ca / cb;
  }
  return r;
}

std::optional<Expr> floorDiv(const Expr &a, const Expr &b) {
  std::optional<int64_t> bc = b.getConstant();
  if (bc && *bc <= 0)
    return std::nullopt;
  if (std::optional<int64_t> ac = a.getConstant(); ac && bc)
    return Expr::constant(*ac / *bc); // ONNX integer Div truncates.
  if (std::optional<Expr> q = exactDiv(a, b))
    return q;
  return Expr::symbol("floor((" + a.str() + ")/(" + b.str() + "))");
}

Dim operator+(const Dim &a, const Dim &b) {
  return a && b ? add(*a, *b) : std::nullopt;
}
Dim operator-(const Dim &a, const Dim &b) {
  return a && b ? sub(*a, *b) : std::nullopt;
}
Dim operator*(const Dim &a, const Dim &b) {
  return a && b ? mul(*a, *b) : std::nullopt;
}
Dim floorDiv(const Dim &a, const Dim &b) {
  return a && b ? floorDiv(*a, *b) : std::nullopt;
}

int64_t staticSize(const Dim &d) {
  if (d)
    if (std::optional<int64_t> c = d->getConstant(); c && *c >= 0)
      return *c;
  return mlir::ShapedType::kDynamic;
}

bool same(const Dim &a, const Dim &b) { return a && b && *a == *b; }

} // namespace amk::sym
