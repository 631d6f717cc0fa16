"""JS/Python parity: quiz.js's grading, number parsing, canonical JSON, submission format and
seeded choice order against course.grading / course.submission / course.shuffle, over
tests/fixtures/grading_cases.json."""
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from course import grading
from course.bank import question_from_dict
from course.grading import AnswerFormatError, grade_question, grade_quiz, parse_number
from course.shuffle import Mulberry32, fnv1a32, shuffled_ids
from course.submission import canonical_json, integrity_status, submission_filename

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
QUIZ_JS = ROOT / "course" / "static" / "quiz.js"
CASES = json.loads((FIXTURES / "grading_cases.json").read_text(encoding="utf-8"))
QUESTIONS = {name: question_from_dict(q) for name, q in CASES["questions"].items()}
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed; JS/Python parity not checked")


@pytest.fixture(scope="module")
def js():
    proc = subprocess.run([NODE, str(FIXTURES / "quiz_harness.js"), str(QUIZ_JS), str(FIXTURES / "grading_cases.json")],
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

from course import variants as variants_mod  # noqa: E402
from course.bank import load_all_banks, site_payload  # noqa: E402

REAL_BANKS = ROOT / "course" / "banks"
FORMULAS = [
    ("2 * T * T * 4", {"T": 24}), ("min(floor(65536 / (R * T)), floor(64 / (T / 32))) * (T / 32) / 64 * 100",
                                    {"R": 72, "T": 128}),
    ("-(a - b) / 3 + ceil(a / 7) - max(a, b, 1.5)", {"a": 10, "b": 0.25}), ("1 / 3 * 3", {}),
    ("((x))", {"x": 5}), ("x - -x", {"x": 2.5}),
]
BAD_FORMULAS = ["__import__('os')", "2 ** 3", "a.b", "max()", "floor(1, 2)", "sqrt(4)", "1 +", "(1", "1 2"]


def variant_questions():
    """Every numeric question with a variant in the course's banks, as the site receives it."""
    out = []
    for bank in load_all_banks(REAL_BANKS).values():
        for q in site_payload(bank)["questions"]:
            if "variant" in q:
                out.append(q)
    return out


@pytest.fixture(scope="module")
def variant_js(tmp_path_factory):
    questions = variant_questions()
    assert {q["id"] for q in questions} >= {"m06-q03", "m09-q03"}
    learners = ["3f9c0a7d5e21b684", "0000000000000000", "a1"]
    banks = []
    for module in (6, 9):
        payload = site_payload(load_all_banks(REAL_BANKS)[module])
        for learner in learners:
            for number in range(1, 6):
                banks.append({"bank": payload, "learner": learner, "attempt": number, "checkpoint": {"pass_count": 6},
                              "module": module})
        banks.append({"bank": payload, "learner": learners[0], "attempt": 5, "checkpoint": None, "module": module})
    cases = {
        "attempts_before_variant": 2,
        "formulas": [{"key": k, "params": p} for k, p in FORMULAS] + [{"key": k, "params": {}} for k in BAD_FORMULAS],
        "draws": [{"variant": q["variant"], "learner": learner, "attempt": number, "qid": q["id"]}
                  for q in questions for learner in learners for number in range(1, 9)],
        "banks": banks,
        "tags": [{"checkpoint": cp, "id": cid, "position": pos} for cp in (None, {"pass_count": 6})
                 for cid, pos in (("e", 0), ("a", 3), ("c", 9))],
    }
    path = tmp_path_factory.mktemp("variants") / "cases.json"
    path.write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([NODE, str(FIXTURES / "variant_harness.js"), str(QUIZ_JS), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return cases, json.loads(proc.stdout)


def _same_tree(js, py) -> bool:
    if isinstance(py, tuple):
        return isinstance(js, list) and len(js) == len(py) and all(_same_tree(a, b) for a, b in zip(js, py))
    return js == py


def test_same_formula_trees_and_values(variant_js):
    cases, js = variant_js
    for case, got in zip(cases["formulas"][:len(FORMULAS)], js["formulas"]):
        tree = variants_mod.parse_formula(case["key"])
        assert _same_tree(got["value"]["tree"], tree), case
        assert got["value"]["value"] == variants_mod.evaluate(tree, case["params"]), case   # bit for bit


def test_both_refuse_the_same_formulas(variant_js):
    cases, js = variant_js
    for case, got in zip(cases["formulas"][len(FORMULAS):], js["formulas"][len(FORMULAS):]):
        assert "error" in got, case
        with pytest.raises(variants_mod.FormulaError):
            variants_mod.parse_formula(case["key"])


def test_same_variant_drawn_for_every_learner_and_attempt(variant_js):
    cases, js = variant_js
    for case, got in zip(cases["draws"], js["draws"]):
        q = question_from_dict({"id": case["qid"], "type": "numeric", "prompt": case["variant"]["template"],
                                "answer": {"value": 0, "tolerance": 0, "unit": ""}, "variant": case["variant"]})
        params = variants_mod.draw_params(q.variant, case["learner"], case["attempt"], case["qid"])
        assert got["params"] == params, case
        assert got["prompt"] == variants_mod.render_template(case["variant"]["template"], params)
        assert params != q.variant.base                                  # a variant is never the base question


def test_same_questions_and_keys_shown_in_each_checkpoint_attempt(variant_js):
    cases, js = variant_js
    banks = load_all_banks(REAL_BANKS)
    for case, got in zip(cases["banks"], js["banks"]):
        bank = banks[case["module"]]
        after = 2 if case["checkpoint"] else 10 ** 9
        shown, drawn = variants_mod.presented_questions(bank.questions, case["learner"], case["attempt"], after)
        assert got["variants"] == drawn
        assert got["prompts"] == [q.prompt for q in shown]
        assert got["keys"] == [q.answer.value if q.answer else None for q in shown]
        if case["checkpoint"] and case["attempt"] <= 2 or not case["checkpoint"]:
            assert drawn == {}                                            # attempts 1..N: the questions as written
        else:
            assert set(drawn) == {q.id for q in bank.questions if q.variant is not None}


def test_same_choice_tags(variant_js):
    from course.quiz import POSITION_LETTERS
    cases, js = variant_js
    for case, got in zip(cases["tags"], js["tags"]):
        letter = POSITION_LETTERS[case["position"]] if case["checkpoint"] else case["id"]
        assert got == f"({letter})"
