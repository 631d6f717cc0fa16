"""The built site in Chromium: checkpoint quiz, gating, progress in localStorage and the
submission file graded by the instructor command line.

Needs the site built into _build/html (the fixtures in conftest.py skip otherwise).
Selectors are the data attributes documented at the top of course/site/static/quiz.js; the
right answers come from the bank (course.quiz.bank) and, for a checkpoint's numeric variants, from the
values the page shows (data-quiz-variant) put through the bank's formula — never typed in here.
"""
import csv
import json
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

import course
from course.quiz.bank import load_bank
from course.settings import load_settings
from course.quiz.shuffle import shuffled_ids
from course.quiz.variants import draw_variant, variant_question
from quiz_helpers import key_strings

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


def as_shown(page, q):
    """q as the page shows it: a numeric question with drawn values gets the key of those values."""
    drawn = page.locator(f'[data-quiz-question="{q.id}"]').get_attribute("data-quiz-variant")
    return variant_question(q, json.loads(drawn)) if drawn and q.variant is not None else q


def answer(page, q, right):
    """Fill one question on the page, correctly or not."""
    block = page.locator(f'[data-quiz-question="{q.id}"]')
    q = as_shown(page, q)
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
    """Errors raised or logged by the quiz's scripts (quiz_rules.js, quiz.js) on this page (the theme's own
    console noise, which conftest's page.console_errors also collects, is not this test's concern)."""
    errors = []
    ours = ("quiz_rules.js", "quiz.js")
    page.on("pageerror", lambda e: any(name in (e.stack or "") for name in ours) and errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and any(name in (m.location or {}).get("url", "") for name in ours)
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
    drawn = {q.id: draw_variant(q.variant, learner, 2, q.id) for q in bank.questions if q.variant is not None}
    assert doc["presentation"] == {"learner": learner, "nonce": learner, "attempt": 2,
                                   "choice_order": seeded_orders(bank, learner, 2), "variants": drawn}
    # passed: every question is named right and shows its explanation (opened by the right answer); no choice is marked
    single = next(q for q in bank.questions if q.type == "single")
    feedback = " ".join(quiz.locator(f'[data-quiz-question="{single.id}"] [data-quiz-feedback]').inner_text().split())
    assert "정답" in feedback and "정답:" not in feedback and " ".join(single.explanation.replace("`", "").split()[:4]) in feedback
    assert quiz.locator(".course-quiz-right, .course-quiz-key-mark").count() == 0

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
    rules_js = page.locator('script[src*="quiz_rules.js"]').first.get_attribute("src")
    quiz_js = page.locator('script[src*="quiz.js"]').first.get_attribute("src")
    base = page.url.rsplit("/", 1)[0]
    settings = {"gating_policy": policy,
                "checkpoints": {"6": {"pass_count": 6, "question_count": 8, "title": "체크포인트 6"}},
                "gates": {"7": "6"}, "pages": {"6": "m06_tiling"}}
    body = ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<script>window.COURSE_SETTINGS = {json.dumps(settings)};</script>"
            f"<script src='{rules_js}'></script><script src='{quiz_js}'></script></head>"
            "<body><main><article class='bd-article'><section>"
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


def test_no_checkpoint_page_or_asset_holds_a_key(site_url):
    """The page's HTML and every script and style it loads (fetched as served): none of the key's texts,
    no correct flag."""
    import html as html_mod
    import re
    settings = load_settings()
    for module in sorted(settings.checkpoints):
        url = chapter_url(site_url, module)
        page_html = urllib.request.urlopen(url, timeout=30).read().decode("utf-8")
        assets = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+\.(?:js|css)[^"]*)"', page_html)
        texts = [page_html]
        for asset in assets:
            full = urllib.parse.urljoin(url, html_mod.unescape(asset))
            if full.startswith(site_url):
                texts.append(urllib.request.urlopen(full, timeout=30).read().decode("utf-8", "replace"))
        assert len(texts) > 5 and any("checkpoint_lock.js" in a for a in assets)
        # the quiz data is JSON inside a script: compare with its text both as written and decoded
        data = re.findall(r'<script type="application/json" class="course-quiz-data"[^>]*>(.*?)</script>', page_html, re.S)
        assert len(data) == 1
        decoded = json.dumps(json.loads(data[0]), ensure_ascii=False)
        folded = [" ".join(t.split()) for t in texts + [decoded]]
        chapter = " ".join((ROOT / "book" / f"{settings.page(module)}.md").read_text(encoding="utf-8").split())
        secrets = [x for x in key_strings(load_bank(module)) if " ".join(x.split()) not in chapter]   # the chapter's own
        texts_only = set(key_strings(load_bank(module), accepted=False))
        assert len(secrets) > 20
        for secret in secrets:
            # explanations, model answers, rubrics: nowhere; a code answer: not in the quiz's data (the chapter
            # shows the kernel's source, and the site's shared scripts, such as figures.js, hold code of their own)
            where = folded if secret in texts_only else [folded[-1], " ".join(data[0].split())]
            assert not any(secret in t for t in where), (module, secret)
        assert not any(re.search(r'"correct"\s*:\s*true', t) for t in texts + [decoded]), module


def review_sections(quiz) -> list[str]:
    return [" ".join(t.split()) for t in quiz.locator("[data-quiz-review] li").all_inner_texts()]


def test_a_blank_checkpoint_attempt_fails_without_verdicts_and_a_right_one_opens_the_explanations(page, site_url):
    """Blank first: the score and the sections to review (once each, sorted), no per-question verdict,
    nothing of the key. Then every answer right (numbers from the values shown): passed, every question
    named right with its explanation."""
    quiz_errors = watch_quiz_errors(page)
    module = max(load_settings().checkpoints)
    bank = load_bank(module)
    page.goto(chapter_url(site_url, module))
    quiz = page.locator(f'.course-quiz[data-module="{module}"]')
    labels = quiz.locator(f'[data-quiz-question="{bank.questions[0].id}"] .course-quiz-choice-id').all_inner_texts()
    assert labels == [f"({letter})" for letter in "abcdefghij"[:len(labels)]]     # letters follow the order shown
    quiz.locator('button[data-quiz-action="submit"]').click()
    quiz.locator('button[data-quiz-action="submit"]').click()                    # "nothing answered?" yes
    expect()(quiz).to_have_attribute("data-quiz-state", "final")
    expect()(quiz.locator("[data-quiz-banner]")).to_have_attribute("data-quiz-passed", "false")
    auto = [q for q in bank.questions if q.type != "free"]
    for q in auto:
        block = quiz.locator(f'[data-quiz-question="{q.id}"]')
        assert block.get_attribute("data-quiz-status") is None and block.locator("[data-quiz-feedback]").is_hidden(), q.id
    sections = review_sections(quiz)
    assert len(sections) == len({q.section for q in bank.questions}) == len(set(sections))
    labels = [s.split("〈", 1)[1].removesuffix("〉") for s in sections]   # the page sorts the labels themselves
    assert labels == sorted(labels)
    shown = " ".join(" ".join(quiz.inner_text().split()).split())
    assert "0문항 정답" in shown and "해설(explanation)" not in shown and quiz.locator("[data-quiz-verdicts-later]").count() == 1
    for secret in key_strings(bank):
        assert secret not in shown, secret

    quiz.locator('button[data-quiz-action="retry"]').click()
    expect()(quiz).to_have_attribute("data-quiz-attempt", "2")
    take_quiz(page, bank, set(bank.ids))
    expect()(quiz.locator("[data-quiz-banner]")).to_have_attribute("data-quiz-passed", "true")
    for q in auto:
        block = quiz.locator(f'[data-quiz-question="{q.id}"]')
        assert block.get_attribute("data-quiz-status") == "correct", q.id
        feedback = " ".join(block.locator("[data-quiz-feedback]").inner_text().split())
        assert " ".join(q.explanation.replace("`", "").split()[:5]) in feedback, q.id   # decrypted in the page
    assert quiz.locator("[data-quiz-review]").count() == 0 and quiz_errors == []


def shown_values(page, module) -> dict:
    return page.evaluate("""m => Object.fromEntries([...document.querySelectorAll(
        `.course-quiz[data-module="${m}"] [data-quiz-variant]`)].map(b => [b.dataset.quizQuestion, JSON.parse(b.dataset.quizVariant)]))""",
                         module)


def test_clearing_storage_never_brings_back_the_first_attempts_numbers(page, site_url, tmp_path):
    """Variants from the first attempt (never the chapter's base numbers), drawn from the browser's random
    id and the attempt; the next attempt shows other values; clearing localStorage gives a new id and new
    draws, not attempt 1's numbers; the instructor's grade re-draws the same values from the file."""
    quiz_errors = watch_quiz_errors(page)
    bank = load_bank(6)
    varied = {q.id: q for q in bank.questions if q.variant is not None}
    assert varied
    page.goto(chapter_url(site_url, 6))
    quiz = page.locator('.course-quiz[data-module="6"]')
    learner = quiz.get_attribute("data-quiz-learner")
    first = shown_values(page, 6)
    assert first == {qid: draw_variant(q.variant, learner, 1, qid) for qid, q in varied.items()}
    assert all(first[qid] != q.variant.base for qid, q in varied.items())
    take_quiz(page, bank, set(bank.ids))                         # all right, with the values shown
    expect()(quiz.locator("[data-quiz-banner]")).to_have_attribute("data-quiz-passed", "true")
    quiz.locator('input[data-quiz-student="id"]').fill("VAR-1")
    with page.expect_download() as download_info:
        quiz.locator('button[data-quiz-action="download"]').click()
    folder = tmp_path / "subs"
    folder.mkdir()
    saved = folder / download_info.value.suggested_filename
    download_info.value.save_as(saved)
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["presentation"]["nonce"] == learner and doc["presentation"]["variants"] == first
    out = tmp_path / "gradebook.csv"
    assert grade(folder, out).returncode in (0, 3)
    row = read_csv(out)[0]
    assert row["attempt"] == "1" and all(row[qid] == "1" for qid in varied)

    page.reload()                                                 # attempt numbers only grow
    assert quiz.get_attribute("data-quiz-attempt") == "2"
    second = shown_values(page, 6)
    assert all(second[qid] != first[qid] for qid in varied)      # never the same value twice in a row
    for _ in range(12):                                           # a new browser: a new random id, new draws
        page.evaluate("localStorage.clear()")
        page.reload()
        fresh = quiz.get_attribute("data-quiz-learner")
        assert fresh != learner and quiz.get_attribute("data-quiz-attempt") == "1"
        again = shown_values(page, 6)
        assert again == {qid: draw_variant(q.variant, fresh, 1, qid) for qid, q in varied.items()}
        assert all(again[qid] != q.variant.base for qid, q in varied.items())
        if again != first:
            break
    assert again != first
    assert quiz_errors == []
