//===- ModelApiTest.cpp - The compiled models' C API ----------------------===//
//
// Part of AMK. amk/model.h over a hand-built program, without the compiler.
//
//===----------------------------------------------------------------------===//

#include "ProgramBuilder.h"
#include "amk/model.h"
#include "amk/runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using amk::rt::ProgramBuilder;

/// The C API of compiled models (amk/model.h) over a hand-built program: the
/// interface, runs with caller-owned buffers, the version checks between
/// header, library and runtime, the threads option and traces.
TEST(ModelApi, ChecksVersionsAndRuns) {
  const int64_t n = 16;
  ProgramBuilder b(2);
  uint32_t in = b.addIO(true, "x", AMK_RT_F32, {2, 8}, 4);
  uint32_t out = b.addIO(false, "y", AMK_RT_F32, {2, 8}, 4);
  uint32_t c = b.addCounter();
  uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {in, out}, {4, 1, 0, 0, n, 1, 1},
                           {}, "copy");
  b.addTask(k, 0, {0, 1, 0, 1}, {}, c);
  b.addTask(b.addKernel(AMK_RT_K_NOP, 0, {}, {}, {}, "nop"), 1, {0, 1, 0, 1},
            {{c, 1}}, -1);
  amk_model model{AMK_MODEL_API_VERSION, 0,        0x1234, "net",
                  "my pipeline",         &b.get(), nullptr};

  EXPECT_EQ(amk_model_num_inputs(&model), 1u);
  EXPECT_EQ(amk_model_num_outputs(&model), 1u);
  EXPECT_STREQ(amk_model_name(&model), "net");
  EXPECT_STREQ(amk_model_pipeline(&model), "my pipeline");
  EXPECT_EQ(amk_model_workers(&model), 2u);
  amk_tensor_info info;
  ASSERT_EQ(amk_model_input(&model, 0, &info), AMK_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, AMK_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[1], 8);
  EXPECT_EQ(info.bytes, 64u);
  EXPECT_EQ(amk_model_output(&model, 1, &info), AMK_ERROR_INVALID_ARGUMENT);

  amk_session *s = nullptr;
  // A header of another API version, another build of the model, or a
  // library compiled by another AMK: refused, naming both sides.
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION + 1, 0x1234,
                               nullptr, &s),
            AMK_ERROR_VERSION_MISMATCH);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(amk_last_error(nullptr)).find("the header says 2"),
            std::string::npos)
      << amk_last_error(nullptr);
  EXPECT_EQ(
      amk_session_create(&model, AMK_MODEL_API_VERSION, 0x9999, nullptr, &s),
      AMK_ERROR_VERSION_MISMATCH);
  EXPECT_NE(std::string(amk_last_error(nullptr))
                .find("generated for model hash 0000000000009999 but the "
                      "library holds 0000000000001234"),
            std::string::npos)
      << amk_last_error(nullptr);
  amk_model old = model;
  old.api_version = 0;
  EXPECT_EQ(
      amk_session_create(&old, AMK_MODEL_API_VERSION, 0x1234, nullptr, &s),
      AMK_ERROR_VERSION_MISMATCH);

  // threads: 0, 1 or the scheduled count; anything else says how to fix it.
  amk_session_options opts;
  amk_session_options_init(&opts);
  opts.threads = 4;
  EXPECT_EQ(
      amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &opts, &s),
      AMK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amk_last_error(nullptr)).find("--workers=4"),
            std::string::npos);
  amk_session_options bad = opts;
  bad.struct_size = 1;
  EXPECT_EQ(amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &bad, &s),
            AMK_ERROR_INVALID_ARGUMENT);

  std::string trace = ::testing::TempDir() + "amk_model_trace.json";
  std::remove(trace.c_str());
  for (uint32_t threads : {0u, 1u, 2u}) {
    opts.threads = threads;
    opts.trace_path = threads == 2 ? trace.c_str() : nullptr;
    ASSERT_EQ(
        amk_session_create(&model, AMK_MODEL_API_VERSION, 0x1234, &opts, &s),
        AMK_OK)
        << amk_last_error(nullptr);
    std::vector<float> x(n), y(n, 0.f);
    for (int64_t i = 0; i < n; ++i)
      x[i] = 0.5f * i + threads;
    const void *ins[] = {x.data()};
    void *outs[] = {y.data()};
    ASSERT_EQ(amk_session_run(s, ins, outs), AMK_OK) << amk_last_error(s);
    EXPECT_EQ(x, y) << "threads " << threads;
    EXPECT_STREQ(amk_last_error(s), "");
    EXPECT_EQ(amk_session_run(s, nullptr, outs), AMK_ERROR_INVALID_ARGUMENT);
    EXPECT_STRNE(amk_last_error(s), "");
    amk_session_destroy(s);
  }
  std::ifstream t(trace);
  std::stringstream text;
  text << t.rdbuf();
  EXPECT_NE(text.str().find("traceEvents"), std::string::npos);
  amk_session_destroy(nullptr);
  EXPECT_EQ(amk_session_create(nullptr, AMK_MODEL_API_VERSION, 0, nullptr, &s),
            AMK_ERROR_INVALID_ARGUMENT);
}

/// A library of variants: the model's program is variant 0's; a session is
/// created for the input shapes given, on the variant compiled for them;
/// shapes no variant has are refused naming every variant; the header's
/// hash is the library's (each variant has its own).
TEST(ModelApi, SelectsTheVariantForTheShapes) {
  auto copyProgram = [](ProgramBuilder &b, int64_t rows) {
    uint32_t in = b.addIO(true, "x", AMK_RT_F32, {rows, 8}, 4);
    uint32_t out = b.addIO(false, "y", AMK_RT_F32, {rows, 8}, 4);
    uint32_t k = b.addKernel(AMK_RT_K_COPY, 0, {in, out},
                             {4, 1, 0, 0, rows * 8, 1, 1}, {}, "copy");
    b.addTask(k, 0, {0, 1, 0, 1}, {}, -1);
  };
  ProgramBuilder b1(1), b4(1);
  copyProgram(b1, 1);
  copyProgram(b4, 4);
  amk_model v0{AMK_MODEL_API_VERSION, 0, 0x11, "net_v0", "p", &b1.get(),
               nullptr};
  amk_model v1{AMK_MODEL_API_VERSION, 0, 0x44, "net_v1", "p", &b4.get(),
               nullptr};
  const amk_model *variants[2] = {&v0, &v1};
  amk_model model{AMK_MODEL_API_VERSION, 2, 0x99, "net", "p", &b1.get(),
                  variants};

  EXPECT_EQ(amk_model_num_variants(&model), 2u);
  EXPECT_EQ(amk_model_num_variants(&v0), 1u);
  EXPECT_EQ(amk_model_variant(&model, 1), &v1);
  EXPECT_EQ(amk_model_variant(&model, 2), nullptr);
  EXPECT_EQ(amk_model_variant(&v0, 0), &v0);

  int64_t dims4[2] = {4, 8};
  const int64_t *dims[1] = {dims4};
  uint32_t ranks[1] = {2};
  amk_session *s = nullptr;
  ASSERT_EQ(amk_session_create_for_shapes(&model, AMK_MODEL_API_VERSION, 0x99,
                                          nullptr, 1, ranks, dims, &s),
            AMK_OK)
      << amk_last_error(nullptr);
  EXPECT_EQ(amk_session_model(s), &v1);
  std::vector<float> x(32), y(32, -1.f);
  for (int i = 0; i < 32; ++i)
    x[i] = i * 0.5f;
  const void *ins[1] = {x.data()};
  void *outs[1] = {y.data()};
  ASSERT_EQ(amk_session_run(s, ins, outs), AMK_OK) << amk_last_error(s);
  EXPECT_EQ(x, y);
  amk_session_destroy(s);

  // The header's hash is the library's, not a variant's.
  EXPECT_EQ(amk_session_create_for_shapes(&model, AMK_MODEL_API_VERSION, 0x44,
                                          nullptr, 1, ranks, dims, &s),
            AMK_ERROR_VERSION_MISMATCH);
  int64_t dims3[2] = {3, 8};
  dims[0] = dims3;
  EXPECT_EQ(amk_session_create_for_shapes(&model, AMK_MODEL_API_VERSION, 0x99,
                                          nullptr, 1, ranks, dims, &s),
            AMK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(s, nullptr);
  EXPECT_STREQ(amk_last_error(nullptr),
               "model 'net' has no variant for the input shapes x=[3,8]; "
               "compiled variants: x=[1,8]; x=[4,8] (amk-compile "
               "--input-shape/--dim, once per shape set)");
  ranks[0] = 3;
  EXPECT_EQ(amk_session_create_for_shapes(&model, AMK_MODEL_API_VERSION, 0x99,
                                          nullptr, 2, ranks, dims, &s),
            AMK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(amk_last_error(nullptr), "model 'net' has 1 inputs, not 2");
}
