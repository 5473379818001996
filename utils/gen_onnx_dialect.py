#!/usr/bin/python3
"""Generates the typed ops of the `onnx` dialect from the ONNX schemas.

Inputs: the operator schemas of python3-onnx (opsets up to 17) and the
hand-written overlay for opsets 18-21 (onnx_schema_overlay.py).
Outputs (committed, so building AMK needs no Python):
  dialect/ONNX/ONNXOps.td          ODS definition of every typed op
  dialect/ONNX/ONNXSchemaTable.inc per-version schema table used by the
                                   importer, the exporter and the verifiers
  docs/dialect/onnx-ops.md         the op reference

Each typed op models the union of every version of the ONNX operator that
is live at some opset in [7, 21]: operands are positional (ONNX inputs are
positional), optional inputs are always present and are `none` when
omitted, and the version-specific rules (which inputs and attributes exist,
which element types are allowed) are checked by the table-driven verifier
against the opset recorded on the enclosing module.

Run: /usr/bin/python3 utils/gen_onnx_dialect.py
"""

import os
import sys

import onnx
import onnx.defs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_schema_overlay import OVERLAY  # noqa: E402

MIN_OPSET = 7
MAX_OPSET = 21
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPTION = {0: 'single', 1: 'optional', 2: 'variadic'}
MARK = {'single': '', 'optional': '?', 'variadic': '...'}

# Ops whose results are not a pure function of their inputs.
NOT_PURE = {'RandomNormal', 'RandomNormalLike', 'RandomUniform',
            'RandomUniformLike', 'Multinomial', 'Bernoulli', 'Dropout'}
# Ops with graph attributes: their effects are those of their bodies.
REGION_OPS = {'If', 'Loop', 'Scan', 'SequenceMap'}
# Ops that have an op-specific verifier in ONNXVerifiers.cpp in addition to
# the table-driven checks.
CUSTOM_VERIFY = {
    'Conv', 'ConvTranspose', 'Gemm', 'MatMul', 'Transpose', 'Concat',
    'Reshape', 'Cast', 'Constant', 'Softmax', 'LogSoftmax', 'Flatten',
    'MaxPool', 'AveragePool', 'BatchNormalization', 'Gather', 'Split',
    'Add', 'Sub', 'Mul', 'Div', 'Pow', 'Equal', 'Less', 'Greater',
    'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor', 'Where', 'PRelu',
    'Max', 'Min', 'Sum', 'Mean', 'If', 'Loop', 'DepthToSpace',
    'SpaceToDepth', 'LayerNormalization', 'Einsum', 'QLinearConv',
}
CONSTANT_LIKE = {'Constant'}
# Versions whose operands do not fit the union of the other versions; they
# import as onnx.Generic. Scan-8 has a leading batch input that Scan-9
# removed.
UNTYPED_VERSIONS = {('Scan', 8)}


class Version:
    def __init__(self, since, inputs, outputs, attrs, constraints,
                 deprecated=False):
        self.since = since
        self.inputs = inputs    # [(name, type, option, homogeneous)]
        self.outputs = outputs  # [(name, type, option, homogeneous)]
        self.attrs = attrs          # {name: (kind, default, required)}
        self.constraints = constraints  # {param: [type strings]}
        self.deprecated = deprecated


def attr_default(a):
    """Python value of an onnx AttributeProto default, or None."""
    dv = a.default_value
    if dv is None or not dv.name:
        return None
    return onnx.helper.get_attribute_value(dv)


def from_schema(s):
    def params(lst):
        return [(p.name, p.typeStr, OPTION[int(p.option)], p.isHomogeneous)
                for p in lst]
    attrs = {}
    for name, a in s.attributes.items():
        kind = str(a.type).split('.')[-1]
        d = attr_default(a)
        if isinstance(d, bytes):
            d = d.decode()
        attrs[name] = (kind, d, a.required)
    cons = {t.type_param_str: list(t.allowed_type_strs)
            for t in s.type_constraints}
    return Version(s.since_version, params(s.inputs), params(s.outputs),
                   attrs, cons, s.deprecated)


def apply_overlay(name, versions, entry):
    if entry['kind'] == 'new':
        attrs = {a[0]: (a[1], a[2], a[3]) for a in entry['attrs']}
        return Version(entry['since'], [p + (True,) for p in entry['inputs']],
                       [p + (True,) for p in entry['outputs']], attrs,
                       {k: list(v) for k, v in entry['constraints'].items()})
    base = versions[-1]
    inputs = list(base.inputs)
    outputs = list(base.outputs)
    cons = {k: list(v) for k, v in base.constraints.items()}
    for key, param in entry['retype'].items():
        inputs = [(n, param if n == key else t, o, h)
                  for n, t, o, h in inputs]
        outputs = [(n, param if n == key else t, o, h)
                   for n, t, o, h in outputs]
    used = {p[1] for p in inputs + outputs}
    cons = {k: v for k, v in cons.items() if k in used}
    for n, t, o in entry['add_inputs']:
        inputs.append((n, t, o, True))
    attrs = dict(base.attrs)
    for a in entry['remove_attrs']:
        del attrs[a]
    for a in entry['add_attrs']:
        attrs[a[0]] = (a[1], a[2], a[3])
    for a, d in entry['set_default'].items():
        kind, _, req = attrs[a]
        attrs[a] = (kind, d, req)
    for p, types in entry['add_types'].items():
        cur = cons.setdefault(p, [])
        for t in types:
            if t not in cur:
                cur.append(t)
    return Version(entry['since'], inputs, outputs, attrs, cons)


def collect():
    ops = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain != '':
            continue
        ops.setdefault(s.name, []).append(from_schema(s))
    for name in ops:
        ops[name].sort(key=lambda v: v.since)
    for name, entries in OVERLAY.items():
        versions = ops.setdefault(name, [])
        for e in sorted(entries, key=lambda e: e['since']):
            versions.append(apply_overlay(name, versions, e))
    # Keep the versions live at some opset in [MIN_OPSET, MAX_OPSET].
    result = {}
    for name, versions in sorted(ops.items()):
        live = []
        for i, v in enumerate(versions):
            nxt = versions[i + 1].since if i + 1 < len(versions) else 10**9
            if nxt > MIN_OPSET and v.since <= MAX_OPSET:
                live.append(v)
        live = [v for v in live if (name, v.since) not in UNTYPED_VERSIONS]
        if live:
            result[name] = live
    return result


def camel(name):
    """The accessor stem ODS derives from a snake_case name."""
    return ''.join(p[:1].upper() + p[1:] for p in name.split('_'))


class UnionOp:
    """The union of an op's live versions, with per-version slot maps."""

    def __init__(self, name, versions):
        self.name = name
        self.versions = versions
        self.inputs, self.in_maps = self._union([v.inputs for v in versions])
        self.outputs, self.out_maps = self._union(
            [v.outputs for v in versions])
        self.attrs = {}
        for v in versions:
            for a, (kind, _, _) in v.attrs.items():
                if a in self.attrs and self.attrs[a] != kind:
                    raise SystemExit(f'{name}: attribute {a} changes kind')
                self.attrs[a] = kind
        self.attr_names = sorted(a for a, k in self.attrs.items()
                                 if k != 'GRAPH')
        # Regions in a stable order, If's then_branch before else_branch;
        # the importer orders a node's graph attributes the same way.
        self.region_names = sorted(
            (a for a, k in self.attrs.items() if k == 'GRAPH'),
            key=lambda n: '0' if n == 'then_branch' else '1' + n)
        # Operand/result accessor names must not collide with attributes
        # (Clip's `min` is an attribute in v6 and an input from v11).
        # ODS getters are camel-cased, so TopK's input `K` collides with the
        # v1 attribute `k`.
        taken = {camel(a) for a in self.attrs}
        self.in_ods = [self._ods_name(n, taken) for n, _ in self.inputs]
        taken |= {camel(n) for n in self.in_ods}
        self.out_ods = [self._ods_name(n, taken) for n, _ in self.outputs]

    @staticmethod
    def _ods_name(n, taken):
        return n + '_input' if camel(n) in taken else n

    @staticmethod
    def _union(lists):
        """Returns the union slots [(name, option)] and, per version, the
        slot of each of its parameters.

        Slots are positional and named after the newest version that has
        them. A parameter whose name is another slot's name maps by name
        (Resize-10's second input is `scales`, slot 2 from v11 on)."""
        names = []
        for lst in reversed(lists):
            for i, (n, *_) in enumerate(lst):
                if i >= len(names):
                    names.append(n)
        maps = []
        for lst in lists:
            m = []
            for i, (n, *_) in enumerate(lst):
                m.append(i if names[i] == n or n not in names
                         else names.index(n))
            maps.append(m)
        slots = []
        for s, n in enumerate(names):
            opts = []
            for lst, m in zip(lists, maps):
                opts.append(lst[m.index(s)][2] if s in m else 'absent')
            if 'variadic' in opts:
                opt = 'variadic'
            elif all(o == 'single' for o in opts):
                opt = 'single'
            else:
                opt = 'optional'
            slots.append((n, opt))
        return slots, maps


# ---------------------------------------------------------------------------
# ODS emission
# ---------------------------------------------------------------------------
ATTR_DEFAULTS = []


def ods_attr(kind, default, uniform_default, required_everywhere):
    base = {
        'INT': 'ONNX_IntAttr', 'FLOAT': 'F32Attr', 'STRING': 'StrAttr',
        'INTS': 'DenseI64ArrayAttr', 'FLOATS': 'DenseF32ArrayAttr',
        'STRINGS': 'StrArrayAttr', 'TENSOR': 'ElementsAttr',
        'SPARSE_TENSOR': 'ElementsAttr', 'TYPE_PROTO': 'TypeAttr',
        'TENSORS': 'ArrayAttr', 'SPARSE_TENSORS': 'ArrayAttr',
        'TYPE_PROTOS': 'ArrayAttr',
    }[kind]
    if required_everywhere:
        return base
    if uniform_default and default is not None and kind in (
            'INT', 'FLOAT', 'STRING'):
        if kind == 'INT':
            return f'DefaultValuedOptionalAttr<{base}, "{int(default)}">'
        if kind == 'FLOAT':
            return f'DefaultValuedOptionalAttr<{base}, "{fmt_float(default)}">'
        return f'DefaultValuedOptionalStrAttr<{base}, "{default}">'
    return f'OptionalAttr<{base}>'


def fmt_float(x):
    if x == float('inf'):
        return '::std::numeric_limits<float>::infinity()'
    if abs(x) > 3.0e38:
        return ('::std::numeric_limits<float>::max()' if x > 0 else
                '::std::numeric_limits<float>::lowest()')
    r = repr(float(x))
    return r + 'f' if 'e' in r or '.' in r else r + '.0f'


def value_constraint(option):
    return {'single': 'ONNX_Value', 'optional': 'ONNX_OptValue',
            'variadic': 'Variadic<ONNX_Value>'}[option]


def summary_of(name):
    try:
        doc = onnx.defs.get_schema(name).doc or ''
    except Exception:  # ops that exist only in the overlay
        doc = ''
    first = doc.strip().split('\n\n')[0].replace('\n', ' ').strip()
    first = first.split('. ')[0].rstrip('.')
    first = first.replace('"', "'").replace('\\', '')
    if len(first) > 150 or not first:
        return f'ONNX {name}'
    return first


def emit_op(u):
    traits = []
    if u.name in CONSTANT_LIKE:
        traits.append('ConstantLike')
    if u.name in REGION_OPS:
        traits.append('RecursiveMemoryEffects')
    elif u.name not in NOT_PURE:
        traits.append('Pure')
    trait_str = ', '.join(traits)
    lines = [f'def ONNX_{u.name}Op : ONNX_Op<"{u.name}", [{trait_str}]> {{']
    versions = ', '.join(str(v.since) for v in u.versions)
    lines.append(f'  let summary = "{summary_of(u.name)}";')
    desc = [f'ONNX operator `{u.name}`, versions {versions} (the versions '
            f'live in opsets {MIN_OPSET}-{MAX_OPSET}).', '']
    for v, imap in zip(u.versions, u.in_maps):
        ins = ', '.join(n + MARK[o] for n, _, o, _ in v.inputs)
        outs = ', '.join(n + MARK[o] for n, _, o, _ in v.outputs)
        attrs = ', '.join(sorted(v.attrs)) or '-'
        dep = ' (deprecated)' if v.deprecated else ''
        desc.append(f'- v{v.since}{dep}: ({ins}) -> ({outs}); attributes: '
                    f'{attrs}')
    lines.append('  let description = [{')
    lines += ['    ' + d if d else '' for d in desc]
    lines.append('  }];')
    args = []
    for (n, opt), ods in zip(u.inputs, u.in_ods):
        args.append(f'{value_constraint(opt)}:${ods}')
    for a in u.attr_names:
        kind = u.attrs[a]
        defaults = set()
        present_everywhere = True
        required_everywhere = True
        for v in u.versions:
            if a in v.attrs:
                defaults.add(repr(v.attrs[a][1]))
                required_everywhere &= bool(v.attrs[a][2])
            else:
                present_everywhere = False
        required_everywhere &= present_everywhere
        default = None
        for v in u.versions:
            if a in v.attrs and v.attrs[a][1] is not None:
                default = v.attrs[a][1]
        # Defaults equal in every version that has the attribute make a
        # DefaultValuedOptionalAttr (returned when absent, never stored);
        # version-dependent ones (Softmax axis) stay
        # optional and are resolved by helpers that know the version.
        uniform = len(defaults) == 1
        if uniform and default is not None and not required_everywhere:
            text = None
            if kind == 'INT':
                text = f'{int(default)} : i64'
            elif kind == 'FLOAT' and abs(default) < 3.0e38:
                # MLIR's float literals need a '.' ("1e-05" parses as the
                # integer 1 followed by junk).
                lit = repr(float(default))
                if '.' not in lit and 'e' in lit:
                    lit = lit.replace('e', '.0e', 1)
                text = f'{lit} : f32'
            elif kind == 'STRING':
                text = '"' + str(default) + '"'
            if text is not None:
                ATTR_DEFAULTS.append((u.name, a, text))
        args.append(f'{ods_attr(kind, default, uniform, required_everywhere)}'
                    f':${a}')
    lines.append('  let arguments = (ins')
    lines.append(',\n'.join('    ' + a for a in args))
    lines.append('  );')
    res = [f'{value_constraint(opt)}:${ods}'
           for (n, opt), ods in zip(u.outputs, u.out_ods)]
    lines.append('  let results = (outs')
    lines.append(',\n'.join('    ' + r for r in res))
    lines.append('  );')
    if u.region_names:
        regs = ', '.join(f'SizedRegion<1>:${r}' for r in u.region_names)
        lines.append(f'  let regions = (region {regs});')
    lines.append('  let hasVerifier = 1;')
    if u.name == 'Constant':
        # ConstantLike ops must fold to their value (MLIR's constant
        # matching and deduplication rely on it).
        lines.append('  let hasFolder = 1;')
    if u.name not in CUSTOM_VERIFY:
        lines.append('  let extraClassDefinition = [{')
        lines.append('    ::llvm::LogicalResult $cppClass::verify() {')
        lines.append('      return ::amk::onnx::verifyAgainstSchema(*this);')
        lines.append('    }')
        lines.append('  }];')
    lines.append('}')
    return '\n'.join(lines)


HEADER_TD = '''//===- ONNXOps.td - Typed ops of the onnx dialect ----------*- tablegen -*-===//
//
// GENERATED by utils/gen_onnx_dialect.py from the ONNX operator schemas
// (python3-onnx {onnx_version}, opsets up to 17) and the opset 18-21 overlay
// (utils/onnx_schema_overlay.py). Do not edit: change the generator.
//
//===----------------------------------------------------------------------===//

#ifndef AMK_ONNX_OPS_TD
#define AMK_ONNX_OPS_TD

include "ONNXBase.td"

'''


# ---------------------------------------------------------------------------
# Schema table emission
# ---------------------------------------------------------------------------
def cstr(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def emit_table(union_ops):
    out = ['// GENERATED by utils/gen_onnx_dialect.py. Do not edit.',
           '// Consumed by ONNXSchema.cpp: one ONNXOpInfo per typed op.', '']
    for u in union_ops:
        ident = u.name
        # Per version parameter lists.
        for vi, v in enumerate(u.versions):
            for kind, params, smap in (('in', v.inputs, u.in_maps[vi]),
                                       ('out', v.outputs, u.out_maps[vi])):
                items = [f'{{{cstr(n)}, {cstr(t)}, ParamOption::'
                         f'{o.capitalize()}, {s}, {str(h).lower()}}}'
                         for (n, t, o, h), s in zip(params, smap)]
                out.append(f'static const ParamInfo k{ident}V{v.since}'
                           f'{kind.capitalize()}[] = {{{", ".join(items) or "{}"}}};')
            attrs = [f'{{{cstr(a)}, AttrKind::{k}, {str(bool(r)).lower()}}}'
                     for a, (k, _, r) in sorted(v.attrs.items())]
            out.append(f'static const AttrInfo k{ident}V{v.since}Attrs[] = '
                       f'{{{", ".join(attrs) or "{}"}}};')
            cons = [f'{{{cstr(p)}, {cstr(",".join(ts))}}}'
                    for p, ts in sorted(v.constraints.items())]
            out.append(f'static const TypeConstraintInfo k{ident}V{v.since}'
                       f'Types[] = {{{", ".join(cons) or "{}"}}};')
        vers = []
        for v in u.versions:
            n_in, n_out = len(v.inputs), len(v.outputs)
            n_attr, n_con = len(v.attrs), len(v.constraints)
            vers.append(
                f'{{{v.since}, {str(v.deprecated).lower()}, '
                f'{{k{ident}V{v.since}In, {n_in}}}, '
                f'{{k{ident}V{v.since}Out, {n_out}}}, '
                f'{{k{ident}V{v.since}Attrs, {n_attr}}}, '
                f'{{k{ident}V{v.since}Types, {n_con}}}}}')
        out.append(f'static const VersionInfo k{ident}Versions[] = {{')
        out += ['  ' + x + ',' for x in vers]
        out.append('};')
        slots_in = ', '.join(
            f'{{{cstr(n)}, {cstr(o)}, ParamOption::{opt.capitalize()}}}'
            for (n, opt), o in zip(u.inputs, u.in_ods))
        slots_out = ', '.join(
            f'{{{cstr(n)}, {cstr(o)}, ParamOption::{opt.capitalize()}}}'
            for (n, opt), o in zip(u.outputs, u.out_ods))
        out.append(f'static const SlotInfo k{ident}InSlots[] = '
                   f'{{{slots_in or "{}"}}};')
        out.append(f'static const SlotInfo k{ident}OutSlots[] = '
                   f'{{{slots_out or "{}"}}};')
        out.append('')
    untyped = ', '.join(f'{{{cstr(n)}, {v}}}'
                        for n, v in sorted(UNTYPED_VERSIONS))
    out.append(f'static const UntypedVersion kUntypedVersions[] = '
               f'{{{untyped}}};')
    out.append('')
    out.append('static const OpInfo kOpInfos[] = {')
    for u in union_ops:
        ident = u.name
        out.append(f'  {{{cstr(u.name)}, {{k{ident}Versions, {len(u.versions)}}}, '
                   f'{{k{ident}InSlots, {len(u.inputs)}}}, '
                   f'{{k{ident}OutSlots, {len(u.outputs)}}}}},')
    out.append('};')
    return '\n'.join(out) + '\n'


def emit_doc(union_ops):
    out = ['# `onnx` dialect: typed operations', '',
           'Generated by `utils/gen_onnx_dialect.py`; do not edit. '
           'Every op lists the ONNX versions it models (all versions live in '
           f'opsets {MIN_OPSET}-{MAX_OPSET}); the op checks the version '
           'selected by the module\'s `onnx.opset_import`. Inputs marked `?` '
           'are optional (a `none` value from `onnx.NoValue` when absent), '
           '`...` are variadic.', '',
           f'{len(union_ops)} typed ops.', '',
           '| op | versions | operands | attributes | regions |',
           '|---|---|---|---|---|']
    for u in union_ops:
        vers = ', '.join(str(v.since) + ('(dep.)' if v.deprecated else '')
                         for v in u.versions)
        ops = ', '.join(f'`{o}`' + ('?' if opt == 'optional' else
                                     '...' if opt == 'variadic' else '')
                        for (n, opt), o in zip(u.inputs, u.in_ods))
        attrs = ', '.join(f'`{a}`:{u.attrs[a].lower()}'
                          for a in u.attr_names) or '-'
        regs = ', '.join(f'`{r}`' for r in u.region_names) or '-'
        out.append(f'| `onnx.{u.name}` | {vers} | {ops} | {attrs} | {regs} |')
    return '\n'.join(out) + '\n'


def main():
    ops = collect()
    unions = [UnionOp(n, v) for n, v in sorted(ops.items())]
    td = HEADER_TD.format(onnx_version=onnx.__version__)
    td += '\n\n'.join(emit_op(u) for u in unions)
    td += '\n\n#endif // AMK_ONNX_OPS_TD\n'
    with open(os.path.join(ROOT, 'dialect/ONNX/ONNXOps.td'), 'w') as f:
        f.write(td)
    with open(os.path.join(ROOT, 'dialect/ONNX/ONNXSchemaTable.inc'),
              'w') as f:
        f.write(emit_table(unions))
    with open(os.path.join(ROOT, 'dialect/ONNX/ONNXAttrDefaults.inc'),
              'w') as f:
        f.write('// Generated by utils/gen_onnx_dialect.py: do not edit.\n'
                '// Attribute defaults that are the same in every version of '
                'an operator,\n// as MLIR attribute text.\n')
        for op, a, text in sorted(ATTR_DEFAULTS):
            esc = text.replace('\\', '\\\\').replace('"', '\\"')
            f.write(f'{{"{op}", "{a}", "{esc}"}},\n')
    os.makedirs(os.path.join(ROOT, 'docs/dialect'), exist_ok=True)
    with open(os.path.join(ROOT, 'docs/dialect/onnx-ops.md'), 'w') as f:
        f.write(emit_doc(unions))
    print(f'{len(unions)} ops, '
          f'{sum(len(u.versions) for u in unions)} versions')


if __name__ == '__main__':
    main()
