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
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

/// Planes up to this many input pixels take the channel-blocked path. Its
/// buffers (the padded input and the output, 64 bytes a pixel) outgrow L1
/// past 20x20 but stay in L2; what decides is the per-plane path's rate.
/// Its 3x3 loops (four rows per step) win from 56x56 up (96 x 56 x 56:
/// 0.086 ms there, 0.107 blocked; 32 x 112 x 112: 0.099 vs 0.162) and
/// lose or tie at 28x28 (144 channels: 0.044 vs 0.038; 192: 0.051 both),
/// while its loops for other filters ran 5x5 layers at half the blocked
/// path's speed on every plane measured up to 56x56 (72 x 28 x 28: 0.086
/// vs 0.036 ms).
constexpr int64_t kBlockedMaxPixels3x3 = 32 * 32;
constexpr int64_t kBlockedMaxPixels = 64 * 64;

/// Largest filter side of the channel-blocked path (its weight vectors).
constexpr int64_t kBlockedMaxTaps = 7;

/// Whether the channel-blocked path applies: a depthwise (one output
/// channel per input channel) of filters up to 7x7, stride 1 or 2, on a
/// plane small enough (above).
bool blockedApplies(const Spatial &s) {
  const bool k3 = s.kh == 3 && s.kw == 3;
  return s.oc == s.c && s.kh <= kBlockedMaxTaps && s.kw <= kBlockedMaxTaps &&
         (s.sh == 1 || s.sh == 2) && (s.sw == 1 || s.sw == 2) &&
         s.h * s.w <= (k3 ? kBlockedMaxPixels3x3 : kBlockedMaxPixels);
}

/// Q output pixels of one row of the channel-blocked path, a KxK filter of
/// stride S, each pixel on its own accumulator, from the bias, adding its
/// taps in row-major order. Filter and stride are compile-time so the taps
/// unroll into FMAs with memory operands: the run-time loops kept their
/// addresses on the stack and ran each pixel past the fourth as one chain
/// of K*K dependent FMAs (a 5x5 layer over 576 x 7 x 7 took 74 us, its
/// 3x3 counterpart 16 us).
template <int K, int S, int Q>
inline void dwBlockedChunk(const V16 *px, int64_t PW, const V16 *wv, V16 bv,
                           V16 *o, bool clamp, float lo, float hi) {
  V16 acc[Q];
  for (int q = 0; q < Q; ++q)
    acc[q] = bv;
#pragma clang loop unroll(full)
  for (int ky = 0; ky < K; ++ky)
#pragma clang loop unroll(full)
    for (int kx = 0; kx < K; ++kx) {
      const V16 w = wv[ky * K + kx];
      const V16 *t = px + ky * PW + kx;
      for (int q = 0; q < Q; ++q)
        acc[q] += w * t[q * S];
    }
  for (int q = 0; q < Q; ++q) {
    if (clamp) {
      acc[q] = acc[q] < lo ? lo : acc[q];
      acc[q] = acc[q] > hi ? hi : acc[q];
    }
    o[q] = acc[q];
  }
}

/// Every output row of one 16-channel block, in chunks of up to 8 pixels
/// (8 accumulators and the tap's weight stay in registers).
template <int K, int S>
__attribute__((noinline)) void
dwBlockedRows(const V16 *in, int64_t PW, int64_t oh, int64_t ow, const V16 *wv,
              V16 bv, V16 *out, bool clamp, float lo, float hi) {
  for (int64_t oy = 0; oy < oh; ++oy) {
    const V16 *row = in + oy * S * PW;
    V16 *o = out + oy * ow;
    int64_t ox = 0;
    for (; ox + 8 <= ow; ox += 8)
      dwBlockedChunk<K, S, 8>(row + ox * S, PW, wv, bv, o + ox, clamp, lo, hi);
    const V16 *px = row + ox * S;
    switch (ow - ox) {
#define AMK_DW_CHUNK(N)                                                        \
  case N:                                                                      \
    dwBlockedChunk<K, S, N>(px, PW, wv, bv, o + ox, clamp, lo, hi);            \
    break;
      AMK_DW_CHUNK(1)
      AMK_DW_CHUNK(2)
      AMK_DW_CHUNK(3)
      AMK_DW_CHUNK(4)
      AMK_DW_CHUNK(5)
      AMK_DW_CHUNK(6)
      AMK_DW_CHUNK(7)
#undef AMK_DW_CHUNK
    default:
      break;
    }
  }
}

using DwBlockedRowsFn = void (*)(const V16 *, int64_t, int64_t, int64_t,
                                 const V16 *, V16, V16 *, bool, float, float);

/// The compiled row loop for a square filter of side 3, 5 or 7 with equal
/// strides of 1 or 2 and no dilation; null for anything else.
DwBlockedRowsFn dwBlockedRowsFor(const Spatial &s) {
  if (s.kh != s.kw || s.sh != s.sw || s.dh != 1 || s.dw != 1)
    return nullptr;
  const int key = s.kh * 10 + s.sh;
  switch (key) {
  case 31:
    return dwBlockedRows<3, 1>;
  case 32:
    return dwBlockedRows<3, 2>;
  case 51:
    return dwBlockedRows<5, 1>;
  case 52:
    return dwBlockedRows<5, 2>;
  case 71:
    return dwBlockedRows<7, 1>;
  case 72:
    return dwBlockedRows<7, 2>;
  default:
    return nullptr;
  }
}

/// A 3x3 depthwise on a small plane with 16 channels in the lanes of a
/// vector (NCHW16c inside the kernel): the plane of each group of 16
/// channels is transposed into a zero-padded [pixel][16] buffer, every
/// output pixel is 9 FMAs of whole vectors against the 9 taps' weight
/// vectors, and the result is transposed back into the NCHW planes. Per
/// channel on its own, a 14x14 or 7x7 plane leaves most of each 16-pixel
/// row vector idle and pays per-row setup for a few FMAs; MobileNetV2's
/// 14x14 and 7x7 depthwise layers ran 1.6-3.8 times as long as ONNX
/// Runtime's NCHWc kernel (docs/runtime.md).
void dwconvBlockedTile(const KernelCall &call, const Spatial &s,
                       const int64_t *tile) {
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t P = s.oh * s.ow, HW = s.h * s.w;
  // Padded input: rows and columns of every tap of every output pixel.
  const int64_t PH =
      std::max(s.h + s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  const int64_t PW =
      std::max(s.w + s.pw, (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  const bool k3 = s.kh == 3 && s.kw == 3 && s.dh == 1 && s.dw == 1;
  const int64_t taps = s.kh * s.kw;
  const DwBlockedRowsFn rows = dwBlockedRowsFor(s);
  thread_local std::vector<V16> in, out;
  in.resize(PH * PW);
  out.resize(P + 16);
  const bool fuseAct = !res && (s.mode == AMK_OP_NONE ||
                                s.mode == AMK_OP_RELU || s.mode == AMK_OP_CLIP);
  const float lo = s.mode == AMK_OP_RELU   ? 0.f
                   : s.mode == AMK_OP_CLIP ? call.fp[0]
                                           : -INFINITY;
  const float hi = s.mode == AMK_OP_CLIP ? call.fp[1] : INFINITY;
  // Zeroed once per task: every group overwrites the same interior
  // pixels, so the padding stays zero (per group, the fill was a tenth of
  // a 5x5 layer over 7x7 planes).
  std::fill(in.begin(), in.end(), V16{});
  for (int64_t r = tile[0]; r < tile[1];) {
    const int64_t img = r / s.oc, c0 = r % s.oc;
    const int64_t G = std::min<int64_t>({16, tile[1] - r, s.oc - c0});
    const float *x = X + (img * s.c + c0) * HW;
    // In: 16 pixels of a row of every channel, transposed so that pixel q
    // is one vector of the channels.
    V16 t[16];
    for (int64_t iy = 0; iy < s.h; ++iy)
      for (int64_t ix = 0; ix < s.w; ix += 16) {
        const int64_t n = std::min<int64_t>(16, s.w - ix);
        for (int64_t c = 0; c < 16; ++c)
          t[c] = c < G ? loadV16(x + c * HW + iy * s.w + ix, n) : V16{};
        transpose16(t);
        V16 *dst = in.data() + (iy + s.ph) * PW + ix + s.pw;
        for (int64_t q = 0; q < n; ++q)
          dst[q] = t[q];
      }
    V16 wv[kBlockedMaxTaps * kBlockedMaxTaps], bv = {};
    // The block's [channel][tap] weights transposed to [tap][channel], 16
    // taps at a time (lane by lane, they cost a third of a 5x5 layer).
    for (int64_t k0 = 0; k0 < taps; k0 += 16) {
      const int64_t n = std::min<int64_t>(16, taps - k0);
      for (int64_t c = 0; c < 16; ++c)
        t[c] = c < G ? loadV16(W + (c0 + c) * taps + k0, n) : V16{};
      transpose16(t);
      for (int64_t k = 0; k < n; ++k)
        wv[k0 + k] = t[k];
    }
    if (bias)
      bv = loadV16Window(bias + c0, G, 0);
    if (rows)
      rows(in.data(), PW, s.oh, s.ow, wv, bv, out.data(), fuseAct, lo, hi);
    for (int64_t oy = 0; rows == nullptr && oy < s.oh; ++oy) {
      const V16 *row = in.data() + oy * s.sh * PW;
      V16 *o = out.data() + oy * s.ow;
      int64_t ox = 0;
      if (!k3) {
        // Four output pixels per step, each on its own accumulator: with
        // one, each of a 5x5 filter's 25 FMAs waited on the previous one
        // (EfficientNet-B0's 5x5 layers on 14x14 and 7x7 planes). Each
        // pixel still adds its taps in order.
        constexpr int Q = 4;
        for (; ox + Q <= s.ow; ox += Q) {
          const V16 *px = row + ox * s.sw;
          V16 acc[Q] = {bv, bv, bv, bv};
          for (int64_t ky = 0; ky < s.kh; ++ky)
            for (int64_t kx = 0; kx < s.kw; ++kx) {
              const V16 w = wv[ky * s.kw + kx];
              const V16 *t = px + ky * s.dh * PW + kx * s.dw;
              for (int q = 0; q < Q; ++q)
                acc[q] += w * t[q * s.sw];
            }
          for (int q = 0; q < Q; ++q) {
            if (fuseAct) {
              acc[q] = acc[q] < lo ? lo : acc[q];
              acc[q] = acc[q] > hi ? hi : acc[q];
            }
            o[ox + q] = acc[q];
          }
        }
      }
      for (; ox < s.ow; ++ox) {
        const V16 *px = row + ox * s.sw;
        V16 acc = bv;
        if (k3) {
#pragma clang loop unroll(full)
          for (int ky = 0; ky < 3; ++ky)
#pragma clang loop unroll(full)
            for (int kx = 0; kx < 3; ++kx)
              acc += wv[ky * 3 + kx] * px[ky * PW + kx];
        } else {
          for (int64_t ky = 0; ky < s.kh; ++ky)
            for (int64_t kx = 0; kx < s.kw; ++kx)
              acc += wv[ky * s.kw + kx] * px[ky * s.dh * PW + kx * s.dw];
        }
        if (fuseAct) {
          acc = acc < lo ? lo : acc;
          acc = acc > hi ? hi : acc;
        }
        o[ox] = acc;
      }
    }
    // Out: 16 pixels of the output plane at a time back to the channels'
    // planes (the flat plane, so rows shorter than 16 still fill vectors).
    for (int64_t p = 0; p < P; p += 16) {
      const int64_t n = std::min<int64_t>(16, P - p);
      for (int64_t q = 0; q < 16; ++q)
        t[q] = q < n ? out[p + q] : V16{};
      transpose16(t);
      for (int64_t c = 0; c < G; ++c)
        storeV16(Y + (img * s.oc + c0 + c) * P + p, t[c], n);
    }
    if (!fuseAct)
      for (int64_t c = 0; c < G; ++c)
        convEpilogue(Y + (img * s.oc + c0 + c) * P, P, c0 + c, nullptr,
                     res ? res + (img * s.oc + c0 + c) * P : nullptr,
                     (int)s.mode, call.fp);
    r += G;
  }
}

/// A 3x3 depthwise (one output channel per input channel, dilation 1) whose
/// input and output are channel-blocked (NCHW16c, AMK_CONV_LAYOUT): every
/// output pixel of a 16-channel block is 9 FMAs of whole vectors, read
/// straight from the input block, so nothing is transposed or copied, and
/// the epilogue (bias, residual, activation) runs on the vector before its
/// one store. Taps that fall in the padding are skipped: rows by a null
/// row pointer, columns only at the ends of the row. Tile rows are whole
/// 16-channel blocks (the scheduler aligns them).
void dwconvChannelBlockedTile(const KernelCall &call, const Spatial &s,
                              const int64_t *tile) {
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t P = s.oh * s.ow, HW = s.h * s.w;
  const bool fuseAct =
      s.mode == AMK_OP_NONE || s.mode == AMK_OP_RELU || s.mode == AMK_OP_CLIP;
  const float lo = s.mode == AMK_OP_RELU   ? 0.f
                   : s.mode == AMK_OP_CLIP ? call.fp[0]
                                           : -INFINITY;
  const float hi = s.mode == AMK_OP_CLIP ? call.fp[1] : INFINITY;
  // Output columns whose three taps all fall inside the row.
  const int64_t oxLo = std::min(s.ow, (s.pw + s.sw - 1) / s.sw);
  const int64_t lastIn = s.w - 3 + s.pw; // the last interior tap 0's column
  const int64_t oxHi =
      lastIn < 0 ? oxLo : std::max(oxLo, std::min(s.ow, lastIn / s.sw + 1));
  for (int64_t r = tile[0]; r < tile[1]; r += 16) {
    const int64_t img = r / s.oc, c0 = r % s.oc;
    const float *x = X + (img * s.c + c0) * HW;
    float *y = Y + (img * s.oc + c0) * P;
    const float *z = res ? res + (img * s.oc + c0) * P : nullptr;
    V16 wv[9];
    for (int k = 0; k < 9; ++k)
      for (int c = 0; c < 16; ++c)
        wv[k][c] = W[(c0 + c) * 9 + k];
    const V16 bv = bias ? loadV16(bias + c0) : V16{};
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      const float *row[3];
      for (int ky = 0; ky < 3; ++ky) {
        const int64_t iy = oy * s.sh - s.ph + ky;
        row[ky] = iy >= 0 && iy < s.h ? x + iy * s.w * 16 : nullptr;
      }
      auto finish = [&](int64_t ox, V16 acc) {
        float *o = y + (oy * s.ow + ox) * 16;
        if (z)
          acc += loadV16(z + (oy * s.ow + ox) * 16);
        if (fuseAct && !z) {
          acc = acc < lo ? lo : acc;
          acc = acc > hi ? hi : acc;
        } else {
          acc = activate(acc, 16, (int)s.mode, call.fp);
        }
        storeV16(o, acc, 16);
      };
      // The edges: taps checked one by one.
      auto edge = [&](int64_t ox) {
        V16 acc = bv;
        for (int ky = 0; ky < 3; ++ky) {
          if (!row[ky])
            continue;
          for (int kx = 0; kx < 3; ++kx) {
            const int64_t ix = ox * s.sw - s.pw + kx;
            if (ix >= 0 && ix < s.w)
              acc += wv[ky * 3 + kx] * loadV16(row[ky] + ix * 16);
          }
        }
        finish(ox, acc);
      };
      for (int64_t ox = 0; ox < oxLo; ++ox)
        edge(ox);
      for (int64_t ox = oxLo; ox < oxHi; ++ox) {
        V16 acc = bv;
        const int64_t ix = (ox * s.sw - s.pw) * 16;
#pragma clang loop unroll(full)
        for (int ky = 0; ky < 3; ++ky) {
          if (!row[ky])
            continue;
          const float *p = row[ky] + ix;
          acc += wv[ky * 3] * loadV16(p);
          acc += wv[ky * 3 + 1] * loadV16(p + 16);
          acc += wv[ky * 3 + 2] * loadV16(p + 32);
        }
        finish(ox, acc);
      }
      for (int64_t ox = oxHi; ox < s.ow; ++ox)
        edge(ox);
    }
  }
}

/// One output plane of a depthwise filter other than the 3x3 fast path,
/// column stride SW (0: any, read from `s`), from the zero-padded plane:
/// R output rows x 16 columns per step, one accumulator each. With one,
/// every tap's FMA waited on the previous one's: EfficientNet-B0's 5x5
/// layers ran at a quarter of the FMA rate (docs/runtime.md). Each output
/// sums its taps in order from zero. A function of its own: inlined into
/// the kernel, its loop-invariant addresses were spilled and reloaded on
/// every step (a third of the time on 28x28 planes).
template <int SW>
__attribute__((noinline)) void genericPlane(const float *plane, int64_t PW,
                                            const Spatial &s, const float *wk,
                                            int64_t OWr, float *y) {
  constexpr int R = 4;
  constexpr int64_t V = 16;
  const int64_t sw = SW ? SW : s.sw;
  auto load = [&](const float *p) -> V16 {
    if constexpr (SW == 1) {
      return loadV16(p);
    } else if constexpr (SW == 2) {
      return loadV16Stride2(p);
    } else {
      V16 v;
      for (int64_t i = 0; i < V; ++i)
        v[i] = p[i * sw];
      return v;
    }
  };
  for (int64_t oy0 = 0; oy0 < s.oh; oy0 += R) {
    const int64_t nr = std::min<int64_t>(R, s.oh - oy0);
    for (int64_t ox0 = 0; ox0 < OWr; ox0 += V) {
      V16 acc[R] = {};
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const float wv = wk[ky * s.kw + kx];
          const float *src =
              plane + (oy0 * s.sh + ky * s.dh) * PW + ox0 * sw + kx * s.dw;
          for (int r = 0; r < R; ++r)
            if (r < nr)
              acc[r] += wv * load(src + r * s.sh * PW);
        }
      for (int r = 0; r < nr; ++r)
        storeV16(y + (oy0 + r) * s.ow + ox0, acc[r],
                 std::min<int64_t>(V, s.ow - ox0));
    }
  }
}

/// A 1x1 filter of stride 1 without padding: each output plane is its
/// input plane times one weight, plus the bias (and residual), through the
/// activation, in one pass with no padded copy. Inference
/// BatchNormalization runs here (as ONNX Runtime runs it, a depthwise 1x1):
/// as an elementwise program with per-channel operands it moved 3-12 GB/s
/// and took 10.7 of DenseNet-121's 37.7 ms (docs/runtime.md).
void dwconvScaleTile(const KernelCall &call, const Spatial &s,
                     const int64_t *tile) {
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t P = s.oh * s.ow, mult = s.oc / s.c;
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const int64_t img = r / s.oc, o = r % s.oc;
    const float *x = X + (img * s.c + o / mult) * P;
    const float *rr = res ? res + r * P : nullptr;
    float *y = Y + r * P;
    const V16 w = (V16){} + W[o], b = (V16){} + (bias ? bias[o] : 0.f);
    for (int64_t i = 0; i < P; i += 16) {
      const int64_t n = std::min<int64_t>(16, P - i);
      V16 v = loadV16(x + i, n) * w + b;
      if (rr)
        v += loadV16(rr + i, n);
      storeV16(y + i, activate(v, n, (int)s.mode, call.fp), n);
    }
  }
}

/// Depthwise: output channel o reads input channel o / multiplier. The
/// input plane is copied once into a zero-padded buffer so the inner loops
/// carry no bounds checks and vectorize.
void dwconvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  if (convLayout(call))
    return dwconvChannelBlockedTile(call, s, tile);
  if (s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 &&
      s.pw == 0 && s.oh == s.h && s.ow == s.w)
    return dwconvScaleTile(call, s, tile);
  if (blockedApplies(s))
    return dwconvBlockedTile(call, s, tile);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  int64_t mult = s.oc / s.c, P = s.oh * s.ow;
  // Output rows are computed 16 pixels at a time in registers (one vector
  // of accumulators, every tap added before one store), so the row is
  // rounded up to 16 and the padded plane covers every tap of that.
  constexpr int64_t V = 16;
  int64_t OWr = (s.ow + V - 1) / V * V;
  int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  thread_local std::vector<float> plane;
  // 32 floats of slack: the 3x3 path reads whole vectors.
  plane.assign(PH * PW + 32, 0.f);
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
    // Any other filter (5x5, dilated): R output rows x 16 columns per
    // step, one accumulator each (genericPlane).
    if (s.sw == 1)
      genericPlane<1>(plane.data(), PW, s, wk, OWr, y);
    else if (s.sw == 2)
      genericPlane<2>(plane.data(), PW, s, wk, OWr, y);
    else
      genericPlane<0>(plane.data(), PW, s, wk, OWr, y);
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
bool KernelImpl<AMK_RT_K_DWCONV>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_SP_NUM_IPARAMS, 2, error) || k.num_buffers < 5)
    return false;
  const int64_t layout =
      k.num_iparams > AMK_CONV_LAYOUT ? ip[AMK_CONV_LAYOUT] : 0;
  if (layout && (layout != (AMK_CONV_X_BLOCKED | AMK_CONV_Y_BLOCKED) ||
                 ip[AMK_SP_C] % 16 || ip[AMK_SP_OC] != ip[AMK_SP_C] ||
                 ip[AMK_SP_KH] != 3 || ip[AMK_SP_KW] != 3 ||
                 ip[AMK_SP_DH] != 1 || ip[AMK_SP_DW] != 1)) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': a channel-blocked depthwise convolution needs both operands "
            "blocked, 16 dividing the channels, one output channel per "
            "input channel and a 3x3 filter of dilation 1";
    return false;
  }
  return true;
}

} // namespace amk::rt
