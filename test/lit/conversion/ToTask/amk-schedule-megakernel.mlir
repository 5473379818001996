// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0},amk-validate-task-program)' | FileCheck %s
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=1},amk-validate-task-program)' | FileCheck %s --check-prefix=ONE
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 tile-rows=4 policy=round-robin},amk-validate-task-program)' | FileCheck %s --check-prefix=TILES
// Each knob changes the program: granularity, column tiles, the cost model.
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 remote-kb-ns=0})' | FileCheck %s --check-prefix=DEF
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 tasks-per-worker=4},amk-validate-task-program)' | FileCheck %s --check-prefix=TPW
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2},amk-validate-task-program)' | FileCheck %s --check-prefix=DWCOST
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 tile-cols=64},amk-validate-task-program)' | FileCheck %s --check-prefix=COLS
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 sync-ns=1000000 remote-kb-ns=0},amk-validate-task-program)' | FileCheck %s --check-prefix=SYNC
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 peak-gflops=1 mem-gbps=1000 remote-kb-ns=0},amk-validate-task-program)' | FileCheck %s --check-prefix=PEAK
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-schedule-megakernel{policy=random})' 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// conv-kernel picks the convolution kernel: im2col keeps the implicit GEMM
// (variant 1, unpacked weights), direct takes the 1x1 conv too.
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 conv-kernel=im2col},amk-validate-task-program)' | FileCheck %s --check-prefix=IM2COL
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 conv-kernel=direct},amk-validate-task-program)' | FileCheck %s --check-prefix=DIRECT
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-schedule-megakernel{conv-kernel=fft})' 2>&1 | FileCheck %s --check-prefix=BADCONV
// conv-kernel=winograd forces Winograd on every 3x3 stride-1 convolution
// (the cost model picks the tile size), winograd-tile picks F(2x2, 3x3).
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 conv-kernel=winograd},amk-validate-task-program)' | FileCheck %s --check-prefix=WINO
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 winograd-tile=2},amk-validate-task-program)' | FileCheck %s --check-prefix=WINO2
// RUN: not amk-opt %s -split-input-file --pass-pipeline='builtin.module(amk-schedule-megakernel{winograd-tile=3})' 2>&1 | FileCheck %s --check-prefix=BADTILE
// fuse-blocks runs expand -> depthwise -> project chains whose expanded
// activation reaches fuse-blocks-min-bytes as one kernel.
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 fuse-blocks-min-bytes=0},amk-validate-task-program)' | FileCheck %s --check-prefix=FUSE
// RUN: amk-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 fuse-blocks=false fuse-blocks-min-bytes=0},amk-validate-task-program)' | FileCheck %s --check-prefix=NOFUSE
// Op features without a kernel are compile-time errors naming op and
// feature: the expected-error cases below, under every run above.

// BADPOLICY: for the --policy option: Cannot find option named 'random'!
// BADPOLICY: failed to add `amk-schedule-megakernel` with options `policy=random`
// BADCONV: for the --conv-kernel option: Cannot find option named 'fft'!
// BADTILE: winograd-tile must be 0 (the cost model picks), 2 or 4, not 3

// The compiled program gives the reference interpreter's outputs with 1
// and 2 workers, threaded and on the single-thread executor. amk-run takes
// one module: split-file writes each case (`//--- NAME.mlir` below) to its
// own file.
// RUN: rm -rf %t && split-file %s %t
// vector-width: with 8-float registers auto leaves the direct kernel (its
// 16-float register tiles spill) for im2col and GEMM, and does not fuse
// blocks; 16 keeps it; other widths are refused.
// RUN: amk-opt %t/vector_width.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16})' | FileCheck %s --check-prefix=W16
// RUN: amk-opt %t/vector_width.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=8})' | FileCheck %s --check-prefix=W8
// RUN: amk-opt %t/vector_width.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=8 conv-kernel=direct})' | FileCheck %s --check-prefix=W8DIRECT
// RUN: not amk-opt %t/vector_width.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=4})' 2>&1 | FileCheck %s --check-prefix=BADWIDTH
// RUN: amk-run %t/vector_width.mlir --seed 3 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 vector-width=8})' | FileCheck %s --check-prefix=WHEREEXEC
// BADWIDTH: error: amk-schedule-megakernel: vector-width must be 0, 8 or 16, not 4
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --threads 2 --check-reference --repeat 3 | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --threads 1 --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --threads 2 --single-thread --check-reference | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 tile-rows=4 policy=round-robin})' | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 conv-kernel=im2col})' | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/cnn_mlp.mlir --seed 5 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 conv-kernel=direct min-task-ns=0 tasks-per-worker=4})' | FileCheck %s --check-prefix=EXEC
// RUN: amk-run %t/winograd.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/winograd.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 winograd-tile=2 min-task-ns=0 tasks-per-worker=4})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/winograd.mlir --seed 7 --threads 1 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=1 conv-kernel=winograd winograd-tile=4})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/inverted_residual.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 fuse-blocks-min-bytes=0 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/inverted_residual.mlir --seed 7 --threads 1 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=1 fuse-blocks-min-bytes=0})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/se_block.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 fuse-blocks-min-bytes=0 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/se_block.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 fuse-blocks-min-bytes=0 blocked-layout=false min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// blocked-layout keeps the values between flat 1x1 and 3x3 depthwise
// convolutions NCHW16c (AMK_CONV_LAYOUT, the last iparam: 1 input, 2
// output, 3 both); off, every kernel reads and writes NCHW.
// RUN: amk-opt %t/blocked_layout.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=BLOCKED
// RUN: amk-opt %t/blocked_layout.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 blocked-layout=false})' | FileCheck %s --check-prefix=NOBLOCKED
// RUN: amk-run %t/blocked_layout.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/blocked_layout.mlir --seed 7 --threads 1 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=1})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/where.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// Under conv-kernel=auto a 1x1 convolution runs on the direct kernel when
// 16 divides its output channels or its plane has at most 16 pixels, on
// the GEMM otherwise.
// RUN: amk-opt %t/pointwise_kernel.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=PWK
// RUN: amk-run %t/pointwise_kernel.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// concat-in-place has the producers of a Concat's inputs write them into
// the result: a DenseNet block's features go into its last Concat, the
// earlier Concat is a slice of it, and no copy is left; an input at an
// offset that is not 64-byte aligned, and a returned Concat's inputs, are
// still copied. Off, every input is copied.
// RUN: amk-opt %t/concat_in_place.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=CAT
// RUN: amk-opt %t/concat_in_place.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 concat-in-place=false})' | FileCheck %s --check-prefix=NOCAT
// RUN: amk-opt %t/concat_copies.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=CATCOPY
// A Split along such an axis is views of its input, and a CSP block's
// Concat of both pieces and what follows them holds the Split's input too:
// six copies fewer.
// RUN: amk-opt %t/csp_split.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=CSP
// RUN: amk-opt %t/csp_split.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 concat-in-place=false})' | FileCheck %s --check-prefix=NOCSP
// RUN: amk-run %t/csp_split.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// So is a Slice that is one run of its input (torch.chunk's export).
// RUN: amk-opt %t/chunk_slices.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16},amk-validate-task-program)' | FileCheck %s --check-prefix=CHUNK
// RUN: amk-opt %t/chunk_slices.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 concat-in-place=false})' | FileCheck %s --check-prefix=NOCHUNK
// RUN: amk-run %t/chunk_slices.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=CATEXEC
// RUN: amk-run %t/concat_in_place.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/concat_in_place.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// remote-kb-ns charges a tile the bytes it reads that another worker
// wrote: at 0 the 3x3 convolution's first tile runs on worker 1 (free
// first, while worker 0 reduces), reading all of worker 0's half of its
// input; at 100 ns/KB it stays on worker 0 with that half.
// RUN: amk-opt %t/remote_placement.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 remote-kb-ns=0},amk-validate-task-program)' | FileCheck %s --check-prefix=FAR
// RUN: amk-opt %t/remote_placement.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 min-task-ns=0 remote-kb-ns=100},amk-validate-task-program)' | FileCheck %s --check-prefix=NEAR
// RUN: amk-run %t/remote_placement.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 remote-kb-ns=100})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: not amk-opt %t/remote_placement.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{remote-kb-ns=-1})' 2>&1 | FileCheck %s --check-prefix=BADREMOTE
// BADREMOTE: error: amk-schedule-megakernel: remote-kb-ns must not be negative, not -1
// RUN: amk-run %t/concat_copies.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tasks-per-worker=3})' | FileCheck %s --check-prefix=CATEXEC
// CATEXEC-COUNT-2: ok vs reference
// A BatchNormalization whose only reader is a Relu runs the Relu as its
// program's last instruction (one kernel); one with another reader does
// not.
// RUN: amk-opt %t/bn_relu.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel)' | FileCheck %s --check-prefix=BNRELU
// RUN: amk-run %t/bn_relu.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-opt %t/bn_rows.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel)' | FileCheck %s --check-prefix=BNROWS
// RUN: amk-opt %t/channel_scale.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel)' | FileCheck %s --check-prefix=SCALE
// RUN: amk-run %t/empty_scale.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/channel_scale.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/bn_rows.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/where_empty.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/clip_max_only.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/clip_max_only.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/output_view_and_root.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: %python -c "import numpy as np; np.save('%t/roi_x.npy', np.random.default_rng(3).standard_normal((2, 3, 8, 8)).astype(np.float32)); np.save('%t/roi_r.npy', np.array([[0.5, 1.25, 9.5, 12.0], [-1.0, 2.0, 5.5, 7.0]], np.float32)); np.save('%t/roi_b.npy', np.array([1, 0], np.int64)); np.save('%t/roi_bad.npy', np.array([0, 5], np.int64))"
// RUN: amk-run %t/roi_align.mlir --input x=%t/roi_x.npy --input rois=%t/roi_r.npy --input batch=%t/roi_b.npy --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/roi_align.mlir --input x=%t/roi_x.npy --input rois=%t/roi_r.npy --input batch=%t/roi_b.npy --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: not amk-run %t/roi_align.mlir --input x=%t/roi_x.npy --input rois=%t/roi_r.npy --input batch=%t/roi_bad.npy 2>&1 | FileCheck %s --check-prefix=ROIBAD
// ROIBAD: RoiAlign batch index 5 of region 1 is out of range [0, 2)
// RUN: amk-run %t/resize_crop.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/random.mlir --seed 7 --threads 2 --repeat 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/random.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/resize_crop.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: %python -c "import numpy as np; np.save('%t/tfidf_x.npy', np.random.default_rng(5).integers(0, 5, (3, 9)).astype(np.int32))"
// RUN: amk-run %t/tfidf.mlir --input x=%t/tfidf_x.npy --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/tfidf.mlir --input x=%t/tfidf_x.npy --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/where_i64.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gemm_batch_perm.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=PERMEXEC
// RUN: amk-run %t/gemm_addend_windows.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gemm_addend_windows.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gemm_addend_rows.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/attention_windows.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/unit_transpose.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_products.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_products.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_products.mlir --seed 7 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=2 min-task-ns=0 tile-cols=64})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_with_bias.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_wgemm.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_shared_weight.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/gated_wgemm.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: env AMK_NO_AVX512=1 AMK_NO_AVX2=1 amk-run %t/gated_wgemm.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-opt %t/gated_products.mlir --pass-pipeline='builtin.module(amk-schedule-megakernel{fuse-gated-products=false})' | FileCheck %s --check-prefix=NOGATED
// RUN: amk-run %t/grouped_conv.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/grouped_conv.mlir --seed 7 --threads 1 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=1 min-task-ns=0 tasks-per-worker=5})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/grouped_conv_const.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/grouped_conv_const.mlir --seed 7 --threads 1 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{workers=1 conv-kernel=im2col})' | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/attention_windows.mlir --seed 7 --threads 1 --jit --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/output_view.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=VIEWEXEC
// RUN: amk-run %t/typed_elementwise.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=TYPEDEXEC
// RUN: amk-run %t/trilu_runtime_k.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/data_movement.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=MOVEEXEC
// RUN: amk-run %t/resize.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=RESIZEEXEC
// RUN: amk-run %t/small_ops.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=SMALLEXEC
// RUN: amk-run %t/conv_transpose.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=CTEXEC
// RUN: amk-run %t/indexing.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=INDEXEXEC
// RUN: amk-run %t/compress.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/recurrent.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=RNNEXEC
// RUN: amk-run %t/pad_modes.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=PADEXEC
// RUN: amk-run %t/reduce_typed.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=RTYPEDEXEC
// RUN: amk-run %t/einsum.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=EINSUMEXEC
// RUN: amk-run %t/grid_sample.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/channel_ops.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=CHANEXEC
// RUN: amk-run %t/det.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/quantized.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=QEXEC
// RUN: env AMK_NO_VNNI=1 amk-run %t/quantized.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=QEXEC
// RUN: amk-run %t/quantized.mlir --seed 7 --threads 2 --check-reference --pipeline='builtin.module(amk-schedule-megakernel{vector-width=16 workers=2 conv-kernel=im2col min-task-ns=0 tasks-per-worker=4})' | FileCheck %s --check-prefix=QEXEC
// RUN: amk-run %t/weight_only.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: env AMK_NO_VNNI=1 AMK_NO_AVX512=1 amk-run %t/weight_only.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=WHEREEXEC
// RUN: amk-run %t/reduce_other.mlir --seed 7 --threads 2 --check-reference | FileCheck %s --check-prefix=REDUCEEXEC
// RUN: amk-run %t/loss.mlir --seed 7 --threads 2 --check-reference --input input_1=%S/../../Inputs/loss_targets.npy | FileCheck %s --check-prefix=LOSSEXEC
// RUN: amk-run %t/typed_elementwise.mlir --seed 7 --threads 2 --jit --check-reference | FileCheck %s --check-prefix=TYPEDEXEC
// EXEC-COUNT-1: ok vs reference
// VIEWEXEC: output_0: float[2,3,4]  ok vs reference
// PERMEXEC: ok vs reference
// WHEREEXEC: ok vs reference
// TYPEDEXEC-COUNT-4: ok vs reference
// REDUCEEXEC-COUNT-7: ok vs reference
// CHANEXEC-COUNT-4: ok vs reference
// QEXEC-COUNT-3: ok vs reference
// EINSUMEXEC-COUNT-2: ok vs reference
// RTYPEDEXEC-COUNT-2: ok vs reference
// PADEXEC-COUNT-3: ok vs reference
// RNNEXEC-COUNT-3: ok vs reference
// INDEXEXEC-COUNT-7: ok vs reference
// CTEXEC: ok vs reference
// SMALLEXEC-COUNT-4: ok vs reference
// RESIZEEXEC-COUNT-2: ok vs reference
// MOVEEXEC-COUNT-4: ok vs reference
// LOSSEXEC-COUNT-3: ok vs reference

//--- cnn_mlp.mlir
// A small CNN-plus-MLP graph: a 3x3 conv with bias and ReLU, max pooling, a
// pointwise conv with a residual, a flatten (a view), a Gemm with a
// transposed constant weight, a softmax.

// The graph function is replaced by one program: interface buffers first,
// then arena buffers at planned offsets, then packed constants.
// CHECK-NOT: func.func
// CHECK-LABEL: amk_task.program @cnn_mlp attributes
// CHECK-SAME: {arena_bytes = [[ARENA:[0-9]+]] : i64, counter_signals = array<i64: {{[0-9]+}}, {{[0-9]+}}>, counters = 2 : i64
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

// ONE-LABEL: amk_task.program @cnn_mlp attributes
// ONE-SAME: counter_signals = array<i64: 0>, counters = 1 : i64
// ONE-NOT: waits = array<i64: 0

// TILES-LABEL: amk_task.program @cnn_mlp attributes
// TILES: tile = array<i64: 0, 4,

// The same graph without the knobs (one tile per op per worker): 7 tasks,
// modelled makespan ~4.2 us (remote-kb-ns=0: reading the other worker's
// writes adds nothing).
// DEF-LABEL: amk_task.program @cnn_mlp attributes
// DEF-SAME: modelled_makespan_ns = 4.2{{[0-9]+}}e+03 : f64{{.*}}tasks = 7 : i64
// TPW-LABEL: amk_task.program @cnn_mlp attributes
// TPW-SAME: tasks = 19 : i64
// COLS-LABEL: amk_task.program @cnn_mlp attributes
// COLS-SAME: tasks = 8 : i64
// SYNC-LABEL: amk_task.program @cnn_mlp attributes
// SYNC-SAME: modelled_makespan_ns = 20022{{[0-9.]+}} : f64
// PEAK-LABEL: amk_task.program @cnn_mlp attributes
// PEAK-SAME: modelled_makespan_ns = 768{{[0-9.]+}} : f64

// IM2COL-LABEL: amk_task.program @cnn_mlp attributes
// IM2COL-NOT: .direct
// IM2COL: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 1 : i64}
// IM2COL: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.conv"}
// DIRECT-LABEL: amk_task.program @cnn_mlp attributes
// DIRECT: kind = "const", name = "{{.*}}.direct", {{.*}}type = tensor<27x32xf32>
// DIRECT: kind = "const", name = "{{.*}}.direct", {{.*}}type = tensor<8x32xf32>
// DIRECT: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 2 : i64}
// DIRECT: amk_task.kernel conv {{{.*}}name = "{{.*}}", op = "amk.conv", variant = 2 : i64}
// DIRECT-NOT: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.conv"}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @cnn_mlp(%x: tensor<1x3x16x16xf32> {onnx.name = "x"}) -> (tensor<1x10xf32> {onnx.name = "probs"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<8x3x3x3xf32>}> : () -> tensor<8x3x3x3xf32>
    %b1 = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %w2 = "onnx.Constant"() <{value = dense<0.02> : tensor<8x8x1x1xf32>}> : () -> tensor<8x8x1x1xf32>
    %wf = "onnx.Constant"() <{value = dense<0.01> : tensor<10x512xf32>}> : () -> tensor<10x512xf32>
    %bf = "onnx.Constant"() <{value = dense<0.5> : tensor<10xf32>}> : () -> tensor<10xf32>
    %c = "amk.conv"(%x, %w1, %b1, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, none) -> tensor<1x8x16x16xf32>
    %p:2 = "onnx.MaxPool"(%c) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x8x16x16xf32>) -> (tensor<1x8x8x8xf32>, none)
    %r = "amk.conv"(%p#0, %w2, %none, %p#0) : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>, none, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %f = "onnx.Flatten"(%r) <{axis = 1 : i64}> : (tensor<1x8x8x8xf32>) -> tensor<1x512xf32>
    %g = "onnx.Gemm"(%f, %wf, %bf) <{transB = 1 : i64}> : (tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    %s = "onnx.Softmax"(%g) <{axis = -1 : i64}> : (tensor<1x10xf32>) -> tensor<1x10xf32>
    return %s : tensor<1x10xf32>
  }
}

// -----

//--- winograd.mlir
// 3x3 stride-1 convolutions with enough channels and pixels: Winograd
// F(4x4, 3x3) (variant 3) by default, its weights transformed at compile
// time into 36 points x 2 blocks of 32 channels x C rows of 32.
// CHECK-LABEL: amk_task.program @winograd attributes
// CHECK: kind = "const", name = "{{.*}}.winograd4", {{.*}}type = tensor<2304x32xf32>
// CHECK: kind = "const", name = "{{.*}}.winograd4", {{.*}}type = tensor<2880x32xf32>
// CHECK: amk_task.kernel conv {{{.*}}iparams = array<i64: 1, 32, 24, 24, 40, 3, 3, 24, 24, 1, 1, 1, 1, 1, 1, 1, 1, 4, 0>{{.*}}variant = 3 : i64}
// CHECK: amk_task.kernel conv {{{.*}}variant = 3 : i64}
// Two workers split the rows of tiles, each taking all 40 channels: a
// split by channels would copy and transform the whole input twice.
// CHECK: amk_task.task {{{.*}}kernel = 0 : i64{{.*}}tile = array<i64: 0, 40, 0, 288>
// CHECK: amk_task.task {{{.*}}kernel = 0 : i64{{.*}}tile = array<i64: 0, 40, 288, 576>
// The direct kernel where it is asked for; F(2x2, 3x3) has 16 points.
// DIRECT-LABEL: amk_task.program @winograd attributes
// DIRECT-NOT: winograd
// DIRECT: amk_task.kernel conv {{{.*}}variant = 2 : i64}
// WINO2-LABEL: amk_task.program @winograd attributes
// WINO2: kind = "const", name = "{{.*}}.winograd2", {{.*}}type = tensor<1024x32xf32>
// WINO2: amk_task.kernel conv {{{.*}}array<i64: 1, 32, 24, 24, 40, 3, 3, 24, 24, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0>{{.*}}variant = 3 : i64}
// Forced Winograd also takes the 3-channel convolution of @cnn_mlp above.
// WINO-LABEL: amk_task.program @cnn_mlp attributes
// WINO: kind = "const", name = "{{.*}}.winograd{{[24]}}"
// WINO: amk_task.kernel conv {{{.*}}variant = 3 : i64}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @winograd(%x: tensor<1x32x24x24xf32> {onnx.name = "x"}) -> (tensor<1x40x24x24xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.02> : tensor<40x32x3x3xf32>}> : () -> tensor<40x32x3x3xf32>
    %b1 = "onnx.Constant"() <{value = dense<0.1> : tensor<40xf32>}> : () -> tensor<40xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.01> : tensor<40x40x3x3xf32>}> : () -> tensor<40x40x3x3xf32>
    %c = "amk.conv"(%x, %w1, %b1, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x32x24x24xf32>, tensor<40x32x3x3xf32>, tensor<40xf32>, none) -> tensor<1x40x24x24xf32>
    %r = "amk.conv"(%c, %w2, %none, %c) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x40x24x24xf32>, tensor<40x40x3x3xf32>, none, tensor<1x40x24x24xf32>) -> tensor<1x40x24x24xf32>
    return %r : tensor<1x40x24x24xf32>
  }
}

// -----

//--- small_plane.mlir
// A 7x7 plane with 64 channels, ResNet's last stage in small: each
// Winograd weight would meet only 16 tiles, too few FMAs to hide its read,
// so the cost model keeps the direct kernel (variant 2) and its 3x3
// weights, also under a fixed winograd-tile; forced Winograd still takes it.
// CHECK-LABEL: amk_task.program @small_plane attributes
// CHECK-NOT: winograd
// CHECK: kind = "const", name = "{{.*}}.direct", {{.*}}type = tensor<1152x32xf32>
// CHECK: amk_task.kernel conv {{{.*}}variant = 2 : i64}
// WINO2-LABEL: amk_task.program @small_plane attributes
// WINO2-NOT: winograd
// WINO2: amk_task.kernel conv {{{.*}}variant = 2 : i64}
// WINO-LABEL: amk_task.program @small_plane attributes
// WINO: kind = "const", name = "{{.*}}.winograd{{[24]}}"
// WINO: amk_task.kernel conv {{{.*}}variant = 3 : i64}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @small_plane(%x: tensor<1x64x7x7xf32> {onnx.name = "x"}) -> (tensor<1x64x7x7xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w = "onnx.Constant"() <{value = dense<0.02> : tensor<64x64x3x3xf32>}> : () -> tensor<64x64x3x3xf32>
    %c = "amk.conv"(%x, %w, %none, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x64x7x7xf32>, tensor<64x64x3x3xf32>, none, none) -> tensor<1x64x7x7xf32>
    return %c : tensor<1x64x7x7xf32>
  }
}

// -----

//--- small_plane_batch.mlir
// The same layer at batch 8 stays direct: Winograd's chunks never span
// images, so its transformed weights would be read once per image.
// CHECK-LABEL: amk_task.program @small_plane_batch attributes
// CHECK-NOT: winograd
// CHECK: amk_task.kernel conv {{{.*}}variant = 2 : i64}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @small_plane_batch(%x: tensor<8x64x7x7xf32> {onnx.name = "x"}) -> (tensor<8x64x7x7xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w = "onnx.Constant"() <{value = dense<0.02> : tensor<64x64x3x3xf32>}> : () -> tensor<64x64x3x3xf32>
    %c = "amk.conv"(%x, %w, %none, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<8x64x7x7xf32>, tensor<64x64x3x3xf32>, none, none) -> tensor<8x64x7x7xf32>
    return %c : tensor<8x64x7x7xf32>
  }
}

// -----

//--- bn_relu.mlir
// Inference BatchNormalization over planes is a depthwise 1x1 convolution
// (one plane of 20 pixels per channel, weight a = scale / sqrt(var + eps),
// bias b = shift - mean * a); a Relu that alone reads it is its activation
// (mode 1), one that shares it stays a kernel of its own (mode 0 here).
// BNRELU-LABEL: amk_task.program @bn_relu attributes
// BNRELU: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 3, 1, 20, 3, 1, 1, 1, 20, 1, 1, 0, 0, 1, 1, 3, 1>, {{.*}}op = "onnx.BatchNormalization"
// BNRELU: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 3, 1, 20, 3, 1, 1, 1, 20, 1, 1, 0, 0, 1, 1, 3, 0>, {{.*}}op = "onnx.BatchNormalization"
// BNRELU: op = "onnx.Relu"
// BNRELU-NOT: op = "onnx.Relu"
// BNRELU: amk_task.task
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bn_relu(%x: tensor<2x3x5x4xf32> {onnx.name = "x"}) -> (tensor<2x3x5x4xf32> {onnx.name = "y"}, tensor<2x3x5x4xf32> {onnx.name = "z"}, tensor<2x3x5x4xf32> {onnx.name = "w"}) {
    %s = "onnx.Constant"() <{value = dense<[0.5, -1.5, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %b = "onnx.Constant"() <{value = dense<[0.1, 0.2, -0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %m = "onnx.Constant"() <{value = dense<[0.0, 0.5, -0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %v = "onnx.Constant"() <{value = dense<[1.0, 2.0, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %n1:5 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) : (tensor<2x3x5x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5x4xf32>, none, none, none, none)
    %y = "onnx.Relu"(%n1#0) : (tensor<2x3x5x4xf32>) -> tensor<2x3x5x4xf32>
    %n2:5 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) : (tensor<2x3x5x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x5x4xf32>, none, none, none, none)
    %z = "onnx.Relu"(%n2#0) : (tensor<2x3x5x4xf32>) -> tensor<2x3x5x4xf32>
    return %y, %z, %n2#0 : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>
  }
}

// -----

//--- channel_scale.mlir
// x * s with one s per channel ([1, C, 1, 1], squeeze-excitation's scale)
// is a depthwise 1x1 convolution whose weights are s: N = 2 images of C = 3
// planes of 20 pixels. A per-image s ([N, C, 1, 1]) makes the images'
// channels one row of N * C = 6 planes; a constant s of rank 3 ([C, 1, 1],
// as tf2onnx writes it) is the same as [1, C, 1, 1]; s broadcast along a
// plane ([1, 1, 5, 4]) stays an elementwise program.
// SCALE-LABEL: amk_task.program @channel_scale attributes
// SCALE: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 3, 1, 20, 3, 1, 1, 1, 20, 1, 1, 0, 0, 1, 1, 3, 0>, {{.*}}op = "onnx.Mul"
// SCALE: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 1, 6, 1, 20, 6, 1, 1, 1, 20, 1, 1, 0, 0, 1, 1, 6, 0>, {{.*}}op = "onnx.Mul"
// SCALE: amk_task.kernel elementwise {{{.*}}op = "onnx.Mul"
// SCALE: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 3, 1, 20, 3, 1, 1, 1, 20, 1, 1, 0, 0, 1, 1, 3, 0>, {{.*}}op = "onnx.Mul"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @channel_scale(%x: tensor<2x3x5x4xf32> {onnx.name = "x"}, %s: tensor<1x3x1x1xf32> {onnx.name = "s"}, %t: tensor<2x3x1x1xf32> {onnx.name = "t"}, %u: tensor<1x1x5x4xf32> {onnx.name = "u"}) -> (tensor<2x3x5x4xf32> {onnx.name = "y"}, tensor<2x3x5x4xf32> {onnx.name = "z"}, tensor<2x3x5x4xf32> {onnx.name = "w"}, tensor<2x3x5x4xf32> {onnx.name = "v"}) {
    %y = "onnx.Mul"(%x, %s) : (tensor<2x3x5x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x5x4xf32>
    %z = "onnx.Mul"(%t, %x) : (tensor<2x3x1x1xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x5x4xf32>
    %w = "onnx.Mul"(%x, %u) : (tensor<2x3x5x4xf32>, tensor<1x1x5x4xf32>) -> tensor<2x3x5x4xf32>
    %c = "onnx.Constant"() <{value = dense<[[[0.5]], [[-2.0]], [[1.25]]]> : tensor<3x1x1xf32>}> : () -> tensor<3x1x1xf32>
    %v = "onnx.Mul"(%x, %c) : (tensor<2x3x5x4xf32>, tensor<3x1x1xf32>) -> tensor<2x3x5x4xf32>
    return %y, %z, %w, %v : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>
  }
}

// -----

//--- empty_scale.mlir
// An empty batch through BatchNormalization and a channel scale: the
// program runs and both outputs match the reference.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @empty(%x: tensor<0x3x5x4xf32> {onnx.name = "x"}, %s: tensor<1x3x1x1xf32> {onnx.name = "s"}) -> (tensor<0x3x5x4xf32> {onnx.name = "y"}, tensor<0x3x5x4xf32> {onnx.name = "z"}) {
    %sc = "onnx.Constant"() <{value = dense<[0.5, -1.5, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %b = "onnx.Constant"() <{value = dense<[0.1, 0.2, -0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %m = "onnx.Constant"() <{value = dense<[0.0, 0.5, -0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %v = "onnx.Constant"() <{value = dense<[1.0, 2.0, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %n:5 = "onnx.BatchNormalization"(%x, %sc, %b, %m, %v) : (tensor<0x3x5x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<0x3x5x4xf32>, none, none, none, none)
    %z = "onnx.Mul"(%x, %s) : (tensor<0x3x5x4xf32>, tensor<1x3x1x1xf32>) -> tensor<0x3x5x4xf32>
    return %n#0, %z : tensor<0x3x5x4xf32>, tensor<0x3x5x4xf32>
  }
}

// -----

//--- bn_rows.mlir
// Without planes ([N, C]) BatchNormalization stays an elementwise program,
// x * a + b, its Relu the last instruction.
// BNROWS-LABEL: amk_task.program @bn_rows attributes
// BNROWS: amk_task.kernel elementwise {{{.*}}, 3, 34, 3, 0, 1, 0, 32, 4, 3, 2, 0, 1, 5, 4, 0, 0, 5>, {{.*}}op = "onnx.BatchNormalization"
// BNROWS-NOT: op = "onnx.Relu"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @bn_rows(%x: tensor<4x3xf32> {onnx.name = "r"}) -> (tensor<4x3xf32> {onnx.name = "q"}) {
    %s = "onnx.Constant"() <{value = dense<[0.5, -1.5, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %b = "onnx.Constant"() <{value = dense<[0.1, 0.2, -0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %m = "onnx.Constant"() <{value = dense<[0.0, 0.5, -0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %v = "onnx.Constant"() <{value = dense<[1.0, 2.0, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %n:5 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, none, none, none, none)
    %y = "onnx.Relu"(%n#0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    return %y : tensor<4x3xf32>
  }
}

// -----

//--- pointwise_kernel.mlir
// PWK-LABEL: amk_task.program @pointwise_kernel attributes
// PWK: amk_task.kernel conv {{{.*}}iparams = array<i64: 1, 16, 8, 8, 48, 1, 1, 8, 8, {{.*}}variant = 2 : i64}
// PWK: amk_task.kernel gemm {{{.*}}iparams = array<i64: 1, 24, 64, 48,
// PWK: amk_task.kernel conv {{{.*}}iparams = array<i64: 1, 24, 4, 4, 8, 1, 1, 4, 4, {{.*}}variant = 2 : i64}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @pointwise_kernel(%x: tensor<1x16x8x8xf32> {onnx.name = "x"}, %s: tensor<1x24x4x4xf32> {onnx.name = "s"}) -> (tensor<1x24x8x8xf32> {onnx.name = "y"}, tensor<1x8x4x4xf32> {onnx.name = "z"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<48x16x1x1xf32>}> : () -> tensor<48x16x1x1xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.03> : tensor<24x48x1x1xf32>}> : () -> tensor<24x48x1x1xf32>
    %w3 = "onnx.Constant"() <{value = dense<0.02> : tensor<8x24x1x1xf32>}> : () -> tensor<8x24x1x1xf32>
    %a = "amk.conv"(%x, %w1, %none, %none) <{activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<48x16x1x1xf32>, none, none) -> tensor<1x48x8x8xf32>
    %y = "amk.conv"(%a, %w2, %none, %none) : (tensor<1x48x8x8xf32>, tensor<24x48x1x1xf32>, none, none) -> tensor<1x24x8x8xf32>
    %z = "amk.conv"(%s, %w3, %none, %none) : (tensor<1x24x4x4xf32>, tensor<8x24x1x1xf32>, none, none) -> tensor<1x8x4x4xf32>
    return %y, %z : tensor<1x24x8x8xf32>, tensor<1x8x4x4xf32>
  }
}

// -----

//--- concat_in_place.mlir
// CAT-LABEL: amk_task.program @concat_in_place attributes
// CAT-DAG: amk_task.buffer {kind = "arena", size = 12288 : i64, type = tensor<1x48x8x8xf32>}
// CAT-DAG: amk_task.buffer {kind = "arena", size = 8192 : i64, type = tensor<1x32x8x8xf32>}
// CAT-DAG: amk_task.buffer {kind = "arena", offset = 8192 : i64, size = 4096 : i64, type = tensor<1x16x8x8xf32>}
// CAT-NOT: op = "onnx.Concat"
// NOCAT-LABEL: amk_task.program @concat_in_place attributes
// NOCAT-COUNT-5: op = "onnx.Concat"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @concat_in_place(%x: tensor<1x16x8x8xf32> {onnx.name = "x"}) -> (tensor<1x16x8x8xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<16x16x1x1xf32>}> : () -> tensor<16x16x1x1xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.03> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
    %w3 = "onnx.Constant"() <{value = dense<0.02> : tensor<16x32x1x1xf32>}> : () -> tensor<16x32x1x1xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.04> : tensor<16x48x1x1xf32>}> : () -> tensor<16x48x1x1xf32>
    %a = "amk.conv"(%x, %w1, %none, %none) <{activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<16x16x1x1xf32>, none, none) -> tensor<1x16x8x8xf32>
    %b = "amk.conv"(%a, %w2, %none, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
    %c1 = "onnx.Concat"(%a, %b) <{axis = 1 : i64}> : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
    %c = "amk.conv"(%c1, %w3, %none, %none) <{activation = "relu"}> : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>, none, none) -> tensor<1x16x8x8xf32>
    %c2 = "onnx.Concat"(%a, %b, %c) <{axis = 1 : i64}> : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x48x8x8xf32>
    %y = "amk.conv"(%c2, %w4, %none, %none) : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>, none, none) -> tensor<1x16x8x8xf32>
    return %y : tensor<1x16x8x8xf32>
  }
}

// -----

//--- csp_split.mlir
// CSP-LABEL: amk_task.program @csp_split attributes
// CSP-DAG: amk_task.buffer {kind = "arena", size = 16384 : i64, type = tensor<1x64x8x8xf32>}
// CSP-DAG: amk_task.buffer {kind = "arena", size = 8192 : i64, type = tensor<1x32x8x8xf32>}
// CSP-DAG: amk_task.buffer {kind = "arena", offset = 4096 : i64, size = 4096 : i64, type = tensor<1x16x8x8xf32>}
// CSP-NOT: op = "onnx.Split"
// CSP-NOT: op = "onnx.Concat"
// NOCSP-LABEL: amk_task.program @csp_split attributes
// NOCSP-COUNT-2: op = "onnx.Split"
// NOCSP-COUNT-4: op = "onnx.Concat"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @csp_split(%x: tensor<1x16x8x8xf32> {onnx.name = "x"}) -> (tensor<1x16x8x8xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<32x16x1x1xf32>}> : () -> tensor<32x16x1x1xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.03> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
    %w3 = "onnx.Constant"() <{value = dense<0.02> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.04> : tensor<16x64x1x1xf32>}> : () -> tensor<16x64x1x1xf32>
    %split = "onnx.Constant"() <{value = dense<[16, 16]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %a = "amk.conv"(%x, %w1, %none, %none) <{activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>, none, none) -> tensor<1x32x8x8xf32>
    %h:2 = "onnx.Split"(%a, %split) <{axis = 1 : i64}> : (tensor<1x32x8x8xf32>, tensor<2xi64>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>)
    %m1 = "amk.conv"(%h#1, %w2, %none, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
    %m2 = "amk.conv"(%m1, %w3, %none, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
    %c = "onnx.Concat"(%h#0, %h#1, %m1, %m2) <{axis = 1 : i64}> : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x64x8x8xf32>
    %y = "amk.conv"(%c, %w4, %none, %none) : (tensor<1x64x8x8xf32>, tensor<16x64x1x1xf32>, none, none) -> tensor<1x16x8x8xf32>
    return %y : tensor<1x16x8x8xf32>
  }
}

// -----

//--- chunk_slices.mlir
// The channel halves are views and in place in the Concat; the strided
// Slice (every other row) is a copy.
// CHUNK-LABEL: amk_task.program @chunk_slices attributes
// CHUNK-NOT: op = "onnx.Slice"
// CHUNK-NOT: op = "onnx.Concat"
// CHUNK: amk_task.kernel copy {{.*}}iparams = array<i64: 4, 3, 0, 0, 32, 4, 8, 64, 16, 1, 32, 8, 1>, name = "onnx.Slice"
// CHUNK-NOT: op = "onnx.Concat"
// NOCHUNK-LABEL: amk_task.program @chunk_slices attributes
// NOCHUNK-COUNT-2: op = "onnx.Slice"
// NOCHUNK-COUNT-3: op = "onnx.Concat"
// NOCHUNK: op = "onnx.Slice"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @chunk_slices(%x: tensor<1x16x8x8xf32> {onnx.name = "x"}) -> (tensor<1x16x8x8xf32> {onnx.name = "y"}, tensor<1x32x4x8xf32> {onnx.name = "rows"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<32x16x1x1xf32>}> : () -> tensor<32x16x1x1xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.03> : tensor<16x16x3x3xf32>}> : () -> tensor<16x16x3x3xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.04> : tensor<16x48x1x1xf32>}> : () -> tensor<16x48x1x1xf32>
    %s0 = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %s16 = "onnx.Constant"() <{value = dense<[16]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %s32 = "onnx.Constant"() <{value = dense<[32]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %ax1 = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %ax2 = "onnx.Constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %s8 = "onnx.Constant"() <{value = dense<[8]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %a = "amk.conv"(%x, %w1, %none, %none) <{activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>, none, none) -> tensor<1x32x8x8xf32>
    %h0 = "onnx.Slice"(%a, %s0, %s16, %ax1, %none) : (tensor<1x32x8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x16x8x8xf32>
    %h1 = "onnx.Slice"(%a, %s16, %s32, %ax1, %none) : (tensor<1x32x8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<1x16x8x8xf32>
    %m = "amk.conv"(%h1, %w2, %none, %none) <{pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, none, none) -> tensor<1x16x8x8xf32>
    %c = "onnx.Concat"(%h0, %h1, %m) <{axis = 1 : i64}> : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x48x8x8xf32>
    %y = "amk.conv"(%c, %w4, %none, %none) : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>, none, none) -> tensor<1x16x8x8xf32>
    %rows = "onnx.Slice"(%a, %s0, %s8, %ax2, %two) : (tensor<1x32x8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x32x4x8xf32>
    return %y, %rows : tensor<1x16x8x8xf32>, tensor<1x32x4x8xf32>
  }
}

// -----

//--- concat_copies.mlir
// 3x5x5 floats are 300 bytes: q would start unaligned and is copied; the
// returned Concat copies both its inputs into the caller's buffer; the
// batch-2 Concat interleaves its inputs' rows.
// CATCOPY-LABEL: amk_task.program @concat_copies attributes
// CATCOPY-NOT: onnx.Concat
// CATCOPY: amk_task.kernel copy {buffers = array<i64: [[Q:[0-9]+]], [[U:[0-9]+]]>, fparams = array<f32>, iparams = array<i64: 4, 1, 0, 75, 75, 1, 1>, name = "onnx.Concat"
// CATCOPY: amk_task.kernel gemm {buffers = array<i64: {{[0-9]+}}, [[U]],
// CATCOPY: amk_task.kernel copy {buffers = array<i64: [[Q]], 3>, fparams = array<f32>, iparams = array<i64: 4, 1, 0, 0, 75, 1, 1>, name = "onnx.Concat"
// CATCOPY: amk_task.kernel copy {buffers = array<i64: {{[0-9]+}}, 3>, fparams = array<f32>, iparams = array<i64: 4, 1, 0, 75, 75, 1, 1>, name = "onnx.Concat"
// CATCOPY: amk_task.kernel copy {buffers = array<i64: {{[0-9]+}}, 4>, fparams = array<f32>, iparams = array<i64: 4, 2, 0, 0, 2, 256, 256, 1, 512, 1>, name = "onnx.Concat"
// CATCOPY: amk_task.kernel copy {buffers = array<i64: 1, 4>, fparams = array<f32>, iparams = array<i64: 4, 2, 0, 256, 2, 256, 256, 1, 512, 1>, name = "onnx.Concat"
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @concat_copies(%s: tensor<1x3x5x5xf32> {onnx.name = "s"}, %t: tensor<2x16x4x4xf32> {onnx.name = "t"}) -> (tensor<1x3x5x5xf32> {onnx.name = "v"}, tensor<1x6x5x5xf32> {onnx.name = "r"}, tensor<2x32x4x4xf32> {onnx.name = "bt"}) {
    %none = "onnx.NoValue"() : () -> none
    %w5 = "onnx.Constant"() <{value = dense<0.3> : tensor<3x3x1x1xf32>}> : () -> tensor<3x3x1x1xf32>
    %w6 = "onnx.Constant"() <{value = dense<-0.2> : tensor<3x3x1x1xf32>}> : () -> tensor<3x3x1x1xf32>
    %w7 = "onnx.Constant"() <{value = dense<0.1> : tensor<3x6x1x1xf32>}> : () -> tensor<3x6x1x1xf32>
    %w8 = "onnx.Constant"() <{value = dense<0.1> : tensor<16x16x1x1xf32>}> : () -> tensor<16x16x1x1xf32>
    %p = "amk.conv"(%s, %w5, %none, %none) : (tensor<1x3x5x5xf32>, tensor<3x3x1x1xf32>, none, none) -> tensor<1x3x5x5xf32>
    %q = "amk.conv"(%s, %w6, %none, %none) : (tensor<1x3x5x5xf32>, tensor<3x3x1x1xf32>, none, none) -> tensor<1x3x5x5xf32>
    %u = "onnx.Concat"(%p, %q) <{axis = 1 : i64}> : (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) -> tensor<1x6x5x5xf32>
    %v = "amk.conv"(%u, %w7, %none, %none) : (tensor<1x6x5x5xf32>, tensor<3x6x1x1xf32>, none, none) -> tensor<1x3x5x5xf32>
    %r = "onnx.Concat"(%q, %p) <{axis = 1 : i64}> : (tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>) -> tensor<1x6x5x5xf32>
    %e = "amk.conv"(%t, %w8, %none, %none) : (tensor<2x16x4x4xf32>, tensor<16x16x1x1xf32>, none, none) -> tensor<2x16x4x4xf32>
    %bt = "onnx.Concat"(%e, %t) <{axis = 1 : i64}> : (tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>) -> tensor<2x32x4x4xf32>
    return %v, %r, %bt : tensor<1x3x5x5xf32>, tensor<1x6x5x5xf32>, tensor<2x32x4x4xf32>
  }
}

// -----

//--- remote_placement.mlir
// FAR-LABEL: amk_task.program @remote_placement attributes
// FAR: kernel = 0 : i64{{.*}}tile = array<i64: 0, 32, 0, 512>{{.*}}worker = 0
// FAR: kernel = 2 : i64{{.*}}tile = array<i64: 0, 32, 0, 512>{{.*}}worker = 1
// NEAR-LABEL: amk_task.program @remote_placement attributes
// NEAR: kernel = 0 : i64{{.*}}tile = array<i64: 0, 32, 0, 512>{{.*}}worker = 0
// NEAR: kernel = 2 : i64{{.*}}tile = array<i64: 0, 32, 0, 512>{{.*}}worker = 0
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @remote_placement(%x: tensor<1x16x32x32xf32> {onnx.name = "x"}) -> (tensor<1x32x32x32xf32> {onnx.name = "y"}, tensor<f32> {onnx.name = "z"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.05> : tensor<32x16x1x1xf32>}> : () -> tensor<32x16x1x1xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.03> : tensor<32x32x3x3xf32>}> : () -> tensor<32x32x3x3xf32>
    %a = "amk.conv"(%x, %w1, %none, %none) <{activation = "relu"}> : (tensor<1x16x32x32xf32>, tensor<32x16x1x1xf32>, none, none) -> tensor<1x32x32x32xf32>
    %z = "onnx.ReduceMax"(%x, %none) <{keepdims = 0 : i64}> : (tensor<1x16x32x32xf32>, none) -> tensor<f32>
    %y = "amk.conv"(%a, %w2, %none, %none) <{pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x32x32x32xf32>, tensor<32x32x3x3xf32>, none, none) -> tensor<1x32x32x32xf32>
    return %y, %z : tensor<1x32x32x32xf32>, tensor<f32>
  }
}

// -----

//--- blocked_layout.mlir
// Expansion from the NCHW input (output blocked), depthwise (both),
// projection whose result two convolutions read (both), a second
// expansion and depthwise, a projection adding the first one's result as
// its residual (both), a stride-2 depthwise, the last 1x1 back to NCHW for
// the return. A depthwise layer of 24 channels (16 does not divide them)
// stays NCHW.
// BLOCKED-LABEL: amk_task.program @blocked_layout attributes
// BLOCKED: amk_task.kernel conv {{{.*}}iparams = array<i64: 2, 32, 9, 11, 64, 1, 1, 9, 11, 1, 1, 0, 0, 1, 1, 1, 1, 0, 2>{{.*}}variant = 2 : i64}
// BLOCKED: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 64, 9, 11, 64, 3, 3, 9, 11, 1, 1, 1, 1, 1, 1, 64, 1, 0, 3>
// BLOCKED: amk_task.kernel conv {{{.*}}iparams = array<i64: 2, 64, 9, 11, 32, 1, 1, 9, 11, 1, 1, 0, 0, 1, 1, 1, 0, 0, 3>{{.*}}variant = 2 : i64}
// BLOCKED: amk_task.kernel conv {{{.*}}iparams = array<i64: 2, 32, 9, 11, 96, 1, 1, 9, 11, 1, 1, 0, 0, 1, 1, 1, 1, 0, 3>{{.*}}variant = 2 : i64}
// BLOCKED: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 96, 9, 11, 96, 3, 3, 9, 11, 1, 1, 1, 1, 1, 1, 96, 0, 0, 3>
// BLOCKED: amk_task.kernel conv {{{.*}}buffers = array<i64: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, -1, {{[0-9]+}}>, {{.*}}iparams = array<i64: 2, 96, 9, 11, 32, 1, 1, 9, 11, 1, 1, 0, 0, 1, 1, 1, 0, 0, 3>{{.*}}variant = 2 : i64}
// BLOCKED: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 32, 9, 11, 32, 3, 3, 5, 6, 2, 2, 1, 1, 1, 1, 32, 1, 0, 3>
// BLOCKED: amk_task.kernel conv {{{.*}}iparams = array<i64: 2, 32, 5, 6, 64, 1, 1, 5, 6, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1>{{.*}}variant = 2 : i64}
// BLOCKED: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 24, 9, 11, 24, 3, 3, 9, 11, 1, 1, 1, 1, 1, 1, 24, 0>
// NOBLOCKED-LABEL: amk_task.program @blocked_layout attributes
// NOBLOCKED: amk_task.kernel conv {{{.*}}iparams = array<i64: 2, 32, 9, 11, 64, 1, 1, 9, 11, 1, 1, 0, 0, 1, 1, 1, 1>{{.*}}variant = 2 : i64}
// NOBLOCKED: amk_task.kernel dwconv {{{.*}}iparams = array<i64: 2, 64, 9, 11, 64, 3, 3, 9, 11, 1, 1, 1, 1, 1, 1, 64, 1>
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @blocked_layout(%x: tensor<2x32x9x11xf32> {onnx.name = "x"}) -> (tensor<2x64x5x6xf32> {onnx.name = "y"}, tensor<2x24x9x11xf32> {onnx.name = "side"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.03> : tensor<64x32x1x1xf32>}> : () -> tensor<64x32x1x1xf32>
    %b1 = "onnx.Constant"() <{value = dense<0.1> : tensor<64xf32>}> : () -> tensor<64xf32>
    %wd1 = "onnx.Constant"() <{value = dense<0.2> : tensor<64x1x3x3xf32>}> : () -> tensor<64x1x3x3xf32>
    %w2 = "onnx.Constant"() <{value = dense<-0.05> : tensor<32x64x1x1xf32>}> : () -> tensor<32x64x1x1xf32>
    %w3 = "onnx.Constant"() <{value = dense<0.04> : tensor<96x32x1x1xf32>}> : () -> tensor<96x32x1x1xf32>
    %wd2 = "onnx.Constant"() <{value = dense<-0.1> : tensor<96x1x3x3xf32>}> : () -> tensor<96x1x3x3xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.02> : tensor<32x96x1x1xf32>}> : () -> tensor<32x96x1x1xf32>
    %wd3 = "onnx.Constant"() <{value = dense<0.15> : tensor<32x1x3x3xf32>}> : () -> tensor<32x1x3x3xf32>
    %w5 = "onnx.Constant"() <{value = dense<0.25> : tensor<64x32x1x1xf32>}> : () -> tensor<64x32x1x1xf32>
    %w6 = "onnx.Constant"() <{value = dense<0.1> : tensor<24x32x1x1xf32>}> : () -> tensor<24x32x1x1xf32>
    %wd6 = "onnx.Constant"() <{value = dense<0.3> : tensor<24x1x3x3xf32>}> : () -> tensor<24x1x3x3xf32>
    %e = "amk.conv"(%x, %w1, %b1, %none) <{activation = "relu"}> : (tensor<2x32x9x11xf32>, tensor<64x32x1x1xf32>, tensor<64xf32>, none) -> tensor<2x64x9x11xf32>
    %d = "amk.conv"(%e, %wd1, %none, %none) <{group = 64 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<2x64x9x11xf32>, tensor<64x1x3x3xf32>, none, none) -> tensor<2x64x9x11xf32>
    %p = "amk.conv"(%d, %w2, %none, %none) : (tensor<2x64x9x11xf32>, tensor<32x64x1x1xf32>, none, none) -> tensor<2x32x9x11xf32>
    %e2 = "amk.conv"(%p, %w3, %none, %none) <{activation = "relu"}> : (tensor<2x32x9x11xf32>, tensor<96x32x1x1xf32>, none, none) -> tensor<2x96x9x11xf32>
    %d2 = "amk.conv"(%e2, %wd2, %none, %none) <{group = 96 : i64, pads = array<i64: 1, 1, 1, 1>}> : (tensor<2x96x9x11xf32>, tensor<96x1x3x3xf32>, none, none) -> tensor<2x96x9x11xf32>
    %p2 = "amk.conv"(%d2, %w4, %none, %p) : (tensor<2x96x9x11xf32>, tensor<32x96x1x1xf32>, none, tensor<2x32x9x11xf32>) -> tensor<2x32x9x11xf32>
    %d3 = "amk.conv"(%p2, %wd3, %none, %none) <{group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, activation = "relu"}> : (tensor<2x32x9x11xf32>, tensor<32x1x3x3xf32>, none, none) -> tensor<2x32x5x6xf32>
    %y = "amk.conv"(%d3, %w5, %none, %none) : (tensor<2x32x5x6xf32>, tensor<64x32x1x1xf32>, none, none) -> tensor<2x64x5x6xf32>
    %s = "amk.conv"(%x, %w6, %none, %none) : (tensor<2x32x9x11xf32>, tensor<24x32x1x1xf32>, none, none) -> tensor<2x24x9x11xf32>
    %side = "amk.conv"(%s, %wd6, %none, %none) <{group = 24 : i64, pads = array<i64: 1, 1, 1, 1>}> : (tensor<2x24x9x11xf32>, tensor<24x1x3x3xf32>, none, none) -> tensor<2x24x9x11xf32>
    return %y, %side : tensor<2x64x5x6xf32>, tensor<2x24x9x11xf32>
  }
}

// -----

//--- inverted_residual.mlir
// Two MobileNetV2-style blocks: expand (1x1, Clip) -> depthwise 3x3
// (Clip) -> project (1x1) + the block input, then a block without
// expansion (depthwise stride 2, ReLU -> project). The first block's
// projection is not taken as the second block's expansion.
// CHECK-LABEL: amk_task.program @inverted_residual attributes
// CHECK-NOT: inverted_residual {
// CHECK: amk_task.kernel dwconv
// FUSE-LABEL: amk_task.program @inverted_residual attributes
// FUSE: amk_task.kernel inverted_residual {buffers = array<i64: 0, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, -1, 0, [[Y:[0-9]+]]>, fparams = array<f32: 0.000000e+00, 6.000000e+00, 0.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00>, iparams = array<i64: 1, 8, 20, 18, 24, 8, 20, 18, 1, 2, 2, 0>
// FUSE: amk_task.kernel inverted_residual {buffers = array<i64: [[Y]], -1, -1, {{[0-9]+}}, -1, {{[0-9]+}}, -1, -1, {{[0-9]+}}>, {{.*}}iparams = array<i64: 1, 8, 20, 18, 8, 16, 10, 9, 2, 0, 1, 0>
// FUSE-NOT: amk_task.kernel
// FUSE: amk_task.task
// NOFUSE-LABEL: amk_task.program @inverted_residual attributes
// NOFUSE-NOT: inverted_residual {
// NOFUSE: amk_task.kernel dwconv
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @inverted_residual(%x: tensor<1x8x20x18xf32> {onnx.name = "x"}) -> (tensor<1x16x10x9xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.3> : tensor<24x8x1x1xf32>}> : () -> tensor<24x8x1x1xf32>
    %b1 = "onnx.Constant"() <{value = dense<0.1> : tensor<24xf32>}> : () -> tensor<24xf32>
    %wd = "onnx.Constant"() <{value = dense<0.2> : tensor<24x1x3x3xf32>}> : () -> tensor<24x1x3x3xf32>
    %bd = "onnx.Constant"() <{value = dense<-0.3> : tensor<24xf32>}> : () -> tensor<24xf32>
    %w3 = "onnx.Constant"() <{value = dense<-0.05> : tensor<8x24x1x1xf32>}> : () -> tensor<8x24x1x1xf32>
    %wd2 = "onnx.Constant"() <{value = dense<0.15> : tensor<8x1x3x3xf32>}> : () -> tensor<8x1x3x3xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.25> : tensor<16x8x1x1xf32>}> : () -> tensor<16x8x1x1xf32>
    %e = "amk.conv"(%x, %w1, %b1, %none) <{activation = "clip", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32}> : (tensor<1x8x20x18xf32>, tensor<24x8x1x1xf32>, tensor<24xf32>, none) -> tensor<1x24x20x18xf32>
    %d = "amk.conv"(%e, %wd, %bd, %none) <{group = 24 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "clip", activation_alpha = 0.0 : f32, activation_beta = 6.0 : f32}> : (tensor<1x24x20x18xf32>, tensor<24x1x3x3xf32>, tensor<24xf32>, none) -> tensor<1x24x20x18xf32>
    %p = "amk.conv"(%d, %w3, %none, %x) : (tensor<1x24x20x18xf32>, tensor<8x24x1x1xf32>, none, tensor<1x8x20x18xf32>) -> tensor<1x8x20x18xf32>
    %d2 = "amk.conv"(%p, %wd2, %none, %none) <{group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, activation = "relu"}> : (tensor<1x8x20x18xf32>, tensor<8x1x3x3xf32>, none, none) -> tensor<1x8x10x9xf32>
    %y = "amk.conv"(%d2, %w4, %none, %none) : (tensor<1x8x10x9xf32>, tensor<16x8x1x1xf32>, none, none) -> tensor<1x16x10x9xf32>
    return %y : tensor<1x16x10x9xf32>
  }
}

// -----

//--- se_block.mlir
// EfficientNet-style blocks: expand (1x1, SiLU) -> depthwise 3x3 (SiLU),
// whose output feeds a squeeze-excitation (global pool, sigmoid, Mul) as
// well as the scale, so there is no projection to fuse: the block is the
// expansion and the depthwise layer, writing the depthwise output. The
// first block's 32 channels take the channel-blocked strips, the second's
// 24 (stride 2) the per-channel ones.
// FUSE-LABEL: amk_task.program @se_block attributes
// FUSE: amk_task.kernel inverted_residual {buffers = array<i64: 0, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, -1, -1, -1, [[D1:[0-9]+]]>, {{.*}}iparams = array<i64: 1, 16, 12, 10, 32, 32, 12, 10, 1, [[SILU:[0-9]+]], [[SILU]], 0>, {{.*}}variant = 1
// FUSE-NEXT: amk_task.kernel pool {buffers = array<i64: [[D1]],
// FUSE: amk_task.kernel inverted_residual {buffers = array<i64: {{[0-9]+}}, {{[0-9]+}}, -1, {{[0-9]+}}, -1, -1, -1, -1, {{[0-9]+}}>, {{.*}}iparams = array<i64: 1, 16, 12, 10, 24, 24, 6, 5, 2, [[SILU]], [[SILU]], 0>, name = "amk.conv", op = "amk.conv"}
// FUSE: amk_task.task
// NOFUSE-LABEL: amk_task.program @se_block attributes
// NOFUSE-NOT: inverted_residual {
// NOFUSE: amk_task.kernel dwconv
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @se_block(%x: tensor<1x16x12x10xf32> {onnx.name = "x"}) -> (tensor<1x24x6x5xf32> {onnx.name = "y"}) {
    %none = "onnx.NoValue"() : () -> none
    %w1 = "onnx.Constant"() <{value = dense<0.1> : tensor<32x16x1x1xf32>}> : () -> tensor<32x16x1x1xf32>
    %b1 = "onnx.Constant"() <{value = dense<-0.2> : tensor<32xf32>}> : () -> tensor<32xf32>
    %wd1 = "onnx.Constant"() <{value = dense<0.3> : tensor<32x1x3x3xf32>}> : () -> tensor<32x1x3x3xf32>
    %bd1 = "onnx.Constant"() <{value = dense<0.05> : tensor<32xf32>}> : () -> tensor<32xf32>
    %w3 = "onnx.Constant"() <{value = dense<-0.07> : tensor<16x32x1x1xf32>}> : () -> tensor<16x32x1x1xf32>
    %w4 = "onnx.Constant"() <{value = dense<0.2> : tensor<24x16x1x1xf32>}> : () -> tensor<24x16x1x1xf32>
    %wd2 = "onnx.Constant"() <{value = dense<-0.25> : tensor<24x1x3x3xf32>}> : () -> tensor<24x1x3x3xf32>
    %e1 = "amk.conv"(%x, %w1, %b1, %none) <{activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<1x16x12x10xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>, none) -> tensor<1x32x12x10xf32>
    %d1 = "amk.conv"(%e1, %wd1, %bd1, %none) <{group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "quick_gelu", activation_alpha = 1.0 : f32}> {onnx.name = "d1"} : (tensor<1x32x12x10xf32>, tensor<32x1x3x3xf32>, tensor<32xf32>, none) -> tensor<1x32x12x10xf32>
    %g1 = "onnx.GlobalAveragePool"(%d1) : (tensor<1x32x12x10xf32>) -> tensor<1x32x1x1xf32>
    %s1 = "onnx.Sigmoid"(%g1) : (tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
    %m1 = "onnx.Mul"(%d1, %s1) : (tensor<1x32x12x10xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x12x10xf32>
    %p1 = "amk.conv"(%m1, %w3, %none, %x) : (tensor<1x32x12x10xf32>, tensor<16x32x1x1xf32>, none, tensor<1x16x12x10xf32>) -> tensor<1x16x12x10xf32>
    %e2 = "amk.conv"(%p1, %w4, %none, %none) <{activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<1x16x12x10xf32>, tensor<24x16x1x1xf32>, none, none) -> tensor<1x24x12x10xf32>
    %d2 = "amk.conv"(%e2, %wd2, %none, %none) <{group = 24 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, activation = "quick_gelu", activation_alpha = 1.0 : f32}> {onnx.name = "d2"} : (tensor<1x24x12x10xf32>, tensor<24x1x3x3xf32>, none, none) -> tensor<1x24x6x5xf32>
    %g2 = "onnx.GlobalAveragePool"(%d2) : (tensor<1x24x6x5xf32>) -> tensor<1x24x1x1xf32>
    %s2 = "onnx.Sigmoid"(%g2) : (tensor<1x24x1x1xf32>) -> tensor<1x24x1x1xf32>
    %y = "onnx.Mul"(%d2, %s2) : (tensor<1x24x6x5xf32>, tensor<1x24x1x1xf32>) -> tensor<1x24x6x5xf32>
    return %y : tensor<1x24x6x5xf32>
  }
}

// -----

//--- maxpool_indices.mlir
// MaxPool's Indices output.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @maxpool_indices(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) {
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.MaxPool': the Indices output is not implemented}}
    %y:2 = "onnx.MaxPool"(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    return %y#0, %y#1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>
  }
}

// -----

//--- layernorm_statistics.mlir
// LayerNormalization's Mean output (read) is the kernel's fifth buffer; the
// unread InvStdDev is absent (-1).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @layernorm_statistics(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
    %s = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
    %y:3 = "onnx.LayerNormalization"(%x, %s, %s) : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    return %y#0, %y#1 : tensor<2x8xf32>, tensor<2x1xf32>
  }
}
// CHECK-LABEL: amk_task.program @layernorm_statistics
// CHECK: amk_task.kernel layernorm {buffers = array<i64: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, -1>

// -----

//--- gemm_addend_rows.mlir
// An amk.gemm addend that broadcasts over the rows of each batch [2, 1, 5]:
// none of the kernel's bias modes, so it is expanded to [2, 3, 5] first.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @gemm_addend_rows(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x1x5xf32>) -> tensor<2x3x5xf32> {
    %y = "amk.gemm"(%a, %b, %c) : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
    return %y : tensor<2x3x5xf32>
  }
}
// CHECK-LABEL: amk_task.program @gemm_addend_rows
// CHECK: amk_task.kernel copy {{{.*}}op = "amk.gemm"}
// CHECK: amk_task.kernel gemm {{{.*}}op = "amk.gemm"}

// -----

//--- quantize_blocked.mlir
// QuantizeLinear with block_size (opset 21): the block size is QUANTIZE's
// fifth iparam (x f32, y i8, axis 4, inner 1, block 2).
module attributes {onnx.ir_version = 10 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantize_blocked(%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<2x2xi8>}> : () -> tensor<2x2xi8>
    %y = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64, block_size = 2 : i64}> : (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x4xi8>
    return %y : tensor<2x4xi8>
  }
}
// CHECK-LABEL: amk_task.program @quantize_blocked
// CHECK: amk_task.kernel quantize {{{.*}}iparams = array<i64: 1, 3, 4, 1, 2>, {{.*}}op = "onnx.QuantizeLinear"}

// -----

//--- quantized_mul_table.mlir
// amk.qmul on QUANTIZE variant 3: Y's dims merged where both operands
// step through them as one ([4, 15]; A's strides 15, 1; B's 1, 0), after
// the zero points, relu and op 1 (mul). amk.qtable on variant 4.
module attributes {onnx.ir_version = 10 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantized_mul_table(%a: tensor<1x4x3x5xui8>, %g: tensor<1x4x1x1xui8>) -> (tensor<1x4x3x5xui8>, tensor<1x4x3x5xi8>) {
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %za = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %zb = "onnx.Constant"() <{value = dense<100> : tensor<ui8>}> : () -> tensor<ui8>
    %zy = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %t = "onnx.Constant"() <{value = dense<7> : tensor<256xi8>}> : () -> tensor<256xi8>
    %y = "amk.qmul"(%a, %s, %za, %g, %s, %zb, %s, %zy) : (tensor<1x4x3x5xui8>, tensor<f32>, tensor<ui8>, tensor<1x4x1x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x3x5xui8>
    %y2 = "amk.qtable"(%y, %t) : (tensor<1x4x3x5xui8>, tensor<256xi8>) -> tensor<1x4x3x5xi8>
    return %y, %y2 : tensor<1x4x3x5xui8>, tensor<1x4x3x5xi8>
  }
}
// CHECK-LABEL: amk_task.program @quantized_mul_table
// CHECK: amk_task.kernel quantize {{{.*}}iparams = array<i64: 2, 2, 1, 60, 120, 100, 3, 0, 1, 2, 4, 15, 15, 1, 1, 0>, {{.*}}op = "amk.qmul", variant = 3 : i64}
// CHECK: amk_task.kernel quantize {{{.*}}iparams = array<i64: 2, 3, 1, 60>, {{.*}}op = "amk.qtable", variant = 4 : i64}

// -----

//--- quantized_resize.mlir
// amk.qresize on RESIZE variant 2: the weighted taps of a linear Resize,
// then the types and zero points after the tap tables (u8 in, i8 out, 120,
// -3); the scales are the fparams.
module attributes {onnx.ir_version = 10 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantized_resize(%x: tensor<1x1x2x3xui8>) -> tensor<1x1x4x6xi8> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<120> : tensor<ui8>}> : () -> tensor<ui8>
    %zy = "onnx.Constant"() <{value = dense<-3> : tensor<i8>}> : () -> tensor<i8>
    %scales = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %none = "onnx.NoValue"() : () -> none
    %y = "amk.qresize"(%x, %none, %scales, %none, %s, %z, %s2, %zy) <{mode = "linear"}> : (tensor<1x1x2x3xui8>, none, tensor<4xf32>, none, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x6xi8>
    return %y : tensor<1x1x4x6xi8>
  }
}
// CHECK-LABEL: amk_task.program @quantized_resize
// CHECK: amk_task.kernel resize {{{.*}}fparams = array<f32: 5.000000e-01, 2.500000e-01>, iparams = array<i64: 4, 1, 1, 1, 2, 3, 1, 1, 4, 6, 1, 1, 2, 2, {{.*}}, 2, 3, 120, -3>, {{.*}}op = "amk.qresize", variant = 2 : i64}

// -----

//--- quantized_average_pool.mlir
// amk.qaverage_pool on POOL variant 3: the global pool's window is the
// plane (mode 2: pads never count), then the types and zero points; the
// scales are the fparams.
module attributes {onnx.ir_version = 10 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantized_average_pool(%x: tensor<1x3x5x7xi8>) -> tensor<1x3x1x1xui8> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
    %s2 = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<-4> : tensor<i8>}> : () -> tensor<i8>
    %zy = "onnx.Constant"() <{value = dense<9> : tensor<ui8>}> : () -> tensor<ui8>
    %y = "amk.qaverage_pool"(%x, %s, %z, %s2, %zy) : (tensor<1x3x5x7xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x1x1xui8>
    return %y : tensor<1x3x1x1xui8>
  }
}
// CHECK-LABEL: amk_task.program @quantized_average_pool
// CHECK: amk_task.kernel pool {{{.*}}fparams = array<f32: 5.000000e-01, 2.500000e-01>, iparams = array<i64: 1, 3, 5, 7, 3, 5, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, 2, 3, 2, -4, 9>, {{.*}}op = "amk.qaverage_pool", variant = 3 : i64}

// -----

//--- quantize_blocked_bad_scale.mlir
// A blocked scale whose blocked axis does not hold ceil(4 / 2) entries.
module attributes {onnx.ir_version = 10 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantize_blocked_bad_scale(%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
    %s = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %z = "onnx.Constant"() <{value = dense<0> : tensor<2x3xi8>}> : () -> tensor<2x3xi8>
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.QuantizeLinear': its block size and scale shape do not match the tensor}}
    %y = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64, block_size = 2 : i64}> : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x3xi8>) -> tensor<2x4xi8>
    return %y : tensor<2x4xi8>
  }
}

// -----

//--- topk.mlir
// An op no runtime kernel implements.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @no_kernel(%x: tensor<1x1x2x2xf32>, %y: tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32> {
    %none = "onnx.NoValue"() : () -> none
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.MaxUnpool': no runtime kernel implements this op}}
    %z = "onnx.MaxUnpool"(%x, %y, %none) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, none) -> tensor<1x1x4x4xf32>
    return %z : tensor<1x1x4x4xf32>
  }
}

// -----

//--- where.mlir
// Where on the WHERE kernel: a bool mask broadcast over the batch and the
// last axis, a full-size X and a Z broadcast from one row. The parameters
// are the rank, the element bytes, Y's dims and the element strides of C,
// X and Z over them (0 along a broadcast axis); each tile reads the rows
// of X it writes, and the broadcast operands whole.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @where(%c: tensor<5x1xi1>, %x: tensor<3x5x7xf32>, %z: tensor<7xf32>) -> tensor<3x5x7xf32> {
    %y = "onnx.Where"(%c, %x, %z) : (tensor<5x1xi1>, tensor<3x5x7xf32>, tensor<7xf32>) -> tensor<3x5x7xf32>
    return %y : tensor<3x5x7xf32>
  }
}
// CHECK-LABEL: amk_task.program @where
// CHECK: amk_task.kernel where {buffers = array<i64: 0, 1, 2, 3>, {{.*}}iparams = array<i64: 3, 4, 3, 5, 7, 0, 1, 0, 35, 7, 1, 0, 0, 1>
// CHECK: amk_task.task {{.*}}reads = array<i64: 0, 0, 5, 5, 1, 1, 0, 256, 256, 1, 2, 0, 28, 28, 1>, tile = array<i64: 0, 64, 0, 1>, {{.*}}writes = array<i64: 3, 0, 256, 256, 1>
// CHECK: amk_task.task {{.*}}reads = array<i64: 0, 0, 5, 5, 1, 1, 256, 164, 164, 1, 2, 0, 28, 28, 1>, tile = array<i64: 64, 105, 0, 1>, {{.*}}writes = array<i64: 3, 256, 164, 164, 1>
// ONE-LABEL: amk_task.program @where
// ONE: amk_task.kernel where

// -----

//--- where_i64.mlir
// Any element type the runtime stores: int64 values, 8 bytes each.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @where_i64(%c: tensor<2x2xi1>, %x: tensor<2x2xi64>, %z: tensor<2x2xi64>) -> tensor<2x2xi64> {
    %y = "onnx.Where"(%c, %x, %z) : (tensor<2x2xi1>, tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
    return %y : tensor<2x2xi64>
  }
}
// CHECK-LABEL: amk_task.program @where_i64
// CHECK: amk_task.kernel where {{{.*}}iparams = array<i64: 2, 8, 2, 2, 2, 1, 2, 1, 2, 1>

// -----

//--- where_rank9.mlir
// The WHERE kernel walks at most 8 axes.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @where_rank9(%c: tensor<1x1x1x1x1x1x1x1x2xi1>, %x: tensor<1x1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x1x2xf32> {
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.Where': the WHERE kernel handles rank up to 8}}
    %y = "onnx.Where"(%c, %x, %x) : (tensor<1x1x1x1x1x1x1x1x2xi1>, tensor<1x1x1x1x1x1x1x1x2xf32>, tensor<1x1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x1x2xf32>
    return %y : tensor<1x1x1x1x1x1x1x1x2xf32>
  }
}

// -----

//--- where_empty.mlir
// An empty result has no tile to run: no kernel at all, and the program
// still runs (its output holds no bytes).
// CHECK-LABEL: amk_task.program @where_empty
// CHECK-NOT: amk_task.kernel where
// CHECK: }
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @where_empty(%c: tensor<0x2xi1>, %x: tensor<0x2xf32>) -> tensor<0x2xf32> {
    %y = "onnx.Where"(%c, %x, %x) : (tensor<0x2xi1>, tensor<0x2xf32>, tensor<0x2xf32>) -> tensor<0x2xf32>
    return %y : tensor<0x2xf32>
  }
}

// -----

//--- gemm_batch_perm.mlir
// An amk.gemm whose perm_a moves the batch axis (torch's attention in
// (sequence, batch, feature) order at batch > 1): the permuted operand is
// copied into a fresh arena tensor first, then multiplied.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gemm_batch_perm(%x: tensor<3x5x8xf32>) -> tensor<5x3x4xf32> {
    %w = "onnx.Constant"() <{value = dense<0.25> : tensor<8x4xf32>}> : () -> tensor<8x4xf32>
    %none = "onnx.NoValue"() : () -> none
    %y = "amk.gemm"(%x, %w, %none) <{perm_a = array<i64: 1, 0, 2>}> : (tensor<3x5x8xf32>, tensor<8x4xf32>, none) -> tensor<5x3x4xf32>
    return %y : tensor<5x3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @gemm_batch_perm
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 4, 3, 0, 0, 5, 3, 8, 8, 40, 1, 24, 8, 1>
// CHECK: amk_task.kernel gemm {{{.*}}name = "{{.*}}", op = "amk.gemm"}

// -----

//--- gemm_addend_windows.mlir
// A fused addend that broadcasts over the outer batch dims only (Swin's
// relative position bias [1, heads, L, L] over windows x heads): expanded
// once into a per-batch addend, then the GEMM adds it per batch.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gemm_addend_windows(%q: tensor<2x3x4x5xf32>, %k: tensor<2x3x4x5xf32>, %bias: tensor<1x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
    %y = "amk.gemm"(%q, %k, %bias) <{perm_b = array<i64: 0, 1, 3, 2>}> : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<1x3x4x4xf32>) -> tensor<2x3x4x4xf32>
    return %y : tensor<2x3x4x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @gemm_addend_windows
// CHECK: amk_task.kernel copy {{{.*}}op = "amk.gemm"}
// CHECK: amk_task.kernel gemm {{{.*}}op = "amk.gemm"}

// -----

//--- attention_windows.mlir
// Attention over [1, windows, heads, L, D] (MaxViT's window and grid
// attention) with a relative-position bias [1, heads, L, L]: the leading
// dims collapse into the batch, over which the bias broadcasts.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @attention_windows(%q: tensor<1x3x2x5x4xf32>, %k: tensor<1x3x2x4x5xf32>, %v: tensor<1x3x2x5x4xf32>, %bias: tensor<1x2x5x5xf32>) -> tensor<1x3x2x5x4xf32> {
    %y = "amk.attention"(%q, %k, %v, %bias) <{key_transposed = true, scale = 0.5 : f32}> : (tensor<1x3x2x5x4xf32>, tensor<1x3x2x4x5xf32>, tensor<1x3x2x5x4xf32>, tensor<1x2x5x5xf32>) -> tensor<1x3x2x5x4xf32>
    return %y : tensor<1x3x2x5x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @attention_windows
// CHECK: amk_task.kernel attention {{{.*}}iparams = array<i64: 3, 2, 5, 5, 4, 4, 1, 0, 25, 5, 1, 1>

// -----

//--- grouped_conv.mlir
// A grouped convolution that is not depthwise (ResNeXt's 32 groups,
// RegNet's groups of 8 channels) runs channel x position tiles (variant 4),
// tiled by whole groups; conv-kernel=im2col keeps the implicit GEMM per
// group (variant 1): 3 groups of 4 -> 2 channels, stride 2, with a bias.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @grouped_conv(%x: tensor<2x12x9x9xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x5xf32> {
    %none = "onnx.NoValue"() : () -> none
    %y = "amk.conv"(%x, %w, %b, %none) <{group = 3 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, activation = "relu"}> : (tensor<2x12x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>, none) -> tensor<2x6x5x5xf32>
    return %y : tensor<2x6x5x5xf32>
  }
}
// Weights that are function inputs keep the GEMM: variant 4 reads them
// packed at compile time.
// CHECK-LABEL: amk_task.program @grouped_conv
// CHECK: amk_task.kernel conv {{{.*}}variant = 1 : i64}

// -----

//--- grouped_conv_const.mlir
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @grouped_conv_const(%x: tensor<2x4x6x7xf32>) -> tensor<2x4x6x7xf32> {
    %none = "onnx.NoValue"() : () -> none
    %w = "onnx.Constant"() <{value = dense<[[[[-0.52, 0.09, -0.26], [0.21, 0.25, -0.87], [-0.97, 0.67, -0.48]], [[-0.53, 0.99, -0.06], [0.67, -0.05, 0.28], [-0.70, 0.27, 0.74]]], [[[0.05, 0.48, 0.34], [-0.87, 0.52, 0.18], [-0.40, -0.94, 0.73]], [[-0.05, 0.44, 0.76], [0.43, 0.84, -0.21], [0.60, -0.11, 0.87]]], [[[0.76, -0.81, -0.73], [-0.57, 0.93, -0.13], [0.25, -0.40, 0.01]], [[-0.23, -0.30, 0.17], [0.17, 0.81, 0.36], [0.86, 0.71, 0.98]]], [[[0.34, -0.67, 0.72], [0.93, 0.81, 0.14], [0.43, -0.58, 0.66]], [[0.15, -0.43, -0.87], [0.71, 0.98, -0.82], [0.60, -0.18, -0.70]]]]> : tensor<4x2x3x3xf32>}> : () -> tensor<4x2x3x3xf32>
    %y = "amk.conv"(%x, %w, %none, %none) <{group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, activation = "relu"}> : (tensor<2x4x6x7xf32>, tensor<4x2x3x3xf32>, none, none) -> tensor<2x4x6x7xf32>
    return %y : tensor<2x4x6x7xf32>
  }
}
// The packed weights are [group][C / group][taps][OC / group].
// CHECK-LABEL: amk_task.program @grouped_conv_const
// CHECK: amk_task.buffer {kind = "const", name = "{{.*}}.grouped"
// CHECK: amk_task.kernel conv {{{.*}}variant = 4 : i64}
// IM2COL-LABEL: amk_task.program @grouped_conv_const
// IM2COL-NOT: .grouped
// IM2COL: amk_task.kernel conv {{{.*}}variant = 1 : i64}

// -----

//--- output_view.mlir
// A graph output that is a view (a Reshape) of a kernel's result: the
// kernel writes into the caller's buffer, which has the view's shape, not
// the kernel result's (it was reported as [2, 12]).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @output_view(%x: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
    %r = "onnx.Relu"(%x) : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %shape = "onnx.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
    %y = "onnx.Reshape"(%r, %shape) : (tensor<2x12xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @output_view
// CHECK: amk_task.buffer {kind = "output", size = 96 : i64, type = tensor<2x3x4xf32>}

// -----

//--- output_view_and_root.mlir
// A kernel's result returned together with a view of it, the view first:
// the result keeps its own buffer and shape (it was reported with the
// view's shape, [1,2,12]) and the view gets a copy.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @output_view_and_root(%x: tensor<2x12xf32>) -> (tensor<1x2x12xf32>, tensor<2x12xf32>) {
    %r = "onnx.Relu"(%x) : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %axes = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
    %u = "onnx.Unsqueeze"(%r, %axes) : (tensor<2x12xf32>, tensor<1xi64>) -> tensor<1x2x12xf32>
    return %u, %r : tensor<1x2x12xf32>, tensor<2x12xf32>
  }
}
// CHECK-LABEL: amk_task.program @output_view_and_root
// CHECK-DAG: amk_task.buffer {index = 1 : i64, kind = "output", size = 96 : i64, type = tensor<2x12xf32>}
// CHECK-DAG: amk_task.buffer {kind = "output", size = 96 : i64, type = tensor<1x2x12xf32>}

// -----

//--- reduce_as_pool.mlir
// ReduceMean, ReduceMax, ReduceSum and ReduceMin over adjacent axes are
// pooling: [2, 3, 4] over axis 1 is N=2 rows of a 3 x 1 window over W=4
// (mode 2: the mean, 0: the max, 3: the sum, 4: the min); keepdims changes
// only the result's type. Axes that are not adjacent are refused by name.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @reduce_as_pool(%x: tensor<2x3x4xf32>) -> (tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<1x1x1xf32>, tensor<2x3xf32>) {
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %none = "onnx.NoValue"() : () -> none
    %last = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %m = "onnx.ReduceMean"(%x, %ax) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
    %n = "onnx.ReduceMax"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %s = "onnx.ReduceSum"(%x, %none) : (tensor<2x3x4xf32>, none) -> tensor<1x1x1xf32>
    %l = "onnx.ReduceMin"(%x, %last) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3xf32>
    return %m, %n, %s, %l : tensor<2x4xf32>, tensor<2x1x4xf32>, tensor<1x1x1xf32>, tensor<2x3xf32>
  }
}
// CHECK-LABEL: amk_task.program @reduce_as_pool
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 2>, {{.*}}op = "onnx.ReduceMean"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 0>, {{.*}}op = "onnx.ReduceMax"}
// No axes: all of them, one row of 24.
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 1, 1, 24, 1, 1, 24, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 3>, {{.*}}op = "onnx.ReduceSum"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 6, 1, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 4>, {{.*}}op = "onnx.ReduceMin"}

// -----

//--- reduce_other.mlir
// The other reductions are POOL modes 5-10 (L1, L2, sum of squares,
// log-sum, log-sum-exp, product); noop_with_empty_axes without axes is the
// input itself, a sum over windows of one element.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @reduce_other(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>) {
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %none = "onnx.NoValue"() : () -> none
    %a = "onnx.ReduceL1"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %b = "onnx.ReduceL2"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %c = "onnx.ReduceSumSquare"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %d = "onnx.ReduceLogSum"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %e = "onnx.ReduceLogSumExp"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %f = "onnx.ReduceProd"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    %g = "onnx.ReduceMax"(%x, %none) <{noop_with_empty_axes = 1 : i64}> : (tensor<2x3x4xf32>, none) -> tensor<2x3x4xf32>
    return %a, %b, %c, %d, %e, %f, %g : tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @reduce_other
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 5>, {{.*}}op = "onnx.ReduceL1"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 6>, {{.*}}op = "onnx.ReduceL2"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 7>, {{.*}}op = "onnx.ReduceSumSquare"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 8>, {{.*}}op = "onnx.ReduceLogSum"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 9>, {{.*}}op = "onnx.ReduceLogSumExp"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 1, 3, 4, 1, 3, 1, 1, 4, 1, 1, 0, 0, 1, 1, 1, 10>, {{.*}}op = "onnx.ReduceProd"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 24, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 3>, {{.*}}op = "onnx.ReduceMax"}

// -----

//--- reduce_not_adjacent.mlir
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @reduce_not_adjacent(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
    %ax = "onnx.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.ReduceMean': its axes are not contiguous (reduce over adjacent axes, or transpose first)}}
    %m = "onnx.ReduceMean"(%x, %ax) <{keepdims = 0 : i64}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
    return %m : tensor<3xf32>
  }
}

// -----

//--- data_dependent.mlir
// An output whose size depends on the data is refused saying so.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @data_dependent(%x: tensor<2x4xf32>) -> tensor<2x?xi64> {
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'onnx.NonZero': its output size depends on the input values, and the runtime runs programs of static shapes (amk-run runs such a model as segments cut at this op: docs/runtime.md)}}
    %y = "onnx.NonZero"(%x) : (tensor<2x4xf32>) -> tensor<2x?xi64>
    return %y : tensor<2x?xi64>
  }
}

// -----

//--- log_softmax.mlir
// LogSoftmax is the softmax kernel's variant 1 (x - max - log(sum exp)).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
    %y = "onnx.LogSoftmax"(%x) <{axis = 1 : i64}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
    return %y : tensor<2x5xf32>
  }
}
// CHECK-LABEL: amk_task.program @log_softmax
// CHECK: amk_task.kernel softmax {{{.*}}iparams = array<i64: 2, 5, 1>, {{.*}}op = "onnx.LogSoftmax", variant = 1 : i64}

// -----

//--- arg_max.mlir
// ArgMax and ArgMin are the ARGMAX kernel's variants 0 and 1 over
// [outer, axis, inner], with select_last_index as a parameter.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @arg_max(%x: tensor<2x5x3xf32>) -> (tensor<2x1x3xi64>, tensor<2x5xi64>) {
    %a = "onnx.ArgMax"(%x) <{axis = 1 : i64}> : (tensor<2x5x3xf32>) -> tensor<2x1x3xi64>
    %b = "onnx.ArgMin"(%x) <{axis = -1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64}> : (tensor<2x5x3xf32>) -> tensor<2x5xi64>
    return %a, %b : tensor<2x1x3xi64>, tensor<2x5xi64>
  }
}
// CHECK-LABEL: amk_task.program @arg_max
// CHECK: amk_task.kernel argmax {{{.*}}iparams = array<i64: 2, 5, 3, 0, 1>, {{.*}}op = "onnx.ArgMax"}
// CHECK: amk_task.kernel argmax {{{.*}}iparams = array<i64: 10, 3, 1, 1, 1>, {{.*}}op = "onnx.ArgMin", variant = 1 : i64}

// -----

//--- trilu.mlir
// Trilu is a WHERE over a constant mask of the last two axes (broadcast
// over the leading one) and a constant zero; its k must be a constant.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @trilu(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %k = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %y = "onnx.Trilu"(%x, %k) <{upper = 0 : i64}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @trilu
// CHECK: amk_task.buffer {kind = "const", name = "trilu.mask", {{.*}}type = tensor<3x4xi1>, value = dense<{{\[}}[true, true, false, false], [true, true, true, false], [true, true, true, true]]>
// CHECK: amk_task.kernel where {{{.*}}iparams = array<i64: 3, 4, 2, 3, 4, 0, 4, 1, 12, 4, 1, 0, 0, 0>, {{.*}}op = "onnx.Trilu"}

// -----

//--- trilu_runtime_k.mlir
// A k known only at run time: the mask is computed, a typed comparison
// (greater-or-equal, 102) of the constant j - i with k, then the WHERE.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @trilu_runtime_k(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
    %y = "onnx.Trilu"(%x, %k) : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
    return %y : tensor<3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @trilu_runtime_k
// CHECK: amk_task.buffer {kind = "const", name = "trilu.diagonal", {{.*}}type = tensor<3x4xi64>, value = dense<{{\[}}[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1]]>
// CHECK: amk_task.kernel typed_elementwise {{{.*}}iparams = array<i64: 102, 1, 9, 2, 2, 3, 4, 7, 4, 1, 7, 0, 0>, {{.*}}op = "onnx.Trilu"}
// CHECK: amk_task.kernel where {{{.*}}op = "onnx.Trilu"}

// -----

//--- gather_elements.mlir
// GatherElements: one kernel over the output's elements, rank, axis,
// element bytes, index dtype, then the output's and the data's dims.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gather_elements(%x: tensor<2x4x3xf32>, %i: tensor<2x5x3xi64>) -> tensor<2x5x3xf32> {
    %y = "onnx.GatherElements"(%x, %i) <{axis = -2 : i64}> : (tensor<2x4x3xf32>, tensor<2x5x3xi64>) -> tensor<2x5x3xf32>
    return %y : tensor<2x5x3xf32>
  }
}
// CHECK-LABEL: amk_task.program @gather_elements
// CHECK: amk_task.kernel gather_elements {{{.*}}iparams = array<i64: 3, 1, 4, 7, 2, 5, 3, 2, 4, 3>, {{.*}}op = "onnx.GatherElements"}

// -----

//--- typed_elementwise.mlir
// What the float32 register program cannot compute runs as one
// typed_elementwise kernel per op: op, compute type (0 double, 1 int64),
// result dtype, rank, inputs, dims, then each input's dtype and broadcast
// strides. Sin stays a float program instruction (31); Clip with a tensor
// bound is a clamp (128) whose fparams flag the bounds present.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @typed_elementwise(%a: tensor<2x3xi64>, %b: tensor<3xi64>, %x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %lo: tensor<i32>) -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>) {
    %eq = "onnx.Equal"(%a, %b) : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi1>
    %s = "onnx.Sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %none = "onnx.NoValue"() : () -> none
    %c = "onnx.Clip"(%i, %lo, %none) : (tensor<2x3xi32>, tensor<i32>, none) -> tensor<2x3xi32>
    %h = "onnx.Cast"(%x) <{to = 10 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
    return %eq, %s, %c, %h : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>
  }
}
// CHECK-LABEL: amk_task.program @typed_elementwise
// CHECK: amk_task.kernel typed_elementwise {{{.*}}iparams = array<i64: 98, 1, 9, 2, 2, 2, 3, 7, 3, 1, 7, 0, 1>, {{.*}}op = "onnx.Equal"}
// CHECK: amk_task.kernel elementwise {{{.*}}iparams = array<i64: 2, 2, 3, 1, 1, 3, 1, 1, 31, 1, 0, 0, 0, 1>, {{.*}}op = "onnx.Sin"}
// CHECK: amk_task.kernel typed_elementwise {{{.*}}fparams = array<f32: 1.000000e+00, 0.000000e+00>, iparams = array<i64: 128, 1, 6, 2, 2, 2, 3, 6, 3, 1, 6, 0, 0>, {{.*}}op = "onnx.Clip"}
// CHECK: amk_task.kernel typed_elementwise {{{.*}}iparams = array<i64: 17, 0, 10, 2, 1, 2, 3, 1, 3, 1>, {{.*}}op = "onnx.Cast"}

// -----

//--- loss.mlir
// The losses are one LOSS kernel each, over [N, C, D] (here D = 2 * 2):
// iparams N, C, D, the targets' dtype, the reduction (2 mean, 0 none),
// whether there is an ignore_index, and its value; the cross entropy is
// variant 1 and also writes the log-probabilities.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @loss(%x: tensor<3x5x2x2xf32>, %t: tensor<3x2x2xi64>, %w: tensor<5xf32>) -> (tensor<f32>, tensor<3x2x2xf32>, tensor<3x5x2x2xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %a = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) <{ignore_index = 1 : i64}> : (tensor<3x5x2x2xf32>, tensor<3x2x2xi64>, tensor<5xf32>) -> tensor<f32>
    %b, %lp = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %none) <{reduction = "none"}> : (tensor<3x5x2x2xf32>, tensor<3x2x2xi64>, none) -> (tensor<3x2x2xf32>, tensor<3x5x2x2xf32>)
    return %a, %b, %lp : tensor<f32>, tensor<3x2x2xf32>, tensor<3x5x2x2xf32>
  }
}
// CHECK-LABEL: amk_task.program @loss
// CHECK: amk_task.kernel loss {{{.*}}iparams = array<i64: 3, 5, 4, 7, 2, 1, 1>, {{.*}}op = "onnx.NegativeLogLikelihoodLoss"}
// CHECK: amk_task.kernel loss {{{.*}}iparams = array<i64: 3, 5, 4, 7, 0, 0, 0>, {{.*}}op = "onnx.SoftmaxCrossEntropyLoss", variant = 1 : i64}

// -----

//--- data_movement.mlir
// Expand, Tile, DepthToSpace and constant Pad are strided copies (eb,
// rank, offsets, dims, source strides, destination strides): Expand reads
// with stride 0 along broadcast axes; Tile copies [r0, d0, r1, d1] with
// stride 0 along the repeats; DepthToSpace (DCR) is a 6-D transpose; Pad
// fills the result from its value (strides 0), then copies the input in.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @data_movement(%x: tensor<3x1xf32>, %t: tensor<2x3xi64>, %d: tensor<1x8x2x3xf32>) -> (tensor<2x3x4xf32>, tensor<4x9xi64>, tensor<1x2x4x6xf32>, tensor<4x2xf32>) {
    %shape = "onnx.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
    %e = "onnx.Expand"(%x, %shape) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
    %reps = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
    %tl = "onnx.Tile"(%t, %reps) : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<4x9xi64>
    %ds = "onnx.DepthToSpace"(%d) <{blocksize = 2 : i64}> : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    %pads = "onnx.Constant"() <{value = dense<[1, 0, 0, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %v = "onnx.Constant"() <{value = dense<2.5> : tensor<f32>}> : () -> tensor<f32>
    %none = "onnx.NoValue"() : () -> none
    %p = "onnx.Pad"(%x, %pads, %v, %none) : (tensor<3x1xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<4x2xf32>
    return %e, %tl, %ds, %p : tensor<2x3x4xf32>, tensor<4x9xi64>, tensor<1x2x4x6xf32>, tensor<4x2xf32>
  }
}
// CHECK-LABEL: amk_task.program @data_movement
// Copies run over fewer, longer rows: size-1 axes dropped (DepthToSpace's
// batch, the Pad's unit column) and short axes both sides step through
// contiguously merged (the Pad's fill: one row of 8).
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 4, 3, 0, 0, 2, 3, 4, 0, 1, 0, 12, 4, 1>, {{.*}}op = "onnx.Expand"}
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 8, 4, 0, 0, 2, 2, 3, 3, 0, 3, 0, 1, 18, 9, 3, 1>, {{.*}}op = "onnx.Tile"}
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 4, 5, 0, 0, 2, 2, 2, 3, 2, 6, 3, 24, 1, 12, 24, 12, 6, 2, 1>, {{.*}}op = "onnx.DepthToSpace"}
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 4, 1, 0, 0, 8, 0, 1>, {{.*}}op = "onnx.Pad"}
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 4, 1, 0, 2, 3, 1, 2>, {{.*}}op = "onnx.Pad"}

// -----

//--- resize.mlir
// Resize is one RESIZE kernel with compile-time tap tables: iparams rank,
// element bytes, input dims, output dims, taps per axis, table offsets.
// The tables hold one entry per output coordinate and tap, axis after
// axis (N, C, H: one tap each). Linear half_pixel 2x along W: output 0
// maps to -0.25 and reads inputs -1 (clamped to 0) and 0 with weights
// 0.25 and 0.75, output 1 (0.25) reads 0 and 1 with 0.75 and 0.25, ...
// Nearest (variant 1) takes one tap per axis.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @resize(%x: tensor<1x1x2x3xf32>, %i: tensor<1x1x2x3xi64>) -> (tensor<1x1x2x6xf32>, tensor<1x1x4x6xi64>) {
    %none = "onnx.NoValue"() : () -> none
    %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %y = "onnx.Resize"(%x, %none, %s, %none) <{mode = "linear"}> : (tensor<1x1x2x3xf32>, none, tensor<4xf32>, none) -> tensor<1x1x2x6xf32>
    %s2 = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %n = "onnx.Resize"(%i, %none, %s2, %none) <{mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}> : (tensor<1x1x2x3xi64>, none, tensor<4xf32>, none) -> tensor<1x1x4x6xi64>
    return %y, %n : tensor<1x1x2x6xf32>, tensor<1x1x4x6xi64>
  }
}
// CHECK-LABEL: amk_task.program @resize
// CHECK: amk_task.buffer {kind = "const", name = "resize.index", {{.*}}value = dense<[0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 2, 1, 2, 2, 2]>
// CHECK: amk_task.buffer {kind = "const", name = "resize.weight", {{.*}}value = dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 2.500000e-01, 7.500000e-01, 7.500000e-01, 2.500000e-01, 2.500000e-01, 7.500000e-01, 7.500000e-01, 2.500000e-01, 2.500000e-01, 7.500000e-01, 7.500000e-01, 2.500000e-01]>
// CHECK: amk_task.kernel resize {{{.*}}iparams = array<i64: 4, 4, 1, 1, 2, 3, 1, 1, 2, 6, 1, 1, 1, 2, 0, 1, 2, 4>, {{.*}}op = "onnx.Resize"}
// CHECK: amk_task.kernel resize {{{.*}}iparams = array<i64: 4, 8, 1, 1, 2, 3, 1, 1, 4, 6, 1, 1, 1, 1, 0, 1, 2, 6>, {{.*}}op = "onnx.Resize", variant = 1 : i64}

// -----

//--- resize_crop.mlir
// tf_crop_and_resize with a box reaching past the input: roi [0.5, 1.5]
// of 4 elements maps outputs 0, 1, 2 to 1.5, 3.0 and 4.5. The last lies
// outside, so its tap index is -1 and the extrapolation value travels as
// the kernel's one float parameter.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @resize_crop(%x: tensor<4xf32>) -> tensor<3xf32> {
    %none = "onnx.NoValue"() : () -> none
    %roi = "onnx.Constant"() <{value = dense<[0.5, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %sz = "onnx.Constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
    %y = "onnx.Resize"(%x, %roi, %none, %sz) <{mode = "nearest", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32}> : (tensor<4xf32>, tensor<2xf32>, none, tensor<1xi64>) -> tensor<3xf32>
    return %y : tensor<3xf32>
  }
}
// CHECK-LABEL: amk_task.program @resize_crop
// CHECK: amk_task.buffer {kind = "const", name = "resize.index", {{.*}}value = dense<[1, 3, -1]>
// CHECK: amk_task.kernel resize {{{.*}}fparams = array<f32: 7.000000e+00>, {{.*}}op = "onnx.Resize", variant = 1 : i64}

// -----

//--- small_ops.mlir
// Hardmax is softmax variant 2; inference Dropout copies its input and
// fills its mask with true; 1-D max pooling is 2-D pooling of planes one
// row high (H = 1, a 1 x 3 window).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @small_ops(%x: tensor<2x3x8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xi1>, tensor<2x3x6xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %h = "onnx.Hardmax"(%x) <{axis = 1 : i64}> : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %d, %m = "onnx.Dropout"(%x, %none, %none) : (tensor<2x3x8xf32>, none, none) -> (tensor<2x3x8xf32>, tensor<2x3x8xi1>)
    %p, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 3>}> : (tensor<2x3x8xf32>) -> (tensor<2x3x6xf32>, none)
    return %h, %d, %m, %p : tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xi1>, tensor<2x3x6xf32>
  }
}
// CHECK-LABEL: amk_task.program @small_ops
// CHECK: amk_task.kernel softmax {{{.*}}iparams = array<i64: 2, 3, 8>, {{.*}}op = "onnx.Hardmax", variant = 2 : i64}
// CHECK: amk_task.kernel copy {{{.*}}op = "onnx.Dropout"}
// CHECK: amk_task.kernel copy {{{.*}}iparams = array<i64: 1, 1, 0, 0, 48, 0, 1>, {{.*}}op = "onnx.Dropout"}
// CHECK: amk_task.kernel pool {{{.*}}iparams = array<i64: 2, 3, 1, 8, 3, 1, 3, 1, 6, 1, 1, 0, 0, 1, 1, 1, 0>, {{.*}}op = "onnx.MaxPool"}

// -----

//--- clip_max_only.mlir
// torch.clamp(x, max=c) exports Clip without a lower bound; grouped into a
// fused body the absent operand's NoValue comes along and must be read as
// "no bound" (torchvision's box decoding), not refused as an op.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @clip_max_only(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %f = "amk.fused_elementwise"(%x) ({
    ^bb0(%arg: tensor<4x8xf32>):
      %hi = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
      %none = "onnx.NoValue"() : () -> none
      %c = "onnx.Clip"(%arg, %none, %hi) : (tensor<4x8xf32>, none, tensor<f32>) -> tensor<4x8xf32>
      %e = "onnx.Exp"(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      amk.yield %e : tensor<4x8xf32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %f : tensor<4x8xf32>
  }
}
// CHECK-LABEL: amk_task.program @clip_max_only
// CHECK: amk_task.kernel elementwise

// -----

//--- conv_transpose.mlir
// ConvTranspose is one CONV_TRANSPOSE kernel: N, C, OC, group, then per
// spatial dim (padded to three) in, out, kernel, stride, begin pad,
// dilation. Here 2 groups, stride 2 with pads 1, output_padding 1.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x6xf32> {
    %y = "onnx.ConvTranspose"(%x, %w, %b) <{group = 2 : i64, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>}> : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
    return %y : tensor<1x6x6x6xf32>
  }
}
// CHECK-LABEL: amk_task.program @conv_transpose
// CHECK: amk_task.kernel conv_transpose {{{.*}}iparams = array<i64: 1, 4, 6, 2, 1, 1, 1, 1, 0, 1, 3, 6, 3, 2, 1, 1, 3, 6, 3, 2, 1, 1>, {{.*}}op = "onnx.ConvTranspose"}

// -----

//--- indexing.mlir
// TopK takes k from its result's extent (iparams outer, len, inner, k,
// largest); GatherND and ScatterND index with tuples (B, Ni, q, slice,
// elem bytes, index dtype, indexed dims...); ScatterElements adds along an
// axis (rank, axis, dtype, reduction 1 = add, index dtype, dims); CumSum
// scans (outer, len, inner, exclusive, reverse, dtype); EyeLike is a
// constant copied out.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @indexing(%x: tensor<4x8xf32>, %g: tensor<3x1xi64>, %u: tensor<3x8xf32>, %e: tensor<4x8xi64>) -> (tensor<4x2xf32>, tensor<4x2xi64>, tensor<3x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi64>) {
    %k = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
    %v:2 = "onnx.TopK"(%x, %k) : (tensor<4x8xf32>, tensor<1xi64>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
    %gi = "onnx.Constant"() <{value = dense<[[3], [0], [-1]]> : tensor<3x1xi64>}> : () -> tensor<3x1xi64>
    %gn = "onnx.GatherND"(%x, %gi) : (tensor<4x8xf32>, tensor<3x1xi64>) -> tensor<3x8xf32>
    %sn = "onnx.ScatterND"(%x, %gi, %u) : (tensor<4x8xf32>, tensor<3x1xi64>, tensor<3x8xf32>) -> tensor<4x8xf32>
    %ei = "onnx.Constant"() <{value = dense<1> : tensor<4x8xi64>}> : () -> tensor<4x8xi64>
    %se = "onnx.ScatterElements"(%x, %ei, %x) <{axis = 0 : i64, reduction = "add"}> : (tensor<4x8xf32>, tensor<4x8xi64>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %cs = "onnx.CumSum"(%x, %ax) <{reverse = 1 : i64}> : (tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
    %ey = "onnx.EyeLike"(%e) <{k = 1 : i64}> : (tensor<4x8xi64>) -> tensor<4x8xi64>
    return %v#0, %v#1, %gn, %sn, %se, %cs, %ey : tensor<4x2xf32>, tensor<4x2xi64>, tensor<3x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi64>
  }
}
// CHECK-LABEL: amk_task.program @indexing
// CHECK: amk_task.kernel topk {{{.*}}iparams = array<i64: 4, 8, 1, 2, 1, 1>, {{.*}}op = "onnx.TopK"}
// CHECK: amk_task.kernel gather_nd {{{.*}}iparams = array<i64: 1, 3, 1, 8, 4, 7, 4>, {{.*}}op = "onnx.GatherND"}
// CHECK: amk_task.kernel scatter_nd {{{.*}}iparams = array<i64: 3, 1, 8, 1, 0, 7, 4, 32>, {{.*}}op = "onnx.ScatterND"}
// CHECK: amk_task.kernel scatter_elements {{{.*}}iparams = array<i64: 2, 0, 1, 1, 7, 4, 8, 4, 8>, {{.*}}op = "onnx.ScatterElements"}
// CHECK: amk_task.kernel cumsum {{{.*}}iparams = array<i64: 4, 8, 1, 0, 1, 1>, {{.*}}op = "onnx.CumSum"}
// CHECK: amk_task.kernel copy {{{.*}}op = "onnx.EyeLike"}

// -----

//--- compress.mlir
// Compress with a constant condition is a GATHER of the kept positions
// (outer, axis length, inner, kept count, element bytes, int64 indices).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @compress(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
    %c = "onnx.Constant"() <{value = dense<[false, true, false, true]> : tensor<4xi1>}> : () -> tensor<4xi1>
    %y = "onnx.Compress"(%x, %c) <{axis = 1 : i64}> : (tensor<3x4xf32>, tensor<4xi1>) -> tensor<3x2xf32>
    return %y : tensor<3x2xf32>
  }
}
// CHECK-LABEL: amk_task.program @compress
// CHECK: amk_task.buffer {kind = "const", name = "compress.kept", {{.*}}value = dense<[1, 3]> : tensor<2xi64>}
// CHECK: amk_task.kernel gather {{{.*}}iparams = array<i64: 3, 4, 1, 2, 4, 7>, {{.*}}op = "onnx.Compress"}

// -----

//--- recurrent.mlir
// RNN/GRU/LSTM are one RECURRENT kernel each (variant 0/1/2), one row per
// (direction, batch): iparams seq, batch, input, hidden, directions,
// direction (2 bidirectional), layout, linear_before_reset, then three
// activation codes per direction (sigmoid 0, tanh 1, relu 2, ...).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 14 : i64}} {
  func.func @recurrent(%x: tensor<4x2x3xf32>, %w: tensor<2x20x3xf32>, %r: tensor<2x20x5xf32>, %lens: tensor<2xi32>, %gw: tensor<1x15x3xf32>, %gr: tensor<1x15x5xf32>) -> (tensor<4x2x2x5xf32>, tensor<2x2x5xf32>, tensor<1x2x5xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %lc = "onnx.Constant"() <{value = dense<[4, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %lc, %none, %none, %none) <{direction = "bidirectional", hidden_size = 5 : i64}> : (tensor<4x2x3xf32>, tensor<2x20x3xf32>, tensor<2x20x5xf32>, none, tensor<2xi32>, none, none, none) -> (tensor<4x2x2x5xf32>, tensor<2x2x5xf32>, none)
    %gy, %gh = "onnx.GRU"(%x, %gw, %gr, %none, %none, %none) <{hidden_size = 5 : i64, linear_before_reset = 1 : i64, activations = ["Sigmoid", "Relu"]}> : (tensor<4x2x3xf32>, tensor<1x15x3xf32>, tensor<1x15x5xf32>, none, none, none) -> (none, tensor<1x2x5xf32>)
    return %y, %yh, %gh : tensor<4x2x2x5xf32>, tensor<2x2x5xf32>, tensor<1x2x5xf32>
  }
}
// CHECK-LABEL: amk_task.program @recurrent
// CHECK: amk_task.kernel recurrent {{{.*}}iparams = array<i64: 4, 2, 3, 5, 2, 2, 0, 0, 0, 1, 1, 0, 1, 1>, {{.*}}op = "onnx.LSTM", variant = 2 : i64}
// CHECK: amk_task.kernel recurrent {{{.*}}iparams = array<i64: 4, 2, 3, 5, 1, 0, 0, 1, 0, 2, 1, 1, 1, 1>, {{.*}}op = "onnx.GRU", variant = 1 : i64}

// -----

//--- pad_modes.mlir
// Edge, reflect and wrap padding map each output coordinate to an input
// one per axis: a nearest RESIZE (variant 1) over the index table. Along
// W (3 -> 6, pads 2 and 1) reflect reads 2 1 0 1 2 1.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 19 : i64}} {
  func.func @pad_modes(%x: tensor<2x3xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>) {
    %pads = "onnx.Constant"() <{value = dense<[0, 2, 0, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
    %none = "onnx.NoValue"() : () -> none
    %r = "onnx.Pad"(%x, %pads, %none, %none) <{mode = "reflect"}> : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x6xf32>
    %e = "onnx.Pad"(%x, %pads, %none, %none) <{mode = "edge"}> : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x6xf32>
    %w = "onnx.Pad"(%x, %pads, %none, %none) <{mode = "wrap"}> : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x6xf32>
    return %r, %e, %w : tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>
  }
}
// CHECK-LABEL: amk_task.program @pad_modes
// CHECK: amk_task.buffer {kind = "const", name = "pad.index", {{.*}}value = dense<[0, 1, 2, 1, 0, 1, 2, 1]>
// CHECK: amk_task.buffer {kind = "const", name = "pad.index", {{.*}}value = dense<[0, 1, 0, 0, 0, 1, 2, 2]>
// CHECK: amk_task.buffer {kind = "const", name = "pad.index", {{.*}}value = dense<[0, 1, 1, 2, 0, 1, 2, 0]>
// CHECK: amk_task.kernel resize {{{.*}}op = "onnx.Pad", variant = 1 : i64}

// -----

//--- reduce_typed.mlir
// Reductions of other types than float32 are REDUCE kernels (outer, R,
// inner, POOL's mode, dtype) accumulated in double: a float64
// log-sum-exp (mode 9, dtype 11) and an int32 max (mode 0, dtype 6).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @reduce_typed(%x: tensor<2x3x4xf64>, %i: tensor<2x3xi32>) -> (tensor<2x1x4xf64>, tensor<2xi32>) {
    %ax = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %l = "onnx.ReduceLogSumExp"(%x, %ax) : (tensor<2x3x4xf64>, tensor<1xi64>) -> tensor<2x1x4xf64>
    %m = "onnx.ReduceMax"(%i, %ax) <{keepdims = 0 : i64}> : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<2xi32>
    return %l, %m : tensor<2x1x4xf64>, tensor<2xi32>
  }
}
// CHECK-LABEL: amk_task.program @reduce_typed
// CHECK: amk_task.kernel reduce {{{.*}}iparams = array<i64: 2, 3, 4, 9, 11>, {{.*}}op = "onnx.ReduceLogSumExp"}
// CHECK: amk_task.kernel reduce {{{.*}}iparams = array<i64: 2, 3, 1, 0, 6>, {{.*}}op = "onnx.ReduceMax"}

// -----

//--- einsum.mlir
// Einsum numbers its labels output first: "bij,bjk->bik" gives labels
// b, i, k (output), j (contracted) with sizes 2, 3, 5, 4; each input has
// a dtype and a stride per label (0 where it lacks the label).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @einsum(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %s: tensor<3x3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>) {
    %y = "onnx.Einsum"(%a, %b) <{equation = "bij,bjk->bik"}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %d = "onnx.Einsum"(%s) <{equation = "ii->i"}> : (tensor<3x3xf32>) -> tensor<3xf32>
    return %y, %d : tensor<2x3x5xf32>, tensor<3xf32>
  }
}
// CHECK-LABEL: amk_task.program @einsum
// CHECK: amk_task.kernel einsum {{{.*}}iparams = array<i64: 2, 4, 3, 1, 2, 3, 5, 4, 1, 12, 4, 0, 1, 1, 20, 0, 1, 5>, {{.*}}op = "onnx.Einsum"}
// CHECK: amk_task.kernel einsum {{{.*}}iparams = array<i64: 1, 1, 1, 1, 3, 1, 4>, {{.*}}op = "onnx.Einsum"}

// -----

//--- grid_sample.mlir
// GridSample: N, C, H, W, Ho, Wo, mode (2 bicubic), padding (1 border),
// align_corners. (Bicubic with border or reflection padding follows
// PyTorch and ONNX Runtime, which move each tap inside; the reference
// interpreter follows the ONNX reference and differs there, so the run
// against it uses zeros padding.)
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 16 : i64}} {
  func.func @grid_sample(%x: tensor<1x2x5x6xf32>, %g: tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32> {
    %y = "onnx.GridSample"(%x, %g) <{mode = "bicubic", padding_mode = "border"}> : (tensor<1x2x5x6xf32>, tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
    %z = "onnx.GridSample"(%x, %g) <{mode = "bicubic"}> : (tensor<1x2x5x6xf32>, tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
    return %z : tensor<1x2x3x4xf32>
  }
}
// CHECK-LABEL: amk_task.program @grid_sample
// CHECK: amk_task.kernel grid_sample {{{.*}}iparams = array<i64: 1, 2, 5, 6, 3, 4, 2, 0, 0>, {{.*}}op = "onnx.GridSample"}

// -----

//--- channel_ops.mlir
// InstanceNormalization and LRN over [N, C, S] (iparams N, C, S; LRN also
// its size), OneHot (outer, depth, inner, index dtype, element bytes) and
// ReverseSequence with constant lengths as a GatherElements along time.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @channel_ops(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<4xi64>, %t: tensor<4x3xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<4x6xf32>, tensor<4x3xf32>) {
    %in = "onnx.InstanceNormalization"(%x, %s, %b) : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
    %l = "onnx.LRN"(%x) <{size = 3 : i64}> : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    %d = "onnx.Constant"() <{value = dense<6> : tensor<i64>}> : () -> tensor<i64>
    %v = "onnx.Constant"() <{value = dense<[0.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %o = "onnx.OneHot"(%i, %d, %v) : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x6xf32>
    %lens = "onnx.Constant"() <{value = dense<[4, 2, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
    %r = "onnx.ReverseSequence"(%t, %lens) <{time_axis = 0 : i64, batch_axis = 1 : i64}> : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
    return %in, %l, %o, %r : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<4x6xf32>, tensor<4x3xf32>
  }
}
// CHECK-LABEL: amk_task.program @channel_ops
// CHECK: amk_task.kernel instance_norm {{{.*}}iparams = array<i64: 2, 3, 20>, {{.*}}op = "onnx.InstanceNormalization"}
// CHECK: amk_task.kernel lrn {{{.*}}iparams = array<i64: 2, 3, 20, 3>, {{.*}}op = "onnx.LRN"}
// CHECK: amk_task.kernel one_hot {{{.*}}iparams = array<i64: 4, 6, 1, 7, 4>, {{.*}}op = "onnx.OneHot"}
// CHECK: amk_task.kernel gather_elements {{{.*}}op = "onnx.ReverseSequence"}

// -----

//--- det.mlir
// Det of a batch of square matrices: DET (batch, n).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @det(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
    %d = "onnx.Det"(%x) : (tensor<2x3x3xf32>) -> tensor<2xf32>
    return %d : tensor<2xf32>
  }
}
// CHECK-LABEL: amk_task.program @det
// CHECK: amk_task.kernel det {{{.*}}iparams = array<i64: 2, 3>, {{.*}}op = "onnx.Det"}


// -----

//--- quantized.mlir
// Integer ops: QuantizeLinear (x dtype, y dtype, axis size, inner: per
// tensor, one run over all 2*5*6*7 elements); amk.qconv with group 1 on
// the blocked direct variant 2 (the AMK_SP_* iparams, then x zero point
// 128, unsigned, uint8 result with zero point 3, no residual, depth
// ceil(5/4)*4*3*3 = 72); a grouped amk.qconv (variant 0: 8 groups of one
// input channel, stride 2) reading the first one's uint8 result with a
// float result; amk.qgemm over the quantized input's last axis (rows
// 2*5*6, N 9, K 7, signed: no; uint8 result with zero point 3) and the
// DequantizeLinear (variant 1) of both uint8 results.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @quantized(%x: tensor<2x5x6x7xf32>) -> (tensor<2x8x6x7xf32>, tensor<2x8x3x4xf32>, tensor<2x5x6x9xf32>) {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<2x5x6x7xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x5x6x7xui8>
    %w = "onnx.Constant"() <{value = dense<[[[[-67, 24, 12], [-94, -33, 107], [27, -6, 33]], [[21, -111, 28], [-124, 105, 87], [-7, -61, 14]], [[-68, -78, 127], [56, -7, 11], [87, 13, -6]], [[-26, 36, 93], [-89, -68, 35], [-89, 95, 110]], [[6, -28, 62], [-124, 44, 71], [-111, -87, 67]]], [[[118, 24, -117], [-50, 72, -120], [83, 94, -59]], [[-6, 25, 57], [108, 97, -28], [55, 74, 108]], [[-18, -26, 59], [78, 20, -14], [119, 112, -93]], [[97, -34, -103], [-118, -93, -1], [-72, -61, 120]], [[45, -16, 72], [33, 91, -50], [-20, 2, 86]]], [[[-29, 19, -38], [9, 22, -23], [22, -68, 104]], [[-41, 47, 107], [110, -120, 92], [-56, 126, 28]], [[44, 51, -86], [51, 93, -44], [119, 11, 104]], [[19, 18, -101], [55, 40, -73], [35, 85, 125]], [[19, -59, -55], [-96, -111, -4], [91, 36, 126]]], [[[-4, -105, -39], [77, -110, -22], [102, -89, -122]], [[-52, -18, 69], [-21, 96, -97], [-116, 27, 30]], [[67, -116, -31], [56, 23, -43], [14, 98, 109]], [[124, -56, 2], [-67, -118, -48], [-126, -108, -100]], [[26, 10, -119], [115, -77, 121], [-23, -53, 29]]], [[[-60, -88, 49], [-117, 123, 95], [-41, -47, -35]], [[118, -92, 102], [93, -31, -31], [-10, 95, 6]], [[-29, 37, 94], [25, 47, 16], [-101, 31, 122]], [[113, 80, 2], [-58, -17, 35], [57, 56, -67]], [[112, -50, -16], [123, -61, 6], [-50, 13, -41]]], [[[-125, 74, -21], [125, 21, -47], [-122, -31, 30]], [[23, 34, -93], [-112, 35, 33], [-42, -8, -37]], [[46, 107, -37], [28, 53, -56], [61, -2, -122]], [[23, -112, 117], [46, -122, 119], [-33, -63, 33]], [[-11, -51, 24], [26, -46, -82], [-34, -80, -47]]], [[[67, -33, 89], [25, -60, -51], [74, -31, -101]], [[70, 81, -121], [121, 18, 48], [61, -94, -48]], [[1, -71, 40], [78, -59, -66], [-44, -80, 46]], [[-16, 39, 51], [-103, -101, 26], [-45, 115, -42]], [[45, 86, -70], [-15, 80, 92], [118, -84, -107]]], [[[-41, 62, 39], [-72, 99, 18], [-12, -58, -70]], [[74, -97, -119], [8, 118, -79], [-47, 79, 87]], [[87, 20, -81], [94, -56, -40], [79, 84, 37]], [[-106, 79, 31], [-39, 23, -94], [-20, -53, 5]], [[76, 90, -58], [-9, -39, 35], [-21, -53, -20]]]]> : tensor<8x5x3x3xi8>}> : () -> tensor<8x5x3x3xi8>
    %ws = "onnx.Constant"() <{value = dense<[0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007, 0.008]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %wz = "onnx.Constant"() <{value = dense<0> : tensor<8xi8>}> : () -> tensor<8xi8>
    %b = "onnx.Constant"() <{value = dense<[0.5, -0.5, 1.0, -1.0, 0.25, -0.25, 2.0, 0.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %ys = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %yz = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %c = "amk.qconv"(%q, %s, %z, %w, %ws, %wz, %b, %none, %none, %none, %ys, %yz) <{activation = "relu", kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<2x5x6x7xui8>, tensor<f32>, tensor<ui8>, tensor<8x5x3x3xi8>, tensor<8xf32>, tensor<8xi8>, tensor<8xf32>, none, none, none, tensor<f32>, tensor<ui8>) -> tensor<2x8x6x7xui8>
    %cd = "onnx.DequantizeLinear"(%c, %ys, %yz) : (tensor<2x8x6x7xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x8x6x7xf32>
    %dw = "onnx.Constant"() <{value = dense<[[[[18, -23, -118], [108, -22, -88], [-76, -126, -5]]], [[[114, 86, 98], [32, 125, 3], [-16, 16, 116]]], [[[125, 110, 56], [-71, -119, 63], [-11, 87, 65]]], [[[42, 64, 5], [119, -54, 12], [-40, 100, -69]]], [[[93, -110, 92], [23, 121, -54], [-97, 80, -65]]], [[[-116, -119, 104], [78, 50, 4], [109, -77, 102]]], [[[99, 103, -17], [20, -115, -124], [-4, 63, -97]]], [[[-84, 1, -51], [-66, 42, -122], [7, 10, -22]]]]> : tensor<8x1x3x3xi8>}> : () -> tensor<8x1x3x3xi8>
    %dws = "onnx.Constant"() <{value = dense<0.004> : tensor<f32>}> : () -> tensor<f32>
    %d = "amk.qconv"(%c, %ys, %yz, %dw, %dws, %none, %none, %none, %none, %none, %none, %none) <{group = 8 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<2x8x6x7xui8>, tensor<f32>, tensor<ui8>, tensor<8x1x3x3xi8>, tensor<f32>, none, none, none, none, none, none, none) -> tensor<2x8x3x4xf32>
    %gw = "onnx.Constant"() <{value = dense<[[-114, 113, 106, 29, -98, -40, -95, -63, 121], [93, 11, -5, 80, 73, -112, -37, -71, -77], [-96, 9, 100, 82, -97, -84, -66, 75, -57], [108, 100, 79, -95, 83, 108, -126, -3, 33], [19, 93, -25, -115, 66, -58, -64, -59, 31], [7, 6, -19, -114, -6, -45, 71, 82, -127], [92, -113, 71, -95, -116, -96, -115, -110, -4]]> : tensor<7x9xi8>}> : () -> tensor<7x9xi8>
    %gws = "onnx.Constant"() <{value = dense<0.003> : tensor<f32>}> : () -> tensor<f32>
    %g = "amk.qgemm"(%q, %s, %z, %gw, %gws, %none, %none, %ys, %yz) : (tensor<2x5x6x7xui8>, tensor<f32>, tensor<ui8>, tensor<7x9xi8>, tensor<f32>, none, none, tensor<f32>, tensor<ui8>) -> tensor<2x5x6x9xui8>
    %gd = "onnx.DequantizeLinear"(%g, %ys, %yz) : (tensor<2x5x6x9xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x5x6x9xf32>
    return %cd, %d, %gd : tensor<2x8x6x7xf32>, tensor<2x8x3x4xf32>, tensor<2x5x6x9xf32>
  }
}
// CHECK-LABEL: amk_task.program @quantized
// CHECK: amk_task.kernel quantize {{{.*}}iparams = array<i64: 1, 2, 1, 420>, {{.*}}op = "onnx.QuantizeLinear"}
// CHECK: amk_task.kernel qconv {{{.*}}iparams = array<i64: 2, 5, 6, 7, 8, 3, 3, 6, 7, 1, 1, 1, 1, 1, 1, 1, 1, 128, 0, 2, 3, 0, 0, 72>, {{.*}}op = "amk.qconv", variant = 2 : i64}
// CHECK: amk_task.kernel quantize {{{.*}}op = "onnx.DequantizeLinear", variant = 1 : i64}
// CHECK: amk_task.kernel qconv {{{.*}}op = "amk.qconv"}
// CHECK: amk_task.kernel qgemm {{{.*}}iparams = array<i64: 60, 9, 7, 0, 128, 2, 3, 0>, {{.*}}op = "amk.qgemm"}
// CHECK: amk_task.kernel quantize {{{.*}}op = "onnx.DequantizeLinear", variant = 1 : i64}

// -----

//--- weight_only.mlir
// Weight-only amk.wgemm on WGEMM: int4 in blocks of 32 (group 32), packed
// in 64-column panels of words of 8 nibbles (3 panels x 8 x 64 x 4 = 6144
// bytes); scale and scale x zero point tables of 3 panels x 2 groups x 64
// floats (signed int4 is stored plus 8, so the zero-point table is there
// without a zero point); the bias times beta; column tiles start on a
// panel; activation_bits (int8 activations) is the last iparam.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%x: tensor<1x64xf32>) -> tensor<1x130xf32> {
    %none = onnx.NoValue
    %w = "onnx.Constant"() <{value = dense<3> : tensor<64x130xi4>}> : () -> tensor<64x130xi4>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<2x130xf32>}> : () -> tensor<2x130xf32>
    %b = "onnx.Constant"() <{value = dense<1.0> : tensor<130xf32>}> : () -> tensor<130xf32>
    %y = "amk.wgemm"(%x, %w, %ws, %none, %b) <{axis = 0 : i64, block_size = 32 : i64, beta = 2.0 : f32, activation = "relu", activation_bits = 8 : i64}> : (tensor<1x64xf32>, tensor<64x130xi4>, tensor<2x130xf32>, none, tensor<130xf32>) -> tensor<1x130xf32>
    return %y : tensor<1x130xf32>
  }
}
// CHECK-LABEL: amk_task.program @main_graph
// CHECK-DAG: amk_task.buffer {kind = "const", {{.*}}size = 6144 : i64, type = tensor<6144xi8>
// CHECK-DAG: amk_task.buffer {kind = "const", {{.*}}size = 1536 : i64, type = tensor<384xf32>
// CHECK-DAG: amk_task.buffer {kind = "const", {{.*}}size = 520 : i64, type = tensor<130xf32>, value = dense<2.000000e+00>
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 1, 130, 64, 4, 32, 1, 8>, {{.*}}op = "amk.wgemm"}
// One row: the two workers split the columns, on a panel.
// CHECK: amk_task.task {{{.*}}tile = array<i64: 0, 1, 0, 64>
// CHECK: amk_task.task {{{.*}}tile = array<i64: 0, 1, 64, 130>
// COLS-LABEL: amk_task.program @main_graph
// COLS: tile = array<i64: 0, 1, 0, 64>
// COLS: tile = array<i64: 0, 1, 64, 130>

// -----

//--- weight_only_bf16.mlir
// int8 weights per column with bf16 activations: 8-bit panels (2 panels x
// 32 x 64 bytes) and a_bits 16 as the last iparam.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%x: tensor<8x32xf32>) -> tensor<8x100xf32> {
    %none = onnx.NoValue
    %w = "onnx.Constant"() <{value = dense<3> : tensor<32x100xi8>}> : () -> tensor<32x100xi8>
    %ws = "onnx.Constant"() <{value = dense<0.5> : tensor<100xf32>}> : () -> tensor<100xf32>
    %y = "amk.wgemm"(%x, %w, %ws, %none, %none) <{activation_bits = 16 : i64}> : (tensor<8x32xf32>, tensor<32x100xi8>, tensor<100xf32>, none, none) -> tensor<8x100xf32>
    return %y : tensor<8x100xf32>
  }
}
// CHECK-LABEL: amk_task.program @main_graph
// CHECK-DAG: amk_task.buffer {kind = "const", {{.*}}size = 4096 : i64, type = tensor<4096xi8>
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 8, 100, 32, 8, 32, 0, 16>, {{.*}}op = "amk.wgemm"}

// -----

//--- nbits_error.mlir
// A MatMulNBits amk-lower-qdq did not rewrite (here: g_idx) is refused by
// its domain and type, saying what it needs.
module attributes {onnx.opset_import = {ai.onnx = 21 : i64, com.microsoft = 1 : i64}} {
  func.func @nbits_gidx(%a: tensor<3x4xf32>) -> tensor<3x2xf32> {
    %none = onnx.NoValue
    %b = "onnx.Constant"() <{value = dense<0> : tensor<2x1x8xui8>}> : () -> tensor<2x1x8xui8>
    %s = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %g = "onnx.Constant"() <{value = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
    // expected-error @+1 {{amk-schedule-megakernel: the runtime has no kernel for op 'com.microsoft.MatMulNBits': ONNX Runtime's MatMulNBits runs as amk.wgemm when amk-lower-qdq (in amk-graph-opt) rewrites it}}
    %y = "onnx.Generic"(%a, %b, %s, %none, %g) <{domain = "com.microsoft", onnx_attrs = {K = 4 : i64, N = 2 : i64, bits = 4 : i64, block_size = 16 : i64}, op_type = "MatMulNBits", region_names = []}> : (tensor<3x4xf32>, tensor<2x1x8xui8>, tensor<2xf32>, none, tensor<4xi32>) -> tensor<3x2xf32>
    return %y : tensor<3x2xf32>
  }
}

// -----

//--- vector_width.mlir
// W16: amk_task.kernel conv {{{.*}}op = "onnx.Conv", variant = 2 : i64}
// W16: amk_task.kernel conv {{{.*}}op = "onnx.Conv", variant = 2 : i64}
// W8-NOT: variant = 2
// W8: amk_task.kernel conv {{{.*}}op = "onnx.Conv", variant = 1 : i64}
// W8: amk_task.kernel gemm {{{.*}}op = "onnx.Conv"}
// W8DIRECT: variant = 2
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @vector_width(%x: tensor<1x16x12x12xf32>) -> tensor<1x32x6x6xf32> {
    %w = "onnx.Constant"() <{value = dense<0.05> : tensor<32x16x3x3xf32>}> : () -> tensor<32x16x3x3xf32>
    %w2 = "onnx.Constant"() <{value = dense<0.02> : tensor<32x32x1x1xf32>}> : () -> tensor<32x32x1x1xf32>
    %none = "onnx.NoValue"() : () -> none
    %c = "onnx.Conv"(%x, %w, %none) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x16x12x12xf32>, tensor<32x16x3x3xf32>, none) -> tensor<1x32x6x6xf32>
    %p = "onnx.Conv"(%c, %w2, %none) <{kernel_shape = array<i64: 1, 1>}> : (tensor<1x32x6x6xf32>, tensor<32x32x1x1xf32>, none) -> tensor<1x32x6x6xf32>
    return %p : tensor<1x32x6x6xf32>
  }
}
// -----

//--- roi_align.mlir
// RoiAlign, average and max, on the ROI_ALIGN kernel (one row per region
// and channel); a batch index out of range stops the run.
// CHECK-LABEL: amk_task.program @main_graph
// CHECK: amk_task.kernel roi_align {{{.*}}iparams = array<i64: 2, 3, 8, 8, 2, 2, 3, 2, 0, 1, 7>, {{.*}}op = "onnx.RoiAlign"}
// CHECK: amk_task.kernel roi_align {{{.*}}iparams = array<i64: 2, 3, 8, 8, 2, 3, 3, 0, 1, 0, 7>, {{.*}}op = "onnx.RoiAlign"}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 16 : i64}} {
  func.func @main_graph(%x: tensor<2x3x8x8xf32> {onnx.name = "x"}, %rois: tensor<2x4xf32> {onnx.name = "rois"}, %batch: tensor<2xi64> {onnx.name = "batch"}) -> (tensor<2x3x2x3xf32> {onnx.name = "a"}, tensor<2x3x3x3xf32> {onnx.name = "m"}) {
    %a = "onnx.RoiAlign"(%x, %rois, %batch) <{output_height = 2 : i64, output_width = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 0.5 : f32}> : (tensor<2x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x2x3xf32>
    %m = "onnx.RoiAlign"(%x, %rois, %batch) <{coordinate_transformation_mode = "output_half_pixel", mode = "max", output_height = 3 : i64, output_width = 3 : i64}> : (tensor<2x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x3x3x3xf32>
    return %a, %m : tensor<2x3x2x3xf32>, tensor<2x3x3x3xf32>
  }
}
// -----

//--- tfidf.mlir
// TfIdfVectorizer on the TFIDF kernel: the pool grouped by length and
// sorted at compile time (bigrams [0 1], [2 3], [3 3] with output indexes
// 3, 2, 4, then the unigram 4 at 0), iparams B, L, D, min and max length,
// max skip, mode (2 TFIDF), token dtype (6 int32), then per length the
// table offset and count. The repeated unigram 4 keeps its last index;
// weights follow output indexes (index 1 keeps 7.0 though no n-gram
// counts there any more).
// CHECK-LABEL: amk_task.program @main_graph
// CHECK: amk_task.buffer {kind = "const", name = "tfidf.pool", {{.*}}value = dense<[4, 0, 0, 1, 3, 2, 3, 2, 3, 3, 4]>
// CHECK: amk_task.buffer {kind = "const", name = "tfidf.weight", {{.*}}value = dense<[5.000000e-01, 7.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK: amk_task.kernel tfidf {{{.*}}iparams = array<i64: 3, 9, 5, 1, 2, 1, 2, 6, 0, 1, 2, 3>, {{.*}}op = "onnx.TfIdfVectorizer"}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 9 : i64}} {
  func.func @main_graph(%x: tensor<3x9xi32> {onnx.name = "x"}) -> (tensor<3x5xf32> {onnx.name = "y"}) {
    %y = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 2 : i64, max_skip_count = 1 : i64, min_gram_length = 1 : i64, mode = "TFIDF", ngram_counts = array<i64: 0, 2>, ngram_indexes = array<i64: 1, 0, 3, 2, 4>, pool_int64s = array<i64: 4, 4, 0, 1, 2, 3, 3, 3>, weights = array<f32: 7.0, 0.5, 3.0, 2.0, 4.0>}> : (tensor<3x9xi32>) -> tensor<3x5xf32>
    return %y : tensor<3x5xf32>
  }
}

// -----

//--- random.mlir
// Random generators on the RANDOM kernel: each draw is computed from its
// index (SplitMix64 is a counter through a mixer), so tiles run apart and
// the values are the interpreter's, run after run. iparams: count,
// classes, samples, input and output dtypes, the seed + 1 as the counter's
// start (seed 0 when absent); fparams: low/high or mean/scale.
// CHECK-LABEL: amk_task.program @main_graph
// CHECK: amk_task.kernel random {buffers = array<i64: -1, {{[0-9]+}}>, fparams = array<f32: 1.000000e+00, 2.000000e+00>, iparams = array<i64: 2100, 1, 1, 0, 1, 6>, {{.*}}op = "onnx.RandomNormal", variant = 1 : i64}
// CHECK: amk_task.kernel random {buffers = array<i64: -1, {{[0-9]+}}>, fparams = array<f32: -1.000000e+00, 3.000000e+00>, iparams = array<i64: 6, 1, 1, 0, 11, 1>, {{.*}}op = "onnx.RandomUniformLike"}
// CHECK: amk_task.kernel random {{{.*}}iparams = array<i64: 20, 1, 1, 1, 6, 3>, {{.*}}op = "onnx.Bernoulli", variant = 2 : i64}
// CHECK: amk_task.kernel random {{{.*}}iparams = array<i64: 3, 6, 5, 1, 6, 4>, {{.*}}op = "onnx.Multinomial", variant = 3 : i64}
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%arg0: tensor<2x3xi64> {onnx.name = "x"}, %arg1: tensor<4x5xf32> {onnx.name = "p"}, %arg2: tensor<3x6xf32> {onnx.name = "l"}) -> (tensor<3x700xf32> {onnx.name = "n"}, tensor<2x3xf64> {onnx.name = "u"}, tensor<4x5xi32> {onnx.name = "b"}, tensor<3x5xi32> {onnx.name = "m"}) attributes {onnx.graph_name = "g"} {
    %0 = "onnx.RandomNormal"() <{mean = 1.000000e+00 : f32, scale = 2.000000e+00 : f32, seed = 5.000000e+00 : f32, shape = array<i64: 3, 700>}> : () -> tensor<3x700xf32>
    %1 = "onnx.RandomUniformLike"(%arg0) <{dtype = 11 : i64, high = 3.000000e+00 : f32, low = -1.000000e+00 : f32}> : (tensor<2x3xi64>) -> tensor<2x3xf64>
    %2 = "onnx.Bernoulli"(%arg1) <{dtype = 6 : i64, seed = 2.000000e+00 : f32}> : (tensor<4x5xf32>) -> tensor<4x5xi32>
    %3 = "onnx.Multinomial"(%arg2) <{sample_size = 5 : i64, seed = 3.000000e+00 : f32}> : (tensor<3x6xf32>) -> tensor<3x5xi32>
    return %0, %1, %2, %3 : tensor<3x700xf32>, tensor<2x3xf64>, tensor<4x5xi32>, tensor<3x5xi32>
  }
}

// -----

//--- shared_panels.mlir
// An imported (resource) weight is packed into a resource named after it,
// once for the two products that read it: one constant buffer here, and
// one attribute for every program compiled in the context (amk-compile's
// prefill and decode variants share it).
// CHECK-LABEL: amk_task.program @main_graph
// CHECK: kind = "const", name = "{{.*}}.panels", size = 4096 : i64, type = tensor<16x64xf32>, value = dense_resource<w.amk_panels_16x8> : tensor<16x64xf32>}
// CHECK-NOT: kind = "const"
// CHECK: amk_task.kernel gemm
// CHECK: amk_task.kernel gemm
// CHECK: w.amk_panels_16x8: "0x40000000
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @main_graph(%x: tensor<2x16xf32> {onnx.name = "x"}, %y: tensor<2x16xf32> {onnx.name = "y"}) -> (tensor<2x8xf32> {onnx.name = "a"}, tensor<2x8xf32> {onnx.name = "b"}) {
    %w = "onnx.Constant"() <{value = dense_resource<w> : tensor<16x8xf32>}> {onnx.name = "w"} : () -> tensor<16x8xf32>
    %a = "onnx.MatMul"(%x, %w) : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
    %b = "onnx.MatMul"(%y, %w) : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
    return %a, %b : tensor<2x8xf32>, tensor<2x8xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f0000803f0000c03f000000400000204000004040000000000000003f"
    }
  }
#-}

// -----

//--- shared_weight_only.mlir
// Weight-only products whose int8 weights and scales are imported (or
// amk-quantize-weights') resources: the panels and the scale table are
// resources named after them and the scale's name, made once for both
// products (one constant buffer each) and for every program of the
// context.
// CHECK-LABEL: amk_task.program @main_graph
// CHECK: kind = "const", name = "{{.*}}.wgemm", size = 1024 : i64, type = tensor<1024xi8>, value = dense_resource<q.amk_wgemm_a1_b0_[[H:[0-9a-f]+]]> : tensor<1024xi8>}
// CHECK: kind = "const", name = "{{.*}}.wgemm_scale", offset = 1024 : i64, size = 256 : i64, type = tensor<64xf32>, value = dense_resource<q.amk_wgemm_a1_b0_[[H]].scale> : tensor<64xf32>}
// CHECK-NOT: kind = "const"
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 2, 8, 16, 8, 16, 0, 0>
// CHECK: amk_task.kernel wgemm
// The panel's row k = 0: q's first row (-100 ... -93), then zeros.
// CHECK: q.amk_wgemm_a1_b0_[[H]]: "0x400000009C9D9E9FA0A1A2A300000000
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @main_graph(%x: tensor<2x16xf32> {onnx.name = "x"}, %y: tensor<2x16xf32> {onnx.name = "y"}) -> (tensor<2x8xf32> {onnx.name = "a"}, tensor<2x8xf32> {onnx.name = "b"}) {
    %none = onnx.NoValue
    %q = "onnx.Constant"() <{value = dense_resource<q> : tensor<16x8xi8>}> {onnx.name = "q"} : () -> tensor<16x8xi8>
    %s = "onnx.Constant"() <{value = dense_resource<s> : tensor<8xf32>}> {onnx.name = "s"} : () -> tensor<8xf32>
    %a = "amk.wgemm"(%x, %q, %s, %none, %none) <{axis = 1 : i64}> : (tensor<2x16xf32>, tensor<16x8xi8>, tensor<8xf32>, none, none) -> tensor<2x8xf32>
    %b = "amk.wgemm"(%y, %q, %s, %none, %none) <{axis = 1 : i64}> : (tensor<2x16xf32>, tensor<16x8xi8>, tensor<8xf32>, none, none) -> tensor<2x8xf32>
    return %a, %b : tensor<2x8xf32>, tensor<2x8xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      q: "0x010000009c9d9e9fa0a1a2a39fa0a1a2a3a4a5a6a2a3a4a5a6a7a8a9a5a6a7a8a9aaabaca8a9aaabacadaeafabacadaeafb0b1b2aeafb0b1b2b3b4b5b1b2b3b4b5b6b7b8b4b5b6b7b8b9babbb7b8b9babbbcbdbebabbbcbdbebfc0c1bdbebfc0c1c2c3c4c0c1c2c3c4c5c6c7c3c4c5c6c7c8c9cac6c7c8c9cacbcccdc9cacbcccdcecfd0",
      s: "0x040000000000003f0000003f0000003f0000003f0000003f0000003f0000003f0000003f"
    }
  }
#-}

// -----

//--- unit_transpose.mlir
// A Transpose that only moves axes of size 1 (a decoder's per-token
// [1, 1, H, D] -> [1, H, 1, D]) is a view: no copy, the Relu reads the
// product's buffer. One that swaps two longer axes still copies.
// CHECK-LABEL: amk_task.program @unit_transpose
// CHECK-NOT: amk_task.kernel copy
// CHECK: amk_task.kernel elementwise
// CHECK-NOT: amk_task.kernel
// CHECK: amk_task.kernel copy
// CHECK-NOT: amk_task.kernel copy
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @unit_transpose(%x: tensor<1x1x4x8xf32>) -> (tensor<1x4x1x8xf32>, tensor<1x1x8x4xf32>) {
    %t = "onnx.Transpose"(%x) <{perm = array<i64: 0, 2, 1, 3>}> : (tensor<1x1x4x8xf32>) -> tensor<1x4x1x8xf32>
    %r = "onnx.Relu"(%t) : (tensor<1x4x1x8xf32>) -> tensor<1x4x1x8xf32>
    %u = "onnx.Transpose"(%x) <{perm = array<i64: 1, 0, 3, 2>}> : (tensor<1x1x4x8xf32>) -> tensor<1x1x8x4xf32>
    return %r, %u : tensor<1x4x1x8xf32>, tensor<1x1x8x4xf32>
  }
}

// -----

//--- gated_products.mlir
// A SwiGLU's gate (SiLU as quick_gelu with alpha 1) and up products of one
// A, then their Mul: one GEMM over interleaved panels (32 gate columns,
// then the 32 up columns of the same outputs; N = 36 pads to two panels,
// 128 columns), writing act(gate) * up into the 36 outputs; no Mul task.
// The gate's weight is read transposed (Gemm's perm_b), the up's as
// stored. fuse-gated-products=false keeps three kernels.
// CHECK-LABEL: amk_task.program @gated_products
// CHECK-NOT: amk_task.kernel elementwise
// CHECK: amk_task.kernel gemm {{{.*}}iparams = array<i64: 1, 5, 128, 3, 0, 0, 180, 3, 64, 36, 0, 0, 0, 0, 0, {{[0-9]+}}, 1, 1>
// CHECK-NOT: amk_task.kernel elementwise
// NOGATED-LABEL: amk_task.program @gated_products
// NOGATED: amk_task.kernel gemm
// NOGATED: amk_task.kernel gemm
// NOGATED: amk_task.kernel elementwise
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gated_products(%x: tensor<1x5x3xf32>) -> tensor<1x5x36xf32> {
    %none = onnx.NoValue
    %wg = "onnx.Constant"() <{value = dense<[[-0.095, -0.860, 0.006], [-0.082, 2.774, -0.193], [1.271, 1.320, -0.186], [1.169, -2.177, 0.095], [0.857, -2.398, -1.159], [1.056, -0.257, -1.098], [-0.374, -0.543, 0.724], [0.454, -0.280, -0.665], [-0.054, 1.325, 0.349], [0.639, -0.151, -1.292], [-0.711, 0.651, 0.103], [-0.904, -1.618, 0.111], [-0.340, -0.351, -0.329], [0.284, 0.294, 0.962], [0.928, 1.332, 0.806], [-0.336, -0.054, 0.494], [-0.310, 0.549, 1.154], [-0.801, -1.770, 1.194], [0.018, 0.709, -1.332], [1.733, 0.739, -0.126], [-0.352, 0.114, -0.167], [-0.279, -1.120, 1.263], [-0.040, 0.075, 0.093], [-2.358, 0.527, -0.329], [-0.289, 0.070, -0.972], [0.843, -0.696, -0.904], [-0.862, 0.159, 0.746], [-0.595, -1.510, 1.062], [-1.065, 1.195, -0.054], [-0.698, -0.640, 0.462], [0.889, -0.198, 0.947], [2.087, -0.208, -1.149], [-1.054, -1.390, -0.640], [-0.724, -1.325, 0.530], [-2.611, -1.321, 2.015], [1.038, 0.523, 0.457]]> : tensor<36x3xf32>}> : () -> tensor<36x3xf32>
    %wu = "onnx.Constant"() <{value = dense<[[1.734, 0.348, -0.941, 0.907, 0.018, -0.615, -0.634, -0.993, 0.048, 1.069, -0.325, 0.421, 1.876, -1.215, 0.258, -0.306, -1.059, -1.026, -0.015, 0.434, -0.532, 0.054, 0.722, 0.297, 0.869, 0.461, 0.488, 1.827, 0.623, 0.129, 0.710, -0.919, -0.338, 0.793, 0.631, 1.548], [0.010, -1.462, 1.947, 1.093, -1.059, 1.376, 0.032, -1.814, -0.420, -0.509, 1.591, -0.792, -0.254, -0.277, -0.379, -0.914, 0.219, 1.077, 0.624, -0.927, -1.150, 0.119, -0.707, -0.630, -1.680, 1.950, 0.917, -0.974, 0.908, 1.342, -2.390, -0.549, -0.388, 0.648, -0.121, -0.230], [-0.058, 1.853, 2.160, -0.525, -0.926, 2.693, -0.980, -0.573, 0.037, 0.483, 1.029, 0.391, -0.872, 0.506, 0.250, 1.877, -0.015, -1.337, -1.045, 1.450, -0.540, -2.104, -0.581, 0.000, 1.189, -1.014, 0.667, 0.795, -0.699, -0.188, 1.769, 1.720, 0.856, 0.332, 1.138, -0.141]]> : tensor<3x36xf32>}> : () -> tensor<3x36xf32>
    %g = "amk.gemm"(%x, %wg, %none) <{perm_b = array<i64: 1, 0>, activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<1x5x3xf32>, tensor<36x3xf32>, none) -> tensor<1x5x36xf32>
    %u = "onnx.MatMul"(%x, %wu) : (tensor<1x5x3xf32>, tensor<3x36xf32>) -> tensor<1x5x36xf32>
    %y = "onnx.Mul"(%g, %u) : (tensor<1x5x36xf32>, tensor<1x5x36xf32>) -> tensor<1x5x36xf32>
    return %y : tensor<1x5x36xf32>
  }
}

// -----

//--- gated_with_bias.mlir
// Negative: the up product adds a bias, which the gated epilogue does not
// apply: two GEMMs and the Mul, as before.
// CHECK-LABEL: amk_task.program @gated_with_bias
// CHECK: amk_task.kernel gemm
// CHECK: amk_task.kernel gemm
// CHECK: amk_task.kernel elementwise
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gated_with_bias(%x: tensor<2x3xf32>) -> tensor<2x36xf32> {
    %none = onnx.NoValue
    %b = "onnx.Constant"() <{value = dense<0.5> : tensor<36xf32>}> : () -> tensor<36xf32>
    %wg = "onnx.Constant"() <{value = dense<[[-0.802, -1.324, -0.248, 0.420, 1.136, 0.110, -0.553, -0.785, 0.749, 1.635, 0.273, -1.233, -0.958, 1.600, 0.203, -1.732, -0.084, -1.163, -0.629, -0.488, -0.713, 0.553, -0.063, -0.589, 0.410, 0.830, -1.643, -0.257, -0.981, -0.173, -1.289, 0.021, -0.038, -0.304, -1.048, -0.396], [-1.091, -1.355, 0.225, -1.109, 1.170, 0.717, -1.998, 0.272, -1.102, 0.033, 0.044, -1.988, -0.233, -0.256, 0.962, -1.181, 0.738, -1.099, -0.331, -0.840, 1.449, 0.568, 2.432, 0.642, 0.845, 0.841, -0.607, -0.070, 1.350, -0.397, 0.189, -0.021, 0.609, -0.365, -0.152, 0.242], [0.103, -0.865, 0.896, -1.298, -1.201, -1.282, 0.967, -0.361, -0.971, -1.136, 0.421, -1.055, -1.272, 0.614, -1.197, -0.322, -0.007, -0.445, -0.054, 1.339, -0.517, -1.259, -1.837, -0.205, -0.352, 0.265, -0.464, -0.479, -0.721, -0.520, 0.160, -0.380, 0.100, 1.901, 0.479, -1.576]]> : tensor<3x36xf32>}> : () -> tensor<3x36xf32>
    %wu = "onnx.Constant"() <{value = dense<[[1.734, 0.348, -0.941, 0.907, 0.018, -0.615, -0.634, -0.993, 0.048, 1.069, -0.325, 0.421, 1.876, -1.215, 0.258, -0.306, -1.059, -1.026, -0.015, 0.434, -0.532, 0.054, 0.722, 0.297, 0.869, 0.461, 0.488, 1.827, 0.623, 0.129, 0.710, -0.919, -0.338, 0.793, 0.631, 1.548], [0.010, -1.462, 1.947, 1.093, -1.059, 1.376, 0.032, -1.814, -0.420, -0.509, 1.591, -0.792, -0.254, -0.277, -0.379, -0.914, 0.219, 1.077, 0.624, -0.927, -1.150, 0.119, -0.707, -0.630, -1.680, 1.950, 0.917, -0.974, 0.908, 1.342, -2.390, -0.549, -0.388, 0.648, -0.121, -0.230], [-0.058, 1.853, 2.160, -0.525, -0.926, 2.693, -0.980, -0.573, 0.037, 0.483, 1.029, 0.391, -0.872, 0.506, 0.250, 1.877, -0.015, -1.337, -1.045, 1.450, -0.540, -2.104, -0.581, 0.000, 1.189, -1.014, 0.667, 0.795, -0.699, -0.188, 1.769, 1.720, 0.856, 0.332, 1.138, -0.141]]> : tensor<3x36xf32>}> : () -> tensor<3x36xf32>
    %g = "amk.gemm"(%x, %wg, %none) <{activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<2x3xf32>, tensor<3x36xf32>, none) -> tensor<2x36xf32>
    %u = "amk.gemm"(%x, %wu, %b) : (tensor<2x3xf32>, tensor<3x36xf32>, tensor<36xf32>) -> tensor<2x36xf32>
    %y = "onnx.Mul"(%g, %u) : (tensor<2x36xf32>, tensor<2x36xf32>) -> tensor<2x36xf32>
    return %y : tensor<2x36xf32>
  }
}

// -----

//--- gated_wgemm.mlir
// Weight-only gated pairs (fuse-gated-products on WGEMM): int8 per column
// (the up weight read transposed) at 5 rows (the streamed panels) and 8
// rows (dequantized panels); uint4 in blocks of 8 with zero points on
// int8 activations; int8 at 40 rows on bf16 activations (AMX tiles where
// the CPU has them, the float paths with AMK_NO_AVX512). Each is one WGEMM with 128 panel columns writing the
// 36 outputs (iparam gated = 36); no Mul task. (A pair's weights have no
// other reader: the 8-row pair has its own copies.)
// CHECK-LABEL: amk_task.program @gated_wgemm
// CHECK-NOT: amk_task.kernel elementwise
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 5, 128, 16, 8, 16, {{[0-9]+}}, 0, 36>
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 8, 128, 16, 8, 16, {{[0-9]+}}, 0, 36>
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 5, 128, 16, 4, 8, {{[0-9]+}}, 8, 36>
// CHECK: amk_task.kernel wgemm {{{.*}}iparams = array<i64: 40, 128, 16, 8, 16, {{[0-9]+}}, 16, 36>
// CHECK-NOT: amk_task.kernel elementwise
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @gated_wgemm(%x: tensor<5x16xf32>, %x8: tensor<8x16xf32>, %x40: tensor<40x16xf32>) -> (tensor<5x36xf32>, tensor<8x36xf32>, tensor<5x36xf32>, tensor<40x36xf32>) {
    %none = onnx.NoValue
    %g8 = "onnx.Constant"() <{value = dense<[[-20, 94, 118, -54, -98, 26, 43, 71, 36, 55, 106, 106, 109, 92, 56, 107, -124, -121, 76, -16, 63, -4, 102, -111, 44, -126, -90, 84, -53, 123, -39, 73, 117, -47, 122, 52], [120, -51, 3, 61, 119, -56, -5, 72, 86, 124, -73, 124, -99, 98, 95, 105, 95, 53, 21, 14, -107, 108, 107, -105, 24, -33, 62, 27, 22, -6, -99, 75, 99, -78, -9, -112], [-16, -95, -23, 118, -91, -94, 52, -70, -126, -31, -82, 31, 13, 72, 27, -107, -112, 110, 61, 67, 80, -46, 8, -79, -127, 24, -70, 24, 100, -59, -63, -84, -43, 68, 41, 44], [-117, 77, 61, -72, 25, 57, -114, -108, -71, -126, 29, -82, 20, 72, -60, 10, 36, 30, -61, 24, -69, 35, -55, -45, 116, 56, -92, -124, -103, -31, 100, -114, -99, -95, -61, 103], [-47, 26, -124, 74, 15, 27, 116, 18, -109, 75, 13, 31, -116, 3, 99, 14, -22, 18, -118, -40, 90, 43, -56, -24, -110, 39, 74, -4, 34, 63, 75, 49, 51, -117, -44, 72], [72, 101, -51, -43, 120, 59, -118, 88, -47, 0, 66, -95, 38, 59, 39, 86, 124, -48, -89, -72, -3, 68, 18, 4, 101, -124, 91, -78, 89, -72, 70, 21, 1, 15, 71, 4], [-126, -41, 37, -27, -100, 0, -106, 18, 17, 17, 67, 55, 18, 126, 66, 63, 7, -2, 54, 122, 46, -96, 76, 115, -49, 0, 95, -4, -71, 89, -120, 28, -10, 82, -88, -33], [37, 14, 99, 38, 9, -67, 55, 67, 36, -88, 18, -94, 95, -59, -18, 79, -88, -6, 56, -119, 110, -77, 19, 16, 33, -112, 110, -47, 4, -74, 116, 48, -97, -91, 67, -33], [-58, -13, -56, 102, -1, -24, -61, -93, 105, -20, 38, -33, 73, 17, -86, -96, 66, -20, -64, 39, 30, -23, -73, 114, 67, -35, -7, 95, 34, -43, -68, -26, -63, 52, -79, 10], [-77, 110, -30, 98, -92, -55, 57, -45, -36, 37, 127, 75, 105, -99, 70, 104, 99, -37, 63, -91, 72, -60, -36, 76, 52, -62, -68, -98, 38, 25, -73, 105, 20, -48, 80, 3], [32, -28, 101, 113, 21, 93, 88, -3, -73, 122, -20, -71, -40, -21, 46, 16, 91, 69, 27, 52, -27, -21, -94, 112, -114, 123, -90, 90, 13, -12, -127, 81, 83, -60, 121, -83], [-92, -108, -9, 77, -126, 121, -63, -52, 0, 56, -46, -60, -67, 69, 123, -85, -75, 5, -38, 74, -51, 120, 52, 44, 40, 48, 51, -24, 47, -84, 56, 78, 49, -107, -121, 63], [-50, -49, 17, -114, -12, -90, 78, 8, 29, -47, -80, -94, 66, -45, 3, 76, 30, 58, -82, -9, 37, -33, -15, 125, -118, 3, 10, 45, -86, 86, 112, 2, 105, 32, -37, -14], [-99, 86, 7, 67, 34, -13, 29, 84, -96, -67, 47, -38, -22, 44, -124, -95, 29, 109, -107, -122, -100, 110, -79, -54, 56, 100, 126, -49, -7, 72, 118, 8, 31, -16, 74, 10], [19, 126, -66, 102, -71, -50, 124, -66, -57, 111, -39, -96, -78, -106, -10, 40, 88, -79, 96, -126, 19, 37, 64, -101, 20, -68, -105, 59, -112, 117, 67, -12, 70, -8, -124, -113], [-1, 1, -18, -78, 122, 10, 99, -101, -95, -55, 61, 94, 112, -42, -106, 77, -4, 41, -72, -100, 11, -11, -47, 5, -18, -5, -9, -78, 31, -50, -9, 63, 49, 22, -7, -23]]> : tensor<16x36xi8>}> : () -> tensor<16x36xi8>
    %gs = "onnx.Constant"() <{value = dense<[0.0195, 0.0135, 0.0174, 0.0170, 0.0152, 0.0078, 0.0084, 0.0167, 0.0182, 0.0199, 0.0107, 0.0063, 0.0190, 0.0141, 0.0117, 0.0074, 0.0072, 0.0082, 0.0168, 0.0158, 0.0121, 0.0185, 0.0183, 0.0070, 0.0174, 0.0110, 0.0166, 0.0148, 0.0056, 0.0081, 0.0192, 0.0067, 0.0134, 0.0146, 0.0191, 0.0087]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %u8 = "onnx.Constant"() <{value = dense<[[8, -12, -36, -12, 127, -2, -31, 15, -5, 102, -81, -123, 94, 28, 71, -108], [82, -105, -45, 116, -121, 33, 42, 2, -48, 77, -52, 6, -46, 96, -113, 99], [77, 123, -90, -112, 63, -29, 36, -77, -85, 51, -72, 31, -102, -37, 125, -91], [-59, 3, -121, -99, 20, 65, -54, -4, 104, -104, -57, 66, -63, -63, -48, 1], [26, 54, -57, -30, 81, -75, -92, 16, -20, 60, -4, 93, -114, -78, 32, -21], [-102, 55, 116, -101, 100, -120, 47, 100, -105, -35, 40, 89, 37, 83, 73, 49], [27, 122, -95, -74, 48, -10, -11, -71, -64, -82, -39, -57, -10, -41, -31, -80], [-93, 8, 27, 99, -39, 2, 3, -88, 117, -91, -114, 65, 107, -43, -60, -109], [42, 86, -13, 116, 44, 24, -82, -111, 114, -67, -67, 51, -92, 62, -116, -107], [-50, 120, -61, -95, 34, 127, -52, 32, 66, -7, -57, 79, 64, 78, -110, -102], [-122, -81, -124, 112, -36, 109, 90, 87, 27, -127, -62, 11, -73, -56, -90, 17], [122, -99, -61, 66, 34, -100, -52, -58, -73, -69, 76, 99, 109, -42, 100, -63], [76, -44, -99, -19, -69, 9, 54, 37, -78, -30, 14, 50, 42, 47, -94, -7], [-43, -67, 48, 77, -85, -12, -20, -18, -70, -14, -27, 90, 3, 61, -46, 107], [37, -104, -47, -53, 52, -20, -119, -48, 39, 93, -75, -117, 15, -82, 119, 100], [125, -101, 116, 124, -112, -7, 26, 106, -4, 56, 37, 36, 18, -55, 49, 63], [38, -67, -73, -116, 103, -51, -31, -22, -92, -112, -32, -15, 116, 6, 96, 48], [109, 30, -18, -118, -68, 74, -89, -117, 16, -2, 91, -111, 119, -17, 29, -92], [44, 95, 70, 102, 19, -65, 12, -103, -107, 24, -122, 28, 57, 41, 125, -58], [17, 93, -2, -109, -111, -54, -39, 115, -13, -79, 58, -68, 107, 58, 76, -60], [52, 60, -2, -112, -51, -50, 87, 79, -64, 35, 41, 9, 58, 77, -69, -99], [-12, -75, 10, -68, 55, -89, -101, -64, -78, 49, -3, -33, 117, 85, 104, -72], [93, -15, 72, 75, -11, -32, 50, 43, -117, 49, 126, 72, 122, -109, -75, 74], [-112, -66, -68, -114, -80, -93, -42, 49, -73, -83, 111, 46, -104, 26, -86, -54], [1, 119, 112, -99, 41, 76, -4, 0, -47, 13, -83, 80, -115, -7, -13, 73], [-73, -97, 36, -33, -45, 97, 30, -74, 54, 91, 101, 47, 71, -27, -67, 61], [18, -33, 90, -46, 104, 36, -91, -3, 88, -75, 25, -35, 31, -9, -122, -59], [108, -63, -87, -58, -98, 86, 103, -121, 13, 30, 103, -27, 62, 87, 24, -85], [70, -98, 127, 101, -46, 49, 75, 45, -55, 32, 85, 42, -113, -59, -52, 60], [42, -105, -116, -43, 17, -23, 110, -31, 103, -119, -64, -124, 90, 21, 33, 48], [12, 4, -126, -13, 90, -74, -97, -33, -38, 56, -116, 93, 82, -27, 34, 60], [6, -125, -69, -67, 51, -2, 68, 68, 23, 87, -62, -45, 88, -100, 40, 78], [15, 58, -126, 55, -85, -90, -111, 114, -73, 72, -30, 46, 89, -35, -123, -29], [-63, 56, -33, 18, 33, -121, 8, 99, 56, -10, 90, -60, 124, 82, 71, -126], [60, 47, 74, -66, 79, -49, 34, 68, 17, -13, 81, 110, -1, 66, 78, 90], [33, 102, 67, 6, -44, 42, -20, -7, 58, -3, 122, -52, 82, -122, -53, -32]]> : tensor<36x16xi8>}> : () -> tensor<36x16xi8>
    %us = "onnx.Constant"() <{value = dense<[0.0145, 0.0082, 0.0103, 0.0178, 0.0088, 0.0168, 0.0181, 0.0122, 0.0110, 0.0182, 0.0109, 0.0196, 0.0082, 0.0128, 0.0127, 0.0101, 0.0077, 0.0099, 0.0084, 0.0092, 0.0058, 0.0141, 0.0101, 0.0190, 0.0091, 0.0087, 0.0121, 0.0052, 0.0101, 0.0074, 0.0062, 0.0059, 0.0095, 0.0061, 0.0102, 0.0173]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %g8b = "onnx.Constant"() <{value = dense<[[-20, 94, 118, -54, -98, 26, 43, 71, 36, 55, 106, 106, 109, 92, 56, 107, -124, -121, 76, -16, 63, -4, 102, -111, 44, -126, -90, 84, -53, 123, -39, 73, 117, -47, 122, 52], [120, -51, 3, 61, 119, -56, -5, 72, 86, 124, -73, 124, -99, 98, 95, 105, 95, 53, 21, 14, -107, 108, 107, -105, 24, -33, 62, 27, 22, -6, -99, 75, 99, -78, -9, -112], [-16, -95, -23, 118, -91, -94, 52, -70, -126, -31, -82, 31, 13, 72, 27, -107, -112, 110, 61, 67, 80, -46, 8, -79, -127, 24, -70, 24, 100, -59, -63, -84, -43, 68, 41, 44], [-117, 77, 61, -72, 25, 57, -114, -108, -71, -126, 29, -82, 20, 72, -60, 10, 36, 30, -61, 24, -69, 35, -55, -45, 116, 56, -92, -124, -103, -31, 100, -114, -99, -95, -61, 103], [-47, 26, -124, 74, 15, 27, 116, 18, -109, 75, 13, 31, -116, 3, 99, 14, -22, 18, -118, -40, 90, 43, -56, -24, -110, 39, 74, -4, 34, 63, 75, 49, 51, -117, -44, 72], [72, 101, -51, -43, 120, 59, -118, 88, -47, 0, 66, -95, 38, 59, 39, 86, 124, -48, -89, -72, -3, 68, 18, 4, 101, -124, 91, -78, 89, -72, 70, 21, 1, 15, 71, 4], [-126, -41, 37, -27, -100, 0, -106, 18, 17, 17, 67, 55, 18, 126, 66, 63, 7, -2, 54, 122, 46, -96, 76, 115, -49, 0, 95, -4, -71, 89, -120, 28, -10, 82, -88, -33], [37, 14, 99, 38, 9, -67, 55, 67, 36, -88, 18, -94, 95, -59, -18, 79, -88, -6, 56, -119, 110, -77, 19, 16, 33, -112, 110, -47, 4, -74, 116, 48, -97, -91, 67, -33], [-58, -13, -56, 102, -1, -24, -61, -93, 105, -20, 38, -33, 73, 17, -86, -96, 66, -20, -64, 39, 30, -23, -73, 114, 67, -35, -7, 95, 34, -43, -68, -26, -63, 52, -79, 10], [-77, 110, -30, 98, -92, -55, 57, -45, -36, 37, 127, 75, 105, -99, 70, 104, 99, -37, 63, -91, 72, -60, -36, 76, 52, -62, -68, -98, 38, 25, -73, 105, 20, -48, 80, 3], [32, -28, 101, 113, 21, 93, 88, -3, -73, 122, -20, -71, -40, -21, 46, 16, 91, 69, 27, 52, -27, -21, -94, 112, -114, 123, -90, 90, 13, -12, -127, 81, 83, -60, 121, -83], [-92, -108, -9, 77, -126, 121, -63, -52, 0, 56, -46, -60, -67, 69, 123, -85, -75, 5, -38, 74, -51, 120, 52, 44, 40, 48, 51, -24, 47, -84, 56, 78, 49, -107, -121, 63], [-50, -49, 17, -114, -12, -90, 78, 8, 29, -47, -80, -94, 66, -45, 3, 76, 30, 58, -82, -9, 37, -33, -15, 125, -118, 3, 10, 45, -86, 86, 112, 2, 105, 32, -37, -14], [-99, 86, 7, 67, 34, -13, 29, 84, -96, -67, 47, -38, -22, 44, -124, -95, 29, 109, -107, -122, -100, 110, -79, -54, 56, 100, 126, -49, -7, 72, 118, 8, 31, -16, 74, 10], [19, 126, -66, 102, -71, -50, 124, -66, -57, 111, -39, -96, -78, -106, -10, 40, 88, -79, 96, -126, 19, 37, 64, -101, 20, -68, -105, 59, -112, 117, 67, -12, 70, -8, -124, -113], [-1, 1, -18, -78, 122, 10, 99, -101, -95, -55, 61, 94, 112, -42, -106, 77, -4, 41, -72, -100, 11, -11, -47, 5, -18, -5, -9, -78, 31, -50, -9, 63, 49, 22, -7, -23]]> : tensor<16x36xi8>}> : () -> tensor<16x36xi8>
    %gsb = "onnx.Constant"() <{value = dense<[0.0195, 0.0135, 0.0174, 0.0170, 0.0152, 0.0078, 0.0084, 0.0167, 0.0182, 0.0199, 0.0107, 0.0063, 0.0190, 0.0141, 0.0117, 0.0074, 0.0072, 0.0082, 0.0168, 0.0158, 0.0121, 0.0185, 0.0183, 0.0070, 0.0174, 0.0110, 0.0166, 0.0148, 0.0056, 0.0081, 0.0192, 0.0067, 0.0134, 0.0146, 0.0191, 0.0087]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %u8b = "onnx.Constant"() <{value = dense<[[8, -12, -36, -12, 127, -2, -31, 15, -5, 102, -81, -123, 94, 28, 71, -108], [82, -105, -45, 116, -121, 33, 42, 2, -48, 77, -52, 6, -46, 96, -113, 99], [77, 123, -90, -112, 63, -29, 36, -77, -85, 51, -72, 31, -102, -37, 125, -91], [-59, 3, -121, -99, 20, 65, -54, -4, 104, -104, -57, 66, -63, -63, -48, 1], [26, 54, -57, -30, 81, -75, -92, 16, -20, 60, -4, 93, -114, -78, 32, -21], [-102, 55, 116, -101, 100, -120, 47, 100, -105, -35, 40, 89, 37, 83, 73, 49], [27, 122, -95, -74, 48, -10, -11, -71, -64, -82, -39, -57, -10, -41, -31, -80], [-93, 8, 27, 99, -39, 2, 3, -88, 117, -91, -114, 65, 107, -43, -60, -109], [42, 86, -13, 116, 44, 24, -82, -111, 114, -67, -67, 51, -92, 62, -116, -107], [-50, 120, -61, -95, 34, 127, -52, 32, 66, -7, -57, 79, 64, 78, -110, -102], [-122, -81, -124, 112, -36, 109, 90, 87, 27, -127, -62, 11, -73, -56, -90, 17], [122, -99, -61, 66, 34, -100, -52, -58, -73, -69, 76, 99, 109, -42, 100, -63], [76, -44, -99, -19, -69, 9, 54, 37, -78, -30, 14, 50, 42, 47, -94, -7], [-43, -67, 48, 77, -85, -12, -20, -18, -70, -14, -27, 90, 3, 61, -46, 107], [37, -104, -47, -53, 52, -20, -119, -48, 39, 93, -75, -117, 15, -82, 119, 100], [125, -101, 116, 124, -112, -7, 26, 106, -4, 56, 37, 36, 18, -55, 49, 63], [38, -67, -73, -116, 103, -51, -31, -22, -92, -112, -32, -15, 116, 6, 96, 48], [109, 30, -18, -118, -68, 74, -89, -117, 16, -2, 91, -111, 119, -17, 29, -92], [44, 95, 70, 102, 19, -65, 12, -103, -107, 24, -122, 28, 57, 41, 125, -58], [17, 93, -2, -109, -111, -54, -39, 115, -13, -79, 58, -68, 107, 58, 76, -60], [52, 60, -2, -112, -51, -50, 87, 79, -64, 35, 41, 9, 58, 77, -69, -99], [-12, -75, 10, -68, 55, -89, -101, -64, -78, 49, -3, -33, 117, 85, 104, -72], [93, -15, 72, 75, -11, -32, 50, 43, -117, 49, 126, 72, 122, -109, -75, 74], [-112, -66, -68, -114, -80, -93, -42, 49, -73, -83, 111, 46, -104, 26, -86, -54], [1, 119, 112, -99, 41, 76, -4, 0, -47, 13, -83, 80, -115, -7, -13, 73], [-73, -97, 36, -33, -45, 97, 30, -74, 54, 91, 101, 47, 71, -27, -67, 61], [18, -33, 90, -46, 104, 36, -91, -3, 88, -75, 25, -35, 31, -9, -122, -59], [108, -63, -87, -58, -98, 86, 103, -121, 13, 30, 103, -27, 62, 87, 24, -85], [70, -98, 127, 101, -46, 49, 75, 45, -55, 32, 85, 42, -113, -59, -52, 60], [42, -105, -116, -43, 17, -23, 110, -31, 103, -119, -64, -124, 90, 21, 33, 48], [12, 4, -126, -13, 90, -74, -97, -33, -38, 56, -116, 93, 82, -27, 34, 60], [6, -125, -69, -67, 51, -2, 68, 68, 23, 87, -62, -45, 88, -100, 40, 78], [15, 58, -126, 55, -85, -90, -111, 114, -73, 72, -30, 46, 89, -35, -123, -29], [-63, 56, -33, 18, 33, -121, 8, 99, 56, -10, 90, -60, 124, 82, 71, -126], [60, 47, 74, -66, 79, -49, 34, 68, 17, -13, 81, 110, -1, 66, 78, 90], [33, 102, 67, 6, -44, 42, -20, -7, 58, -3, 122, -52, 82, -122, -53, -32]]> : tensor<36x16xi8>}> : () -> tensor<36x16xi8>
    %usb = "onnx.Constant"() <{value = dense<[0.0145, 0.0082, 0.0103, 0.0178, 0.0088, 0.0168, 0.0181, 0.0122, 0.0110, 0.0182, 0.0109, 0.0196, 0.0082, 0.0128, 0.0127, 0.0101, 0.0077, 0.0099, 0.0084, 0.0092, 0.0058, 0.0141, 0.0101, 0.0190, 0.0091, 0.0087, 0.0121, 0.0052, 0.0101, 0.0074, 0.0062, 0.0059, 0.0095, 0.0061, 0.0102, 0.0173]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %g4 = "onnx.Constant"() <{value = dense<[[7, 2, 7, 2, 10, 6, 9, 8, 10, 13, 5, 7, 8, 14, 2, 1, 7, 0, 9, 13, 15, 9, 9, 4, 14, 12, 12, 0, 5, 6, 2, 7, 7, 2, 9, 7], [6, 5, 9, 12, 7, 8, 8, 12, 14, 2, 11, 0, 15, 5, 8, 9, 5, 6, 8, 0, 9, 3, 9, 1, 4, 15, 15, 7, 13, 10, 2, 11, 15, 0, 6, 1], [2, 10, 4, 6, 10, 3, 9, 4, 9, 1, 8, 4, 8, 3, 12, 5, 13, 3, 4, 10, 8, 10, 15, 5, 9, 7, 13, 7, 11, 9, 13, 6, 3, 5, 13, 13], [9, 13, 7, 8, 1, 12, 5, 12, 0, 13, 8, 11, 8, 4, 13, 6, 15, 13, 7, 10, 15, 11, 0, 12, 7, 9, 6, 6, 8, 12, 5, 13, 13, 11, 11, 7], [11, 4, 14, 2, 9, 11, 11, 5, 15, 6, 13, 13, 0, 6, 4, 7, 7, 7, 5, 12, 8, 13, 10, 9, 0, 9, 12, 11, 13, 4, 14, 7, 15, 12, 9, 0], [3, 0, 14, 4, 6, 6, 11, 2, 7, 0, 9, 4, 10, 10, 2, 2, 2, 6, 1, 10, 15, 8, 7, 4, 14, 12, 14, 12, 13, 3, 8, 14, 12, 12, 12, 4], [12, 10, 15, 4, 5, 2, 1, 9, 5, 4, 7, 13, 10, 5, 13, 15, 13, 6, 3, 4, 10, 7, 10, 14, 6, 3, 12, 7, 6, 7, 3, 8, 6, 10, 7, 10], [8, 7, 5, 7, 10, 14, 3, 11, 7, 10, 7, 2, 5, 7, 15, 13, 7, 8, 13, 7, 4, 10, 3, 2, 11, 6, 10, 3, 8, 14, 2, 14, 6, 14, 5, 5], [11, 14, 2, 1, 11, 1, 6, 2, 11, 7, 2, 6, 14, 3, 10, 14, 1, 3, 15, 14, 1, 3, 14, 8, 13, 15, 3, 2, 7, 4, 9, 7, 6, 4, 2, 9], [3, 8, 0, 11, 14, 15, 1, 13, 0, 14, 2, 10, 0, 1, 13, 2, 1, 14, 6, 2, 10, 3, 6, 9, 11, 2, 5, 15, 6, 0, 11, 9, 1, 15, 1, 0], [12, 3, 12, 2, 6, 2, 1, 15, 1, 12, 7, 6, 7, 11, 6, 2, 12, 15, 2, 8, 0, 5, 11, 10, 9, 12, 13, 9, 5, 11, 0, 13, 5, 9, 14, 14], [5, 9, 12, 12, 0, 8, 8, 9, 0, 5, 10, 13, 12, 8, 7, 7, 14, 8, 15, 14, 15, 8, 14, 12, 2, 7, 8, 2, 10, 9, 7, 12, 0, 15, 10, 0], [7, 15, 10, 5, 6, 1, 0, 8, 0, 8, 8, 5, 4, 13, 2, 6, 2, 7, 5, 2, 1, 15, 12, 10, 4, 3, 8, 15, 9, 9, 11, 3, 15, 3, 8, 14], [2, 3, 13, 14, 12, 14, 2, 5, 6, 8, 12, 11, 8, 9, 0, 15, 14, 4, 2, 2, 9, 4, 12, 9, 11, 8, 7, 14, 3, 15, 2, 14, 9, 12, 9, 0], [13, 7, 3, 6, 7, 8, 3, 10, 5, 0, 0, 7, 12, 1, 11, 10, 5, 6, 4, 13, 10, 12, 2, 1, 3, 0, 4, 12, 8, 11, 9, 14, 15, 2, 11, 11], [9, 10, 6, 9, 5, 3, 10, 3, 8, 8, 2, 7, 1, 14, 4, 3, 14, 2, 2, 4, 11, 5, 2, 11, 10, 11, 10, 7, 12, 6, 11, 8, 10, 9, 4, 7]]> : tensor<16x36xui4>}> : () -> tensor<16x36xui4>
    %gs4 = "onnx.Constant"() <{value = dense<[[0.1828, 0.1441, 0.0664, 0.1636, 0.1638, 0.1094, 0.0689, 0.1609, 0.1170, 0.1256, 0.1773, 0.1125, 0.0960, 0.1866, 0.1378, 0.1839, 0.1453, 0.1848, 0.1106, 0.1207, 0.0845, 0.1126, 0.0520, 0.1408, 0.0893, 0.1821, 0.1143, 0.1310, 0.0645, 0.1939, 0.1151, 0.1763, 0.1260, 0.0796, 0.0945, 0.1158], [0.1367, 0.0714, 0.0988, 0.1413, 0.0663, 0.0835, 0.0764, 0.1842, 0.1741, 0.1357, 0.1468, 0.1664, 0.1637, 0.1347, 0.1534, 0.1802, 0.0579, 0.0654, 0.0580, 0.0970, 0.0992, 0.0602, 0.1112, 0.0644, 0.1153, 0.0983, 0.1433, 0.1256, 0.1354, 0.0815, 0.1540, 0.0587, 0.1050, 0.0814, 0.1540, 0.1996]]> : tensor<2x36xf32>}> : () -> tensor<2x36xf32>
    %gz4 = "onnx.Constant"() <{value = dense<[[8, 7, 1, 12, 10, 7, 11, 6, 15, 3, 1, 11, 7, 11, 2, 1, 15, 14, 4, 13, 5, 12, 4, 0, 2, 8, 10, 15, 7, 6, 3, 6, 3, 2, 1, 1], [7, 11, 8, 3, 0, 6, 2, 8, 5, 6, 4, 4, 3, 0, 9, 1, 12, 7, 3, 7, 2, 5, 10, 0, 4, 15, 13, 10, 7, 5, 8, 11, 14, 12, 3, 11]]> : tensor<2x36xui4>}> : () -> tensor<2x36xui4>
    %u4 = "onnx.Constant"() <{value = dense<[[1, 13, 12, 5, 2, 3, 3, 10, 9, 10, 13, 7, 11, 0, 15, 2, 4, 6, 12, 9, 0, 14, 11, 3, 10, 1, 13, 0, 6, 9, 7, 4, 3, 14, 1, 2], [1, 3, 8, 5, 3, 12, 12, 1, 15, 11, 12, 8, 15, 10, 3, 13, 5, 4, 2, 15, 10, 12, 4, 15, 0, 13, 9, 15, 15, 10, 11, 7, 15, 15, 8, 13], [0, 7, 13, 8, 7, 3, 2, 15, 3, 4, 3, 4, 12, 3, 7, 13, 8, 2, 11, 12, 3, 9, 9, 11, 8, 3, 9, 4, 15, 13, 10, 6, 11, 5, 6, 13], [14, 12, 12, 4, 14, 9, 10, 8, 8, 3, 10, 2, 6, 10, 3, 13, 5, 5, 3, 1, 9, 14, 9, 1, 12, 2, 12, 2, 14, 15, 1, 0, 6, 7, 13, 8], [10, 7, 12, 3, 11, 7, 3, 9, 1, 10, 2, 11, 5, 10, 2, 3, 4, 0, 7, 1, 10, 11, 3, 10, 12, 7, 5, 5, 8, 3, 4, 6, 6, 12, 13, 7], [9, 3, 8, 15, 11, 3, 8, 4, 1, 9, 4, 3, 12, 14, 5, 11, 7, 3, 12, 6, 6, 12, 14, 15, 6, 1, 5, 13, 0, 6, 6, 1, 0, 13, 12, 5], [3, 9, 10, 11, 14, 4, 11, 4, 0, 15, 5, 11, 5, 0, 9, 12, 10, 14, 13, 15, 11, 8, 1, 6, 9, 4, 10, 13, 4, 4, 1, 5, 11, 11, 2, 13], [12, 9, 3, 3, 10, 3, 12, 4, 6, 0, 6, 3, 2, 12, 3, 6, 3, 1, 10, 5, 13, 9, 3, 13, 1, 7, 7, 6, 14, 11, 10, 11, 2, 1, 2, 1], [12, 12, 13, 14, 10, 15, 8, 3, 12, 3, 15, 4, 5, 1, 10, 1, 12, 13, 1, 6, 7, 7, 14, 14, 13, 9, 6, 4, 0, 6, 9, 13, 6, 11, 7, 2], [13, 11, 11, 4, 10, 0, 14, 11, 0, 4, 15, 4, 2, 6, 9, 1, 11, 5, 5, 4, 11, 8, 10, 6, 7, 2, 5, 12, 4, 10, 3, 13, 6, 3, 5, 14], [4, 13, 0, 8, 14, 7, 7, 2, 7, 0, 9, 10, 6, 10, 6, 12, 15, 1, 11, 3, 10, 13, 1, 12, 12, 6, 13, 7, 2, 11, 13, 3, 14, 10, 0, 13], [13, 8, 7, 10, 12, 2, 1, 5, 5, 1, 1, 0, 1, 15, 7, 0, 2, 0, 14, 14, 3, 7, 5, 8, 13, 11, 0, 15, 6, 8, 8, 15, 9, 13, 14, 0], [14, 9, 1, 9, 1, 9, 13, 9, 12, 14, 10, 12, 5, 11, 6, 13, 2, 2, 6, 4, 6, 3, 2, 3, 11, 5, 14, 14, 1, 9, 14, 11, 10, 0, 3, 15], [14, 0, 4, 12, 11, 0, 1, 7, 4, 7, 1, 1, 10, 5, 13, 9, 9, 15, 13, 8, 6, 9, 6, 10, 4, 2, 12, 10, 14, 6, 12, 1, 11, 6, 3, 11], [1, 2, 15, 8, 6, 4, 9, 14, 13, 3, 7, 11, 3, 14, 9, 4, 4, 12, 10, 3, 3, 8, 4, 4, 13, 2, 15, 15, 13, 5, 9, 10, 9, 13, 10, 8], [2, 14, 12, 13, 0, 11, 11, 13, 13, 5, 10, 9, 1, 15, 9, 6, 5, 3, 11, 11, 13, 0, 8, 12, 15, 0, 7, 8, 15, 1, 3, 10, 0, 3, 6, 10]]> : tensor<16x36xui4>}> : () -> tensor<16x36xui4>
    %us4 = "onnx.Constant"() <{value = dense<[[0.1869, 0.1525, 0.1719, 0.1743, 0.1790, 0.0773, 0.1774, 0.1188, 0.1421, 0.1298, 0.1682, 0.0925, 0.1171, 0.0887, 0.0597, 0.1464, 0.1104, 0.1837, 0.1990, 0.1717, 0.1276, 0.0598, 0.1840, 0.0938, 0.1078, 0.1079, 0.1971, 0.1765, 0.1034, 0.1260, 0.1213, 0.0607, 0.0514, 0.1458, 0.1075, 0.1262], [0.1824, 0.0555, 0.0549, 0.1461, 0.1617, 0.1774, 0.1389, 0.1179, 0.1132, 0.1515, 0.1086, 0.1629, 0.0978, 0.1103, 0.0742, 0.1002, 0.1016, 0.1305, 0.0813, 0.1699, 0.1329, 0.1786, 0.0909, 0.0905, 0.1912, 0.1025, 0.1625, 0.1005, 0.0718, 0.1080, 0.1483, 0.1360, 0.1863, 0.1093, 0.1517, 0.1819]]> : tensor<2x36xf32>}> : () -> tensor<2x36xf32>
    %uz4 = "onnx.Constant"() <{value = dense<[[2, 7, 6, 9, 1, 5, 9, 7, 9, 2, 5, 12, 13, 1, 12, 10, 3, 10, 14, 4, 14, 7, 4, 8, 6, 3, 13, 1, 2, 14, 6, 14, 3, 3, 13, 1], [12, 1, 4, 2, 5, 4, 12, 0, 12, 6, 15, 2, 2, 15, 13, 6, 2, 10, 3, 9, 11, 8, 8, 11, 4, 15, 13, 9, 12, 3, 14, 8, 4, 5, 10, 7]]> : tensor<2x36xui4>}> : () -> tensor<2x36xui4>
    %g16 = "onnx.Constant"() <{value = dense<[[44, 78, -122, 79, -8, 4, 33, -55, 122, -114, -57, -30, 18, -23, -94, -116, -127, -115, -90, 127, -79, 39, 64, -68, -56, -17, -60, 121, -82, 101, 76, 88, -98, -27, 33, -2], [42, 45, 42, -112, 117, 14, 103, -58, -35, 97, -80, -111, -32, 46, -96, 94, -41, -70, 11, 101, 98, 95, -49, -123, 71, 53, 69, -127, -118, 1, -42, -16, 110, -76, 7, -45], [-52, 78, -88, -47, -97, -89, -56, 51, 20, -13, -84, 76, 76, -67, -112, -46, -90, 76, 5, 2, -53, 2, 119, -67, 68, -124, -47, 110, 95, -106, 87, 88, -12, -34, 122, 115], [45, -26, -74, 111, -59, 14, 45, -66, -47, 62, -77, 44, 113, 47, 37, -9, 119, -71, -37, 36, 39, -100, -86, 49, 87, 35, 111, -31, -43, 76, -117, -78, -78, -28, -87, 76], [88, -30, -120, 54, -100, 29, -84, 112, 45, 125, 30, 57, -32, 79, -99, -89, -36, 54, -4, 89, 113, -25, -19, 14, 37, -5, 26, 117, 60, -47, -19, -25, -89, -127, 74, -20], [-38, 34, 16, 111, 29, 108, 20, -44, -45, 125, 22, -80, 84, 82, -125, -87, 49, -24, -41, -109, -79, 91, 85, 84, 18, -92, -45, 7, 126, -62, 12, -2, 1, 14, 52, -100], [123, 93, 68, -56, -15, -13, -49, -113, 62, -127, 67, -78, 36, -40, -67, 109, -6, 99, -79, -5, -39, -12, -124, 43, -40, 91, -73, -41, -116, 75, 9, -26, 106, 24, 118, 61], [22, 0, -76, 49, 74, 50, -22, -126, 60, -118, 77, -89, -49, -73, 10, -76, -62, -115, 123, -72, -79, 26, -91, 98, 72, -38, -25, -34, 60, -21, -55, 46, -92, 73, -19, 112], [-61, -32, 95, 53, -117, -40, -123, 83, -21, -69, 58, 95, -101, 1, -34, 57, 110, 9, 64, -47, 20, -1, 59, -115, -67, -117, 122, 8, -3, -6, -119, 85, 88, -122, 31, 15], [-30, -2, 97, 25, -3, 59, 49, 6, 84, 16, 30, -2, 23, 29, 102, -64, -35, 13, -41, 44, 83, -79, -113, 125, 2, 63, 66, 116, -119, -53, 123, -14, -26, -61, -122, -116], [121, -123, -92, -65, -55, 92, -45, -86, -27, 48, -13, -64, -97, -111, -2, -78, 22, 45, -30, 0, -113, 13, -82, -12, -100, -58, -21, -3, -120, 108, -20, -76, -77, 59, -16, -63], [-13, -78, -86, -45, 118, -104, 12, 111, -10, -34, 15, -83, 50, -127, 17, -112, -122, -73, 56, -21, -20, 26, -110, 123, -4, 100, 65, -66, -50, 28, 87, 107, -3, -102, 126, 90], [55, -27, -93, 72, -75, -45, 94, 32, -51, 2, 29, -101, -58, 66, 33, 82, 60, -4, -51, -29, -76, 114, -120, -32, -110, 97, 39, -21, 74, -32, -9, -35, 66, -112, 12, -57], [121, -69, -26, -112, 0, 11, 64, -15, -64, -121, 106, -88, 70, 107, -45, -93, 49, -32, -118, 115, 104, -99, 58, -23, -111, 77, 90, -123, -101, -110, 117, 110, 86, 47, -104, -61], [4, -5, -101, -64, 51, 100, -100, 115, -47, -109, 106, 6, 42, -81, 104, -24, -33, 62, 65, 54, -68, -79, 17, -43, -119, -19, 70, -29, -22, 46, 120, 74, -90, -42, 10, -15], [-69, -110, 38, -34, -46, 114, 84, 1, 104, 15, 107, 27, -37, 17, 50, 78, 120, -61, -101, -47, 20, 99, 105, 0, -116, 117, -69, -92, -71, 72, 8, -7, -38, -7, 55, 97]]> : tensor<16x36xi8>}> : () -> tensor<16x36xi8>
    %gs16 = "onnx.Constant"() <{value = dense<[0.0177, 0.0055, 0.0070, 0.0188, 0.0172, 0.0088, 0.0101, 0.0056, 0.0069, 0.0052, 0.0138, 0.0142, 0.0072, 0.0175, 0.0123, 0.0140, 0.0149, 0.0081, 0.0171, 0.0112, 0.0125, 0.0069, 0.0088, 0.0118, 0.0159, 0.0119, 0.0134, 0.0164, 0.0110, 0.0052, 0.0134, 0.0192, 0.0056, 0.0119, 0.0148, 0.0123]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %u16 = "onnx.Constant"() <{value = dense<[[115, -94, 61, 4, -33, -64, -111, -40, -68, 81, 100, -26, -28, 73, -88, -124], [-74, 127, -14, 116, -119, 46, -60, -77, 35, 40, 72, -79, 87, -32, -112, -119], [-105, -110, 38, -87, 8, -81, 64, 86, 86, -65, -15, 83, 79, -126, 42, -113], [34, -112, 20, 110, -24, 81, -52, -124, 5, 110, 56, -70, -61, -60, 17, 22], [24, -75, 60, 121, -76, -34, -10, 18, 99, 18, 120, -56, 40, 60, 86, 126], [-7, 24, 62, -106, 58, 79, 15, 43, 77, -3, -110, 39, 29, -61, -18, -50], [-96, 4, -20, -110, -54, 22, -113, -81, -58, -63, 127, 102, -42, 22, -14, -65], [-87, 51, 54, 127, -38, 101, 108, 76, 80, -43, 26, 21, -21, 22, -14, -105], [-17, 49, 87, 5, -123, 6, -31, 61, 44, -108, 112, -73, 8, 124, -105, -51], [76, -62, 35, -109, -91, -48, 0, 15, -13, -118, 21, -54, -18, -62, -122, -88], [-36, 74, 82, 118, -55, 106, -21, -15, -70, -111, 71, -39, 41, 6, -12, -31], [-97, 59, 100, 62, -6, 101, 126, -8, -94, -67, 41, 105, -11, 98, -100, -95], [-8, -74, -50, 41, 111, 82, -64, 117, -124, -122, 90, -79, 79, -20, 16, 13], [14, 71, 53, 14, 87, 5, -105, -66, -125, 38, -64, 21, -110, 114, 83, -79], [16, -96, 49, -37, 18, -44, 7, -12, -31, -84, -71, 53, 99, 82, 25, -126], [75, 105, -49, -104, -71, -49, -33, -3, -40, -19, -33, -73, 31, 58, 23, 86], [-88, -69, -86, -85, -53, 5, -74, -90, -126, 112, -48, 90, 28, 85, -120, -23], [72, 73, -76, -28, 113, -11, 71, -100, 45, -118, 42, 43, -82, -78, -65, 116], [111, 17, 102, 20, 25, 101, -38, -52, 26, -125, -39, -71, -124, -11, 13, -89], [18, -56, -87, 61, -12, -31, 113, -40, 90, -68, 32, 8, -85, 126, 119, -84], [-37, 88, -103, 70, -52, 26, 0, 11, -54, 5, 7, -101, 59, 18, -6, 125], [-64, 58, -83, -9, 99, -15, -17, 94, -48, -126, -117, -77, 15, 117, 117, 39], [-53, 84, -33, 9, 75, -117, 7, 9, -65, 33, 56, -105, 112, -5, 51, 113], [87, -112, 2, -116, 123, -101, -99, 46, -28, 100, -49, -88, -1, 88, 27, -71], [60, 10, 34, 67, 57, -97, -108, -6, -25, 93, -76, -37, -73, 76, -43, -12], [69, 113, -92, -25, 76, 82, 77, -108, 41, -41, -75, -90, 122, -25, 49, -24], [111, -66, 98, -21, 88, 46, 39, 20, -105, -65, -98, 54, -88, 53, -127, -20], [68, -10, 121, -83, -25, 85, 42, -37, -22, -53, 72, 109, 15, -50, -127, -77], [91, -30, 116, 4, 65, 29, 56, -26, -3, 47, -29, -122, -64, 109, -83, -10], [-3, -13, 39, -14, 87, -57, 19, 80, 121, -12, 79, -103, 19, -38, 92, -4], [-18, -36, -42, -101, -6, 99, 8, -89, 91, 58, -118, -19, 40, -1, -39, 45], [114, -123, -45, -3, -91, -10, -18, -18, 39, -127, -11, -125, 50, -3, -75, -11], [111, -42, -52, -98, 3, -35, 114, 44, 0, 81, 70, 67, 41, -127, -127, -41], [25, -3, 36, 80, 55, 16, 86, 77, 117, 48, 53, -109, 101, 123, 125, 15], [-51, 26, 74, -61, -96, 103, 65, 127, 120, -40, -29, -3, -116, -111, 81, 67], [-98, 37, 39, -68, 114, 84, -75, 12, 12, 109, 13, 82, 103, -102, -120, -67]]> : tensor<36x16xi8>}> : () -> tensor<36x16xi8>
    %us16 = "onnx.Constant"() <{value = dense<[0.0066, 0.0127, 0.0062, 0.0061, 0.0101, 0.0077, 0.0126, 0.0192, 0.0082, 0.0198, 0.0102, 0.0175, 0.0128, 0.0167, 0.0180, 0.0176, 0.0072, 0.0184, 0.0068, 0.0160, 0.0057, 0.0095, 0.0070, 0.0143, 0.0097, 0.0135, 0.0083, 0.0110, 0.0185, 0.0140, 0.0123, 0.0159, 0.0199, 0.0100, 0.0066, 0.0086]> : tensor<36xf32>}> : () -> tensor<36xf32>
    %a = "amk.wgemm"(%x, %g8, %gs, %none, %none) <{axis = 1 : i64, activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<5x16xf32>, tensor<16x36xi8>, tensor<36xf32>, none, none) -> tensor<5x36xf32>
    %b = "amk.wgemm"(%x, %u8, %us, %none, %none) <{axis = 0 : i64, perm_b = array<i64: 1, 0>}> : (tensor<5x16xf32>, tensor<36x16xi8>, tensor<36xf32>, none, none) -> tensor<5x36xf32>
    %y = "onnx.Mul"(%a, %b) : (tensor<5x36xf32>, tensor<5x36xf32>) -> tensor<5x36xf32>
    %a8 = "amk.wgemm"(%x8, %g8b, %gsb, %none, %none) <{axis = 1 : i64, activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<8x16xf32>, tensor<16x36xi8>, tensor<36xf32>, none, none) -> tensor<8x36xf32>
    %b8 = "amk.wgemm"(%x8, %u8b, %usb, %none, %none) <{axis = 0 : i64, perm_b = array<i64: 1, 0>}> : (tensor<8x16xf32>, tensor<36x16xi8>, tensor<36xf32>, none, none) -> tensor<8x36xf32>
    %y8 = "onnx.Mul"(%a8, %b8) : (tensor<8x36xf32>, tensor<8x36xf32>) -> tensor<8x36xf32>
    %a4 = "amk.wgemm"(%x, %g4, %gs4, %gz4, %none) <{axis = 0 : i64, block_size = 8 : i64, activation_bits = 8 : i64, activation = "gelu"}> : (tensor<5x16xf32>, tensor<16x36xui4>, tensor<2x36xf32>, tensor<2x36xui4>, none) -> tensor<5x36xf32>
    %b4 = "amk.wgemm"(%x, %u4, %us4, %uz4, %none) <{axis = 0 : i64, block_size = 8 : i64, activation_bits = 8 : i64}> : (tensor<5x16xf32>, tensor<16x36xui4>, tensor<2x36xf32>, tensor<2x36xui4>, none) -> tensor<5x36xf32>
    %y4 = "onnx.Mul"(%b4, %a4) : (tensor<5x36xf32>, tensor<5x36xf32>) -> tensor<5x36xf32>
    %a16 = "amk.wgemm"(%x40, %g16, %gs16, %none, %none) <{axis = 1 : i64, activation = "quick_gelu", activation_alpha = 1.0 : f32, activation_bits = 16 : i64}> : (tensor<40x16xf32>, tensor<16x36xi8>, tensor<36xf32>, none, none) -> tensor<40x36xf32>
    %b16 = "amk.wgemm"(%x40, %u16, %us16, %none, %none) <{axis = 0 : i64, perm_b = array<i64: 1, 0>, activation_bits = 16 : i64}> : (tensor<40x16xf32>, tensor<36x16xi8>, tensor<36xf32>, none, none) -> tensor<40x36xf32>
    %y16 = "onnx.Mul"(%a16, %b16) : (tensor<40x36xf32>, tensor<40x36xf32>) -> tensor<40x36xf32>
    return %y, %y8, %y4, %y16 : tensor<5x36xf32>, tensor<8x36xf32>, tensor<5x36xf32>, tensor<40x36xf32>
  }
}

// -----

//--- gated_shared_weight.mlir
// Negative: the gate's weight is also read by another product, which packs
// it the usual way: no pairing (the weight must stay for both).
// CHECK-LABEL: amk_task.program @gated_shared_weight
// CHECK: amk_task.kernel gemm
// CHECK: amk_task.kernel gemm
// CHECK: amk_task.kernel elementwise
// CHECK: amk_task.kernel gemm
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 17 : i64}} {
  func.func @gated_shared_weight(%x: tensor<2x3xf32>, %z: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %none = onnx.NoValue
    %wg = "onnx.Constant"() <{value = dense<[[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 1.0], [-2.0, 0.5, 1.25, -0.75]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
    %wu = "onnx.Constant"() <{value = dense<[[1.0, 2.0, -1.0, 0.5], [0.25, -0.5, 1.5, 2.0], [0.75, 1.0, -0.25, -1.5]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
    %g = "amk.gemm"(%x, %wg, %none) <{activation = "quick_gelu", activation_alpha = 1.0 : f32}> : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
    %u = "onnx.MatMul"(%x, %wu) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %y = "onnx.Mul"(%g, %u) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %o = "onnx.MatMul"(%z, %wg) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    return %y, %o : tensor<2x4xf32>, tensor<2x4xf32>
  }
}

// -----

//--- depthwise_cost.mlir
// A depthwise amk.qconv at 7x7 over 960 channels at two workers with the
// default minimum task: its products alone (0.4 MFLOP) priced it below two
// tasks, but the kernel spends 0.3-0.65 ns an output (64 flops each in the
// cost model), so it is split in two on 16-channel groups.
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 21 : i64}} {
  func.func @depthwise_cost(%x: tensor<1x960x7x7xf32>) -> tensor<1x960x7x7xf32> {
    %none = onnx.NoValue
    %s = "onnx.Constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
    %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
    %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<1x960x7x7xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x960x7x7xui8>
    %w = "onnx.Constant"() <{value = dense<3> : tensor<960x1x3x3xi8>}> : () -> tensor<960x1x3x3xi8>
    %ws = "onnx.Constant"() <{value = dense<0.004> : tensor<f32>}> : () -> tensor<f32>
    %ys = "onnx.Constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
    %yz = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
    %c = "amk.qconv"(%q, %s, %z, %w, %ws, %none, %none, %none, %none, %none, %ys, %yz) <{activation = "relu", group = 960 : i64, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x960x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<960x1x3x3xi8>, tensor<f32>, none, none, none, none, none, tensor<f32>, tensor<ui8>) -> tensor<1x960x7x7xui8>
    %d = "onnx.DequantizeLinear"(%c, %ys, %yz) : (tensor<1x960x7x7xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x960x7x7xf32>
    return %d : tensor<1x960x7x7xf32>
  }
}
// DWCOST-LABEL: amk_task.program @depthwise_cost
// DWCOST: amk_task.task {{{.*}}kernel = 1 : i64{{.*}}tile = array<i64: 0, 480, 0, 1>
// DWCOST: amk_task.task {{{.*}}kernel = 1 : i64{{.*}}tile = array<i64: 480, 960, 0, 1>
