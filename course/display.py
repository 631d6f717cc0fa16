"""Showing figures, code regions and tables the same way in JupyterLab and in the static site.

The book is built with COURSE_STATIC=1 (see the Makefile): then every figure becomes a small
HTML block drawn by the site's own plotly.js (loaded once per page by course.sphinx_ext, no CDN),
so it stays interactive with no kernel. In JupyterLab the same call shows the live plotly figure
and, where a simulator has one, the ipywidgets view.
"""
from __future__ import annotations

import html
import json
import os
import uuid

STATIC_ENV = "COURSE_STATIC"


def static_mode() -> bool:
    """True while the book is being built into the static HTML site."""
    return os.environ.get(STATIC_ENV) == "1"


class StaticHTML:
    """An HTML fragment for the static site; plain text elsewhere."""

    def __init__(self, markup: str, text: str = ""):
        self.markup = markup
        self.text = text

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return self.text or "<HTML fragment>"


def _safe_json(obj) -> str:
    """JSON that can sit inside a <script> element without ending it early."""
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def figure_html(fig, height: int | None = None) -> str:
    """A div plus the figure as JSON; course/static/figures.js draws it with the site's plotly.js."""
    spec = fig.to_plotly_json()
    _trim_template(spec)
    div_id = "fig-" + uuid.uuid4().hex[:12]
    h = height or spec.get("layout", {}).get("height") or 460
    payload = _safe_json({"data": spec.get("data", []), "layout": spec.get("layout", {}),
                          "frames": spec.get("frames", [])})
    return (
        f'<div class="course-figure" id="{div_id}" style="width:100%;height:{int(h)}px"></div>'
        f'<script type="application/json" id="{div_id}-spec">{payload}</script>'
    )


def _trim_template(spec: dict) -> None:
    """Keep the template's defaults only for the trace types the figure uses (about 7 KB less each)."""
    template = spec.get("layout", {}).get("template")
    if not isinstance(template, dict) or "data" not in template:
        return
    used = {trace.get("type", "scatter") for trace in spec.get("data", [])}
    for frame in spec.get("frames", []) or []:
        used |= {trace.get("type", "scatter") for trace in frame.get("data", [])}
    template["data"] = {kind: value for kind, value in template["data"].items() if kind in used}


def show(fig, widget_factory=None, height: int | None = None):
    """Display a plotly figure: static HTML in the site build, the live figure (or widget) in JupyterLab."""
    from IPython.display import display

    if static_mode():
        display(StaticHTML(figure_html(fig, height), text=f"[figure: {fig.layout.title.text or ''}]"))
    elif widget_factory is not None:
        display(widget_factory())
    else:
        display(fig)


def show_region(file: str, region: str, caption: str | None = None):
    """Show a marked region of a kernel source as a highlighted CUDA block (quoted, never pasted)."""
    from IPython.display import Markdown, display

    from kernels.source import region as read_region, region_lines

    first, last = region_lines(file, region)
    title = caption or f"`kernels/{file}` — `{region}` (줄 {first}–{last})"
    display(Markdown(f"{title}\n\n```cuda\n{read_region(file, region)}\n```"))


def note(text: str, kind: str = "note"):
    """A small labelled box (used for 'recorded result' labels and warnings)."""
    from IPython.display import display

    display(StaticHTML(f'<div class="course-note course-note-{html.escape(kind)}">{html.escape(text)}</div>', text))


def table(rows: list[dict], columns: list[tuple[str, str]], caption: str = ""):
    """A small HTML table: columns are (key, Korean header) pairs; values are pre-formatted."""
    from IPython.display import display

    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(r.get(k, '')))}</td>" for k, _ in columns) + "</tr>" for r in rows
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    markup = f'<table class="course-table">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    display(StaticHTML(markup, caption))
