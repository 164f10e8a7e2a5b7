#!/usr/bin/env python3
"""Test oracle for the paired tests of src/core/eval/: scipy's own answers (scipy 1.10.1, Debian's
/usr/bin/python3).

Reads one JSON object on stdin:
  {"wilcoxon": [[d, ...], ...], "binomtest": [[k, n], ...], "erfc": [x, ...], "erfc_exact": [x, ...],
   "norm_sf": [z, ...]}
(any key may be missing) and writes one JSON object with, per key, a list in input order:
  wilcoxon:  {"statistic": float, "pvalue": float} from scipy.stats.wilcoxon(d) with every default
             (zero_method="wilcox", correction=False, alternative="two-sided", method="auto"),
             or {"error": "..."} where scipy refuses (all differences zero) and null where it returns NaN
             (no differences);
  binomtest: scipy.stats.binomtest(k, n, 0.5).pvalue (two-sided), or null for n = 0 (scipy refuses it);
  erfc:      scipy.special.erfc(x);
  erfc_exact: erfc(x) by mpmath at 40 digits, rounded to the nearest double (scipy's Cephes erfc is
             itself off by up to ~6e-14 relative far in the tail);
  norm_sf:   scipy.stats.norm.sf(z).
Floats are written with repr, so they read back as the same doubles.
"""

import json
import math
import sys
import warnings

import mpmath
import numpy as np
import scipy
from scipy import special, stats

if scipy.__version__ != "1.10.1":
    sys.exit(f"paired_tests_oracle.py expects scipy 1.10.1 (got {scipy.__version__})")


def wilcoxon(d):
    with warnings.catch_warnings():
        # scipy warns when it leaves the exact method for zeros and when n < 10 under the approximation.
        warnings.simplefilter("ignore")
        try:
            res = stats.wilcoxon(np.asarray(d, dtype=np.float64))
        except ValueError as error:
            return {"error": str(error)}
    if math.isnan(res.pvalue):
        return None
    return {"statistic": float(res.statistic), "pvalue": float(res.pvalue)}


def binomtest(k, n):
    if n == 0:
        return None
    return float(stats.binomtest(k, n, 0.5).pvalue)


def erfc_exact(x):
    with mpmath.workdps(40):
        return float(mpmath.erfc(mpmath.mpf(x)))


def main():
    request = json.load(sys.stdin)
    answer = {
        "wilcoxon": [wilcoxon(d) for d in request.get("wilcoxon", [])],
        "binomtest": [binomtest(k, n) for k, n in request.get("binomtest", [])],
        "erfc": [float(special.erfc(x)) for x in request.get("erfc", [])],
        "erfc_exact": [erfc_exact(x) for x in request.get("erfc_exact", [])],
        "norm_sf": [float(stats.norm.sf(z)) for z in request.get("norm_sf", [])],
    }
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
