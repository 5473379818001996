//===- Pool.cpp - Max and average pooling ---------------------------------===//
//
// Part of AMK. POOL: max pooling over a -inf padded plane, 16 outputs per
// vector; global average as one vector sum per plane; other averages by
// index arithmetic.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/ConvCommon.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Reduction.h"
#include "runtime/lib/kernels/Vector.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace amk::rt {

namespace {

void poolTile(const KernelCall &call, const int64_t *tile) {
  Spatial s(call.ip);
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
    // Max pooling over a -inf padded plane: no bounds checks inside. Rows
    // are computed 16 outputs at a time (strides 1 and 2 as vectors), so
    // the plane is padded for a row rounded up to 16, plus a vector's
    // slack for the stride-2 loads.
    constexpr int64_t V = 16;
    bool vec = s.sw == 1 || s.sw == 2;
    int64_t OWr = vec ? (s.ow + V - 1) / V * V : s.ow;
    int64_t PH = std::max(s.h + s.ph, (s.oh - 1) * s.sh + s.kh);
    int64_t PW = std::max(s.w + s.pw, (OWr - 1) * s.sw + s.kw);
    thread_local std::vector<float> plane;
    plane.assign(PH * PW + 2 * V, -std::numeric_limits<float>::infinity());
    for (int64_t r = tile[0]; r < tile[1]; ++r) {
      const float *x = X + r * s.h * s.w;
      for (int64_t iy = 0; iy < s.h; ++iy)
        std::memcpy(plane.data() + (iy + s.ph) * PW + s.pw, x + iy * s.w,
                    s.w * sizeof(float));
      float *y = Y + r * s.oh * s.ow;
      const char *next = r + 1 < tile[1]
                             ? reinterpret_cast<const char *>(x + s.h * s.w)
                             : nullptr;
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        prefetchShare(next, s.h * s.w * sizeof(float), oy, s.oh);
        float *yr = y + oy * s.ow;
        if (vec) {
          for (int64_t ox0 = 0; ox0 < s.ow; ox0 += V) {
            V16 acc = -std::numeric_limits<float>::infinity() - (V16){};
            for (int64_t ky = 0; ky < s.kh; ++ky) {
              const float *src =
                  plane.data() + (oy * s.sh + ky) * PW + ox0 * s.sw;
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                V16 v =
                    s.sw == 1 ? loadV16(src + kx) : loadV16Stride2(src + kx);
                acc = v > acc ? v : acc;
              }
            }
            storeV16(yr + ox0, acc, std::min(V, s.ow - ox0));
          }
          continue;
        }
        std::fill_n(yr, s.ow, -std::numeric_limits<float>::infinity());
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          const float *prow = plane.data() + (oy * s.sh + ky) * PW;
          for (int64_t kx = 0; kx < s.kw; ++kx)
            for (int64_t ox = 0; ox < s.ow; ++ox)
              yr[ox] = std::max(yr[ox], prow[ox * s.sw + kx]);
        }
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
  if (ip[AMK_SP_MODE] < 0 || ip[AMK_SP_MODE] > AMK_POOL_PROD) {
    error = "pool mode " + std::to_string(ip[AMK_SP_MODE]) +
            " is not 0 (max), 1, 2 (average), 3 (sum), 4 (min) or 5-10 "
            "(L1, L2, sum of squares, log-sum, log-sum-exp, product)";
    return false;
  }
  return true;
}

} // namespace amk::rt
