//===- EwProgram.h - The ELEMENTWISE kernel's register program --*- C++ -*-===//
//
// Part of AMK. Parses the iparams of an ELEMENTWISE kernel (layout in
// amk/kernel_params.h): shared by the runtime's interpreter and the LLVM
// lowering that compiles the same program to code.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_EWPROGRAM_H
#define AMK_RUNTIME_EWPROGRAM_H

#include <cstdint>
#include <string>

namespace amk::rt {

struct EwProgram {
  static constexpr int kMaxRank = 8;
  static constexpr int kMaxInputs = 16;

  int64_t rank;
  const int64_t *dims;
  int64_t nin;
  struct Input {
    int64_t dtype;
    const int64_t *strides;
    bool contiguous, scalar;
  };
  Input in[kMaxInputs];
  int64_t ninstr;
  const int64_t *instr;
  int64_t result;

  bool parse(const int64_t *ip, int64_t nip, std::string &error) {
    int64_t p = 0;
    auto need = [&](int64_t n) { return p + n <= nip; };
    if (!need(1))
      return false;
    rank = ip[p++];
    if (rank < 0 || rank > kMaxRank || !need(rank + 1))
      return error = "bad rank", false;
    dims = ip + p;
    p += rank;
    nin = ip[p++];
    if (nin < 0 || nin > kMaxInputs)
      return error = "too many inputs", false;
    for (int64_t i = 0; i < nin; ++i) {
      if (!need(1 + rank))
        return error = "truncated input table", false;
      in[i].dtype = ip[p++];
      in[i].strides = ip + p;
      p += rank;
      int64_t expect = 1;
      in[i].contiguous = in[i].scalar = true;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (dims[d] != 1 && in[i].strides[d] != expect)
          in[i].contiguous = false;
        if (dims[d] != 1 && in[i].strides[d] != 0)
          in[i].scalar = false;
        expect *= dims[d];
      }
    }
    if (!need(1))
      return error = "truncated program", false;
    ninstr = ip[p++];
    if (ninstr < 0 || !need(ninstr * 5 + 1))
      return error = "truncated program", false;
    instr = ip + p;
    p += ninstr * 5;
    result = ip[p++];
    return true;
  }
};

} // namespace amk::rt

#endif // AMK_RUNTIME_EWPROGRAM_H
