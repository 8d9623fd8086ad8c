"""The compiled-kernel cache (lab.numba_cache) is named by the lab's code: a change to any
module a kernel can see starts a fresh folder, so a kernel never runs a changed helper's
old machine code; a change elsewhere keeps the compiled kernels."""

import os
import subprocess
import sys
from pathlib import Path

from lab import numba_cache
from lab.numba_cache import PREFIX, numba_cache_dir, source_key

REPO = Path(__file__).resolve().parent.parent


def test_the_key_follows_every_source_a_kernel_can_see(tmp_path, monkeypatch):
    code = tmp_path / "lab"
    (code / "solver").mkdir(parents=True)
    (code / "dashboards").mkdir()
    (code / "__init__.py").write_text("")
    (code / "cards.py").write_text("A = 1\n")
    (code / "rules.py").write_text("from .cards import A\nB = 2\n")
    (code / "solver" / "__init__.py").write_text("")
    (code / "dashboards" / "page.py").write_text("from ..solver.kernels import f\n")
    (code / "tables.py").write_text("B = 4\n")
    (code / "solver" / "kernels.py").write_text(
        "from numba import njit\nfrom ..rules import B\n\ndef f():\n"
        "    from ..tables import B   # run by Python: no kernel sees it\n    return B\n")
    monkeypatch.setattr(numba_cache, "LAB", code)
    seen = {"/".join(key) for key, _ in numba_cache.kernel_sources()}
    assert seen == {"solver/kernels", "solver/__init__", "rules", "cards"}
    keys = [source_key()]
    assert source_key() == keys[0]
    (code / "cards.py").write_text("A = 3\n")            # a constant two imports away
    keys.append(source_key())
    (code / "solver" / "kernels.py").rename(code / "solver" / "walks.py")      # a rename
    keys.append(source_key())
    (code / "dashboards" / "page.py").write_text("import lab.solver.walks\n")  # no kernel
    (code / "notes.txt").write_text("not code")                                 # not code
    assert source_key() == keys[-1]
    (code / "dashboards" / "page.py").write_text("import numba\nfrom lab import cards\n")
    keys.append(source_key())                              # now it compiles too
    assert len(set(keys)) == 4


def test_the_folder_is_under_the_chosen_base(tmp_path):
    key = PREFIX + source_key()
    assert numba_cache_dir({"NUMBA_CACHE_DIR": str(tmp_path)}) == tmp_path / key
    # a child process inherits the keyed folder: it is not nested again
    assert numba_cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / (PREFIX + "0123"))}) == tmp_path / key
    assert numba_cache_dir({}) == REPO / ".cache" / "numba" / key


def test_importing_lab_points_numba_at_the_keyed_folder(tmp_path):
    """Also when numba was imported first and had read the unkeyed folder."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    script = ("import numba, lab, os; from numba.core import config; "
              "print(config.CACHE_DIR); print(os.environ['NUMBA_CACHE_DIR'])")
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == [str(tmp_path / (PREFIX + source_key()))] * 2

