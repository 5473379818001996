// A read-only loop over one buffer, repeated, to compare a decoder step's
// weight stream with what one core reads (docs/decoder.md): K interleaved
// streams over quarters of the buffer (K = 1, 2, 4, 8), software prefetch
// D bytes ahead (hint t0, or nta), and a first R MB read without prefetch
// (the part one might hope to keep in L2).
//
// Build: c++ -O2 -mavx512f -o /tmp/read_streams utils/bench/read_streams.cpp
// Run:   /tmp/read_streams MB K D [nta|t0] [R]   (prints min and median ms)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <int K>
static float pass(const float *a, size_t n, size_t resident, size_t ahead,
                  bool nta) {
  __m512 s[K][2];
  for (int k = 0; k < K; ++k)
    s[k][0] = s[k][1] = _mm512_setzero_ps();
  size_t q = n / K;
  for (size_t i = 0; i < q; i += 32)
    for (int k = 0; k < K; ++k) {
      const float *p = a + k * q + i;
      if (ahead && k * q + i >= resident) {
        if (nta)
          _mm_prefetch((const char *)p + ahead, _MM_HINT_NTA);
        else
          _mm_prefetch((const char *)p + ahead, _MM_HINT_T0);
      }
      s[k][0] = _mm512_add_ps(s[k][0], _mm512_load_ps(p));
      s[k][1] = _mm512_add_ps(s[k][1], _mm512_load_ps(p + 16));
    }
  __m512 t = _mm512_setzero_ps();
  for (int k = 0; k < K; ++k)
    t = _mm512_add_ps(t, _mm512_add_ps(s[k][0], s[k][1]));
  return _mm512_reduce_add_ps(t);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: read_streams MB K D [nta|t0] [R]\n");
    return 2;
  }
  double mb = std::atof(argv[1]);
  int k = std::atoi(argv[2]);
  size_t ahead = std::atoi(argv[3]);
  bool nta = argc > 4 && std::strcmp(argv[4], "nta") == 0;
  size_t resident = argc > 5 ? (size_t)(std::atof(argv[5]) * 1048576 / 4) : 0;
  size_t n = (size_t)(mb * 1048576 / 4) / 256 * 256;
  float *a = static_cast<float *>(std::aligned_alloc(64, n * 4));
  std::fill_n(a, n, 1.f);
  std::vector<double> ms;
  float sink = 0;
  for (int r = 0; r < 80; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    switch (k) {
    case 1: sink += pass<1>(a, n, resident, ahead, nta); break;
    case 2: sink += pass<2>(a, n, resident, ahead, nta); break;
    case 4: sink += pass<4>(a, n, resident, ahead, nta); break;
    default: sink += pass<8>(a, n, resident, ahead, nta); break;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t0)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%g MB, %d streams, prefetch %zu (%s), %g MB unprefetched: "
              "min %.3f ms, median %.3f ms%s\n",
              mb, k, ahead, nta ? "nta" : "t0", resident * 4 / 1048576.0,
              ms[0], ms[40], sink < 0 ? " " : "");
  std::free(a);
}
