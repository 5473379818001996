//===- AMKTaskDialect.cpp - The task program dialect ----------------------===//
//
// Part of AMK. Structural verifiers only; whether a program can deadlock,
// race or overrun a buffer is `amk-validate-task-program`'s job.
//
//===----------------------------------------------------------------------===//

#include "dialect/AMKTask/AMKTaskDialect.h"

#include "runtime/include/amk/runtime.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace amk::task;

#include "dialect/AMKTask/AMKTaskEnums.cpp.inc"
#include "dialect/AMKTask/AMKTaskOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/AMKTask/AMKTaskAttrs.cpp.inc"

void AMKTaskDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/AMKTask/AMKTaskOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/AMKTask/AMKTaskAttrs.cpp.inc"
      >();
}

/// `amk_task.kernel gemm {...}`: the kind as a bare keyword. Written by
/// hand rather than the enum attribute's own format, which would print a
/// second space and, on a typo, not say where the kinds come from.
static void printKernelKind(OpAsmPrinter &p, Operation *,
                            KernelKindAttr kind) {
  p << stringifyKernelKind(kind.getValue());
}

static ParseResult parseKernelKind(OpAsmParser &p, KernelKindAttr &kind) {
  SMLoc loc = p.getCurrentLocation();
  StringRef keyword;
  if (p.parseKeyword(&keyword))
    return failure();
  std::optional<KernelKind> k = symbolizeKernelKind(keyword);
  if (!k) {
    InFlightDiagnostic d = p.emitError(loc, "unknown kernel kind '")
                           << keyword
                           << "'; runtime/include/amk/kernels.def has:";
    for (int i = 0; i < AMK_RT_K_NUM_KINDS; ++i)
      d << " " << stringifyKernelKind(static_cast<KernelKind>(i));
    return failure();
  }
  kind = KernelKindAttr::get(p.getContext(), *k);
  return success();
}

#define GET_OP_CLASSES
#include "dialect/AMKTask/AMKTaskOps.cpp.inc"

int64_t amk::task::runtimeDtype(mlir::Type t) {
  if (t.isF32())
    return AMK_RT_F32;
  if (t.isF16())
    return AMK_RT_F16;
  if (t.isBF16())
    return AMK_RT_BF16;
  if (t.isF64())
    return AMK_RT_F64;
  if (t.isUnsignedInteger(64))
    return AMK_RT_U64;
  if (t.isUnsignedInteger(32))
    return AMK_RT_U32;
  if (t.isUnsignedInteger(16))
    return AMK_RT_U16;
  if (t.isSignlessInteger(16) || t.isSignedInteger(16))
    return AMK_RT_I16;
  if (t.isInteger(64))
    return AMK_RT_I64;
  if (t.isInteger(32))
    return AMK_RT_I32;
  if (t.isInteger(1))
    return AMK_RT_BOOL;
  if (t.isUnsignedInteger(8))
    return AMK_RT_U8;
  if (t.isInteger(8))
    return AMK_RT_I8;
  return -1;
}

int amk::task::kernelKindFromName(llvm::StringRef name) {
  std::optional<KernelKind> kind = symbolizeKernelKind(name);
  return kind ? static_cast<int>(*kind) : -1;
}

llvm::StringRef amk::task::kernelKindName(int kind) {
  if (kind < 0 || kind >= AMK_RT_K_NUM_KINDS)
    return "unknown";
  return stringifyKernelKind(static_cast<KernelKind>(kind));
}

/// Bytes one period of `a`'s rows shares with `b`'s, for two accesses of one
/// stride whose rows are narrower than it; `d` is where `b` starts within
/// `a`'s period (its row also starts at d - stride, in the next period).
static int64_t sharedColumns(const Access &a, const Access &b, int64_t d) {
  auto meet = [&](int64_t bc) {
    return std::max<int64_t>(0, std::min(a.rowBytes, bc + b.rowBytes) -
                                    std::max<int64_t>(0, bc));
  };
  return meet(d) + meet(d - a.stride);
}

bool amk::task::accessesOverlap(int64_t baseA, const Access &a,
                                int64_t baseB, const Access &b) {
  if (a.rows <= 0 || b.rows <= 0 || a.rowBytes <= 0 || b.rowBytes <= 0)
    return false;
  int64_t a0 = baseA + a.offset, a1 = baseA + a.end();
  int64_t b0 = baseB + b.offset, b1 = baseB + b.end();
  if (a1 <= b0 || b1 <= a0)
    return false;
  if (a.rows == 1 && b.rows == 1)
    return true;
  if (a.stride != b.stride || a.stride <= 0)
    return true; // Conservative.
  int64_t s = a.stride;
  if (a.rowBytes >= s || b.rowBytes >= s)
    return true; // Rows touch each other: the hulls decide.
  // Same stride: the rows interleave; compare the column intervals of the
  // rows that can meet.
  return sharedColumns(a, b, ((b0 - a0) % s + s) % s) > 0;
}

int64_t amk::task::accessesOverlapBytes(int64_t baseA, const Access &a,
                                        int64_t baseB, const Access &b) {
  if (!accessesOverlap(baseA, a, baseB, b))
    return 0;
  int64_t a0 = baseA + a.offset, a1 = baseA + a.end();
  int64_t b0 = baseB + b.offset, b1 = baseB + b.end();
  int64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  // Rows that touch each other make one contiguous range.
  auto sparse = [](const Access &x) {
    return x.rows > 1 && x.rowBytes < x.stride;
  };
  if (!sparse(a) && !sparse(b))
    return hi - lo;
  if (sparse(a) && sparse(b)) {
    if (a.stride != b.stride) // Rough: the hull at the sparser density.
      return (int64_t)((double)(hi - lo) *
                       std::min((double)a.rowBytes / a.stride,
                                (double)b.rowBytes / b.stride));
    int64_t s = a.stride;
    int64_t perPeriod = sharedColumns(a, b, ((b0 - a0) % s + s) % s);
    return (hi - lo + s - 1) / s * perPeriod;
  }
  // One contiguous range [lo, hi) against rows: each row's part inside it.
  const Access &r = sparse(a) ? a : b;
  const int64_t r0 = sparse(a) ? a0 : b0;
  int64_t first = std::max<int64_t>(0, (lo - r0 - r.rowBytes) / r.stride);
  int64_t last = std::min<int64_t>(r.rows - 1, (hi - r0) / r.stride);
  int64_t bytes = 0;
  for (int64_t k = first; k <= last; ++k) {
    int64_t x0 = r0 + k * r.stride;
    bytes +=
        std::max<int64_t>(0, std::min(hi, x0 + r.rowBytes) - std::max(lo, x0));
  }
  return bytes;
}

LogicalResult ProgramOp::verify() {
  // I64Attr getters are unsigned: the signed values catch "-1".
  if (getWorkersAttr().getInt() < 1)
    return emitOpError("needs at least one worker");
  if (getCountersAttr().getInt() < 0 || getArenaBytesAttr().getInt() < 0)
    return emitOpError("counters and arena_bytes must be non-negative");
  if ((int64_t)getCounterSignals().size() != getCountersAttr().getInt())
    return emitOpError("has ") << getCounters() << " counters but "
                               << getCounterSignals().size()
                               << " counter_signals entries";
  // Buffers, then kernels, then tasks.
  int stage = 0;
  for (Operation &op : getBody().front()) {
    int s = isa<BufferOp>(op) ? 0 : isa<KernelOp>(op) ? 1
            : isa<TaskOp>(op) ? 2
                              : 3;
    if (s == 3)
      return op.emitOpError("is not a buffer, kernel or task");
    if (s < stage)
      return op.emitOpError("out of order: a program lists its buffers, "
                            "then its kernels, then its tasks");
    stage = s;
  }
  return success();
}

LogicalResult BufferOp::verify() {
  llvm::StringRef k = getKind();
  if (k != "arena" && k != "const" && k != "input" && k != "output")
    return emitOpError("kind must be arena, const, input or output, not '")
           << k << "'";
  // I64Attr getters are unsigned: the signed values catch "-1". offset and
  // index may be absent (their default is 0).
  auto valueOf = [](IntegerAttr a) { return a ? a.getInt() : 0; };
  if (valueOf(getSizeAttr()) < 0 || valueOf(getOffsetAttr()) < 0 ||
      valueOf(getIndexAttr()) < 0)
    return emitOpError("size, offset and index must be non-negative");
  if (k == "const" && !getValue())
    return emitOpError("a const buffer needs a value");
  return success();
}
