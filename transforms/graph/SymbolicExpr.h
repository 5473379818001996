//===- SymbolicExpr.h - Integer expressions over dimension names -*- C++
//-*-===//
//
// Part of AMK. amk-infer-shapes reasons about dynamic dimensions with these:
// a dimension is a polynomial with integer coefficients over symbols (the
// model's dim_param names, or an anonymous symbol per unnamed input
// dimension). Polynomials are closed under the +, -, * that shape
// arithmetic uses, so `batch * 197 / 197` is `batch` again and a Reshape's
// -1 is solved exactly. A floor division that does not come out exact
// becomes an opaque symbol named after its canonical operands, so the same
// division reached twice (a Conv's output size and the Div an exporter
// emits for it) is the same symbol.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_TRANSFORMS_GRAPH_SYMBOLICEXPR_H
#define AMK_TRANSFORMS_GRAPH_SYMBOLICEXPR_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace amk::sym {

class Expr {
public:
  static Expr constant(int64_t value);
  static Expr symbol(llvm::StringRef name);

  /// The value when the expression has no symbols.
  std::optional<int64_t> getConstant() const;
  /// The symbol's name when the expression is exactly one symbol.
  std::optional<std::string> getSymbol() const;
  /// Whether every symbol is a model's dimension name (none anonymous).
  bool isNamed() const;
  /// A canonical text: equal expressions print the same.
  std::string str() const;

  bool operator==(const Expr &o) const { return terms == o.terms; }
  bool operator!=(const Expr &o) const { return terms != o.terms; }

  /// Arithmetic; nullopt when a coefficient overflows.
  friend std::optional<Expr> add(const Expr &a, const Expr &b);
  friend std::optional<Expr> sub(const Expr &a, const Expr &b);
  friend std::optional<Expr> mul(const Expr &a, const Expr &b);
  /// floor(a / b) for the non-negative values shapes hold: exact when b
  /// divides a term by term, an opaque symbol otherwise; nullopt when b is
  /// zero or a constant <= 0 (nothing a shape divides by).
  friend std::optional<Expr> floorDiv(const Expr &a, const Expr &b);
  /// a / b when b provably divides a (term by term), else nullopt.
  friend std::optional<Expr> exactDiv(const Expr &a, const Expr &b);

  /// Anonymous symbols start with this character, which no name printed
  /// into a model's dim_params may carry.
  static constexpr char kAnonymous = '?';

private:
  using Monomial = std::vector<std::string>; // sorted symbol names
  std::map<Monomial, int64_t> terms;         // no zero coefficients
};

/// A dimension: an expression, or nothing known.
using Dim = std::optional<Expr>;

Dim operator+(const Dim &a, const Dim &b);
Dim operator-(const Dim &a, const Dim &b);
Dim operator*(const Dim &a, const Dim &b);
Dim floorDiv(const Dim &a, const Dim &b);
inline Dim cst(int64_t v) { return Expr::constant(v); }
/// The static size a dimension has, or ShapedType::kDynamic.
int64_t staticSize(const Dim &d);
/// Whether both are known and equal.
bool same(const Dim &a, const Dim &b);

} // namespace amk::sym

#endif // AMK_TRANSFORMS_GRAPH_SYMBOLICEXPR_H
