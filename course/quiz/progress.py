"""The learner's progress in JupyterLab: one JSON file that is never lost.

Where: ``platformdirs.user_data_dir("sgemm-course")``, or the folder named by the
environment variable ``SGEMM_COURSE_DATA``, or the ``data_dir`` argument (tests).
Files in that folder:

``progress.json``
    ``{"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [...],
    "best": {"6": {...}}, "student": {"id", "name"}, "learner": "<random id>", "updated_at": ...}``.
    ``best`` is recomputed from ``attempts`` at every write, so only attempts are authoritative.
    ``learner`` is an anonymous random id made once (``learner_id()``); with the attempt number
    it seeds the order of the quiz choices (course.quiz.shuffle). An attempt may carry
    ``attempt`` (its number for the module), ``choice_order`` ({question id: [choice ids]}) and
    ``variants`` ({question id: {parameter: value}}, a checkpoint's drawn variants). ``attempt_numbers``
    ({module: highest attempt submitted}) counts attempts submitted but not recorded, so a quiz opened
    again never gives the same attempt (and its variant) back.
    Kernel exercises (course.autograder) add two optional keys: ``exercise_attempts`` (one compact
    verdict per check, see ``validate_exercise_attempt``) and ``exercise_hints`` ({exercise id:
    hints unlocked}). Older course versions keep both untouched when they rewrite the file.
    Instructor unlock codes (course.gating.unlock) add ``unlock_codes`` ({module: {"student", "code"}}).
``progress.json.bak``
    the previous good file, written before every replacement.
``progress.json.corrupt-<time>``
    a file that could not be read, moved aside, never deleted.
``progress.lock``
    the lock file (``fcntl.flock``; ``msvcrt.locking`` on Windows; no lock where neither exists).

Safety: every change happens under the lock as read → change → write; the write goes to
a temporary file in the same folder, is fsync'ed and then ``os.replace``'d over the
old one, so a crash leaves either the old or the new file. A file that cannot be read
(truncated, hand-edited into something invalid) is moved aside; the state is rebuilt
from the backup plus every attempt that can still be read from the damaged file. A file
written by a newer course version (higher ``schema_version``) puts the store in
read-only mode with a Korean notice instead of overwriting it.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None
try:  # Windows
    import msvcrt
except ImportError:
    msvcrt = None

__all__ = [
    "DATA_ENV",
    "SCHEMA",
    "SCHEMA_VERSION",
    "ProgressReadOnlyError",
    "ProgressStore",
    "default_data_dir",
    "validate_attempt",
    "validate_exercise_attempt",
]

SCHEMA = "sgemm-course-progress"
SCHEMA_VERSION = 1
MAX_DEPTH = 64          # a real progress file nests about 6 levels; deeper is damage (or mischief)
DATA_ENV = "SGEMM_COURSE_DATA"
FILE_NAME = "progress.json"


class ProgressReadOnlyError(RuntimeError):
    """The progress file is from a newer course version; nothing is written."""


def default_data_dir() -> Path:
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("sgemm-course", appauthor=False))


def _empty_state() -> dict:
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "attempts": [], "best": {}, "student": {}}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def validate_attempt(attempt) -> bool:
    """True when attempt has every field with the right type."""
    return (isinstance(attempt, dict)
            and isinstance(attempt.get("id"), str) and attempt["id"] != ""
            and _is_int(attempt.get("module"))
            and isinstance(attempt.get("time"), str)
            and isinstance(attempt.get("answers"), dict)
            and isinstance(attempt.get("results"), dict)
            and _is_number(attempt.get("score"))
            and _is_int(attempt.get("max_score"))
            and _is_int(attempt.get("correct_count"))
            and (attempt.get("passed") is None or isinstance(attempt.get("passed"), bool)))


_EXERCISE_STATUSES = {"pass", "fail", "skip"}


def validate_exercise_attempt(attempt) -> bool:
    """True when attempt is a complete exercise verdict record (see record_exercise_attempt)."""
    return (isinstance(attempt, dict)
            and isinstance(attempt.get("id"), str) and attempt["id"] != ""
            and isinstance(attempt.get("exercise"), str) and attempt["exercise"] != ""
            and _is_int(attempt.get("module"))
            and isinstance(attempt.get("time"), str)
            and isinstance(attempt.get("passed"), bool)
            and (attempt.get("diagnosis") is None or isinstance(attempt.get("diagnosis"), str))
            and isinstance(attempt.get("checks"), dict)
            and all(isinstance(k, str) and v in _EXERCISE_STATUSES for k, v in attempt["checks"].items()))


def _state_problems(data) -> str | None:
    """None when data is a valid current-version state, else a short reason."""
    from course.quiz.submission import json_depth

    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return "진행 파일 형식이 아닙니다"
    if json_depth(data, MAX_DEPTH) > MAX_DEPTH:
        return f"값이 너무 깊게 중첩되어 있습니다 ({MAX_DEPTH}단계 초과)"
    if not _is_int(data.get("schema_version")):
        return "schema_version이 정수가 아닙니다"
    if not isinstance(data.get("attempts"), list):
        return "attempts가 목록이 아닙니다"
    bad = [i for i, a in enumerate(data["attempts"]) if not validate_attempt(a)]
    if bad:
        return f"읽을 수 없는 시도 기록이 있습니다 (위치 {bad[:5]})"
    if not isinstance(data.get("student", {}), dict):
        return "student가 객체가 아닙니다"
    exercise_attempts = data.get("exercise_attempts", [])
    if not isinstance(exercise_attempts, list):
        return "exercise_attempts가 목록이 아닙니다"
    bad = [i for i, a in enumerate(exercise_attempts) if not validate_exercise_attempt(a)]
    if bad:
        return f"읽을 수 없는 실습 기록이 있습니다 (위치 {bad[:5]})"
    hints = data.get("exercise_hints", {})
    if not isinstance(hints, dict) or not all(_is_int(v) and v >= 0 for v in hints.values()):
        return "exercise_hints가 {실습: 정수} 객체가 아닙니다"
    numbers = data.get("attempt_numbers", {})
    if not isinstance(numbers, dict) or not all(_is_int(v) and v >= 0 for v in numbers.values()):
        return "attempt_numbers가 {모듈: 정수} 객체가 아닙니다"
    return None


def _loads(raw: bytes):
    """The parsed file, or None when it is not JSON of any shape we can hold (nesting included)."""
    from course.quiz.submission import json_depth

    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if json_depth(data, MAX_DEPTH) <= MAX_DEPTH else None


def _salvage_attempts(text: str, valid=validate_attempt) -> list[dict]:
    """Every attempt object (as `valid` recognises it) that can still be decoded in a damaged file."""
    from course.quiz.submission import json_depth

    decoder = json.JSONDecoder()
    found, position = [], text.find("{")
    while position != -1:
        try:
            obj, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            obj, end = None, position + 1
        if valid(obj) and json_depth(obj, MAX_DEPTH) <= MAX_DEPTH:
            found.append(obj)
            position = text.find("{", end)
        else:
            position = text.find("{", position + 1)
    return found


def _best_by_module(attempts: list[dict]) -> dict:
    best: dict[str, dict] = {}
    for a in attempts:
        key = str(a["module"])
        rank = (a["correct_count"], a["score"], a["time"])
        current = best.get(key)
        if current is None or rank > (current["correct_count"], current["score"], current["time"]):
            best[key] = {"attempt_id": a["id"], "correct_count": a["correct_count"], "score": a["score"],
                         "max_score": a["max_score"], "passed": a.get("passed"), "time": a["time"]}
    return best


class ProgressStore:
    """Attempts and best scores of one learner, in one JSON file (see module docstring)."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.dir / FILE_NAME
        self.backup_path = self.dir / (FILE_NAME + ".bak")
        self.lock_path = self.dir / "progress.lock"
        self.read_only = False
        self.notices: list[str] = []   # Korean messages about recovery or read-only mode
        self._session_learner: str | None = None

    # ------------------------------------------------------------------ public API
    def load(self) -> dict:
        """The current state (recovering a damaged file on the way)."""
        if not self.dir.exists():
            return _empty_state()
        with self._locked():
            return self._read_state()

    def attempts(self, module: int | None = None) -> list[dict]:
        items = self.load()["attempts"]
        return [a for a in items if module is None or a.get("module") == int(module)]

    def best(self, module: int) -> dict | None:
        return _best_by_module([a for a in self.attempts(module) if validate_attempt(a)]).get(str(int(module)))

    def best_correct_count(self, module: int) -> int | None:
        best = self.best(module)
        return None if best is None else best["correct_count"]

    def student(self) -> dict:
        student = self.load().get("student") or {}
        return {"id": str(student.get("id", "")), "name": str(student.get("name", ""))}

    def set_student(self, student_id: str, name: str) -> None:
        def change(state):
            state["student"] = {"id": str(student_id).strip(), "name": str(name).strip()}
        self._update(change)

    def learner_id(self) -> str:
        """The learner's anonymous id, made and stored on first use. When nothing can be stored
        (read-only or unwritable progress) an id for this session only is returned."""
        from course.quiz.shuffle import new_learner_id, valid_learner_id
        try:
            stored = self.load().get("learner")
            if valid_learner_id(stored):
                return stored
            made = {}

            def change(state):
                if not valid_learner_id(state.get("learner")):
                    state["learner"] = new_learner_id()
                made["id"] = state["learner"]
            self._update(change)
            return made["id"]
        except (OSError, ProgressReadOnlyError):
            if self._session_learner is None:
                self._session_learner = new_learner_id()
            return self._session_learner

    def next_attempt_number(self, module: int) -> int:
        """1 + the highest attempt number stored for module (attempts without one count by position),
        counting attempts that were submitted but never recorded (see note_attempt)."""
        try:
            state = self.load()
        except OSError:
            return 1
        attempts = [a for a in state["attempts"] if a.get("module") == int(module)]
        numbers = [a["attempt"] for a in attempts if _is_int(a.get("attempt"))]
        started = (state.get("attempt_numbers") or {}).get(str(int(module)))
        if _is_int(started):
            numbers.append(started)
        return max([len(attempts)] + numbers) + 1

    def note_attempt(self, module: int, attempt: int) -> None:
        """Count an attempt as used once it is submitted, recorded or not (a checkpoint's feedback was
        seen), so that reopening the quiz never gives the same attempt back."""
        def change(state):
            numbers = state.setdefault("attempt_numbers", {})
            key = str(int(module))
            numbers[key] = max(int(attempt), numbers.get(key, 0) if _is_int(numbers.get(key)) else 0)
        self._update(change)

    def add_attempt(self, attempt: dict) -> dict:
        """Store a complete attempt record (see validate_attempt); returns it."""
        attempt = dict(attempt)
        attempt.setdefault("id", uuid.uuid4().hex)
        if not validate_attempt(attempt):
            raise ValueError("attempt is missing fields or has wrong types")
        self._update(lambda state: state["attempts"].append(attempt))
        return attempt

    def record_attempt(self, module: int, answers: dict, result, self_assessment: dict | None = None,
                       started_at: str | None = None, submitted_at: str | None = None,
                       client: str = "jupyterlab", presentation: dict | None = None) -> dict:
        """Store one graded attempt; ``result`` is a course.quiz.grading.QuizResult; ``presentation``
        ({"learner", "attempt", "choice_order"}) records the choice order shown."""
        from course.quiz.submission import utc_now_iso
        extra = {}
        if presentation:
            extra = {"attempt": presentation.get("attempt"), "choice_order": presentation.get("choice_order")}
            if presentation.get("variants"):
                extra["variants"] = presentation["variants"]
        return self.add_attempt({
            "id": uuid.uuid4().hex,
            "module": int(module),
            "time": submitted_at or utc_now_iso(),
            "started_at": started_at,
            "client": client,
            "answers": answers,
            "self_assessment": self_assessment or {},
            "results": {r.qid: {"status": r.status, "score": r.score} for r in result.results},
            "score": result.score,
            "max_score": result.max_score,
            "correct_count": result.correct_count,
            "passed": result.passed,
            **extra,
        })

    # ------------------------------------------------------------------ kernel exercises
    def record_exercise_attempt(self, verdict: dict, module: int, client: str = "jupyterlab") -> dict:
        """Store one exercise verdict (course.autograder.Verdict.to_dict()) compactly: which check
        passed, failed or was skipped, the diagnosis, the timing ratio, a hash of the source."""
        from course.quiz.submission import utc_now_iso
        speed = next((c for c in verdict.get("checks", []) if c.get("check") == "speed"), {})
        attempt = {
            "id": uuid.uuid4().hex,
            "exercise": str(verdict["exercise"]),
            "module": int(module),
            "time": utc_now_iso(),
            "client": client,
            "passed": bool(verdict.get("passed")),
            "diagnosis": verdict.get("diagnosis"),
            "checks": {c["check"]: c["status"] for c in verdict.get("checks", [])},
            "speed_ratio": (speed.get("details") or {}).get("ratio"),
            "device": verdict.get("device", ""),
            "source_sha256": verdict.get("source_sha256", ""),
            "seed": verdict.get("seed"),
        }
        if not validate_exercise_attempt(attempt):
            raise ValueError("exercise attempt is missing fields or has wrong types")
        self._update(lambda state: state.setdefault("exercise_attempts", []).append(attempt))
        return attempt

    def exercise_attempts(self, exercise: str | None = None) -> list[dict]:
        items = self.load().get("exercise_attempts", [])
        return [a for a in items if exercise is None or a.get("exercise") == exercise]

    def exercise_passed(self, exercise: str) -> bool:
        return any(a["passed"] for a in self.exercise_attempts(exercise))

    def exercise_hints_unlocked(self, exercise: str) -> int:
        value = self.load().get("exercise_hints", {}).get(exercise, 0)
        return value if _is_int(value) and value >= 0 else 0

    def unlock_exercise_hint(self, exercise: str, available: int) -> int:
        """Unlock the next hint (up to `available`); returns how many are unlocked now."""
        unlocked = {}

        def change(state):
            hints = state.setdefault("exercise_hints", {})
            hints[exercise] = min(available, hints.get(exercise, 0) + 1)
            unlocked["n"] = hints[exercise]
        self._update(change)
        return unlocked["n"]

    def unlock_codes(self) -> dict:
        """{module (text): {"student": id, "code": code}}: the instructor's unlock codes the learner
        entered (course.gating.unlock). They are verified again every time they are used."""
        value = self.load().get("unlock_codes", {})
        if not isinstance(value, dict):
            return {}
        return {str(k): v for k, v in value.items() if isinstance(v, dict) and isinstance(v.get("student"), str)
                and isinstance(v.get("code"), str)}

    def save_unlock_code(self, module: int, student: str, code: str) -> None:
        def change(state):
            codes = state.get("unlock_codes")
            if not isinstance(codes, dict):
                codes = state["unlock_codes"] = {}
            codes[str(int(module))] = {"student": student, "code": code}
        self._update(change)

    # ------------------------------------------------------------------ internals
    def _update(self, change) -> None:
        if self.read_only:
            raise ProgressReadOnlyError(self._read_only_message())
        self.dir.mkdir(parents=True, exist_ok=True)
        with self._locked():
            state = self._read_state()
            if self.read_only:
                raise ProgressReadOnlyError(self._read_only_message())
            previous = self.path.read_bytes() if self.path.exists() else None
            change(state)
            state["best"] = _best_by_module(state["attempts"])
            state["updated_at"] = datetime.now().astimezone().isoformat(timespec="seconds")
            if previous is not None:
                self._atomic_write(self.backup_path, previous)
            self._atomic_write(self.path, json.dumps(state, ensure_ascii=False, indent=1).encode("utf-8"))

    def _read_state(self) -> dict:
        """Read under the lock. Recovers (and rewrites) a damaged file."""
        if not self.path.exists():
            restored = self._read_backup()
            if restored is None:
                return _empty_state()
            self.notices.append("진행 파일(progress.json)이 없어 백업(progress.json.bak)에서 되살렸습니다.")
            self._atomic_write(self.path, json.dumps(restored, ensure_ascii=False, indent=1).encode("utf-8"))
            return restored
        raw = self.path.read_bytes()
        data = _loads(raw)
        if isinstance(data, dict) and data.get("schema") == SCHEMA and _is_int(data.get("schema_version")) \
                and data["schema_version"] > SCHEMA_VERSION:
            self.read_only = True
            if self._read_only_message() not in self.notices:
                self.notices.append(self._read_only_message())
            self._future_version = data["schema_version"]
            attempts = [a for a in data.get("attempts", []) if validate_attempt(a)] \
                if isinstance(data.get("attempts"), list) else []
            return {**_empty_state(), "attempts": attempts, "best": _best_by_module(attempts),
                    "schema_version": data["schema_version"]}
        problem = _state_problems(data)
        if problem is None:
            data.setdefault("student", {})
            return data
        return self._recover(raw, problem)

    def _recover(self, raw: bytes, problem: str) -> dict:
        aside = self._aside_path()
        os.replace(self.path, aside)
        state = self._read_backup() or _empty_state()
        known = {a["id"] for a in state["attempts"]}
        text = raw.decode("utf-8", errors="replace")
        salvaged = [a for a in _salvage_attempts(text) if a["id"] not in known]
        state["attempts"] = sorted(state["attempts"] + salvaged, key=lambda a: a["time"])
        known_exercise = {a["id"] for a in state.get("exercise_attempts", [])}
        exercise_salvaged = [a for a in _salvage_attempts(text, validate_exercise_attempt) if a["id"] not in known_exercise]
        if exercise_salvaged or state.get("exercise_attempts"):
            state["exercise_attempts"] = sorted(state.get("exercise_attempts", []) + exercise_salvaged,
                                                key=lambda a: a["time"])
        state["best"] = _best_by_module(state["attempts"])
        self.notices.append(
            f"진행 파일(progress.json)을 읽을 수 없어({problem}) {aside.name}(으)로 옮겨 두고, "
            f"백업과 손상된 파일에서 시도 기록 {len(state['attempts'])}개"
            + (f"와 실습 기록 {len(state['exercise_attempts'])}개" if state.get("exercise_attempts") else "")
            + "를 되살렸습니다.")
        self._atomic_write(self.path, json.dumps(state, ensure_ascii=False, indent=1).encode("utf-8"))
        return state

    def _read_backup(self) -> dict | None:
        try:
            data = _loads(self.backup_path.read_bytes())
        except OSError:
            return None
        if _state_problems(data) is not None or data["schema_version"] > SCHEMA_VERSION:
            return None
        data.setdefault("student", {})
        return data

    def _aside_path(self) -> Path:
        stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
        candidate = self.dir / f"{FILE_NAME}.corrupt-{stamp}"
        counter = 1
        while candidate.exists():
            candidate = self.dir / f"{FILE_NAME}.corrupt-{stamp}-{counter}"
            counter += 1
        return candidate

    def _read_only_message(self) -> str:
        version = getattr(self, "_future_version", "?")
        return (f"진행 파일({self.path})은 더 새로운 강좌 버전(schema_version {version})이 저장한 것입니다. "
                "이 버전은 파일을 읽기만 하고 바꾸지 않습니다(읽기 전용). 강좌 코드를 업데이트하세요.")

    def _atomic_write(self, target: Path, payload: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        self._fsync_dir()

    def _fsync_dir(self) -> None:
        if os.name != "posix":
            return
        with contextlib.suppress(OSError):
            fd = os.open(self.dir, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def _locked(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a+b") as handle:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            elif msvcrt is not None:  # pragma: no cover - Windows
                handle.seek(0)
                while True:
                    try:
                        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                        break
                    except OSError:
                        time.sleep(0.05)
                try:
                    yield
                finally:
                    handle.seek(0)
                    msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
            else:  # pragma: no cover - no locking primitive: single-writer assumption
                yield
