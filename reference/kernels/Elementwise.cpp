//===- Elementwise.cpp - Unary, binary and variadic elementwise ops -------===//
//
// Part of AMK. Arithmetic on float16/bfloat16 is done in float and rounded
// once per result, as ONNX Runtime does.
//
//===----------------------------------------------------------------------===//

#include "reference/KernelUtils.h"

using namespace mlir;

namespace amk::ref {
namespace {

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

/// Applies `f` (on the compute type) to every element of input 0; the
/// result has the input's type.
template <unsigned Set, typename F>
LogicalResult unary(KernelContext &ctx, F f) {
  const Tensor &x = ctx.in(0);
  Tensor y(x.dtype(), x.shape());
  bool ok = dispatch<Set>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = x.data<T>();
    T *out = y.data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      out[i] = T(f(static_cast<CT<T>>(in[i])));
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(x.dtype()));
  ctx.set(0, y);
  return success();
}

/// Float-only unary math, computed in double for double and in float
/// otherwise.
#define AMK_FLOAT_UNARY(NAME, EXPR)                                            \
  LogicalResult NAME(KernelContext &ctx) {                                     \
    return unary<kFloats>(ctx, [&](auto x) {                                   \
      using C = decltype(x);                                                   \
      (void)sizeof(C);                                                         \
      return static_cast<C>(EXPR);                                             \
    });                                                                        \
  }

AMK_FLOAT_UNARY(acosK, std::acos(x))
AMK_FLOAT_UNARY(acoshK, std::acosh(x))
AMK_FLOAT_UNARY(asinK, std::asin(x))
AMK_FLOAT_UNARY(asinhK, std::asinh(x))
AMK_FLOAT_UNARY(atanK, std::atan(x))
AMK_FLOAT_UNARY(atanhK, std::atanh(x))
AMK_FLOAT_UNARY(cosK, std::cos(x))
AMK_FLOAT_UNARY(coshK, std::cosh(x))
AMK_FLOAT_UNARY(sinK, std::sin(x))
AMK_FLOAT_UNARY(sinhK, std::sinh(x))
AMK_FLOAT_UNARY(tanK, std::tan(x))
AMK_FLOAT_UNARY(tanhK, std::tanh(x))
AMK_FLOAT_UNARY(erfK, std::erf(x))
AMK_FLOAT_UNARY(expK, std::exp(x))
AMK_FLOAT_UNARY(logK, std::log(x))
AMK_FLOAT_UNARY(sqrtK, std::sqrt(x))
AMK_FLOAT_UNARY(ceilK, std::ceil(x))
AMK_FLOAT_UNARY(floorK, std::floor(x))
AMK_FLOAT_UNARY(roundK, std::nearbyint(x))
AMK_FLOAT_UNARY(reciprocalK, C(1) / x)
AMK_FLOAT_UNARY(sigmoidK,
                x >= 0 ? C(1) / (C(1) + std::exp(-x))
                       : std::exp(x) / (C(1) + std::exp(x)))
AMK_FLOAT_UNARY(softplusK,
                x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)))
AMK_FLOAT_UNARY(softsignK, x / (C(1) + std::abs(x)))
AMK_FLOAT_UNARY(hardSwishK,
                x *std::max(C(0), std::min(C(1), x / C(6) + C(0.5))))
AMK_FLOAT_UNARY(mishK,
                x *std::tanh(x > 0 ? x + std::log1p(std::exp(-x))
                                   : std::log1p(std::exp(x))))
#undef AMK_FLOAT_UNARY

LogicalResult absK(KernelContext &ctx) {
  return unary<kNumeric>(ctx, [](auto x) {
    using C = decltype(x);
    if constexpr (std::is_unsigned_v<C>)
      return x;
    else
      return x < 0 ? C(-x) : x;
  });
}

LogicalResult negK(KernelContext &ctx) {
  return unary<kFloats | kSigned>(ctx, [](auto x) { return decltype(x)(-x); });
}

LogicalResult signK(KernelContext &ctx) {
  return unary<kNumeric>(ctx, [](auto x) {
    using C = decltype(x);
    if (std::isnan(static_cast<double>(x)))
      return x;
    return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
  });
}

LogicalResult reluK(KernelContext &ctx) {
  return unary<kFloats | kSigned>(ctx, [](auto x) {
    using C = decltype(x);
    return x > C(0) ? x : C(0);
  });
}

LogicalResult leakyReluK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 0.01f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return x >= C(0) ? x : C(alpha) * x;
  });
}

LogicalResult eluK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 1.0f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return x >= C(0) ? x : C(alpha) * (std::exp(x) - C(1));
  });
}

LogicalResult celuK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 1.0f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return std::max(C(0), x) +
           std::min(C(0), C(alpha) * (std::exp(x / C(alpha)) - C(1)));
  });
}

LogicalResult seluK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 1.67326319217681884765625f);
  float gamma = ctx.getFloat("gamma", 1.05070102214813232421875f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return x > C(0) ? C(gamma) * x
                    : C(gamma) * (C(alpha) * std::exp(x) - C(alpha));
  });
}

LogicalResult thresholdedReluK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 1.0f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return x > C(alpha) ? x : C(0);
  });
}

LogicalResult hardSigmoidK(KernelContext &ctx) {
  float alpha = ctx.getFloat("alpha", 0.2f);
  float beta = ctx.getFloat("beta", 0.5f);
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    return std::max(C(0), std::min(C(1), C(alpha) * x + C(beta)));
  });
}

LogicalResult shrinkK(KernelContext &ctx) {
  double bias = ctx.getFloat("bias", 0.0f);
  double lambd = ctx.getFloat("lambd", 0.5f);
  return unary<kNumeric>(ctx, [&](auto x) {
    using C = decltype(x);
    double v = static_cast<double>(x);
    return C(v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0));
  });
}

LogicalResult geluK(KernelContext &ctx) {
  std::string approx = ctx.getString("approximate", "none");
  if (approx != "none" && approx != "tanh")
    return ctx.error("approximate must be 'none' or 'tanh', got '" + approx +
                     "'");
  bool useTanh = approx == "tanh";
  return unary<kFloats>(ctx, [&](auto x) {
    using C = decltype(x);
    if (useTanh)
      return C(0.5) * x *
             (C(1) + std::tanh(C(0.7978845608028654) *
                               (x + C(0.044715) * x * x * x)));
    return C(0.5) * x * (C(1) + std::erf(x * C(0.7071067811865476)));
  });
}

LogicalResult notK(KernelContext &ctx) {
  return unary<kBool>(ctx, [](bool x) { return !x; });
}

LogicalResult bitwiseNotK(KernelContext &ctx) {
  return unary<kSigned | kUnsigned>(ctx, [](auto x) { return decltype(x)(~x); });
}

LogicalResult identityK(KernelContext &ctx) {
  ctx.set(0, ctx.value(0));
  return success();
}

/// Predicates with a bool result.
template <typename F> LogicalResult predicate(KernelContext &ctx, F f) {
  const Tensor &x = ctx.in(0);
  Tensor y(DataType::BOOL, x.shape());
  bool ok = dispatch<kFloats>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      y.data<uint8_t>()[i] = f(static_cast<double>(CT<T>(x.data<T>()[i])));
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(x.dtype()));
  ctx.set(0, y);
  return success();
}

LogicalResult isNaNK(KernelContext &ctx) {
  return predicate(ctx, [](double x) { return std::isnan(x); });
}

LogicalResult isInfK(KernelContext &ctx) {
  bool neg = ctx.getInt("detect_negative", 1) != 0;
  bool pos = ctx.getInt("detect_positive", 1) != 0;
  return predicate(ctx, [&](double x) {
    return std::isinf(x) && ((x > 0 && pos) || (x < 0 && neg));
  });
}

LogicalResult clipK(KernelContext &ctx) {
  const Tensor &x = ctx.in(0);
  // Clip-6 has min/max attributes; from Clip-11 they are optional inputs.
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  if (ctx.version() < 11) {
    lo = ctx.getFloat("min", std::numeric_limits<float>::lowest());
    hi = ctx.getFloat("max", std::numeric_limits<float>::max());
  } else {
    if (ctx.has(1))
      lo = ctx.in(1).getDouble(0);
    if (ctx.has(2))
      hi = ctx.in(2).getDouble(0);
  }
  Tensor y(x.dtype(), x.shape());
  bool ok = dispatch<kNumeric>(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CT<T>;
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      C v = static_cast<C>(x.data<T>()[i]);
      if (static_cast<double>(v) < lo)
        v = static_cast<C>(lo);
      if (static_cast<double>(v) > hi)
        v = static_cast<C>(hi);
      y.data<T>()[i] = T(v);
    }
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(x.dtype()));
  ctx.set(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Binary and variadic with broadcasting
//===----------------------------------------------------------------------===//

/// out[i] = f(a[i], b[i]) with broadcasting; the output element type is
/// `outType` (the input type when UNDEFINED).
template <unsigned Set, typename F>
LogicalResult binary(KernelContext &ctx, F f,
                     DataType outType = DataType::UNDEFINED) {
  const Tensor &a = ctx.in(0), &b = ctx.in(1);
  if (a.dtype() != b.dtype())
    return ctx.error("operand types differ: " + typeName(a.dtype()) +
                     " and " + typeName(b.dtype()));
  auto shape = broadcastShapes({Shape(a.shape()), Shape(b.shape())});
  if (!shape)
    return ctx.error("shapes " + shapeToString(a.shape()) + " and " +
                     shapeToString(b.shape()) + " do not broadcast");
  if (outType == DataType::UNDEFINED)
    outType = a.dtype();
  Tensor y(outType, *shape);
  std::array<Shape, 2> strides = {broadcastStrides(a.shape(), *shape),
                                  broadcastStrides(b.shape(), *shape)};
  bool ok = dispatch<Set>(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *pa = a.data<T>();
    const T *pb = b.data<T>();
    auto store = [&](int64_t i, auto r) {
      if (outType == DataType::BOOL)
        y.data<uint8_t>()[i] = static_cast<bool>(r);
      else
        y.data<T>()[i] = T(static_cast<CT<T>>(r));
    };
    forEachBroadcast<2>(*shape, strides, [&](int64_t i, const auto &off) {
      store(i, f(static_cast<CT<T>>(pa[off[0]]),
                 static_cast<CT<T>>(pb[off[1]])));
    });
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(a.dtype()));
  ctx.set(0, y);
  return success();
}

LogicalResult addK(KernelContext &ctx) {
  return binary<kNumeric>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a + b);
  });
}
LogicalResult subK(KernelContext &ctx) {
  return binary<kNumeric>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a - b);
  });
}
LogicalResult mulK(KernelContext &ctx) {
  return binary<kNumeric>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a * b);
  });
}
LogicalResult divK(KernelContext &ctx) {
  return binary<kNumeric>(ctx, [&](auto a, auto b) {
    using C = decltype(a);
    if constexpr (std::is_integral_v<C>) {
      if (b == 0)
        return C(0); // Undefined in ONNX; avoid the trap.
      if constexpr (std::is_signed_v<C>)
        if (b == C(-1))
          return static_cast<C>(-a);
    }
    return static_cast<C>(a / b);
  });
}

LogicalResult powK(KernelContext &ctx) {
  // The exponent may have another type than the base (Pow-12+).
  const Tensor &a = ctx.in(0);
  Tensor b = convertTensor(ctx.in(1), DataType::DOUBLE);
  auto shape = broadcastShapes({Shape(a.shape()), Shape(b.shape())});
  if (!shape)
    return ctx.error("shapes do not broadcast");
  Tensor y(a.dtype(), *shape);
  std::array<Shape, 2> strides = {broadcastStrides(a.shape(), *shape),
                                  broadcastStrides(b.shape(), *shape)};
  bool ok = dispatch<kNumeric>(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    forEachBroadcast<2>(*shape, strides, [&](int64_t i, const auto &off) {
      double base = static_cast<double>(CT<T>(a.data<T>()[off[0]]));
      double e = b.data<double>()[off[1]];
      if constexpr (std::is_same_v<T, float>)
        y.data<T>()[i] = std::pow(static_cast<float>(base),
                                  static_cast<float>(e));
      else
        y.data<T>()[i] = T(static_cast<CT<T>>(std::pow(base, e)));
    });
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(a.dtype()));
  ctx.set(0, y);
  return success();
}

LogicalResult modK(KernelContext &ctx) {
  bool fmod = ctx.getInt("fmod", 0) != 0;
  bool isFloat = dispatch<kFloats>(ctx.in(0).dtype(), [](auto) {});
  if (!fmod && isFloat)
    return ctx.error("fmod must be 1 for floating-point inputs");
  return binary<kNumeric>(ctx, [&](auto a, auto b) {
    using C = decltype(a);
    if constexpr (std::is_floating_point_v<C>) {
      return static_cast<C>(std::fmod(a, b));
    } else {
      if (b == 0)
        return C(0);
      C r = static_cast<C>(a % b);
      if constexpr (std::is_signed_v<C>)
        if (!fmod && r != 0 && ((r < 0) != (b < 0)))
          r = static_cast<C>(r + b); // Python's sign-of-divisor modulo.
      return r;
    }
  });
}

template <unsigned Set, typename F>
LogicalResult compare(KernelContext &ctx, F f) {
  return binary<Set>(
      ctx, [&](auto a, auto b) { return f(a, b); }, DataType::BOOL);
}

LogicalResult equalK(KernelContext &ctx) {
  if (ctx.in(0).isString()) {
    const Tensor &a = ctx.in(0), &b = ctx.in(1);
    auto shape = broadcastShapes({Shape(a.shape()), Shape(b.shape())});
    if (!shape)
      return ctx.error("shapes do not broadcast");
    Tensor y(DataType::BOOL, *shape);
    std::array<Shape, 2> strides = {broadcastStrides(a.shape(), *shape),
                                    broadcastStrides(b.shape(), *shape)};
    forEachBroadcast<2>(*shape, strides, [&](int64_t i, const auto &off) {
      y.data<uint8_t>()[i] = a.strings()[off[0]] == b.strings()[off[1]];
    });
    ctx.set(0, y);
    return success();
  }
  return compare<kAll>(ctx, [](auto a, auto b) { return a == b; });
}
LogicalResult lessK(KernelContext &ctx) {
  return compare<kNumeric>(ctx, [](auto a, auto b) { return a < b; });
}
LogicalResult lessEqK(KernelContext &ctx) {
  return compare<kNumeric>(ctx, [](auto a, auto b) { return a <= b; });
}
LogicalResult greaterK(KernelContext &ctx) {
  return compare<kNumeric>(ctx, [](auto a, auto b) { return a > b; });
}
LogicalResult greaterEqK(KernelContext &ctx) {
  return compare<kNumeric>(ctx, [](auto a, auto b) { return a >= b; });
}
LogicalResult andK(KernelContext &ctx) {
  return binary<kBool>(ctx, [](bool a, bool b) { return a && b; });
}
LogicalResult orK(KernelContext &ctx) {
  return binary<kBool>(ctx, [](bool a, bool b) { return a || b; });
}
LogicalResult xorK(KernelContext &ctx) {
  return binary<kBool>(ctx, [](bool a, bool b) { return a != b; });
}
LogicalResult bitwiseAndK(KernelContext &ctx) {
  return binary<kSigned | kUnsigned>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a & b);
  });
}
LogicalResult bitwiseOrK(KernelContext &ctx) {
  return binary<kSigned | kUnsigned>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a | b);
  });
}
LogicalResult bitwiseXorK(KernelContext &ctx) {
  return binary<kSigned | kUnsigned>(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a ^ b);
  });
}
LogicalResult bitShiftK(KernelContext &ctx) {
  std::string dir = ctx.getString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return ctx.error("direction must be LEFT or RIGHT, got '" + dir + "'");
  bool left = dir == "LEFT";
  return binary<kUnsigned>(ctx, [&](auto a, auto b) {
    using C = decltype(a);
    if (b >= C(sizeof(C) * 8))
      return C(0);
    return static_cast<C>(left ? a << b : a >> b);
  });
}
LogicalResult preluK(KernelContext &ctx) {
  return binary<kFloats | kSigned>(ctx, [](auto x, auto slope) {
    using C = decltype(x);
    return x < C(0) ? static_cast<C>(slope * x) : x;
  });
}

/// Max, Min, Sum, Mean over any number of broadcast inputs.
template <typename F>
LogicalResult variadic(KernelContext &ctx, F combine, bool mean = false) {
  if (ctx.numInputs() == 0)
    return ctx.error("needs at least one input");
  std::vector<Shape> shapes;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    shapes.push_back(Shape(ctx.in(i).shape()));
  auto shape = broadcastShapes(shapes);
  if (!shape)
    return ctx.error("input shapes do not broadcast");
  DataType dt = ctx.in(0).dtype();
  Tensor acc(dt, *shape);
  bool ok = dispatch<kNumeric>(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = CT<T>;
    std::vector<C> vals(numElements(*shape));
    for (unsigned k = 0; k < ctx.numInputs(); ++k) {
      const Tensor &t = ctx.in(k);
      std::array<Shape, 1> strides = {broadcastStrides(t.shape(), *shape)};
      forEachBroadcast<1>(*shape, strides, [&](int64_t i, const auto &off) {
        C v = static_cast<C>(t.data<T>()[off[0]]);
        vals[i] = k == 0 ? v : combine(vals[i], v);
      });
    }
    for (size_t i = 0; i < vals.size(); ++i)
      acc.data<T>()[i] = T(mean ? static_cast<C>(
                                      vals[i] / static_cast<C>(ctx.numInputs()))
                                : vals[i]);
  });
  if (!ok)
    return ctx.unsupported("element type " + typeName(dt));
  ctx.set(0, acc);
  return success();
}

LogicalResult maxK(KernelContext &ctx) {
  return variadic(ctx, [](auto a, auto b) {
    if constexpr (std::is_floating_point_v<decltype(a)>)
      if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<decltype(a)>::quiet_NaN();
    return a > b ? a : b;
  });
}
LogicalResult minK(KernelContext &ctx) {
  return variadic(ctx, [](auto a, auto b) {
    if constexpr (std::is_floating_point_v<decltype(a)>)
      if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<decltype(a)>::quiet_NaN();
    return a < b ? a : b;
  });
}
LogicalResult sumK(KernelContext &ctx) {
  return variadic(ctx, [](auto a, auto b) {
    return static_cast<decltype(a)>(a + b);
  });
}
LogicalResult meanK(KernelContext &ctx) {
  return variadic(
      ctx, [](auto a, auto b) { return static_cast<decltype(a)>(a + b); },
      /*mean=*/true);
}

LogicalResult whereK(KernelContext &ctx) {
  const Tensor &c = ctx.in(0), &x = ctx.in(1), &y = ctx.in(2);
  auto shape = broadcastShapes(
      {Shape(c.shape()), Shape(x.shape()), Shape(y.shape())});
  if (!shape)
    return ctx.error("shapes do not broadcast");
  Tensor out(x.dtype(), *shape);
  std::array<Shape, 3> strides = {broadcastStrides(c.shape(), *shape),
                                  broadcastStrides(x.shape(), *shape),
                                  broadcastStrides(y.shape(), *shape)};
  if (x.isString()) {
    forEachBroadcast<3>(*shape, strides, [&](int64_t i, const auto &off) {
      out.strings()[i] = c.data<uint8_t>()[off[0]] ? x.strings()[off[1]]
                                                   : y.strings()[off[2]];
    });
  } else {
    size_t es = elementSize(x.dtype());
    forEachBroadcast<3>(*shape, strides, [&](int64_t i, const auto &off) {
      const char *src = c.data<uint8_t>()[off[0]] ? x.raw() + off[1] * es
                                                  : y.raw() + off[2] * es;
      std::memcpy(out.raw() + i * es, src, es);
    });
  }
  ctx.set(0, out);
  return success();
}

} // namespace

void registerElementwiseKernels(KernelRegistry &r) {
  r.add("Abs", absK);
  r.add("Acos", acosK);
  r.add("Acosh", acoshK);
  r.add("Asin", asinK);
  r.add("Asinh", asinhK);
  r.add("Atan", atanK);
  r.add("Atanh", atanhK);
  r.add("Ceil", ceilK);
  r.add("Celu", celuK);
  r.add("Clip", clipK);
  r.add("Cos", cosK);
  r.add("Cosh", coshK);
  r.add("Elu", eluK);
  r.add("Erf", erfK);
  r.add("Exp", expK);
  r.add("Floor", floorK);
  r.add("Gelu", geluK);
  r.add("HardSigmoid", hardSigmoidK);
  r.add("HardSwish", hardSwishK);
  r.add("Identity", identityK);
  r.add("IsInf", isInfK);
  r.add("IsNaN", isNaNK);
  r.add("LeakyRelu", leakyReluK);
  r.add("Log", logK);
  r.add("Mish", mishK);
  r.add("Neg", negK);
  r.add("Not", notK);
  r.add("BitwiseNot", bitwiseNotK);
  r.add("Reciprocal", reciprocalK);
  r.add("Relu", reluK);
  r.add("Round", roundK);
  r.add("Selu", seluK);
  r.add("Shrink", shrinkK);
  r.add("Sigmoid", sigmoidK);
  r.add("Sign", signK);
  r.add("Sin", sinK);
  r.add("Sinh", sinhK);
  r.add("Softplus", softplusK);
  r.add("Softsign", softsignK);
  r.add("Sqrt", sqrtK);
  r.add("Tan", tanK);
  r.add("Tanh", tanhK);
  r.add("ThresholdedRelu", thresholdedReluK);
  r.add("Add", addK);
  r.add("Sub", subK);
  r.add("Mul", mulK);
  r.add("Div", divK);
  r.add("Pow", powK);
  r.add("Mod", modK);
  r.add("Equal", equalK);
  r.add("Less", lessK);
  r.add("LessOrEqual", lessEqK);
  r.add("Greater", greaterK);
  r.add("GreaterOrEqual", greaterEqK);
  r.add("And", andK);
  r.add("Or", orK);
  r.add("Xor", xorK);
  r.add("BitwiseAnd", bitwiseAndK);
  r.add("BitwiseOr", bitwiseOrK);
  r.add("BitwiseXor", bitwiseXorK);
  r.add("BitShift", bitShiftK);
  r.add("PRelu", preluK);
  r.add("Max", maxK);
  r.add("Min", minK);
  r.add("Sum", sumK);
  r.add("Mean", meanK);
  r.add("Where", whereK);
}

} // namespace amk::ref
