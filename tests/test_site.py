"""The built site in a real browser (Debian Chromium through Playwright), with no network.

Every page loads without console errors or failed requests, asks nothing of any other host,
draws its plotly figures with the site's own plotly.js, and the figures answer their controls.
Screenshots land in _build/screenshots for review.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

PAGE_BUDGET_BYTES = 3 * 1024 * 1024


def site_pages(site_dir: Path) -> list[str]:
    pages = sorted(p.relative_to(site_dir).as_posix() for p in (site_dir / "book").rglob("*.html"))
    assert pages, "no pages under book/ in the built site"
    return pages


def test_every_page_loads_cleanly_offline(page, site_url, site_dir, screenshot_dir):
    for rel in site_pages(site_dir):
        page.console_errors.clear()
        page.failed_requests.clear()
        page.goto(f"{site_url}/{rel}", wait_until="load")
        page.wait_for_timeout(300)
        assert page.console_errors == [], f"{rel}: console errors {page.console_errors}"
        assert page.failed_requests == [], f"{rel}: failed requests {page.failed_requests}"
        assert page.blocked_requests == [], f"{rel}: tried to reach other hosts {page.blocked_requests}"
        assert page.evaluate("document.documentElement.lang") == "ko"
        page.screenshot(path=str(screenshot_dir / (rel.replace("/", "_") + ".png")), full_page=False)


def test_figures_render_with_the_bundled_plotly(page, site_url, site_dir):
    drawn = 0
    for rel in site_pages(site_dir):
        page.goto(f"{site_url}/{rel}", wait_until="load")
        figures = page.query_selector_all("div.course-figure")
        for fig in figures:
            page.wait_for_function("el => el.getAttribute('data-rendered') === '1'", arg=fig, timeout=10_000)
            assert fig.query_selector(".main-svg") is not None, f"{rel}: figure without an SVG"
            drawn += 1
    assert drawn >= 3
    scripts = page.evaluate("[...document.scripts].map(s => s.src).filter(Boolean)")
    assert all(s.startswith(site_url) for s in scripts), scripts
    assert any("plotly-cartesian" in s for s in scripts)


def test_a_slider_changes_a_figure(page, site_url, site_dir):
    """Find a figure with a slider, move it to its last step, and see the plotted data change."""
    for rel in site_pages(site_dir):
        page.goto(f"{site_url}/{rel}", wait_until="load")
        for fig in page.query_selector_all("div.course-figure"):
            page.wait_for_function("el => el.getAttribute('data-rendered') === '1'", arg=fig, timeout=10_000)
            if not page.evaluate("el => (el.layout.sliders || []).length > 0", fig):
                continue
            state = "el => JSON.stringify([el.data.map(t => [t.x, t.y, t.z, t.text, t.visible]), el.layout.title, el.layout.annotations])"
            before = page.evaluate(state, fig)
            rail = fig.query_selector("rect.slider-rail-touch-rect") or fig.query_selector("rect.slider-rail-rect")
            if rail is None:
                continue
            fig.scroll_into_view_if_needed()
            box = rail.bounding_box()
            page.mouse.click(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)   # the last step
            page.wait_for_timeout(500)
            after = page.evaluate(state, fig)
            assert after != before, f"{rel}: moving the slider changed nothing"
            return
    pytest.fail("no figure with a working slider was found in the site")


def test_korean_font_stack_and_text(page, site_url):
    page.goto(f"{site_url}/book/intro.html", wait_until="load")
    family = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert re.search(r"Noto Sans KR|Apple SD Gothic Neo|Malgun Gothic", family), family
    heading = page.inner_text("h1")
    assert re.search(r"[가-힣]", heading)


def test_chapter_page_weight(page, site_url, site_dir, screenshot_dir):
    """A chapter page with its figures stays under 3 MB transferred (gzip, as web hosts serve it).

    The uncompressed total is recorded too (page_weight.txt next to the screenshots)."""
    chapters = [p for p in site_pages(site_dir) if re.match(r"book/m\d\d_", p)] or ["book/intro.html"]
    sent: dict[str, int] = {}
    raw: dict[str, int] = {}

    def on_finished(request):
        resp = request.response()
        if resp is not None and resp.ok:
            sent[request.url] = request.sizes()["responseBodySize"]
            raw[request.url] = len(resp.body())

    page.on("requestfinished", on_finished)
    report = []
    for rel in chapters:
        sent.clear()
        raw.clear()
        page.goto(f"{site_url}/{rel}", wait_until="networkidle")
        report.append(f"{rel}: transferred {sum(sent.values()) / 1e6:.2f} MB, uncompressed {sum(raw.values()) / 1e6:.2f} MB")
        assert sum(sent.values()) <= PAGE_BUDGET_BYTES, report[-1]
    (screenshot_dir / "page_weight.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
