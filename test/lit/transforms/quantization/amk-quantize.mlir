// amk-quantize: the one quantization pipeline (amk-calibrate, amk-insert-qdq
// and, with emulate, the lowering for the runtime's float kernels).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, pathlib, sys; r = np.random.default_rng(1); [(pathlib.Path(sys.argv[1]) / f's{i}').mkdir(parents=True) for i in range(4)]; [np.save(pathlib.Path(sys.argv[1]) / f's{i}' / 'input.npy', r.standard_normal((1, 1, 28, 28)).astype(np.float32)) for i in range(4)]" %t/calib

// fp32 adds nothing.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize)' | FileCheck %s --check-prefix=FP32
// FP32-LABEL: func.func @main_graph(
// FP32-NOT: QuantizeLinear
// FP32: "amk.conv"

// int8 without emulation keeps the QDQ graph (2 activations quantized,
// their readers and the weights dequantized)...
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=int8 data-dir=%t/calib emulate=false})' | FileCheck %s --check-prefix=QDQ
// QDQ: amk.calibration = {
// QDQ-LABEL: func.func @main_graph(
// QDQ-COUNT-2: "onnx.QuantizeLinear"
// ...with emulation (the default) the convolution becomes an integer
// amk.qconv reading the quantized input and producing uint8
// (amk-lower-qdq); the graph input is quantized once; the MaxPool between
// the two convolutions (one scale on both sides) runs on the bytes; the
// pairs that stay run on the QUANTIZE kernel.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=int8 data-dir=%t/calib})' | FileCheck %s --check-prefix=EMU
// EMU-LABEL: func.func @main_graph(
// EMU: %[[Q:.*]] = "onnx.QuantizeLinear"(%arg0,
// EMU: %[[C1:.*]] = "amk.qconv"(%[[Q]], {{.*}} -> tensor<1x8x28x28xui8>
// EMU-NEXT: %[[P:.*]], %{{.*}} = "onnx.MaxPool"(%[[C1]]) {{.*}} -> (tensor<1x8x14x14xui8>, none)
// EMU-NEXT: %[[C2:.*]] = "amk.qconv"(%[[P]], {{.*}} -> tensor<1x16x14x14xui8>
// EMU: "onnx.DequantizeLinear"(%[[C2]],

// mixed forwards sensitivity-target to the search: reachable quantizes,
// unreachable fails with the search's reason.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=mixed data-dir=%t/calib sensitivity-target=30 emulate=false})' | FileCheck %s --check-prefix=QDQ
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=mixed data-dir=%t/calib sensitivity-target=200})' 2>&1 | FileCheck %s --check-prefix=SENS
// SENS: error: amk-insert-qdq: sensitivity: the target 200.00 dB is not met unless every node stays in float

// dynamic needs no data: the classifier Gemm becomes an amk.qgemm fed by
// a DynamicQuantizeLinear; the convolutions stay float. With data it is
// refused.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=dynamic})' | FileCheck %s --check-prefix=DYN
// DYN-LABEL: func.func @main_graph(
// DYN: "amk.conv"
// DYN: "onnx.DynamicQuantizeLinear"
// DYN: "amk.qgemm"
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=dynamic data-dir=%t/calib})' 2>&1 | FileCheck %s --check-prefix=DYNDATA
// DYNDATA: error: amk-quantize: precision dynamic needs no data-dir
// Weight-only: the Gemm's weights int8 per column (w8) or int4 in blocks of
// 32 (w4), its input float: amk.wgemm; the convolutions stay float.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=w8})' | FileCheck %s --check-prefix=W8
// W8-LABEL: func.func @main_graph(
// W8: "amk.conv"
// w8's products take bf16 activations where they have 6 rows or more
// (activation_bits 16; this one-row Gemm keeps float at run time).
// W8: "amk.wgemm"({{.*}}) <{activation_bits = 16 : i64, alpha = 1.000000e+00 : f32, axis = 0 : i64, beta = 1.000000e+00 : f32, perm_b = array<i64: 1, 0>}> : (tensor<1x16xf32>, tensor<10x16xi8>
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=w8 activation-bits=0})' | FileCheck %s --check-prefix=W8F
// W8F: "amk.wgemm"({{.*}}) <{alpha = 1.000000e+00 : f32, axis = 0 : i64, beta = 1.000000e+00 : f32, perm_b = array<i64: 1, 0>}> : (tensor<1x16xf32>, tensor<10x16xi8>
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=w8 activation-bits=8})' 2>&1 | FileCheck %s --check-prefix=W8BITS
// W8BITS: error: amk-quantize: activation-bits must be 0 or 16 with precision w8, not 8
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=w4})' | FileCheck %s --check-prefix=W4
// w4 is uint4 with a zero point per block (ONNX Runtime's default).
// W4: "amk.wgemm"({{.*}}) <{activation_bits = 8 : i64{{.*}}block_size = 32 : i64{{.*}}tensor<10x16xui4>, tensor<10x1xf32>, tensor<10x1xui4>
// activation-bits=0 keeps w4's activations float.
// RUN: amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-graph-opt,amk-quantize{precision=w4 activation-bits=0})' | FileCheck %s --check-prefix=W4F
// W4F: "amk.wgemm"({{.*}}) <{alpha = 1.000000e+00 : f32{{.*}}block_size = 32 : i64{{.*}}tensor<10x16xui4>
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=w4 activation-bits=16})' 2>&1 | FileCheck %s --check-prefix=W4BITS
// W4BITS: error: amk-quantize: activation-bits must be 0 or 8 with precision w4, not 16
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=w8 data-dir=%t/calib})' 2>&1 | FileCheck %s --check-prefix=W8DATA
// W8DATA: error: amk-quantize: precision w8 needs no data-dir: only the weights are quantized

// Bad options fail when the pipeline is parsed.
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=int4})' 2>&1 | FileCheck %s --check-prefix=BADP
// BADP: for the --precision option: Cannot find option named 'int4'!
// RUN: not amk-opt %amk_src/examples/tiny_cnn.onnx --pass-pipeline='builtin.module(amk-quantize{precision=int8})' 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: error: amk-quantize: precision int8 needs data-dir
