#!/usr/bin/env python3
"""Checks amk-detect-fusion-candidates against hand-counted expectations.

Usage: check-fusion-candidates.py BIN_DIR ZOO_DIR EXPECTED_JSON

For every model and opset in EXPECTED_JSON, runs
  amk-opt MODEL --pass-pipeline='builtin.module(amk-infer-shapes,
      amk-detect-fusion-candidates{report=...})'
and compares every pattern's count (unlisted patterns must be 0), that
each instance names as many nodes as it has ops, and the profile bounds.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    bin_dir, zoo, expected_path = sys.argv[1:4]
    expected = json.load(open(expected_path))
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        reports = {}

        def report(name):
            if name in reports:
                return reports[name]
            path = os.path.join(tmp, name + '.json')
            model = os.path.join(zoo, name + '.onnx')
            pipeline = ('builtin.module(amk-infer-shapes,'
                        'amk-detect-fusion-candidates{report=%s})' % path)
            r = subprocess.run([os.path.join(bin_dir, 'amk-opt'), model,
                                '--pass-pipeline=' + pipeline, '-o',
                                os.devnull], capture_output=True, text=True)
            if r.returncode != 0:
                reports[name] = None
                failures.append('%s: amk-opt failed: %s' % (name, r.stderr))
            else:
                reports[name] = json.load(open(path))
            return reports[name]

        for key, spec in expected['models'].items():
            base = spec.get('file', key)
            for opset in spec['opsets']:
                name = '%s_op%d' % (base, opset)
                rep = report(name)
                if rep is None:
                    continue
                for pattern, got in rep['patterns'].items():
                    want = spec['counts'].get(pattern, 0)
                    checked += 1
                    if got['count'] != want:
                        failures.append('%s: %s: expected %d, found %d' %
                                        (name, pattern, want, got['count']))
                    if len(got['instances']) != got['count'] or any(
                            not inst or not all(inst)
                            for inst in got['instances']):
                        failures.append('%s: %s: instances do not match '
                                        'the count or name no nodes' %
                                        (name, pattern))
                for pattern in spec['counts']:
                    if pattern not in rep['patterns']:
                        failures.append('%s: pattern %s missing from the '
                                        'report' % (name, pattern))
        for name, bounds in expected['profiles'].items():
            if name.startswith('_'):
                continue
            rep = report(name)
            if rep is None:
                continue
            share = rep['conv_density']['flop_share']
            flops = rep['profile']['flops']
            shares = sum(c['flop_share']
                         for c in rep['profile']['classes'].values())
            checks = [
                ('conv_flop_share_min', share >= bounds.get(
                    'conv_flop_share_min', 0)),
                ('conv_flop_share_max', share <= bounds.get(
                    'conv_flop_share_max', 1)),
                ('total_flops_min', flops >= bounds.get('total_flops_min', 0)),
                ('total_flops_max', flops <= bounds.get(
                    'total_flops_max', float('inf'))),
                ('flop shares sum to 1', abs(shares - 1) < 1e-9),
            ]
            for what, ok in checks:
                checked += 1
                if not ok:
                    failures.append('%s: profile %s failed (conv share %.4f,'
                                    ' flops %d, shares sum %.6f)' %
                                    (name, what, share, flops, shares))
    for f in failures:
        print('FAIL: ' + f)
    print('fusion candidates: %d checks, %d failed' % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
