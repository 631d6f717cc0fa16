"""The built site in a real browser (Debian Chromium through Playwright), with no network.

Every page loads without console errors or failed requests, asks nothing of any other host,
draws its plotly figures with the site's own plotly.js, and the figures answer their controls.
Screenshots land in _build/screenshots for review.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course.site.extension import PLOTLY_BUNDLE

pytestmark = pytest.mark.browser

PAGE_BUDGET_BYTES = 3_000_000    # every chapter page with everything it loads, uncompressed (3 MB, not MiB)
FIGURE_SPEC = re.compile(r'<script type="application/json" id="fig-[^"]+-spec">(.*?)</script>', re.S)


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
    assert any(PLOTLY_BUNDLE in s for s in scripts)


def test_the_plotly_bundle_carries_every_trace_type_the_figures_draw(page, site_url, site_dir):
    """The site ships a partial plotly.js bundle (tools/build_plotly_bundle.sh): a figure with a trace
    type it lacks would silently draw nothing, so every type in every figure must be registered."""
    drawn = set()
    for html in (site_dir / "book").rglob("*.html"):
        for spec in FIGURE_SPEC.findall(html.read_text(encoding="utf-8")):
            figure = json.loads(spec)
            traces = figure.get("data", []) + [t for frame in figure.get("frames") or [] for t in frame.get("data", [])]
            drawn |= {t.get("type", "scatter") for t in traces}
    assert drawn, "no figure found in the built site"
    page.goto(f"{site_url}/book/intro.html", wait_until="load")
    registered = set(page.evaluate("Object.keys(window.Plotly.PlotSchema.get().traces)"))
    assert drawn <= registered, f"figures draw {sorted(drawn - registered)}, which {PLOTLY_BUNDLE} lacks"


def test_a_slider_changes_a_figure(page, site_url, site_dir):
    """Find a figure with a slider, drag its control (shown above the plot, course/site/static/figures.js)
    to its last step with the mouse, and see the plotted data, plotly's own slider and the title change."""
    for rel in site_pages(site_dir):
        page.goto(f"{site_url}/{rel}", wait_until="load")
        for fig in page.query_selector_all("div.course-figure"):
            page.wait_for_function("el => el.getAttribute('data-rendered') === '1'", arg=fig, timeout=10_000)
            if not page.evaluate("el => (el.layout.sliders || []).length > 0", fig):
                continue
            state = "el => JSON.stringify([el.data.map(t => [t.x, t.y, t.z, t.text, t.visible]), el.layout.title, el.layout.annotations])"
            before = page.evaluate(state, fig)
            rng = page.locator(f"#{fig.get_attribute('id')}-slider-0")
            rng.scroll_into_view_if_needed()
            box = rng.bounding_box()
            page.mouse.click(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)   # the last step
            steps = page.evaluate("el => el.layout.sliders[0].steps.length", fig)
            page.wait_for_function("([el, last]) => el.layout.sliders[0].active === last", arg=[fig, steps - 1], timeout=5_000)
            after = page.evaluate(state, fig)
            assert after != before, f"{rel}: moving the slider changed nothing"
            caption = page.locator(f"#{fig.get_attribute('id')}-title").inner_text()
            title = page.evaluate("el => CourseFigures.text.title(el.layout.title)", fig)
            assert caption.replace("\n", " — ") == title, (caption, title)
            return
    pytest.fail("no figure with a working slider was found in the site")


def test_korean_font_stack_and_text(page, site_url):
    page.goto(f"{site_url}/book/intro.html", wait_until="load")
    family = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert re.search(r"Noto Sans KR|Apple SD Gothic Neo|Malgun Gothic", family), family
    heading = page.inner_text("h1")
    assert re.search(r"[가-힣]", heading)


def test_chapter_page_weight(browser, site_url, site_dir, screenshot_dir):
    """Every chapter page with everything it loads (HTML, scripts, styles, fonts, figures) stays within
    3 MB uncompressed; the transferred (gzip) size is recorded beside it in page_weight.txt.

    Each page loads in a fresh browser context (an empty cache); a response's uncompressed size is
    the size of the file the site serves, so nothing depends on what the browser kept."""
    from urllib.parse import unquote, urlparse

    chapters = [p for p in site_pages(site_dir) if re.match(r"book/m\d\d_", p)] or ["book/intro.html"]
    report, over = [], []
    for rel in chapters:
        context = browser.new_context()
        page = context.new_page()
        sent: dict[str, int] = {}
        raw: dict[str, int] = {}

        def on_finished(request, sent=sent, raw=raw):
            path = site_dir / unquote(urlparse(request.url).path).lstrip("/")
            if request.url.startswith(site_url) and path.is_file():
                raw[request.url] = path.stat().st_size
                sent[request.url] = request.sizes()["responseBodySize"]

        page.on("requestfinished", on_finished)
        page.goto(f"{site_url}/{rel}", wait_until="networkidle")
        page.wait_for_timeout(300)
        context.close()
        total = sum(raw.values())
        heaviest = ", ".join(f"{u.rsplit('/', 1)[-1].split('?')[0]} {n / 1e3:.0f} kB"
                             for u, n in sorted(raw.items(), key=lambda x: -x[1])[:3])
        report.append(f"{rel}: uncompressed {total:,} B ({total / 2**20:.2f} MiB), "
                      f"transferred {sum(sent.values()):,} B, {len(raw)} files; heaviest: {heaviest}")
        if total > PAGE_BUDGET_BYTES:
            over.append(report[-1])
        assert any(PLOTLY_BUNDLE in u for u in raw) and any(u.endswith(".html") for u in raw), report[-1]
    (screenshot_dir / "page_weight.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    assert not over, "over the 3 MB page budget:\n" + "\n".join(over)


def test_search_works_without_the_index_on_every_page(page, site_url):
    """Chapter pages no longer load searchindex.js (book/_templates/layout.html); the theme's search
    box still finds pages, through search.html, which loads the index itself."""
    page.goto(f"{site_url}/book/m04_naive.html", wait_until="load")
    scripts = page.evaluate("[...document.scripts].map(s => s.src).filter(Boolean)")
    assert not any("searchindex.js" in s for s in scripts), scripts
    page.keyboard.press("Control+k")
    box = page.locator("#pst-search-dialog input[name=q]")
    box.fill("워프")
    box.press("Enter")
    page.wait_for_url("**/search.html?q=*")
    page.wait_for_function("document.querySelectorAll('#search-results li, ul.search li').length > 0", timeout=10_000)
