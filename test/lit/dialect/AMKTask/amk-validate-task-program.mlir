// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-validate-task-program)' -verify-diagnostics | FileCheck %s

// The valid programs are printed unchanged; the others fail with the
// expected errors and print nothing.

// A valid two-worker program: task 1 (worker 1) reads what task 0
// (worker 0) wrote and waits for it on counter 0.
// CHECK-LABEL: amk_task.program @ok attributes
// CHECK-COUNT-2: amk_task.task
module {
  amk_task.program @ok attributes {arena_bytes = 128 : i64, counter_signals = array<i64: 1, 0>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "input", size = 64 : i64, type = tensor<16xf32>}
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.buffer {kind = "output", size = 64 : i64, type = tensor<16xf32>}
    amk_task.kernel elementwise {buffers = array<i64: 1, 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 16, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64: 0, 0, 64, 64, 1>, writes = array<i64: 1, 0, 64, 64, 1>}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 16, 0, 1>, waits = array<i64: 0, 1>, reads = array<i64: 1, 0, 64, 64, 1>, writes = array<i64: 2, 0, 64, 64, 1>}
  }
}

// -----

// The same without the wait: a race.
module {
  amk_task.program @race attributes {arena_bytes = 128 : i64, counter_signals = array<i64: 0, 0>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "input", size = 64 : i64, type = tensor<16xf32>}
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.buffer {kind = "output", size = 64 : i64, type = tensor<16xf32>}
    amk_task.kernel elementwise {buffers = array<i64: 1, 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>, name = "producer"}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 16, 0, 1>, waits = array<i64>, reads = array<i64: 0, 0, 64, 64, 1>, writes = array<i64: 1, 0, 64, 64, 1>}
    // expected-error @+1 {{race: task 0 (worker 0, elementwise kernel 0 of 'producer') writes buffer 1 ('') and task 1 (worker 1, elementwise kernel 0 of 'producer') reads buffer 1 ('') touch common bytes (from arena byte 0) with no counter wait ordering them}}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 16, 0, 1>, waits = array<i64>, reads = array<i64: 1, 0, 64, 64, 1>, writes = array<i64: 2, 0, 64, 64, 1>}
  }
}

// -----

// Two arena buffers the planner placed on the same bytes, both live: the
// second writer is unordered with the first reader.
module {
  amk_task.program @reuse attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 0, 0>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.buffer {kind = "arena", size = 32 : i64, offset = 32 : i64, type = tensor<8xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, reads = array<i64: 0, 0, 64, 64, 1>, writes = array<i64>}
    // expected-error @+1 {{race}}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, reads = array<i64>, writes = array<i64: 1, 0, 32, 32, 1>}
  }
}

// -----

// Column tiles of one matrix write disjoint strided rectangles: no race.
// CHECK-LABEL: amk_task.program @columns attributes
// CHECK-COUNT-2: amk_task.task
module {
  amk_task.program @columns attributes {arena_bytes = 256 : i64, counter_signals = array<i64: 0, 0>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "arena", size = 256 : i64, type = tensor<4x16xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 4, 0, 8>, waits = array<i64>, reads = array<i64>, writes = array<i64: 0, 0, 32, 64, 4>}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 4, 8, 16>, waits = array<i64>, reads = array<i64>, writes = array<i64: 0, 32, 32, 64, 4>}
  }
}

// -----

// A wait for more signals than a run produces.
module {
  amk_task.program @unsatisfiable attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 1, 0>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64>, writes = array<i64>}
    // expected-error @+1 {{waits for counter 0 to reach 2, but it is signalled only 1 times per run: the wait can never be satisfied}}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64: 0, 2>, reads = array<i64>, writes = array<i64>}
  }
}

// -----

// Each worker waits for the other's only signal, which comes after the
// wait: a cycle.
module {
  amk_task.program @cycle attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 1, 1>, counters = 2 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    // expected-error @+1 {{dependency cycle: task 0 (worker 0, nop kernel 0 of '') can never start (0 of 4 tasks can run}}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64: 1, 1>, reads = array<i64>, writes = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64>, writes = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64: 0, 1>, reads = array<i64>, writes = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, signal = 1 : i64, reads = array<i64>, writes = array<i64>}
  }
}

// -----

// An access past the end of its buffer.
module {
  amk_task.program @bounds attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
    amk_task.buffer {kind = "arena", size = 64 : i64, name = "t", type = tensor<16xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    // expected-error @+1 {{task 0 (worker 0, nop kernel 0 of '') writes bytes [32, 96) of buffer 0 ('t'), which has 64 bytes: out of bounds}}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, reads = array<i64>, writes = array<i64: 0, 32, 64, 64, 1>}
  }
}

// -----

// A buffer outside the arena.
module {
  amk_task.program @arena attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
    // expected-error @+1 {{buffer 0 ('big') spans bytes [32, 160) of a 64-byte arena}}
    amk_task.buffer {kind = "arena", size = 128 : i64, offset = 32 : i64, name = "big", type = tensor<32xf32>}
  }
}

// -----

// Two workers signalling one counter.
module {
  amk_task.program @shared attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 2>, counters = 1 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "arena", size = 64 : i64, type = tensor<16xf32>}
    amk_task.kernel nop {buffers = array<i64: 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64>}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64>, writes = array<i64>}
    // expected-error @+1 {{signals counter 0, which worker 0 also signals}}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64>, writes = array<i64>}
  }
}

// -----

// A kernel kind the registry (runtime/include/amk/kernels.def) lacks is
// refused when the IR is parsed.
amk_task.program @bad_kind attributes {arena_bytes = 0 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
  // expected-error @+1 {{unknown kernel kind 'matmul'; runtime/include/amk/kernels.def has: nop gemm dwconv conv pool elementwise softmax layernorm attention copy gather where}}
  amk_task.kernel matmul {buffers = array<i64>, fparams = array<f32>, iparams = array<i64>}
}

// -----

// Negative sizes and worker counts are refused by the verifiers (the
// attributes' unsigned getters once let them through).
amk_task.program @negative_workers attributes {arena_bytes = 0 : i64, counter_signals = array<i64>, counters = 0 : i64, workers = -1 : i64} {
  // expected-error @-1 {{needs at least one worker}}
}

// -----

amk_task.program @negative_size attributes {arena_bytes = 64 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
  // expected-error @+1 {{size, offset and index must be non-negative}}
  amk_task.buffer {kind = "arena", size = -1 : i64, type = tensor<16xf32>}
}
