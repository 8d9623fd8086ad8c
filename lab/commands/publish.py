"""Write the dashboards as static HTML pages, with their widget state, into a folder.

Each notebook of ``notebooks/`` is executed headless (nbclient, kernel ``python3``) from
the solved tables in ``data/`` and exported with nbconvert's HTML exporter, sources
hidden as in Voila. The pages need no server: the widgets show the state they had
after the run (controls do not redraw without a kernel). Live widgets come from
``@jupyter-widgets/html-manager``, which the page loads from a CDN; under each dashboard
a plain-HTML snapshot of the same state (charts, tables, chosen values) is shown until
the live widgets appear, so a page read offline still shows its charts. The landing page
(``notebooks/index.ipynb``) becomes ``index.html``, its links pointing at the pages; when
it is not published, a plain ``index.html`` links the pages.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from ..errors import InputError
from ..store import check_writable, write_atomic
from ..options import bounded

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
"""The dashboards' folder (the repository's ``notebooks/``)."""

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

MAX_TIMEOUT = 86_400
"""The longest ``--timeout`` in seconds: a day per cell."""

LIVE_ONLY = "lab-live-only"
"""CSS class of dashboard parts that need a kernel (lab.widgets.LIVE_ONLY)."""


def add_arguments(parser) -> None:
    parser.add_argument("directory", metavar="DIR",
                        help="folder to write the pages into (created if its parent exists)")
    parser.add_argument("--only", metavar="NAME", action="append", default=None,
                        help="publish only this dashboard (e.g. equity_by_vira); repeatable")
    parser.add_argument("--timeout", type=bounded(1, MAX_TIMEOUT, " seconds"), default=300,
                        help="seconds a notebook cell may run (default 300, at most "
                             f"{MAX_TIMEOUT:,}: a day)")


def output_directory(text: str) -> Path:
    """The folder to write into (created, and proven writable, before any work);
    InputError when it cannot be one. Called after every other check, so that a refused
    command leaves no folder behind."""
    if not text.strip():
        raise InputError("DIR is empty: name the folder to write the pages into")
    path = Path(text)
    try:
        if path.exists() and not path.is_dir():
            raise InputError(f"{text}: exists and is not a folder")
        if not path.exists() and not path.parent.is_dir():
            raise InputError(f"{text}: its parent folder {path.parent} does not exist")
    except OSError as exc:
        raise InputError(f"{text}: cannot be a folder ({exc.strerror})") from None
    return check_writable(path, "DIR")


def chosen_notebooks(only) -> list[Path]:
    """The notebooks to publish: all of ``notebooks/``, or those named in ``only``."""
    available = {p.stem: p for p in sorted(NOTEBOOKS.glob("*.ipynb"))}
    if not only:
        return list(available.values())
    unknown = [name for name in only if Path(name).stem not in available]
    if unknown:
        raise InputError(f"{unknown[0]}: no such dashboard (dashboards are "
                         f"{', '.join(available)})")
    return [available[Path(name).stem] for name in only]


def execute(path: Path, timeout: int = 300):
    """The notebook at ``path`` run headless, widget state stored in its metadata."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name="python3", timeout=timeout,
                            resources={"metadata": {"path": str(path.parent)}},
                            store_widget_state=True)
    try:
        client.execute()
    except CellExecutionError as exc:
        last = str(exc).strip().splitlines()[-1] if str(exc).strip() else "a cell failed"
        raise InputError(f"{path.name}: {last}") from None
    return nb


def widget_snapshot(state: dict, model_id: str) -> str:
    """Plain HTML of the widget ``model_id`` and its children, from a notebook's widget
    state: images as data URLs, HTML as it is, controls as their chosen values."""
    model = state.get(model_id)
    if model is None:
        return ""
    name, values = model["model_name"], model["state"]
    if LIVE_ONLY in values.get("_dom_classes", ()):
        return ""
    if name in ("VBoxModel", "HBoxModel", "BoxModel"):
        style = "display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start" if name == \
            "HBoxModel" else ""
        inner = "".join(widget_snapshot(state, child.removeprefix("IPY_MODEL_"))
                        for child in values.get("children", []))
        return f'<div style="{style}">{inner}</div>'
    if name == "ImageModel":
        data = next((b["data"] for b in model.get("buffers", []) if b["path"] == ["value"]), "")
        width, kind = values.get("width") or "", values.get("format", "png")
        return (f'<img alt="chart" style="max-width:100%" width="{html.escape(width)}" '
                f'src="data:image/{kind};base64,{data}">')
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<div>{values.get('value', '')}</div>"
    if name == "LabelModel":
        return f"<span>{html.escape(values.get('value', ''))}</span>"
    labels = values.get("_options_labels")
    if labels is not None and values.get("index") is not None:
        described = html.escape(values.get("description") or "")
        chosen = html.escape(labels[values["index"]])
        return f"<span>{described + ': ' if described else ''}<b>{chosen}</b></span>"
    return ""


SNAPSHOT_SCRIPT = """<script>
(function () {  // hide the static snapshots once the live widgets have rendered
  var tries = 0, timer = setInterval(function () {
    if (document.querySelector('.jupyter-widgets.widget-image, .jupyter-widgets .widget-html')) {
      document.querySelectorAll('.lab-static-snapshot').forEach(function (e) { e.remove(); });
      clearInterval(timer);
    } else if (++tries > 60) { clearInterval(timer); }
  }, 500);
})();
</script>"""


def add_snapshots(nb) -> None:
    """After every widget output, add a plain-HTML snapshot of the widget's state."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        extra = []
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view:
                snapshot = widget_snapshot(state, view["model_id"])
                extra.append({"output_type": "display_data", "metadata": {}, "data": {
                    "text/html": f'<div class="lab-static-snapshot">{snapshot}</div>'}})
        if extra:
            import nbformat

            cell.outputs.extend(nbformat.from_dict(extra))


def to_html(nb) -> str:
    """A static HTML page of an executed notebook: outputs and widget state, no sources,
    with a plain-HTML snapshot under each widget for readers without the CDN."""
    from nbconvert import HTMLExporter

    add_snapshots(nb)

    exporter = HTMLExporter(template_name="lab", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True)
    body, _ = exporter.from_notebook_node(nb)
    return body.replace("</body>", SNAPSHOT_SCRIPT + "\n</body>", 1)


def index_html(pages: list[tuple[str, str]]) -> str:
    """A page linking the dashboards: (file name, first heading) pairs."""
    items = "\n".join(f'<li><a href="{html.escape(f)}">{html.escape(t)}</a></li>'
                      for f, t in pages)
    return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Truco lab dashboards"
            "</title></head>\n<body style='font-family:sans-serif;max-width:40em;margin:2em'>"
            f"<h1>Truco lab dashboards</h1>\n<ul>\n{items}\n</ul></body></html>\n")


def static_links(page: str) -> str:
    """``page`` with its links to other notebooks (``name.ipynb``) pointing at their
    published pages (``name.html``)."""
    return re.sub(r'href="(\w+)\.ipynb"', r'href="\1.html"', page)


def title_of(nb, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return fallback


def run(args) -> int:
    from tqdm import tqdm

    if args.timeout < 1:
        raise InputError(f"--timeout {args.timeout}: give at least 1 second per notebook")
    notebooks = chosen_notebooks(args.only)
    folder = Path(args.directory)
    try:
        existed = folder.exists()
    except OSError:  # a name too long, say: output_directory refuses it
        existed = True
    try:
        target = output_directory(args.directory)
        pages = []
        for path in tqdm(notebooks, desc="dashboards", unit="page", file=sys.stderr):
            nb = execute(path, args.timeout)
            page = target / f"{path.stem}.html"
            write_atomic(page, static_links(to_html(nb)))
            pages.append((page.name, title_of(nb, path.stem)))
            print(page)
        index = target / "index.html"
        if index.name not in [name for name, _ in pages]:
            write_atomic(index, index_html(pages))
            print(index)
    except BaseException:
        if not existed:
            remove_if_empty(folder)
        raise
    return 0


def remove_if_empty(folder: Path) -> None:
    """Remove ``folder`` when nothing was written into it (a command that stopped before
    its first page leaves nothing behind)."""
    try:
        folder.rmdir()  # refuses a folder that holds anything
    except OSError:
        pass
