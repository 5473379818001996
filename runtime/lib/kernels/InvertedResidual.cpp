//===- InvertedResidual.cpp - Expand, depthwise, project as one kernel ----===//
//
// Part of AMK. INVERTED_RESIDUAL: MobileNetV2's block (1x1 expansion, 3x3
// depthwise, 1x1 projection, residual) over strips of output rows, or
// (no projection weights) the expansion and the depthwise layer alone, as
// EfficientNet's blocks are before their squeeze-excitation. The
// expanded and depthwise activations of a strip live in per-worker buffers
// sized for L2, so the block reads its input and writes its output once;
// as separate kernels, the expanded activation (up to 4.8 MB in
// MobileNetV2) goes out to memory and back twice (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/BlockGemm.h"
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

/// Bytes of expanded rows one strip aims at: with the depthwise rows and
/// the weights, about half of a 1 MB L2.
constexpr int64_t kStripBytes = 384 * 1024;

struct Block {
  int64_t n, c, h, w, ce, co, oh, ow, s;
  int act1, act2, act3;
  explicit Block(const int64_t *ip)
      : n(ip[AMK_IR_N]), c(ip[AMK_IR_C]), h(ip[AMK_IR_H]), w(ip[AMK_IR_W]),
        ce(ip[AMK_IR_CE]), co(ip[AMK_IR_CO]), oh(ip[AMK_IR_OH]),
        ow(ip[AMK_IR_OW]), s(ip[AMK_IR_STRIDE]), act1((int)ip[AMK_IR_ACT1]),
        act2((int)ip[AMK_IR_ACT2]), act3((int)ip[AMK_IR_ACT3]) {}
};

/// Walks a task's output rows (tile rows [tile[0], tile[1]), images
/// included) strip by strip, `strip` rows at a time: `run(img, oy0, oy1,
/// lo, keep)` computes output rows [oy0, oy1) of image img from expanded
/// rows lo .. (oy1 - 1) * s + 1, whose first `keep` the previous strip
/// expanded: `move(from, keep)` has just moved them from row `from` of the
/// buffer to its front. Stops at the first strip `run` fails.
template <typename Move, typename Run>
bool forEachStrip(const Block &k, const int64_t *tile, int64_t strip, Move move,
                  Run run) {
  for (int64_t r = tile[0]; r < tile[1];) {
    const int64_t img = r / k.oh, oyA = r % k.oh;
    const int64_t oyB = std::min(k.oh, oyA + (tile[1] - r));
    // Expanded rows e0 .. e0 + have - 1 are in the buffer's rows 0 ..
    // have - 1.
    int64_t e0 = 0, have = 0;
    for (int64_t oy0 = oyA; oy0 < oyB; oy0 += strip) {
      const int64_t oy1 = std::min(oyB, oy0 + strip);
      const int64_t lo = oy0 * k.s - 1, hi = (oy1 - 1) * k.s + 1;
      int64_t keep = 0;
      if (have > 0 && lo >= e0 && lo < e0 + have) {
        keep = e0 + have - lo;
        move(lo - e0, keep);
      }
      e0 = lo, have = hi - lo + 1;
      if (!run(img, oy0, oy1, lo, keep))
        return false;
    }
    r += oyB - oyA;
  }
  return true;
}

/// The kernel's nine buffers (null where absent).
struct Buffers {
  const float *X, *W1, *B1, *WD, *BD, *W3, *B3, *R;
  float *Y;
  static Buffers of(const KernelCall &call) {
    auto in = [&](int i) {
      return static_cast<const float *>(call.buffers[i]);
    };
    return {in(AMK_IR_X),
            in(AMK_IR_W1),
            in(AMK_IR_B1),
            in(AMK_IR_WD),
            in(AMK_IR_BD),
            in(AMK_IR_W3),
            in(AMK_IR_B3),
            in(AMK_IR_R),
            static_cast<float *>(call.buffers[AMK_IR_Y])};
  }
};

bool invertedResidualTile(const KernelCall &call, const int64_t *tile,
                          std::string &error) {
  const Block k(call.ip);
  const Buffers buf = Buffers::of(call);
  const float *X = buf.X, *W1 = buf.W1, *B1 = buf.B1, *WD = buf.WD,
              *BD = buf.BD, *W3 = buf.W3, *B3 = buf.B3, *R = buf.R;
  float *Y = buf.Y;
  const float *fp = call.fp;
  const int64_t HW = k.h * k.w, P = k.oh * k.ow;
  // Expanded rows are stored zero-padded (one column on the left, enough
  // on the right for the depthwise kernel's 16-pixel vectors), so the
  // depthwise reads them without bounds checks.
  const int64_t OWr = (k.ow + 15) / 16 * 16;
  const int64_t PW = std::max(k.w + 2, (OWr - 1) * k.s + 3);
  const int64_t fit = std::max<int64_t>(3, kStripBytes / (k.ce * PW * 4));
  const int64_t strip = std::max<int64_t>(1, (fit - 3) / k.s + 1);
  const int64_t cap = (strip - 1) * k.s + 3; // expanded rows per strip
  thread_local std::vector<float> E, D;
  if ((int64_t)E.size() < k.ce * cap * PW + 64)
    E.resize(k.ce * cap * PW + 64);
  if ((int64_t)D.size() < k.ce * strip * k.ow)
    D.resize(k.ce * strip * k.ow);
  BlockKernels expand, project;
  expand.lda = k.c, expand.ldb = HW, expand.ldc = cap * PW;
  project.lda = k.ce, project.ldb = strip * k.ow, project.ldc = P;
  // Rows the previous strip expanded and this one reads again move to the
  // front.
  auto move = [&](int64_t from, int64_t keep) {
    for (int64_t ch = 0; ch < k.ce; ++ch) {
      float *e = E.data() + ch * cap * PW;
      std::memmove(e, e + from * PW, keep * PW * sizeof(float));
    }
  };
  return forEachStrip(
      k, tile, strip, move,
      [&](int64_t img, int64_t oy0, int64_t oy1, int64_t lo, int64_t keep) {
        const int64_t ns = oy1 - oy0, hi = (oy1 - 1) * k.s + 1;
        const float *x = X + img * k.c * HW;
        for (int64_t iy = lo + keep; iy <= hi; ++iy) {
          const int64_t i = iy - lo;
          if (iy < 0 || iy >= k.h) {
            for (int64_t ch = 0; ch < k.ce; ++ch)
              std::fill_n(E.data() + (ch * cap + i) * PW, PW, 0.f);
            continue;
          }
          float *row = E.data() + i * PW + 1;
          if (W1) {
            if (!blockGemm(expand, W1, x + iy * k.w, row, k.ce, k.w, k.c)) {
              error = "kernel '" +
                      std::string(call.kernel->name ? call.kernel->name : "") +
                      "': libxsmm has no kernel for the expansion";
              return false;
            }
          } else {
            for (int64_t ch = 0; ch < k.ce; ++ch)
              copyFloats(row + ch * cap * PW, x + ch * HW + iy * k.w, k.w);
          }
          for (int64_t ch = 0; ch < k.ce; ++ch) {
            float *e = row + ch * cap * PW;
            if (W1)
              convEpilogue(e, k.w, ch, B1, nullptr, k.act1, fp);
            e[-1] = 0.f;
            std::fill(e + k.w, e - 1 + PW, 0.f);
          }
        }
        // Depthwise into D [CE][ns][OW], with its ReLU/Clip in registers;
        // without a projection, straight into Y's rows (CO is CE).
        const bool fuse = k.act2 == AMK_OP_NONE || k.act2 == AMK_OP_RELU ||
                          k.act2 == AMK_OP_CLIP;
        for (int64_t ch = 0; ch < k.ce; ++ch) {
          const float *plane = E.data() + ch * cap * PW;
          float *d = W3 ? D.data() + ch * strip * k.ow
                        : Y + (img * k.ce + ch) * P + oy0 * k.ow;
          float b = BD ? BD[ch] : 0.f;
          int act = fuse ? k.act2 : AMK_OP_NONE;
          if (k.s == 1)
            dw3x3Plane<1>(plane, PW, 1, ns, k.ow, WD + ch * 9, b, act, fp[2],
                          fp[3], d, nullptr, 0);
          else
            dw3x3Plane<2>(plane, PW, 2, ns, k.ow, WD + ch * 9, b, act, fp[2],
                          fp[3], d, nullptr, 0);
          if (!fuse)
            applyActivation(d, ns * k.ow, k.act2, fp[2], fp[3]);
        }
        if (!W3)
          return true;
        // Projection straight into Y's rows, then bias, residual, activation.
        float *y = Y + img * k.co * P + oy0 * k.ow;
        if (!blockGemm(project, W3, D.data(), y, k.co, ns * k.ow, k.ce)) {
          error = "kernel '" +
                  std::string(call.kernel->name ? call.kernel->name : "") +
                  "': libxsmm has no kernel for the projection";
          return false;
        }
        for (int64_t o = 0; o < k.co; ++o)
          convEpilogue(y + o * P, ns * k.ow, o, B3,
                       R ? R + img * k.co * P + o * P + oy0 * k.ow : nullptr,
                       k.act3, fp + 4);
        return true;
      });
}

/// Variant 1: the same block with the expanded and depthwise activations
/// of a strip channel-blocked (NCHW16c: [CE / 16][row][pixel][16]) in the
/// per-worker buffers, and the two 1x1 convolutions on the direct kernel's
/// register tiles (W1 and W3 packed as it packs them, [ceil(OC / 32)][C]
/// [32]). The expansion's tiles of pixels x 32 channels are stored as
/// they are, a pixel's 16 channels being one line of the blocked rows; the
/// depthwise layer is 9 FMAs of whole vectors per output pixel, its rows
/// padded by one zero column on each side; the projection broadcasts from
/// the blocked rows and transposes its tiles into the NCHW output. Variant
/// 0 keeps each channel's rows apart: at 56 to 112 pixels a row, its
/// depthwise vectors are partly idle and its 1x1 products, per row, have
/// only 16 to 144 input channels to amortize their C tiles over.
bool invertedResidualBlockedTile(const KernelCall &call, const int64_t *tile,
                                 std::string &error) {
  const Block k(call.ip);
  const Buffers buf = Buffers::of(call);
  const float *X = buf.X, *W1 = buf.W1, *B1 = buf.B1, *WD = buf.WD,
              *BD = buf.BD, *W3 = buf.W3, *B3 = buf.B3, *R = buf.R;
  float *Y = buf.Y;
  if (!W1) {
    error = "kernel '" +
            std::string(call.kernel->name ? call.kernel->name : "") +
            "': the channel-blocked inverted-residual block needs its "
            "expansion's weights";
    return false;
  }
  const float *fp = call.fp;
  constexpr int64_t B = AMK_CONV_OC_BLOCK, T = 14; // register tile
  const int64_t HW = k.h * k.w, P = k.oh * k.ow, CB = k.ce / 16;
  // Blocked rows: a zero column on each side of the W pixels.
  const int64_t PW = k.w + 2;
  const int64_t fit = std::max<int64_t>(3, kStripBytes / (k.ce * PW * 4));
  const int64_t strip = std::max<int64_t>(1, (fit - 3) / k.s + 1);
  const int64_t cap = (strip - 1) * k.s + 3; // expanded rows per strip
  thread_local std::vector<V16> E, D;
  if ((int64_t)E.size() < CB * cap * PW)
    E.resize(CB * cap * PW);
  if ((int64_t)D.size() < CB * strip * k.ow)
    D.resize(CB * strip * k.ow);
  alignas(64) float acc[T * B];
  V16 wd[9];
  auto move = [&](int64_t from, int64_t keep) {
    for (int64_t cb = 0; cb < CB; ++cb) {
      V16 *e = E.data() + cb * cap * PW;
      std::memmove(e, e + from * PW, keep * PW * sizeof(V16));
    }
  };
  return forEachStrip(
      k, tile, strip, move,
      [&](int64_t img, int64_t oy0, int64_t oy1, int64_t lo, int64_t keep) {
        const int64_t ns = oy1 - oy0, hi = (oy1 - 1) * k.s + 1;
        const float *x = X + img * k.c * HW;
        for (int64_t iy = lo + keep; iy <= hi; ++iy) {
          const int64_t i = iy - lo;
          for (int64_t cb = 0; cb < CB; ++cb) {
            V16 *row = E.data() + (cb * cap + i) * PW;
            row[0] = row[PW - 1] = V16{};
            if (iy < 0 || iy >= k.h)
              std::fill_n(row, PW, V16{});
          }
          if (iy < 0 || iy >= k.h)
            continue;
          // Pieces of at most 14 pixels, as even as they come.
          const int64_t pieces = (k.w + T - 1) / T;
          for (int64_t q = 0; q < pieces; ++q) {
            const int64_t a = k.w * q / pieces, n = k.w * (q + 1) / pieces - a;
            for (int64_t ob = 0; ob < k.ce; ob += B) {
              pointwiseRegisterTile(x + iy * k.w + a, HW, k.c, W1 + ob * k.c, n,
                                    acc);
              for (int64_t h = 0; h < B && ob + h < k.ce; h += 16) {
                const V16 b = B1 ? loadV16(B1 + ob + h) : V16{};
                V16 *dst = E.data() + ((ob + h) / 16 * cap + i) * PW + 1 + a;
                for (int64_t j = 0; j < n; ++j)
                  dst[j] =
                      activate(loadV16(acc + j * B + h) + b, 16, k.act1, fp);
              }
            }
          }
        }
        // Depthwise into D [CB][ns * OW][16], bias and activation in
        // registers.
        for (int64_t cb = 0; cb < CB; ++cb) {
          for (int t = 0; t < 9; ++t)
            for (int c = 0; c < 16; ++c)
              wd[t][c] = WD[(cb * 16 + c) * 9 + t];
          const V16 bd = BD ? loadV16(BD + cb * 16) : V16{};
          const V16 *e = E.data() + cb * cap * PW;
          V16 *d = D.data() + cb * ns * k.ow;
          for (int64_t oy = 0; oy < ns; ++oy) {
            const V16 *r0 = e + oy * k.s * PW, *r1 = r0 + PW, *r2 = r1 + PW;
            for (int64_t ox = 0; ox < k.ow; ++ox) {
              const int64_t c = ox * k.s;
              V16 v = bd;
              v += wd[0] * r0[c] + wd[1] * r0[c + 1] + wd[2] * r0[c + 2];
              v += wd[3] * r1[c] + wd[4] * r1[c + 1] + wd[5] * r1[c + 2];
              v += wd[6] * r2[c] + wd[7] * r2[c + 1] + wd[8] * r2[c + 2];
              d[oy * k.ow + ox] = activate(v, 16, k.act2, fp + 2);
            }
          }
        }
        const int64_t Pn = ns * k.ow;
        if (!W3) {
          // No projection: the depthwise rows are the output, transposed
          // 16 pixels at a time into Y's NCHW rows (CO is CE).
          V16 t[16];
          for (int64_t cb = 0; cb < CB; ++cb) {
            const V16 *d = D.data() + cb * Pn;
            float *y = Y + (img * k.ce + cb * 16) * P + oy0 * k.ow;
            for (int64_t p = 0; p < Pn; p += 16) {
              const int64_t n = std::min<int64_t>(16, Pn - p);
              for (int64_t q = 0; q < 16; ++q)
                t[q] = q < n ? d[p + q] : V16{};
              transpose16(t);
              for (int64_t c = 0; c < 16; ++c)
                storeV16(y + c * P + p, t[c], n);
            }
          }
          return true;
        }
        // Projection from the blocked rows into Y's NCHW rows.
        const int64_t pieces = (Pn + T - 1) / T;
        const int64_t at = img * k.co * P + oy0 * k.ow;
        for (int64_t q = 0; q < pieces; ++q) {
          const int64_t a = Pn * q / pieces, n = Pn * (q + 1) / pieces - a;
          for (int64_t ob = 0; ob < k.co; ob += B) {
            blockedInRegisterTile(reinterpret_cast<const float *>(D.data() + a),
                                  Pn * 16, k.ce, W3 + ob * k.ce, n, acc);
            storeConvTile(acc, n, ob, ob, std::min(ob + B, k.co), B3,
                          R ? R + at + a : nullptr, Y + at + a, P, k.act3,
                          fp + 4);
          }
        }
        return true;
      });
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_INVERTED_RESIDUAL>::run(const KernelCall &call,
                                                 const int64_t *tile,
                                                 std::string &error) {
  if (call.kernel && call.kernel->variant == 1)
    return invertedResidualBlockedTile(call, tile, error);
  return invertedResidualTile(call, tile, error);
}

template <>
bool KernelImpl<AMK_RT_K_INVERTED_RESIDUAL>::check(const amk_rt_kernel &k,
                                                   const int64_t *ip,
                                                   const float *,
                                                   std::string &error) {
  if (!hasParams(k, AMK_IR_NUM_IPARAMS, 6, error))
    return false;
  const int64_t s = ip[AMK_IR_STRIDE];
  if (k.num_buffers < AMK_IR_NUM_BUFFERS || (s != 1 && s != 2) ||
      ip[AMK_IR_OH] != (ip[AMK_IR_H] - 1) / s + 1 ||
      ip[AMK_IR_OW] != (ip[AMK_IR_W] - 1) / s + 1) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': the inverted-residual block needs its nine buffers, a "
            "depthwise stride of 1 or 2 and the output size of a padded "
            "3x3 convolution";
    return false;
  }
  if (k.variant == 1 && ip[AMK_IR_CE] % 16) {
    error = "kernel '" + std::string(k.name ? k.name : "") +
            "': the channel-blocked inverted-residual block needs an "
            "expansion whose channels 16 divides";
    return false;
  }
  return true;
}

} // namespace amk::rt
