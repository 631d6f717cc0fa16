"""The grading rules. ``course/site/static/quiz_rules.js`` implements exactly the same rules for the
static site; ``tests/test_quiz_js.py`` runs both over one table of cases
(``tests/fixtures/grading_cases.json``) and compares them.

Rules (score per question is between 0 and 1; a question is *fully correct* when its
score is 1; pass rules count fully correct questions only):

single
    1 when the chosen id is the correct one, else 0.
multiple
    score = max(0, (right picks - wrong picks) / number of correct choices).
    Fully correct only when exactly the correct set is picked. Picking everything
    therefore scores (n_correct - n_wrong) / n_correct, usually 0 or little.
numeric
    The answer is parsed by :func:`parse_number` and judged on a grid (:func:`numeric_right`), the
    same rule in quiz_rules.js (practice and checkpoint pages, where only the cells' digests are
    published) and in the instructor's grade. With key k and tolerance t > 0 the grid width is
    w = t / 4 and x is right when floor(x / w) is one of the cells floor((k - t) / w - 1e-6) ..
    floor((k + t) / w + 1e-6): everything within t is right, and an answer up to t / 4 beyond
    the edge may be. With a relative tolerance ``rel`` (k != 0) the grid is logarithmic: for
    |x| = m * 2**e, m in [1, 2), the cell is (sign, e, floor((m - 1) * K)) with K = ceil(4 / rel),
    and x is right when its cell is one of those from |k| (1 - rel) to |k| (1 + rel) (so again up to
    a quarter of the tolerance beyond). Both grids apply when both are given. With neither (t = 0,
    no rel) the answer must be the key exactly: their canonical texts (:func:`canonical_number`)
    are equal. Accepted forms: ``8192``, ``8,192`` (commas
    only as thousands separators), ``9.56``, ``.5``, ``-3``, ``1.5e3``, full-width digits,
    and a trailing unit equal to the question's unit or one of its aliases
    (``8192 B``, ``8192 bytes``, ``8192바이트``). Anything else is rejected with a Korean
    message (status "invalid"), never an exception.
code
    Each blank is compared, after removing all whitespace, with each accepted answer
    (also without whitespace), case-sensitively. A blank with ``evaluate`` is graded by meaning
    instead: the answer (without whitespace) is read by course.quiz.variants' integer grammar and is
    right when its values over the blank's variable assignments are those of the first accepted
    answer (:func:`blank_canonical`). score = right blanks / blanks.
free
    Never scored by matching text. In the learner's quiz (mode "learner") the learner's
    self-assessment decides: true -> 1 (status "self"), false -> 0, none yet -> "pending".
    In the instructor's grading (mode "instructor") self-assessment is ignored: the item
    is "pending" unless the instructor gives a manual mark between 0 and 1 ("manual").
    An empty free answer is "unanswered" (0) in both modes.

Checkpoint pass: ``correct_count >= pass_count`` (shown as a count, e.g. "6/8").
When that fails only because some items are still pending, the pass status is "pending".
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field

from course.quiz.bank import Question

__all__ = [
    "AnswerFormatError",
    "accepted_forms",
    "answer_forms",
    "blank_canonical",
    "canonical_number",
    "choice_canonical",
    "numeric_right",
    "NUMBER_MESSAGES",
    "QuestionResult",
    "QuizResult",
    "UNIT_ALIASES",
    "grade_question",
    "grade_quiz",
    "normalize_code",
    "parse_number",
    "units_match",
]

# Korean messages for numeric input problems; quiz_rules.js carries the same table.
NUMBER_MESSAGES = {
    "empty": "답을 입력하세요.",
    "type": "수(number)나 문자열로 답해야 합니다.",
    "format": "수로 읽을 수 없습니다. 예: 8192, 8,192, 9.56, 1.5e3",
    "comma": "쉼표(,)는 세 자리마다 넣는 천 단위 구분에만 씁니다. 소수점은 마침표(.)로 쓰세요.",
    "unit": "단위가 맞지 않습니다. 이 문항의 단위는 '{unit}'입니다.",
    "unitless": "이 문항은 단위 없이 수만 입력하세요.",
}
INVALID_RESPONSE_MESSAGE = "응답 형식이 이 문항 유형과 맞지 않습니다."

# Units that name the same thing (compared after NFKC, lower-casing and removing spaces).
UNIT_ALIASES = [
    ["b", "byte", "bytes", "바이트"],
    ["%", "퍼센트", "percent"],
    ["배", "x", "×", "times"],
    ["gflop/s", "gflops"],
    ["tflop/s", "tflops"],
    ["flop/byte", "flop/b", "flops/byte"],
    ["gb/s", "gbps"],
    ["ms", "밀리초"],
    ["μs", "us", "마이크로초"],
    ["ns", "나노초"],
    ["사이클", "cycle", "cycles", "clk"],
    ["섹터", "sector", "sectors"],
    ["번", "회"],
]

# Explicit classes (not \d, \s) so that Python and JavaScript read exactly the same text.
SPACE_CLASS = "[ \\t\\n\\r\\f\\v\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
WHITESPACE = re.compile(SPACE_CLASS + "+")
EDGE_SPACE = re.compile("^" + SPACE_CLASS + "+|" + SPACE_CLASS + "+$")
NUMBER_PATTERN = re.compile(r"^([+-]?)((?:[0-9][0-9,]*)?(?:\.[0-9]*)?)((?:[eE][+-]?[0-9]+)?)(.*)$", re.S)
THOUSANDS_PATTERN = re.compile(r"^[0-9]{1,3}(,[0-9]{3})+$")
UNIT_START = re.compile(r"^[^0-9.,+\-]")


class AnswerFormatError(ValueError):
    """A learner's numeric answer cannot be read. ``code`` keys NUMBER_MESSAGES."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


def _number_error(code: str, unit: str = "") -> AnswerFormatError:
    return AnswerFormatError(code, NUMBER_MESSAGES[code].format(unit=unit))


def _normalize_unit(text: str) -> str:
    return WHITESPACE.sub("", unicodedata.normalize("NFKC", text)).lower()


def units_match(given: str, expected: str) -> bool:
    given, expected = _normalize_unit(given), _normalize_unit(expected)
    if given == expected:
        return True
    return any(given in group and expected in group for group in UNIT_ALIASES)


def parse_number(raw, unit: str = "") -> float:
    """Read a learner's number. Raises AnswerFormatError (Korean message), never anything else."""
    if isinstance(raw, bool):
        raise _number_error("type")
    if isinstance(raw, (int, float)):
        try:
            value = float(raw)           # a 310-digit integer does not fit a double: OverflowError
        except OverflowError:
            raise _number_error("format") from None
        if not math.isfinite(value):
            raise _number_error("format")
        return value
    if not isinstance(raw, str):
        raise _number_error("type")
    text = _trim(unicodedata.normalize("NFKC", raw).replace("\u2212", "-"))
    if not text:
        raise _number_error("empty")
    sign, mantissa, exponent, rest = NUMBER_PATTERN.match(text).groups()
    if not re.search("[0-9]", mantissa):
        raise _number_error("format")
    integer_part = mantissa.split(".")[0]
    if "," in integer_part and not THOUSANDS_PATTERN.match(integer_part):
        raise _number_error("comma")
    rest = _trim(rest)
    if rest:
        if not UNIT_START.match(rest):
            raise _number_error("comma" if rest.startswith(",") else "format")
        if not unit:
            raise _number_error("unitless")
        if not units_match(rest, unit):
            raise _number_error("unit", unit)
    value = float(sign + mantissa.replace(",", "") + exponent)
    if not math.isfinite(value):
        raise _number_error("format")
    return value


def _trim(text: str) -> str:
    return EDGE_SPACE.sub("", text)


def normalize_code(text: str) -> str:
    """A code blank without any whitespace (case is kept)."""
    return WHITESPACE.sub("", text)


# ----------------------------------------------------------------------------- canonical answers
# What an answer is compared as. A checkpoint page publishes digests of the accepted canonical
# forms only (course.quiz.checkpoint_lock); quiz_rules.js computes the same forms from the learner's answer.

GRID_SLACK = 1e-6      # in cells: a key edge that falls on a cell boundary keeps the cell beyond it
MAX_CELLS = 40         # a degenerate grid (tolerance far below the key's precision) is cut here


def canonical_number(x: float) -> str:
    """One text per double: an integer below 1e21 in digits ("8192", "-3"), anything else as
    JavaScript's Number.prototype.toExponential() writes it ("9.56e+0", "1.5e-7")."""
    x = float(x)
    if x == math.floor(x) and abs(x) < 1e21:
        return str(int(x))
    sign = "-" if x < 0 else ""
    digits, exponent = _shortest_digits(abs(x))
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _shortest_digits(x: float) -> tuple[str, int]:
    """The shortest round-trip digits of x > 0 (repr's) and the decimal exponent of the first one."""
    from decimal import Decimal

    t = Decimal(repr(x)).as_tuple()
    digits = "".join(map(str, t.digits))
    exponent = t.exponent + len(digits) - 1
    return digits.rstrip("0") or "0", exponent


def _linear_cell(x: float, width: float) -> float | None:
    cell = x / width
    return float(math.floor(cell)) if math.isfinite(cell) else None


def _log_cell(a: float, k_cells: int) -> tuple[int, int]:
    """(e, j) of a > 0: a = m * 2**e with m in [1, 2), j = floor((m - 1) * k_cells)."""
    m, e = math.frexp(a)
    return e - 1, math.floor((m * 2 - 1) * k_cells)


def _log_cells_per_octave(rel: float) -> int:
    return math.ceil(4 / rel)


def answer_forms(x: float, tolerance: float, rel: float = 0.0) -> list[str]:
    """The canonical forms of a learner's number x, one per grid the question may use."""
    out = ["X" + canonical_number(x)]
    if tolerance > 0:
        cell = _linear_cell(x, tolerance / 4)
        if cell is not None:
            out.append("L" + canonical_number(cell))
    if rel > 0 and x != 0:
        e, j = _log_cell(abs(x), _log_cells_per_octave(rel))
        out.append(f"G{'+' if x > 0 else '-'}{e}:{j}")
    return out


def accepted_forms(key: float, tolerance: float, rel: float = 0.0) -> list[str]:
    """The canonical forms that are right for key (see the module docstring)."""
    out = []
    if tolerance > 0:
        width = tolerance / 4
        low = _linear_cell((key - tolerance) / width - GRID_SLACK, 1.0)
        high = _linear_cell((key + tolerance) / width + GRID_SLACK, 1.0)
        if low is not None and high is not None:
            cell = low
            while cell <= high and len(out) < MAX_CELLS:
                out.append("L" + canonical_number(cell))
                cell += 1
    if rel > 0 and key != 0:
        k_cells, a = _log_cells_per_octave(rel), abs(key)
        sign = "+" if key > 0 else "-"
        e, j = _log_cell(a - a * rel, k_cells)
        last = _log_cell(a + a * rel, k_cells)
        count = 0
        while (e, j) <= last and count < MAX_CELLS:
            out.append(f"G{sign}{e}:{j}")
            count += 1
            j += 1
            if j == k_cells:
                e, j = e + 1, 0
    return out or ["X" + canonical_number(key)]


def numeric_right(x: float, key: float, tolerance: float, rel: float = 0.0) -> bool:
    """The one rule for a numeric answer (grid cells; exact when there is no tolerance)."""
    return not set(answer_forms(x, tolerance, rel)).isdisjoint(accepted_forms(key, tolerance, rel))


def choice_canonical(ids) -> str:
    """A choice answer as one text: the picked ids, sorted, joined by ","."""
    return ",".join(sorted(str(i) for i in ids))


def blank_canonical(blank, text: str) -> str | None:
    """A code blank's answer as it is compared: the text without whitespace, or, for a blank graded by
    meaning, "=" and its values joined by "," (None when it has no value)."""
    given = normalize_code(text)
    if not given:
        return None
    if getattr(blank, "evaluate", None):
        from course.quiz.variants import code_values

        values = code_values(given, blank.evaluate)
        return None if values is None else "=" + ",".join(str(v) for v in values)
    return given


@dataclass
class QuestionResult:
    qid: str
    type: str
    status: str          # correct | partial | wrong | unanswered | invalid | self | pending | manual
    score: float         # 0..1
    message: str = ""    # Korean note for the learner (e.g. why a number was not read)
    detail: dict = field(default_factory=dict)

    @property
    def correct(self) -> bool:
        """Fully correct (counts toward a pass)."""
        return self.score >= 1.0 and self.status != "pending"

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    def to_dict(self) -> dict:
        return {"qid": self.qid, "type": self.type, "status": self.status, "score": self.score,
                "correct": self.correct, "message": self.message, "detail": self.detail}


@dataclass
class QuizResult:
    results: list
    pass_count: int | None

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results)

    @property
    def max_score(self) -> int:
        return len(self.results)

    @property
    def correct_count(self) -> int:
        return sum(1 for r in self.results if r.correct)

    @property
    def pending_count(self) -> int:
        return sum(1 for r in self.results if r.pending)

    @property
    def pass_status(self) -> str:
        """"passed", "failed", "pending" (could still pass once pending items are marked), or "" (no rule)."""
        if self.pass_count is None:
            return ""
        if self.correct_count >= self.pass_count:
            return "passed"
        if self.correct_count + self.pending_count >= self.pass_count:
            return "pending"
        return "failed"

    @property
    def passed(self) -> bool | None:
        if self.pass_count is None:
            return None
        return self.pass_status == "passed"

    def by_id(self) -> dict:
        return {r.qid: r for r in self.results}

    def to_dict(self) -> dict:
        return {"score": self.score, "max_score": self.max_score, "correct_count": self.correct_count,
                "pending_count": self.pending_count, "pass_count": self.pass_count,
                "pass_status": self.pass_status, "passed": self.passed,
                "results": [r.to_dict() for r in self.results]}


def _is_blank(response) -> bool:
    return response is None or (isinstance(response, str) and _trim(response) == "") or response == []


def _result(q: Question, score: float, message: str = "", **detail) -> QuestionResult:
    status = "correct" if score >= 1 else ("partial" if score > 0 else "wrong")
    return QuestionResult(q.id, q.type, status, float(score), message, detail)


def _invalid(q: Question, message: str = INVALID_RESPONSE_MESSAGE) -> QuestionResult:
    return QuestionResult(q.id, q.type, "invalid", 0.0, message)


def _unanswered(q: Question) -> QuestionResult:
    return QuestionResult(q.id, q.type, "unanswered", 0.0, "답하지 않았습니다.")


def _grade_single(q: Question, response) -> QuestionResult:
    if not isinstance(response, str) or response not in {c.id for c in q.choices}:
        return _invalid(q)
    return _result(q, 1.0 if response in q.correct_choice_ids else 0.0)


def _grade_multiple(q: Question, response) -> QuestionResult:
    if not isinstance(response, list) or not all(isinstance(r, str) for r in response):
        return _invalid(q)
    picks = set(response)
    if not picks <= {c.id for c in q.choices}:
        return _invalid(q)
    correct = set(q.correct_choice_ids)
    right, wrong = len(picks & correct), len(picks - correct)
    score = 1.0 if picks == correct else max(0.0, (right - wrong) / len(correct))
    return _result(q, score, right=right, wrong=wrong)


def _grade_numeric(q: Question, response) -> QuestionResult:
    try:
        value = parse_number(response, q.answer.unit)
    except AnswerFormatError as exc:
        return QuestionResult(q.id, q.type, "invalid", 0.0, str(exc), {"error": exc.code})
    a = q.answer
    return _result(q, 1.0 if numeric_right(value, a.value, a.tolerance, getattr(a, "rel", 0.0)) else 0.0, value=value)


def _grade_code(q: Question, response) -> QuestionResult:
    if not isinstance(response, dict) or not all(isinstance(v, str) for v in response.values()):
        return _invalid(q)
    blank_ids = [b.id for b in q.blanks]
    if not set(response) <= set(blank_ids):
        return _invalid(q)
    if all(normalize_code(response.get(b, "")) == "" for b in blank_ids):
        return _unanswered(q)
    blanks = {}
    for blank in q.blanks:
        given = blank_canonical(blank, response.get(blank.id, ""))
        blanks[blank.id] = given is not None and given in {blank_canonical(blank, a) for a in blank.accept}
    return _result(q, sum(blanks.values()) / len(blanks), blanks=blanks)


def _grade_free(q: Question, response, self_assessment, mode: str, manual_mark) -> QuestionResult:
    if not isinstance(response, str):
        return _invalid(q)
    if mode == "instructor":
        if manual_mark is None:
            return QuestionResult(q.id, q.type, "pending", 0.0, "강사 채점 대기 중입니다.")
        return QuestionResult(q.id, q.type, "manual", float(manual_mark), "강사가 채점했습니다.")
    if self_assessment is None:
        return QuestionResult(q.id, q.type, "pending", 0.0, "모범 답안과 비교해 자기 평가를 하세요.")
    if not isinstance(self_assessment, bool):
        return _invalid(q)
    return QuestionResult(q.id, q.type, "self", 1.0 if self_assessment else 0.0,
                          "자기 평가: 맞음" if self_assessment else "자기 평가: 틀림")


def grade_question(q: Question, response, self_assessment=None, mode: str = "learner",
                   manual_mark=None) -> QuestionResult:
    """Grade one response. Never raises on a malformed response: it is "invalid" with score 0."""
    if mode not in ("learner", "instructor"):
        raise ValueError(f"mode must be 'learner' or 'instructor', not {mode!r}")
    if _is_blank(response) or (isinstance(response, dict) and not response):
        return _unanswered(q)
    if q.type == "single":
        return _grade_single(q, response)
    if q.type == "multiple":
        return _grade_multiple(q, response)
    if q.type == "numeric":
        return _grade_numeric(q, response)
    if q.type == "code":
        return _grade_code(q, response)
    return _grade_free(q, response, self_assessment, mode, manual_mark)


def grade_quiz(questions, answers: dict, self_assessment: dict | None = None, pass_count: int | None = None,
               mode: str = "learner", manual_marks: dict | None = None) -> QuizResult:
    """Grade every question of a bank (questions missing from answers are unanswered)."""
    answers = answers if isinstance(answers, dict) else {}
    self_assessment = self_assessment if isinstance(self_assessment, dict) else {}
    manual_marks = manual_marks or {}
    results = [grade_question(q, answers.get(q.id), self_assessment.get(q.id), mode, manual_marks.get(q.id))
               for q in questions]
    return QuizResult(results, pass_count)
