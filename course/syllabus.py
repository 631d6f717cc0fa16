"""The course's modules, each declared once: its page, its kernel level, what gates it, its checkpoint,
its quiz bank, its exercises and its simulators.

Everything that needs to know "which modules exist" reads this table: the settings (pages, gates and
checkpoints the site's script and JupyterLab enforce), the question banks, the instructor's command
line, the Sphinx extension, the facts modules and the tests. `_toc.yml` is written from it
(`python -m course toc --write`, run by `make book`) and a test checks `_config.yml` against it, so a new
module is one entry here plus its own files (chapter, facts module, bank, simulator, kernel).

Four numbering schemes meet in the course, and this table is where they are tied together:
- the module number (4-12), which names the chapter (book/mNN_*.md), its bank (course/quiz/banks/mNN.yaml),
  its facts (course/facts/mNN.py) and its exercises (course/exercises/mNN-eK/);
- the kernel level (0-6), which names the kernels (kernels.registry: KernelSpec.level, with the
  representative kernel of each level in registry.LEVEL_REPRESENTATIVE); module 10 teaches no new level;
- the simulation number, which is the number of the module that introduces the simulator;
- the source material's modules (the seeds), which carry the same numbers as the course's modules 4-10.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

SYLLABUS_ENV = "SGEMM_COURSE_SYLLABUS"   # a YAML file with the same table (tests build throwaway syllabi)
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BANK_QUESTIONS = 8              # a module's quiz, unless the module says otherwise


@dataclass(frozen=True)
class CheckpointRule:
    """A mastery checkpoint: pass with at least pass_count of question_count questions right."""

    pass_count: int
    question_count: int
    title: str


@dataclass(frozen=True)
class Module:
    number: int                      # 4, 5, ...: the chapter's number
    page: str                        # docname under book/ (book/<page>.md)
    title: str                       # short Korean title (tables, CLI, gradebook)
    level: int | None                # kernel level it teaches (None: no new kernel)
    gate: int | None = None          # checkpoint module that must be passed before this one opens
    checkpoint: CheckpointRule | None = None
    exercises: tuple[str, ...] = ()  # course/exercises/<id>/
    simulators: tuple[str, ...] = () # sims.<name> modules whose simulator the chapter introduces
    bonus: bool = False              # after the final checkpoint; not a gate for anything
    questions: int | None = None     # questions in the module's bank (None: bank_questions' default)

    @property
    def tag(self) -> str:
        """'m04': the prefix of the module's bank, facts module and exercise ids."""
        return f"m{self.number:02d}"

    @property
    def bank(self) -> str:
        return self.tag

    @property
    def bank_questions(self) -> int:
        """How many questions the module's bank holds: `questions` where given, else the checkpoint's
        question_count (its quiz asks them all), else DEFAULT_BANK_QUESTIONS."""
        if self.questions is not None:
            return self.questions
        return self.checkpoint.question_count if self.checkpoint is not None else DEFAULT_BANK_QUESTIONS

    @property
    def facts_module(self) -> str:
        return f"course.facts.{self.tag}"

    @property
    def chapter_path(self) -> Path:
        return Path("book") / f"{self.page}.md"

    def representative_kernel(self) -> str | None:
        """The kernel that stands for this module's level in level-to-level comparisons."""
        if self.level is None:
            return None
        from kernels.registry import LEVEL_REPRESENTATIVE

        return LEVEL_REPRESENTATIVE[self.level]


_CP6 = CheckpointRule(6, 8, "모듈 6 숙달 체크포인트")
_CP9 = CheckpointRule(8, 10, "모듈 9 최종 체크포인트")

# The course, in reading order.
MODULES: tuple[Module, ...] = (
    Module(4, "m04_naive", "나이브 SGEMM", 0, exercises=("m04-e1",), simulators=("coalescing",)),
    Module(5, "m05_coalescing", "메모리 코얼레싱과 float4", 1, exercises=("m05-e1", "m05-e2"),
           simulators=("coalescing",)),
    Module(6, "m06_tiling", "공유 메모리 타일링", 2, checkpoint=_CP6, exercises=("m06-e1", "m06-e2"),
           simulators=("banks",)),
    Module(7, "m07_register_blocking", "레지스터 블로킹", 3, gate=6, exercises=("m07-e1",),
           simulators=("outer_product",)),
    Module(8, "m08_double_buffer", "더블 버퍼링", 4, exercises=("m08-e1",), simulators=("pipeline",)),
    Module(9, "m09_async_copy", "cp.async 스테이지 링", 5, checkpoint=_CP9, exercises=("m09-e1",),
           simulators=("pipeline",)),
    Module(10, "m10_profiling", "프로파일링과 루프라인", None, gate=9, simulators=("profiles", "roofline")),
    Module(11, "m11_beyond_cublas", "워프 타일링: cuBLAS와 나란히", 6, gate=9, simulators=("warp_tiling",),
           bonus=True),
    # Level 7 is a dispatcher over one file (sgemm_shape_aware, registry chapter 12), not a level with a single
    # representative kernel in the level-to-level tables (LEVEL_REPRESENTATIVE stops at Level 6), so level=None.
    # Open to everyone: a bonus that no checkpoint gates.
    Module(12, "m12_shape_aware", "모양에 맞춘 SGEMM: 모든 모양에서 cuBLAS와", None, exercises=("m12-e1",),
           simulators=("shape_waves",), questions=9,   # a ninth quiz question: the memory-bound end
           bonus=True),
)


class SyllabusError(ValueError):
    """The syllabus contradicts itself; the message is Korean and names the module."""


@dataclass(frozen=True)
class Syllabus:
    modules: tuple[Module, ...]
    source: str = "course/syllabus.py"
    _by_number: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_by_number", {m.number: m for m in self.modules})
        _validate(self)

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(m.number for m in self.modules)

    def module(self, number: int) -> Module:
        try:
            return self._by_number[int(number)]
        except (KeyError, TypeError, ValueError):
            known = ", ".join(str(n) for n in self.numbers)
            raise SyllabusError(f"강좌에 모듈 {number!r}이(가) 없습니다 (있는 모듈: {known})") from None

    def __contains__(self, number) -> bool:
        return isinstance(number, int) and not isinstance(number, bool) and number in self._by_number

    def __iter__(self):
        return iter(self.modules)

    def pages(self) -> dict[int, str]:
        return {m.number: m.page for m in self.modules}

    def gates(self) -> dict[int, int]:
        return {m.number: m.gate for m in self.modules if m.gate is not None}

    def checkpoints(self) -> dict[int, CheckpointRule]:
        return {m.number: m.checkpoint for m in self.modules if m.checkpoint is not None}

    def by_page(self, page: str) -> Module:
        for m in self.modules:
            if m.page == page:
                return m
        raise SyllabusError(f"강좌에 {page!r} 문서(page)를 가진 모듈이 없습니다")

    def course_settings(self) -> dict:
        """The structural part of course_settings (pages, gates, checkpoints), as _config.yml spells it."""
        return {
            "checkpoints": {str(n): {"pass_count": c.pass_count, "question_count": c.question_count, "title": c.title}
                            for n, c in self.checkpoints().items()},
            "gates": {str(n): str(g) for n, g in self.gates().items()},
            "pages": {str(n): p for n, p in self.pages().items()},
        }

    def toc_chapters(self) -> list[dict]:
        """The chapters of _toc.yml's modules part ("본문"), in reading order."""
        return [{"file": f"book/{m.page}"} for m in self.modules]


def _validate(s: Syllabus) -> None:
    seen_pages = set()
    numbers = [m.number for m in s.modules]
    if len(set(numbers)) != len(numbers):
        raise SyllabusError(f"{s.source}: 모듈 번호가 겹칩니다 ({numbers})")
    if numbers != sorted(numbers):
        raise SyllabusError(f"{s.source}: 모듈은 번호 순서로 적어야 합니다 ({numbers})")
    for m in s.modules:
        where = f"{s.source}: 모듈 {m.number}"
        if m.page in seen_pages:
            raise SyllabusError(f"{where}: 문서 {m.page!r}를 다른 모듈도 씁니다")
        seen_pages.add(m.page)
        if m.gate is not None:
            required = s._by_number.get(m.gate)
            if required is None or required.checkpoint is None:
                raise SyllabusError(f"{where}: 잠금(gate)이 가리키는 모듈 {m.gate}에 체크포인트가 없습니다")
            if m.gate >= m.number:
                raise SyllabusError(f"{where}: 잠금(gate)은 앞 모듈의 체크포인트여야 합니다 (받은 값: {m.gate})")
        if m.checkpoint is not None and m.questions not in (None, m.checkpoint.question_count):
            raise SyllabusError(f"{where}: 문항 수({m.questions})가 체크포인트의 문항 수({m.checkpoint.question_count})와 다릅니다")
        if m.checkpoint is not None and not 1 <= m.checkpoint.pass_count <= m.checkpoint.question_count:
            raise SyllabusError(f"{where}: 통과 기준 {m.checkpoint.pass_count}/{m.checkpoint.question_count}가 잘못되었습니다")
        for ex in m.exercises:
            if not ex.startswith(m.tag + "-e"):
                raise SyllabusError(f"{where}: 실습 번호 {ex!r}는 {m.tag}-e로 시작해야 합니다")


def _from_yaml(path: Path) -> Syllabus:
    """A syllabus from a YAML list of modules (same fields as Module; checkpoint as a mapping)."""
    import yaml

    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    modules = []
    for entry in raw.get("modules") or []:
        entry = dict(entry)
        cp = entry.pop("checkpoint", None)
        for key in ("exercises", "simulators"):
            entry[key] = tuple(entry.get(key) or ())
        modules.append(Module(checkpoint=CheckpointRule(**cp) if cp else None, **entry))
    return Syllabus(tuple(modules), source=str(path))


_CACHE: dict = {}


def load() -> Syllabus:
    """The course's syllabus (the table above, or the YAML file SGEMM_COURSE_SYLLABUS names)."""
    override = os.environ.get(SYLLABUS_ENV)
    key = override or ""
    if key not in _CACHE:
        _CACHE[key] = _from_yaml(Path(override)) if override else Syllabus(MODULES)
    return _CACHE[key]


__all__ = ["CheckpointRule", "Module", "MODULES", "Syllabus", "SyllabusError", "SYLLABUS_ENV", "load"]
