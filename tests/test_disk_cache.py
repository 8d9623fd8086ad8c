"""Built structures cached on disk (lab.solver.cache): built once, loaded after, built
again when the file is damaged or the folder cannot be written."""

import os

from lab.solver.cache import disk_cached
from lab.solver.games.cardplay import TREE_SOURCES, cardplay_tree


def test_built_once_then_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return {"value": len(calls)}

    assert disk_cached("thing", build, ["cards.py"]) == {"value": 1}
    assert disk_cached("thing", build, ["cards.py"]) == {"value": 1}
    assert len(calls) == 1
    # another name or other sources: another file
    assert disk_cached("thing", build, ["rules.py"]) == {"value": 2}
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and all(f.startswith("thing-") for f in files)
    # a damaged file is built again (and replaced)
    for p in tmp_path.iterdir():
        p.write_bytes(b"not a pickle")
    assert disk_cached("thing", build, ["cards.py"]) == {"value": 3}
    assert disk_cached("thing", build, ["cards.py"]) == {"value": 3}


def test_a_read_only_folder_builds_every_time(tmp_path, monkeypatch):
    if os.geteuid() == 0:   # root writes anywhere: point at a path under a file instead
        blocker = tmp_path / "file"
        blocker.write_text("")
        monkeypatch.setenv("LAB_CACHE_DIR", str(blocker / "cache"))
    else:
        tmp_path.chmod(0o500)
        monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    assert disk_cached("thing", lambda: 7, ["cards.py"]) == 7
    assert disk_cached("thing", lambda: 8, ["cards.py"]) == 8


def test_the_cached_card_play_tree_equals_a_fresh_build(tmp_path, monkeypatch):
    from lab.solver.games.cardplay import _game
    from lab.solver.tree import build_tree

    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    cardplay_tree.cache_clear()
    try:
        first = cardplay_tree()          # built and written
        cardplay_tree.cache_clear()
        loaded = cardplay_tree()         # read back
    finally:
        cardplay_tree.cache_clear()
    assert loaded is not first and len(list(tmp_path.iterdir())) == 1
    fresh = build_tree(_game("4"))
    for name, value in vars(fresh).items():
        other = getattr(loaded, name)
        assert (other == value).all() if hasattr(value, "shape") else other == value, name
    assert "solver/games/cardplay.py" in TREE_SOURCES


def test_arrays_are_mapped_from_the_file_and_never_write_to_it(tmp_path, monkeypatch):
    import numpy as np

    from lab.solver.cache import cache_path

    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    value = {"a": np.arange(100_000, dtype=np.int64), "b": np.ones((3, 5))[:, ::2], "name": "x"}
    disk_cached("thing", lambda: value, ["cards.py"])
    path = cache_path("thing", ["cards.py"])
    before = path.read_bytes()
    loaded = disk_cached("thing", lambda: 1 / 0, ["cards.py"])   # read back, never built
    assert loaded["name"] == "x" and (loaded["b"] == 1).all() and loaded["b"].shape == (3, 3)
    a = loaded["a"]
    assert (a == value["a"]).all() and a.flags.writeable
    assert a.ctypes.data % 64 == 0            # aligned: the kernels' own array type
    import mmap
    base = a
    while not isinstance(base, mmap.mmap):    # the file's pages, not a copy
        base = base.obj if isinstance(base, memoryview) else base.base
        assert base is not None
    a[:10] = -1                               # copy-on-write: a private page
    assert path.read_bytes() == before
    assert (disk_cached("thing", lambda: 1 / 0, ["cards.py"])["a"][:10] == np.arange(10)).all()


def test_a_file_cut_short_is_built_again(tmp_path, monkeypatch):
    import numpy as np

    from lab.solver.cache import cache_path

    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    disk_cached("thing", lambda: np.arange(50_000), ["cards.py"])
    path = cache_path("thing", ["cards.py"])
    path.write_bytes(path.read_bytes()[:-1000])
    again = disk_cached("thing", lambda: np.arange(7), ["cards.py"])
    assert (again == np.arange(7)).all()


def test_keep_leaves_the_most_recently_used_files_of_a_kind(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    for i in range(4):
        disk_cached(f"big-{i}", lambda: i, ["cards.py"], keep=2)
        time.sleep(0.02)
    disk_cached("other-0", lambda: 9, ["cards.py"], keep=2)   # another kind: its own count
    names = sorted(p.name.rsplit("-", 1)[0] for p in tmp_path.iterdir())
    assert names == ["big-2", "big-3", "other-0"]
    assert disk_cached("big-2", lambda: "rebuilt", ["cards.py"], keep=2) == 2   # still there
