#!/usr/bin/env python3
"""Element-type coverage of the compiled runtime, op by op.

The ONNX node tests exercise float32 almost everywhere. This script takes
every node test whose model is one op over graph inputs (no Constant or
initializer feeding it), and for each other element type the op's schema
allows for its float inputs (float16, bfloat16, double, the integers,
bool) rewrites the model to that type and runs it with amk-run on random
inputs against the reference interpreter. Each op x type ends up as:

  pass     compiled and matched the interpreter
  refused  refused at compile time, naming the op (no kernel for the type)
  fail     compiled but did not match, or crashed (a bug)
  n/a      the interpreter has no kernel for the case (nothing to compare)

Usage: check-runtime-types.py AMK_RUN DATA [--threads N] [--table OUT.md]
[--json OUT] [--baseline FILE] [--write-baseline] [--only OP,...]
--baseline: every "test:type" listed must pass (CI regression check).
"""
import argparse, collections, concurrent.futures, json, os, re, subprocess
import sys, tempfile

import onnx
from onnx import TensorProto, defs

ap = argparse.ArgumentParser()
ap.add_argument("amk_run")
ap.add_argument("data")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--table")
ap.add_argument("--json")
ap.add_argument("--baseline")
ap.add_argument("--write-baseline", action="store_true")
ap.add_argument("--only")
ap.add_argument("--jit", action="store_true",
                help="through amk-run --jit (generated code for integer and "
                     "bool ops)")
ap.add_argument("--types", help="comma-separated subset of the types")
args = ap.parse_args()

TYPES = {
    "float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16,
    "double": TensorProto.DOUBLE, "int8": TensorProto.INT8,
    "int16": TensorProto.INT16, "int32": TensorProto.INT32,
    "int64": TensorProto.INT64, "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16, "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64, "bool": TensorProto.BOOL,
}
ORDER = list(TYPES)
if args.types:
    ORDER = [t for t in ORDER if t in args.types.split(",")]


def opset_of(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 0


def variants(test):
    """(op, [(type name, model bytes)]) for a single-op float test."""
    path = os.path.join(args.data, test, "model.onnx")
    try:
        m = onnx.load(path)
    except Exception:
        return None
    g = m.graph
    if len(g.node) != 1 or g.initializer or g.node[0].domain not in ("", "ai.onnx"):
        return None
    node = g.node[0]
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
           for a in node.attribute):
        return None
    try:
        schema = defs.get_schema(node.op_type, opset_of(m), "")
    except Exception:
        return None
    formal_in = list(schema.inputs)
    formal_out = list(schema.outputs)

    def formal(params, i):
        if i < len(params):
            return params[i]
        if params and params[-1].option == defs.OpSchema.FormalParameterOption.Variadic:
            return params[-1]
        return None

    # The type parameter of the float inputs.
    by_name = {vi.name: vi for vi in list(g.input) + list(g.output)}
    tparam = None
    for i, name in enumerate(node.input):
        vi = by_name.get(name)
        f = formal(formal_in, i)
        if vi is None or f is None:
            continue
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            tparam = f.typeStr
            break
    if tparam is None:
        return None
    allowed = set()
    for c in schema.type_constraints:
        if c.type_param_str == tparam:
            allowed = {s[len("tensor("):-1] for s in c.allowed_type_strs
                       if s.startswith("tensor(")}
    if not allowed:
        return None
    retype = set()
    for i, name in enumerate(node.input):
        f = formal(formal_in, i)
        if f is not None and f.typeStr == tparam and name:
            retype.add(name)
    for i, name in enumerate(node.output):
        f = formal(formal_out, i)
        if f is not None and f.typeStr == tparam and name:
            retype.add(name)
    # The test's own inputs (parameters such as axes must stay valid),
    # converted for the retyped ones.
    ds = os.path.join(args.data, test, "test_data_set_0")
    inputs = []
    for i, vi in enumerate(g.input):
        pb = os.path.join(ds, f"input_{i}.pb")
        if not os.path.exists(pb):
            return None
        t = TensorProto()
        with open(pb, "rb") as f:
            t.ParseFromString(f.read())
        inputs.append((vi.name, t))
    out = []
    for t in ORDER:
        if t not in allowed:
            continue
        mm = onnx.ModelProto()
        mm.CopyFrom(m)
        for vi in list(mm.graph.input) + list(mm.graph.output):
            if vi.name in retype:
                vi.type.tensor_type.elem_type = TYPES[t]
        files = [(n, convert(tp, t) if n in retype else tp.SerializeToString())
                 for n, tp in inputs]
        out.append((t, mm.SerializeToString(), files))
    return node.op_type, out


def convert(tp, t):
    """TensorProto bytes of float tensor `tp` as type `t`: floats rounded
    to the type, integers from the values scaled by 4 (so fractions still
    differ), bools from their sign."""
    import numpy as np
    from onnx import numpy_helper
    x = numpy_helper.to_array(tp).astype(np.float32)
    out = TensorProto()
    out.name = tp.name
    out.dims.extend(x.shape)
    out.data_type = TYPES[t]
    if t == "bfloat16":
        bits = x.astype(np.float32).view(np.uint32)
        # Round to nearest even, as the runtime's conversions do.
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        out.raw_data = bits.tobytes()
        return out.SerializeToString()
    if t == "bool":
        y = x > 0
    elif t in ("float16", "double"):
        y = x.astype(np.float16 if t == "float16" else np.float64)
    else:
        dt = np.dtype(t)
        info = np.iinfo(dt)
        y = np.clip(np.round(x * 4), max(info.min, -1e9),
                    min(info.max, 1e9)).astype(dt)
    return numpy_helper.from_array(y, tp.name).SerializeToString()


def run(job):
    test, op, t, blob, files = job
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "model.onnx")
        with open(p, "wb") as f:
            f.write(blob)
        # One unit in the last place of the type, at least: float16 keeps
        # 11 bits, bfloat16 8, and a float32 result rounded to them may land
        # one step from the interpreter's.
        rtol = {"float16": "2e-3", "bfloat16": "1.6e-2"}.get(t, "1e-3")
        cmd = [args.amk_run, p, "--threads", str(args.threads),
               "--check-reference", "--rtol", rtol, "--atol", "1e-4"]
        if args.jit:
            cmd.append("--jit")
        for i, (name, data) in enumerate(files):
            fp = os.path.join(d, f"input_{i}.pb")
            with open(fp, "wb") as f:
                f.write(data)
            cmd += ["--input", f"{name}={fp}"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return test, op, t, "fail", "timeout"
    out = r.stdout + r.stderr
    if r.returncode == 0:
        return test, op, t, "pass", ""
    # Not comparable: the interpreter has no kernel, or the retyped model is
    # not valid as declared (ONNX's inference rejects it, or its declared
    # output shapes held only for the float data).
    if "reference interpreter has no kernel" in out or "unsupported:" in out \
            or "the reference interpreter" in out and "error" in out \
            or "TypeInferenceError" in out or "but the IR says" in out \
            or "input 'like' must be" in out or "both are T" in out:
        return test, op, t, "n/a", out.strip().splitlines()[-1][:300]
    if "the runtime has no kernel for" in out or ("pipeline" in out and "failed" in out):
        line = next((l for l in out.splitlines() if "error:" in l), out)
        return test, op, t, "refused", line[:300]
    if "MISMATCH" in out:
        return test, op, t, "fail", "mismatch: " + out.strip()[-300:]
    return test, op, t, "fail", out.strip()[-300:]


tests = sorted(d for d in os.listdir(args.data)
               if os.path.exists(os.path.join(args.data, d, "model.onnx")))
only = set(args.only.split(",")) if args.only else None
jobs = []
for test in tests:
    v = variants(test)
    if not v:
        continue
    op, vs = v
    if only and op not in only:
        continue
    for t, blob, files in vs:
        jobs.append((test, op, t, blob, files))

results = []
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
    for r in ex.map(run, jobs):
        results.append(r)

# op x type: the best status over the op's tests (pass > fail > refused > n/a
# for the cell; a failing test is listed below the table).
rank = {"pass": 3, "fail": 2, "refused": 1, "n/a": 0}
cells = collections.defaultdict(dict)
reasons = collections.defaultdict(collections.Counter)
for test, op, t, status, msg in results:
    prev = cells[op].get(t)
    if status == "fail" or prev is None or (
            prev != "fail" and rank[status] > rank[prev]):
        cells[op][t] = status
    if status == "refused":
        m = re.search(r"no kernel for (?:op|node) '[^']*'(?: \(\w+\))?: (.*)", msg)
        reasons[op][(m.group(1) if m else msg)[:100]] += 1
counts = collections.Counter(s for *_, s, _ in results)
fails = [(test, t, msg) for test, op, t, s, msg in results if s == "fail"]
for test, t, msg in fails:
    print(f"FAIL {test} as {t}: {msg}")

if args.table:
    sym = {"pass": "yes", "refused": "no", "fail": "FAIL", "n/a": "n/a"}
    with open(args.table, "w") as f:
        f.write("# Runtime element-type coverage\n\n"
                "Written by `test/scripts/check-runtime-types.py "
                "build/bin/amk-run /usr/share/libonnx-testdata/data/node "
                "--table docs/runtime-types.md`: every single-op ONNX node "
                "test with float inputs, rewritten to each other element "
                "type its schema allows and run on random inputs against "
                "the reference interpreter. yes: compiled and matched; no: "
                "refused at compile time naming the op and type; n/a: the "
                "interpreter has no kernel to compare with; blank: ONNX does "
                "not define the op for the type. float32 is the node tests "
                "themselves (docs/runtime-node-tests.md).\n\n"
                f"Totals over {len(results)} op/type runs: "
                f"{counts['pass']} pass, {counts['refused']} refused, "
                f"{counts['fail']} fail, {counts['n/a']} n/a.\n\n")
        f.write("| op | " + " | ".join(ORDER) + " | refused because |\n")
        f.write("|---|" + "---|" * len(ORDER) + "---|\n")
        for op in sorted(cells):
            row = [sym.get(cells[op].get(t), "") for t in ORDER]
            why = reasons[op].most_common(1)[0][0] if reasons[op] else ""
            why = why.replace("|", "\\|")
            f.write(f"| {op} | " + " | ".join(row) + f" | {why} |\n")

regressed = []
if args.baseline:
    passing = sorted(f"{test}:{t}" for test, op, t, s, _ in results if s == "pass")
    checked = {f"{test}:{t}" for test, op, t, s, _ in results}
    if args.write_baseline:
        with open(args.baseline, "w") as f:
            f.write("# test:type pairs the runtime passes "
                    "(check-runtime-types.py --write-baseline)\n")
            f.write("\n".join(passing) + "\n")
    else:
        with open(args.baseline) as f:
            want = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        have = set(passing)
        # With --types, only the pairs this run checked.
        regressed = [w for w in want if w in checked and w not in have]
        for w in regressed:
            print(f"REGRESSED {w}")
if args.json:
    with open(args.json, "w") as f:
        json.dump([dict(zip(("test", "op", "type", "status", "message"), r))
                   for r in results], f, indent=1)
print(f"runtime type coverage{' (jit)' if args.jit else ''}: {counts['pass']} passed, {counts['refused']} "
      f"refused, {counts['fail']} failed, {counts['n/a']} n/a, of "
      f"{len(results)} op/type runs")
sys.exit(1 if fails or regressed else 0)
