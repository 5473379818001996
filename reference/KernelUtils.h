//===- KernelUtils.h - Helpers for reference kernels ------------*- C++ -*-===//
//
// Part of AMK. Element-type dispatch, numpy broadcasting, axis handling and
// other pieces every kernel file needs. Kernels favour clarity and exact
// ONNX semantics over speed, except MatMul/Gemm/Conv, which must make
// ViT-B/16 run in under a minute.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_REFERENCE_KERNELUTILS_H
#define AMK_REFERENCE_KERNELUTILS_H

#include "reference/Interpreter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace amk::ref {

/// Storage types for the 16-bit floats; arithmetic goes through float.
struct Half {
  uint16_t bits;
  Half() = default;
  Half(float f) : bits(floatToHalf(f)) {}
  operator float() const { return halfToFloat(bits); }
};
struct BFloat {
  uint16_t bits;
  BFloat() = default;
  BFloat(float f) : bits(floatToBf16(f)) {}
  operator float() const { return bf16ToFloat(bits); }
};
/// bool is stored as one byte.
struct Bool {
  uint8_t v;
  Bool() = default;
  Bool(bool b) : v(b) {}
  operator bool() const { return v != 0; }
};

/// The type arithmetic on T is done in.
template <typename T> struct Compute {
  using type = T;
};
template <> struct Compute<Half> {
  using type = float;
};
template <> struct Compute<BFloat> {
  using type = float;
};
template <> struct Compute<Bool> {
  using type = bool;
};
template <typename T> using CT = typename Compute<T>::type;

template <typename T>
constexpr bool isFloatLike = std::is_floating_point_v<T> ||
                             std::is_same_v<T, Half> ||
                             std::is_same_v<T, BFloat>;

template <typename T> struct Tag {
  using type = T;
};

enum TypeSet : unsigned {
  kFloats = 1,   // float, double, float16, bfloat16
  kSigned = 2,   // int8..int64
  kUnsigned = 4, // uint8..uint64
  kBool = 8,
  kNumeric = kFloats | kSigned | kUnsigned,
  kAll = kNumeric | kBool,
};

/// Calls fn(Tag<T>{}) for the storage type T of `dt` if `dt` is in `Set`;
/// returns false otherwise. Types outside `Set` are not instantiated.
template <unsigned Set, typename Fn> bool dispatch(DataType dt, Fn &&fn) {
  switch (dt) {
  case DataType::FLOAT:
    if constexpr ((Set & kFloats) != 0) {
      fn(Tag<float>{});
      return true;
    }
    break;
  case DataType::DOUBLE:
    if constexpr ((Set & kFloats) != 0) {
      fn(Tag<double>{});
      return true;
    }
    break;
  case DataType::FLOAT16:
    if constexpr ((Set & kFloats) != 0) {
      fn(Tag<Half>{});
      return true;
    }
    break;
  case DataType::BFLOAT16:
    if constexpr ((Set & kFloats) != 0) {
      fn(Tag<BFloat>{});
      return true;
    }
    break;
  case DataType::INT8:
    if constexpr ((Set & kSigned) != 0) {
      fn(Tag<int8_t>{});
      return true;
    }
    break;
  case DataType::INT16:
    if constexpr ((Set & kSigned) != 0) {
      fn(Tag<int16_t>{});
      return true;
    }
    break;
  case DataType::INT32:
    if constexpr ((Set & kSigned) != 0) {
      fn(Tag<int32_t>{});
      return true;
    }
    break;
  case DataType::INT64:
    if constexpr ((Set & kSigned) != 0) {
      fn(Tag<int64_t>{});
      return true;
    }
    break;
  case DataType::UINT8:
    if constexpr ((Set & kUnsigned) != 0) {
      fn(Tag<uint8_t>{});
      return true;
    }
    break;
  case DataType::UINT16:
    if constexpr ((Set & kUnsigned) != 0) {
      fn(Tag<uint16_t>{});
      return true;
    }
    break;
  case DataType::UINT32:
    if constexpr ((Set & kUnsigned) != 0) {
      fn(Tag<uint32_t>{});
      return true;
    }
    break;
  case DataType::UINT64:
    if constexpr ((Set & kUnsigned) != 0) {
      fn(Tag<uint64_t>{});
      return true;
    }
    break;
  case DataType::BOOL:
    if constexpr ((Set & kBool) != 0) {
      fn(Tag<Bool>{});
      return true;
    }
    break;
  default:
    break;
  }
  return false;
}

/// "float", "int64"... for messages.
inline std::string typeName(DataType dt) {
  return onnx::getDataTypeName(dt).str();
}

/// Normalizes `axis` in [-rank, rank) (or [-rank, rank] when inclusive);
/// nullopt when out of range.
inline std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                            bool inclusive = false) {
  int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Numpy broadcasting of several shapes; nullopt if incompatible.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<Shape> shapes);

/// Strides of `in` (right-aligned) inside `out`, 0 on broadcast dims.
Shape broadcastStrides(llvm::ArrayRef<int64_t> in,
                       llvm::ArrayRef<int64_t> out);

/// Visits every element of `out`, passing the flat output index and the
/// flat offset into each input (inputs given by their broadcast strides).
template <size_t N, typename Fn>
void forEachBroadcast(llvm::ArrayRef<int64_t> out,
                      const std::array<Shape, N> &strides, Fn &&fn) {
  int64_t total = numElements(out);
  if (total == 0)
    return;
  size_t rank = out.size();
  std::array<int64_t, N> off{};
  Shape idx(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    fn(i, off);
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) {
        for (size_t k = 0; k < N; ++k)
          off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        off[k] -= strides[k][d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
}

/// Reads an optional int64 input as a vector (axes, shapes, pads...).
inline std::vector<int64_t> intsInput(KernelContext &ctx, unsigned i) {
  return ctx.has(i) ? ctx.in(i).toInt64Vector() : std::vector<int64_t>{};
}

/// Reads a scalar (or 1-element) input as double.
inline double scalarInput(KernelContext &ctx, unsigned i, double dflt) {
  if (!ctx.has(i) || ctx.in(i).numel() == 0)
    return dflt;
  return ctx.in(i).getDouble(0);
}

/// Results whose size comes from values (Range's limits, a computed shape,
/// repeats, pads, a depth) are refused beyond this many elements: a wrong
/// value must stop the run with an error naming the node, not exhaust
/// memory.
constexpr int64_t kMaxComputedElements = int64_t(1) << 30;
/// Fails naming the node when `shape` has a negative dimension or more
/// than kMaxComputedElements elements (overflow included).
mlir::LogicalResult checkComputedSize(KernelContext &ctx,
                                      llvm::ArrayRef<int64_t> shape);

/// Copies `t` into a tensor of type `dt` with value conversion (Cast
/// semantics for numeric types).
Tensor convertTensor(const Tensor &t, DataType dt);

/// Rounding as ONNX's Round and QuantizeLinear require: to nearest, ties
/// to even.
inline double roundHalfEven(double x) { return std::nearbyint(x); }

/// Copies element `si` of `src` to element `di` of `dst` (same type).
inline void copyElement(const Tensor &src, int64_t si, Tensor &dst,
                        int64_t di) {
  if (src.isString()) {
    dst.strings()[di] = src.strings()[si];
    return;
  }
  size_t es = elementSize(src.dtype());
  std::memcpy(dst.raw() + di * es, src.raw() + si * es, es);
}

/// Copies `count` consecutive elements.
inline void copyElements(const Tensor &src, int64_t si, Tensor &dst,
                         int64_t di, int64_t count) {
  if (src.isString()) {
    for (int64_t k = 0; k < count; ++k)
      dst.strings()[di + k] = src.strings()[si + k];
    return;
  }
  size_t es = elementSize(src.dtype());
  std::memcpy(dst.raw() + di * es, src.raw() + si * es, count * es);
}

/// C = alpha * op(A) * op(B) + beta * C for row-major float matrices
/// (op: optional transpose; lda/ldb/ldc are row strides). Blocked and
/// vectorized: the interpreter's only fast kernel, used by MatMul, Gemm and
/// Conv (through im2col) so large models run in reasonable time.
void gemmF32(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
             float alpha, const float *A, int64_t lda, const float *B,
             int64_t ldb, float beta, float *C, int64_t ldc);

/// Mean and 1/sqrt(variance + eps) of the `n` elements of `x` from
/// `base`, in double precision (InstanceNorm, LayerNorm, GroupNorm). Not
/// `centered` (RMSNorm): mean 0 and 1/sqrt(mean(x^2) + eps).
std::pair<double, double> meanInvStd(const Tensor &x, int64_t base, int64_t n,
                                     double eps, bool centered = true);

/// Concatenates tensors of equal rank along `axis` (already normalized);
/// returns an error message in `err` when their shapes disagree.
std::optional<Tensor> concatTensors(llvm::ArrayRef<Tensor> parts,
                                    int64_t axis, std::string &err);

/// `x` with its axes permuted (Transpose semantics).
Tensor permuteTensor(const Tensor &x, llvm::ArrayRef<int64_t> perm);

/// The random ops' generator: SplitMix64 seeded by the `seed` attribute
/// (0 when absent), deterministic across runs and machines so a model's
/// results can be reproduced; draw j is a pure function of j, which lets
/// the runtime's RANDOM kernel compute any tile's draws directly. They
/// cannot equal another implementation's draws, so ONNX's test data for
/// these ops is not expected to match.
class Rng {
public:
  explicit Rng(double seed) : state(static_cast<uint64_t>(seed) + 1) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {
    double u1 = std::max(uniform(), 1e-300), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

private:
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t state;
};

/// Registers a kernel under several op types.
inline void addAll(KernelRegistry &r, std::initializer_list<const char *> ops,
                   Kernel k) {
  for (const char *op : ops)
    r.add(op, k);
}

} // namespace amk::ref

#endif // AMK_REFERENCE_KERNELUTILS_H
