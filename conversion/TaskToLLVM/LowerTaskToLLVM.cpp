//===- LowerTaskToLLVM.cpp - amk_task.program to the llvm dialect ---------===//
//
// Part of AMK. The task program becomes constant data laid out exactly as
// the runtime's C structs (runtime/include/amk/runtime.h), entry points
// that bind the caller's buffers and enter the runtime, and generated code
// for ELEMENTWISE kernels. The tables are built by the same loader amk-run
// uses in process (execution/ProgramLoader.h), so the two paths cannot
// disagree on the meaning of the IR.
//
//===----------------------------------------------------------------------===//

#include "conversion/Passes.h"

#include "dialect/AMKTask/TaskProgram.h"
#include "execution/ProgramLoader.h"
#include "transforms/Utils/PassUtils.h"
#include "runtime/include/amk/kernel_params.h"
#include "runtime/include/amk/model.h"
#include "runtime/support/EwProgram.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace amk {
#define GEN_PASS_DEF_LOWERTASKTOLLVM
#include "conversion/Passes.h.inc"
} // namespace amk

using namespace mlir;
using namespace amk;
using namespace amk::task;

namespace {

/// Builds the globals and functions of one program at the end of a module.
class ProgramEmitter {
public:
  ProgramEmitter(ModuleOp module, Location loc, std::string prefix)
      : module(module), loc(loc), prefix(std::move(prefix)),
        b(module.getContext()), ctx(module.getContext()) {
    b.setInsertionPointToEnd(module.getBody());
    ptrTy = LLVM::LLVMPointerType::get(ctx);
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
  }

  std::string sym(StringRef suffix) const { return prefix + "_" + suffix.str(); }

  /// A constant byte array (the host's image of a pointer-free table).
  LLVM::GlobalOp bytes(StringRef name, ArrayRef<char> data, unsigned align,
                       uint64_t &tableBytes) {
    tableBytes += data.size();
    SmallVector<char> one;
    if (data.empty()) {
      one.push_back(0);
      data = one;
    }
    auto type = RankedTensorType::get({(int64_t)data.size()}, i8);
    auto attr = DenseElementsAttr::getFromRawBuffer(type, data);
    return LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(i8, data.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, sym(name), attr, align);
  }

  template <typename T>
  LLVM::GlobalOp table(StringRef name, const std::vector<T> &v,
                       uint64_t &tableBytes) {
    return bytes(name,
                 ArrayRef<char>(reinterpret_cast<const char *>(v.data()),
                                v.size() * sizeof(T)),
                 alignof(T) < 8 ? 8 : alignof(T), tableBytes);
  }

  LLVM::GlobalOp string(StringRef name, StringRef value) {
    std::string z = value.str();
    z.push_back('\0');
    return LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(i8, z.size()), true,
        LLVM::Linkage::Internal, sym(name), b.getStringAttr(z), 1);
  }

  /// A global whose initializer region `fill` builds; returns it.
  LLVM::GlobalOp initialized(StringRef name, Type type, bool external,
                             function_ref<Value(OpBuilder &)> fill) {
    auto g = LLVM::GlobalOp::create(
        b, loc, type, true,
        external ? LLVM::Linkage::External : LLVM::Linkage::Internal,
        sym(name), Attribute(), 8);
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&g.getInitializerRegion());
    Value v = fill(b);
    LLVM::ReturnOp::create(b, loc, v);
    return g;
  }

  Value addr(OpBuilder &ib, StringRef fullName) {
    return LLVM::AddressOfOp::create(ib, loc, ptrTy, fullName);
  }
  Value cst(OpBuilder &ib, Type t, int64_t v) {
    return LLVM::ConstantOp::create(ib, loc, t, ib.getIntegerAttr(t, v));
  }
  Value insert(OpBuilder &ib, Value agg, Value v, ArrayRef<int64_t> pos) {
    return LLVM::InsertValueOp::create(ib, loc, agg, v, pos);
  }

  ModuleOp module;
  Location loc;
  std::string prefix;
  OpBuilder b;
  MLIRContext *ctx;
  Type ptrTy, i8, i32, i64, f32;
};

/// Offset of an input with broadcast `strides` at flat output index idx:
/// sum over the dims it does not broadcast of
/// ((idx / suffix[d]) % dims[d]) * stride[d].
Value broadcastOffset(ProgramEmitter &e, int64_t rank, const int64_t *dims,
                      const int64_t *strides, Value idx) {
  OpBuilder &b = e.b;
  Value off = e.cst(b, e.i64, 0);
  int64_t suffix = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t dim = dims[d], stride = strides[d];
    if (dim != 1 && stride != 0) {
      Value q = suffix == 1 ? idx
                            : arith::DivUIOp::create(b, e.loc, idx,
                                                     e.cst(b, e.i64, suffix));
      if (d > 0)
        q = arith::RemUIOp::create(b, e.loc, q, e.cst(b, e.i64, dim));
      off = arith::AddIOp::create(
          b, e.loc, off,
          arith::MulIOp::create(b, e.loc, q, e.cst(b, e.i64, stride)));
    }
    suffix *= dim;
  }
  return off;
}

/// Compiles one ELEMENTWISE kernel's register program to
/// `void @fn(ptr y, ptr inputs, i64 begin, i64 end)`.
class ElementwiseCompiler {
public:
  ElementwiseCompiler(ProgramEmitter &e, const rt::EwProgram &prog,
                      ArrayRef<float> fparams)
      : e(e), prog(prog), fparams(fparams) {}

  LogicalResult emit(StringRef name, std::string &error) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    Type ptr = e.ptrTy;
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(e.ctx), {ptr, ptr, e.i64, e.i64});
    auto fn = LLVM::LLVMFuncOp::create(b, loc, name, fnType,
                                       LLVM::Linkage::Internal);
    OpBuilder::InsertionGuard guard(b);
    Block *entry = fn.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    Value y = entry->getArgument(0), ins = entry->getArgument(1);
    Value begin = entry->getArgument(2), end = entry->getArgument(3);
    // Input pointers and loop-invariant (scalar) inputs, hoisted.
    SmallVector<Value> base(prog.nin), hoisted(prog.nin);
    for (int64_t i = 0; i < prog.nin; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, ins,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      base[i] = LLVM::LoadOp::create(b, loc, ptr, slot);
      if (prog.in[i].scalar) {
        FailureOr<Value> v = load(i, base[i], e.cst(b, e.i64, 0), error);
        if (failed(v))
          return failure();
        hoisted[i] = *v;
      }
    }
    Value one = e.cst(b, e.i64, 1);
    auto loop = scf::ForOp::create(b, loc, begin, end, one);
    b.setInsertionPointToStart(loop.getBody());
    Value idx = loop.getInductionVar();
    int64_t nreg = prog.nin;
    for (int64_t k = 0; k < prog.ninstr; ++k)
      nreg = std::max(nreg, prog.instr[k * 5 + 1] + 1);
    if (prog.result < 0 || prog.result >= nreg) {
      error = "result register out of range";
      return failure();
    }
    regs.assign(nreg, Value());
    for (int64_t i = 0; i < prog.nin; ++i) {
      if (hoisted[i]) {
        regs[i] = hoisted[i];
        continue;
      }
      Value off = prog.in[i].contiguous ? idx : offset(i, idx);
      FailureOr<Value> v = load(i, base[i], off, error);
      if (failed(v))
        return failure();
      regs[i] = *v;
    }
    for (int64_t k = 0; k < prog.ninstr; ++k) {
      const int64_t *ins = prog.instr + k * 5;
      FailureOr<Value> v = instruction(ins, error);
      if (failed(v))
        return failure();
      regs[ins[1]] = *v;
    }
    Value out = regs[prog.result];
    if (!out) {
      error = "result register is never written";
      return failure();
    }
    Value dst = LLVM::GEPOp::create(b, loc, ptr, e.f32, y, ValueRange{idx});
    LLVM::StoreOp::create(b, loc, out, dst);
    b.setInsertionPointAfter(loop);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return success();
  }

private:
  Value offset(int64_t i, Value idx) {
    return broadcastOffset(e, prog.rank, prog.dims, prog.in[i].strides, idx);
  }

  FailureOr<Value> load(int64_t i, Value basePtr, Value off,
                        std::string &error) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    Type elem;
    bool isUnsigned = false;
    switch (prog.in[i].dtype) {
    case AMK_RT_F32:
      elem = e.f32;
      break;
    case AMK_RT_I64:
      elem = e.i64;
      break;
    case AMK_RT_I32:
      elem = e.i32;
      break;
    case AMK_RT_I8:
      elem = e.i8;
      break;
    case AMK_RT_U8:
    case AMK_RT_BOOL:
      elem = e.i8;
      isUnsigned = true;
      break;
    default:
      error = "input " + std::to_string(i) + " has dtype " +
              std::to_string(prog.in[i].dtype) + ", which has no code";
      return failure();
    }
    Value p = LLVM::GEPOp::create(b, loc, e.ptrTy, elem, basePtr,
                                  ValueRange{off});
    Value v = LLVM::LoadOp::create(b, loc, elem, p);
    if (elem == e.f32)
      return v;
    if (isUnsigned)
      return Value(arith::UIToFPOp::create(b, loc, e.f32, v));
    return Value(arith::SIToFPOp::create(b, loc, e.f32, v));
  }

  Value f(float v) {
    return arith::ConstantOp::create(e.b, e.loc, e.b.getF32FloatAttr(v));
  }
  // std::max / std::min as the runtime computes them (NaN in x stays).
  Value maxOf(Value x, Value a) {
    Value lt = arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OLT,
                                     x, a);
    return arith::SelectOp::create(e.b, e.loc, lt, a, x);
  }
  Value minOf(Value x, Value a) {
    Value lt = arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OLT,
                                     a, x);
    return arith::SelectOp::create(e.b, e.loc, lt, a, x);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(e.b, e.loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(e.b, e.loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(e.b, e.loc, x, y); }
  Value sigmoid(Value x) {
    Value ex = math::ExpOp::create(e.b, e.loc,
                                   arith::NegFOp::create(e.b, e.loc, x));
    return div(f(1.f), add(f(1.f), ex));
  }

  FailureOr<Value> instruction(const int64_t *ins, std::string &error) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    int64_t op = ins[0], a = ins[2], bb = ins[3], imm = ins[4];
    auto reg = [&](int64_t r) -> Value {
      return r >= 0 && r < (int64_t)regs.size() ? regs[r] : Value();
    };
    auto immAt = [&](int64_t k) -> float {
      return imm >= 0 && imm + k < (int64_t)fparams.size() ? fparams[imm + k]
                                                           : 0.f;
    };
    if (op == AMK_OP_CONST) {
      if (imm < 0 || imm >= (int64_t)fparams.size()) {
        error = "constant index out of range";
        return failure();
      }
      return f(fparams[imm]);
    }
    Value x = reg(a);
    if (!x) {
      error = "instruction reads an unwritten register";
      return failure();
    }
    float alpha = immAt(0), beta = immAt(1);
    switch (op) {
    case AMK_OP_RELU: {
      Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                       f(0.f));
      return Value(arith::SelectOp::create(b, loc, gt, x, f(0.f)));
    }
    case AMK_OP_CLIP:
      return minOf(maxOf(x, f(alpha)), f(beta));
    case AMK_OP_LEAKY_RELU: {
      Value ge = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                       f(0.f));
      return Value(arith::SelectOp::create(b, loc, ge, x, mul(f(alpha), x)));
    }
    case AMK_OP_SIGMOID:
      return sigmoid(x);
    case AMK_OP_HARD_SWISH:
      return mul(x, minOf(maxOf(add(div(x, f(6.f)), f(0.5f)), f(0.f)),
                          f(1.f)));
    case AMK_OP_HARD_SIGMOID:
      return minOf(maxOf(add(mul(f(alpha), x), f(beta)), f(0.f)), f(1.f));
    case AMK_OP_TANH:
      return Value(math::TanhOp::create(b, loc, x));
    case AMK_OP_GELU: {
      Value erf = math::ErfOp::create(b, loc, mul(x, f(0.70710678f)));
      return mul(mul(f(0.5f), x), add(f(1.f), erf));
    }
    case AMK_OP_GELU_TANH: {
      Value cube = mul(mul(x, x), x);
      Value inner = mul(f(0.7978845608f), add(x, mul(f(0.044715f), cube)));
      Value t = math::TanhOp::create(b, loc, inner);
      return mul(mul(f(0.5f), x), add(f(1.f), t));
    }
    case AMK_OP_QUICK_GELU:
      return mul(x, sigmoid(mul(f(alpha), x)));
    case AMK_OP_NEG:
      return Value(arith::NegFOp::create(b, loc, x));
    case AMK_OP_EXP:
      return Value(math::ExpOp::create(b, loc, x));
    case AMK_OP_LOG:
      return Value(math::LogOp::create(b, loc, x));
    case AMK_OP_SQRT:
      return Value(math::SqrtOp::create(b, loc, x));
    case AMK_OP_ABS:
      return Value(math::AbsFOp::create(b, loc, x));
    case AMK_OP_RECIPROCAL:
      return div(f(1.f), x);
    case AMK_OP_ERF:
      return Value(math::ErfOp::create(b, loc, x));
    case AMK_OP_COPY:
      return x;
    case AMK_OP_FLOOR:
      return Value(math::FloorOp::create(b, loc, x));
    case AMK_OP_CEIL:
      return Value(math::CeilOp::create(b, loc, x));
    case AMK_OP_ROUND:
      return Value(math::RoundEvenOp::create(b, loc, x));
    case AMK_OP_SOFTPLUS:
      return Value(
          math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x)));
    case AMK_OP_ELU:
    case AMK_OP_SELU: {
      Value neg = mul(f(alpha), math::ExpM1Op::create(b, loc, x));
      auto pred = op == AMK_OP_ELU ? arith::CmpFPredicate::OGE
                                   : arith::CmpFPredicate::OGT;
      Value pos = arith::CmpFOp::create(b, loc, pred, x, f(0.f));
      Value v = arith::SelectOp::create(b, loc, pos, x, neg);
      return op == AMK_OP_ELU ? v : mul(f(beta), v);
    }
    case AMK_OP_CELU: {
      Value neg =
          mul(f(alpha), math::ExpM1Op::create(b, loc, div(x, f(alpha))));
      return add(maxOf(x, f(0.f)), minOf(neg, f(0.f)));
    }
    case AMK_OP_SOFTSIGN:
      return div(x, add(f(1.f), math::AbsFOp::create(b, loc, x)));
    case AMK_OP_THRESHOLDED_RELU: {
      Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                       f(alpha));
      return Value(arith::SelectOp::create(b, loc, gt, x, f(0.f)));
    }
    case AMK_OP_SHRINK: {
      Value lo = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                       f(-beta));
      Value hi = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                       f(beta));
      Value up = arith::SelectOp::create(
          b, loc, hi, arith::SubFOp::create(b, loc, x, f(alpha)), f(0.f));
      return Value(arith::SelectOp::create(b, loc, lo, add(x, f(alpha)), up));
    }
    case AMK_OP_MISH: {
      Value sp =
          math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
      return mul(x, math::TanhOp::create(b, loc, sp));
    }
    case AMK_OP_SIGN: {
      // x > 0 ? 1 : (x < 0 ? -1 : x), so zeros and NaN stay.
      Value gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                       f(0.f));
      Value lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                       f(0.f));
      Value neg = arith::SelectOp::create(b, loc, lt, f(-1.f), x);
      return Value(arith::SelectOp::create(b, loc, gt, f(1.f), neg));
    }
    case AMK_OP_SIN:
      return Value(math::SinOp::create(b, loc, x));
    case AMK_OP_COS:
      return Value(math::CosOp::create(b, loc, x));
    case AMK_OP_TAN:
      return Value(math::TanOp::create(b, loc, x));
    case AMK_OP_ASIN:
      return Value(math::AsinOp::create(b, loc, x));
    case AMK_OP_ACOS:
      return Value(math::AcosOp::create(b, loc, x));
    case AMK_OP_ATAN:
      return Value(math::AtanOp::create(b, loc, x));
    case AMK_OP_SINH:
      return Value(math::SinhOp::create(b, loc, x));
    case AMK_OP_COSH:
      return Value(math::CoshOp::create(b, loc, x));
    case AMK_OP_ASINH:
      return Value(math::AsinhOp::create(b, loc, x));
    case AMK_OP_ACOSH:
      return Value(math::AcoshOp::create(b, loc, x));
    case AMK_OP_ATANH:
      return Value(math::AtanhOp::create(b, loc, x));
    default:
      break;
    }
    Value y = reg(bb);
    if (!y) {
      error = "instruction " + std::to_string(op) +
              " reads an unwritten register";
      return failure();
    }
    switch (op) {
    case AMK_OP_ADD:
      return add(x, y);
    case AMK_OP_SUB:
      return Value(arith::SubFOp::create(b, loc, x, y));
    case AMK_OP_MUL:
      return mul(x, y);
    case AMK_OP_DIV:
      return div(x, y);
    case AMK_OP_POW:
      return Value(math::PowFOp::create(b, loc, x, y));
    case AMK_OP_MAX:
      return Value(arith::MaximumFOp::create(b, loc, x, y));
    case AMK_OP_MIN:
      return Value(arith::MinimumFOp::create(b, loc, x, y));
    case AMK_OP_PRELU: {
      Value lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                       f(0.f));
      return Value(arith::SelectOp::create(b, loc, lt, mul(x, y), x));
    }
    default:
      error = "unknown elementwise opcode " + std::to_string(op);
      return failure();
    }
  }

  ProgramEmitter &e;
  const rt::EwProgram &prog;
  ArrayRef<float> fparams;
  SmallVector<Value> regs;
};

/// Compiles a TYPED_ELEMENTWISE kernel whose values are integers or bools
/// (computed in 64-bit integers), or a comparison of floats (computed in
/// double), to `void @fn(ptr y, ptr inputs, i64 begin, i64 end)` with the
/// runtime kernel's exact semantics: wrapping arithmetic, x / 0 = 0,
/// Python's and C's remainders, shifts past 63 give 0. Other typed ops
/// (float arithmetic on float16/bfloat16/float64, float casts) return
/// false from compilable() and stay with the runtime's kernel.
class TypedElementwiseCompiler {
public:
  TypedElementwiseCompiler(ProgramEmitter &e, const int64_t *ip, int64_t nip)
      : e(e), ip(ip), nip(nip) {}

  /// Whether this kernel's op and types have generated code.
  bool compilable() {
    if (nip < AMK_TEW_DIMS)
      return false;
    op = ip[AMK_TEW_OP], compute = ip[AMK_TEW_COMPUTE];
    ydtype = ip[AMK_TEW_Y_DTYPE], rank = ip[AMK_TEW_RANK];
    nin = ip[AMK_TEW_NIN];
    if (rank < 0 || rank > 8 || nin < 1 || nin > AMK_TEW_MAX_INPUTS ||
        nip != AMK_TEW_DIMS + rank + nin * (1 + rank))
      return false;
    dims = ip + AMK_TEW_DIMS;
    for (int64_t i = 0; i < nin; ++i) {
      dtypes[i] = dims[rank + i * (1 + rank)];
      strides[i] = dims + rank + i * (1 + rank) + 1;
      if (!intType(dtypes[i]) &&
          !(compute == AMK_TEW_F64 &&
            (dtypes[i] == AMK_RT_F32 || dtypes[i] == AMK_RT_F64)))
        return false;
    }
    if (!intType(ydtype))
      return false;
    if (compute == AMK_TEW_F64)
      return (op >= AMK_OP_EQUAL && op <= AMK_OP_GREATER_EQUAL && nin == 2) ||
             (op == AMK_OP_ISNAN && nin == 1);
    bool binary = (op >= AMK_OP_ADD && op <= AMK_OP_DIV) || op == AMK_OP_MAX ||
                  op == AMK_OP_MIN ||
                  (op >= AMK_OP_MOD && op <= AMK_OP_SHIFT_RIGHT);
    bool unary = op == AMK_OP_COPY || op == AMK_OP_NEG || op == AMK_OP_ABS ||
                 op == AMK_OP_SIGN || op == AMK_OP_RELU || op == AMK_OP_NOT ||
                 op == AMK_OP_BITWISE_NOT || op == AMK_OP_ISNAN ||
                 op == AMK_OP_ISINF;
    return (binary && nin >= 2) || (unary && nin == 1);
  }

  void emit(StringRef name) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    Type ptr = e.ptrTy;
    auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(e.ctx),
                                              {ptr, ptr, e.i64, e.i64});
    auto fn =
        LLVM::LLVMFuncOp::create(b, loc, name, fnType, LLVM::Linkage::Internal);
    OpBuilder::InsertionGuard guard(b);
    Block *entry = fn.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    Value y = entry->getArgument(0), ins = entry->getArgument(1);
    Value begin = entry->getArgument(2), end = entry->getArgument(3);
    SmallVector<Value> base(nin);
    for (int64_t i = 0; i < nin; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, ins,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)i});
      base[i] = LLVM::LoadOp::create(b, loc, ptr, slot);
    }
    auto loop = scf::ForOp::create(b, loc, begin, end, e.cst(b, e.i64, 1));
    b.setInsertionPointToStart(loop.getBody());
    Value idx = loop.getInductionVar();
    Value acc = load(0, base[0], offset(0, idx));
    if (nin == 1) {
      acc = unary(acc);
    } else {
      for (int64_t i = 1; i < nin; ++i)
        acc = binary(acc, load(i, base[i], offset(i, idx)));
    }
    store(y, idx, acc);
    b.setInsertionPointAfter(loop);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }

private:
  static bool intType(int64_t dt) {
    switch (dt) {
    case AMK_RT_I64:
    case AMK_RT_U64:
    case AMK_RT_I32:
    case AMK_RT_U32:
    case AMK_RT_I16:
    case AMK_RT_U16:
    case AMK_RT_I8:
    case AMK_RT_U8:
    case AMK_RT_BOOL:
      return true;
    }
    return false;
  }
  Type storage(int64_t dt) {
    switch (dt) {
    case AMK_RT_I64:
    case AMK_RT_U64:
      return e.i64;
    case AMK_RT_I32:
    case AMK_RT_U32:
      return e.i32;
    case AMK_RT_I16:
    case AMK_RT_U16:
      return e.b.getI16Type();
    case AMK_RT_F32:
      return e.f32;
    case AMK_RT_F64:
      return e.b.getF64Type();
    default:
      return e.i8;
    }
  }
  static bool isSigned(int64_t dt) {
    return dt == AMK_RT_I64 || dt == AMK_RT_I32 || dt == AMK_RT_I16 ||
           dt == AMK_RT_I8;
  }
  bool isFloatCompute() const { return compute == AMK_TEW_F64; }
  bool signedCompute() const { return compute == AMK_TEW_I64; }

  Value c64(int64_t v) { return e.cst(e.b, e.i64, v); }

  /// As ElementwiseCompiler::offset: the broadcast strides over the
  /// output's flat index.
  Value offset(int64_t i, Value idx) {
    bool contiguous = true, scalar = true;
    for (int64_t d = rank - 1, expect = 1; d >= 0; --d) {
      if (dims[d] != 1 && strides[i][d] != expect)
        contiguous = false;
      if (dims[d] != 1 && strides[i][d] != 0)
        scalar = false;
      expect *= dims[d];
    }
    if (scalar)
      return c64(0);
    if (contiguous)
      return idx;
    return broadcastOffset(e, rank, dims, strides[i], idx);
  }

  /// Input i at `off`, in the compute type (i64 or f64).
  Value load(int64_t i, Value basePtr, Value off) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    int64_t dt = dtypes[i];
    Type elem = storage(dt);
    Value p =
        LLVM::GEPOp::create(b, loc, e.ptrTy, elem, basePtr, ValueRange{off});
    Value v = LLVM::LoadOp::create(b, loc, elem, p);
    if (dt == AMK_RT_F32)
      return arith::ExtFOp::create(b, loc, b.getF64Type(), v);
    if (dt == AMK_RT_F64)
      return v;
    if (dt == AMK_RT_BOOL) {
      Value nz = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                       e.cst(b, e.i8, 0));
      return arith::ExtUIOp::create(b, loc, e.i64, nz);
    }
    if (elem == e.i64)
      return v;
    if (isSigned(dt))
      return arith::ExtSIOp::create(b, loc, e.i64, v);
    return arith::ExtUIOp::create(b, loc, e.i64, v);
  }

  Value flag(Value i1) { return arith::ExtUIOp::create(e.b, e.loc, e.i64, i1); }
  Value icmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(e.b, e.loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(e.b, e.loc, c, x, y);
  }
  arith::CmpIPredicate lt() const {
    return signedCompute() ? arith::CmpIPredicate::slt
                           : arith::CmpIPredicate::ult;
  }

  Value unary(Value a) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    if (isFloatCompute()) // ISNAN
      return flag(
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a));
    Value zero = c64(0);
    switch (op) {
    case AMK_OP_NEG:
      return arith::SubIOp::create(b, loc, zero, a);
    case AMK_OP_ABS:
      if (!signedCompute())
        return a;
      return select(icmp(arith::CmpIPredicate::slt, a, zero),
                    arith::SubIOp::create(b, loc, zero, a), a);
    case AMK_OP_SIGN: {
      Value pos = icmp(signedCompute() ? arith::CmpIPredicate::sgt
                                       : arith::CmpIPredicate::ugt,
                       a, zero);
      Value s = select(pos, c64(1), zero);
      if (!signedCompute())
        return s;
      return select(icmp(arith::CmpIPredicate::slt, a, zero), c64(-1), s);
    }
    case AMK_OP_RELU:
      return select(icmp(signedCompute() ? arith::CmpIPredicate::sgt
                                         : arith::CmpIPredicate::ugt,
                         a, zero),
                    a, zero);
    case AMK_OP_NOT:
      return flag(icmp(arith::CmpIPredicate::eq, a, zero));
    case AMK_OP_BITWISE_NOT:
      return arith::XOrIOp::create(b, loc, a, c64(-1));
    case AMK_OP_ISNAN:
    case AMK_OP_ISINF:
      return zero;
    default: // AMK_OP_COPY: a Cast between integer types
      return a;
    }
  }

  Value binary(Value x, Value y) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    if (isFloatCompute()) {
      arith::CmpFPredicate p =
          op == AMK_OP_EQUAL        ? arith::CmpFPredicate::OEQ
          : op == AMK_OP_LESS       ? arith::CmpFPredicate::OLT
          : op == AMK_OP_LESS_EQUAL ? arith::CmpFPredicate::OLE
          : op == AMK_OP_GREATER    ? arith::CmpFPredicate::OGT
                                    : arith::CmpFPredicate::OGE;
      return flag(arith::CmpFOp::create(b, loc, p, x, y));
    }
    Value zero = c64(0);
    bool sgn = signedCompute();
    // y, or 1 where dividing by it traps (0, and -1 for signed types:
    // INT_MIN / -1).
    auto safeDivisor = [&](Value isZero) {
      Value bad = isZero;
      if (sgn)
        bad = arith::OrIOp::create(b, loc, bad,
                                   icmp(arith::CmpIPredicate::eq, y, c64(-1)));
      return select(bad, c64(1), y);
    };
    switch (op) {
    case AMK_OP_ADD:
      return arith::AddIOp::create(b, loc, x, y);
    case AMK_OP_SUB:
      return arith::SubIOp::create(b, loc, x, y);
    case AMK_OP_MUL:
      return arith::MulIOp::create(b, loc, x, y);
    case AMK_OP_DIV: {
      // x / 0 = 0 and x / -1 = -x (wrapping): never a trap. The divisor
      // is made safe before dividing, the special cases selected after.
      Value isZero = icmp(arith::CmpIPredicate::eq, y, zero);
      Value safe = safeDivisor(isZero);
      Value q = sgn ? Value(arith::DivSIOp::create(b, loc, x, safe))
                    : Value(arith::DivUIOp::create(b, loc, x, safe));
      if (sgn)
        q = select(icmp(arith::CmpIPredicate::eq, y, c64(-1)),
                   arith::SubIOp::create(b, loc, zero, x), q);
      return select(isZero, zero, q);
    }
    case AMK_OP_MOD:
    case AMK_OP_FMOD: {
      Value isZero = icmp(arith::CmpIPredicate::eq, y, zero);
      Value safe = safeDivisor(isZero);
      Value r = sgn ? Value(arith::RemSIOp::create(b, loc, x, safe))
                    : Value(arith::RemUIOp::create(b, loc, x, safe));
      if (sgn && op == AMK_OP_MOD) {
        // The sign of the divisor: r += y when r != 0 and signs differ.
        Value differ = arith::XOrIOp::create(
            b, loc, icmp(arith::CmpIPredicate::slt, r, zero),
            icmp(arith::CmpIPredicate::slt, y, zero));
        Value fix = arith::AndIOp::create(
            b, loc, icmp(arith::CmpIPredicate::ne, r, zero), differ);
        r = select(fix, arith::AddIOp::create(b, loc, r, y), r);
      }
      return select(isZero, zero, r); // x mod -1 is 0 already
    }
    case AMK_OP_MAX:
      return select(icmp(lt(), x, y), y, x);
    case AMK_OP_MIN:
      return select(icmp(lt(), y, x), y, x);
    case AMK_OP_EQUAL:
      return flag(icmp(arith::CmpIPredicate::eq, x, y));
    case AMK_OP_LESS:
      return flag(icmp(lt(), x, y));
    case AMK_OP_LESS_EQUAL:
      return flag(icmp(
          sgn ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule, x, y));
    case AMK_OP_GREATER:
      return flag(icmp(
          sgn ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt, x, y));
    case AMK_OP_GREATER_EQUAL:
      return flag(icmp(
          sgn ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge, x, y));
    case AMK_OP_AND:
    case AMK_OP_OR:
    case AMK_OP_XOR: {
      Value a = icmp(arith::CmpIPredicate::ne, x, zero);
      Value c = icmp(arith::CmpIPredicate::ne, y, zero);
      Value r = op == AMK_OP_AND  ? Value(arith::AndIOp::create(b, loc, a, c))
                : op == AMK_OP_OR ? Value(arith::OrIOp::create(b, loc, a, c))
                                  : Value(arith::XOrIOp::create(b, loc, a, c));
      return flag(r);
    }
    case AMK_OP_BITWISE_AND:
      return arith::AndIOp::create(b, loc, x, y);
    case AMK_OP_BITWISE_OR:
      return arith::OrIOp::create(b, loc, x, y);
    case AMK_OP_BITWISE_XOR:
      return arith::XOrIOp::create(b, loc, x, y);
    default: { // the shifts: by 64 or more (unsigned) gives 0
      Value big = icmp(arith::CmpIPredicate::uge, y, c64(64));
      Value amount = select(big, zero, y);
      Value s = op == AMK_OP_SHIFT_LEFT
                    ? Value(arith::ShLIOp::create(b, loc, x, amount))
                    : Value(arith::ShRUIOp::create(b, loc, x, amount));
      return select(big, zero, s);
    }
    }
  }

  /// The i64 result stored as Y's dtype: bools as 0/1, integers truncated.
  void store(Value y, Value idx, Value v) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    Type elem = storage(ydtype);
    Value out = v;
    if (ydtype == AMK_RT_BOOL) {
      Value nz = icmp(arith::CmpIPredicate::ne, v, c64(0));
      out = arith::ExtUIOp::create(b, loc, e.i8, nz);
    } else if (elem != e.i64) {
      out = arith::TruncIOp::create(b, loc, elem, v);
    }
    Value dst = LLVM::GEPOp::create(b, loc, e.ptrTy, elem, y, ValueRange{idx});
    LLVM::StoreOp::create(b, loc, out, dst);
  }

  ProgramEmitter &e;
  const int64_t *ip;
  int64_t nip;
  int64_t op = 0, compute = 0, ydtype = 0, rank = 0, nin = 0;
  const int64_t *dims = nullptr;
  int64_t dtypes[AMK_TEW_MAX_INPUTS] = {};
  const int64_t *strides[AMK_TEW_MAX_INPUTS] = {};
};

struct LowerTaskToLLVM
    : public amk::impl::LowerTaskToLLVMBase<LowerTaskToLLVM> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ProgramOp> programs(module.getOps<ProgramOp>());
    if (programs.empty()) {
      module.emitError("amk-lower-task-to-llvm: the module has no "
                       "amk_task.program (run amk-schedule-megakernel "
                       "first)");
      return signalPassFailure();
    }
    if (programs.size() > 1 && !prefix.empty()) {
      module.emitError("amk-lower-task-to-llvm: prefix= names one program, "
                       "the module has ")
          << programs.size();
      return signalPassFailure();
    }
    bool generated = false;
    elementwiseCount = tableByteCount = 0;
    for (ProgramOp program : programs) {
      if (failed(lower(module, program, generated)))
        return signalPassFailure();
      ++numPrograms;
    }
    PassCounters::add(this, "programs", programs.size(),
                      "task programs lowered");
    PassCounters::add(this, "elementwise-functions", elementwiseCount,
                      "elementwise kernels compiled to code");
    PassCounters::add(this, "table-bytes", tableByteCount,
                      "bytes of task, buffer, wait and parameter tables");
    if (generated && approximateMath) {
      RewritePatternSet patterns(&getContext());
      populateMathPolynomialApproximationPatterns(
          patterns, [](StringRef name) {
            return name == "math.exp" || name == "math.erf" ||
                   name == "math.tanh" || name == "math.log" ||
                   name == "math.log1p";
          });
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }
  }

  LogicalResult lower(ModuleOp module, ProgramOp program, bool &generated) {
    // Nothing unvalidated reaches code.
    if (failed(validateProgram(program)))
      return failure();
    std::string err;
    // The weights are copied only to embed them: a program whose weights
    // live apart (amk-compile's object, the JIT's loaded copy) lowers
    // without a copy of them, hashing them piece by piece.
    std::unique_ptr<LoadedProgram> lp =
        loadProgram(program, err, /*withConstants=*/embedConstants);
    if (!lp)
      return program.emitError("cannot lower the task program: ") << err;
    std::string pre = prefix.empty() ? program.getSymName().str() : prefix;
    ProgramEmitter e(module, program.getLoc(), pre);
    for (StringRef s : {"desc", "program", "rt_run", "rt_run_packed",
                        "rt_session_create", "constants", "model"})
      if (SymbolTable::lookupSymbolIn(module, e.sym(s)))
        return program.emitError("symbol '")
               << e.sym(s) << "' already exists in the module";
    const amk_rt_program &p = lp->program;
    OpBuilder &b = e.b;
    Location loc = e.loc;
    uint64_t tableBytes = 0;

    // Weights.
    uint64_t constBytes = std::max<uint64_t>(1, p.constants_bytes);
    Type constTy = LLVM::LLVMArrayType::get(e.i8, constBytes);
    if (embedConstants) {
      auto type = RankedTensorType::get({(int64_t)constBytes}, e.i8);
      ArrayRef<char> raw(reinterpret_cast<const char *>(p.constants),
                         p.constants_bytes);
      SmallVector<char> one(1, 0);
      auto attr = DenseElementsAttr::getFromRawBuffer(
          type, p.constants_bytes ? raw : ArrayRef<char>(one));
      LLVM::GlobalOp::create(b, loc, constTy, true, LLVM::Linkage::Internal,
                             e.sym("constants"), attr, 64);
    } else {
      LLVM::GlobalOp::create(b, loc, constTy, true, LLVM::Linkage::External,
                             e.sym("constants"), Attribute(), 64);
    }

    // Pointer-free tables: the host's image of the structs.
    e.table("buffers", lp->buffers, tableBytes);
    e.table("kernel_buffers", lp->kernelBuffers, tableBytes);
    e.table("iparams", lp->iparams, tableBytes);
    e.table("fparams", lp->fparams, tableBytes);
    e.table("tasks", lp->tasks, tableBytes);
    e.table("waits", lp->waits, tableBytes);
    e.table("counter_signals", lp->counterSignals, tableBytes);

    // Generated elementwise code. Every program is compiled, so that one
    // the runtime would refuse fails here; with compile-elementwise=false
    // the code is then dropped and the runtime interprets the program.
    SmallVector<std::string> fnNames(lp->kernels.size());
    {
      for (auto [k, rk] : llvm::enumerate(lp->kernels)) {
        if (rk.kind == AMK_RT_K_TYPED_ELEMENTWISE) {
          // Integer and bool ops, and float comparisons, as code; the rest
          // of the typed ops stay with the runtime's kernel.
          TypedElementwiseCompiler c(e, lp->iparams.data() + rk.first_iparam,
                                     rk.num_iparams);
          if (!compileElementwise || !c.compilable())
            continue;
          std::string name = e.sym("tew" + std::to_string(k));
          c.emit(name);
          fnNames[k] = name;
          generated = true;
          ++numElementwise;
          ++elementwiseCount;
          continue;
        }
        if (rk.kind != AMK_RT_K_ELEMENTWISE)
          continue;
        rt::EwProgram prog;
        std::string perr;
        if (!prog.parse(lp->iparams.data() + rk.first_iparam, rk.num_iparams,
                        perr))
          return program.emitError("kernel ")
                 << k << " ('" << rk.name << "'): bad elementwise program: "
                 << perr;
        ArrayRef<float> fp(lp->fparams.data() + rk.first_fparam,
                           rk.num_fparams);
        ElementwiseCompiler c(e, prog, fp);
        std::string name = e.sym("ew" + std::to_string(k));
        if (failed(c.emit(name, perr)))
          return program.emitError("kernel ")
                 << k << " ('" << rk.name << "'): " << perr;
        if (!compileElementwise) {
          module.lookupSymbol<LLVM::LLVMFuncOp>(name).erase();
          continue;
        }
        fnNames[k] = name;
        generated = true;
        ++numElementwise;
        ++elementwiseCount;
      }
    }

    // Kernels: {kind, variant, first/num buffers, iparams, fparams, name,
    // elementwise_fn}.
    Type ptr = e.ptrTy, i32 = e.i32, i64 = e.i64;
    auto kernelTy = LLVM::LLVMStructType::getLiteral(
        e.ctx, {i32, i32, i32, i32, i32, i32, i32, i32, ptr, ptr});
    for (auto [k, name] : llvm::enumerate(lp->kernelNames))
      e.string("kname" + std::to_string(k), name);
    e.initialized(
        "kernels", LLVM::LLVMArrayType::get(kernelTy, lp->kernels.size()),
        false, [&](OpBuilder &ib) {
          Type arrTy = LLVM::LLVMArrayType::get(kernelTy, lp->kernels.size());
          Value arr = LLVM::UndefOp::create(ib, loc, arrTy);
          for (auto [k, rk] : llvm::enumerate(lp->kernels)) {
            Value s = LLVM::UndefOp::create(ib, loc, kernelTy);
            uint32_t fields[8] = {rk.kind,         rk.variant,
                                  rk.first_buffer, rk.num_buffers,
                                  rk.first_iparam, rk.num_iparams,
                                  rk.first_fparam, rk.num_fparams};
            for (int f = 0; f < 8; ++f)
              s = e.insert(ib, s, e.cst(ib, i32, fields[f]), {f});
            s = e.insert(ib, s, e.addr(ib, e.sym("kname" + std::to_string(k))),
                         {8});
            Value fn = fnNames[k].empty()
                           ? Value(LLVM::ZeroOp::create(ib, loc, ptr))
                           : e.addr(ib, fnNames[k]);
            s = e.insert(ib, s, fn, {9});
            arr = e.insert(ib, arr, s, {(int64_t)k});
          }
          return arr;
        });

    // I/O descriptors: {name, dtype, rank, dims, bytes}.
    auto ioTy = LLVM::LLVMStructType::getLiteral(e.ctx,
                                                 {ptr, i32, i32, ptr, i64});
    auto ioTable = [&](StringRef what, const std::vector<amk_rt_io> &ios) {
      for (auto [i, io] : llvm::enumerate(ios)) {
        std::string tag = what.str() + std::to_string(i);
        e.string(tag + "_name", io.name);
        std::vector<int64_t> dims(io.dims, io.dims + io.rank);
        e.table(tag + "_dims", dims, tableBytes);
      }
      size_t n = std::max<size_t>(1, ios.size());
      e.initialized(what.str() + "s", LLVM::LLVMArrayType::get(ioTy, n), false,
                    [&](OpBuilder &ib) {
                      Type arrTy = LLVM::LLVMArrayType::get(ioTy, n);
                      Value arr = LLVM::ZeroOp::create(ib, loc, arrTy);
                      for (auto [i, io] : llvm::enumerate(ios)) {
                        std::string tag = what.str() + std::to_string(i);
                        Value s = LLVM::UndefOp::create(ib, loc, ioTy);
                        s = e.insert(ib, s, e.addr(ib, e.sym(tag + "_name")),
                                     {0});
                        s = e.insert(ib, s, e.cst(ib, i32, io.dtype), {1});
                        s = e.insert(ib, s, e.cst(ib, i32, io.rank), {2});
                        s = e.insert(ib, s, e.addr(ib, e.sym(tag + "_dims")),
                                     {3});
                        s = e.insert(ib, s, e.cst(ib, i64, io.bytes), {4});
                        arr = e.insert(ib, arr, s, {(int64_t)i});
                      }
                      return arr;
                    });
    };
    ioTable("input", lp->inputs);
    ioTable("output", lp->outputs);

    // The program descriptor (amk_rt_program).
    SmallVector<Type> progFields(8, i32);
    progFields.append({i64, ptr, i64});
    progFields.append(11, ptr);
    auto progTy = LLVM::LLVMStructType::getLiteral(e.ctx, progFields);
    e.initialized("desc", progTy, false, [&](OpBuilder &ib) {
      Value s = LLVM::UndefOp::create(ib, loc, progTy);
      uint32_t head[8] = {p.abi_version, p.num_workers, p.num_counters,
                          p.num_buffers, p.num_kernels, p.num_tasks,
                          p.num_inputs,  p.num_outputs};
      for (int f = 0; f < 8; ++f)
        s = e.insert(ib, s, e.cst(ib, i32, head[f]), {f});
      s = e.insert(ib, s, e.cst(ib, i64, p.arena_bytes), {8});
      s = e.insert(ib, s, e.addr(ib, e.sym("constants")), {9});
      s = e.insert(ib, s, e.cst(ib, i64, p.constants_bytes), {10});
      const char *tables[11] = {"buffers", "kernel_buffers", "iparams",
                                "fparams", "kernels",        "tasks",
                                "waits",   "counter_signals", "inputs",
                                "outputs", nullptr};
      for (int f = 0; f < 10; ++f)
        s = e.insert(ib, s, e.addr(ib, e.sym(tables[f])), {11 + f});
      return s;
    });

    // The model descriptor of the C API (amk/model.h, struct amk_model):
    // API version, a hash of everything the program computes with (tables,
    // weights, interface), its name and the pipeline that produced it (the
    // module's `amk.pipeline` attribute, which amk-compile sets).
    uint64_t hash = hashProgram(*lp);
    std::string pipelineText;
    if (auto attr = module->getAttrOfType<StringAttr>("amk.pipeline"))
      pipelineText = attr.str();
    e.string("model_name", pre);
    e.string("model_pipeline", pipelineText);
    auto modelTy =
        LLVM::LLVMStructType::getLiteral(e.ctx, {i32, i32, i64, ptr, ptr, ptr});
    e.initialized("model_data", modelTy, false, [&](OpBuilder &ib) {
      Value s = LLVM::UndefOp::create(ib, loc, modelTy);
      s = e.insert(ib, s, e.cst(ib, i32, AMK_MODEL_API_VERSION), {0});
      s = e.insert(ib, s, e.cst(ib, i32, 0), {1});
      s = e.insert(ib, s, e.cst(ib, i64, (int64_t)hash), {2});
      s = e.insert(ib, s, e.addr(ib, e.sym("model_name")), {3});
      s = e.insert(ib, s, e.addr(ib, e.sym("model_pipeline")), {4});
      s = e.insert(ib, s, e.addr(ib, e.sym("desc")), {5});
      return s;
    });

    // Entry points.
    auto declare = [&](StringRef name, Type result, ArrayRef<Type> args) {
      if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        return f;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      return LLVM::LLVMFuncOp::create(
          b, loc, name, LLVM::LLVMFunctionType::get(result, args));
    };
    LLVM::LLVMFuncOp rtCreate =
        declare("amk_rt_session_create", i32, {ptr, ptr, ptr});
    LLVM::LLVMFuncOp rtRun = declare("amk_rt_run", i32, {ptr, ptr, ptr});
    auto define = [&](StringRef name, Type result, ArrayRef<Type> args) {
      auto f = LLVM::LLVMFuncOp::create(
          b, loc, e.sym(name), LLVM::LLVMFunctionType::get(result, args));
      return f.addEntryBlock(b);
    };
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = define("program", ptr, {});
      b.setInsertionPointToStart(body);
      LLVM::ReturnOp::create(b, loc, e.addr(b, e.sym("desc")));
    }
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = define("model", ptr, {});
      b.setInsertionPointToStart(body);
      LLVM::ReturnOp::create(b, loc, e.addr(b, e.sym("model_data")));
    }
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = define("rt_session_create", i32, {ptr, ptr});
      b.setInsertionPointToStart(body);
      Value rc = LLVM::CallOp::create(
                     b, loc, rtCreate,
                     ValueRange{e.addr(b, e.sym("desc")), body->getArgument(0),
                                body->getArgument(1)})
                     .getResult();
      LLVM::ReturnOp::create(b, loc, rc);
    }
    unsigned nin = p.num_inputs, nout = p.num_outputs;
    {
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Type> args(1 + nin + nout, ptr);
      Block *body = define("rt_run", i32, args);
      b.setInsertionPointToStart(body);
      auto bind = [&](unsigned first, unsigned n) -> Value {
        Type arrTy = LLVM::LLVMArrayType::get(ptr, std::max(1u, n));
        Value slots = LLVM::AllocaOp::create(b, loc, ptr, arrTy,
                                             e.cst(b, i64, 1), 8);
        for (unsigned i = 0; i < n; ++i) {
          Value slot = LLVM::GEPOp::create(
              b, loc, ptr, ptr, slots, ArrayRef<LLVM::GEPArg>{(int32_t)i});
          LLVM::StoreOp::create(b, loc, body->getArgument(first + i), slot);
        }
        return slots;
      };
      Value in = bind(1, nin), out = bind(1 + nin, nout);
      Value rc = LLVM::CallOp::create(
                     b, loc, rtRun, ValueRange{body->getArgument(0), in, out})
                     .getResult();
      LLVM::ReturnOp::create(b, loc, rc);
    }
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = define("rt_run_packed", i32, {ptr, ptr});
      b.setInsertionPointToStart(body);
      SmallVector<Value> args{body->getArgument(0)};
      for (unsigned i = 0; i < nin + nout; ++i) {
        Value slot =
            LLVM::GEPOp::create(b, loc, ptr, ptr, body->getArgument(1),
                                ArrayRef<LLVM::GEPArg>{(int32_t)i});
        args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
      }
      auto run = module.lookupSymbol<LLVM::LLVMFuncOp>(e.sym("rt_run"));
      Value rc = LLVM::CallOp::create(b, loc, run, args).getResult();
      LLVM::ReturnOp::create(b, loc, rc);
    }
    numTableBytes += tableBytes;
    tableByteCount += tableBytes;
    program.erase();
    return success();
  }

  // mlir::Pass::Statistic is compiled out of Debian's MLIR (see
  // transforms/Utils/PassUtils.h); these feed PassCounters.
  int64_t elementwiseCount = 0, tableByteCount = 0;
};

} // namespace
