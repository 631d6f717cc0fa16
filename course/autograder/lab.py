"""The kernel exercises inside a notebook, without IPython itself (the magics in
course.notebook.exercise_magic are a thin layer over LabSession, so that tests and scripts use the same path).

Every check's verdict goes to the learner's progress file (course.quiz.progress), as do unlocked hints;
the solution opens only after a first attempt (in the progress file or in this session).
"""
from __future__ import annotations

import html
import math
import os

TIME_LIMIT_ENV = "COURSE_EXERCISE_TIME_LIMIT"
# The "%%exercise ID" line is line 1 of the cell, so the source's first line is the cell's line 2.
CELL_LINE_OFFSET = 1


class _Note:
    """A small Korean notice, HTML in JupyterLab and plain text elsewhere."""

    def __init__(self, text: str, kind: str = "note", body_html: str = ""):
        self.text, self.kind, self.body_html = text, kind, body_html

    def _repr_html_(self) -> str:
        return (f'<div class="course-note course-note-{self.kind}" role="status">{html.escape(self.text)}</div>'
                + self.body_html)

    def __repr__(self) -> str:
        return self.text


def _limits():
    from course.autograder.cli import MAX_TIME_LIMIT
    from course.autograder.gpu import Limits

    raw = os.environ.get(TIME_LIMIT_ENV)
    try:
        seconds = float(raw) if raw else None
    except ValueError:
        seconds = None
    usable = seconds is not None and math.isfinite(seconds) and 0 < seconds <= MAX_TIME_LIMIT
    return Limits.uniform(seconds) if usable else Limits()


def _exercise_id(line: str) -> str:
    parts = line.split()
    return parts[0] if parts else ""


class LabSession:
    """The exercises as a notebook uses them; the IPython magics (course.notebook.exercise_magic) wrap it."""

    def __init__(self, store=None):
        self._store = store
        self._tried_this_session: set[str] = set()

    @property
    def store(self):
        if self._store is None:
            from course.quiz.progress import ProgressStore

            self._store = ProgressStore()
        return self._store

    def _load(self, line: str):
        from course.autograder.spec import ExerciseError, load

        exercise_id = _exercise_id(line)
        if not exercise_id:
            return None, _Note("실습 번호(exercise id)를 적으세요. 예: %%exercise m06-e1", "warning")
        try:
            return load(exercise_id), None
        except ExerciseError as exc:
            return None, _Note(str(exc), "warning")

    def check(self, line, cell):
        """%%exercise ID — check the CUDA source in this cell; returns the Verdict (shown as a table)."""
        from course.autograder.checker import check_source
        from course.autograder.learner import ExerciseInputError

        spec, problem = self._load(line)
        if problem:
            return problem
        try:
            verdict = check_source(spec, cell, f"{spec.id}_cell.cu", line_offset=CELL_LINE_OFFSET, limits=_limits(),
                                   progress=lambda what: print(f"… {what}", flush=True))
        except ExerciseInputError as exc:
            return _Note(f"검사할 수 없습니다 ({exc.kind}): {exc}", "warning")
        self._tried_this_session.add(spec.id)
        saved = self._save(verdict, spec)
        if saved:
            print(saved)
        return verdict

    def _save(self, verdict, spec) -> str:
        from course.quiz.progress import ProgressReadOnlyError

        try:
            self.store.record_exercise_attempt(verdict.to_dict(), module=spec.module, client="jupyterlab")
        except (OSError, ProgressReadOnlyError, ValueError) as exc:
            return f"주의: 이 시도를 진도 파일에 저장하지 못했습니다 ({exc})."
        notices = "".join(f" {n}" for n in self.store.notices)
        attempts = len(self.store.exercise_attempts(spec.id))
        return f"진도 파일에 저장했습니다 ({spec.id} 시도 {attempts}번째).{notices}"

    def hint(self, line):
        """%exercise_hint ID — unlock the next hint and show every unlocked one."""
        from course.quiz.progress import ProgressReadOnlyError

        spec, problem = self._load(line)
        if problem:
            return problem
        total = len(spec.hints_ko)
        try:
            before = self.store.exercise_hints_unlocked(spec.id)
            unlocked = self.store.unlock_exercise_hint(spec.id, total)
        except (OSError, ProgressReadOnlyError) as exc:
            return _Note(f"진도 파일을 쓸 수 없어 힌트를 열지 못했습니다: {exc}", "warning")
        items = "".join(f"<li>{html.escape(h)}</li>" for h in spec.hints_ko[:unlocked])
        head = (f"힌트 {unlocked}/{total}" if unlocked > before else
                f"힌트를 모두 열었습니다 ({total}/{total}). 그래도 막히면 한 번 제출한 뒤 %exercise_solution {spec.id}")
        text = head + "\n" + "\n".join(f"{i}. {h}" for i, h in enumerate(spec.hints_ko[:unlocked], 1))
        return _Note(text if unlocked else head, "note", f'<ol class="course-exercise-hints">{items}</ol>')

    def solution(self, line):
        """%exercise_solution ID — the reference solution, once this exercise has been attempted."""
        from course.autograder.learner import read_source_file

        spec, problem = self._load(line)
        if problem:
            return problem
        try:
            tried = spec.id in self._tried_this_session or bool(self.store.exercise_attempts(spec.id))
        except OSError:
            tried = spec.id in self._tried_this_session
        if not tried:
            return _Note(f"풀이는 한 번 이상 제출한 뒤에 볼 수 있습니다. 먼저 %%exercise {spec.id} 셀로 내 커널을 "
                         f"검사해 보세요 (막히면 %exercise_hint {spec.id}).", "warning")
        source = read_source_file(spec.solution)
        return _Note(f"{spec.id} 참고 풀이 (reference solution):\n{source}", "note",
                     f'<pre class="course-exercise-solution"><code>{html.escape(source)}</code></pre>')

    def start(self, line) -> tuple:
        """(the text of a %%exercise cell holding the starter, a notice) for %exercise_start."""
        from course.autograder.learner import read_source_file

        spec, problem = self._load(line)
        if problem:
            return None, problem
        text = f"%%exercise {spec.id}\n{read_source_file(spec.starter).rstrip()}\n"
        return text, _Note(f"이 셀이 {spec.id}의 시작 코드가 든 %%exercise 셀로 바뀌었습니다. `할 일` 주석을 채우고 "
                           "이 셀을 다시 실행하면 검사합니다. (화면이 바뀌지 않으면 아래의 코드를 새 셀에 붙여 넣으세요.)",
                           "note", f'<pre class="course-exercise-starter"><code>{html.escape(text)}</code></pre>')

    def show(self, line):
        """%exercise_show ID — the goal and the checks of an exercise."""
        from course.autograder import page

        spec, problem = self._load(line)
        if problem:
            return problem
        return page.card(spec.id)
