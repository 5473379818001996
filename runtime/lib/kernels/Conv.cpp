//===- Conv.cpp - Convolution ---------------------------------------------===//
//
// Part of AMK. The CONV kind, by variant: 0, direct loops for any group
// count; 1, implicit GEMM on libxsmm blocks; 2, the register-tiled direct
// convolution on packed weights, in DirectConv.cpp for its size; 3,
// Winograd F(m x m, 3 x 3), in WinogradConv.cpp; 4, grouped convolution
// on channel x position tiles, in GroupedConv.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/BlockGemm.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

/// Implicit-GEMM convolution: Y[oc][p] = sum_k W[oc][k] col[k][p] where
/// the columns of each (depth block, pixel block) are packed into a small
/// per-task buffer that stays in cache, instead of materializing the whole
/// im2col matrix in memory. With groups (ResNeXt, RegNet) each group is
/// its own product over its input channels; a row range is cut at group
/// boundaries.
bool convGemmTile(const KernelCall &call, const int64_t *tile,
                  std::string &error) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t icg = s.c / s.group, ocg = s.oc / s.group;
  int64_t kk = s.kh * s.kw, K = icg * kk, P = s.oh * s.ow;
  thread_local std::vector<float> packed;
  packed.resize(kDepthBlock * kColBlock);
  BlockKernels bk;
  bk.lda = K, bk.ldb = kColBlock, bk.ldc = P;
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, mStart = r % s.oc;
    int64_t mEnd = std::min(s.oc, mStart + (tile[1] - r));
    mEnd = std::min(mEnd, (mStart / ocg + 1) * ocg);
    const float *x =
        X + (img * s.c + mStart / ocg * icg) * s.h * s.w; // the group's
    float *y = Y + img * s.oc * P;
    for (int64_t n0 = tile[2]; n0 < tile[3]; n0 += kColBlock) {
      int64_t nb = std::min(kColBlock, tile[3] - n0);
      for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
        int64_t kb = std::min(kDepthBlock, K - k0);
        // Pack rows k0..k0+kb of the column matrix for pixels n0..n0+nb.
        for (int64_t k = 0; k < kb; ++k) {
          int64_t kg = k0 + k, ch = kg / kk, ky = (kg % kk) / s.kw,
                  kx = kg % s.kw;
          const float *xc = x + ch * s.h * s.w;
          float *dst = packed.data() + k * kColBlock;
          for (int64_t p = n0; p < n0 + nb;) {
            int64_t oy = p / s.ow, ox0 = p % s.ow;
            int64_t run = std::min(s.ow - ox0, n0 + nb - p);
            float *o = dst + (p - n0);
            int64_t iy = oy * s.sh - s.ph + ky * s.dh;
            if (iy < 0 || iy >= s.h) {
              std::fill_n(o, run, 0.f);
            } else {
              const float *xr = xc + iy * s.w;
              int64_t base = kx * s.dw - s.pw;
              if (s.sw == 1) {
                int64_t lo = std::clamp<int64_t>(-base - ox0, 0, run);
                int64_t hi = std::clamp<int64_t>(s.w - base - ox0, lo, run);
                std::fill_n(o, lo, 0.f);
                std::memcpy(o + lo, xr + base + ox0 + lo,
                            (hi - lo) * sizeof(float));
                std::fill(o + hi, o + run, 0.f);
              } else {
                for (int64_t i = 0; i < run; ++i) {
                  int64_t ix = (ox0 + i) * s.sw + base;
                  o[i] = ix >= 0 && ix < s.w ? xr[ix] : 0.f;
                }
              }
            }
            p += run;
          }
        }
        for (int64_t m0 = mStart; m0 < mEnd; m0 += kRowBlock) {
          int64_t mb = std::min(kRowBlock, mEnd - m0);
          if (!bk.get(mb, nb, kb)) {
            error = "libxsmm has no kernel for a conv block";
            return false;
          }
          (k0 == 0 ? bk.first : bk.accum)(packed.data(), W + m0 * K + k0,
                                          y + m0 * P + n0);
        }
      }
      for (int64_t m = mStart; m < mEnd; ++m)
        convEpilogue(y + m * P + n0, nb, m, bias,
                     res ? res + (img * s.oc + m) * P + n0 : nullptr,
                     (int)s.mode, call.fp);
    }
    r += mEnd - mStart;
  }
  return true;
}

/// Direct convolution for any group count (the general fallback).
void convTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, g = o / ocg;
    float *y = Y + r * P;
    std::fill_n(y, P, 0.f);
    for (int64_t ic = 0; ic < icg; ++ic) {
      const float *x = X + (img * s.c + g * icg + ic) * s.h * s.w;
      const float *wk = W + (o * icg + ic) * s.kh * s.kw;
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          float wv = wk[ky * s.kw + kx];
          for (int64_t oy = 0; oy < s.oh; ++oy) {
            int64_t iy = oy * s.sh - s.ph + ky * s.dh;
            if (iy < 0 || iy >= s.h)
              continue;
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              int64_t ix = ox * s.sw - s.pw + kx * s.dw;
              if (ix >= 0 && ix < s.w)
                y[oy * s.ow + ox] += wv * x[iy * s.w + ix];
            }
          }
        }
    }
    convEpilogue(y, P, o, bias, res ? res + r * P : nullptr, (int)s.mode,
                 call.fp);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_CONV>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &error) {
  if (call.kernel->variant == 1)
    return convGemmTile(call, tile, error);
  if (call.kernel->variant == 2) {
    directConvTile(call, tile);
    return true;
  }
  if (call.kernel->variant == 3) {
    winogradConvTile(call, tile);
    return true;
  }
  if (call.kernel->variant == 4) {
    groupedConvTile(call, tile);
    return true;
  }
  convTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_CONV>::check(const amk_rt_kernel &k, const int64_t *ip,
                                      const float *, std::string &error) {
  if (!hasParams(k, AMK_SP_NUM_IPARAMS, 2, error) || k.num_buffers < 5)
    return false;
  if (ip[AMK_SP_GROUP] < 1 || ip[AMK_SP_C] % ip[AMK_SP_GROUP] ||
      ip[AMK_SP_OC] % ip[AMK_SP_GROUP]) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': the channels are not divisible by the group count";
    return false;
  }
  if (k.variant == 2 &&
      (ip[AMK_SP_GROUP] != 1 || (ip[AMK_SP_SW] != 1 && ip[AMK_SP_SW] != 2))) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': the direct convolution needs group 1 and a column stride "
            "of 1 or 2";
    return false;
  }
  const int64_t layout =
      k.num_iparams > AMK_CONV_LAYOUT ? ip[AMK_CONV_LAYOUT] : 0;
  const bool flat =
      ip[AMK_SP_KH] == 1 && ip[AMK_SP_KW] == 1 && ip[AMK_SP_SH] == 1 &&
      ip[AMK_SP_SW] == 1 && ip[AMK_SP_PH] == 0 && ip[AMK_SP_PW] == 0 &&
      ip[AMK_SP_OH] == ip[AMK_SP_H] && ip[AMK_SP_OW] == ip[AMK_SP_W];
  if (layout &&
      (k.variant != 2 || layout > 3 || ip[AMK_SP_C] % 16 ||
       ip[AMK_SP_OC] % 16 || ((layout & AMK_CONV_X_BLOCKED) && !flat))) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': channel-blocked operands need the direct convolution, 16 "
            "dividing the channels, and a flat 1x1 convolution for a "
            "blocked input";
    return false;
  }
  if (k.variant == 3 &&
      (k.num_iparams < AMK_CONV_NUM_IPARAMS || ip[AMK_SP_GROUP] != 1 ||
       ip[AMK_SP_KH] != 3 || ip[AMK_SP_KW] != 3 || ip[AMK_SP_SH] != 1 ||
       ip[AMK_SP_SW] != 1 || ip[AMK_SP_DH] != 1 || ip[AMK_SP_DW] != 1 ||
       (ip[AMK_CONV_WINOGRAD_M] != 2 && ip[AMK_CONV_WINOGRAD_M] != 4))) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': the Winograd convolution needs a 3x3 filter, stride and "
            "dilation 1, group 1 and an output tile of 2 or 4";
    return false;
  }
  return true;
}

} // namespace amk::rt
