//===- Pool.cpp - Max and average pooling ---------------------------------===//
//
// Part of AMK. POOL: separable max pooling over -inf padded rows, 16
// outputs per vector; global average as one vector sum per plane; other
// averages by index arithmetic; max pooling of 8-bit values (variants 1 and 2).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Reduction.h"
#include "runtime/lib/kernels/Vector.h"
#include "runtime/lib/kernels/Vnni.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace amk::rt {

namespace {

#if defined(__x86_64__)
/// Output row `oy` of an 8-bit max pool with strides 1 or 2, 32 outputs
/// at a time, the running maximum kept in a register over the taps (stride
/// 2: 64 bytes narrowed to their even bytes by vpmovwb), flipped back and
/// stored once. The plane's 64-byte slack keeps whole vectors inside it.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
maxRowAvx512(const uint8_t *plane, int64_t pw, const Spatial &s, int64_t oy,
             uint8_t flip, uint8_t *y) {
  const __m256i f = _mm256_set1_epi8((char)flip);
  for (int64_t i = 0; i < s.ow; i += 32) {
    __mmask32 k = s.ow - i >= 32 ? ~0u : (1u << (s.ow - i)) - 1;
    __m256i acc = _mm256_setzero_si256();
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const uint8_t *r = plane + (oy * s.sh + ky * s.dh) * pw + i * s.sw;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const uint8_t *src = r + kx * s.dw;
        __m256i v = s.sw == 1 ? _mm256_loadu_si256((const __m256i *)src)
                              : _mm512_cvtepi16_epi8(_mm512_loadu_si512(src));
        acc = _mm256_max_epu8(acc, v);
      }
    }
    _mm256_mask_storeu_epi8(y + i, k, _mm256_xor_si256(acc, f));
  }
}
#endif

/// Max pooling of 8-bit values (variant 1: uint8, 2: int8; what
/// amk-lower-qdq makes of DequantizeLinear -> MaxPool -> QuantizeLinear):
/// per plane a zero-padded byte copy, int8 flipped to the same order as
/// unsigned (x ^ 0x80), so a pad never wins, then per output row the
/// running maximum over the taps in unit- or two-byte strides, which the
/// compiler vectorizes.
void maxPoolBytes(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  const uint8_t *X = static_cast<const uint8_t *>(call.buffers[0]);
  uint8_t *Y = static_cast<uint8_t *>(call.buffers[1]);
  const uint8_t flip = call.kernel->variant == 2 ? 0x80 : 0;
  int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1);
  int64_t PW = std::max(s.w + s.pw, (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1);
  thread_local std::vector<uint8_t> plane, row;
  plane.assign(PH * PW + 64, 0);
  row.resize(s.ow);
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const uint8_t *x = X + r * s.h * s.w;
    for (int64_t iy = 0; iy < s.h; ++iy) {
      uint8_t *dst = plane.data() + (iy + s.ph) * PW + s.pw;
      if (!flip) {
        std::memcpy(dst, x + iy * s.w, s.w);
        continue;
      }
      for (int64_t ix = 0; ix < s.w; ++ix)
        dst[ix] = x[iy * s.w + ix] ^ flip;
    }
    uint8_t *y = Y + r * s.oh * s.ow;
#if defined(__x86_64__)
    if ((s.sw == 1 || s.sw == 2) && hasAvx512()) {
      for (int64_t oy = 0; oy < s.oh; ++oy)
        maxRowAvx512(plane.data(), PW, s, oy, flip, y + oy * s.ow);
      continue;
    }
#endif
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      uint8_t *o = row.data();
      std::fill_n(o, s.ow, 0);
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const uint8_t *src =
              plane.data() + (oy * s.sh + ky * s.dh) * PW + kx * s.dw;
          if (s.sw == 1)
            for (int64_t ox = 0; ox < s.ow; ++ox)
              o[ox] = std::max(o[ox], src[ox]);
          else if (s.sw == 2)
            for (int64_t ox = 0; ox < s.ow; ++ox)
              o[ox] = std::max(o[ox], src[2 * ox]);
          else
            for (int64_t ox = 0; ox < s.ow; ++ox)
              o[ox] = std::max(o[ox], src[ox * s.sw]);
        }
      for (int64_t ox = 0; ox < s.ow; ++ox)
        y[oy * s.ow + ox] = o[ox] ^ flip;
    }
  }
}

/// Average pooling of 8-bit values (variant 3): the reference's
/// arithmetic (double sums of the dequantized values, the mean rounded to
/// float once), so the bytes are the QDQ graph's. Pads count as the float
/// kernel counts them.
template <typename TX, typename TY>
void averagePoolBytes(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  const TX *X = static_cast<const TX *>(call.buffers[0]);
  TY *Y = static_cast<TY *>(call.buffers[1]);
  const int64_t *qp = call.ip + AMK_SP_NUM_IPARAMS;
  const int32_t zx = (int32_t)qp[2];
  const float zy = (float)qp[3], sx = call.fp[0], sy = call.fp[1];
  const float lo = std::numeric_limits<TY>::lowest(),
              hi = std::numeric_limits<TY>::max();
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const TX *x = X + r * s.h * s.w;
    TY *y = Y + r * s.oh * s.ow;
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        double acc = 0;
        int64_t count = 0;
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            int64_t ix = ox * s.sw - s.pw + kx * s.dw;
            if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w) {
              acc += (double)((float)((int32_t)x[iy * s.w + ix] - zx) * sx);
              ++count;
            } else if (s.mode == 1 && iy < s.h + s.ph && ix < s.w + s.pw) {
              ++count;
            }
          }
        }
        float mean = count ? (float)(acc / (double)count) : 0.f;
        float v = __builtin_roundevenf(mean / sy) + zy;
        y[oy * s.ow + ox] = static_cast<TY>(std::min(std::max(v, lo), hi));
      }
  }
}

void poolTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
  if (call.kernel->variant == AMK_POOL_VARIANT_QAVERAGE) {
    const int64_t *qp = call.ip + AMK_SP_NUM_IPARAMS;
    const bool xs = qp[0] == AMK_RT_I8, ys = qp[1] == AMK_RT_I8;
    if (xs && ys)
      return averagePoolBytes<int8_t, int8_t>(call, tile);
    if (xs)
      return averagePoolBytes<int8_t, uint8_t>(call, tile);
    if (ys)
      return averagePoolBytes<uint8_t, int8_t>(call, tile);
    return averagePoolBytes<uint8_t, uint8_t>(call, tile);
  }
  if (call.kernel->variant != 0)
    return maxPoolBytes(call, tile);
  const float *X = static_cast<const float *>(call.buffers[0]);
  float *Y = static_cast<float *>(call.buffers[1]);
  bool averages = s.mode == 1 || s.mode == 2;
  if ((averages || s.mode == 3) && s.oh == 1 && s.ow == 1 && s.kh == s.h &&
      s.kw == s.w && s.ph == 0 && s.pw == 0) {
    // Global average or sum: one vector sum per plane.
    float scale = averages ? 1.f / (float)(s.h * s.w) : 1.f;
    for (int64_t r = tile[0]; r < tile[1]; ++r)
      Y[r] = sumFloats(X + r * s.h * s.w, s.h * s.w) * scale;
    return;
  }
  if (s.mode == 0 && s.dh == 1 && s.dw == 1) {
    // Max pooling, rows first: per output row, the maximum over the
    // window's input rows (whole vectors, no shuffles) into a -inf padded
    // row in L1, then the maximum over each window's columns of that one
    // row (16 outputs a vector, strides 1 and 2 as vectors). The columns
    // first (a ring of kh rows of column maxima) did the strided
    // shuffles on every input row, twice per output row at stride 2, and
    // its three-tap chains were the loop's bound: ResNet-18's pool
    // (64 x 112 x 112, 3x3 stride 2) took 0.206 ms alone, 0.285 ms inside
    // the model, against ORT's 0.17 (docs/runtime.md). A -inf padded copy
    // of the whole plane read 9 times per output vector, before that,
    // took 0.40 ms.
    constexpr int64_t V = 16;
    const float NEG = -std::numeric_limits<float>::infinity();
    bool vec = s.sw == 1 || s.sw == 2;
    int64_t OWr = vec ? (s.ow + V - 1) / V * V : s.ow;
    // A padded row covers every tap of the rounded-up output row, plus a
    // vector's slack for the stride-2 loads.
    int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + s.kw);
    thread_local std::vector<float> row;
    row.assign(PW + 2 * V, NEG);
    float *mid = row.data() + s.pw; // the plane's columns; pads stay -inf
    for (int64_t r = tile[0]; r < tile[1]; ++r) {
      const float *x = X + r * s.h * s.w;
      float *y = Y + r * s.oh * s.ow;
      const char *next = r + 1 < tile[1]
                             ? reinterpret_cast<const char *>(x + s.h * s.w)
                             : nullptr;
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        prefetchShare(next, s.h * s.w * sizeof(float), oy, s.oh);
        float *yr = y + oy * s.ow;
        int64_t ky0 = std::max<int64_t>(0, s.ph - oy * s.sh);
        int64_t ky1 = std::min<int64_t>(s.kh, s.h + s.ph - oy * s.sh);
        if (ky0 >= ky1) { // A window entirely in the padding.
          std::fill_n(yr, s.ow, NEG);
          continue;
        }
        const float *first = x + (oy * s.sh - s.ph + ky0) * s.w;
        const int64_t n = ky1 - ky0;
        for (int64_t x0 = 0; x0 < s.w; x0 += V) {
          const int64_t m = std::min(V, s.w - x0);
          V16 acc = loadV16(first + x0, m);
          for (int64_t i = 1; i < n; ++i) {
            V16 v = loadV16(first + i * s.w + x0, m);
            acc = v > acc ? v : acc;
          }
          storeV16(mid + x0, acc, m);
        }
        if (!vec) {
          for (int64_t ox = 0; ox < s.ow; ++ox) {
            float m = NEG;
            for (int64_t kx = 0; kx < s.kw; ++kx)
              m = std::max(m, row[ox * s.sw + kx]);
            yr[ox] = m;
          }
          continue;
        }
        for (int64_t ox0 = 0; ox0 < s.ow; ox0 += V) {
          const int64_t m = std::min(V, s.ow - ox0);
          const float *src = row.data() + ox0 * s.sw;
          V16 acc = s.sw == 1 ? loadV16(src) : loadV16Stride2(src);
          for (int64_t kx = 1; kx < s.kw; ++kx) {
            V16 v = s.sw == 1 ? loadV16(src + kx) : loadV16Stride2(src + kx);
            acc = v > acc ? v : acc;
          }
          storeV16(yr + ox0, acc, m);
        }
      }
    }
    return;
  }
  if (averages && s.dh == 1 && s.dw == 1 && s.ph == 0 && s.pw == 0 &&
      (s.oh - 1) * s.sh + s.kh <= s.h && (s.ow - 1) * s.sw + s.kw <= s.w &&
      (s.sw == 1 || s.sw == 2)) {
    // Average pooling whose windows all lie inside the plane (DenseNet's
    // 2x2 stride-2 transitions, Inception's 3x3 stride 1 with no pads): 16
    // outputs a vector, each summing its taps in the scalar loop's order,
    // so the values are the same. One output at a time, DenseNet-121's
    // three took 1.6 ms against ORT's 0.09 (docs/runtime.md).
    constexpr int64_t V = 16;
    const float count = (float)(s.kh * s.kw);
    // The first m outputs' taps at p: masked, so nothing past the row's
    // last needed element is read.
    auto load = [&](const float *p, int64_t m) -> V16 {
      if (s.sw == 1)
        return loadV16(p, m);
      const int64_t need = 2 * m - 1;
      V16 a = loadV16(p, std::min(V, need));
      V16 b = need > V ? loadV16(p + V, need - V) : V16{};
      return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                     20, 22, 24, 26, 28, 30);
    };
    for (int64_t r = tile[0]; r < tile[1]; ++r) {
      const float *x = X + r * s.h * s.w;
      float *y = Y + r * s.oh * s.ow;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox0 = 0; ox0 < s.ow; ox0 += V) {
          const int64_t m = std::min(V, s.ow - ox0);
          V16 acc = {};
          for (int64_t ky = 0; ky < s.kh; ++ky) {
            const float *src = x + (oy * s.sh + ky) * s.w + ox0 * s.sw;
            for (int64_t kx = 0; kx < s.kw; ++kx)
              acc += load(src + kx, m);
          }
          storeV16(y + oy * s.ow + ox0, acc / count, m);
        }
    }
    return;
  }
  if (s.mode >= AMK_POOL_L1) {
    // The other reductions, over the window's in-bounds elements, in
    // double (a log-sum-exp shifted by the window's maximum).
    for (int64_t r = tile[0]; r < tile[1]; ++r) {
      const float *x = X + r * s.h * s.w;
      float *y = Y + r * s.oh * s.ow;
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          auto window = [&](auto f) {
            for (int64_t ky = 0; ky < s.kh; ++ky) {
              int64_t iy = oy * s.sh - s.ph + ky * s.dh;
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t ix = ox * s.sw - s.pw + kx * s.dw;
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                  f((double)x[iy * s.w + ix]);
              }
            }
          };
          double acc = reduceValues(s.mode, window);
          y[oy * s.ow + ox] = (float)acc;
        }
    }
    return;
  }
  for (int64_t r = tile[0]; r < tile[1]; ++r) {
    const float *x = X + r * s.h * s.w;
    float *y = Y + r * s.oh * s.ow;
    for (int64_t oy = 0; oy < s.oh; ++oy)
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        float acc = s.mode == 0   ? -std::numeric_limits<float>::infinity()
                    : s.mode == 4 ? std::numeric_limits<float>::infinity()
                                  : 0;
        int64_t count = 0;
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            int64_t ix = ox * s.sw - s.pw + kx * s.dw;
            bool in = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
            if (s.mode == 0) {
              if (in)
                acc = std::max(acc, x[iy * s.w + ix]);
            } else if (s.mode == 4) {
              if (in)
                acc = std::min(acc, x[iy * s.w + ix]);
            } else if (in) {
              acc += x[iy * s.w + ix];
              ++count;
            } else if (s.mode == 1 && iy < s.h + s.ph && ix < s.w + s.pw) {
              // Counted padding stops at the declared pads (ONNX).
              ++count;
            }
          }
        }
        y[oy * s.ow + ox] = !averages ? acc
                            : count   ? acc / (float)count
                                      : 0.f;
      }
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_POOL>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &) {
  poolTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_POOL>::check(const amk_rt_kernel &k,
                                      const int64_t *ip, const float *,
                                      std::string &error) {
  if (!hasParams(k, AMK_SP_NUM_IPARAMS, 0, error))
    return false;
  const bool qavg = k.variant == AMK_POOL_VARIANT_QAVERAGE;
  auto is8 = [](int64_t d) { return d == AMK_RT_U8 || d == AMK_RT_I8; };
  if (k.variant > AMK_POOL_VARIANT_QAVERAGE ||
      (k.variant != 0 && !qavg && ip[AMK_SP_MODE] != 0) ||
      (qavg &&
       (k.num_iparams < AMK_SP_NUM_IPARAMS + 4 || k.num_fparams < 2 ||
        !is8(ip[AMK_SP_NUM_IPARAMS]) || !is8(ip[AMK_SP_NUM_IPARAMS + 1]) ||
        (ip[AMK_SP_MODE] != 1 && ip[AMK_SP_MODE] != 2)))) {
    error = "pool variant " + std::to_string(k.variant) +
            " is not 0 (float32), 1, 2 (max pooling of uint8, int8) or 3 "
            "(average pooling of 8-bit values, with their types, zero "
            "points and scales)";
    return false;
  }
  if (ip[AMK_SP_MODE] < 0 || ip[AMK_SP_MODE] > AMK_POOL_PROD) {
    error = "pool mode " + std::to_string(ip[AMK_SP_MODE]) +
            " is not 0 (max), 1, 2 (average), 3 (sum), 4 (min) or 5-10 "
            "(L1, L2, sum of squares, log-sum, log-sum-exp, product)";
    return false;
  }
  return true;
}

} // namespace amk::rt
