// Runs the example model through the library amk_add_model generated: reads
// nothing, fills the input deterministically (or from a raw float file),
// prints the model's interface and the predicted class, and can save the
// input and the output as .npy files for comparison with amk-run.
//   classify [--threads N] [--npy DIR] [--runs N]
#include "tiny_cnn.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

const char *dtypeName(amk_dtype t) {
  switch (t) {
  case AMK_DTYPE_FLOAT32: return "float32";
  case AMK_DTYPE_UINT8: return "uint8";
  case AMK_DTYPE_INT8: return "int8";
  case AMK_DTYPE_INT32: return "int32";
  case AMK_DTYPE_INT64: return "int64";
  case AMK_DTYPE_BOOL: return "bool";
  case AMK_DTYPE_UINT16: return "uint16";
  case AMK_DTYPE_INT16: return "int16";
  case AMK_DTYPE_FLOAT16: return "float16";
  case AMK_DTYPE_FLOAT64: return "float64";
  case AMK_DTYPE_UINT32: return "uint32";
  case AMK_DTYPE_UINT64: return "uint64";
  case AMK_DTYPE_BFLOAT16: return "bfloat16";
  }
  return "?";
}

const char *npyDescr(amk_dtype t) {
  switch (t) {
  case AMK_DTYPE_FLOAT32: return "<f4";
  case AMK_DTYPE_UINT8: return "|u1";
  case AMK_DTYPE_INT8: return "|i1";
  case AMK_DTYPE_INT32: return "<i4";
  case AMK_DTYPE_INT64: return "<i8";
  case AMK_DTYPE_BOOL: return "|b1";
  case AMK_DTYPE_UINT16: return "<u2";
  case AMK_DTYPE_INT16: return "<i2";
  case AMK_DTYPE_FLOAT16: return "<f2";
  case AMK_DTYPE_FLOAT64: return "<f8";
  case AMK_DTYPE_UINT32: return "<u4";
  case AMK_DTYPE_UINT64: return "<u8";
  case AMK_DTYPE_BFLOAT16: return "|V2"; /* NumPy has no bfloat16 */
  }
  return "|u1";
}

// NumPy's .npy format, version 1.0.
bool writeNpy(const std::string &path, const amk_tensor_info &t,
              const void *data) {
  std::string shape;
  for (uint32_t d = 0; d < t.rank; ++d)
    shape += std::to_string(t.dims[d]) + (t.rank == 1 ? "," : d + 1 < t.rank ? ", " : "");
  std::string header = std::string("{'descr': '") + npyDescr(t.dtype) +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  uint16_t len = static_cast<uint16_t>(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  f.write(reinterpret_cast<const char *>(&len), 2);
  f << header;
  f.write(static_cast<const char *>(data), static_cast<std::streamsize>(t.bytes));
  return static_cast<bool>(f);
}

int fail(const char *what, amk_status status, const amk_session *s) {
  std::fprintf(stderr, "classify: %s failed (status %d): %s\n", what,
               static_cast<int>(status), amk_last_error(s));
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  uint32_t threads = 0;
  int runs = 1;
  std::string npyDir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = static_cast<uint32_t>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--npy") && i + 1 < argc)
      npyDir = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: classify [--threads N] [--npy DIR] [--runs N]\n");
      return 2;
    }
  }

  const amk_model *model = tiny_cnn_model();
  std::printf("model %s, %u workers\npipeline %s\n", amk_model_name(model),
              amk_model_workers(model), amk_model_pipeline(model));
  uint32_t nin = amk_model_num_inputs(model), nout = amk_model_num_outputs(model);
  std::vector<amk_tensor_info> ins(nin), outs(nout);
  std::vector<std::vector<unsigned char>> inData(nin), outData(nout);
  std::vector<const void *> inPtrs(nin);
  std::vector<void *> outPtrs(nout);
  for (uint32_t i = 0; i < nin; ++i) {
    amk_model_input(model, i, &ins[i]);
    inData[i].resize(ins[i].bytes);
    inPtrs[i] = inData[i].data();
    std::printf("input %u '%s' %s [", i, ins[i].name, dtypeName(ins[i].dtype));
    for (uint32_t d = 0; d < ins[i].rank; ++d)
      std::printf("%s%lld", d ? ", " : "", static_cast<long long>(ins[i].dims[d]));
    std::printf("]\n");
    if (ins[i].dtype == AMK_DTYPE_FLOAT32) {
      auto *x = reinterpret_cast<float *>(inData[i].data());
      for (size_t k = 0; k < ins[i].bytes / 4; ++k)
        x[k] = static_cast<float>(std::sin(0.37 * static_cast<double>(k) + 0.1));
    }
  }
  for (uint32_t i = 0; i < nout; ++i) {
    amk_model_output(model, i, &outs[i]);
    outData[i].resize(outs[i].bytes);
    outPtrs[i] = outData[i].data();
  }

  amk_session_options options;
  amk_session_options_init(&options);
  options.threads = threads;
  amk_session *session = nullptr;
  amk_status st = tiny_cnn_session_create(&options, &session);
  if (st != AMK_OK)
    return fail("session_create", st, nullptr);
  for (int r = 0; r < runs; ++r) {
    st = amk_session_run(session, inPtrs.data(), outPtrs.data());
    if (st != AMK_OK) {
      int rc = fail("run", st, session);
      amk_session_destroy(session);
      return rc;
    }
  }
  amk_session_destroy(session);

  if (nout && outs[0].dtype == AMK_DTYPE_FLOAT32) {
    const auto *y = reinterpret_cast<const float *>(outData[0].data());
    size_t n = outs[0].bytes / 4, best = 0;
    for (size_t k = 1; k < n; ++k)
      if (y[k] > y[best])
        best = k;
    std::printf("output '%s': class %zu (score %.6f)\n", outs[0].name, best,
                static_cast<double>(y[best]));
  }
  if (!npyDir.empty()) {
    for (uint32_t i = 0; i < nin; ++i)
      if (!writeNpy(npyDir + "/in/" + ins[i].name + ".npy", ins[i], inData[i].data()))
        return fail("writing the inputs", AMK_ERROR_IO, nullptr);
    for (uint32_t i = 0; i < nout; ++i)
      if (!writeNpy(npyDir + "/out/" + outs[i].name + ".npy", outs[i], outData[i].data()))
        return fail("writing the outputs", AMK_ERROR_IO, nullptr);
  }
  return 0;
}
