//===- Vnni.h - Run-time choice of the int8 dot-product path ----*- C++ -*-===//
//
// Part of AMK. QCONV and QGEMM run vpdpbusd where the CPU has it; the
// choice is made once, at run time, so one build serves every machine.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_VNNI_H
#define AMK_RUNTIME_KERNELS_VNNI_H

#include <cstdlib>

namespace amk::rt {

/// Whether to run vpdpbusd: the CPU reports AVX512-VNNI (with BW and VL)
/// and AMK_NO_VNNI is unset, which lets the tests run the portable loops
/// on a VNNI machine.
inline bool hasVnni() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx512vnni") &&
                          __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") &&
                          !std::getenv("AMK_NO_VNNI");
  return has;
#else
  return false;
#endif
}

/// Whether to run the float-converting kernels' (QCONV's epilogue,
/// WGEMM) explicit AVX-512 path: the CPU has F, BW and VL and
/// AMK_NO_AVX512 is unset (the tests' way to the portable loops).
inline bool hasAvx512() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") &&
                          !std::getenv("AMK_NO_AVX512");
  return has;
#else
  return false;
#endif
}

/// Whether to run the AVX2 integer products (QCONV, QGEMM) where VNNI is
/// not chosen: the CPU has AVX2 and AMK_NO_AVX2 is unset (the tests' way
/// to the portable loops). They emulate vpdpbusd exactly: the four u8
/// and s8 bytes of a 32-bit lane are split into even and odd 16-bit
/// halves and multiplied pairwise with vpmaddwd, whose 32-bit sums cannot
/// saturate (vpmaddubsw's 16-bit ones can: 2 x 255 x 127 > 32767).
inline bool hasAvx2() {
#if defined(__x86_64__)
  static const bool has =
      __builtin_cpu_supports("avx2") && !std::getenv("AMK_NO_AVX2");
  return has;
#else
  return false;
#endif
}

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_VNNI_H
