//===- Rope.cpp - Rotary position embedding -------------------------------===//
//
// Part of AMK. ROPE (kernel_params.h): amk.rope over rows of D floats, one
// task instead of the Slice, Neg, Concat and multiply-add tasks an
// exporter's rotate_half is made of (a decoder step runs it on every
// layer's queries and keys).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <string>

namespace amk::rt {

namespace {

/// Y = X C + rotate_half(X) S for one row: both halves are unit-stride
/// loops the compiler vectorizes.
void rotateHalf(const float *x, const float *c, const float *s, float *y,
                int64_t d) {
  int64_t h = d / 2;
  for (int64_t j = 0; j < h; ++j)
    y[j] = x[j] * c[j] - x[j + h] * s[j];
  for (int64_t j = 0; j < h; ++j)
    y[j + h] = x[j + h] * c[j + h] + x[j] * s[j + h];
}

void rotatePairs(const float *x, const float *c, const float *s, float *y,
                 int64_t d) {
  for (int64_t j = 0; j < d / 2; ++j) {
    float x0 = x[2 * j], x1 = x[2 * j + 1];
    y[2 * j] = x0 * c[j] - x1 * s[j];
    y[2 * j + 1] = x0 * s[j] + x1 * c[j];
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_ROPE>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &) {
  const int64_t *ip = call.ip;
  int64_t d = ip[AMK_ROPE_D], rank = ip[AMK_ROPE_RANK];
  bool interleaved = ip[AMK_ROPE_INTERLEAVED] != 0;
  const int64_t *dims = ip + AMK_ROPE_DIMS;
  const int64_t *cs = dims + rank, *ss = cs + rank;
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *C = static_cast<const float *>(call.buffers[1]);
  const float *S = static_cast<const float *>(call.buffers[2]);
  float *Y = static_cast<float *>(call.buffers[3]);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t co = 0, so = 0;
    for (int64_t a = rank - 1, rest = r; a >= 0; --a) {
      int64_t k = rest % dims[a];
      rest /= dims[a];
      co += k * cs[a], so += k * ss[a];
    }
    if (interleaved)
      rotatePairs(X + r * d, C + co, S + so, Y + r * d, d);
    else
      rotateHalf(X + r * d, C + co, S + so, Y + r * d, d);
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_ROPE>::check(const amk_rt_kernel &k, const int64_t *ip,
                                      const float *, std::string &error) {
  if (!hasParams(k, AMK_ROPE_DIMS, 0, error))
    return false;
  int64_t d = ip[AMK_ROPE_D], rank = ip[AMK_ROPE_RANK];
  std::string name = k.name ? k.name : "";
  if (d < 2 || d % 2 ||
      (ip[AMK_ROPE_INTERLEAVED] != 0 && ip[AMK_ROPE_INTERLEAVED] != 1) ||
      rank < 0 || rank > AMK_ROPE_MAX_RANK ||
      k.num_iparams < AMK_ROPE_DIMS + 3 * (uint64_t)rank ||
      k.num_buffers != 4) {
    error = "kernel '" + name +
            "': a rope needs an even row length, interleaved 0 or 1, rank <= " +
            std::to_string(AMK_ROPE_MAX_RANK) +
            ", its dims and two stride lists, and four buffers";
    return false;
  }
  for (int64_t a = 0; a < rank; ++a)
    if (ip[AMK_ROPE_DIMS + a] < 1 || ip[AMK_ROPE_DIMS + rank + a] < 0 ||
        ip[AMK_ROPE_DIMS + 2 * rank + a] < 0) {
      error = "kernel '" + name +
              "': a rope's dims must be positive and its strides not negative";
      return false;
    }
  return true;
}

} // namespace amk::rt
