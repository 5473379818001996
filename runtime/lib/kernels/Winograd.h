//===- Winograd.h - Winograd F(m x m, 3 x 3) matrices -----------*- C++ -*-===//
//
// Part of AMK. The matrices of Winograd's minimal filtering for 3x3
// convolutions, shared by the CONV variant-3 kernel (input and output
// transforms at run time) and the scheduler (the weight transform at
// compile time), so the two cannot disagree. F(2x2, 3x3) interpolates at
// 0, 1, -1 and infinity, F(4x4, 3x3) at 0, +-1, +-2 and infinity (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks", 2016): points
// that keep the transforms' coefficients small, which bounds the float
// rounding error (docs/runtime.md has the measured error).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_WINOGRAD_H
#define AMK_RUNTIME_KERNELS_WINOGRAD_H

#include "runtime/include/amk/kernel_params.h"

#include <algorithm>
#include <cstdint>

namespace amk::rt::winograd {

/// Output tile M x M, input tile A x A (A = M + 2); BT is B transposed (the
/// input transform V = BT d B), G the filter transform (U = G g GT), AT the
/// output transform (Y = AT m A).
template <int M> struct Matrices;

template <> struct Matrices<2> {
  static constexpr int A = 4;
  static constexpr float BT[4][4] = {
      {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr double G[4][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr float AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};

template <> struct Matrices<4> {
  static constexpr int A = 6;
  static constexpr float BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                     {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                     {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr double G[6][3] = {{1.0 / 4, 0, 0},
                                     {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                     {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                     {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                     {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                     {0, 0, 1}};
  static constexpr float AT[4][6] = {{1, 1, 1, 1, 1, 0},
                                     {0, 1, -1, 2, -2, 0},
                                     {0, 1, 1, 4, 4, 0},
                                     {0, 1, -1, 8, -8, 1}};
};

/// Floats of the transformed weights of an OC x C x 3 x 3 filter.
inline int64_t transformedWeightFloats(int m, int64_t OC, int64_t C) {
  int64_t a = m + 2, blocks = (OC + AMK_CONV_OC_BLOCK - 1) / AMK_CONV_OC_BLOCK;
  return a * a * blocks * C * AMK_CONV_OC_BLOCK;
}

/// Weights `w` [OC][C][3][3] to `u` [A*A][ceil(OC/32)][C][32]:
/// u[xi][o / 32][c][o % 32] = (G w[o][c] GT)[xi], zero past OC, computed in
/// double. Each transform point's 32-channel block is then one contiguous
/// C x 32 panel, the order the kernel's register tiles stream it in.
template <int M>
void transformWeights(int64_t OC, int64_t C, const float *w, float *u) {
  using T = Matrices<M>;
  constexpr int A = T::A;
  const int64_t B = AMK_CONV_OC_BLOCK, blocks = (OC + B - 1) / B;
  std::fill_n(u, transformedWeightFloats(M, OC, C), 0.f);
  for (int64_t o = 0; o < OC; ++o)
    for (int64_t c = 0; c < C; ++c) {
      const float *g = w + (o * C + c) * 9;
      double gg[A][3];
      for (int i = 0; i < A; ++i)
        for (int k = 0; k < 3; ++k)
          gg[i][k] =
              T::G[i][0] * g[k] + T::G[i][1] * g[3 + k] + T::G[i][2] * g[6 + k];
      for (int i = 0; i < A; ++i)
        for (int j = 0; j < A; ++j) {
          double v = gg[i][0] * T::G[j][0] + gg[i][1] * T::G[j][1] +
                     gg[i][2] * T::G[j][2];
          u[(((i * A + j) * blocks + o / B) * C + c) * B + o % B] = (float)v;
        }
    }
}

inline void transformWeights(int m, int64_t OC, int64_t C, const float *w,
                             float *u) {
  if (m == 2)
    transformWeights<2>(OC, C, w, u);
  else
    transformWeights<4>(OC, C, w, u);
}

} // namespace amk::rt::winograd

#endif // AMK_RUNTIME_KERNELS_WINOGRAD_H
