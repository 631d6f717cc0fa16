"""Checkpoints without a readable key (course.quiz.checkpoint_lock, course/site/static/checkpoint_lock.js), the
numeric grid, code blanks graded by meaning and the checkpoint variant draws: Python and the page's
script agree (Node runs checkpoint_lock.js over the same table), and a locked page opens with right
answers only."""
from __future__ import annotations

import base64
import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from course.quiz.bank import Blank, load_all_banks, load_bank
from course.quiz.checkpoint_lock import check_digest, locked_payload
from course.quiz.grading import (accepted_forms, answer_forms, blank_canonical, canonical_number, grade_question,
                            numeric_right)
from course.settings import SettingsError, load_settings, settings_from_dict
from course.quiz.variants import (code_values, draw_index, draw_params, draw_variant, evaluate, presented_questions,
                             questions_for_submission, variant_mismatches)
from quiz_helpers import fill_lab_quiz, key_strings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
LOCK_JS = ROOT / "course" / "site" / "static" / "checkpoint_lock.js"
RULES_JS = ROOT / "course" / "site" / "static" / "quiz_rules.js"
NODE = shutil.which("node")
BANKS = load_all_banks(ROOT / "course" / "quiz" / "banks")
CHECKPOINTS = tuple(sorted(load_settings().checkpoints))
SPEC = {"vars": {"kt": [0, 1, 2, 3], "cur": "kt % 2"}}
EXPRESSIONS = ["(kt+1)%2", "1-(kt%2)", "(cur+1)%2", "(1+kt)%2", "!cur", "cur^1", "~cur&1", "1-cur", "kt%2", "-7/2",
               "-7%2", "7/-2", "7%-2", "kt*kt-3*kt|4", "kt^kt&1", "+-+1", "~~kt", "(((kt)))", "kt/0", "kt%(cur-cur)",
               "2147483647+kt", "46341*46341", "kt %% 2", "kt<<1", "NUM", "", "1 2", "(kt", "kt)", "0010",
               "(" * 31 + "kt" + ")" * 31, "(" * 33 + "kt" + ")" * 33, "-" * 31 + "kt", "kt;", "kt+1.0", "ｋｔ"]


def right_answers(questions) -> dict:
    """The answers that are right for these questions (as shown: variants with their drawn values)."""
    out = {}
    for q in questions:
        if q.type == "single":
            out[q.id] = q.correct_choice_ids[0]
        elif q.type == "multiple":
            out[q.id] = list(reversed(q.correct_choice_ids))
        elif q.type == "numeric":
            out[q.id] = f"{q.answer.value:,.15g} {q.answer.unit}".strip()
        elif q.type == "code":
            out[q.id] = {b.id: f" {b.accept[-1]} " for b in q.blanks}
        else:
            out[q.id] = "내 설명"
    return out


def wrong_answers(questions) -> dict:
    out = {}
    for q in questions:
        if q.type == "single":
            out[q.id] = next(c.id for c in q.choices if not c.correct)
        elif q.type == "multiple":
            out[q.id] = list(q.correct_choice_ids[:1])          # one of the keys only: not the set
        elif q.type == "numeric":
            out[q.id] = f"{q.answer.value * 2 + 1:.15g}"
        elif q.type == "code":
            out[q.id] = {b.id: "x" for b in q.blanks}
    return out


# ----------------------------------------------------------------------------- the table Node runs

@pytest.fixture(scope="module")
def lock_js(tmp_path_factory):
    if NODE is None:
        pytest.skip("node is not installed; the page's script is not checked")
    rng = random.Random(7)
    numbers = [0.0, -0.0, 1.0, -3.0, 8192.0, 9.56, 0.1, 1 / 3, 2 ** 60, 1e21, 9.99e20, 1.5e-7, 5e-324,
               1.7976931348623157e308, -2.5e-1, 123456.789] + [rng.uniform(-1e6, 1e6) for _ in range(40)]
    forms = [{"x": rng.choice([17180, 9.56, 0.25, -3.5, 1e-3, 4096]) * rng.uniform(0.95, 1.05),
              "tolerance": rng.choice([0, 0.05, 10, 1e-4]), "rel": rng.choice([0, 0.003, 0.01, 0.5])} for _ in range(120)]
    forms += [{"x": x, "tolerance": t, "rel": r} for x in (9.5, 9.51, 9.61, 9.62, 17200, 0.0, -17180, 1e300)
              for t, r in ((0.05, 0), (0, 0.003), (10, 0.003), (0, 0))]
    accepted = [{"key": f["x"], "tolerance": f["tolerance"], "rel": f["rel"]} for f in forms]
    blanks = [{"blank": {"id": "b2", "accept": ["(kt+1)%2"], "evaluate": SPEC}, "text": e} for e in EXPRESSIONS]
    blanks += [{"blank": {"id": "b1", "accept": ["ty"]}, "text": t} for t in (" ty ", "t y", "", "   ", "TY")]
    draws = [{"nonce": nonce, "attempt": attempt, "qid": qid, "n": n}
             for nonce in ("3f9c0a7d5e21b684", "a1") for qid in ("m06-q03", "m09-q03") for n in (1, 2, 3, 8, 9)
             for attempt in (1, 2, 3, 8, 9, 10, 17, 18, 19, 1000)]
    locked = []
    for module in CHECKPOINTS:
        bank = BANKS[module]
        payload = locked_payload(bank, load_settings())
        for nonce, attempt in (("3f9c0a7d5e21b684", 1), ("3f9c0a7d5e21b684", 2), ("a1", 7)):
            shown, _ = presented_questions(bank.questions, nonce, attempt)
            for answers in (right_answers(shown), wrong_answers(shown), {}):
                locked.append({"bank": payload, "nonce": nonce, "attempt": attempt, "answers": answers,
                               "module": module})
    cases = {"canonical": numbers, "forms": forms, "accepted": accepted,
             "code": [{"text": e, "spec": SPEC} for e in EXPRESSIONS], "blanks": blanks, "draws": draws, "locked": locked}
    path = tmp_path_factory.mktemp("lock") / "cases.json"
    path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([NODE, str(FIXTURES / "lock_harness.js"), str(LOCK_JS), str(RULES_JS), str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return cases, json.loads(proc.stdout)


def test_same_canonical_numbers(lock_js):
    cases, js = lock_js
    assert js["canonical"] == [canonical_number(x) for x in cases["canonical"]]
    assert canonical_number(8192.0) == "8192" and canonical_number(9.56) == "9.56e+0" and canonical_number(-0.0) == "0"


def test_same_grid_cells_for_answers_and_keys(lock_js):
    cases, js = lock_js
    for case, got in zip(cases["forms"], js["forms"]):
        assert got == answer_forms(case["x"], case["tolerance"], case["rel"]), case
    for case, got in zip(cases["accepted"], js["accepted"]):
        assert got == accepted_forms(case["key"], case["tolerance"], case["rel"]), case


def test_same_values_for_code_expressions(lock_js):
    cases, js = lock_js
    for case, got in zip(cases["code"], js["code"]):
        want = code_values(case["text"], case["spec"])
        assert got == (None if want is None else list(want)), case["text"]
    assert code_values("(kt+1)%2", SPEC) == code_values("!cur", SPEC) == (1, 0, 1, 0)
    assert code_values("kt/0", SPEC) is None and code_values("NUM", SPEC) is None


def test_same_canonical_blanks(lock_js):
    cases, js = lock_js
    for case, got in zip(cases["blanks"], js["canonicalBlanks"]):
        blank = Blank(case["blank"]["id"], tuple(case["blank"]["accept"]), case["blank"].get("evaluate"))
        assert got == blank_canonical(blank, case["text"]), case


def test_same_draw_for_every_nonce_and_attempt(lock_js):
    cases, js = lock_js
    for case, got in zip(cases["draws"], js["draws"]):
        assert got == draw_index(case["nonce"], case["attempt"], case["qid"], case["n"]), case


def test_a_locked_page_opens_with_right_answers_only(lock_js):
    """Node checks the page's digests: right answers give every explanation back, wrong or blank ones nothing."""
    cases, js = lock_js
    for case, got in zip(cases["locked"], js["locked"]):
        bank = BANKS[case["module"]]
        shown, drawn = presented_questions(bank.questions, case["nonce"], case["attempt"])
        assert got["variants"] == drawn
        assert got["prompts"] == [q.prompt for q in shown]
        graded = {q.id: grade_question(q, case["answers"].get(q.id)) for q in shown if q.type != "free"}
        assert set(got["results"]) == set(graded)
        for qid, result in got["results"].items():
            assert (result["status"], result["score"]) == (graded[qid].status, pytest.approx(graded[qid].score)) \
                or (bank.question(qid).type == "multiple" and result["status"] == "wrong"
                    and graded[qid].status == "partial"), (qid, result, graded[qid])
            opened = result["explanation"]
            assert opened == (bank.question(qid).explanation if graded[qid].correct else None), qid


# ----------------------------------------------------------------------------- what a locked page holds

@pytest.mark.parametrize("module", CHECKPOINTS)
def test_a_checkpoint_payload_holds_no_key(module):
    bank = BANKS[module]
    payload = locked_payload(bank, load_settings())
    text = json.dumps(payload, ensure_ascii=False)
    for secret in key_strings(bank):
        assert secret not in text, secret
    assert '"correct"' not in text and '"model_answer"' not in text and '"rubric"' not in text
    assert '"key"' not in text and '"explanation"' not in text and '"accept"' not in text
    keys = {q.answer.value for q in bank.questions if q.type == "numeric"}          # the base keys, and every drawn one
    keys |= {evaluate(q.variant.tree, p) for q in bank.questions if q.variant for p in q.variant.representatives()}
    numbers = set()

    def walk(node):
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            numbers.add(float(node))
    walk(payload)
    assert not keys & numbers, keys & numbers
    # two builds of the same bank share no salt, digest or ciphertext
    again = json.dumps(locked_payload(bank, load_settings()))
    for q in payload["questions"]:
        if "lock" in q:
            assert q["lock"]["salt"] not in again and q["lock"]["box"]["ct"] not in again


def test_digests_are_salted_per_question_and_padded():
    bank = BANKS[CHECKPOINTS[0]]
    payload = locked_payload(bank, load_settings())
    for q, item in zip(bank.questions, payload["questions"]):
        if q.type == "free":
            assert "lock" not in item and item["graded_by"] == "instructor"
            continue
        salt = base64.b64decode(item["lock"]["salt"])
        assert len(salt) == 16
        parts = item["lock"]["parts"]
        assert len({len(p["entries"]) for p in parts}) == 1                  # every part lists as many entries
        for part in parts:
            assert [e["d"] for e in part["entries"]] == sorted(e["d"] for e in part["entries"])
        if q.type == "single":
            right = check_digest(salt, q.id, "choice", q.correct_choice_ids[0])
            assert right in {e["d"] for e in parts[0]["entries"]}
            assert all(check_digest(salt, q.id, "choice", c.id) not in {e["d"] for e in parts[0]["entries"]}
                       for c in q.choices if not c.correct)


# ----------------------------------------------------------------------------- the rules in Python

def test_numeric_grid_rule():
    assert numeric_right(9.56, 9.56, 0.05) and numeric_right(9.51, 9.56, 0.05) and numeric_right(9.61, 9.56, 0.05)
    assert numeric_right(9.5, 9.56, 0.05)                  # up to a quarter of the tolerance beyond the edge
    assert not numeric_right(9.48, 9.56, 0.05) and not numeric_right(9.63, 9.56, 0.05)
    assert numeric_right(100, 99, 1) and numeric_right(98, 99, 1) and not numeric_right(97.7, 99, 1)
    assert numeric_right(8192, 8192, 0) and not numeric_right(8192.000001, 8192, 0)
    assert numeric_right(0.25, 0.25, 0) and numeric_right(17200, 17180, 0, 0.003) and not numeric_right(17000, 17180, 0, 0.003)
    assert numeric_right(-17200, -17180, 0, 0.003) and not numeric_right(17180, -17180, 0, 0.003)
    rng = random.Random(3)
    for _ in range(400):                                   # everything within the tolerance is right
        key, tol, rel = rng.uniform(-1e4, 1e4), rng.choice([0.01, 0.5, 10]), rng.choice([0, 0.003, 0.05])
        limit = max(tol, rel * abs(key))
        inside = key + rng.uniform(-0.999, 0.999) * limit
        assert numeric_right(inside, key, tol, rel), (inside, key, tol, rel)
        outside = key + rng.choice([-1, 1]) * limit * rng.uniform(1.3, 3)   # beyond a quarter past the edge
        assert not numeric_right(outside, key, tol, rel), (outside, key, tol, rel)


def test_m10_q04_accepts_three_significant_figures_and_m08_q07_grades_blanks_by_meaning():
    q = BANKS[10].question("m10-q04")
    assert [grade_question(q, x).status for x in ("17,200", "17180", "1.72e4", "17000", "17,300")] == \
        ["correct", "correct", "correct", "wrong", "wrong"]
    q = BANKS[8].question("m08-q07")
    for b2 in ("1-(kt%2)", "(cur+1)%2", "(1+kt)%2", "(kt+1)%2", "cur^1", "!cur"):
        assert grade_question(q, {"b1": "kt%2", "b2": b2, "b3": "__syncthreads()"}).status == "correct", b2
    for b2 in ("kt%2", "cur", "kt+1", "(kt+1)%NUM_STAGES"):
        assert grade_question(q, {"b1": "kt % 2", "b2": b2, "b3": "__syncthreads()"}).status == "partial", b2


def test_consecutive_attempts_never_repeat_a_value_and_cycles_use_them_all():
    for module in CHECKPOINTS:
        for q in BANKS[module].questions:
            if q.variant is None:
                continue
            drawn = q.variant.representatives()
            assert len(drawn) >= 8, q.id
            keys = [evaluate(q.variant.tree, p) for p in drawn]
            assert len(set(keys)) == len(keys) and q.answer.value not in keys        # never the chapter's numbers
            for nonce in ("3f9c0a7d5e21b684", "0", "zz", "a81d2c4400b9e7f3"):
                shown = [draw_index(nonce, a, q.id, len(drawn)) for a in range(1, 301)]
                assert all(x != y for x, y in zip(shown, shown[1:])), (q.id, nonce)
                assert all(sorted(shown[i:i + len(drawn)]) == list(range(len(drawn)))
                           for i in range(0, 300 - len(drawn), len(drawn)))
    # over many learners, the first attempt's value is spread over the values (not one fixed first draw)
    q = BANKS[6].question("m06-q03")
    firsts = {draw_index(f"learner{n}", 1, q.id, len(q.variant.representatives())) for n in range(200)}
    assert len(firsts) == len(q.variant.representatives())


def test_submissions_are_graded_with_the_values_their_seed_draws():
    bank = BANKS[6]
    q = bank.question("m06-q03")
    presentation = {"learner": "L1", "nonce": "L1", "attempt": 4, "choice_order": {},
                    "variants": {q.id: draw_variant(q.variant, "L1", 4, q.id)}}
    shown = {x.id: x for x in questions_for_submission(bank.questions, presentation)}
    assert shown[q.id].answer.value == 2 * presentation["variants"][q.id]["T"] ** 2 * 4
    assert variant_mismatches(bank.questions, presentation) == []
    forged = dict(presentation, variants={q.id: {"T": 32}})
    assert variant_mismatches(bank.questions, forged) == [q.id]
    assert variant_mismatches(bank.questions, dict(presentation, variants={})) == [q.id]   # a nonce, nothing recorded
    # a file from the earlier rule (no nonce): attempts 1..2 as written, later ones drawn from the learner id
    old = {"learner": "L1", "attempt": 1, "choice_order": {}}
    assert {x.id: x for x in questions_for_submission(bank.questions, old)}[q.id].answer.value == q.answer.value
    old = {"learner": "L1", "attempt": 3, "choice_order": {}, "variants": {q.id: draw_params(q.variant, "L1", 3, q.id)}}
    assert variant_mismatches(bank.questions, old) == []
    assert {x.id: x for x in questions_for_submission(bank.questions, old)}[q.id].answer.value == \
        2 * old["variants"][q.id]["T"] ** 2 * 4
    huge = dict(presentation, variants={q.id: {"T": 10 ** 400}})
    assert variant_mismatches(bank.questions, huge) == [q.id]                     # never an OverflowError


# ----------------------------------------------------------------------------- schema and settings

def test_a_checkpoint_variant_needs_eight_distinct_keys_and_blanks_check_their_spec(tmp_path):
    import yaml
    from course.quiz.bank import validate_bank_data
    data = yaml.safe_load((FIXTURES / "banks" / "m06.yaml").read_text(encoding="utf-8"))
    q = next(x for x in data["questions"] if x["id"] == "m06-q03")
    q["variant"]["params"][0]["values"] = [8, 16, 32, 64]
    problems = "\n".join(validate_bank_data(data, "m06.yaml"))
    assert "8가지 이상" in problems and "m06-q03" in problems
    q["variant"]["params"][0]["values"] = [8, 12, 16, 20, 24, 28, 32, 40, 48, 64]
    code = next(x for x in data["questions"] if x["type"] == "code")
    code["blanks"][0]["evaluate"] = {"vars": {"kt": [0, 1]}}
    problems = "\n".join(validate_bank_data(data, "m06.yaml"))
    assert "evaluate" in problems or "정수 식" in problems
    code["blanks"][0] = {"id": code["blanks"][0]["id"], "accept": ["kt%2", "kt&1", "kt"],
                         "evaluate": {"vars": {"kt": [0, 1, 2, 3]}}}
    assert "'kt'의 값이 첫 정답" in "\n".join(validate_bank_data(data, "m06.yaml"))
    code["blanks"][0]["evaluate"] = {"vars": {"kt": "1 +"}}
    assert "evaluate.vars.kt" in "\n".join(validate_bank_data(data, "m06.yaml"))
    q["answer"]["rel"] = 2
    assert "answer.rel" in "\n".join(validate_bank_data(data, "m06.yaml"))
    for module in CHECKPOINTS:                                        # the real checkpoints satisfy it
        assert validate_bank_data(yaml.safe_load(Path(load_bank(module).source).read_text(encoding="utf-8")),
                                  Path(load_bank(module).source).name) == []


def test_verdicts_after_attempts_is_validated_and_the_old_key_is_refused():
    assert settings_from_dict({}).verdicts_after_attempts == 3
    assert settings_from_dict({"verdicts_after_attempts": 0}).verdicts_after_attempts == 0
    assert settings_from_dict({"verdicts_after_attempts": 5}).as_site_dict()["verdicts_after_attempts"] == 5
    for bad in (-1, 101, "3", True, 2.5):
        with pytest.raises(SettingsError, match="verdicts_after_attempts"):
            settings_from_dict({"verdicts_after_attempts": bad})
    with pytest.raises(SettingsError, match="attempts_before_variant.*지우세요"):
        settings_from_dict({"attempts_before_variant": 2})
    assert math.isfinite(load_settings().verdicts_after_attempts)


# ----------------------------------------------------------------------------- checkpoint_grading: instructor

GRADING_FIELDS = {"lock", "locked", "salt", "parts", "entries", "box", "iv", "ct", "d", "w", "explanation", "correct",
                  "accept", "evaluate", "value", "tolerance", "rel", "key", "model_answer", "rubric"}


def keys_in(node):
    """Every mapping key anywhere in a JSON value."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from keys_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from keys_in(v)


def instructor_graded():
    return settings_from_dict({"checkpoint_grading": "instructor", "gating_policy": "advisory"})


@pytest.mark.parametrize("module", CHECKPOINTS)
def test_an_instructor_graded_checkpoint_page_carries_no_grading_data(module):
    import re

    from course.quiz.widget import quiz_html, script_json, static_payload

    bank = BANKS[module]
    page = quiz_html(bank, instructor_graded())
    data = json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert data["graded_by"] == "instructor" and data["bank_hash"] == bank.digest
    assert not set(keys_in(data)) & GRADING_FIELDS, set(keys_in(data)) & GRADING_FIELDS
    # what the page needs to show every question and collect its answer is all there
    assert [q["id"] for q in data["questions"]] == [q.id for q in bank.questions]
    for q, shown in zip(bank.questions, data["questions"]):
        assert shown["type"] == q.type and shown["section"] == q.section
        if q.choices:
            assert shown["choices"] == [{"id": c.id, "text": c.text} for c in q.choices]
        if q.type == "code":
            assert shown["code"] == q.code and shown["blanks"] == [{"id": b.id} for b in q.blanks]
        if q.type == "numeric":
            assert shown["answer"] == {"unit": q.answer.unit}
        if q.variant is not None:
            assert shown["variant"] == {"template": q.variant.template, "values": q.variant.representatives()}
    # nothing that grades or teaches the key reads anywhere in the page's text
    for q in bank.questions:
        for text in (q.explanation, q.model_answer or ""):
            for line in (x.strip() for x in text.splitlines()):
                if len(line) > 12:
                    assert script_json(line)[1:-1] not in page, (q.id, line)
    # the same bank under the default (page grading) does carry its lock: the check above can fail
    locked = static_payload(bank, settings_from_dict({}))
    assert {"lock", "salt", "box", "locked"} <= set(keys_in(locked)) and "graded_by" not in locked


def test_the_lab_quiz_collects_an_instructor_graded_checkpoint_without_grading_it(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from course.instructor.submissions import grade_folder
    from course.quiz.progress import ProgressStore
    from course.quiz.widget import LabQuiz

    monkeypatch.delenv("COURSE_STATIC", raising=False)
    bank = BANKS[6]
    quiz = LabQuiz(bank, instructor_graded(), ProgressStore(tmp_path / "data"), submissions_dir=tmp_path / "subs")
    assert "강사가 채점합니다" in quiz.box.children[0].value and quiz.submit_button.description == "답 확정하기"
    fill_lab_quiz(quiz, right_answers(quiz.questions))      # the values this attempt drew, right
    quiz.submit_button.click()
    assert quiz.result is None and quiz.save_button.disabled is False
    shown = quiz.result_html.value
    assert "강사가 제출 파일로 채점" in shown and "문항 정답" not in shown and "통과" not in shown
    assert all(box.value == "" for box in quiz.feedback.values())                  # no verdict, key or explanation
    assert all(t.layout.display == "none" for t in quiz.self_buttons.values())      # nothing to self-assess
    assert quiz.store.attempts(6) == [] and quiz.store.next_attempt_number(6) == 2  # the number is used, no record
    quiz.student_id.value = "S1"
    path = quiz.save_submission()
    [graded] = grade_folder(bank, path.parent, 6).graded                              # grade draws the same values
    assert graded.result.correct_count == sum(q.type != "free" for q in bank.questions)
    assert graded.result.pending_count == sum(q.type == "free" for q in bank.questions)


@pytest.mark.parametrize("lab_unlock", ["same", "instructor"])
def test_a_lab_pass_says_what_opens_the_next_chapter(tmp_path, monkeypatch, lab_unlock):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("cryptography")
    from course.quiz import unlock
    from course.quiz.progress import ProgressStore
    from course.quiz.widget import UNLOCK_BY_CODE, LabQuiz

    monkeypatch.delenv("COURSE_STATIC", raising=False)
    key = unlock.public_key_text(unlock.generate_private_key())
    settings = settings_from_dict({"lab_unlock": lab_unlock, "unlock_public_key": key})
    quiz = LabQuiz(BANKS[6], settings, ProgressStore(tmp_path / "data"), submissions_dir=tmp_path / "subs")
    fill_lab_quiz(quiz, right_answers(quiz.questions))
    quiz.submit_button.click()
    for toggle in quiz.self_buttons.values():
        toggle.value = True
    shown = quiz.result_html.value
    assert quiz.result.passed and "m07" in shown
    assert (UNLOCK_BY_CODE in shown, "이제 다음 장이 열렸습니다" in shown) == ((True, False) if lab_unlock == "instructor"
                                                                           else (False, True))
