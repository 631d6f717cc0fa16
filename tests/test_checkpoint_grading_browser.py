"""Checkpoint pages in Chromium, on a small local page with the site's three quiz scripts (no site build):
under checkpoint_grading: instructor the page collects the answers, says that the instructor grades them,
shows no score and hands over a submission file that `grade` grades; under gating_unlock: instructor a
pass on a page-graded checkpoint says that the instructor's code opens the next chapter."""
import json
import re
from pathlib import Path

import pytest

from course.quiz.bank import load_bank
from course.instructor.submissions import grade_folder
from course.quiz.widget import quiz_html
from course.settings import settings_from_dict
from course.quiz.variants import variant_question
from site_probes import open_served

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parent.parent / "course" / "site" / "static"
ORIGIN = "http://localhost:8766"          # localhost: a secure context, where WebCrypto exists
BANK = load_bank(6)


def page_html(settings, site: dict) -> str:
    return (f'<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>모듈 6</title>'
            f"<script>window.COURSE_SETTINGS = {json.dumps(site, ensure_ascii=False)};</script>"
            '<script src="checkpoint_lock.js"></script><script src="quiz_rules.js"></script>'
            '<script src="quiz.js"></script></head>'
            f"<body><main><article><h1>모듈 6</h1>{quiz_html(BANK, settings)}</article></main></body></html>")


@pytest.fixture
def open_quiz(browser):
    contexts = []

    def make(settings, site=None):
        context = browser.new_context(locale="ko-KR", accept_downloads=True)
        contexts.append(context)
        files = {"/quiz.html": (page_html(settings, site or settings.as_site_dict()), "text/html")}
        for name in ("checkpoint_lock.js", "quiz_rules.js", "quiz.js"):
            files["/" + name] = ((STATIC / name).read_text(encoding="utf-8"), "text/javascript")
        page = open_served(context, ORIGIN, files, "/quiz.html")
        page.wait_for_selector(".course-quiz[data-quiz-state='ready']")
        return page

    yield make
    for context in contexts:
        context.close()


def answer_right(page):
    """Every question answered right for the values this attempt shows (a variant's from data-quiz-variant)."""
    for q in BANK.questions:
        block = page.locator(f'[data-quiz-question="{q.id}"]')
        drawn = block.get_attribute("data-quiz-variant")
        q = variant_question(q, json.loads(drawn)) if drawn and q.variant is not None else q
        if q.type in ("single", "multiple"):
            for cid in q.correct_choice_ids:
                block.locator(f'input[data-quiz-choice="{cid}"]').check()
        elif q.type == "numeric":
            block.locator("input[data-quiz-numeric]").fill(f"{q.answer.value:.15g} {q.answer.unit}".strip())
        elif q.type == "code":
            for blank in q.blanks:
                block.locator(f'input[data-quiz-blank="{blank.id}"]').fill(blank.accept[0])
        else:
            block.locator("textarea[data-quiz-free]").fill("제 설명입니다.")


def test_an_instructor_graded_checkpoint_collects_answers_for_grade_and_shows_no_score(open_quiz, tmp_path):
    page = open_quiz(settings_from_dict({"checkpoint_grading": "instructor", "gating_policy": "advisory"}))
    assert "강사가 채점합니다" in page.inner_text("[data-quiz-graded-by='instructor']")
    answer_right(page)
    page.get_by_role("button", name="답 확정하기").click()
    page.wait_for_selector(".course-quiz[data-quiz-state='final']")
    result = page.inner_text("[data-quiz-result]")
    assert "강사가 제출 파일로 채점" in result and not re.search(r"\d+문항 정답|통과", result)
    assert page.locator("[data-quiz-banner]").count() == 0
    assert page.locator("[data-quiz-feedback]:visible").count() == 0 and page.locator("[data-quiz-self]").count() == 0
    stored = page.evaluate("JSON.parse(localStorage.getItem('sgemm-course-progress'))")
    assert stored["attempts"] == [] and stored["attempt_numbers"] == {"6": 1}   # the number is used, no score kept
    page.fill("input[data-quiz-student='id']", "S1")
    with page.expect_download() as download:
        page.click("button[data-quiz-action='download']")
    folder = tmp_path / "subs"
    folder.mkdir()
    download.value.save_as(folder / download.value.suggested_filename)
    [graded] = grade_folder(BANK, folder, 6).graded                     # grade draws the values the page showed
    assert graded.result.correct_count == sum(q.type != "free" for q in BANK.questions)
    assert page.errors == []


@pytest.mark.parametrize("unlock, lead", [("progress", "이제 다음 장이 열렸습니다"),
                                          ("instructor", "다음 장은 강사가 주는 잠금 해제 코드(unlock code)로 열립니다")])
def test_the_pass_banner_says_what_opens_the_next_chapter(open_quiz, unlock, lead):
    settings = settings_from_dict({})
    page = open_quiz(settings, dict(settings.as_site_dict(), gating_unlock=unlock))
    answer_right(page)
    page.click("button[data-quiz-action='submit']")
    for q in BANK.questions:
        if q.type == "free":
            page.click(f'[data-quiz-question="{q.id}"] button[data-quiz-self="true"]')
    banner = page.wait_for_selector("[data-quiz-banner][data-quiz-passed='true']")
    text = banner.inner_text()
    assert lead in text and page.locator("[data-course-next-link='7']").count() == 1
    assert ("이제 다음 장이 열렸습니다" in text) == (unlock == "progress")
    assert page.errors == []
