"""The exercise card a chapter shows: goal, launch, the checks and their targets, how to run it in
JupyterLab, and the verdicts recorded on a GPU (book/data/exercises.json, which names it) of the reference
solution and of one known-wrong attempt, so that a reader sees what the feedback looks like.

    from course.autograder.page import card
    card("m06-e1")          # last expression of a cell (remove-input on the site)

Needs no GPU: the site shows recorded verdicts, labelled with their device, date and commit.
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

from course.autograder import kinds, spec as specs
from course.autograder.card_text import correctness_text, size_limit_text, speed_text
from course.autograder.verdict import verdict_table_html
from korean_text import with_particle
from course.page import StaticHTML
from kernels.record import DATA_DIR

RECORD_FILE = DATA_DIR / "exercises.json"
_CODE = re.compile(r"`([^`]+)`")


def recorded(path: Path | None = None) -> dict | None:
    path = Path(path) if path else RECORD_FILE
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _inline(text: str) -> str:
    """Escaped text with `code` spans as <code> (the yaml's Korean prose uses backticks)."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(text))


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{_inline(' '.join(p.split()))}</p>" for p in re.split(r"\n\s*\n", text.strip()) if p.strip())


def targets(s: specs.ExerciseSpec) -> list[tuple[str, str]]:
    """(check, what it demands) for the card's table, in the order the checker runs them."""
    m = s.multiple_of
    shapes = ", ".join(f"{with_particle(d, '는')} {m[d]}의 배수" for d in "MNK" if m[d] > 1) or "제한 없음 (1, 소수, 타일의 배수가 아닌 크기 포함)"
    if s.aligned16:
        shapes += "; A, B, C의 시작 주소는 16바이트 정렬, 선행 차원은 4의 배수"
    shapes += "; " + size_limit_text(s)
    sass = []
    if s.forbid:
        sass.append("없어야 할 명령: " + ", ".join(f"`{r}`" for r in s.forbid))
    if s.require:
        sass.append("있어야 할 명령: " + ", ".join(f"`{r}`" for r in s.require))
    for rule, operands in s.operand_rules:
        sass.append(f"`{rule}`는 {', '.join(operands)}에 모두 쓰여야 함")
    if s.max_registers:
        sass.append(f"스레드당 레지스터 {s.max_registers}개 이하")
    tools = ", ".join(t for t, on in s.hazards.items() if on) or "없음"
    kind = kinds.of(s)
    plan = kind.correctness_cases(s)
    drawn = sum(1 for c in plan if c.drawn)
    return [
        ("커널", kind.card_kernel_ko(s)),
        ("실행 구성 (launch)", s.launch_text() + " — 검사기가 이대로 실행합니다"),
        ("크기 (shapes)", shapes),
        ("컴파일 (compile)", "NVRTC, sm_90 — 오류는 내 코드의 줄 번호로 알려 줍니다"),
        ("SASS 규칙 (sass)", "; ".join(sass) or "없음"),
        ("정확성 (correctness)", f"{len(plan)}가지 경우(고정 {len(plan) - drawn}, 시드로 뽑는 {drawn}): "
                               + correctness_text(s)),
        ("경쟁·메모리 검사 (hazards)", f"{kind.hazard_sizes_ko}에서 compute-sanitizer {tools} (없으면 반복 실행 차등 시험)"),
        ("속도 (speed)", speed_text(s)),
    ]


def _targets_html(s: specs.ExerciseSpec) -> str:
    rows = "".join(f'<tr><th scope="row">{html.escape(check)}</th><td style="text-align:left">{_inline(what)}</td></tr>'
                   for check, what in targets(s))
    return ('<div class="pst-scrollable-table-container course-table-scroll"><table class="course-table">'
            f"<caption>실습 {html.escape(s.id)}: 받는 검사와 목표</caption>"
            '<thead><tr><th scope="col">검사 (check)</th><th scope="col">목표 (target)</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")


def _how_to_html(s: specs.ExerciseSpec) -> str:
    steps = [
        "이 장을 JupyterLab에서 노트북으로 엽니다 (`make lab`). 이 장의 `%load_ext course.notebook.exercise_magic` 셀을 "
        "한 번 실행합니다.",
        f"`%exercise_start {s.id}` 셀을 실행하면 그 셀이 시작 코드가 든 `%%exercise {s.id}` 셀로 바뀝니다 "
        "(`%load`처럼). `할 일` 주석을 따라 고친 뒤 셀을 다시 실행하면 판정 표가 나옵니다. 커널은 제한 시간이 있는 "
        "별도 프로세스에서 돌기 때문에 멈추거나 잘못된 주소를 읽어도 노트북은 그대로입니다.",
        f"막히면 `%exercise_hint {s.id}`: 힌트가 하나씩 열립니다 ({len(s.hints_ko)}개). 한 번 제출한 뒤에는 "
        f"`%exercise_solution {s.id}`로 참고 풀이를 볼 수 있습니다.",
        f"명령줄에서는 `python -m course exercise check {s.id} 내_커널.cu`. GPU가 없는 컴퓨터에서는 컴파일과 SASS "
        "검사만 하고 나머지는 GPU에서 실행하라고 알려 줍니다.",
        "시도할 때마다 판정이 진도 파일에 저장됩니다.",
    ]
    items = "".join(f"<li>{_inline(step)}</li>" for step in steps)
    return f'<p><strong>JupyterLab에서 푸는 법</strong></p><ol class="course-exercise-steps">{items}</ol>'


def _label(data: dict) -> str:
    return (f"기록된 판정 (recorded): {data.get('device')}, 드라이버 {data.get('driver')}, CuPy {data.get('cupy')}, "
            f"{str(data.get('date'))[:10]}, 커밋 {str(data.get('git_commit'))[:10]}, 명령 `{data.get('command')}`")


def _recorded_html(s: specs.ExerciseSpec, data: dict | None, wrong_file: str | None) -> str:
    entry = (data or {}).get("exercises", {}).get(s.id)
    if not entry:
        return ('<div class="course-note course-note-recorded">이 실습의 판정은 아직 기록되지 않았습니다 '
                "(GPU에서 <code>python tools/record_exercises.py</code>).</div>")
    data = entry.get("recorded") or data   # an exercise merged from its own run keeps that run's provenance
    label = f'<div class="course-note course-note-recorded">{_inline(_label(data))}</div>'
    solution = verdict_table_html(entry["solution"], f"참고 풀이(solution.cu)의 판정 — {data.get('device')}에서 기록")
    wrong = entry["wrong_attempts"]
    chosen = next((w for w in wrong if w["file"] == wrong_file), wrong[0] if wrong else None)
    parts = [label, solution]
    if chosen:
        agree = "일치" if chosen["matches"] else "불일치"
        parts.append(f"<p>틀린 시도의 예: <code>{html.escape(chosen['file'])}</code> — {_inline(chosen['what_ko'])}. "
                     f"기대한 진단 <code>{html.escape(chosen['expected'])}</code>, 받은 진단 "
                     f"<code>{html.escape(str(chosen['got']))}</code> ({agree}).</p>")
        parts.append(verdict_table_html(chosen["verdict"], f"틀린 시도({chosen['file']})의 판정 — {data.get('device')}에서 기록"))
    return "".join(parts)


def card_html(exercise_id: str, wrong_file: str | None = None, data: dict | None = None) -> str:
    s = specs.load(exercise_id)
    data = recorded() if data is None else data
    return (f'<section class="course-exercise" aria-label="실습 {html.escape(s.id)}: {html.escape(s.title_ko)}">'
            f'<p class="course-exercise-title"><strong>실습 {html.escape(s.id)} — {html.escape(s.title_ko)}</strong> '
            f"(모듈 {s.module})</p>{_paragraphs(s.goal_ko)}{_targets_html(s)}{_starter_html(s)}{_how_to_html(s)}"
            f"{_recorded_html(s, data, wrong_file)}</section>")


def _starter_html(s: specs.ExerciseSpec) -> str:
    """The starter code (read from starter.cu at build time, never pasted into a chapter)."""
    from course.autograder.learner import read_source_file

    text = read_source_file(s.starter).rstrip()
    lines = text.count("\n") + 1
    return (f'<details class="course-exercise-starter"><summary>시작 코드 보기 (starter.cu, {lines}줄)</summary>'
            f'<pre><code class="language-cuda">{html.escape(text)}</code></pre></details>')


def card(exercise_id: str, wrong_file: str | None = None) -> StaticHTML:
    """The card as a displayable object (HTML on the site and in JupyterLab, text elsewhere)."""
    s = specs.load(exercise_id)
    return StaticHTML(card_html(exercise_id, wrong_file), text=f"[실습 {s.id}: {s.title_ko}]")


def index_html(data: dict | None = None) -> str:
    """Every exercise with its chapter, title and the recorded outcome (for an index page)."""
    from course.settings import load_settings

    data = recorded() if data is None else data
    pages = load_settings().pages
    rows = []
    for s in specs.load_all():
        entry = (data or {}).get("exercises", {}).get(s.id)
        if entry:
            matched = sum(w["matches"] for w in entry["wrong_attempts"])
            outcome = (f"풀이 {'통과' if entry['solution']['passed'] else '실패'}, 틀린 시도 "
                       f"{len(entry['wrong_attempts'])}개 중 {matched}개가 기대한 진단")
        else:
            outcome = "기록 없음"
        diagnoses = ", ".join(f"<code>{html.escape(w.diagnosis)}</code>" for w in s.wrong_attempts)
        page = pages.get(s.module, "")
        link = f'<a href="{html.escape(page)}.html">모듈 {s.module}</a>' if page else f"모듈 {s.module}"
        rows.append(f"<tr><th scope=\"row\">{html.escape(s.id)}</th><td>{link}</td><td>{html.escape(s.title_ko)}</td>"
                    f"<td>{diagnoses}</td><td>{html.escape(outcome)}</td></tr>")
    return ('<div class="pst-scrollable-table-container course-table-scroll"><table class="course-table">'
            "<caption>커널 실습 목록과 기록된 판정</caption><thead><tr>"
            '<th scope="col">실습</th><th scope="col">장</th><th scope="col">제목</th>'
            '<th scope="col">틀린 시도의 진단</th><th scope="col">기록된 판정</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")
