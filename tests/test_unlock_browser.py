"""A code the instructor's CLI signs opens a gated chapter in Chromium (WebCrypto, course/site/static/unlock.js
through quiz.js's applyGates), and nothing stored by hand does: not a forged code, not a flag, not a
passing score in the progress. A tiny local page with the site's gate scripts; no site build needed."""
import json
from pathlib import Path

import pytest

pytest.importorskip("cryptography")

from course import gating  # noqa: E402
from course.quiz import unlock  # noqa: E402
from course.settings import default_settings, settings_from_dict, unlock_settings_from  # noqa: E402
from site_probes import open_served  # noqa: E402

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
STATIC = REPO / "course" / "site" / "static"
ORIGIN = "http://localhost:8765"          # localhost: a secure context, where WebCrypto exists
COURSE = "GPU 행렬 곱셈 최적화: SGEMM"
PASSING = {"schema": "sgemm-course-progress", "schema_version": 1, "student": {},
           "attempts": [{"id": "forged", "module": 6, "time": "2026-11-22T10:00:00.000Z", "answers": {}, "results": {},
                         "score": 8, "max_score": 8, "correct_count": 8, "passed": True}]}


def page_html(marker: str) -> str:
    settings = settings_from_dict(dict(default_settings(), gating_policy="strict")).as_site_dict()
    return (f'<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>모듈 7</title>'
            f"<script>window.COURSE_SETTINGS = {json.dumps(settings, ensure_ascii=False)};</script>"
            '<script src="quiz_rules.js"></script><script src="quiz.js"></script><script src="unlock.js"></script></head>'
            f'<body><main><article><h1>모듈 7</h1>{marker}<p id="secret">잠긴 본문</p></article></main></body></html>')


@pytest.fixture(scope="module")
def signer():
    key = unlock.generate_private_key()
    settings = unlock_settings_from({"gating_unlock": "instructor",
                                            "unlock_public_key": unlock.public_key_text(key)}, COURSE)
    return key, settings


@pytest.fixture
def open_page(browser):
    contexts = []

    def make(marker):
        context = browser.new_context(locale="ko-KR")
        contexts.append(context)
        files = {"/gate.html": (page_html(marker), "text/html"),
                 "/quiz_rules.js": ((STATIC / "quiz_rules.js").read_text(encoding="utf-8"), "text/javascript"),
                 "/quiz.js": ((STATIC / "quiz.js").read_text(encoding="utf-8"), "text/javascript"),
                 "/unlock.js": ((STATIC / "unlock.js").read_text(encoding="utf-8"), "text/javascript")}
        page = open_served(context, ORIGIN, files, "/gate.html")
        return page

    yield make
    for context in contexts:
        context.close()


def notice_state(page):
    return page.get_attribute("[data-course-gate-notice]", "data-gate-state")


def test_forged_progress_opens_a_plain_gate_so_the_forgery_is_a_real_one(open_page):
    page = open_page(gating.gate_marker_html(7, 6))
    assert notice_state(page) == "locked" and not page.is_visible("#secret")
    page.evaluate("p => localStorage.setItem('sgemm-course-progress', JSON.stringify(p))", PASSING)
    page.reload()
    assert notice_state(page) == "open" and page.is_visible("#secret")


def test_a_cli_code_opens_the_chapter_and_nothing_forged_does(open_page, signer):
    key, settings = signer
    page = open_page(gating.gate_marker_html(7, 6, settings))
    page.wait_for_selector("form[data-course-unlock-form]")
    assert notice_state(page) == "locked" and not page.is_visible("#secret")
    assert "통과한 것만으로는 열리지 않습니다" in page.inner_text("[data-course-gate-notice]")
    # Forgeries: a passing score, flags, a made-up code for the right slot.
    forged = {"codes": {f"{COURSE}\n6": {"student": "20261234", "code": "U6-" + "A" * 86}}, "unlocked": True}
    page.evaluate("""([p, f]) => { localStorage.setItem('sgemm-course-progress', JSON.stringify(p));
                      localStorage.setItem('sgemm-course-unlock', JSON.stringify(f));
                      localStorage.setItem('unlocked', 'true'); }""", [PASSING, forged])
    page.reload()
    page.wait_for_selector("[data-course-unlock-error='true']")
    assert notice_state(page) == "locked" and not page.is_visible("#secret")
    # The keyboard alone: the labelled fields, a wrong code first (announced), then the right one.
    code = unlock.make_code(key, COURSE, 6, "20261234")
    other = unlock.make_code(key, COURSE, 6, "20261235")
    page.get_by_label("학번", exact=True).focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("20261234")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.hasAttribute('data-course-unlock-code')")
    page.keyboard.type(other)
    page.keyboard.press("Enter")
    alert = page.wait_for_selector("[data-course-unlock-status][role='alert']:has-text('맞지 않습니다')")
    assert alert and page.get_attribute("[data-course-unlock-code]", "aria-invalid") == "true"
    assert not page.is_visible("#secret")
    page.get_by_label("잠금 해제 코드", exact=True).fill(code)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-course-gate-notice][data-gate-state='open']")
    assert page.is_visible("#secret") and "20261234" in page.inner_text("[data-course-gate-notice]")
    assert page.evaluate("document.activeElement.closest('[data-course-gate-notice]') !== null")
    # Verified again on every load: the stored code still opens; the same code under another id does not.
    page.reload()
    page.wait_for_selector("[data-course-gate-notice][data-gate-state='open']")
    assert page.is_visible("#secret")
    page.evaluate("""() => { const d = JSON.parse(localStorage.getItem('sgemm-course-unlock'));
                      Object.values(d.codes).forEach(e => { e.student = '20261235'; });
                      localStorage.setItem('sgemm-course-unlock', JSON.stringify(d)); }""")
    page.reload()
    page.wait_for_selector("[data-course-unlock-error='true']")
    assert notice_state(page) == "locked" and not page.is_visible("#secret")
    assert page.errors == []
