// amk-calibrate records a range on every tensor amk-insert-qdq will
// quantize (the activations of MatMul: x, h, r), from a directory of
// samples, streaming; the ranges change when the data does.
// RUN: rm -rf %t && %python %inputs/make_calibration.py %t

// Set A (x = [0 1 2 3] and [.5 .5 .5 .5]): min/max over both samples.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A report=%t/a.json})' | FileCheck %s --check-prefix=A
// A: module attributes {amk.calibration = {config = "{{.*}}\22method\22:\22minmax\22{{.*}}", method = "minmax", samples = 2 : i64, set_hash = "0x[[HASHA:[0-9a-f]+]]", synthetic = false}
// A-LABEL: func.func @main_graph(%arg0: tensor<1x4xf32> {amk.range = array<f64: 0.000000e+00, 3.000000e+00>, onnx.name = "x"})
// A: "onnx.MatMul"{{.*}}amk.ranges = [array<f64: -1.000000e+00, 4.500000e+00>]
// A: "onnx.Relu"{{.*}}amk.ranges = [array<f64: 0.000000e+00, 4.500000e+00>]
// A: "onnx.MatMul"{{.*}}amk.ranges = [array<f64: 3.000000e+00, 9.000000e+00>]
// RUN: FileCheck %s --check-prefix=AJSON < %t/a.json
// AJSON: "method": "minmax",
// AJSON: "samples": 2,
// AJSON: "calibration_set_hash": "0x{{[0-9a-f]+}}",
// AJSON: "synthetic": false,
// AJSON: "name": "x",
// AJSON-NEXT: "min": 0.0,
// AJSON-NEXT: "max": 3.0,

// Set B (x = [-1 .5 2 6]): other ranges, another hash.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/B})' | FileCheck %s --check-prefix=B
// B: samples = 1 : i64, set_hash = "0x{{[0-9a-f]+}}"
// B-LABEL: func.func @main_graph(
// B-SAME: amk.range = array<f64: -1.000000e+00, 6.000000e+00>
// B: "onnx.MatMul"{{.*}}amk.ranges = [array<f64: -5.000000e+00, 5.500000e+00>]
// B: "onnx.Relu"{{.*}}amk.ranges = [array<f64: 0.000000e+00, 5.500000e+00>]

// The histogram methods narrow the range; the report says which. x's
// |values| are 0, .5 x4, 1, 2, 3: half of them are <= .5, so the 50th
// percentile is the upper edge of the 2048-bin histogram's bin holding .5
// (3 * 342 / 2048).
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A method=percentile percentile=50})' | FileCheck %s --check-prefix=PCT
// PCT: method = "percentile"
// PCT-LABEL: func.func @main_graph(
// PCT-SAME: amk.range = array<f64: 0.000000e+00, 0.5009765625>
// bins sets the histogram's resolution: with 128 bins the bin holding .5
// ends at 3 * 22 / 128.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A method=percentile percentile=50 bins=128})' | FileCheck %s --check-prefix=BINS
// BINS-LABEL: func.func @main_graph(
// BINS-SAME: amk.range = array<f64: 0.000000e+00, 5.156250e-01>
// max-samples=1 reads only s0 (x = [0 1 2 3]): y = 9 alone.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A max-samples=1})' | FileCheck %s --check-prefix=MAX
// MAX: samples = 1 : i64
// MAX-LABEL: func.func @main_graph(
// MAX: "onnx.Relu"
// MAX-NEXT: "onnx.MatMul"{{.*}}amk.ranges = [array<f64: 9.000000e+00, 9.000000e+00>]
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A method=entropy})' | FileCheck %s --check-prefix=ENT
// ENT: method = "entropy"
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A method=mse})' | FileCheck %s --check-prefix=MSE
// MSE: method = "mse"

// Synthetic data only when asked, and then the record says so.
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{synthetic=3 seed=7 report=%t/s.json})' | FileCheck %s --check-prefix=SYN
// SYN: samples = 3 : i64, set_hash = "0x{{[0-9a-f]+}}", synthetic = true
// RUN: FileCheck %s --check-prefix=SYNJSON < %t/s.json
// SYNJSON: "note": "calibrated on seeded synthetic inputs, not real data",

// A config file is the same options; options given on the pass win.
// RUN: echo '{"method": "mse", "activation_type": "int8"}' > %t/cfg.json
// RUN: amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{config=%t/cfg.json data-dir=%t/A method=minmax})' | FileCheck %s --check-prefix=CFG
// CFG: \22activation_type\22:\22int8\22{{.*}}method = "minmax"

// A model with a dynamic batch is calibrated at its samples' shapes (each
// sample may have its own); synthetic samples need sizes to be made with.
// RUN: sed 's/tensor<1x/tensor<?x/g' %s > %t/dyn.mlir
// RUN: amk-opt %t/dyn.mlir --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A})' | FileCheck %s --check-prefix=DYN
// DYN: func.func @main_graph(%arg0: tensor<?x4xf32> {amk.range = array<f64: 0.000000e+00, 3.000000e+00>, onnx.name = "x"})
// RUN: not amk-opt %t/dyn.mlir --pass-pipeline='builtin.module(amk-calibrate{synthetic=2})' 2>&1 | FileCheck %s --check-prefix=DYNSYN
// DYNSYN: error: amk-calibrate: graph input 'x' has no static shape; synthetic samples need one (bind its dimensions first: amk-bind-shapes, or give samples)

// Bad input: a clear error, and nothing written.
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate)' 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: error: amk-calibrate: no calibration data: give data-dir=DIR (a directory of samples) or, to calibrate on seeded random inputs, synthetic=N explicitly
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/empty report=%t/empty.json})' 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: amk-calibrate: the calibration set '{{.*}}empty' is empty: it has no sample directories and no .pb/.npy files
// RUN: not test -e %t/empty.json
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/shape})' 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: amk-calibrate: '{{.*}}shape/s0/x.npy': input 'x' is tensor<1x3xf32>, the model needs tensor<1x4xf32>
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/dtype})' 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: amk-calibrate: '{{.*}}dtype/s0/x.npy': input 'x' is tensor<1x4xf64>, the model needs tensor<1x4xf32>
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/noinput})' 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: error: amk-calibrate: sample '{{.*}}noinput/s0': no file for input 'x' (x.npy/.pb or input_0.npy/.pb)
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/nan})' 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: amk-calibrate: tensor 'x' must receive a range, but the calibration set never produced a value for it (all NaN, all masked, or never computed)
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A method=median})' 2>&1 | FileCheck %s --check-prefix=METHOD
// METHOD: for the --method option: Cannot find option named 'median'!
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A synthetic=2})' 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: amk-calibrate: quantization config: give data_dir or synthetic_samples, not both
// RUN: echo '{"metod": "mse"}' > %t/typo.json
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{config=%t/typo.json data-dir=%t/A})' 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: error: amk-calibrate: quantization config: unknown key 'metod' (in '{{.*}}typo.json')
// RUN: not amk-opt %s --pass-pipeline='builtin.module(amk-calibrate{data-dir=%t/A quantized-ops=Conv})' 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: error: amk-calibrate: nothing to calibrate: the graph has no activation of the quantized ops (Conv)

module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 13 : i64}} {
  func.func @main_graph(%arg0: tensor<1x4xf32> {onnx.name = "x"}) -> (tensor<1x1xf32> {onnx.name = "y"}) {
    %w = "onnx.Constant"() <{value = dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
    %w2 = "onnx.Constant"() <{value = dense<[[1.0], [2.0]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
    %h = "onnx.MatMul"(%arg0, %w) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    %r = "onnx.Relu"(%h) : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %y = "onnx.MatMul"(%r, %w2) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
    return %y : tensor<1x1xf32>
  }
}
