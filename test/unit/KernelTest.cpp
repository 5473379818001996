//===- KernelTest.cpp - Reference kernels without ONNX test data ----------===//
//
// The ONNX backend tests in Debian's libonnx-testdata stop at opset 17; the
// kernels of newer operators are checked here, by worked examples from the
// ONNX specification and by properties relating them to tested kernels.
//
//===----------------------------------------------------------------------===//

#include "pipelines/Pipelines.h"
#include "reference/Interpreter.h"
#include "translate/ONNXImport.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace amk::ref;

namespace {

class KernelTest : public ::testing::Test {
protected:
  KernelTest() {
    amk::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
  }
  /// Runs a one-graph model given in the ONNX text syntax.
  std::vector<RValue> run(const std::string &text,
                          std::vector<RValue> inputs) {
    auto module = amk::importONNXBuffer(text, "k.onnxtxt", &ctx);
    EXPECT_TRUE(module);
    if (!module)
      return {};
    Interpreter interp(*module);
    auto out = interp.run(inputs);
    EXPECT_TRUE(succeeded(out)) << interp.getFailure().message;
    return succeeded(out) ? *out : std::vector<RValue>{};
  }
  DialectRegistry registry;
  MLIRContext ctx;
};

Tensor floats(std::vector<float> v, Shape shape) {
  Tensor t(DataType::FLOAT, shape);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

Tensor strings(std::vector<std::string> v, Shape shape) {
  Tensor t(DataType::STRING, shape);
  t.strings() = v;
  return t;
}

std::vector<float> values(const RValue &v) {
  const Tensor &t = v.getTensor();
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(static_cast<float>(t.getDouble(i)));
  return out;
}

TEST_F(KernelTest, StringConcatBroadcasts) {
  auto out = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (string[2] a, string[1] b) => (string[2] c) { c = StringConcat (a, b) })",
                 {RValue(strings({"abc", "x"}, {2})),
                  RValue(strings({"!"}, {1}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].getTensor().strings(),
            (std::vector<std::string>{"abc!", "x!"}));
}

TEST_F(KernelTest, StringSplitWithDelimiterAndWhitespace) {
  // The specification's examples.
  auto out = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (string[2] x) => (string[2, 3] y, int64[2] z) {
  y, z = StringSplit <delimiter = "-"> (x)
})",
                 {RValue(strings({"1-2-3", "4-5"}, {2}))});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].getTensor().strings(),
            (std::vector<std::string>{"1", "2", "3", "4", "5", ""}));
  EXPECT_EQ(out[1].getTensor().toInt64Vector(), (std::vector<int64_t>{3, 2}));
  auto ws = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (string[1] x) => (string[1, 2] y, int64[1] z) {
  y, z = StringSplit <maxsplit = 1> (x)
})",
                {RValue(strings({"  hello   big world "}, {1}))});
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[0].getTensor().strings(),
            (std::vector<std::string>{"hello", "big world"}));
}

TEST_F(KernelTest, RegexFullMatchUsesRE2) {
  auto out = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (string[3] x) => (bool[3] y) {
  y = RegexFullMatch <pattern = "www\.[\w.-]+\.\bcom\b"> (x)
})",
                 {RValue(strings({"www.google.com", "www.facebook.com",
                                  "www.bbc.co.uk"},
                                 {3}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].getTensor().toInt64Vector(),
            (std::vector<int64_t>{1, 1, 0}));
}

TEST_F(KernelTest, CenterCropPadCropsAndPads) {
  // 3x4 -> 2x6: crop rows from the center, pad columns around it.
  auto out = run(R"(<ir_version: 9, opset_import: ["" : 18]>
g (float[3, 4] x, int64[2] s) => (float[2, 6] y) { y = CenterCropPad (x, s) })",
                 {RValue(floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                {3, 4})),
                  RValue(Tensor::fromInt64({2, 6}, {2}))});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values(out[0]), (std::vector<float>{0, 1, 2, 3, 4, 0, 0, 5, 6, 7,
                                                8, 0}));
}

TEST_F(KernelTest, GridSampleOfAnIdentityAffineGridIsTheInput) {
  std::vector<float> img(2 * 3 * 4);
  for (size_t i = 0; i < img.size(); ++i)
    img[i] = static_cast<float>(i) * 0.5f - 3;
  auto out = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (float[1, 2, 3, 4] x, float[1, 2, 3] theta, int64[4] size) => (float[1, 2, 3, 4] y) {
  grid = AffineGrid <align_corners = 1> (theta, size)
  y = GridSample <align_corners = 1> (x, grid)
})",
                 {RValue(floats(img, {1, 2, 3, 4})),
                  RValue(floats({1, 0, 0, 0, 1, 0}, {1, 2, 3})),
                  RValue(Tensor::fromInt64({1, 2, 3, 4}, {4}))});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> got = values(out[0]);
  for (size_t i = 0; i < img.size(); ++i)
    EXPECT_NEAR(got[i], img[i], 1e-5) << i;
}

TEST_F(KernelTest, DeformConvWithZeroOffsetsIsConv) {
  std::vector<float> x(1 * 2 * 5 * 5), w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.37f * i);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::cos(0.11f * i);
  auto deform = run(R"(<ir_version: 9, opset_import: ["" : 19]>
g (float[1, 2, 5, 5] x, float[3, 2, 3, 3] w, float[1, 18, 5, 5] off) => (float[1, 3, 5, 5] y) {
  y = DeformConv <pads = [1, 1, 1, 1]> (x, w, off)
})",
                    {RValue(floats(x, {1, 2, 5, 5})),
                     RValue(floats(w, {3, 2, 3, 3})),
                     RValue(Tensor(DataType::FLOAT, {1, 18, 5, 5}))});
  auto conv = run(R"(<ir_version: 9, opset_import: ["" : 19]>
g (float[1, 2, 5, 5] x, float[3, 2, 3, 3] w) => (float[1, 3, 5, 5] y) {
  y = Conv <pads = [1, 1, 1, 1]> (x, w)
})",
                  {RValue(floats(x, {1, 2, 5, 5})),
                   RValue(floats(w, {3, 2, 3, 3}))});
  ASSERT_EQ(deform.size(), 1u);
  ASSERT_EQ(conv.size(), 1u);
  std::vector<float> a = values(deform[0]), b = values(conv[0]);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-4) << i;
}

TEST_F(KernelTest, ImageDecoderReadsPnm) {
  // A 2x2 binary PGM (grayscale): 10 20 / 30 40.
  std::string pgm = "P5\n2 2\n255\n";
  pgm += std::string{10, 20, 30, 40};
  Tensor bytes(DataType::UINT8, {static_cast<int64_t>(pgm.size())});
  std::memcpy(bytes.raw(), pgm.data(), pgm.size());
  auto gray = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (uint8[15] s) => (uint8[2, 2, 1] y) { y = ImageDecoder <pixel_format = "Grayscale"> (s) })",
                  {RValue(bytes)});
  ASSERT_EQ(gray.size(), 1u);
  EXPECT_EQ(gray[0].getTensor().toInt64Vector(),
            (std::vector<int64_t>{10, 20, 30, 40}));
  auto rgb = run(R"(<ir_version: 9, opset_import: ["" : 20]>
g (uint8[15] s) => (uint8[2, 2, 3] y) { y = ImageDecoder (s) })",
                 {RValue(bytes)});
  ASSERT_EQ(rgb.size(), 1u);
  EXPECT_EQ(rgb[0].getTensor().numel(), 12);
  EXPECT_EQ(rgb[0].getTensor().getInt(3), 20); // Gray replicated to RGB.
}

} // namespace
