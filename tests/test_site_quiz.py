"""The built site in Chromium: checkpoint quiz, gating, progress in localStorage and the
submission file graded by the instructor command line.

Needs the site built into _build/html (the fixtures in conftest.py skip otherwise).
Selectors are the data attributes documented at the top of course/static/quiz.js; the
right answers come from the bank (course.bank), never typed in here.
"""
import csv
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import course
from course.bank import load_bank
from course.settings import load_settings
from course.shuffle import shuffled_ids

pytestmark = pytest.mark.browser

ROOT = Path(course.__file__).resolve().parent.parent
STORAGE_KEY = "sgemm-course-progress"


def expect():
    return pytest.importorskip("playwright.sync_api").expect


def chapter_url(site_url, module):
    """URL of a chapter page; skips the test while that page has not been built."""
    url = f"{site_url}/book/{load_settings().page(module)}.html"
    try:
        urllib.request.urlopen(url, timeout=10).close()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            pytest.skip(f"chapter page not built yet: {url}")
        raise
    return url


def wrong_choice(q):
    return next(c.id for c in q.choices if not c.correct)


def answer(page, q, right):
    """Fill one question on the page, correctly or not."""
    block = page.locator(f'[data-quiz-question="{q.id}"]')
    if q.type == "single":
        block.locator(f'input[data-quiz-choice="{q.correct_choice_ids[0] if right else wrong_choice(q)}"]').check()
    elif q.type == "multiple":
        for cid in (q.correct_choice_ids if right else [wrong_choice(q)]):
            block.locator(f'input[data-quiz-choice="{cid}"]').check()
    elif q.type == "numeric":
        value = q.answer.value if right else q.answer.value * 2 + q.answer.tolerance + 1
        block.locator("input[data-quiz-numeric]").fill(f"{value:.15g} {q.answer.unit}".strip())
    elif q.type == "code":
        for blank in q.blanks:
            block.locator(f'input[data-quiz-blank="{blank.id}"]').fill(f"  {blank.accept[0]} " if right else "wrong")
    else:
        block.locator("textarea[data-quiz-free]").fill("제 설명입니다.")


def take_quiz(page, bank, right_ids):
    quiz = page.locator(f'.course-quiz[data-module="{bank.module}"]')
    for q in bank.questions:
        answer(page, q, q.id in right_ids)
    quiz.locator('button[data-quiz-action="submit"]').click()
    for q in bank.questions:
        if q.type == "free":
            verdict = "true" if q.id in right_ids else "false"
            page.locator(f'[data-quiz-question="{q.id}"] button[data-quiz-self="{verdict}"]').click()
    expect()(quiz).to_have_attribute("data-quiz-state", "final")
    return quiz


def watch_quiz_errors(page):
    """Errors raised or logged by quiz.js on this page (the theme's own console noise,
    which conftest's page.console_errors also collects, is not this test's concern)."""
    errors = []
    page.on("pageerror", lambda e: "quiz.js" in (e.stack or "") and errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and "quiz.js" in (m.location or {}).get("url", "")
            and errors.append(m.text))
    return errors


def choice_orders(page, module):
    """{question id: [choice ids in the order shown]} for the choice questions of module's quiz."""
    return page.evaluate("""m => Object.fromEntries(
        [...document.querySelectorAll(`.course-quiz[data-module="${m}"] [data-quiz-question]`)]
        .filter(b => b.querySelector('input[data-quiz-choice]'))
        .map(b => [b.getAttribute('data-quiz-question'),
                   [...b.querySelectorAll('input[data-quiz-choice]')].map(i => i.getAttribute('data-quiz-choice'))]))""",
                         module)


def seeded_orders(bank, learner, attempt):
    return {q.id: shuffled_ids([c.id for c in q.choices], learner, attempt, q.id) for q in bank.questions if q.choices}


def gate_state(page):
    return page.locator("[data-course-gate-notice]").get_attribute("data-gate-state")


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def grade(folder, out, *extra):
    return subprocess.run([sys.executable, "-m", "course", "grade", "--module", "6", "--submissions", str(folder),
                           "--out", str(out), *map(str, extra)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_checkpoint_gates_module_7_until_passed(page, site_url, tmp_path):
    quiz_errors = watch_quiz_errors(page)
    settings = load_settings()
    if settings.gating_policy != "strict":
        pytest.skip("this scenario needs gating_policy: strict")
    checkpoint = settings.checkpoint(6)
    bank = load_bank(6)
    page.goto(chapter_url(site_url, 7))

    # 1. locked: the notice names the checkpoint and links to its page; the content is hidden
    expect()(page.locator("[data-course-gate-notice]")).to_have_attribute("data-gate-state", "locked")
    notice = page.locator("[data-course-gate-notice]").inner_text()
    assert checkpoint.rule_text in notice and checkpoint.title in notice
    link = page.locator("a[data-course-gate-link]")
    assert link.get_attribute("href").split("#")[0] == f"{settings.page(6)}.html"
    assert page.locator("[data-course-gated-hidden]").count() > 0
    expect()(page.locator("article h1").first).to_be_visible()
    hidden_heading = page.locator("article h2").first
    if hidden_heading.count():
        expect()(hidden_heading).to_be_hidden()

    # 2. fail the checkpoint on its own page (one fewer than the pass count)
    link.click()
    page.wait_for_url(f"**/{settings.page(6)}.html*")
    first = [q.id for q in bank.questions][: checkpoint.pass_count - 1]
    quiz = take_quiz(page, bank, set(first))
    expect()(quiz.locator("[data-quiz-banner]")).to_have_attribute("data-quiz-passed", "false")

    other = page.context.new_page()
    other_errors = watch_quiz_errors(other)
    other.goto(chapter_url(site_url, 7))
    assert gate_state(other) == "locked"

    # 3. retry (the next attempt: a new seeded order) and pass
    learner = quiz.get_attribute("data-quiz-learner")
    assert quiz.get_attribute("data-quiz-attempt") == "1" and choice_orders(page, 6) == seeded_orders(bank, learner, 1)
    quiz.locator('button[data-quiz-action="retry"]').click()
    expect()(quiz).to_have_attribute("data-quiz-state", "ready")
    assert quiz.locator("input[data-quiz-choice]:checked").count() == 0
    assert quiz.get_attribute("data-quiz-attempt") == "2" and choice_orders(page, 6) == seeded_orders(bank, learner, 2)
    take_quiz(page, bank, set(bank.ids))
    banner = quiz.locator("[data-quiz-banner]")
    expect()(banner).to_have_attribute("data-quiz-passed", "true")
    assert f"{len(bank.ids)}/{len(bank.ids)}" in banner.inner_text()

    # 4. download the submission file
    quiz.locator('input[data-quiz-student="id"]').fill("TEST-001")
    quiz.locator('input[data-quiz-student="name"]').fill("테스트 학생")
    with page.expect_download() as download_info:
        quiz.locator('button[data-quiz-action="download"]').click()
    download = download_info.value
    folder = tmp_path / "subs"
    folder.mkdir()
    saved = folder / download.suggested_filename
    download.save_as(saved)
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["format"] == "sgemm-course-submission" and doc["student"]["id"] == "TEST-001"
    assert doc["integrity"] and doc["integrity"]["algorithm"] == "sha256"   # 127.0.0.1 is a secure context
    assert doc["presentation"] == {"learner": learner, "attempt": 2, "choice_order": seeded_orders(bank, learner, 2)}
    single = next(q for q in bank.questions if q.type == "single")
    feedback = quiz.locator(f'[data-quiz-question="{single.id}"] [data-quiz-feedback]').inner_text()
    key = next(c.text for c in single.choices if c.correct)
    assert "정답" in feedback and "정답:" not in feedback and key not in feedback   # a checkpoint never shows a key

    # 5. module 7 opens, and stays open after a reload
    other.reload()
    assert gate_state(other) == "open"
    assert other.locator("[data-course-gated-hidden]").count() == 0
    page.goto(chapter_url(site_url, 7))
    assert gate_state(page) == "open"
    page.reload()
    assert gate_state(page) == "open" and page.locator("[data-course-gated-hidden]").count() == 0

    # 6. the instructor's authoritative grade agrees (exit 0: no problem, the recorded order matches its seed)
    out = tmp_path / "gradebook.csv"
    proc = grade(folder, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = read_csv(out)[0]
    auto = sum(1 for q in bank.questions if q.type != "free")
    assert row["student_id"] == "TEST-001" and row["correct_count"] == str(auto)
    assert row["passed"] == ("yes" if auto >= checkpoint.pass_count else "pending")
    free = [q.id for q in bank.questions if q.type == "free"]
    if free:
        marks = tmp_path / "marks.csv"
        marks.write_text("student_id,question_id,mark\n" + "".join(f"TEST-001,{qid},1\n" for qid in free),
                         encoding="utf-8")
        assert grade(folder, out, "--manual-marks", marks).returncode == 0
        row = read_csv(out)[0]
    assert row["passed"] == "yes" and row["correct_count"] == str(len(bank.ids))
    assert quiz_errors == [] and other_errors == []


def test_unreadable_number_blocks_submission(page, site_url):
    quiz_errors = watch_quiz_errors(page)
    bank = load_bank(6)
    numeric = next((q for q in bank.questions if q.type == "numeric"), None)
    if numeric is None:
        pytest.skip("module 6 has no numeric question")
    page.goto(chapter_url(site_url, 6))
    block = page.locator(f'[data-quiz-question="{numeric.id}"]')
    block.locator("input[data-quiz-numeric]").fill("12,34")
    page.locator('.course-quiz[data-module="6"] button[data-quiz-action="submit"]').click()
    expect()(block.locator("[data-quiz-input-error]")).to_be_visible()
    assert "쉼표" in block.locator("[data-quiz-input-error]").inner_text()
    assert page.locator('.course-quiz[data-module="6"]').get_attribute("data-quiz-state") == "ready"
    block.locator("input[data-quiz-numeric]").fill("")
    page.locator('.course-quiz[data-module="6"] button[data-quiz-action="submit"]').click()
    expect()(page.locator('.course-quiz[data-module="6"] [data-quiz-submit-warning]')).to_be_visible()
    assert page.locator('.course-quiz[data-module="6"]').get_attribute("data-quiz-state") == "ready"
    assert quiz_errors == []


def test_corrupt_progress_is_kept_aside(page, site_url):
    quiz_errors = watch_quiz_errors(page)
    page.goto(chapter_url(site_url, 6))
    page.evaluate(f"localStorage.setItem('{STORAGE_KEY}', '{{broken json')")
    page.reload()
    expect()(page.locator("[data-course-notice]").first).to_be_visible()
    kept = page.evaluate("""() => Object.keys(localStorage)
        .filter(k => k.startsWith('sgemm-course-progress.corrupt.')).map(k => localStorage.getItem(k))""")
    assert kept == ["{broken json"]
    state = json.loads(page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')"))
    assert state["schema_version"] == 1 and state["attempts"] == []
    assert quiz_errors == []


def test_newer_progress_is_never_overwritten(page, site_url):
    bank = load_bank(6)
    future = json.dumps({"schema": "sgemm-course-progress", "schema_version": 99, "attempts": [], "x": 1})
    page.goto(chapter_url(site_url, 6))
    page.evaluate("v => localStorage.setItem('sgemm-course-progress', v)", future)
    page.reload()
    take_quiz(page, bank, set(bank.ids))
    assert page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')") == future
    assert "읽기 전용" in page.locator("[data-course-notice]").first.inner_text()


def synthetic_gate_page(page, site_url, policy):
    """A page on the site's origin with a gate, for the policies the build does not use."""
    page.goto(chapter_url(site_url, 6))
    quiz_js = page.locator('script[src*="quiz.js"]').first.get_attribute("src")
    base = page.url.rsplit("/", 1)[0]
    settings = {"gating_policy": policy,
                "checkpoints": {"6": {"pass_count": 6, "question_count": 8, "title": "체크포인트 6"}},
                "gates": {"7": "6"}, "pages": {"6": "m06_tiling"}}
    body = ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<script>window.COURSE_SETTINGS = {json.dumps(settings)};</script>"
            f"<script src='{quiz_js}'></script></head><body><main><article class='bd-article'><section>"
            "<h1>모듈 7</h1><div class='cell'><div class='cell_output'>"
            "<div class='course-gate' data-module='7' data-requires='6'></div></div></div>"
            "<p id='body-text'>본문</p><section><h2>절</h2><p>더</p></section></section></article></main></body></html>")
    url = f"{base}/__synthetic_gate_{policy}.html"
    page.route(url, lambda route: route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body))
    page.goto(url)


@pytest.mark.parametrize("policy,state,hidden", [("strict", "locked", True), ("advisory", "advisory", False),
                                                 ("off", None, False)])
def test_gating_policies(page, site_url, policy, state, hidden):
    quiz_errors = watch_quiz_errors(page)
    synthetic_gate_page(page, site_url, policy)
    if state is None:
        assert page.locator("[data-course-gate-notice]").count() == 0
    else:
        assert gate_state(page) == state
    assert page.locator("#body-text").is_hidden() == hidden
    expect()(page.locator("article h1")).to_be_visible()
    assert quiz_errors == []


def test_choices_are_shuffled_per_learner_from_the_first_attempt(page, site_url):
    """Two learners see different orders on their first attempt, each reproducible from its seed."""
    quiz_errors = watch_quiz_errors(page)
    bank = load_bank(6)
    url = chapter_url(site_url, 6)
    bank_order = {q.id: [c.id for c in q.choices] for q in bank.questions if q.choices}
    seen = {}
    for learner in ("3f9c0a7d5e21b684", "a81d2c4400b9e7f3"):
        page.goto(url)
        page.evaluate("v => localStorage.setItem('sgemm-course-progress', v)", json.dumps(
            {"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [], "student": {}, "learner": learner}))
        page.reload()
        quiz = page.locator('.course-quiz[data-module="6"]')
        assert (quiz.get_attribute("data-quiz-learner"), quiz.get_attribute("data-quiz-attempt")) == (learner, "1")
        shown = choice_orders(page, 6)
        assert shown == seeded_orders(bank, learner, 1)
        assert shown != bank_order                                   # shuffled already on the first attempt
        labels = quiz.locator(".course-quiz-choice-id").all_inner_texts()
        assert labels and all(label.startswith("(") and label.endswith(")") for label in labels)
        page.reload()
        assert choice_orders(page, 6) == shown                       # the same seed, the same order
        seen[learner] = shown
    first, second = seen.values()
    assert first != second
    assert quiz_errors == []


def test_a_new_learner_gets_an_id_once(page, site_url):
    page.goto(chapter_url(site_url, 6))
    learner = page.locator('.course-quiz[data-module="6"]').get_attribute("data-quiz-learner")
    stored = json.loads(page.evaluate(f"localStorage.getItem('{STORAGE_KEY}')"))
    assert stored["learner"] == learner and len(learner) == 16
    page.reload()
    assert page.locator('.course-quiz[data-module="6"]').get_attribute("data-quiz-learner") == learner


def test_a_checkpoint_shows_what_to_review_never_a_key(page, site_url):
    """Blank first: every question is named wrong with its chapter section, and nothing could be copied."""
    quiz_errors = watch_quiz_errors(page)
    bank = load_bank(6)
    page.goto(chapter_url(site_url, 6))
    quiz = page.locator('.course-quiz[data-module="6"]')
    labels = quiz.locator(f'[data-quiz-question="{bank.questions[0].id}"] .course-quiz-choice-id').all_inner_texts()
    assert labels == [f"({letter})" for letter in "abcdefghij"[:len(labels)]]     # letters follow the order shown
    quiz.locator('button[data-quiz-action="submit"]').click()
    quiz.locator('button[data-quiz-action="submit"]').click()                    # "nothing answered?" yes
    expect()(quiz).to_have_attribute("data-quiz-state", "final")
    shown = "\n".join(quiz.locator("[data-quiz-feedback], [data-quiz-result]").all_inner_texts())
    assert "복습할 곳" in shown
    for q in bank.questions:
        block = quiz.locator(f'[data-quiz-question="{q.id}"]')
        assert block.locator("[data-quiz-review]").count() == 1, q.id
        secrets = [c.text.replace("`", "") for c in q.choices if c.correct] + [q.explanation.strip().splitlines()[0]]
        if q.type == "numeric":
            secrets.append(f"{q.answer.value:g} {q.answer.unit}".strip())
        if q.type == "free":
            secrets += [q.model_answer.strip().splitlines()[0], *q.rubric]
        for secret in secrets:
            assert secret not in shown, (q.id, secret)
    assert quiz.locator(".course-quiz-right").count() == 0 and "해설" not in shown
    assert quiz_errors == []


def test_a_later_checkpoint_attempt_draws_the_same_variant_as_python(page, site_url, tmp_path):
    """Attempt 3 (two used): the numeric questions show values drawn for this attempt, the key follows
    them, the file records them, and the instructor's grade agrees."""
    from course.variants import presented_questions
    quiz_errors = watch_quiz_errors(page)
    bank = load_bank(6)
    learner = "5eed5eed5eed5eed"
    page.goto(chapter_url(site_url, 6))
    page.evaluate("v => localStorage.setItem('sgemm-course-progress', v)", json.dumps(
        {"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [], "student": {}, "learner": learner,
         "attempt_numbers": {"6": 2}}))
    page.reload()
    quiz = page.locator('.course-quiz[data-module="6"]')
    assert quiz.get_attribute("data-quiz-attempt") == "3"
    shown, drawn = presented_questions(bank.questions, learner, 3, load_settings().attempts_before_variant)
    assert drawn                                                                  # m06 has a variant question
    varied = {q.id: q for q in shown}
    for qid in drawn:
        prompt = quiz.locator(f'[data-quiz-question="{qid}"] .course-quiz-prompt').inner_text()
        assert " ".join(prompt.split()) == " ".join(varied[qid].prompt.replace("`", "").split())
    take_quiz(page, type("Shown", (), {"module": 6, "questions": shown})(), {q.id for q in shown})
    quiz.locator('input[data-quiz-student="id"]').fill("VAR-3")
    with page.expect_download() as download_info:
        quiz.locator('button[data-quiz-action="download"]').click()
    folder = tmp_path / "subs"
    folder.mkdir()
    saved = folder / download_info.value.suggested_filename
    download_info.value.save_as(saved)
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["presentation"]["attempt"] == 3 and doc["presentation"]["variants"] == drawn
    out = tmp_path / "gradebook.csv"
    assert grade(folder, out).returncode in (0, 3)
    row = read_csv(out)[0]
    assert row["attempt"] == "3" and row["file"] == saved.name
    assert all(row[qid] == "1" for qid in drawn)
    assert quiz_errors == []
