//===- Interpreter.cpp - Reference interpreter of the onnx dialect --------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "reference/Interpreter.h"

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;

namespace amk::ref {

//===----------------------------------------------------------------------===//
// KernelContext
//===----------------------------------------------------------------------===//

KernelContext::KernelContext(Operation *op, llvm::ArrayRef<RValue> inputs,
                             Interpreter &interp)
    : op(op), inputs(inputs), outputs(op->getNumResults()), interp(interp) {
  if (auto g = dyn_cast<onnx::GenericOp>(op)) {
    type = g.getOpType().str();
    genericAttrs = g.getOnnxAttrs();
  } else {
    type = op->getName().stripDialect().str();
    if (const onnx::VersionInfo *v = onnx::getVersionInfo(op))
      since = v->since;
  }
}

bool KernelContext::wants(unsigned i) const {
  return i < op->getNumResults() &&
         !isa<NoneType>(op->getResult(i).getType());
}

Attribute KernelContext::attr(llvm::StringRef name) const {
  if (genericAttrs)
    return genericAttrs.get(name);
  return op->getInherentAttr(name).value_or(Attribute());
}

int64_t KernelContext::getInt(llvm::StringRef name, int64_t dflt) const {
  if (auto a = dyn_cast_or_null<IntegerAttr>(attr(name)))
    return a.getValue().getSExtValue();
  return dflt;
}

float KernelContext::getFloat(llvm::StringRef name, float dflt) const {
  if (auto a = dyn_cast_or_null<FloatAttr>(attr(name)))
    return a.getValue().convertToFloat();
  return dflt;
}

std::string KernelContext::getString(llvm::StringRef name,
                                     llvm::StringRef dflt) const {
  if (auto a = dyn_cast_or_null<StringAttr>(attr(name)))
    return a.str();
  return dflt.str();
}

std::optional<std::vector<int64_t>>
KernelContext::getInts(llvm::StringRef name) const {
  if (auto a = dyn_cast_or_null<DenseI64ArrayAttr>(attr(name)))
    return std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end());
  return std::nullopt;
}

std::optional<std::vector<float>>
KernelContext::getFloats(llvm::StringRef name) const {
  if (auto a = dyn_cast_or_null<DenseF32ArrayAttr>(attr(name)))
    return std::vector<float>(a.asArrayRef().begin(), a.asArrayRef().end());
  return std::nullopt;
}

std::vector<std::string>
KernelContext::getStrings(llvm::StringRef name) const {
  std::vector<std::string> out;
  if (auto a = dyn_cast_or_null<ArrayAttr>(attr(name)))
    for (Attribute s : a)
      if (auto str = dyn_cast<StringAttr>(s))
        out.push_back(str.str());
  return out;
}

LogicalResult KernelContext::unsupported(const llvm::Twine &why) {
  return interp.fail(RunFailure::Kind::Unsupported,
                     onnx::describeOp(op) + ": unsupported: " + why.str());
}

LogicalResult KernelContext::error(const llvm::Twine &why) {
  return interp.fail(RunFailure::Kind::Error,
                     onnx::describeOp(op) + ": " + why.str());
}

FailureOr<std::vector<RValue>>
KernelContext::runRegion(Region &r, llvm::ArrayRef<RValue> args) {
  if (interp.regionRunner) {
    std::string why;
    auto outs = (*interp.regionRunner)(r, args, why);
    if (failed(outs)) {
      (void)interp.fail(RunFailure::Kind::Error, why);
      return failure();
    }
    return outs;
  }
  return interp.runBlock(r.front(), args);
}

//===----------------------------------------------------------------------===//
// KernelRegistry
//===----------------------------------------------------------------------===//

static std::string kernelKey(llvm::StringRef domain, llvm::StringRef opType) {
  if (domain.empty() || domain == "ai.onnx")
    return opType.str();
  return (domain + ":" + opType).str();
}

const KernelRegistry &KernelRegistry::get() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerElementwiseKernels(r);
    registerReductionKernels(r);
    registerTensorKernels(r);
    registerIndexingKernels(r);
    registerGeneratorKernels(r);
    registerConvPoolKernels(r);
    registerNormalizationKernels(r);
    registerNNKernels(r);
    registerLinalgKernels(r);
    registerQuantKernels(r);
    registerRecurrentKernels(r);
    registerControlKernels(r);
    registerMiscKernels(r);
    registerSignalKernels(r);
    registerStringKernels(r);
    registerImageKernels(r);
    registerFusedKernels(r);
    return r;
  }();
  return registry;
}

void KernelRegistry::add(llvm::StringRef opType, Kernel k,
                         llvm::StringRef domain) {
  kernels[kernelKey(domain, opType)] = k;
}

Kernel KernelRegistry::lookup(llvm::StringRef domain,
                              llvm::StringRef opType) const {
  auto it = kernels.find(kernelKey(domain, opType));
  return it == kernels.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &kv : kernels)
    out.push_back(kv.getKey().str());
  std::sort(out.begin(), out.end());
  return out;
}

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(ModuleOp module) {
  if (!module)
    return;
  func = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!func) {
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() == 1)
      func = funcs.front();
  }
}

/// An op of AMK's fused-op dialect (`amk`), executed by the kernels of
/// kernels/Fused.cpp. Matched by name: the interpreter does not depend on
/// that dialect's library.
static bool isFusedOp(Operation *op) {
  return op->getName().getDialectNamespace() == "amk";
}

static bool isExecutable(Operation *op) {
  return isa<onnx::ONNXDialect>(op->getDialect()) || isFusedOp(op);
}

static Kernel lookupKernel(Operation *op) {
  const KernelRegistry &reg = KernelRegistry::get();
  if (auto g = dyn_cast<onnx::GenericOp>(op))
    return reg.lookup(g.getDomain(), g.getOpType());
  if (isFusedOp(op))
    return reg.lookup("amk", op->getName().stripDialect());
  return reg.lookup("", op->getName().stripDialect());
}

std::vector<std::string> Interpreter::findUnsupported() const {
  std::vector<std::string> out;
  if (!func)
    return {"the module has no function @main_graph"};
  func::FuncOp f = func;
  f.walk([&](Operation *op) {
    if (isa<func::FuncOp, func::ReturnOp, onnx::NoValueOp, onnx::YieldOp>(op) ||
        (isFusedOp(op) && op->hasTrait<OpTrait::IsTerminator>()))
      return;
    if (!isExecutable(op)) {
      out.push_back(onnx::describeOp(op) +
                    ": unsupported: not an onnx dialect op");
      return;
    }
    if (!lookupKernel(op)) {
      std::string what = op->getName().stripDialect().str();
      if (auto g = dyn_cast<onnx::GenericOp>(op))
        what = (g.getDomain().empty() ? "" : g.getDomain().str() + ".") +
               g.getOpType().str();
      out.push_back(onnx::describeOp(op) +
                    ": unsupported: the reference interpreter has no kernel "
                    "for " +
                    what);
    }
  });
  return out;
}

LogicalResult Interpreter::fail(RunFailure::Kind kind, std::string message) {
  lastFailure.kind = kind;
  lastFailure.message = std::move(message);
  return failure();
}

/// Checks a produced value against the static type the IR states.
LogicalResult Interpreter::checkResult(Operation *op, unsigned i,
                                       const RValue &v) {
  Type t = op->getResult(i).getType();
  auto tt = dyn_cast<TensorType>(t);
  if (!tt || !v.isTensor())
    return success();
  const Tensor &val = v.getTensor();
  auto dt = onnx::getDataType(tt.getElementType());
  if (dt && *dt != val.dtype())
    return fail(RunFailure::Kind::Error,
                onnx::describeOp(op) + ": result " + std::to_string(i) +
                    " is " + v.describe() + " but the IR says " +
                    onnx::getONNXTypeString(t));
  if (!tt.hasRank())
    return success();
  bool ok = tt.getRank() == val.rank();
  for (int64_t d = 0; ok && d < tt.getRank(); ++d)
    if (!ShapedType::isDynamic(tt.getDimSize(d)) &&
        tt.getDimSize(d) != val.dim(d))
      ok = false;
  if (!ok) {
    std::string irShape;
    llvm::raw_string_ostream os(irShape);
    os << t;
    return fail(RunFailure::Kind::Error,
                onnx::describeOp(op) + ": result " + std::to_string(i) +
                    " has shape " + shapeToString(val.shape()) +
                    " but the IR says " + irShape);
  }
  return success();
}

LogicalResult Interpreter::runOp(Operation *op) {
  if (isa<onnx::NoValueOp>(op)) {
    env[op->getResult(0)] = RValue::none();
    return success();
  }
  if (!isExecutable(op))
    return fail(RunFailure::Kind::Unsupported,
                onnx::describeOp(op) +
                    ": unsupported: not an onnx dialect op");
  Kernel kernel = lookupKernel(op);
  if (!kernel) {
    std::string what = op->getName().stripDialect().str();
    if (auto g = dyn_cast<onnx::GenericOp>(op))
      what = (g.getDomain().empty() ? "" : g.getDomain().str() + ".") +
             g.getOpType().str();
    return fail(RunFailure::Kind::Unsupported,
                onnx::describeOp(op) +
                    ": unsupported: the reference interpreter has no kernel "
                    "for " +
                    what);
  }
  std::vector<RValue> inputs;
  inputs.reserve(op->getNumOperands());
  for (mlir::Value operand : op->getOperands()) {
    auto it = env.find(operand);
    if (it == env.end())
      return fail(RunFailure::Kind::Error,
                  onnx::describeOp(op) + ": an input has no value");
    inputs.push_back(it->second);
  }
  KernelContext ctx(op, inputs, *this);
  if (failed(kernel(ctx)))
    return failure();
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    RValue &v = ctx.outputs[i];
    if (ctx.wants(i) && v.isNone() &&
        !isa<onnx::OptType>(op->getResult(i).getType()))
      return fail(RunFailure::Kind::Error,
                  onnx::describeOp(op) + ": the kernel produced no value "
                                         "for result " +
                      std::to_string(i));
    if (checkTypes && failed(checkResult(op, i, v)))
      return failure();
    if (observer)
      observer(op, i, onnx::getTensorName(op->getResult(i)), v);
    env[op->getResult(i)] = std::move(v);
  }
  return success();
}

FailureOr<std::vector<RValue>>
Interpreter::evaluate(Operation *op, llvm::ArrayRef<RValue> inputs,
                      RunFailure *why) {
  return evaluate(op, inputs, RegionRunner(), why);
}

FailureOr<std::vector<RValue>>
Interpreter::evaluate(Operation *op, llvm::ArrayRef<RValue> inputs,
                      const RegionRunner &regions, RunFailure *why) {
  Interpreter interp{ModuleOp()};
  if (regions)
    interp.regionRunner = &regions;
  auto fail = [&](RunFailure::Kind kind, std::string msg) {
    if (why)
      *why = {kind, std::move(msg)};
    return failure();
  };
  if (op->getNumRegions() != 0 && !regions)
    return fail(RunFailure::Kind::Unsupported,
                onnx::describeOp(op) + ": ops with regions are not evaluated "
                                       "alone");
  Kernel kernel = lookupKernel(op);
  if (!kernel)
    return fail(RunFailure::Kind::Unsupported,
                onnx::describeOp(op) + ": no reference kernel");
  KernelContext ctx(op, inputs, interp);
  if (failed(kernel(ctx))) {
    if (why)
      *why = interp.lastFailure;
    return failure();
  }
  return std::move(ctx.outputs);
}

FailureOr<std::vector<RValue>>
Interpreter::runBlock(Block &block, llvm::ArrayRef<RValue> args) {
  if (args.size() != block.getNumArguments())
    return fail(RunFailure::Kind::Error,
                "a graph body expects " +
                    std::to_string(block.getNumArguments()) +
                    " inputs, got " + std::to_string(args.size()));
  for (auto [arg, v] : llvm::zip(block.getArguments(), args))
    env[arg] = v;
  for (Operation &op : block.without_terminator())
    if (failed(runOp(&op)))
      return failure();
  std::vector<RValue> results;
  for (mlir::Value v : block.getTerminator()->getOperands())
    results.push_back(env.lookup(v));
  return results;
}

FailureOr<std::vector<RValue>>
Interpreter::run(llvm::ArrayRef<RValue> inputs) {
  if (!func)
    return fail(RunFailure::Kind::Error,
                "the module has no function @main_graph");
  env.clear();
  auto args = func.getArguments();
  if (inputs.size() != args.size())
    return fail(RunFailure::Kind::Error,
                "the model has " + std::to_string(args.size()) +
                    " inputs, got " + std::to_string(inputs.size()));
  for (auto [arg, v] : llvm::zip(args, inputs)) {
    std::string name = onnx::getTensorName(arg).str();
    auto tt = dyn_cast<TensorType>(arg.getType());
    if (!tt)
      continue;
    if (!v.isTensor())
      return fail(RunFailure::Kind::Error,
                  "input '" + name + "' must be a tensor, got " +
                      v.describe());
    const Tensor &t = v.getTensor();
    auto dt = onnx::getDataType(tt.getElementType());
    bool ok = !dt || *dt == t.dtype();
    if (ok && tt.hasRank()) {
      ok = tt.getRank() == t.rank();
      for (int64_t d = 0; ok && d < tt.getRank(); ++d)
        ok = ShapedType::isDynamic(tt.getDimSize(d)) ||
             tt.getDimSize(d) == t.dim(d);
    }
    if (!ok) {
      std::string want;
      llvm::raw_string_ostream os(want);
      os << arg.getType();
      return fail(RunFailure::Kind::Error,
                  "input '" + name + "' must be " + want + ", got " +
                      v.describe());
    }
  }
  return runBlock(func.getBody().front(), inputs);
}

} // namespace amk::ref
