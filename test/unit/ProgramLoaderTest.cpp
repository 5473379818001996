//===- ProgramLoaderTest.cpp - Weights: loading, hashing, blobs, objects --===//
//
// What amk-compile does with a model's weights without keeping copies: the
// program loaded without its weights hashes as the loaded copy does, the
// blobs the passes replaced are freed, programs compiled in one context
// share one packed copy of a weight and free the imported one as it is
// packed, and the weights' object holds the bytes the loader would have
// put at each offset.
//
//===----------------------------------------------------------------------===//

#include "conversion/Passes.h"
#include "execution/ModelLibrary.h"
#include "execution/Session.h"
#include "pipelines/Pipelines.h"
#include "transforms/Utils/PassUtils.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace mlir;

namespace {

// Two constant weights over the resource threshold (imported as blobs): a
// MatMul's B, which the scheduler packs into panels (a new attribute), and
// an Add's bias, which the program uses as it is.
const char *kModel = R"onnx(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 300] x) => (float[2, 70] y) <
  float[300, 70] w = {1.5, -2, 0.25},
  float[70] bias = {3}
> {
  m = MatMul(x, w)
  y = Add(m, bias)
}
)onnx";

class ProgramLoaderTest : public ::testing::Test {
protected:
  ProgramLoaderTest() {
    amk::registerAllPasses();
    amk::registerAllDialects(registry);
    amk::registerConversionDialects(registry);
    ctx.appendDialectRegistry(registry);
  }
  /// The model with its weights filled (a text initializer repeats its
  /// last values only in the reference; here every element is set).
  OwningOpRef<ModuleOp> import() {
    std::string text = kModel;
    auto fill = [&](const char *from, int64_t n, float scale) {
      std::string values;
      for (int64_t i = 0; i < n; ++i)
        values += (i ? ", " : "") + std::to_string(scale * ((i * 37) % 101));
      size_t at = text.find(from);
      size_t end = text.find('}', at);
      text.replace(at, end - at + 1, "{" + values + "}");
    };
    fill("{1.5, -2, 0.25}", 300 * 70, 0.01f);
    fill("{3}", 70, 0.5f);
    amk::ONNXImportOptions options;
    options.resourceThreshold = 64;
    return amk::importONNXBuffer(text, "loader.onnxtxt", &ctx, options);
  }
  llvm::Expected<amk::CompiledProgram>
  compile(ModuleOp m, bool withConstants,
          llvm::StringRef pipeline = "builtin.module(amk-graph-opt)") {
    amk::ProgramOptions o;
    o.scheduleWorkers = 2;
    o.single = true;
    o.loadConstants = withConstants;
    std::string err;
    if (failed(amk::runPipeline(m, pipeline, err)))
      return llvm::createStringError(err);
    return amk::loadCompiledProgram(m, o);
  }
  /// The hash of the model compiled alone with its own copy of the
  /// weights: what programs that share weights must compute with.
  uint64_t plainHash() {
    OwningOpRef<ModuleOp> m = import();
    if (!m) {
      ADD_FAILURE() << "the model does not import";
      return 0;
    }
    auto c = compile(*m, true);
    if (!c) {
      ADD_FAILURE() << llvm::toString(c.takeError());
      return 0;
    }
    return amk::hashProgram(*c->loaded);
  }
  DialectRegistry registry;
  MLIRContext ctx;
};

TEST_F(ProgramLoaderTest, WithoutWeightsHashesAsTheLoadedCopy) {
  OwningOpRef<ModuleOp> a = import(), b = import();
  ASSERT_TRUE(a && b);
  auto withCopy = compile(*a, true);
  ASSERT_TRUE(!!withCopy) << llvm::toString(withCopy.takeError());
  auto without = compile(*b, false);
  ASSERT_TRUE(!!without) << llvm::toString(without.takeError());
  EXPECT_NE(withCopy->loaded->program.constants, nullptr);
  EXPECT_EQ(without->loaded->program.constants, nullptr);
  EXPECT_GT(without->loaded->program.constants_bytes, 300u * 70 * 4);
  EXPECT_EQ(amk::hashProgram(*withCopy->loaded),
            amk::hashProgram(*without->loaded));
}

TEST_F(ProgramLoaderTest, ReplacedWeightsAreFreedAndTheProgramKeepsItsOwn) {
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m);
  // Nothing is unreferenced before the pipeline.
  EXPECT_EQ(amk::releaseUnreferencedBlobs(&ctx, {m->getOperation()}), 0u);
  auto before = compile(*m, true);
  ASSERT_TRUE(!!before) << llvm::toString(before.takeError());
  uint64_t hash = amk::hashProgram(*before->loaded);
  // The scheduler packed B into panels: the imported B is unreferenced.
  // The bias is still the program's.
  uint64_t freed = amk::releaseUnreferencedBlobs(&ctx, {m->getOperation()});
  EXPECT_EQ(freed, 300u * 70 * 4);
  // The program still loads and computes with the same weights.
  std::string err;
  auto again = amk::loadProgram(before->program, err);
  ASSERT_TRUE(again) << err;
  EXPECT_EQ(amk::hashProgram(*again), hash);
  // Released once: a second call finds nothing more.
  EXPECT_EQ(amk::releaseUnreferencedBlobs(&ctx, {m->getOperation()}), 0u);
}

/// The resource under `program`'s const buffer of `bytes` bytes.
static DenseResourceElementsAttr constantOfSize(amk::task::ProgramOp program,
                                                int64_t bytes) {
  DenseResourceElementsAttr found;
  program.walk([&](amk::task::BufferOp b) {
    if (b.getKind() == "const" && (int64_t)b.getSize() == bytes && b.getValue())
      found = dyn_cast<DenseResourceElementsAttr>(*b.getValue());
  });
  return found;
}

/// Both programs read one packed attribute of `bytes`, with the weights
/// the unshared program (`hash`) computes with.
static void expectOnePackedCopy(const amk::CompiledProgram &first,
                                const amk::CompiledProgram &second,
                                int64_t bytes, uint64_t hash) {
  DenseResourceElementsAttr pa = constantOfSize(first.program, bytes),
                            pb = constantOfSize(second.program, bytes);
  ASSERT_TRUE(pa);
  EXPECT_EQ(pa, pb);
  EXPECT_EQ(amk::hashProgram(*first.loaded), hash);
  EXPECT_EQ(amk::hashProgram(*second.loaded), hash);
}

TEST_F(ProgramLoaderTest, MarkedWeightsArePackedOnceAndTheirImportFreed) {
  uint64_t hash = plainHash();

  // Two programs from one import, as amk-compile's variants: both past
  // their graph passes, then marked, then scheduled.
  OwningOpRef<ModuleOp> a = import();
  ASSERT_TRUE(a);
  OwningOpRef<ModuleOp> b = a->clone();
  std::string err;
  for (ModuleOp m : {*a, *b})
    ASSERT_TRUE(
        succeeded(amk::runPipeline(m, "builtin.module(amk-graph-opt)", err)))
        << err;
  // B (the product's weights) only; the bias is the fused product's addend,
  // which the program reads as it is.
  EXPECT_EQ(amk::markWeightsReleasedAfterPacking({*a, *b}), 300u * 70 * 4);
  DenseResourceElementsAttr imported;
  a->walk([&](Operation *op) {
    if (op->hasAttr(amk::kReleaseAfterPackingAttr))
      imported = cast<DenseResourceElementsAttr>(op->getAttr("value"));
  });
  ASSERT_TRUE(imported);
  ASSERT_EQ(imported.getRawHandle().getBlob()->getData().size(), 300u * 70 * 4);

  auto first = compile(*a, true);
  ASSERT_TRUE(!!first) << llvm::toString(first.takeError());
  // Packed, the import is freed though `b` still names it.
  EXPECT_TRUE(imported.getRawHandle().getBlob()->getData().empty());
  auto second = compile(*b, true);
  ASSERT_TRUE(!!second) << llvm::toString(second.takeError());
  expectOnePackedCopy(*first, *second, 2 * 300 * 64 * 4, hash);
}

/// The resources of `module`'s constants of element type `bits`-bit
/// integers.
static SmallVector<DenseResourceElementsAttr> integerResources(ModuleOp module,
                                                               unsigned bits) {
  SmallVector<DenseResourceElementsAttr> found;
  module.walk([&](Operation *op) {
    if (auto r =
            dyn_cast_or_null<DenseResourceElementsAttr>(op->getAttr("value")))
      if (r.getType().getElementType().isInteger(bits))
        found.push_back(r);
  });
  return found;
}

/// What one weight-only precision makes of the 300 x 70 weights.
struct WeightOnlyCase {
  const char *pipeline;
  unsigned bits;
  size_t constants;   // integer constants per module (data, zero point)
  size_t dataBytes;   // the quantized weights' blob (the largest)
  uint64_t marked;    // bytes only the packing reads
  int64_t panelBytes; // the packed panels
};

class WeightOnlySharing : public ProgramLoaderTest,
                          public ::testing::WithParamInterface<WeightOnlyCase> {
};

TEST_P(WeightOnlySharing, QuantizedWeightsAreMadeOnceAndFreedWhenPacked) {
  const WeightOnlyCase &c = GetParam();
  uint64_t hash = 0;
  {
    OwningOpRef<ModuleOp> m = import();
    ASSERT_TRUE(m);
    auto plain = compile(*m, true, c.pipeline);
    ASSERT_TRUE(!!plain) << llvm::toString(plain.takeError());
    hash = amk::hashProgram(*plain->loaded);
  }
  amk::releaseUnreferencedBlobs(&ctx, {});
  OwningOpRef<ModuleOp> a = import();
  ASSERT_TRUE(a);
  OwningOpRef<ModuleOp> b = a->clone();
  std::string err;
  for (ModuleOp m : {*a, *b})
    ASSERT_TRUE(succeeded(amk::runPipeline(m, c.pipeline, err))) << err;
  // One quantized copy of the weights (and zero points) for both modules:
  // resources named after the float weights, which the second
  // quantization did not read.
  SmallVector<DenseResourceElementsAttr> qa = integerResources(*a, c.bits),
                                         qb = integerResources(*b, c.bits);
  ASSERT_EQ(qa.size(), c.constants);
  ASSERT_EQ(qb.size(), c.constants);
  for (size_t i = 0; i < qa.size(); ++i)
    EXPECT_EQ(qa[i], qb[i]);
  size_t largest = 0;
  for (DenseResourceElementsAttr q : qa)
    largest = std::max(largest, q.getRawHandle().getBlob()->getData().size());
  ASSERT_EQ(largest, c.dataBytes);
  // The float weights are no longer referenced; the quantized ones, their
  // scales and zero points are read only by the packing.
  EXPECT_EQ(amk::releaseUnreferencedBlobs(
                &ctx, {a->getOperation(), b->getOperation()}),
            300u * 70 * 4);
  EXPECT_EQ(amk::markWeightsReleasedAfterPacking({*a, *b}), c.marked);
  auto first = compile(*a, true, "builtin.module()");
  ASSERT_TRUE(!!first) << llvm::toString(first.takeError());
  for (DenseResourceElementsAttr q : qa)
    EXPECT_TRUE(q.getRawHandle().getBlob()->getData().empty());
  // The second program finds the panels without the freed weights.
  auto second = compile(*b, true, "builtin.module()");
  ASSERT_TRUE(!!second) << llvm::toString(second.takeError());
  expectOnePackedCopy(*first, *second, c.panelBytes, hash);
}

// w8: int8 per column (scale [70]); w4: uint4 in blocks of 32 (10 blocks
// of K = 300, the last of 12) with zero points, two to a byte, packed as
// 38 words of 8 nibbles per column.
INSTANTIATE_TEST_SUITE_P(
    Precisions, WeightOnlySharing,
    ::testing::Values(
        WeightOnlyCase{
            "builtin.module(amk-graph-opt,amk-quantize{precision=w8})", 8, 1,
            300 * 70, 300 * 70 + 70 * 4, 2 * 300 * 64},
        WeightOnlyCase{
            "builtin.module(amk-graph-opt,amk-quantize{precision=w4})", 4, 2,
            300 * 70 / 2, 300 * 70 / 2 + 10 * 70 * 4 + 10 * 70 / 2,
            2 * 38 * 64 * 4}));

TEST_F(ProgramLoaderTest, ProgramsLoadedTogetherShareOneBlobTheWeightsView) {
  uint64_t hash = plainHash();

  OwningOpRef<ModuleOp> a = import();
  ASSERT_TRUE(a);
  OwningOpRef<ModuleOp> b = a->clone();
  auto ca = compile(*a, false), cb = compile(*b, false);
  ASSERT_TRUE(!!ca && !!cb);
  auto loaded =
      amk::loadProgramsSharingConstants({ca->program, cb->program}, true);
  ASSERT_TRUE(!!loaded) << llvm::toString(loaded.takeError());
  ASSERT_EQ(loaded->size(), 2u);
  const amk_rt_program &pa = (*loaded)[0]->program, &pb = (*loaded)[1]->program;
  // One blob, the weights each program computes with at their offsets.
  EXPECT_NE(pa.constants, nullptr);
  EXPECT_EQ(pa.constants, pb.constants);
  EXPECT_EQ(amk::hashProgram(*(*loaded)[0]), hash);
  EXPECT_EQ(amk::hashProgram(*(*loaded)[1]), hash);
  // The packed weights' resource now reads the blob: no other copy.
  DenseResourceElementsAttr panels =
      constantOfSize(ca->program, 2 * 300 * 64 * 4);
  ASSERT_TRUE(panels);
  const char *data = panels.getRawHandle().getBlob()->getData().data();
  const char *base = reinterpret_cast<const char *>(pa.constants);
  EXPECT_GE(data, base);
  EXPECT_LT(data, base + pa.constants_bytes);
  // The blob outlives the programs while a resource views it.
  loaded->clear();
  std::vector<char> bytes(panels.getRawHandle().getBlob()->getData().begin(),
                          panels.getRawHandle().getBlob()->getData().end());
  EXPECT_EQ(bytes.size(), 2u * 300 * 64 * 4);
}

TEST_F(ProgramLoaderTest, AWeightReadOtherwiseIsNotMarked) {
  OwningOpRef<ModuleOp> a = import();
  ASSERT_TRUE(a);
  std::string err;
  ASSERT_TRUE(
      succeeded(amk::runPipeline(*a, "builtin.module(amk-graph-opt)", err)))
      << err;
  // A second module that reads the same weights as an addend.
  OwningOpRef<ModuleOp> b = a->clone();
  Operation *w = nullptr;
  b->walk([&](Operation *op) {
    if (auto r =
            dyn_cast_or_null<DenseResourceElementsAttr>(op->getAttr("value"));
        r && r.getRawHandle().getBlob()->getData().size() == 300u * 70 * 4)
      w = op;
  });
  ASSERT_TRUE(w);
  OpBuilder builder(w->getContext());
  builder.setInsertionPointAfter(w);
  OperationState state(w->getLoc(), "onnx.Add");
  state.addOperands({w->getResult(0), w->getResult(0)});
  state.addTypes(w->getResult(0).getType());
  builder.create(state);
  EXPECT_EQ(amk::markWeightsReleasedAfterPacking({*a, *b}), 0u);
  // Alone, `a` would have it marked.
  EXPECT_EQ(amk::markWeightsReleasedAfterPacking({*a}), 300u * 70 * 4);
}

TEST_F(ProgramLoaderTest, SplitScheduleRunsTheSamePasses) {
  std::string whole = "builtin.module(amk-graph-opt,amk-schedule-megakernel{"
                      "workers=2})";
  auto split = amk::splitSchedule(&ctx, whole);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first.find("amk-schedule-megakernel"), std::string::npos);
  EXPECT_NE(split->second.find("amk-schedule-megakernel{"), std::string::npos);
  OwningOpRef<ModuleOp> a = import(), b = import();
  ASSERT_TRUE(a && b);
  std::string err;
  ASSERT_TRUE(succeeded(amk::runPipeline(*a, whole, err))) << err;
  ASSERT_TRUE(succeeded(amk::runPipeline(*b, split->first, err))) << err;
  ASSERT_TRUE(succeeded(amk::runPipeline(*b, split->second, err))) << err;
  amk::ProgramOptions o;
  o.single = true;
  auto pa = amk::loadCompiledProgram(*a, o),
       pb = amk::loadCompiledProgram(*b, o);
  ASSERT_TRUE(!!pa && !!pb);
  EXPECT_EQ(amk::hashProgram(*pa->loaded), amk::hashProgram(*pb->loaded));
  // A pipeline that does not end in the schedule is not split.
  EXPECT_FALSE(
      amk::splitSchedule(&ctx, "builtin.module(amk-graph-opt)").has_value());
  EXPECT_FALSE(amk::splitSchedule(&ctx, "builtin.module(nonsense)"));
}

TEST_F(ProgramLoaderTest, WeightsObjectHoldsTheLoadedBytes) {
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (!host.isOSBinFormatELF() || (host.getArch() != llvm::Triple::x86_64 &&
                                   host.getArch() != llvm::Triple::aarch64))
    GTEST_SKIP() << "the weights are embedded on this host";
  OwningOpRef<ModuleOp> m = import();
  ASSERT_TRUE(m);
  auto c = compile(*m, true);
  ASSERT_TRUE(!!c) << llvm::toString(c.takeError());
  auto objects = amk::emitModelObject(c->program, "net", "test");
  ASSERT_TRUE(!!objects) << llvm::toString(objects.takeError());
  ASSERT_EQ(objects->constantsSymbol, "net_constants");
  const amk_rt_program &p = c->loaded->program;
  ASSERT_EQ(objects->constantsBytes, p.constants_bytes);

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("amk-test", "o", path));
  llvm::FileRemover remove(path);
  llvm::Error written =
      amk::writeConstantsObject(path, objects->constantsSymbol,
                                objects->constantsBytes, objects->constants);
  ASSERT_FALSE(!!written) << llvm::toString(std::move(written));

  auto binary = llvm::object::ObjectFile::createObjectFile(path);
  ASSERT_TRUE(!!binary) << llvm::toString(binary.takeError());
  llvm::object::ObjectFile &obj = *binary->getBinary();
  ASSERT_TRUE(obj.isRelocatableObject());
  bool found = false;
  for (const llvm::object::SymbolRef &sym : obj.symbols()) {
    auto name = sym.getName();
    ASSERT_TRUE(!!name);
    if (*name != "net_constants")
      continue;
    found = true;
    auto section = sym.getSection();
    ASSERT_TRUE(!!section);
    EXPECT_EQ((*section)->getAlignment().value(), 64u);
    auto contents = (*section)->getContents();
    ASSERT_TRUE(!!contents);
    ASSERT_EQ(contents->size(), p.constants_bytes);
    EXPECT_EQ(std::memcmp(contents->data(), p.constants, p.constants_bytes), 0);
    EXPECT_EQ(llvm::object::ELFSymbolRef(sym).getSize(), p.constants_bytes);
    EXPECT_EQ(llvm::object::ELFSymbolRef(sym).getOther(),
              llvm::ELF::STV_HIDDEN);
  }
  EXPECT_TRUE(found);
}

} // namespace
