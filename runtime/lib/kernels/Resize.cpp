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

#include <algorithm>
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
  const bool q8 = call.kernel->variant == AMK_RESIZE_VARIANT_WEIGHTED_Q8;
  bool weighted = call.kernel->variant == AMK_RESIZE_VARIANT_WEIGHTED || q8;
  int64_t r = p.rank, last = r - 1;
  int64_t inStride[AMK_RESIZE_MAX_RANK];
  for (int64_t d = r - 1, s = 1; d >= 0; --d) {
    inStride[d] = s;
    s *= p.in[d];
  }
  int64_t outLast = p.out[last], tapsLast = p.taps[last];
  // Variant 2's quantization, after the tap tables' iparams.
  const int64_t *qp = call.ip + AMK_RESIZE_DIMS + 4 * r;
  const bool xSigned = q8 && qp[0] == AMK_RT_I8,
             ySigned = q8 && qp[1] == AMK_RT_I8;
  const int32_t zx = q8 ? (int32_t)qp[2] : 0;
  const float zy = q8 ? (float)qp[3] : 0.f, sx = q8 ? call.fp[0] : 1.f,
              sy = q8 ? call.fp[1] : 1.f, qlo = ySigned ? -128.f : 0.f,
              qhi = ySigned ? 127.f : 255.f;
  thread_local std::vector<float> qrow;
  if (q8)
    qrow.resize(outLast);
  const int32_t *idxLast = IDX + p.off[last];
  // A crop outside the input: its taps are -1. The last axis reads through
  // a copy with them at 0, and those outputs are overwritten afterwards.
  bool extrap = !q8 && call.kernel->num_fparams == 1;
  float extrapValue = extrap ? call.fp[0] : 0.f;
  thread_local std::vector<int32_t> safeLast;
  if (extrap) {
    safeLast.assign(idxLast, idxLast + outLast * tapsLast);
    for (int32_t &i : safeLast)
      i = i < 0 ? 0 : i;
    idxLast = safeLast.data();
  }
  auto fillOutside = [&](float *y) {
    const int32_t *raw = IDX + p.off[last];
    for (int64_t o = 0; o < outLast; ++o)
      if (raw[o * tapsLast] < 0)
        y[o] = extrapValue;
  };
  const float *wLast = weighted ? W + p.off[last] : nullptr;
  thread_local std::vector<int64_t> offs, no;
  thread_local std::vector<float> ws, nw;
  // Horizontally resampled source rows, by source offset: consecutive
  // output rows of an upsampling share most of their source rows.
  struct CachedRow {
    int64_t off = -1;
    std::vector<float> v;
  };
  thread_local CachedRow cache[4];
  for (CachedRow &c : cache)
    c.off = -1;
  int64_t nextSlot = 0, prevSrc = -1;
  for (int64_t row = tile[0]; row < tile[1]; ++row) {
    // The row's coordinates along the leading axes.
    int64_t coord[AMK_RESIZE_MAX_RANK];
    for (int64_t d = last - 1, rest = row; d >= 0; --d) {
      coord[d] = rest % p.out[d];
      rest /= p.out[d];
    }
    offs.assign(1, 0);
    ws.assign(1, 1.f);
    bool outside = false;
    for (int64_t d = 0; d < last && !outside; ++d) {
      int64_t t = p.taps[d], base = p.off[d] + coord[d] * t;
      if (extrap && IDX[base] < 0) {
        outside = true;
        break;
      }
      size_t n = offs.size();
      no.clear();
      nw.clear();
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
    if (outside) {
      float *y = reinterpret_cast<float *>(Y) + row * outLast;
      std::fill(y, y + outLast, extrapValue);
      prevSrc = -1;
      continue;
    }
    if (!weighted) {
      char *y = Y + row * outLast * p.eb;
      // The same source row as the row before (nearest upsampling): a
      // copy of that output row.
      if (offs[0] == prevSrc && row > tile[0]) {
        std::memcpy(y, y - outLast * p.eb, outLast * p.eb);
        continue;
      }
      prevSrc = offs[0];
      auto gather = [&](auto *out, const auto *in) {
        in += offs[0];
        for (int64_t o = 0; o < outLast; ++o)
          out[o] = in[idxLast[o]];
      };
      switch (p.eb) {
      case 4:
        gather(reinterpret_cast<uint32_t *>(y),
               reinterpret_cast<const uint32_t *>(X));
        break;
      case 8:
        gather(reinterpret_cast<uint64_t *>(y),
               reinterpret_cast<const uint64_t *>(X));
        break;
      case 2:
        gather(reinterpret_cast<uint16_t *>(y),
               reinterpret_cast<const uint16_t *>(X));
        break;
      default:
        for (int64_t o = 0; o < outLast; ++o)
          std::memcpy(y + o * p.eb, X + (offs[0] + idxLast[o]) * p.eb, p.eb);
      }
      if (extrap)
        fillOutside(reinterpret_cast<float *>(y));
      continue;
    }
    if (q8) {
      // The QUANTIZE kernels' arithmetic: (x - z) * s in, v / s rounded to
      // even plus z out. The taps are summed in double, as the reference
      // Resize does, so a sum that lands on a rounding tie (a 2x bilinear
      // upsampling's quarter steps often do) is the tie itself there and
      // here, and the bytes are the QDQ graph's.
      float *v = qrow.data();
      auto exactRow = [&](auto load) {
        for (int64_t o = 0; o < outLast; ++o) {
          double acc = 0;
          for (size_t i = 0; i < offs.size(); ++i) {
            double inner = 0;
            for (int64_t k = 0; k < tapsLast; ++k)
              inner += (double)wLast[o * tapsLast + k] *
                       load(offs[i] + idxLast[o * tapsLast + k]);
            acc += (double)ws[i] * inner;
          }
          v[o] = (float)acc;
        }
      };
      if (xSigned) {
        const int8_t *x = reinterpret_cast<const int8_t *>(X);
        exactRow([=](int64_t i) { return (float)((int32_t)x[i] - zx) * sx; });
      } else {
        const uint8_t *x = reinterpret_cast<const uint8_t *>(X);
        exactRow([=](int64_t i) { return (float)((int32_t)x[i] - zx) * sx; });
      }
      char *yb = Y + row * outLast;
      for (int64_t o = 0; o < outLast; ++o) {
        float q = __builtin_roundevenf(v[o] / sy) + zy;
        q = std::min(std::max(q, qlo), qhi);
        if (ySigned)
          reinterpret_cast<int8_t *>(yb)[o] = (int8_t)(int32_t)q;
        else
          reinterpret_cast<uint8_t *>(yb)[o] = (uint8_t)(int32_t)q;
      }
      continue;
    }
    const float *x = reinterpret_cast<const float *>(X);
    float *y = reinterpret_cast<float *>(Y) + row * outLast;
    auto resampled = [&](int64_t off) -> const float * {
      for (CachedRow &c : cache)
        if (c.off == off)
          return c.v.data();
      CachedRow &c = cache[nextSlot];
      nextSlot = (nextSlot + 1) % 4;
      c.off = off;
      c.v.resize(outLast);
      const float *src = x + off;
      for (int64_t o = 0; o < outLast; ++o) {
        float inner = 0;
        for (int64_t k = 0; k < tapsLast; ++k)
          inner += wLast[o * tapsLast + k] * src[idxLast[o * tapsLast + k]];
        c.v[o] = inner;
      }
      return c.v.data();
    };
    if (offs.size() > 4) {
      // More source rows than the cache holds (cubic over 3-D): directly.
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
      if (extrap)
        fillOutside(y);
      continue;
    }
    const float *rows[4];
    for (size_t i = 0; i < offs.size(); ++i)
      rows[i] = resampled(offs[i]);
    // Same order of additions as above: sum over source rows of weight
    // times the resampled row.
    for (int64_t o = 0; o < outLast; ++o) {
      float acc = 0;
      for (size_t i = 0; i < offs.size(); ++i)
        acc += ws[i] * rows[i][o];
      y[o] = acc;
    }
    if (extrap)
      fillOutside(y);
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
  const bool q8 = k.variant == AMK_RESIZE_VARIANT_WEIGHTED_Q8;
  auto is8 = [](int64_t d) { return d == AMK_RT_U8 || d == AMK_RT_I8; };
  if (rank < 1 || rank > AMK_RESIZE_MAX_RANK ||
      k.num_iparams != (uint32_t)(AMK_RESIZE_DIMS + 4 * rank + (q8 ? 4 : 0)) ||
      k.num_buffers != 4 || k.variant > AMK_RESIZE_VARIANT_WEIGHTED_Q8 ||
      (q8 ? k.num_fparams != 2 || ip[AMK_RESIZE_ELEM_BYTES] != 1 ||
                !is8(ip[AMK_RESIZE_DIMS + 4 * rank]) ||
                !is8(ip[AMK_RESIZE_DIMS + 4 * rank + 1])
          : k.num_fparams > 1 ||
                (k.num_fparams == 1 && ip[AMK_RESIZE_ELEM_BYTES] != 4))) {
    error = "bad resize parameters (rank 1-8, 4 buffers, variant 0, 1 or "
            "2, an extrapolation value only for 4-byte data, 8-bit types "
            "and two scales for variant 2)";
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
