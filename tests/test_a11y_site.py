"""Accessibility of the built site in Chromium (WCAG 2.1 A/AA), offline.

- axe-core (vendored, tests/vendor/axe-core) finds no serious or critical violation on any page,
  with every disclosure open (hidden code, "표로 보기" tables, answers);
- keyboard only: on module 6, open a hidden code cell, move the simulators' sliders and pass the
  checkpoint with Tab, arrows, Space and Enter; then move every slider on every other page the same
  way. No pointer event is ever sent. Screenshots land in _build/screenshots/a11y/;
- the mode bars stay out of the tab order, the keyboard controls are invisible until focused (a
  mouse user sees the site as before), and prefers-reduced-motion turns the slider transitions off.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from course.bank import load_bank
from course.settings import load_settings

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
HANGUL = re.compile(r"[가-힣]")
MAX_TABS = 1500

RENDERED = "[...document.querySelectorAll('div.course-figure')].every(e => e.getAttribute('data-rendered') === '1')"
# What has the focus: enough to decide the next key, and to prove where Tab went.
FOCUS = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const q = e.closest('[data-quiz-question]'), f = e.closest('.course-figure-block');
  const seen = e.dataset.a11yTabSeen === '1'; e.dataset.a11yTabSeen = '1';
  return {tag: e.tagName, seen: seen, type: e.type || '', id: e.id, choice: e.getAttribute('data-quiz-choice'),
          question: q && q.getAttribute('data-quiz-question'), checked: !!e.checked,
          numeric: e.hasAttribute('data-quiz-numeric'), blank: e.getAttribute('data-quiz-blank'),
          free: e.hasAttribute('data-quiz-free'), action: e.getAttribute('data-quiz-action'),
          self: e.getAttribute('data-quiz-self'), hiddenCode: !!e.closest('details.hide') && e.tagName === 'SUMMARY',
          inPlot: !!e.closest('div.course-figure'), figure: f ? f.querySelector('div.course-figure').id : null,
          valuetext: e.getAttribute('aria-valuetext'), value: e.value, max: e.max}; }"""
# Modules behind a checkpoint show only a lock notice; with the gating policy "off" (an instructor's
# setting) their content shows, so that it is checked too.
UNGATED = """(() => { let value;
  Object.defineProperty(window, 'COURSE_SETTINGS', { configurable: true, get: () => value,
    set: v => { value = Object.assign({}, v, { gating_policy: 'off' }); } }); })();"""
NO_POINTER = """window.__pointerEvents = 0;
  ['pointerdown', 'mousedown', 'click'].forEach(t => window.addEventListener(t, e => {
    if (e.isTrusted && (e.type !== 'click' || e.detail > 0)) window.__pointerEvents += 1; }, true));"""


def is_redirect_stub(path: Path) -> bool:
    """Jupyter Book's root index.html only says <meta http-equiv="Refresh" ...> to the first chapter.

    Opening it starts a second navigation after "load": a check run then reads the next page half drawn
    (a figure without its layout), which made this file fail at random on a slow machine."""
    return 'http-equiv="refresh"' in path.read_text(encoding="utf-8", errors="replace")[:2000].lower()


def all_pages(site_dir: Path) -> list[str]:
    pages = sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html")
                   if not {"_static", "_sources", "_images"} & set(p.relative_to(site_dir).parts)
                   and not is_redirect_stub(p))
    assert len(pages) >= 18, pages
    return pages


def test_the_redirect_stub_leads_to_a_real_page(site_dir):
    stubs = [p for p in site_dir.rglob("*.html") if "_static" not in p.parts and is_redirect_stub(p)]
    assert stubs == [site_dir / "index.html"]
    target = re.search(r'url=([^"\s]+)', stubs[0].read_text(encoding="utf-8")).group(1)
    assert (site_dir / target).is_file() and not is_redirect_stub(site_dir / target)


@pytest.fixture(scope="module")
def axe_source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "tests/vendor/axe-core/axe.min.js is not the pinned 4.14.1"
    return data.decode("utf-8")


@pytest.fixture(scope="module")
def shots(screenshot_dir) -> Path:
    folder = screenshot_dir / "a11y"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(page, url):
    page.goto(url, wait_until="load")
    page.wait_for_function(RENDERED, timeout=20_000)


def axe_violations(page, axe_source) -> list[dict]:
    if not page.evaluate("!!window.axe"):
        page.add_script_tag(content=axe_source)
    return page.evaluate("""async tags => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
          .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
    }""", WCAG_TAGS)


# The theme's light/dark switch keeps its choice in localStorage.
DARK = "localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violation_on_any_page(theme, browser, site_url, site_dir, axe_source):
    found = {}
    gated = {f"book/{load_settings().page(int(m))}.html" for m in load_settings().gates}
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR") for _ in range(2)]
    main, ungated = contexts
    ungated.add_init_script(UNGATED)
    for context in contexts:
        if theme == "dark":
            context.add_init_script(DARK)
    page = main.new_page()
    try:
        for rel in all_pages(site_dir):
            for view, tab in [("", page)] + ([(" (gating off)", ungated.new_page())] if rel in gated else []):
                open_page(tab, f"{site_url}/{rel}")
                # Every disclosure open, so hidden code, answers and data tables are checked too.
                tab.evaluate("""async () => { document.querySelectorAll('details').forEach(d => { d.open = true; });
                    await Promise.all(document.getAnimations().map(a => a.finished)); }""")   # myst-nb fades code in
                assert tab.evaluate("document.documentElement.dataset.theme") == theme
                violations = axe_violations(tab, axe_source)
                if violations:
                    found[rel + view] = violations
    finally:
        for context in contexts:
            context.close()
    assert gated and found == {}, json.dumps(found, ensure_ascii=False, indent=1)


# ----------------------------------------------------------------------------- keyboard only


def state_of(page, figure_id):
    return page.evaluate("""id => { const g = document.getElementById(id);
        return JSON.stringify([g.data.map(t => [t.x, t.y, t.z, t.text, t.visible, t.base]), g.layout.title]); }""",
                         figure_id)


def slider_active(page, range_id):
    figure_id, index = range_id.rsplit("-slider-", 1)
    return page.evaluate("([id, i]) => document.getElementById(id).layout.sliders[i].active || 0",
                         [figure_id, int(index)])


def move_focused_slider(page, focus) -> None:
    """Arrow key on the focused range input: plotly's slider, the figure and the live region follow."""
    figure = focus["figure"]
    before_state, before_active = state_of(page, figure), slider_active(page, focus["id"])
    key = "ArrowLeft" if focus["value"] == focus["max"] else "ArrowRight"
    page.keyboard.press(key)
    expected = before_active + (1 if key == "ArrowRight" else -1)
    page.wait_for_function("([id, want]) => { const [f, i] = id.split('-slider-');"
                           " return (document.getElementById(f).layout.sliders[+i].active || 0) === want; }",
                           arg=[focus["id"], expected], timeout=5_000)
    page.wait_for_function("id => document.getElementById(id + '-status').textContent.length > 0",
                           arg=figure, timeout=5_000)
    after = page.evaluate(FOCUS)
    assert after["id"] == focus["id"], "the focus left the slider"
    assert HANGUL.search(after["valuetext"]) and f"중 {expected + 1}단계" in after["valuetext"], after["valuetext"]
    assert state_of(page, figure) != before_state, f"{focus['id']}: the figure did not change"


def answer_by_keyboard(page, focus, bank, done: set) -> None:
    """One key stroke (or typed text) for the focused quiz control, so that every answer is right."""
    q = next(q for q in bank.questions if q.id == focus["question"])
    if focus["type"] == "radio" and q.id not in done:
        page.keyboard.press("Space")
        for _ in range(len(q.choices)):
            if page.evaluate(FOCUS)["choice"] == q.correct_choice_ids[0]:
                break
            page.keyboard.press("ArrowDown")
        assert page.evaluate(FOCUS)["choice"] == q.correct_choice_ids[0]
        done.add(q.id)
    elif focus["type"] == "checkbox" and focus["choice"] in q.correct_choice_ids and not focus["checked"]:
        page.keyboard.press("Space")
    elif focus["numeric"]:
        page.keyboard.type(f"{q.answer.value:.15g} {q.answer.unit}".strip())
    elif focus["blank"]:
        page.keyboard.type(next(b.accept[0] for b in q.blanks if b.id == focus["blank"]))
    elif focus["free"]:
        page.keyboard.type("레지스터에 값을 붙잡아 두고 여러 번 다시 씁니다.")


def tab_through(page, on_focus, limit=MAX_TABS, wrap=False) -> list[dict]:
    """Press Tab until the focus passes the page's end (it leaves the page or comes back to a control
    already visited) or on_focus says stop; returns every stop.
    wrap: go on from the top once the end is passed (a search that starts wherever the focus was)."""
    stops = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS)
        if focus is None or (focus["seen"] and not wrap):
            if wrap:
                continue
            break
        stops.append(focus)
        assert not focus["inPlot"], f"Tab reached inside a plotly figure (mode bar?): {focus}"
        if on_focus(focus) == "stop":
            break
    return stops


def test_keyboard_only_checkpoint_sliders_and_hidden_code(browser, site_url, site_dir, shots, axe_source):
    settings = load_settings()
    bank = load_bank(6)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    context.add_init_script(NO_POINTER)
    page = context.new_page()
    try:
        open_page(page, f"{site_url}/book/{settings.page(6)}.html")
        opened_code, moved, answered = [], [], set()

        def on_focus(focus):
            if focus["hiddenCode"] and not opened_code:
                page.keyboard.press("Enter")
                assert page.evaluate("document.activeElement.closest('details').open"), "Enter did not open the code"
                opened_code.append(focus)
                page.screenshot(path=str(shots / "m06_hidden_code_open.png"))
            elif focus["type"] == "range":
                move_focused_slider(page, focus)
                moved.append(focus["figure"])
                page.screenshot(path=str(shots / f"m06_slider_{len(moved)}.png"))
            elif focus["question"] and page.evaluate("document.activeElement.closest('.course-quiz').dataset.module") == "6":
                answer_by_keyboard(page, focus, bank, answered)
            elif focus["action"] == "submit" and answered:
                page.screenshot(path=str(shots / "m06_checkpoint_answered.png"))
                page.keyboard.press("Enter")
                return "stop"

        tab_through(page, on_focus)
        assert opened_code, "no hidden code cell reached with Tab on module 6"
        sliders = page.evaluate("[...document.querySelectorAll('div.course-figure')].filter(g => (g.layout.sliders || []).length).length")
        assert len(set(moved)) == sliders >= 1, (moved, sliders)

        # Self-assessment of free answers (if any), still from the keyboard.
        for q in [q for q in bank.questions if q.type == "free"]:
            found = tab_through(page, lambda f: "stop" if f["self"] == "true" and f["question"] == q.id else None,
                                wrap=True)
            assert found and found[-1]["self"] == "true", f"no self-assessment button reached for {q.id}"
            page.keyboard.press("Enter")
        quiz = page.locator('.course-quiz[data-module="6"]')
        page.wait_for_timeout(300)
        state = page.evaluate("""() => { const q = document.querySelector('.course-quiz[data-module="6"]');
            return [q.dataset.quizState, (q.querySelector('[data-quiz-submit-warning]') || {}).textContent,
                    [...q.querySelectorAll('[data-quiz-status]')].map(b => b.getAttribute('data-quiz-status'))]; }""")
        assert state[0] == "final", (state, sorted(answered))
        banner = quiz.locator("[data-quiz-banner]")
        assert banner.get_attribute("data-quiz-passed") == "true"
        # The result is announced: it sits in a live region.
        live = page.evaluate("""() => { const b = document.querySelector('.course-quiz[data-module="6"] [data-quiz-banner]');
            const region = b.closest('[aria-live], [role=status]'); return region && region.textContent; }""")
        assert live and f"{len(bank.ids)}/{len(bank.ids)}" in live
        banner.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "m06_checkpoint_passed.png"), full_page=False)
        assert axe_violations(page, axe_source) == [], "axe after the checkpoint"
        assert page.evaluate("window.__pointerEvents") == 0
    finally:
        context.close()


def test_every_simulator_slider_moves_from_the_keyboard(browser, site_url, site_dir, shots):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    context.add_init_script(NO_POINTER)
    context.add_init_script(UNGATED)
    page = context.new_page()
    total = 0
    try:
        for rel in all_pages(site_dir):
            if "m06_tiling" in rel:
                continue                      # covered by the checkpoint test above
            open_page(page, f"{site_url}/{rel}")
            sliders = page.evaluate("[...document.querySelectorAll('div.course-figure')]"
                                    ".reduce((n, g) => n + (g.layout.sliders || []).length, 0)")
            if not sliders:
                continue
            moved = []

            def on_focus(focus):
                if focus["type"] == "range":
                    move_focused_slider(page, focus)
                    moved.append(focus["id"])
                    if len(moved) == 1:
                        page.screenshot(path=str(shots / (rel.replace("/", "_") + "_slider.png")))

            tab_through(page, on_focus)
            assert len(moved) == sliders, f"{rel}: {moved} moved from the keyboard, of {sliders} sliders"
            total += sliders
        assert total >= 11          # 13 sliders on the site, two of them on module 6 (the test above)
        assert page.evaluate("window.__pointerEvents") == 0
    finally:
        context.close()


def test_figure_menus_answer_arrow_keys(page, site_url):
    """A button menu is a radio group: an arrow key picks the next option, as clicking plotly's button would."""
    open_page(page, f"{site_url}/book/appendix/sim_memory.html")
    radio = page.locator(".course-figure-keys input[type=radio]:checked").first
    figure, name = radio.evaluate("r => [r.closest('.course-figure-block').querySelector('div.course-figure').id,"
                                  " r.closest('fieldset').querySelector('legend').textContent]")
    menu = page.evaluate("id => { const m = document.getElementById(id).layout.updatemenus[0];"
                         " return [m.active || 0, m.buttons.length]; }", figure)
    radio.focus()
    page.keyboard.press("ArrowRight")
    want = (menu[0] + 1) % menu[1]
    page.wait_for_function("([id, want]) => document.getElementById(id).layout.updatemenus[0].active === want",
                           arg=[figure, want])
    page.wait_for_function("id => document.getElementById(id + '-status').textContent.length > 0", arg=figure)
    assert HANGUL.search(name) and page.evaluate("id => document.getElementById(id + '-status').textContent",
                                                 figure).startswith(name)


# ----------------------------------------------------------------------------- names, mouse view, motion


def test_figures_are_named_in_korean_and_mode_bars_leave_the_tab_order(browser, site_url, site_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    context.add_init_script(UNGATED)
    page = context.new_page()
    figures = 0
    for rel in all_pages(site_dir):
        open_page(page, f"{site_url}/{rel}")
        info = page.evaluate("""() => [...document.querySelectorAll('.course-figure-block')].map(b => ({
            role: b.getAttribute('role'), name: b.getAttribute('aria-label'),
            desc: (b.querySelector('.course-figure-desc') || {}).textContent || '',
            tabbable: [...b.querySelectorAll('div.course-figure a, div.course-figure button, div.course-figure [tabindex]')]
                      .filter(e => e.tabIndex >= 0).length,
            keys: b.querySelector('.course-figure-keys') ? b.querySelector('.course-figure-keys').getBoundingClientRect().width : null}))""")
        for fig in info:
            assert fig["role"] == "figure" and fig["name"].startswith("그림: ") and HANGUL.search(fig["name"]), (rel, fig)
            assert len(fig["desc"]) > 40 and HANGUL.search(fig["desc"]), (rel, fig)
            assert fig["tabbable"] == 0, f"{rel}: {fig['tabbable']} tab stops inside a figure"
            assert fig["keys"] is None or fig["keys"] <= 1, f"{rel}: keyboard controls visible without focus"
        figures += len(info)
    context.close()
    assert figures >= 40


def test_reduced_motion_turns_transitions_off(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR", reduced_motion="reduce")
    page = context.new_page()
    try:
        open_page(page, f"{site_url}/book/appendix/sim_compute.html")
        durations = page.evaluate("""() => [...document.querySelectorAll('div.course-figure')]
            .flatMap(g => (g.layout.sliders || []).map(s => (s.transition || {}).duration))""")
        assert durations and all(d == 0 for d in durations), durations
        assert page.evaluate("getComputedStyle(document.querySelector('.course-figure-block svg')).transitionDuration") == "0s"
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    page = context.new_page()
    try:
        open_page(page, f"{site_url}/book/appendix/sim_compute.html")
        durations = page.evaluate("""() => [...document.querySelectorAll('div.course-figure')]
            .flatMap(g => (g.layout.sliders || []).map(s => (s.transition || {}).duration))""")
        assert any(d != 0 for d in durations), "without the preference the figures keep plotly's transitions"
    finally:
        context.close()


def test_copy_buttons_are_named_in_korean(page, site_url):
    """sphinx-copybutton has no Korean; course/static/a11y.js gives its buttons Korean names."""
    open_page(page, f"{site_url}/book/m04_naive.html")
    page.wait_for_selector("button.copybtn", state="attached")
    names = page.evaluate("""() => [...document.querySelectorAll('button.copybtn')].map(b =>
        [b.querySelector('svg title') ? b.querySelector('svg title').textContent : '', b.dataset.tooltip])""")
    assert names and all(n == ["클립보드에 복사", "복사"] for n in names), names[:3]
