//===- Vnni.h - Run-time choice of the int8 dot-product path ----*- C++ -*-===//
//
// Part of AMK. QCONV and QGEMM run vpdpbusd where the CPU has it; the
// choice is made once, at run time, so one build serves every machine.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_KERNELS_VNNI_H
#define AMK_RUNTIME_KERNELS_VNNI_H

#include <cstdint>
#include <cstdlib>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

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

/// Whether the depthwise integer taps may gather each output's taps into
/// one 32-bit lane with vpermb (AVX512-VBMI) for vpdpbusd: VNNI is chosen
/// and the CPU has VBMI (AMK_NO_VBMI unset; the tests' way to the float
/// taps).
inline bool hasVbmi() {
#if defined(__x86_64__)
  static const bool has = hasVnni() && __builtin_cpu_supports("avx512vbmi") &&
                          !std::getenv("AMK_NO_VBMI");
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

#if defined(__x86_64__) && defined(__linux__)
/// Whether the CPU reports AMX-TILE and the AMX product feature at bit
/// `feature` of CPUID.(7, 0).EDX (25 AMX-INT8, 22 AMX-BF16), AMK_NO_AMX is
/// unset (the tests' way to the other paths on an AMX machine), and Linux
/// grants the process the tile state (arch_prctl ARCH_REQ_XCOMP_PERM for
/// XTILEDATA; without it the first tile instruction faults).
inline bool amxUsable(unsigned feature) {
  if (std::getenv("AMK_NO_AMX"))
    return false;
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)) ||
      !(d & (1u << feature)))
    return false;
  constexpr long kReqXcompPerm = 0x1023, kXtileData = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
}
#endif

/// Whether to run the AMX tile products (tdpbusd: a 16 x 64-byte u8 tile
/// times a 16 x 64-byte s8 tile into 16 x 16 int32, 16,384 multiply-adds
/// per instruction): AMX-INT8 is usable (amxUsable) and VNNI is chosen
/// (the kernels' epilogues and tails are its AVX-512 code).
inline bool hasAmx() {
#if defined(__x86_64__) && defined(__linux__)
  static const bool has = hasVnni() && amxUsable(25);
  return has;
#else
  return false;
#endif
}

/// Whether to run AMX's bfloat16 tile products (tdpbf16ps: 16 x 32 bf16
/// times 32 x 16 bf16 into 16 x 16 float, the weight-only product's
/// bf16-activation mode): AMX-BF16 is usable and the conversions' AVX-512
/// path is chosen.
inline bool hasAmxBf16() {
#if defined(__x86_64__) && defined(__linux__)
  static const bool has = hasAvx512() && amxUsable(22);
  return has;
#else
  return false;
#endif
}

/// The tile configuration the integer kernels use: palette 1, all eight
/// tiles 16 rows of 64 bytes (C: 16 x 16 int32; A: 16 rows of 64 reduction
/// bytes; B: 16 steps of 4 reduction bytes x 16 columns).
struct alignas(64) AmxConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
  AmxConfig() {
    for (int i = 0; i < 8; ++i)
      colsb[i] = 64, rows[i] = 16;
  }
};

} // namespace amk::rt

#endif // AMK_RUNTIME_KERNELS_VNNI_H
