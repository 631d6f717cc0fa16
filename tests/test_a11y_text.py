"""Text alternatives and colour-independent styles of the figures, and the Korean descriptions of
the JupyterLab widgets, without a browser.

The built site's figures are read back from their HTML: each one's Korean name and description must
be exactly what course.figure_text makes of the figure's own JSON (so neither is written by hand),
and its series must differ by more than colour.
"""
from __future__ import annotations

import html
import json
import re

import plotly.graph_objects as go
import pytest

from course import figure_text
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
    for piece in ("막대 그래프", "세로축 GFLOP/s", "sgemm_naive", "1024³: 5,043", "2048³: 45,842"):
        assert piece in text, (piece, text)


def test_measured_chart_has_its_data_as_a_table():
    tables = figure_text.figure_tables(measured_figure().to_plotly_json())
    assert len(tables) == 1 and tables[0]["columns"] == ["계열", "가로축", "GFLOP/s"]
    assert ["cublas", "2048³", "45,842"] in tables[0]["rows"] and len(tables[0]["rows"]) == 4
    markup = figure_html(measured_figure())
    assert "<summary>표로 보기</summary>" in markup and '<th scope="col">계열</th>' in markup


def test_simulator_description_names_its_controls_and_has_no_table():
    from sims import coalescing

    spec = coalescing.figure().to_plotly_json()
    text = figure_text.figure_description(spec)
    assert "k (K 방향 반복) 슬라이더 8단계 중 1단계" in text and "읽는 행렬과 선행 차원 4가지" in text
    assert figure_text.figure_tables(spec) == []


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
                                          (4096, "4,096"), (float("nan"), "없음"), ("4096³", "4096³")])
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
        assert bool(table) == bool(figure_text.figure_tables(spec)), (page, name)
        if not figure_text.has_controls(spec) and re.search("기록|측정", name):
            assert table, f"{page}: measured chart without '표로 보기': {name}"


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
