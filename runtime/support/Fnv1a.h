//===- Fnv1a.h - The 64-bit FNV-1a hash AMK uses everywhere -----*- C++ -*-===//
//
// Part of AMK. One definition of the hash behind program hashes, the
// calibration set's identity, machine fingerprints and tuning records, so
// the same bytes hash the same wherever they are hashed. Plain C++: the
// runtime and its support code use it without LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_SUPPORT_FNV1A_H
#define AMK_RUNTIME_SUPPORT_FNV1A_H

#include <cstddef>
#include <cstdint>

namespace amk {

constexpr uint64_t kFnv1aOffset = 1469598103934665603ull;

/// Mixes `n` bytes into `hash` (start from kFnv1aOffset).
inline uint64_t fnv1a(const void *data, size_t n,
                      uint64_t hash = kFnv1aOffset) {
  const auto *c = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < n; ++i)
    hash = (hash ^ c[i]) * 1099511628211ull;
  return hash;
}

} // namespace amk

#endif // AMK_RUNTIME_SUPPORT_FNV1A_H
