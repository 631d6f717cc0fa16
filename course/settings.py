"""Course settings: pass rules, gating policy and chapter pages.

They live in ``_config.yml`` under ``sphinx.config.course_settings`` so that the site
(``window.COURSE_SETTINGS``) and Python (this module) read one source. Where no
``_config.yml`` can be found (an installed package used outside the repository), the
defaults below, which mirror the shipped ``_config.yml``, apply.

Lookup order for the file: the ``path`` argument, the environment variable
``SGEMM_COURSE_CONFIG``, ``_config.yml`` next to the ``course`` package, then the current
directory and its parents.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from course.korean import with_particle

__all__ = [
    "POLICIES",
    "Checkpoint",
    "CourseSettings",
    "SettingsError",
    "find_config",
    "load_settings",
    "settings_from_dict",
]

POLICIES = ("strict", "advisory", "off")
CONFIG_ENV = "SGEMM_COURSE_CONFIG"

DEFAULT_ATTEMPTS_BEFORE_VARIANT = 2
MAX_ATTEMPTS_BEFORE_VARIANT = 100

DEFAULT_SETTINGS = {
    "gating_policy": "strict",
    "attempts_before_variant": DEFAULT_ATTEMPTS_BEFORE_VARIANT,
    "checkpoints": {
        "6": {"pass_count": 6, "question_count": 8, "title": "모듈 6 숙달 체크포인트"},
        "9": {"pass_count": 8, "question_count": 10, "title": "모듈 9 최종 체크포인트"},
    },
    "gates": {"7": "6", "10": "9", "11": "9"},
    "pages": {
        "4": "m04_naive",
        "5": "m05_coalescing",
        "6": "m06_tiling",
        "7": "m07_register_blocking",
        "8": "m08_double_buffer",
        "9": "m09_async_copy",
        "10": "m10_profiling",
        "11": "m11_beyond_cublas",
    },
}


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
    # Checkpoint attempts that show the questions as written; every later attempt draws a variant
    # (course.variants). 0: a variant from the first attempt.
    attempts_before_variant: int = DEFAULT_ATTEMPTS_BEFORE_VARIANT

    def checkpoint(self, module: int) -> Checkpoint | None:
        return self.checkpoints.get(int(module))

    def required_module(self, module: int) -> int | None:
        return self.gates.get(int(module))

    def page(self, module: int) -> str:
        return self.pages.get(int(module), f"m{int(module):02d}")


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
        return settings_from_dict(DEFAULT_SETTINGS, source="defaults")
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SettingsError(f"{config}: 설정 파일을 읽을 수 없습니다 ({exc})") from exc
    raw = ((data.get("sphinx") or {}).get("config") or {}).get("course_settings")
    if raw is None:
        raise SettingsError(f"{config}: sphinx.config.course_settings 항목이 없습니다")
    return settings_from_dict(raw, source=str(config))


def settings_from_dict(raw: dict, source: str = "dict") -> CourseSettings:
    """Validate a course_settings mapping (string or int keys) into CourseSettings."""
    where = f"{source}: course_settings"
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}는 매핑(mapping)이어야 합니다")
    policy = raw.get("gating_policy", "strict")
    if policy not in POLICIES:
        raise SettingsError(f"{where}.gating_policy는 {', '.join(POLICIES)} 중 하나여야 합니다 (받은 값: {policy!r})")
    checkpoints = {}
    for key, value in (raw.get("checkpoints") or {}).items():
        module = _module_key(key, f"{where}.checkpoints")
        checkpoints[module] = _checkpoint(module, value, f"{where}.checkpoints.{key}")
    gates = {}
    for key, value in (raw.get("gates") or {}).items():
        gated = _module_key(key, f"{where}.gates")
        required = _module_key(value, f"{where}.gates.{key}")
        if required not in checkpoints:
            raise SettingsError(f"{where}.gates.{key}: 모듈 {required}에는 체크포인트(checkpoints) 설정이 없습니다")
        gates[gated] = required
    pages = {}
    for key, value in (raw.get("pages") or {}).items():
        if not isinstance(value, str) or not value:
            raise SettingsError(f"{with_particle(f'{where}.pages.{key}', '는', strict=False)} 문서 이름(docname) 문자열이어야 합니다")
        pages[_module_key(key, f"{where}.pages")] = value
    attempts = raw.get("attempts_before_variant", DEFAULT_ATTEMPTS_BEFORE_VARIANT)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or not 0 <= attempts <= MAX_ATTEMPTS_BEFORE_VARIANT:
        raise SettingsError(f"{where}.attempts_before_variant는 0 이상 {MAX_ATTEMPTS_BEFORE_VARIANT} 이하의 정수여야 "
                            f"합니다 (받은 값: {attempts!r})")
    return CourseSettings(policy, checkpoints, gates, pages, source, attempts)


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
