/* Runs a model compiled to an object file (amk-translate --amk-emit-object)
 * through its generated entry points, with deterministic inputs; writes
 * the inputs to DIR/in/input_<i>.npy and the outputs to
 * DIR/out/output_<i>.npy so that amk-run can check them. Usage:
 *   aot_driver DIR [threads]
 * The model's symbol prefix is main_graph (the program's default name). */
#include "amk/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const amk_rt_program *main_graph_program(void);
int main_graph_rt_session_create(const amk_rt_options *options,
                              amk_rt_session **session);
int main_graph_rt_run_packed(amk_rt_session *session, void **args);

static const char *npyDescr(uint32_t dtype, size_t *size) {
  switch (dtype) {
  case AMK_RT_F32: *size = 4; return "<f4";
  case AMK_RT_I64: *size = 8; return "<i8";
  case AMK_RT_I32: *size = 4; return "<i4";
  case AMK_RT_I8: *size = 1; return "|i1";
  case AMK_RT_U8: *size = 1; return "|u1";
  case AMK_RT_BOOL: *size = 1; return "|b1";
  case AMK_RT_U16: *size = 2; return "<u2";
  case AMK_RT_I16: *size = 2; return "<i2";
  case AMK_RT_F16: *size = 2; return "<f2";
  case AMK_RT_F64: *size = 8; return "<f8";
  case AMK_RT_U32: *size = 4; return "<u4";
  case AMK_RT_U64: *size = 8; return "<u8";
  }
  return NULL;
}

static int writeNpy(const char *path, const amk_rt_io *io, const void *data) {
  size_t elem;
  const char *descr = npyDescr(io->dtype, &elem);
  char shape[256] = "";
  size_t n = 0;
  for (uint32_t d = 0; d < io->rank; ++d)
    n += snprintf(shape + n, sizeof shape - n, "%lld,%s",
                  (long long)io->dims[d], d + 1 < io->rank ? " " : "");
  char header[512];
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, "
                     "'shape': (%s), }",
                     descr, shape);
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f)
    return 1;
  unsigned short hlen = (unsigned short)(len + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fwrite(&hlen, 2, 1, f);
  fwrite(header, 1, len, f);
  for (int i = 0; i < pad; ++i)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, 1, io->bytes, f);
  return fclose(f);
}

static void fill(const amk_rt_io *io, void *data) {
  size_t elem;
  npyDescr(io->dtype, &elem);
  size_t n = io->bytes / elem;
  for (size_t i = 0; i < n; ++i) {
    switch (io->dtype) {
    case AMK_RT_F32: ((float *)data)[i] = (float)sin(0.37 * i + 0.1); break;
    case AMK_RT_I64: ((int64_t *)data)[i] = (int64_t)(i % 7); break;
    case AMK_RT_I32: ((int32_t *)data)[i] = (int32_t)(i % 7); break;
    default: ((uint8_t *)data)[i] = (uint8_t)(i % 2); break;
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: aot_driver DIR [threads]\n");
    return 2;
  }
  const amk_rt_program *p = main_graph_program();
  printf("abi %u, %u workers, %u tasks, %u inputs, %u outputs\n",
         p->abi_version, p->num_workers, p->num_tasks, p->num_inputs,
         p->num_outputs);
  uint32_t nio = p->num_inputs + p->num_outputs;
  void **args = calloc(nio, sizeof(void *));
  char path[4096];
  for (uint32_t i = 0; i < nio; ++i) {
    const amk_rt_io *io =
        i < p->num_inputs ? &p->inputs[i] : &p->outputs[i - p->num_inputs];
    args[i] = calloc(1, io->bytes ? io->bytes : 1);
    if (i < p->num_inputs) {
      fill(io, args[i]);
      snprintf(path, sizeof path, "%s/in/input_%u.npy", argv[1], i);
      if (writeNpy(path, io, args[i])) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
      }
    }
  }
  amk_rt_options options;
  memset(&options, 0, sizeof options);
  amk_rt_session *session = NULL;
  if (main_graph_rt_session_create(&options, &session) != AMK_RT_OK) {
    fprintf(stderr, "session: %s\n", amk_rt_error_message(NULL));
    return 1;
  }
  /* Twice: a session is reused across runs. */
  for (int r = 0; r < 2; ++r)
    if (main_graph_rt_run_packed(session, args) != AMK_RT_OK) {
      fprintf(stderr, "run: %s\n", amk_rt_error_message(session));
      return 1;
    }
  for (uint32_t o = 0; o < p->num_outputs; ++o) {
    snprintf(path, sizeof path, "%s/out/output_%u.npy", argv[1], o);
    if (writeNpy(path, &p->outputs[o], args[p->num_inputs + o])) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    printf("output %u '%s' written\n", o, p->outputs[o].name);
  }
  amk_rt_session_destroy(session);
  for (uint32_t i = 0; i < nio; ++i)
    free(args[i]);
  free(args);
  return 0;
}
