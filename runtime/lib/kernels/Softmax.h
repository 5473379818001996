//===- Softmax.h - Softmax over one row -------------------------*- C++ -*-===//
//
// Part of AMK. Shared by SOFTMAX and by ATTENTION, which normalizes its
// scores with it.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_SOFTMAX_H
#define AMK_RUNTIME_KERNELS_SOFTMAX_H

#include <cstdint>

namespace amk::rt {

/// y = softmax(x) over n elements `stride` floats apart; y may be x.
void softmaxRow(float *y, const float *x, int64_t n, int64_t stride);
/// log(softmax) of a row, computed without taking the log of a probability.
void logSoftmaxRow(float *y, const float *x, int64_t n, int64_t stride);

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_SOFTMAX_H
