/*===- runtime.h - AMK persistent-kernel runtime, C ABI ---------*- C -*-===*
 *
 * Part of AMK. The task program (docs/runtime.md) as plain constant data,
 * and the session API that runs it on long-lived workers. The same structs
 * are filled from the `amk_task` dialect by amk-run's loader and, later, by
 * the LLVM lowering as constant globals, so the layout below is the ABI:
 * change it only together with AMK_RT_ABI_VERSION.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMK_RUNTIME_H
#define AMK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMK_RT_ABI_VERSION 2u

/* Where a buffer lives. Arena and constant buffers are addressed by a byte
 * offset; input and output buffers are the caller's, by index. */
enum amk_rt_region {
  AMK_RT_ARENA = 0,
  AMK_RT_CONST = 1,
  AMK_RT_INPUT = 2,
  AMK_RT_OUTPUT = 3,
};

/* Kernel kinds, from the registry kernels.def; the iparams/fparams layout
 * of each is in kernel_params.h and docs/runtime.md. */
enum amk_rt_kernel_kind {
#define AMK_KERNEL(ID, VALUE, NAME) AMK_RT_K_##ID = VALUE,
#include "kernels.def"
  AMK_RT_K_NUM_KINDS
};

/* Element types of inputs and outputs (ONNX TensorProto codes). */
enum amk_rt_dtype {
  AMK_RT_F32 = 1,
  AMK_RT_U8 = 2,
  AMK_RT_I8 = 3,
  AMK_RT_U16 = 4,
  AMK_RT_I16 = 5,
  AMK_RT_I32 = 6,
  AMK_RT_I64 = 7,
  AMK_RT_BOOL = 9,
  AMK_RT_F16 = 10,
  AMK_RT_F64 = 11,
  AMK_RT_U32 = 12,
  AMK_RT_U64 = 13,
  AMK_RT_BF16 = 16,
};

#define AMK_RT_NO_BUFFER 0xffffffffu
#define AMK_RT_NO_COUNTER (-1)

typedef struct amk_rt_buffer {
  uint32_t region; /* amk_rt_region */
  uint32_t index;  /* input/output index, else 0 */
  uint64_t offset; /* bytes into the arena or the constant blob */
  uint64_t size;   /* bytes */
} amk_rt_buffer;

/* Generated code for an ELEMENTWISE kernel, or a TYPED_ELEMENTWISE one over
 * integers and bools (the LLVM lowering emits one per kernel): writes y[i]
 * for i in [begin, end) from inputs[0..n-1], the kernel's input buffers in
 * order; y is the output buffer whatever its element type. */
typedef void (*amk_rt_elementwise_fn)(float *y, const void *const *inputs,
                                      int64_t begin, int64_t end);

typedef struct amk_rt_kernel {
  uint32_t kind;    /* amk_rt_kernel_kind */
  uint32_t variant; /* kernel-specific implementation choice */
  uint32_t first_buffer, num_buffers; /* into kernel_buffers */
  uint32_t first_iparam, num_iparams; /* into iparams */
  uint32_t first_fparam, num_fparams; /* into fparams */
  const char *name; /* the ONNX node it came from, for errors and traces */
  /* ELEMENTWISE and TYPED_ELEMENTWISE only, optional: compiled code for
   * this kernel, run instead of the runtime's interpretation of iparams. */
  amk_rt_elementwise_fn elementwise_fn;
} amk_rt_kernel;

/* One tile of one kernel. Tasks are stored in a valid sequential order;
 * each worker runs its own tasks in that order. */
typedef struct amk_rt_task {
  uint32_t kernel;
  uint32_t worker;
  int64_t tile[4]; /* rows [tile[0], tile[1]), columns [tile[2], tile[3]) */
  uint32_t first_wait, num_waits; /* into waits */
  int32_t signal;                 /* counter to add 1 to, or -1 */
} amk_rt_task;

/* Wait until `counter` has been signalled `threshold` times in this run. */
typedef struct amk_rt_wait {
  uint32_t counter;
  uint32_t threshold;
} amk_rt_wait;

typedef struct amk_rt_io {
  const char *name;
  uint32_t dtype; /* amk_rt_dtype */
  uint32_t rank;
  const int64_t *dims;
  uint64_t bytes;
} amk_rt_io;

typedef struct amk_rt_program {
  uint32_t abi_version; /* AMK_RT_ABI_VERSION */
  uint32_t num_workers;
  uint32_t num_counters;
  uint32_t num_buffers;
  uint32_t num_kernels;
  uint32_t num_tasks;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint64_t arena_bytes;
  const uint8_t *constants; /* 64-byte aligned */
  uint64_t constants_bytes;
  const amk_rt_buffer *buffers;
  const uint32_t *kernel_buffers; /* buffer ids, AMK_RT_NO_BUFFER if absent */
  const int64_t *iparams;
  const float *fparams;
  const amk_rt_kernel *kernels;
  const amk_rt_task *tasks;
  const amk_rt_wait *waits;
  const uint32_t *counter_signals; /* signals per counter per run */
  const amk_rt_io *inputs;
  const amk_rt_io *outputs;
} amk_rt_program;

typedef struct amk_rt_options {
  /* Run every task on the calling thread in program order, ignoring the
   * worker lists: the differential-test executor. */
  int single_thread;
  /* Record a per-task trace (amk_rt_write_trace). */
  int trace;
  /* A run that makes no progress for this long fails with a report of
   * every worker's task and counters; <= 0 means 30 s. */
  double hang_timeout_s;
} amk_rt_options;

typedef struct amk_rt_session amk_rt_session;

enum amk_rt_status {
  AMK_RT_OK = 0,
  AMK_RT_INVALID_PROGRAM = 1,
  AMK_RT_INVALID_ARGUMENT = 2,
  AMK_RT_KERNEL_ERROR = 3,
  AMK_RT_HANG = 4,
  AMK_RT_OUT_OF_MEMORY = 5,
};

/* Creates the workers (num_workers - 1 threads; the caller is worker 0)
 * and the arena. The program must outlive the session. */
int amk_rt_session_create(const amk_rt_program *program,
                          const amk_rt_options *options,
                          amk_rt_session **session);
/* inputs[i] / outputs[i] point at the caller's buffers of
 * program->inputs[i].bytes / outputs[i].bytes. */
int amk_rt_run(amk_rt_session *session, const void *const *inputs,
               void *const *outputs);
/* The last error of the session (empty after success), or of the last
 * failed amk_rt_session_create when session is NULL. */
const char *amk_rt_error_message(const amk_rt_session *session);
/* Writes the last run's trace as Chrome trace JSON. */
int amk_rt_write_trace(const amk_rt_session *session, const char *path);
void amk_rt_session_destroy(amk_rt_session *session);

/* The index of the largest of the n floats at x: the first on ties, a NaN
 * never chosen over a number (0 when n < 1 or every value is NaN). Vector
 * code where the CPU has it: a decoder's greedy token from its logits
 * (amk_model_generate, amk-run --generate) and the ARGMAX kernel's
 * float32 rows. */
int64_t amk_rt_argmax_f32(const float *x, int64_t n);

/* Test hook: the task with this index stalls (never finishes) until the
 * run is aborted; -1 disables. Used to exercise the watchdog. */
void amk_rt_test_stall_task(amk_rt_session *session, int64_t task);

#ifdef __cplusplus
}
#endif

#endif /* AMK_RUNTIME_H */
