#!/usr/bin/python3
"""Trains the small models the int8 accuracy check runs (docs/quantization.md).

Data: scikit-learn's bundled 8x8 handwritten digits (Debian
python3-sklearn; 1,797 images, 10 classes), scaled to [0, 1], upsampled
bilinearly to 32x32 and standardized; a seeded stratified split keeps 360
images held out. Three models, each trained a few epochs with Adam on one
CPU thread (seeded, deterministic), then exported to ONNX (opset 17) with a
static batch of 360:
  digits_resnet      a ResNet-style CNN: stem conv + BN + ReLU, two residual
                     blocks (3x3 conv, BN, ReLU, 3x3 conv, BN, add, ReLU; the
                     second downsamples with a strided 1x1 projection),
                     global average pool, linear head;
  digits_mobilenet   a MobileNet-style CNN: stem conv, two inverted
                     residual blocks (1x1 expand, 3x3 depthwise, 1x1
                     project, residual where shapes allow), pool, head;
  digits_transformer a small ViT-like classifier: 4x4 patches as tokens,
                     two pre-norm encoder layers (4 heads, d=64), mean pool,
                     head.
Writes into OUT: <model>.onnx, eval_x.npy ([360,1,32,32] float32),
eval_y.npy (labels), calib/sample_{0,1}/input.npy (training images, the
batch shape), and train.json (the float accuracy torch measured).

Usage: train_digits.py OUT [--epochs N]
"""
import argparse
import json
import pathlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

N_EVAL = 360


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.proj = None
        if stride != 1 or cin != cout:
            self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (self.proj(x) if self.proj else x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.l1 = Block(16, 16, 1)
        self.l2 = Block(16, 32, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.l2(self.l1(self.stem(x)))
        return self.fc(x.mean((2, 3)))


class Inverted(nn.Module):
    def __init__(self, cin, cout, stride, expand=4):
        super().__init__()
        mid = cin * expand
        self.body = nn.Sequential(
            nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
            nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False),
            nn.BatchNorm2d(mid), nn.ReLU6(),
            nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        y = self.body(x)
        return x + y if self.res else y


class MobileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.b1 = Inverted(16, 16, 1)
        self.b2 = Inverted(16, 24, 2)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = self.b2(self.b1(self.stem(x)))
        return self.fc(x.mean((2, 3)))


class Transformer(nn.Module):
    def __init__(self, d=64, heads=4, layers=2):
        super().__init__()
        self.patch = nn.Conv2d(1, d, 4, 4)
        self.pos = nn.Parameter(torch.zeros(1, 64, d))
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers,
                                         enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 10)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        return self.fc(self.norm(self.enc(t)).mean(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=12)
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    d = load_digits()
    x = torch.tensor(d.images / 16.0, dtype=torch.float32).unsqueeze(1)
    x = F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=False)
    x = (x - x.mean()) / x.std()
    y = torch.tensor(d.target)
    tr, ev = train_test_split(np.arange(len(y)), test_size=N_EVAL,
                              random_state=0, stratify=d.target)
    xtr, ytr, xev, yev = x[tr], y[tr], x[ev], y[ev]
    np.save(out / "eval_x.npy", xev.numpy())
    np.save(out / "eval_y.npy", yev.numpy().astype(np.int64))
    for k in range(2):
        c = out / "calib" / f"sample_{k}"
        c.mkdir(parents=True, exist_ok=True)
        np.save(c / "input.npy", xtr[k * N_EVAL:(k + 1) * N_EVAL].numpy())
    report = {}
    for name, net in (("digits_resnet", ResNet()),
                      ("digits_mobilenet", MobileNet()),
                      ("digits_transformer", Transformer())):
        torch.manual_seed(1)
        opt = torch.optim.Adam(net.parameters(), lr=3e-3)
        g = torch.Generator().manual_seed(2)
        for _ in range(a.epochs):
            net.train()
            perm = torch.randperm(len(ytr), generator=g)
            for i in range(0, len(perm), 64):
                j = perm[i:i + 64]
                loss = F.cross_entropy(net(xtr[j]), ytr[j])
                opt.zero_grad()
                loss.backward()
                opt.step()
        net.eval()
        with torch.no_grad():
            acc = float((net(xev).argmax(1) == yev).float().mean())
        report[name] = {"float_accuracy_torch": acc}
        torch.onnx.export(net, xev, str(out / f"{name}.onnx"),
                          input_names=["input"], output_names=["logits"],
                          opset_version=17, do_constant_folding=True)
        print(f"{name}: held-out accuracy {100 * acc:.2f}% (torch, float)",
              flush=True)
    (out / "train.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
