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

#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
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

/// AMK_CONV_LAYOUT of a DWCONV or CONV call: 0 (NCHW) where the kernel has
/// no such iparam.
inline int64_t convLayout(const KernelCall &call) {
  return call.kernel && call.kernel->num_iparams > AMK_CONV_LAYOUT
             ? call.ip[AMK_CONV_LAYOUT]
             : 0;
}

/// The activation on the first n lanes of v (fp: alpha, beta). The ones
/// convolutions carry run inline, by the same vector code and in the same
/// order as applyActivation, so the values are the same; the rest go
/// through applyActivation. Through applyActivation, SiLU on the direct
/// kernel's 14-lane rows cost EfficientNet-B0's stem 1.6 ms against 0.2
/// for its arithmetic (docs/runtime.md).
inline V16 activate(V16 v, int64_t n, int act, const float *fp) {
  switch (act) {
  case AMK_OP_NONE:
    return v;
  case AMK_OP_RELU:
    return v > 0 ? v : 0;
  case AMK_OP_CLIP:
    v = v < fp[0] ? fp[0] : v;
    return v > fp[1] ? fp[1] : v;
  case AMK_OP_SIGMOID:
    return sigmoidV(v);
  case AMK_OP_QUICK_GELU:
    return v * sigmoidV(fp[0] * v);
  case AMK_OP_TANH:
    return fastTanhV(v);
  case AMK_OP_GELU:
    return geluV(v);
  case AMK_OP_LEAKY_RELU:
    return v >= 0 ? v : fp[0] * v;
  case AMK_OP_HARD_SWISH: {
    V16 t = v / 6.f + 0.5f;
    t = t < 0.f ? 0.f : t;
    return v * (t > 1.f ? 1.f : t);
  }
  case AMK_OP_HARD_SIGMOID: {
    V16 t = fp[0] * v + fp[1];
    t = t < 0.f ? 0.f : t;
    return t > 1.f ? 1.f : t;
  }
  default:
    break;
  }
  {
    alignas(64) float t[16];
    std::memcpy(t, &v, sizeof(t));
    applyActivation(t, n, act, fp[0], fp[1]);
    std::memcpy(&v, t, sizeof(t));
  }
  return v;
}

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
/// the activation; ReLU and Clip in the same pass (the fused
/// inverted-residual block calls this per channel and row, where a second
/// pass and a call per row would cost as much as the work).
inline void convEpilogue(float *y, int64_t P, int64_t channel,
                         const float *bias, const float *res, int act,
                         const float *fp) {
  const float b = bias ? bias[channel] : 0.f;
  if (act == AMK_OP_RELU || act == AMK_OP_CLIP || act == AMK_OP_NONE) {
    const float lo = act == AMK_OP_RELU   ? 0.f
                     : act == AMK_OP_CLIP ? fp[0]
                                          : -INFINITY;
    const float hi = act == AMK_OP_CLIP ? fp[1] : INFINITY;
    if (res)
      for (int64_t i = 0; i < P; ++i)
        y[i] = std::min(std::max(y[i] + b + res[i], lo), hi);
    else
      for (int64_t i = 0; i < P; ++i)
        y[i] = std::min(std::max(y[i] + b, lo), hi);
    return;
  }
  for (int64_t i = 0; i < P; ++i)
    y[i] += b;
  if (res)
    for (int64_t i = 0; i < P; ++i)
      y[i] += res[i];
  applyActivation(y, P, act, fp[0], fp[1]);
}

/// R output rows x one 16-pixel block of dw3x3Plane, each row on its own
/// accumulator (row stride SH; 0: any, `sh`).
template <int SW, int SH, int R>
inline void dw3x3Block(const float *r0, int64_t PW, int64_t sh, const V16 *wv,
                       float bias, int act, float lo, float hi, float *yr,
                       int64_t ow, int64_t n) {
  const int64_t rs = (SH ? SH : sh) * PW;
  V16 acc[R];
  for (int r = 0; r < R; ++r)
    acc[r] = (V16){};
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx)
      for (int r = 0; r < R; ++r) {
        const float *src = r0 + r * rs + ky * PW + kx;
        V16 x = SW == 1 ? loadV16(src) : loadV16Stride2(src);
        acc[r] += wv[ky * 3 + kx] * x;
      }
  for (int r = 0; r < R; ++r) {
    V16 a = acc[r] + bias;
    if (act == AMK_OP_RELU) {
      V16 zero = {};
      a = a > zero ? a : zero;
    } else if (act == AMK_OP_CLIP) {
      V16 l = lo - (V16){}, h = hi - (V16){};
      a = a < l ? l : a;
      a = a > h ? h : a;
    }
    storeV16(yr + r * ow, a, n);
  }
}

/// One output plane of a 3x3 depthwise convolution, column stride SW (1 or
/// 2), dilation 1, from the zero-padded input plane (readable 32 floats
/// past its end): every 16-pixel block of four output rows is nine vector FMAs
/// per row, each row on its own accumulator, then the bias and a
/// ReLU/Clip, then one store per row. With one row at a time each block's
/// nine FMAs waited on one another: 144 x 56 x 56 ran at about 20 cycles a
/// vector (0.172-0.183 ms) where loads and FMAs allow 5. Each output adds its
/// taps in row-major order from zero. DWCONV and the fused
/// inverted-residual block share it.
template <int SW>
inline void dw3x3Plane(const float *plane, int64_t PW, int64_t sh, int64_t oh,
                       int64_t ow, const float *wk, float bias, int act,
                       float lo, float hi, float *y, const char *next,
                       int64_t nextBytes) {
  constexpr int64_t V = 16;
  constexpr int R = 4;
  // The taps in registers: `y` may alias `wk` for all the compiler knows,
  // so it would reload them after every store.
  V16 wv[9];
  for (int t = 0; t < 9; ++t)
    wv[t] = (V16){} + wk[t];
  for (int64_t oy = 0; oy < oh; oy += R) {
    const int64_t nr = std::min<int64_t>(R, oh - oy);
    for (int64_t r = 0; r < nr; ++r)
      prefetchShare(next, nextBytes, oy + r, oh);
    const float *r0 = plane + oy * sh * PW;
    float *yr = y + oy * ow;
    for (int64_t ox0 = 0; ox0 < ow; ox0 += V) {
      const int64_t n = std::min(V, ow - ox0);
      const float *src = r0 + ox0 * SW;
      if (nr == R) {
        if (sh == SW)
          dw3x3Block<SW, SW, R>(src, PW, sh, wv, bias, act, lo, hi, yr + ox0,
                                ow, n);
        else
          dw3x3Block<SW, 0, R>(src, PW, sh, wv, bias, act, lo, hi, yr + ox0, ow,
                               n);
      } else {
        for (int64_t r = 0; r < nr; ++r)
          dw3x3Block<SW, 0, 1>(src + r * sh * PW, PW, sh, wv, bias, act, lo, hi,
                               yr + ox0 + r * ow, ow, n);
      }
    }
  }
}

/// CONV variant 2, the direct convolution on packed weights
/// (DirectConv.cpp).
void directConvTile(const KernelCall &call, const int64_t *tile);

/// Register tiles of the direct convolution, for the kernels that run 1x1
/// convolutions inside their own loops (INVERTED_RESIDUAL's channel-blocked
/// strips). Each sums n <= 14 consecutive pixels x 32 output channels over
/// C input channels, from weights packed as the direct kernel packs a
/// block ([C][32]), into acc[n][32]:
/// - pointwiseRegisterTile from NCHW input (channel c's pixels at x + c *
///   cs);
/// - blockedInRegisterTile from NCHW16c input (16-channel blocks bs floats
///   apart, a pixel's 16 channels one line).
void pointwiseRegisterTile(const float *x, int64_t cs, int64_t C,
                           const float *w, int64_t n, float *acc);
void blockedInRegisterTile(const float *x, int64_t bs, int64_t C,
                           const float *w, int64_t n, float *acc);
/// Writes channels [o0, o1) of a register tile (n pixels x the 32 channels
/// of block ob) into the NCHW output y (pixel 0 of channel o at y[o * P]):
/// bias, then the residual (laid out as y), then the activation.
void storeConvTile(const float *acc, int64_t n, int64_t ob, int64_t o0,
                   int64_t o1, const float *bias, const float *res, float *y,
                   int64_t P, int act, const float *fp);

/// CONV variant 3, Winograd F(m x m, 3 x 3) (WinogradConv.cpp).
void winogradConvTile(const KernelCall &call, const int64_t *tile);

/// CONV variant 4, grouped convolution on flat phase planes
/// (GroupedConv.cpp).
void groupedConvTile(const KernelCall &call, const int64_t *tile);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_CONVCOMMON_H
