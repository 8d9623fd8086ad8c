"""`lab bench cardplay` runs end to end on a small configuration and prints its figures."""

import re
import subprocess
import sys


def test_bench_cardplay_prints_every_figure():
    out = subprocess.run([sys.executable, "-m", "lab", "bench", "cardplay", "--jobs", "1",
                          "--viras", "7", "--baseline-deals", "20", "--baseline-iterations", "1",
                          "--solver-iterations", "2"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    # both default schedules, each to the target, then side by side
    found = re.findall(r"vira 7: (\d+) iterations, exploitability \d\.\d+e-0[5-9]", text)
    assert len(found) == 2
    assert re.search(rf"side by side: dcfr [\d.]+ s \({found[0]} iterations\), "
                     rf"dcfr\+ [\d.]+ s \({found[1]} iterations\)", text)
    for figure in (r"wall time, 1 viras: [\d.]+ s", r"peak memory: \d+ MB",
                   r"speed-up per iteration: \d+x", r"bytes touched per iteration: \d+ MB",
                   r"iteration time / bandwidth bound: [\d.]+x"):
        assert re.search(figure, text), figure


def test_bench_cardplay_refuses_bad_options():
    for args in (["--jobs", "0"], ["--viras", "9"], ["--bogus"], ["--schedules", "dcfr,dcfr"],
                 ["--schedules", "cfr"]):
        out = subprocess.run([sys.executable, "-m", "lab", "bench", "cardplay", *args],
                             capture_output=True, text=True)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and out.stdout == "" and len(lines) == 1
        assert lines[0].startswith("error:")
