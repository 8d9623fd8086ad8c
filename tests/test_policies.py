"""The stored full-game policies in data/: manifest, budget, loading, and every way a damaged
or missing policy is refused with the command that rebuilds it."""

import json
import shutil

import numpy as np
import pytest

from lab import RULES_VERSION
from lab.tables import policies
from lab.cards import RANKS
from lab.classes import deal_weight_matrix, vira_rank_of
from lab.tables import TableError

BUDGET_BYTES = 100_000_000
"""The issue's fallback budget for all ten viras (50 MB is the target)."""


@pytest.fixture(scope="module")
def manifest():
    return policies.read_policy_manifest()


def test_manifest_describes_every_stored_vira(manifest):
    assert manifest["rules_version"] == RULES_VERSION
    viras = manifest["viras"]
    assert viras, "no stored policy"
    on_disk = 0
    for v, info in viras.items():
        assert v in RANKS
        path = policies.policy_path(info.get("same_as", v))
        assert path.stat().st_size == info["bytes"]
        if "same_as" not in info:
            on_disk += info["bytes"]
        else:  # the same game: equal deal weights
            np.testing.assert_array_equal(deal_weight_matrix(vira_rank_of(v)),
                                          deal_weight_matrix(vira_rank_of(info["same_as"])))
        # the stored policy's exploitability is measured, positive and in points per hand
        assert 0 < info["exploitability"] < 0.5
        assert info["best_response"][0] + info["best_response"][1] == pytest.approx(
            2 * info["exploitability"])
        assert -0.5 < info["value_mao"] < 0.0
    assert manifest["bytes"] == on_disk <= BUDGET_BYTES


def test_a_stored_policy_loads_and_answers(manifest):
    v = next(iter(manifest["viras"]))
    pol = policies.load_full_policy(v)
    assert pol.vira == v and pol.exploitability == manifest["viras"][v]["exploitability"]
    d = pol.decision(pol.root())
    assert d.seat == 0
    stored = d.strategy[:, d.stored]
    # every stored hand's strategy is a distribution over its own actions
    np.testing.assert_allclose(stored.sum(axis=0), 1.0, atol=1e-12)
    assert d.stored.all(), "every hand is dealt, so every hand's first decision is stored"


@pytest.fixture
def copy_of_data(tmp_path, manifest):
    v = next(x for x, e in manifest["viras"].items() if "same_as" not in e)
    (tmp_path / policies.NAME).mkdir()
    shutil.copy(policies.manifest_path(), policies.manifest_path(tmp_path))
    shutil.copy(policies.policy_path(v), policies.policy_path(v, tmp_path))
    return tmp_path, v


def refused(directory, v) -> str:
    policies._CACHE.clear()
    with pytest.raises(TableError) as exc:
        policies.load_full_policy(v, directory)
    return str(exc.value)


def test_damaged_file_is_refused_with_the_rebuild_command(copy_of_data):
    directory, v = copy_of_data
    path = policies.policy_path(v, directory)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert "lab solve policy" in refused(directory, v)


def test_missing_file_and_missing_vira_are_refused(copy_of_data):
    directory, v = copy_of_data
    other = next(x for x in RANKS if x != v)      # a vira the manifest no longer lists
    path = policies.manifest_path(directory)
    manifest = json.loads(path.read_text())
    del manifest["viras"][other]
    path.write_text(json.dumps(manifest))
    assert other not in policies.stored_viras(directory)
    assert f"lab solve policy --vira {other}" in refused(directory, other)
    policies.policy_path(v, directory).unlink()
    assert "lab solve policy" in refused(directory, v)


def test_manifest_of_other_rules_or_not_a_manifest_is_refused(copy_of_data):
    directory, v = copy_of_data
    path = policies.manifest_path(directory)
    manifest = json.loads(path.read_text())
    manifest["rules_version"] = "999_other"
    path.write_text(json.dumps(manifest))
    assert "rebuild" in refused(directory, v)
    path.write_text("[]")
    assert "rebuild" in refused(directory, v)
    path.write_text("{not json")
    assert "rebuild" in refused(directory, v)


def test_a_wrong_slot_count_is_refused(copy_of_data):
    directory, v = copy_of_data
    path = policies.manifest_path(directory)
    manifest = json.loads(path.read_text())
    manifest["viras"][v]["slots"] += 1
    path.write_text(json.dumps(manifest))
    assert "lab solve policy" in refused(directory, v)


def test_viras_sharing_a_file_are_distinct_policies(manifest):
    shared = [(v, e["same_as"]) for v, e in manifest["viras"].items() if "same_as" in e]
    if not shared:
        pytest.fail("the stored policies hold no vira that reads another's file (3 reads 2's)")
    v, w = shared[0]
    policies._CACHE.clear()
    assert policies.load_full_policy(w).vira == w
    assert policies.load_full_policy(v).vira == v


def test_a_number_that_is_not_finite_refuses_the_manifest_with_the_command(copy_of_data):
    """NaN or infinity anywhere in the manifest (JSON has neither; Python writes both) is
    refused, never read as a number: in a vira's entry with that vira's command, elsewhere
    with the command that stores every policy again."""
    directory, v = copy_of_data
    path = policies.manifest_path(directory)
    bundled = json.loads(path.read_text())
    for where, value in ((("viras", v, "exploitability"), float("nan")),
                         (("viras", v, "best_response", 1), float("-inf")),
                         (("bytes",), float("inf"))):
        manifest = json.loads(json.dumps(bundled))
        inner = manifest
        for key in where[:-1]:
            inner = inner[key]
        inner[where[-1]] = value
        path.write_text(json.dumps(manifest))
        message = refused(directory, v)
        assert ".".join(map(str, where)) in message and "not a finite number" in message
        command = policies.rebuild_command(v) if where[0] == "viras" else \
            "lab rebuild --checkpoints DIR"
        assert message.endswith(f"`{command}`")


def test_lab_advise_refuses_a_nan_exploitability_in_one_line(copy_of_data):
    import os
    import subprocess
    import sys

    directory, v = copy_of_data
    path = policies.manifest_path(directory)
    manifest = json.loads(path.read_text())
    manifest["viras"][v]["exploitability"] = float("nan")
    path.write_text(json.dumps(manifest))
    out = subprocess.run([sys.executable, "-m", "lab", "advise", "--vira", f"{v}c", "--hand",
                          "Ah,Ad,As" if v != "A" else "Kh,Kd,Ks", "--seat", "mao", "--json"],
                         capture_output=True, text=True,
                         env=dict(os.environ, LAB_DATA_DIR=str(directory)))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")
    assert f"`lab solve policy --vira {v} --checkpoints DIR`" in out.stderr


def test_a_policy_written_now_says_its_vira_and_replaces_an_entry_that_is_not_finite(
        copy_of_data):
    """A policy stored now starts with a header of its vira, rules and slots, and loads to
    the same strategy as the file it was stored from; storing it replaces an entry the
    readers refuse (a NaN in it), as the command the refusal names does."""
    from lab.solver.fullgame.compact import HEADER_MAGIC, split_header

    directory, v = copy_of_data
    path = policies.manifest_path(directory)
    manifest = json.loads(path.read_text())
    entry = manifest["viras"][v]
    before = policies.load_full_policy(v, directory).q.copy()
    manifest["viras"][v] = dict(entry, exploitability=float("nan"))
    path.write_text(json.dumps(manifest))
    assert "not a finite number" in refused(directory, v)
    old = policies.policy_path(v, directory).read_bytes()
    assert split_header(old)[0] is None               # stored before headers existed
    content = {k: x for k, x in entry.items() if k not in ("sha256", "bytes", "built")}
    written = policies.write_full_policy(v, old, content, directory)
    blob = policies.policy_path(v, directory).read_bytes()
    assert blob.startswith(HEADER_MAGIC) and blob.endswith(old)
    assert split_header(blob)[0] == {"vira": v, "rules": RULES_VERSION,
                                     "slots": entry["slots"], "score": None}
    assert written["bytes"] == len(blob) and written["exploitability"] == entry["exploitability"]
    policies._CACHE.clear()
    np.testing.assert_array_equal(policies.load_full_policy(v, directory).q, before)
