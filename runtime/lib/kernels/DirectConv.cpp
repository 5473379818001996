//===- DirectConv.cpp - Direct convolution on packed weights --------------===//
//
// Part of AMK. CONV variant 2: register tiles of output pixels x 32 output
// channels, fed by broadcasts from the (padded) input planes and two weight
// vectors per tap; no im2col and no packing at run time (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

namespace amk::rt {

namespace {

/// Output channels per packed weight block (two vectors).
constexpr int64_t kOcBlock = AMK_CONV_OC_BLOCK;
/// Most output pixels one register tile holds: R x 2 accumulators, plus
/// the two weight vectors, fit AVX-512's 32 registers.
constexpr int kMaxTilePixels = 14;

/// R1 + R2 output pixels times 32 output channels, summed over every input
/// channel and tap, in registers: per tap, two weight vectors and R1 + R2
/// broadcast inputs feed 2 (R1 + R2) FMAs. The first R1 pixels are
/// consecutive along a row (S input columns apart) from `x`, the first
/// pixel's input at tap (0, 0) of channel 0; the other R2 continue on the
/// next output row, `step` floats further (rows narrower than a register
/// tile are taken two at a time). `taps` are the taps' offsets; `w` is the
/// packed block, [C][taps][32]. The sum runs channel by channel and tap by
/// tap whatever the tiling, so every tiling gives the same bits. Writes
/// out[R1 + R2][32]. H = 1 computes only the block's first 16 channels
/// (out[j][16..31] is left as it was), for a block whose other half lies
/// past the output channels: a 16-channel stem (MobileNetV3's, MNASNet's)
/// spent half its FMAs on zero weights, and ran no faster than 32 channels
/// (3 -> 16 and 3 -> 32, 3x3 stride 2 at 224 x 224: 0.167 and 0.175 ms).
template <int R1, int R2, int S, int H = 2>
void convMicroTile(const float *x, int64_t step, int64_t cs, int64_t C,
                   const int64_t *taps, int64_t ntaps, const float *w,
                   float *out) {
  V16 acc[R1 + R2][H] = {};
  const int64_t next = C * ntaps * kOcBlock;
  for (int64_t c = 0; c < C; ++c, x += cs) {
    for (int64_t t = 0; t < ntaps; ++t, w += kOcBlock) {
      const float *xt = x + taps[t];
      V16 w0 = loadV16(w), w1 = H == 2 ? loadV16(w + 16) : V16{};
      // This block's weights ahead into L1, the next block's into L2 (the
      // next register tile over other channels streams them from there).
      __builtin_prefetch(w + 16 * kOcBlock);
      __builtin_prefetch(w + 16 * kOcBlock + 16);
      __builtin_prefetch(w + next, 0, 2);
      __builtin_prefetch(w + next + 16, 0, 2);
      for (int j = 0; j < R1 + R2; ++j) {
        float v = j < R1 ? xt[j * S] : xt[step + (j - R1) * S];
        acc[j][0] += w0 * v;
        if constexpr (H == 2)
          acc[j][1] += w1 * v;
      }
    }
  }
  for (int j = 0; j < R1 + R2; ++j)
    std::memcpy(out + j * kOcBlock, acc[j], sizeof(acc[j]));
}

using MicroTileFn = void (*)(const float *, int64_t, int64_t, int64_t,
                             const int64_t *, int64_t, const float *, float *);

/// convMicroTile for a flat 1x1 convolution whose input is channel-blocked
/// (NCHW16c: pixel p of channel c at [c / 16][p][c % 16]): R consecutive
/// pixels from `x`, channel blocks `bs` floats apart. The same FMAs in the
/// same channel order as convMicroTile, so the same bits; the broadcasts
/// now come from one 64-byte line per pixel and block.
template <int R>
void blockedInMicroTile(const float *x, int64_t bs, int64_t C, const float *w,
                        float *out) {
  V16 acc[R][2] = {};
  for (int64_t cb = 0; cb < C; cb += 16, x += bs) {
    for (int c = 0; c < 16; ++c, w += kOcBlock) {
      V16 w0 = loadV16(w), w1 = loadV16(w + 16);
      __builtin_prefetch(w + 16 * kOcBlock);
      __builtin_prefetch(w + 16 * kOcBlock + 16);
      for (int j = 0; j < R; ++j) {
        float v = x[j * 16 + c];
        acc[j][0] += w0 * v;
        acc[j][1] += w1 * v;
      }
    }
  }
  std::memcpy(out, acc, sizeof(acc));
}

using BlockedInTileFn = void (*)(const float *, int64_t, int64_t, const float *,
                                 float *);

template <int... Rs>
constexpr std::array<BlockedInTileFn, sizeof...(Rs)>
blockedInTiles(std::integer_sequence<int, Rs...>) {
  return {&blockedInMicroTile<Rs + 1>...};
}

/// The register tiles of one row, by pixel count.
template <int S, int H, int... Rs>
constexpr std::array<MicroTileFn, sizeof...(Rs)>
rowTiles(std::integer_sequence<int, Rs...>) {
  return {&convMicroTile<Rs + 1, 0, S, H>...};
}

/// The register tiles of two rows, by pixels per row.
template <int S, int H, int... Rs>
constexpr std::array<MicroTileFn, sizeof...(Rs)>
pairTiles(std::integer_sequence<int, Rs...>) {
  return {&convMicroTile<Rs + 1, Rs + 1, S, H>...};
}

/// storeConvTile for a channel-blocked output: the tile's n pixels,
/// starting at pixel p0, go to [ob / 16 + h][p0 + j][16] of `y` (the
/// image's output) as whole vectors, with no transpose; the residual has
/// the same layout. The steps and their order are storeConvTile's, so the
/// values are the same. [o0, o1) are whole 16-channel halves (the
/// scheduler blocks only channel counts that 16 divides).
void storeBlockedTile(const float *acc, int64_t n, int64_t ob, int64_t o0,
                      int64_t o1, const float *bias, const float *res, float *y,
                      int64_t P, int64_t p0, int act, const float *fp) {
  for (int64_t h = 0; h < kOcBlock; h += 16) {
    if (ob + h < o0 || ob + h >= o1)
      continue;
    const V16 b = bias ? loadV16(bias + ob + h) : V16{};
    const int64_t at = ((ob + h) / 16 * P + p0) * 16;
    for (int64_t j = 0; j < n; ++j) {
      V16 v = loadV16(acc + j * kOcBlock + h) + b;
      if (res)
        v += loadV16(res + at + j * 16);
      storeV16(y + at + j * 16, activate(v, 16, act, fp), 16);
    }
  }
}

/// Output channels of a pointwise register tile.
constexpr int kPwChannels = 8;
/// Flat convolutions with at least this many output pixels take them.
constexpr int64_t kPwMinPixels = 512;

/// A 1x1 stride-1 convolution's tile the other way round: 8 output
/// channels x NV vectors of 16 consecutive pixels, fed by NV vector loads
/// of each input channel's pixels and 8 broadcast weights (the packed
/// block's [C][32] rows, from channel `sub`). Each output is summed over
/// the input channels in the same order, by the same FMAs, as
/// convMicroTile, and finished by storeConvTile's steps, so the bits are
/// the same. The tile is stored as it is, a channel's pixels being an
/// output row: the pixel x channel tile spends two 16x16 transposes and
/// 14-lane masked stores on every 14 x 32 tile. The last vector holds
/// `last` pixels; nothing past them is read or written. Channels [o0, o1)
/// of the tile's 8 (relative to it) are stored.
template <int NV>
void pointwiseTile(const float *x, int64_t cs, int64_t C, const float *w,
                   int64_t last, int64_t o0, int64_t o1, const float *bias,
                   const float *res, float *y, int64_t P, int act,
                   const float *fp) {
  V16 acc[kPwChannels][NV] = {};
  for (int64_t c = 0; c < C; ++c, x += cs, w += kOcBlock) {
    V16 xv[NV];
    for (int v = 0; v < NV; ++v)
      xv[v] = v + 1 < NV ? loadV16(x + 16 * v) : loadV16(x + 16 * v, last);
    for (int j = 0; j < kPwChannels; ++j) {
      float wj = w[j];
      for (int v = 0; v < NV; ++v)
        acc[j][v] += wj * xv[v];
    }
  }
  for (int64_t j = std::max<int64_t>(o0, 0);
       j < std::min<int64_t>(o1, kPwChannels); ++j)
    for (int v = 0; v < NV; ++v) {
      const int64_t n = v + 1 < NV ? 16 : last;
      V16 t = acc[j][v] + (bias ? bias[j] : 0.f);
      if (res)
        t += loadV16(res + j * P + 16 * v, n);
      storeV16(y + j * P + 16 * v, activate(t, n, act, fp), n);
    }
}

} // namespace

/// The end of a direct-convolution register tile: `acc` holds n <= 16
/// pixels x 32 channels (block `ob`); channels [o0, o1) of it are written
/// to the NCHW output `y` (pixel 0 at y[o * P]) with the bias, then the
/// residual (same layout as y), then the activation.
void storeConvTile(const float *acc, int64_t n, int64_t ob, int64_t o0,
                   int64_t o1, const float *bias, const float *res, float *y,
                   int64_t P, int act, const float *fp) {
  for (int64_t h = 0; h < kOcBlock; h += 16) {
    int64_t lo = std::max<int64_t>(0, o0 - ob - h),
            hi = std::min<int64_t>(16, o1 - ob - h);
    if (lo >= hi)
      continue;
    V16 b = {};
    if (bias)
      for (int64_t k = lo; k < hi; ++k)
        b[k] = bias[ob + h + k];
    V16 r[16];
    for (int64_t j = 0; j < 16; ++j)
      r[j] = j < n ? loadV16(acc + j * kOcBlock + h) + b : V16{};
    transpose16(r);
    for (int64_t k = lo; k < hi; ++k) {
      float *yo = y + (ob + h + k) * P;
      const float *ro = res ? res + (ob + h + k) * P : nullptr;
      V16 v = r[k];
#ifdef __AVX512F__
      __mmask16 m = (__mmask16)((1u << n) - 1);
      if (ro)
        v += (V16)_mm512_maskz_loadu_ps(m, ro);
      v = activate(v, n, act, fp);
      _mm512_mask_storeu_ps(yo, m, (__m512)v);
#else
      float t[16];
      std::memcpy(t, &v, sizeof(t));
      if (ro)
        for (int64_t j = 0; j < n; ++j)
          t[j] += ro[j];
      applyActivation(t, n, act, fp[0], fp[1]);
      std::memcpy(yo, t, n * sizeof(float));
#endif
    }
  }
}

void pointwiseRegisterTile(const float *x, int64_t cs, int64_t C,
                           const float *w, int64_t n, float *acc) {
  static constexpr auto tiles =
      rowTiles<1, 2>(std::make_integer_sequence<int, kMaxTilePixels>());
  static const int64_t tap0 = 0;
  tiles[n - 1](x, 0, cs, C, &tap0, 1, w, acc);
}

void blockedInRegisterTile(const float *x, int64_t bs, int64_t C,
                           const float *w, int64_t n, float *acc) {
  static constexpr auto tiles =
      blockedInTiles(std::make_integer_sequence<int, kMaxTilePixels>());
  tiles[n - 1](x, bs, C, w, acc);
}

/// Direct convolution (group 1, stride 1 or 2) on weights the scheduler
/// packed as [ceil(OC/32)][C][KH][KW][32] (zero past OC). The input rows a
/// tile needs are copied once into a zero-padded buffer, so the register
/// tiles read it without bounds checks; a 1x1 convolution without padding
/// reads the input in place. No im2col: the inputs are read by broadcasts
/// straight from the (padded) planes, and each tap's weights are two
/// vectors. The register tile holds pixels x channels, so it is transposed
/// into the NCHW output, after the bias and before the residual and the
/// activation.
void directConvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  using Rows = std::make_integer_sequence<int, kMaxTilePixels>;
  using Pairs = std::make_integer_sequence<int, kMaxTilePixels / 2>;
  // By column stride and by the channels a block computes (32, or the
  // first 16 where the rest lie past the output channels).
  static constexpr auto row1 = rowTiles<1, 2>(Rows()),
                        row2 = rowTiles<2, 2>(Rows()),
                        row1h = rowTiles<1, 1>(Rows()),
                        row2h = rowTiles<2, 1>(Rows());
  static constexpr auto pair1 = pairTiles<1, 2>(Pairs()),
                        pair2 = pairTiles<2, 2>(Pairs()),
                        pair1h = pairTiles<1, 1>(Pairs()),
                        pair2h = pairTiles<2, 1>(Pairs());
  int64_t P = s.oh * s.ow, ntaps = s.kh * s.kw;
  // Channel-blocked operands (AMK_CONV_LAYOUT): the input only of a flat
  // 1x1 convolution, the output (and residual) of any.
  const int64_t layout = convLayout(call);
  const bool xBlocked = layout & AMK_CONV_X_BLOCKED,
             yBlocked = layout & AMK_CONV_Y_BLOCKED;
  static constexpr auto blockedIn =
      blockedInTiles(std::make_integer_sequence<int, kMaxTilePixels>());
  // A 1x1 stride-1 convolution without padding reads pixel p at p: one
  // long row.
  bool flat = s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.ph == 0 &&
              s.pw == 0 && s.oh == s.h && s.ow == s.w;
  int64_t ow = flat ? P : s.ow;
  // Flat convolutions over kPwMinPixels pixels or more take channel x
  // pixel tiles (pointwiseTile). Measured on MobileNetV2 at one thread
  // (node spans, docs/runtime.md): its 28 x 28 layers 18-25% faster, the
  // 14 x 14 ones 5-15% slower (a 4-pixel tail, and up to 576 channels x 48
  // pixels that leave L1 for each 8-channel tile; slicing the channels
  // through memory cost as much), the 7 x 7 ones up to 90% slower (49
  // pixels fill four vectors).
  static constexpr std::array<decltype(&pointwiseTile<1>), 3> pwTiles = {
      &pointwiseTile<1>, &pointwiseTile<2>, &pointwiseTile<3>};
  // The channel x pixel tile reads channel rows and stores them.
  const bool pointwise = flat && P >= kPwMinPixels && !layout;
  // The input is read in place only when no tap of any output falls
  // outside it: no begin padding, and no end padding either (SAME_UPPER
  // with an odd total pads only the end).
  bool pad = s.ph != 0 || s.pw != 0 ||
             (s.oh - 1) * s.sh + (s.kh - 1) * s.dh >= s.h ||
             (s.ow - 1) * s.sw + (s.kw - 1) * s.dw >= s.w;
  // Padded rows: wide enough for every tap of every output column.
  int64_t PW = pad ? (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1 : s.w;
  thread_local std::vector<float> padded;
  thread_local std::vector<int64_t> taps;
  alignas(64) float acc[kMaxTilePixels * kOcBlock];
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t img = r / s.oc, m0 = r % s.oc;
    int64_t m1 = std::min(s.oc, m0 + (tile[1] - r));
    int64_t oy0 = tile[2] / ow, oy1 = (tile[3] - 1) / ow;
    const float *x = X + img * s.c * s.h * s.w;
    // Where output row oy's tap (0, 0) reads, channel 0.
    const float *base;
    int64_t cs, rs;
    if (!pad) {
      base = x, cs = s.h * s.w, rs = s.w;
    } else {
      int64_t iy0 = oy0 * s.sh - s.ph;
      int64_t nr = (oy1 - oy0) * s.sh + (s.kh - 1) * s.dh + 1;
      padded.resize(s.c * nr * PW);
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t i = 0; i < nr; ++i) {
          float *dst = padded.data() + (c * nr + i) * PW;
          int64_t iy = iy0 + i;
          if (iy < 0 || iy >= s.h) {
            std::fill_n(dst, PW, 0.f);
            continue;
          }
          int64_t lo = std::min(s.pw, PW), n = std::min(s.w, PW - lo);
          std::fill_n(dst, lo, 0.f);
          copyFloats(dst + lo, x + (c * s.h + iy) * s.w, n);
          std::fill(dst + lo + n, dst + PW, 0.f);
        }
      // Row oy0 of the output starts at padded row 0.
      base = padded.data() - oy0 * s.sh * PW, cs = nr * PW, rs = PW;
    }
    taps.clear();
    for (int64_t ky = 0; ky < s.kh; ++ky)
      for (int64_t kx = 0; kx < s.kw; ++kx)
        taps.push_back(ky * s.dh * rs + kx * s.dw);
    for (int64_t ob = m0 / kOcBlock * kOcBlock; ob < m1; ob += kOcBlock) {
      const float *wb = W + ob / kOcBlock * s.c * ntaps * kOcBlock;
      int64_t o0 = std::max(ob, m0), o1 = std::min(ob + kOcBlock, m1);
      const bool half = o1 - ob <= 16;
      const auto &tiles =
          s.sw == 1 ? (half ? row1h : row1) : (half ? row2h : row2);
      const auto &pairs =
          s.sw == 1 ? (half ? pair1h : pair1) : (half ? pair2h : pair2);
      if (pointwise) {
        // 48 pixels at a time, the block's four 8-channel tiles reading
        // them from L1.
        for (int64_t p0 = tile[2]; p0 < tile[3]; p0 += 48) {
          const int64_t n = std::min<int64_t>(48, tile[3] - p0),
                        nv = (n + 15) / 16, last = n - 16 * (nv - 1);
          for (int64_t sub = (o0 - ob) / kPwChannels * kPwChannels;
               sub < o1 - ob; sub += kPwChannels) {
            const int64_t at = img * s.oc * P + (ob + sub) * P + p0;
            pwTiles[nv - 1](base + p0, cs, s.c, wb + sub, last, o0 - ob - sub,
                            o1 - ob - sub, bias ? bias + ob + sub : nullptr,
                            res ? res + at : nullptr, Y + at, P, (int)s.mode,
                            call.fp);
          }
        }
        continue;
      }
      for (int64_t oy = oy0; oy <= oy1;) {
        int64_t ox0 = oy == oy0 ? tile[2] % ow : 0;
        int64_t ox1 = oy == oy1 ? (tile[3] - 1) % ow + 1 : ow;
        // Two whole rows narrower than half a register tile share one; a
        // wider row is cut into even pieces of at most 14 pixels.
        bool pair = 2 * ow <= kMaxTilePixels && ox0 == 0 && ox1 == ow &&
                    oy + 1 <= oy1 && (oy + 1 < oy1 || tile[3] % ow == 0);
        int64_t pieces =
            pair ? 1 : (ox1 - ox0 + kMaxTilePixels - 1) / kMaxTilePixels;
        for (int64_t i = 0; i < pieces; ++i) {
          int64_t a = ox0 + (ox1 - ox0) * i / pieces,
                  b = ox0 + (ox1 - ox0) * (i + 1) / pieces, n = b - a;
          const float *xp = base + oy * s.sh * rs + a * s.sw;
          if (xBlocked)
            blockedIn[n - 1](x + a * 16, P * 16, s.c, wb, acc);
          else if (pair)
            pairs[ow - 1](xp, s.sh * rs, cs, s.c, taps.data(), ntaps, wb, acc);
          else
            tiles[n - 1](xp, 0, cs, s.c, taps.data(), ntaps, wb, acc);
          // A pair's pixels are consecutive in the output too.
          n = pair ? 2 * ow : n;
          if (yBlocked)
            storeBlockedTile(
                acc, n, ob, o0, o1, bias, res ? res + img * s.oc * P : nullptr,
                Y + img * s.oc * P, P, oy * ow + a, (int)s.mode, call.fp);
          else
            storeConvTile(acc, n, ob, o0, o1, bias,
                          res ? res + img * s.oc * P + oy * ow + a : nullptr,
                          Y + img * s.oc * P + oy * ow + a, P, (int)s.mode,
                          call.fp);
        }
        oy += pair ? 2 : 1;
      }
    }
    r += m1 - m0;
  }
}

} // namespace amk::rt
