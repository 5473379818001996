//===- ConvTranspose.cpp - Transposed convolution -------------------------===//
//
// Part of AMK. CONV_TRANSPOSE (kernel_params.h): each output element
// gathers the inputs that a direct convolution's scatter would add into
// it, so tiles over output planes write disjoint memory and need no
// atomics. The input coordinates per output coordinate and tap are
// precomputed per tile, one table per spatial dim.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <string>
#include <vector>

namespace amk::rt {

namespace {

struct CtDim {
  int64_t in, out, k, stride, pad, dil;
};

} // namespace

template <>
bool KernelImpl<AMK_RT_K_CONV_TRANSPOSE>::run(const KernelCall &call,
                                              const int64_t *tile,
                                              std::string &) {
  const int64_t *ip = call.ip;
  int64_t C = ip[AMK_CT_C], OC = ip[AMK_CT_OC], G = ip[AMK_CT_GROUP];
  CtDim d[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t *p = ip + AMK_CT_DIMS + 6 * i;
    d[i] = {p[0], p[1], p[2], p[3], p[4], p[5]};
  }
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *W = static_cast<const float *>(call.buffers[1]);
  float *Y = static_cast<float *>(call.buffers[2]);
  const float *B = static_cast<const float *>(call.buffers[3]);
  int64_t Cg = C / G, OCg = OC / G;
  int64_t inPlane = d[0].in * d[1].in * d[2].in;
  int64_t outPlane = d[0].out * d[1].out * d[2].out;
  int64_t kPlane = d[0].k * d[1].k * d[2].k;
  // Per dim and (output coordinate, tap): the input coordinate, or -1.
  std::vector<int64_t> src[3];
  for (int i = 0; i < 3; ++i) {
    src[i].assign(d[i].out * d[i].k, -1);
    for (int64_t o = 0; o < d[i].out; ++o)
      for (int64_t k = 0; k < d[i].k; ++k) {
        int64_t num = o + d[i].pad - k * d[i].dil;
        if (num < 0 || num % d[i].stride)
          continue;
        int64_t in = num / d[i].stride;
        if (in < d[i].in)
          src[i][o * d[i].k + k] = in;
      }
  }
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t n = r / OC, oc = r % OC, g = oc / OCg, ocl = oc % OCg;
    float *y = Y + r * outPlane;
    float bias = B ? B[oc] : 0.f;
    for (int64_t o = 0; o < outPlane; ++o)
      y[o] = bias;
    for (int64_t ic = g * Cg; ic < (g + 1) * Cg; ++ic) {
      const float *x = X + (n * C + ic) * inPlane;
      const float *w = W + (ic * OCg + ocl) * kPlane;
      for (int64_t o0 = 0; o0 < d[0].out; ++o0)
        for (int64_t k0 = 0; k0 < d[0].k; ++k0) {
          int64_t i0 = src[0][o0 * d[0].k + k0];
          if (i0 < 0)
            continue;
          for (int64_t o1 = 0; o1 < d[1].out; ++o1)
            for (int64_t k1 = 0; k1 < d[1].k; ++k1) {
              int64_t i1 = src[1][o1 * d[1].k + k1];
              if (i1 < 0)
                continue;
              const float *xr = x + (i0 * d[1].in + i1) * d[2].in;
              const float *wr = w + (k0 * d[1].k + k1) * d[2].k;
              float *yr = y + (o0 * d[1].out + o1) * d[2].out;
              const int64_t *s2 = src[2].data();
              for (int64_t o2 = 0; o2 < d[2].out; ++o2) {
                float acc = 0;
                for (int64_t k2 = 0; k2 < d[2].k; ++k2) {
                  int64_t i2 = s2[o2 * d[2].k + k2];
                  if (i2 >= 0)
                    acc += xr[i2] * wr[k2];
                }
                yr[o2] += acc;
              }
            }
        }
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_CONV_TRANSPOSE>::check(const amk_rt_kernel &k,
                                                const int64_t *ip,
                                                const float *,
                                                std::string &error) {
  if (!hasParams(k, AMK_CT_NUM_IPARAMS, 0, error))
    return false;
  int64_t C = ip[AMK_CT_C], OC = ip[AMK_CT_OC], G = ip[AMK_CT_GROUP];
  bool ok = k.num_buffers == 4 && G >= 1 && C % G == 0 && OC % G == 0;
  for (int i = 0; i < 3 && ok; ++i) {
    const int64_t *p = ip + AMK_CT_DIMS + 6 * i;
    ok = p[0] >= 1 && p[1] >= 1 && p[2] >= 1 && p[3] >= 1 && p[5] >= 1;
  }
  if (!ok)
    error = "bad transposed convolution parameters (4 buffers, channels "
            "divisible by the group, positive sizes, strides, dilations)";
  return ok;
}

} // namespace amk::rt
