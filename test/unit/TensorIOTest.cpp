//===- TensorIOTest.cpp - Tensor files and random inputs ------------------===//

#include "translate/TensorIO.h"
#include "dialect/ONNX/ONNXDialect.h"
#include "translate/ONNXTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

class TensorIO : public ::testing::Test {
protected:
  TensorIO() { ctx.loadDialect<amk::onnx::ONNXDialect>(); }
  MLIRContext ctx;
};

TEST_F(TensorIO, NpyRoundTripsEveryNumpyType) {
  Builder b(&ctx);
  Type types[] = {b.getF32Type(),
                  b.getF64Type(),
                  b.getF16Type(),
                  b.getIntegerType(8),
                  b.getIntegerType(16),
                  b.getIntegerType(32),
                  b.getIntegerType(64),
                  b.getIntegerType(8, false),
                  b.getIntegerType(64, false),
                  b.getI1Type()};
  for (Type t : types) {
    SCOPED_TRACE(std::to_string(
        amk::onnx::getDataTypeBitWidth(*amk::onnx::getDataType(t))));
    auto type = RankedTensorType::get({2, 3}, t);
    ElementsAttr value = amk::makeRandomTensor(type, 7);
    auto bytes = amk::serializeNpy(value);
    ASSERT_TRUE(static_cast<bool>(bytes)) << llvm::toString(bytes.takeError());
    auto back = amk::parseNpy(*bytes, &ctx);
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    EXPECT_EQ(*back, value);
  }
}

TEST_F(TensorIO, NpyScalarsAndVectors) {
  Builder b(&ctx);
  for (auto shape : {SmallVector<int64_t>{}, SmallVector<int64_t>{5}}) {
    auto type = RankedTensorType::get(shape, b.getF32Type());
    ElementsAttr value = amk::makeRandomTensor(type, 1);
    auto bytes = amk::serializeNpy(value);
    ASSERT_TRUE(static_cast<bool>(bytes));
    EXPECT_NE(bytes->find(shape.empty() ? "'shape': ()" : "'shape': (5,)"),
              std::string::npos);
    auto back = amk::parseNpy(*bytes, &ctx);
    ASSERT_TRUE(static_cast<bool>(back));
    EXPECT_EQ(*back, value);
  }
}

TEST_F(TensorIO, NpyRejectsFortranOrderAndTruncation) {
  std::string header = "{'descr': '<f4', 'fortran_order': True, "
                       "'shape': (2,), }";
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size());
  file += '\0';
  file += header;
  file += std::string(8, '\0');
  auto r = amk::parseNpy(file, &ctx);
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("C order"), std::string::npos);

  std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
  std::string trunc = std::string("\x93NUMPY\x01\x00", 8);
  trunc += static_cast<char>(ok.size());
  trunc += '\0';
  trunc += ok + std::string(8, '\0'); // 2 floats of the 4 claimed.
  auto t = amk::parseNpy(trunc, &ctx);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_NE(llvm::toString(t.takeError()).find("needs 16"), std::string::npos);
}

TEST_F(TensorIO, RandomTensorsDependOnlyOnTheSeed) {
  auto type = RankedTensorType::get({16}, Builder(&ctx).getF32Type());
  EXPECT_EQ(amk::makeRandomTensor(type, 3), amk::makeRandomTensor(type, 3));
  EXPECT_NE(amk::makeRandomTensor(type, 3), amk::makeRandomTensor(type, 4));
  for (float v : cast<DenseElementsAttr>(amk::makeRandomTensor(type, 3))
                     .getValues<float>()) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST(NumElements, RejectsOverflowAndNegativeDims) {
  EXPECT_EQ(*amk::checkedNumElements({2, 3, 4}, int64_t(1) << 40), 24);
  EXPECT_EQ(*amk::checkedNumElements({}, 10), 1);
  auto huge = amk::checkedNumElements({int64_t(1) << 32, int64_t(1) << 32},
                                      int64_t(1) << 62);
  EXPECT_FALSE(static_cast<bool>(huge));
  llvm::consumeError(huge.takeError());
  auto neg = amk::checkedNumElements({2, -3}, 100);
  EXPECT_FALSE(static_cast<bool>(neg));
  llvm::consumeError(neg.takeError());
}

} // namespace
