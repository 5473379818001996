//===- Attention.cpp - Fused attention ------------------------------------===//
//
// Part of AMK. ATTENTION per (batch x head, query tile): Q K^T on libxsmm
// blocks, scale, mask, softmax, then times V; no S x T buffer beyond one
// query tile.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/BlockGemm.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Softmax.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <string>
#include <vector>

namespace amk::rt {

namespace {

bool attentionTile(const KernelCall &call, const int64_t *tile,
                   std::string &error) {
  const int64_t *ip = call.ip;
  int64_t H = ip[AMK_ATT_H], S = ip[AMK_ATT_S], T = ip[AMK_ATT_T],
          D = ip[AMK_ATT_D], DV = ip[AMK_ATT_DV];
  bool kt = ip[AMK_ATT_KEY_TRANSPOSED];
  const float *Q = static_cast<const float *>(call.buffers[0]);
  const float *Kp = static_cast<const float *>(call.buffers[1]);
  const float *V = static_cast<const float *>(call.buffers[2]);
  float *O = static_cast<float *>(call.buffers[3]);
  const float *mask = static_cast<const float *>(call.buffers[4]);
  float scale = call.fp[0];
  int64_t group = ip[AMK_ATT_GROUP], HK = H / group;
  int64_t rows = tile[3] - tile[2];
  thread_local std::vector<float> scores, kT;
  scores.resize(rows * T);
  if (!kt && rows > 1)
    kT.resize(D * T);
  for (int64_t bh = tile[0]; bh < tile[1]; ++bh) {
    int64_t b = bh / H, h = bh % H, kvh = b * HK + h / group;
    const float *q = Q + (bh * S + tile[2]) * D;
    const float *k = Kp + kvh * T * D;
    const float *v = V + kvh * T * DV;
    float *o = O + (bh * S + tile[2]) * DV;
    if (!kt && rows == 1) {
      // One query (a decode step): the scores are K q, one dot product
      // per key row, read straight from the cache.
      for (int64_t t = 0; t < T; ++t) {
        const float *kr = k + t * D;
        V16 acc = {};
        int64_t d = 0;
        for (; d + 16 <= D; d += 16)
          acc += loadV16(kr + d) * loadV16(q + d);
        if (d < D)
          acc += loadV16(kr + d, D - d) * loadV16(q + d, D - d);
        float s = 0;
        for (int l = 0; l < 16; ++l)
          s += acc[l];
        scores[t] = s;
      }
    } else {
      // Keys as [D][T]: scores = Q K^T is then a plain row-major product.
      const float *kd = k;
      if (!kt) {
        for (int64_t t = 0; t < T; ++t)
          for (int64_t d = 0; d < D; ++d)
            kT[d * T + t] = k[t * D + d];
        kd = kT.data();
      }
      if (!blockGemm(q, D, kd, T, scores.data(), T, rows, T, D)) {
        error = "libxsmm has no kernel for the attention scores";
        return false;
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      float *srow = scores.data() + i * T;
      for (int64_t t = 0; t < T; ++t)
        srow[t] *= scale;
      if (mask) {
        const float *m = mask + b * ip[AMK_ATT_MASK_SB] +
                         h * ip[AMK_ATT_MASK_SH] +
                         (tile[2] + i) * ip[AMK_ATT_MASK_SS];
        int64_t st = ip[AMK_ATT_MASK_ST];
        for (int64_t t = 0; t < T; ++t)
          srow[t] += m[t * st];
      }
      softmaxRow(srow, srow, T, 1);
    }
    if (!blockGemm(scores.data(), T, v, DV, o, DV, rows, DV, T)) {
      error = "libxsmm has no kernel for the attention output";
      return false;
    }
  }
  return true;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_ATTENTION>::run(const KernelCall &call,
                                         const int64_t *tile,
                                         std::string &error) {
  return attentionTile(call, tile, error);
}

template <>
bool KernelImpl<AMK_RT_K_ATTENTION>::check(const amk_rt_kernel &k,
                                           const int64_t *ip, const float *,
                                           std::string &error) {
  if (!hasParams(k, AMK_ATT_NUM_IPARAMS, 1, error) || k.num_buffers < 5)
    return false;
  if (ip[AMK_ATT_GROUP] < 1 || ip[AMK_ATT_H] % ip[AMK_ATT_GROUP]) {
    error = "bad attention head group";
    return false;
  }
  return true;
}

} // namespace amk::rt
