"""Public display API for quizzes: ``show(module)``.

* Static site build (``course.page.static_mode()``, i.e. ``COURSE_STATIC=1``):
  returns a :class:`StaticQuiz`; its ``_repr_html_`` is
  ``<div class="course-quiz" data-module="6"></div>`` followed by the bank as
  ``<script type="application/json" class="course-quiz-data" data-module="6">…</script>``
  (``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026``). The site's
  quiz.js renders and grades it. Make the call the cell's last expression. A practice quiz
  carries its key (bank.site_payload); a checkpoint carries none (course.quiz.checkpoint_lock), and under
  ``checkpoint_grading: instructor`` no grading data at all: the page only collects the answers.
* JupyterLab: displays a :class:`LabQuiz` (ipywidgets) and returns None. It grades with
  course.quiz.grading, stores attempts with course.quiz.progress and saves submission files
  (course.quiz.submission) into ``./submissions/``.
"""
from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

from course.quiz import grading
from course.quiz.bank import BLANK_PATTERN, Bank, load_bank, site_payload
from course.settings import CourseSettings, load_settings
from course.quiz.shuffle import shuffled_ids
from course.quiz.variants import presented_questions

__all__ = ["LabQuiz", "StaticQuiz", "quiz_html", "rich_text_html", "script_json", "show"]


def script_json(payload) -> str:
    """JSON that is safe inside <script>: <, > and & cannot close or open anything."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def static_payload(bank: Bank, settings: CourseSettings) -> dict:
    """The quiz data of the page: a practice quiz's bank with its key; a checkpoint's locked payload, or
    under checkpoint_grading: instructor one without any grading data (course.quiz.checkpoint_lock)."""
    if settings.checkpoint(bank.module) is not None:
        from course.quiz.checkpoint_lock import checkpoint_payload

        return checkpoint_payload(bank, settings)
    payload = site_payload(bank)
    payload["checkpoint"] = None
    return payload


def quiz_html(bank: Bank, settings: CourseSettings) -> str:
    module = int(bank.module)
    return (f'<div class="course-quiz" data-module="{module}"></div>\n'
            f'<script type="application/json" class="course-quiz-data" data-module="{module}">'
            f'{script_json(static_payload(bank, settings))}</script>\n'
            '<noscript>이 퀴즈는 자바스크립트(JavaScript)가 켜져 있어야 동작합니다.</noscript>')


class StaticQuiz:
    """The quiz in the static site (rendered by quiz.js)."""

    def __init__(self, bank: Bank, settings: CourseSettings):
        self.bank, self.settings = bank, settings

    def _repr_html_(self) -> str:
        return quiz_html(self.bank, self.settings)

    def __repr__(self) -> str:
        return f"<퀴즈: 모듈 {self.bank.module} — 정적 사이트에서 quiz.js가 그립니다>"


def _static_mode() -> bool:
    from course.page import static_mode

    return static_mode()


def show(module: int, banks_dir=None, settings: CourseSettings | None = None, store=None):
    """Show module's quiz: a StaticQuiz in the static build, the ipywidgets quiz in JupyterLab."""
    bank = load_bank(module, banks_dir)
    settings = settings or load_settings()
    if _static_mode():
        return StaticQuiz(bank, settings)
    from IPython.display import display
    display(LabQuiz(bank, settings, store).box)
    return None


# ---------------------------------------------------------------------------- rich text

def _inline_html(text: str) -> str:
    parts = re.split(r"(`[^`\n]+`)", text)
    out = []
    for part in parts:
        if len(part) > 2 and part.startswith("`") and part.endswith("`"):
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            out.append(html.escape(part).replace("\n", "<br>"))
    return "".join(out)


LIST_ITEM_BREAK = re.compile(r"\n(?=[ \t]*(?:[-*•]|[0-9]+[.)]|\([0-9a-z]\))[ \t])")


def soft_wrap(para: str) -> str:
    """Join a paragraph's lines with spaces (as Markdown does), keeping a break before list items."""
    para = LIST_ITEM_BREAK.sub("\0", para)
    return re.sub(r"[ \t]*\n[ \t]*", " ", para).replace("\0", "\n")


def rich_text_html(text: str) -> str:
    """Paragraphs, `inline code` and ``` fenced code as HTML (everything else escaped)."""
    out, last = [], 0
    source = text or ""

    def prose(chunk: str) -> None:
        for para in re.split(r"\n[ \t]*\n", chunk):
            para = soft_wrap(para.strip("\n"))
            if para.strip():
                out.append(f"<p>{_inline_html(para)}</p>")

    for match in re.finditer(r"```([^\n`]*)\n(.*?)```", source, re.S):
        prose(source[last:match.start()])
        out.append(f"<pre><code>{html.escape(match.group(2).rstrip(chr(10)))}</code></pre>")
        last = match.end()
    prose(source[last:])
    return "".join(out)


# ---------------------------------------------------------------------------- JupyterLab quiz

POSITION_LETTERS = "abcdefghij"


def _choice_label(choice, letter: str | None = None) -> str:
    """A choice as the learner sees it: its id (or, on a checkpoint, the letter of its place in this
    attempt's order), then its text ("(b) 32개, 4 B").

    Radio buttons and checkboxes show plain text only, so `inline code` marks are dropped rather
    than shown as raw backticks (the site's quiz draws them as code)."""
    text = re.sub(r"`([^`]*)`", r"\1", choice.text)
    return f"({letter or choice.id}) {text}"


# Texts of an instructor-graded checkpoint (checkpoint_grading: instructor) and of a pass under unlock codes;
# checkpoint_lock.js says the same on the site.
COLLECT_NOTICE = ("이 체크포인트는 강사가 채점합니다. 여기서는 답을 모아 제출 파일로 내보낼 뿐, 점수와 정답은 "
                  "보여 주지 않습니다.")
UNLOCK_BY_CODE = "다음 장은 강사가 주는 잠금 해제 코드(unlock code)로 열립니다"


def collected_html(count: int, unanswered: int) -> str:
    """What an instructor-graded checkpoint shows once the answers are in: no score, the submission file."""
    blank = f" 답하지 않은 문항이 {unanswered}개 있습니다." if unanswered else ""
    return (f"<p><b>답을 확정했습니다 ({count}문항).</b>{blank} 이 체크포인트는 강사가 제출 파일로 채점하므로 "
            "점수와 정답은 나오지 않습니다.</p><p>아래에 학번과 이름을 넣고 제출 파일을 저장해 강사에게 내세요. "
            "답을 고치려면 '다시 풀기'를 누르세요. 다음 시도로 세며, 수치 문항의 값과 선택지 순서가 바뀝니다.</p>")


STATUS_TEXT = {"correct": "정답", "partial": "부분 정답", "wrong": "오답", "unanswered": "답하지 않음",
               "invalid": "읽을 수 없는 답", "self": "자기 평가", "pending": "자기 평가 대기", "manual": "강사 채점"}
COLORS = {"correct": "#2e7d32", "self": "#2e7d32", "partial": "#f9a825", "pending": "#f9a825"}


class LabQuiz:
    """The ipywidgets quiz. ``box`` is the widget to display.

    Flow: answer → 제출 (submit: grade, show explanations) → self-assess free items
    (맞음/틀림) → the attempt is recorded in the progress file and the result shown →
    다시 풀기 (retry: the next attempt, in a new order) or 제출 파일 저장 (save the submission file).

    Choices are shuffled from the first attempt, seeded by the learner's anonymous id (stored
    with the progress) and the attempt number (course.quiz.shuffle, the same order the site would
    show); each choice shows its id, "(b)", since explanations and the key name choices by id.

    On a checkpoint the quiz measures instead of teaching, as the site's page does: the letters follow
    the order shown (a letter says nothing about the choice); every numeric question with a variant
    shows values drawn for this attempt from the first one on (course.quiz.variants, seeded by the
    learner's random id as nonce); an attempt's feedback is the score and the sections to review
    (deduplicated, sorted, not in question order), never a key, a model answer or an explanation;
    once the checkpoint is passed (or from attempt settings.verdicts_after_attempts on) each question
    is named right or wrong and the ones answered right show their explanation.

    Under ``checkpoint_grading: instructor`` a checkpoint is not graded in the kernel either: 제출 collects
    the answers (numbers must still read), says that the instructor grades them and offers the submission
    file; no score, verdict, key or explanation is shown and no attempt enters the progress file (only
    its number is used up).
    """

    def __init__(self, bank: Bank, settings: CourseSettings | None = None, store=None,
                 submissions_dir: str | os.PathLike = "submissions"):
        import ipywidgets as widgets
        from course.quiz.progress import ProgressStore
        from course.quiz.submission import utc_now_iso
        self.w = widgets
        self.bank = bank
        self.settings = settings or load_settings()
        self.checkpoint = self.settings.checkpoint(bank.module)
        self.collect_only = self.checkpoint is not None and self.settings.graded_by_instructor
        self.store = store if store is not None else ProgressStore()
        self.submissions_dir = Path(submissions_dir)
        self._now = utc_now_iso
        self.learner = self.store.learner_id()
        self.attempt = self.store.next_attempt_number(bank.module)
        self.questions, self.variants = list(bank.questions), {}
        self.box = widgets.VBox(layout=widgets.Layout(border="1px solid #ccc", padding="8px"))
        self._render()

    @property
    def presentation(self) -> dict:
        """The seed, the choice order and the variants shown in this attempt (stored and submitted with it)."""
        out = {"learner": self.learner, "attempt": self.attempt, "choice_order": dict(self.choice_order)}
        if self.checkpoint:
            out["nonce"] = self.learner      # the variants' seed (course.quiz.variants.draw_variant)
        if self.variants:
            out["variants"] = {qid: dict(params) for qid, params in self.variants.items()}
        return out

    def _present(self) -> None:
        """The questions of this attempt: on a checkpoint, drawn variants."""
        if self.checkpoint:
            self.questions, self.variants = presented_questions(self.bank.questions, self.learner, self.attempt)
        else:
            self.questions, self.variants = list(self.bank.questions), {}

    # -------------------------------------------------------------- building
    def _render(self) -> None:
        w = self.w
        self._present()
        self.choice_order: dict = {}
        self.started_at = self._now()
        self.submitted_at = None
        self.answers: dict = {}
        self.self_assessment: dict = {}
        self.result = None
        self.recorded = False
        self.confirmed_blank = False
        self.inputs: dict = {}      # qid -> widget(s) the learner fills in
        self.feedback: dict = {}    # qid -> HTML widget
        self.self_buttons: dict = {}
        rule = ""
        if self.checkpoint:
            c = self.checkpoint
            rule = (f"<p>{html.escape(c.title)} — {c.question_count}문항 중 {c.pass_count}문항 이상 정답이면 통과 "
                    f"({c.rule_text})</p>")
        if self.collect_only:
            rule += f"<p data-quiz-graded-by='instructor'>{COLLECT_NOTICE}</p>"
        children = [w.HTML(f"<b>퀴즈(quiz): {html.escape(self.bank.title)}</b>{rule}")]
        children += [w.HTML(f"<p>주의: {html.escape(n)}</p>") for n in self._notices()]
        if self.checkpoint and self.variants:
            children.append(w.HTML(f"<p>{self.attempt}번째 시도: 수치 문항의 값이 이번 시도를 위해 새로 정해졌습니다 "
                                   "(변형, variant).</p>"))
        for number, q in enumerate(self.questions, 1):
            children.append(self._question_box(number, q))
        self.submit_button = w.Button(description="답 확정하기" if self.collect_only else "제출하고 채점하기",
                                      button_style="primary")
        self.retry_button = w.Button(description="다시 풀기", layout=w.Layout(display="none"))
        self.submit_button.on_click(self.submit)
        self.retry_button.on_click(self.retry)
        self.result_html = w.HTML()
        student = self._student()
        self.student_id = w.Text(value=student["id"], description="학번")
        self.student_name = w.Text(value=student["name"], description="이름")
        self.save_button = w.Button(description="제출 파일 저장", disabled=True)
        self.save_button.on_click(self.save_submission)
        self.save_status = w.HTML()
        children += [w.HBox([self.submit_button, self.retry_button]), self.result_html,
                     w.HTML("<b>강사에게 낼 제출 파일(submission file)</b>"),
                     w.HBox([self.student_id, self.student_name, self.save_button]), self.save_status]
        self.box.children = children

    def _question_box(self, number: int, q):
        w = self.w
        meta = f"<p style='color:#666;font-size:0.85em'>{number}. {q.id} · 블룸 수준(Bloom): {html.escape(q.bloom)} · {html.escape(q.section)}</p>"
        parts = [w.HTML(meta + rich_text_html(q.prompt))]
        if q.type == "single":
            choices = self._ordered(q)
            widget = w.RadioButtons(options=[(_choice_label(c, self._letter(i)), c.id) for i, c in enumerate(choices)],
                                    value=None, layout=w.Layout(width="auto"))
            self.inputs[q.id] = widget
            parts.append(widget)
        elif q.type == "multiple":
            boxes = {c.id: w.Checkbox(description=_choice_label(c, self._letter(i)), value=False, indent=False,
                                      layout=w.Layout(width="auto")) for i, c in enumerate(self._ordered(q))}
            self.inputs[q.id] = boxes
            parts.append(w.VBox(list(boxes.values())))
        elif q.type == "numeric":
            widget = w.Text(placeholder="예: 8192" + (f" (단위 {q.answer.unit})" if q.answer.unit else ""))
            self.inputs[q.id] = widget
            parts.append(w.HBox([widget, w.Label(q.answer.unit)]))
        elif q.type == "code":
            shown = BLANK_PATTERN.sub(lambda m: f"[{m.group(1)}]", q.code)
            parts.append(w.HTML(f"<pre>{html.escape(shown)}</pre>"))
            blanks = {b.id: w.Text(description=f"[{b.id}]") for b in q.blanks}
            self.inputs[q.id] = blanks
            parts.append(w.VBox(list(blanks.values())))
        else:
            widget = w.Textarea(rows=4, layout=w.Layout(width="95%"))
            self.inputs[q.id] = widget
            parts.append(widget)
        self.feedback[q.id] = w.HTML()
        parts.append(self.feedback[q.id])
        if q.type == "free":
            toggle = w.ToggleButtons(options=[("맞음", True), ("틀림", False)], value=None,
                                     description="자기 평가", layout=w.Layout(display="none"))
            toggle.observe(lambda change, qid=q.id: self.set_self_assessment(qid, change["new"]), names="value")
            self.self_buttons[q.id] = toggle
            parts.append(toggle)
        return w.VBox(parts, layout=w.Layout(margin="0 0 12px 0"))

    def _letter(self, position: int) -> str | None:
        """On a checkpoint, the letter of a choice's place in this attempt's order (ids stay hidden)."""
        return POSITION_LETTERS[position] if self.checkpoint and position < len(POSITION_LETTERS) else None

    def _ordered(self, q) -> list:
        """q's choices in this learner's order for this attempt (recorded in choice_order)."""
        by_id = {c.id: c for c in q.choices}
        order = shuffled_ids(list(by_id), self.learner, self.attempt, q.id)
        self.choice_order[q.id] = order
        return [by_id[cid] for cid in order]

    def _notices(self) -> list:
        try:
            self.store.load()
        except OSError as exc:
            return [f"진행 파일을 읽을 수 없습니다: {exc}"]
        return list(self.store.notices)

    def _student(self) -> dict:
        try:
            return self.store.student()
        except OSError:
            return {"id": "", "name": ""}

    # -------------------------------------------------------------- actions
    def collect_answers(self) -> dict:
        answers = {}
        for q in self.questions:
            widget = self.inputs[q.id]
            if q.type == "multiple":
                answers[q.id] = [c.id for c in q.choices if widget[c.id].value]
            elif q.type == "code":
                answers[q.id] = {bid: text.value for bid, text in widget.items()}
            else:
                answers[q.id] = widget.value if widget.value is not None else None
        return answers

    def _number_problems(self, answers: dict) -> dict:
        problems = {}
        for q in self.questions:
            text = answers.get(q.id)
            if q.type == "numeric" and isinstance(text, str) and text.strip():
                try:
                    grading.parse_number(text, q.answer.unit)
                except grading.AnswerFormatError as exc:
                    problems[q.id] = str(exc)
        return problems

    def submit(self, _button=None) -> None:
        answers = self.collect_answers()
        problems = self._number_problems(answers)
        for q in self.questions:
            if q.id in problems:
                self.feedback[q.id].value = f"<p style='color:#c62828'>{html.escape(problems[q.id])}</p>"
        if problems:
            return
        unanswered = sum(grading.grade_question(q, answers.get(q.id), True).status == "unanswered"
                         for q in self.questions)
        if unanswered and not self.confirmed_blank:
            self.confirmed_blank = True
            self.result_html.value = (f"<p style='color:#c62828'>답하지 않은 문항이 {unanswered}개 있습니다. "
                                      "그대로 제출하려면 한 번 더 누르세요.</p>")
            self.submit_button.description = "그래도 확정하기" if self.collect_only else "그래도 제출하기"
            return
        self.answers = answers
        self.submitted_at = self._now()
        self._note_attempt()
        for widget in self._all_inputs():
            widget.disabled = True
        self.submit_button.layout.display = "none"
        self.retry_button.layout.display = None
        self.save_button.disabled = False
        if self.collect_only:
            self.result_html.value = collected_html(len(self.questions), unanswered)
            return
        for toggle in self.self_buttons.values():
            toggle.layout.display = None
        self._regrade()

    def set_self_assessment(self, qid: str, value) -> None:
        if self.recorded or self.result is None or value is None:
            return
        self.self_assessment[qid] = bool(value)
        self._regrade()

    def retry(self, _button=None) -> None:
        """The next attempt: a new number (so a new order) even when the last one was not recorded."""
        self.attempt = max(self.attempt + 1, self.store.next_attempt_number(self.bank.module))
        self._render()

    def save_submission(self, _button=None) -> Path | None:
        from course.quiz.submission import build_submission, submission_filename
        student = {"id": self.student_id.value.strip(), "name": self.student_name.value.strip()}
        if not student["id"]:
            self.save_status.value = "<p style='color:#c62828'>학번(student ID)을 입력하세요.</p>"
            return None
        try:
            self.store.set_student(student["id"], student["name"])
        except Exception:  # a read-only or unwritable progress file must not block the submission
            pass
        doc = build_submission(self.bank, student, self.answers, self.self_assessment,
                               self.started_at, self.submitted_at, client="jupyterlab",
                               presentation=self.presentation)
        self.submissions_dir.mkdir(parents=True, exist_ok=True)
        path = self.submissions_dir / submission_filename(self.bank.module, student["id"], doc["submitted_at"])
        path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        self.save_status.value = (f"<p>저장했습니다: <code>{html.escape(str(path.resolve()))}</code> — "
                                  "이 파일을 강사에게 제출하세요.</p>")
        return path

    # -------------------------------------------------------------- grading and display
    def _all_inputs(self):
        for widget in self.inputs.values():
            if isinstance(widget, dict):
                yield from widget.values()
            else:
                yield widget

    def _regrade(self) -> None:
        pass_count = self.checkpoint.pass_count if self.checkpoint else None
        self.result = grading.grade_quiz(self.questions, self.answers, self.self_assessment, pass_count)
        pending = self.result.pending_count
        if pending == 0 and not self.recorded:
            self._record()
        verdicts = self._verdicts_shown()
        for q, r in zip(self.questions, self.result.results):
            self.feedback[q.id].value = (self._checkpoint_feedback_html(q, r, verdicts) if self.checkpoint
                                         else self._feedback_html(q, r))
        for toggle in self.self_buttons.values():
            toggle.disabled = self.recorded
        self.result_html.value = self._result_html(pending)

    def _note_attempt(self) -> None:
        """This attempt is used from now on, recorded or not (its feedback has been seen)."""
        try:
            self.store.note_attempt(self.bank.module, self.attempt)
        except Exception:   # a read-only or unwritable progress file: the attempt stays this session's
            pass

    def _variant_notice(self) -> str:
        if any(q.variant is not None for q in self.bank.questions):
            return "다음 시도에서는 수치 문항의 값이 바뀝니다."
        return ""

    def _verdicts_shown(self) -> bool:
        """A checkpoint names each question right or wrong once passed (now or before), or from attempt
        settings.verdicts_after_attempts on (0: only once passed)."""
        if self.result is not None and self.result.passed:
            return True
        after = self.settings.verdicts_after_attempts
        if after and self.attempt >= after:
            return True
        try:
            best = self.store.best_correct_count(self.bank.module)
        except Exception:   # an unreadable progress file: as if never passed
            best = None
        return best is not None and best >= self.checkpoint.pass_count

    def _review_sections(self) -> list[str]:
        """The chapter sections of the questions not answered right, once each, sorted (not in question order)."""
        return sorted({q.section for q, r in zip(self.questions, self.result.results) if not r.correct})

    def _record(self) -> None:
        self.recorded = True
        try:
            self.store.record_attempt(self.bank.module, self.answers, self.result, self.self_assessment,
                                      self.started_at, self.submitted_at, client="jupyterlab",
                                      presentation=self.presentation)
            self.record_message = ""
        except Exception as exc:  # read-only (newer file) or unwritable folder: say so, keep going
            self.record_message = f"시도 기록을 저장하지 못했습니다: {exc}"

    def _feedback_html(self, q, r) -> str:
        color = COLORS.get(r.status, "#c62828")
        head = STATUS_TEXT.get(r.status, r.status)
        if r.status == "partial":
            head += f" ({r.score:.2f}점)"
        if r.message and r.status != "unanswered":
            head += f" — {html.escape(r.message)}"
        body = [f"<p style='color:{color};font-weight:600'>{head}</p>"]
        if q.type in ("single", "multiple"):
            right = " / ".join(html.escape(_choice_label(c)) for c in q.choices if c.correct)
            body.append(f"<p>정답: {right}</p>")
        elif q.type == "numeric":
            tol = f" (허용 오차 ±{q.answer.tolerance:g})" if q.answer.tolerance > 0 else ""
            body.append(f"<p>정답: {q.answer.value:g} {html.escape(q.answer.unit)}{tol}</p>")
        elif q.type == "code":
            items = "".join(f"<li>{b.id}: <code>{html.escape(b.accept[0])}</code></li>" for b in q.blanks)
            body.append(f"<ul>{items}</ul>")
        else:
            rubric = "".join(f"<li>{_inline_html(point)}</li>" for point in q.rubric)
            body.append(f"<p><b>모범 답안(model answer)</b></p>{rich_text_html(q.model_answer)}"
                        f"<p><b>채점 기준(rubric)</b>: 모두 들어 있으면 맞음</p><ul>{rubric}</ul>")
        body.append(f"<p><b>해설(explanation)</b></p>{rich_text_html(q.explanation)}")
        return f"<div style='border-left:4px solid {color};padding-left:8px'>{''.join(body)}</div>"

    def _checkpoint_feedback_html(self, q, r, verdicts: bool) -> str:
        """Under a checkpoint question: nothing until verdicts are shown (the result lists the sections to
        review), then right or wrong, the explanation of a right answer, the section of a wrong one. A free
        answer is self-assessed against the chapter (no model answer): the instructor grades it."""
        color = COLORS.get(r.status, "#c62828")
        page = html.escape(self.settings.page(self.bank.module))
        where = f"<a href='{page}.md'>{page}.md</a>의 〈{html.escape(q.section)}〉"
        body = []
        if q.type == "free" and r.status in ("pending", "self"):
            body.append(f"<p>체크포인트에서는 모범 답안을 보여 주지 않고, 서술형은 강사가 제출 파일로 채점합니다. {where} "
                        "부분을 다시 읽고, 내 답이 그 내용을 담았는지 스스로 판단해 맞음/틀림을 고르세요.</p>")
        if r.status == "invalid" and r.message:
            body.append(f"<p style='color:#c62828'>{html.escape(r.message)}</p>")
        if verdicts:
            head = STATUS_TEXT.get(r.status, r.status) + (f" ({r.score:.2f}점)" if r.status == "partial" else "")
            body.insert(0, f"<p style='color:{color};font-weight:600'>{head}</p>")
            if r.correct and q.type != "free":
                body.append(f"<p><b>해설(explanation)</b></p>{rich_text_html(q.explanation)}")
            elif not r.correct and q.type != "free":
                body.append(f"<p>복습할 곳: {where}</p>")
        if not body:
            return ""
        return f"<div style='border-left:4px solid {color if verdicts else '#666'};padding-left:8px'>{''.join(body)}</div>"

    def _result_html(self, pending: int) -> str:
        r = self.result
        score = "" if self.checkpoint else f" (점수 {r.score:.2f}/{r.max_score})"
        out = [f"<p><b>{r.max_score}문항 중 {r.correct_count}문항 정답{score}</b></p>"]
        if pending:
            out.append(f"<p>서술형 {pending}문항의 자기 평가(맞음/틀림)를 마치면 결과가 확정되고 기록됩니다.</p>")
            return "".join(out)
        if getattr(self, "record_message", ""):
            out.append(f"<p style='color:#8d6e00'>주의: {html.escape(self.record_message)}</p>")
        if self.checkpoint:
            c = self.checkpoint
            sections = self._review_sections()
            if sections:
                page = html.escape(self.settings.page(self.bank.module))
                items = "".join(f"<li><a href='{page}.md'>{page}.md</a>의 〈{html.escape(x)}〉</li>" for x in sections)
                out.append(f"<p>복습할 곳 (문항 순서와 무관하게 정렬):</p><ul>{items}</ul>")
            if not self._verdicts_shown():
                after = self.settings.verdicts_after_attempts
                out.append("<p>문항별 정오와 해설은 통과한 뒤" + (f", 또는 {after}번째 시도부터" if after else "")
                           + " 보여 줍니다.</p>")
            if r.passed:
                out.append(f"<p style='color:#2e7d32'><b>통과했습니다! {r.correct_count}/{r.max_score} "
                           f"(기준 {c.rule_text} 이상)</b></p>")
                for gated, required in sorted(self.settings.gates.items()):
                    if required == self.bank.module:
                        page = self.settings.page(gated)
                        lead = UNLOCK_BY_CODE if self.settings.lab_by_code else "이제 다음 장이 열렸습니다"
                        out.append(f"<p>{lead}: <a href='{page}.md'>{page}.md</a></p>")
            else:
                out.append(f"<p style='color:#c62828'><b>아직 통과하지 못했습니다: {r.correct_count}/{r.max_score}. "
                           f"{c.rule_text} 이상이면 통과합니다. 복습할 곳을 다시 읽고 '다시 풀기'로 "
                           f"도전하세요.</b> {self._variant_notice()}</p>")
        return "".join(out)
