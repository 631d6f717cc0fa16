"""The quizzes and locked chapters of the built site as a keyboard and screen-reader user meets them
(WCAG 1.3.1, 3.3.1, 4.1.3, 2.4.3, 1.4.11 in forced colours), in Chromium:

- every answer group (fieldset) and every answer input is named by its question's text (as Playwright
  computes names, and as Chromium's accessibility tree gives them to a screen reader), then by its
  own short label ("답", "빈칸 b1", "서술형 답");
- the unanswered-question warning sits in an alert region that is in the page (empty) before it
  speaks, described by the submit button; an unreadable number marks its input aria-invalid and is
  its description, and the focus goes to it;
- the result box is in the page (empty, a live region) before grading, and after grading the focus
  is on it; after a self-assessment verdict the focus stays on the pressed button (or, once final,
  the result); after '다시 풀기' it is on the quiz's title;
- in forced colours (Windows high contrast) the key (on a practice quiz: a checkpoint shows none),
  the feedback's status bar and the pressed 맞음/틀림 stay visible (outlines, borders and system
  colours, not background tints);
- a locked chapter offers no Tab stop into its hidden sections (the theme's table of contents) and no
  download of its source.
"""
from __future__ import annotations

import json

import pytest

from course.quiz.bank import load_bank
from course.settings import load_settings
from site_probes import UNGATED, survey_site

pytestmark = pytest.mark.browser


def expect():
    return pytest.importorskip("playwright.sync_api").expect


def chapter(site_url, module):
    return f"{site_url}/book/{load_settings().page(module)}.html"


def quiz(page, module):
    return page.locator(f'.course-quiz[data-module="{module}"]')


def test_every_answer_group_and_input_is_named_by_its_question(browser, site_url, site_dir):
    """Read in the light theme's survey of every page (site_probes.quiz_names)."""
    found = survey_site(browser, site_url, site_dir, "light")
    checked = sum(f["quiz_names"][0] for f in found.values())
    problems = [f"{page}: {p}" for page, f in found.items() for p in f["quiz_names"][1]]
    assert checked >= 60 and problems == [], "\n".join(problems[:20])


INPUTS = """() => [...document.querySelectorAll(`.course-quiz input[data-quiz-numeric], .course-quiz input[data-quiz-blank],
    .course-quiz textarea[data-quiz-free]`)].map(e => { const block = e.closest('[data-quiz-question]');
  const prompt = block.querySelector('.course-quiz-prompt');
  return { id: e.id, qid: block.dataset.quizQuestion, ariaLabel: e.getAttribute('aria-label'),
           refs: (e.getAttribute('aria-labelledby') || '').split(' '), promptId: prompt.id,
           words: prompt.innerText.replace(/\\s+/g, ' ').trim().split(' ').slice(0, 4).join(' '),
           kind: e.hasAttribute('data-quiz-numeric') ? '답' : e.hasAttribute('data-quiz-blank') ? '빈칸 ' + e.dataset.quizBlank : '서술형 답',
           label: (e.getAttribute('aria-labelledby') || '').split(' ').slice(1)
                  .map(id => (document.getElementById(id) || {}).textContent || '?').join(' ') }; })"""


def test_every_quiz_input_is_named_by_its_question_in_chromiums_tree(browser, site_url):
    """Numeric, code-blank and free-answer inputs on every quiz page (locked chapters with the gating off):
    Chromium's own accessible name (what a screen reader announces) holds the question's first words and
    the input's label, through aria-labelledby on the prompt and a label element — never an aria-label
    alone, never the input naming itself."""
    settings = load_settings()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    context.add_init_script(UNGATED)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    checked, problems = 0, []
    try:
        for module in sorted(settings.pages):
            page.goto(chapter(site_url, module), wait_until="load")
            if not page.locator(".course-quiz[data-quiz-state]").count():
                continue
            root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
            for item in page.evaluate(INPUTS):
                node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"#{item['id']}"})["nodeId"]
                ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
                name = " ".join(ax.get("name", {}).get("value", "").split())
                checked += 1
                if item["ariaLabel"] is not None or item["refs"][0] != item["promptId"] or item["id"] in item["refs"] \
                        or item["words"] not in name or not item["label"].startswith(item["kind"]) \
                        or not name.endswith(" ".join(item["label"].split())):
                    problems.append(f"m{module:02d} {item['qid']} #{item['id']}: {name[:60]!r} … {name[-12:]!r}")
    finally:
        context.close()
    assert checked >= 30 and problems == [], "\n".join(problems[:20])


def test_warnings_and_number_errors_are_announced_and_tied_to_their_input(page, site_url):
    bank = load_bank(6)
    numeric = next(q for q in bank.questions if q.type == "numeric")
    page.goto(chapter(site_url, 6), wait_until="load")
    box = quiz(page, 6)
    submit = box.locator('button[data-quiz-action="submit"]')
    warning = box.locator("[data-quiz-submit-warning]")
    # In the page, empty, before anything is said: a region that then speaks is announced.
    rendered = "e => !e.hidden && getComputedStyle(e).display !== 'none'"
    assert warning.get_attribute("role") == "alert" and warning.inner_text() == "" and warning.evaluate(rendered)
    assert submit.get_attribute("aria-describedby") == warning.get_attribute("id")
    result = box.locator("[data-quiz-result]")
    assert result.get_attribute("aria-live") == "polite" and result.evaluate(rendered)
    assert result.inner_text() == ""

    submit.focus()
    page.keyboard.press("Enter")
    expect()(warning).to_contain_text("답하지 않은 문항이")
    assert box.get_attribute("data-quiz-state") == "ready"

    block = box.locator(f'[data-quiz-question="{numeric.id}"]')
    field = block.locator("input[data-quiz-numeric]")
    field.fill("12,34")
    submit.focus()
    page.keyboard.press("Enter")
    error = block.locator("[data-quiz-input-error]")
    expect()(error).to_contain_text("쉼표")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == error.get_attribute("id")
    expect()(field).to_be_focused()
    field.fill(f"{numeric.answer.value:.15g}")
    submit.focus()
    page.keyboard.press("Enter")
    assert field.get_attribute("aria-invalid") is None and error.is_hidden()


def test_after_grading_the_focus_is_on_the_result(page, site_url):
    bank = load_bank(6)
    page.goto(chapter(site_url, 6), wait_until="load")
    box = quiz(page, 6)
    free = [q for q in bank.questions if q.type == "free"]
    for q in free:
        box.locator(f'[data-quiz-question="{q.id}"] textarea').fill("제 설명입니다.")
    submit = box.locator('button[data-quiz-action="submit"]')
    submit.focus()
    page.keyboard.press("Enter")                       # warns: questions unanswered
    page.keyboard.press("Enter")                       # submits anyway
    result = box.locator("[data-quiz-result]")
    expect()(result).to_be_focused()
    expect()(result).to_contain_text("문항 중")
    assert submit.is_hidden()
    if free:
        # A verdict draws the feedback again: the focus goes to the new pressed button, then (once the
        # last verdict makes the result final and the buttons disabled) to the result.
        for n, q in enumerate(free):
            box.locator(f'[data-quiz-question="{q.id}"] button[data-quiz-self="true"]').focus()
            page.keyboard.press("Enter")
            if n < len(free) - 1:
                expect()(box.locator(f'[data-quiz-question="{q.id}"] button[data-quiz-self="true"]')).to_be_focused()
        expect()(result).to_be_focused()
        expect()(box).to_have_attribute("data-quiz-state", "final")
    box.locator('button[data-quiz-action="retry"]').focus()
    page.keyboard.press("Enter")
    expect()(box.locator(".course-quiz-title")).to_be_focused()


FORCED = """() => {
  const s = e => getComputedStyle(e);
  const right = document.querySelector('.course-quiz-right'), feedback = document.querySelector('.course-quiz-feedback:not([hidden])');
  const pressed = document.querySelector('button[aria-pressed="true"]'), other = document.querySelector('button[aria-pressed="false"]');
  return { forced: matchMedia('(forced-colors: active)').matches, canvas: s(document.body).backgroundColor,
    right: { outline: s(right).outlineStyle, width: parseFloat(s(right).outlineWidth), colour: s(right).outlineColor,
             mark: (right.querySelector('.course-quiz-key-mark') || {}).textContent || '' },
    feedback: { style: s(feedback).borderLeftStyle, width: parseFloat(s(feedback).borderLeftWidth), colour: s(feedback).borderLeftColor },
    pressed: { bg: s(pressed).backgroundColor, fg: s(pressed).color, border: s(pressed).borderTopWidth },
    other: { bg: s(other).backgroundColor, fg: s(other).color, border: s(other).borderTopWidth } };
}"""


def practice_module() -> int:
    """The first module whose quiz is practice (not a checkpoint, not locked): it shows the key."""
    settings = load_settings()
    return next(int(m) for m in sorted(settings.pages, key=int)
                if int(m) not in settings.checkpoints and int(m) not in settings.gates)


def test_key_feedback_and_pressed_state_stay_visible_in_forced_colours(browser, site_url):
    module = practice_module()
    bank = load_bank(module)
    free = next((q for q in bank.questions if q.type == "free"), None)
    if free is None:
        pytest.skip(f"module {module} has no free question to self-assess")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR", forced_colors="active")
    page = context.new_page()
    try:
        page.goto(chapter(site_url, module), wait_until="load")
        box = quiz(page, module)
        box.locator(f'[data-quiz-question="{free.id}"] textarea').fill("제 설명입니다.")
        box.locator('button[data-quiz-action="submit"]').click()
        box.locator('button[data-quiz-action="submit"]').click()
        box.locator(f'[data-quiz-question="{free.id}"] button[data-quiz-self="true"]').click()
        found = page.evaluate(FORCED)
    finally:
        context.close()
    assert found["forced"], "forced colours were not emulated"
    right, feedback = found["right"], found["feedback"]
    assert right["outline"] == "solid" and right["width"] >= 2 and right["colour"] != found["canvas"], found
    assert "정답" in right["mark"], found
    assert feedback["style"] == "solid" and feedback["width"] >= 3 and feedback["colour"] != found["canvas"], found
    pressed, other = found["pressed"], found["other"]
    assert (pressed["bg"], pressed["fg"]) != (other["bg"], other["fg"]) and pressed["bg"] != found["canvas"], found


# ----------------------------------------------------------------------------- locked chapters

TAB_STOP = """() => { const e = document.activeElement; if (!e || e === document.body) return null;
  const seen = e.dataset.lockSeen === '1'; e.dataset.lockSeen = '1';
  const href = e.getAttribute('href') || '';
  const target = href.startsWith('#') && href.length > 1 ? document.getElementById(decodeURIComponent(href.slice(1))) : null;
  return { seen, tag: e.tagName, href, text: (e.textContent || '').trim().slice(0, 40),
           hiddenTarget: !!target && !target.getClientRects().length }; }"""


def passed_progress(module: int, correct: int) -> str:
    attempt = {"id": "t1", "module": module, "time": "2026-11-25T00:00:00Z", "answers": {}, "results": {},
               "score": correct, "max_score": correct, "correct_count": correct, "passed": True}
    return json.dumps({"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [attempt], "student": {}})


def tab_stops(page) -> list[dict]:
    stops = []
    for _ in range(400):
        page.keyboard.press("Tab")
        stop = page.evaluate(TAB_STOP)
        if stop is None or stop["seen"]:
            break
        stops.append(stop)
    return stops


def test_a_locked_chapter_offers_no_link_into_hidden_sections_and_no_source(browser, site_url):
    settings = load_settings()
    if settings.gating_policy != "strict":
        pytest.skip("this scenario needs gating_policy: strict")
    module, requires = next((int(m), int(r)) for m, r in settings.gates.items())
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    page = context.new_page()
    try:
        page.goto(chapter(site_url, module), wait_until="load")
        assert page.locator('[data-course-gate-notice][data-gate-state="locked"]').count() == 1
        stops = tab_stops(page)
        assert len(stops) > 5 and any(s["href"] for s in stops)
        into_hidden = [s for s in stops if s["hiddenTarget"]]
        sources = [s for s in stops if "_sources" in s["href"] or s["href"].endswith((".md", ".ipynb"))]
        assert into_hidden == [] and sources == [], (into_hidden[:5], sources)
        assert page.locator('a[href*="_sources"]').evaluate_all("a => a.filter(e => e.getClientRects().length).length") == 0
        # Passed: the page's table of contents and its download come back.
        cp = settings.checkpoint(requires)
        page.evaluate("v => localStorage.setItem('sgemm-course-progress', v)", passed_progress(requires, cp.pass_count))
        page.reload(wait_until="load")
        assert page.locator('[data-course-gate-notice]').get_attribute("data-gate-state") == "open"
        assert any(s["hiddenTarget"] is False and s["href"].startswith("#") for s in tab_stops(page))
        assert page.locator(".dropdown-download-buttons").is_visible()
    finally:
        context.close()
