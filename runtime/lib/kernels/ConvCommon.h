//===- ConvCommon.h - Shared by convolution and pooling ---------*- C++ -*-===//
//
// Part of AMK. The spatial parameters of CONV, DWCONV and POOL, the buffers
// and epilogue of the convolutions, and the CONV variant that has a file of
// its own.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_CONVCOMMON_H
#define AMK_RUNTIME_KERNELS_CONVCOMMON_H

#include "runtime/lib/Kernels.h"

#include "amk/kernel_params.h"

#include <cstdint>

namespace amk::rt {

/// The spatial iparams (AMK_SP_*) of CONV, DWCONV and POOL.
struct Spatial {
  int64_t n, c, h, w, oc, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, group, mode;
  explicit Spatial(const int64_t *ip)
      : n(ip[AMK_SP_N]), c(ip[AMK_SP_C]), h(ip[AMK_SP_H]), w(ip[AMK_SP_W]),
        oc(ip[AMK_SP_OC]), kh(ip[AMK_SP_KH]), kw(ip[AMK_SP_KW]),
        oh(ip[AMK_SP_OH]), ow(ip[AMK_SP_OW]), sh(ip[AMK_SP_SH]),
        sw(ip[AMK_SP_SW]), ph(ip[AMK_SP_PH]), pw(ip[AMK_SP_PW]),
        dh(ip[AMK_SP_DH]), dw(ip[AMK_SP_DW]), group(ip[AMK_SP_GROUP]),
        mode(ip[AMK_SP_MODE]) {}
};

/// The buffers of DWCONV and CONV: X, W, Y, bias, residual (null where
/// absent).
struct ConvBuffers {
  const float *X, *W;
  float *Y;
  const float *bias, *res;
  static ConvBuffers of(const KernelCall &call) {
    return {static_cast<const float *>(call.buffers[0]),
            static_cast<const float *>(call.buffers[1]),
            static_cast<float *>(call.buffers[2]),
            static_cast<const float *>(call.buffers[3]),
            static_cast<const float *>(call.buffers[4])};
  }
};

/// Adds the bias of `channel` and the residual to P outputs, then applies
/// the activation.
inline void convEpilogue(float *y, int64_t P, int64_t channel,
                         const float *bias, const float *res, int act,
                         const float *fp) {
  if (bias) {
    float b = bias[channel];
    for (int64_t i = 0; i < P; ++i)
      y[i] += b;
  }
  if (res)
    for (int64_t i = 0; i < P; ++i)
      y[i] += res[i];
  applyActivation(y, P, act, fp[0], fp[1]);
}

/// CONV variant 2, the direct convolution on packed weights
/// (DirectConv.cpp).
void directConvTile(const KernelCall &call, const int64_t *tile);

/// CONV variant 3, Winograd F(m x m, 3 x 3) (WinogradConv.cpp).
void winogradConvTile(const KernelCall &call, const int64_t *tile);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_CONVCOMMON_H
