/*===- kernel_params.h - Parameter layouts of AMK's kernels -----*- C -*-===*
 *
 * Part of AMK. The meaning of each kernel's buffers, iparams and fparams,
 * shared by the scheduler that writes them and the runtime that reads
 * them. Every kernel is tiled in a 2-D space: rows [t0, t1), columns
 * [t2, t3); the space of each kind is given below.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMK_KERNEL_PARAMS_H
#define AMK_KERNEL_PARAMS_H

/* Epilogue activations and elementwise opcodes share one numbering. */
enum amk_rt_op {
  AMK_OP_NONE = 0,
  /* Unary. */
  AMK_OP_RELU = 1,
  AMK_OP_CLIP = 2,       /* [alpha, beta] */
  AMK_OP_LEAKY_RELU = 3, /* alpha */
  AMK_OP_SIGMOID = 4,
  AMK_OP_HARD_SWISH = 5,
  AMK_OP_TANH = 6,
  AMK_OP_GELU = 7,
  AMK_OP_GELU_TANH = 8,
  AMK_OP_QUICK_GELU = 9, /* x * sigmoid(alpha x) */
  AMK_OP_NEG = 10,
  AMK_OP_EXP = 11,
  AMK_OP_LOG = 12,
  AMK_OP_SQRT = 13,
  AMK_OP_ABS = 14,
  AMK_OP_RECIPROCAL = 15,
  AMK_OP_ERF = 16,
  AMK_OP_COPY = 17,
  AMK_OP_FLOOR = 18,
  AMK_OP_CEIL = 19,
  AMK_OP_HARD_SIGMOID = 20, /* max(0, min(1, alpha x + beta)) */
  AMK_OP_SOFTPLUS = 21,
  AMK_OP_ROUND = 22, /* half to even, like ONNX Round */
  AMK_OP_ELU = 23,              /* alpha */
  AMK_OP_SELU = 24,             /* alpha, gamma */
  AMK_OP_CELU = 25,             /* alpha */
  AMK_OP_SOFTSIGN = 26,
  AMK_OP_THRESHOLDED_RELU = 27, /* alpha */
  AMK_OP_SHRINK = 28,           /* bias, lambd */
  AMK_OP_MISH = 29,
  AMK_OP_SIGN = 30,
  AMK_OP_SIN = 31,
  /* Binary. */
  AMK_OP_ADD = 32,
  AMK_OP_SUB = 33,
  AMK_OP_MUL = 34,
  AMK_OP_DIV = 35,
  AMK_OP_POW = 36,
  AMK_OP_MAX = 37,
  AMK_OP_MIN = 38,
  AMK_OP_PRELU = 39, /* a < 0 ? a * b : a */
  /* Load the constant fparams[imm]. */
  AMK_OP_CONST = 48,
  /* More unary ops (64-95). */
  AMK_OP_COS = 64,
  AMK_OP_TAN = 65,
  AMK_OP_ASIN = 66,
  AMK_OP_ACOS = 67,
  AMK_OP_ATAN = 68,
  AMK_OP_SINH = 69,
  AMK_OP_COSH = 70,
  AMK_OP_ASINH = 71,
  AMK_OP_ACOSH = 72,
  AMK_OP_ATANH = 73,
  /* TYPED_ELEMENTWISE only from here. */
  AMK_OP_NOT = 80,
  AMK_OP_BITWISE_NOT = 81,
  AMK_OP_ISNAN = 82,
  AMK_OP_ISINF = 83, /* detect_positive, detect_negative */
  /* More binary ops (96-127), TYPED_ELEMENTWISE only. */
  AMK_OP_MOD = 96,  /* the sign of the divisor (Python's %) */
  AMK_OP_FMOD = 97, /* the sign of the dividend (C's fmod) */
  AMK_OP_EQUAL = 98,
  AMK_OP_LESS = 99,
  AMK_OP_LESS_EQUAL = 100,
  AMK_OP_GREATER = 101,
  AMK_OP_GREATER_EQUAL = 102,
  AMK_OP_AND = 103,
  AMK_OP_OR = 104,
  AMK_OP_XOR = 105,
  AMK_OP_BITWISE_AND = 106,
  AMK_OP_BITWISE_OR = 107,
  AMK_OP_BITWISE_XOR = 108,
  AMK_OP_SHIFT_LEFT = 109,
  AMK_OP_SHIFT_RIGHT = 110,
  /* Clip with tensor bounds (TYPED_ELEMENTWISE): inputs x, then the lower
   * bound when alpha != 0, then the upper when beta != 0. */
  AMK_OP_CLAMP = 128,
};

/* GEMM: C[b] = act(alpha * A[b] B[b] + beta * bias + residual).
 * Column tiles start at multiples of AMK_GEMM_PANEL when B is in panels.
 * Buffers: A, B, C, bias (optional), residual (optional).
 * Rows: batch * M; columns: N.
 * Gated (optional iparam AMK_GEMM_GATED = 1, B in panels, no bias or
 * residual, alpha 1): each panel holds 32 gate columns then the 32 up
 * columns of the same outputs, and C (ldc columns) receives
 * act(gate) * up: output column n / 2 + j of panel column j < 32, for
 * outputs below ldc. A SwiGLU's two products read A once. */
enum {
  AMK_GEMM_BATCH,
  AMK_GEMM_M,
  AMK_GEMM_N,
  AMK_GEMM_K,
  AMK_GEMM_A_BSTRIDE,
  AMK_GEMM_B_BSTRIDE,
  AMK_GEMM_C_BSTRIDE, /* elements */
  AMK_GEMM_LDA,
  AMK_GEMM_LDB,
  AMK_GEMM_LDC,
  AMK_GEMM_TRANS_A,
  AMK_GEMM_TRANS_B,
  AMK_GEMM_BIAS_MODE, /* 0 none, 1 per column (N), 2 per row (M), 3 M x N,
                         4 scalar */
  AMK_GEMM_BIAS_BSTRIDE,
  AMK_GEMM_RES_BSTRIDE,
  AMK_GEMM_ACT,
  AMK_GEMM_B_PANELS, /* 1: B (not batched, not transposed) is stored as
                        ceil(N/64) panels of K x 64, each contiguous (the
                        last zero-padded): the scheduler packs constant
                        weights this way so the kernel streams them */
  AMK_GEMM_NUM_IPARAMS,
  AMK_GEMM_GATED = AMK_GEMM_NUM_IPARAMS /* optional */
};
#define AMK_GEMM_PANEL 64
enum { AMK_GEMM_ALPHA, AMK_GEMM_BETA, AMK_GEMM_ACT_ALPHA, AMK_GEMM_ACT_BETA,
       AMK_GEMM_NUM_FPARAMS };

/* Spatial parameters shared by DWCONV, CONV and POOL (2-D, NCHW). */
enum {
  AMK_SP_N, AMK_SP_C, AMK_SP_H, AMK_SP_W, AMK_SP_OC, AMK_SP_KH, AMK_SP_KW,
  AMK_SP_OH, AMK_SP_OW, AMK_SP_SH, AMK_SP_SW, AMK_SP_PH, AMK_SP_PW,
  AMK_SP_DH, AMK_SP_DW, AMK_SP_GROUP,
  AMK_SP_MODE, /* POOL: 0 max, 1 average counting pads, 2 average without,
                  3 sum, 4 min; DWCONV/CONV: the activation */
  AMK_SP_NUM_IPARAMS
};
/* fparams of DWCONV/CONV: activation alpha, beta. */

/* DWCONV: buffers X, W, Y, bias, residual; OC = C * multiplier.
 * Rows: N*OC. */
/* CONV: buffers X, W, Y, bias, residual. Rows: N*OC; columns: OH*OW.
 * Variant 0: direct loops, any group count. Variant 1 (group 1): implicit
 * GEMM, W [OC][C*KH*KW] times input columns packed per block on the fly,
 * on libxsmm microkernels. Variant 2 (group 1, stride 1 or 2): direct,
 * on W packed as [ceil(OC/32)][C][KH][KW][32] (zero past OC), 14 pixels x
 * 32 channels per register tile. Variant 3 (3x3, stride 1, dilation 1,
 * group 1): Winograd F(m x m, 3 x 3), m = iparam AMK_CONV_WINOGRAD_M (2 or
 * 4), on W transformed at compile time as [(m+2)^2][ceil(OC/32)][C][32]
 * (runtime/lib/kernels/Winograd.h); column tiles are whole rows of m-row
 * output tiles. */
#define AMK_CONV_OC_BLOCK 32
/* AMK_CONV_LAYOUT (optional; 0 where absent): which operands are
 * channel-blocked, NCHW16c (element (n, c, p) at ((n * C / 16 + c / 16) * P
 * + p) * 16 + c % 16, with 16 dividing C). X_BLOCKED: the input, for CONV
 * variant 2 on a flat 1x1 convolution. Y_BLOCKED: the output and the
 * residual, for CONV variant 2. DWCONV (3x3, one output channel per input
 * channel, dilation 1) takes both or neither, with rows in whole
 * 16-channel blocks. */
enum {
  AMK_CONV_WINOGRAD_M = AMK_SP_NUM_IPARAMS,
  AMK_CONV_LAYOUT,
  AMK_CONV_NUM_IPARAMS
};
enum { AMK_CONV_X_BLOCKED = 1, AMK_CONV_Y_BLOCKED = 2 };
/* INVERTED_RESIDUAL: MobileNetV2's block as one kernel over output row
 * strips, so the expanded activation stays in cache
 * (amk-schedule-megakernel{fuse-blocks}): E = act1(W1 X + b1) [N][CE][H][W]
 * (1x1 expansion; without W1, E = X), D = act2(dw3x3(E) + bd) (depthwise,
 * pad 1, stride S) [N][CE][OH][OW], Y = act3(W3 D + b3 + R)
 * [N][CO][OH][OW]. Buffers X, W1 [CE][C], B1 [CE], WD [CE][9], BD [CE],
 * W3 [CO][CE], B3 [CO], R (Y's shape), Y; W1, B1, BD, B3 and R optional.
 * Without W3 (W1 present) the block ends at the depthwise layer: Y = D,
 * CO = CE, no B3 or R.
 * Rows: N*OH (output rows). fparams: alpha and beta of act1, act2, act3.
 * Variant 1 (W1 present, 16 dividing CE): E and D channel-blocked inside
 * the kernel, W1 and W3 packed as CONV variant 2 packs its weights,
 * [ceil(CE/32)][C][32] and [ceil(CO/32)][CE][32]. */
enum { AMK_IR_N, AMK_IR_C, AMK_IR_H, AMK_IR_W, AMK_IR_CE, AMK_IR_CO,
       AMK_IR_OH, AMK_IR_OW, AMK_IR_STRIDE, AMK_IR_ACT1, AMK_IR_ACT2,
       AMK_IR_ACT3, AMK_IR_NUM_IPARAMS };
enum { AMK_IR_X, AMK_IR_W1, AMK_IR_B1, AMK_IR_WD, AMK_IR_BD, AMK_IR_W3,
       AMK_IR_B3, AMK_IR_R, AMK_IR_Y, AMK_IR_NUM_BUFFERS };

/* POOL: buffers X, Y. Rows: N*C. Modes past 4 are the other reductions,
 * over the window's in-bounds elements: */
enum { AMK_POOL_L1 = 5, AMK_POOL_L2 = 6, AMK_POOL_SUM_SQUARE = 7,
       AMK_POOL_LOG_SUM = 8, AMK_POOL_LOG_SUM_EXP = 9, AMK_POOL_PROD = 10 };
/* Variants: 0 float32; 1, 2 max pooling of uint8, int8; 3 average pooling
 * (modes 1, 2) of 8-bit values (amk.qaverage_pool): each element read as
 * (x - zx) * sx, the window summed in double and divided by its count, the
 * mean quantized as saturate(roundeven(v / sy) + zy). Variant 3's iparams
 * continue with x_dtype, y_dtype, zx, zy; its fparams are sx, sy. */
enum { AMK_POOL_VARIANT_QAVERAGE = 3 };

/* ELEMENTWISE: buffers Y, X0..Xn-1. Y is float32 with `rank` dims; input i
 * is read at sum(index[d] * stride_i[d]) (0 strides broadcast) and
 * converted from its dtype. A program of instructions over registers
 * (registers 0..n-1 hold the inputs) computes the result in the register
 * named last. Rows: flat output elements.
 * iparams: rank, dims[rank], ninputs, {dtype, strides[rank]}*ninputs,
 *          ninstr, {op, dst, a, b, imm}*ninstr, result register. */

/* TYPED_ELEMENTWISE: one op (an amk_rt_op) over any element types, for
 * what the float32 register program does not cover: integer and bool
 * results, comparisons, float16/bfloat16/float64, Cast between all of
 * them. Buffers Y, X0..Xn-1 (1 <= n <= 4), with ELEMENTWISE's broadcast
 * strides. Values are computed in `compute` (0 double, 1 int64, 2 uint64)
 * and converted to Y's dtype. A binary op over n > 2 inputs folds left
 * (variadic Max, Min, Sum). fparams: alpha, beta.
 * iparams: op, compute, y_dtype, rank, nin, dims[rank],
 *          {dtype, strides[rank]}*nin. Rows: flat output elements. */
enum { AMK_TEW_OP, AMK_TEW_COMPUTE, AMK_TEW_Y_DTYPE, AMK_TEW_RANK,
       AMK_TEW_NIN, AMK_TEW_DIMS };
enum { AMK_TEW_F64 = 0, AMK_TEW_I64 = 1, AMK_TEW_U64 = 2 };
#define AMK_TEW_MAX_INPUTS 4

/* LOSS: NegativeLogLikelihoodLoss (variant 0) and SoftmaxCrossEntropyLoss
 * (variant 1, whose X are scores: log-softmax over C first). Buffers X
 * (float32 [N, C, D]), T (int32/int64 [N, D]), W (float32 [C], optional),
 * Y (float32: [N, D] without reduction, else one value), LP (variant 1:
 * the log-probabilities [N, C, D], optional). loss = -X[n, t, d] * W[t],
 * 0 where t is ignore_index; mean divides by the sum of the weights used.
 * A target outside [0, C) is a kernel error. One tile (rows: 1).
 * iparams: N, C, D, t_dtype, reduction (0 none, 1 sum, 2 mean), has_ignore,
 * ignore_index. */
enum { AMK_LOSS_N, AMK_LOSS_C, AMK_LOSS_D, AMK_LOSS_T_DTYPE,
       AMK_LOSS_REDUCTION, AMK_LOSS_HAS_IGNORE, AMK_LOSS_IGNORE_INDEX,
       AMK_LOSS_NUM_IPARAMS };
enum { AMK_LOSS_VARIANT_NLL = 0, AMK_LOSS_VARIANT_SCE = 1 };

/* RESIZE: separable interpolation. Along axis d, output coordinate o
 * reads taps[d] input coordinates IDX[off[d] + o * taps[d] + t] with
 * weights W[same] (a table the scheduler computes from the mode, the
 * coordinate transformation and the scales); an output element is the
 * sum over every combination of its axes' taps of the product of the
 * weights times the input there. Buffers X, Y, IDX (int32), W (float32).
 * Variant 0: float32, weighted. Variant 1 (nearest, one tap per axis):
 * elements moved by size (any type), W not read (edge, reflect and wrap
 * Pad use it with their index maps). iparams: rank, elem_bytes, then in
 * dims[rank], out dims[rank], taps[rank], off[rank]. fparams: none, or
 * one: the extrapolation value, written (float32 only) wherever a tap
 * index is -1 (a tf_crop_and_resize coordinate outside the input). Rows:
 * the product of all out dims but the last. */
enum { AMK_RESIZE_RANK, AMK_RESIZE_ELEM_BYTES, AMK_RESIZE_DIMS };
/* Variant 2 (amk.qresize): variant 0's taps and weights on 8-bit X and Y:
 * each tap read as (x - zx) * sx, the weighted sum quantized as
 * saturate(roundeven(v / sy) + zy). iparams: variant 0's, then x_dtype,
 * y_dtype, zx, zy; fparams: sx, sy. */
enum {
  AMK_RESIZE_VARIANT_WEIGHTED = 0,
  AMK_RESIZE_VARIANT_NEAREST = 1,
  AMK_RESIZE_VARIANT_WEIGHTED_Q8 = 2
};
#define AMK_RESIZE_MAX_RANK 8

/* CONV_TRANSPOSE: ConvTranspose over 1 to 3 spatial dims (float32),
 * computed per output element as a gather: output coordinate o reads
 * input i = (o + pad_begin - k * dilation) / stride where that divides and
 * lands inside. Buffers X [N, C, in...], W [C, OC/group, k...], Y
 * [N, OC, out...], bias [OC] (optional). iparams: N, C, OC, group, then
 * for 3 spatial dims (leading ones 1 when fewer): in, out, k, stride,
 * pad_begin, dilation. Rows: N * OC. */
enum { AMK_CT_N, AMK_CT_C, AMK_CT_OC, AMK_CT_GROUP, AMK_CT_DIMS };
#define AMK_CT_NUM_IPARAMS (AMK_CT_DIMS + 3 * 6)

/* GATHER_ND: buffers data, indices, Y. Over B batches (the product of the
 * first batch_dims dims), each of Ni index tuples of length q picks the
 * slice of `slice` elements at those coordinates of the batch's data (an
 * index out of [-dim, dim) is a kernel error). iparams: B, Ni, q, slice,
 * elem_bytes, idx_dtype, then the q indexed dims. Rows: B * Ni. */
enum { AMK_GND_B, AMK_GND_NI, AMK_GND_Q, AMK_GND_SLICE, AMK_GND_ELEM_BYTES,
       AMK_GND_IDX_DTYPE, AMK_GND_DIMS };

/* Reductions of SCATTER_ND and SCATTER_ELEMENTS. */
enum { AMK_SCATTER_NONE = 0, AMK_SCATTER_ADD = 1, AMK_SCATTER_MUL = 2,
       AMK_SCATTER_MAX = 3, AMK_SCATTER_MIN = 4 };

/* SCATTER_ND: buffers data, indices, updates, Y. Y is data with, for each
 * of N index tuples of length q in order, the slice of `slice` elements
 * there replaced by (or combined with) the tuple's updates. One tile.
 * iparams: N, q, slice, dtype, reduction, idx_dtype, then the q indexed
 * dims, then data's element count. */
enum { AMK_SND_N, AMK_SND_Q, AMK_SND_SLICE, AMK_SND_DTYPE,
       AMK_SND_REDUCTION, AMK_SND_IDX_DTYPE, AMK_SND_DIMS };

/* SCATTER_ELEMENTS: buffers data, indices, updates, Y. Y is data with,
 * for each position p of indices (row-major order), the element at p with
 * its axis coordinate replaced by indices[p] set to (or combined with)
 * updates[p]. One tile. iparams: rank, axis, dtype, reduction, idx_dtype,
 * then indices' dims[rank], then data's dims[rank]. */
enum { AMK_SE_RANK, AMK_SE_AXIS, AMK_SE_DTYPE, AMK_SE_REDUCTION,
       AMK_SE_IDX_DTYPE, AMK_SE_DIMS };

/* TOPK: buffers X, values Y (X's type), indices I (int64). Along the axis
 * of X seen as [outer, len, inner], the k largest (or smallest) elements
 * in order, ties to the lower index; NaN counts as largest. iparams:
 * outer, len, inner, k, largest, and optionally X's dtype (float32 when
 * absent). Rows: outer. */
enum { AMK_TOPK_OUTER, AMK_TOPK_LEN, AMK_TOPK_INNER, AMK_TOPK_K,
       AMK_TOPK_LARGEST, AMK_TOPK_NUM_IPARAMS, AMK_TOPK_DTYPE = 5 };

/* CUMSUM: buffers X, Y (float32, float64, int32 or int64). Running sums
 * along the axis of [outer, len, inner], optionally exclusive and/or
 * reversed. iparams: outer, len, inner, exclusive, reverse, dtype.
 * Rows: outer. */
enum { AMK_CUMSUM_OUTER, AMK_CUMSUM_LEN, AMK_CUMSUM_INNER,
       AMK_CUMSUM_EXCLUSIVE, AMK_CUMSUM_REVERSE, AMK_CUMSUM_DTYPE,
       AMK_CUMSUM_NUM_IPARAMS };

/* RECURRENT: RNN (variant 0), GRU (1) and LSTM (2), float32, ONNX's
 * equations and gate orders (GRU z, r, h; LSTM i, o, f, c). Buffers X, W,
 * R, B, sequence_lens (int32), initial_h, initial_c, P, Y, Y_h, Y_c (all
 * but the first three optional). Each (direction, batch) pair is one row,
 * run over its whole sequence. iparams: seq, batch, input, hidden,
 * directions (1 or 2), direction (0 forward, 1 reverse, 2 bidirectional),
 * layout (0 [seq, batch, ...], 1 [batch, seq, ...]), linear_before_reset,
 * then three activation codes per direction (AMK_RNN_ACT_*). fparams:
 * clip (0: none), then alpha and beta per activation (six each). */
enum { AMK_RNN_SEQ, AMK_RNN_BATCH, AMK_RNN_INPUT, AMK_RNN_HIDDEN,
       AMK_RNN_DIRS, AMK_RNN_DIRECTION, AMK_RNN_LAYOUT,
       AMK_RNN_LINEAR_BEFORE_RESET, AMK_RNN_ACTS, AMK_RNN_NUM_IPARAMS = 14 };
enum { AMK_RNN_ACT_SIGMOID, AMK_RNN_ACT_TANH, AMK_RNN_ACT_RELU,
       AMK_RNN_ACT_AFFINE, AMK_RNN_ACT_LEAKY_RELU,
       AMK_RNN_ACT_THRESHOLDED_RELU, AMK_RNN_ACT_SCALED_TANH,
       AMK_RNN_ACT_HARD_SIGMOID, AMK_RNN_ACT_ELU, AMK_RNN_ACT_SOFTSIGN,
       AMK_RNN_ACT_SOFTPLUS, AMK_RNN_ACT_COUNT };
enum { AMK_RNN_VARIANT_RNN = 0, AMK_RNN_VARIANT_GRU = 1,
       AMK_RNN_VARIANT_LSTM = 2 };

/* REDUCE: the Reduce ops on types other than float32 (POOL serves
 * float32): X [outer, R, inner] to Y [outer, inner], both of `dtype`
 * (float64, float16, bfloat16, int8-64, uint8-64), accumulated in double.
 * Modes are POOL's: 0 max, 2 mean, 3 sum, 4 min, 5-10 L1, L2, sum of
 * squares, log-sum, log-sum-exp, product. iparams: outer, R, inner, mode,
 * dtype. Rows: outer. */
enum { AMK_REDUCE_OUTER, AMK_REDUCE_R, AMK_REDUCE_INNER, AMK_REDUCE_MODE,
       AMK_REDUCE_DTYPE, AMK_REDUCE_NUM_IPARAMS };

/* EINSUM: Y = the sum over the contracted labels of the product of the
 * inputs, any numeric type (computed in double). The scheduler numbers
 * the equation's labels, output labels first (in the output's order),
 * and gives each input a stride per label (0 where absent; a label
 * repeated in one input, a diagonal, gets the sum of its strides).
 * Buffers Y, X0..Xn-1 (n <= 3). iparams: nin, nlabels, nout, dtype, then
 * sizes[nlabels], then per input its dtype and strides[nlabels]. Rows:
 * output elements. */
enum { AMK_EINSUM_NIN, AMK_EINSUM_NLABELS, AMK_EINSUM_NOUT,
       AMK_EINSUM_DTYPE, AMK_EINSUM_SIZES };
#define AMK_EINSUM_MAX_LABELS 16

/* GRID_SAMPLE: 2-D GridSample, float32, as PyTorch and ONNX Runtime
 * compute it. Buffers X [N, C, H, W], Grid [N, Ho, Wo, 2], Y [N, C, Ho,
 * Wo]. iparams: N, C, H, W, Ho, Wo, mode (0 bilinear, 1 nearest, 2
 * bicubic), padding (0 zeros, 1 border, 2 reflection), align_corners.
 * Rows: N * C. */
enum { AMK_GS_N, AMK_GS_C, AMK_GS_H, AMK_GS_W, AMK_GS_HO, AMK_GS_WO,
       AMK_GS_MODE, AMK_GS_PADDING, AMK_GS_ALIGN, AMK_GS_NUM_IPARAMS };

/* ROI_ALIGN: RoiAlign, float32, as ONNX Runtime computes it (max mode:
 * the largest weighted corner term). Buffers X [N, C, H, W], rois [R, 4]
 * (x1, y1, x2, y2), batch indices [R] (int32 or int64), Y [R, C, Ho, Wo].
 * iparams: N, C, H, W, R, Ho, Wo, sampling_ratio, max (0 avg, 1 max),
 * half_pixel (1, else output_half_pixel), batch index dtype. fparams:
 * spatial_scale. A batch index outside [0, N) is a kernel error.
 * Rows: R * C. */
enum { AMK_ROI_N, AMK_ROI_C, AMK_ROI_H, AMK_ROI_W, AMK_ROI_R, AMK_ROI_HO,
       AMK_ROI_WO, AMK_ROI_RATIO, AMK_ROI_MAX, AMK_ROI_HALF_PIXEL,
       AMK_ROI_IDX_DTYPE, AMK_ROI_NUM_IPARAMS };

/* TFIDF: TfIdfVectorizer over integer tokens. Buffers X [B, L] (int32 or
 * int64), POOL (int64), WJ (float32 [D], the weight of each output
 * index; absent means 1), Y [B, D] (float32). POOL holds, for each n-gram
 * length n in [min_n, max_n], its n-grams sorted by their tokens, each as
 * n tokens then its output index; pool[n] gives where they start and how
 * many there are. Each row counts the n-grams that start at every
 * position, for every skip 0..max_skip (unigrams once), then Y = count
 * (TF), count > 0 ? w : 0 (IDF) or count * w (TFIDF). iparams: B, L, D,
 * min_n, max_n, max_skip, mode (0 TF, 1 IDF, 2 TFIDF), X dtype, then
 * (offset, count) per length from min_n to max_n (max_n <= 16). Rows: B. */
enum { AMK_TFIDF_B, AMK_TFIDF_L, AMK_TFIDF_D, AMK_TFIDF_MIN_N,
       AMK_TFIDF_MAX_N, AMK_TFIDF_MAX_SKIP, AMK_TFIDF_MODE, AMK_TFIDF_DTYPE,
       AMK_TFIDF_POOL };
enum { AMK_TFIDF_MODE_TF = 0, AMK_TFIDF_MODE_IDF = 1, AMK_TFIDF_MODE_TFIDF = 2 };
#define AMK_TFIDF_MAX_GRAM 16

/* RANDOM: RandomUniform(Like), RandomNormal(Like), Bernoulli and
 * Multinomial, drawing what the reference interpreter draws: draw j of an
 * op is SplitMix64's output for state0 + (j + 1) * 0x9E3779B97F4A7C15
 * (state0 = seed + 1), a counter that any tile can jump to. Element i of
 * a uniform or Bernoulli takes draw i, of a normal draws 2i and 2i + 1
 * (Box-Muller), sample s of Multinomial row b draw b * samples + s.
 * Buffers IN (Bernoulli's probabilities, Multinomial's [B, C] logits;
 * absent otherwise), Y. Variants: 0 uniform, 1 normal, 2 Bernoulli,
 * 3 multinomial. iparams: count (elements; rows B for multinomial),
 * classes C, samples, IN dtype, Y dtype, state0. fparams: low and high, or
 * mean and scale. Rows: count. */
enum { AMK_RAND_COUNT, AMK_RAND_CLASSES, AMK_RAND_SAMPLES, AMK_RAND_IN_DTYPE,
       AMK_RAND_OUT_DTYPE, AMK_RAND_STATE, AMK_RAND_NUM_IPARAMS };
enum { AMK_RAND_UNIFORM = 0, AMK_RAND_NORMAL = 1, AMK_RAND_BERNOULLI = 2,
       AMK_RAND_MULTINOMIAL = 3 };

/* INSTANCE_NORM: buffers X [N, C, S], scale [C], bias [C], Y (float32);
 * each (n, c) plane normalized by its mean and variance (in double), then
 * scaled and shifted. iparams: N, C, S. fparams: epsilon. Rows: N * C.
 * LRN: buffers X [N, C, S], Y; y = x / (bias + alpha / size * sum of x^2
 * over the channel window)^beta. iparams: N, C, S, size. fparams: alpha,
 * beta, bias. Rows: N * C. */
enum { AMK_CN_N, AMK_CN_C, AMK_CN_S, AMK_CN_SIZE };

/* ONE_HOT: buffers indices (any integer or float type), values (2
 * elements: off, on), Y. Y[o][d][i] = indices[o][i] (negative ones from
 * the end of depth) == d ? on : off, elements moved by size. iparams:
 * outer, depth, inner, idx_dtype, elem_bytes. Rows: outer. */
enum { AMK_OH_OUTER, AMK_OH_DEPTH, AMK_OH_INNER, AMK_OH_IDX_DTYPE,
       AMK_OH_ELEM_BYTES, AMK_OH_NUM_IPARAMS };

/* DET: buffers X [batch, n, n], Y [batch] (float32): determinants by
 * Gaussian elimination with partial pivoting in double. iparams: batch,
 * n. Rows: batch. */
enum { AMK_DET_BATCH, AMK_DET_N };

/* SOFTMAX: buffers X, Y. iparams: outer, axis, inner. Rows: outer.
 * Variant: 0 softmax, 1 log-softmax. */
enum { AMK_SOFTMAX_OUTER, AMK_SOFTMAX_AXIS, AMK_SOFTMAX_INNER,
       AMK_SOFTMAX_NUM_IPARAMS };
enum { AMK_SOFTMAX_VARIANT_PLAIN = 0, AMK_SOFTMAX_VARIANT_LOG = 1,
       AMK_SOFTMAX_VARIANT_HARDMAX = 2 /* 1 at the first maximum, else 0 */ };

/* LAYERNORM: buffers X, Y, scale (opt), bias (opt), then optionally Mean
 * and InvStdDev (one float per row; either may be absent).
 * iparams: rows, cols, rms. fparams: epsilon. Rows: rows. */
enum { AMK_LN_ROWS, AMK_LN_COLS, AMK_LN_RMS, AMK_LN_NUM_IPARAMS };

/* ATTENTION: buffers Q, K, V, O, mask (opt). Q [B,H,S,D], K [B,H/G,T,D]
 * or [B,H/G,D,T] when key_transposed, V [B,H/G,T,DV], O [B,H,S,DV]: query
 * head h reads key/value head h / G (G = group, 1 but for grouped-query
 * attention). The mask is added to the scores with strides (elements; 0
 * broadcasts). fparams: scale. Rows: B*H; columns: S. */
enum { AMK_ATT_B, AMK_ATT_H, AMK_ATT_S, AMK_ATT_T, AMK_ATT_D, AMK_ATT_DV,
       AMK_ATT_KEY_TRANSPOSED, AMK_ATT_MASK_SB, AMK_ATT_MASK_SH,
       AMK_ATT_MASK_SS, AMK_ATT_MASK_ST, AMK_ATT_GROUP, AMK_ATT_NUM_IPARAMS };

/* COPY (strided N-D copy: Transpose, Slice, Concat parts, Expand):
 * buffers X, Y. iparams: elem_bytes, rank, src_offset, dst_offset,
 * dims[rank], src_strides[rank], dst_strides[rank] (offsets and strides in
 * elements). Rows: product of all dims but the last. */

/* GATHER: buffers data, indices, Y. Y[o][j][i] = data[o][idx[j]][i].
 * iparams: outer, axis_dim, inner, nidx, elem_bytes, idx_dtype.
 * Rows: outer * nidx. */
enum { AMK_GATHER_OUTER, AMK_GATHER_AXIS, AMK_GATHER_INNER, AMK_GATHER_NIDX,
       AMK_GATHER_ELEM_BYTES, AMK_GATHER_IDX_DTYPE, AMK_GATHER_NUM_IPARAMS };

/* WHERE: Y = C ? X : Z elementwise, with ONNX (numpy) broadcasting.
 * Buffers: C (bool, one byte each), X, Z, Y. iparams: the rank, the element
 * bytes of X, Z and Y (1, 2, 4 or 8), then Y's dims, then the element
 * strides of C, X and Z over Y's dims (rank each; 0 along a broadcast
 * axis). A tile is a range of Y's elements in row-major order. */
enum { AMK_WHERE_RANK, AMK_WHERE_ELEM_BYTES, AMK_WHERE_DIMS };
#define AMK_WHERE_MAX_RANK 8

/* ARGMAX: buffers X, Y (int64). Y[o][i] = the index along the axis of
 * X[o][:][i]'s largest (variant 0) or smallest (variant 1) element; ties
 * go to the first index, or the last with select_last. NaN is never
 * chosen over a number. iparams: outer, axis, inner, select_last, and
 * optionally X's dtype (float32 when absent). Rows: outer. */
enum { AMK_ARGMAX_OUTER, AMK_ARGMAX_AXIS, AMK_ARGMAX_INNER,
       AMK_ARGMAX_SELECT_LAST, AMK_ARGMAX_NUM_IPARAMS,
       AMK_ARGMAX_DTYPE = 4 };
enum { AMK_ARGMAX_VARIANT_MAX = 0, AMK_ARGMAX_VARIANT_MIN = 1 };

/* GATHER_ELEMENTS: buffers data, indices, Y. Y[p] = data[p with its axis
 * coordinate replaced by indices[p]] (Y and indices have one shape; an
 * index out of [-dim, dim) is a kernel error). iparams: rank, axis,
 * elem_bytes, idx_dtype, then Y's dims (rank), then data's dims (rank). A
 * tile is a range of Y's elements in row-major order. */
enum { AMK_GE_RANK, AMK_GE_AXIS, AMK_GE_ELEM_BYTES, AMK_GE_IDX_DTYPE,
       AMK_GE_DIMS };
#define AMK_GE_MAX_RANK 8

/* QUANTIZE: QuantizeLinear (variant 0: Y = saturate(roundeven(X / s) + z),
 * X float32, Y uint8/int8/uint16/int16/int32) and DequantizeLinear
 * (variant 1: Y = (X - z) * s, X any of those integers, Y float32), per
 * tensor or per axis: element i uses scale and zero point
 * (i / inner) % axis_dim. Buffers X, S (float32), Z (X's or Y's integer
 * type, optional: 0), Y. iparams: x_dtype, y_dtype, axis_dim, inner.
 * Rows: flat elements. */
enum { AMK_QUANT_X_DTYPE, AMK_QUANT_Y_DTYPE, AMK_QUANT_AXIS_DIM,
       AMK_QUANT_INNER, AMK_QUANT_NUM_IPARAMS };
/* Variants 0 and 1, optional fifth iparam: the block size of blocked
 * quantization (opset 21), 0 or absent for none. S and Z then have X's
 * shape with the axis cut into ceil(axis_dim / block) blocks: element i
 * at outer o, axis index a, inner j uses entry
 * (o * ceil(axis_dim / block) + a / block) * inner + j. */
enum { AMK_QUANT_BLOCK = AMK_QUANT_NUM_IPARAMS };
enum {
  AMK_QUANT_VARIANT_Q = 0,
  AMK_QUANT_VARIANT_DQ = 1,
  AMK_QUANT_VARIANT_ADD = 2,
  AMK_QUANT_VARIANT_BINARY = 3,
  AMK_QUANT_VARIANT_TABLE = 4
};
/* Variant 2 (amk.qadd): Y = saturate(roundeven(act((A - za) * sa +
 * (B - zb) * sb) / sy) + zy), each step a float operation as the QDQ
 * graph's (no fused multiply-add); with y_dtype float32 Y is the float
 * sum itself. Buffers A, B (x_dtype, 8-bit), unused, Y (y_dtype, 8-bit
 * or float32). iparams: x_dtype, y_dtype, 1, n, then za, zb, zy,
 * act (0 none, 1 relu); fparams: sa, sb, sy. */
enum {
  AMK_QADD_ZA = AMK_QUANT_NUM_IPARAMS,
  AMK_QADD_ZB,
  AMK_QADD_ZY,
  AMK_QADD_RELU,
  AMK_QADD_NUM_IPARAMS
};
enum { AMK_QADD_SA, AMK_QADD_SB, AMK_QADD_SY, AMK_QADD_NUM_FPARAMS };
/* Variant 3 (amk.qadd and amk.qmul with broadcasting): variant 2's
 * parameters, with the sum or the product (op 0 add, 1 mul), then rank
 * (1 to AMK_QBIN_MAX_RANK), Y's dims, A's and B's element strides over
 * them (0 along a broadcast axis). Rows: Y's flat elements. */
enum { AMK_QBIN_OP = AMK_QADD_NUM_IPARAMS, AMK_QBIN_RANK, AMK_QBIN_DIMS };
enum { AMK_QBIN_ADD = 0, AMK_QBIN_MUL = 1 };
#define AMK_QBIN_MAX_RANK 6
/* Variant 4 (amk.qtable): Y[i] = T[X[i] - lowest]. Buffers X (8-bit), T
 * (256 bytes), unused, Y (8-bit). iparams: x_dtype, y_dtype, 1, n. Rows:
 * flat elements. */

/* QCONV: integer convolution (amk.qconv), NCHW, X uint8 or int8 (int8 is
 * read as uint8 + 128, with the zero point moved with it), W int8 packed
 * at compile time, products summed in int32 (u8 x s8: AVX512-VNNI vpdpbusd
 * where the CPU has it, portable loops otherwise), then per output
 * channel oc in float: v = float(acc - WZ[oc]) * M[oc] + B[oc]
 * (WZ = the input zero point times the channel's weight sum, M = the
 * input scale times the channel's weight scale, B the float bias), plus
 * the residual (Z - z_zp) * z_scale, the activation, and either stored as
 * float32 (y_dtype 1) or requantized: roundeven(v / y_scale) + y_zp,
 * saturated to uint8/int8.
 * Buffers X, W, Y, WZ (int32 [OC]), M (float32 [OC]), B (float32 [OC]),
 * Z (optional, Y's shape, uint8/int8), XZP (optional: X's zero point as
 * a run-time scalar; WZ then holds the weight sums, which the kernel
 * multiplies by it). y_dtype int32 (ConvInteger) stores acc - WZ[oc]
 * itself. iparams: the AMK_SP_* (MODE is the
 * activation), then x_zp, x_signed, y_dtype, y_zp, z_dtype, z_zp, kdepth
 * (K = C/group*KH*KW rounded up to 4). fparams: activation alpha, beta,
 * 1 / y_scale, z_scale. Rows: N*OC; columns: OH*OW.
 * Variant 0 (any group): W as [OC][K] (zero past C/group*KH*KW).
 * Variant 1 (group 1): W as [ceil(OC/8)][K/4][8][4] (zero past OC), the
 * input packed per pixel block as [K/4][pixels][4]. */
enum { AMK_QC_X_ZP = AMK_SP_NUM_IPARAMS, AMK_QC_X_SIGNED, AMK_QC_Y_DTYPE,
       AMK_QC_Y_ZP, AMK_QC_Z_DTYPE, AMK_QC_Z_ZP, AMK_QC_KDEPTH,
       AMK_QC_NUM_IPARAMS };
enum { AMK_QC_ACT_ALPHA, AMK_QC_ACT_BETA, AMK_QC_INV_Y_SCALE, AMK_QC_Z_SCALE,
       AMK_QC_NUM_FPARAMS };
#define AMK_QCONV_OC_BLOCK 8

/* QGEMM: integer matrix product (amk.qgemm): Y[r][n] = epilogue(sum_k
 * A[r][k] * B[k][n]) with A uint8 or int8 (int8 read as uint8 + 128, its
 * zero point moved with it) row-major [rows][K], B int8 packed at compile
 * time as [ceil(N/16)][ceil(K/4)][16][4] (zero past N and K), summed in
 * int32 (vpdpbusd where the CPU has AVX512-VNNI), then per column n in
 * float: v = float(acc - WZ[n]) * M[n] + BIAS[n], the activation, and
 * float32 or requantized 8-bit output as QCONV's.
 * Buffers A, B, Y, WZ (int32 [N]), M (float32 [N]), BIAS (float32 [N],
 * optional), AZP (optional: A's zero point as a run-time uint8/int8
 * scalar; WZ then holds the column sums of B and the kernel multiplies
 * them by the zero point), ASCALE (optional: A's scale as a run-time
 * float32 scalar, multiplying M). y_dtype int32 (MatMulInteger) stores
 * acc - WZ[n] itself, without the float epilogue.
 * iparams: rows, N, K, a_signed, a_zp, y_dtype, y_zp, act.
 * fparams: activation alpha, beta, 1 / y_scale. Rows: rows; columns: N. */
enum { AMK_QG_ROWS, AMK_QG_N, AMK_QG_K, AMK_QG_A_SIGNED, AMK_QG_A_ZP,
       AMK_QG_Y_DTYPE, AMK_QG_Y_ZP, AMK_QG_ACT, AMK_QG_NUM_IPARAMS };
enum { AMK_QG_ACT_ALPHA, AMK_QG_ACT_BETA, AMK_QG_INV_Y_SCALE,
       AMK_QG_NUM_FPARAMS };

/* DYNAMIC_QUANTIZE: DynamicQuantizeLinear. Buffers X (float32), Y
 * (uint8), S (float32 scalar), Z (uint8 scalar). The range [min(0, x),
 * max(0, x)] over the whole tensor gives scale = range / 255 and zero
 * point roundeven(-min / scale) (in float, as the ONNX reference), then
 * Y = saturate(roundeven(x / scale) + zero point). One tile (rows: 1):
 * the scale needs every element. iparams: element count. */

/* WGEMM: weight-only quantized matrix product (amk.wgemm): Y[r][n] =
 * act(sum_g S[g][n] * sum_{k in g} A[r][k] * W[k][n] - SZ[g][n] *
 * sum_{k in g} A[r][k] + BIAS[n]), A and Y float32 row-major [rows][K]
 * and [rows][N], the reduction axis cut into groups g of `group`
 * consecutive k (the whole of K for one scale per column). W is packed at
 * compile time in panels of AMK_GEMM_PANEL (64) columns, zero past N:
 * bits 8: int8 [N/64][K][64]; bits 4: [N/64][ceil(K/8)][64] 32-bit words,
 * word (k8, j) holding k = 8 k8 .. 8 k8 + 7 of column j, nibble k % 8 at
 * bits 4 (k % 8), each an unsigned 0..15 (signed int4 stored plus 8, its
 * zero point moved with it); groups of 4-bit weights start on multiples
 * of 8 (the lowering stores others as bits 8). S and SZ (scale x alpha, and
 * that times the zero point) are float32 [N/64][groups][64]; SZ is absent when
 * every zero point is 0. Buffers A, W, Y, S, SZ (optional), BIAS (float32 [N],
 * times beta; optional), RES (float32 [rows][N], a run-time addend such as a
 * residual, times res_beta, added before the activation; optional). A
 * tile of few rows streams W once (the decoder's GEMV); one of many rows
 * dequantizes each panel into float once and multiplies on the GEMM
 * kernel's blocks.
 * With a_bits 8 (bits 4 only, ONNX Runtime's MatMulNBits accuracy_level
 * 4) a product of fewer than 6 rows quantizes each row's activations per
 * group to int8 (symmetric, scale max|A| / 127, rounding half to even)
 * and sums u4 x s8 products exactly in int32: Y = S x sa x sum(W x Aq) -
 * SZ x sa x sum(Aq) per group. The decision is the product's (its rows),
 * never the tile's, so results do not depend on the schedule.
 * With a_bits 16 (bits 8, one scale per column) a product of at least 6
 * rows rounds its activations to bfloat16 (to nearest even) and sums the
 * exact bf16 x int8 products in float (AMX tdpbf16ps where the CPU has
 * it): Y = S x sum(W x bf16(A)) - SZ x sum(bf16(A)).
 * iparams: rows, N, K, bits, group, act, a_bits (0: float activations),
 * and optionally gated: with gated = G > 0 (no bias or addend) each panel
 * holds 32 gate columns then the 32 up columns of the same outputs, and
 * Y (G columns) receives act(gate) * up, as GEMM's gated mode.
 * fparams: activation alpha, beta, res_beta. Rows: rows; columns: N, tiles
 * starting on a panel. */
enum {
  AMK_WG_ROWS,
  AMK_WG_N,
  AMK_WG_K,
  AMK_WG_BITS,
  AMK_WG_GROUP,
  AMK_WG_ACT,
  AMK_WG_A_BITS,
  AMK_WG_NUM_IPARAMS,
  AMK_WG_GATED = AMK_WG_NUM_IPARAMS /* optional */
};
enum { AMK_WG_ACT_ALPHA, AMK_WG_ACT_BETA, AMK_WG_RES_BETA,
       AMK_WG_NUM_FPARAMS };

/* ROPE: rotary position embedding (amk.rope) of float32 rows of D
 * elements. Buffers X, COS, SIN, Y. Rotate_half form (interleaved 0): the
 * pairs (x[i], x[i + D/2]) and a table row of D values; interleaved 1:
 * the pairs (x[2i], x[2i + 1]) and a table row of D/2. A row's COS and SIN
 * values are contiguous; their first element is at the sum over the rows'
 * axes of the row's index times the table's stride (0 where it
 * broadcasts). iparams: D, interleaved, the rank R of the rows' index
 * space (X's axes but the last), its R dims, then COS's R strides and
 * SIN's R strides (elements). Rows: the product of the R dims. */
enum { AMK_ROPE_D, AMK_ROPE_INTERLEAVED, AMK_ROPE_RANK, AMK_ROPE_DIMS };
#define AMK_ROPE_MAX_RANK 8

#endif /* AMK_KERNEL_PARAMS_H */
