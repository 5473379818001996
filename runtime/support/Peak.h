//===- Peak.h - The machine's measured limits -------------------*- C++ -*-===//
//
// Part of AMK. The float32 FMA peak and the streaming memory bandwidth of
// this machine, measured (not read from a data sheet): amk-runtime-bench
// reports them next to the benchmark table, and amk-tune uses them for a
// model's physical latency floor (docs/tuning.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_SUPPORT_PEAK_H
#define AMK_RUNTIME_SUPPORT_PEAK_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace amk::rt {

/// Float lanes of the FMA loop (16 with AVX-512, else 8).
int peakVectorLanes();

/// GFLOP/s of a register-only FMA loop (12 independent accumulators) on
/// `threads` threads at once, the best of `reps` repetitions per thread,
/// summed over threads. `iters` loop iterations per repetition.
double measureFmaPeak(unsigned threads, uint64_t iters = 20'000'000,
                      int reps = 3);

/// The int8 product path the integer kernels (QCONV, QGEMM) take on this
/// machine: "vnni" (vpdpbusd), "avx2" (its exact emulation with
/// vpmaddwd), or "portable" (runtime/lib/kernels/Vnni.h decides, with the
/// same environment overrides).
const char *int8ProductPath();

/// G multiply-adds/s (u8 x s8 into int32) of a register-only loop of that
/// path's instructions (12 independent accumulators), on `threads` threads
/// at once, the best of `reps` repetitions per thread, summed: the integer
/// kernels' roofline. 0 for the portable path (no loop to measure).
double measureInt8Peak(unsigned threads, uint64_t iters = 20'000'000,
                       int reps = 3);

/// The same for AMX tiles (tdpbusd, four independent accumulator tiles),
/// the path the integer kernels take for blocks of 16 rows or 32 input
/// channels where the CPU has AMX-INT8 (Vnni.h); 0 without it.
double measureAmxPeak(unsigned threads, uint64_t iters = 2'000'000,
                      int reps = 3);

/// The same for AMX's bfloat16 products (tdpbf16ps into float), the path
/// of the weight-only products with bf16 activations where the CPU has
/// AMX-BF16; 0 without it.
double measureAmxBf16Peak(unsigned threads, uint64_t iters = 2'000'000,
                          int reps = 3);

/// GB/s of the triad a = b + s c over three arrays of `floatsPerArray`
/// floats (far larger than the caches), split over `threads` threads, the
/// best of `reps` repetitions. Returns a negative value if the triad
/// computed a wrong result.
double measureTriadBandwidth(unsigned threads,
                             size_t floatsPerArray = 32u << 20, int reps = 5);

/// GB/s of a read-only stream (a sum over `bytes` of 32-bit words, far
/// larger than the caches), split over `threads` threads, the best of
/// `reps` repetitions: what streaming a model's weights once per token can
/// reach, which the triad (two reads and a write) understates. Returns a
/// negative value if the sum is wrong.
double measureReadBandwidth(unsigned threads, size_t bytes = 512u << 20,
                            int reps = 5);

/// Bytes of the last-level cache (from sysfs; 0 if unknown).
uint64_t lastLevelCacheBytes();

/// "vendor model name, N cpus, flags-hash": what identifies this machine
/// for records and tuning results.
std::string machineFingerprint();

} // namespace amk::rt

#endif // AMK_RUNTIME_SUPPORT_PEAK_H
