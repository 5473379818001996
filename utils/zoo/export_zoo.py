#!/usr/bin/python3
"""Exports AMK's model zoo to ONNX with Debian's torch and torchvision.

Weights are random but seeded, so every machine exports the same models.
BatchNorm statistics are randomized too (a fresh BatchNorm is the identity,
which would hide mistakes in BN folding), and so are layers torchvision
initializes to zero.

Usage: export_zoo.py <out-dir> [model ...]
Models: resnet18, mobilenetv2, vit_small, bert_like (each at opsets 13 and
17), vit_b16 (opset 17, the large-model path), tiny_cnn (the committed
example model, opset 13).
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision

SEED = 20261122


def seeded(fn):
    torch.manual_seed(SEED)
    model = fn()
    with torch.no_grad():
        for m in model.modules():
            # torchvision zero-initializes some layers (the ViT head): a
            # constant output would make every numerical comparison pass.
            if isinstance(m, nn.Linear) and not m.weight.any():
                nn.init.normal_(m.weight, std=0.05)
                nn.init.uniform_(m.bias, -0.1, 0.1)
            if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model.eval()


class TinyCNN(nn.Module):
    """The README's example: a small image classifier (28x28, 10 classes)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.flatten(self.features(x), 1)
        return torch.softmax(self.classifier(x), dim=1)


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.dh).transpose(1, 2)

    def forward(self, x, mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh)
        probs = torch.softmax(scores + mask, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(x.shape)
        x = self.ln1(x + self.o(ctx))
        h = nn.functional.gelu(self.ff1(x))
        return self.ln2(x + self.ff2(h))


class BertLike(nn.Module):
    """A BERT-style encoder: 4 layers, d=256, 4 heads, sequence 128."""

    def __init__(self, vocab=8192, d=256, layers=4, heads=4, ff=1024, seq=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, ff) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(pos))
        mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x, torch.tanh(self.pool(x[:, 0]))


def image_input(size=224, channels=3):
    return (torch.randn(1, channels, size, size),), ['input'], ['output']


def bert_input():
    ids = torch.randint(0, 8192, (1, 128))
    mask = torch.ones(1, 128, dtype=torch.int64)
    return (ids, mask), ['input_ids', 'attention_mask'], ['hidden', 'pooled']


# Models whose BatchNormalization nodes are kept as nodes: torch's eval-mode
# export folds them into the Convs, which would leave AMK's own Conv+BN
# fusion nothing to find.
KEEP_BATCHNORM = {'resnet18', 'mobilenetv2', 'tiny_cnn'}

MODELS = {
    'resnet18': (lambda: torchvision.models.resnet18(), image_input,
                 (9, 11, 13, 17)),
    'mobilenetv2': (lambda: torchvision.models.mobilenet_v2(), image_input,
                    (9, 11, 13, 17)),
    'vit_small': (lambda: torchvision.models.VisionTransformer(
        image_size=224, patch_size=16, num_layers=12, num_heads=3,
        hidden_dim=192, mlp_dim=768), image_input, (9, 11, 13, 17)),
    'bert_like': (BertLike, bert_input, (9, 11, 13, 17)),
    'vit_b16': (lambda: torchvision.models.vit_b_16(), image_input, (17,)),
    'tiny_cnn': (TinyCNN, lambda: image_input(28, 1), (13,)),
}


# The same models exported with dynamic axes (opset 17), as exporters
# write them for deployment: batch and image size for the CNNs, batch for
# ViT (its position embedding fixes the image size), batch and sequence
# for BERT-like (up to its 128 positions).
DYNAMIC = {
    'resnet18': {'input': {0: 'batch', 2: 'height', 3: 'width'},
                 'output': {0: 'batch'}},
    'mobilenetv2': {'input': {0: 'batch', 2: 'height', 3: 'width'},
                    'output': {0: 'batch'}},
    'vit_small': {'input': {0: 'batch'}, 'output': {0: 'batch'}},
    'bert_like': {'input_ids': {0: 'batch', 1: 'sequence'},
                  'attention_mask': {0: 'batch', 1: 'sequence'},
                  'hidden': {0: 'batch', 1: 'sequence'},
                  'pooled': {0: 'batch'}},
}


def export(name, out_dir):
    make, inputs, opsets = MODELS[name]
    paths = []
    for opset in opsets:
        model = seeded(make)
        torch.manual_seed(SEED + 1)
        args, in_names, out_names = inputs()
        path = os.path.join(out_dir, f'{name}_op{opset}.onnx')
        # Not under torch.no_grad(): torch 1.13 would take fused fast paths
        # that do not export.
        mode = (torch.onnx.TrainingMode.PRESERVE if name in KEEP_BATCHNORM
                else torch.onnx.TrainingMode.EVAL)
        torch.onnx.export(model, args, path, opset_version=opset,
                          input_names=in_names, output_names=out_names,
                          do_constant_folding=True, training=mode)
        paths.append(path)
        print(f'{path}: {os.path.getsize(path) / 1e6:.1f} MB')
    if name in DYNAMIC:
        model = seeded(make)
        torch.manual_seed(SEED + 1)
        args, in_names, out_names = inputs()
        path = os.path.join(out_dir, f'{name}_dyn_op17.onnx')
        mode = (torch.onnx.TrainingMode.PRESERVE if name in KEEP_BATCHNORM
                else torch.onnx.TrainingMode.EVAL)
        torch.onnx.export(model, args, path, opset_version=17,
                          input_names=in_names, output_names=out_names,
                          dynamic_axes=DYNAMIC[name],
                          do_constant_folding=True, training=mode)
        paths.append(path)
        print(f'{path}: {os.path.getsize(path) / 1e6:.1f} MB')
    # The example inputs (realistic: token ids below the vocabulary size,
    # an all-ones attention mask), for tests that need meaningful data.
    in_dir = os.path.join(out_dir, f'{name}_inputs')
    os.makedirs(in_dir, exist_ok=True)
    for n, a in zip(in_names, args):
        np.save(os.path.join(in_dir, f'{n}.npy'), a.numpy())
    return paths


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or ['resnet18', 'mobilenetv2', 'vit_small',
                             'bert_like']
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for n in names:
        if n not in MODELS:
            sys.exit(f'unknown model {n}; known: {", ".join(MODELS)}')
        export(n, out_dir)


if __name__ == '__main__':
    main()
