"""Text alternatives of the course's plotly figures, generated from the figure's own data.

A figure on the site is read three ways, all from the same JSON that plotly draws:

- :func:`figure_name`: a short Korean accessible name ("그림: " + the figure's title);
- :func:`figure_description`: what the figure shows in sentences: its kind, axes, each series
  with its values (the hover text or the printed label where the figure has one, else the number),
  the controls a simulator offers and their current state;
- :func:`figure_tables`: for a chart without controls (measured results, recorded profiles), its
  data as tables, one per panel, behind the site's "표로 보기" toggle.

:func:`series_styles` gives each series a marker, dash or bar pattern of its own, so that series are
told apart without their colour. Everything works on plain dicts (``fig.to_plotly_json()``), so
the same code serves the static site and JupyterLab.
"""
from __future__ import annotations

import html
import math
import re
from numbers import Number

MAX_LISTED_POINTS = 16        # a series with more points is summarised (range, extremes)
MAX_TABLE_CELLS = 600         # heatmaps larger than this get no table (the description covers them)
MAX_DESCRIBED_TRACES = 24

_TAG = re.compile(r"<[^>]+>")
_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.I)


def plain(text) -> str:
    """plotly's label markup (<br>, <sup>, <b>, entities) as one line of plain text."""
    if text is None:
        return ""
    text = _BREAK.sub(" — ", str(text))
    text = html.unescape(_TAG.sub("", text))
    return re.sub(r"\s+", " ", text).strip(" —")


def _title(obj) -> str:
    if isinstance(obj, dict):
        return plain(obj.get("text"))
    return plain(obj)


def number(value) -> str:
    """A number as the prose writes it: thousands separators, no trailing noise."""
    if isinstance(value, bool) or not isinstance(value, Number):
        return plain(value)
    value = float(value)
    if math.isnan(value):
        return "없음"
    if value.is_integer():
        return f"{int(value):,}"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 1:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


# ----------------------------------------------------------------------------- name


def figure_name(spec: dict) -> str:
    """'그림: <title>' (or a name from the axes when the figure has no title)."""
    layout = spec.get("layout", {})
    title = _title(layout.get("title"))
    if not title:
        axes = [_title(layout.get(k, {}).get("title")) for k in ("yaxis", "xaxis")]
        title = " / ".join(a for a in axes if a) or "제목 없는 그래프"
    return f"그림: {title}"


# ----------------------------------------------------------------------------- description


_KINDS = {"bar": "막대", "heatmap": "히트맵", "lines": "선", "markers": "점", "text": "글자 표시"}


def _trace_kind(trace: dict) -> str:
    kind = trace.get("type", "scatter")
    if kind != "scatter":
        return _KINDS.get(kind, kind)
    mode = trace.get("mode") or "lines+markers"
    return "선" if "lines" in mode else ("점" if "markers" in mode else "글자 표시")


def _visible(trace: dict) -> bool:
    return trace.get("visible", True) is True


def _values(trace: dict, key: str) -> list:
    value = trace.get(key)
    if value is None:
        return []
    if isinstance(value, dict):          # plotly's typed arrays: {"dtype": ..., "bdata": ...}
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _point_labels(trace: dict) -> list[str]:
    """One phrase per point: its hover text, else '<category>: <printed label or value>'."""
    horizontal = trace.get("orientation") == "h"
    cats = _values(trace, "y" if horizontal else "x")
    vals = _values(trace, "x" if horizontal else "y")
    n = len(vals)
    if not cats:
        cats = list(range(n))
    hover = _values(trace, "hovertext")
    text = _values(trace, "text")
    labels = []
    for i in range(n):
        if i < len(hover) and plain(hover[i]):
            labels.append(plain(hover[i]))
            continue
        shown = plain(text[i]) if i < len(text) and plain(text[i]) else number(vals[i])
        labels.append(f"{number(cats[i]) if i < len(cats) else i}: {shown}")
    return labels


def _numbers(values) -> list[float]:
    return [float(v) for v in values if isinstance(v, Number) and not isinstance(v, bool)
            and not math.isnan(float(v))]


def _summary_of_many(trace: dict) -> str:
    xs, ys = _values(trace, "x"), _values(trace, "y")
    pairs = [(x, y) for x, y in zip(xs, ys) if isinstance(y, Number) and not isinstance(y, bool)]
    if not pairs:
        return f"점 {len(ys)}개"
    low = min(pairs, key=lambda p: p[1])
    high = max(pairs, key=lambda p: p[1])
    return (f"점 {len(pairs)}개, 가로 {number(pairs[0][0])}부터 {number(pairs[-1][0])}까지, "
            f"최솟값 {number(low[1])} ({number(low[0])}), 최댓값 {number(high[1])} ({number(high[0])})")


def _heatmap_summary(trace: dict) -> str:
    rows = _values(trace, "z")
    cells = [v for row in rows if isinstance(row, (list, tuple)) for v in row]
    nums = _numbers(cells)
    shape = f"{len(rows)}×{len(rows[0]) if rows and isinstance(rows[0], (list, tuple)) else 0}칸"
    if not nums:
        return f"{shape}, 값 없음"
    return f"{shape}, 값 {number(min(nums))}–{number(max(nums))}, 빈 칸 {len(cells) - len(nums)}개"


def _trace_sentence(trace: dict, index: int) -> str:
    name = plain(trace.get("name")) or f"계열 {index + 1}"
    kind = _trace_kind(trace)
    if trace.get("type") == "heatmap":
        return f"{name} ({kind}): {_heatmap_summary(trace)}."
    labels = _point_labels(trace)
    if not labels:
        text = [plain(t) for t in _values(trace, "text") if plain(t)]
        return f"{name} ({kind}): {', '.join(text[:MAX_LISTED_POINTS])}." if text else ""
    if len(labels) > MAX_LISTED_POINTS:
        return f"{name} ({kind}): {_summary_of_many(trace)}."
    return f"{name} ({kind}): {'; '.join(dict.fromkeys(labels))}."


def _axes_sentence(layout: dict) -> str:
    parts = []
    for key in sorted(k for k in layout if re.fullmatch(r"[xy]axis\d*", k)):
        title = _title(layout[key].get("title")) if isinstance(layout[key], dict) else ""
        if title:
            parts.append(f"{'가로축' if key[0] == 'x' else '세로축'} {title}")
    return f"{', '.join(dict.fromkeys(parts))}." if parts else ""


def _notes_sentence(layout: dict) -> str:
    notes = [plain(a.get("text")) for a in layout.get("annotations") or [] if isinstance(a, dict)]
    notes = [n for n in dict.fromkeys(notes) if n]
    return f"그림 속 글: {'; '.join(notes[:MAX_LISTED_POINTS])}." if notes else ""


def controls_sentence(layout: dict) -> str:
    """The simulator's buttons and sliders and their current state, e.g. for the live region."""
    parts = []
    for menu in layout.get("updatemenus") or []:
        labels = [plain(b.get("label")) for b in menu.get("buttons") or []]
        if not labels:
            continue
        active = menu.get("active", 0)
        current = labels[active] if isinstance(active, int) and 0 <= active < len(labels) else "없음"
        name = plain(menu.get("name")) or "보기 선택"
        parts.append(f"{name} {len(labels)}가지 중 지금 '{current}'")
    for slider in layout.get("sliders") or []:
        steps = [plain(s.get("label")) for s in slider.get("steps") or []]
        if not steps:
            continue
        active = slider.get("active", 0)
        name = slider_name(slider)
        parts.append(f"{name} 슬라이더 {len(steps)}단계 중 {active + 1}단계 '{steps[active]}'")
    return f"조작: {'; '.join(parts)}." if parts else ""


def slider_name(slider: dict) -> str:
    """The slider's Korean name: its plotly `name`, else its value prefix without '=' ('k = ' → 'k')."""
    name = plain(slider.get("name"))
    if not name:
        prefix = (slider.get("currentvalue") or {}).get("prefix") or ""
        name = plain(prefix).rstrip(" =:")
    return name or "단계"


def figure_description(spec: dict) -> str:
    """What the figure shows, in Korean sentences generated from its data and layout."""
    layout = spec.get("layout", {})
    traces = [t for t in spec.get("data", []) if _visible(t)]
    kinds = list(dict.fromkeys(_trace_kind(t) for t in traces)) or ["빈"]
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    sentences = [plain(meta.get("description")),
                 f"{'·'.join(kinds)} 그래프입니다.",
                 _axes_sentence(layout)]
    # A series drawn in two panels with the same hover text (course.page.figure) is read once.
    sentences += list(dict.fromkeys(_trace_sentence(t, i) for i, t in enumerate(traces[:MAX_DESCRIBED_TRACES])))
    if len(traces) > MAX_DESCRIBED_TRACES:
        sentences.append(f"그 밖의 계열 {len(traces) - MAX_DESCRIBED_TRACES}개.")
    sentences += [_notes_sentence(layout), controls_sentence(layout)]
    return " ".join(s for s in sentences if s)


# ----------------------------------------------------------------------------- data tables


def has_controls(spec: dict) -> bool:
    layout = spec.get("layout", {})
    return bool(layout.get("sliders") or layout.get("updatemenus") or spec.get("frames"))


def _panel_title(layout: dict, xref: str, yref: str) -> str:
    axis = layout.get("yaxis" + yref[1:], {}) or {}
    return _title(axis.get("title"))


def figure_tables(spec: dict) -> list[dict]:
    """The data of a chart without controls, one table per panel:
    [{"caption", "columns": [header, ...], "rows": [[cell, ...], ...]}]. Empty for simulators
    (their state changes; the live description covers them) and for large heatmaps."""
    if has_controls(spec):
        return []
    layout = spec.get("layout", {})
    panels: dict[tuple[str, str], list[dict]] = {}
    for trace in spec.get("data", []):
        if not _visible(trace) or trace.get("type", "scatter") not in ("bar", "scatter", "heatmap"):
            continue
        panels.setdefault((trace.get("xaxis", "x"), trace.get("yaxis", "y")), []).append(trace)
    tables = []
    for (xref, yref), traces in panels.items():
        table = _panel_table(layout, xref, yref, traces)
        if table:
            tables.append(table)
    return tables


def _panel_table(layout, xref, yref, traces) -> dict | None:
    xtitle = _title((layout.get("xaxis" + xref[1:]) or {}).get("title")) or "가로축"
    ytitle = _title((layout.get("yaxis" + yref[1:]) or {}).get("title")) or "값"
    rows = []
    for index, trace in enumerate(traces):
        name = plain(trace.get("name")) or f"계열 {index + 1}"
        if trace.get("type") == "heatmap":
            rows += _heatmap_rows(trace, name)
            continue
        horizontal = trace.get("orientation") == "h"
        cats = _values(trace, "y" if horizontal else "x")
        vals = _values(trace, "x" if horizontal else "y")
        text = _values(trace, "text")
        for i, value in enumerate(vals):
            if not isinstance(value, Number):
                continue
            shown = plain(text[i]) if i < len(text) and plain(text[i]) else ""
            rows.append([name, number(cats[i]) if i < len(cats) else str(i), number(value), shown])
    if not rows or len(rows) * 4 > MAX_TABLE_CELLS:
        return None
    category, value = (ytitle, xtitle) if any(t.get("orientation") == "h" for t in traces) else (xtitle, ytitle)
    columns = ["계열", category, value, "표시된 값"]
    if not any(r[3] for r in rows):
        columns, rows = columns[:3], [r[:3] for r in rows]
    return {"caption": _panel_title(layout, xref, yref) or value, "columns": columns, "rows": rows}


def _heatmap_rows(trace, name) -> list[list[str]]:
    z = _values(trace, "z")
    xs, ys = _values(trace, "x"), _values(trace, "y")
    rows = []
    for i, row in enumerate(z):
        for j, value in enumerate(row if isinstance(row, (list, tuple)) else []):
            if isinstance(value, Number):
                rows.append([name, f"({number(xs[j]) if j < len(xs) else j}, {number(ys[i]) if i < len(ys) else i})",
                             number(value), ""])
    return rows


def tables_html(tables: list[dict], figure_id: str) -> str:
    """The tables behind a '표로 보기' toggle (<details>, keyboard-operable without script)."""
    if not tables:
        return ""
    parts = []
    for table in tables:
        head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in table["columns"])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                       for row in table["rows"])
        parts.append(f'<div class="pst-scrollable-table-container course-table-scroll">'
                     f'<table class="course-table"><caption>{html.escape(table["caption"])}</caption>'
                     f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    return (f'<details class="course-figure-data" id="{figure_id}-data"><summary>표로 보기</summary>'
            + "".join(parts) + "</details>")


# ----------------------------------------------------------------------------- series styles

_DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
_SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down"]
_PATTERNS = ["/", "x", "\\", ".", "-", "|", "+"]


def _series_key(trace: dict, index: int):
    return trace.get("legendgroup") or trace.get("name") or index


def series_styles(data: list[dict]) -> list[dict]:
    """Per-trace style updates that tell series apart without colour: a bar pattern, a line dash or
    a marker symbol per series (traces of one legend group share one). Styles a figure sets itself
    are kept, and a figure with a single series is left as it is."""
    updates: list[dict] = [{} for _ in data]
    for kind, assign in (("bar", _bar_update), ("lines", _line_update), ("markers", _marker_update)):
        members = [(i, t) for i, t in enumerate(data) if _draws(t, kind)]
        keys = list(dict.fromkeys(_series_key(t, i) for i, t in members))
        if len(keys) < 2:
            continue
        for i, trace in members:
            update = assign(trace, keys.index(_series_key(trace, i)))
            for part, values in update.items():
                updates[i].setdefault(part, {}).update(values)
    return updates


def _draws(trace: dict, kind: str) -> bool:
    ttype = trace.get("type", "scatter")
    if kind == "bar":
        return ttype == "bar"
    if ttype != "scatter":
        return False
    mode = trace.get("mode") or "lines+markers"
    return kind in mode


def _bar_update(trace: dict, rank: int) -> dict:
    marker = trace.get("marker") or {}
    if marker.get("pattern") or isinstance(marker.get("color"), (list, tuple)) or rank == 0:
        return {}
    # The first series stays solid; then seven shapes, then the same shapes drawn finer (15 apart).
    shape = _PATTERNS[(rank - 1) % len(_PATTERNS)]
    size = 7 if rank <= len(_PATTERNS) else 4
    return {"marker": {"pattern": {"shape": shape, "fillmode": "overlay", "size": size, "solidity": 0.3,
                                   "fgopacity": 0.55}}}


def _line_update(trace: dict, rank: int) -> dict:
    line = trace.get("line") or {}
    if line.get("dash"):
        return {}
    return {"line": {"dash": _DASHES[rank % len(_DASHES)]}}


def _marker_update(trace: dict, rank: int) -> dict:
    marker = trace.get("marker") or {}
    if marker.get("symbol") is not None:
        return {}
    return {"marker": {"symbol": _SYMBOLS[rank % len(_SYMBOLS)]}}


def apply_series_styles(data: list[dict]) -> None:
    """series_styles applied in place to a list of trace dicts."""
    for trace, update in zip(data, series_styles(data)):
        for part, values in update.items():
            target = trace.setdefault(part, {})
            for key, value in values.items():
                if isinstance(value, dict):
                    target.setdefault(key, {}).update(value)
                else:
                    target[key] = value
