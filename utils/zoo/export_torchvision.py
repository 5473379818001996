#!/usr/bin/python3
"""Exports torchvision models AMK was not designed around, for
scripts/check-torchvision-models.sh: classifiers, segmentation, video,
optical flow and detection (NonZero, TopK and NMS make their sizes depend
on data), plus a torch TransformerEncoder and a bidirectional GRU, each at
the opset and with the dynamic axes a user would pick. Weights are
torchvision's random initialization under a fixed seed (no download);
inputs are drawn by amk-run.

Writes OUT/NAME.onnx and OUT/models.txt: one line per model, NAME followed
by the amk-run flags its run needs (--dim for the dynamic axes).

Usage: export_torchvision.py OUT [NAME ...]
"""
import os
import sys
import warnings

import torch
import torchvision.models as M
import torchvision.models.detection as D
import torchvision.models.optical_flow as OF
import torchvision.models.segmentation as S
import torchvision.models.video as V


def classifier(ctor, size=224, opset=17, **kw):
    def make():
        return (ctor(weights=None, **kw), (torch.randn(1, 3, size, size),),
                opset, ["x"], ["y"], {"x": {0: "b"}, "y": {0: "b"}},
                ["--dim", "b=2"])
    return make


def detector(ctor, size, opset):
    def make():
        kw = dict(weights=None, weights_backbone=None)
        if ctor is not D.ssdlite320_mobilenet_v3_large:
            kw.update(min_size=size, max_size=size)
        return (ctor(**kw), ([torch.rand(3, size, size)],), opset,
                ["images"], None, None, [])
    return make


def transformer():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4,
                                             dim_feedforward=128,
                                             batch_first=True)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(100, 64)
            self.enc = torch.nn.TransformerEncoder(layer, num_layers=2)

        def forward(self, ids, mask):
            return self.enc(self.emb(ids), src_key_padding_mask=mask)
    return (Encoder(), (torch.randint(0, 100, (2, 10)),
                        torch.zeros(2, 10, dtype=torch.bool)), 14,
            ["ids", "mask"], ["y"],
            {"ids": {0: "b", 1: "t"}, "mask": {0: "b", 1: "t"},
             "y": {0: "b", 1: "t"}}, ["--dim", "b=3", "--dim", "t=17"])


def gru():
    class Tagger(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(16, 32, num_layers=2, batch_first=True,
                                    bidirectional=True)
            self.fc = torch.nn.Linear(64, 5)

        def forward(self, x, h):
            y, hn = self.gru(x, h)
            return self.fc(y).log_softmax(-1), hn
    return (Tagger(), (torch.randn(3, 7, 16), torch.randn(4, 3, 32)), 12,
            ["x", "h"], ["y", "hn"],
            {"x": {0: "b", 1: "t"}, "h": {1: "b"}, "y": {0: "b", 1: "t"},
             "hn": {1: "b"}}, ["--dim", "b=2", "--dim", "t=9"])


MODELS = {
    "mobilenet_v3_small": classifier(M.mobilenet_v3_small),
    "shufflenet_v2_x0_5": classifier(M.shufflenet_v2_x0_5),
    "squeezenet1_0": classifier(M.squeezenet1_0, opset=11),
    "googlenet": classifier(M.googlenet, opset=13),
    "inception_v3": classifier(M.inception_v3, 299, 10, aux_logits=True,
                               init_weights=False),
    "efficientnet_b0": classifier(M.efficientnet_b0),
    "efficientnet_v2_s": classifier(M.efficientnet_v2_s, opset=16),
    "regnet_y_400mf": classifier(M.regnet_y_400mf),
    "mnasnet0_5": classifier(M.mnasnet0_5, opset=12),
    "densenet121": classifier(M.densenet121, opset=13),
    "resnext50_32x4d": classifier(M.resnext50_32x4d),
    "mobilenet_v2_op9": classifier(M.mobilenet_v2, opset=9),
    "convnext_tiny": classifier(M.convnext_tiny),
    "swin_t": classifier(M.swin_t),
    "maxvit_t": lambda: (M.maxvit_t(weights=None),
                         (torch.randn(1, 3, 224, 224),), 17, ["x"], ["y"],
                         None, []),
    "deeplabv3_mobilenet_v3": lambda: (
        S.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                       aux_loss=False),
        (torch.randn(1, 3, 256, 256),), 13, ["x"], ["out"],
        {"x": {0: "b", 2: "h", 3: "w"}},
        ["--dim", "b=1", "--dim", "h=192", "--dim", "w=256"]),
    "lraspp_mobilenet_v3": lambda: (
        S.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None),
        (torch.randn(1, 3, 256, 256),), 17, ["x"], ["out"], None, []),
    "r3d_18": lambda: (V.r3d_18(weights=None),
                       (torch.randn(1, 3, 4, 64, 64),), 13, ["x"], ["y"],
                       {"x": {0: "b"}}, ["--dim", "b=2"]),
    "mc3_18": lambda: (V.mc3_18(weights=None),
                       (torch.randn(1, 3, 4, 64, 64),), 15, ["x"], ["y"],
                       {"x": {0: "b"}}, ["--dim", "b=1"]),
    "raft_small": lambda: (OF.raft_small(weights=None),
                           (torch.randn(1, 3, 128, 128),
                            torch.randn(1, 3, 128, 128)), 16, ["a", "b"],
                           None, None, []),
    "ssdlite320_mobilenet_v3": detector(D.ssdlite320_mobilenet_v3_large,
                                        320, 11),
    "fasterrcnn_mobilenet_v3_320": detector(
        D.fasterrcnn_mobilenet_v3_large_320_fpn, 320, 16),
    "fcos_resnet50_fpn": detector(D.fcos_resnet50_fpn, 256, 13),
    "retinanet_resnet50_fpn": detector(D.retinanet_resnet50_fpn, 256, 17),
    "maskrcnn_resnet50_fpn": detector(D.maskrcnn_resnet50_fpn, 256, 12),
    "torch_transformer": transformer,
    "gru_bidirectional": gru,
}


def main(out, names):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    lines, failed = [], []
    for name in names or MODELS:
        try:
            model, args, opset, ins, outs, dyn, flags = MODELS[name]()
            model.eval()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                saved, sys.stdout = sys.stdout, open(os.devnull, "w")
                try:
                    torch.onnx.export(model, args,
                                      os.path.join(out, name + ".onnx"),
                                      opset_version=opset, input_names=ins,
                                      output_names=outs, dynamic_axes=dyn)
                finally:
                    sys.stdout.close()
                    sys.stdout = saved
            lines.append(" ".join([name] + flags))
        except Exception as e:  # noqa: BLE001 (report every model)
            failed.append(name)
            print(f"export of {name} failed: {type(e).__name__}: {e}",
                  file=sys.stderr)
    with open(os.path.join(out, "models.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
