"""Student forms and answer keys exported from a question bank (``python -m course export-form``,
``export-key``).

A form is the bank without its answers, as JSON (with a ``submission_template`` a learner without the
site can fill in) and as readable Markdown; a key is the bank's answers, as JSON or Markdown (the
tolerances and the blanks graded by meaning written out the way course.quiz.grading applies them).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from course.quiz.bank import Bank, answer_key, student_view
from course.quiz.submission import FORMAT

__all__ = ["export_form", "export_key", "form_document", "form_markdown", "key_markdown", "tolerance_text"]

FORM_FORMAT = "sgemm-course-form"
KEY_FORMAT = "sgemm-course-key"
TYPE_HELP = {
    "single": "하나 고르기 — 선택지 id 하나를 문자열로 (예: \"b\")",
    "multiple": "모두 고르기 — 선택지 id 목록 (예: [\"a\", \"c\"])",
    "numeric": "수치 답 — 문자열이나 수 (예: \"8192\")",
    "code": "코드 빈칸 — {빈칸 id: 코드} (예: {\"b1\": \"row\"})",
    "free": "서술형 — 문자열",
}



def _template_answer(q: dict):
    return {"single": None, "multiple": [], "numeric": "", "free": ""}.get(
        q["type"], {b: "" for b in q.get("blanks", [])})


def form_document(bank: Bank) -> dict:
    view = student_view(bank)
    return {
        "format": FORM_FORMAT,
        "version": 1,
        **view,
        "submission_template": {
            "format": FORMAT, "version": 1, "client": "form",
            "student": {"id": "", "name": ""}, "module": bank.module, "bank_hash": bank.digest,
            "started_at": "", "submitted_at": "",
            "answers": {q["id"]: _template_answer(q) for q in view["questions"]},
            "self_assessment": {}, "integrity": None,
        },
    }


def form_markdown(bank: Bank) -> str:
    """A readable student form (no answers) in Markdown."""
    view = student_view(bank)
    lines = [f"# 모듈 {bank.module} 퀴즈: {bank.title}", "",
             f"문제 은행 해시(bank hash): `{bank.digest[:16]}`", "",
             "사이트나 JupyterLab에서 풀고 **제출 파일 내려받기**로 받은 JSON 파일을 내세요. "
             "종이로 풀 때는 같은 폴더의 JSON 양식에 있는 `submission_template`을 채워서 내도 됩니다.", ""]
    for number, q in enumerate(view["questions"], 1):
        lines += [f"## {number}. `{q['id']}` ({TYPE_HELP[q['type']].split(' — ')[0]}, 블룸 수준: {q['bloom']})", "",
                  q["prompt"].rstrip(), ""]
        if q["type"] in ("single", "multiple"):
            lines += [f"- **{c['id']}**: {c['text']}" for c in q["choices"]] + [""]
        elif q["type"] == "numeric":
            lines += [f"답: ________ {q['unit']}", ""]
        elif q["type"] == "code":
            lines += ["```", q["code"], "```", "", "빈칸: " + ", ".join(q["blanks"]), ""]
        else:
            lines += ["답 (서술형):", "", "> ", ""]
        lines += [f"답하는 형식: {TYPE_HELP[q['type']]}", ""]
    return "\n".join(lines)


def export_form(bank: Bank, out_dir: str | os.PathLike) -> list[Path]:
    """Write mNN_form.json (no answers, with a submission template) and mNN_form.md."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"m{bank.module:02d}_form"
    json_path, md_path = out / f"{stem}.json", out / f"{stem}.md"
    json_path.write_text(json.dumps(form_document(bank), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(form_markdown(bank), encoding="utf-8")
    return [json_path, md_path]


def tolerance_text(answer: dict) -> str:
    """A numeric key's tolerance as the grader applies it: "±0.5", "±0.3%", both, or "정확히 일치"."""
    parts = []
    if answer.get("tolerance"):
        parts.append(f"±{answer['tolerance']:g}")
    if answer.get("rel"):
        parts.append(f"±{answer['rel'] * 100:g}%")
    if not parts:
        return "허용 오차 없음: 정확히 일치"
    return "허용 오차 " + " 또는 ".join(parts) + (" 중 넓은 쪽" if len(parts) == 2 else "")


def _assignments_text(evaluate: dict) -> str:
    """The assignments a blank graded by meaning is checked over: "kt ∈ {0, 1, 2, 3}, cur = kt % 2"."""
    out = []
    for name, values in (evaluate.get("vars") or {}).items():
        out.append(f"{name} = {values}" if isinstance(values, str) else f"{name} ∈ {{{', '.join(map(str, values))}}}")
    return ", ".join(out)


def key_markdown(bank: Bank) -> str:
    key = answer_key(bank)
    blanks_of = {q.id: {b.id: b for b in q.blanks} for q in bank.questions if q.type == "code"}
    lines = [f"# 모듈 {bank.module} 정답지(answer key): {bank.title}", "",
             f"문제 은행 해시(bank hash): `{bank.digest[:16]}`", ""]
    for q in key["questions"]:
        lines.append(f"## `{q['id']}` ({q['type']}, {q['bloom']})")
        lines.append("")
        if "correct" in q:
            lines.append("정답: " + ", ".join(q["correct"]))
        elif "answer" in q:
            a = q["answer"]
            lines.append(f"정답: {a['value']:g} {a['unit']} ({tolerance_text(a)})".replace("  (", " ("))
            if "variant" in q:
                params = "; ".join(f"{p['name']} ∈ {{{', '.join(map(str, p['values']))}}} (기본 {p['base']})"
                                   for p in q["variant"]["params"])
                lines.append(f"변형(variant, 체크포인트는 첫 시도부터): {params}; 정답 = `{q['variant']['key']}` "
                             "(허용 오차는 위와 같음)")
        elif "blanks" in q:
            for b, accept in q["blanks"].items():
                shown = " / ".join(f"`{x}`" for x in accept)
                blank = blanks_of[q["id"]][b]
                if blank.evaluate:
                    lines.append(f"- {b}: 의미로 채점(by meaning): 답을 C 정수 식으로 읽어 "
                                 f"{_assignments_text(blank.evaluate)}의 모든 경우에 값이 `{accept[0]}`의 값과 같으면 "
                                 f"정답 (적어 둔 예: {shown})")
                else:
                    lines.append(f"- {b}: {shown} (공백 무시, 대소문자 구분)")
        else:
            lines += ["모범 답안:", "", q["model_answer"], "", "채점 기준:"] + [f"- {r}" for r in q["rubric"]]
        lines += ["", "해설: " + q["explanation"].strip(), ""]
    return "\n".join(lines)


def export_key(bank: Bank, out_file: str | os.PathLike) -> Path:
    """The answer key as JSON, or as Markdown when out_file ends with .md."""
    path = Path(out_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".md":
        path.write_text(key_markdown(bank), encoding="utf-8")
    else:
        path.write_text(json.dumps({"format": KEY_FORMAT, "version": 1, **answer_key(bank)},
                                   ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path

