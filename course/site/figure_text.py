"""Text alternatives of the course's plotly figures, generated from the figure's own data.

A figure on the site is read three ways, all from the same JSON that plotly draws:

- :func:`figure_name`: a short Korean accessible name ("그림: " + the figure's title);
- :func:`figure_description`: what the figure shows, in sentences. The first states its point: for a
  simulator (a figure with controls) what the controls show now (its title, which the model
  computes); for a chart, which item is highest and lowest or where a curve bends. Then the data,
  briefly (each series listed, or summarised when long), the controls and their state;
- :func:`figure_tables` and :func:`figure_notes`: the data as tables (one per panel) and the text
  drawn in the figure, behind the site's "표로 보기" toggle. Every figure with data has them; a
  simulator's are those of its current state, and course/site/static/figures.js makes them again (and
  the description) from the live figure whenever a control moves. That script mirrors the
  functions marked "(mirrored)"; tests/test_a11y_site.py checks that both give the same text
  for every figure on the site.

Traces that only draw (hover skipped, no legend entry: outlines, highlight markers) are left out.
:func:`series_styles` gives each series a marker, dash or bar pattern of its own, so that series are
told apart without their colour. Everything works on plain dicts (``fig.to_plotly_json()``), so the
same code serves the static site and JupyterLab.
"""
from __future__ import annotations

import html
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from numbers import Number

MAX_LISTED_POINTS = 12        # a series with more points is summarised (range, extremes)
MAX_DESCRIBED_TRACES = 8
MAX_DESCRIPTION = 900         # characters: beyond this the series are summarised, not listed
MAX_TABLE_ROWS = 60           # per series: a longer one keeps the points where its value changes, then a sample
MAX_CELL_ROWS = 256           # a heatmap with more cells is tabled by value (how many cells hold each)
MAX_VALUE_KINDS = 12          # ... when it holds at most this many different values

_TAG = re.compile(r"<[^>]+>")
_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.I)


def plain(text) -> str:
    """plotly's label markup (<br>, <sup>, <b>, entities) as one line of plain text. (mirrored)"""
    if text is None:
        return ""
    text = _BREAK.sub(" — ", str(text))
    text = html.unescape(_TAG.sub("", text))
    return re.sub(r"\s+", " ", text).strip(" —")


def _title(obj) -> str:
    if isinstance(obj, dict):
        return plain(obj.get("text"))
    return plain(obj)


def _fixed(value: float, decimals: int) -> str:
    """value with `decimals` digits after the point, ties away from zero on the exact binary value:
    what JavaScript's Number.prototype.toFixed gives, so that figures.js prints the same digits."""
    quantum = Decimal(1).scaleb(-decimals)
    return str(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def _grouped(digits: str) -> str:
    sign = "-" if digits.startswith("-") else ""
    whole, _, fraction = digits.lstrip("-").partition(".")
    whole = f"{int(whole):,}"
    return sign + whole + ("." + fraction if fraction else "")


def number(value) -> str:
    """A number as the prose writes it: thousands separators, at most 2 decimals (3 significant
    digits below 1), no trailing zeros. (mirrored in figures.js)"""
    if isinstance(value, bool) or not isinstance(value, Number):
        return plain(value)
    value = float(value)
    if math.isnan(value):
        return "없음"
    if math.isinf(value):
        return "무한대" if value > 0 else "-무한대"
    magnitude = abs(value)
    if value.is_integer() or magnitude >= 100:
        text = _fixed(value, 0)
    else:
        decimals = 2 if magnitude >= 1 else min(10, 2 - math.floor(math.log10(magnitude)))
        text = _fixed(value, decimals).rstrip("0").rstrip(".")
    return "0" if text == "-0" else _grouped(text)


# ----------------------------------------------------------------------------- name


def figure_name(spec: dict) -> str:
    """'그림: <title>' (or a name from the axes when the figure has no title)."""
    layout = spec.get("layout", {})
    title = _title(layout.get("title"))
    if not title:
        axes = [_title(layout.get(k, {}).get("title")) for k in ("yaxis", "xaxis")]
        title = " / ".join(a for a in axes if a) or "제목 없는 그래프"
    return f"그림: {title}"


# ----------------------------------------------------------------------------- reading the data


_KINDS = {"bar": "막대", "heatmap": "히트맵", "lines": "선", "markers": "점", "text": "글자 표시"}


def _trace_kind(trace: dict) -> str:
    kind = trace.get("type", "scatter")
    if kind != "scatter":
        return _KINDS.get(kind, kind)
    mode = trace.get("mode") or "lines+markers"
    return "선" if "lines" in mode else ("점" if "markers" in mode else "글자 표시")


def _visible(trace: dict) -> bool:
    return trace.get("visible", True) is True


def is_text_only(trace: dict) -> bool:
    """A scatter trace that only writes text (labels, cards): its words are notes, not data."""
    return trace.get("type", "scatter") == "scatter" and (trace.get("mode") or "") == "text"


def is_drawing_aid(trace: dict) -> bool:
    """A trace that only draws (an outline, a highlight marker): hover skipped and no name or legend
    entry. It carries no data of its own. (mirrored)"""
    unnamed = not plain(trace.get("name")) or trace.get("showlegend") is False
    return trace.get("hoverinfo") in ("skip", "none") and unnamed and not is_text_only(trace)


def data_traces(spec: dict) -> list[dict]:
    """The visible traces that carry data (bars, lines, points, heatmaps). (mirrored)"""
    return [t for t in spec.get("data", []) if _visible(t) and not is_drawing_aid(t) and not is_text_only(t)
            and t.get("type", "scatter") in ("bar", "scatter", "heatmap")]


def _values(trace: dict, key: str) -> list:
    value = trace.get(key)
    if value is None:
        return []
    if isinstance(value, dict):          # plotly's typed arrays: {"dtype": ..., "bdata": ...}
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool) and not math.isnan(float(value))


def _series_name(trace: dict, index: int, layout: dict) -> str:
    """The series' own name; an unnamed one is called by what it plots (its value axis, numbered
    after the first), never "계열 1". (mirrored)"""
    own = plain(trace.get("name"))
    if own:
        return own
    axis = _value_axis(layout, trace)
    if axis:
        return axis if index == 0 else f"{axis} {index + 1}"
    return f"{_trace_kind(trace)} {index + 1}"


def _points(trace: dict) -> list[dict]:
    """One dict per plotted value: category, value, the printed label and the hover text. (mirrored)"""
    horizontal = trace.get("orientation") == "h"
    cats = _values(trace, "y" if horizontal else "x")
    vals = _values(trace, "x" if horizontal else "y")
    text, hover = _values(trace, "text"), _values(trace, "hovertext")
    points = []
    for i, value in enumerate(vals):
        if not _is_number(value):
            continue
        points.append({"category": cats[i] if i < len(cats) else i, "value": value,
                       "shown": plain(text[i]) if i < len(text) else "",
                       "hover": plain(hover[i]) if i < len(hover) else ""})
    return points


def _shown(point: dict) -> str:
    return point["shown"] or number(point["value"])


def _axis_title(layout: dict, ref: str) -> str:
    axis = layout.get(ref[0] + "axis" + ref[1:]) or {}
    return _title(axis.get("title")) if isinstance(axis, dict) else ""


def _axes(trace: dict) -> tuple[str, str]:
    return trace.get("xaxis", "x"), trace.get("yaxis", "y")


def _value_axis(layout: dict, trace: dict) -> str:
    xref, yref = _axes(trace)
    return _axis_title(layout, xref if trace.get("orientation") == "h" else yref)


def _category_axis(layout: dict, trace: dict) -> str:
    xref, yref = _axes(trace)
    return _axis_title(layout, yref if trace.get("orientation") == "h" else xref)


# ----------------------------------------------------------------------------- the point, in words


def _low_high(items: list, value=lambda item: item["value"]) -> tuple:
    """The first lowest and the first highest item (as figures.js's lowest/highest pick them)."""
    return min(items, key=value), max(items, key=value)


def _extremes(items: list[tuple[str, dict]]) -> str:
    low, high = _low_high(items, lambda item: item[1]["value"])
    return f"가장 높은 것은 {high[0]}({_shown(high[1])}), 가장 낮은 것은 {low[0]}({_shown(low[1])})"


def _labelled(p: dict) -> tuple[str, dict]:
    """A point named by its printed label where its category is a number (a labelled scatter point,
    'L6' at memory 54%), else by its category."""
    if p["shown"] and _is_number(p["category"]):
        return p["shown"], dict(p, shown="")
    return number(p["category"]), p


def _point_of_categories(traces: list[dict], layout: dict) -> str:
    """Bars or labelled points: the highest and the lowest. With several series, where there are more
    series than categories (kernels side by side at a few sizes) they are compared at the last
    category; otherwise each series (up to two) is read on its own."""
    series = [(_series_name(t, i, layout), _points(t)) for i, t in enumerate(traces)]
    series = [(name, pts) for name, pts in series if pts]
    if not series:
        return ""
    if len(series) == 1:
        items = [_labelled(p) for p in series[0][1]]
        return _extremes(items) + "입니다." if len(items) > 1 else ""
    categories = list(dict.fromkeys(p["category"] for _, pts in series for p in pts))
    if len(categories) <= 4:
        last = series[0][1][-1]["category"]
        items = [(name, p) for name, pts in series for p in pts if p["category"] == last]
        where = "" if len(categories) == 1 else f"{number(last)}에서 "
        return where + _extremes(items) + "입니다." if len(items) > 1 else ""
    parts = [f"{name}: " + _extremes([_labelled(p) for p in pts]) for name, pts in series[:2] if len(pts) > 1]
    return "; ".join(parts) + "입니다." if parts else ""


def _bend(points: list[dict]) -> dict | None:
    """Where a line's slope changes most (a roofline's ridge, a max(0, …) model's knee), or None
    for a straight line."""
    xs = [p["category"] for p in points]
    ys = [p["value"] for p in points]
    if len(points) < 3 or not all(_is_number(x) for x in xs):
        return None
    span = (max(ys) - min(ys)) or 1.0
    best, where = 0.0, None
    for i in range(1, len(points) - 1):
        left = (ys[i] - ys[i - 1]) / ((xs[i] - xs[i - 1]) or 1e-12)
        right = (ys[i + 1] - ys[i]) / ((xs[i + 1] - xs[i]) or 1e-12)
        change = abs(right - left) * ((xs[-1] - xs[0]) or 1.0) / span
        if change > best + 1e-9:
            best, where = change, points[i]
    return where if best > 0.1 else None


def _point_of_lines(traces: list[dict], layout: dict) -> str:
    """Lines over a numeric axis: where each bends (up to three series), else where it is highest."""
    xtitle = _category_axis(layout, traces[0]) or "가로축"
    bends, peaks = [], []
    for i, trace in enumerate(traces[:3]):
        pts = _points(trace)
        bend = _bend(pts)
        if bend is not None:
            bends.append(f"{_series_name(trace, i, layout)} {number(bend['category'])}")
        elif pts:
            high = max(pts, key=lambda p: p["value"])
            peaks.append(f"{_series_name(trace, i, layout)} {number(high['category'])}({_shown(high)})")
    parts = ([f"선이 꺾이는 곳({xtitle}): " + ", ".join(bends)] if bends else []) + \
            ([f"가장 높은 곳({xtitle}): " + ", ".join(peaks)] if peaks else [])
    return "; ".join(parts) + "." if parts else ""


def _spread(items: list, same, differ):
    """same(item) where every item holds one value, else differ(lowest, highest); None for no items."""
    if not items:
        return None
    low, high = _low_high(items)
    return same(low) if low["value"] == high["value"] else differ(low, high)


def _point_of_heatmap(trace: dict) -> str:
    return _spread(_heatmap_cells(trace), lambda c: f"모든 칸의 값이 {number(c['value'])}입니다.",
                   lambda low, high: f"값이 가장 큰 칸은 {high['where']}({high['shown']}), "
                                     f"가장 작은 칸은 {low['where']}({low['shown']})입니다.") or ""


def point_sentence(spec: dict) -> str:
    """The figure's point in one sentence: for a simulator what it shows now (its title, computed by
    the model); for a chart its highest and lowest, or where its curves bend."""
    layout = spec.get("layout", {})
    title = _title(layout.get("title"))
    if has_controls(spec):
        return f"지금 보이는 상태: {title}." if title else ""
    traces = data_traces(spec)
    if not traces:
        return f"{title}." if title else ""
    first = traces[0]
    panel = [t for t in traces if _axes(t) == _axes(first) and t.get("type", "scatter") == first.get("type", "scatter")]
    if first.get("type") == "heatmap":
        return _point_of_heatmap(first)
    lines = [t for t in panel if t.get("type", "scatter") == "scatter" and "lines" in (t.get("mode") or "lines+markers")]
    if lines and all(_is_number(p["category"]) for t in lines for p in _points(t)):
        return _point_of_lines(lines, layout)
    return _point_of_categories(panel, layout)


# ----------------------------------------------------------------------------- description


def _axes_sentence(layout: dict) -> str:
    """(mirrored)"""
    parts = []
    for key in sorted(k for k in layout if re.fullmatch(r"[xy]axis\d*", k)):
        title = _title(layout[key].get("title")) if isinstance(layout[key], dict) else ""
        if title:
            parts.append(f"{'가로축' if key[0] == 'x' else '세로축'} {title}")
    return f"{', '.join(dict.fromkeys(parts))}." if parts else ""


def _listed(trace: dict) -> str:
    """Every point: '<category>: <printed value> (<hover text>)'."""
    items = []
    for p in _points(trace):
        item = f"{number(p['category'])}: {_shown(p)}"
        if p["hover"] and p["hover"] != _shown(p):
            item += f" ({p['hover']})"
        items.append(item)
    return "; ".join(dict.fromkeys(items))


def _summary(trace: dict) -> str:
    """A series in one phrase: how many values, and where the lowest and the highest are. (mirrored)"""
    if trace.get("type") == "heatmap":
        rows = _values(trace, "z")
        shape = f"{len(rows)}×{len(rows[0]) if rows and isinstance(rows[0], (list, tuple)) else 0}칸"
        return _spread(_heatmap_cells(trace), lambda c: f"{shape}, 모든 칸의 값 {number(c['value'])}",
                       lambda low, high: f"{shape}, 가장 작은 값 {low['shown']}({low['where']}), "
                                         f"가장 큰 값 {high['shown']}({high['where']})") or f"{shape}, 값 없음"
    pts = _points(trace)
    return _spread(pts, lambda p: f"값 {len(pts)}개, 모두 {number(p['value'])}",
                   lambda low, high: f"값 {len(pts)}개, 가장 낮은 값 {_shown(low)}({number(low['category'])}에서), "
                                     f"가장 높은 값 {_shown(high)}({number(high['category'])}에서)") or "값 없음"


def _series_label(trace: dict, index: int, spec: dict) -> str:
    """'<name> (<kind>)', with the value axis where the figure has several panels (a measured chart
    draws each kernel twice: GFLOP/s and % of cuBLAS). (mirrored)"""
    layout = spec.get("layout", {})
    name = _series_name(trace, index, layout)
    panels = len({_axes(t) for t in data_traces(spec)})
    axis = _value_axis(layout, trace) if panels > 1 and not name.startswith(_value_axis(layout, trace)) else ""
    return f"{name} ({axis + ', ' if axis else ''}{_trace_kind(trace)})"


def _series_sentence(trace: dict, index: int, detailed: bool, spec: dict) -> str:
    name = _series_label(trace, index, spec)
    if detailed and trace.get("type") != "heatmap" and len(_points(trace)) <= MAX_LISTED_POINTS:
        listed = _listed(trace)
        return f"{name}: {listed}." if listed else ""
    return f"{name}: {_summary(trace)}."


def _notes_sentence(spec: dict) -> str:
    notes = figure_notes(spec)
    if not notes:
        return ""
    text = "; ".join(n.replace("\n", " — ") for n in notes)
    if len(text) <= 200:
        return f"그림 속 글: {text}."
    return f"그림 속 글 {len(notes)}개는 '표로 보기'에 있습니다."


def controls_sentence(layout: dict) -> str:
    """The simulator's buttons and sliders and their current state. (mirrored)"""
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
        parts.append(f"{slider_name(slider)} 슬라이더 {len(steps)}단계 중 {active + 1}단계 '{steps[active]}'")
    return f"조작: {'; '.join(parts)}." if parts else ""


def slider_name(slider: dict) -> str:
    """The slider's Korean name: its plotly `name`, else its value prefix without '=' ('k = ' → 'k')."""
    name = plain(slider.get("name"))
    if not name:
        prefix = (slider.get("currentvalue") or {}).get("prefix") or ""
        name = plain(prefix).rstrip(" =:")
    return name or "단계"


def _data_sentences(spec: dict, detailed: bool) -> list[str]:
    traces = data_traces(spec)
    sentences = list(dict.fromkeys(_series_sentence(t, i, detailed, spec)
                                   for i, t in enumerate(traces[:MAX_DESCRIBED_TRACES])))
    if len(traces) > MAX_DESCRIBED_TRACES:
        sentences.append(f"나머지 {len(traces) - MAX_DESCRIBED_TRACES}개 계열은 표에 있습니다.")
    return sentences


def figure_description(spec: dict) -> str:
    """What the figure shows, in Korean sentences generated from its data and layout: its point
    first, then its kind and axes, the data, the notes drawn in it and its controls. A simulator's
    description is the one figures.js writes for its current state (describe_state)."""
    if has_controls(spec):
        return describe_state(spec)
    layout = spec.get("layout", {})
    traces = data_traces(spec)
    head = [point_sentence(spec), plain((layout.get("meta") or {}).get("description")
                                        if isinstance(layout.get("meta"), dict) else ""),
            _kinds_sentence(traces), _axes_sentence(layout)]
    tail = [_notes_sentence(spec), _table_sentence(spec)]
    for detailed in (True, False):
        text = " ".join(s for s in head + _data_sentences(spec, detailed) + tail if s)
        if len(text) <= MAX_DESCRIPTION:
            break
    return text


def _kinds_sentence(traces: list[dict]) -> str:
    """(mirrored)"""
    kinds = list(dict.fromkeys(_trace_kind(t) for t in traces))
    return f"{'·'.join(kinds)} 그래프입니다." if kinds else ""


def _table_sentence(spec: dict) -> str:
    return "값은 모두 '표로 보기'의 표에 있습니다." if figure_tables(spec) else ""


def describe_state(spec: dict) -> str:
    """A simulator's description for the state its layout and data are in: what it shows now (the
    title), its kind and axes, each series in one phrase, and its controls. (mirrored in figures.js,
    which calls it again after every move of a control)"""
    layout = spec.get("layout", {})
    traces = data_traces(spec)
    sentences = [point_sentence(spec), _kinds_sentence(traces), _axes_sentence(layout) if traces else ""]
    sentences += [f"{_series_label(t, i, spec)}: {_summary(t)}." for i, t in enumerate(traces[:MAX_DESCRIBED_TRACES])]
    if len(traces) > MAX_DESCRIBED_TRACES:
        sentences.append(f"나머지 {len(traces) - MAX_DESCRIBED_TRACES}개 계열은 표에 있습니다.")
    sentences += [_notes_sentence(spec), controls_sentence(layout),
                  "값은 '표로 보기'의 표에 있습니다." if traces else ""]
    return " ".join(dict.fromkeys(s for s in sentences if s))


# ----------------------------------------------------------------------------- data tables


def has_controls(spec: dict) -> bool:
    layout = spec.get("layout", {})
    return bool(layout.get("sliders") or layout.get("updatemenus") or spec.get("frames"))


def _heatmap_cells(trace: dict) -> list[dict]:
    """One dict per numeric cell: where it is ('(x, y)'), its value, what it shows and its hover. (mirrored)"""
    z = _values(trace, "z")
    xs, ys = _values(trace, "x"), _values(trace, "y")
    text, hover = _values(trace, "text"), _values(trace, "hovertext")
    cells = []
    for i, row in enumerate(z):
        if not isinstance(row, (list, tuple)):
            continue
        for j, value in enumerate(row):
            if not _is_number(value):
                continue
            shown = text[i][j] if i < len(text) and isinstance(text[i], (list, tuple)) and j < len(text[i]) else ""
            tip = hover[i][j] if i < len(hover) and isinstance(hover[i], (list, tuple)) and j < len(hover[i]) else ""
            x = number(xs[j]) if j < len(xs) else str(j)
            y = number(ys[i]) if i < len(ys) else str(i)
            cells.append({"where": f"({x}, {y})", "row": y, "column": x, "value": value,
                          "shown": plain(shown) or number(value), "hover": plain(tip)})
    return cells


def _heatmap_table(trace: dict, layout: dict, caption: str) -> dict | None:
    cells = _heatmap_cells(trace)
    if not cells:
        return None
    xref, yref = _axes(trace)
    where = f"위치 ({_axis_title(layout, xref) or '가로'}, {_axis_title(layout, yref) or '세로'})"
    if len(cells) <= MAX_CELL_ROWS:
        hover = any(c["hover"] for c in cells)
        columns = [where, "값"] + (["자세히"] if hover else [])
        rows = [[c["where"], c["shown"]] + ([c["hover"]] if hover else []) for c in cells]
        return {"caption": caption, "columns": columns, "rows": rows}
    kinds: dict = {}
    for c in cells:
        kinds.setdefault(c["value"], []).append(c)
    if len(kinds) > MAX_VALUE_KINDS:
        return None
    rows = []
    for value in sorted(kinds):
        group = kinds[value]
        rows.append([number(value), f"{len(group):,}", _span(c["row"] for c in group), _span(c["column"] for c in group)])
    return {"caption": f"{caption} (값별 칸 수)", "columns": ["값", "칸 수", "세로 범위", "가로 범위"], "rows": rows}


def _span(labels) -> str:
    """'a–b' over numeric labels (their smallest and largest), else the distinct labels. (mirrored)"""
    labels = list(dict.fromkeys(labels))
    try:
        values = [float(label.replace(",", "")) for label in labels]
    except ValueError:
        return ", ".join(labels[:6]) + (" …" if len(labels) > 6 else "")
    low, high = min(values), max(values)
    return number(low) if low == high else f"{number(low)}–{number(high)}"


def _thinned(points: list[dict]) -> tuple[list[dict], bool]:
    """At most MAX_TABLE_ROWS points of a long series: first the points where the value changes
    (a step function keeps every step), then an even sample that keeps both ends. (mirrored)"""
    if len(points) <= MAX_TABLE_ROWS:
        return points, False
    changes = [p for i, p in enumerate(points)
               if i in (0, len(points) - 1) or p["value"] != points[i - 1]["value"]
               or p["value"] != points[i + 1]["value"]]
    if len(changes) <= MAX_TABLE_ROWS:
        return changes, True
    step = (len(changes) - 1) / (MAX_TABLE_ROWS - 1)
    return [changes[math.floor(k * step + 0.5)] for k in range(MAX_TABLE_ROWS)], True


def _series_table(traces: list[dict], layout: dict, caption: str) -> dict | None:
    many = len(traces) > 1
    rows, thinned = [], False
    for index, trace in enumerate(traces):
        points, cut = _thinned(_points(trace))
        thinned = thinned or cut
        for p in points:
            rows.append({"series": _series_name(trace, index, layout), "category": number(p["category"]),
                         "value": number(p["value"]), "shown": p["shown"], "hover": p["hover"]})
    if not rows:
        return None
    first = traces[0]
    columns = (["계열"] if many else []) + [_category_axis(layout, first) or "항목", _value_axis(layout, first) or "값"]
    keys = (["series"] if many else []) + ["category", "value"]
    if any(r["shown"] and r["shown"] != r["value"] for r in rows):
        columns.append("표시된 값")
        keys.append("shown")
    if any(r["hover"] for r in rows):
        columns.append("자세히")
        keys.append("hover")
    note = " (값이 바뀌는 점 위주로 일부)" if thinned else ""
    return {"caption": caption + note, "columns": columns, "rows": [[r[k] for k in keys] for r in rows]}


def _caption(layout: dict, panel_title: str, panels: int) -> str:
    title = _title(layout.get("title")).split(" — ")[0]
    if panels > 1 and panel_title:
        return f"{title} — {panel_title}" if title else panel_title
    return title or panel_title or "그래프의 값"


def figure_tables(spec: dict) -> list[dict]:
    """The figure's data, one table per panel (series of one kind on the same axes) and one per
    heatmap: [{"caption", "columns": [header, ...], "rows": [[cell, ...], ...]}]. (mirrored)"""
    layout = spec.get("layout", {})
    groups: dict[tuple, list[dict]] = {}
    for trace in data_traces(spec):
        kind = "heatmap" if trace.get("type") == "heatmap" else "series"
        key = (kind, *_axes(trace), len(groups) if kind == "heatmap" else 0)
        groups.setdefault(key, []).append(trace)
    tables = []
    for (kind, xref, yref, _), traces in groups.items():
        panel = _axis_title(layout, yref) if kind == "series" else plain(traces[0].get("name"))
        caption = _caption(layout, panel, len(groups))
        table = (_heatmap_table(traces[0], layout, caption) if kind == "heatmap"
                 else _series_table(traces, layout, caption))
        if table:
            tables.append(table)
    return tables


def figure_notes(spec: dict) -> list[str]:
    """The words drawn in the figure: its annotations and text-only traces, one string each, line
    breaks kept as newlines. (mirrored)"""
    layout = spec.get("layout", {})
    raw = [a.get("text") for a in layout.get("annotations") or [] if isinstance(a, dict) and a.get("visible", True)]
    for trace in spec.get("data", []):
        if _visible(trace) and is_text_only(trace):
            raw += [t for t in _values(trace, "text")]
    notes = []
    for text in raw:
        lines = [plain(line) for line in _BREAK.split(str(text or ""))]
        note = "\n".join(line for line in lines if line)
        if note and note not in notes:
            notes.append(note)
    return notes


def tables_html(tables: list[dict], figure_id: str, notes: list[str] | None = None) -> str:
    """The tables (and the figure's words) behind a '표로 보기' toggle (<details>, keyboard-operable
    without script); figures.js fills the same element again when a simulator's control moves."""
    if not tables and not notes:
        return ""
    return (f'<details class="course-figure-data" id="{figure_id}-data"><summary>표로 보기</summary>'
            f'<div class="course-figure-data-body">{data_body_html(tables, notes or [])}</div></details>')


def data_body_html(tables: list[dict], notes: list[str]) -> str:
    """(mirrored in figures.js)"""
    parts = []
    for table in tables:
        head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in table["columns"])
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                       for row in table["rows"])
        parts.append(f'<div class="pst-scrollable-table-container course-table-scroll">'
                     f'<table class="course-table"><caption>{html.escape(table["caption"])}</caption>'
                     f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    if notes:
        items = "".join("<li>" + "<br>".join(html.escape(line) for line in note.split("\n")) + "</li>"
                        for note in notes)
        parts.append(f'<p class="course-figure-notes-title">그림 속 글</p><ul class="course-figure-notes">{items}</ul>')
    return "".join(parts)


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
