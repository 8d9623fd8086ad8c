"""The strategy report: how often the solved points play calls, runs and raises, per vira.

Every number is exact: a sum over the stored points policy
(:func:`lab.tables.policies.load_full_policy`) of the probability of each line, the deal
(card removal exact) times both seats' reach under the policy; nothing is sampled.

A hand has at most one truco (the first raise, to 3 points). The report follows every
hand up to its truco: each card node of the hand while it is still worth 1 point, the
truco called there and the answers that follow it at once (accept, run, or a re-raise to
6, answered in turn). The measures (``measure``; ``seat`` 0 the mão, 1 the pé; ``round``
1 to 3, 0 for the hand whatever the round; ``bucket`` the strength of the seat's hand as
dealt, :func:`lab.player_profile.class_bucket`, or ``all``):

``opens_truco``
    The probability per hand dealt that the hand's truco is called by ``seat`` in
    ``round``.
``runs_from_truco``
    The probability that ``seat`` runs from the other seat's truco called in ``round``
    (given that truco).
``truco_share``
    Of ``seat``'s trucos, the share called with a hand of ``bucket`` (the three buckets
    sum to 1): how much of his truco is bluff (``weak``).
``truco_rate``
    The probability that ``seat``, dealt a hand of ``bucket``, calls the hand's truco.
``raise_to_6``
    The probability that ``seat``, facing the other seat's truco in ``round``, re-raises
    to 6 (seis).
``raise_to_9``
    The probability that ``seat``, facing a seis made as a re-raise of his own truco,
    re-raises to 9 (nove).
``raise_to_12``
    The probability that ``seat``, facing a nove made as a re-raise of his own seis,
    re-raises to 12 (doze).

A seis or a nove called later in the hand, after the truco was accepted and more cards
were played, is not in ``raise_to_9`` / ``raise_to_12``. Each row also gives ``base``: the
probability per hand dealt of the situation a rate is taken in (1 for ``opens_truco``), so
that rates add up over viras: the report over all viras (each vira equally likely) is
``sum(value x base) / sum(base)`` of the viras' rows.

Working a vira out takes about 8 s (:func:`vira_report`), so the viras' rows are stored
in the ``strategy_report`` table (:func:`write_report`, ``lab report --write``) and the
report is read from it (:func:`strategy_report`, instant); the table is stale once a
vira's stored points policy changes (its manifest names the policy each vira was summed
over).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from .cards import RANKS
from .classes import vira_rank_of
from .errors import InputError
from .player_profile import BUCKETS, class_bucket

MEASURES = ("opens_truco", "runs_from_truco", "truco_share", "truco_rate", "raise_to_6",
            "raise_to_9", "raise_to_12")
"""The report's measures, in the order it lists them (module docstring)."""

MEASURE_WORDS = {
    "opens_truco": "calls the hand's truco",
    "runs_from_truco": "runs from the other side's truco",
    "truco_share": "makes this share of his trucos with",
    "truco_rate": "calls the truco when dealt this hand strength",
    "raise_to_6": "re-raises a truco to 6 (seis)",
    "raise_to_9": "re-raises a seis to 9 (nove)",
    "raise_to_12": "re-raises a nove to 12 (doze)",
}
"""Each measure in a player's words (the seat is the subject)."""

SEAT_NAMES = ("mão", "pé")
TABLE_SEATS = ("mao", "pe")
"""The seats as the tables write them (``SEAT_NAMES`` in the report's rows)."""
TABLE = "strategy_report"
"""The stored table of the viras' rows."""
ALL = "all"
ALL_VIRAS = "all"
COLUMNS = ("vira", "measure", "round", "seat", "bucket", "value", "base")
ROUNDS = (1, 2, 3)

END_KIND = 2          # a card node where the cards decided the hand
ANSWER_CODE = 32      # merged key codes: T nodes 4 * value + exit state, answers 32 + ...


# ------------------------------------------------------------------ the walk


def _key_slots(policy, nodes: np.ndarray, gids: np.ndarray) -> np.ndarray:
    """First stored slot of the key of template node ``gids[k]`` at card node
    ``nodes[k]`` on the line without a raise."""
    tm, keys = policy.templates, policy.keys
    if not keys.merge:
        from .policy.full import Spot

        return np.array([policy.key_slot(Spot(int(c), 0, int(g)))
                         for c, g in zip(nodes, gids)], dtype=np.int64)
    code = np.where(tm.kind[gids] == 0, 4 * tm.value[gids] + tm.exit_state[gids] % 3,
                    ANSWER_CODE + 4 * tm.value[gids] + tm.raiser[gids]).astype(np.int64)
    owner = np.repeat(np.arange(len(keys.start) - 1), np.diff(keys.start))
    flat = owner * 64 + keys.code
    found = np.searchsorted(flat, nodes * 64 + code)
    if np.any(found >= len(flat)) or np.any(flat[np.minimum(found, len(flat) - 1)]
                                             != nodes * 64 + code):
        raise InputError("the policy does not store the line without a raise")
    return keys.slot[found].astype(np.int64)


def _segments(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[k] .. starts[k] + counts[k] - 1`` of every k, concatenated."""
    total = int(counts.sum())
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return np.arange(total, dtype=np.int64) + offsets


def _facing(weights, hands, mine_start, mine_n, theirs_start, theirs_n, theirs_reach,
            chunk: int = 4_000_000) -> np.ndarray:
    """For every private state i of the seat whose states are ``mine_start[k] ..`` at
    node k: sum_j W[hand_i, hand_j] x reach_j over the other seat's states j there (the
    probability of the deals and opponent's play that meet state i). One entry per
    state, in the order of the nodes."""
    out = np.zeros(int(mine_n.sum()))
    cells = mine_n * theirs_n
    first_out = np.concatenate([[0], np.cumsum(mine_n)[:-1]])
    lo = 0
    while lo < len(cells):
        hi = lo + max(1, int(np.searchsorted(np.cumsum(cells[lo:]), chunk)))
        sel = slice(lo, hi)
        n_cells = cells[sel]
        node = np.repeat(np.arange(hi - lo), n_cells)
        k = np.arange(int(n_cells.sum())) - np.repeat(
            np.concatenate([[0], np.cumsum(n_cells)[:-1]]), n_cells)
        other = theirs_n[sel][node]
        i = mine_start[sel][node] + k // other
        j = theirs_start[sel][node] + k % other
        contrib = weights[hands[i], hands[j]] * theirs_reach[j]
        target = first_out[sel][node] + k // other
        out += np.bincount(target, contrib, minlength=len(out))
        lo = hi
    return out


def _re_raise_answer(policy, nodes, actor, answered, had, n_answer):
    """The answer to the re-raise of the answer at template nodes ``answered`` (one per card
    node; only where ``had``): which nodes have that re-raise, its template nodes, and
    ``[state, (accept, run, raise)]`` of the ``n_answer[k]`` answering states of every
    node (all zero where there is none)."""
    tm = policy.templates
    has = had & (tm.child_b[answered] >= 0)
    gids = np.where(has, tm.start[actor, 0] + tm.child_b[answered], 0).astype(np.int64)
    slots = _key_slots(policy, nodes[has], gids[has])
    widths = np.where(tm.child_b[gids[has]] >= 0, 3, 2)
    answers = np.zeros((int(n_answer.sum()), 3))
    answers[np.repeat(has, n_answer)] = _answers(policy.q, slots, n_answer[has], widths)
    return has, gids, answers


def _answers(q, slots, n_answer, widths):
    """The answer strategy ``[state, (accept, run, raise)]`` of every answering state:
    node k's states read ``widths[k]`` actions from ``slots[k]`` each (raise 0 where the
    answer has none); a state the policy does not hold answers nothing (all zero)."""
    n_answer = np.asarray(n_answer, dtype=np.int64)
    node = np.repeat(np.arange(len(n_answer)), n_answer)
    local = np.arange(int(n_answer.sum())) - np.repeat(
        np.concatenate([[0], np.cumsum(n_answer)[:-1]]), n_answer).astype(np.int64)
    width = np.asarray(widths, dtype=np.int64)[node]
    first = np.asarray(slots, dtype=np.int64)[node] + local * width
    block = np.zeros((len(node), 3))
    for col in range(3):
        has = col < width
        block[has, col] = q[first[has] + col]
    total = block.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, block / np.where(total > 0, total, 1.0), 0.0)


def truco_walk(policy) -> dict:
    """Every card node of the line without a raise, with the probabilities the report
    sums (all per hand dealt): ``node``, ``round``, ``seat`` (the player to act), and per
    private state of the player to act (``caller``, its dealt class ``caller_class``):
    ``truco`` (dealt and played to here, x his truco there); per state of the other seat
    (``answerer``): ``facing`` (facing that truco),
    ``run`` and ``seis`` (his answers); then ``facing_seis`` / ``nove`` per caller state
    and ``facing_nove`` / ``doze`` per answerer state (the answers that follow at once).
    """
    t, tm, q = policy.tree, policy.templates, policy.q
    W = np.asarray(policy.cards.deal_weights(), dtype=np.float64)   # [mão class, pé class]
    nodes = np.flatnonzero(t.kind != END_KIND).astype(np.int64)
    actor = t.actor[nodes].astype(np.int64)
    n = t.n.astype(np.int64)
    start = t.pair_start.astype(np.int64)
    seat_start = np.stack([start, start + n[:, 0]], axis=1)      # [node, seat]
    hands = t.pair_hand.astype(np.int64)

    # own reach of every state on the line without a raise, node by node (breadth first)
    reach = np.zeros(t.n_pairs)
    root_pairs = slice(0, int(n[0].sum()))
    reach[root_pairs] = 1.0
    g0 = tm.start[actor, 0].astype(np.int64)
    slot_t = _key_slots(policy, nodes, g0)
    can_raise = tm.child_a[g0] >= 0
    E = t.n_edges[nodes].astype(np.int64)
    na = n[nodes, actor]
    a_start = seat_start[nodes, actor]
    # every actor state's edge weights and truco weight at its node
    pair_ix = _segments(a_start, na)
    node_of_pair = np.repeat(np.arange(len(nodes)), na)
    es = t.pair_edge_start[pair_ix].astype(np.int64)
    ec = t.pair_edge_count[pair_ix].astype(np.int64)
    edge_ix = _segments(slot_t[node_of_pair] + es, ec)
    edge_owner = np.repeat(np.arange(len(pair_ix)), ec)
    edge_sum = np.bincount(edge_owner, q[edge_ix].astype(np.float64), minlength=len(pair_ix))
    local = pair_ix - a_start[node_of_pair]
    raise_w = np.where(can_raise[node_of_pair],
                       q[np.where(can_raise[node_of_pair],
                                  slot_t[node_of_pair] + E[node_of_pair] + local, 0)]
                       .astype(np.float64), 0.0)
    total = edge_sum + raise_w
    forced = ~(can_raise | (E > na))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_truco = np.where(total > 0, raise_w / np.where(total > 0, total, 1.0), 0.0)
    # the probability of each card edge, by (node index, local edge)
    edge_p = np.zeros(t.n_pairs)   # per actor state: 1 / its total (0 where none)
    inv_total = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), 0.0)
    edge_p[pair_ix] = inv_total
    index_of = np.full(t.n_nodes, -1, dtype=np.int64)
    index_of[nodes] = np.arange(len(nodes))

    parent = np.full(t.n_nodes, -1, dtype=np.int64)
    count = t.child_count[nodes].astype(np.int64)
    parent[_segments(t.child_start[nodes].astype(np.int64), count)] = np.repeat(nodes, count)
    children = np.flatnonzero(parent >= 0)
    depth = t.depth.astype(np.int64)
    for d in range(1, int(depth.max()) + 1):
        level = children[depth[children] == d]
        for seat in (0, 1):
            ch_ix = _segments(seat_start[level, seat], n[level, seat])
            par = np.repeat(parent[level], n[level, seat])
            gp = seat_start[par, seat] + t.pair_parent[ch_ix].astype(np.int64)
            moved = t.actor[par].astype(np.int64) == seat
            k = index_of[par]
            e = t.pair_edge[ch_ix].astype(np.int64)
            w = np.ones(len(ch_ix))
            live = moved & ~forced[k]
            w[live] = q[slot_t[k[live]] + e[live]] * edge_p[gp[live]]
            reach[ch_ix] = reach[gp] * w

    # the truco at each node: who may be dealt what, and what he calls
    other = 1 - actor
    no = n[nodes, other]
    o_start = seat_start[nodes, other]
    W_of = [W, W.T]

    def facing(seat_rows, mine_start, mine_n, theirs_start, theirs_n, theirs_reach):
        out = np.zeros(int(mine_n.sum()))
        first = np.concatenate([[0], np.cumsum(mine_n)[:-1]])
        for s in (0, 1):
            sel = seat_rows == s
            if not sel.any():
                continue
            part = _facing(W_of[s], hands, mine_start[sel], mine_n[sel], theirs_start[sel],
                           theirs_n[sel], theirs_reach)
            out[_segments(first[sel], mine_n[sel])] = part
        return out

    caller_reach = reach[pair_ix] * facing(actor, a_start, na, o_start, no, reach)
    truco = caller_reach * p_truco
    after_truco = reach.copy()
    after_truco[pair_ix] = reach[pair_ix] * p_truco

    # the answer to the truco, at once
    has = can_raise
    g1 = tm.start[actor, 0] + tm.child_a[g0]
    g1 = np.where(has, g1, 0).astype(np.int64)
    slot_a3 = np.zeros(len(nodes), dtype=np.int64)
    slot_a3[has] = _key_slots(policy, nodes[has], g1[has])
    width3 = np.where(has & (tm.child_b[g1] >= 0), 3, 2)
    ans_ix = _segments(o_start, no)
    node_of_ans = np.repeat(np.arange(len(nodes)), no)
    a3 = _answers(q, slot_a3, np.where(has, no, 0), np.where(has, width3, 2))
    a3_full = np.zeros((len(ans_ix), 3))
    a3_full[np.repeat(has, no)] = a3
    facing_truco = reach[ans_ix] * facing(other, o_start, no, a_start, na, after_truco)
    after_seis = after_truco.copy()
    after_seis[ans_ix] = reach[ans_ix] * a3_full[:, 2]

    # the caller answers a seis, at once
    has6, g2, a6_full = _re_raise_answer(policy, nodes, actor, g1, has, na)
    facing_seis = after_truco[pair_ix] * facing(actor, a_start, na, o_start, no, after_seis)
    facing_seis = np.where(np.repeat(has6, na), facing_seis, 0.0)
    after_nove = after_seis.copy()
    after_nove[pair_ix] = after_truco[pair_ix] * a6_full[:, 2]

    # the answerer answers a nove, at once
    has9, _, a9_full = _re_raise_answer(policy, nodes, actor, g2, has6, no)
    facing_nove = after_seis[ans_ix] * facing(other, o_start, no, a_start, na, after_nove)
    facing_nove = np.where(np.repeat(has9, no), facing_nove, 0.0)

    rnd = depth[nodes] // 2 + 1
    return {
        "round": rnd, "seat": actor,
        "caller_node": node_of_pair, "caller_class": hands[pair_ix],
        "truco": truco, "facing_seis": facing_seis, "nove": facing_seis * a6_full[:, 2],
        "answerer_node": node_of_ans,
        "facing": facing_truco, "run": facing_truco * a3_full[:, 1],
        "seis": facing_truco * a3_full[:, 2], "facing_nove": facing_nove,
        "doze": facing_nove * a9_full[:, 2],
    }


# ------------------------------------------------------------------ the report


def _buckets(policy, seat: int) -> np.ndarray:
    """The strength bucket of every hand class dealt to ``seat`` (``all`` for a reduced
    deck, which has no card-play table to rank its hands by)."""
    labels = policy.cards.labels
    if policy.config.vira is None:
        return np.array([ALL] * len(labels), dtype=object)
    rank = RANKS[vira_rank_of(policy.config.vira)]
    return np.array([class_bucket(rank, seat, label) for label in labels], dtype=object)


def report_of_policy(policy, vira: str | None = None) -> pd.DataFrame:
    """The report's rows (module docstring) of one full-game points ``policy``:
    ``vira`` (``vira`` or the policy's), ``measure``, ``round``, ``seat`` (``mão`` /
    ``pé``), ``bucket``, ``value`` (a probability) and ``base`` (the probability per
    hand dealt of the situation ``value`` is taken in)."""
    walk = truco_walk(policy)
    name = vira or policy.config.vira or "toy"
    rows = []

    def add(measure, rnd, seat, bucket, num, base):
        value = num / base if base > 0 else float("nan")
        rows.append((name, measure, int(rnd), SEAT_NAMES[seat], bucket, float(value),
                     float(base)))

    caller_seat = walk["seat"][walk["caller_node"]]
    caller_round = walk["round"][walk["caller_node"]]
    ans_seat = 1 - walk["seat"][walk["answerer_node"]]
    ans_round = walk["round"][walk["answerer_node"]]
    for seat in (0, 1):
        mine = caller_seat == seat
        theirs = ans_seat == seat
        for rnd in (0,) + ROUNDS:
            at = mine & ((caller_round == rnd) | (rnd == 0))
            add("opens_truco", rnd, seat, ALL, walk["truco"][at].sum(), 1.0)
        for rnd in (0,) + ROUNDS:      # his answers to a truco, in the round it came
            at = theirs & ((ans_round == rnd) | (rnd == 0))
            facing = walk["facing"][at].sum()
            add("runs_from_truco", rnd, seat, ALL, walk["run"][at].sum(), facing)
            add("raise_to_6", rnd, seat, ALL, walk["seis"][at].sum(), facing)
        buckets = _buckets(policy, seat)
        dealt = np.asarray(policy.solver_weights(seat)).sum(axis=1)
        calls = walk["truco"][mine]
        called_with = buckets[walk["caller_class"][mine]]
        for bucket in (BUCKETS if policy.config.vira is not None else ()) + (ALL,):
            with_bucket = called_with == bucket if bucket != ALL else np.ones(len(calls), bool)
            share = calls[with_bucket].sum()
            if bucket != ALL:
                add("truco_share", 0, seat, bucket, share, calls.sum())
            held = dealt[buckets == bucket].sum() if bucket != ALL else dealt.sum()
            add("truco_rate", 0, seat, bucket, share, held)
        add("raise_to_9", 0, seat, ALL, walk["nove"][mine].sum(),
            walk["facing_seis"][mine].sum())
        add("raise_to_12", 0, seat, ALL, walk["doze"][theirs].sum(),
            walk["facing_nove"][theirs].sum())
    return in_report_order(pd.DataFrame(rows, columns=list(COLUMNS)))


def in_report_order(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a report by vira (rank order), then measure (:data:`MEASURES` order),
    seat, round and bucket."""
    keys = pd.DataFrame({"v": frame["vira"].map(lambda v: RANKS.index(v) if v in RANKS
                                                else len(RANKS)),
                         "m": frame["measure"].map({m: k for k, m in enumerate(MEASURES)}),
                         "s": frame["seat"], "r": frame["round"], "b": frame["bucket"]})
    at = keys.sort_values(["v", "m", "s", "r", "b"], kind="stable").index
    return frame.loc[at].reset_index(drop=True)


def viras() -> list[str]:
    """The viras with a stored points policy, in the deck's order."""
    from .tables.policies import stored_viras

    return list(stored_viras())


def check_vira(vira) -> str:
    """``vira`` as its rank character (InputError naming the viras otherwise)."""
    known = viras()
    try:
        rank = RANKS[vira_rank_of(str(vira).strip())]
    except (InputError, KeyError, ValueError, IndexError, TypeError):
        rank = None
    if rank not in known:
        raise InputError(f"vira {vira!r}: choose one of {', '.join(known)} (or all)")
    return rank


def vira_report(vira: str) -> pd.DataFrame:
    """The report of ``vira`` worked out from its stored points policy (about 8 s a vira
    on one core), kept in memory and in the disk cache under the hash of the policy's
    file, so a new policy is reported afresh. The pages and ``lab report`` read the stored
    table instead (:func:`strategy_report`)."""
    from .tables.policies import policy_info

    rank = check_vira(vira)
    return _policy_report(rank, policy_info(rank).get("sha256", "unhashed"))


@lru_cache(maxsize=16)
def _policy_report(rank: str, sha: str) -> pd.DataFrame:
    """:func:`vira_report` of the vira ``rank`` whose stored policy has content hash
    ``sha``."""
    from .solver.cache import disk_cached
    from .tables.policies import load_full_policy

    return disk_cached(f"strategy_report-{rank}-{sha}",
                       lambda: report_of_policy(load_full_policy(rank), rank),
                       ("strategy_report.py", "player_profile.py"))


def combine(frames) -> pd.DataFrame:
    """The report over several viras, each equally likely: every rate is
    ``sum(value x base) / sum(base)``, every ``base`` the mean of the viras'."""
    frames = list(frames)
    both = pd.concat(frames, ignore_index=True)
    both["_num"] = both["value"].fillna(0.0) * both["base"]
    keys = ["measure", "round", "seat", "bucket"]
    summed = both.groupby(keys, sort=False, as_index=False)[["_num", "base"]].sum()
    summed["value"] = np.where(summed["base"] > 0, summed["_num"] / summed["base"]
                               .where(summed["base"] > 0, 1.0), np.nan)
    summed["base"] = summed["base"] / len(frames)
    summed["vira"] = ALL_VIRAS
    return summed[list(COLUMNS)].reset_index(drop=True)


# ------------------------------------------------------------------ the stored table


def stored_report(vira=ALL_VIRAS, directory=None) -> pd.DataFrame:
    """The rows of ``vira`` (its rank, ``"4"``), or of all ten viras (``"all"``, one frame
    of every vira's rows), as the ``strategy_report`` table stores them: COLUMNS, the seats
    as ``SEAT_NAMES``. TableError (one line naming ``lab report --write``) when the table
    is missing, stale or corrupt, lacks the vira, or a vira's rows were summed over another
    points policy than the one stored now."""
    from .tables import TableError, load_table, read_manifest, spec_of
    from .tables.policies import policy_info, read_policy_manifest

    asked = None if str(vira).strip().lower() == ALL_VIRAS else [check_vira(vira)]
    rows = load_table(TABLE, viras=asked, directory=directory)
    summed = read_manifest(TABLE, directory)["viras"]
    policies = read_policy_manifest(directory)
    for v in asked or RANKS:
        if summed[v].get("policy_sha256") != policy_info(v, manifest=policies).get("sha256"):
            raise TableError(f"table {TABLE!r} is stale: vira {v} was summed over another "
                             f"points policy than the one stored now; rebuild it with "
                             f"`{spec_of(TABLE).rebuild}`")
    rows["seat"] = rows["seat"].map(dict(zip(TABLE_SEATS, SEAT_NAMES)))
    return in_report_order(rows)


def write_report(ranks=None, progress=None) -> pd.DataFrame:
    """Work out the report of the viras ``ranks`` (default: every vira with a stored points
    policy) from the data folder's policies and write their rows into the ``strategy_report`` table, keeping the rows of other
    viras there; per vira the manifest records the policy summed over (its content hash,
    iterations and exploitability in points per hand). ``progress``: a tqdm bar on stderr
    (None: when stderr is a terminal). Returns the rows written now."""
    import sys
    import time

    from tqdm import tqdm

    from .tables import check_data_writable, spec_of, write_merged
    from .tables.policies import policy_info

    check_data_writable()
    ranks = list(dict.fromkeys(check_vira(v) for v in (ranks or viras())))
    frames, per_vira = [], {}
    start = time.perf_counter()
    with tqdm(ranks, desc="strategy report", unit="vira", file=sys.stderr, leave=False,
              disable=None if progress is None else not progress) as bar:
        for rank in bar:
            bar.set_postfix_str(f"vira {rank}")
            frames.append(vira_report(rank))
            info = policy_info(rank)
            per_vira[rank] = {"iterations": int(info["iterations"]),
                              "exploitability": float(info["exploitability"]),
                              "policy_sha256": info.get("sha256"),
                              "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    rows = pd.concat(frames, ignore_index=True)
    stored = rows.assign(seat=rows["seat"].map(dict(zip(SEAT_NAMES, TABLE_SEATS))))
    write_merged({TABLE: stored}, spec_of(TABLE).settings, per_vira,
                 build_seconds=time.perf_counter() - start)
    return rows


def strategy_report(vira=ALL_VIRAS) -> pd.DataFrame:
    """The report of one vira (its rank, ``"4"``), or of all viras (``"all"``): one row
    per (measure, round, seat, bucket), see the module docstring; read from the stored
    table (:func:`stored_report`, TableError when it cannot serve)."""
    if str(vira).strip().lower() == ALL_VIRAS:
        rows = stored_report(ALL_VIRAS)
        return combine(group for _, group in rows.groupby("vira", sort=False))
    return stored_report(vira)


# ------------------------------------------------------------------ forms


def percent(value: float) -> str:
    """A probability as a percentage for reading: ``37.4%``, ``<0.1%``, ``—`` (none)."""
    if value is None or not np.isfinite(value):
        return "—"
    if 0 < value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%"


def row_label(row) -> str:
    """A report row in words: ``the pé runs from the other side's truco, round 2``."""
    who = f"the {row['seat']}"
    if row["measure"] == "truco_share":
        return f"{who} {MEASURE_WORDS['truco_share']} {row['bucket']} hands"
    bucket = "" if row["bucket"] == ALL else f", {row['bucket']} hands"
    rnd = f", round {int(row['round'])}" if int(row["round"]) else ""
    return f"{who} {MEASURE_WORDS[row['measure']]}{bucket}{rnd}"


def report_text(frame: pd.DataFrame) -> str:
    """The report as lines of text, one measure after another: each row's words, its
    value and how often its situation arises (per hand dealt)."""
    lines = []
    vira = frame["vira"].iloc[0] if len(frame) else ""
    lines.append("Strategy report of the solved points play, "
                 + ("all viras (each equally likely)" if vira == ALL_VIRAS else f"vira {vira}"))
    for measure in MEASURES:
        rows = frame[frame["measure"] == measure]
        if rows.empty:
            continue
        lines.append("")
        lines.append(f"{measure}: {MEASURE_WORDS[measure]}")
        for _, row in rows.iterrows():
            base = "" if measure == "opens_truco" else f"  (in {percent(row['base'])} of hands)"
            lines.append(f"  {row_label(row):<72} {percent(row['value']):>7}{base}")
    return "\n".join(lines)


def to_csv(frame: pd.DataFrame) -> str:
    """The report as CSV text (UTF-8, a header line, a missing rate as an empty field)."""
    return frame.to_csv(index=False, float_format="%.10g")


def read_csv(text: str) -> pd.DataFrame:
    """A report read back from :func:`to_csv`'s text."""
    import io

    frame = pd.read_csv(io.StringIO(text), dtype={"vira": str, "measure": str, "seat": str,
                                                  "bucket": str})
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"not a strategy report: no column {', '.join(missing)}")
    return frame[list(COLUMNS)]
