//===- Passes.td - AMK conversion passes ------------------*- tablegen -*-===//
//
// Part of AMK. The steps from the graph to the task program (ToTask) and from the
// task program to the llvm dialect (TaskToLLVM);
// docs/passes.md is the reference, with an example per pass.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_CONVERSION_PASSES_TD
#define AMK_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScheduleMegakernel : Pass<"amk-schedule-megakernel", "mlir::ModuleOp"> {
  let summary = "Tile the graph into tasks and schedule them on persistent workers";
  let description = [{
    Turns the graph (onnx and amk ops with static shapes) into one
    `amk_task.program`: every op becomes a runtime kernel cut into tiles;
    tensors get arena offsets from a liveness-based planner (reshapes are
    aliases); constant weights are packed into the kernels' layout
    (transposed Gemm operands become K x N); each tile's dependencies are
    the earlier tiles whose bytes it reads or overwrites, at byte-range
    precision (a consumer tile waits only for the producer tiles it reads);
    a list scheduler assigns tiles to workers by earliest finish time under
    a FLOP/byte cost model; and each cross-worker dependency becomes a
    counter wait, while same-worker ones need none (program order). Waits
    already implied by earlier ones (vector clocks) are dropped. An op the
    runtime has no kernel for is an error naming the node and op.

    Example: `amk-schedule-megakernel{workers=2 tasks-per-worker=2}`.
  }];
  let options = [
    Option<"workers", "workers", "int64_t", /*default=*/"2",
           "Number of workers the program is scheduled for [tune: 2|1]">,
    Option<"tasksPerWorker", "tasks-per-worker", "int64_t", /*default=*/"1",
           "Task granularity: tiles per op per worker, when the op is big "
           "enough [tune: 1|2|4|8]">,
    Option<"minTaskNs", "min-task-ns", "double", /*default=*/"5000",
           "Do not cut an op into tiles cheaper than this (cost model, ns) "
           "[tune: 5000|20000|80000]">,
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"0",
           "Rows per tile for every kernel (0: the cost model decides) "
           "[tune: 0|16|64|256]">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"0",
           "Columns per tile for GEMM/conv kernels (0: the cost model "
           "decides) [tune: 0|64|128|256]">,
    Option<"convKernel", "conv-kernel", "::amk::ConvKernel",
           /*default=*/"::amk::ConvKernel::Auto",
           "Kernel for group-1 convolutions: direct (register tiles over "
           "weights packed at compile time), im2col (implicit GEMM on "
           "libxsmm, columns packed per block at run time), winograd "
           "(Winograd F(m x m, 3 x 3) for 3x3 stride-1 convolutions, direct "
           "elsewhere), or auto (Winograd where the cost model expects it "
           "to beat the direct kernel, direct where it applies: float "
           "weights, column stride 1 or 2; 1x1 stride-1 convolutions stay "
           "GEMMs unless 16 divides their output channels or their plane "
           "has at most 16 pixels) "
           "[tune: auto|direct|im2col|winograd]",
           [{::llvm::cl::values(
             clEnumValN(::amk::ConvKernel::Auto, "auto", "direct where it pays"),
             clEnumValN(::amk::ConvKernel::Direct, "direct",
                        "direct wherever it applies"),
             clEnumValN(::amk::ConvKernel::Im2col, "im2col",
                        "implicit GEMM"),
             clEnumValN(::amk::ConvKernel::Winograd, "winograd",
                        "Winograd for every 3x3 stride-1 convolution"))}]>,
    Option<"winogradTile", "winograd-tile", "int64_t", /*default=*/"0",
           "Output tile of the Winograd convolutions: 2 (F(2x2, 3x3)), 4 "
           "(F(4x4, 3x3)) or 0 (the cost model picks per layer: 4 where "
           "the tiles are many, 2 where fewer tiles meet each transformed "
           "weight; the direct kernel where a small plane meets many "
           "channels) [tune: 0|2|4]">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Floats per vector register the kernel choice assumes: 16 "
           "(AVX-512), 8 (AVX2), or 0 (the compiling machine's). The direct "
           "convolution and the fused inverted-residual kernels hold "
           "16-float register tiles: with 8-float registers they spill, so "
           "under conv-kernel=auto convolutions then run im2col/GEMM "
           "(Winograd where the cost model picks it) and fuse-blocks is "
           "off">,
    Option<"fuseBlocks", "fuse-blocks", "bool", /*default=*/"true",
           "Run each 1x1 expansion -> 3x3 depthwise -> 1x1 projection chain "
           "(MobileNetV2's inverted-residual block, the expansion optional) "
           "as one kernel over output row strips whose expanded activation "
           "stays in cache [tune: true|false]">,
    Option<"blockedLayout", "blocked-layout", "bool", /*default=*/"true",
           "Keep the activations between convolutions that take them "
           "channel-blocked (NCHW16c: 16 channels per vector): flat 1x1 "
           "convolutions on the direct kernel and 3x3 depthwise ones, 16 "
           "dividing the channels; a value any other op reads stays NCHW, so "
           "no layout change is inserted [tune: true|false]">,
    Option<"concatInPlace", "concat-in-place", "bool", /*default=*/"true",
           "Have the producers of a Concat's inputs write them straight "
           "into the result (a value several Concats read goes into the "
           "last; an earlier Concat whose inputs then sit side by side is a "
           "slice of it) where the axis has outer extent 1 and the offsets "
           "are 64-byte aligned; other inputs are copied. A Split along "
           "such an axis, and a Slice that is one run of its input, are "
           "views of the input [tune: true|false]">,
    Option<"fuseGatedProducts", "fuse-gated-products", "bool",
           /*default=*/"true",
           "Run Mul(act(A x Bg), A x Bu) of two float32 products with "
           "constant weights (a SwiGLU or GeGLU MLP's gate and up "
           "projections) as one GEMM over interleaved weight panels whose "
           "epilogue writes act(gate) * up: A is read once, one task level "
           "and the Mul's task are gone [tune: true|false]">,
    Option<"fuseBlocksMinBytes", "fuse-blocks-min-bytes", "int64_t",
           /*default=*/"1572864",
           "fuse-blocks takes a chain only when its depthwise input (the "
           "expanded activation) is at least this many bytes">,
    Option<"policy", "policy", "::amk::SchedulePolicy",
           /*default=*/"::amk::SchedulePolicy::EarliestFinish",
           "List-scheduling policy: eft (earliest finish time) or "
           "round-robin [tune: eft|round-robin]",
           [{::llvm::cl::values(
             clEnumValN(::amk::SchedulePolicy::EarliestFinish, "eft",
                        "the worker that finishes the tile first"),
             clEnumValN(::amk::SchedulePolicy::RoundRobin, "round-robin",
                        "workers in turn"))}]>,
    Option<"syncNs", "sync-ns", "double", /*default=*/"1000",
           "Modelled cost of a cross-worker counter hand-off (ns)">,
    Option<"remoteKbNs", "remote-kb-ns", "double", /*default=*/"6",
           "Modelled extra cost (ns) of each KB a tile reads that a tile "
           "on another worker wrote: the list scheduler keeps a tile on "
           "the worker that wrote its input where finish times allow "
           "[tune: 6|0|18]">,
    Option<"peakGflops", "peak-gflops", "double", /*default=*/"200",
           "Modelled GEMM throughput of one worker (GFLOP/s)">,
    Option<"memGbps", "mem-gbps", "double", /*default=*/"20",
           "Modelled memory bandwidth of one worker (GB/s)">
  ];
  let statistics = [
    Statistic<"numTasks", "tasks", "Tasks created">,
    Statistic<"numWaits", "waits", "Counter waits emitted">
  ];
  let dependentDialects = ["amk::task::AMKTaskDialect"];
}

def LowerTaskToLLVM : Pass<"amk-lower-task-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower amk_task.program to LLVM-dialect tables, entry "
                "points and generated elementwise code";
  let description = [{
    Replaces every `amk_task.program @P` (after it passes the task-program
    validator) with what a C program or the JIT links against the runtime
    (`runtime/include/amk/runtime.h`, ABI version 2):

    - the task program as constant data: `@P_desc` (an `amk_rt_program`),
      the buffer, kernel, task, wait and counter tables, the I/O
      descriptors with their names and shapes, and `@P_constants`, the
      64-byte aligned weight blob (pre-packed by the scheduler);
    - entry points: `ptr @P_program()`, `i32 @P_session_create(ptr options,
      ptr session_out)`, `i32 @P_run(ptr session, ptr in0, ..., ptr out0,
      ...)` that binds the caller's buffers and enters `amk_rt_run`, and
      `i32 @P_run_packed(ptr session, ptr args)` (args: an array of the
      same pointers, for JITs);
    - one function per ELEMENTWISE kernel (the fused elementwise groups
      and epilogues), `void @P_ew<k>(ptr y, ptr inputs, i64 begin, i64
      end)`, compiled from the kernel's register program: loads with the
      kernel's broadcast strides and dtype conversions, the ops in
      `arith`/`math`, the transcendental ones rewritten to MLIR's
      polynomial approximations so that LLVM vectorizes the loop. The
      kernel table points at it; the runtime calls it instead of
      interpreting the program.

    The result still holds `scf`, `arith` and `math` ops inside the
    generated functions; the pipeline `amk-lower-to-llvm` runs this pass
    and MLIR's conversions to the llvm dialect, ready for
    `amk-translate --mlir-to-llvmir` or `--amk-emit-object`.

    Example:

    ```
    amk-opt model.onnx --pass-pipeline='builtin.module(amk-graph-opt,
        amk-schedule-megakernel{workers=2}, amk-lower-to-llvm)' -o m.mlirbc
    amk-translate --amk-emit-object m.mlirbc -o model.o
    ```
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", /*default=*/"\"\"",
           "Prefix of every emitted symbol (default: the program's name)">,
    Option<"embedConstants", "embed-constants", "bool", /*default=*/"true",
           "Emit the weights as an initialized global; when false, "
           "@<prefix>_constants is an external declaration the loader "
           "binds (the JIT binds it to the weights it already holds)">,
    Option<"compileElementwise", "compile-elementwise", "bool",
           /*default=*/"true",
           "Generate code for ELEMENTWISE kernels (false: the runtime "
           "interprets their programs)">,
    Option<"approximateMath", "approximate-math", "bool", /*default=*/"true",
           "Rewrite exp/erf/tanh/log in generated code to MLIR's "
           "polynomial approximations (vectorizable) instead of libm calls">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect"
  ];
  let statistics = [
    Statistic<"numPrograms", "programs", "task programs lowered">,
    Statistic<"numElementwise", "elementwise-functions",
              "elementwise kernels compiled to code">,
    Statistic<"numTableBytes", "table-bytes",
              "bytes of task, buffer, wait and parameter tables">,
  ];
}

#endif // AMK_CONVERSION_PASSES_TD
