/* A library of two variants of one dynamic model (amk-compile --dim given
 * once per shape set): the session is created for the shapes at hand, its
 * variant tells the buffer sizes, and a shape no variant has is refused
 * with a message naming the compiled ones. The model (CMakeLists.txt) is
 * test/lit/Inputs/dynamic_reshape.mlir: its output is relu(x) flattened to
 * [batch, 3 * n]. test/integration/consumer.sh builds and runs this. */
#include "dyn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int runFor(int64_t batch, int64_t n) {
  int64_t dims[3] = {batch, 3, n};
  const int64_t *dimsOf[1] = {dims};
  uint32_t ranks[1] = {3};
  amk_session *s = NULL;
  if (dyn_session_create_for_shapes(NULL, ranks, dimsOf, &s) != AMK_OK) {
    printf("refused [%lld,3,%lld]: %s\n", (long long)batch, (long long)n,
           amk_last_error(NULL));
    return 1;
  }
  const amk_model *variant = amk_session_model(s);
  amk_tensor_info in, out;
  amk_model_input(variant, 0, &in);
  amk_model_output(variant, 0, &out);
  size_t count = (size_t)(in.bytes / sizeof(float));
  float *x = malloc(in.bytes), *y = malloc(out.bytes);
  for (size_t i = 0; i < count; ++i)
    x[i] = (float)((int)(i % 7) - 3);
  const void *ins[1] = {x};
  void *outs[1] = {y};
  int bad = amk_session_run(s, ins, outs) != AMK_OK;
  for (size_t i = 0; !bad && i < count; ++i)
    bad = y[i] != (x[i] > 0 ? x[i] : 0);
  printf("ran [%lld,3,%lld] on a variant with output [%lld,%lld]: %s\n",
         (long long)batch, (long long)n, (long long)out.dims[0],
         (long long)out.dims[1], bad ? "WRONG" : "ok");
  free(x);
  free(y);
  amk_session_destroy(s);
  return bad ? 2 : 0;
}

int main(void) {
  printf("%u variants\n", amk_model_num_variants(dyn_model()));
  int rc = runFor(4, 7) | runFor(1, 5);
  if (rc)
    return rc;
  /* No variant: refused (exit 0 when refused as expected). */
  return runFor(2, 5) == 1 ? 0 : 3;
}
