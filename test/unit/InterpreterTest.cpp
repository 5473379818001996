//===- InterpreterTest.cpp - The reference interpreter's API --------------===//

#include "pipelines/Pipelines.h"
#include "reference/Compare.h"
#include "reference/Interpreter.h"
#include "reference/KernelUtils.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace amk::ref;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    amk::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
  }
  OwningOpRef<ModuleOp> import(const char *text) {
    return amk::importONNXBuffer(text, "test.onnxtxt", &ctx);
  }
  DialectRegistry registry;
  MLIRContext ctx;
};

Tensor floats(std::initializer_list<float> v, Shape shape) {
  Tensor t(DataType::FLOAT, shape);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

const char *kModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 2] X, float[2, 2] W) => (float[2, 2] Y) {
  m = MatMul (X, W)
  r = Relu (m)
  Y = Add (r, X)
}
)";

TEST_F(InterpreterTest, RunsAModelAndObservesEveryValueByName) {
  auto module = import(kModel);
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  std::map<std::string, std::vector<float>> seen;
  interp.setObserver([&](Operation *, unsigned, llvm::StringRef name,
                         const RValue &v) {
    const Tensor &t = v.getTensor();
    seen[name.str()] = {t.data<float>(), t.data<float>() + t.numel()};
  });
  auto out = interp.run({RValue(floats({1, -2, 3, 4}, {2, 2})),
                         RValue(floats({1, 0, 0, 1}, {2, 2}))});
  ASSERT_TRUE(succeeded(out)) << interp.getFailure().message;
  // m = X, r = relu(X), Y = relu(X) + X.
  EXPECT_EQ(seen["m"], (std::vector<float>{1, -2, 3, 4}));
  EXPECT_EQ(seen["r"], (std::vector<float>{1, 0, 3, 4}));
  EXPECT_EQ(seen["Y"], (std::vector<float>{2, -2, 6, 8}));
  const Tensor &y = (*out)[0].getTensor();
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 4),
            (std::vector<float>{2, -2, 6, 8}));
}

TEST_F(InterpreterTest, RejectsWrongInputs) {
  auto module = import(kModel);
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  EXPECT_TRUE(failed(interp.run({RValue(floats({1, 2, 3, 4}, {2, 2}))})));
  EXPECT_EQ(interp.getFailure().message, "the model has 2 inputs, got 1");
  EXPECT_TRUE(failed(interp.run({RValue(floats({1, 2, 3, 4}, {4})),
                                 RValue(floats({1, 0, 0, 1}, {2, 2}))})));
  EXPECT_EQ(interp.getFailure().message,
            "input 'X' must be tensor<2x2xf32>, got float[4]");
}

TEST_F(InterpreterTest, RunsLoopBodies) {
  auto module = import(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 n, float[2] x) => (float[2] y) {
  c = Constant <value = bool {1}> ()
  y = Loop (n, c, x) <body = b (int64 i, bool ci, float[2] a) => (bool co, float[2] r) {
    co = Identity (ci)
    r = Add (a, x)
  }>
}
)");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  auto out = interp.run({RValue(Tensor::fromInt64({3}, {})),
                         RValue(floats({1, 2}, {2}))});
  ASSERT_TRUE(succeeded(out)) << interp.getFailure().message;
  const Tensor &y = (*out)[0].getTensor();
  EXPECT_EQ(y.data<float>()[0], 4.0f); // 1 + 3 * 1
  EXPECT_EQ(y.data<float>()[1], 8.0f);
}

TEST(Half, ConversionsRoundToNearestEven) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f, 0x3p-24f})
    EXPECT_EQ(halfToFloat(floatToHalf(f)), f) << f;
  EXPECT_EQ(halfToFloat(floatToHalf(0x1.fp-25f)), 0x1p-24f); // Rounds up.
  EXPECT_EQ(halfToFloat(floatToHalf(0x1p-26f)), 0.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(std::nanf("")))));
  // 1 + 2^-11 is halfway between two halves: ties go to the even one.
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f)), 1.0f);
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 0x1p-8f)), 1.0f);
}

TEST(Broadcast, ShapesAndStrides) {
  auto s = broadcastShapes({Shape{2, 1, 3}, Shape{4, 1}});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(*s, (Shape{2, 4, 3}));
  EXPECT_FALSE(broadcastShapes({Shape{2, 3}, Shape{4}}).has_value());
  EXPECT_EQ(broadcastStrides(Shape{4, 1}, Shape{2, 4, 3}), (Shape{0, 1, 0}));
}

TEST(Compare, AllCloseSemanticsAndWorstElement) {
  Tensor e = floats({1.0f, 2.0f, 100.0f}, {3});
  Tensor a = floats({1.0005f, 2.0f, 100.5f}, {3});
  Comparison c = compareValues(RValue(e), RValue(a), Tolerance{1e-3, 0});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worstIndex, 2);
  EXPECT_NEAR(c.maxAbsError, 0.5, 1e-6);
  Comparison ok = compareValues(RValue(e), RValue(a), Tolerance{1e-2, 0});
  EXPECT_TRUE(ok.ok);
  EXPECT_GT(ok.cosine, 0.9999);
  Comparison shape =
      compareValues(RValue(e), RValue(floats({1, 2}, {2})), Tolerance());
  EXPECT_FALSE(shape.ok);
  EXPECT_EQ(shape.message, "shape [2] where [3] is expected");
}

} // namespace
