//===- WinogradConv.cpp - Winograd F(m x m, 3 x 3) convolution ------------===//
//
// Part of AMK. CONV variant 3: a 3x3 stride-1 convolution as Winograd's
// minimal filtering. A task copies the input rows of its output tiles into a
// zero-padded buffer split by column phase, transforms them 16 tiles at a
// time, multiplies them by the weights the scheduler transformed at compile
// time (one product per transform point, on register tiles like the direct
// convolution's), and transforms the products back into NCHW output rows
// with the bias, residual and activation (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/Vector.h"
#include "runtime/lib/kernels/Winograd.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

namespace amk::rt {

namespace {

constexpr int64_t kOcBlock = AMK_CONV_OC_BLOCK;
/// Most tiles one register tile holds: R x 2 accumulators and the two
/// weight vectors fit AVX-512's 32 registers.
constexpr int kMaxTiles = 14;
/// Per-chunk working set (transformed inputs and products) the chunking
/// aims at: about L2, unless one pass over the weights is larger, in which
/// case chunks would only re-read them.
constexpr int64_t kChunkBytes = 768 * 1024;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Splits 16 * M consecutive floats (in[0..M), in order) by phase:
/// dst[p * phase + t] = element t * M + p (whole-vector shuffles; a
/// compiler turns the strided loop into gathers).
template <int M> void splitPhases(const V16 *in, float *dst, int64_t phase);

template <> void splitPhases<2>(const V16 *in, float *dst, int64_t phase) {
  V16 a = in[0], b = in[1];
  V16 e = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                  22, 24, 26, 28, 30);
  V16 o = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                  23, 25, 27, 29, 31);
  std::memcpy(dst, &e, sizeof(e));
  std::memcpy(dst + phase, &o, sizeof(o));
}

template <> void splitPhases<4>(const V16 *in, float *dst, int64_t phase) {
  typedef float V8 __attribute__((vector_size(32)));
  V16 a = in[0], b = in[1], c = in[2], d = in[3];
#define AMK_PHASE(P)                                                           \
  {                                                                            \
    V8 lo = __builtin_shufflevector(a, b, P, P + 4, P + 8, P + 12, P + 16,     \
                                    P + 20, P + 24, P + 28);                   \
    V8 hi = __builtin_shufflevector(c, d, P, P + 4, P + 8, P + 12, P + 16,     \
                                    P + 20, P + 24, P + 28);                   \
    V16 v = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,  \
                                    11, 12, 13, 14, 15);                       \
    std::memcpy(dst + P * phase, &v, sizeof(v));                               \
  }
  AMK_PHASE(0)
  AMK_PHASE(1)
  AMK_PHASE(2)
  AMK_PHASE(3)
#undef AMK_PHASE
}

/// One dimension of the transforms, written out rather than as products
/// with the matrices of Winograd.h (whose zero and one entries a compiler
/// may not fold in float arithmetic): shared sums and FMAs take 14 vector
/// operations for F(4x4)'s input instead of 36. x[i * xs] in, y[i * ys]
/// out.
template <int M> struct Transform1D;

template <> struct Transform1D<2> {
  // BT = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
  static void in(const V16 *x, int xs, V16 *y, int ys) {
    V16 d0 = x[0], d1 = x[xs], d2 = x[2 * xs], d3 = x[3 * xs];
    y[0] = d0 - d2, y[ys] = d1 + d2, y[2 * ys] = d2 - d1, y[3 * ys] = d1 - d3;
  }
  // AT = [1 1 1 0; 0 1 -1 -1]
  static void out(const V16 *x, int xs, V16 *y, int ys) {
    V16 m1 = x[xs], m2 = x[2 * xs];
    y[0] = x[0] + m1 + m2, y[ys] = m1 - m2 - x[3 * xs];
  }
};

template <> struct Transform1D<4> {
  // BT rows: 4 0 -5 0 1 0 | 0 -4 -4 1 1 0 | 0 4 -4 -1 1 0 |
  //          0 -2 -1 2 1 0 | 0 2 -1 -2 1 0 | 0 4 0 -5 0 1
  static void in(const V16 *x, int xs, V16 *y, int ys) {
    V16 d0 = x[0], d1 = x[xs], d2 = x[2 * xs], d3 = x[3 * xs], d4 = x[4 * xs],
        d5 = x[5 * xs];
    V16 s34 = d3 + d4, s12 = d1 + d2, t43 = d4 - d3, t12 = d1 - d2;
    V16 t42 = d4 - d2, t31 = d3 - d1;
    y[0] = d0 * 4.f + (d4 - d2 * 5.f);
    y[ys] = s34 - s12 * 4.f;
    y[2 * ys] = t43 + t12 * 4.f;
    y[3 * ys] = t42 + t31 * 2.f;
    y[4 * ys] = t42 - t31 * 2.f;
    y[5 * ys] = d1 * 4.f + (d5 - d3 * 5.f);
  }
  // AT rows: 1 1 1 1 1 0 | 0 1 -1 2 -2 0 | 0 1 1 4 4 0 | 0 1 -1 8 -8 1
  static void out(const V16 *x, int xs, V16 *y, int ys) {
    V16 a = x[xs] + x[2 * xs], b = x[xs] - x[2 * xs], c = x[3 * xs] + x[4 * xs],
        d = x[3 * xs] - x[4 * xs];
    y[0] = x[0] + a + c;
    y[ys] = b + d * 2.f;
    y[2 * ys] = a + c * 4.f;
    y[3 * ys] = (b + d * 8.f) + x[5 * xs];
  }
};

/// Transforms 16 consecutive tiles of one tile row of one channel:
/// V = BT d B. `src` is the tile row's first input row at the first tile,
/// in the phase-split layout (element j of tile t's input row at
/// src[(j % M) * phase + t + j / M]); point xi of the 16 tiles goes to
/// dst[xi * pointStride].
template <int M>
void transformInput(const float *src, int64_t rowStride, int64_t phase,
                    float *dst, int64_t pointStride) {
  constexpr int A = M + 2;
  V16 d[A][A], e[A][A];
#pragma clang loop unroll(full)
  for (int i = 0; i < A; ++i)
#pragma clang loop unroll(full)
    for (int j = 0; j < A; ++j)
      d[i][j] = loadV16(src + i * rowStride + (j % M) * phase + j / M);
#pragma clang loop unroll(full)
  for (int j = 0; j < A; ++j)
    Transform1D<M>::in(&d[0][j], A, &e[0][j], A);
#pragma clang loop unroll(full)
  for (int k = 0; k < A; ++k) {
    V16 v[A];
    Transform1D<M>::in(&e[k][0], 1, v, 1);
#pragma clang loop unroll(full)
    for (int l = 0; l < A; ++l)
      std::memcpy(dst + (k * A + l) * pointStride, &v[l], sizeof(V16));
  }
}

/// Y = AT m A for 16 output channels of one tile: m[xi] are the A*A
/// products (lanes: channels); y[r * M + s] gets output pixel (r, s).
template <int M> void transformOutput(const V16 *m, V16 *y) {
  constexpr int A = M + 2;
  V16 f[M][A];
#pragma clang loop unroll(full)
  for (int l = 0; l < A; ++l)
    Transform1D<M>::out(m + l, A, &f[0][l], A);
#pragma clang loop unroll(full)
  for (int r = 0; r < M; ++r)
    Transform1D<M>::out(&f[r][0], 1, y + r * M, 1);
}

/// R tiles x 32 output channels of one transform point, summed over every
/// input channel in order (so the tiling never changes the bits): per
/// channel two weight vectors and R broadcast inputs feed 2R FMAs. `v` is
/// the point's transformed inputs at the first tile (channel c at
/// v[c * cs]), `u` its C x 32 weight panel. Writes tile j's 32 channels at
/// out + j * os.
template <int R>
void winogradMicroTile(const float *v, int64_t cs, int64_t C, const float *u,
                       float *out, int64_t os) {
  V16 acc[R][2] = {};
  for (int64_t c = 0; c < C; ++c, v += cs, u += kOcBlock) {
    V16 w0 = loadV16(u), w1 = loadV16(u + 16);
    __builtin_prefetch(u + 48 * kOcBlock);
    __builtin_prefetch(u + 48 * kOcBlock + 16);
#pragma clang loop unroll(full)
    for (int j = 0; j < R; ++j) {
      float x = v[j];
      acc[j][0] += w0 * x;
      acc[j][1] += w1 * x;
    }
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < R; ++j)
    std::memcpy(out + j * os, acc[j], sizeof(acc[j]));
}

using MicroTileFn = void (*)(const float *, int64_t, int64_t, const float *,
                             float *, int64_t);

template <int... Rs>
constexpr std::array<MicroTileFn, sizeof...(Rs)>
microTiles(std::integer_sequence<int, Rs...>) {
  return {&winogradMicroTile<Rs + 1>...};
}

/// Per-worker buffers: the phase-split input rows, the transformed inputs
/// and the products.
struct Buffers {
  std::vector<float> in, v, m;
};

/// `b` with room for n floats. Never shrinks it: chunks of a task differ
/// in size, and growing a vector again would zero the new part each time.
float *room(std::vector<float> &b, int64_t n) {
  if ((int64_t)b.size() < n)
    b.resize(n);
  return b.data();
}

/// What one chunk of a task works on: whole tile rows [tr0, tr0 + rows) of
/// image `img`, output channels [m0, m1) in 32-channel blocks [b0, b0 + nb).
struct Chunk {
  const Spatial &s;
  int64_t img, m0, m1, b0, nb, tr0, rows;
  int64_t TW, L, Tc, nr, ts;
};

/// The chunk's input rows, zero-padded and split by column phase: padded
/// column q = t * M + p of input row i goes to in[(c * nr + i) * M * L +
/// p * L + t].
template <int M>
[[gnu::noinline]] void copyRows(const Chunk &k, const float *x, Buffers &buf) {
  const Spatial &s = k.s;
  const int64_t rowFloats = M * k.L;
  room(buf.in, s.c * k.nr * rowFloats);
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t i = 0; i < k.nr; ++i) {
      float *dst = buf.in.data() + (c * k.nr + i) * rowFloats;
      int64_t iy = k.tr0 * M - s.ph + i;
      if (iy < 0 || iy >= s.h) {
        for (int64_t q = 0; q < rowFloats; q += 16)
          storeV16(dst + q, V16{}, 16);
        continue;
      }
      // Windows of the zero-padded row straight from X, 16 tiles at a
      // time: a padded copy that was stored and loaded back at once cost
      // a store-forwarding stall per vector (a sixth of an F(4x4) layer).
      const float *xr = x + (c * s.h + iy) * s.w;
      for (int64_t t = 0; t < k.L; t += 16) {
        V16 v[M];
#pragma clang loop unroll(full)
        for (int j = 0; j < M; ++j)
          v[j] = loadV16Window(xr, s.w, t * M + 16 * j - s.pw);
        splitPhases<M>(v, dst + t, k.L);
      }
    }
}

/// Transformed inputs, v[c][xi][ts]: tile j of the chunk at j (a
/// channel's points together, so one transform's stores stay close).
template <int M>
[[gnu::noinline]] void transformInputs(const Chunk &k, Buffers &buf) {
  constexpr int A = M + 2;
  const int64_t C = k.s.c, rowFloats = M * k.L;
  room(buf.v, A * A * C * k.ts);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t tr = 0; tr < k.rows; ++tr)
      for (int64_t t0 = 0; t0 < k.TW; t0 += 16)
        transformInput<M>(
            buf.in.data() + (c * k.nr + tr * M) * rowFloats + t0, rowFloats,
            k.L, buf.v.data() + c * A * A * k.ts + tr * k.TW + t0, k.ts);
}

/// Products, m[block][Tc][xi][32] (a tile's points together for the
/// output transform): per transform point, every block of the chunk
/// against the point's inputs, which stay in cache across the blocks.
template <int M>
[[gnu::noinline]] void multiply(const Chunk &k, const float *W, Buffers &buf) {
  constexpr int A = M + 2;
  static constexpr auto micro =
      microTiles(std::make_integer_sequence<int, kMaxTiles>());
  const int64_t C = k.s.c, blocks = ceilDiv(k.s.oc, kOcBlock);
  room(buf.m, A * A * k.nb * k.Tc * kOcBlock);
  const int64_t pieces = ceilDiv(k.Tc, kMaxTiles);
  for (int64_t xi = 0; xi < A * A; ++xi) {
    const float *vx = buf.v.data() + xi * k.ts;
    for (int64_t b = 0; b < k.nb; ++b) {
      const float *u = W + ((xi * blocks + k.b0 + b) * C) * kOcBlock;
      float *mo = buf.m.data() + (b * k.Tc * A * A + xi) * kOcBlock;
      for (int64_t i = 0; i < pieces; ++i) {
        int64_t a = k.Tc * i / pieces, e = k.Tc * (i + 1) / pieces;
        micro[e - a - 1](vx + a, A * A * k.ts, C, u, mo + a * A * A * kOcBlock,
                         A * A * kOcBlock);
      }
    }
  }
}

/// Back to NCHW: 16 channels of a tile at a time, transposed so that each
/// channel's M x M pixels are one vector; bias, residual, activation. A
/// pixel row is stored (and the residual's loaded) by a masked access to
/// its M lanes where they land in Y: the lanes, not a copy through a
/// buffer, and no per-row library call.
template <int M>
[[gnu::noinline]] void storeOutputs(const Chunk &k, const KernelCall &call,
                                    const int64_t *tile, const Buffers &buf) {
  constexpr int A = M + 2, A2 = A * A;
  const Spatial &s = k.s;
  auto [X, W, Y, bias, res] = ConvBuffers::of(call);
  const int64_t OC = s.oc, P = s.oh * s.ow, Tc = k.Tc, nb = k.nb;
  alignas(64) V16 mv[A2], y[16];
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t ob = (k.b0 + b) * kOcBlock;
    for (int64_t h = 0; h < kOcBlock; h += 16) {
      const int64_t lo = std::max<int64_t>(0, k.m0 - ob - h),
                    hi = std::min<int64_t>(16, k.m1 - ob - h);
      if (lo >= hi)
        continue;
      // The bias of these 16 channels, one per lane, added to each
      // pixel's vector before the transpose.
      V16 bv = {};
      if (bias)
        bv = loadV16Window(bias + ob + h, hi, 0);
      for (int64_t j = 0; j < Tc; ++j) {
        const int64_t oy = (k.tr0 + j / k.TW) * M, ox = j % k.TW * M;
        const int64_t cnt = std::min<int64_t>(M, s.ow - ox);
        // Row rr of the tile is lanes [rr * M, rr * M + cnt), stored at
        // pixel p_rr = (oy + rr) * ow + ox, i.e. from lane 0 at p_rr - rr
        // * M. Rows below the plane or outside the task's columns are
        // left out.
        uint32_t rowMask[M];
        int64_t rowAt[M];
        for (int rr = 0; rr < M; ++rr) {
          const int64_t p = (oy + rr) * s.ow + ox;
          const bool in = oy + rr < s.oh && p >= tile[2] && p < tile[3];
          rowMask[rr] = in ? ((1u << cnt) - 1) << (rr * M) : 0;
          rowAt[rr] = p - rr * M;
        }
        const float *mp = buf.m.data() + (b * Tc + j) * A2 * kOcBlock + h;
        for (int xi = 0; xi < A2; ++xi)
          mv[xi] = loadV16(mp + xi * kOcBlock);
        transformOutput<M>(mv, y);
        for (int q = 0; q < M * M; ++q)
          y[q] += bv;
        for (int q = M * M; q < 16; ++q)
          y[q] = V16{};
        transpose16(y);
        for (int64_t q = lo; q < hi; ++q) {
          const int64_t o = ob + h + q;
          float *yo = Y + (k.img * OC + o) * P;
          V16 v = y[q];
          if (res) {
            const float *ro = res + (k.img * OC + o) * P;
            V16 r = {};
            for (int rr = 0; rr < M; ++rr)
              if (rowMask[rr])
                r = loadV16Lanes(r, ro, rowAt[rr], rowMask[rr]);
            v += r;
          }
          if (s.mode == AMK_OP_RELU) {
            v = v > 0 ? v : 0;
          } else if (s.mode == AMK_OP_CLIP) {
            v = v < call.fp[0] ? call.fp[0] : v;
            v = v > call.fp[1] ? call.fp[1] : v;
          } else if (s.mode != AMK_OP_NONE) {
            alignas(64) float t[16];
            std::memcpy(t, &v, sizeof(t));
            applyActivation(t, 16, (int)s.mode, call.fp[0], call.fp[1]);
            std::memcpy(&v, t, sizeof(t));
          }
          for (int rr = 0; rr < M; ++rr)
            if (rowMask[rr])
              storeV16Lanes(yo, rowAt[rr], v, rowMask[rr]);
        }
      }
    }
  }
}

template <int M>
void winogradTile(const KernelCall &call, const Spatial &s,
                  const int64_t *tile) {
  constexpr int A = M + 2, A2 = A * A;
  const float *X = static_cast<const float *>(call.buffers[0]);
  const float *W = static_cast<const float *>(call.buffers[1]);
  const int64_t C = s.c, OC = s.oc;
  const int64_t TW = ceilDiv(s.ow, M), TH = ceilDiv(s.oh, M);
  // A phase row holds tiles 0..TW (tile t's last two columns are the next
  // tile's first), padded so that 16-tile loads from any tile group stay
  // inside it.
  const int64_t L = ceilDiv(TW, 16) * 16 + 16;
  const int64_t tr0 = tile[2] / (M * s.ow),
                tr1 = std::min(TH, ceilDiv(tile[3], M * s.ow));
  if (tr1 <= tr0)
    return;
  thread_local Buffers buf;
  for (int64_t r = tile[0]; r < tile[1];) {
    const int64_t img = r / OC, m0 = r % OC;
    const int64_t m1 = std::min(OC, m0 + (tile[1] - r));
    const int64_t b0 = m0 / kOcBlock, nb = ceilDiv(m1, kOcBlock) - b0;
    // Chunks of whole tile rows whose transformed inputs and products stay
    // near L2, but not smaller than one pass over this task's weights.
    const int64_t perRow = A2 * TW * (C + nb * kOcBlock) * 4;
    const int64_t target =
        std::max(kChunkBytes, A2 * C * nb * kOcBlock * (int64_t)4);
    const int64_t chunks = std::min(
        tr1 - tr0, std::max<int64_t>(1, perRow * (tr1 - tr0) / target));
    const int64_t chunkRows = ceilDiv(tr1 - tr0, chunks);
    for (int64_t cr0 = tr0; cr0 < tr1; cr0 += chunkRows) {
      const int64_t rows = std::min(chunkRows, tr1 - cr0), Tc = rows * TW;
      Chunk k{s,
              img,
              m0,
              m1,
              b0,
              nb,
              cr0,
              rows,
              TW,
              L,
              Tc,
              (rows - 1) * M + A,
              ceilDiv(Tc, 16) * 16 + 16};
      copyRows<M>(k, X + img * C * s.h * s.w, buf);
      transformInputs<M>(k, buf);
      multiply<M>(k, W, buf);
      storeOutputs<M>(k, call, tile, buf);
    }
    r += m1 - m0;
  }
}

} // namespace

/// CONV variant 3 (3x3, stride 1, dilation 1, group 1) on weights the
/// scheduler transformed with winograd::transformWeights; the output tile
/// size M (2 or 4) is iparam AMK_CONV_WINOGRAD_M. Column tiles are whole
/// rows of M-row output tiles.
void winogradConvTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  if (call.ip[AMK_CONV_WINOGRAD_M] == 2)
    winogradTile<2>(call, s, tile);
  else
    winogradTile<4>(call, s, tile);
}

} // namespace amk::rt
