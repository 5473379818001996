//===- Passes.cpp - Conversion pipelines and registration -----------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

using namespace mlir;
using namespace amk;

void amk::buildLowerToLLVMPipeline(OpPassManager &pm,
                                   const LowerTaskToLLVMOptions &options) {
  pm.addPass(createLowerTaskToLLVM(options));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (erf without approximate-math) calls libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
struct LowerToLLVMPipelineOptions
    : public PassPipelineOptions<LowerToLLVMPipelineOptions> {
  Option<std::string> prefix{*this, "prefix",
                             llvm::cl::desc("Prefix of every emitted symbol")};
  Option<bool> embedConstants{
      *this, "embed-constants",
      llvm::cl::desc("Emit the weights as an initialized global"),
      llvm::cl::init(true)};
  Option<bool> compileElementwise{
      *this, "compile-elementwise",
      llvm::cl::desc("Generate code for ELEMENTWISE kernels"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Polynomial approximations of exp/erf/tanh/log in "
                     "generated code"),
      llvm::cl::init(true)};
};
} // namespace

void amk::registerConversionPasses() {
  registerAMKConversionPasses();
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "amk-lower-to-llvm",
      "amk-lower-task-to-llvm, then MLIR's conversions of scf, math, arith "
      "and cf to the llvm dialect: a module ready for LLVM IR",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &o) {
        LowerTaskToLLVMOptions opts;
        opts.prefix = o.prefix;
        opts.embedConstants = o.embedConstants;
        opts.compileElementwise = o.compileElementwise;
        opts.approximateMath = o.approximateMath;
        buildLowerToLLVMPipeline(pm, opts);
      });
}

void amk::registerConversionDialects(DialectRegistry &registry) {
  registry.insert<LLVM::LLVMDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}
