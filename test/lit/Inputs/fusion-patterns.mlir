// Transformer-style patterns for the amk-fuse-* and amk-group-elementwise
// tests, with a negative case for each (a value the pattern would hide
// has another use, or the shapes do not allow the rewrite).
module attributes {onnx.ir_version = 8 : i64, onnx.opset_import = {ai.onnx = 18 : i64}} {
  func.func @main_graph(%x: tensor<4x8xf32>, %t: tensor<8x4xf32>, %w: tensor<8x8xf32>, %m: tensor<4x8xf32>, %big: tensor<2x4x8xf32>,
                        %q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %mask: tensor<1x1x4xf32>)
      -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>,
          tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>,
          tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>) {
    %none = "onnx.NoValue"() : () -> none
    %ax = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %eps = "onnx.Constant"() <{value = dense<1.0e-5> : tensor<f32>}> : () -> tensor<f32>
    %g = "onnx.Constant"() <{value = dense<[1.0, 1.5, 0.5, 2.0, 1.0, 0.25, 1.0, 3.0]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %bias = "onnx.Constant"() <{value = dense<[0.1, -0.2, 0.3, 0.0, 0.5, -0.5, 0.2, 0.1]> : tensor<8xf32>}> : () -> tensor<8xf32>
    %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>

    // Attention: softmax(Q K^T / sqrt(8) + mask) V.
    %kt = "onnx.Transpose"(%k) <{perm = array<i64: 0, 2, 1>}> : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
    %s = "onnx.MatMul"(%q, %kt) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %rt8 = "onnx.Constant"() <{value = dense<2.828427> : tensor<f32>}> : () -> tensor<f32>
    %ss = "onnx.Div"(%s, %rt8) : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
    %sm = "onnx.Add"(%ss, %mask) : (tensor<2x4x4xf32>, tensor<1x1x4xf32>) -> tensor<2x4x4xf32>
    %p = "onnx.Softmax"(%sm) <{axis = -1 : i64}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %att = "onnx.MatMul"(%p, %v) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    // Negative: the probabilities are also an output.
    %s2 = "onnx.MatMul"(%q, %kt) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
    %p2 = "onnx.Softmax"(%s2) <{axis = -1 : i64}> : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %att2 = "onnx.MatMul"(%p2, %v) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>

    // LayerNorm, decomposed: (x - mean) / sqrt(var + eps) * g + bias.
    %mu = "onnx.ReduceMean"(%x, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %d = "onnx.Sub"(%x, %mu) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %d2 = "onnx.Pow"(%d, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var = "onnx.ReduceMean"(%d2, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ve = "onnx.Add"(%var, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %sd = "onnx.Sqrt"(%ve) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %n = "onnx.Div"(%d, %sd) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %ng = "onnx.Mul"(%n, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %ln = "onnx.Add"(%ng, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    // RMSNorm: x / sqrt(mean(x^2) + eps) * g.
    %sq = "onnx.Pow"(%m, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %ms = "onnx.ReduceMean"(%sq, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ae = "onnx.Add"(%ms, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %rt = "onnx.Sqrt"(%ae) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %nrm = "onnx.Div"(%m, %rt) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %rms = "onnx.Mul"(%nrm, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    // The LayerNormalization op (Mean/InvStdDev unused).
    %lnop, %lnm, %lni = "onnx.LayerNormalization"(%m, %g, %bias) <{axis = -1 : i64, epsilon = 1.0e-5 : f32}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, none, none)
    // Negative: a LayerNorm whose centered value is also an output.
    %mu3 = "onnx.ReduceMean"(%m, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %d3 = "onnx.Sub"(%m, %mu3) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    %d32 = "onnx.Pow"(%d3, %two) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %var3 = "onnx.ReduceMean"(%d32, %ax) : (tensor<4x8xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    %ve3 = "onnx.Add"(%var3, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
    %sd3 = "onnx.Sqrt"(%ve3) : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %n3 = "onnx.Div"(%d3, %sd3) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>

    // Gelu, erf form: x * 0.5 * (1 + erf(x / sqrt 2)).
    %rt2 = "onnx.Constant"() <{value = dense<1.4142135> : tensor<f32>}> : () -> tensor<f32>
    %xd = "onnx.Div"(%x, %rt2) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %er = "onnx.Erf"(%xd) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %e1 = "onnx.Add"(%er, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %xe = "onnx.Mul"(%x, %e1) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %gelu = "onnx.Mul"(%xe, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    // Quick Gelu: x * sigmoid(1.702 x).
    %kq = "onnx.Constant"() <{value = dense<1.702> : tensor<f32>}> : () -> tensor<f32>
    %kx = "onnx.Mul"(%m, %kq) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %sg = "onnx.Sigmoid"(%kx) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %qg = "onnx.Mul"(%m, %sg) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>

    // Products: Gemm(transB) + Relu; MatMul of a transposed operand;
    // MatMul + bias + tanh Gelu; negative: an addend that enlarges.
    %gm = "onnx.Gemm"(%x, %w, %bias) <{transB = 1 : i64, alpha = 0.5 : f32}> : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %gr = "onnx.Relu"(%gm) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %tt = "onnx.Transpose"(%t) <{perm = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %mt = "onnx.MatMul"(%tt, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %mm = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %y = "onnx.Add"(%mm, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
    %c0 = "onnx.Constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
    %c1 = "onnx.Constant"() <{value = dense<0.7978845608> : tensor<f32>}> : () -> tensor<f32>
    %y3 = "onnx.Pow"(%y, %three) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %cy3 = "onnx.Mul"(%y3, %c0) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %in = "onnx.Add"(%y, %cy3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sc = "onnx.Mul"(%in, %c1) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %th = "onnx.Tanh"(%sc) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %op = "onnx.Add"(%th, %one) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %hy = "onnx.Mul"(%y, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %tg = "onnx.Mul"(%hy, %op) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %mb = "onnx.MatMul"(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %ab = "onnx.Add"(%mb, %big) : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>

    // Softmax of a sum, on the last axis and on axis 0; negative: the sum
    // is also an output.
    %bs = "onnx.Add"(%x, %bias) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %smx = "onnx.Softmax"(%bs) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %bs0 = "onnx.Add"(%m, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm0 = "onnx.Softmax"(%bs0) <{axis = 0 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %bs2 = "onnx.Add"(%m, %m) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %sm2 = "onnx.Softmax"(%bs2) <{axis = -1 : i64}> : (tensor<4x8xf32>) -> tensor<4x8xf32>

    // An elementwise chain with a constant operand.
    %ex = "onnx.Exp"(%m) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %ng2 = "onnx.Mul"(%ex, %half) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %ch = "onnx.Sub"(%ng2, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>

    return %att, %att2, %p2, %ln, %rms, %lnop, %n3, %d3, %gelu, %qg, %gr, %mt, %ab, %tg, %smx, %sm0, %sm2, %bs2, %ch, %mu3
      : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x1xf32>
  }
}
