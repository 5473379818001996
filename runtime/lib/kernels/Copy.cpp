//===- Copy.cpp - Strided copies ------------------------------------------===//
//
// Part of AMK. COPY: the strided N-d copy behind Transpose, Slice, Concat,
// Split and outputs that alias another tensor.
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Vector.h"

#include <cstring>
#include <string>

namespace amk::rt {

namespace {

void copyTile(const KernelCall &call, const int64_t *tile) {
  const int64_t *ip = call.ip;
  int64_t eb = ip[0], rank = ip[1], srcOff = ip[2], dstOff = ip[3];
  const int64_t *dims = ip + 4, *ss = dims + rank, *ds = ss + rank;
  const char *X = static_cast<const char *>(call.buffers[0]);
  char *Y = static_cast<char *>(call.buffers[1]);
  int64_t last = rank ? dims[rank - 1] : 1;
  int64_t lss = rank ? ss[rank - 1] : 1, lds = rank ? ds[rank - 1] : 1;
  // A transpose of the last two axes (the source contiguous along the
  // second-to-last, the destination along the last) moves 16 x 16 blocks
  // through registers instead of one strided float at a time.
  int64_t rowDim = rank >= 2 ? dims[rank - 2] : 0;
  bool blocks = eb == 4 && rank >= 2 && lds == 1 && lss != 1 &&
                ss[rank - 2] == 1 && last >= 16;
  for (int64_t r = tile[0]; r < tile[1];) {
    int64_t s = srcOff, d = dstOff, flat = r;
    for (int64_t dim = rank - 2; dim >= 0; --dim) {
      int64_t i = flat % dims[dim];
      flat /= dims[dim];
      s += i * ss[dim];
      d += i * ds[dim];
    }
    if (blocks && r + 16 <= tile[1] && r % rowDim + 16 <= rowDim) {
      const float *xs = reinterpret_cast<const float *>(X) + s;
      float *yd = reinterpret_cast<float *>(Y) + d;
      int64_t drow = ds[rank - 2], j = 0;
      for (; j + 16 <= last; j += 16) {
        V16 v[16];
        for (int k = 0; k < 16; ++k)
          v[k] = loadV16(xs + (j + k) * lss);
        transpose16(v);
        for (int k = 0; k < 16; ++k)
          std::memcpy(yd + k * drow + j, &v[k], sizeof(V16));
      }
      for (int k = 0; k < 16; ++k)
        for (int64_t i = j; i < last; ++i)
          yd[k * drow + i] = xs[i * lss + k];
      r += 16;
      continue;
    }
    ++r;
    if (lss == 1 && lds == 1) {
      std::memcpy(Y + d * eb, X + s * eb, last * eb);
    } else if (eb == 4) {
      const float *xs = reinterpret_cast<const float *>(X) + s;
      float *yd = reinterpret_cast<float *>(Y) + d;
      for (int64_t i = 0; i < last; ++i)
        yd[i * lds] = xs[i * lss];
    } else {
      for (int64_t i = 0; i < last; ++i)
        std::memcpy(Y + (d + i * lds) * eb, X + (s + i * lss) * eb, eb);
    }
  }
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_COPY>::run(const KernelCall &call, const int64_t *tile,
                                    std::string &) {
  copyTile(call, tile);
  return true;
}

template <>
bool KernelImpl<AMK_RT_K_COPY>::check(const amk_rt_kernel &k, const int64_t *ip,
                                      const float *, std::string &error) {
  return hasParams(k, 4, 0, error) && k.num_iparams >= 4 + 3 * (uint64_t)ip[1];
}

} // namespace amk::rt
