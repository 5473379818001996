#!/usr/bin/python3
"""The rational erf behind geluV (runtime/lib/kernels/Vector.h).

Fits erf(u) ~ u P(u^2) / Q(u^2) on [0, 3.925] (erf is 1 to float
precision beyond), P of degree 5 and Q of degree 5 in u^2 with Q(0) = 1,
by linearized least squares reweighted towards the largest errors (a
cheap approach to the minimax fit), then evaluates the result in float32
over [-5, 5] against math.erf. Prints the coefficients (P from u^0, Q
from u^0) and both errors. Needs numpy only.

Usage: erf_rational.py
"""
from math import erf

import numpy as np

L = 3.925


def main():
    xs = np.linspace(0, L, 20001)
    f = np.array([erf(v) for v in xs])
    x2 = xs * xs
    w = np.ones_like(xs)
    qprev = np.ones_like(xs)
    for _ in range(30):
        cols = [xs * x2**i for i in range(6)] + [-f * x2**j for j in range(1, 6)]
        a = np.array(cols).T / qprev[:, None]
        c, *_ = np.linalg.lstsq(a * w[:, None], f / qprev * w, rcond=None)
        p, q = c[:6], np.concatenate([[1.0], c[6:]])
        qv = sum(q[j] * x2**j for j in range(6))
        err = xs * sum(p[i] * x2**i for i in range(6)) / qv - f
        qprev = qv
        w = w * (np.abs(err) / np.abs(err).max() + 1e-3) ** 0.5
        w /= w.max()
    x32 = np.linspace(-5, 5, 200001).astype(np.float32)
    u = np.clip(x32, -L, L).astype(np.float32)
    u2 = (u * u).astype(np.float32)
    pv, qv = np.float32(p[-1]), np.float32(q[-1])
    for k in p[-2::-1]:
        pv = (pv * u2 + np.float32(k)).astype(np.float32)
    for k in q[-2::-1]:
        qv = (qv * u2 + np.float32(k)).astype(np.float32)
    r = (u * pv / qv).astype(np.float32)
    ref = np.array([erf(float(v)) for v in x32])
    print("P:", ", ".join(f"{v:.9g}" for v in p))
    print("Q:", ", ".join(f"{v:.9g}" for v in q))
    print(f"max error: {np.abs(err).max():.3g} exact, "
          f"{np.abs(r - ref).max():.3g} in float32")


if __name__ == "__main__":
    main()
