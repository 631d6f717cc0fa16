"""In-page measurements shared by the browser tests of the built site (focus rings, reflow, figures,
the theme's English words). Each is one JavaScript function run with page.evaluate, so a page is
measured in a single round trip; each returns plain data that the tests assert on.
"""
from __future__ import annotations

from pathlib import Path

RENDERED = "[...document.querySelectorAll('div.course-figure')].every(e => e.getAttribute('data-rendered') === '1')"

# Modules behind a checkpoint show only a lock notice; with the gating policy "off" (an instructor's
# setting) their content shows, so that it is checked too.
UNGATED = """(() => { let value;
  Object.defineProperty(window, 'COURSE_SETTINGS', { configurable: true, get: () => value,
    set: v => { value = Object.assign({}, v, { gating_policy: 'off' }); } }); })();"""

# The theme's light/dark switch keeps its choice in localStorage.
DARK = "localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');"

# Measured in the state a style settles in (the theme animates box-shadow rings).
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; animation: none !important; }"


def is_redirect_stub(path: Path) -> bool:
    """The root index.html only sends the reader on (<meta http-equiv="Refresh" ...>, written by
    course/site/extension.py). Opening it starts a second navigation after "load": a check run then reads
    the next page half drawn (a figure without its layout), which made the site tests fail at random
    on a slow machine. Its language, title and link are checked from its file (tests/test_a11y_text.py)."""
    return 'http-equiv="refresh"' in path.read_text(encoding="utf-8", errors="replace")[:2000].lower()


def all_pages(site_dir: Path) -> list[str]:
    pages = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html")
                   if not {"_static", "_sources", "_images"} & set(p.relative_to(site_dir).parts)
                   and not is_redirect_stub(p))
    assert len(pages) >= 18, pages
    return pages


def open_page(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_function(RENDERED, timeout=20_000)


# ----------------------------------------------------------------------------- colour

_COLOUR_JS = r"""
  const parse = c => { const m = /rgba?\(([^)]+)\)/.exec(c || ''); if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  // What is really behind an element: its ancestors' background colours, composed down to the first opaque one.
  const backdrop = start => { const layers = [];
    for (let e = start; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let base = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) base = over(layers[i], base);
    return base; };
"""

# Every element the keyboard can reach is focused in turn; its focus indicator (outline, or a ring
# drawn with box-shadow, on the element, its ::before/::after or a descendant, as the theme does for
# some controls) is found and its colour compared with the colour really behind it: the parent's
# background for a ring drawn outside the element, the element's own for one drawn inside.
FOCUS_RINGS = "() => {" + _COLOUR_JS + r"""
  const shadowRing = value => {
    for (const part of (value || 'none').split(/,(?![^(]*\))/)) {
      if (/inset/.test(part)) continue;
      const colour = parse(part), lengths = (part.replace(/rgba?\([^)]*\)/, '').match(/-?[\d.]+px/g) || []).map(parseFloat);
      if (colour && colour[3] > 0 && lengths.length >= 4 && lengths[3] >= 1) return { colour, width: lengths[3], offset: 0 };
    }
    return null; };
  const ringOn = s => {
    if (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1) { const colour = parse(s.outlineColor);
      if (colour && colour[3] > 0) return { colour, width: parseFloat(s.outlineWidth), offset: parseFloat(s.outlineOffset) || 0 }; }
    return shadowRing(s.boxShadow); };
  const ringOf = e => {
    const own = ringOn(getComputedStyle(e)); if (own) return Object.assign(own, { carrier: e });
    for (const pseudo of ['::before', '::after']) { const r = ringOn(getComputedStyle(e, pseudo)); if (r) return Object.assign(r, { carrier: e, inside: true }); }
    for (const d of [...e.querySelectorAll('*')].slice(0, 12)) { const r = ringOn(getComputedStyle(d)); if (r) return Object.assign(r, { carrier: d }); }
    return null; };
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  // Elements alike (same tag, type, classes, and the same colour behind them) get the same ring:
  // one of each kind is focused, which keeps a page with hundreds of quiz inputs fast to measure.
  const kinds = new Map();
  for (const e of document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')) {
    if (e.tabIndex < 0 || e.disabled || !shown(e) || e.closest('[inert]')) continue;
    const key = [e.tagName, e.type || '', String(typeof e.className === 'string' ? e.className : ''),
                 e.getAttribute('aria-pressed') || '', backdrop(e.parentElement).join(','), backdrop(e).join(',')].join('|');
    if (!kinds.has(key)) kinds.set(key, { e, count: 0 });
    kinds.get(key).count += 1;
  }
  const out = [];
  for (const { e, count } of kinds.values()) {
    e.focus({ preventScroll: true }); if (document.activeElement !== e || !shown(e)) continue;
    const what = (e.tagName + '.' + String(typeof e.className === 'string' ? e.className : '').split(' ')[0] + ' "' +
      (e.getAttribute('aria-label') || e.textContent || e.value || '').trim().slice(0, 30) + '"');
    const ring = ringOf(e);
    if (!ring) { out.push({ what, count, ratio: 0, colour: 'none' }); continue; }
    const ground = (ring.inside || ring.offset + ring.width <= 0) ? backdrop(ring.carrier) : backdrop(ring.carrier.parentElement);
    out.push({ what, count, ratio: Math.round(ratio(over(ring.colour, ground), ground) * 100) / 100,
               colour: ring.colour.join(','), ground: ground.slice(0, 3).map(Math.round).join(',') });
  }
  if (document.activeElement) document.activeElement.blur();
  return out;
}"""


# ----------------------------------------------------------------------------- reflow

# Horizontal scrolling of the page, and the boxes that scroll by themselves: each must be focusable
# (so the keyboard can scroll it) and named (so a screen reader says what it is).
REFLOW = r"""() => {
  const root = document.documentElement;
  const clipped = e => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true; } return false; };
  const wide = [...document.querySelectorAll('.bd-article *')].filter(e => {
      const r = e.getBoundingClientRect(); return r.width > 0 && r.right > root.clientWidth + 1 && !clipped(e); })
    .filter(e => ![...e.children].some(c => c.getBoundingClientRect().right > root.clientWidth + 1))
    .slice(0, 5).map(e => e.tagName + ' "' + (e.textContent || '').trim().slice(0, 50) + '"');
  const boxes = [...document.querySelectorAll('#main-content *')].filter(e => {
      const s = getComputedStyle(e); return ['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1
        && e.getClientRects().length && !e.closest('.course-figure'); })
    .map(e => ({ what: e.tagName + '.' + String(e.className).split(' ')[0], focusable: e.tabIndex >= 0,
                 name: e.getAttribute('aria-label') || '', role: e.getAttribute('role') || '' }));
  return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide, boxes };
}"""


# ----------------------------------------------------------------------------- figures

# Where each figure's parts are: its title (written above the plot), its controls, plotly's own
# title and controls (which must not be drawn), and the plot area.
FIGURE_LAYOUT = r"""() => [...document.querySelectorAll('.course-figure-block')].filter(b => b.getClientRects().length).map(block => {
  const gd = block.querySelector('div.course-figure'), box = block.getBoundingClientRect();
  const title = block.querySelector('.course-figure-title'), keys = block.querySelector('.course-figure-keys');
  const rect = e => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
  const drawn = sel => [...gd.querySelectorAll(sel)].filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length;
  const size = gd._fullLayout._size;
  const controls = keys ? [...keys.querySelectorAll('input, select, label, legend, output')].filter(e => e.getClientRects().length).map(rect) : [];
  const titleText = gd.layout.title && typeof gd.layout.title === 'object' ? gd.layout.title.text : gd.layout.title;
  return { id: gd.id, block: rect(block), plot: rect(gd), width: gd.getBoundingClientRect().width,
           plotArea: { w: size.w, h: size.h },
           title: title ? { rect: rect(title), text: title.textContent, scroll: title.scrollWidth, client: title.clientWidth, hidden: title.hidden } : null,
           wantsTitle: !!String(titleText || '').replace(/<[^>]+>/g, '').trim(),
           keys: keys ? rect(keys) : null, controls,
           plotlyTitleDrawn: drawn('.g-gtitle text'), plotlyMenusDrawn: drawn('.updatemenu-container .updatemenu-button'),
           plotlySlidersDrawn: drawn('.slider-container .slider-rail-rect') };
})"""


def figure_layout_problems(figures: list[dict], width: int) -> list[str]:
    """What does not fit in each figure measured by FIGURE_LAYOUT at this viewport width."""
    problems = []
    for f in figures:
        block, name = f["block"], f"{f['id']} at {width} px"
        inside = lambda r: r["left"] >= block["left"] - 1 and r["right"] <= block["right"] + 1  # noqa: E731
        if f["wantsTitle"]:
            t = f["title"]
            if not t or t["hidden"] or not t["text"].strip():
                problems.append(f"{name}: no title above the plot")
            elif t["scroll"] > t["client"] + 1 or not inside(t["rect"]):
                problems.append(f"{name}: title cut off ({t['scroll']} px in {t['client']} px)")
        if f["plotlyTitleDrawn"] or f["plotlyMenusDrawn"] or f["plotlySlidersDrawn"]:
            problems.append(f"{name}: plotly's own title or controls are drawn (they do not wrap)")
        for r in f["controls"]:
            if not inside(r):
                problems.append(f"{name}: a control sticks out of the figure ({r['left']:.0f}–{r['right']:.0f} px)")
                break
        if f["keys"] and f["keys"]["bottom"] > f["plot"]["top"] + 1:
            problems.append(f"{name}: the controls overlap the plot")
        if f["plotArea"]["w"] < 0.35 * f["width"] or f["plotArea"]["h"] < 80:
            problems.append(f"{name}: plot area {f['plotArea']['w']:.0f}×{f['plotArea']['h']:.0f} px "
                            f"in a {f['width']:.0f} px figure")
    return problems


# ----------------------------------------------------------------------------- language of parts

# Words the theme writes in English (outside the article: skip link, buttons, landmarks) and the
# English labels of its controls anywhere: each must carry lang="en" on itself or an ancestor.
ENGLISH_LABELS = r"""() => {
  const english = t => /[A-Za-z]{3}/.test(t) && !/[가-힣]/.test(t);
  const lang = e => (e.closest('[lang]') || document.documentElement).getAttribute('lang');
  const out = [];
  const skip = e => e.closest('script, style, code, pre, kbd, .highlight, svg, [aria-hidden="true"], .katex, article, [hidden]');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement, text = n.textContent.trim();
    if (!e || !text || skip(e) || !e.getClientRects().length) continue;
    if (english(text) && !lang(e).startsWith('en')) out.push(e.tagName + ': ' + text.slice(0, 40));
  }
  for (const e of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (e.closest('script, svg, .course-figure, .katex')) continue;
    for (const attr of ['aria-label', 'title', 'placeholder']) {
      const v = e.getAttribute(attr);
      if (v && english(v) && !lang(e).startsWith('en')) out.push(e.tagName + ' ' + attr + ': ' + v.slice(0, 40));
    }
  }
  return [...new Set(out)];
}"""


# ----------------------------------------------------------------------------- one survey per theme

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# The reflow widths: 320 px, and 200% zoom (a 1280×900 window at zoom 2 lays out in 640×450 CSS
# pixels). The page is resized from 1280 px as a reader's zoom does; the plots follow (plotly's
# responsive resize, then figures.js's narrow layout below 560 px).
REFLOW_VIEWPORTS = {"200%": {"width": 640, "height": 450}, "320px": {"width": 320, "height": 800}}
SETTLED = """() => [...document.querySelectorAll('div.course-figure')].filter(g => g.getClientRects().length).every(g => {
  const w = g.getBoundingClientRect().width;
  return g._fullLayout && Math.abs(g._fullLayout.width - w) < 2 && !!g.courseNarrow === (w > 0 && w < 560); })"""

# For every figure: the description and the "표로 보기" body that the page was built with (Python),
# and what the browser's copy of course/site/figure_text.py (figures.js) makes of the same JSON, and of
# the live figure. Compared for the simulators, whose text the browser makes again after each move.
FIGURE_TEXT = """() => [...document.querySelectorAll('div.course-figure')].map(gd => {
  const spec = JSON.parse(document.getElementById(gd.id + '-spec').textContent), T = CourseFigures.text;
  const body = document.querySelector('#' + gd.id + '-data .course-figure-data-body');
  const controls = !!((spec.layout.sliders || []).length || (spec.layout.updatemenus || []).length);
  return { id: gd.id, controls, built: { desc: document.getElementById(gd.id + '-desc').textContent,
                                          body: body ? body.innerHTML : '' },
           fromSpec: { desc: T.describeState(spec.data, spec.layout),
                       body: T.dataBodyHtml(T.tables(spec.data, spec.layout), T.notes(spec.data, spec.layout)) },
           fromLive: { desc: T.describeState(gd.data, gd.layout),
                       body: T.dataBodyHtml(T.tables(gd.data, gd.layout), T.notes(gd.data, gd.layout)) } };
})"""

FIGURE_NAMES = """() => [...document.querySelectorAll('.course-figure-block')].map(b => ({
  role: b.getAttribute('role'), name: b.getAttribute('aria-label'),
  desc: (b.querySelector('.course-figure-desc') || {}).textContent || '',
  tabbable: [...b.querySelectorAll('div.course-figure a, div.course-figure button, div.course-figure [tabindex]')]
            .filter(e => e.tabIndex >= 0).length }))"""


def axe_source() -> str:
    import hashlib

    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "tests/vendor/axe-core/axe.min.js is not the pinned 4.14.1"
    return data.decode("utf-8")


def axe_violations(page) -> list[dict]:
    if not page.evaluate("!!window.axe"):
        page.add_script_tag(content=axe_source())
    return page.evaluate("""async tags => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
          .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
    }""", WCAG_TAGS)


def quiz_names(page) -> tuple[int, list[str]]:
    """Every choice group and answer input of the page's quizzes has an accessible name (as
    Playwright computes it) that contains its question's text. Returns (checked, problems)."""
    import re

    from playwright.sync_api import expect

    checked, problems = 0, []
    for block in page.locator(".course-quiz [data-quiz-question]").all():
        if not block.is_visible():
            continue                               # a locked chapter's quiz: checked with the gating off
        prompt = re.sub(r"\s+", " ", block.locator(".course-quiz-prompt").inner_text()).strip()[:24]
        controls = block.locator("fieldset.course-quiz-choices, input[data-quiz-numeric], "
                                 "input[data-quiz-blank], textarea[data-quiz-free]").all()
        if not controls:
            problems.append(f"{block.get_attribute('data-quiz-question')}: no answer control")
        for control in controls:
            checked += 1
            try:
                expect(control).to_have_accessible_name(re.compile(re.escape(prompt)), timeout=2_000)
            except AssertionError:
                problems.append(f"{block.get_attribute('data-quiz-question')}: {control.evaluate('e => e.outerHTML')[:80]}")
        if block.locator("input[data-quiz-choice]").evaluate_all(
                "inputs => inputs.some(i => !i.closest('fieldset[aria-labelledby]'))"):
            problems.append(f"{block.get_attribute('data-quiz-question')}: a choice outside its named group")
    return checked, problems


SIZES = """() => [...document.querySelectorAll('div.course-figure')].filter(g => g.getClientRects().length)
  .map(g => [g.id, Math.round(g.getBoundingClientRect().width), g._fullLayout.width, g.courseNarrow])"""


# The theme's tab stops are up to date: each box it watches (pydata-sphinx-theme's
# addTabStopsToScrollableElements) is focusable exactly while it overflows.
SCROLL_BOXES_MARKED = """() => [...document.querySelectorAll(
    'pre, .nboutput > .output_area, .cell_output > .output, .jp-RenderedHTMLCommon, .pst-scrollable-table-container')]
  .every(e => e.tabIndex === ((e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight) ? 0 : -1))"""


def reflow_at(tab, viewport: dict) -> dict:
    tab.set_viewport_size(viewport)
    try:
        tab.wait_for_function(SETTLED, timeout=30_000)
    except Exception as exc:                       # say which figure did not follow the new width
        raise AssertionError(f"{tab.url} at {viewport}: figures [id, width, plotted width, narrow] "
                             f"{tab.evaluate(SIZES)}") from exc
    try:                                           # the theme marks scroll boxes 300 ms after a resize
        tab.wait_for_function(SCROLL_BOXES_MARKED, timeout=5_000)
    except Exception:                              # not marked: REFLOW reports the box unfocusable
        pass
    return {"page": tab.evaluate(REFLOW), "figures": tab.evaluate(FIGURE_LAYOUT)}


def survey_page(tab, theme: str) -> dict:
    """One visit, everything measured: at 1280 px the figures, their text and the quizzes' names
    (light theme), then with every disclosure open axe, the focus rings and the theme's English
    words, then (light theme) the page at 200% zoom and at 320 px."""
    found = {}
    if theme == "light":
        found["figures"] = tab.evaluate(FIGURE_LAYOUT)
        found["figure_text"] = tab.evaluate(FIGURE_TEXT)
        found["names"] = tab.evaluate(FIGURE_NAMES)
        found["quiz_names"] = quiz_names(tab)
    tab.evaluate("""async () => { document.querySelectorAll('details').forEach(d => { d.open = true; });
        await Promise.all(document.getAnimations().map(a => a.finished)); }""")   # myst-nb fades code in
    found["theme"] = tab.evaluate("document.documentElement.dataset.theme")
    found["axe"] = axe_violations(tab)
    tab.add_style_tag(content=NO_TRANSITIONS)
    tab.keyboard.press("Tab")                      # the keyboard is the last input: rings show on focus()
    found["focus"] = tab.evaluate(FOCUS_RINGS)
    found["english"] = tab.evaluate(ENGLISH_LABELS)
    if theme == "light":
        found["reflow"] = {name: reflow_at(tab, viewport) for name, viewport in REFLOW_VIEWPORTS.items()}
    return found


_SURVEYS: dict = {}


def survey_site(browser, site_url: str, site_dir: Path, theme: str) -> dict:
    """{page (plus ' (gating off)' for a gated chapter's content): survey_page's measurements}, made
    once per theme and test session (tests/test_a11y_site.py, test_site_reflow.py and
    test_site_quiz_a11y.py read the same survey)."""
    from course.settings import load_settings

    key = (site_url, theme)
    if key in _SURVEYS:
        return _SURVEYS[key]
    gated = {f"book/{load_settings().page(int(m))}.html" for m in load_settings().gates}
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR") for _ in range(2)]
    main, ungated = contexts
    ungated.add_init_script(UNGATED)
    for context in contexts:
        if theme == "dark":
            context.add_init_script(DARK)
    found = {}
    try:
        for rel in all_pages(site_dir):
            views = [("", main)] + ([(" (gating off)", ungated)] if rel in gated else [])
            for view, context in views:
                tab = context.new_page()
                open_page(tab, f"{site_url}/{rel}")
                found[rel + view] = survey_page(tab, theme)
                tab.close()
    finally:
        for context in contexts:
            context.close()
    assert gated and any(k.endswith("(gating off)") for k in found), sorted(found)
    _SURVEYS[key] = found
    return found


def open_served(context, origin: str, files: dict, path: str):
    """A page of a Playwright browser context served from memory: `files` maps a path to (text, content type);
    uncaught page errors are collected in page.errors (the tests assert there are none)."""
    def fulfill(route):
        body, kind = files[route.request.url[len(origin):]]
        route.fulfill(body=body, content_type=kind + "; charset=utf-8")

    context.route(f"{origin}/**", fulfill)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{origin}{path}")
    return page
