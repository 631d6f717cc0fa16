"""Course settings: the gating policy and the checkpoints' pass rules, over the syllabus's structure.

Which modules exist, their pages, which checkpoint gates which module and how many questions a
checkpoint has are declared once, in course/syllabus.py. What an instructor may change lives in
``_config.yml`` under ``sphinx.config.course_settings``, and this module is the one place that reads and
validates all of it (Korean errors naming the key):

    gating_policy            strict | advisory | off
    gating_unlock            progress | instructor: what opens a gated chapter (course.quiz.unlock)
    unlock_public_key        the instructor's P-256 public key (base64 SPKI), needed by the instructor modes
    unlock_course_id         text every unlock code is bound to (empty: the book's title)
    lab_unlock               same | instructor: JupyterLab/Colab open with the code alone
    attempt_limit            `grade` flags attempt numbers above it (0: no limit)
    verdicts_after_attempts  checkpoint feedback names each question right/wrong from this attempt on
    checkpoint_grading       page | instructor: "instructor" builds checkpoint pages without any grading
                             data (course.quiz.checkpoint_lock.instructor_payload); the page and the JupyterLab
                             quiz only collect the answers for `python -m course grade`
    checkpoints              a checkpoint's pass count (and title, and kernel exercises it also requires)

The site (``window.COURSE_SETTINGS``, written by course/site/extension.py from :meth:`CourseSettings.as_site_dict`)
and Python (this module) merge the two the same way. Where no ``_config.yml`` can be found (an installed
package used outside the repository), the syllabus's defaults apply.

Lookup order for the file: the ``path`` argument, the environment variable
``SGEMM_COURSE_CONFIG``, ``_config.yml`` next to the ``course`` package, then the current
directory and its parents.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# libyaml's safe loader where PyYAML was built with it (several times faster than the pure-Python one).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

from course import syllabus as _syllabus
from korean_text import with_particle

__all__ = [
    "GRADING_MODES",
    "LAB_UNLOCK_MODES",
    "POLICIES",
    "UNLOCK_MODES",
    "Checkpoint",
    "CourseSettings",
    "SettingsError",
    "UnlockSettings",
    "default_settings",
    "find_config",
    "load_settings",
    "load_unlock_settings",
    "settings_from_dict",
    "unlock_settings_from",
]

POLICIES = ("strict", "advisory", "off")
UNLOCK_MODES = ("progress", "instructor")
LAB_UNLOCK_MODES = ("same", "instructor")
GRADING_MODES = ("page", "instructor")
MAX_ATTEMPT_LIMIT = 10 ** 6
CONFIG_ENV = "SGEMM_COURSE_CONFIG"

# Keys an instructor sets in _config.yml; the structure (pages, gates, question counts) is the syllabus's.
STRUCTURE_KEYS = ("pages", "gates")


def default_settings() -> dict:
    """course_settings as the syllabus alone gives them (policy strict)."""
    return {"gating_policy": "strict", **_syllabus.load().course_settings()}

# A checkpoint attempt shows only the score and the sections to review; per-question right/wrong
# (and the explanations of the questions answered right) once it is passed, or from this attempt
# on. 0: only once passed.
DEFAULT_VERDICTS_AFTER_ATTEMPTS = 3
MAX_VERDICTS_AFTER_ATTEMPTS = 100
# Every key course_settings may hold (anything else is a typo, refused with the nearest known key).
KNOWN_KEYS = ("gating_policy", "gating_unlock", "unlock_public_key", "unlock_course_id", "lab_unlock", "attempt_limit",
              "verdicts_after_attempts", "checkpoint_grading", "checkpoints", *STRUCTURE_KEYS)
# Keys that no longer mean anything, with what replaced them (an old _config.yml gets a clear error).
REMOVED_KEYS = {"attempts_before_variant": "체크포인트의 수치 문항은 이제 첫 시도부터 변형(variant)을 보여 줍니다. "
                                           "이 항목을 지우세요 (시도별 정오 공개는 verdicts_after_attempts)"}


class SettingsError(ValueError):
    """course_settings is malformed; the message is Korean and names the key."""


@dataclass(frozen=True)
class Checkpoint:
    module: int
    pass_count: int
    question_count: int
    title: str
    # Kernel exercises (ids of course/exercises/) that must also pass, checked where the learner runs
    # them (JupyterLab); empty by default. The static site cannot run kernels and gates on the quiz.
    exercises: tuple = ()

    @property
    def rule_text(self) -> str:
        """The pass rule as a count, e.g. "6/8"."""
        return f"{self.pass_count}/{self.question_count}"


@dataclass(frozen=True)
class CourseSettings:
    gating_policy: str = "strict"
    checkpoints: dict = field(default_factory=dict)   # module -> Checkpoint
    gates: dict = field(default_factory=dict)         # gated module -> required module
    pages: dict = field(default_factory=dict)         # module -> docname under book/
    source: str = "defaults"
    # From this checkpoint attempt on, the feedback names each question right or wrong (0: only once passed).
    verdicts_after_attempts: int = DEFAULT_VERDICTS_AFTER_ATTEMPTS
    gating_unlock: str = "progress"      # progress | instructor (course.quiz.unlock)
    unlock_public_key: str = ""          # base64 SPKI, whitespace removed
    unlock_course: str = ""              # the text codes are bound to: unlock_course_id, else the book's title
    lab_unlock: str = "same"             # same | instructor
    attempt_limit: int = 0               # 0: no limit
    checkpoint_grading: str = "page"     # page | instructor

    @property
    def site_by_code(self) -> bool:
        """Only the instructor's unlock code opens a gated chapter on the site."""
        return self.gating_unlock == "instructor"

    @property
    def lab_by_code(self) -> bool:
        """Only the instructor's unlock code opens a gated notebook in JupyterLab/Colab."""
        return self.gating_unlock == "instructor" or self.lab_unlock == "instructor"

    @property
    def graded_by_instructor(self) -> bool:
        """Checkpoint pages and the JupyterLab quiz collect answers only; `grade` grades them."""
        return self.checkpoint_grading == "instructor"

    def checkpoint(self, module: int) -> Checkpoint | None:
        return self.checkpoints.get(int(module))

    def required_module(self, module: int) -> int | None:
        return self.gates.get(int(module))

    def page(self, module: int) -> str:
        return self.pages.get(int(module), f"m{int(module):02d}")

    def as_site_dict(self) -> dict:
        """What the site's script reads as window.COURSE_SETTINGS (string keys, as in _config.yml)."""
        return {
            "gating_policy": self.gating_policy,
            "verdicts_after_attempts": self.verdicts_after_attempts,
            "gating_unlock": self.gating_unlock,
            "checkpoint_grading": self.checkpoint_grading,
            "checkpoints": {str(m): {"pass_count": c.pass_count, "question_count": c.question_count,
                                     "title": c.title, "exercises": list(c.exercises)}
                            for m, c in self.checkpoints.items()},
            "gates": {str(m): str(r) for m, r in self.gates.items()},
            "pages": {str(m): p for m, p in self.pages.items()},
        }


def find_config(path: str | os.PathLike | None = None) -> Path | None:
    """Return the _config.yml to read, or None when there is none."""
    if path is not None:
        return Path(path)
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    candidates = [Path(__file__).resolve().parent.parent / "_config.yml"]
    cwd = Path.cwd().resolve()
    candidates += [d / "_config.yml" for d in (cwd, *cwd.parents)]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def load_settings(path: str | os.PathLike | None = None) -> CourseSettings:
    """Read course_settings from _config.yml (or the defaults when none is found)."""
    config = find_config(path)
    if config is None:
        return settings_from_dict({}, source="defaults")
    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SettingsError(f"{config}: 설정 파일을 읽을 수 없습니다 ({exc})") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{config}: 설정 파일의 최상위가 매핑(mapping)이 아닙니다")
    raw = ((data.get("sphinx") or {}).get("config") or {}).get("course_settings")
    if raw is None:
        raise SettingsError(f"{config}: sphinx.config.course_settings 항목이 없습니다")
    return settings_from_dict(raw, source=str(config), title=str(data.get("title") or ""))


def settings_from_dict(raw: dict, source: str = "dict", title: str = "") -> CourseSettings:
    """Validate an instructor's course_settings mapping (string or int keys) over the syllabus.

    Pages and gates come from the syllabus; _config.yml may restate them only as the syllabus has them.
    Each checkpoint of the syllabus takes its pass count (and title, exercises) from _config.yml when set there.
    title: the book's title, the text unlock codes are bound to when unlock_course_id is empty.
    """
    where = f"{source}: course_settings"
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}는 매핑(mapping)이어야 합니다")
    course = _syllabus.load()
    policy = raw.get("gating_policy", "strict")
    if policy not in POLICIES:
        raise SettingsError(f"{where}.gating_policy는 {', '.join(POLICIES)} 중 하나여야 합니다 (받은 값: {policy!r})")
    structure = course.course_settings()
    for key in STRUCTURE_KEYS:
        given = raw.get(key)
        if given is not None and _normalised(given, f"{where}.{key}") != structure[key]:
            raise SettingsError(f"{where}.{key}: 모듈의 문서와 잠금은 {course.source}에서 정합니다. "
                                f"_config.yml의 {key} 항목을 지우거나 강좌 구성과 같게 적으세요")
    overrides = raw.get("checkpoints") or {}
    if not isinstance(overrides, dict):
        raise SettingsError(f"{where}.checkpoints는 매핑(mapping)이어야 합니다")
    for key in overrides:
        module = _module_key(key, f"{where}.checkpoints")
        if module not in course.checkpoints():
            known = ", ".join(str(n) for n in course.checkpoints())
            raise SettingsError(f"{where}.checkpoints.{key}: 모듈 {module}에는 체크포인트가 없습니다 (있는 체크포인트: {known})")
    checkpoints = {}
    for module, rule in course.checkpoints().items():
        value = {"pass_count": rule.pass_count, "question_count": rule.question_count, "title": rule.title}
        given = overrides.get(str(module), overrides.get(module))
        if given is not None:
            if not isinstance(given, dict):
                raise SettingsError(f"{with_particle(f'{where}.checkpoints.{module}', '는', strict=False)} "
                                    "pass_count, title, exercises를 가진 매핑이어야 합니다")
            if "question_count" in given and given["question_count"] != rule.question_count:
                raise SettingsError(f"{where}.checkpoints.{module}.question_count: 모듈 {module} 체크포인트의 문항 수는 "
                                    f"{rule.question_count}입니다 (받은 값: {given['question_count']!r})")
            value.update(given)
        checkpoints[module] = _checkpoint(module, value, f"{where}.checkpoints.{module}")
    gates = {gated: required for gated, required in course.gates().items()}
    for key, why in REMOVED_KEYS.items():
        if key in raw:
            raise SettingsError(f"{where}.{key}: 더 이상 쓰지 않는 항목입니다. {why}")
    for key in raw:
        if key not in KNOWN_KEYS:
            near = difflib.get_close_matches(str(key), KNOWN_KEYS, n=1)
            hint = f" '{near[0]}'을(를) 뜻했나요?" if near else ""
            raise SettingsError(f"{where}.{key}: 알 수 없는 설정 항목(unknown key)입니다.{hint} "
                                f"쓸 수 있는 항목: {', '.join(KNOWN_KEYS)}")
    verdicts = raw.get("verdicts_after_attempts", DEFAULT_VERDICTS_AFTER_ATTEMPTS)
    if isinstance(verdicts, bool) or not isinstance(verdicts, int) or not 0 <= verdicts <= MAX_VERDICTS_AFTER_ATTEMPTS:
        raise SettingsError(f"{where}.verdicts_after_attempts는 0 이상 {MAX_VERDICTS_AFTER_ATTEMPTS} 이하의 정수여야 "
                            f"합니다 (0이면 통과한 뒤에만 문항별 정오를 보여 줍니다; 받은 값: {verdicts!r})")
    unlock = unlock_values(raw, title, where)
    grading = raw.get("checkpoint_grading", "page")
    if grading not in GRADING_MODES:
        raise SettingsError(f"{where}.checkpoint_grading는 {', '.join(GRADING_MODES)} 중 하나여야 합니다 (page: 체크포인트 "
                            f"페이지가 채점, instructor: 페이지는 답만 모으고 강사가 `grade`로 채점; 받은 값: {grading!r})")
    if grading == "instructor" and policy == "strict" and unlock["gating_unlock"] != "instructor":
        raise SettingsError(f"{where}.checkpoint_grading: 강사 채점(instructor) 설정에서는 페이지가 채점하지 않으므로 "
                            "체크포인트를 풀어도 다음 장이 열리지 않습니다. gating_unlock: instructor(강사의 잠금 해제 "
                            "코드)와 함께 쓰거나, gating_policy를 advisory나 off로 하세요")
    return CourseSettings(policy, checkpoints, gates, course.pages(), source, verdicts,
                          checkpoint_grading=grading, **unlock)


def unlock_values(raw: dict, title: str, where: str) -> dict:
    """The unlock keys of course_settings, validated: gating_unlock, unlock_public_key (checked as a P-256
    key where the cryptography package is installed; it is checked again where it is used), unlock_course
    (unlock_course_id, else the title, normalised as codes are), lab_unlock, attempt_limit."""
    from course.instructor.safe_text import printable
    from course.quiz.unlock import UnlockError, crypto_available, load_public_key, normalise_text

    mode = raw.get("gating_unlock", "progress")
    if mode not in UNLOCK_MODES:
        raise SettingsError(f"{where}.gating_unlock는 {', '.join(UNLOCK_MODES)} 중 하나여야 합니다 (받은 값: {mode!r})")
    lab = raw.get("lab_unlock", "same")
    if lab not in LAB_UNLOCK_MODES:
        raise SettingsError(f"{where}.lab_unlock는 {', '.join(LAB_UNLOCK_MODES)} 중 하나여야 합니다 (받은 값: {lab!r})")
    key = raw.get("unlock_public_key") or ""
    if not isinstance(key, str):
        raise SettingsError(f"{where}.unlock_public_key는 문자열(base64)이어야 합니다")
    key = "".join(key.split())
    if key and crypto_available():
        try:
            load_public_key(key)
        except UnlockError as exc:
            raise SettingsError(f"{where}.unlock_public_key: {exc}") from None
    elif not key and (mode == "instructor" or lab == "instructor"):
        raise SettingsError(f"{where}: 잠금 해제 코드(unlock code)를 쓰려면 unlock_public_key가 있어야 합니다. "
                            "`python -m course unlock keygen --out 폴더`가 출력하는 줄을 넣으세요")
    course = raw.get("unlock_course_id") or title
    if not isinstance(course, str):
        raise SettingsError(f"{where}.unlock_course_id는 문자열이어야 합니다")
    course = normalise_text(course)
    if printable(course) != course:
        raise SettingsError(f"{where}.unlock_course_id(또는 title)에 제어 문자가 있습니다")
    limit = raw.get("attempt_limit", 0)
    if limit is None:
        limit = 0
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= MAX_ATTEMPT_LIMIT:
        raise SettingsError(f"{where}.attempt_limit는 0 이상 {MAX_ATTEMPT_LIMIT} 이하의 정수여야 합니다 "
                            f"(0이면 제한 없음; 받은 값: {limit!r})")
    return {"gating_unlock": mode, "unlock_public_key": key, "unlock_course": course, "lab_unlock": lab,
            "attempt_limit": limit}


@dataclass(frozen=True)
class UnlockSettings:
    """The unlock keys of the course settings, as the gate and the `unlock` command use them."""
    mode: str = "progress"           # what opens a gated chapter on the site (and in JupyterLab by default)
    public_key: str = ""             # base64 SPKI
    course: str = ""                 # the course text every code is bound to
    lab: str = "same"                # JupyterLab/Colab: "same" as mode, or "instructor" (the code only)
    source: str = "defaults"

    @property
    def site_by_code(self) -> bool:
        return self.mode == "instructor"

    @property
    def lab_by_code(self) -> bool:
        return self.mode == "instructor" or self.lab == "instructor"


def load_unlock_settings(path=None) -> UnlockSettings:
    """The unlock settings of the _config.yml load_settings reads (validated there)."""
    settings = load_settings(path)
    return UnlockSettings(settings.gating_unlock, settings.unlock_public_key, settings.unlock_course,
                          settings.lab_unlock, settings.source)


def unlock_settings_from(raw: dict, title: str = "", source: str = "dict") -> UnlockSettings:
    """The unlock keys of a course_settings mapping, validated by unlock_values (SettingsError, in
    Korean, when wrong); the other keys of the mapping are not looked at."""
    values = unlock_values(raw, title, f"{source}: course_settings")
    return UnlockSettings(values["gating_unlock"], values["unlock_public_key"], values["unlock_course"],
                          values["lab_unlock"], source)


def _normalised(mapping, where: str) -> dict:
    """A pages/gates mapping with string keys and values, for comparison with the syllabus."""
    if not isinstance(mapping, dict):
        raise SettingsError(f"{where}는 매핑(mapping)이어야 합니다")
    return {str(k): str(v) for k, v in mapping.items()}


def _module_key(key, where: str) -> int:
    try:
        module = int(str(key))
    except ValueError:
        raise SettingsError(f"{where}: 모듈 번호는 정수여야 합니다 (받은 값: {key!r})") from None
    return module


def _checkpoint(module: int, value, where: str) -> Checkpoint:
    if not isinstance(value, dict):
        raise SettingsError(f"{with_particle(where, '는', strict=False)} pass_count, question_count, title을 가진 매핑이어야 합니다")
    pass_count = value.get("pass_count")
    question_count = value.get("question_count")
    for name, number in (("pass_count", pass_count), ("question_count", question_count)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise SettingsError(f"{where}.{name}는 1 이상의 정수여야 합니다 (받은 값: {number!r})")
    if pass_count > question_count:
        raise SettingsError(f"{where}: pass_count({pass_count})가 question_count({question_count})보다 큽니다")
    title = value.get("title") or f"모듈 {module} 체크포인트"
    exercises = value.get("exercises") or []
    if not isinstance(exercises, list) or not all(isinstance(e, str) and re.fullmatch(r"m\d{2}-e\d+", e)
                                                  for e in exercises):
        raise SettingsError(f"{where}.exercises는 실습 번호(예: m06-e1)의 목록이어야 합니다 (받은 값: {exercises!r})")
    return Checkpoint(module, pass_count, question_count, str(title), tuple(exercises))
