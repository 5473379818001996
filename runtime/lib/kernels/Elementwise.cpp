//===- Elementwise.cpp - Elementwise programs -----------------------------===//
//
// Part of AMK. ELEMENTWISE: one kernel for every fused chain. Its register
// program (AMK_OP_*, runtime/support/EwProgram.h) is interpreted 256
// elements at a time over up to 16 inputs with broadcast strides and dtype
// conversion, unless the LLVM lowering compiled the same program to code
// (amk_rt_kernel.elementwise_fn).
//
//===----------------------------------------------------------------------===//

#include "runtime/lib/Kernels.h"
#include "runtime/lib/kernels/KernelImpl.h"
#include "runtime/lib/kernels/Scalar.h"
#include "runtime/support/EwProgram.h"

#include "amk/kernel_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace amk::rt {

static bool isUnaryOp(int64_t op) { return isUnaryScalarOp(op); }
static bool isBinaryOp(int64_t op) {
  return op >= AMK_OP_ADD && op <= AMK_OP_PRELU;
}

namespace {

constexpr int64_t kChunk = 256;
constexpr int kMaxRank = EwProgram::kMaxRank;
template <typename T>
void loadChunk(float *dst, const void *src, int64_t off, int64_t n) {
  const T *s = static_cast<const T *>(src) + off;
  for (int64_t i = 0; i < n; ++i)
    dst[i] = (float)s[i];
}

float loadOne(const void *src, int64_t dtype, int64_t off) {
  switch (dtype) {
  case AMK_RT_I64:
    return (float)static_cast<const int64_t *>(src)[off];
  case AMK_RT_I32:
    return (float)static_cast<const int32_t *>(src)[off];
  case AMK_RT_BOOL:
  case AMK_RT_U8:
    return (float)static_cast<const uint8_t *>(src)[off];
  case AMK_RT_I8:
    return (float)static_cast<const int8_t *>(src)[off];
  default:
    return static_cast<const float *>(src)[off];
  }
}

void loadContiguous(float *dst, const void *src, int64_t dtype, int64_t off,
                    int64_t n) {
  switch (dtype) {
  case AMK_RT_I64:
    return loadChunk<int64_t>(dst, src, off, n);
  case AMK_RT_I32:
    return loadChunk<int32_t>(dst, src, off, n);
  case AMK_RT_BOOL:
  case AMK_RT_U8:
    return loadChunk<uint8_t>(dst, src, off, n);
  case AMK_RT_I8:
    return loadChunk<int8_t>(dst, src, off, n);
  default:
    std::memcpy(dst, static_cast<const float *>(src) + off, n * 4);
  }
}

bool elementwiseTile(const KernelCall &call, const int64_t *tile,
                     std::string &error) {
  if (amk_rt_elementwise_fn fn = call.kernel->elementwise_fn) {
    fn(static_cast<float *>(call.buffers[0]), call.buffers + 1, tile[0],
       tile[1]);
    return true;
  }
  EwProgram prog;
  if (!prog.parse(call.ip, call.kernel->num_iparams, error))
    return false;
  float *Y = static_cast<float *>(call.buffers[0]);
  int64_t nreg = prog.nin;
  for (int64_t i = 0; i < prog.ninstr; ++i)
    for (int f = 1; f <= 3; ++f)
      nreg = std::max(nreg, prog.instr[i * 5 + f] + 1);
  nreg = std::max(nreg, prog.result + 1);
  std::vector<float> regs(nreg * kChunk);
  // Registers that hold one value for the whole chunk (a scalar input, a
  // constant, what is computed from those alone) are kept as that value:
  // filling 256 copies per chunk was a quarter of the kernel's time on an
  // emulated QuantizeLinear, whose scale, zero point and bounds are such.
  std::vector<char> isScalar(nreg, 0);
  std::vector<float> scalar(nreg, 0.f);
  for (int64_t start = tile[0]; start < tile[1]; start += kChunk) {
    int64_t n = std::min(kChunk, tile[1] - start);
    for (int64_t i = 0; i < prog.nin; ++i) {
      float *r = regs.data() + i * kChunk;
      const void *src = call.buffers[1 + i];
      const auto &in = prog.in[i];
      isScalar[i] = 0;
      if (in.contiguous) {
        loadContiguous(r, src, in.dtype, start, n);
      } else if (in.scalar || prog.rank == 0) {
        isScalar[i] = 1;
        scalar[i] = loadOne(src, in.dtype, 0);
      } else {
        // Walk the output index and the broadcast input offset together,
        // a run of the innermost dim at a time: a per-channel scale
        // (squeeze-excitation's [1, C, 1, 1]) is one fill per run, a row
        // broadcast over rows one copy.
        int64_t idx[kMaxRank], off = 0, flat = start;
        const int64_t last = prog.rank - 1;
        for (int64_t d = last; d >= 0; --d) {
          idx[d] = flat % prog.dims[d];
          flat /= prog.dims[d];
          off += idx[d] * in.strides[d];
        }
        const int64_t inner = prog.dims[last], step = in.strides[last];
        for (int64_t e = 0; e < n;) {
          int64_t run = std::min(n - e, inner - idx[last]);
          if (step == 0)
            std::fill_n(r + e, run, loadOne(src, in.dtype, off));
          else if (step == 1)
            loadContiguous(r + e, src, in.dtype, off, run);
          else
            for (int64_t i = 0; i < run; ++i)
              r[e + i] = loadOne(src, in.dtype, off + i * step);
          e += run;
          off += run * step;
          idx[last] += run;
          if (idx[last] < inner)
            continue;
          off -= inner * step;
          idx[last] = 0;
          for (int64_t d = last - 1; d >= 0; --d) {
            off += in.strides[d];
            if (++idx[d] < prog.dims[d])
              break;
            off -= idx[d] * in.strides[d];
            idx[d] = 0;
          }
        }
      }
    }
    for (int64_t k = 0; k < prog.ninstr; ++k) {
      const int64_t *ins = prog.instr + k * 5;
      int64_t op = ins[0], di = ins[1], ai = ins[2], bi = ins[3];
      float *d = regs.data() + di * kChunk;
      const float *a = regs.data() + ai * kChunk;
      const float *b = regs.data() + bi * kChunk;
      const float *imm = call.fp + ins[4];
      if (op == AMK_OP_CONST) {
        isScalar[di] = 1, scalar[di] = imm[0];
        continue;
      }
      if (isUnaryOp(op)) {
        if (isScalar[ai]) {
          float v = scalar[ai];
          applyActivation(&v, 1, (int)op, imm[0], imm[1]);
          isScalar[di] = 1, scalar[di] = v;
          continue;
        }
        if (d != a)
          std::memcpy(d, a, n * 4);
        applyActivation(d, n, (int)op, imm[0], imm[1]);
        isScalar[di] = 0;
        continue;
      }
      const bool sa = isScalar[ai], sb = isScalar[bi];
      const float xa = scalar[ai], xb = scalar[bi];
      // One loop per operand kind, so each vectorizes with its scalar in a
      // register.
      auto apply = [&](auto f) {
        if (sa && sb) {
          scalar[di] = f(xa, xb);
          isScalar[di] = 1;
          return;
        }
        if (sa)
          for (int64_t e = 0; e < n; ++e)
            d[e] = f(xa, b[e]);
        else if (sb)
          for (int64_t e = 0; e < n; ++e)
            d[e] = f(a[e], xb);
        else
          for (int64_t e = 0; e < n; ++e)
            d[e] = f(a[e], b[e]);
        isScalar[di] = 0;
      };
      switch (op) {
      case AMK_OP_ADD:
        apply([](float x, float y) { return x + y; });
        break;
      case AMK_OP_SUB:
        apply([](float x, float y) { return x - y; });
        break;
      case AMK_OP_MUL:
        apply([](float x, float y) { return x * y; });
        break;
      case AMK_OP_DIV:
        apply([](float x, float y) { return x / y; });
        break;
      case AMK_OP_POW:
        apply([](float x, float y) { return std::pow(x, y); });
        break;
      case AMK_OP_MAX:
        apply([](float x, float y) {
          return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
        });
        break;
      case AMK_OP_MIN:
        apply([](float x, float y) {
          return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
        });
        break;
      case AMK_OP_PRELU:
        apply([](float x, float y) { return x < 0 ? x * y : x; });
        break;
      }
    }
    if (isScalar[prog.result]) {
      std::fill_n(Y + start, n, scalar[prog.result]);
      continue;
    }
    std::memcpy(Y + start, regs.data() + prog.result * kChunk, n * 4);
  }
  return true;
}

} // namespace

template <>
bool KernelImpl<AMK_RT_K_ELEMENTWISE>::run(const KernelCall &call,
                                           const int64_t *tile,
                                           std::string &error) {
  return elementwiseTile(call, tile, error);
}

template <>
bool KernelImpl<AMK_RT_K_ELEMENTWISE>::check(const amk_rt_kernel &k,
                                             const int64_t *ip, const float *,
                                             std::string &error) {
  EwProgram p;
  if (!p.parse(ip, k.num_iparams, error)) {
    error = "bad elementwise program: " + error;
    return false;
  }
  for (int64_t i = 0; i < p.ninstr; ++i) {
    const int64_t *ins = p.instr + i * 5;
    bool usesImm = ins[0] == AMK_OP_CONST || isUnaryOp(ins[0]);
    bool known = usesImm || isBinaryOp(ins[0]);
    int64_t regs = std::max<int64_t>(p.nin, ins[1] + 1);
    if (!known || ins[1] < 0 || ins[2] < 0 || ins[3] < 0 ||
        (!usesImm && (ins[2] >= regs || ins[3] >= regs)) ||
        (usesImm && (ins[4] < 0 || ins[4] + 2 > (int64_t)k.num_fparams))) {
      error = "bad elementwise instruction " + std::to_string(i);
      return false;
    }
  }
  return k.num_buffers == (uint32_t)p.nin + 1;
}

} // namespace amk::rt
