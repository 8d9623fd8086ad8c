"""``lab bench sim`` runs and prints its figures (the speed targets are checked by reading
them, never asserted in a test)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def bench(*args):
    proc = subprocess.run([sys.executable, "-m", "lab", "bench", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_bench_sim_prints_both_rates_and_their_ratio():
    code, out, err = bench("sim", "--hands", "20000", "--plain-hands", "300", "--repeats", "1")
    assert code == 0, err
    fast = re.search(r"^fast engine \(numba, (\d+) threads?\): ([\d,]+) hands/s", out, re.M)
    plain = re.search(r"^plain engine \(lab/rules.py, 1 thread\): ([\d,]+) hands/s", out, re.M)
    ratio = re.search(r"^ratio: ([\d,]+)x$", out, re.M)
    assert fast and plain and ratio, out
    f, p = (float(m.replace(",", "")) for m in (fast.group(2), plain.group(1)))
    assert abs(f / p - float(ratio.group(1).replace(",", ""))) <= 1
    assert re.search(r"^targets: .* hands/s (met|MISSED); >= 100x (met|MISSED)$", out, re.M)


def test_unknown_target_or_option_is_one_error_line():
    for args in (["nope"], ["sim", "--hands", "0"], ["sim", "--frobnicate"]):
        code, out, err = bench(*args)
        assert code == 2 and out == "", args
        assert len(err.splitlines()) == 1 and err.startswith("error: ")
