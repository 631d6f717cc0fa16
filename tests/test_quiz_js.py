"""JS/Python parity: quiz_rules.js's grading, number parsing, canonical JSON, submission format and
seeded choice order against course.quiz.grading / course.quiz.submission / course.quiz.shuffle, over
tests/fixtures/grading_cases.json."""
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from course.quiz import grading
from course.quiz.bank import question_from_dict
from course.quiz.grading import AnswerFormatError, grade_question, grade_quiz, parse_number
from course.quiz.shuffle import Mulberry32, fnv1a32, shuffled_ids
from course.quiz.submission import canonical_json, integrity_status, submission_filename

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
RULES_JS = ROOT / "course" / "site" / "static" / "quiz_rules.js"
CASES = json.loads((FIXTURES / "grading_cases.json").read_text(encoding="utf-8"))
QUESTIONS = {name: question_from_dict(q) for name, q in CASES["questions"].items()}
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed; JS/Python parity not checked")


@pytest.fixture(scope="module")
def js():
    proc = subprocess.run([NODE, str(FIXTURES / "quiz_harness.js"), str(RULES_JS), str(FIXTURES / "grading_cases.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_same_grade_for_every_case(js):
    for case, got in zip(CASES["grade_cases"], js["grades"]):
        py = grade_question(QUESTIONS[case["question"]], case["response"], case.get("self_assessment"),
                            case.get("mode", "learner"), case.get("manual_mark"))
        assert (got["status"], got["correct"], got["message"]) == (py.status, py.correct, py.message), case["name"]
        assert got["score"] == pytest.approx(py.score, abs=1e-12), case["name"]


def test_same_number_parsing(js):
    for case, got in zip(CASES["number_cases"], js["numbers"]):
        assert "crash" not in got, (case, got)
        try:
            value = parse_number(case["input"], case["unit"])
        except AnswerFormatError as exc:
            assert got.get("error") == exc.code and got["message"] == str(exc), case
        else:
            assert got.get("value") == pytest.approx(value, rel=0, abs=0), case


def test_same_quiz_totals(js):
    for case, got in zip(CASES["quiz_cases"], js["quizzes"]):
        py = grade_quiz([QUESTIONS[n] for n in case["questions"]], case["answers"], case["self_assessment"],
                        case["pass_count"], case["mode"])
        assert got["correct_count"] == py.correct_count and got["pending_count"] == py.pending_count
        assert got["pass_status"] == py.pass_status and got["passed"] == py.passed
        assert got["score"] == pytest.approx(py.score) and got["max_score"] == py.max_score


def test_same_tables(js):
    assert js["messages"] == grading.NUMBER_MESSAGES
    assert js["aliases"] == grading.UNIT_ALIASES


def test_same_canonical_json_and_digest(js):
    for obj, text, digest in zip(CASES["canonical_cases"], js["canonical"], js["digests"]):
        assert text == canonical_json(obj)
        assert digest == hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def test_js_submission_verifies_in_python(js):
    doc = js["submission"]
    assert doc["format"] == "sgemm-course-submission" and doc["version"] == 1 and doc["client"] == "site"
    assert doc["student"] == {"id": "S1", "name": "홍길동"}
    assert integrity_status(doc) == "ok"
    assert doc["presentation"]["choice_order"]["m06-q01"] == shuffled_ids(list("abcd"), "3f9c0a7d5e21b684", 2, "m06-q01")
    doc["answers"]["m06-q01"] = "c"
    assert integrity_status(doc) == "mismatch"


def test_same_submission_filename(js):
    assert js["filename"] == submission_filename(6, "S 1/x", "2026-11-22T10:05:00.000Z")


def test_same_seed_hash(js):
    assert js["hashes"] == [fnv1a32(text) for text in CASES["hash_cases"]]
    assert fnv1a32("abc") == 0x1A47E90B          # the published FNV-1a 32 test vector


def test_same_generator_outputs(js):
    for seed, got in zip(CASES["prng_seeds"], js["prng"]):
        rng = Mulberry32(seed)
        assert got == [rng.next_u32() for _ in range(4)], seed


def test_same_choice_order_for_every_seed(js):
    for case, got in zip(CASES["shuffle_cases"], js["shuffles"]):
        assert got == shuffled_ids(case["ids"], case["learner"], case["attempt"], case["qid"]), case
        assert sorted(got) == sorted(case["ids"])


def test_orders_vary_with_learner_and_attempt():
    """Not a fixed permutation: over many seeds every choice lands in every position."""
    positions = {cid: set() for cid in "abcd"}
    for n in range(200):
        order = shuffled_ids(list("abcd"), f"learner{n}", 1 + n % 3, "m06-q01")
        for position, cid in enumerate(order):
            positions[cid].add(position)
    assert all(p == {0, 1, 2, 3} for p in positions.values())
    assert shuffled_ids(list("abcd"), "A", 1, "m06-q01") == shuffled_ids(list("abcd"), "A", 1, "m06-q01")


# ----------------------------------------------------------------------------- checkpoint variants

from course.quiz import variants as variants_mod  # noqa: E402
from course.quiz.bank import load_all_banks, site_payload  # noqa: E402
from course.quiz.checkpoint_lock import locked_payload  # noqa: E402
from course.settings import load_settings  # noqa: E402

REAL_BANKS = ROOT / "course" / "quiz" / "banks"


@pytest.fixture(scope="module")
def variant_js(tmp_path_factory):
    """quiz_rules.js's presentedBank over the real checkpoints (locked pages) and a practice page of the same banks."""
    banks, learners = [], ["3f9c0a7d5e21b684", "0000000000000000", "a1"]
    real = load_all_banks(REAL_BANKS)
    for module in (6, 9):
        locked = locked_payload(real[module], load_settings())
        for learner in learners:
            for number in range(1, 6):
                banks.append({"bank": locked, "learner": learner, "attempt": number, "checkpoint": {"pass_count": 6},
                              "module": module})
        banks.append({"bank": site_payload(real[module]), "learner": learners[0], "attempt": 5, "checkpoint": None,
                      "module": module})
    cases = {
        "banks": banks,
        "tags": [{"checkpoint": cp, "id": cid, "position": pos} for cp in (None, {"pass_count": 6})
                 for cid, pos in (("e", 0), ("a", 3), ("c", 9))],
    }
    path = tmp_path_factory.mktemp("variants") / "cases.json"
    path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([NODE, str(FIXTURES / "variant_harness.js"), str(RULES_JS), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return cases, json.loads(proc.stdout)


def test_same_questions_shown_in_each_checkpoint_attempt(variant_js):
    """A checkpoint shows drawn values from the first attempt (the learner id as nonce); a practice page never."""
    cases, js = variant_js
    banks = load_all_banks(REAL_BANKS)
    for case, got in zip(cases["banks"], js["banks"]):
        bank = banks[case["module"]]
        if case["checkpoint"]:
            shown, drawn = variants_mod.presented_questions(bank.questions, case["learner"], case["attempt"])
            assert drawn and set(drawn) == {q.id for q in bank.questions if q.variant is not None}
        else:
            shown, drawn = list(bank.questions), {}
        assert got["variants"] == drawn
        assert got["prompts"] == [q.prompt for q in shown]


def test_same_choice_tags(variant_js):
    from course.quiz.widget import POSITION_LETTERS
    cases, js = variant_js
    for case, got in zip(cases["tags"], js["tags"]):
        letter = POSITION_LETTERS[case["position"]] if case["checkpoint"] else case["id"]
        assert got == f"({letter})"
