"""The kernels' cache hint (:mod:`lab.solver.prefetch`): it compiles to the machine's
prefetch instruction and changes nothing, even for lines past an array's end."""

import numpy as np
from numba import njit

from lab.solver.prefetch import prefetch, prefetch_range


@njit
def _hinted_sum(a, start, count):
    prefetch_range(a, start, count)
    prefetch(a, start + count + 4096)   # far past the end: a hint never faults
    total = 0.0
    for i in range(start, min(start + count, a.size)):
        total += a[i]
    return total


def test_prefetch_changes_nothing_and_is_a_prefetch_instruction():
    a = np.arange(1000, dtype=np.float32)
    before = a.copy()
    for start, count in ((0, 1000), (17, 3), (990, 50), (5, 0)):
        assert _hinted_sum(a, start, count) == float(a[start:start + count].sum(dtype=np.float64))
    assert np.array_equal(a, before)
    asm = _hinted_sum.inspect_asm(_hinted_sum.signatures[0]).lower()
    assert "prefetch" in asm or "prfm" in asm   # x86-64, or ARM's prefetch
