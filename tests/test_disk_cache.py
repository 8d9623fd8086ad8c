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
