#!/usr/bin/python3
"""Builds the binary ONNX models the lit tests need, including hostile and
broken ones the ONNX text syntax cannot express.

Usage: make_models.py <kind> <output.onnx>
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(nodes, inputs, outputs, inits=(), opset=13, **kw):
    g = helper.make_graph(nodes, 'g', inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)],
                          **kw)
    m.ir_version = kw.pop('ir_version', 8)
    return m


def vi(name, shape, dt=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dt, shape)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    out_dir = os.path.dirname(os.path.abspath(out))
    X, Y = vi('X', [4]), vi('Y', [4])
    add = helper.make_node('Add', ['X', 'W'], ['Y'], name='add0')
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), 'W')

    if kind == 'initializer-input':
        b = numpy_helper.from_array(np.array([1, 2], np.float32), 'B')
        m = model([helper.make_node('Add', ['X', 'B'], ['Y'])],
                  [vi('X', [2]), vi('B', [2])], [vi('Y', [2])], [b])
        m.ir_version = 3
    elif kind == 'sequence':
        m = model([helper.make_node('SequenceConstruct', ['X', 'X'], ['S']),
                   helper.make_node('SequenceAt', ['S', 'i'], ['Y'])],
                  [X, vi('i', [], TensorProto.INT64)], [Y])
    elif kind == 'external':
        m = model([add], [X], [Y], [w])
        onnx.save_model(m, out, save_as_external_data=True,
                        all_tensors_to_one_file=True, location='weights.bin',
                        size_threshold=0)
        return
    elif kind in ('external-absolute', 'external-escape', 'external-missing',
                  'external-device', 'external-short'):
        m = model([add], [X], [Y], [w])
        w = m.graph.initializer[0]
        loc = {'external-absolute': '/etc/passwd',
               'external-escape': '../../escape.bin',
               'external-missing': 'missing.bin',
               'external-device': 'dev_link',
               'external-short': 'short.bin'}[kind]
        if kind == 'external-device':
            link = os.path.join(out_dir, 'dev_link')
            if not os.path.lexists(link):
                os.symlink('/dev/zero', link)
        if kind == 'external-short':
            with open(os.path.join(out_dir, 'short.bin'), 'wb') as f:
                f.write(b'\0' * 8)
        w.ClearField('raw_data')
        w.data_location = TensorProto.EXTERNAL
        e = w.external_data.add()
        e.key, e.value = 'location', loc
    elif kind == 'raw-size-mismatch':
        m = model([add], [X], [Y], [w])
        m.graph.initializer[0].raw_data = b'\0' * 3
    elif kind == 'huge-claim':
        # 10 GB claimed, 1 KB present.
        m = model([add], [X], [Y], [w])
        t = m.graph.initializer[0]
        del t.dims[:]
        t.dims.extend([2500, 1000, 1000])
        t.raw_data = b'\0' * 1024
    elif kind == 'dim-overflow':
        m = model([add], [vi('X', [2**40, 2**40])], [Y], [w])
    elif kind == 'cycle':
        m = model([helper.make_node('Relu', ['b'], ['a'], name='n1'),
                   helper.make_node('Relu', ['a'], ['b'], name='n2'),
                   helper.make_node('Identity', ['b'], ['Y'], name='n3')],
                  [X], [Y])
    elif kind == 'self-loop':
        m = model([helper.make_node('Add', ['X', 'a'], ['a'], name='me'),
                   helper.make_node('Identity', ['a'], ['Y'])], [X], [Y])
    elif kind == 'dangling':
        m = model([helper.make_node('Add', ['X', 'nowhere'], ['Y'],
                                    name='adder')], [X], [Y])
    elif kind == 'duplicate-output':
        m = model([helper.make_node('Relu', ['X'], ['Y'], name='r1'),
                   helper.make_node('Neg', ['X'], ['Y'], name='r2')],
                  [X], [Y])
    elif kind == 'unknown-op':
        m = model([helper.make_node('Convv', ['X'], ['Y'], name='typo')],
                  [X], [Y])
    elif kind == 'unknown-domain':
        m = model([helper.make_node('Foo', ['X'], ['Y'], name='f',
                                    domain='com.nowhere')], [X], [Y])
    elif kind == 'wrong-attr-type':
        m = model([helper.make_node('Softmax', ['X'], ['Y'], name='sm',
                                    axis=1.5)], [X], [Y])
    elif kind == 'inconsistent-shapes':
        m = model([helper.make_node('MatMul', ['A', 'B'], ['Y'], name='mm')],
                  [vi('A', [2, 3]), vi('B', [4, 5])], [vi('Y', [2, 5])])
    elif kind == 'deep-nesting':
        leaf = helper.make_graph([helper.make_node('Identity', ['X'], ['o'])],
                                 'leaf', [], [vi('o', [4])])
        body = leaf
        for i in range(100):
            node = helper.make_node('If', ['c'], ['o'], then_branch=body,
                                    else_branch=leaf)
            body = helper.make_graph([node], f'b{i + 1}', [], [vi('o', [4])])
        m = model(list(body.node), [X, vi('c', [], TensorProto.BOOL)],
                  [vi('o', [4])])
    elif kind == 'many-nodes':
        nodes = [helper.make_node('Relu', ['X' if i == 0 else f't{i - 1}'],
                                  [f't{i}']) for i in range(100000)]
        nodes.append(helper.make_node('Identity', ['t99999'], ['Y']))
        m = model(nodes, [X], [Y])
    elif kind == 'constant-raw-mismatch':
        t = helper.make_tensor('v', TensorProto.FLOAT, [4], [0.0] * 4)
        t.ClearField('float_data')
        t.raw_data = b'\0' * 5
        m = model([helper.make_node('Constant', [], ['c'], value=t),
                   helper.make_node('Add', ['X', 'c'], ['Y'])], [X], [Y])
    elif kind == 'opset-too-new':
        m = model([helper.make_node('Relu', ['X'], ['Y'])], [X], [Y],
                  opset=22)
    elif kind == 'libonnx-crash':
        # Valid ONNX that crashes libonnx's MaxUnpool inference (an index
        # input of unknown rank): the importer must survive it.
        m = model([helper.make_node('MaxUnpool', ['X', 'I'], ['Y'],
                                    name='unpool', kernel_shape=[2, 2],
                                    strides=[2, 2])],
                  [vi('X', [1, 1, 2, 2]), vi('I', None, TensorProto.INT64)],
                  [vi('Y', None)], opset=11)
    else:
        sys.exit(f'unknown kind {kind}')
    with open(out, 'wb') as f:
        f.write(m.SerializeToString())


if __name__ == '__main__':
    main()
