//===- GroupedConv.cpp - Grouped convolution on flat phase planes ---------===//
//
// Part of AMK. CONV variant 4: register tiles of a few output channels x
// vectors of consecutive output positions, for convolutions whose groups
// are too narrow for the 32-channel direct kernel (ResNeXt's and RegNet's
// 3x3 layers, 4 to 32 channels per group). docs/runtime.md has the
// figures.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace amk::rt {

namespace {

/// Positions one tile covers at most (8 vectors), and the padding of the
/// per-channel result rows so that any tile width divides it.
constexpr int64_t kMaxTileFloats = 128;
constexpr int64_t kResultAlign = 384;

/// OCT output channels x NV vectors of 16 consecutive output positions,
/// summed over the group's `icg` input channels (phase planes `cs` floats
/// apart) and the `ntaps` taps (offsets `taps` into them). `w` points at
/// the tile's first channel in weights packed [icg][ntaps][ocg]. Each
/// tap's NV input vectors feed OCT x NV FMAs, so no lane is wasted however
/// narrow the group: the packed direct kernel would multiply 32-channel
/// blocks, 1/8 of them non-zero at 4 channels per group. Writes
/// out[OCT][ld] (whole vectors).
template <int OCT, int NV>
void groupedTile(const float *x, int64_t cs, int64_t icg, const int64_t *taps,
                 int64_t ntaps, const float *w, int64_t ocg, float *out,
                 int64_t ld) {
  V16 acc[OCT][NV] = {};
  for (int64_t j = 0; j < icg; ++j, x += cs)
    for (int64_t t = 0; t < ntaps; ++t, w += ocg) {
      const float *xt = x + taps[t];
      V16 xv[NV];
      for (int v = 0; v < NV; ++v)
        xv[v] = loadV16(xt + 16 * v);
      for (int o = 0; o < OCT; ++o) {
        const float wo = w[o];
        for (int v = 0; v < NV; ++v)
          acc[o][v] += wo * xv[v];
      }
    }
  for (int o = 0; o < OCT; ++o)
    for (int v = 0; v < NV; ++v)
      storeV16(out + o * ld + 16 * v, acc[o][v], 16);
}

using TileFn = void (*)(const float *, int64_t, int64_t, const int64_t *,
                        int64_t, const float *, int64_t, float *, int64_t);

/// The register tile shapes: OCT x NV accumulators, NV inputs and a
/// broadcast weight within AVX-512's 32 registers. Short planes take the
/// wide-channel, few-vector ones (a 7x7 output is 63 positions with its
/// junk columns: 4 vectors), long ones any.
struct TileShape {
  int oct, nv;
  TileFn fn;
};
constexpr std::array<TileShape, 9> kShapes = {{{8, 3, &groupedTile<8, 3>},
                                               {6, 4, &groupedTile<6, 4>},
                                               {4, 6, &groupedTile<4, 6>},
                                               {3, 8, &groupedTile<3, 8>},
                                               {2, 8, &groupedTile<2, 8>},
                                               {4, 4, &groupedTile<4, 4>},
                                               {2, 4, &groupedTile<2, 4>},
                                               {1, 8, &groupedTile<1, 8>},
                                               {1, 4, &groupedTile<1, 4>}}};

/// The shape for `channels` (at most) output channels over `positions`:
/// the least instructions (FMAs, input loads, weight broadcasts) per
/// output channel, counting the vectors past the last position.
const TileShape &chooseShape(int64_t channels, int64_t positions) {
  const TileShape *best = nullptr;
  double bestCost = 0;
  for (const TileShape &t : kShapes) {
    if (t.oct > channels)
      continue;
    const int64_t blocks = (positions + 16 * t.nv - 1) / (16 * t.nv);
    const double cost =
        (double)blocks * (t.oct * t.nv + t.nv + t.oct) / t.oct;
    if (!best || cost < bestCost)
      best = &t, bestCost = cost;
  }
  return *best;
}

/// The phase planes of `icg` input channels from `x` (see groupedConvTile),
/// each PR rows of PW floats, PS floats apart, zero past PR * PW. A
/// stride-2 row is split into its even and odd columns by vector shuffles:
/// with a scalar gather ResNeXt-50's stride-2 layer2.0 took 0.80 ms
/// against 0.63.
void fillPhasePlanes(const Spatial &s, const float *x, int64_t icg,
                     int64_t iy0, int64_t PR, int64_t PW, int64_t PS,
                     float *planes) {
  // A padded input row: padded[c] is input column c - pw (zero outside).
  thread_local std::vector<float> padded;
  const int64_t span = s.sw * PW;
  if (s.sw > 1)
    padded.assign((span + 32 + 15) / 16 * 16 + 32, 0.f);
  const int64_t lo = std::min(s.pw, span),
                hi = std::clamp<int64_t>(s.pw + s.w, lo, span);
  const int64_t phases = s.sh * s.sw;
  for (int64_t j = 0; j < icg; ++j) {
    float *channel = planes + j * phases * PS;
    for (int64_t py = 0; py < s.sh; ++py)
      for (int64_t pr = 0; pr < PR; ++pr) {
        // Row pr of planes (py, 0..sw-1).
        float *row = channel + py * s.sw * PS + pr * PW;
        const int64_t iy = iy0 + pr * s.sh + py;
        if (iy < 0 || iy >= s.h) {
          for (int64_t px = 0; px < s.sw; ++px)
            std::fill_n(row + px * PS, PW, 0.f);
          continue;
        }
        const float *src = x + (j * s.h + iy) * s.w + (lo - s.pw);
        if (s.sw == 1) {
          std::fill_n(row, lo, 0.f);
          copyFloats(row + lo, src, hi - lo);
          std::fill(row + hi, row + PW, 0.f);
          continue;
        }
        copyFloats(padded.data() + lo, src, hi - lo);
        if (s.sw == 2) {
          for (int64_t c = 0; c < PW; c += 16) {
            const int64_t n = std::min<int64_t>(16, PW - c);
            storeV16(row + c, loadV16Stride2(padded.data() + 2 * c), n);
            storeV16(row + PS + c, loadV16Stride2(padded.data() + 2 * c + 1),
                     n);
          }
        } else {
          for (int64_t px = 0; px < s.sw; ++px)
            for (int64_t c = 0; c < PW; ++c)
              row[px * PS + c] = padded[c * s.sw + px];
        }
      }
    for (int64_t ph = 0; ph < phases; ++ph)
      std::fill(channel + ph * PS + PR * PW, channel + (ph + 1) * PS, 0.f);
  }
}

} // namespace

/// Grouped convolution, any stride, dilation and padding, on weights the
/// scheduler packed as [group][C / group][taps][OC / group]. Per task, image
/// and group, the input rows the task's output rows need are copied into
/// zero-padded phase planes: with stride s, plane (py, px) holds the input
/// pixels whose row is py and column px modulo s, so that every tap of
/// every output is the output's flat position in a plane plus a constant.
/// Output positions then run as one long row per channel (each row carries
/// a few junk columns past the output's width, which are computed and
/// dropped) and a register tile is a few channels x whole vectors of
/// positions. The sums go to a per-worker result row per channel, then the
/// bias, residual and activation are applied on the way to the output.
void groupedConvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t icg = s.c / s.group, ocg = s.oc / s.group, P = s.oh * s.ow,
                ntaps = s.kh * s.kw;
  const int64_t oy0 = tile[2] / s.ow, oy1 = (tile[3] - 1) / s.ow,
                rows = oy1 - oy0 + 1;
  // Plane (py, px) row r, column c: input row (oy0 * sh - ph) + r * sh +
  // py, column c * sw + px - pw. Tap (ky, kx) of output (oy0 + i, ox)
  // reads row i + ky * dh / sh, column ox + kx * dw / sw of plane
  // (ky * dh % sh, kx * dw % sw).
  const int64_t rowExtra = (s.kh - 1) * s.dh / s.sh,
                colExtra = (s.kw - 1) * s.dw / s.sw;
  const int64_t PW = s.ow + colExtra, PR = rows + rowExtra;
  const int64_t positions = rows * PW;
  // The last tile reads up to a tile's width past the positions, plus the
  // taps' reach: each plane carries that much zeroed slack.
  const int64_t PS = (PR * PW + kMaxTileFloats + colExtra + 15) / 16 * 16;
  const int64_t phases = s.sh * s.sw, CS = phases * PS;
  const int64_t ld = (positions + kResultAlign - 1) / kResultAlign *
                     kResultAlign;
  thread_local std::vector<float> planes, result;
  thread_local std::vector<int64_t> taps;
  planes.resize(icg * CS);
  result.resize(8 * ld);
  taps.clear();
  for (int64_t ky = 0; ky < s.kh; ++ky)
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t dy = ky * s.dh, dx = kx * s.dw;
      taps.push_back((dy % s.sh * s.sw + dx % s.sw) * PS + dy / s.sh * PW +
                     dx / s.sw);
    }
  const int64_t iy0 = oy0 * s.sh - s.ph;
  for (int64_t r = tile[0]; r < tile[1];) {
    const int64_t img = r / s.oc, m0 = r % s.oc,
                  m1 = std::min(s.oc, m0 + (tile[1] - r));
    for (int64_t o = m0; o < m1;) {
      const int64_t g = o / ocg, oe = std::min(m1, (g + 1) * ocg);
      const float *x = X + (img * s.c + g * icg) * s.h * s.w;
      fillPhasePlanes(s, x, icg, iy0, PR, PW, PS, planes.data());
      for (int64_t c0 = o; c0 < oe;) {
        const TileShape &shape = chooseShape(oe - c0, positions);
        const int64_t oct = shape.oct, step = 16 * shape.nv;
        const float *wg = W + g * icg * ntaps * ocg + (c0 - g * ocg);
        for (int64_t p = 0; p < positions; p += step)
          shape.fn(planes.data() + p, CS, icg, taps.data(), ntaps, wg, ocg,
                   result.data() + p, ld);
        for (int64_t q = 0; q < oct; ++q) {
          const int64_t ch = c0 + q, at = (img * s.oc + ch) * P;
          const V16 b = (V16){} + (bias ? bias[ch] : 0.f);
          for (int64_t oy = oy0; oy <= oy1; ++oy) {
            const int64_t x0 = std::max(tile[2], oy * s.ow) - oy * s.ow,
                          x1 = std::min(tile[3], (oy + 1) * s.ow) - oy * s.ow;
            const float *row = result.data() + q * ld + (oy - oy0) * PW;
            for (int64_t ox = x0; ox < x1; ox += 16) {
              const int64_t n = std::min<int64_t>(16, x1 - ox),
                            y = at + oy * s.ow + ox;
              V16 v = loadV16(row + ox, n) + b;
              if (res)
                v += loadV16(res + y, n);
              storeV16(Y + y, activate(v, n, (int)s.mode, call.fp), n);
            }
          }
        }
        c0 += oct;
      }
      o = oe;
    }
    r += m1 - m0;
  }
}

} // namespace amk::rt
