//===- Resize.cpp - Resize ------------------------------------------------===//
//
// Part of AMK. RESIZE (kernel_params.h): every tap index and weight was
// computed at compile time, so the kernel only gathers. Per row (all axes
// but the last), the combinations of the leading axes' taps are expanded
// once into (offset, weight) pairs; each output of the row then sums over
// those pairs and its last-axis taps.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"

#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

struct ResizeParams {
  int64_t rank, eb;
  const int64_t *in, *out, *taps, *off;
  explicit ResizeParams(const int64_t *ip)
      : rank(ip[AMK_RESIZE_RANK]), eb(ip[AMK_RESIZE_ELEM_BYTES]),
        in(ip + AMK_RESIZE_DIMS), out(in + rank), taps(out + rank),
        off(taps + rank) {}
};

} // namespace

template <>
bool KernelImpl<AMK_RT_K_RESIZE>::run(const KernelCall &call,
                                      const int64_t *tile, std::string &) {
  ResizeParams p(call.ip);
  const char *X = static_cast<const char *>(call.buffers[0]);
  char *Y = static_cast<char *>(call.buffers[1]);
  const int32_t *IDX = static_cast<const int32_t *>(call.buffers[2]);
  const float *W = static_cast<const float *>(call.buffers[3]);
  bool weighted = call.kernel->variant == AMK_RESIZE_VARIANT_WEIGHTED;
  int64_t r = p.rank, last = r - 1;
  int64_t inStride[AMK_RESIZE_MAX_RANK];
  for (int64_t d = r - 1, s = 1; d >= 0; --d) {
    inStride[d] = s;
    s *= p.in[d];
  }
  int64_t outLast = p.out[last], tapsLast = p.taps[last];
  const int32_t *idxLast = IDX + p.off[last];
  const float *wLast = weighted ? W + p.off[last] : nullptr;
  thread_local std::vector<int64_t> offs;
  thread_local std::vector<float> ws;
  for (int64_t row = tile[0]; row < tile[1]; ++row) {
    // The row's coordinates along the leading axes.
    int64_t coord[AMK_RESIZE_MAX_RANK];
    for (int64_t d = last - 1, rest = row; d >= 0; --d) {
      coord[d] = rest % p.out[d];
      rest /= p.out[d];
    }
    offs.assign(1, 0);
    ws.assign(1, 1.f);
    for (int64_t d = 0; d < last; ++d) {
      int64_t t = p.taps[d], base = p.off[d] + coord[d] * t;
      size_t n = offs.size();
      std::vector<int64_t> no;
      std::vector<float> nw;
      no.reserve(n * t);
      nw.reserve(n * t);
      for (size_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < t; ++k) {
          // Nearest (and index-mapped padding) reads no weights.
          float w = weighted ? W[base + k] : 1.f;
          if (weighted && w == 0.f)
            continue;
          no.push_back(offs[i] + (int64_t)IDX[base + k] * inStride[d]);
          nw.push_back(ws[i] * w);
        }
      offs.swap(no);
      ws.swap(nw);
    }
    if (!weighted) {
      for (int64_t o = 0; o < outLast; ++o)
        std::memcpy(Y + (row * outLast + o) * p.eb,
                    X + (offs[0] + idxLast[o]) * p.eb, p.eb);
      continue;
    }
    const float *x = reinterpret_cast<const float *>(X);
    float *y = reinterpret_cast<float *>(Y) + row * outLast;
    for (int64_t o = 0; o < outLast; ++o) {
      float acc = 0;
      for (size_t i = 0; i < offs.size(); ++i) {
        const float *src = x + offs[i];
        float inner = 0;
        for (int64_t k = 0; k < tapsLast; ++k)
          inner += wLast[o * tapsLast + k] * src[idxLast[o * tapsLast + k]];
        acc += ws[i] * inner;
      }
      y[o] = acc;
    }
  }
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_RESIZE>::check(const amk_rt_kernel &k,
                                        const int64_t *ip, const float *,
                                        std::string &error) {
  if (!hasParams(k, AMK_RESIZE_DIMS, 0, error))
    return false;
  int64_t rank = ip[AMK_RESIZE_RANK];
  if (rank < 1 || rank > AMK_RESIZE_MAX_RANK ||
      k.num_iparams != (uint32_t)(AMK_RESIZE_DIMS + 4 * rank) ||
      k.num_buffers != 4 || k.variant > AMK_RESIZE_VARIANT_NEAREST) {
    error = "bad resize parameters (rank 1-8, 4 buffers, variant 0 or 1)";
    return false;
  }
  const int64_t *taps = ip + AMK_RESIZE_DIMS + 2 * rank;
  for (int64_t d = 0; d < rank; ++d)
    if (taps[d] < 1 ||
        (k.variant == AMK_RESIZE_VARIANT_NEAREST && taps[d] != 1)) {
      error = "bad tap count on axis " + std::to_string(d);
      return false;
    }
  return true;
}

} // namespace amk::rt
