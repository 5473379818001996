#!/usr/bin/python3
"""Small models in the shapes other toolchains give them.

Where test/models/exporter_idioms.py reproduces how exporters write
*shape arithmetic*, these are whole (if tiny) networks of the kinds people
deploy, each in one exporter's idiom: a CRNN text recognizer with a
bidirectional LSTM, a CenterNet-style detection head with transposed
convolutions and three kinds of Resize, a U-Net, a detector ending in
NonMaxSuppression, an STFT/mel audio front-end, and hand-written graphs in
tf2onnx's and paddle2onnx's idioms (NHWC transposes, opset-9 Upsample and
Softmax, a Loop decoder, int64 shape and mask arithmetic). Every weight is
seeded and every file comes out the same on every machine; each model is
checked with onnx.checker (full_check) as it is written, and the script
exits non-zero if any model could not be built.

For every model NAME it writes NAME.onnx and NAME.shapes: one line per
test shape set, a space-separated list of INPUT=D0xD1x... (the input's
full shape; dynamic dimensions take the sizes given). amk-run binds
dynamic dimensions by dim_param (--dim NAME=N); `toolchain_models.py
--dim-flags MODEL.onnx LINE` prints the --dim flags for one line.

Usage: toolchain_models.py <out-dir> [model ...]
       toolchain_models.py --dim-flags <model.onnx> <shapes line>
Models (opset, inputs with dynamic dims by name):
  crnn_lstm         13  x[N,1,32,W]    torch.onnx.export, 2-layer BiLSTM
  det_head          11  x[N,3,64,64]   torch.onnx.export, ConvTranspose+Resize
  unet_small        12  x[N,3,H,W]     torch.onnx.export, cat skips
  detect_nms        11  image[1,3,32,32]  torch.onnx.export, torchvision nms
  yolo_c2f          17  x[N,3,H,W]     torch.onnx.export, C2f (Split/Concat), SPPF
  audio_stft        17  x[N,L]         STFT/HannWindow/MelWeightMatrix (helper)
  tf_nhwc_resize    13  x[N,32,32,3]   tf2onnx idiom (helper)
  paddle_opset9      9  x[N,3,H,W]     paddle2onnx idiom (helper)
  loop_decoder      13  x[1,8]         tf2onnx-style Loop greedy decoder
  where_expand_int  13  x[N,T,C]       int64 shape/mask arithmetic (helper)
  box_decode_idioms 17  boxes[N,4]     torchvision box decoding (helper)
"""
import io
import os
import sys
import traceback
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_idioms import Graph  # noqa: E402  (same directory)

SEED = 20261126
F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


# ---------------------------------------------------------------------------
# torch.onnx.export models

def torch_export(model, args, path, opset, inputs, outputs, dynamic_axes):
    """torch.onnx.export in eval mode with constant folding, as deployment
    scripts call it; the exporter's warnings (LSTM batch sizes, nms) are
    kept out of the test log."""
    import torch
    model.eval()
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter('ignore')
        torch.onnx.export(model, args, path, opset_version=opset,
                          input_names=inputs, output_names=outputs,
                          dynamic_axes=dynamic_axes,
                          do_constant_folding=True)


def randomize_bn(module):
    """Fresh BatchNorms are the identity; give them seeded statistics so
    the folded Conv weights are not just the conv's."""
    import torch
    import torch.nn as nn
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
                m.running_mean.uniform_(-0.3, 0.3)
                m.running_var.uniform_(0.5, 2.0)


def conv_bn_relu(cin, cout, k=3, stride=1):
    import torch.nn as nn
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU())


def crnn_lstm(path):
    """torch.onnx.export of a CRNN text recognizer (opset 13): Conv+BN+ReLU
    +MaxPool (BN folded into the Conv in eval mode), height pooled to 1,
    squeeze + permute to [W/4, N, C], a 2-layer bidirectional nn.LSTM
    (two ONNX LSTM ops with direction=bidirectional, their initial states
    Expanded from the dynamic batch, Transpose/Reshape between layers),
    Linear to 20 classes and log_softmax: the CTC recognizer of
    PaddleOCR/EasyOCR-style pipelines exported from PyTorch."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as fn

    class CRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn = nn.Sequential(
                conv_bn_relu(1, 16), nn.MaxPool2d(2, 2),          # 16 x W/2
                conv_bn_relu(16, 32), nn.MaxPool2d(2, 2),         # 8 x W/4
                conv_bn_relu(32, 32), nn.MaxPool2d((2, 1), (2, 1)),  # 4
                conv_bn_relu(32, 32), nn.MaxPool2d((4, 1), (4, 1)))  # 1
            self.rnn = nn.LSTM(32, 32, num_layers=2, bidirectional=True)
            self.fc = nn.Linear(64, 20)

        def forward(self, x):                      # [N, 1, 32, W]
            f = self.cnn(x).squeeze(2)             # [N, 32, W/4]
            f = f.permute(2, 0, 1)                 # [W/4, N, 32]
            h, _ = self.rnn(f)                     # [W/4, N, 64]
            return fn.log_softmax(self.fc(h), dim=2)

    torch.manual_seed(SEED)
    model = CRNN()
    randomize_bn(model)
    torch_export(model, (torch.randn(2, 1, 32, 100),), path, 13,
                 ['x'], ['logprobs'],
                 {'x': {0: 'N', 3: 'W'}, 'logprobs': {0: 'T', 1: 'N'}})
    return [{'x': (1, 1, 32, 100)}, {'x': (2, 1, 32, 64)},
            {'x': (3, 1, 32, 100)}]


def det_head(path):
    """torch.onnx.export of a CenterNet/FPN-style detection head (opset
    11): strided Conv backbone, nn.ConvTranspose2d(stride 2, padding 1,
    output_padding 1) upsampling added to a lateral 1x1 conv,
    F.interpolate(scale_factor=2, mode='nearest') (Resize with constant
    scales, asymmetric/floor) and F.interpolate(size=skip.shape[2:],
    mode='bilinear', align_corners=False) (Resize linear, pytorch_half_pixel,
    sizes computed from Shape/Slice/Concat) added to the skip, a sigmoid
    heatmap head (bias -2.19 as CenterNet initializes it) and a box
    regression head. Batch is dynamic."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as fn

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = conv_bn_relu(3, 16, stride=2)           # 32x32
            self.c2 = conv_bn_relu(16, 32, stride=2)          # 16x16
            self.c3 = conv_bn_relu(32, 64, stride=2)          # 8x8
            self.up = nn.ConvTranspose2d(64, 32, 3, stride=2, padding=1,
                                         output_padding=1)    # 16x16
            self.lat2 = nn.Conv2d(32, 32, 1)
            self.reduce = nn.Conv2d(32, 16, 1)
            self.lat1 = nn.Conv2d(16, 16, 1)
            self.side = nn.Conv2d(64, 16, 1)
            self.hm = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1),
                                    nn.ReLU(), nn.Conv2d(16, 3, 1))
            self.reg = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1),
                                     nn.ReLU(), nn.Conv2d(16, 4, 1))
            with torch.no_grad():
                self.hm[2].bias.fill_(-2.19)

        def forward(self, x):                      # [N, 3, 64, 64]
            f1 = self.c1(x)
            f2 = self.c2(f1)
            f3 = self.c3(f2)
            p2 = torch.relu(self.up(f3)) + self.lat2(f2)   # [N,32,16,16]
            p1 = fn.interpolate(self.reduce(p2), scale_factor=2,
                                mode='nearest') + self.lat1(f1)
            p1 = p1 + fn.interpolate(self.side(f3), size=f1.shape[2:],
                                     mode='bilinear', align_corners=False)
            return torch.sigmoid(self.hm(p1)), self.reg(p1)  # [N,*,32,32]

    torch.manual_seed(SEED + 1)
    model = Head()
    randomize_bn(model)
    torch_export(model, (torch.randn(1, 3, 64, 64),), path, 11,
                 ['x'], ['heatmap', 'regression'],
                 {'x': {0: 'N'}, 'heatmap': {0: 'N'},
                  'regression': {0: 'N'}})
    return [{'x': (1, 3, 64, 64)}, {'x': (2, 3, 64, 64)}]


def unet_small(path):
    """torch.onnx.export of a 2-level U-Net (opset 12) with dynamic batch,
    height and width: DoubleConv (Conv+BN+ReLU twice) blocks, MaxPool2d
    down, ConvTranspose2d(k=2, s=2) up, torch.cat skip connections (Concat
    on the channel axis of two dynamic-shaped tensors), a 1x1 output conv.
    H and W must be multiples of 4."""
    import torch
    import torch.nn as nn

    def double_conv(cin, cout):
        return nn.Sequential(conv_bn_relu(cin, cout), conv_bn_relu(cout, cout))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inc = double_conv(3, 8)
            self.down1 = nn.Sequential(nn.MaxPool2d(2), double_conv(8, 16))
            self.down2 = nn.Sequential(nn.MaxPool2d(2), double_conv(16, 32))
            self.up1 = nn.ConvTranspose2d(32, 16, 2, stride=2)
            self.conv1 = double_conv(32, 16)
            self.up2 = nn.ConvTranspose2d(16, 8, 2, stride=2)
            self.conv2 = double_conv(16, 8)
            self.out = nn.Conv2d(8, 2, 1)

        def forward(self, x):
            x1 = self.inc(x)                       # [N, 8, H, W]
            x2 = self.down1(x1)                    # [N,16, H/2, W/2]
            x3 = self.down2(x2)                    # [N,32, H/4, W/4]
            y = self.conv1(torch.cat([x2, self.up1(x3)], dim=1))
            y = self.conv2(torch.cat([x1, self.up2(y)], dim=1))
            return self.out(y)                     # [N, 2, H, W]

    torch.manual_seed(SEED + 2)
    model = UNet()
    randomize_bn(model)
    torch_export(model, (torch.randn(1, 3, 64, 64),), path, 12,
                 ['x'], ['mask'],
                 {'x': {0: 'N', 2: 'H', 3: 'W'},
                  'mask': {0: 'N', 2: 'H', 3: 'W'}})
    return [{'x': (1, 3, 64, 64)}, {'x': (2, 3, 48, 80)}]


def detect_nms(path):
    """torch.onnx.export of a one-stage detector's post-processing (opset
    11): conv features decoded to 64 boxes [64, 4] (grid centres + tanh
    offsets, exp sizes) and sigmoid scores, torchvision.ops.nms (exported
    by torchvision's symbolic as Unsqueeze + NonMaxSuppression with
    max_output_boxes_per_class = INT64_MAX, then Gather/Squeeze of the
    selected box index), and boxes[keep], scores[keep] (Gather): the
    outputs' length depends on the data."""
    import torch
    import torch.nn as nn
    import torchvision

    class Det(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(16, 5, 1))                       # [1, 5, 8, 8]
            ys, xs = torch.meshgrid(torch.arange(8.0), torch.arange(8.0),
                                    indexing='ij')
            grid = torch.stack([xs, ys], -1).reshape(64, 2)
            self.register_buffer('grid', (grid + 0.5) * 4.0)

        def forward(self, image):                  # [1, 3, 32, 32]
            f = self.body(image).flatten(2).transpose(1, 2)[0]  # [64, 5]
            ctr = self.grid + torch.tanh(f[:, 0:2]) * 4.0
            wh = torch.exp(f[:, 2:4].clamp(-1.0, 1.0)) * 10.0
            boxes = torch.cat([ctr - wh / 2, ctr + wh / 2], dim=1)
            scores = torch.sigmoid(f[:, 4])
            keep = torchvision.ops.nms(boxes, scores, 0.4)
            return boxes[keep], scores[keep]

    torch.manual_seed(SEED + 3)
    model = Det()
    torch_export(model, (torch.randn(1, 3, 32, 32),), path, 11,
                 ['image'], ['boxes', 'scores'],
                 {'boxes': {0: 'K'}, 'scores': {0: 'K'}})
    return [{'image': (1, 3, 32, 32)}]


# ---------------------------------------------------------------------------
# Hand-written graphs (onnx.helper) in other exporters' idioms

def yolo_c2f(path):
    """torch.onnx.export of a YOLOv8-style backbone piece (opset 17) with
    dynamic batch, height and width: Conv+BN+SiLU, C2f blocks (a 1x1 conv,
    torch.chunk into two halves (Split), bottlenecks with residuals on the
    second half, torch.cat of both halves and every bottleneck's output),
    SPPF (three chained 5x5 max pools, cat of all four). At batch 1 the
    runtime writes the Concats' inputs in place and the Split's halves are
    views (concat-in-place); at batch 2 the same model copies. H and W must
    be multiples of 4."""
    import torch
    import torch.nn as nn

    def cbs(cin, cout, k=1, stride=1):
        return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2,
                                       bias=False),
                             nn.BatchNorm2d(cout), nn.SiLU())

    class Bottleneck(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.cv1, self.cv2 = cbs(c, c, 3), cbs(c, c, 3)

        def forward(self, x):
            return x + self.cv2(self.cv1(x))

    class C2f(nn.Module):
        def __init__(self, cin, cout, n):
            super().__init__()
            self.c = cout // 2
            self.cv1 = cbs(cin, 2 * self.c)
            self.cv2 = cbs((2 + n) * self.c, cout)
            self.m = nn.ModuleList(Bottleneck(self.c) for _ in range(n))

        def forward(self, x):
            y = list(self.cv1(x).chunk(2, 1))
            y.extend(m(y[-1]) for m in self.m)
            return self.cv2(torch.cat(y, 1))

    class SPPF(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.cv1, self.cv2 = cbs(c, c // 2), cbs(c * 2, c)
            self.m = nn.MaxPool2d(5, 1, 2)

        def forward(self, x):
            x = self.cv1(x)
            y1 = self.m(x)
            y2 = self.m(y1)
            return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))

    torch.manual_seed(SEED + 4)
    model = nn.Sequential(cbs(3, 16, 3, 2), cbs(16, 32, 3, 2),
                          C2f(32, 32, 1), cbs(32, 64, 3, 2), C2f(64, 64, 2),
                          SPPF(64))
    randomize_bn(model)
    torch_export(model, (torch.randn(1, 3, 64, 64),), path, 17, ['x'],
                 ['features'],
                 {'x': {0: 'N', 2: 'H', 3: 'W'},
                  'features': {0: 'N', 2: 'H', 3: 'W'}})
    return [{'x': (1, 3, 64, 64)}, {'x': (1, 3, 96, 160)},
            {'x': (2, 3, 48, 80)}]


def audio_stft():
    """An audio front-end at opset 17, written with onnx.helper because
    torch 1.13 cannot export torch.stft (tf2onnx writes tf.signal.stft
    the same way): signal [N, L] Unsqueezed to [N, L, 1], STFT with
    frame_step 160, frame_length 400 and a HannWindow(400) window
    (onesided: [N, T, 201, 2], T = (L - 400) / 160 + 1), magnitude as
    Sqrt(ReduceSumSquare) over the real/imaginary axis, MatMul with the
    MelWeightMatrix op's [201, 40] matrix (16 kHz, 20 Hz..8 kHz), Log(x +
    1e-6), then a Conv1d classifier over time: Transpose to [N, 40, T],
    Conv + Relu, ReduceMean over time, Gemm (transB) to 10 classes.
    Outputs the log-mel features too."""
    g = Graph('audio_stft', 17, SEED + 17)
    sig = g.unsqueeze('x', [2])                                # [N, L, 1]
    window = g.op('HannWindow', [g.const('win_len', np.array(400, np.int64))],
                  periodic=1)
    spec = g.op('STFT', [sig, g.const('hop', np.array(160, np.int64)),
                         window, g.const('frame', np.array(400, np.int64))],
                onesided=1)                                    # [N,T,201,2]
    power = g.op('ReduceSumSquare', [spec], axes=[3], keepdims=0)
    mag = g.op('Sqrt', [power])                                # [N,T,201]
    mel_w = g.op('MelWeightMatrix', [
        g.const('mel_bins', np.array(40, np.int64)),
        g.const('dft_len', np.array(400, np.int64)),
        g.const('rate', np.array(16000, np.int64)),
        g.const('lo_hz', np.array(20.0, np.float32)),
        g.const('hi_hz', np.array(8000.0, np.float32))])      # [201, 40]
    mel = g.op('MatMul', [mag, mel_w])                         # [N,T,40]
    feats = g.op('Log', [g.op('Add', [mel, g.const(
        'eps', np.array(1e-6, np.float32))])], out='feats')
    t = g.op('Transpose', [feats], perm=[0, 2, 1])             # [N,40,T]
    c = g.op('Conv', [t, g.weight('conv_w', (16, 40, 3), 0.1),
                      g.uniform('conv_b', (16,), -0.1, 0.1)],
             kernel_shape=[3], pads=[1, 1], strides=[1])
    c = g.op('Relu', [c])
    pooled = g.op('ReduceMean', [c], axes=[2], keepdims=0)     # [N,16]
    g.op('Gemm', [pooled, g.weight('fc_w', (10, 16), 0.3),
                  g.uniform('fc_b', (10,), -0.1, 0.1)],
         transB=1, out='logits')
    return g.model([vi('x', F, ['N', 'L'])],
                   [vi('logits', F, ['N', 10]),
                    vi('feats', F, ['N', 'T', 40])],
                   'onnx.helper'), [{'x': (1, 16000)}, {'x': (2, 8000)}]


def tf_nhwc_resize():
    """tf2onnx's idiom for a Keras NHWC model (opset 13, batch unknown as
    tf2onnx leaves it): every Conv2D wrapped in Transpose(0,3,1,2) /
    Transpose(0,2,3,1) pairs with the activations between them in NHWC,
    tf.image.resize(method='nearest') as Transpose + Resize(roi empty,
    scales a constant [1,1,2,2], nearest, asymmetric, floor) + Transpose,
    a Reshape to [N, H*W, C] whose shape comes from Shape -> Cast(int32) ->
    Slice -> Concat(int32 constant) -> Cast(int64), and Softmax on the
    last axis (opset-13 semantics)."""
    g = Graph('tf_nhwc_resize', 13, SEED + 13)

    def conv_nhwc(x, cin, cout, stride):
        t = g.op('Transpose', [x], perm=[0, 3, 1, 2])
        c = g.op('Conv', [t, g.weight('conv_w', (cout, cin, 3, 3),
                                      (2.0 / (9 * cin)) ** .5),
                          g.uniform('conv_b', (cout,), -0.1, 0.1)],
                 kernel_shape=[3, 3], strides=[stride, stride],
                 pads=[1, 1, 1, 1], dilations=[1, 1])
        return g.op('Transpose', [c], perm=[0, 2, 3, 1])

    a = g.op('Relu', [conv_nhwc('x', 3, 8, 1)])                # [N,32,32,8]
    b = g.op('Relu', [conv_nhwc(a, 8, 8, 2)])                  # [N,16,16,8]
    t = g.op('Transpose', [b], perm=[0, 3, 1, 2])
    r = g.op('Resize', [t, '', g.const('scales', np.array(
        [1, 1, 2, 2], np.float32))], mode='nearest',
        coordinate_transformation_mode='asymmetric', nearest_mode='floor')
    up = g.op('Transpose', [r], perm=[0, 2, 3, 1])             # [N,32,32,8]
    s = g.op('Add', [up, a])
    s = conv_nhwc(s, 8, 6, 1)                                  # [N,32,32,6]
    shape32 = g.op('Cast', [g.op('Shape', [s])], to=TensorProto.INT32)
    n = g.op('Slice', [shape32, g.const('begin', np.array([0], np.int32)),
                       g.const('end', np.array([1], np.int32)),
                       g.const('axes', np.array([0], np.int32))])
    target = g.op('Concat', [n, g.const('rest', np.array([-1, 6], np.int32))],
                  axis=0)
    flat = g.op('Reshape', [s, g.op('Cast', [target], to=TensorProto.INT64)])
    g.op('Softmax', [flat], axis=-1, out='probs')              # [N,1024,6]
    return g.model([vi('x', F, ['unk__0', 32, 32, 3])],
                   [vi('probs', F, ['unk__0', 1024, 6])],
                   'tf2onnx'), [{'x': (1, 32, 32, 3)}, {'x': (2, 32, 32, 3)}]


def paddle_opset9():
    """paddle2onnx's idioms at opset 9 on x [N, 3, H, W] (H, W even):
    Conv + BatchNormalization (opset 9: no spatial attribute) + Relu,
    MaxPool, Upsample-9 with a scales *input* (nearest for the FPN merge,
    linear for a side branch), Cast chains (float -> double -> float, the
    shape int64 -> int32 -> int64, ArgMax int64 -> int32 -> float), a
    Reshape to [N, 8, -1] whose shape is Shape -> Slice(attribute form) ->
    Concat, the opset-9 Softmax(axis=1) on that 3-D tensor (coerced to 2-D:
    normalizes over 8*H*W, not over the channels) and Flatten(axis=1) +
    Softmax."""
    g = Graph('paddle_opset9', 9, SEED + 9)
    y = g.conv_bn_relu('x', 3, 8)                              # [N,8,H,W]
    p = g.op('MaxPool', [y], kernel_shape=[2, 2], strides=[2, 2],
             pads=[0, 0, 0, 0])                                # [N,8,H/2,W/2]
    p = g.conv_bn_relu(p, 8, 8)
    scales = g.const('scales', np.array([1, 1, 2, 2], np.float32))
    up = g.op('Upsample', [p, scales], mode='nearest')
    lin = g.op('Upsample', [p, scales], mode='linear')
    y = g.op('Add', [g.op('Add', [y, up]), g.op('Mul', [lin, g.const(
        'half', np.array(0.5, np.float32))])])
    # paddle's cast ops round-trip through the declared dtype.
    y = g.op('Cast', [g.op('Cast', [y], to=TensorProto.DOUBLE)],
             to=TensorProto.FLOAT)
    logits = g.op('Conv', [y, g.weight('cls_w', (4, 8, 1, 1), 0.4),
                           g.uniform('cls_b', (4,), -0.1, 0.1)],
                  kernel_shape=[1, 1])                         # [N,4,H,W]
    seg = g.op('ArgMax', [logits], axis=1, keepdims=1)
    seg = g.op('Cast', [g.op('Cast', [seg], to=TensorProto.INT32)],
               to=TensorProto.FLOAT, out='seg')                # [N,1,H,W]

    shape = g.op('Shape', [y])
    shape = g.op('Cast', [g.op('Cast', [shape], to=TensorProto.INT32)],
                 to=TensorProto.INT64)
    n = g.slice(shape, [0], [1], [0])
    target = g.op('Concat', [n, g.const('rest', np.array([8, -1], np.int64))],
                  axis=0)
    seq = g.op('Reshape', [y, target])                         # [N,8,H*W]
    g.op('Softmax', [seq], axis=1, out='seq_softmax')
    g.op('Softmax', [g.op('Flatten', [logits], axis=1)], axis=1,
         out='flat_softmax')                                   # [N,4*H*W]
    return g.model([vi('x', F, ['N', 3, 'H', 'W'])],
                   [vi('seg', F, ['N', 1, 'H', 'W']),
                    vi('seq_softmax', F, ['N', 8, 'HW']),
                    vi('flat_softmax', F, ['N', 'CHW'])],
                   'paddle2onnx'), [{'x': (1, 3, 16, 16)},
                                    {'x': (2, 3, 24, 32)},
                                    {'x': (1, 3, 10, 6)}]


def loop_decoder():
    """tf2onnx's greedy decoder (a tf.while_loop) at opset 13: an encoder
    Tanh(MatMul(x, We) + be) gives the hidden state [1, 16]; a Loop with a
    constant trip count 6 and cond true carries the hidden state and the
    token id (int64 [1], starting at 0); its body reads the outer graph's
    initializers and computes hidden = Tanh(MatMul(hidden, Wh) +
    Gather(Emb, token)), logits = MatMul(hidden, Wo), token =
    ArgMax(logits) and emits token and logits as scan outputs (through
    Identity, as tf2onnx does). Outputs: the final hidden state, tokens
    [6, 1] and logits [6, 1, 12]."""
    g = Graph('loop_decoder', 13, SEED + 130)
    vocab, hid = 12, 16
    h0 = g.op('Tanh', [g.op('Add', [
        g.op('MatMul', ['x', g.weight('enc_w', (8, hid), 0.5)]),
        g.uniform('enc_b', (hid,), -0.1, 0.1)])])
    emb = g.weight('emb', (vocab, hid), 0.8)
    wh = g.weight('wh', (hid, hid), 0.4)
    wo = g.weight('wo', (hid, vocab), 0.6)
    tok0 = g.const('tok0', np.array([0], np.int64))
    trip = g.const('trip', np.array(6, np.int64))
    cond = g.const('cond', np.array(True))

    body_nodes = [
        helper.make_node('Identity', ['cond_in'], ['cond_out'],
                         name='body_cond'),
        helper.make_node('Gather', [emb, 'tok_in'], ['embedded'], axis=0,
                         name='body_gather'),
        helper.make_node('MatMul', ['h_in', wh], ['h_wh'], name='body_mm_h'),
        helper.make_node('Add', ['h_wh', 'embedded'], ['pre'],
                         name='body_add'),
        helper.make_node('Tanh', ['pre'], ['h_out'], name='body_tanh'),
        helper.make_node('MatMul', ['h_out', wo], ['step_logits'],
                         name='body_mm_o'),
        helper.make_node('ArgMax', ['step_logits'], ['tok_out'], axis=1,
                         keepdims=0, name='body_argmax'),
        helper.make_node('Identity', ['tok_out'], ['scan_tok'],
                         name='body_scan_tok'),
        helper.make_node('Identity', ['step_logits'], ['scan_logits'],
                         name='body_scan_logits'),
    ]
    body = helper.make_graph(
        body_nodes, 'decoder_step',
        [vi('iter', I64, []), vi('cond_in', TensorProto.BOOL, []),
         vi('h_in', F, [1, hid]), vi('tok_in', I64, [1])],
        [vi('cond_out', TensorProto.BOOL, []), vi('h_out', F, [1, hid]),
         vi('tok_out', I64, [1]), vi('scan_tok', I64, [1]),
         vi('scan_logits', F, [1, vocab])])
    g.nodes.append(helper.make_node(
        'Loop', [trip, cond, h0, tok0],
        ['hidden', 'last_token', 'tokens', 'logits'], name='decoder_loop',
        body=body))
    return g.model([vi('x', F, [1, 8])],
                   [vi('hidden', F, [1, hid]), vi('tokens', I64, [6, 1]),
                    vi('logits', F, [6, 1, vocab])],
                   'tf2onnx'), [{'x': (1, 8)}]


def where_expand_int():
    """Integer shape arithmetic and masks as torch.onnx.export and tf2onnx
    write them, at opset 13 on x [N, T, C]:
      expanded  torch's x.mean(0, keepdim=True).expand(N, -1, -1): the size
                Concat(Unsqueeze(Gather(Shape)), [-1], [-1]) guarded by
                Where(Equal(size, -1), ConstantOfShape(1), size) before
                Expand, then Where(mask, x, -expanded) with a [T, C] mask
                broadcast over the batch;
      the mask  Range(0, T) and Range(0, C) with limits Gathered from the
                Shape, Less(col, row) Or GreaterOrEqual(Div(col, 2),
                Mod(row, 3)) (integer Div and Mod on int64 indices);
      counts    Mod(row * C + col - 5, 4) (negative dividends: the result
                takes the divisor's sign) Cast to int32, CumSum over the
                columns and (exclusive, reverse) over the rows, Cast to
                float;
      position  Div(row * C + col, 3) int64 (exact)."""
    g = Graph('where_expand_int', 13, SEED + 131)
    i64 = lambda hint, v: g.const(hint, np.array(v, np.int64))  # noqa: E731
    shape = g.op('Shape', ['x'])
    n = g.op('Gather', [shape, i64('i0', 0)], axis=0)
    t = g.op('Gather', [shape, i64('i1', 1)], axis=0)
    c = g.op('Gather', [shape, i64('i2', 2)], axis=0)

    # expand(N, -1, -1) with torch's -1 guard.
    row_mean = g.op('ReduceMean', ['x'], axes=[0], keepdims=1)  # [1,T,C]
    size = g.op('Concat', [g.unsqueeze(n, [0]), i64('m1', [-1]),
                           i64('m1', [-1])], axis=0)
    ones = g.op('ConstantOfShape', [g.op('Shape', [size])],
                value=helper.make_tensor('one', I64, [1], [1]))
    is_neg = g.op('Equal', [size, g.op('Mul', [ones, i64('neg', -1)])])
    size = g.op('Where', [is_neg, ones, size])
    expanded = g.op('Expand', [row_mean, size])                 # [N,T,C]

    rows = g.op('Range', [i64('zero', 0), t, i64('one', 1)])   # [T]
    cols = g.op('Range', [i64('zero', 0), c, i64('one', 1)])   # [C]
    rr = g.unsqueeze(rows, [1])                                 # [T,1]
    cc = g.unsqueeze(cols, [0])                                 # [1,C]
    lower = g.op('Less', [cc, rr])
    band = g.op('GreaterOrEqual', [g.op('Div', [cc, i64('two', 2)]),
                                   g.op('Mod', [rr, i64('three', 3)])])
    mask = g.op('Or', [lower, band])                            # [T,C]
    g.op('Where', [mask, 'x', g.op('Neg', [expanded])], out='masked')

    flat = g.op('Add', [g.op('Mul', [rr, c]), cc])              # [T,C]
    g.op('Div', [flat, i64('three', 3)], out='position')
    wrapped = g.op('Mod', [g.op('Sub', [flat, i64('five', 5)]),
                           i64('four', 4)])
    ints = g.op('Cast', [wrapped], to=TensorProto.INT32)
    ints = g.op('CumSum', [ints, g.const('axis1', np.array(1, np.int32))])
    ints = g.op('CumSum', [ints, i64('axis0', 0)], exclusive=1, reverse=1)
    g.op('Cast', [ints], to=TensorProto.FLOAT, out='counts')
    return g.model([vi('x', F, ['N', 'T', 'C'])],
                   [vi('masked', F, ['N', 'T', 'C']),
                    vi('counts', F, ['T', 'C']),
                    vi('position', I64, ['T', 'C'])],
                   'onnx.helper'), [{'x': (2, 5, 7)}, {'x': (1, 3, 4)},
                                    {'x': (3, 6, 2)}]


def box_decode_idioms():
    """What torchvision's detection exports do after the score threshold,
    at opset 17 on boxes [N, 4], deltas [N, 4] and scores [N]:
      keep      NonZero(Greater(scores, 0.1)) gathers the kept rows: [K, 4]
                with K known only at run time;
      Shape(kept)[1]  folds to 4 while Shape(kept) cannot (K is dynamic),
                and a later Reshape reads it;
      decode    torch.clamp(dw / 5, max=log(1000 / 16)): Clip with no
                lower bound, grouped with Exp and Mul into one fused body;
      cat       the decoded boxes concatenated between empty [0, 0]
                tensors (levels without boxes), built at run time so that
                ONNX Runtime's load-time inference does not see it.
    N is above the 64 elements of inputs amk-run specializes on, so the
    model runs as segments, as a whole detector does."""
    g = Graph('box_decode_idioms', 17, SEED + 151)
    i64 = lambda hint, v: g.const(hint, np.array(v, np.int64))  # noqa: E731
    f32 = lambda hint, v: g.const(hint, np.array(v, np.float32))  # noqa: E731
    keep = g.op('NonZero', [g.op('Greater', ['scores', f32('thr', 0.1)])])
    idx = g.op('Squeeze', [keep, i64('ax0', [0])])
    boxes = g.op('Gather', ['boxes', idx], axis=0)              # [K,4]
    deltas = g.op('Gather', ['deltas', idx], axis=0)            # [K,4]
    width = g.op('Gather', [g.op('Shape', [deltas]), i64('one', 1)],
                 axis=0)                                        # folds: 4
    shape = g.op('Concat', [i64('m1', [-1]), g.unsqueeze(width, [0])],
                 axis=0)
    deltas = g.op('Reshape', [deltas, shape])
    scaled = g.op('Div', [deltas, f32('five', 5.0)])
    clamped = g.op('Clip', [scaled, '', f32('clip', np.log(1000.0 / 16))])
    size = g.op('Mul', [g.op('Exp', [clamped]), f32('half', 0.5)])
    decoded = g.op('Add', [boxes, size])
    n = g.op('Gather', [g.op('Shape', ['boxes']), i64('zero', 0)], axis=0)
    none = g.op('Mul', [g.unsqueeze(n, [0]), i64('nil', [0])])  # [0]
    empty = g.op('ConstantOfShape', [g.op('Concat', [none, none], axis=0)],
                 value=helper.make_tensor('z', F, [1], [0.0]))  # [0,0]
    g.op('Concat', [empty, decoded, empty], axis=0, out='out')
    return g.model([vi('boxes', F, ['N', 4]), vi('deltas', F, ['N', 4]),
                    vi('scores', F, ['N'])],
                   [vi('out', F, ['K', 4])], 'onnx.helper'), [
        {'boxes': (100, 4), 'deltas': (100, 4), 'scores': (100,)},
        {'boxes': (70, 4), 'deltas': (70, 4), 'scores': (70,)}]


def helper_model(build):
    def write(path):
        model, shapes = build()
        onnx.save(model, path)
        return shapes
    return write


MODELS = {
    'crnn_lstm': crnn_lstm,
    'det_head': det_head,
    'unet_small': unet_small,
    'detect_nms': detect_nms,
    'yolo_c2f': yolo_c2f,
    'audio_stft': helper_model(audio_stft),
    'tf_nhwc_resize': helper_model(tf_nhwc_resize),
    'paddle_opset9': helper_model(paddle_opset9),
    'loop_decoder': helper_model(loop_decoder),
    'where_expand_int': helper_model(where_expand_int),
    'box_decode_idioms': helper_model(box_decode_idioms),
}


def check_shapes(model, shapes):
    """Each shape set names every graph input with its rank and the
    static sizes the model declares."""
    inputs = {i.name: i.type.tensor_type.shape.dim
              for i in model.graph.input
              if i.name not in {t.name for t in model.graph.initializer}}
    for s in shapes:
        if set(s) != set(inputs):
            raise ValueError(f'shape set {s} does not name the inputs '
                             f'{sorted(inputs)}')
        for name, dims in s.items():
            decl = inputs[name]
            if len(decl) != len(dims) or any(
                    d.HasField('dim_value') and d.dim_value != v
                    for d, v in zip(decl, dims)):
                raise ValueError(f'{name}={dims} does not fit the declared '
                                 f'shape')


def shape_line(s):
    return ' '.join(f'{k}=' + 'x'.join(str(d) for d in v)
                    for k, v in s.items())


def dim_flags(model_path, line):
    """amk-run's --dim flags for one line of a .shapes file: each dynamic
    dimension's dim_param with the size the line gives it."""
    model = onnx.load(model_path, load_external_data=False)
    decl = {i.name: i.type.tensor_type.shape.dim for i in model.graph.input}
    flags = {}
    for item in line.split():
        name, dims = item.split('=')
        for d, v in zip(decl[name], dims.split('x')):
            if d.dim_param:
                if flags.get(d.dim_param, v) != v:
                    raise ValueError(f'{d.dim_param} given two sizes')
                flags[d.dim_param] = v
    return [f'--dim {k}={v}' for k, v in flags.items()]


def main(out_dir, names):
    os.makedirs(out_dir, exist_ok=True)
    failed = []
    for n in names:
        path = os.path.join(out_dir, f'{n}.onnx')
        try:
            # torch.onnx.export prints its diagnostics on stdout.
            saved = sys.stdout
            sys.stdout = io.StringIO()
            try:
                shapes = MODELS[n](path)
            finally:
                sys.stdout = saved
            model = onnx.load(path)
            onnx.checker.check_model(model, full_check=True)
            check_shapes(model, shapes)
            with open(os.path.join(out_dir, f'{n}.shapes'), 'w') as f:
                f.write(''.join(shape_line(s) + '\n' for s in shapes))
            print(path)
        except Exception:  # report every model, fail at the end
            failed.append(n)
            print(f'{n}: FAILED', file=sys.stderr)
            traceback.print_exc()
    if failed:
        sys.exit(f'toolchain models failed: {", ".join(failed)}')


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--dim-flags':
        print(' '.join(dim_flags(sys.argv[2], sys.argv[3])))
        sys.exit(0)
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        sys.exit(__doc__)
    unknown = [n for n in sys.argv[2:] if n not in MODELS]
    if unknown:
        sys.exit(f'unknown model {unknown[0]}; known: {", ".join(MODELS)}')
    main(sys.argv[1], sys.argv[2:] or list(MODELS))
