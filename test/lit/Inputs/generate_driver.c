/* Greedy generation through the C API (amk_model_generate) with a decoder
 * compiled by amk-compile --generate-prompt-len/--max-context: prints the
 * tokens, then checks the errors of a wrong prompt length, too many steps
 * and a token outside the vocabulary. Usage: generate_driver STEPS PROMPT...
 * (built against the header amk-compile wrote, as "model.h", model "dec"). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  uint32_t steps = (uint32_t)atoi(argv[1]), n = (uint32_t)(argc - 2);
  int64_t prompt[64], tokens[256];
  for (uint32_t i = 0; i < n && i < 64; ++i)
    prompt[i] = atoll(argv[2 + i]);
  amk_status st = dec_generate(NULL, prompt, n, steps, tokens);
  if (st != AMK_OK) {
    printf("error %d: %s\n", (int)st, amk_last_error(NULL));
    return 1;
  }
  printf("tokens:");
  for (uint32_t i = 0; i < steps; ++i)
    printf(" %lld", (long long)tokens[i]);
  printf("\n");
  /* Bad uses: each a clear error, never a crash. */
  st = dec_generate(NULL, prompt, n + 1, steps, tokens);
  printf("longer prompt: %d: %s\n", (int)st, amk_last_error(NULL));
  st = dec_generate(NULL, prompt, n, 200, tokens);
  printf("too many steps: %d: %s\n", (int)st, amk_last_error(NULL));
  prompt[0] = 1000000;
  st = dec_generate(NULL, prompt, n, steps, tokens);
  printf("bad token: %d: %s\n", (int)st, amk_last_error(NULL));
  return 0;
}
