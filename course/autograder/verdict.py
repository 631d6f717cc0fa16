"""A verdict: the ordered results of the five checks, and how it reads (text, HTML, JSON).

    {"check": "correctness", "status": "fail", "diagnosis": "unwritten_output",
     "message_ko": "...", "details": {...}}

`passed` is True only when every check passed; a check is "skip" only where this machine cannot
run it (no GPU), and its message then says how to run it.
"""
from __future__ import annotations

import html
import re
from dataclasses import asdict, dataclass, field

from course.autograder.diagnosis import DIAGNOSES, DIAGNOSIS_PRIORITY

CHECKS = ("compile", "sass", "correctness", "hazards", "speed")
CHECK_LABELS = {
    "compile": "컴파일 (compile)",
    "sass": "SASS 규칙 (sass)",
    "correctness": "정확성 (correctness)",
    "hazards": "경쟁·메모리 검사 (hazards)",
    "speed": "속도 (speed)",
}
STATUS_LABELS = {"pass": "통과 (pass)", "fail": "실패 (fail)", "skip": "건너뜀 (skip)"}
STATUS_MARKS = {"pass": "✔", "fail": "✘", "skip": "–"}
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


@dataclass
class CheckResult:
    check: str
    status: str                      # pass | fail | skip
    diagnosis: str | None = None     # a DIAGNOSES code when status == "fail"
    message_ko: str = ""
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.check not in CHECKS:
            raise ValueError(f"unknown check {self.check!r}")
        if self.status not in STATUS_LABELS:
            raise ValueError(f"unknown status {self.status!r}")
        if self.diagnosis is not None and self.diagnosis not in DIAGNOSES:
            raise ValueError(f"unknown diagnosis {self.diagnosis!r}")

    @classmethod
    def passed(cls, check: str, message_ko: str, **details) -> "CheckResult":
        return cls(check, "pass", None, message_ko, details)

    @classmethod
    def failed(cls, check: str, diagnosis: str, message_ko: str, **details) -> "CheckResult":
        return cls(check, "fail", diagnosis, message_ko, details)

    @classmethod
    def skipped(cls, check: str, message_ko: str, **details) -> "CheckResult":
        return cls(check, "skip", None, message_ko, details)


@dataclass(repr=False)
class Verdict:
    exercise: str
    source_name: str
    checks: list                      # CheckResult, in CHECKS order
    source_sha256: str = ""
    arch: str = ""                    # architecture of the SASS rules (e.g. sm_90)
    device: str = ""                  # GPU that ran the kernel ("" when none)
    time: str = ""
    seed: int | None = None           # the run's seed: the drawn cases (replay with --seed)

    @property
    def passed(self) -> bool:
        return len(self.checks) == len(CHECKS) and all(c.status == "pass" for c in self.checks)

    @property
    def complete(self) -> bool:
        """No check was skipped (a GPU ran the kernel)."""
        return all(c.status != "skip" for c in self.checks)

    @property
    def failures(self) -> list:
        return [c for c in self.checks if c.status == "fail"]

    @property
    def diagnosis(self) -> str | None:
        """The root cause among the failed checks (DIAGNOSIS_PRIORITY), None when nothing failed."""
        found = {c.diagnosis for c in self.failures if c.diagnosis}
        return next((d for d in DIAGNOSIS_PRIORITY if d in found), None)

    def result(self, check: str) -> CheckResult | None:
        return next((c for c in self.checks if c.check == check), None)

    def summary_ko(self) -> str:
        if self.passed:
            return "모든 검사를 통과했습니다 (passed)."
        if self.diagnosis:
            return f"진단(diagnosis): {self.diagnosis} — {DIAGNOSES[self.diagnosis]}"
        skipped = [CHECK_LABELS[c.check] for c in self.checks if c.status == "skip"]
        return "실패한 검사는 없지만 건너뛴 검사가 있습니다: " + ", ".join(skipped)

    def to_dict(self) -> dict:
        return {"exercise": self.exercise, "source_name": self.source_name, "source_sha256": self.source_sha256,
                "passed": self.passed, "complete": self.complete, "diagnosis": self.diagnosis,
                "arch": self.arch, "device": self.device, "time": self.time, "seed": self.seed,
                "checks": [asdict(c) for c in self.checks]}

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        checks = [CheckResult(c["check"], c["status"], c.get("diagnosis"), c.get("message_ko", ""),
                              c.get("details", {})) for c in data["checks"]]
        return cls(data["exercise"], data.get("source_name", ""), checks, data.get("source_sha256", ""),
                   data.get("arch", ""), data.get("device", ""), data.get("time", ""), data.get("seed"))

    def replay_text(self) -> str:
        """How to run exactly these cases again (empty when no case was drawn)."""
        if self.seed is None:
            return ""
        return (f"시드(seed) {self.seed}: 같은 경우로 다시 검사하려면 "
                f"`python -m course exercise check {self.exercise} <파일> --seed {self.seed}`")

    # ------------------------------------------------------------------ rendering
    def text(self) -> str:
        """A plain-text table for the terminal."""
        lines = [f"실습 {self.exercise} — {self.source_name}" + (f" ({self.device})" if self.device else ""),
                 ""]
        for c in self.checks:
            head = f"{STATUS_MARKS[c.status]} {CHECK_LABELS[c.check]:<22} {STATUS_LABELS[c.status]}"
            if c.diagnosis:
                head += f"  [{c.diagnosis}]"
            lines.append(head)
            lines += [f"      {ln}" for ln in c.message_ko.splitlines()]
        lines += ["", self.summary_ko()]
        if self.replay_text():
            lines.append(self.replay_text())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        caption = f"실습 {self.exercise} 판정 (verdict)" + (f" — {self.device}" if self.device else " — GPU 없음")
        return self.html(caption)

    def __repr__(self) -> str:
        return self.text()

    def html(self, caption: str = "") -> str:
        """An accessible HTML table (caption, column headers, row headers) with Korean labels."""
        return verdict_table_html(self.to_dict(), caption)


def verdict_table_html(data: dict, caption: str = "") -> str:
    """The table of a verdict given as a dict (a live Verdict.to_dict() or a recorded one)."""
    rows = []
    for c in data["checks"]:
        status = c["status"]
        message = _CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>",
                                 html.escape(c.get("message_ko") or "")).replace("\n", "<br>")
        diagnosis = f'<code>{html.escape(c["diagnosis"])}</code>' if c.get("diagnosis") else "–"
        rows.append(
            f'<tr class="course-exercise-{status}"><th scope="row">{html.escape(CHECK_LABELS[c["check"]])}</th>'
            f'<td style="white-space:nowrap"><span aria-hidden="true">{STATUS_MARKS[status]} </span>'
            f'{html.escape(STATUS_LABELS[status])}</td>'
            f'<td>{diagnosis}</td><td style="text-align:left;min-width:20em">{message}</td></tr>')
    if data.get("passed"):
        summary = "모든 검사를 통과했습니다 (passed)."
    elif data.get("diagnosis"):
        summary = f"진단(diagnosis): <code>{html.escape(data['diagnosis'])}</code> — {html.escape(DIAGNOSES[data['diagnosis']])}"
    else:
        summary = "실패한 검사는 없지만 건너뛴 검사가 있습니다 (GPU에서 다시 실행하세요)."
    if data.get("seed") is not None:
        summary += f" 시드(seed) <code>{int(data['seed'])}</code>."
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return ('<div class="pst-scrollable-table-container course-table-scroll">'
            f'<table class="course-table course-exercise-verdict">{cap}<thead><tr>'
            '<th scope="col">검사 (check)</th><th scope="col">결과 (status)</th>'
            '<th scope="col">진단 (diagnosis)</th><th scope="col">설명 (message)</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="course-exercise-summary">{summary}</p>')
