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

Unlock codes (course.quiz.unlock; course_settings ``gating_unlock: instructor``): a gated chapter opens with
the instructor's signed code for the learner's student id, never by passing the checkpoint alone. The
site's marker then carries the public key and the course text (``data-unlock``, ``data-unlock-key``,
``data-unlock-course``) for course/site/static/unlock.js; in JupyterLab the learner runs
``course.gating.unlock("학번", "코드")``, which verifies the code with ``cryptography`` and keeps it in
the progress file (and for the session, where that file cannot be written). ``lab_unlock:
instructor`` makes JupyterLab and Colab gate on the code alone, whatever gating_unlock says, since
Colab wipes local progress. The banner's link to the checkpoint is the sibling notebook (.ipynb or the
MyST .md beside the running one), or its Colab address when running in Colab with the book's
``repository.url`` on GitHub.
"""
from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from korean_text import with_particle
from course.settings import CourseSettings, SettingsError, load_settings

__all__ = ["GateDecision", "checkpoint_link", "decide", "gate", "gate_marker_html", "lab_banner_html", "unlock"]

# Codes verified in this kernel session: {module: student id}, for when the progress file cannot be written.
_SESSION_CODES: dict[int, str] = {}


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
    by_code: bool = False           # opened only by the instructor's unlock code (course.quiz.unlock)
    student: str = ""               # the student id of the verified code, when by_code and passed


def decide(module: int, settings: CourseSettings, best_correct_count: int | None,
           passed_exercises=None, code_student: str | None = None, by_code: bool = False) -> GateDecision:
    """Pure decision. best_correct_count: the learner's best fully-correct count on the
    required checkpoint (None when never attempted). passed_exercises: ids of the kernel
    exercises the learner has passed; None where they cannot be known (the static site), and then
    a checkpoint's exercise requirement is not applied. by_code: the chapter opens only with the
    instructor's unlock code (course.quiz.unlock), and code_student is the student id of a verified code
    (None when there is none); the checkpoint's score then opens nothing."""
    module = int(module)
    requires = settings.required_module(module)
    checkpoint = settings.checkpoint(requires) if requires is not None else None
    if requires is None or checkpoint is None or settings.gating_policy == "off":
        return GateDecision(module, requires, settings.gating_policy, True, False, False)
    passed = best_correct_count is not None and best_correct_count >= checkpoint.pass_count
    missing = () if passed_exercises is None or by_code else \
        tuple(e for e in checkpoint.exercises if e not in set(passed_exercises))
    passed = (code_student is not None) if by_code else passed and not missing
    locked = settings.gating_policy == "strict" and not passed
    return GateDecision(module, requires, settings.gating_policy, passed, locked,
                        show_banner=not passed, title=checkpoint.title, rule=checkpoint.rule_text,
                        page=settings.page(requires), missing_exercises=missing, by_code=by_code,
                        student=code_student or "")


def gate_marker_html(module: int, requires: int | None, unlock_settings=None) -> str:
    """The site's gate marker; with unlock codes (gating_unlock: instructor) it carries the public key
    and the course text that course/site/static/unlock.js verifies codes with."""
    if requires is None:
        return ""
    extra = ""
    if unlock_settings is not None and unlock_settings.site_by_code:
        extra = (f' data-unlock="instructor" data-unlock-key="{html.escape(unlock_settings.public_key)}"'
                 f' data-unlock-course="{html.escape(unlock_settings.course)}"')
    return f'<div class="course-gate" data-module="{int(module)}" data-requires="{int(requires)}"{extra}></div>'


def _in_colab() -> bool:
    import sys

    from kernels.doctor import COLAB, hosted_platform

    return "google.colab" in sys.modules or hosted_platform() == COLAB


def _colab_url(name: str) -> str:
    """The chapter's notebook in Colab (the exporter's one rule), or "" without a GitHub repository."""
    try:
        from course.notebook.export import load_settings

        return load_settings().colab_url(name)
    except Exception:   # noqa: BLE001 - a link is a convenience, never the end of the banner
        return ""


def checkpoint_link(page: str, here: str | os.PathLike | None = None) -> str:
    """Where the banner's link to the checkpoint's chapter points outside the site: the sibling
    notebook beside the running one (page.ipynb, as exported for Colab and JupyterHub, or the
    MyST page.md of the repository), in Colab the notebook's Colab address when the book's
    repository.url is on GitHub, else page.ipynb."""
    name = Path(page).name
    folder = Path(here) if here is not None else Path.cwd()
    for suffix in (".ipynb", ".md"):
        if (folder / f"{name}{suffix}").is_file():
            return f"{name}{suffix}"
    colab = _colab_url(name) if _in_colab() else ""
    return colab or f"{name}.ipynb"


def lab_banner_html(decision: GateDecision, best_correct_count: int | None, link_target: str | None = None) -> str:
    """The JupyterLab banner for a decision ("" when nothing needs saying). link_target: where the
    checkpoint's link points (default: checkpoint_link of the checkpoint's page)."""
    if decision.requires is None or decision.policy == "off":
        return ""
    target = link_target or checkpoint_link(decision.page)
    label = Path(target).name if "://" not in target else f"{Path(decision.page).name}.ipynb (Colab)"
    opens = ' target="_blank" rel="noopener"' if "://" in target else ""
    link = f'<a href="{html.escape(target)}"{opens}>{html.escape(label)}</a>'
    title = html.escape(decision.title)
    if decision.by_code:
        return _code_banner_html(decision, link)
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


def _object_title(title: str) -> str:
    """The checkpoint's title in bold with its object particle (을/를) after it."""
    with_object = with_particle(title, "를", strict=False)
    return f"<b>{html.escape(title)}</b>{html.escape(with_object[len(title):])}"


def _code_banner_html(decision: GateDecision, link: str) -> str:
    """The banner of a chapter that opens with the instructor's unlock code."""
    if decision.passed:
        return (f'<div class="course-gate-lab" style="border-left:4px solid #2e7d32;padding:6px 10px">'
                f'강사의 잠금 해제 코드(unlock code)로 열었습니다 (학번 {html.escape(decision.student)}).</div>')
    policy = "strict" if decision.locked else "advisory"
    color = "#c62828" if decision.locked else "#f9a825"
    tail = ("노트북(notebook)은 자기 셀을 숨길 수 없으므로 아래 내용은 그대로 보이지만, 코드를 받기 전에는 진도를 "
            "나가지 마세요." if decision.locked else "코드 없이도 계속 진행할 수 있습니다.")
    return (f'<div class="course-gate-lab" style="border-left:4px solid {color};padding:6px 10px">'
            f'<p>이 장은 강사가 주는 잠금 해제 코드(unlock code)로 열립니다(게이팅 정책: {policy}). '
            f'먼저 {_object_title(decision.title)} 풀고({decision.rule} 이상 정답) 제출 파일을 내세요. 체크포인트 장: {link}</p>'
            f'<p>코드를 받았다면 코드 셀에서 <code>course.gating.unlock("학번", "코드")</code>를 실행하세요 '
            f'(<code>import course.gating</code> 뒤에).</p><p>{tail}</p></div>')


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


def _unlock_settings(unlock_settings):
    if unlock_settings is not None:
        return unlock_settings
    from course.settings import load_unlock_settings

    return load_unlock_settings()


def _code_student(module: int, unlock_settings, store) -> str | None:
    """The student id of a verified code for `module` (kept in the progress file or this session)."""
    from course.quiz.unlock import UnlockError, verify_code

    candidates = []
    try:
        saved = store.unlock_codes().get(str(int(module)))
        if saved:
            candidates.append((saved["student"], saved["code"]))
    except OSError:
        pass
    if int(module) in _SESSION_CODES:
        candidates.append(_SESSION_CODES[int(module)])
    for student, code in candidates:
        try:
            if verify_code(unlock_settings.public_key, unlock_settings.course, module, student, code):
                return student
        except UnlockError:
            continue
    return None


def gate(module: int, settings: CourseSettings | None = None, store=None, unlock_settings=None):
    """Show the gate of a chapter (see the module docstring).

    Static mode returns the marker object (make it the cell's last expression);
    JupyterLab displays the banner and returns None.
    """
    settings = settings or load_settings()
    requires = settings.required_module(module)
    unlock_settings = _unlock_settings(unlock_settings)
    if _static_mode():
        return _HTML(gate_marker_html(module, requires, unlock_settings))
    best = None
    passed_exercises = set()
    notices = []
    code_student = None
    by_code = requires is not None and unlock_settings.lab_by_code
    if requires is not None:
        from course.quiz.progress import ProgressStore
        store = store or ProgressStore()
        try:
            best = store.best_correct_count(requires)
            passed_exercises = {a["exercise"] for a in store.exercise_attempts() if a["passed"]}
            notices = store.notices
        except OSError as exc:
            notices = [f"진행 파일을 읽을 수 없습니다: {exc}"]
        if by_code:
            code_student = _code_student(requires, unlock_settings, store)
    decision = decide(module, settings, best, passed_exercises, code_student, by_code)
    markup = lab_banner_html(decision, best)
    markup += "".join(f'<p class="course-notice">주의: {html.escape(n)}</p>' for n in notices)
    if markup:
        from IPython.display import HTML, display
        display(HTML(markup))
    return None


def unlock(student_id: str, code: str, module: int | None = None, settings: CourseSettings | None = None,
           store=None, unlock_settings=None) -> bool:
    """Enter the instructor's unlock code in JupyterLab or Colab: ``course.gating.unlock("학번", "코드")``.

    Verifies the code against the course's public key (course_settings.unlock_public_key), for the
    checkpoint its prefix names (or `module`); a good code is kept in the progress file and for this
    session, and then opens the chapters that checkpoint gates (run their first cell again). Shows a
    Korean message either way and returns whether the code was right."""
    from course.quiz.unlock import UnlockError, code_module, normalise_student_id, verify_code

    try:
        unlock_settings = _unlock_settings(unlock_settings)
        settings = settings or load_settings()
    except SettingsError as exc:
        return _say(html.escape(f"설정 오류 (settings error): {exc}"), ok=False)
    if not unlock_settings.public_key:
        return _say("이 강좌에는 잠금 해제 코드(unlock code)가 설정되어 있지 않습니다 (_config.yml의 unlock_public_key).",
                    ok=False)
    target = module if module is not None else code_module(code)
    if target is None:
        return _say("잠금 해제 코드의 형식이 아닙니다: 강사에게 받은 코드(U6-…처럼 시작)를 그대로 붙여 넣으세요.", ok=False)
    try:
        student = normalise_student_id(student_id)
        ok = verify_code(unlock_settings.public_key, unlock_settings.course, target, student, code)
    except UnlockError as exc:
        return _say(html.escape(str(exc)), ok=False)
    if not ok:
        return _say(f"코드가 맞지 않습니다: 학번 {html.escape(student)}, 모듈 {int(target)} 체크포인트의 코드가 아닙니다. "
                    "학번을 강사의 명단과 똑같이(대소문자 포함) 넣었는지, 코드를 빠짐없이 붙여 넣었는지 확인하세요.", ok=False)
    _SESSION_CODES[int(target)] = (student, code)
    saved = "진행 파일에 저장했습니다"
    try:
        if store is None:
            from course.quiz.progress import ProgressStore
            store = ProgressStore()
        store.save_unlock_code(int(target), student, code)
    except Exception as exc:   # noqa: BLE001 - read-only or missing progress: the session still knows the code
        saved = f"진행 파일에 저장하지 못해({type(exc).__name__}) 이 세션에서만 기억합니다"
    opened = ", ".join(f"모듈 {m}" for m in sorted(m for m, r in settings.gates.items() if r == int(target)))
    return _say(f"코드가 맞습니다 (학번 {html.escape(student)}, 모듈 {int(target)} 체크포인트). {saved}. "
                f"열리는 장: {opened or '없음'} — 그 장의 첫 셀을 다시 실행하세요.", ok=True)


def _say(text: str, ok: bool) -> bool:
    color = "#2e7d32" if ok else "#c62828"
    markup = (f'<div class="course-unlock-lab" role="status" style="border-left:4px solid {color};padding:6px 10px">'
              f'{text}</div>')
    try:
        from IPython.display import HTML, display
        display(HTML(markup))
    except ImportError:
        print(html.unescape(text))
    return ok
