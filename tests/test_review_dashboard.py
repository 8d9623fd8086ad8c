"""The review dashboard's data (``lab/dashboards/review.py``): the timeline and each hand's
decisions are lab.review's, hand by hand and in order; bad files and players are one line
on the page; the bundled example reads and grades. The example is vira 4 at normal scores
only (the advice walks each vira's solved game once per machine)."""

import html
import shutil
from types import SimpleNamespace

import pytest

from lab.advice import MATCH_WIN, POINTS
from lab.errors import InputError
from lab.match_record import read_records
from lab.match_review import Review, review, summary
from lab.dashboards import review as page
from lab.dashboards.review import (EXAMPLE, ReviewDashboard, decision_rows, decisions_html,
                                   history_files, loss_by_kind, loss_by_kind_figure,
                                   loss_number, timeline_rows, upload_records)


@pytest.fixture(scope="module")
def records():
    return read_records(EXAMPLE)


@pytest.fixture(scope="module")
def reviewed():
    """lab.review's own review of the example's first player."""
    return review(EXAMPLE, "cautious", progress=False)


@pytest.fixture(scope="module")
def graded(records):
    steps = []
    result = review(records, "cautious", False, lambda done, total: steps.append(
        (done, total)))
    return result, steps


def test_the_example_is_a_short_match_at_normal_scores_of_vira_4(records):
    assert 8 <= len(records) <= 12
    assert {r.vira.rank_char for r in records} == {"4"}
    assert all(max(r.score) < 9 for r in records)
    assert {frozenset(r.players) for r in records} == {frozenset({"cautious", "aggressive"})}


def test_grading_hand_by_hand_is_lab_review(graded, reviewed):
    """The page's grading (records read, a step after each hand) is lab.review's."""
    result, steps = graded
    assert steps == [(k, reviewed.hands) for k in range(1, reviewed.hands + 1)]
    assert result.player == reviewed.player and result.hands == reviewed.hands
    assert [(d.hand, d.token, d.loss, d.mark) for d in result.decisions] == \
        [(d.hand, d.token, d.loss, d.mark) for d in reviewed.decisions]
    assert result.skipped == reviewed.skipped


def test_grading_in_a_child_process_is_the_same_review_and_says_what_is_wrong(records,
                                                                             reviewed):
    """What a kernel runs: the grading in a child process, its steps relayed in order, its
    result and its errors handed back as if graded here."""
    from lab.dashboards.background import in_child

    steps = []
    both = in_child(page.graded_players, records, ["cautious", "aggressive"], "the example",
                    step=lambda done, total: steps.append((done, total)))
    assert steps == [(k, reviewed.hands) for k in range(1, reviewed.hands + 1)]
    assert set(both) == {"cautious", "aggressive"}
    assert both["aggressive"][0].player == "aggressive"
    result, profile, missing = both["cautious"]
    assert [(d.hand, d.token, d.loss, d.advice) for d in result.decisions] == \
        [(d.hand, d.token, d.loss, d.advice) for d in reviewed.decisions]
    assert missing is None and len(profile) > 0
    with pytest.raises(InputError, match="nobody"):
        in_child(page.graded_players, records, ["nobody", "cautious"], "the example")


def test_the_timeline_rows_are_lab_reviews_per_hand_sums(graded, reviewed, records):
    rows = timeline_rows(graded[0], records)
    assert rows["hand"].tolist() == list(range(1, len(records) + 1))   # he sits in every hand
    for row in rows.itertuples(index=False):
        mine = [d for d in reviewed.decisions if d.hand == row.hand]
        assert row.decisions == len(mine)
        assert row.loss == pytest.approx(sum(d.loss for d in mine), abs=1e-12)
        assert row.skipped == sum(s.hand == row.hand for s in reviewed.skipped)
        marks = {d.mark for d in mine}
        assert row.worst == (None if not mine else "blunder" if "blunder" in marks
                             else "mistake" if "mistake" in marks else "")
        record = records[row.hand - 1]
        assert (row.score_mao, row.score_pe) == record.score and row.vira == str(record.vira)
        seat = record.players.index("cautious")
        winner, points = record.result
        assert row.points == (points if winner == seat else -points)
    assert rows["loss"].sum() == pytest.approx(summary(reviewed)["loss_total"])
    assert (rows["worst"] == "mistake").sum() >= 1


def test_a_hands_decision_table_lists_lab_reviews_decisions_in_order(graded, reviewed,
                                                                      records):
    result = graded[0]
    for hand in range(1, len(records) + 1):
        mine = [d for d in reviewed.decisions if d.hand == hand]
        rows = decision_rows(result, hand)
        assert [(r["action"], r["kind"], r["loss"], r["mark"]) for r in rows] == \
            [(d.token, d.kind, d.loss, d.mark) for d in mine]
        for row, d in zip(rows, mine):
            moves = {m["token"]: m for m in row["moves"]}
            assert set(moves) == {str(a) for a in d.advice.legal}
            assert [m["token"] for m in row["moves"] if m["taken"]] == [d.token]
            assert sum(m["solver"] for m in row["moves"]) == pytest.approx(1.0, abs=1e-6)
            assert sum(m["solver"] * m["ev"] for m in row["moves"]) == pytest.approx(d.mix)
            assert row["position"].startswith(f"Vira {d.vira}")
        shown = decisions_html(result, records, hand)
        losses = [part.split("</span>")[0] for part in shown.split("class='lab-loss'>")[1:]]
        assert losses == [loss_number(d.loss, d.unit) for d in mine]
        skipped = [s for s in reviewed.skipped if s.hand == hand]
        assert shown.count("class='lab-skipped'") == len({s.reason for s in skipped})
        assert all(html.escape(s.token) in shown for s in skipped)


def test_the_dashboard_shows_the_example_then_another_player(tmp_path, reviewed):
    history = tmp_path / "history"
    history.mkdir()
    shutil.copy(EXAMPLE, history / "20250101-120000-seed1.jsonl")
    dashboard = ReviewDashboard(history=lambda: history)
    assert [label for label, _ in dashboard.file.options] == [
        page.EXAMPLE_LABEL, "history: 20250101-120000-seed1.jsonl"]
    assert list(dashboard.player.options) == ["cautious", "aggressive"]
    assert dashboard.message.value == ""
    text = dashboard.summary.value
    assert "lab-review-summary" in text and f"<b>{len(reviewed.decisions)}</b> decisions" in text
    assert "skipped" in text and "probability zero" in text     # the reasons, in words
    assert len(dashboard.chips.children) == reviewed.hands
    worst = max(reviewed.decisions, key=lambda d: d.loss)
    assert dashboard.chosen == worst.hand                       # opens on the costliest
    assert f"Hand {worst.hand}:" in dashboard.decisions.value
    dashboard.chips.children[0].click()
    assert dashboard.chosen == 1 and "Hand 1:" in dashboard.decisions.value
    assert "lab-chip-chosen" in dashboard.chips.children[0]._dom_classes
    for image in (dashboard.kind_image, dashboard.profile_image):
        assert image.value[:8] == b"\x89PNG\r\n\x1a\n" and image.layout.display == ""
    dashboard.player.value = "aggressive"
    assert "<b>aggressive</b>" in dashboard.summary.value
    dashboard.file.value = str(history / "20250101-120000-seed1.jsonl")   # read, reviewed once
    assert "20250101-120000-seed1.jsonl" in dashboard.summary.value


def test_bad_files_and_players_are_one_line_on_the_page(records):
    with pytest.raises(InputError, match=r"^bad\.jsonl:2: "):
        upload_records("bad.jsonl", EXAMPLE.read_bytes().split(b"\n")[0] + b"\n{\"format\": 1}\n")
    with pytest.raises(InputError, match="not a match record file"):
        upload_records("notes.txt", b"hello")
    dashboard = ReviewDashboard()
    assert not dashboard.add_upload("bad.jsonl", b"not json\n")
    error = dashboard.message.value
    assert "lab-review-error" in error and "bad.jsonl:1:" in error and "Traceback" not in error
    assert "\n" not in error
    assert dashboard.add_upload("mine.jsonl", EXAMPLE.read_bytes())     # a good one is shown
    assert dashboard.message.value == "" and dashboard.file.label == "uploaded: mine.jsonl"
    assert "the upload mine.jsonl" in dashboard.summary.value
    stranger = ReviewDashboard(source=EXAMPLE, player="nobody")
    error = html.unescape(stranger.message.value)
    assert "'nobody' does not play in" in error and "'cautious', 'aggressive'" in error
    assert stranger.results.layout.display == "none"
    other_rules = EXAMPLE.read_text().replace('"preset": "paulista"', '"preset": "fpt"')
    assert dashboard.add_upload("fpt.jsonl", other_rules.encode())     # read, not graded
    assert "hand 1 (match 'sample', hand 1) was played under the fpt rules" in \
        html.unescape(dashboard.message.value)


def test_history_files_newest_first_and_none_without_a_folder(tmp_path):
    import os

    assert history_files(None) == [] and history_files(tmp_path / "missing") == []
    for k, name in enumerate(["b.jsonl", "a.jsonl"]):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1000 + k, 1000 + k))
    (tmp_path / "notes.txt").write_text("")
    assert [p.name for p in history_files(lambda: tmp_path)] == ["a.jsonl", "b.jsonl"]

    def no_home():
        raise OSError(0, "no home folder")

    assert history_files(no_home) == []


def test_the_loss_chart_keeps_the_two_units_apart():
    def d(kind, loss, unit):
        return SimpleNamespace(kind=kind, loss=loss, unit=unit)

    result = Review("ann", 3, [d("lead", 0.2, POINTS), d("lead", 0.1, POINTS),
                               d("answer_truco", 0.03, MATCH_WIN), d("open_truco", 0.0, POINTS)])
    table = loss_by_kind(result)
    assert table.to_dict("records") == [
        {"unit": POINTS, "kind": "open_truco", "decisions": 1, "loss": 0.0},
        {"unit": POINTS, "kind": "lead", "decisions": 2, "loss": pytest.approx(0.3)},
        {"unit": MATCH_WIN, "kind": "answer_truco", "decisions": 1, "loss": 0.03}]
    figure = loss_by_kind_figure(result)
    labels = [ax.get_xlabel() for ax in figure.axes]
    assert labels == [f"loss against the solver, summed ({POINTS})",
                      f"loss against the solver, summed ({MATCH_WIN})"]
    assert loss_by_kind_figure(Review("ann", 0)) is None
