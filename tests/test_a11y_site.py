"""Accessibility of the built site in Chromium (WCAG 2.1 A/AA), offline.

- every page is surveyed once per theme (light, dark; site_probes.survey_site, which also measures
  what tests/test_site_reflow.py and the quiz names in tests/test_site_quiz_a11y.py check), with
  every disclosure open (hidden code, "표로 보기" tables, answers), gated chapters both locked and
  with the gating policy "off": axe-core (vendored, tests/vendor/axe-core) finds no serious or
  critical violation; every element the keyboard reaches has a focus indicator with at least 3:1
  against the colour really behind it; the theme's English words are marked lang="en"; at 1280 px
  every figure's title and controls fit and do not cover its plot; a simulator's description and
  tables are what course/site/figure_text.py makes of its data (the browser's copy, used after every
  move, gives the same text);
- keyboard only: on module 6, open a hidden code cell, move the simulators' sliders and pass the
  checkpoint with Tab, arrows, Space and Enter; then move every slider on every other page the same
  way (the description and the tables follow). No pointer event is ever sent. Screenshots land in
  _build/screenshots/a11y/;
- the mode bars stay out of the tab order, and prefers-reduced-motion turns the slider transitions off.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from course.quiz.bank import load_bank
from course.settings import load_settings
from course.quiz.variants import variant_question
from site_probes import (UNGATED, all_pages, axe_violations, figure_layout_problems, is_redirect_stub, open_page,
                         survey_site)

pytestmark = pytest.mark.browser

HANGUL = re.compile(r"[가-힣]")
MAX_TABS = 1500

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
NO_POINTER = """window.__pointerEvents = 0;
  ['pointerdown', 'mousedown', 'click'].forEach(t => window.addEventListener(t, e => {
    if (e.isTrusted && (e.type !== 'click' || e.detail > 0)) window.__pointerEvents += 1; }, true));"""


def test_the_redirect_stub_leads_to_a_real_page(site_dir):
    stubs = [p for p in site_dir.rglob("*.html") if "_static" not in p.parts and is_redirect_stub(p)]
    assert stubs == [site_dir / "index.html"]
    target = re.search(r'url=([^"\s]+)', stubs[0].read_text(encoding="utf-8")).group(1)
    assert (site_dir / target).is_file() and not is_redirect_stub(site_dir / target)


@pytest.fixture(scope="module")
def shots(screenshot_dir) -> Path:
    folder = screenshot_dir / "a11y"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module", params=["light", "dark"])
def survey(request, browser, site_url, site_dir):
    """(theme, {page: measurements}): every page surveyed once in that theme (site_probes.survey_site)."""
    found = survey_site(browser, site_url, site_dir, request.param)
    assert {f["theme"] for f in found.values()} == {request.param}
    return request.param, found


def test_axe_finds_no_serious_or_critical_violation_on_any_page(survey):
    theme, found = survey
    bad = {page: f["axe"] for page, f in found.items() if f["axe"]}
    assert bad == {}, f"{theme}: " + json.dumps(bad, ensure_ascii=False, indent=1)


def test_every_focusable_element_shows_a_focus_ring_of_3_to_1(survey):
    """WCAG 2.4.7 and 1.4.11 in both themes: the dark theme's pink ring (#e47fd7) on the light
    background kept for notebook output (#ced6dd) was 1.72:1 on the quizzes, tables and code toggles."""
    theme, found = survey
    counted = sum(r["count"] for f in found.values() for r in f["focus"])
    bad = {page: sorted({f"{r['what']}: {r['ratio']}:1 ({r['colour']} on {r.get('ground')})" for r in f["focus"]
                         if r["ratio"] < 3})[:8]
           for page, f in found.items() if any(r["ratio"] < 3 for r in f["focus"])}
    assert counted > 1000 and bad == {}, f"{theme}: " + json.dumps(bad, ensure_ascii=False, indent=1)


def test_the_themes_english_words_are_marked_english(survey):
    """WCAG 3.1.2: 'Skip to main content', 'Color mode' … carry lang="en"; labels that hold Korean
    too (landmarks, the search box, the page links) are Korean."""
    theme, found = survey
    bad = {page: f["english"] for page, f in found.items() if f["english"]}
    assert bad == {}, f"{theme}: " + json.dumps(bad, ensure_ascii=False, indent=1)


def test_figure_titles_and_controls_fit_at_1280_px(survey):
    theme, found = survey
    if theme != "light":
        pytest.skip("measured once, in the light theme")
    figures = [fig for f in found.values() for fig in f.get("figures", [])]
    problems = figure_layout_problems(figures, 1280)
    assert len(figures) >= 40 and problems == [], "\n".join(problems)


def _text(markup: str) -> str:
    """The markup without what the page's scripts add to a table's scroll box once it is in the page
    (the theme's tabindex, a11y.js's region and name)."""
    markup = re.sub(r' (tabindex|role|aria-label|data-course-scroll-box)="[^"]*"', "", markup)
    return html.unescape(re.sub(r"\s+", " ", markup))


def test_the_browser_describes_and_tables_a_figure_as_python_does(survey):
    """figures.js makes a simulator's description and tables again after every move; for the state
    the page was built in, its text is what course/site/figure_text.py wrote, from the JSON and from the
    live figure alike (so what a move shows is what Python would have written for that state)."""
    theme, found = survey
    if theme != "light":
        pytest.skip("measured once, in the light theme")
    figures = [fig for f in found.values() for fig in f.get("figure_text", [])]
    simulators = [fig for fig in figures if fig["controls"]]
    assert len(simulators) >= 20
    for fig in figures:
        for made in (fig["fromSpec"], fig["fromLive"]):
            assert _text(made["body"]) == _text(fig["built"]["body"]), fig["id"]
    for fig in simulators:
        for made in (fig["fromSpec"], fig["fromLive"]):
            assert made["desc"] == fig["built"]["desc"], fig["id"]


# ----------------------------------------------------------------------------- keyboard only


CURRENT_TEXT = """id => { const g = document.getElementById(id), T = CourseFigures.text;
  const body = document.querySelector('#' + id + '-data .course-figure-data-body');
  return { desc: document.getElementById(id + '-desc').textContent, expectedDesc: T.describeState(g.data, g.layout),
           title: T.title(g.layout.title), body: body ? body.innerHTML : null,
           expectedBody: body ? T.dataBodyHtml(T.tables(g.data, g.layout), T.notes(g.data, g.layout)) : null }; }"""


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
    # The description and the tables are those of the new state, made by figures.js from the live figure.
    now = page.evaluate(CURRENT_TEXT, figure)
    assert now["desc"] == now["expectedDesc"] and now["desc"].startswith("지금 보이는 상태: " + now["title"]), now
    assert _text(now["body"] or "") == _text(now["expectedBody"] or ""), \
        f"{focus['id']}: the '표로 보기' tables did not follow the slider"


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
        drawn = page.locator(f'[data-quiz-question="{q.id}"]').first.get_attribute("data-quiz-variant")
        if drawn and q.variant is not None:   # a checkpoint shows a drawn variant from the first attempt on
            q = variant_question(q, json.loads(drawn))
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


def test_keyboard_only_checkpoint_sliders_and_hidden_code(browser, site_url, site_dir, shots):
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
        try:                                       # the last verdict makes the attempt final
            page.wait_for_function("""() => document.querySelector('.course-quiz[data-module="6"]')
                                         .dataset.quizState === 'final'""", timeout=5_000)
        except Exception:                          # not final: the assertion below says why
            pass
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
        assert axe_violations(page) == [], "axe after the checkpoint"
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


def test_figures_are_named_in_korean_and_mode_bars_leave_the_tab_order(survey):
    theme, found = survey
    if theme != "light":
        pytest.skip("measured once, in the light theme")
    figures = [(page, fig) for page, f in found.items() for fig in f.get("names", [])]
    for page, fig in figures:
        assert fig["role"] == "figure" and fig["name"].startswith("그림: ") and HANGUL.search(fig["name"]), (page, fig)
        assert len(fig["desc"]) > 40 and HANGUL.search(fig["desc"]), (page, fig)
        assert fig["tabbable"] == 0, f"{page}: {fig['tabbable']} tab stops inside a figure"
    assert len(figures) >= 40


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
    """sphinx-copybutton has no Korean; course/site/static/a11y.js gives its buttons Korean names."""
    open_page(page, f"{site_url}/book/m04_naive.html")
    page.wait_for_selector("button.copybtn", state="attached")
    names = page.evaluate("""() => [...document.querySelectorAll('button.copybtn')].map(b =>
        [b.querySelector('svg title') ? b.querySelector('svg title').textContent : '', b.dataset.tooltip])""")
    assert names and all(n == ["클립보드에 복사", "복사"] for n in names), names[:3]
