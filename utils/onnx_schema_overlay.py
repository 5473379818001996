"""Operator versions of opsets 18-21 (ONNX 1.13-1.16).

Debian 12 ships ONNX 1.12, whose schema registry stops at opset 17. The
versions below are transcribed from the ONNX operator changelog; each entry
either derives a new version from the previous one (adding inputs,
attributes or element types) or defines a new operator. The generator
(gen_onnx_dialect.py) merges them with the schemas read from python3-onnx.

Conventions: types are ONNX type strings ('tensor(float)'); options are
'single', 'optional', 'variadic'; attribute kinds are the ONNX AttrType
names; defaults are Python values (None: no default).
"""

FLOAT8 = ['tensor(float8e4m3fn)', 'tensor(float8e4m3fnuz)',
          'tensor(float8e5m2)', 'tensor(float8e5m2fnuz)']
INT4 = ['tensor(int4)', 'tensor(uint4)']
FLOATS = ['tensor(float16)', 'tensor(float)', 'tensor(double)',
          'tensor(bfloat16)']
INTS = ['tensor(uint8)', 'tensor(uint16)', 'tensor(uint32)', 'tensor(uint64)',
        'tensor(int8)', 'tensor(int16)', 'tensor(int32)', 'tensor(int64)']

REDUCE_18 = ['ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp',
             'ReduceMax', 'ReduceMean', 'ReduceMin', 'ReduceProd',
             'ReduceSumSquare']


def derive(since, add_inputs=(), add_attrs=(), remove_attrs=(),
           add_types=None, set_default=None, retype=None):
    """A new version built from the newest earlier version of the op.

    retype maps an input or output name to its new type parameter (or fixed
    type); it is applied before add_types, so add_types may extend a
    parameter that retype introduced."""
    return {
        'kind': 'derive', 'since': since, 'add_inputs': list(add_inputs),
        'add_attrs': list(add_attrs), 'remove_attrs': list(remove_attrs),
        'add_types': dict(add_types or {}),
        'set_default': dict(set_default or {}), 'retype': dict(retype or {})
    }


def new(since, inputs, outputs, attrs, constraints):
    return {'kind': 'new', 'since': since, 'inputs': inputs,
            'outputs': outputs, 'attrs': attrs, 'constraints': constraints}


def inp(name, typ, option='single'):
    return (name, typ, option)


def attr(name, kind, default=None, required=False):
    return (name, kind, default, required)


OVERLAY = {}


def add(name, version):
    OVERLAY.setdefault(name, []).append(version)


# ---- Opset 18 -------------------------------------------------------------
for r in REDUCE_18:
    add(r, derive(18, add_inputs=[inp('axes', 'tensor(int64)', 'optional')],
                  remove_attrs=['axes'],
                  add_attrs=[attr('noop_with_empty_axes', 'INT', 0)]))
add('Pad', derive(18, add_inputs=[inp('axes', 'Tind', 'optional')],
                  add_types={'Tind': ['tensor(int32)', 'tensor(int64)']}))
add('Resize', derive(18, add_attrs=[
    attr('antialias', 'INT', 0), attr('axes', 'INTS'),
    attr('keep_aspect_ratio_policy', 'STRING', 'stretch')]))
add('ScatterElements', derive(18))
add('ScatterND', derive(18))
add('Split', derive(18, add_attrs=[attr('num_outputs', 'INT')]))
add('LpPool', derive(18, add_attrs=[attr('ceil_mode', 'INT', 0),
                                    attr('dilations', 'INTS')]))
add('OptionalHasElement', derive(18))
add('OptionalGetElement', derive(18))
for bop in ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']:
    add(bop, new(18, [inp('A', 'T'), inp('B', 'T')], [inp('C', 'T')], [],
                 {'T': INTS}))
add('BitwiseNot', new(18, [inp('X', 'T')], [inp('Y', 'T')], [], {'T': INTS}))
add('CenterCropPad', new(
    18, [inp('input_data', 'T'), inp('shape', 'Tind')],
    [inp('output_data', 'T')], [attr('axes', 'INTS')],
    {'T': INTS + FLOATS + ['tensor(string)', 'tensor(bool)',
                           'tensor(complex64)', 'tensor(complex128)'],
     'Tind': ['tensor(int32)', 'tensor(int64)']}))
add('Col2Im', new(
    18, [inp('input', 'T'), inp('image_shape', 'tensor(int64)'),
         inp('block_shape', 'tensor(int64)')],
    [inp('output', 'T')],
    [attr('dilations', 'INTS'), attr('pads', 'INTS'), attr('strides', 'INTS')],
    {'T': INTS + FLOATS + ['tensor(string)', 'tensor(bool)',
                           'tensor(complex64)', 'tensor(complex128)']}))
add('GroupNormalization', new(
    18, [inp('X', 'T'), inp('scale', 'T'), inp('bias', 'T')], [inp('Y', 'T')],
    [attr('epsilon', 'FLOAT', 1e-5), attr('num_groups', 'INT', required=True)],
    {'T': FLOATS}))
add('Mish', new(18, [inp('X', 'T')], [inp('Y', 'T')], [],
                {'T': ['tensor(float16)', 'tensor(float)', 'tensor(double)']}))

# ---- Opset 19 -------------------------------------------------------------
add('AveragePool', derive(19, add_attrs=[attr('dilations', 'INTS')]))
add('Cast', derive(19, add_attrs=[attr('saturate', 'INT', 1)],
                   add_types={'T1': FLOAT8, 'T2': FLOAT8}))
add('CastLike', derive(19, add_attrs=[attr('saturate', 'INT', 1)],
                       add_types={'T1': FLOAT8, 'T2': FLOAT8}))
add('Constant', derive(19, add_types={'T': FLOAT8}))
add('DequantizeLinear', derive(
    19, retype={'x': 'T1', 'x_zero_point': 'T1', 'x_scale': 'T2', 'y': 'T2'},
    add_types={'T1': ['tensor(int8)', 'tensor(uint8)', 'tensor(int32)'] + FLOAT8,
               'T2': ['tensor(float)', 'tensor(float16)', 'tensor(bfloat16)']}))
add('QuantizeLinear', derive(
    19, add_attrs=[attr('saturate', 'INT', 1)], retype={'y_scale': 'T1'},
    add_types={'T1': ['tensor(float16)', 'tensor(bfloat16)', 'tensor(int32)'],
               'T2': FLOAT8}))
add('Equal', derive(19, add_types={'T': ['tensor(string)']}))
add('Identity', derive(19, add_types={'V': FLOAT8}))
add('If', derive(19, add_types={'V': FLOAT8}))
add('Loop', derive(19, add_types={'V': FLOAT8}))
add('Scan', derive(19, add_types={'V': FLOAT8}))
add('Pad', derive(19))  # adds the 'wrap' mode
add('Reshape', derive(19, add_types={'T': FLOAT8}))
add('Resize', derive(19))  # adds 'half_pixel_symmetric'
add('Shape', derive(19, add_types={'T': FLOAT8}))
add('Size', derive(19, add_types={'T': FLOAT8}))
add('DeformConv', new(
    19, [inp('X', 'T'), inp('W', 'T'), inp('offset', 'T'),
         inp('B', 'T', 'optional'), inp('mask', 'T', 'optional')],
    [inp('Y', 'T')],
    [attr('dilations', 'INTS'), attr('group', 'INT', 1),
     attr('kernel_shape', 'INTS'), attr('offset_group', 'INT', 1),
     attr('pads', 'INTS'), attr('strides', 'INTS')],
    {'T': FLOATS}))

# ---- Opset 20 -------------------------------------------------------------
add('ConstantOfShape', derive(20, add_types={'T2': FLOAT8 + [
    'tensor(bfloat16)']}))
add('DFT', new(
    20, [inp('input', 'T1'), inp('dft_length', 'T2', 'optional'),
         inp('axis', 'tensor(int64)', 'optional')],
    [inp('output', 'T1')],
    [attr('inverse', 'INT', 0), attr('onesided', 'INT', 0)],
    {'T1': FLOATS, 'T2': ['tensor(int32)', 'tensor(int64)']}))
add('Gelu', new(20, [inp('X', 'T')], [inp('Y', 'T')],
                [attr('approximate', 'STRING', 'none')], {'T': FLOATS}))
add('GridSample', derive(20, set_default={'mode': 'linear'}))
add('IsInf', derive(20, add_types={'T1': FLOAT8 + ['tensor(float16)',
                                                   'tensor(bfloat16)']}))
add('IsNaN', derive(20, add_types={'T1': FLOAT8}))
add('ReduceMax', derive(20, add_types={'T': ['tensor(bool)']}))
add('ReduceMin', derive(20, add_types={'T': ['tensor(bool)']}))
add('AffineGrid', new(
    20, [inp('theta', 'T1'), inp('size', 'T2')], [inp('grid', 'T1')],
    [attr('align_corners', 'INT', 0)],
    {'T1': FLOATS, 'T2': ['tensor(int64)']}))
add('ImageDecoder', new(
    20, [inp('encoded_stream', 'T1')], [inp('image', 'T2')],
    [attr('pixel_format', 'STRING', 'RGB')],
    {'T1': ['tensor(uint8)'], 'T2': ['tensor(uint8)']}))
add('RegexFullMatch', new(
    20, [inp('X', 'T1')], [inp('Y', 'T2')], [attr('pattern', 'STRING')],
    {'T1': ['tensor(string)'], 'T2': ['tensor(bool)']}))
add('StringConcat', new(
    20, [inp('X', 'T'), inp('Y', 'T')], [inp('Z', 'T')], [],
    {'T': ['tensor(string)']}))
add('StringSplit', new(
    20, [inp('X', 'T1')], [inp('Y', 'T2'), inp('Z', 'T3')],
    [attr('delimiter', 'STRING'), attr('maxsplit', 'INT')],
    {'T1': ['tensor(string)'], 'T2': ['tensor(string)'],
     'T3': ['tensor(int64)']}))

# ---- Opset 21 -------------------------------------------------------------
for op, params in [('Cast', ['T1', 'T2']), ('CastLike', ['T1', 'T2']),
                   ('Constant', ['T']), ('ConstantOfShape', ['T2']),
                   ('Flatten', ['T']), ('Identity', ['V']), ('If', ['V']),
                   ('Loop', ['V']), ('Pad', ['T']), ('Reshape', ['T']),
                   ('Scan', ['V']), ('Shape', ['T']), ('Size', ['T']),
                   ('Squeeze', ['T']), ('Transpose', ['T']),
                   ('Unsqueeze', ['T'])]:
    add(op, derive(21, add_types={p: INT4 for p in params}))
INT16 = ['tensor(int16)', 'tensor(uint16)']
add('DequantizeLinear', derive(21, add_attrs=[attr('block_size', 'INT', 0)],
                               add_types={'T1': INT4 + INT16}))
add('QuantizeLinear', derive(21, add_attrs=[attr('block_size', 'INT', 0),
                                            attr('output_dtype', 'INT', 0)],
                             add_types={'T2': INT4 + INT16}))
add('QLinearMatMul', derive(21, add_types={'T1': FLOAT8, 'T2': FLOAT8,
                                           'T3': FLOAT8}))
add('GroupNormalization', derive(21, add_attrs=[attr('stash_type', 'INT', 1)]))
