//===- ImportTest.cpp - The ONNX importer through its C++ API -------------===//

#include "dialect/ONNX/ONNXDialect.h"
#include "dialect/ONNX/ONNXNames.h"
#include "pipelines/Pipelines.h"
#include "translate/ONNXExport.h"
#include "translate/ONNXImport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

const char *kModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1, 3] X) => (float[1, 3] Y) {
  T = Relu <> (X)
}
)";

const char *kSmall = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] X) => (float[2, 3] Y) {
  r = Relu (X)
  Y = Sigmoid (r)
}
)";

struct Captured {
  explicit Captured(MLIRContext &ctx) {
    ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      text += d.str() + "\n";
      return success();
    });
  }
  std::string text;
};

class Import : public ::testing::Test {
protected:
  Import() {
    amk::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
  }
  DialectRegistry registry;
  MLIRContext ctx;
};

TEST_F(Import, KeepsNodeAndTensorNames) {
  Captured diags(ctx);
  auto module = amk::importONNXBuffer(kSmall, "small.onnxtxt", &ctx);
  ASSERT_TRUE(module) << diags.text;
  auto func = module->lookupSymbol<func::FuncOp>("main_graph");
  ASSERT_TRUE(func);
  Operation *relu = &*std::next(func.getBody().front().begin(), 0);
  EXPECT_EQ(relu->getName().getStringRef(), "onnx.Relu");
  EXPECT_EQ(amk::onnx::getTensorName(relu->getResult(0)), "r");
  EXPECT_EQ(amk::onnx::getTensorName(func.getArgument(0)), "X");
}

TEST_F(Import, SyntaxErrorsAreReported) {
  Captured diags(ctx);
  auto module = amk::importONNXBuffer(kModel, "bad.onnxtxt", &ctx);
  EXPECT_FALSE(module);
  EXPECT_NE(diags.text.find("ONNX text syntax error"), std::string::npos);
}

TEST_F(Import, GarbageIsNotAModel) {
  Captured diags(ctx);
  std::string garbage = "\x0a\xff\xff\xff\xff\x0f garbage";
  auto module = amk::importONNXBuffer(garbage, "garbage.onnx", &ctx);
  EXPECT_FALSE(module);
  EXPECT_NE(diags.text.find("not a valid ONNX model"), std::string::npos);
}

TEST_F(Import, ExportThenImportGivesTheSameModule) {
  Captured diags(ctx);
  amk::ONNXImportOptions opts;
  opts.locationFileName = "m";
  auto a = amk::importONNXBuffer(kSmall, "small.onnxtxt", &ctx, opts);
  ASSERT_TRUE(a) << diags.text;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  ASSERT_TRUE(succeeded(amk::exportONNXToStream(*a, os)));
  auto b = amk::importONNXBuffer(bytes, "small.onnx", &ctx, opts);
  ASSERT_TRUE(b) << diags.text;
  std::string ta, tb;
  llvm::raw_string_ostream sa(ta), sb(tb);
  (*a)->print(sa, OpPrintingFlags().enableDebugInfo());
  (*b)->print(sb, OpPrintingFlags().enableDebugInfo());
  EXPECT_EQ(ta, tb);
}

} // namespace
