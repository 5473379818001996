//===- Runtime.cpp - The persistent-worker runtime ------------------------===//
//
// Part of AMK. Workers are created once per session and run their static
// task lists on every amk_rt_run; they synchronize only through monotonic
// counters (signal: add with release; wait: acquire load), never with a
// barrier per op. docs/runtime.md explains why the protocol is correct.
//
//===----------------------------------------------------------------------===//

#include "amk/runtime.h"

#include "Kernels.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AMK_CPU_RELAX() _mm_pause()
#else
#define AMK_CPU_RELAX() ((void)0)
#endif

using Clock = std::chrono::steady_clock;
using amk::rt::kernelKindName;

namespace {

struct alignas(64) Counter {
  std::atomic<uint64_t> value{0};
};

struct alignas(64) WorkerState {
  std::atomic<int64_t> task{-1};     // Task being run or waited for.
  std::atomic<int64_t> waiting{-1};  // Counter it waits on, or -1.
  std::atomic<uint64_t> target{0};   // Value it waits for.
  std::atomic<uint64_t> done{0};     // Tasks finished, all runs.
};

struct TraceEvent {
  uint32_t task;
  uint32_t kind; // 0 compute, 1 wait
  int64_t start, end; // ns since the run started
};

std::string lastCreateError;

} // namespace

struct amk_rt_session {
  const amk_rt_program *prog = nullptr;
  amk_rt_options opts{};
  uint32_t workers = 1;
  std::vector<std::vector<uint32_t>> lists;
  std::unique_ptr<Counter[]> counters;
  std::unique_ptr<WorkerState[]> state;
  uint64_t runIndex = 0;
  void *arena = nullptr;
  std::vector<void *> bufPtr;
  std::vector<void *> kernelPtr; // Per kernel buffer slot.
  std::unique_ptr<amk::rt::KernelScratch[]> scratch; // Per kernel.

  // Run hand-off.
  std::vector<std::thread> threads;
  std::atomic<uint64_t> generation{0};
  std::atomic<uint32_t> finished{0};
  std::atomic<int> sleepers{0};
  std::mutex mu;
  std::condition_variable cv;
  bool shutdown = false;

  // Failure.
  std::atomic<int> abort{0};
  std::mutex errMu;
  std::string error;
  int status = AMK_RT_OK;

  // Watchdog.
  std::thread watchdog;
  std::mutex wdMu;
  std::condition_variable wdCv;
  bool runActive = false;
  bool wdShutdown = false;
  uint64_t runStarts = 0; // runs begun, under wdMu

  // Trace.
  std::vector<std::vector<TraceEvent>> trace;
  Clock::time_point runStart;
  std::atomic<int64_t> stallTask{-1};

  void fail(int code, const std::string &msg) {
    std::lock_guard<std::mutex> lock(errMu);
    if (status == AMK_RT_OK) {
      status = code;
      error = msg;
    }
    abort.store(1, std::memory_order_release);
  }

  int64_t nowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                                runStart)
        .count();
  }

  /// Spins, then yields, then sleeps until `c` reaches `target`; false if
  /// the run was aborted meanwhile. Bounded by time, not iterations: on an
  /// oversubscribed VM a spin count means nothing.
  bool waitCounter(const std::atomic<uint64_t> &c, uint64_t target) {
    if (c.load(std::memory_order_acquire) >= target)
      return true;
    auto start = Clock::now();
    for (uint64_t i = 0;; ++i) {
      if (c.load(std::memory_order_acquire) >= target)
        return true;
      if ((i & 63) != 0) {
        AMK_CPU_RELAX();
        continue;
      }
      if (abort.load(std::memory_order_acquire))
        return false;
      auto waited = Clock::now() - start;
      if (waited < std::chrono::microseconds(50))
        AMK_CPU_RELAX();
      else if (waited < std::chrono::milliseconds(2))
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  bool runTask(uint32_t w, uint32_t id) {
    const amk_rt_task &t = prog->tasks[id];
    WorkerState &ws = state[w];
    ws.task.store(id, std::memory_order_relaxed);
    bool tracing = opts.trace;
    int64_t t0 = tracing ? nowNs() : 0;
    for (uint32_t i = 0; i < t.num_waits; ++i) {
      const amk_rt_wait &wt = prog->waits[t.first_wait + i];
      uint64_t target =
          runIndex * prog->counter_signals[wt.counter] + wt.threshold;
      ws.target.store(target, std::memory_order_relaxed);
      ws.waiting.store(wt.counter, std::memory_order_relaxed);
      if (!waitCounter(counters[wt.counter].value, target))
        return false;
    }
    ws.waiting.store(-1, std::memory_order_relaxed);
    int64_t t1 = tracing ? nowNs() : 0;
    if ((int64_t)id == stallTask.load(std::memory_order_relaxed)) {
      // Test hook: never finish; the watchdog must notice.
      while (!abort.load(std::memory_order_acquire))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return false;
    }
    const amk_rt_kernel &k = prog->kernels[t.kernel];
    amk::rt::KernelCall call{
        &k, kernelPtr.data() + k.first_buffer, prog->iparams + k.first_iparam,
        prog->fparams + k.first_fparam, &scratch[t.kernel]};
    std::string err;
    if (!amk::rt::runTile(call, t.tile, err)) {
      fail(AMK_RT_KERNEL_ERROR, "task " + std::to_string(id) + " (" +
                                    kernelKindName(k.kind) + " of '" +
                                    (k.name ? k.name : "") + "'): " + err);
      return false;
    }
    if (tracing) {
      int64_t t2 = nowNs();
      if (t1 > t0)
        trace[w].push_back({id, 1, t0, t1});
      trace[w].push_back({id, 0, t1, t2});
    }
    if (t.signal >= 0)
      counters[t.signal].value.fetch_add(1, std::memory_order_release);
    ws.done.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  void runList(uint32_t w) {
    for (uint32_t id : lists[w])
      if (!runTask(w, id))
        return;
    state[w].task.store(-1, std::memory_order_relaxed);
  }

  void workerMain(uint32_t w) {
    uint64_t seen = 0;
    for (;;) {
      // Spin briefly for the next run, then sleep.
      auto start = Clock::now();
      for (uint64_t i = 0; generation.load(std::memory_order_acquire) == seen;
           ++i) {
        if ((i & 63) == 0 &&
            Clock::now() - start > std::chrono::microseconds(200)) {
          std::unique_lock<std::mutex> lock(mu);
          sleepers.fetch_add(1);
          cv.wait(lock, [&] {
            return shutdown ||
                   generation.load(std::memory_order_acquire) != seen;
          });
          sleepers.fetch_sub(1);
          break;
        }
        AMK_CPU_RELAX();
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        if (shutdown)
          return;
      }
      seen = generation.load(std::memory_order_acquire);
      runList(w);
      finished.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  std::string hangReport(double seconds) {
    std::ostringstream os;
    os << "no progress for " << seconds << " s (hang timeout); workers:";
    for (uint32_t w = 0; w < workers; ++w) {
      int64_t task = state[w].task.load();
      int64_t c = state[w].waiting.load();
      os << "\n  worker " << w << ": ";
      if (task < 0) {
        os << "idle (list done)";
        continue;
      }
      const amk_rt_kernel &k = prog->kernels[prog->tasks[task].kernel];
      os << "task " << task << " (" << kernelKindName(k.kind) << " of '"
         << (k.name ? k.name : "") << "')";
      if (c >= 0)
        os << " waiting for counter " << c << " >= "
           << state[w].target.load();
      else
        os << " running";
    }
    os << "\n  counters:";
    for (uint32_t c = 0; c < prog->num_counters; ++c)
      os << " c" << c << "=" << counters[c].value.load();
    return os.str();
  }

  /// Polls the workers' progress while a run is active. It is never woken
  /// by a run: a notify at every run's start woke this thread, and on a
  /// machine with as many CPUs as workers it took a spinning worker's CPU
  /// (worker 1 began MobileNetV2's first task 25 us late at 2 threads).
  void watchdogMain() {
    std::unique_lock<std::mutex> lock(wdMu);
    double timeout = opts.hang_timeout_s > 0 ? opts.hang_timeout_s : 30.0;
    uint64_t lastDone = ~0ull, seenStarts = runStarts;
    auto lastProgress = Clock::now();
    while (!wdShutdown) {
      wdCv.wait_for(lock, std::chrono::milliseconds(runActive ? 20 : 100));
      if (wdShutdown || !runActive)
        continue;
      uint64_t done = 0;
      for (uint32_t w = 0; w < workers; ++w)
        done += state[w].done.load(std::memory_order_relaxed);
      auto now = Clock::now();
      if (done != lastDone || runStarts != seenStarts) {
        // Progress, or a run this thread has not seen yet.
        lastDone = done;
        seenStarts = runStarts;
        lastProgress = now;
      } else if (std::chrono::duration<double>(now - lastProgress).count() >
                 timeout) {
        fail(AMK_RT_HANG, hangReport(timeout));
        lastProgress = now;
      }
    }
  }
};

static std::string checkProgram(const amk_rt_program *p) {
  if (!p)
    return "no program";
  if (p->abi_version != AMK_RT_ABI_VERSION)
    return "program ABI version " + std::to_string(p->abi_version) +
           ", runtime ABI version " + std::to_string(AMK_RT_ABI_VERSION);
  if (p->num_workers == 0)
    return "program has no workers";
  for (uint32_t b = 0; b < p->num_buffers; ++b) {
    const amk_rt_buffer &buf = p->buffers[b];
    uint64_t limit = buf.region == AMK_RT_ARENA   ? p->arena_bytes
                     : buf.region == AMK_RT_CONST ? p->constants_bytes
                     : buf.region == AMK_RT_INPUT
                         ? (buf.index < p->num_inputs
                                ? p->inputs[buf.index].bytes
                                : 0)
                     : buf.region == AMK_RT_OUTPUT
                         ? (buf.index < p->num_outputs
                                ? p->outputs[buf.index].bytes
                                : 0)
                         : 0;
    if (buf.offset + buf.size > limit || buf.offset + buf.size < buf.offset)
      return "buffer " + std::to_string(b) + " lies outside its region";
  }
  for (uint32_t k = 0; k < p->num_kernels; ++k) {
    const amk_rt_kernel &kr = p->kernels[k];
    for (uint32_t i = 0; i < kr.num_buffers; ++i) {
      uint32_t b = p->kernel_buffers[kr.first_buffer + i];
      if (b != AMK_RT_NO_BUFFER && b >= p->num_buffers)
        return "kernel " + std::to_string(k) + " names buffer " +
               std::to_string(b);
    }
    std::string err;
    if (!amk::rt::checkKernel(kr, p->iparams + kr.first_iparam,
                              p->fparams + kr.first_fparam, err))
      return "kernel " + std::to_string(k) + ": " +
             (err.empty() ? "bad parameters" : err);
  }
  for (uint32_t t = 0; t < p->num_tasks; ++t) {
    const amk_rt_task &task = p->tasks[t];
    if (task.kernel >= p->num_kernels || task.worker >= p->num_workers)
      return "task " + std::to_string(t) + " names a missing kernel or worker";
    if (task.signal >= (int32_t)p->num_counters)
      return "task " + std::to_string(t) + " signals a missing counter";
    for (uint32_t i = 0; i < task.num_waits; ++i) {
      const amk_rt_wait &w = p->waits[task.first_wait + i];
      if (w.counter >= p->num_counters ||
          w.threshold > p->counter_signals[w.counter])
        return "task " + std::to_string(t) +
               " waits for a counter value no run reaches";
    }
  }
  return "";
}

extern "C" {

int amk_rt_session_create(const amk_rt_program *program,
                          const amk_rt_options *options,
                          amk_rt_session **out) {
  if (!out)
    return AMK_RT_INVALID_ARGUMENT;
  *out = nullptr;
  std::string err = checkProgram(program);
  if (!err.empty()) {
    lastCreateError = "invalid task program: " + err;
    return AMK_RT_INVALID_PROGRAM;
  }
  auto s = std::make_unique<amk_rt_session>();
  s->prog = program;
  if (options)
    s->opts = *options;
  s->workers = program->num_workers;
  s->lists.resize(s->workers);
  for (uint32_t t = 0; t < program->num_tasks; ++t)
    s->lists[program->tasks[t].worker].push_back(t);
  s->counters.reset(new Counter[std::max<uint32_t>(1, program->num_counters)]);
  s->state.reset(new WorkerState[s->workers]);
  s->trace.resize(s->workers);
  if (s->opts.trace)
    for (uint32_t w = 0; w < s->workers; ++w)
      s->trace[w].reserve(2 * s->lists[w].size() + 16);
  uint64_t arenaBytes = (program->arena_bytes + 63) / 64 * 64;
  if (arenaBytes) {
    s->arena = std::aligned_alloc(64, arenaBytes);
    if (!s->arena) {
      lastCreateError = "cannot allocate the " + std::to_string(arenaBytes) +
                        "-byte arena";
      return AMK_RT_OUT_OF_MEMORY;
    }
  }
  s->bufPtr.resize(program->num_buffers);
  uint64_t slots = 0;
  for (uint32_t k = 0; k < program->num_kernels; ++k)
    slots = std::max<uint64_t>(slots, program->kernels[k].first_buffer +
                                          program->kernels[k].num_buffers);
  s->kernelPtr.resize(slots);
  s->scratch.reset(new amk::rt::KernelScratch[program->num_kernels]);
  amk_rt_session *raw = s.get();
  if (!s->opts.single_thread) {
    for (uint32_t w = 1; w < s->workers; ++w)
      s->threads.emplace_back([raw, w] { raw->workerMain(w); });
  }
  s->watchdog = std::thread([raw] { raw->watchdogMain(); });
  *out = s.release();
  return AMK_RT_OK;
}

int amk_rt_run(amk_rt_session *s, const void *const *inputs,
               void *const *outputs) {
  if (!s)
    return AMK_RT_INVALID_ARGUMENT;
  const amk_rt_program *p = s->prog;
  s->error.clear();
  s->status = AMK_RT_OK;
  for (uint32_t i = 0; i < p->num_inputs; ++i)
    if (!inputs || (!inputs[i] && p->inputs[i].bytes)) {
      s->error = "input " + std::to_string(i) + " ('" +
                 (p->inputs[i].name ? p->inputs[i].name : "") +
                 "') has no buffer";
      return s->status = AMK_RT_INVALID_ARGUMENT;
    }
  for (uint32_t i = 0; i < p->num_outputs; ++i)
    if (!outputs || (!outputs[i] && p->outputs[i].bytes)) {
      s->error = "output " + std::to_string(i) + " ('" +
                 (p->outputs[i].name ? p->outputs[i].name : "") +
                 "') has no buffer";
      return s->status = AMK_RT_INVALID_ARGUMENT;
    }
  for (uint32_t b = 0; b < p->num_buffers; ++b) {
    const amk_rt_buffer &buf = p->buffers[b];
    char *base = nullptr;
    switch (buf.region) {
    case AMK_RT_ARENA:
      base = static_cast<char *>(s->arena);
      break;
    case AMK_RT_CONST:
      base = const_cast<char *>(
          reinterpret_cast<const char *>(p->constants));
      break;
    case AMK_RT_INPUT:
      base = const_cast<char *>(static_cast<const char *>(inputs[buf.index]));
      break;
    case AMK_RT_OUTPUT:
      base = static_cast<char *>(outputs[buf.index]);
      break;
    }
    s->bufPtr[b] = base ? base + buf.offset : nullptr;
  }
  for (uint32_t k = 0; k < p->num_kernels; ++k) {
    const amk_rt_kernel &kr = p->kernels[k];
    for (uint32_t i = 0; i < kr.num_buffers; ++i) {
      uint32_t b = p->kernel_buffers[kr.first_buffer + i];
      s->kernelPtr[kr.first_buffer + i] =
          b == AMK_RT_NO_BUFFER ? nullptr : s->bufPtr[b];
    }
  }
  for (auto &t : s->trace)
    t.clear();
  s->abort.store(0);
  s->runStart = Clock::now();
  {
    std::lock_guard<std::mutex> lock(s->wdMu);
    s->runActive = true;
    ++s->runStarts;
  }

  if (s->opts.single_thread) {
    // Program order is a valid sequential order (the validator checks it),
    // so every wait is already satisfied when its task comes up.
    uint64_t saved = s->runIndex;
    for (uint32_t t = 0; t < p->num_tasks && !s->abort.load(); ++t) {
      const amk_rt_task &task = p->tasks[t];
      // Waits are checked, not skipped: a wait that is not satisfied in
      // program order means the program is wrong.
      for (uint32_t i = 0; i < task.num_waits; ++i) {
        const amk_rt_wait &w = p->waits[task.first_wait + i];
        if (s->counters[w.counter].value.load() <
            saved * p->counter_signals[w.counter] + w.threshold) {
          s->fail(AMK_RT_INVALID_PROGRAM,
                  "task " + std::to_string(t) +
                      " waits for a counter not yet signalled in program "
                      "order");
          break;
        }
      }
      if (s->abort.load() || !s->runTask(0, t))
        break;
    }
  } else {
    s->finished.store(0, std::memory_order_relaxed);
    s->generation.fetch_add(1, std::memory_order_acq_rel);
    {
      // Under the lock, so a worker between its spin and its sleep cannot
      // miss the new generation.
      std::lock_guard<std::mutex> lock(s->mu);
      s->cv.notify_all();
    }
    s->runList(0);
    // Wait for the other workers; they return promptly on abort.
    auto start = Clock::now();
    for (uint64_t i = 0;
         s->finished.load(std::memory_order_acquire) + 1 < s->workers; ++i) {
      if ((i & 63) == 0 &&
          Clock::now() - start > std::chrono::microseconds(50))
        std::this_thread::yield();
      else
        AMK_CPU_RELAX();
    }
  }
  {
    std::lock_guard<std::mutex> lock(s->wdMu);
    s->runActive = false;
  }
  ++s->runIndex;
  if (s->status != AMK_RT_OK) {
    // Every worker has stopped: put the counters where the next run
    // expects them.
    for (uint32_t c = 0; c < p->num_counters; ++c)
      s->counters[c].value.store(s->runIndex * p->counter_signals[c]);
  }
  return s->status;
}

const char *amk_rt_error_message(const amk_rt_session *s) {
  return s ? s->error.c_str() : lastCreateError.c_str();
}

int amk_rt_write_trace(const amk_rt_session *s, const char *path) {
  if (!s || !path)
    return AMK_RT_INVALID_ARGUMENT;
  FILE *f = std::fopen(path, "w");
  if (!f)
    return AMK_RT_INVALID_ARGUMENT;
  std::fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  bool first = true;
  for (uint32_t w = 0; w < s->workers; ++w) {
    std::fprintf(f,
                 "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,"
                 "\"tid\":%u,\"args\":{\"name\":\"worker %u\"}}",
                 first ? "" : ",\n", w, w);
    first = false;
    for (const TraceEvent &e : s->trace[w]) {
      const amk_rt_task &t = s->prog->tasks[e.task];
      const amk_rt_kernel &k = s->prog->kernels[t.kernel];
      std::string name = e.kind ? "wait" : (k.name ? k.name : "");
      for (char &c : name)
        if (c == '"' || c == '\\' || (unsigned char)c < 0x20)
          c = '_';
      std::fprintf(
          f,
          ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,"
          "\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"task\":%u,"
          "\"kernel\":%u,\"tile\":[%lld,%lld,%lld,%lld]}}",
          name.c_str(), e.kind ? "sync" : kernelKindName(k.kind), w,
          e.start / 1000.0, (e.end - e.start) / 1000.0, e.task, t.kernel,
          (long long)t.tile[0], (long long)t.tile[1], (long long)t.tile[2],
          (long long)t.tile[3]);
    }
  }
  std::fprintf(f, "\n]}\n");
  return std::fclose(f) == 0 ? AMK_RT_OK : AMK_RT_INVALID_ARGUMENT;
}

void amk_rt_session_destroy(amk_rt_session *s) {
  if (!s)
    return;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->shutdown = true;
  }
  s->cv.notify_all();
  for (auto &t : s->threads)
    t.join();
  {
    std::lock_guard<std::mutex> lock(s->wdMu);
    s->wdShutdown = true;
  }
  s->wdCv.notify_all();
  s->watchdog.join();
  std::free(s->arena);
  delete s;
}

void amk_rt_test_stall_task(amk_rt_session *s, int64_t task) {
  if (s)
    s->stallTask.store(task);
}

} // extern "C"
