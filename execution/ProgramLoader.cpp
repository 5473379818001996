//===- ProgramLoader.cpp - amk_task IR to the runtime's structs -----------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/ProgramLoader.h"
#include "runtime/support/Fnv1a.h"

#include "reference/Tensor.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <cstring>
#include <optional>

using namespace mlir;
using namespace amk;
using namespace amk::task;

/// The bytes of a constant as the runtime reads them: a resource blob's
/// own data in place (the weights are not copied once more), any other
/// attribute converted into `copy`.
static llvm::Expected<llvm::ArrayRef<char>>
constantBytes(ElementsAttr value, std::optional<ref::Tensor> &copy) {
  if (auto r = dyn_cast<DenseResourceElementsAttr>(value)) {
    auto type = cast<ShapedType>(r.getType());
    Type e = type.getElementType();
    AsmResourceBlob *blob = r.getRawHandle().getBlob();
    if (blob && e.isIntOrFloat() && e.getIntOrFloatBitWidth() % 8 == 0 &&
        blob->getData().size() ==
            (uint64_t)type.getNumElements() * (e.getIntOrFloatBitWidth() / 8))
      return blob->getData();
  }
  auto t = ref::Tensor::fromAttr(value);
  if (!t)
    return t.takeError();
  copy = std::move(*t);
  return llvm::ArrayRef<char>(copy->raw(), copy->byteSize());
}

std::unique_ptr<LoadedProgram> amk::loadProgram(ProgramOp program,
                                                std::string &error,
                                                bool withConstants,
                                                bool hashConstants) {
  auto lp = std::make_unique<LoadedProgram>();
  SmallVector<BufferOp> buffers;
  SmallVector<KernelOp> kernels;
  SmallVector<TaskOp> tasks;
  for (Operation &op : program.getBody().front()) {
    if (auto b = dyn_cast<BufferOp>(op))
      buffers.push_back(b);
    else if (auto k = dyn_cast<KernelOp>(op))
      kernels.push_back(k);
    else if (auto t = dyn_cast<TaskOp>(op))
      tasks.push_back(t);
  }
  // Interface.
  int64_t nin = 0, nout = 0;
  for (BufferOp b : buffers) {
    if (b.getKind() == "input")
      nin = std::max<int64_t>(nin, b.getIndex() + 1);
    if (b.getKind() == "output")
      nout = std::max<int64_t>(nout, b.getIndex() + 1);
  }
  lp->inputs.resize(nin);
  lp->outputs.resize(nout);
  lp->inputTypes.resize(nin);
  lp->outputTypes.resize(nout);
  lp->dims.reserve(nin + nout);
  lp->ioNames.reserve(nin + nout);
  // Constants: one 64-byte aligned blob at the offsets the scheduler chose.
  uint64_t constBytes = 0;
  for (BufferOp b : buffers)
    if (b.getKind() == "const")
      constBytes = std::max<uint64_t>(constBytes, b.getOffset() + b.getSize());
  uint64_t alloc = (constBytes + 63) / 64 * 64;
  if (withConstants) {
    lp->constants = std::unique_ptr<uint8_t, void (*)(void *)>(
        static_cast<uint8_t *>(std::aligned_alloc(64, alloc ? alloc : 64)),
        std::free);
    if (!lp->constants) {
      error = "cannot allocate " + std::to_string(alloc) + " bytes of weights";
      return nullptr;
    }
    // The gaps between aligned constants are zero, so that the blob (and
    // the objects amk-compile writes) depend only on the program.
    std::memset(lp->constants.get(), 0, alloc ? alloc : 64);
  }
  // Without the copy: the values, hashed in offset order below.
  std::vector<PlacedConstant> placed;
  for (auto [i, b] : llvm::enumerate(buffers)) {
    amk_rt_buffer rb{};
    rb.size = b.getSize();
    rb.offset = b.getOffset();
    rb.index = b.getIndex();
    StringRef kind = b.getKind();
    if (kind == "arena") {
      rb.region = AMK_RT_ARENA;
    } else if (kind == "const" && !withConstants) {
      rb.region = AMK_RT_CONST;
      placed.push_back({rb.offset, rb.size, *b.getValue()});
    } else if (kind == "const") {
      rb.region = AMK_RT_CONST;
      std::optional<ref::Tensor> copy;
      auto bytes = constantBytes(*b.getValue(), copy);
      if (!bytes) {
        error = "const buffer " + std::to_string(i) + ": " +
                llvm::toString(bytes.takeError());
        return nullptr;
      }
      if ((uint64_t)bytes->size() != rb.size) {
        error = "const buffer " + std::to_string(i) + " has " +
                std::to_string(bytes->size()) + " bytes, expected " +
                std::to_string(rb.size);
        return nullptr;
      }
      std::memcpy(lp->constants.get() + rb.offset, bytes->data(), rb.size);
    } else {
      bool in = kind == "input";
      rb.region = in ? AMK_RT_INPUT : AMK_RT_OUTPUT;
      auto type = cast<RankedTensorType>(b.getType());
      lp->dims.emplace_back(type.getShape().begin(), type.getShape().end());
      lp->ioNames.push_back(b.getName().str());
      amk_rt_io io{};
      io.name = lp->ioNames.back().c_str();
      int64_t dtype = runtimeDtype(type.getElementType());
      if (dtype < 0) {
        error = "buffer '" + b.getName().str() +
                "' has an element type the runtime has no code for";
        return nullptr;
      }
      io.dtype = (uint32_t)dtype;
      io.rank = type.getRank();
      io.dims = lp->dims.back().data();
      io.bytes = b.getSize();
      (in ? lp->inputs : lp->outputs)[rb.index] = io;
      (in ? lp->inputTypes : lp->outputTypes)[rb.index] = type;
    }
    lp->buffers.push_back(rb);
  }
  for (int64_t i = 0; i < nin; ++i)
    if (!lp->inputTypes[i]) {
      error = "the program has no buffer for input " + std::to_string(i);
      return nullptr;
    }
  for (int64_t i = 0; i < nout; ++i)
    if (!lp->outputTypes[i]) {
      error = "the program has no buffer for output " + std::to_string(i);
      return nullptr;
    }
  lp->kernelNames.reserve(kernels.size());
  for (KernelOp k : kernels) {
    amk_rt_kernel rk{};
    rk.kind = static_cast<uint32_t>(k.getKind());
    rk.variant = k.getVariant();
    rk.first_buffer = lp->kernelBuffers.size();
    rk.num_buffers = k.getBuffers().size();
    for (int64_t b : k.getBuffers())
      lp->kernelBuffers.push_back(b < 0 ? AMK_RT_NO_BUFFER : (uint32_t)b);
    rk.first_iparam = lp->iparams.size();
    rk.num_iparams = k.getIparams().size();
    lp->iparams.insert(lp->iparams.end(), k.getIparams().begin(),
                       k.getIparams().end());
    rk.first_fparam = lp->fparams.size();
    rk.num_fparams = k.getFparams().size();
    lp->fparams.insert(lp->fparams.end(), k.getFparams().begin(),
                       k.getFparams().end());
    lp->kernelNames.push_back(k.getName().str());
    rk.name = lp->kernelNames.back().c_str();
    lp->kernels.push_back(rk);
  }
  for (TaskOp t : tasks) {
    amk_rt_task rt{};
    rt.kernel = t.getKernel();
    rt.worker = t.getWorker();
    for (int i = 0; i < 4; ++i)
      rt.tile[i] = t.getTile()[i];
    rt.first_wait = lp->waits.size();
    ArrayRef<int64_t> w = t.getWaits();
    rt.num_waits = w.size() / 2;
    for (size_t i = 0; i + 1 < w.size(); i += 2)
      lp->waits.push_back({(uint32_t)w[i], (uint32_t)w[i + 1]});
    rt.signal = (int32_t)(int64_t)t.getSignal();
    lp->tasks.push_back(rt);
  }
  for (int64_t c : program.getCounterSignals())
    lp->counterSignals.push_back(c);
  amk_rt_program &p = lp->program;
  p.abi_version = AMK_RT_ABI_VERSION;
  p.num_workers = program.getWorkers();
  p.num_counters = program.getCounters();
  p.num_buffers = lp->buffers.size();
  p.num_kernels = lp->kernels.size();
  p.num_tasks = lp->tasks.size();
  p.num_inputs = nin;
  p.num_outputs = nout;
  p.arena_bytes = program.getArenaBytes();
  p.constants = lp->constants.get();
  p.constants_bytes = constBytes;
  if (!withConstants && hashConstants) {
    // FNV-1a runs byte by byte, so the blob hashes piece by piece.
    uint64_t hash = kFnv1aOffset;
    if (llvm::Error e = streamConstants(
            std::move(placed), constBytes,
            [&](const char *d, size_t n) { hash = fnv1a(d, n, hash); })) {
      error = llvm::toString(std::move(e));
      return nullptr;
    }
    lp->constantsHash = hash;
  }
  p.buffers = lp->buffers.data();
  p.kernel_buffers = lp->kernelBuffers.data();
  p.iparams = lp->iparams.data();
  p.fparams = lp->fparams.data();
  p.kernels = lp->kernels.data();
  p.tasks = lp->tasks.data();
  p.waits = lp->waits.data();
  p.counter_signals = lp->counterSignals.data();
  p.inputs = lp->inputs.data();
  p.outputs = lp->outputs.data();
  return lp;
}

static void keepShared(void *) {}

SharedConstantLayout
amk::sharedConstantLayout(llvm::ArrayRef<ProgramOp> programs) {
  SharedConstantLayout l;
  for (auto [k, p] : llvm::enumerate(programs))
    ProgramOp(p).walk([&](BufferOp b) {
      if (b.getKind() != "const" || !b.getValue())
        return;
      if (k == 0) {
        l.offsets.try_emplace(*b.getValue(), b.getOffset());
        l.bytes = std::max<uint64_t>(l.bytes, b.getOffset() + b.getSize());
        return;
      }
      auto [it, fresh] =
          l.offsets.try_emplace(*b.getValue(), (l.bytes + 63) / 64 * 64);
      if (!fresh)
        return;
      l.bytes = it->second + b.getSize();
      l.appended.push_back(b);
    });
  return l;
}

/// A zeroed, 64-byte aligned blob of at least `bytes` bytes whose pages are
/// not touched yet. On Linux a large one is its own mapping, aligned to 2
/// MB and marked for transparent huge pages: a decode step streams every
/// weight, and 4 KB pages cost a TLB miss every 4 KB of the stream (the
/// loaded copies before were faulted in one memset, this blob fills as the
/// resources' copies are freed).
static std::shared_ptr<uint8_t> zeroedWeightsBlob(uint64_t bytes) {
  uint64_t alloc = (bytes + 63) / 64 * 64 + 64;
#ifdef __linux__
  constexpr uint64_t kHuge = 2u << 20;
  if (alloc >= kHuge) {
    uint64_t length = (alloc + kHuge - 1) / kHuge * kHuge + kHuge;
    void *raw = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      return nullptr;
    auto *base = reinterpret_cast<uint8_t *>(
        (reinterpret_cast<uintptr_t>(raw) + kHuge - 1) / kHuge * kHuge);
    // Advice only: without transparent huge pages it is 4 KB pages.
    (void)madvise(base, length - (base - static_cast<uint8_t *>(raw)),
                  MADV_HUGEPAGE);
    return std::shared_ptr<uint8_t>(
        base, [raw, length](uint8_t *) { munmap(raw, length); });
  }
#endif
  void *raw = std::calloc(1, alloc);
  if (!raw)
    return nullptr;
  auto *base = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(raw) + 63) / 64 * 64);
  return std::shared_ptr<uint8_t>(base, [raw](uint8_t *) { std::free(raw); });
}

llvm::Expected<std::vector<std::unique_ptr<LoadedProgram>>>
amk::loadProgramsSharingConstants(llvm::ArrayRef<ProgramOp> programs,
                                  bool rehome) {
  SharedConstantLayout layout = sharedConstantLayout(programs);
  uint64_t end = layout.bytes;
  // The first program's constants where it has them (equal ones at two
  // offsets are copied twice), then the appended ones.
  std::vector<PlacedConstant> distinct = placedConstants(programs.front());
  for (BufferOp b : layout.appended)
    distinct.push_back({layout.offsets.lookup(*b.getValue()),
                        (uint64_t)b.getSize(), *b.getValue()});
  for (ProgramOp p : programs.drop_front())
    p.walk([&](BufferOp b) {
      if (b.getKind() == "const" && b.getValue())
        b->setAttr(
            "offset",
            IntegerAttr::get(IntegerType::get(b.getContext(), 64),
                             (int64_t)layout.offsets.lookup(*b.getValue())));
    });
  // Fresh zero pages, untouched until a constant is copied in, so the blob
  // grows as the resources' copies are freed.
  std::shared_ptr<uint8_t> blob = zeroedWeightsBlob(end);
  if (!blob)
    return llvm::createStringError("cannot allocate " + std::to_string(end) +
                                   " bytes of weights");
  uint8_t *base = blob.get();
  llvm::stable_sort(distinct,
                    [](const PlacedConstant &a, const PlacedConstant &b) {
                      return a.offset < b.offset;
                    });
  [[maybe_unused]] uint64_t freed = 0;
  for (const PlacedConstant &c : distinct) {
    std::optional<ref::Tensor> copy;
    auto bytes = constantBytes(c.value, copy);
    if (!bytes)
      return bytes.takeError();
    if (bytes->size() != c.size)
      return llvm::createStringError(
          llvm::formatv("the constant at offset {0} has {1} bytes; its "
                        "buffer has {2}",
                        c.offset, bytes->size(), c.size)
              .str());
    std::memcpy(base + c.offset, bytes->data(), c.size);
    auto r = dyn_cast<DenseResourceElementsAttr>(c.value);
    if (!rehome || !r || copy || !r.getRawHandle().getBlob())
      continue;
    // The resource now views the blob; its own copy is freed here. (A
    // blob parsed from text may ask for more than the 64-byte alignment
    // of the offsets: it keeps its copy.)
    AsmResourceBlob *old = r.getRawHandle().getBlob();
    if (reinterpret_cast<uintptr_t>(base + c.offset) %
            std::max<uint64_t>(1, old->getDataAlignment()) !=
        0)
      continue;
    AsmResourceBlob view(
        llvm::ArrayRef<char>(reinterpret_cast<char *>(base + c.offset), c.size),
        old->getDataAlignment(),
        [keep = blob](void *, size_t, size_t) mutable { keep.reset(); },
        /*dataIsMutable=*/false);
    DenseResourceElementsHandle::getManagerInterface(r.getContext())
        .getBlobManager()
        .update(r.getRawHandle().getKey(), std::move(view));
#ifdef __GLIBC__
    // glibc keeps freed blocks below its (adaptive, up to 32 MB) mmap
    // threshold in the heap: without a trim the freed copies would stay
    // resident beside the blob that replaces them.
    freed += c.size;
    if (freed >= (64u << 20)) {
      malloc_trim(0);
      freed = 0;
    }
#endif
  }
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  std::vector<std::unique_ptr<LoadedProgram>> loaded;
  for (ProgramOp program : programs) {
    std::string err;
    auto lp = loadProgram(program, err, /*withConstants=*/false,
                          /*hashConstants=*/false);
    if (!lp)
      return llvm::createStringError(err);
    lp->sharedConstants = blob;
    lp->constants =
        std::unique_ptr<uint8_t, void (*)(void *)>(base, keepShared);
    lp->program.constants = base;
    loaded.push_back(std::move(lp));
  }
  return std::move(loaded);
}

std::vector<PlacedConstant> amk::placedConstants(ProgramOp program) {
  std::vector<PlacedConstant> placed;
  program.walk([&](BufferOp b) {
    if (b.getKind() == "const" && b.getValue())
      placed.push_back(
          {(uint64_t)b.getOffset(), (uint64_t)b.getSize(), *b.getValue()});
  });
  return placed;
}

llvm::Error
amk::streamConstants(std::vector<PlacedConstant> constants, uint64_t bytes,
                     llvm::function_ref<void(const char *, size_t)> sink) {
  llvm::stable_sort(constants, [](const auto &a, const auto &b) {
    return a.offset < b.offset;
  });
  static const char zeros[4096] = {};
  uint64_t at = 0;
  auto gap = [&](uint64_t to) {
    for (uint64_t n; at < to; at += n) {
      n = std::min<uint64_t>(to - at, sizeof(zeros));
      sink(zeros, n);
    }
  };
  for (const PlacedConstant &c : constants) {
    std::optional<ref::Tensor> copy;
    auto data = constantBytes(c.value, copy);
    if (!data)
      return data.takeError();
    uint64_t end = c.offset + c.size;
    if ((uint64_t)data->size() != c.size || end > bytes)
      return llvm::createStringError(
          llvm::formatv("the constant at offset {0} has {1} bytes; its "
                        "buffer has {2}, in a blob of {3}",
                        c.offset, data->size(), c.size, bytes)
              .str());
    gap(c.offset);
    if (end > at)
      sink(data->data() + (at - c.offset), end - at);
    at = std::max(at, end);
  }
  gap(bytes);
  return llvm::Error::success();
}

uint64_t amk::hashProgram(const LoadedProgram &lp) {
  uint64_t hash = amk::kFnv1aOffset;
  auto mix = [&](const void *data, size_t n) {
    hash = amk::fnv1a(data, n, hash);
  };
  auto mixVec = [&](const auto &v) { mix(v.data(), v.size() * sizeof(v[0])); };
  const amk_rt_program &p = lp.program;
  if (p.constants)
    mix(p.constants, p.constants_bytes);
  else
    hash = lp.constantsHash;
  mixVec(lp.buffers);
  mixVec(lp.kernelBuffers);
  mixVec(lp.iparams);
  mixVec(lp.fparams);
  // Field by field: amk_rt_task has tail padding.
  for (const amk_rt_task &t : lp.tasks) {
    mix(&t.kernel, sizeof t.kernel);
    mix(&t.worker, sizeof t.worker);
    mix(t.tile, sizeof t.tile);
    mix(&t.first_wait, sizeof t.first_wait);
    mix(&t.num_waits, sizeof t.num_waits);
    mix(&t.signal, sizeof t.signal);
  }
  for (const amk_rt_kernel &k : lp.kernels) {
    for (uint32_t f : {k.kind, k.variant, k.first_buffer, k.num_buffers,
                       k.first_iparam, k.num_iparams, k.first_fparam,
                       k.num_fparams})
      mix(&f, sizeof f);
  }
  mixVec(lp.waits);
  mixVec(lp.counterSignals);
  for (const auto *ios : {&lp.inputs, &lp.outputs})
    for (const amk_rt_io &io : *ios) {
      mix(io.name, std::strlen(io.name) + 1);
      mix(&io.dtype, sizeof io.dtype);
      mix(io.dims, io.rank * sizeof(int64_t));
    }
  return hash;
}
