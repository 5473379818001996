//===- TypedElementwise.cpp - Elementwise ops and reductions, any type ----===//
//
// Part of AMK. TYPED_ELEMENTWISE: comparisons, logic, integer arithmetic,
// Cast and the float ops on float16/bfloat16/float64 values. A tile is cut
// into chunks of 256 elements; each input is converted to the compute type
// (double, int64 or uint64) a chunk at a time, the op runs over the chunk
// in a loop the compiler vectorizes, and the result is converted to Y's
// type. Integer ops wrap and never trap: x / 0 and x % 0 give 0. REDUCE
// (reductions of types other than float32) shares the conversions.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/Dtypes.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Reduction.h"
#include "runtime/lib/kernels/Scalar.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace amk::rt {

namespace {

constexpr int64_t kChunk = 256;
constexpr int kMaxRank = 8;

bool isUnary(int64_t op) {
  return isUnaryScalarOp(op) || (op >= AMK_OP_NOT && op <= AMK_OP_ISINF);
}
bool isBinary(int64_t op) {
  return (op >= AMK_OP_ADD && op <= AMK_OP_PRELU) ||
         (op >= AMK_OP_MOD && op <= AMK_OP_SHIFT_RIGHT);
}
bool isIntegerOnly(int64_t op) {
  return op == AMK_OP_BITWISE_NOT ||
         (op >= AMK_OP_BITWISE_AND && op <= AMK_OP_SHIFT_RIGHT);
}

/// The parsed iparams.
struct TypedParams {
  int64_t op, compute, ydtype, rank, nin;
  const int64_t *dims;
  const int64_t *dtype[AMK_TEW_MAX_INPUTS];
  const int64_t *strides[AMK_TEW_MAX_INPUTS];

  bool parse(const int64_t *ip, int64_t nip, std::string &error) {
    if (nip < AMK_TEW_DIMS)
      return error = "truncated parameters", false;
    op = ip[AMK_TEW_OP], compute = ip[AMK_TEW_COMPUTE];
    ydtype = ip[AMK_TEW_Y_DTYPE], rank = ip[AMK_TEW_RANK];
    nin = ip[AMK_TEW_NIN];
    if (rank < 0 || rank > kMaxRank)
      return error = "bad rank", false;
    if (nin < 1 || nin > AMK_TEW_MAX_INPUTS)
      return error = "bad input count", false;
    if (nip != AMK_TEW_DIMS + rank + nin * (1 + rank))
      return error = "parameter count does not match rank and inputs", false;
    dims = ip + AMK_TEW_DIMS;
    const int64_t *p = dims + rank;
    for (int64_t i = 0; i < nin; ++i) {
      dtype[i] = p;
      strides[i] = p + 1;
      p += 1 + rank;
    }
    return true;
  }
};

/// n elements of `dtype` from element `off` of `src`, `stride` apart,
/// converted to C: the type switch outside the loop, so a stride-1 run
/// vectorizes.
template <typename C>
void loadRun(const void *src, int64_t dtype, int64_t off, int64_t stride,
             int64_t n, C *dst) {
  auto run = [&](const auto *p) {
    p += off;
    if (stride == 1)
      for (int64_t e = 0; e < n; ++e)
        dst[e] = (C)p[e];
    else
      for (int64_t e = 0; e < n; ++e)
        dst[e] = (C)p[e * stride];
  };
  switch (dtype) {
  case AMK_RT_F32:
    return run(static_cast<const float *>(src));
  case AMK_RT_F64:
    return run(static_cast<const double *>(src));
  case AMK_RT_I64:
    return run(static_cast<const int64_t *>(src));
  case AMK_RT_I32:
    return run(static_cast<const int32_t *>(src));
  case AMK_RT_U8:
    return run(static_cast<const uint8_t *>(src));
  case AMK_RT_I8:
    return run(static_cast<const int8_t *>(src));
  default:
    for (int64_t e = 0; e < n; ++e)
      dst[e] = loadAs<C>(src, dtype, off + e * stride);
    return;
  }
}

/// Reads `n` elements of input `i` from flat output index `start`, in runs
/// along the last axis.
template <typename C>
void loadInput(const TypedParams &tp, int64_t i, const void *src,
               int64_t start, int64_t n, C *dst) {
  int64_t dtype = *tp.dtype[i];
  const int64_t *st = tp.strides[i];
  if (tp.rank == 0)
    return loadRun<C>(src, dtype, 0, 0, n, dst);
  int64_t last = tp.dims[tp.rank - 1], ls = st[tp.rank - 1];
  for (int64_t done = 0; done < n;) {
    int64_t flat = start + done, j = flat % last, off = j * ls;
    flat /= last;
    for (int64_t d = tp.rank - 2; d >= 0; --d) {
      off += (flat % tp.dims[d]) * st[d];
      flat /= tp.dims[d];
    }
    int64_t m = std::min(n - done, last - j);
    loadRun<C>(src, dtype, off, ls, m, dst + done);
    done += m;
  }
}

template <typename C, typename F>
void map2(C *d, const C *a, const C *b, int64_t n, F f) {
  for (int64_t e = 0; e < n; ++e)
    d[e] = f(a[e], b[e]);
}

template <typename C> C modOf(C a, C b, bool fmod) {
  if constexpr (std::is_floating_point_v<C>) {
    C r = std::fmod(a, b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  } else {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<C>) {
      if (b == -1)
        return 0; // INT64_MIN % -1 traps
    }
    C r = a % b;
    if constexpr (std::is_signed_v<C>) {
      if (!fmod && r != 0 && ((r < 0) != (b < 0)))
        r += b;
    }
    return r;
  }
}

template <typename C> void binary(int64_t op, C *d, const C *a, const C *b,
                                  int64_t n) {
  using U = std::make_unsigned_t<
      std::conditional_t<std::is_floating_point_v<C>, int64_t, C>>;
  constexpr bool fp = std::is_floating_point_v<C>;
  switch (op) {
  case AMK_OP_ADD:
    if constexpr (fp)
      return map2(d, a, b, n, [](C x, C y) { return x + y; });
    else // wrap, as two's complement hardware does
      return map2(d, a, b, n, [](C x, C y) { return (C)((U)x + (U)y); });
  case AMK_OP_SUB:
    if constexpr (fp)
      return map2(d, a, b, n, [](C x, C y) { return x - y; });
    else
      return map2(d, a, b, n, [](C x, C y) { return (C)((U)x - (U)y); });
  case AMK_OP_MUL:
    if constexpr (fp)
      return map2(d, a, b, n, [](C x, C y) { return x * y; });
    else
      return map2(d, a, b, n, [](C x, C y) { return (C)((U)x * (U)y); });
  case AMK_OP_DIV:
    if constexpr (fp)
      return map2(d, a, b, n, [](C x, C y) { return x / y; });
    else
      return map2(d, a, b, n, [](C x, C y) {
        if (y == 0)
          return C(0);
        if constexpr (std::is_signed_v<C>) {
          if (y == -1)
            return (C)(U(0) - (U)x);
        }
        return (C)(x / y);
      });
  case AMK_OP_POW:
    return map2(d, a, b, n,
                [](C x, C y) { return (C)std::pow((double)x, (double)y); });
  case AMK_OP_MAX:
    return map2(d, a, b, n, [](C x, C y) {
      if constexpr (fp)
        if (std::isnan(x) || std::isnan(y))
          return (C)NAN;
      return std::max(x, y);
    });
  case AMK_OP_MIN:
    return map2(d, a, b, n, [](C x, C y) {
      if constexpr (fp)
        if (std::isnan(x) || std::isnan(y))
          return (C)NAN;
      return std::min(x, y);
    });
  case AMK_OP_PRELU:
    return map2(d, a, b, n, [](C x, C y) { return x < 0 ? x * y : x; });
  case AMK_OP_MOD:
    return map2(d, a, b, n, [](C x, C y) { return modOf(x, y, false); });
  case AMK_OP_FMOD:
    return map2(d, a, b, n, [](C x, C y) { return modOf(x, y, true); });
  case AMK_OP_EQUAL:
    return map2(d, a, b, n, [](C x, C y) { return C(x == y); });
  case AMK_OP_LESS:
    return map2(d, a, b, n, [](C x, C y) { return C(x < y); });
  case AMK_OP_LESS_EQUAL:
    return map2(d, a, b, n, [](C x, C y) { return C(x <= y); });
  case AMK_OP_GREATER:
    return map2(d, a, b, n, [](C x, C y) { return C(x > y); });
  case AMK_OP_GREATER_EQUAL:
    return map2(d, a, b, n, [](C x, C y) { return C(x >= y); });
  case AMK_OP_AND:
    return map2(d, a, b, n, [](C x, C y) { return C(x != 0 && y != 0); });
  case AMK_OP_OR:
    return map2(d, a, b, n, [](C x, C y) { return C(x != 0 || y != 0); });
  case AMK_OP_XOR:
    return map2(d, a, b, n, [](C x, C y) { return C((x != 0) != (y != 0)); });
  }
  if constexpr (!fp) {
    switch (op) {
    case AMK_OP_BITWISE_AND:
      return map2(d, a, b, n, [](C x, C y) { return C(x & y); });
    case AMK_OP_BITWISE_OR:
      return map2(d, a, b, n, [](C x, C y) { return C(x | y); });
    case AMK_OP_BITWISE_XOR:
      return map2(d, a, b, n, [](C x, C y) { return C(x ^ y); });
    case AMK_OP_SHIFT_LEFT:
      return map2(d, a, b, n, [](C x, C y) {
        return (U)y >= 64 ? C(0) : (C)((U)x << (U)y);
      });
    case AMK_OP_SHIFT_RIGHT:
      return map2(d, a, b, n, [](C x, C y) {
        return (U)y >= 64 ? C(0) : (C)((U)x >> (U)y);
      });
    }
  }
}

template <typename C>
void unary(int64_t op, C *d, const C *a, int64_t n, double alpha,
           double beta) {
  constexpr bool fp = std::is_floating_point_v<C>;
  switch (op) {
  case AMK_OP_NOT:
    for (int64_t e = 0; e < n; ++e)
      d[e] = a[e] == 0;
    return;
  case AMK_OP_BITWISE_NOT:
    if constexpr (!fp)
      for (int64_t e = 0; e < n; ++e)
        d[e] = ~a[e];
    return;
  case AMK_OP_ISNAN:
    for (int64_t e = 0; e < n; ++e)
      d[e] = std::isnan((double)a[e]);
    return;
  case AMK_OP_ISINF:
    for (int64_t e = 0; e < n; ++e) {
      double v = (double)a[e];
      d[e] = std::isinf(v) && ((v > 0 && alpha != 0) || (v < 0 && beta != 0));
    }
    return;
  }
  if constexpr (fp) {
    for (int64_t e = 0; e < n; ++e)
      d[e] = unaryScalar<C>(op, a[e], (C)alpha, (C)beta);
  } else {
    // Integer forms of the float ops ONNX defines on integers.
    switch (op) {
    case AMK_OP_NEG:
      for (int64_t e = 0; e < n; ++e)
        d[e] = (C)(0 - (std::make_unsigned_t<C>)a[e]);
      return;
    case AMK_OP_ABS:
      for (int64_t e = 0; e < n; ++e)
        d[e] = a[e] < 0 ? (C)(0 - (std::make_unsigned_t<C>)a[e]) : a[e];
      return;
    case AMK_OP_SIGN:
      for (int64_t e = 0; e < n; ++e)
        d[e] = a[e] > 0 ? 1 : a[e] < 0 ? (C)-1 : 0;
      return;
    case AMK_OP_RELU:
      for (int64_t e = 0; e < n; ++e)
        d[e] = a[e] > 0 ? a[e] : 0;
      return;
    default:
      for (int64_t e = 0; e < n; ++e)
        d[e] = a[e];
      return;
    }
  }
}

/// A double result bound for an integer of type `dtype` that does not fit
/// becomes what x86's conversion gives (the "integer indefinite" value of
/// the 32- or 64-bit conversion C++ compilers use), which is what ONNX
/// Runtime's integer Pow returns on x86; values that fit are unchanged.
double x86Overflow(double v, int64_t dtype) {
  switch (dtype) {
  case AMK_RT_I8:
  case AMK_RT_I16:
  case AMK_RT_I32:
  case AMK_RT_U8:
  case AMK_RT_U16:
    return v >= -2147483648.0 && v < 2147483648.0 ? v : -2147483648.0;
  case AMK_RT_I64:
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0
               ? v
               : -9223372036854775808.0;
  case AMK_RT_U32:
    return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? v : 0;
  default:
    return v;
  }
}

template <typename C>
void runTyped(const TypedParams &tp, const KernelCall &call,
              const int64_t *tile) {
  C regs[AMK_TEW_MAX_INPUTS + 1][kChunk];
  double alpha = call.fp[0], beta = call.fp[1];
  for (int64_t start = tile[0]; start < tile[1]; start += kChunk) {
    int64_t n = std::min(kChunk, tile[1] - start);
    for (int64_t i = 0; i < tp.nin; ++i)
      loadInput<C>(tp, i, call.buffers[1 + i], start, n, regs[i]);
    C *out = regs[AMK_TEW_MAX_INPUTS];
    if (tp.op == AMK_OP_CLAMP) {
      int64_t k = 1;
      const C *lo = alpha != 0 ? regs[k++] : nullptr;
      const C *hi = beta != 0 ? regs[k++] : nullptr;
      for (int64_t e = 0; e < n; ++e) {
        C v = regs[0][e];
        if (lo && v < lo[e])
          v = lo[e];
        if (hi && v > hi[e])
          v = hi[e];
        out[e] = v;
      }
    } else if (!std::is_floating_point_v<C> &&
               (tp.op == AMK_OP_POW || tp.op == AMK_OP_SHRINK)) {
      // Integer Pow and Shrink compute in double and convert the result
      // as C++ does (toward zero), as the ONNX reference and ONNX Runtime
      // do; the float parameters of Shrink are not rounded first.
      double r[kChunk];
      for (int64_t e = 0; e < n; ++e) {
        double x = (double)regs[0][e];
        if (tp.op == AMK_OP_POW)
          r[e] = x86Overflow(std::pow(x, (double)regs[1][e]), tp.ydtype);
        else
          r[e] = x < -beta ? x + alpha : x > beta ? x - alpha : 0.0;
      }
      storeChunk<double>(call.buffers[0], tp.ydtype, start, r, n);
      continue;
    } else if (isUnary(tp.op)) {
      unary<C>(tp.op, out, regs[0], n, alpha, beta);
    } else {
      binary<C>(tp.op, out, regs[0], regs[1], n);
      for (int64_t i = 2; i < tp.nin; ++i)
        binary<C>(tp.op, out, out, regs[i], n);
    }
    storeChunk<C>(call.buffers[0], tp.ydtype, start, out, n);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_REDUCE>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  const int64_t *ip = call.ip;
  int64_t R = ip[AMK_REDUCE_R], inner = ip[AMK_REDUCE_INNER],
          mode = ip[AMK_REDUCE_MODE], dtype = ip[AMK_REDUCE_DTYPE];
  const void *X = call.buffers[0];
  void *Y = call.buffers[1];
  for (int64_t o = tile[0]; o < tile[1]; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t r) {
        return loadAs<double>(X, dtype, (o * R + r) * inner + j);
      };
      double acc = reduceValues(mode, [&](auto f) {
        for (int64_t r = 0; r < R; ++r)
          f(at(r));
      });
      storeChunk<double>(Y, dtype, o * inner + j, &acc, 1);
    }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_REDUCE>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_REDUCE_NUM_IPARAMS, 0, error))
    return false;
  int64_t mode = ip[AMK_REDUCE_MODE];
  if (k.num_buffers != 2 || !knownDtype(ip[AMK_REDUCE_DTYPE]) || mode < 0 ||
      mode == 1 || mode > AMK_POOL_PROD || ip[AMK_REDUCE_R] < 0) {
    error = "bad reduce parameters (2 buffers, a known dtype, mode 0 or "
            "2-10)";
    return false;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_TYPED_ELEMENTWISE>::run(const KernelCall &call,
                                                 const int64_t *tile,
                                                 std::string &error) {
  // Integer/bool ops and float comparisons compiled by the LLVM lowering.
  if (amk_rt_elementwise_fn fn = call.kernel->elementwise_fn) {
    fn(static_cast<float *>(call.buffers[0]), call.buffers + 1, tile[0],
       tile[1]);
    return true;
  }
  TypedParams tp;
  if (!tp.parse(call.ip, call.kernel->num_iparams, error))
    return false;
  switch (tp.compute) {
  case AMK_TEW_F64:
    runTyped<double>(tp, call, tile);
    break;
  case AMK_TEW_I64:
    runTyped<int64_t>(tp, call, tile);
    break;
  default:
    runTyped<uint64_t>(tp, call, tile);
    break;
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_TYPED_ELEMENTWISE>::check(const amk_rt_kernel &k,
                                                   const int64_t *ip,
                                                   const float *,
                                                   std::string &error) {
  TypedParams tp;
  if (!hasParams(k, AMK_TEW_DIMS, 2, error))
    return false;
  if (!tp.parse(ip, k.num_iparams, error)) {
    error = "bad typed elementwise parameters: " + error;
    return false;
  }
  if (tp.compute < AMK_TEW_F64 || tp.compute > AMK_TEW_U64) {
    error = "compute type " + std::to_string(tp.compute) + " is unknown";
    return false;
  }
  bool known = isUnary(tp.op) || isBinary(tp.op) || tp.op == AMK_OP_CLAMP;
  if (!known || (isIntegerOnly(tp.op) && tp.compute == AMK_TEW_F64)) {
    error = "op " + std::to_string(tp.op) + " is not a typed elementwise op" +
            (known ? " on double values" : "");
    return false;
  }
  if ((isUnary(tp.op) && tp.nin != 1) || (isBinary(tp.op) && tp.nin < 2)) {
    error = "op " + std::to_string(tp.op) + " cannot take " +
            std::to_string(tp.nin) + " inputs";
    return false;
  }
  if (!knownDtype(tp.ydtype)) {
    error = "unknown result dtype " + std::to_string(tp.ydtype);
    return false;
  }
  for (int64_t i = 0; i < tp.nin; ++i)
    if (!knownDtype(*tp.dtype[i])) {
      error = "input " + std::to_string(i) + " has unknown dtype " +
              std::to_string(*tp.dtype[i]);
      return false;
    }
  if (k.num_buffers != (uint32_t)tp.nin + 1) {
    error = "expects " + std::to_string(tp.nin + 1) + " buffers";
    return false;
  }
  return true;
}

} // namespace amk::rt
