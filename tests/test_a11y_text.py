"""Text alternatives and colour-independent styles of the figures, the captions of every table, the
site's index page, and the Korean descriptions of the JupyterLab widgets, without a browser.

The built site's figures are read back from their HTML: each one's Korean name, description and
tables must be exactly what course.site.figure_text makes of the figure's own JSON (so none is written by
hand); every description starts with the figure's point in one sentence (what a simulator shows
now, which item is highest and lowest, where a curve bends), stays readable in length and carries no
drawing-aid noise; every figure with data has its data as tables; series differ by more than colour.
"""
from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import plotly.graph_objects as go
import pytest

from course.site import figure_text
from course.page import figure_html

HANGUL = re.compile(r"[가-힣]")
BLOCK = re.compile(
    r'<div class="course-figure-block" role="figure" aria-label="([^"]*)">'
    r'<div class="course-figure" id="(fig-[0-9a-f]+)"[^>]*></div>'
    r'<script type="application/json" id="fig-[0-9a-f]+-spec">(.*?)</script>'
    r'<p class="course-figure-desc course-sr-only" id="fig-[0-9a-f]+-desc">(.*?)</p>(<details.*?</details>)?</div>',
    re.S)


def measured_figure():
    fig = go.Figure()
    for name, values in (("sgemm_naive", [5043.2, 5392.0]), ("cublas", [27447.0, 45841.5])):
        fig.add_trace(go.Bar(name=name, x=["1024³", "2048³"], y=values))
    fig.update_layout(title="처리량<br><sup>기록된 결과</sup>", yaxis_title="GFLOP/s")
    return fig


def test_name_and_description_come_from_the_data():
    spec = measured_figure().to_plotly_json()
    assert figure_text.figure_name(spec) == "그림: 처리량 — 기록된 결과"
    text = figure_text.figure_description(spec)
    # The point first: kernels side by side at each size are compared at the largest size.
    assert text.startswith("2048³에서 가장 높은 것은 cublas(45,842), 가장 낮은 것은 sgemm_naive(5,392)입니다."), text
    for piece in ("막대 그래프", "세로축 GFLOP/s", "sgemm_naive", "1024³: 5,043", "2048³: 45,842"):
        assert piece in text, (piece, text)


def test_measured_chart_has_its_data_as_a_table():
    tables = figure_text.figure_tables(measured_figure().to_plotly_json())
    assert len(tables) == 1 and tables[0]["columns"] == ["계열", "항목", "GFLOP/s"]
    assert tables[0]["caption"] == "처리량"
    assert ["cublas", "2048³", "45,842"] in tables[0]["rows"] and len(tables[0]["rows"]) == 4
    markup = figure_html(measured_figure())
    assert "<summary>표로 보기</summary>" in markup and '<th scope="col">계열</th>' in markup


def test_a_single_series_names_its_items_not_a_series_number():
    """The intro's level chart: the point names the fastest and slowest level with the plotted value,
    every bar is read with its level name, value and hover details, and the table has no '계열 1'."""
    fig = go.Figure(go.Bar(x=["L0 naive", "L3 register_blocking", "L6 warp_tiling"], y=[10.81, 70.64, 99.97],
                           text=["10.8%", "70.6%", "100.0%"], hovertext=["26.18 ms", "3.81 ms", "2.70 ms"]))
    fig.update_layout(title="단계별 cuBLAS 대비 성능", yaxis_title="cuBLAS 대비 (%)")
    spec = fig.to_plotly_json()
    text = figure_text.figure_description(spec)
    assert text.startswith("가장 높은 것은 L6 warp_tiling(100.0%), 가장 낮은 것은 L0 naive(10.8%)입니다."), text
    assert "L0 naive: 10.8% (26.18 ms)" in text and "계열" not in text and "막대 1" not in text
    assert "cuBLAS 대비 (%) (막대): L0 naive" in text           # an unnamed series is called by what it plots
    [table] = figure_text.figure_tables(spec)
    assert table["columns"] == ["항목", "cuBLAS 대비 (%)", "표시된 값", "자세히"]
    assert table["rows"][0] == ["L0 naive", "10.81", "10.8%", "26.18 ms"]


def test_a_line_is_read_where_it_bends_and_long_series_are_summarised():
    xs = [x / 4 for x in range(41)]
    fig = go.Figure([go.Scatter(x=xs, y=[max(0.0, x - (s - 1)) for x in xs], mode="lines", name=f"S = {s}")
                     for s in (2, 3)])
    fig.update_layout(title="모델", xaxis_title="T_load / T_compute", yaxis_title="유휴 시간")
    text = figure_text.figure_description(fig.to_plotly_json())
    assert text.startswith("선이 꺾이는 곳(T_load / T_compute): S = 2 1, S = 3 2."), text
    assert "값 41개, 가장 낮은 값 0(0에서), 가장 높은 값 9(10에서)" in text     # never a bare "최솟값 0 (0)"


def test_drawing_aids_are_left_out_and_text_is_kept_as_notes():
    fig = go.Figure([go.Scatter(x=[0, 9], y=[-0.6, 9.6], mode="markers", hoverinfo="skip", showlegend=False),
                     go.Scatter(x=[1], y=[1], mode="text", text=["A (M×K)<br>진한 타일 = 이 블록"], hoverinfo="skip")])
    fig.update_layout(title="t = 0: 타일", sliders=[{"steps": [{"label": "0", "method": "skip", "args": []}],
                                                   "currentvalue": {"prefix": "t = "}}])
    spec = fig.to_plotly_json()
    text = figure_text.figure_description(spec)
    assert text.startswith("지금 보이는 상태: t = 0: 타일.") and "-0.6" not in text and "9.6" not in text, text
    assert figure_text.figure_notes(spec) == ["A (M×K)\n진한 타일 = 이 블록"]
    assert "<li>A (M×K)<br>진한 타일 = 이 블록</li>" in figure_text.tables_html([], "f", figure_text.figure_notes(spec))


def test_simulator_description_says_what_it_shows_now_and_has_its_tables():
    from sims import coalescing

    spec = coalescing.figure().to_plotly_json()
    text = figure_text.figure_description(spec)
    title = figure_text.plain(spec["layout"]["title"]["text"])
    assert text.startswith(f"지금 보이는 상태: {title}."), text
    assert "k (K 방향 반복) 슬라이더 8단계 중 1단계" in text and "읽는 행렬과 선행 차원 4가지" in text
    [table] = figure_text.figure_tables(spec)
    assert table["columns"][0].startswith("위치 (threadIdx.x") and all(row[2] for row in table["rows"])


def test_series_get_patterns_dashes_and_symbols_but_keep_their_own():
    spec = measured_figure().to_plotly_json()
    figure_text.apply_series_styles(spec["data"])
    shapes = [(t.get("marker") or {}).get("pattern", {}).get("shape", "") for t in spec["data"]]
    assert len(set(shapes)) == 2
    lines = [{"type": "scatter", "mode": "lines", "name": n} for n in "abc"]
    lines[2]["line"] = {"dash": "dot"}
    figure_text.apply_series_styles(lines)
    assert [t["line"]["dash"] for t in lines] == ["solid", "dash", "dot"]
    single = [{"type": "bar", "name": "only", "y": [1, 2]}]
    figure_text.apply_series_styles(single)
    assert "marker" not in single[0]


@pytest.mark.parametrize("value, shown", [(5043.2, "5,043"), (2.5, "2.5"), (0.0123456, "0.0123"),
                                          (4096, "4,096"), (float("nan"), "없음"), ("4096³", "4096³"),
                                          (100.5, "101"), (0.125, "0.125"), (1.005, "1"),
                                          (-1234.5, "-1,235"), (0.5, "0.5"), (-0.4, "-0.4"), (-0.0, "0")])
def test_numbers_read_as_the_prose_writes_them(value, shown):
    assert figure_text.number(value) == shown


# ----------------------------------------------------------------------------- the built site


def built_figures(site_dir):
    found = []
    for page in sorted((site_dir / "book").rglob("*.html")):
        for name, fid, spec, desc, table in BLOCK.findall(page.read_text(encoding="utf-8")):
            found.append((page.name, html.unescape(name), json.loads(spec), html.unescape(desc), table))
    return found


def test_every_figure_on_the_site_carries_its_generated_name_description_and_table(site_dir):
    figures = built_figures(site_dir)
    pages = {p.name for p in (site_dir / "book").rglob("*.html")
             if 'class="course-figure"' in p.read_text(encoding="utf-8")}
    assert len(figures) >= 40 and {f[0] for f in figures} == pages, "a figure without its accessible block"
    for page, name, spec, desc, table in figures:
        assert name == figure_text.figure_name(spec) and HANGUL.search(name), (page, name)
        assert desc == figure_text.figure_description(spec), (page, name)
        made = figure_text.tables_html(figure_text.figure_tables(spec), "x", figure_text.figure_notes(spec))
        assert re.sub(r'id="[^"]*"', "", table) == re.sub(r'id="[^"]*"', "", made), (page, name)


# Openings of a figure's point: what a simulator shows now, the extremes of a chart, where its lines
# bend, the extremes of a heatmap (figure_text.point_sentence).
POINT = re.compile(r"^(지금 보이는 상태: |.*가장 높은 것은 |선이 꺾이는 곳|가장 높은 곳|값이 가장 큰 칸은 |모든 칸의 값이 )")


def test_every_figure_states_its_point_first_then_its_data_in_a_readable_length(site_dir):
    figures = built_figures(site_dir)
    for page, name, spec, desc, table in figures:
        first = desc.split("다. ")[0] if "다. " in desc else desc.split(". ")[0]
        assert POINT.match(first), f"{page}: {name}: the description does not open with its point: {desc[:120]}"
        assert len(desc) <= 1200, f"{page}: {name}: {len(desc)} characters"
        assert not re.search(r"(?<![가-힣])(계열|막대|선|점) 1[ :<(]", desc + table), (page, name)   # a series is named
        if figure_text.data_traces(spec):
            assert "<table" in table, f"{page}: {name}: a figure with data but no table"
    assert sum("<table" in f[4] for f in figures) >= 46


class _Tables(HTMLParser):
    """Every <table> of a page (script and style text are not parsed as HTML) and its caption's text."""

    def __init__(self):
        super().__init__()
        self.tables, self.stack, self.in_caption = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append({"caption": "", "first_cell": ""})
        elif tag == "caption" and self.stack:
            self.in_caption += 1

    def handle_endtag(self, tag):
        if tag == "table" and self.stack:
            self.tables.append(self.stack.pop())
        elif tag == "caption":
            self.in_caption = max(0, self.in_caption - 1)

    def handle_data(self, data):
        if self.stack:
            key = "caption" if self.in_caption else "first_cell"
            if key == "caption" or not self.stack[-1]["first_cell"].strip():
                self.stack[-1][key] += data


def test_every_table_on_the_site_has_a_caption(site_dir):
    counted, missing = 0, []
    for page in sorted((site_dir / "book").rglob("*.html")):
        parser = _Tables()
        parser.feed(page.read_text(encoding="utf-8"))
        counted += len(parser.tables)
        missing += [f"{page.name}: {t['first_cell'].strip()[:40]}" for t in parser.tables if not t["caption"].strip()]
    assert counted >= 150 and missing == [], "\n".join(missing)


def test_the_index_page_has_a_language_a_title_and_a_link(site_dir):
    text = (site_dir / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<html lang="ko">', text)
    title = re.search(r"<title>([^<]+)</title>", text)
    assert title and HANGUL.search(title.group(1))
    target = re.search(r'url=([^"]+)"', text).group(1)
    assert (site_dir / target).is_file() and f'<a href="{target}">' in text


def _style(trace):
    marker, line = trace.get("marker") or {}, trace.get("line") or {}
    pattern = marker.get("pattern") or {}
    return json.dumps([pattern.get("shape", ""), pattern.get("size"), line.get("dash"), marker.get("symbol"),
                       "text" in (trace.get("mode") or "")], sort_keys=True)


def test_series_on_the_site_differ_by_more_than_colour(site_dir):
    """Within one panel, two series of one kind never share marker, dash, pattern and labelling."""
    for page, name, spec, _, _ in built_figures(site_dir):
        panels = {}
        for i, trace in enumerate(spec["data"]):
            if trace.get("showlegend", True) is False or trace.get("visible", True) is not True \
                    or trace.get("type", "scatter") not in ("bar", "scatter"):
                continue           # heatmaps are grids, not series; hidden traces belong to another menu option
            panel = (trace.get("type", "scatter"), trace.get("xaxis", "x"), trace.get("yaxis", "y"))
            panels.setdefault(panel, {}).setdefault(trace.get("legendgroup") or trace.get("name") or i, _style(trace))
        for panel, series in panels.items():
            styles = list(series.values())
            assert len(set(styles)) == len(styles), f"{page}: {name}: {panel} series told apart by colour only"


def test_every_simulator_control_on_the_site_has_a_korean_name():
    from sims import banks, coalescing, outer_product, pipeline, profiles, roofline, warp_tiling

    figures = [coalescing.figure(), coalescing.float4_figure(), banks.figure(), outer_product.figure(),
               pipeline.figure(), pipeline.async_figure(), roofline.figure(), roofline.occupancy_figure(),
               profiles.figure(), warp_tiling.figure()]
    for fig in figures:
        layout = fig.to_plotly_json()["layout"]
        controls = list(layout.get("sliders") or []) + list(layout.get("updatemenus") or [])
        assert controls
        for control in controls:
            assert HANGUL.search(control.get("name") or ""), (layout.get("title"), control.get("name"))


# ----------------------------------------------------------------------------- JupyterLab widgets


def test_every_widget_control_has_a_korean_description():
    pytest.importorskip("ipywidgets")
    from sims import banks, coalescing, outer_product, pipeline, profiles, roofline, warp_tiling

    factories = [coalescing.widget, coalescing.float4_widget, banks.widget, outer_product.widget,
                 pipeline.widget, pipeline.async_widget, roofline.widget, roofline.occupancy_widget,
                 profiles.widget, warp_tiling.widget]
    for factory in factories:
        box = factory()
        assert box.controls
        for key, control in box.controls.items():
            assert HANGUL.search(control.tooltip or ""), f"{factory.__module__}.{factory.__name__}: {key}"
            assert control.description, f"{factory.__module__}.{factory.__name__}: {key} has no label"


def test_a_control_without_a_description_is_refused():
    import ipywidgets as w

    from sims._common import describe_controls

    with pytest.raises(KeyError):
        describe_controls({"m": w.IntText(description="M")}, {})


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _fonts(node, background):
    """(font colour, the background it sits on) for every #rrggbb font colour in a figure's JSON;
    an annotation with its own bgcolor sits on that."""
    if isinstance(node, dict):
        own = {"white": "#ffffff"}.get(node.get("bgcolor"), node.get("bgcolor"))
        background = own if str(own or "").startswith("#") else background
        colour = (node.get("font") or {}).get("color") if isinstance(node.get("font"), dict) else None
        if isinstance(colour, str) and colour.startswith("#"):
            yield colour, background
        for value in node.values():
            yield from _fonts(value, background)
    elif isinstance(node, list):
        for value in node:
            yield from _fonts(value, background)


def test_text_drawn_in_figures_reads_at_4_5_to_1(site_dir):
    """axe cannot see into plotly's SVG: the colours the figures choose for their text are checked
    here, against white and the plot area's blue-grey (#e5ecf6) unless the label has its own background."""
    for page, name, spec, _, _ in built_figures(site_dir):
        for colour, background in _fonts({"layout": spec["layout"], "data": spec["data"]}, None):
            grounds = [background] if background else ["#ffffff", "#e5ecf6"]
            worst = min(contrast(colour, ground) for ground in grounds)
            assert worst >= 4.5, f"{page}: {name}: text {colour} on {grounds} is {worst:.2f}:1"
