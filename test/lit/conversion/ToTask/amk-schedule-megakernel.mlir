// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0},amk-validate-task-program)' | FileCheck %s
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=1},amk-validate-task-program)' | FileCheck %s --check-prefix=ONE
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 tile-rows=4 policy=round-robin},amk-validate-task-program)' | FileCheck %s --check-prefix=TILES
// Each knob changes the program: granularity, column tiles, the cost model.
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0})' | FileCheck %s --check-prefix=DEF
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tasks-per-worker=4},amk-validate-task-program)' | FileCheck %s --check-prefix=TPW
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tile-cols=64},amk-validate-task-program)' | FileCheck %s --check-prefix=COLS
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 sync-ns=1000000},amk-validate-task-program)' | FileCheck %s --check-prefix=SYNC
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 peak-gflops=1 mem-gbps=1000},amk-validate-task-program)' | FileCheck %s --check-prefix=PEAK
// RUN: not amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{policy=random})' 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// conv-kernel picks the convolution kernel: im2col keeps the implicit GEMM
// (variant 1, unpacked weights), direct takes the 1x1 conv too.
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{conv-kernel=im2col},amk-validate-task-program)' | FileCheck %s --check-prefix=IM2COL
// RUN: amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{conv-kernel=direct},amk-validate-task-program)' | FileCheck %s --check-prefix=DIRECT
// RUN: not amk-opt %inputs/schedule-graph.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{conv-kernel=winograd})' 2>&1 | FileCheck %s --check-prefix=BADCONV
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-schedule-megakernel)' 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// Op features without a kernel are compile-time errors naming op and feature.
// RUN: not amk-opt %inputs/schedule-unsupported.mlir --split-input-file --pass-pipeline='builtin.module(amk-schedule-megakernel)' 2>&1 | FileCheck %s --check-prefix=UNSUP
// The compiled program gives the reference interpreter's outputs with 1
// and 2 workers, threaded and on the single-thread executor.
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --threads 2 --check-reference --repeat 3 | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --threads 2 --single-thread --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 tile-rows=4 policy=round-robin})' | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 conv-kernel=im2col})' | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %inputs/schedule-graph.mlir --seed 5 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 conv-kernel=direct min-task-ns=0 tasks-per-worker=4})' | FileCheck %s --check-prefix=EXEC

// The graph function is replaced by one program: interface buffers first,
// then arena buffers at planned offsets, then packed constants.
// CHECK-NOT: func.func
// CHECK: amk_task.program @main_graph attributes {arena_bytes = [[ARENA:[0-9]+]] : i64, counter_signals = array<i64: {{[0-9]+}}, {{[0-9]+}}>, counters = 2 : i64
// CHECK-SAME: tensor_bytes = [[SUM:[0-9]+]] : i64
// CHECK: amk_task.buffer {kind = "input", name = "x", size = 3072 : i64
// CHECK: amk_task.buffer {kind = "output", name = "probs", size = 40 : i64
// CHECK: kind = "arena"
// The 3x3 conv's weights (8 x 3 x 3 x 3) are packed for the direct
// kernel: one block of 32 output channels, [C][taps][32], zero past 8.
// CHECK: kind = "const", name = "{{.*}}.direct", {{.*}}size = 3456 : i64, type = tensor<27x32xf32>
// The transposed Gemm weight (10 x 512) is packed at compile time into
// K x 64 panels, here one, zero-padded past column 10.
// CHECK: kind = "const", name = "{{.*}}.panels", {{.*}}size = 131072 : i64, type = tensor<512x64xf32>
// The 3x3 conv is a direct convolution (variant 2), the 1x1 conv a GEMM
// with its residual, the Flatten a view (no kernel).
// CHECK: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 2 : i64}
// CHECK: amk_task.kernel pool {
// CHECK: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.conv"}
// CHECK: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "onnx.Gemm"}
// CHECK: amk_task.kernel softmax {
// CHECK-NOT: amk_task.kernel
// Tiles of the first conv split its 256 pixels; a task on the other
// worker waits on a counter, and the producer signals it.
// CHECK: amk_task.task {{{.*}}kernel = 0 : i64, {{.*}}tile = array<i64: 0, 8, 0, {{[0-9]+}}>
// CHECK: waits = array<i64: {{[01]}}, {{[0-9]+}}>

// ONE: counter_signals = array<i64: 0>, counters = 1 : i64
// ONE-NOT: waits = array<i64: 0

// TILES: tile = array<i64: 0, 4,

// The same graph without the knobs (one tile per op per worker): 7 tasks,
// modelled makespan ~4.3 us.
// DEF: modelled_makespan_ns = 4.2{{[0-9]+}}e+03 : f64{{.*}}tasks = 7 : i64
// TPW: tasks = 19 : i64
// COLS: tasks = 8 : i64
// SYNC: modelled_makespan_ns = 20022{{[0-9.]+}} : f64
// PEAK: modelled_makespan_ns = 768{{[0-9.]+}} : f64

// BADPOLICY: for the --policy option: Cannot find option named 'random'!
// BADPOLICY: failed to add `amk-schedule-megakernel` with options `policy=random`

// IM2COL-NOT: .direct
// IM2COL: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 1 : i64}
// IM2COL: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.conv"}
// DIRECT: kind = "const", name = "{{.*}}.direct", {{.*}}type = tensor<27x32xf32>
// DIRECT: kind = "const", name = "{{.*}}.direct", {{.*}}type = tensor<8x32xf32>
// DIRECT: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 2 : i64}
// DIRECT: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 2 : i64}
// DIRECT-NOT: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.conv"}

// BADCONV: for the --conv-kernel option: Cannot find option named 'winograd'!

// EXEC-COUNT-1: ok vs reference

// UNSUP: error: amk-schedule-megakernel: the runtime has no kernel for op 'onnx.MaxPool': the Indices output is not implemented
// UNSUP: error: amk-schedule-megakernel: the runtime has no kernel for op 'onnx.LayerNormalization': LayerNorm's mean and inverse-deviation outputs are not implemented
// UNSUP: error: amk-schedule-megakernel: the runtime has no kernel for op 'amk.gemm': the addend's broadcast is not implemented

// NOKERNEL: error: amk-schedule-megakernel: the runtime has no kernel for op 'onnx.TopK': no runtime kernel implements this op
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
    %k = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
    %v:2 = "onnx.TopK"(%x, %k) : (tensor<4x8xf32>, tensor<1xi64>) -> (tensor<4x2xf32>, tensor<4x2xi64>) 
    return %v#0 : tensor<4x2xf32>
  }
}
