"""Exercise definitions: course/exercises/<id>/exercise.yaml and the .cu files beside it.

The schema is the contract between the exercises and the checker (see the docstring of
course.autograder). Loading validates every key, so a typo in a yaml file is a Korean error that
names the file and the key, not a surprise in the middle of a check. What depends on the exercise's
kind (its parameter list, the kernels it may be timed against) is asked of the kind (course.autograder.kinds);
a wrong attempt's diagnosis must be one of course.autograder.diagnosis.DIAGNOSES.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from course.autograder import kinds
from course.autograder.diagnosis import DIAGNOSES
from course.autograder.signatures import parse_signature, signature_text

EXERCISES_ENV = "SGEMM_COURSE_EXERCISES"
DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "exercises"
ID_PATTERN = re.compile(r"^m(\d{2})-e(\d+)$")
ENTRY_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

HAZARD_TOOLS = ("memcheck", "racecheck", "synccheck")
_TOP_KEYS = {"id", "module", "title_ko", "goal_ko", "kind", "signature", "entry", "launch", "shapes", "checks",
             "hints_ko", "wrong_attempts"}
_LAUNCH_KEYS = {"block", "tile", "grid_rows_from_x", "dynamic_smem"}
_SHAPES_KEYS = {"multiple_of", "aligned16", "max_elements"}
# The most elements one operand may span (rows x leading dimension, padding included; S x M x ldp for a
# workspace): 2**31 - 1, so that an offset row * ld + col fits a 32-bit int. The card states it, the checker
# never draws past it, and a kernel is not asked to handle more.
MAX_ELEMENTS = 2 ** 31 - 1
_CHECKS_KEYS = {"sass", "correctness", "hazards", "speed"}
_SASS_KEYS = {"forbid", "require", "max_registers"}
_SPEED_KEYS = {"reference", "size", "min_ratio"}
_WRONG_KEYS = {"file", "diagnosis", "what_ko"}
_OPCODE_RULE = re.compile(r"^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)*$")
# Rules that may name the operands an instruction must serve (course.autograder.ptx attributes them).
OPERAND_OPCODES = ("LDG.E.128", "LDGSTS", "STG.E.128")
OPERANDS = ("A", "B", "C")


class ExerciseError(ValueError):
    """An exercise id that does not exist, or an exercise.yaml that breaks the schema (Korean)."""


@dataclass(frozen=True)
class WrongAttempt:
    file: str
    diagnosis: str
    what_ko: str


@dataclass(frozen=True)
class ExerciseSpec:
    id: str
    module: int
    title_ko: str
    goal_ko: str
    entry: str
    block: tuple            # (x, y)
    tile: tuple             # (rows of C, columns of C) per block
    grid_rows_from_x: bool
    dynamic_smem: int
    multiple_of: dict       # {"M": 1, "N": 4, "K": 4}
    aligned16: bool
    forbid: tuple
    require: tuple          # opcode rules that must appear in the SASS
    max_registers: int | None
    hazards: dict           # {"memcheck": True, "racecheck": True, "synccheck": True}
    speed_reference: str
    speed_size: int
    min_ratio: float
    hints_ko: tuple
    wrong_attempts: tuple
    folder: Path = field(compare=False)
    operand_rules: tuple = ()   # (opcode, (operand, ...)): e.g. ("LDG.E.128", ("A", "B"))
    kind: str = "sgemm"         # course.autograder.kinds: what the kernel computes and how it is checked
    signature: tuple = ()       # ((name, "pointer" | "int" | "float"), ...); empty: the kind's
    max_elements: int = MAX_ELEMENTS   # shapes.max_elements: the most elements one operand spans

    @property
    def parameters(self) -> tuple:
        return self.signature or kinds.get(self.kind).signature

    def signature_text(self) -> str:
        return signature_text(self.parameters, self.entry, kinds.get(self.kind).read_only)

    @property
    def starter(self) -> Path:
        return self.folder / "starter.cu"

    @property
    def solution(self) -> Path:
        return self.folder / "solution.cu"

    def grid(self, M: int, N: int) -> tuple:
        rows, cols = self.tile
        if self.grid_rows_from_x:
            return (-(-M // rows), -(-N // cols), 1)
        return (-(-N // cols), -(-M // rows), 1)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]

    def launch_text(self) -> str:
        """The launch as a learner reads it, e.g. "block (16, 16), grid (ceil(N/16), ceil(M/16))"."""
        rows, cols = self.tile
        x, y = (f"ceil(M/{rows})", f"ceil(N/{cols})") if self.grid_rows_from_x else \
            (f"ceil(N/{cols})", f"ceil(M/{rows})")
        text = f"block ({self.block[0]}, {self.block[1]}), grid ({x}, {y})"
        if self.dynamic_smem:
            text += f", 동적 공유 메모리(dynamic shared memory) {self.dynamic_smem:,} B"
        return text

    def to_dict(self) -> dict:
        """What the checker's subprocess needs to launch the kernel (JSON-ready)."""
        return {"id": self.id, "kind": self.kind, "entry": self.entry, "block": list(self.block), "tile": list(self.tile),
                "grid_rows_from_x": self.grid_rows_from_x, "dynamic_smem": self.dynamic_smem,
                "multiple_of": dict(self.multiple_of), "aligned16": self.aligned16}


def exercises_root() -> Path:
    env = os.environ.get(EXERCISES_ENV)
    return Path(env) if env else DEFAULT_ROOT


def exercise_ids(root: Path | None = None) -> list[str]:
    """Ids of the folders holding an exercise.yaml, in module order (m04-e1, m05-e1, m05-e2, ...)."""
    root = root or exercises_root()
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and (p / "exercise.yaml").is_file()
             and ID_PATTERN.match(p.name)]
    return sorted(found, key=_id_order)


def _id_order(exercise_id: str) -> tuple:
    m = ID_PATTERN.match(exercise_id)
    return (int(m.group(1)), int(m.group(2))) if m else (999, 999)


def load(exercise_id: str, root: Path | None = None) -> ExerciseSpec:
    """The validated exercise; ExerciseError (Korean) for an unknown id or a broken yaml."""
    root = root or exercises_root()
    known = exercise_ids(root)
    if not isinstance(exercise_id, str) or exercise_id not in known:
        hint = ", ".join(known) if known else "(아직 없음)"
        raise ExerciseError(f"알 수 없는 실습 번호(exercise id)입니다: {exercise_id!r}. 있는 실습: {hint}")
    return load_folder(root / exercise_id)


def load_all(root: Path | None = None) -> list[ExerciseSpec]:
    root = root or exercises_root()
    return [load_folder(root / i) for i in exercise_ids(root)]


def load_folder(folder: Path) -> ExerciseSpec:
    path = folder / "exercise.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ExerciseError(f"{path}: 읽을 수 없습니다 ({exc})") from exc
    problems: list[str] = []
    spec = _parse(raw, folder, problems)
    if problems:
        raise ExerciseError(f"{path}: 스키마 오류(schema error)\n  " + "\n  ".join(problems))
    return spec


# ----------------------------------------------------------------------------- validation

def _unknown(where: str, data: dict, allowed: set, problems: list) -> None:
    for key in sorted(set(data) - allowed, key=str):
        problems.append(f"{where}: 알 수 없는 키(unknown key) {key!r}")


def _mapping(value, where: str, problems: list) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: 매핑(mapping)이어야 합니다")
        return {}
    return value


def _int(value, where: str, problems: list, low: int = 0, default=None):
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        problems.append(f"{where}: {low} 이상의 정수여야 합니다 (받은 값: {value!r})")
        return default if default is not None else low
    return value


def _text(value, where: str, problems: list) -> str:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: 비어 있지 않은 문자열이어야 합니다")
        return ""
    return value.strip()


def _pair(value, where: str, problems: list) -> tuple:
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)):
        problems.append(f"{where}: 양의 정수 두 개의 목록이어야 합니다 (예: [16, 16])")
        return (1, 1)
    return tuple(value)


def _rules(value, where: str, problems: list) -> tuple:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and _OPCODE_RULE.match(v) for v in value):
        problems.append(f"{where}: SASS 명령 이름(예: LDL, LDG.E.128)의 목록이어야 합니다")
        return ()
    return tuple(value)


def _required(value, where: str, problems: list) -> tuple[tuple, tuple]:
    """checks.sass.require: opcode names, or {opcode: LDG.E.128, operands: [A, B]} naming whom it must serve."""
    if value is None:
        return (), ()
    if not isinstance(value, list):
        problems.append(f"{where}: 목록이어야 합니다")
        return (), ()
    opcodes, operand_rules = [], []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            _unknown(f"{where}[{i}]", item, {"opcode", "operands"}, problems)
            opcode, operands = item.get("opcode"), item.get("operands")
            if opcode not in OPERAND_OPCODES:
                problems.append(f"{where}[{i}].opcode: 피연산자를 지정할 수 있는 명령은 {', '.join(OPERAND_OPCODES)}입니다 "
                                f"(받은 값: {opcode!r})")
                continue
            if not isinstance(operands, list) or not operands or not all(o in OPERANDS for o in operands):
                problems.append(f"{where}[{i}].operands: A, B, C 중에서 고른 목록이어야 합니다 (받은 값: {operands!r})")
                continue
            opcodes.append(opcode)
            operand_rules.append((opcode, tuple(operands)))
        elif isinstance(item, str) and _OPCODE_RULE.match(item):
            opcodes.append(item)
        else:
            problems.append(f"{where}[{i}]: SASS 명령 이름(예: LDG.E.128)이나 {{opcode, operands}} 매핑이어야 합니다")
    return tuple(dict.fromkeys(opcodes)), tuple(operand_rules)


def _parse(raw, folder: Path, problems: list) -> ExerciseSpec | None:
    if not isinstance(raw, dict):
        problems.append("최상위가 매핑(mapping)이어야 합니다")
        raw = {}
    _unknown("(최상위)", raw, _TOP_KEYS, problems)
    exercise_id = raw.get("id")
    match = ID_PATTERN.match(exercise_id) if isinstance(exercise_id, str) else None
    if not match:
        problems.append(f"id: m<모듈>-e<번호> 형식이어야 합니다 (받은 값: {exercise_id!r})")
    elif exercise_id != folder.name:
        problems.append(f"id({exercise_id})가 폴더 이름({folder.name})과 다릅니다")
    module = _int(raw.get("module"), "module", problems, low=1)
    if match and module != int(match.group(1)):
        problems.append(f"module({module})이 id의 모듈 번호({int(match.group(1))})와 다릅니다")
    entry = raw.get("entry")
    if not isinstance(entry, str) or not ENTRY_PATTERN.match(entry):
        problems.append(f"entry: C 식별자(identifier)여야 합니다 (받은 값: {entry!r})")
        entry = "kernel"

    kind, signature = _kind_and_signature(raw, problems)

    launch = _mapping(raw.get("launch"), "launch", problems)
    _unknown("launch", launch, _LAUNCH_KEYS, problems)
    block = _pair(launch.get("block"), "launch.block", problems)
    if block[0] * block[1] > 1024:
        problems.append(f"launch.block: 스레드 {block[0] * block[1]}개는 블록 한도 1024개를 넘습니다")
    tile = _pair(launch.get("tile"), "launch.tile", problems)
    rows_from_x = launch.get("grid_rows_from_x", False)
    if not isinstance(rows_from_x, bool):
        problems.append("launch.grid_rows_from_x: true 또는 false여야 합니다")
        rows_from_x = False
    dynamic_smem = _int(launch.get("dynamic_smem", 0), "launch.dynamic_smem", problems, low=0)

    shapes = _mapping(raw.get("shapes"), "shapes", problems)
    _unknown("shapes", shapes, _SHAPES_KEYS, problems)
    multiple = _mapping(shapes.get("multiple_of"), "shapes.multiple_of", problems)
    _unknown("shapes.multiple_of", multiple, {"M", "N", "K"}, problems)
    multiple_of = {d: _int(multiple.get(d, 1), f"shapes.multiple_of.{d}", problems, low=1) for d in "MNK"}
    aligned16 = shapes.get("aligned16", False)
    if not isinstance(aligned16, bool):
        problems.append("shapes.aligned16: true 또는 false여야 합니다")
        aligned16 = False
    max_elements = _int(shapes.get("max_elements", MAX_ELEMENTS), "shapes.max_elements", problems, low=1)
    if max_elements > MAX_ELEMENTS:
        problems.append(f"shapes.max_elements: 32비트 int의 최댓값 {MAX_ELEMENTS} 이하여야 합니다 (받은 값: {max_elements})")
        max_elements = MAX_ELEMENTS

    checks = _mapping(raw.get("checks"), "checks", problems)
    _unknown("checks", checks, _CHECKS_KEYS, problems)
    sass = _mapping(checks.get("sass"), "checks.sass", problems)
    _unknown("checks.sass", sass, _SASS_KEYS, problems)
    forbid = _rules(sass.get("forbid", ["LDL", "STL"]), "checks.sass.forbid", problems)
    require, operand_rules = _required(sass.get("require", []), "checks.sass.require", problems)
    max_registers = sass.get("max_registers")
    if max_registers is not None:
        max_registers = _int(max_registers, "checks.sass.max_registers", problems, low=1)
    correctness = checks.get("correctness", {})
    if correctness not in ({}, None):
        problems.append("checks.correctness: 지금은 빈 매핑({})만 받습니다 (기본 검사: 무작위 크기, 경계, alpha/beta, NaN)")
    hazards_raw = _mapping(checks.get("hazards"), "checks.hazards", problems)
    _unknown("checks.hazards", hazards_raw, set(HAZARD_TOOLS), problems)
    hazards = {}
    for tool in HAZARD_TOOLS:
        value = hazards_raw.get(tool, True)
        if not isinstance(value, bool):
            problems.append(f"checks.hazards.{tool}: true 또는 false여야 합니다")
            value = True
        hazards[tool] = value
    speed = _mapping(checks.get("speed"), "checks.speed", problems)
    _unknown("checks.speed", speed, _SPEED_KEYS, problems)
    reference = speed.get("reference")
    kind_rules = kinds.get(kind)
    if not kind_rules.reference_ok(reference):
        problems.append(f"checks.speed.reference: {kind_rules.reference_text_ko}이어야 합니다 (받은 값: {reference!r})")
        reference = "sgemm_naive"
    size = _int(speed.get("size"), "checks.speed.size", problems, low=16, default=1024)
    min_ratio = speed.get("min_ratio")
    if isinstance(min_ratio, bool) or not isinstance(min_ratio, (int, float)) or not 0 < min_ratio <= 10:
        problems.append(f"checks.speed.min_ratio: 0보다 크고 10 이하인 수여야 합니다 (받은 값: {min_ratio!r})")
        min_ratio = 1.0

    hints = raw.get("hints_ko")
    if not isinstance(hints, list) or not 2 <= len(hints) <= 4 or \
            not all(isinstance(h, str) and h.strip() for h in hints):
        problems.append("hints_ko: 문자열 2–4개의 목록이어야 합니다 (쉬운 힌트부터 차례로)")
        hints = []

    wrong = raw.get("wrong_attempts")
    attempts = []
    if not isinstance(wrong, list) or len(wrong) < 2:
        problems.append("wrong_attempts: 알려진 틀린 시도가 2개 이상 있어야 합니다")
        wrong = wrong if isinstance(wrong, list) else []
    for i, item in enumerate(wrong):
        where = f"wrong_attempts[{i}]"
        item = _mapping(item, where, problems)
        _unknown(where, item, _WRONG_KEYS, problems)
        name = item.get("file")
        if not isinstance(name, str) or not re.fullmatch(r"wrong_[\w-]+\.cu", name):
            problems.append(f"{where}.file: wrong_<무엇>.cu 형식이어야 합니다 (받은 값: {name!r})")
        elif not (folder / name).is_file():
            problems.append(f"{where}.file: {name} 파일이 없습니다")
        diagnosis = item.get("diagnosis")
        if diagnosis not in DIAGNOSES:
            problems.append(f"{where}.diagnosis: 알 수 없는 진단(diagnosis) {diagnosis!r}; "
                            f"가능한 값: {', '.join(DIAGNOSES)}")
        attempts.append(WrongAttempt(str(name), str(diagnosis), _text(item.get("what_ko"), f"{where}.what_ko", problems)))
    for required in ("starter.cu", "solution.cu"):
        if not (folder / required).is_file():
            problems.append(f"{required} 파일이 없습니다")

    return ExerciseSpec(
        id=str(exercise_id), module=module, title_ko=_text(raw.get("title_ko"), "title_ko", problems),
        goal_ko=_text(raw.get("goal_ko"), "goal_ko", problems), entry=entry, block=block, tile=tile,
        grid_rows_from_x=rows_from_x, dynamic_smem=dynamic_smem, multiple_of=multiple_of, aligned16=aligned16,
        forbid=forbid, require=require, max_registers=max_registers, hazards=hazards,
        speed_reference=reference, speed_size=size, min_ratio=float(min_ratio), hints_ko=tuple(h.strip() for h in hints),
        wrong_attempts=tuple(attempts), folder=folder, operand_rules=operand_rules, kind=kind, signature=signature,
        max_elements=max_elements)


def _kind_and_signature(raw: dict, problems: list) -> tuple[str, tuple]:
    """kind (default sgemm) and the signature the yaml writes out, which must be the kind's own."""
    kind = raw.get("kind", "sgemm")
    if kind not in kinds.KIND_NAMES:
        problems.append(f"kind: {', '.join(kinds.KIND_NAMES)} 중 하나여야 합니다 (받은 값: {kind!r})")
        return "sgemm", ()
    expected = kinds.get(kind).signature
    if "signature" not in raw:
        return kind, expected
    signature = parse_signature(raw.get("signature"))
    if signature is None:
        problems.append('signature: "const float* P", "int M"처럼 "타입 이름" 문자열의 목록이어야 합니다')
        return kind, expected
    if signature != expected:
        want = ", ".join(f"{n}:{k}" for n, k in expected)
        problems.append(f"signature: 종류 {kind}의 매개변수 목록({want})과 다릅니다")
    return kind, expected
