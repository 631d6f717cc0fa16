"""Question banks: one YAML file per module (``course/quiz/banks/mNN.yaml``), schema in SCHEMA.md.

``load_bank(6)`` reads and validates ``m06.yaml`` into frozen dataclasses; every schema
violation is collected and raised together as :class:`BankError`, one Korean line per
problem naming the file, the question id and the field. ``student_view`` strips every
answer (for forms handed to students), ``answer_key`` keeps only the answers, and
``site_payload`` is what the static site's quiz.js receives for a practice quiz (it grades
in the browser, so it needs the key); a checkpoint's page gets course.quiz.checkpoint_lock's
``locked_payload`` instead, which holds no readable key.

The banks folder is ``course/quiz/banks`` unless ``banks_dir`` or the environment variable
``SGEMM_COURSE_BANKS`` names another one (tests use ``tests/fixtures/banks``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# libyaml's safe loader where PyYAML was built with it (several times faster than the pure-Python one).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

from korean_text import with_particle

__all__ = [
    "BLOOM_LEVELS",
    "QUESTION_TYPES",
    "Bank",
    "BankError",
    "ChoiceBalance",
    "Blank",
    "Choice",
    "NumericAnswer",
    "Question",
    "answer_key",
    "available_modules",
    "bank_path",
    "banks_dir",
    "blank_ids_in_code",
    "choice_balance",
    "expected_question_count",
    "load_all_banks",
    "load_bank",
    "load_bank_file",
    "question_from_dict",
    "site_payload",
    "student_view",
    "validate_bank_data",
]

BANKS_ENV = "SGEMM_COURSE_BANKS"
QUESTION_TYPES = ("single", "multiple", "numeric", "code", "free")
BLOOM_LEVELS = ("기억", "이해", "적용", "분석", "평가", "창조")
BLANK_PATTERN = re.compile(r"___\(([A-Za-z0-9_-]+)\)___")
ID_PATTERN = re.compile(r"^m(\d{2})-q(\d{2})$")

COMMON_FIELDS = {"id", "type", "bloom", "section", "prompt", "explanation"}
TYPE_FIELDS = {
    "single": {"choices"},
    "multiple": {"choices"},
    "numeric": {"answer", "variant"},
    "code": {"code", "blanks"},
    "free": {"model_answer", "rubric"},
}
TOP_FIELDS = {"module", "title", "checkpoint", "questions"}
# A choice that points at the other choices ("all of the above") is a giveaway, not a distractor.
GIVEAWAY_CHOICE = re.compile(
    r"위의?\s*(보기\s*)?(것\s*)?(모두|전부)|(모두|전부)\s*(맞|옳|정답)|(정답|해당|답)\s*(이\s*)?없(음|다)"
    r"|all of the above|none of the above", re.I)


class BankError(ValueError):
    """A bank file breaks the schema. ``problems`` holds one Korean line per violation."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Choice:
    id: str
    text: str
    correct: bool


@dataclass(frozen=True)
class NumericAnswer:
    value: float
    tolerance: float
    unit: str
    rel: float = 0.0     # relative tolerance: right within max(tolerance, rel * |value|) (course.quiz.grading's grid)


@dataclass(frozen=True)
class Blank:
    id: str
    accept: tuple
    evaluate: dict | None = None   # {"vars": {...}}: graded by the expression's values (course.quiz.variants.code_values)


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    bloom: str
    section: str
    prompt: str
    explanation: str
    choices: tuple = ()
    answer: NumericAnswer | None = None
    code: str | None = None
    blanks: tuple = ()
    model_answer: str | None = None
    rubric: tuple = ()
    variant: object = None   # course.quiz.variants.Variant: parameters drawn per checkpoint attempt (numeric)

    @property
    def correct_choice_ids(self) -> tuple:
        return tuple(c.id for c in self.choices if c.correct)

    @property
    def auto_graded(self) -> bool:
        return self.type != "free"

    def learner_text(self) -> str:
        """Everything a learner reads of the question (prompt, choices, explanation, model answer, rubric),
        whitespace folded to single spaces (YAML block text wraps its lines)."""
        parts = [self.prompt, self.explanation, self.model_answer or "", *(c.text for c in self.choices), *self.rubric]
        return " ".join(" ".join(parts).split())


@dataclass(frozen=True)
class Bank:
    module: int
    title: str
    checkpoint: bool
    questions: tuple
    source: str
    digest: str          # SHA-256 of the bank's canonical JSON; written into submissions

    @property
    def ids(self) -> tuple:
        return tuple(q.id for q in self.questions)

    def question(self, qid: str) -> Question:
        for q in self.questions:
            if q.id == qid:
                return q
        raise KeyError(qid)


def expected_question_count(module: int) -> int:
    """The syllabus's count for the module's bank (course.syllabus.Module.bank_questions: a checkpoint's
    question_count, a module's own where it sets one, else 8); 8 for a module the syllabus does not have."""
    from course import syllabus

    table = syllabus.load()
    return table.module(module).bank_questions if module in table else syllabus.DEFAULT_BANK_QUESTIONS


def banks_dir(directory: str | os.PathLike | None = None) -> Path:
    if directory is not None:
        return Path(directory)
    env = os.environ.get(BANKS_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "banks"


def bank_path(module: int, directory: str | os.PathLike | None = None) -> Path:
    return banks_dir(directory) / f"m{int(module):02d}.yaml"


def course_modules() -> tuple[int, ...]:
    """The syllabus's module numbers: every module has a bank (course/syllabus.py)."""
    from course import syllabus

    return syllabus.load().numbers


def available_modules(directory: str | os.PathLike | None = None) -> list[int]:
    """Modules whose bank file exists."""
    return [m for m in course_modules() if bank_path(m, directory).is_file()]


def load_bank(module: int, directory: str | os.PathLike | None = None) -> Bank:
    path = bank_path(module, directory)
    if not path.is_file():
        raise BankError([f"{path}: 모듈 {module}의 문제 은행(question bank) 파일이 없습니다"])
    bank = load_bank_file(path)
    if bank.module != int(module):
        raise BankError([f"{path.name}: module: 파일 이름은 모듈 {module}인데 module 값은 {bank.module}입니다"])
    return bank


def load_bank_file(path: str | os.PathLike) -> Bank:
    """Read, validate and convert one bank file. Raises BankError listing every problem."""
    path = Path(path)
    name = path.name
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except OSError as exc:
        raise BankError([f"{name}: 파일을 읽을 수 없습니다 ({exc})"]) from exc
    except yaml.YAMLError as exc:
        raise BankError([f"{name}: YAML 문법 오류입니다 ({exc})"]) from exc
    problems = validate_bank_data(data, name)
    if problems:
        raise BankError(problems)
    return _build_bank(data, str(path))


def load_all_banks(directory: str | os.PathLike | None = None) -> dict[int, Bank]:
    """Load every ``m*.yaml`` in the folder; also checks that ids are unique across banks."""
    problems: list[str] = []
    banks: dict[int, Bank] = {}
    seen: dict[str, str] = {}
    for path in sorted(banks_dir(directory).glob("m*.yaml")):
        try:
            bank = load_bank_file(path)
        except BankError as exc:
            problems += exc.problems
            continue
        for qid in bank.ids:
            if qid in seen:
                problems.append(f"{path.name}: {qid}: id: 다른 파일({seen[qid]})에 같은 id가 있습니다")
            seen.setdefault(qid, path.name)
        if bank.module in banks:
            problems.append(f"{path.name}: module: 모듈 {bank.module}의 문제 은행이 둘 이상입니다")
        banks.setdefault(bank.module, bank)
    if problems:
        raise BankError(problems)
    return banks


# --------------------------------------------------------------------------- validation

def validate_bank_data(data, name: str = "<bank>") -> list[str]:
    """Return the schema violations of a parsed bank (empty list when valid)."""
    if not isinstance(data, dict):
        return [f"{name}: 파일의 최상위는 module, title, questions를 가진 매핑(mapping)이어야 합니다"]
    problems: list[str] = []
    for key in sorted(set(data) - TOP_FIELDS, key=str):
        problems.append(f"{name}: {key}: 알 수 없는 항목입니다 (허용: {', '.join(sorted(TOP_FIELDS))})")
    module = data.get("module")
    known = course_modules()
    if isinstance(module, bool) or not isinstance(module, int) or module not in known:
        problems.append(f"{name}: module: 강좌의 모듈 번호({', '.join(map(str, known))}) 중 하나여야 합니다 "
                        f"(받은 값: {module!r})")
        module = None
    else:
        file_module = re.match(r"^m(\d+)", name)
        if file_module and int(file_module.group(1)) != module:
            problems.append(f"{name}: module: 파일 이름과 module 값({module})이 다릅니다")
    if not _nonempty_str(data.get("title")):
        problems.append(f"{name}: title: 비어 있지 않은 문자열이어야 합니다")
    if "checkpoint" in data and not isinstance(data["checkpoint"], bool):
        problems.append(f"{name}: checkpoint: true 또는 false여야 합니다")
    questions = data.get("questions")
    if not isinstance(questions, list):
        problems.append(f"{name}: questions: 문항 목록(list)이 있어야 합니다")
        return problems
    if module is not None and len(questions) != expected_question_count(module):
        problems.append(
            f"{name}: questions: 모듈 {with_particle(module, '은')} 문항이 {expected_question_count(module)}개여야 합니다 "
            f"(현재 {len(questions)}개)")
    seen_ids: set[str] = set()
    checkpoint = module is not None and module in _checkpoint_modules()
    for index, question in enumerate(questions, 1):
        problems += _validate_question(question, index, module, name, seen_ids, checkpoint)
    return problems


def _checkpoint_modules() -> tuple:
    """The syllabus's checkpoint modules (their numeric variants must offer enough draws)."""
    from course import syllabus

    return tuple(syllabus.load().checkpoints())


def _validate_question(q, index: int, module, name: str, seen_ids: set, checkpoint: bool = False) -> list[str]:
    if not isinstance(q, dict):
        return [f"{name}: {index}번째 문항: 매핑(mapping)이어야 합니다"]
    qid = q.get("id")
    label = qid if isinstance(qid, str) and qid else f"{index}번째 문항"
    problems: list[str] = []

    def bad(field_name: str, message: str) -> None:
        problems.append(f"{name}: {label}: {field_name}: {message}")

    match = ID_PATTERN.match(qid) if isinstance(qid, str) else None
    if not match:
        bad("id", f"m<모듈 두 자리>-q<번호 두 자리> 형식이어야 합니다 (예: m06-q01, 받은 값: {qid!r})")
    elif module is not None and int(match.group(1)) != module:
        bad("id", f"모듈 {module}의 문항 id는 m{module:02d}-로 시작해야 합니다")
    if isinstance(qid, str):
        if qid in seen_ids:
            bad("id", "같은 id가 이미 있습니다 (id는 모든 문제 은행에서 유일해야 합니다)")
        seen_ids.add(qid)
    qtype = q.get("type")
    if qtype not in QUESTION_TYPES:
        bad("type", f"{', '.join(QUESTION_TYPES)} 중 하나여야 합니다 (받은 값: {qtype!r})")
    if q.get("bloom") not in BLOOM_LEVELS:
        bad("bloom", f"{', '.join(BLOOM_LEVELS)} 중 하나여야 합니다 (받은 값: {q.get('bloom')!r})")
    for field_name in ("section", "prompt", "explanation"):
        if not _nonempty_str(q.get(field_name)):
            bad(field_name, "비어 있지 않은 문자열이어야 합니다")
    allowed = COMMON_FIELDS | TYPE_FIELDS.get(qtype, set())
    for key in sorted(set(q) - allowed, key=str):
        bad(str(key), f"{qtype} 문항에는 쓸 수 없는 항목입니다")
    checker = {"single": _check_choices, "multiple": _check_choices,
               "numeric": lambda q, bad: _check_numeric(q, bad, checkpoint),
               "code": _check_code, "free": _check_free}.get(qtype)
    if checker:
        checker(q, bad)
    return problems


def _check_choices(q, bad) -> None:
    choices = q.get("choices")
    if not isinstance(choices, list) or not 3 <= len(choices) <= 6:
        bad("choices", "선택지(choices)는 3~6개의 목록이어야 합니다")
        return
    ids = []
    for i, c in enumerate(choices, 1):
        if not isinstance(c, dict):
            bad(f"choices[{i}]", "id, text, correct를 가진 매핑이어야 합니다")
            continue
        for key in sorted(set(c) - {"id", "text", "correct"}, key=str):
            bad(f"choices[{i}].{key}", "알 수 없는 항목입니다")
        if not _nonempty_str(c.get("id")):
            bad(f"choices[{i}].id", "비어 있지 않은 문자열이어야 합니다")
        ids.append(c.get("id"))
        if not _nonempty_str(c.get("text")):
            bad(f"choices[{i}].text", "비어 있지 않은 문자열이어야 합니다")
        elif GIVEAWAY_CHOICE.search(c["text"]):
            bad(f"choices[{i}].text", "\"모두 맞다\", \"정답 없음\"처럼 다른 선택지를 가리키는 선택지는 쓰지 않습니다 "
                                      "(all/none of the above)")
        if not isinstance(c.get("correct"), bool):
            bad(f"choices[{i}].correct", "true 또는 false여야 합니다")
    if len(set(map(str, ids))) != len(ids):
        bad("choices", "선택지 id가 중복됩니다")
    flags = [c.get("correct") is True for c in choices if isinstance(c, dict)]
    n_correct, n_wrong = sum(flags), len(flags) - sum(flags)
    if q.get("type") == "single" and n_correct != 1:
        bad("choices", f"single 문항은 정답(correct: true)이 정확히 1개여야 합니다 (현재 {n_correct}개)")
    if q.get("type") == "multiple" and (n_correct < 2 or n_wrong < 1):
        bad("choices", f"multiple 문항은 정답이 2개 이상, 오답이 1개 이상이어야 합니다 "
                       f"(현재 정답 {n_correct}개, 오답 {n_wrong}개)")


def _check_numeric(q, bad, checkpoint: bool = False) -> None:
    answer = q.get("answer")
    if not isinstance(answer, dict):
        bad("answer", "value, tolerance, unit을 가진 매핑이어야 합니다")
        return
    for key in sorted(set(answer) - {"value", "tolerance", "unit", "rel"}, key=str):
        bad(f"answer.{key}", "알 수 없는 항목입니다")
    value = answer.get("value")
    if not _finite_number(value):
        bad("answer.value", "유한한 수여야 합니다")
    if "tolerance" not in answer:
        bad("answer.tolerance", "허용 오차(tolerance)가 있어야 합니다 (정확히 맞아야 하면 0)")
    elif not _finite_number(answer["tolerance"]) or answer["tolerance"] < 0:
        bad("answer.tolerance", f"0 이상의 수여야 합니다 (받은 값: {answer['tolerance']!r})")
    elif _finite_number(value) and 0 < answer["tolerance"] < 1e-9 * abs(value):
        bad("answer.tolerance", "값에 비해 너무 작습니다 (정확히 맞아야 하면 0)")
    rel = answer.get("rel", 0)
    if not _finite_number(rel) or not 0 <= rel <= 0.5:
        bad("answer.rel", f"상대 허용 오차(rel)는 0 이상 0.5 이하의 수여야 합니다 (받은 값: {rel!r})")
    elif rel and 0 < rel < 1e-9:
        bad("answer.rel", "너무 작습니다 (정확히 맞아야 하면 rel을 지우세요)")
    elif not rel and answer.get("tolerance") == 0 and _finite_number(value) and float(f"{value:.12g}") != value:
        bad("answer.value", "허용 오차 0으로는 입력할 수 없는 수입니다 (유효 숫자 12자리 이내)")
    if "unit" not in answer:
        bad("answer.unit", "단위(unit)가 있어야 합니다 (단위가 없으면 \"\")")
    elif not isinstance(answer["unit"], str):
        bad("answer.unit", "문자열이어야 합니다")
    if "variant" in q:
        from course.quiz.variants import validate_variant

        validate_variant(q, bad, checkpoint)


def _check_code(q, bad) -> None:
    code, blanks = q.get("code"), q.get("blanks")
    if not _nonempty_str(code):
        bad("code", "빈칸 ___(id)___ 이 들어 있는 코드 문자열이어야 합니다")
        code = ""
    in_code = blank_ids_in_code(code)
    if len(set(in_code)) != len(in_code):
        bad("code", "같은 빈칸 id가 코드에 두 번 나옵니다")
    if not in_code and code:
        bad("code", "빈칸 ___(id)___ 이 하나도 없습니다")
    if not isinstance(blanks, list) or not blanks:
        bad("blanks", "빈칸마다 id와 accept 목록이 있어야 합니다")
        return
    declared = []
    for i, blank in enumerate(blanks, 1):
        if not isinstance(blank, dict):
            bad(f"blanks[{i}]", "id와 accept를 가진 매핑이어야 합니다")
            continue
        for key in sorted(set(blank) - {"id", "accept", "evaluate"}, key=str):
            bad(f"blanks[{i}].{key}", "알 수 없는 항목입니다")
        bid = blank.get("id")
        declared.append(bid)
        accept = blank.get("accept")
        if not isinstance(accept, list) or not accept:
            bad(f"blanks[{i}].accept", f"빈칸 {bid}의 정답 목록(accept)이 비어 있습니다")
        elif not all(isinstance(a, str) and re.sub(r"\s+", "", a) for a in accept):
            bad(f"blanks[{i}].accept", "정답은 공백만이 아닌 문자열이어야 합니다")
        elif "evaluate" in blank:
            from course.quiz.variants import validate_evaluate

            validate_evaluate(blank, bad, f"blanks[{i}]")
    if len(set(map(str, declared))) != len(declared):
        bad("blanks", "빈칸 id가 중복됩니다")
    for missing in [b for b in in_code if b not in declared]:
        bad("blanks", f"코드의 빈칸 {missing}에 대한 accept 목록이 없습니다")
    for extra in [b for b in declared if b not in in_code]:
        bad("blanks", f"빈칸 {extra}이(가) 코드에 없습니다")


def _check_free(q, bad) -> None:
    if not _nonempty_str(q.get("model_answer")):
        bad("model_answer", "모범 답안(model answer)이 있어야 합니다")
    rubric = q.get("rubric")
    if not isinstance(rubric, list) or not 2 <= len(rubric) <= 4:
        bad("rubric", "채점 기준(rubric)은 2~4개 항목의 목록이어야 합니다")
    elif not all(_nonempty_str(r) for r in rubric):
        bad("rubric", "채점 기준 항목은 비어 있지 않은 문자열이어야 합니다")


def blank_ids_in_code(code: str) -> list[str]:
    return BLANK_PATTERN.findall(code or "")


def _nonempty_str(value) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# --------------------------------------------------------------------------- conversion

def _build_bank(data: dict, source: str) -> Bank:
    questions = tuple(_build_question(q) for q in data["questions"])
    return Bank(module=data["module"], title=data["title"].strip(), checkpoint=bool(data.get("checkpoint", False)),
                questions=questions, source=source, digest=_digest(data))


def _build_question(q: dict) -> Question:
    return question_from_dict(q)


def question_from_dict(q: dict) -> Question:
    """Build a Question from a schema-shaped mapping (a bank entry or a site payload entry).

    Missing descriptive fields (bloom, section, prompt, explanation) default to "" so that
    grading tables can name only what grading needs; validation is validate_bank_data's job.
    """
    from course.quiz.variants import render_template, variant_from_dict

    answer = q.get("answer")
    variant = variant_from_dict(q) if q.get("type") == "numeric" else None
    prompt = (q.get("prompt") or "").rstrip()
    if variant is not None and "template" not in q["variant"]:
        prompt = render_template(variant.template, variant.base).rstrip()   # the base question, as written
    return Question(
        id=q["id"], type=q["type"], bloom=q.get("bloom", ""), section=(q.get("section") or "").strip(),
        prompt=prompt, explanation=(q.get("explanation") or "").rstrip(), variant=variant,
        choices=tuple(Choice(str(c["id"]), c["text"], c["correct"]) for c in q.get("choices") or ()),
        answer=NumericAnswer(float(answer["value"]), float(answer["tolerance"]), answer["unit"],
                             float(answer.get("rel") or 0)) if answer else None,
        code=q.get("code", None) and q["code"].rstrip("\n"),
        blanks=tuple(Blank(b["id"], tuple(b["accept"]), b.get("evaluate")) for b in q.get("blanks") or ()),
        model_answer=q.get("model_answer", None) and q["model_answer"].rstrip(),
        rubric=tuple(q.get("rubric") or ()),
    )


def _digest(data: dict) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- views

def _question_common(q: Question) -> dict:
    return {"id": q.id, "type": q.type, "bloom": q.bloom, "section": q.section, "prompt": q.prompt}


def student_view(bank: Bank) -> dict:
    """The bank without any answer: no correct flags, accept lists, values, model answers,
    rubrics or explanations. Safe to hand to students before the quiz."""
    questions = []
    for q in bank.questions:
        item = _question_common(q)
        if q.type in ("single", "multiple"):
            item["choices"] = [{"id": c.id, "text": c.text} for c in q.choices]
        elif q.type == "numeric":
            item["unit"] = q.answer.unit
        elif q.type == "code":
            item["code"] = q.code
            item["blanks"] = [b.id for b in q.blanks]
        questions.append(item)
    return {"module": bank.module, "title": bank.title, "bank_hash": bank.digest, "questions": questions}


def _answer_dict(a: NumericAnswer) -> dict:
    out = {"value": a.value, "tolerance": a.tolerance, "unit": a.unit}
    if a.rel:
        out["rel"] = a.rel
    return out


def _blank_dict(b: Blank) -> dict:
    return {"id": b.id, "accept": list(b.accept), **({"evaluate": b.evaluate} if b.evaluate else {})}


def answer_key(bank: Bank) -> dict:
    """Only what grading needs, plus explanations, model answers and rubrics."""
    questions = []
    for q in bank.questions:
        item = {"id": q.id, "type": q.type, "bloom": q.bloom}
        if q.type in ("single", "multiple"):
            item["correct"] = list(q.correct_choice_ids)
        elif q.type == "numeric":
            item["answer"] = _answer_dict(q.answer)
            if q.variant is not None:
                item["variant"] = q.variant.to_dict()
        elif q.type == "code":
            item["blanks"] = {b.id: list(b.accept) for b in q.blanks}
        else:
            item["model_answer"] = q.model_answer
            item["rubric"] = list(q.rubric)
        item["explanation"] = q.explanation
        questions.append(item)
    return {"module": bank.module, "title": bank.title, "bank_hash": bank.digest, "questions": questions}


def site_payload(bank: Bank) -> dict:
    """Everything quiz.js needs to render and grade a practice quiz in the browser (answers included;
    never for a checkpoint: course.quiz.checkpoint_lock.locked_payload)."""
    questions = []
    for q in bank.questions:
        item = _question_common(q)
        item["explanation"] = q.explanation
        if q.type in ("single", "multiple"):
            item["choices"] = [{"id": c.id, "text": c.text, "correct": c.correct} for c in q.choices]
        elif q.type == "numeric":
            item["answer"] = _answer_dict(q.answer)
            if q.variant is not None:
                item["variant"] = q.variant.to_dict()
        elif q.type == "code":
            item["code"] = q.code
            item["blanks"] = [_blank_dict(b) for b in q.blanks]
        else:
            item["model_answer"] = q.model_answer
            item["rubric"] = list(q.rubric)
        questions.append(item)
    return {"module": bank.module, "title": bank.title, "bank_hash": bank.digest, "questions": questions}


# --------------------------------------------------------------------------- answer-key balance

MAX_KEY_POSITION_SHARE = 0.40    # no position may hold more than this share of single-choice keys
MAX_KEY_LONGEST_SHARE = 0.35     # the key may be the unique longest option in at most this share
MAX_MULTIPLE_POSITION_SHARE = 0.50  # no position may be a key in more than half of the multiple-choice items
MIN_MULTIPLE_FOR_RULE = 5           # ... judged once there are this many (fewer cannot show a pattern)


def choice_length(text: str) -> int:
    """Visible length of a choice: characters without the backticks of `inline code`."""
    return len(text.replace("`", "").strip())


@dataclass
class ChoiceBalance:
    """Where the keys sit and how long they are, over some single/multiple-choice questions.

    Positions are the order in the bank file (0 = first), which is also the order of a paper
    form; the site and JupyterLab shuffle on top of it."""
    label: str
    single: int = 0
    single_positions: Counter = field(default_factory=Counter)     # position -> single keys there
    single_longest: int = 0                                       # key is the unique longest option
    key_ranks: Counter = field(default_factory=Counter)           # 1 = key is (one of) the longest
    key_length: int = 0                                           # summed, single-choice keys
    distractor_length: int = 0                                    # summed, single-choice distractors
    distractors: int = 0
    multiple: int = 0
    multiple_positions: Counter = field(default_factory=Counter)  # position -> multiple items keyed there
    single_slots: int = 0                                         # most options of any single question
    multiple_slots: int = 0                                       # most options of any multiple question

    def add(self, q: Question) -> None:
        if q.type not in ("single", "multiple"):
            return
        keys = [i for i, c in enumerate(q.choices) if c.correct]
        if q.type == "multiple":
            self.multiple_slots = max(self.multiple_slots, len(q.choices))
            self.multiple += 1
            self.multiple_positions.update(keys)
            return
        self.single_slots = max(self.single_slots, len(q.choices))
        self.single += 1
        self.single_positions.update(keys)
        lengths = [choice_length(c.text) for c in q.choices]
        top = max(lengths)
        if lengths.count(top) == 1 and lengths.index(top) in keys:
            self.single_longest += 1
        ranked = sorted(lengths, reverse=True)
        self.key_ranks.update(ranked.index(lengths[i]) + 1 for i in keys)
        self.key_length += sum(lengths[i] for i in keys)
        self.distractor_length += sum(n for i, n in enumerate(lengths) if i not in keys)
        self.distractors += len(q.choices) - len(keys)

    def merged(self, other: "ChoiceBalance", label: str) -> "ChoiceBalance":
        out = ChoiceBalance(label)
        for part in (self, other):
            out.single += part.single
            out.single_positions.update(part.single_positions)
            out.single_longest += part.single_longest
            out.key_ranks.update(part.key_ranks)
            out.key_length += part.key_length
            out.distractor_length += part.distractor_length
            out.distractors += part.distractors
            out.multiple += part.multiple
            out.multiple_positions.update(part.multiple_positions)
            out.single_slots = max(out.single_slots, part.single_slots)
            out.multiple_slots = max(out.multiple_slots, part.multiple_slots)
        return out

    @property
    def top_position_share(self) -> float:
        return max(self.single_positions.values(), default=0) / self.single if self.single else 0.0

    @property
    def longest_share(self) -> float:
        return self.single_longest / self.single if self.single else 0.0

    @property
    def top_multiple_share(self) -> float:
        return max(self.multiple_positions.values(), default=0) / self.multiple if self.multiple else 0.0

    @property
    def length_ratio(self) -> float:
        """Mean key length over mean distractor length (single choice); 1.0 is balanced."""
        if not self.single or not self.distractors or not self.distractor_length:
            return 0.0
        return (self.key_length / self.single) / (self.distractor_length / self.distractors)

    def problems(self) -> list[str]:
        """Korean lines for every threshold this set of questions breaks."""
        out = []
        if self.single and self.top_position_share > MAX_KEY_POSITION_SHARE:
            position, count = self.single_positions.most_common(1)[0]
            out.append(f"{self.label}: 하나 고르기 정답의 {count}/{self.single}({self.top_position_share:.0%})이 "
                       f"{_position_name(position)} 자리에 있습니다 (한도 {MAX_KEY_POSITION_SHARE:.0%})")
        if self.single and self.longest_share > MAX_KEY_LONGEST_SHARE:
            out.append(f"{self.label}: 정답이 유일하게 가장 긴 선택지인 문항이 {self.single_longest}/{self.single}"
                       f"({self.longest_share:.0%})입니다 (한도 {MAX_KEY_LONGEST_SHARE:.0%})")
        if self.multiple >= MIN_MULTIPLE_FOR_RULE and self.top_multiple_share > MAX_MULTIPLE_POSITION_SHARE:
            position, count = self.multiple_positions.most_common(1)[0]
            out.append(f"{self.label}: 모두 고르기 {self.multiple}문항 중 {count}문항에서 {_position_name(position)} "
                       f"자리가 정답입니다 (한도 {MAX_MULTIPLE_POSITION_SHARE:.0%})")
        return out

    def lines(self) -> list[str]:
        """A short Korean report (positions a, b, c, ... are the order in the bank file)."""
        single = ", ".join(f"{_position_name(i)} {self.single_positions.get(i, 0)}" for i in range(self.single_slots))
        multiple = ", ".join(f"{_position_name(i)} {self.multiple_positions.get(i, 0)}"
                             for i in range(self.multiple_slots))
        out = [f"{self.label}: 하나 고르기 {self.single}문항 — 정답 위치 {single or '-'}"
               + (f" (최대 {self.top_position_share:.0%})" if self.single else "")]
        if self.single:
            ranks = ", ".join(f"{r}위 {self.key_ranks.get(r, 0)}" for r in range(1, self.single_slots + 1))
            out.append(f"    정답이 유일하게 가장 긴 선택지: {self.single_longest}/{self.single} ({self.longest_share:.0%}); "
                       f"정답 길이 ÷ 오답 길이(평균) = {self.length_ratio:.2f}; 정답의 길이 순위(1위 = 가장 김) {ranks}")
        out.append(f"    모두 고르기 {self.multiple}문항 — 위치별로 정답이 들어 있는 문항 수 {multiple or '-'}")
        return out


def _position_name(index: int) -> str:
    return "abcdefghij"[index] if 0 <= index < 10 else str(index + 1)


def choice_balance(bank: Bank) -> ChoiceBalance:
    balance = ChoiceBalance(f"모듈 {bank.module}")
    for q in bank.questions:
        balance.add(q)
    return balance
