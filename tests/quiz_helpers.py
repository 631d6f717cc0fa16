"""Helpers the quiz tests share: what an answer key tells, and filling the JupyterLab quiz's widgets."""
from __future__ import annotations

from course.quiz.bank import answer_key


def key_strings(bank, accepted: bool = True) -> list[str]:
    """What `python -m course export-key` tells (course.quiz.bank.answer_key): explanations and their lines,
    model answers, rubric lines, and (accepted=True) accepted code answers that the quiz does not show anyway."""
    out = []
    shown = " ".join(q.prompt + (q.code or "") + " ".join(c.text for c in q.choices) for q in bank.questions)
    for q in answer_key(bank)["questions"]:
        for text in (q.get("explanation"), q.get("model_answer")):
            if text:
                out.append(" ".join(text.split()))
                out += [line.strip() for line in text.splitlines() if len(line.strip()) >= 12]
        out += list(q.get("rubric", []))
        if accepted:
            out += [a for accept in q.get("blanks", {}).values() for a in accept if a not in shown and len(a) > 3]
    return out


def fill_lab_quiz(quiz, answers: dict, questions=None) -> None:
    """Set the LabQuiz widgets to answers ({question id: value}; a missing id leaves the widget empty)."""
    for q in questions if questions is not None else quiz.questions:
        widget, value = quiz.inputs[q.id], answers.get(q.id)
        if q.type == "multiple":
            for cid, box in widget.items():
                box.value = cid in (value or ())
        elif q.type == "code":
            for bid, text in widget.items():
                text.value = (value or {}).get(bid, "")
        else:
            widget.value = value
