//===- HostCode.cpp - LLVM-dialect host code to machine code --------------===//
//
// Part of AMK.
//
//===----------------------------------------------------------------------===//

#include "execution/HostCode.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace amk;

namespace {
void initNativeTarget() {
  static bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> hostMachine() {
  initNativeTarget();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return jtmb.takeError();
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return jtmb->createTargetMachine();
}
} // namespace

LogicalResult amk::checkLoweredToLLVM(ModuleOp module) {
  Operation *bad = nullptr;
  module.getBody()->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "llvm")
      return WalkResult::advance();
    bad = op;
    return WalkResult::interrupt();
  });
  if (!bad)
    return success();
  return bad->emitError("the module is not lowered to the llvm dialect ('")
         << bad->getName()
         << "' remains); run the amk-lower-to-llvm pipeline first";
}

JitProgram::~JitProgram() = default;

llvm::Expected<std::unique_ptr<JitProgram>>
amk::jitCompile(ModuleOp module, llvm::StringRef prefix,
                const void *constants, unsigned optLevel) {
  auto tm = hostMachine();
  if (!tm)
    return tm.takeError();
  auto transformer = makeOptimizingTransformer(optLevel, 0, tm->get());
  ExecutionEngineOptions opts;
  opts.transformer = transformer;
  opts.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  opts.enableGDBNotificationListener = false;
  opts.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(module, opts, std::move(*tm));
  if (!engine)
    return engine.takeError();
  std::string constName = (prefix + "_constants").str();
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto bind = [&](llvm::StringRef name, const void *addr) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(addr),
                             llvm::JITSymbolFlags::Exported};
    };
    bind("amk_rt_session_create",
         reinterpret_cast<const void *>(&amk_rt_session_create));
    bind("amk_rt_run", reinterpret_cast<const void *>(&amk_rt_run));
    if (constants)
      bind(constName, constants);
    return map;
  });
  auto jit = std::unique_ptr<JitProgram>(new JitProgram());
  auto lookup = [&](llvm::StringRef suffix) -> llvm::Expected<void *> {
    return (*engine)->lookup((prefix + "_" + suffix).str());
  };
  auto program = lookup("program");
  if (!program)
    return program.takeError();
  auto create = lookup("rt_session_create");
  if (!create)
    return create.takeError();
  auto runPacked = lookup("rt_run_packed");
  if (!runPacked)
    return runPacked.takeError();
  jit->desc = reinterpret_cast<const amk_rt_program *(*)()>(*program)();
  jit->createFn =
      reinterpret_cast<int (*)(const amk_rt_options *, amk_rt_session **)>(
          *create);
  jit->runPackedFn =
      reinterpret_cast<int (*)(amk_rt_session *, void **)>(*runPacked);
  jit->engine = std::move(*engine);
  return jit;
}

LogicalResult amk::emitObjectFile(ModuleOp module, llvm::raw_pwrite_stream &os,
                                  unsigned optLevel) {
  if (failed(checkLoweredToLLVM(module)))
    return failure();
  auto tm = hostMachine();
  if (!tm)
    return module.emitError("no target machine for the host: ")
           << llvm::toString(tm.takeError());
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmCtx);
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  llvmModule->setTargetTriple((*tm)->getTargetTriple());
  llvmModule->setDataLayout((*tm)->createDataLayout());
  if (llvm::Error err =
          makeOptimizingTransformer(optLevel, 0, tm->get())(llvmModule.get()))
    return module.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(err));
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                 llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the host target cannot emit object files");
  pm.run(*llvmModule);
  return success();
}
