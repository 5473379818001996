//===- DepthwiseConv.cpp - Depthwise convolution --------------------------===//
//
// Part of AMK. DWCONV, one output channel's plane per row of the tile. The
// layer is memory-bound: each input plane is copied once into a zero-padded
// buffer so the inner loops need no bounds checks, and the next plane is
// prefetched while this one is computed.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

/// Depthwise: output channel o reads input channel o / multiplier. The
/// input plane is copied once into a zero-padded buffer so the inner loops
/// carry no bounds checks and vectorize.
void dwconvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t mult = s.oc / s.c, P = s.oh * s.ow;
  // Output rows are computed 16 pixels at a time in registers (one vector
  // of accumulators, every tap added before one store), so the row is
  // rounded up to 16 and the padded plane covers every tap of that.
  constexpr int64_t V = 16;
  int64_t OWr = (s.ow + V - 1) / V * V;
  int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  thread_local std::vector<float> plane, row;
  // 32 floats of slack: the 3x3 path reads whole vectors.
  plane.assign(PH * PW + 32, 0.f);
  row.resize(OWr);
  bool fast3x3 = s.kh == 3 && s.kw == 3 && s.dh == 1 && s.dw == 1 &&
                 (s.sw == 1 || s.sw == 2);
  int64_t loaded = -1;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    int64_t img = r / s.oc, o = r % s.oc, ch = o / mult;
    int64_t key = img * s.c + ch;
    if (key != loaded) {
      const float *x = X + key * s.h * s.w;
      for (int64_t iy = 0; iy < s.h; ++iy)
        copyFloats(plane.data() + (iy + s.ph) * PW + s.pw, x + iy * s.w, s.w);
      loaded = key;
    }
    const float *wk = W + o * s.kh * s.kw;
    float *y = Y + r * P;
    // The common 3x3 shapes, with the epilogue fused when it is only a
    // bias and a ReLU/Clip.
    if (fast3x3) {
      // The activation runs in the kernel only when nothing comes between
      // the bias and it (a residual is added first).
      bool fuseAct = !res && (s.mode == AMK_OP_NONE || s.mode == AMK_OP_RELU ||
                              s.mode == AMK_OP_CLIP);
      int act = fuseAct ? (int)s.mode : AMK_OP_NONE;
      float b = bias ? bias[o] : 0.f;
      // The next row's input plane, when it is another channel.
      const char *next = nullptr;
      if (r + 1 < tile[1] && ((r + 1) % s.oc) / mult != ch)
        next = reinterpret_cast<const char *>(X + (key + 1) * s.h * s.w);
      int64_t nextBytes = s.h * s.w * sizeof(float);
      if (s.sw == 1)
        dw3x3Plane<1>(plane.data(), PW, s.sh, s.oh, s.ow, wk, b, act,
                      call.fp[0], call.fp[1], y, next, nextBytes);
      else
        dw3x3Plane<2>(plane.data(), PW, s.sh, s.oh, s.ow, wk, b, act,
                      call.fp[0], call.fp[1], y, next, nextBytes);
      if (!fuseAct)
        convEpilogue(y, P, o, nullptr, res ? res + r * P : nullptr, (int)s.mode,
                     call.fp);
      continue;
    }
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox0 = 0; ox0 < OWr; ox0 += V) {
        float acc[V] = {};
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          const float *__restrict prow =
              plane.data() + (oy * s.sh + ky * s.dh) * PW + ox0 * s.sw;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            float wv = wk[ky * s.kw + kx];
            const float *__restrict src = prow + kx * s.dw;
            if (s.sw == 1) {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[i];
            } else if (s.sw == 2) {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[2 * i];
            } else {
              for (int64_t i = 0; i < V; ++i)
                acc[i] += wv * src[i * s.sw];
            }
          }
        }
        std::memcpy(row.data() + ox0, acc, sizeof(acc));
      }
      std::memcpy(y + oy * s.ow, row.data(), s.ow * sizeof(float));
    }
    convEpilogue(y, P, o, bias, res ? res + r * P : nullptr, (int)s.mode,
                 call.fp);
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_DWCONV>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  dwconvTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_DWCONV>::check(const amk_rt_kernel &k, const int64_t *,
                                        const float *, std::string &error) {
  return hasParams(k, AMK_SP_NUM_IPARAMS, 2, error) && k.num_buffers >= 5;
}

} // namespace amk::rt
