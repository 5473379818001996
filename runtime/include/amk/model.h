/*===- amk/model.h - The C API of models compiled by amk-compile -*- C -*-===*\
 *
 * Part of AMK. A library made by `amk-compile model.onnx -o libNAME.a
 * --header NAME.h` holds one model; its generated header declares
 * `NAME_model()` and inline helpers over this API. The functions below
 * live in libamk_runtime (they are the same for every model).
 *
 * Stability (docs/integration.md): AMK_MODEL_API_VERSION changes only when
 * a declaration here changes incompatibly. Structs the caller fills start
 * with `struct_size`, so fields can be added at the end without a version
 * change. Enumerators are never renumbered. A library whose header was
 * generated against another API version, or for another build of the
 * model, is refused at amk_session_create with AMK_ERROR_VERSION_MISMATCH.
 *
\*===----------------------------------------------------------------------===*/

#ifndef AMK_MODEL_H
#define AMK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMK_MODEL_API_VERSION 1u

typedef enum amk_status {
  AMK_OK = 0,
  AMK_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad index, options */
  AMK_ERROR_VERSION_MISMATCH = 2, /* header, library and runtime disagree */
  AMK_ERROR_INVALID_PROGRAM = 3,  /* the compiled program is corrupt */
  AMK_ERROR_KERNEL = 4,           /* a kernel failed (e.g. index out of range) */
  AMK_ERROR_HANG = 5,             /* the watchdog stopped a run */
  AMK_ERROR_OUT_OF_MEMORY = 6,
  AMK_ERROR_IO = 7 /* the trace file could not be written */
} amk_status;

typedef enum amk_dtype {
  AMK_DTYPE_FLOAT32 = 1,
  AMK_DTYPE_UINT8 = 2,
  AMK_DTYPE_INT8 = 3,
  AMK_DTYPE_UINT16 = 4,
  AMK_DTYPE_INT16 = 5,
  AMK_DTYPE_INT32 = 6,
  AMK_DTYPE_INT64 = 7,
  AMK_DTYPE_BOOL = 9,
  AMK_DTYPE_FLOAT16 = 10,
  AMK_DTYPE_FLOAT64 = 11,
  AMK_DTYPE_UINT32 = 12,
  AMK_DTYPE_UINT64 = 13,
  AMK_DTYPE_BFLOAT16 = 16
} amk_dtype; /* the values are ONNX's TensorProto.DataType */

/* A compiled model (the NAME_model() of a generated header). */
typedef struct amk_model amk_model;
/* A model ready to run: its worker threads and its arena. One run at a time
 * per session; sessions of the same model are independent. */
typedef struct amk_session amk_session;

typedef struct amk_tensor_info {
  const char *name;   /* the ONNX graph's input/output name */
  amk_dtype dtype;
  uint32_t rank;
  const int64_t *dims; /* rank entries, all static */
  uint64_t bytes;      /* the buffer size run() expects */
} amk_tensor_info;

typedef struct amk_session_options {
  size_t struct_size; /* sizeof(amk_session_options) */
  /* 0: the workers the program was scheduled for (amk-compile --workers);
   * 1: every task on the calling thread (no worker threads). Any other
   * value must equal the scheduled count: the task lists are static. */
  uint32_t threads;
  /* Non-null: each run writes a Chrome trace (chrome://tracing, Perfetto)
   * of its tasks to this path. */
  const char *trace_path;
  /* A run that makes no progress for this long fails with AMK_ERROR_HANG
   * and a report of every worker's task and counters; <= 0 means 30 s. */
  double hang_timeout_s;
} amk_session_options;

/* Sets every field to its default. */
void amk_session_options_init(amk_session_options *options);

/* What the model declares. */
uint32_t amk_model_num_inputs(const amk_model *model);
uint32_t amk_model_num_outputs(const amk_model *model);
amk_status amk_model_input(const amk_model *model, uint32_t index,
                           amk_tensor_info *info);
amk_status amk_model_output(const amk_model *model, uint32_t index,
                            amk_tensor_info *info);
/* The model's name (amk-compile --name), the pipeline it was compiled
 * with, and the workers it was scheduled for. */
const char *amk_model_name(const amk_model *model);
const char *amk_model_pipeline(const amk_model *model);
uint32_t amk_model_workers(const amk_model *model);

/* Creates a session. header_api_version and header_model_hash are what the
 * caller's generated header was made with (its NAME_session_create helper
 * passes them); a mismatch is AMK_ERROR_VERSION_MISMATCH with a message
 * naming both sides. options may be null (defaults). On failure *session
 * is null and amk_last_error(NULL) says why. */
amk_status amk_session_create(const amk_model *model,
                              uint32_t header_api_version,
                              uint64_t header_model_hash,
                              const amk_session_options *options,
                              amk_session **session);

/* Runs the model once. inputs[i] points at amk_model_input(i).bytes of the
 * caller's data, outputs[i] at amk_model_output(i).bytes the caller owns;
 * nothing is allocated per run. Blocks until the run ends. */
amk_status amk_session_run(amk_session *session, const void *const *inputs,
                           void *const *outputs);

/* The message of the session's last failure (empty after success); with
 * session == NULL, the calling thread's last amk_session_create failure. */
const char *amk_last_error(const amk_session *session);

/* Joins the workers and frees the session; null is allowed. */
void amk_session_destroy(amk_session *session);

/* ---- Variants ------------------------------------------------------------
 * A model with dynamic dimensions is compiled for the shapes it will run
 * at; `amk-compile --input-shape` / `--dim` given once per shape set puts
 * one program per set into the same library. The model is its variant 0
 * (amk_session_create runs that one); a single-shape library has one
 * variant. */
uint32_t amk_model_num_variants(const amk_model *model);
/* Variant `index` (its interface through amk_model_input/output), or null
 * when out of range. */
const amk_model *amk_model_variant(const amk_model *model, uint32_t index);
/* As amk_session_create, on the variant compiled for these input shapes:
 * input i has rank ranks[i] and dimensions dims[i][0..ranks[i]), for the
 * model's num_inputs inputs. When no variant has them,
 * AMK_ERROR_INVALID_ARGUMENT, and amk_last_error(NULL) names the shapes
 * given and those of every compiled variant. */
amk_status amk_session_create_for_shapes(
    const amk_model *model, uint32_t header_api_version,
    uint64_t header_model_hash, const amk_session_options *options,
    uint32_t num_inputs, const uint32_t *ranks, const int64_t *const *dims,
    amk_session **session);
/* The variant a session runs: its inputs' and outputs' shapes and byte
 * sizes are what amk_session_run expects. */
const amk_model *amk_session_model(const amk_session *session);

/* ---- Generation ----------------------------------------------------------
 * A decoder-only language model in Hugging Face Optimum's interface
 * (input_ids, attention_mask and position_ids, past_key_values.N.key/value
 * in; logits, present.N.key/value out) compiled with
 * `amk-compile --generate-prompt-len P --max-context T` holds two variants:
 * the prefill for a prompt of P tokens and the decode step, one program
 * for every later token, whose KV cache of T slots is written in place
 * (docs/decoder.md). amk_model_generate runs the prompt, then steps - 1
 * decode steps, each token the argmax of its logits (greedy), and writes
 * the `steps` generated ids to tokens. prompt_len must be the P compiled
 * for and prompt_len + steps - 1 at most T. Both programs' sessions live
 * for the call; the caches, tokens and logits are its only allocations.
 * Errors: AMK_ERROR_INVALID_ARGUMENT (a model not compiled for
 * generation, a prompt of another length, a token outside the
 * vocabulary, too many steps for T), or a run's status; amk_last_error(NULL)
 * says why. */
amk_status amk_model_generate(const amk_model *model,
                              uint32_t header_api_version,
                              uint64_t header_model_hash,
                              const amk_session_options *options,
                              const int64_t *prompt, uint32_t prompt_len,
                              uint32_t steps, int64_t *tokens);

/* ---- For generated code only -------------------------------------------
 * The layout of amk_model, which the generated library defines as constant
 * data. Callers use the functions above, never these fields. */
struct amk_rt_program;
struct amk_model {
  uint32_t api_version; /* AMK_MODEL_API_VERSION of amk-compile */
  /* 0 (libraries before variants existed, and each variant itself): one
   * program; else the entries of `variants`, the first being `program`. */
  uint32_t num_variants;
  uint64_t hash; /* of the program(s), weights included */
  const char *name;
  const char *pipeline;
  const struct amk_rt_program *program;
  /* Read only when num_variants > 0. */
  const struct amk_model *const *variants;
};

#ifdef __cplusplus
}
#endif

#endif /* AMK_MODEL_H */
