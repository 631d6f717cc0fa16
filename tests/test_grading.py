"""Grading rules (course.quiz.grading), the quiz display (course.quiz) and the JupyterLab widget.

The case table tests/fixtures/grading_cases.json is shared with tests/test_quiz_js.py,
which runs the same cases through quiz_rules.js.
"""
import html
import json
from pathlib import Path

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from course.quiz import grading
from course.quiz.bank import load_bank, question_from_dict
from course.quiz.grading import AnswerFormatError, grade_question, grade_quiz, parse_number
from course.quiz.progress import ProgressStore
from course.settings import CourseSettings, default_settings, settings_from_dict
from quiz_helpers import fill_lab_quiz

FIXTURES = Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "grading_cases.json").read_text(encoding="utf-8"))
QUESTIONS = {name: question_from_dict(q) for name, q in CASES["questions"].items()}


def grade_case(case):
    return grade_question(QUESTIONS[case["question"]], case["response"], case.get("self_assessment"),
                          case.get("mode", "learner"), case.get("manual_mark"))


@pytest.mark.parametrize("case", CASES["grade_cases"], ids=[c["name"] for c in CASES["grade_cases"]])
def test_grade_case(case):
    result = grade_case(case)
    assert result.status == case["expect"]["status"]
    assert result.score == pytest.approx(case["expect"]["score"])
    assert result.correct == (case["expect"]["score"] >= 1 and result.status != "pending")


@pytest.mark.parametrize("case", CASES["number_cases"], ids=[repr(c["input"]) + c["unit"] for c in CASES["number_cases"]])
def test_parse_number_case(case):
    if "error" in case:
        with pytest.raises(AnswerFormatError) as info:
            parse_number(case["input"], case["unit"])
        assert info.value.code == case["error"]
        assert str(info.value)  # a Korean message, never empty
    else:
        assert parse_number(case["input"], case["unit"]) == pytest.approx(case["value"])


@pytest.mark.parametrize("case", CASES["quiz_cases"], ids=[c["name"] for c in CASES["quiz_cases"]])
def test_quiz_case(case):
    questions = [QUESTIONS[name] for name in case["questions"]]
    result = grade_quiz(questions, case["answers"], case["self_assessment"], case["pass_count"], case["mode"])
    for key, value in case["expect"].items():
        assert getattr(result, key) == value, key


def test_unit_message_names_the_expected_unit():
    with pytest.raises(AnswerFormatError, match="'B'"):
        parse_number("8 KB", "B")


@given(st.text(max_size=30), st.sampled_from(["", "B", "배", "TFLOP/s"]))
@hsettings(max_examples=400, deadline=None)
def test_parse_number_never_raises_anything_else(text, unit):
    try:
        value = parse_number(text, unit)
    except AnswerFormatError as exc:
        assert exc.code in grading.NUMBER_MESSAGES
    else:
        assert value == value and abs(value) != float("inf")


@given(st.lists(st.sampled_from("abcde"), max_size=7))
def test_multiple_score_in_range_and_full_only_when_exact(picks):
    q = QUESTIONS["multiple"]
    result = grade_question(q, picks)
    assert 0 <= result.score <= 1
    assert result.correct == (set(picks) == {"a", "b", "c"})


@given(st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=5), st.lists(st.integers(), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=3), st.booleans()))
def test_malformed_responses_never_raise(response):
    for q in QUESTIONS.values():
        for mode in ("learner", "instructor"):
            result = grade_question(q, response, mode=mode)
            assert 0 <= result.score <= 1


def test_free_is_never_scored_by_text_in_instructor_mode():
    q = QUESTIONS["free"]
    assert grade_question(q, "m", True, mode="instructor").status == "pending"
    quiz = grade_quiz([q], {"t-free": "m"}, {"t-free": True}, 1, mode="instructor")
    assert quiz.correct_count == 0 and quiz.pass_status == "pending"


def test_pass_rule_is_a_count_against_the_fixture_bank():
    bank = load_bank(6, FIXTURES / "banks")
    answers = correct_answers(bank)
    answers["m06-q01"] = "a"
    answers["m06-q03"] = "4096"
    result = grade_quiz(bank.questions, answers, {"m06-q08": True}, pass_count=6)
    assert (result.correct_count, result.max_score, result.pass_status) == (6, 8, "passed")
    answers["m06-q05"] = "31"
    assert grade_quiz(bank.questions, answers, {"m06-q08": True}, pass_count=6).pass_status == "failed"


def correct_answers(bank):
    answers = {}
    for q in bank.questions:
        if q.type == "single":
            answers[q.id] = q.correct_choice_ids[0]
        elif q.type == "multiple":
            answers[q.id] = list(q.correct_choice_ids)
        elif q.type == "numeric":
            answers[q.id] = f"{q.answer.value:.15g}"
        elif q.type == "code":
            answers[q.id] = {b.id: b.accept[0] for b in q.blanks}
        else:
            answers[q.id] = "블록당 공유 메모리가 늘어 점유율이 떨어진다"
    return answers


# ---------------------------------------------------------------- course.quiz: static HTML

def test_static_quiz_html_escapes_script_breakers(monkeypatch, tmp_path):
    import yaml
    from course.quiz import widget as quiz
    data = yaml.safe_load((FIXTURES / "banks" / "m06.yaml").read_text(encoding="utf-8"))
    data["questions"][0]["prompt"] = "</script><script>alert(1)</script> & <b>"
    (tmp_path / "m06.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("COURSE_STATIC", "1")
    shown = quiz.show(6, banks_dir=tmp_path, settings=settings_from_dict(default_settings()))
    markup = shown._repr_html_()
    assert markup.startswith('<div class="course-quiz" data-module="6"></div>')
    assert markup.count("</script>") == 1 and "<b>" not in markup and "alert(1)</script>" not in markup
    body = markup.split('data-module="6">', 2)[2].split("</script>")[0]
    payload = json.loads(body)
    assert payload["questions"][0]["prompt"].startswith("</script><script>")
    assert payload["checkpoint"] == {"pass_count": 6, "question_count": 8, "title": "모듈 6 숙달 체크포인트",
                                     "verdicts_after_attempts": 3}
    assert payload["locked"] == 1 and "correct" not in json.dumps(payload)     # a checkpoint: no key (checkpoint_lock)


def test_rich_text_html_escapes_and_renders_code():
    from course.quiz.widget import rich_text_html
    out = rich_text_html("a `x<y` b\n\n```cuda\nint i = 0; // <tag>\n```\nend")
    assert "<code>x&lt;y</code>" in out
    assert "<pre><code>int i = 0; // &lt;tag&gt;</code></pre>" in out
    assert out.endswith("<p>end</p>")


# ---------------------------------------------------------------- course.quiz: JupyterLab widget

@pytest.fixture
def lab_quiz(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from course.quiz.widget import LabQuiz
    monkeypatch.delenv("COURSE_STATIC", raising=False)
    bank = load_bank(6, FIXTURES / "banks")
    store = ProgressStore(tmp_path / "data")
    return LabQuiz(bank, settings_from_dict(default_settings()), store, submissions_dir=tmp_path / "subs")


def shown(quiz, qid):
    """The question as this attempt shows it (a checkpoint's numeric variant has its drawn values)."""
    return next(q for q in quiz.questions if q.id == qid)


def test_lab_quiz_submit_self_assess_record_and_save(lab_quiz, tmp_path):
    from course.quiz.submission import integrity_status
    answers = correct_answers(lab_quiz)
    answers["m06-q03"] = f"{shown(lab_quiz, 'm06-q03').answer.value:,.0f} B"
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit_button.click()
    assert lab_quiz.result.pending_count == 1 and not lab_quiz.recorded
    assert "자기 평가" in lab_quiz.result_html.value
    lab_quiz.self_buttons["m06-q08"].value = True
    assert lab_quiz.recorded
    assert "통과했습니다" in lab_quiz.result_html.value
    attempts = lab_quiz.store.attempts(6)
    assert len(attempts) == 1 and attempts[0]["correct_count"] == 8 and attempts[0]["passed"] is True
    lab_quiz.student_id.value = "2026001"
    lab_quiz.student_name.value = "김하나"
    path = lab_quiz.save_submission()
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["client"] == "jupyterlab" and doc["answers"]["m06-q03"] == answers["m06-q03"]
    assert doc["self_assessment"] == {"m06-q08": True} and integrity_status(doc) == "ok"
    assert lab_quiz.store.student() == {"id": "2026001", "name": "김하나"}


def test_lab_quiz_blocks_unreadable_numbers_and_retries(lab_quiz):
    answers = correct_answers(lab_quiz)
    answers["m06-q03"] = "81,92"
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit()
    assert lab_quiz.result is None and "쉼표" in lab_quiz.feedback["m06-q03"].value
    answers["m06-q03"] = "1"
    answers["m06-q08"] = ""
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit()
    assert lab_quiz.result is None and "한 번 더" in lab_quiz.result_html.value   # unanswered: confirm first
    lab_quiz.submit()
    assert lab_quiz.recorded and lab_quiz.result.correct_count == 6
    lab_quiz.retry()
    assert lab_quiz.result is None and not lab_quiz.recorded
    assert lab_quiz.inputs["m06-q01"].value is None


def test_lab_quiz_survives_read_only_progress(lab_quiz):
    lab_quiz.store.dir.mkdir(parents=True, exist_ok=True)
    lab_quiz.store.path.write_text(json.dumps({"schema": "sgemm-course-progress", "schema_version": 99,
                                               "attempts": []}), encoding="utf-8")
    fill_lab_quiz(lab_quiz, correct_answers(lab_quiz), lab_quiz.bank.questions)
    lab_quiz.submit()
    lab_quiz.set_self_assessment("m06-q08", True)
    assert "저장하지 못했습니다" in lab_quiz.result_html.value
    assert json.loads(lab_quiz.store.path.read_text())["schema_version"] == 99


def shown_order(quiz, q):
    widget = quiz.inputs[q.id]
    return [value for _, value in widget.options] if q.type == "single" else list(widget)


def test_lab_quiz_shuffles_from_the_first_attempt_by_seed(lab_quiz, tmp_path):
    from course.quiz.shuffle import shuffled_ids, valid_learner_id
    learner = lab_quiz.learner
    assert valid_learner_id(learner) and lab_quiz.attempt == 1
    assert json.loads(lab_quiz.store.path.read_text(encoding="utf-8"))["learner"] == learner   # stored once
    choice_qs = [q for q in lab_quiz.bank.questions if q.type in ("single", "multiple")]
    for q in choice_qs:
        assert shown_order(lab_quiz, q) == shuffled_ids([c.id for c in q.choices], learner, 1, q.id)
        assert lab_quiz.presentation["choice_order"][q.id] == shown_order(lab_quiz, q)
    single = next(q for q in choice_qs if q.type == "single")
    # a checkpoint: the letters follow the order shown, so a letter tells nothing about a choice
    assert [label[:4] for label, _ in lab_quiz.inputs[single.id].options] == ["(a) ", "(b) ", "(c) ", "(d) "]
    lab_quiz.retry()
    assert lab_quiz.attempt == 2
    for q in choice_qs:
        assert shown_order(lab_quiz, q) == shuffled_ids([c.id for c in q.choices], learner, 2, q.id)


def test_lab_quiz_records_and_submits_the_order_shown(lab_quiz):
    from course.quiz.submission import integrity_status
    fill_lab_quiz(lab_quiz, correct_answers(lab_quiz), lab_quiz.bank.questions)
    lab_quiz.submit()
    lab_quiz.set_self_assessment("m06-q08", True)
    attempt = lab_quiz.store.attempts(6)[0]
    assert attempt["attempt"] == 1 and attempt["choice_order"] == lab_quiz.presentation["choice_order"]
    lab_quiz.student_id.value = "S9"
    doc = json.loads(lab_quiz.save_submission().read_text(encoding="utf-8"))
    assert doc["presentation"] == lab_quiz.presentation and integrity_status(doc) == "ok"
    # passed: each question is named right or wrong, and a right one shows its explanation
    single = lab_quiz.bank.question("m06-q01")
    assert "정답" in lab_quiz.feedback["m06-q01"].value and "해설" in lab_quiz.feedback["m06-q01"].value
    assert html.escape(single.explanation.split()[0]) in lab_quiz.feedback["m06-q01"].value
    # the next quiz on this machine starts at attempt 2, with the same learner
    from course.quiz.widget import LabQuiz
    again = LabQuiz(lab_quiz.bank, lab_quiz.settings, lab_quiz.store, submissions_dir=lab_quiz.submissions_dir)
    assert (again.learner, again.attempt) == (lab_quiz.learner, 2)


def test_two_learners_see_different_orders(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from course.quiz.widget import LabQuiz
    monkeypatch.delenv("COURSE_STATIC", raising=False)
    bank = load_bank(6, FIXTURES / "banks")
    settings = settings_from_dict(default_settings())
    first = LabQuiz(bank, settings, ProgressStore(tmp_path / "one"), submissions_dir=tmp_path / "s1")
    second = LabQuiz(bank, settings, ProgressStore(tmp_path / "two"), submissions_dir=tmp_path / "s2")
    assert first.learner != second.learner
    # one learner id is made per progress folder and kept
    assert ProgressStore(tmp_path / "one").learner_id() == first.learner
    # different seeds: over a few learners, the orders are not all the same
    orders = {tuple(LabQuiz(bank, settings, ProgressStore(tmp_path / f"l{n}"),
                            submissions_dir=tmp_path / "s").presentation["choice_order"]["m06-q02"])
              for n in range(8)}
    assert len(orders) > 1


def test_read_only_progress_still_shuffles_with_a_session_learner(tmp_path):
    store = ProgressStore(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    store.path.write_text(json.dumps({"schema": "sgemm-course-progress", "schema_version": 99, "attempts": []}),
                          encoding="utf-8")
    learner = store.learner_id()
    assert learner == store.learner_id()            # stable for the session
    assert "learner" not in json.loads(store.path.read_text(encoding="utf-8"))   # nothing written


# ---------------------------------------------------------------- checkpoints measure, they do not teach the key

def key_texts(q) -> list[str]:
    """Everything that would give a question's answer away."""
    from course.quiz.widget import rich_text_html
    out = [q.explanation.strip().splitlines()[0]]
    if q.choices:
        out += [c.text for c in q.choices if c.correct]
    if q.type == "numeric":
        out += [f"{q.answer.value:g}", f"{q.answer.value:,.0f}"]
    if q.type == "code":
        out += [a for b in q.blanks for a in b.accept if len(a) > 3]
    if q.type == "free":
        out += [q.model_answer.strip().splitlines()[0]] + list(q.rubric)
    return [t for t in out if t and t not in rich_text_html(q.prompt)]


def blank_answers(quiz):
    return {q.id: ([] if q.type == "multiple" else {} if q.type == "code" else "" if q.type != "single" else None)
            for q in quiz.bank.questions}


def test_a_blank_checkpoint_attempt_shows_the_score_and_sections_never_a_verdict(lab_quiz):
    fill_lab_quiz(lab_quiz, blank_answers(lab_quiz), lab_quiz.bank.questions)
    lab_quiz.submit()
    lab_quiz.submit()                                       # "answer nothing?" then yes
    assert lab_quiz.recorded and not lab_quiz.result.passed
    shown = "\n".join(lab_quiz.feedback[q.id].value for q in lab_quiz.bank.questions) + lab_quiz.result_html.value
    for q in lab_quiz.bank.questions:
        for secret in key_texts(q):
            assert secret not in shown, (q.id, secret)
        if q.type != "free":
            assert lab_quiz.feedback[q.id].value == "", q.id      # no per-question verdict, no section under it
    assert "정답:" not in shown and "해설(explanation)" not in shown and "모범 답안(model answer)" not in shown
    assert "오답" not in shown
    result = lab_quiz.result_html.value
    sections = sorted({q.section for q in lab_quiz.bank.questions})
    places = [result.index(f"〈{html.escape(x)}〉") for x in sections]
    assert places == sorted(places) and all(result.count(f"〈{html.escape(x)}〉") == 1 for x in sections)
    assert "0문항 정답" in result and "복습할 곳을 다시 읽고" in result and "3번째 시도부터" in result


def test_checkpoint_verdicts_come_after_a_pass_or_from_the_third_attempt(lab_quiz):
    from course.quiz.widget import LabQuiz
    answers = correct_answers(lab_quiz)
    wrong = next(q for q in lab_quiz.bank.questions if q.type == "single")
    answers[wrong.id] = next(c.id for c in wrong.choices if not c.correct)
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit()
    lab_quiz.set_self_assessment("m06-q08", True)
    assert lab_quiz.result.passed                           # 7/8: passed, so every question gets its verdict
    for q in lab_quiz.bank.questions:
        value = lab_quiz.feedback[q.id].value
        if q.id == wrong.id:
            assert "오답" in value and "복습할 곳" in value and "해설" not in value
            assert all(c.text not in value for c in q.choices)
        elif q.type != "free":
            assert "정답" in value and "해설" in value and html.escape(q.explanation.split()[0]) in value
    # a fresh learner: attempts 1 and 2 show no verdict, attempt 3 does (verdicts_after_attempts: 3)
    fresh = LabQuiz(lab_quiz.bank, lab_quiz.settings, ProgressStore(lab_quiz.store.dir.parent / "fresh"),
                    submissions_dir=lab_quiz.submissions_dir)
    for attempt in (1, 2, 3):
        fill_lab_quiz(fresh, blank_answers(fresh), fresh.bank.questions)
        fresh.submit()
        fresh.submit()
        verdict = "답하지 않음" in fresh.feedback[wrong.id].value
        assert fresh.attempt == attempt and verdict == (attempt >= 3), attempt
        assert "해설" not in fresh.feedback[wrong.id].value
        fresh.retry()


def test_every_checkpoint_attempt_draws_a_variant_never_the_same_twice(lab_quiz):
    from course.quiz.widget import LabQuiz
    from course.quiz.variants import draw_variant
    base_q = lab_quiz.bank.question("m06-q03")
    keys = []
    for attempt in range(1, 13):
        assert lab_quiz.attempt == attempt
        params = draw_variant(base_q.variant, lab_quiz.learner, attempt, "m06-q03")
        assert lab_quiz.variants == {"m06-q03": params}
        key = shown(lab_quiz, "m06-q03").answer.value
        assert key == 2 * params["T"] ** 2 * 4 != base_q.answer.value and str(params["T"]) in shown(lab_quiz, "m06-q03").prompt
        keys.append(key)
        lab_quiz.retry()
    assert all(a != b for a, b in zip(keys, keys[1:])) and len(set(keys)) == len(base_q.variant.representatives())
    answers = correct_answers(lab_quiz.bank)
    answers["m06-q03"] = f"{base_q.answer.value:g}"                  # the chapter's numbers are never the key
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit()
    assert lab_quiz.result.by_id()["m06-q03"].status == "wrong"
    # the submitted attempt counts although its free item was never self-assessed (not recorded):
    # opening the quiz again gives the next attempt, never this one (or an earlier form) back
    again = LabQuiz(lab_quiz.bank, lab_quiz.settings, lab_quiz.store, submissions_dir=lab_quiz.submissions_dir)
    assert again.attempt == lab_quiz.attempt + 1 and again.store.attempts(6) == []
    fill_lab_quiz(again, dict(answers, **{"m06-q03": f"{shown(again, 'm06-q03').answer.value:g}"}), again.bank.questions)
    again.submit()
    again.set_self_assessment("m06-q08", True)
    assert again.result.by_id()["m06-q03"].status == "correct"
    assert again.presentation["variants"]["m06-q03"] == again.variants["m06-q03"]
    assert again.presentation["nonce"] == again.learner
    assert again.store.attempts(6)[-1]["attempt"] == again.attempt


def test_copying_from_a_checkpoints_feedback_cannot_pass_it(lab_quiz):
    """Blank first, then answer with what the feedback showed: nothing to copy, so the pass is not reached."""
    from course.quiz.widget import LabQuiz
    fill_lab_quiz(lab_quiz, {q.id: ([] if q.type == "multiple" else {} if q.type == "code" else "" if q.type != "single"
                           else None) for q in lab_quiz.bank.questions})
    lab_quiz.submit()
    lab_quiz.submit()
    seen = " ".join(w.value for w in lab_quiz.feedback.values())
    copied = {}
    for q in lab_quiz.bank.questions:           # a copier takes any choice, number or code that the feedback named
        if q.type == "single":
            copied[q.id] = next((c.id for c in q.choices if c.text in seen), q.choices[0].id)
        elif q.type == "multiple":
            copied[q.id] = [c.id for c in q.choices if c.text in seen]
        elif q.type == "numeric":
            copied[q.id] = next((w for w in seen.split() if w.replace(",", "").isdigit()), "0")
        elif q.type == "code":
            copied[q.id] = {b.id: next((a for a in b.accept if a in seen), "?") for b in q.blanks}
        else:
            copied[q.id] = "복습하지 않은 답"
    second = LabQuiz(lab_quiz.bank, lab_quiz.settings, lab_quiz.store, submissions_dir=lab_quiz.submissions_dir)
    fill_lab_quiz(second, copied, second.bank.questions)
    second.submit()
    second.submit()
    for qid in second.self_buttons:
        second.self_buttons[qid].value = True          # even claiming every free answer right
    assert second.attempt == 2 and second.result.correct_count < second.checkpoint.pass_count


def test_the_instructor_grades_a_variant_with_its_seeds_key(lab_quiz, tmp_path):
    import csv as csv_module
    from course.__main__ import main
    for _ in range(2):
        lab_quiz.retry()
    answers = correct_answers(lab_quiz)
    fill_lab_quiz(lab_quiz, answers, lab_quiz.bank.questions)
    lab_quiz.submit()
    lab_quiz.set_self_assessment("m06-q08", True)
    lab_quiz.student_id.value = "V3"
    path = lab_quiz.save_submission()
    out = tmp_path / "g.csv"
    assert main(["--banks", str(FIXTURES / "banks"), "grade", "--module", "6", "--submissions",
                 str(lab_quiz.submissions_dir), "--out", str(out)]) == 0
    with open(out, encoding="utf-8-sig", newline="") as handle:
        row = next(csv_module.DictReader(handle))
    assert (row["student_id"], row["attempt"], row["file"], row["m06-q03"]) == ("V3", "3", path.name, "1")


def test_a_quiz_that_is_no_checkpoint_still_teaches(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from course.quiz.widget import LabQuiz
    monkeypatch.delenv("COURSE_STATIC", raising=False)
    bank = load_bank(6, FIXTURES / "banks")
    settings = CourseSettings(gating_policy="strict", source="a course without checkpoints")
    quiz = LabQuiz(bank, settings, ProgressStore(tmp_path / "data"), submissions_dir=tmp_path / "subs")
    single = bank.question("m06-q01")
    assert all(label.startswith(f"({cid}) ") for label, cid in quiz.inputs[single.id].options)
    fill_lab_quiz(quiz, correct_answers(bank), quiz.bank.questions)
    quiz.submit()
    for _ in range(3):
        quiz.retry()
    assert quiz.variants == {}                                       # variants are a checkpoint's
    fill_lab_quiz(quiz, correct_answers(bank), quiz.bank.questions)
    quiz.submit()
    assert f"({single.correct_choice_ids[0]})" in quiz.feedback[single.id].value and "해설" in quiz.feedback[single.id].value
