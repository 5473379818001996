//===- RuntimeTest.cpp - The persistent-worker runtime --------------------===//
//
// Part of AMK. Programs built by hand (runtime/support/ProgramBuilder.h)
// exercise the runtime without the compiler: dispatch chains across
// workers, data handed between them, the watchdog, kernel faults,
// malformed programs and traces. The kernels are checked against naive
// loops in KernelTest.cpp and ConvKernelTest.cpp, the compiled models' C
// API in ModelApiTest.cpp. These tests link only the runtime, so they
// also run under ThreadSanitizer (scripts/tsan.sh).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "ProgramBuilder.h"
#include "amk/kernel_params.h"
#include "amk/runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using amk::rt::ProgramBuilder;
using amk::rt::test::Session;

namespace {

TEST(Runtime, NopChainAcrossTwoWorkers) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 10000);
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  // Counters are monotonic across runs: each run must still wait for its
  // own predecessors, never pass on a previous run's signals.
  for (int run = 0; run < 5; ++run)
    ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

TEST(Runtime, SingleThreadExecutorRunsTheSameProgram) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 100);
  Session s;
  amk_rt_options o{};
  o.single_thread = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

TEST(Runtime, SingleThreadExecutorRejectsAnOutOfOrderProgram) {
  // Task 0 waits for task 1, which comes after it in program order: the
  // threaded runtime would run it, but the program order is not valid.
  ProgramBuilder b(2);
  uint32_t k = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
  uint32_t c0 = b.addCounter(), c1 = b.addCounter();
  b.addTask(k, 0, {0, 1, 0, 1}, {{c1, 1}}, c0);
  b.addTask(k, 1, {0, 1, 0, 1}, {}, c1);
  Session s;
  amk_rt_options o{};
  o.single_thread = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_INVALID_PROGRAM);
  EXPECT_NE(s.error().find("task 0 waits for a counter not yet signalled"),
            std::string::npos)
      << s.error();
}

/// Data handed from worker to worker: stage i copies region i-1 into
/// region i on alternating workers, each waiting for the previous stage.
/// The output must equal the input, and under ThreadSanitizer
/// (scripts/tsan.sh) the counters' release/acquire must order every copy.
TEST(Runtime, CopyChainHandsDataAcrossWorkers) {
  const int64_t n = 64, stages = 200;
  ProgramBuilder b(2);
  uint32_t in = b.addIO(true, "x", AMK_RT_F32, {n}, 4);
  uint32_t out = b.addIO(false, "y", AMK_RT_F32, {n}, 4);
  std::vector<uint32_t> regions;
  for (int64_t i = 0; i < stages; ++i)
    regions.push_back(b.addBuffer(AMK_RT_ARENA, n * 4, i * n * 4));
  uint32_t counters[2] = {b.addCounter(), b.addCounter()};
  for (int64_t i = 0; i <= stages; ++i) {
    uint32_t src = i == 0 ? in : regions[i - 1];
    uint32_t dst = i == stages ? out : regions[i];
    uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {src, dst},
                             {4, 1, 0, 0, n, 1, 1}, {},
                             "copy" + std::to_string(i));
    uint32_t w = i % 2, prev = 1 - w;
    std::vector<amk_rt_wait> waits;
    if (i > 0)
      waits.push_back({counters[prev], b.signalsSoFar(counters[prev])});
    b.addTask(k, w, {0, 1, 0, 1}, waits, counters[w]);
  }
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK) << amk_rt_error_message(nullptr);
  for (int run = 0; run < 20; ++run) {
    std::vector<float> x(n), y(n, -1.f);
    for (int64_t i = 0; i < n; ++i)
      x[i] = run * 1000 + i;
    const void *ins[] = {x.data()};
    void *outs[] = {y.data()};
    ASSERT_EQ(amk_rt_run(s.s, ins, outs), AMK_RT_OK) << s.error();
    ASSERT_EQ(x, y) << "run " << run;
  }
}

/// Worker 1 stalls on purpose: the watchdog must stop the run with a
/// report naming the stalled task and the counters, and the session must
/// run again normally once the stall is lifted.
TEST(Runtime, WatchdogReportsAStalledWorker) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 6);
  Session s;
  amk_rt_options o{};
  o.hang_timeout_s = 0.3;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  amk_rt_test_stall_task(s.s, 3);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_HANG);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EXPECT_LT(seconds, 10.0);
  std::string e = s.error();
  EXPECT_NE(e.find("no progress for 0.3 s"), std::string::npos) << e;
  EXPECT_NE(e.find("worker 1: task 3 (nop of 'nop') running"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("worker 0: task 4 (nop of 'nop') waiting for counter 1"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("counters: c0=2 c1=1"), std::string::npos) << e;
  amk_rt_test_stall_task(s.s, -1);
  EXPECT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK) << s.error();
}

/// A Gather with an index out of range on worker 1, and worker 0 waiting
/// on a counter that worker 1 would signal after it: the fault must end
/// the run for both, long before the hang timeout.
TEST(Runtime, KernelErrorStopsEveryWorker) {
  ProgramBuilder b(2);
  std::vector<float> data(4 * 3);
  std::vector<int64_t> idx = {1, 7};
  uint32_t db = b.addConstant(data.data(), data.size() * 4);
  uint32_t ib = b.addConstant(idx.data(), idx.size() * 8);
  uint32_t out = b.addIO(false, "Y", AMK_RT_F32, {2, 3}, 4);
  std::vector<int64_t> ip(AMK_GATHER_NUM_IPARAMS, 0);
  ip[AMK_GATHER_OUTER] = 1, ip[AMK_GATHER_AXIS] = 4, ip[AMK_GATHER_INNER] = 3;
  ip[AMK_GATHER_NIDX] = 2, ip[AMK_GATHER_ELEM_BYTES] = 4;
  ip[AMK_GATHER_IDX_DTYPE] = AMK_RT_I64;
  uint32_t g = b.addKernel(AMK_RT_K_GATHER, 0, {db, ib, out}, ip, {}, "gath");
  uint32_t nop = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
  uint32_t c1 = b.addCounter();
  b.addTask(g, 1, {0, 2, 0, 1}, {}, c1);
  b.addTask(nop, 0, {0, 1, 0, 1}, {{c1, 1}}, -1);
  Session s;
  amk_rt_options o{};
  o.hang_timeout_s = 60;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK) << amk_rt_error_message(nullptr);
  std::vector<float> y(6);
  void *outs[] = {y.data()};
  for (int run = 0; run < 2; ++run) {
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(amk_rt_run(s.s, nullptr, outs), AMK_RT_KERNEL_ERROR);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    EXPECT_LT(seconds, 5.0);
    EXPECT_EQ(s.error(), "task 0 (gather of 'gath'): Gather index 7 is out "
                         "of range [0, 4)");
  }
}

TEST(Runtime, RejectsMalformedPrograms) {
  {
    ProgramBuilder b(2);
    uint32_t k = b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop");
    uint32_t c = b.addCounter();
    b.addTask(k, 0, {0, 1, 0, 1}, {{c, 2}}, -1);
    b.addTask(k, 1, {0, 1, 0, 1}, {}, c);
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_STREQ(amk_rt_error_message(nullptr),
                 "invalid task program: task 0 waits for a counter value no "
                 "run reaches");
  }
  {
    ProgramBuilder b(1);
    b.addBuffer(AMK_RT_CONST, 64, 0);
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_STREQ(amk_rt_error_message(nullptr),
                 "invalid task program: buffer 0 lies outside its region");
  }
  {
    ProgramBuilder b(1);
    amk_rt_program p = b.get();
    p.abi_version = AMK_RT_ABI_VERSION + 1;
    amk_rt_session *s = nullptr;
    EXPECT_EQ(amk_rt_session_create(&p, nullptr, &s), AMK_RT_INVALID_PROGRAM);
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(std::string(amk_rt_error_message(nullptr))
                  .find("runtime ABI version"),
              std::string::npos);
  }
  {
    ProgramBuilder b(1);
    b.addKernel(AMK_RT_K_GEMM, 0, {}, {1, 2}, {}, "short");
    Session s;
    EXPECT_EQ(s.create(b.get()), AMK_RT_INVALID_PROGRAM);
    EXPECT_NE(std::string(amk_rt_error_message(nullptr))
                  .find("kernel 'short' has 2 iparams"),
              std::string::npos)
        << amk_rt_error_message(nullptr);
  }
}

TEST(Runtime, MissingBuffersAreArgumentErrors) {
  ProgramBuilder b(1);
  b.addIO(true, "x", AMK_RT_F32, {4}, 4);
  Session s;
  ASSERT_EQ(s.create(b.get()), AMK_RT_OK);
  const void *ins[] = {nullptr};
  EXPECT_EQ(amk_rt_run(s.s, ins, nullptr), AMK_RT_INVALID_ARGUMENT);
  EXPECT_EQ(s.error(), "input 0 ('x') has no buffer");
}

TEST(Runtime, TraceHasOneEventPerTaskAndWaitSpans) {
  ProgramBuilder b(2);
  amk::rt::buildNopChain(b, 2, 50);
  Session s;
  amk_rt_options o{};
  o.trace = 1;
  ASSERT_EQ(s.create(b.get(), o), AMK_RT_OK);
  ASSERT_EQ(amk_rt_run(s.s, nullptr, nullptr), AMK_RT_OK);
  std::string path = ::testing::TempDir() + "/amk-rt-trace.json";
  ASSERT_EQ(amk_rt_write_trace(s.s, path.c_str()), AMK_RT_OK);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  size_t tasks = 0;
  for (size_t p = text.find("\"cat\":\"nop\""); p != std::string::npos;
       p = text.find("\"cat\":\"nop\"", p + 1))
    ++tasks;
  EXPECT_EQ(tasks, 50u) << text.substr(0, 400);
  EXPECT_EQ(text.front(), '{');
  std::remove(path.c_str());
}

} // namespace
