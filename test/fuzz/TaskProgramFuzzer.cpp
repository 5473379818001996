//===- TaskProgramFuzzer.cpp - Validator soundness against the runtime -----===//
//
// Part of AMK. The input bytes drive the construction of a task program
// (workers, arena buffers, tasks with counter waits, signals and declared
// byte ranges) of NOP kernels. The validator must either reject it with an
// error or accept a program the runtime runs to completion: with two
// threaded runs (counters carry over between runs) and the single-thread
// executor, each bounded by a 2 s watchdog. An accepted program that
// hangs, or that the runtime refuses, is a validator bug: abort.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "dialect/AMKTask/AMKTaskDialect.h"
#include "execution/ProgramLoader.h"
#include "dialect/AMKTask/TaskProgram.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <vector>

namespace {

/// Reads small integers from the input; zeros once it is exhausted.
class Bytes {
public:
  Bytes(const uint8_t *d, size_t n) : d(d), n(n) {}
  unsigned next(unsigned bound) { return bound ? (i < n ? d[i++] : 0) % bound : 0; }
  bool empty() const { return i >= n; }

private:
  const uint8_t *d;
  size_t n, i = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace mlir;
  static DialectRegistry registry = [] {
    DialectRegistry r;
    r.insert<amk::task::AMKTaskDialect>();
    return r;
  }();
  amk::fuzz::QuietContext q(registry);
  q.ctx.loadDialect<amk::task::AMKTaskDialect>();
  Bytes in(data, size);
  OpBuilder b(&q.ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);

  // Most inputs build a program in the scheduler's style (one counter per
  // worker, waits for signals already issued, byte ranges inside their
  // buffers), which the validator often accepts; the rest are free-form.
  bool structured = in.next(4) != 0;
  int64_t workers = 1 + in.next(3);
  int64_t counters = structured ? workers : 1 + in.next(4);
  unsigned nbuf = 1 + in.next(3);
  unsigned ntask = 1 + in.next(24);
  struct Buf {
    int64_t offset, size;
  };
  std::vector<Buf> bufs;
  int64_t arena = 0;
  for (unsigned i = 0; i < nbuf; ++i) {
    Buf buf{8 * (int64_t)in.next(8), 8 + 8 * (int64_t)in.next(8)};
    bufs.push_back(buf);
    arena = std::max(arena, buf.offset + buf.size);
  }
  // Sometimes a smaller arena than the buffers need: must be refused.
  if (!structured && in.next(8) == 0)
    arena -= 8;

  struct Task {
    int64_t worker, signal;
    std::vector<int64_t> waits, reads, writes;
  };
  std::vector<Task> tasks;
  std::vector<int64_t> signals(counters, 0);
  for (unsigned t = 0; t < ntask; ++t) {
    Task task;
    task.worker = in.next(workers);
    if (structured)
      task.signal = in.next(4) ? task.worker : -1;
    else
      task.signal = (int64_t)in.next(counters + 1) - 1;
    unsigned nwait = in.next(3);
    for (unsigned w = 0; w < nwait; ++w) {
      int64_t c = in.next(counters);
      task.waits.push_back(c);
      task.waits.push_back(structured ? 1 + in.next(signals[c] + 1)
                                      : 1 + in.next(4));
    }
    for (auto *list : {&task.reads, &task.writes}) {
      unsigned n = in.next(3);
      for (unsigned r = 0; r < n; ++r) {
        int64_t buf = in.next(nbuf);
        if (structured) {
          int64_t size = bufs[buf].size;
          int64_t offset = in.next(size);
          int64_t rowBytes = 1 + in.next(size - offset);
          list->insert(list->end(), {buf, offset, rowBytes, rowBytes, 1});
          continue;
        }
        int64_t rowBytes = 1 + in.next(32);
        list->insert(list->end(),
                     {buf, (int64_t)in.next(72), rowBytes,
                      rowBytes + (int64_t)in.next(16), 1 + (int64_t)in.next(3)});
      }
    }
    if (task.signal >= 0)
      ++signals[task.signal];
    tasks.push_back(std::move(task));
  }
  // Sometimes a wrong signal count.
  if (!structured && in.next(8) == 0)
    signals[in.next(counters)] += 1;

  b.setInsertionPointToEnd(module->getBody());
  auto program = amk::task::ProgramOp::create(b, 
      loc, b.getStringAttr("fuzz"), b.getI64IntegerAttr(workers),
      b.getI64IntegerAttr(counters), b.getI64IntegerAttr(arena),
      b.getDenseI64ArrayAttr(signals), IntegerAttr(), DictionaryAttr());
  Block *body = new Block();
  program.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  auto type = TypeAttr::get(RankedTensorType::get({8}, b.getI8Type()));
  for (const Buf &buf : bufs)
    amk::task::BufferOp::create(b, 
        loc, b.getStringAttr("arena"), b.getI64IntegerAttr(buf.size),
        b.getI64IntegerAttr(buf.offset), b.getI64IntegerAttr(0), type,
        b.getStringAttr("b"), ElementsAttr());
  amk::task::KernelOp::create(b, 
      loc,
      amk::task::KernelKindAttr::get(b.getContext(), amk::task::KernelKind::Nop),
      b.getI64IntegerAttr(0),
      b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
      b.getDenseF32ArrayAttr({}), b.getStringAttr("n"), b.getStringAttr(""));
  for (const Task &t : tasks)
    amk::task::TaskOp::create(b, 
        loc, b.getI64IntegerAttr(0), b.getI64IntegerAttr(t.worker),
        b.getDenseI64ArrayAttr({0, 1, 0, 1}), b.getDenseI64ArrayAttr(t.waits),
        b.getI64IntegerAttr(t.signal), b.getDenseI64ArrayAttr(t.reads),
        b.getDenseI64ArrayAttr(t.writes), FloatAttr());

  static const bool verbose = std::getenv("AMK_FUZZ_VERBOSE") != nullptr;
  if (failed(verify(*module))) {
    if (verbose)
      llvm::errs() << "rejected by the verifier\n";
    return 0;
  }
  if (failed(amk::task::validateProgram(program))) {
    if (verbose)
      llvm::errs() << "rejected by the validator\n";
    return 0;
  }
  if (verbose)
    llvm::errs() << "accepted: " << tasks.size() << " tasks on " << workers
                 << " workers\n";

  std::string error;
  auto loaded = amk::loadProgram(program, error);
  auto fail = [&](const char *what, const std::string &message) {
    llvm::errs() << "validator accepted a program that " << what << ": "
                 << message << "\n";
    program->print(llvm::errs());
    llvm::errs() << "\n";
    std::abort();
  };
  if (!loaded)
    fail("the loader refuses", error);
  for (int single = 0; single < 2; ++single) {
    amk_rt_options options{};
    options.single_thread = single;
    options.hang_timeout_s = 2.0;
    amk_rt_session *session = nullptr;
    if (amk_rt_session_create(&loaded->program, &options, &session) !=
        AMK_RT_OK)
      fail("the runtime refuses", amk_rt_error_message(nullptr));
    for (int run = 0; run < (single ? 1 : 2); ++run)
      if (amk_rt_run(session, nullptr, nullptr) != AMK_RT_OK)
        fail(single ? "the single-thread executor fails"
                    : "the threaded runtime fails",
             amk_rt_error_message(session));
    amk_rt_session_destroy(session);
  }
  return 0;
}
