"""Imports run one way: cards -> rules -> classes -> solvers/simulator -> match -> tables ->
analysis -> charts/dashboards -> commands and the public API, with no import circle.
The solved strategies are read through :mod:`lab.policy`, which sits above the solvers:
the dashboards and the bots never import the solver package.

The graph is read from the source (every ``import``, at module level or inside a
function), so a lazy import against the direction counts as much as an eager one.
"""

import ast
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parent.parent / "lab"

LAYERS = (
    ("utilities", ("lab.errors", "lab.options", "lab.store", "lab.cluster", "lab.numba_cache",
                   "lab.interrupts")),
    ("cards", ("lab.cards", "lab.situations")),
    ("rules", ("lab.rules", "lab.match_record")),
    ("classes", ("lab.classes",)),
    ("solvers", ("lab.solver", "lab.baseline_cfr")),
    ("policy readers and simulator", ("lab.policy", "lab.sim")),
    ("match", ("lab.match",)),
    ("tables", ("lab.tables",)),
    ("analysis", ("lab.advice", "lab.advice_text", "lab.hand_summary", "lab.ranking",
                  "lab.match_review", "lab.player_profile", "lab.strategy_report",
                  "lab.exploit", "lab.exploiter", "lab.exploit_report")),
    ("charts and dashboards", ("lab.charts", "lab.widgets", "lab.dashboards")),
    ("commands and the public API", ("lab.cli", "lab.commands", "lab.bench", "lab.api",
                                     "lab.__main__", "lab")),
)
"""Each module's layer, lowest first: a module may import its own layer and those below."""

def module_name(path: Path) -> str:
    parts = list(path.relative_to(LAB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in LAB.rglob("*.py") if "__pycache__" not in p.parts}


def imports_of(name: str) -> set[str]:
    """The lab modules ``name`` imports (a name imported from a package is the submodule
    when there is one of that name)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "lab" or target.startswith("lab."):
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    out.add(full if full in MODULES else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "lab")
    out.discard(name)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> int:
    """Index in LAYERS of the most specific prefix that names ``name``."""
    best, depth = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and prefix.count(".") > depth:
                best, depth = index, prefix.count(".")
    assert best is not None, f"{name} has no layer: add it to LAYERS"
    return best


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_run_one_way(name):
    mine = layer_of(name)
    upward = [f"{target} ({LAYERS[layer_of(target)][0]})" for target in sorted(GRAPH[name])
              if layer_of(target) > mine]
    assert not upward, f"{name} ({LAYERS[mine][0]}) imports against the direction: {upward}"


def test_dashboards_and_bots_read_policies_never_the_solver():
    """The charts and dashboards read solved strategies through :mod:`lab.policy` and the
    tables layer (never the solver package or the simulator); the bots of :mod:`lab.sim`
    take policies (never the solver package)."""
    views = [n for n in MODULES if LAYERS[layer_of(n)][0] == "charts and dashboards"]
    bots = [n for n in MODULES if n == "lab.sim" or n.startswith("lab.sim.")]
    assert "lab.dashboards.hand_play" in views and "lab.sim.solver_bot" in bots
    for name in views + bots:
        forbidden = ("lab.solver", "lab.sim") if name in views else ("lab.solver",)
        solving = [t for t in GRAPH[name]
                   if any(t == f or t.startswith(f + ".") for f in forbidden)]
        assert not solving, f"{name} imports {solving}: read a policy (lab.policy) instead"


def test_no_import_circle():
    """Depth-first search for a back edge; a package importing its own submodules is the
    one kind of cycle Python resolves, and there is none here either."""
    state, stack = {}, []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for target in sorted(GRAPH[name]):
            if state.get(target) == "open":
                circle = stack[stack.index(target):] + [target]
                pytest.fail("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        stack.pop()
        state[name] = "done"

    for name in sorted(MODULES):
        if name not in state:
            visit(name)


def test_every_import_names_a_lab_module():
    """A relative import that points nowhere (``from .tables`` inside a subpackage) fails
    only when its line runs: here it fails at once."""
    broken = sorted(f"{name} -> {target}" for name, targets in GRAPH.items()
                    for target in targets if target not in MODULES)
    assert not broken, broken


def test_the_graph_is_read():
    """The reader finds known edges (so the tests above cannot pass on an empty graph)."""
    assert "lab.cards" in GRAPH["lab.rules"]
    assert "lab.tables.manifests" in GRAPH["lab.tables.cardplay"]
    assert "lab.solver.games.cardplay" in GRAPH["lab.tables.cardplay"]  # a lazy import counts
    assert "lab.policy.full" in GRAPH["lab.dashboards.hand_play"]
    assert len(MODULES) > 60


def test_reading_policies_imports_no_pandas():
    """A process that only reads the stored policies (the solver bot, ``lab advise``)
    keeps pandas and pyarrow out (about 35 MB of its own memory): the tables package
    imports a submodule when one of its names is first used, and the manifests import
    pandas only where a frame is read or written."""
    import subprocess
    import sys

    code = ("import sys\n"
            "import lab.tables.policies, lab.tables.score_policies, lab.policy.full\n"
            "import lab.sim.solver_bot, lab.advice\n"
            "from lab.tables import data_dir, code_hash\n"
            "print(sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=LAB.parent, check=True).stdout
    assert out.strip() == "[]"
