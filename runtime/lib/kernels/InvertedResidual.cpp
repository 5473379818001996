//===- InvertedResidual.cpp - Expand, depthwise, project as one kernel ----===//
//
// Part of AMK. INVERTED_RESIDUAL: MobileNetV2's block (1x1 expansion, 3x3
// depthwise, 1x1 projection, residual) over strips of output rows. The
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

bool invertedResidualTile(const KernelCall &call, const int64_t *tile,
                          std::string &error) {
  const Block k(call.ip);
  const auto *X = static_cast<const float *>(call.buffers[AMK_IR_X]);
  const auto *W1 = static_cast<const float *>(call.buffers[AMK_IR_W1]);
  const auto *B1 = static_cast<const float *>(call.buffers[AMK_IR_B1]);
  const auto *WD = static_cast<const float *>(call.buffers[AMK_IR_WD]);
  const auto *BD = static_cast<const float *>(call.buffers[AMK_IR_BD]);
  const auto *W3 = static_cast<const float *>(call.buffers[AMK_IR_W3]);
  const auto *B3 = static_cast<const float *>(call.buffers[AMK_IR_B3]);
  const auto *R = static_cast<const float *>(call.buffers[AMK_IR_R]);
  auto *Y = static_cast<float *>(call.buffers[AMK_IR_Y]);
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
  for (int64_t r = tile[0]; r < tile[1];) {
    const int64_t img = r / k.oh, oyA = r % k.oh;
    const int64_t oyB = std::min(k.oh, oyA + (tile[1] - r));
    const float *x = X + img * k.c * HW;
    // Expanded rows e0 .. e0 + have - 1 are in E's rows 0 .. have - 1.
    int64_t e0 = 0, have = 0;
    for (int64_t oy0 = oyA; oy0 < oyB; oy0 += strip) {
      const int64_t oy1 = std::min(oyB, oy0 + strip), ns = oy1 - oy0;
      const int64_t lo = oy0 * k.s - 1, hi = (oy1 - 1) * k.s + 1;
      // Rows the previous strip expanded and this one reads again move to
      // the front.
      int64_t keep = 0;
      if (have > 0 && lo >= e0 && lo < e0 + have) {
        keep = e0 + have - lo;
        for (int64_t ch = 0; ch < k.ce; ++ch) {
          float *e = E.data() + ch * cap * PW;
          std::memmove(e, e + (lo - e0) * PW, keep * PW * sizeof(float));
        }
      }
      e0 = lo, have = hi - lo + 1;
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
      // Depthwise into D [CE][ns][OW], with its ReLU/Clip in registers.
      const bool fuse = k.act2 == AMK_OP_NONE || k.act2 == AMK_OP_RELU ||
                        k.act2 == AMK_OP_CLIP;
      for (int64_t ch = 0; ch < k.ce; ++ch) {
        const float *plane = E.data() + ch * cap * PW;
        float *d = D.data() + ch * strip * k.ow;
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
    }
    r += oyB - oyA;
  }
  return true;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_INVERTED_RESIDUAL>::run(const KernelCall &call,
                                                 const int64_t *tile,
                                                 std::string &error) {
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
  return true;
}

} // namespace amk::rt
