"""The same seed gives the same ASLs whatever the number of BLAS threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json
import numpy as np
from pateval.stats import pairwise_tests
x = np.random.default_rng(8).random((120, 12))
print(json.dumps({test: pairwise_tests(x, test=test, B=700, seed=3, exact=False)["p_value"].tolist()
                  for test in ("bootstrap", "randomisation", "tukey")}))
"""


def p_values_with_threads(threads: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True,
                          timeout=120)
    return json.loads(done.stdout)


def test_p_values_do_not_depend_on_the_thread_count():
    assert p_values_with_threads(1) == p_values_with_threads(4)
