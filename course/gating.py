"""Gating: a chapter that requires a checkpoint (settings ``gates``, e.g. 7 → 6).

The decision is a pure function of the settings and the best number of fully correct
answers the learner has on the required checkpoint (``decide``). ``gate(module)`` is what
a gated chapter calls in its first cell:

* static site build (``COURSE_STATIC=1``): returns an object whose HTML is the marker
  ``<div class="course-gate" data-module="7" data-requires="6"></div>``; the site's
  quiz.js hides the chapter (policy "strict") or shows a banner ("advisory") from the
  learner's progress stored in the browser;
* JupyterLab: displays a Korean banner built from the progress file. A notebook cannot
  hide its own cells, so under "strict" the banner says so plainly and asks the learner
  to pass the checkpoint first.

Policies: "strict" (locked until passed), "advisory" (a banner only), "off" (nothing).
"""
from __future__ import annotations

import html
from dataclasses import dataclass

from korean_text import with_particle
from course.settings import CourseSettings, load_settings

__all__ = ["GateDecision", "decide", "gate", "gate_marker_html", "lab_banner_html"]


@dataclass(frozen=True)
class GateDecision:
    module: int
    requires: int | None      # checkpoint module, None when the chapter is not gated
    policy: str
    passed: bool              # the required checkpoint is passed (True when not gated)
    locked: bool              # strict and not passed
    show_banner: bool         # a notice should be shown (locked, or advisory and not passed)
    title: str = ""           # the checkpoint's title
    rule: str = ""            # its pass rule as a count, e.g. "6/8"
    page: str = ""            # docname of the checkpoint's chapter
    missing_exercises: tuple = ()   # required kernel exercises not passed yet (JupyterLab only)


def decide(module: int, settings: CourseSettings, best_correct_count: int | None,
           passed_exercises=None) -> GateDecision:
    """Pure decision. best_correct_count: the learner's best fully-correct count on the
    required checkpoint (None when never attempted). passed_exercises: ids of the kernel
    exercises the learner has passed; None where they cannot be known (the static site), and then
    a checkpoint's exercise requirement is not applied."""
    module = int(module)
    requires = settings.required_module(module)
    checkpoint = settings.checkpoint(requires) if requires is not None else None
    if requires is None or checkpoint is None or settings.gating_policy == "off":
        return GateDecision(module, requires, settings.gating_policy, True, False, False)
    passed = best_correct_count is not None and best_correct_count >= checkpoint.pass_count
    missing = () if passed_exercises is None else \
        tuple(e for e in checkpoint.exercises if e not in set(passed_exercises))
    passed = passed and not missing
    locked = settings.gating_policy == "strict" and not passed
    return GateDecision(module, requires, settings.gating_policy, passed, locked,
                        show_banner=not passed, title=checkpoint.title, rule=checkpoint.rule_text,
                        page=settings.page(requires), missing_exercises=missing)


def gate_marker_html(module: int, requires: int | None) -> str:
    if requires is None:
        return ""
    return f'<div class="course-gate" data-module="{int(module)}" data-requires="{int(requires)}"></div>'


def lab_banner_html(decision: GateDecision, best_correct_count: int | None) -> str:
    """The JupyterLab banner for a decision ("" when nothing needs saying)."""
    if decision.requires is None or decision.policy == "off":
        return ""
    link = f'<a href="{html.escape(decision.page)}.md">{html.escape(decision.page)}.md</a>'
    title = html.escape(decision.title)
    if decision.passed:
        title = html.escape(with_particle(decision.title, "를", strict=False))
        return (f'<div class="course-gate-lab" style="border-left:4px solid #2e7d32;padding:6px 10px">'
                f'{title} 통과했습니다 (최고 {best_correct_count}문항 정답, 기준 {decision.rule}).</div>')
    tried = "아직 응시 기록이 없습니다" if best_correct_count is None else f"지금까지 최고 {best_correct_count}문항 정답"
    if decision.locked:
        head = "이 장은 먼저 체크포인트를 통과한 뒤에 공부하도록 잠겨 있습니다(게이팅 정책: strict)."
        tail = ("노트북(notebook)은 자기 셀을 숨길 수 없으므로 아래 내용은 그대로 보이지만, "
                "체크포인트를 통과하기 전에는 진도를 나가지 마세요.")
        color = "#c62828"
    else:
        head = "ℹ️ 이 장을 시작하기 전에 체크포인트를 먼저 통과하기를 권합니다(게이팅 정책: advisory)."
        tail = "통과하지 않아도 계속 진행할 수 있습니다."
        color = "#f9a825"
    exercises = ""
    if decision.missing_exercises:
        names = ", ".join(f"<code>{html.escape(e)}</code>" for e in decision.missing_exercises)
        exercises = (f"<p>이 체크포인트는 커널 실습도 통과해야 합니다. 아직 통과하지 않은 실습: {names} "
                     "(각 장의 <code>%%exercise</code> 셀).</p>")
    return (f'<div class="course-gate-lab" style="border-left:4px solid {color};padding:6px 10px">'
            f'<p>{head}</p><p>필요한 체크포인트: <b>{title}</b> — {decision.rule} 이상 정답 '
            f'({tried}). 체크포인트 장: {link}</p>{exercises}<p>{tail}</p></div>')


class _HTML:
    """A displayable HTML fragment (rendered through _repr_html_)."""

    def __init__(self, markup: str):
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return self.markup


def _static_mode() -> bool:
    try:
        from course.page import static_mode
    except ImportError:
        import os
        return os.environ.get("COURSE_STATIC") == "1"
    return static_mode()


def gate(module: int, settings: CourseSettings | None = None, store=None):
    """Show the gate of a chapter (see the module docstring).

    Static mode returns the marker object (make it the cell's last expression);
    JupyterLab displays the banner and returns None.
    """
    settings = settings or load_settings()
    requires = settings.required_module(module)
    if _static_mode():
        return _HTML(gate_marker_html(module, requires))
    best = None
    passed_exercises = set()
    notices = []
    if requires is not None:
        from course.progress import ProgressStore
        store = store or ProgressStore()
        try:
            best = store.best_correct_count(requires)
            passed_exercises = {a["exercise"] for a in store.exercise_attempts() if a["passed"]}
            notices = store.notices
        except OSError as exc:
            notices = [f"진행 파일을 읽을 수 없습니다: {exc}"]
    markup = lab_banner_html(decide(module, settings, best, passed_exercises), best)
    markup += "".join(f'<p class="course-notice">주의: {html.escape(n)}</p>' for n in notices)
    if markup:
        from IPython.display import HTML, display
        display(HTML(markup))
    return None
