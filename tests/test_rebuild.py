"""`lab rebuild`: the order of the data chain, which steps are due, and running them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from argparse import Namespace

import pytest

from lab.cli import build_parser
from lab.commands import rebuild
from lab.errors import InputError
from lab.tables import TableError, data_dir
from lab.tables.chain import STEPS, STEP_NAMES, plan, step_commands, step_of, why_due

from conftest import in_ci, linked_copy


def due_steps(directory) -> list[str]:
    return [row["step"] for row in plan(directory) if row["due"]]


@pytest.fixture(scope="module")
def bundled():
    """The bundled data folder, which every test here needs whole and fresh."""
    directory = data_dir()
    due = due_steps(directory)
    if due:
        message = f"the bundled data has steps due: {due}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return directory


@pytest.fixture
def copy(bundled, tmp_path):
    """A copy of the bundled data folder (the policies linked, not copied)."""
    return linked_copy(bundled, tmp_path)


def test_each_step_runs_after_the_steps_it_reads_and_the_tables_they_are_built_on():
    from lab.tables.registry import TABLES

    writer = {name: s.name for s in STEPS for name in s.writes}
    assert set(TABLES) <= set(writer), "every table is written by a step"
    for i, step in enumerate(STEPS):
        assert all(STEP_NAMES.index(a) < i for a in step.after)
        for name in step.writes:
            if name in TABLES:
                for dep in TABLES[name].built_on:
                    if writer[dep] != step.name:
                        assert writer[dep] in step.after, (step.name, dep)


def test_nothing_is_due_on_the_bundled_data_and_every_command_parses(bundled):
    rows = plan(bundled)
    assert [r["step"] for r in rows] == list(STEP_NAMES)
    assert not any(r["due"] for r in rows)
    for step in STEPS:
        commands = step_commands(step, bundled, checkpoints="ck")
        assert commands
        for argv in commands:
            args = build_parser(argv[0]).parse_args(argv)   # a real command line of the lab
            assert ("--checkpoints" in argv) == step.checkpoints
            if step.checkpoints:
                assert args.checkpoints == "ck"


def test_commands_rebuild_what_the_data_holds(bundled):
    import pandas as pd

    plays = pd.read_parquet(bundled / "score_play.parquet")
    [resolves] = step_commands(step_of("match_play"), bundled)   # one sweep, every vira
    asked = {(vira, tuple(map(int, score.split(","))))
             for i, x in enumerate(resolves) if x == "--at"
             for vira, score in [resolves[i + 1].split(":")]}
    assert asked == {(str(v), (int(m), int(p))) for v, m, p in
                     plays[["vira", "score_mao", "score_pe"]].itertuples(index=False)}
    rules = set(pd.read_parquet(bundled / "whatif.parquet")["rules"])
    assert {argv[argv.index("--rules") + 1] for argv in
            step_commands(step_of("whatif"), bundled)} == rules


def test_a_stale_full_game_table_makes_everything_built_on_it_due(copy):
    manifest = copy / "full_summary.json"
    data = json.loads(manifest.read_text())
    data["settings"] = dict(data["settings"], target_exploitability=data["settings"][
        "target_exploitability"] / 2)   # solved to another target than the lab's
    manifest.write_text(json.dumps(data))
    rows = {r["step"]: r for r in plan(copy)}
    assert due_steps(copy) == ["full", "full_policy", "match", "score", "match_play",
                               "score_policy", "whatif", "ranking", "report", "exploit"]
    assert "full_summary" in rows["full"]["why"] and "stale" in rows["full"]["why"]
    assert "full" in rows["full_policy"]["why"]


def test_a_points_policy_built_from_another_solve_is_due(copy):
    """The full tables and the stored policy of a vira come from one solve: a policy whose
    solve has other iterations (or exploitability) than the full tables' is rebuilt, and
    what is built on it after it."""
    manifest = json.loads((copy / "full_policy.json").read_text())
    manifest["viras"]["Q"]["iterations"] += 10
    (copy / "full_policy.json").write_text(json.dumps(manifest))
    assert due_steps(copy) == ["full_policy", "score_policy", "ranking", "report", "exploit"]
    assert why_due(step_of("full_policy"), copy).startswith(
        "vira Q's points policy was built from another solve")


def test_a_missing_match_table_makes_only_what_reads_it_due(copy):
    (copy / "match_equity.parquet").unlink()
    assert due_steps(copy) == ["match", "score", "match_play", "score_policy", "whatif"]
    assert "missing" in why_due(step_of("match"), copy)


def test_a_changed_table_file_and_a_lacking_policy_are_due(bundled, copy):
    (copy / "cardplay.parquet").write_bytes((copy / "cardplay.parquet").read_bytes() + b"x")
    assert "not the file its manifest describes" in why_due(step_of("cardplay"), copy)
    (copy / "score_policy.json").unlink()
    manifest = json.loads((bundled / "score_policy.json").read_text())
    del manifest["policies"]["K 9-10"]
    (copy / "score_policy.json").write_text(json.dumps(manifest))
    assert why_due(step_of("score_policy"), copy) == \
        "no stored score-aware policy of vira K at 9-10"


def test_policies_built_on_another_points_policy_are_due(bundled, copy):
    manifest = json.loads((bundled / "score_policy.json").read_text())
    manifest["policies"]["7 10-9"]["base_sha256"] = "0" * 16
    (copy / "score_policy.json").write_text(json.dumps(manifest))
    assert due_steps(copy) == ["score_policy"]
    assert why_due(step_of("score_policy"), copy) == (
        "vira 7's score-aware policy at 10-9 was built on another points policy than the one "
        "stored now")


def from_another_policy(folder, name: str, vira: str) -> None:
    """Make table ``name``'s manifest in ``folder`` say its rows of ``vira`` were computed
    from another points policy than the one stored."""
    path = folder / f"{name}.json"
    manifest = json.loads(path.read_text())
    manifest["viras"][vira]["policy_sha256"] = "0" * 16
    path.write_text(json.dumps(manifest))


def test_a_ranking_of_another_policy_is_due(copy):
    ranked = sorted(json.loads((copy / "bot_ranking.json").read_text())["viras"])
    from_another_policy(copy, "bot_ranking", ranked[0])
    assert due_steps(copy) == ["ranking"]
    assert why_due(step_of("ranking"), copy) == (
        f"table 'bot_ranking': vira {ranked[0]} was ranked against another points policy "
        "than the one stored now")


def test_exploits_of_another_policy_are_due_and_replay_their_opponents(bundled, copy):
    """The exploit tables are due once a vira's points policy changed since its exploits
    were solved; their commands play each held style bot again, profile him, solve his
    exploits and report them."""
    import pandas as pd

    from_another_policy(copy, "exploit_summary", "K")
    assert due_steps(copy) == ["exploit"]
    assert why_due(step_of("exploit"), copy) == (
        "table 'exploit_summary': vira K was exploited from another points policy than the "
        "one stored now")
    held = sorted(set(pd.read_parquet(bundled / "exploit_summary.parquet")["opponent"]))
    commands = step_commands(step_of("exploit"), bundled)
    assert [c[2] for c in commands if c[0] == "simulate"] == held
    assert [c[c.index("--out") + 1] for c in commands if c[:2] == ["solve", "lock"]] == [
        f".cache/exploits/{name}" for name in held]
    assert commands[-1] == ["report", "--write", "--exploits", ".cache/exploits"]


def test_a_report_of_another_policy_or_lacking_a_vira_is_due(copy):
    """The strategy report is due when the manifest names another points policy for a vira
    than the one stored now (the policy changed since), and when it lacks a vira."""
    path = copy / "strategy_report.json"
    manifest = json.loads(path.read_text())
    manifest["viras"]["K"]["policy_sha256"] = "0" * 16
    path.write_text(json.dumps(manifest))
    assert due_steps(copy) == ["report"]
    assert why_due(step_of("report"), copy) == (
        "table 'strategy_report': vira K was summed over another points policy than the one "
        "stored now")
    assert step_commands(step_of("report"), copy) == [["report", "--write"]]
    del manifest["viras"]["K"]
    path.write_text(json.dumps(manifest))
    assert "it lacks vira K" in why_due(step_of("report"), copy)


def args(**kw):
    base = dict(plan=False, checkpoints=None, threads=2, jobs=2)
    return Namespace(**{**base, **kw})


def test_rebuild_runs_the_due_steps_in_order_until_their_output_is_fresh(bundled, copy,
                                                                         monkeypatch, capsys):
    """A stand-in for the `lab` commands puts the bundled files back, as a rebuild would:
    each due step runs once, in order, and is checked fresh before the next."""
    monkeypatch.setenv("LAB_DATA_DIR", str(copy))
    (copy / "match_equity.parquet").unlink()
    ran = []

    def runner(argv):
        ran.append(argv)
        if argv[:2] == ["solve", "match"]:
            shutil.copy2(bundled / "match_equity.parquet", copy / "match_equity.parquet")
        return 0

    assert rebuild.run(args(checkpoints="ck"), runner) == 0
    order = [a[0] if a[0] != "solve" else a[1] for a in ran]
    assert order[0] == "match" and order[-1] == "whatif"
    assert order.index("score") < order.index("match-play") < order.index("policy")
    assert "full" not in order and "rank" not in order
    assert "rebuilt 5 steps" in capsys.readouterr().out
    assert due_steps(copy) == []


def test_rebuild_stops_at_a_failed_or_ineffective_step(copy, monkeypatch):
    monkeypatch.setenv("LAB_DATA_DIR", str(copy))
    (copy / "match_equity.parquet").unlink()
    with pytest.raises(InputError, match="step match stopped: `lab solve match --jobs 2` "
                                         "exited with status 2"):
        rebuild.run(args(checkpoints="ck"), lambda argv: 2)
    with pytest.raises(InputError, match="step match ran, but its output is still not fresh: "
                                         "table 'match_equity' is missing"):
        rebuild.run(args(checkpoints="ck"), lambda argv: 0)
    (copy / "full_summary.parquet").unlink()
    with pytest.raises(InputError, match="steps full, full_policy, score, match_play, "
                                         "score_policy are due and solve the full game: give "
                                         "--checkpoints DIR"):
        rebuild.run(args(), lambda argv: pytest.fail("nothing may run"))


def lab(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "lab", *argv], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def test_lab_rebuild_plan_and_nothing_to_do(bundled):
    out = lab("rebuild", "--plan")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["step"] for r in rows] == list(STEP_NAMES)
    assert all(r["commands"] and r["time"] and not r["due"] for r in rows)
    done = lab("rebuild")
    assert done.returncode == 0 and "nothing to rebuild" in done.stdout


def test_lab_rebuild_on_an_empty_folder_asks_for_checkpoints(tmp_path):
    out = lab("rebuild", env={"LAB_DATA_DIR": str(tmp_path)})
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: steps full, ")
    plan_out = lab("rebuild", "--plan", "--checkpoints", "ck", env={"LAB_DATA_DIR": str(tmp_path)})
    rows = [json.loads(line) for line in plan_out.stdout.splitlines()]
    assert all(r["due"] for r in rows)
    assert rows[0]["why"].startswith("table 'cardplay' is missing")
    assert "lab solve full --all --checkpoints ck --threads 2 --from 4" in rows[1]["commands"]


def test_a_what_if_lacking_a_named_rule_set_is_due_and_rebuilds_it(copy):
    """A rebuild stopped between the two rule sets leaves a ``whatif`` that loads; it is
    still due, and its commands compute both rule sets again."""
    from lab.tables.manifests import TableWrite, load_table, read_manifest, write_tables

    writes = {}
    for name in ("whatif", "whatif_match"):
        rows = load_table(name, directory=copy)
        manifest = read_manifest(name, copy)
        writes[name] = TableWrite(rows[rows["rules"] != "buteco"].reset_index(drop=True),
                                  manifest["settings"], manifest["viras"])
    write_tables(writes, copy)
    assert due_steps(copy) == ["whatif"]
    assert why_due(step_of("whatif"), copy) == (
        "table 'whatif' lacks the rule set 'buteco'; rebuild it with "
        "`lab whatif --rules buteco`")
    assert sorted(argv[argv.index("--rules") + 1]
                  for argv in step_commands(step_of("whatif"), copy)) == ["buteco", "fpt"]


def test_a_policy_of_another_re_solve_is_due_and_only_the_due_ones_are_rebuilt(bundled,
                                                                              copy):
    """A score-aware policy whose re-solve is no longer the one in ``score_play`` (another
    iteration count) is due, and the step's commands store again only the due policies:
    a rebuild stopped inside the step goes on with the rest."""
    manifest = json.loads((bundled / "score_policy.json").read_text())
    manifest["policies"]["7 10-9"]["iterations"] += 1
    manifest["policies"]["Q 9-9"]["solver_exploitability"] *= 1.5
    (copy / "score_policy.json").unlink()
    (copy / "score_policy.json").write_text(json.dumps(manifest))
    assert due_steps(copy) == ["score_policy"]
    assert why_due(step_of("score_policy"), copy) == (
        "vira 7's score-aware policy at 10-9 was built from another re-solve than the one "
        "in score_play")
    assert step_commands(step_of("score_policy"), copy, checkpoints="ck") == [
        ["solve", "policy", "--checkpoints", "ck", "--threads", "2", "--vira", "7",
         "--score", "10,9"],
        ["solve", "policy", "--checkpoints", "ck", "--threads", "2", "--vira", "Q",
         "--score", "9,9"]]
    (copy / "score_policy.json").unlink()
    shutil.copy2(bundled / "score_policy.json", copy / "score_policy.json")
    assert due_steps(copy) == []
    assert len(step_commands(step_of("score_policy"), copy)) == 10   # all held when none is due


# ---------------------------------------------------------------- damaged stored policies


@pytest.fixture
def policy_copy(copy):
    """The copy with the policy folders as folders of links to the bundled files: a test
    replaces the link of the file it damages by a file of its own (:func:`own`)."""
    for name in ("full_policy", "score_policy"):
        source = (copy / name).resolve()
        (copy / name).unlink()
        for path in source.rglob("*.zst"):
            link = copy / name / path.relative_to(source)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    return copy


def own(path, data=None) -> None:
    """Make ``path`` a file of the test's own (not a link to the bundled data), holding
    ``data`` (by default its bytes)."""
    data = path.read_bytes() if data is None else data
    path.unlink()
    path.write_bytes(data)


def edit_manifest(path, edit) -> None:
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))   # NaN and Infinity are written as Python does


def with_header_of(blob: bytes, vira: str, slots, score=None, rules=None) -> bytes:
    """``blob`` as a newly written file would hold it: behind a header of ``vira``."""
    from lab.solver.fullgame.compact import split_header, with_header
    from lab.tables.policies import policy_header

    header = policy_header(vira, slots, score)
    if rules is not None:
        header["rules"] = rules
    return with_header(split_header(blob)[1], header)


def stored_as(copy, path, data, entry) -> None:
    """Put ``data`` at ``path`` and make the manifest ``entry`` (a dict inside it) name it."""
    from lab.store import content_hash

    own(path, data)
    entry.update(sha256=content_hash(data), bytes=len(data))


def points_damage(kind, copy):
    """Damage vira 4's points policy (vira 2's for the copy kinds) in the copy as ``kind``
    says; returns (vira to load, text of the reason, rebuild command)."""
    from lab.tables.policies import manifest_path, policy_path

    path, manifest = policy_path("4", copy), manifest_path(copy)
    four = "lab solve policy --vira 4 --checkpoints DIR"
    if kind == "truncated":
        own(path, path.read_bytes()[:1000])
        return "4", "is cut short (1,000 of its", four
    if kind == "zero bytes":
        own(path, b"")
        return "4", "is empty", four
    if kind == "flipped byte":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        own(path, bytes(data))
        return "4", "is not the file its manifest describes", four
    if kind == "missing":
        path.unlink()
        return "4", "is missing", four
    if kind == "another vira's file, its hash edited in":
        def edit(m):
            stored_as(copy, path, policy_path("5", copy).read_bytes(), m["viras"]["4"])
        edit_manifest(manifest, edit)
        return "4", "the policies of vira 4 and vira 5 name one file", four
    if kind == "another vira's file with a header, its hash edited in":
        def edit(m):
            data = with_header_of(policy_path("5", copy).read_bytes(), "5",
                                  m["viras"]["5"]["slots"])
            stored_as(copy, path, data, m["viras"]["4"])
        edit_manifest(manifest, edit)
        return "4", "its file was stored for vira '5', not '4'", four
    if kind == "a header of other rules":
        def edit(m):
            data = with_header_of(path.read_bytes(), "4", m["viras"]["4"]["slots"],
                                  rules="999_other")
            stored_as(copy, path, data, m["viras"]["4"])
        edit_manifest(manifest, edit)
        return "4", "its file was stored for rules '999_other'", four
    if kind == "a header of another slot count":
        def edit(m):
            data = with_header_of(path.read_bytes(), "4", m["viras"]["4"]["slots"] + 1)
            stored_as(copy, path, data, m["viras"]["4"])
        edit_manifest(manifest, edit)
        return "4", "its file was stored for slots", four
    if kind == "NaN exploitability":
        edit_manifest(manifest, lambda m: m["viras"]["4"].update(exploitability=float("nan")))
        return "4", "viras.4.exploitability is nan, not a finite number", four
    if kind == "an entry lacking its hash":
        edit_manifest(manifest, lambda m: m["viras"]["4"].pop("sha256"))
        return "4", "lacks sha256", four
    if kind == "a copy's file damaged":      # vira 3 reads vira 2's file
        own(policy_path("2", copy), policy_path("2", copy).read_bytes()[:-1])
        return "3", "2.zst is cut short", ("lab solve policy --vira 2 --vira 3 --same-as 3=2 "
                                            "--checkpoints DIR")
    if kind == "a copy of a file stored again":
        edit_manifest(manifest, lambda m: m["viras"]["3"].update(sha256="0" * 16))
        return "3", "is stored as vira 2's, stored again since", (
            "lab solve policy --vira 3 --same-as 3=2 --checkpoints DIR")
    raise AssertionError(kind)


POINTS_DAMAGE = ("truncated", "zero bytes", "flipped byte", "missing",
                 "another vira's file, its hash edited in",
                 "another vira's file with a header, its hash edited in",
                 "a header of other rules", "a header of another slot count",
                 "NaN exploitability", "an entry lacking its hash", "a copy's file damaged",
                 "a copy of a file stored again")


def printed_plan(copy, monkeypatch, capsys) -> dict:
    """What `lab rebuild --plan` prints on the copy, by step."""
    monkeypatch.setenv("LAB_DATA_DIR", str(copy))
    assert rebuild.run(args(plan=True)) == 0
    return {row["step"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}


def assert_hint_works(message: str, command: str) -> None:
    """``message`` is one line that names ``command``, a command line of the lab."""
    import shlex

    assert "\n" not in message and f"`{command}`" in message, message
    argv = shlex.split(command)[1:]
    build_parser(argv[0]).parse_args(argv)


@pytest.mark.parametrize("kind", POINTS_DAMAGE)
def test_a_damaged_points_policy_is_due_and_refused_with_its_command(policy_copy, kind,
                                                                    monkeypatch, capsys):
    """Every way a points policy's file or entry can be damaged makes `lab rebuild --plan`
    mark its step due with the reason (and what is built on it after it), and its loader
    refuse it in one line naming a command of the lab that stores it again."""
    from lab.tables import policies

    vira, reason, command = points_damage(kind, policy_copy)
    rows = printed_plan(policy_copy, monkeypatch, capsys)
    assert rows["full_policy"]["due"] and reason in rows["full_policy"]["why"]
    assert rows["score_policy"]["due"] and rows["ranking"]["due"] and rows["report"]["due"]
    assert not rows["full"]["due"] and not rows["match"]["due"]
    assert_hint_works(rows["full_policy"]["why"], command)
    policies._CACHE.clear()
    with pytest.raises(TableError) as refused:
        policies.load_full_policy(vira, policy_copy)
    assert reason in str(refused.value)
    assert_hint_works(str(refused.value), command)


def aware_damage(kind, copy):
    """Damage vira 4's score-aware policy at 10-10 (vira 2's for the copy kinds) in the
    copy as ``kind`` says; returns (vira to load, text of the reason, rebuild command, the
    commands of the step)."""
    from lab.tables.score_policies import manifest_path, policy_path

    path, manifest = policy_path("4", (10, 10), copy), manifest_path(copy)
    four = "lab solve policy --vira 4 --score 10,10 --checkpoints DIR"
    step = ["lab solve policy --checkpoints DIR --threads 2 --vira 4 --score 10,10"]

    def entry(m, key="4 10-10"):
        return m["policies"][key]

    if kind == "truncated":
        own(path, path.read_bytes()[:1000])
        return "4", "is cut short (1,000 of its", four, step
    if kind == "zero bytes":
        own(path, b"")
        return "4", "is empty", four, step
    if kind == "flipped byte":
        data = bytearray(path.read_bytes())
        data[-5] ^= 0x80
        own(path, bytes(data))
        return "4", "is not the file its manifest describes", four, step
    if kind == "missing":
        path.unlink()
        return "4", "is missing", four, step
    if kind == "another score's file, its hash edited in":
        edit_manifest(manifest, lambda m: stored_as(
            copy, path, policy_path("4", (10, 9), copy).read_bytes(), entry(m)))
        return "4", "name one file", four, [step[0] + " --score 10,9"]
    if kind == "another vira's file with a header, its hash edited in":
        edit_manifest(manifest, lambda m: stored_as(copy, path, with_header_of(
            policy_path("5", (10, 10), copy).read_bytes(), "5", entry(m, "5 10-10")["slots"],
            (10, 10)), entry(m)))
        return "4", "its file was stored for vira '5', not '4'", four, step
    if kind == "a header of another score":
        edit_manifest(manifest, lambda m: stored_as(copy, path, with_header_of(
            path.read_bytes(), "4", entry(m)["slots"], (9, 9)), entry(m)))
        return "4", "its file was stored for score [9, 9], not [10, 10]", four, step
    if kind == "a points policy's file":
        edit_manifest(manifest, lambda m: stored_as(copy, path, with_header_of(
            path.read_bytes(), "4", entry(m)["slots"]), entry(m)))
        return "4", "its file was stored for score None, not [10, 10]", four, step
    if kind == "infinite exploitability":
        edit_manifest(manifest, lambda m: entry(m).update(exploitability=float("inf")))
        return "4", "policies.4 10-10.exploitability is inf, not a finite number", four, None
    if kind == "an entry filed under another score":
        edit_manifest(manifest, lambda m: entry(m).update(score=[9, 9]))
        return "4", "is not a score-aware policy manifest", "lab rebuild --checkpoints DIR", None
    if kind == "a copy's file damaged":     # vira 3 at 10-10 reads vira 2's file
        two = policy_path("2", (10, 10), copy)
        own(two, two.read_bytes()[:-1])
        return "3", "10-10.zst is cut short", (
            "lab solve policy --vira 2 --vira 3 --score 10,10 --same-as 3=2 --checkpoints DIR"
        ), ["lab solve policy --checkpoints DIR --threads 2 --vira 2 --score 10,10",
            "lab solve policy --checkpoints DIR --threads 2 --vira 3 --score 10,10 "
            "--same-as 3=2"]
    if kind == "a copy of a file stored again":
        edit_manifest(manifest, lambda m: entry(m, "3 10-10").update(bytes=1))
        return "3", "is stored as vira 2's, stored again since", (
            "lab solve policy --vira 3 --score 10,10 --same-as 3=2 --checkpoints DIR"), [
            "lab solve policy --checkpoints DIR --threads 2 --vira 3 --score 10,10 "
            "--same-as 3=2"]
    raise AssertionError(kind)


AWARE_DAMAGE = ("truncated", "zero bytes", "flipped byte", "missing",
                "another score's file, its hash edited in",
                "another vira's file with a header, its hash edited in",
                "a header of another score", "a points policy's file",
                "infinite exploitability", "an entry filed under another score",
                "a copy's file damaged",
                "a copy of a file stored again")


@pytest.mark.parametrize("kind", AWARE_DAMAGE)
def test_a_damaged_score_aware_policy_is_due_and_refused_with_its_command(
        policy_copy, kind, monkeypatch, capsys):
    """The same for the score-aware policies: the step is due with the reason, its
    commands store again the damaged policy (and a copy of it), nothing else is due, and
    the loader refuses it in one line naming a command of the lab that stores it again."""
    from lab.tables import score_policies

    vira, reason, command, commands = aware_damage(kind, policy_copy)
    rows = printed_plan(policy_copy, monkeypatch, capsys)
    assert [step for step, row in rows.items() if row["due"]] == ["score_policy"]
    assert reason in rows["score_policy"]["why"]
    assert_hint_works(rows["score_policy"]["why"], command)
    if commands is not None:   # None: the manifest is refused, so every policy is stored
        assert sorted(rows["score_policy"]["commands"]) == sorted(commands)
    score_policies._CACHE.clear()
    with pytest.raises(TableError) as refused:
        score_policies.load_score_policy(vira, (10, 10), policy_copy)
    assert reason in str(refused.value)
    assert_hint_works(str(refused.value), command)


def test_checkpoints_must_be_a_folder(tmp_path):
    """`--checkpoints` names a folder, there or to be made: a file, or a path under a file,
    is refused in one line before anything runs; a folder not yet made is taken."""
    from lab.options import UsageError

    (tmp_path / "file").write_text("")
    for bad, why in ((tmp_path / "file", "exists and is not a folder"),
                     (tmp_path / "file" / "ck", "is not a folder"), ("", "an empty path")):
        with pytest.raises(UsageError, match=why):
            build_parser("rebuild").parse_args(["rebuild", "--checkpoints", str(bad)])
    args = build_parser("rebuild").parse_args(["rebuild", "--checkpoints",
                                               str(tmp_path / "new" / "ck")])
    assert args.checkpoints == str(tmp_path / "new" / "ck")
    out = lab("rebuild", "--plan", "--checkpoints", str(tmp_path / "file"))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"error: argument --checkpoints: {tmp_path / 'file'}: exists and "
                          "is not a folder\n")


@pytest.mark.parametrize("damage", [points_damage, aware_damage])
def test_the_command_a_stale_copy_names_stores_it_again(policy_copy, damage, monkeypatch,
                                                         tmp_path):
    """Vira 3 is stored as vira 2's: when its entry no longer names vira 2's file, the
    command its refusal names (`--same-as 3=2`, no solve needed) runs and leaves nothing
    due."""
    import shlex

    from lab.cli import main

    command = damage("a copy of a file stored again", policy_copy)[2]
    assert due_steps(policy_copy)
    monkeypatch.setenv("LAB_DATA_DIR", str(policy_copy))
    argv = shlex.split(command.replace("DIR", str(tmp_path / "ck")))[1:]
    assert main(argv) == 0
    assert due_steps(policy_copy) == []
