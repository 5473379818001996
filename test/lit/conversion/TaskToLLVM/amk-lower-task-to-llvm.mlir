// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-task-to-llvm{embed-constants=false})' -verify-diagnostics | FileCheck %s
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-task-to-llvm{prefix=net approximate-math=false})' -verify-diagnostics | FileCheck %s --check-prefix=EXACT
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-task-to-llvm{compile-elementwise=false})' -verify-diagnostics | FileCheck %s --check-prefix=INTERP
// RUN: amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-lower-to-llvm)' -verify-diagnostics | amk-translate --split-input-file --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// y = Gelu(x + float(k)), k an int64 vector broadcast over the rows; one
// constant buffer.
module {
  amk_task.program @ew attributes {arena_bytes = 0 : i64, counter_signals = array<i64: 1>, counters = 1 : i64, workers = 2 : i64} {
    amk_task.buffer {kind = "input", name = "x", size = 24 : i64, type = tensor<2x3xf32>}
    amk_task.buffer {kind = "input", index = 1 : i64, name = "k", size = 24 : i64, type = tensor<3xi64>}
    amk_task.buffer {kind = "output", name = "y", size = 24 : i64, type = tensor<2x3xf32>}
    amk_task.buffer {kind = "const", name = "w", size = 8 : i64, type = tensor<2xf32>, value = dense<[1.5, -2.0]> : tensor<2xf32>}
    amk_task.kernel elementwise {buffers = array<i64: 2, 0, 1>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64: 2, 2, 3, 2, 1, 3, 1, 7, 0, 1, 2, 32, 2, 0, 1, 0, 7, 3, 2, 0, 0, 3>, name = "gelu_add"}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 3, 0, 1>, waits = array<i64>, signal = 0 : i64, reads = array<i64: 0, 0, 12, 12, 1, 1, 0, 24, 24, 1>, writes = array<i64: 2, 0, 12, 12, 1>}
    amk_task.task {kernel = 0 : i64, worker = 1 : i64, tile = array<i64: 3, 6, 0, 1>, waits = array<i64>, reads = array<i64: 0, 12, 12, 12, 1, 1, 0, 24, 24, 1>, writes = array<i64: 2, 12, 12, 12, 1>}
  }
}

// The runtime's entry points are declared once.
// CHECK-DAG: llvm.func @amk_rt_run(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @amk_rt_session_create(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// The weights are the loader's (external) with embed-constants=false.
// CHECK: llvm.mlir.global external constant @ew_constants() {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<8 x i8>
// Pointer-free tables are constant byte images of the runtime's structs.
// CHECK: llvm.mlir.global internal constant @ew_buffers(dense<
// CHECK-SAME: : tensor<96xi8>)
// CHECK: llvm.mlir.global internal constant @ew_tasks(dense<
// CHECK-SAME: : tensor<112xi8>)
// The elementwise kernel as code: x contiguous, k broadcast (column index
// = i mod 3) and converted from int64, erf approximated by a polynomial.
// CHECK: llvm.func internal @ew_ew0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[B:.*]]: i64, %[[E:.*]]: i64)
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]]
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: arith.remui %[[I]], %{{.*}} : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.addf
// CHECK-NOT: math.erf
// CHECK: llvm.store
// The kernel table points at the generated function and the node name.
// CHECK: llvm.mlir.global internal constant @ew_kname0("gelu_add\00")
// CHECK-LABEL: llvm.mlir.global internal constant @ew_kernels()
// CHECK-DAG: llvm.mlir.addressof @ew_kname0
// CHECK-DAG: llvm.mlir.addressof @ew_ew0
// I/O descriptors with names and shapes.
// CHECK: llvm.mlir.global internal constant @ew_input1_name("k\00")
// CHECK: llvm.mlir.global internal constant @ew_input1_dims(dense<[3, 0, 0, 0, 0, 0, 0, 0]> : tensor<8xi8>)
// CHECK-LABEL: llvm.mlir.global internal constant @ew_desc()
// CHECK-COUNT-10: llvm.mlir.addressof
// The C API's model descriptor (amk/model.h): API version 1, the program's
// hash, its name, the pipeline (none here) and the program descriptor.
// CHECK: llvm.mlir.global internal constant @ew_model_name("ew\00")
// CHECK: llvm.mlir.global internal constant @ew_model_pipeline("\00")
// CHECK-LABEL: llvm.mlir.global internal constant @ew_model_data()
// CHECK-DAG: llvm.mlir.addressof @ew_desc
// CHECK-DAG: llvm.mlir.addressof @ew_model_pipeline
// CHECK-DAG: llvm.mlir.addressof @ew_model_name
// CHECK-DAG: %[[VER:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.insertvalue %[[VER]], %{{.*}}[0]
// Entry points: the descriptors, session creation, binding of the caller's
// buffers, and the packed form.
// CHECK-LABEL: llvm.func @ew_program() -> !llvm.ptr
// CHECK-LABEL: llvm.func @ew_model() -> !llvm.ptr
// CHECK: llvm.mlir.addressof @ew_model_data
// CHECK-LABEL: llvm.func @ew_rt_session_create(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.call @amk_rt_session_create
// CHECK: llvm.func @ew_rt_run(%[[S:.*]]: !llvm.ptr, %[[X:.*]]: !llvm.ptr, %[[K:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr) -> i32
// CHECK: llvm.store %[[X]]
// CHECK: llvm.store %[[K]]
// CHECK: llvm.store %[[Y]]
// CHECK: llvm.call @amk_rt_run(%[[S]],
// CHECK-LABEL: llvm.func @ew_rt_run_packed(
// CHECK: llvm.call @ew_rt_run(
// CHECK-NOT: amk_task.

// EXACT: llvm.mlir.global internal constant @net_constants(dense<[0, 0, -64, 63, 0, 0, 0, -64]> : tensor<8xi8>)
// EXACT-LABEL: llvm.func internal @net_ew0(
// EXACT: math.erf
// EXACT: llvm.func @net_rt_run(

// INTERP-NOT: llvm.func internal @ew_ew0
// INTERP-LABEL: llvm.mlir.global internal constant @ew_kernels()
// INTERP: llvm.mlir.zero : !llvm.ptr

// LLVMIR: @ew_constants = internal constant [8 x i8] c"\00\00\C0?\00\00\00\C0", align 64
// LLVMIR-LABEL: define internal void @ew_ew0(ptr %0, ptr %1, i64 %2, i64 %3)
// LLVMIR: define i32 @ew_rt_run(ptr %0, ptr %1, ptr %2, ptr %3)
// LLVMIR: call i32 @amk_rt_run(

// -----

// expected-error @+1 {{amk-lower-task-to-llvm: the module has no amk_task.program (run amk-schedule-megakernel first)}}
module {
}

// -----

// Typed elementwise kernels over integers and bools compile to code with
// the runtime kernel's semantics: Python's % on int32 against a broadcast
// divisor (a zero divisor gives 0, never a trap; the remainder takes the
// divisor's sign) and a float comparison giving bools. float16
// arithmetic stays with the runtime's kernel (no function).
module {
  amk_task.program @tew attributes {arena_bytes = 0 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
    amk_task.buffer {kind = "input", name = "x", size = 24 : i64, type = tensor<6xi32>}
    amk_task.buffer {kind = "input", index = 1 : i64, name = "k", size = 4 : i64, type = tensor<1xi32>}
    amk_task.buffer {kind = "input", index = 2 : i64, name = "f", size = 24 : i64, type = tensor<6xf32>}
    amk_task.buffer {kind = "input", index = 3 : i64, name = "h", size = 12 : i64, type = tensor<6xf16>}
    amk_task.buffer {kind = "output", name = "m", size = 24 : i64, type = tensor<6xi32>}
    amk_task.buffer {kind = "output", index = 1 : i64, name = "c", size = 6 : i64, type = tensor<6xi1>}
    amk_task.buffer {kind = "output", index = 2 : i64, name = "s", size = 12 : i64, type = tensor<6xf16>}
    amk_task.kernel typed_elementwise {buffers = array<i64: 4, 0, 1>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64: 96, 1, 6, 1, 2, 6, 6, 1, 6, 0>, name = "mod"}
    amk_task.kernel typed_elementwise {buffers = array<i64: 5, 2, 2>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64: 101, 0, 9, 1, 2, 6, 1, 1, 1, 1>, name = "greater"}
    amk_task.kernel typed_elementwise {buffers = array<i64: 6, 3, 3>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64: 32, 0, 10, 1, 2, 6, 10, 1, 10, 1>, name = "half_add"}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 6, 0, 1>, waits = array<i64>, reads = array<i64: 0, 0, 24, 24, 1, 1, 0, 4, 4, 1>, writes = array<i64: 4, 0, 24, 24, 1>}
    amk_task.task {kernel = 1 : i64, worker = 0 : i64, tile = array<i64: 0, 6, 0, 1>, waits = array<i64>, reads = array<i64: 2, 0, 24, 24, 1>, writes = array<i64: 5, 0, 6, 6, 1>}
    amk_task.task {kernel = 2 : i64, worker = 0 : i64, tile = array<i64: 0, 6, 0, 1>, waits = array<i64>, reads = array<i64: 3, 0, 12, 12, 1>, writes = array<i64: 6, 0, 12, 12, 1>}
  }
}
// CHECK-LABEL: llvm.func internal @tew_tew0(
// CHECK: scf.for
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.remsi
// CHECK: arith.addi
// CHECK: arith.select
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: llvm.store
// CHECK-LABEL: llvm.func internal @tew_tew1(
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.cmpf ogt
// CHECK: llvm.store %{{.*}} : i8, !llvm.ptr
// CHECK-NOT: @tew_tew2
// INTERP-NOT: @tew_tew0
// INTERP-NOT: @tew_tew1

// -----

// An elementwise program the code generator cannot compile.
module {
  // expected-error @+1 {{kernel 0 ('bad'): unknown elementwise opcode 99}}
  amk_task.program @bad attributes {arena_bytes = 0 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
    amk_task.buffer {kind = "input", name = "x", size = 24 : i64, type = tensor<6xf32>}
    amk_task.buffer {kind = "output", name = "y", size = 24 : i64, type = tensor<6xf32>}
    amk_task.kernel elementwise {buffers = array<i64: 1, 0>, fparams = array<f32: 0.0, 0.0>, iparams = array<i64: 1, 6, 1, 1, 1, 1, 99, 1, 0, 0, 0, 1>, name = "bad"}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 6, 0, 1>, waits = array<i64>, reads = array<i64: 0, 0, 24, 24, 1>, writes = array<i64: 1, 0, 24, 24, 1>}
  }
}

// -----

// The symbols it would emit must be free (dup_rt_run by default, net_rt_run with
// prefix=net).
module {
  llvm.func @dup_rt_run()
  llvm.func @net_rt_run()
  // expected-error-re @+1 {{symbol '{{dup|net}}_rt_run' already exists in the module}}
  amk_task.program @dup attributes {arena_bytes = 0 : i64, counter_signals = array<i64: 0>, counters = 1 : i64, workers = 1 : i64} {
    amk_task.buffer {kind = "input", name = "x", size = 24 : i64, type = tensor<6xf32>}
    amk_task.buffer {kind = "output", name = "y", size = 24 : i64, type = tensor<6xf32>}
    amk_task.kernel copy {buffers = array<i64: 1, 0>, fparams = array<f32>, iparams = array<i64: 4, 1, 0, 1, 0, 24, 24, 1, 1>, name = "c"}
    amk_task.task {kernel = 0 : i64, worker = 0 : i64, tile = array<i64: 0, 1, 0, 1>, waits = array<i64>, reads = array<i64: 0, 0, 24, 24, 1>, writes = array<i64: 1, 0, 24, 24, 1>}
  }
}
