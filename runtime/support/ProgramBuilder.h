//===- ProgramBuilder.h - Build amk_rt_program by hand ----------*- C++ -*-===//
//
// Part of AMK. Owns the arrays of an amk_rt_program assembled in C++,
// for the runtime's unit tests and microbenchmarks (the compiler fills the
// same structs from the amk_task dialect instead).
//
//===----------------------------------------------------------------------===//

#ifndef AMK_RUNTIME_SUPPORT_PROGRAMBUILDER_H
#define AMK_RUNTIME_SUPPORT_PROGRAMBUILDER_H

#include "amk/runtime.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace amk::rt {

class ProgramBuilder {
public:
  explicit ProgramBuilder(uint32_t workers) : workers(workers) {}

  uint32_t addBuffer(amk_rt_region region, uint64_t size, uint64_t offset = 0,
                     uint32_t index = 0) {
    buffers.push_back({(uint32_t)region, index, offset, size});
    if (region == AMK_RT_ARENA)
      arenaBytes = std::max(arenaBytes, offset + size);
    return buffers.size() - 1;
  }
  /// Appends `bytes` to the constant blob (64-byte aligned) and returns a
  /// buffer over them.
  uint32_t addConstant(const void *data, uint64_t bytes) {
    uint64_t offset = (constants.size() + 63) / 64 * 64;
    constants.resize(offset + bytes);
    std::memcpy(constants.data() + offset, data, bytes);
    return addBuffer(AMK_RT_CONST, bytes, offset);
  }
  uint32_t addIO(bool input, const std::string &name, amk_rt_dtype dtype,
                 std::vector<int64_t> dims, uint64_t elemBytes) {
    names.push_back(name);
    dimStore.push_back(std::move(dims));
    uint64_t bytes = elemBytes;
    for (int64_t d : dimStore.back())
      bytes *= d;
    auto &list = input ? inputs : outputs;
    list.push_back({names.back().c_str(), (uint32_t)dtype,
                    (uint32_t)dimStore.back().size(), dimStore.back().data(),
                    bytes});
    return addBuffer(input ? AMK_RT_INPUT : AMK_RT_OUTPUT, bytes, 0,
                     list.size() - 1);
  }
  uint32_t addKernel(amk_rt_kernel_kind kind, uint32_t variant,
                     std::vector<uint32_t> bufs, std::vector<int64_t> ip,
                     std::vector<float> fp, const std::string &name) {
    names.push_back(name);
    kernels.push_back({(uint32_t)kind, variant, (uint32_t)kernelBuffers.size(),
                       (uint32_t)bufs.size(), (uint32_t)iparams.size(),
                       (uint32_t)ip.size(), (uint32_t)fparams.size(),
                       (uint32_t)fp.size(), names.back().c_str(), nullptr});
    kernelBuffers.insert(kernelBuffers.end(), bufs.begin(), bufs.end());
    iparams.insert(iparams.end(), ip.begin(), ip.end());
    fparams.insert(fparams.end(), fp.begin(), fp.end());
    return kernels.size() - 1;
  }
  /// Gives an ELEMENTWISE kernel compiled code (what the LLVM lowering
  /// emits) to run instead of the runtime's interpreter.
  void setElementwiseFn(uint32_t kernel, amk_rt_elementwise_fn fn) {
    kernels[kernel].elementwise_fn = fn;
  }
  uint32_t addCounter() {
    counterSignals.push_back(0);
    return counterSignals.size() - 1;
  }
  /// Adds a task; `signal` is a counter or -1. Tasks must be added in a
  /// valid sequential order.
  uint32_t addTask(uint32_t kernel, uint32_t worker,
                   std::vector<int64_t> tile,
                   std::vector<amk_rt_wait> taskWaits, int32_t signal) {
    amk_rt_task t{};
    t.kernel = kernel;
    t.worker = worker;
    for (unsigned i = 0; i < 4 && i < tile.size(); ++i)
      t.tile[i] = tile[i];
    t.first_wait = waits.size();
    t.num_waits = taskWaits.size();
    t.signal = signal;
    waits.insert(waits.end(), taskWaits.begin(), taskWaits.end());
    if (signal >= 0)
      ++counterSignals[signal];
    tasks.push_back(t);
    return tasks.size() - 1;
  }
  uint32_t signalsSoFar(uint32_t counter) const {
    return counterSignals[counter];
  }

  /// The program; valid while the builder lives and is not changed.
  const amk_rt_program &get() {
    program = {};
    program.abi_version = AMK_RT_ABI_VERSION;
    program.num_workers = workers;
    program.num_counters = counterSignals.size();
    program.num_buffers = buffers.size();
    program.num_kernels = kernels.size();
    program.num_tasks = tasks.size();
    program.num_inputs = inputs.size();
    program.num_outputs = outputs.size();
    program.arena_bytes = arenaBytes;
    // An aligned copy: std::vector gives no 64-byte alignment.
    alignedConstants.assign((constants.size() + 63) / 64 + 1, {});
    if (!constants.empty()) // memcpy from a null pointer is undefined
      std::memcpy(alignedConstants.data(), constants.data(), constants.size());
    program.constants =
        reinterpret_cast<const uint8_t *>(alignedConstants.data());
    program.constants_bytes = constants.size();
    program.buffers = buffers.data();
    program.kernel_buffers = kernelBuffers.data();
    program.iparams = iparams.data();
    program.fparams = fparams.data();
    program.kernels = kernels.data();
    program.tasks = tasks.data();
    program.waits = waits.data();
    program.counter_signals = counterSignals.data();
    program.inputs = inputs.data();
    program.outputs = outputs.data();
    return program;
  }

private:
  struct alignas(64) Line {
    uint8_t bytes[64];
  };
  uint32_t workers;
  uint64_t arenaBytes = 0;
  std::vector<uint8_t> constants;
  std::vector<Line> alignedConstants;
  std::vector<amk_rt_buffer> buffers;
  std::vector<uint32_t> kernelBuffers;
  std::vector<int64_t> iparams;
  std::vector<float> fparams;
  std::vector<amk_rt_kernel> kernels;
  std::vector<amk_rt_task> tasks;
  std::vector<amk_rt_wait> waits;
  std::vector<uint32_t> counterSignals;
  std::vector<amk_rt_io> inputs, outputs;
  std::deque<std::string> names;
  std::deque<std::vector<int64_t>> dimStore;
  amk_rt_program program{};
};

/// A chain of `n` empty tasks alternating between workers 0 and 1 (one
/// worker when `workers` is 1); task i waits for task i-1. Every edge
/// crosses workers, so each task costs one counter signal and one wait:
/// the dispatch overhead.
inline void buildNopChain(ProgramBuilder &b, uint32_t workers, uint32_t n) {
  uint32_t k = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
  std::vector<uint32_t> counters;
  for (uint32_t w = 0; w < workers; ++w)
    counters.push_back(b.addCounter());
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t w = i % workers, prev = (i + workers - 1) % workers;
    std::vector<amk_rt_wait> waits;
    if (i > 0 && prev != w)
      waits.push_back({counters[prev], b.signalsSoFar(counters[prev])});
    b.addTask(k, w, {0, 1, 0, 1}, waits, counters[w]);
  }
}

} // namespace amk::rt

#endif // AMK_RUNTIME_SUPPORT_PROGRAMBUILDER_H
