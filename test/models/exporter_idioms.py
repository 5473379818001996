#!/usr/bin/python3
"""Models written in other exporters' idioms, with dynamic dimensions.

The zoo (utils/zoo/export_zoo.py) is all torch.onnx.export; deployed
models also come from paddle2onnx and tf2onnx, which write the same
networks differently: shapes computed at run time from Shape/Slice/Gather
with Casts to int32 and back, NHWC Transposes wrapped around convolutions,
opset-9 Flatten and the 2-D-coercing Softmax on a dynamic input. These
models are built by hand with onnx.helper in those idioms (and one with
torch.onnx.export and dynamic_axes), every weight seeded, so the same
files come out on every machine. test/scripts/check-exporter-idioms.sh
runs each on the compiled runtime at three shapes against ONNX Runtime.

Usage: exporter_idioms.py <out-dir> [model ...]
Models (file <name>.onnx, dynamic dims in brackets):
  paddle_ocr_op9, paddle_ocr_op11  x[N,3,H,W]  (paddle2onnx-style OCR CNN)
  tf_audio_op13                    x[N,T,40]   (tf2onnx-style audio model)
  torch_vad_op17                   feats[batch,time,40] (torch.onnx.export)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 20261125


class Graph:
    """A node list with generated value names and seeded initializers."""

    def __init__(self, name, opset, seed):
        self.name = name
        self.opset = opset
        self.rng = np.random.RandomState(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        return f'{hint}_{self.count}'

    def const(self, hint, array):
        name = self.fresh(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, hint, shape, scale):
        return self.const(hint, (self.rng.standard_normal(shape) * scale)
                          .astype(np.float32))

    def uniform(self, hint, shape, lo, hi):
        return self.const(hint, self.rng.uniform(lo, hi, shape)
                          .astype(np.float32))

    def op(self, op_type, inputs, hint=None, outputs=1, out=None, **attrs):
        names = ([out] if out else
                 [self.fresh(hint or op_type.lower()) for _ in range(outputs)])
        self.nodes.append(helper.make_node(op_type, list(inputs), names,
                                           name=names[0] + '_node', **attrs))
        return names[0] if outputs == 1 else names

    def model(self, inputs, outputs, producer):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs,
                                  initializer=self.inits)
        m = helper.make_model(
            graph, producer_name=producer,
            opset_imports=[helper.make_opsetid('', self.opset)])
        # The IR version of the exporters' onnx at these opsets (ONNX
        # Runtime refuses a newer IR version than it knows).
        m.ir_version = {9: 4, 11: 6, 13: 7}.get(self.opset, 8)
        onnx.checker.check_model(m)
        return m

    # Ops whose signature changed across the opsets used here.
    def unsqueeze(self, x, axes):
        if self.opset >= 13:
            return self.op('Unsqueeze', [x, self.const('axes', np.array(
                axes, np.int64))])
        return self.op('Unsqueeze', [x], axes=axes)

    def slice(self, x, starts, ends, axes):
        if self.opset >= 10:
            return self.op('Slice', [
                x, self.const('starts', np.array(starts, np.int64)),
                self.const('ends', np.array(ends, np.int64)),
                self.const('axes', np.array(axes, np.int64))])
        return self.op('Slice', [x], starts=starts, ends=ends, axes=axes)

    def conv_bn_relu(self, x, cin, cout):
        """paddle2onnx writes conv + batch_norm + relu unfused, the conv
        without a bias (the BN's shift carries it)."""
        w = self.weight('conv_w', (cout, cin, 3, 3), (2.0 / (9 * cin)) ** .5)
        y = self.op('Conv', [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                    strides=[1, 1], dilations=[1, 1], group=1)
        y = self.op('BatchNormalization', [
            y, self.uniform('bn_scale', (cout,), 0.5, 1.5),
            self.uniform('bn_bias', (cout,), -0.5, 0.5),
            self.uniform('bn_mean', (cout,), -0.5, 0.5),
            self.uniform('bn_var', (cout,), 0.5, 2.0)],
            epsilon=1e-5, momentum=0.9)
        return self.op('Relu', [y])


def paddle_ocr(opset):
    """A paddle2onnx-style OCR recognizer: conv/BN/relu blocks, one of them
    wrapped in NHWC Transposes, max pooling, then three heads in paddle's
    shape idioms:
      probs         the CRNN head: the feature map averaged over its height,
                    reshaped to [N, C, W/4] by a shape computed from the
                    *input's* Shape (Gather, Div by the pooling stride,
                    Unsqueeze, Cast int32 and back, Concat), Transposed to
                    [N, W/4, C], a per-timestep MatMul + Add and Softmax
                    over the classes;
      flat_softmax  Reshape(feat, Concat(Cast(Slice(Shape(feat), 0:1)), [-1]))
                    gated by Sigmoid(Flatten(feat, axis=1)), then the
                    opset-9 Softmax(axis=1) over the dynamic C*H/4*W/4;
      feat_softmax  Softmax(axis=1) straight on the 4-D dynamic feature map
                    (before opset 13: coerced to [N, C*H/4*W/4]).
    """
    g = Graph(f'paddle_ocr_op{opset}', opset, SEED + opset)
    x = 'x'
    y = g.conv_bn_relu(x, 3, 8)
    # Some exporters keep a layer in NHWC: a Transpose in and out around a
    # per-channel scale broadcast over the last axis.
    t = g.op('Transpose', [y], perm=[0, 2, 3, 1])
    t = g.op('Mul', [t, g.uniform('nhwc_scale', (8,), 0.5, 1.5)])
    y = g.op('Transpose', [t], perm=[0, 3, 1, 2])
    y = g.op('MaxPool', [y], kernel_shape=[2, 2], strides=[2, 2],
             pads=[0, 0, 0, 0])
    y = g.conv_bn_relu(y, 8, 16)
    feat = g.op('MaxPool', [y], kernel_shape=[2, 2], strides=[2, 2],
                pads=[0, 0, 0, 0])                        # [N,16,H/4,W/4]

    # Head 1 (CRNN): the sequence length from the input's width.
    hmean = g.op('ReduceMean', [feat], axes=[2], keepdims=1)  # [N,16,1,W/4]
    in_shape = g.op('Shape', [x])
    n = g.slice(in_shape, [0], [1], [0])                   # [1] int64
    w = g.op('Gather', [in_shape, g.const('idx', np.array(3, np.int64))],
             axis=0)                                        # scalar W
    w = g.op('Div', [w, g.const('stride', np.array(4, np.int64))])
    w = g.unsqueeze(w, [0])
    c = g.op('Gather', [g.op('Shape', [hmean]),
                        g.const('idx', np.array([1], np.int64))], axis=0)
    parts = [g.op('Cast', [v], to=TensorProto.INT32) for v in (n, c, w)]
    seq_shape = g.op('Cast', [g.op('Concat', parts, axis=0)],
                     to=TensorProto.INT64)
    seq = g.op('Reshape', [hmean, seq_shape])              # [N,16,W/4]
    seq = g.op('Transpose', [seq], perm=[0, 2, 1])         # [N,W/4,16]
    logits = g.op('MatMul', [seq, g.weight('fc_w', (16, 12), 0.3)])
    logits = g.op('Add', [logits, g.uniform('fc_b', (12,), -0.2, 0.2)])
    probs = g.op('Softmax', [logits], axis=2, out='probs')

    # Head 2: flatten as paddle's reshape([0, -1]) and as Flatten.
    feat_shape = g.op('Shape', [feat])
    batch = g.op('Cast', [g.slice(feat_shape, [0], [1], [0])],
                 to=TensorProto.INT32)
    flat_shape = g.op('Concat', [batch, g.const('minus_one', np.array(
        [-1], np.int32))], axis=0)
    flat_shape = g.op('Cast', [flat_shape], to=TensorProto.INT64)
    flat = g.op('Reshape', [feat, flat_shape])             # [N,16*H/4*W/4]
    gate = g.op('Sigmoid', [g.op('Flatten', [feat], axis=1)])
    g.op('Softmax', [g.op('Mul', [flat, gate])], axis=1, out='flat_softmax')

    # Head 3: Softmax(axis=1) on the 4-D dynamic feature map.
    g.op('Softmax', [feat], axis=1, out='feat_softmax')

    f = TensorProto.FLOAT
    return g.model(
        [helper.make_tensor_value_info(x, f, ['N', 3, 'H', 'W'])],
        [helper.make_tensor_value_info(probs, f, ['N', 'W_4', 12]),
         helper.make_tensor_value_info('flat_softmax', f, ['N', 'CHW']),
         helper.make_tensor_value_info('feat_softmax', f,
                                       ['N', 16, 'H_4', 'W_4'])],
        'paddle2onnx')


def tf_audio():
    """A tf2onnx-style keyword-spotting model on [N, T, 40] filterbanks.
    Keras' Conv2D on NHWC becomes Unsqueeze + Transpose(0,3,1,2) + Conv +
    Transpose(0,2,3,1); tf.reshape with a shape computed from tf.shape
    becomes Shape -> Cast(int32) -> Slice (StridedSlice) / Gather ->
    Concat -> Cast(int64) -> Reshape.
      scores  Dense + ReLU per frame, ReduceMean over time (keepdims=0),
              Dense + Softmax: [N, 10];
      frames  the per-frame features reshaped to [N*T, 64], N*T computed
              as an int32 Mul of two Gathers of the Shape.
    """
    g = Graph('tf_audio_op13', 13, SEED + 13)
    x = 'x'
    u = g.unsqueeze(x, [2])                                 # [N,T,1,40]
    t = g.op('Transpose', [u], perm=[0, 3, 1, 2])          # [N,40,T,1]
    c = g.op('Conv', [t, g.weight('conv_w', (32, 40, 3, 1), 0.1),
                      g.uniform('conv_b', (32,), -0.1, 0.1)],
             kernel_shape=[3, 1], pads=[1, 0, 1, 0], strides=[1, 1],
             dilations=[1, 1])
    c = g.op('Relu', [c])
    c = g.op('Transpose', [c], perm=[0, 2, 3, 1])          # [N,T,1,32]
    shape32 = g.op('Cast', [g.op('Shape', [x])], to=TensorProto.INT32)
    nt = g.op('Slice', [
        shape32, g.const('begin', np.array([0], np.int32)),
        g.const('end', np.array([2], np.int32)),
        g.const('axes', np.array([0], np.int32)),
        g.const('strides', np.array([1], np.int32))])      # [N, T] int32
    target = g.op('Concat', [nt, g.const('units', np.array([32], np.int32))],
                  axis=0)
    h = g.op('Reshape', [c, g.op('Cast', [target], to=TensorProto.INT64)])
    h = g.op('MatMul', [h, g.weight('dense1_w', (32, 64), 0.2)])
    h = g.op('Add', [h, g.uniform('dense1_b', (64,), -0.1, 0.1)])
    h = g.op('Relu', [h])                                   # [N,T,64]
    pooled = g.op('ReduceMean', [h], axes=[1], keepdims=0)  # [N,64]
    s = g.op('MatMul', [pooled, g.weight('dense2_w', (64, 10), 0.3)])
    s = g.op('Add', [s, g.uniform('dense2_b', (10,), -0.1, 0.1)])
    g.op('Softmax', [s], axis=-1, out='scores')

    n = g.op('Gather', [shape32, g.const('i0', np.array(0, np.int32))],
             axis=0)
    tt = g.op('Gather', [shape32, g.const('i1', np.array(1, np.int32))],
              axis=0)
    nt_flat = g.unsqueeze(g.op('Mul', [n, tt]), [0])
    target2 = g.op('Concat', [nt_flat, g.const('units', np.array(
        [64], np.int32))], axis=0)
    g.op('Reshape', [h, g.op('Cast', [target2], to=TensorProto.INT64)],
         out='frames')

    f = TensorProto.FLOAT
    return g.model(
        [helper.make_tensor_value_info(x, f, ['N', 'T', 40])],
        [helper.make_tensor_value_info('scores', f, ['N', 10]),
         helper.make_tensor_value_info('frames', f, ['NT', 64])],
        'tf2onnx')


def torch_vad(path):
    """A voice-activity detector (Conv1d, Linear, LayerNorm, Sigmoid; no
    recurrent layers) exported by torch.onnx.export with dynamic batch and
    time. torch 1.13 (Debian's) exports opsets up to 17, where LayerNorm
    is one LayerNormalization op."""
    import torch
    import torch.nn as nn

    class VAD(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(40, 32, 3, padding=1)
            self.fc1 = nn.Linear(32, 32)
            self.norm = nn.LayerNorm(32)
            self.fc2 = nn.Linear(32, 1)

        def forward(self, feats):                      # [B, T, 40]
            b, t = feats.shape[0], feats.shape[1]
            h = torch.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
            h = torch.relu(self.norm(self.fc1(h)))
            h = h.reshape(b * t, -1)                   # [B*T, 32]
            speech = torch.sigmoid(self.fc2(h)).reshape(b, t)
            return speech, speech.mean(dim=1)

    torch.manual_seed(SEED)
    model = VAD()
    with torch.no_grad():
        # A fresh LayerNorm is the identity affine map; randomize it.
        model.norm.weight.uniform_(0.5, 1.5)
        model.norm.bias.uniform_(-0.5, 0.5)
    model.eval()
    feats = torch.randn(2, 50, 40)
    torch.onnx.export(model, (feats,), path, opset_version=17,
                      input_names=['feats'],
                      output_names=['speech', 'utterance'],
                      dynamic_axes={'feats': {0: 'batch', 1: 'time'},
                                    'speech': {0: 'batch', 1: 'time'},
                                    'utterance': {0: 'batch'}},
                      do_constant_folding=True)


MODELS = {
    'paddle_ocr_op9': lambda p: onnx.save(paddle_ocr(9), p),
    'paddle_ocr_op11': lambda p: onnx.save(paddle_ocr(11), p),
    'tf_audio_op13': lambda p: onnx.save(tf_audio(), p),
    'torch_vad_op17': torch_vad,
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out_dir, exist_ok=True)
    for n in names:
        if n not in MODELS:
            sys.exit(f'unknown model {n}; known: {", ".join(MODELS)}')
        path = os.path.join(out_dir, f'{n}.onnx')
        MODELS[n](path)
        print(path)


if __name__ == '__main__':
    main()
