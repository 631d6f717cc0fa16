"""Instructor command line (python -m course): export, authoritative grading, bad input,
CSV files that a spreadsheet opens safely, symbolic links never followed, the problems CSV."""
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course.__main__ import main
from course.quiz.bank import load_bank
from course.instructor.safe_text import FORMULA_TRIGGERS, safe_cell, write_safe_csv
from course.instructor.problems import problems_path_for
from course.quiz.shuffle import shuffled_ids
from course.quiz.submission import build_submission, integrity_digest, integrity_status

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "banks"
BANK = load_bank(6, FIXTURES)

ALL_RIGHT = {"m06-q01": "b", "m06-q02": ["a", "b"], "m06-q03": "8,192 B",
             "m06-q04": {"b1": "row", "b2": " blockIdx.x*TILE + tx "}, "m06-q05": "32배",
             "m06-q06": "a", "m06-q07": "9.58", "m06-q08": "블록당 자원이 늘어 점유율이 떨어진다"}


def submission(student_id, given, when, name="학생", **changes):
    doc = build_submission(BANK, {"id": student_id, "name": name}, given, {"m06-q08": True},
                           started_at="2026-11-22T09:00:00.000Z", submitted_at=when, client="site")
    doc.update(changes)
    if changes:
        doc["integrity"] = {"algorithm": "sha256", "digest": integrity_digest(doc)}
    return doc


def write(folder, name, doc):
    path = folder / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def submissions(tmp_path):
    folder = tmp_path / "subs"
    (folder / "nested").mkdir(parents=True)
    half = dict(ALL_RIGHT, **{"m06-q01": "a", "m06-q02": ["a"], "m06-q05": "31"})
    # good: A (latest of two), B (no integrity: graded with a note), C (claims a score: ignored)
    write(folder, "a_old.json", submission("A1", half, "2026-11-22T10:00:00.000Z", name="가"))
    write(folder, "a_new.json", submission("A1", ALL_RIGHT, "2026-11-22T11:00:00.000Z", name="가"))
    no_integrity = submission("B2", half, "2026-11-22T10:30:00.000Z", name="나")
    no_integrity["integrity"] = None
    write(folder / "nested", "b.json", no_integrity)
    write(folder, "c_score.json", submission("C3", {"m06-q01": "c"}, "2026-11-22T10:40:00.000Z", name="다",
                                             score=8, passed=True))
    # bad ones
    write(folder, "broken.json", '{"format": "sgemm-course-submission", "answers": {')
    write(folder, "module7.json", submission("D4", {}, "2026-11-22T10:00:00.000Z", module=7))
    write(folder, "unknown_q.json", submission("E5", ALL_RIGHT, "2026-11-22T10:00:00.000Z",
                                               answers=dict(ALL_RIGHT, **{"m06-q99": "a"})))
    tampered = submission("F6", half, "2026-11-22T10:00:00.000Z")
    tampered["answers"]["m06-q01"] = "b"
    write(folder, "tampered.json", tampered)
    write(folder, "no_student.json", submission("", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    write(folder, "form.json", {"format": "sgemm-course-form", "module": 6})
    write(folder, "list.json", "[1, 2, 3]")
    (folder / "notes.txt").write_text("ignored: not *.json", encoding="utf-8")
    return folder


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "course", "--banks", str(FIXTURES), *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_grade_folder_end_to_end(submissions, tmp_path):
    out, summary = tmp_path / "gradebook.csv", tmp_path / "difficulty.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", submissions, "--out", out, "--summary", summary)
    assert proc.returncode == 3, proc.stderr          # graded, with problems listed
    rows = read_csv(out)
    assert list(rows[0])[:11] == ["student_id", "student_name", "module", "score", "max_score", "correct_count",
                                  "passed", "attempt_time", "attempt", "file", "warnings"]
    assert list(rows[0])[11:] == list(BANK.ids)
    by_id = {r["student_id"]: r for r in rows}
    assert sorted(by_id) == ["A1", "B2", "C3"]
    a = by_id["A1"]
    assert (a["student_name"], a["module"], a["score"], a["max_score"], a["correct_count"], a["passed"]) == \
        ("가", "6", "7", "8", "7", "yes")
    assert a["attempt_time"] == "2026-11-22T11:00:00.000Z" and a["m06-q08"] == "pending"
    assert (a["file"], a["attempt"], a["warnings"]) == ("a_new.json", "", "")      # a form: no attempt number
    assert by_id["B2"]["file"] == "nested/b.json" and by_id["B2"]["warnings"] == "no_integrity"
    b = by_id["B2"]
    assert (b["correct_count"], b["passed"], b["m06-q01"], b["m06-q02"], b["m06-q05"]) == ("4", "no", "0", "0.5", "0")
    assert b["score"] == "4.5"
    c = by_id["C3"]
    assert (c["score"], c["correct_count"], c["passed"]) == ("0", "0", "no")   # the claimed score is ignored
    output = proc.stdout
    for name, reason in [("a_old.json", "중복"), ("broken.json", "JSON 형식"), ("module7.json", "모듈이 다릅니다"),
                         ("unknown_q.json", "m06-q99"), ("tampered.json", "무결성"), ("no_student.json", "학번"),
                         ("form.json", "형식(format)"), ("list.json", "객체")]:
        line = next((l for l in output.splitlines() if name in l), "")
        assert "건너뜀" in line and reason in line, (name, output)
    assert "b.json" in output and "integrity" in output
    assert "채점(graded): 3개, 건너뜀(skipped): 9개" in output      # the 8 bad files and notes.txt
    problems = {r["file"]: r for r in read_csv(tmp_path / "gradebook_problems.csv")}
    assert problems["tampered.json"]["kind"] == "tampered" and problems["tampered.json"]["outcome"] == "skipped"
    assert problems["a_old.json"]["kind"] == "duplicate" and problems["a_old.json"]["student_id"] == "A1"
    assert problems["notes.txt"]["kind"] == "not_json"
    assert problems["nested/b.json"]["kind"] == "no_integrity" and problems["nested/b.json"]["outcome"] == "graded"
    assert {problems[n]["kind"] for n in ("broken.json", "module7.json", "unknown_q.json", "no_student.json",
                                          "form.json", "list.json")} == {"malformed"}
    assert all(r["reason"] for r in problems.values())
    difficulty = {r["question_id"]: r for r in read_csv(summary)}
    assert difficulty["m06-q01"]["count"] == "3" and difficulty["m06-q01"]["fraction_correct"] == "0.3333"
    assert difficulty["m06-q02"]["mean_score"] == "0.5"
    assert difficulty["m06-q08"]["pending"] == "2" and difficulty["m06-q08"]["count"] == "1"   # C3 left it empty


def test_manual_marks_settle_free_answers(submissions, tmp_path):
    marks = tmp_path / "marks.csv"
    marks.write_text("student_id,question_id,mark,comment\nA1,m06-q08,1,좋음\nB2,m06-q08,0.5,\n"
                     "A1,m06-q01,1,자동 채점 문항\nZZ,m06-q08,1,\nB2,m06-q08,7,\n", encoding="utf-8")
    out = tmp_path / "gradebook.csv"
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(submissions),
                 "--out", str(out), "--manual-marks", str(marks)]) == 3
    by_id = {r["student_id"]: r for r in read_csv(out)}
    assert (by_id["A1"]["m06-q08"], by_id["A1"]["correct_count"], by_id["A1"]["score"]) == ("1", "8", "8")
    assert by_id["B2"]["m06-q08"] == "0.5"      # the later out-of-range 7 is reported, not applied
    assert by_id["C3"]["m06-q08"] == "0"        # C3 left it empty: unanswered, not pending
    ignored = [r for r in read_csv(tmp_path / "gradebook_problems.csv") if r["kind"] == "manual_mark"]
    assert len(ignored) == 3 and all(r["outcome"] == "ignored" for r in ignored)   # q01, ZZ, the 7


def test_pending_free_item_can_hold_a_pass(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    answers = dict(ALL_RIGHT, **{"m06-q01": "a", "m06-q02": ["a"]})      # 5 right + the free item
    write(folder, "p.json", submission("P1", answers, "2026-11-22T10:00:00.000Z"))
    out = tmp_path / "g.csv"
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(folder), "--out", str(out)]) == 0
    assert read_csv(out)[0]["passed"] == "pending"
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(folder), "--out", str(out),
                 "--pass-count", "5"]) == 0
    assert read_csv(out)[0]["passed"] == "yes"


def test_require_integrity_skips_files_without_it(submissions, tmp_path, capsys):
    out = tmp_path / "g.csv"
    main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(submissions), "--out", str(out),
          "--require-integrity"])
    assert "B2" not in {r["student_id"] for r in read_csv(out)}
    assert "--require-integrity" in capsys.readouterr().out


def test_exit_codes(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("grade", "--module", 6, "--submissions", empty, "--out", tmp_path / "g.csv").returncode == 1
    assert (tmp_path / "g.csv").exists()       # an empty gradebook (header only) is still written
    missing_folder = run_cli("grade", "--module", 6, "--submissions", tmp_path / "nope", "--out", tmp_path / "g.csv")
    assert missing_folder.returncode == 2 and "제출 폴더" in missing_folder.stderr
    missing_bank = run_cli("export-key", "--module", 5, "--out", tmp_path / "k.json")
    assert missing_bank.returncode == 2 and "m05.yaml" in missing_bank.stderr
    assert run_cli("grade", "--module", "six").returncode == 2


@pytest.mark.parametrize("command", ["export-form", "export-key", "grade", "validate"])
def test_help_for_each_command(command):
    proc = run_cli(command, "--help")
    assert proc.returncode == 0
    assert "/" in proc.stdout and any("\uac00" <= ch <= "\ud7a3" for ch in proc.stdout)   # Korean and English
    if command in ("grade", "validate"):
        assert "exit codes" in proc.stdout


def test_export_form_has_no_answers_and_a_template(tmp_path):
    assert run_cli("export-form", "--module", 6, "--out", tmp_path).returncode == 0
    form = json.loads((tmp_path / "m06_form.json").read_text(encoding="utf-8"))
    text = json.dumps(form, ensure_ascii=False)
    for secret in ('"correct"', '"accept"', "model_answer", "rubric", "explanation", "blockIdx.y"):
        assert secret not in text, secret
    template = form["submission_template"]
    assert template["format"] == "sgemm-course-submission" and template["bank_hash"] == BANK.digest
    assert set(template["answers"]) == set(BANK.ids) and template["answers"]["m06-q04"] == {"b1": "", "b2": ""}
    markdown = (tmp_path / "m06_form.md").read_text(encoding="utf-8")
    assert "m06-q04" in markdown and "blockIdx.y" not in markdown and "___(b1)___" in markdown


def test_hand_filled_form_template_can_be_graded(tmp_path):
    run_cli("export-form", "--module", 6, "--out", tmp_path)
    template = json.loads((tmp_path / "m06_form.json").read_text(encoding="utf-8"))["submission_template"]
    template["student"] = {"id": "H8", "name": "손"}
    template["submitted_at"] = "2026-11-22T12:00:00Z"
    template["answers"].update({"m06-q01": "b", "m06-q03": 8192})
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "h.json", template)
    out = tmp_path / "g.csv"
    # graded, with a note (a hand-filled form has no integrity digest): exit code 3
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(folder), "--out", str(out)]) == 3
    row = read_csv(out)[0]
    assert (row["student_id"], row["correct_count"], row["m06-q03"]) == ("H8", "2", "1")
    assert [r["kind"] for r in read_csv(tmp_path / "g_problems.csv")] == ["no_integrity"]


def test_export_key_json_and_markdown(tmp_path):
    assert run_cli("export-key", "--module", 6, "--out", tmp_path / "key.json").returncode == 0
    key = json.loads((tmp_path / "key.json").read_text(encoding="utf-8"))
    assert key["format"] == "sgemm-course-key" and key["questions"][0]["correct"] == ["b"]
    assert run_cli("export-key", "--module", 6, "--out", tmp_path / "key.md").returncode == 0
    assert "8192 B" in (tmp_path / "key.md").read_text(encoding="utf-8")


def test_the_markdown_key_shows_a_relative_tolerance_and_blanks_graded_by_meaning():
    from course.instructor.forms import key_markdown, tolerance_text

    assert tolerance_text({"value": 17180, "tolerance": 0, "rel": 0.003}) == "허용 오차 ±0.3%"
    assert tolerance_text({"value": 9.56, "tolerance": 0.05}) == "허용 오차 ±0.05"
    assert tolerance_text({"value": 1, "tolerance": 2, "rel": 0.1}) == "허용 오차 ±2 또는 ±10% 중 넓은 쪽"
    assert tolerance_text({"value": 8192, "tolerance": 0}) == "허용 오차 없음: 정확히 일치"
    relative = [q for q in load_bank(10).questions if q.type == "numeric" and q.answer.rel]
    by_meaning = [(q, b) for q in load_bank(8).questions if q.type == "code" for b in q.blanks if b.evaluate]
    assert relative and by_meaning                                     # the real banks have both kinds
    text = key_markdown(load_bank(10))
    for q in relative:
        section = text.split(f"## `{q.id}`")[1].split("\n## ")[0]
        assert f"±{q.answer.rel * 100:g}%" in section and "±0)" not in section and "±0 " not in section
    text = key_markdown(load_bank(8))
    for q, blank in by_meaning:
        line = next(x for x in text.split(f"## `{q.id}`")[1].splitlines() if x.startswith(f"- {blank.id}:"))
        assert "의미로 채점(by meaning)" in line and f"`{blank.accept[0]}`의 값과 같으면" in line
        assert all(name in line for name in blank.evaluate["vars"])      # the assignments it is checked over
    plain = next(b for q in load_bank(8).questions if q.type == "code" for b in q.blanks if not b.evaluate)
    assert "의미로 채점" not in next(x for x in text.splitlines() if x.startswith(f"- {plain.id}:") and plain.accept[0] in x)


def test_validate_command(tmp_path):
    proc = run_cli("validate", "--module", 6)
    assert proc.returncode == 0 and "ok" in proc.stdout
    broken = tmp_path / "m06.yaml"
    broken.write_text((FIXTURES / "m06.yaml").read_text(encoding="utf-8").replace("bloom: 기억", "bloom: 암기", 1),
                      encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "course", "--banks", str(tmp_path), "validate"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "m06.yaml: m06-q01: bloom" in proc.stderr


def test_odd_files_never_crash_the_grader(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    odd_answers = {"m06-q01": {"x": 1}, "m06-q02": "a", "m06-q03": float("nan"), "m06-q04": ["row"],
                   "m06-q05": True, "m06-q06": 3, "m06-q07": None, "m06-q08": ["list"]}
    odd = submission("O1", {}, "2026-11-22T10:00:00.000Z")
    odd.update(answers=odd_answers, integrity=None)      # NaN cannot be hashed canonically
    write(folder, "odd.json", odd)
    write(folder, "nested.json", "[" * 100000 + "]" * 100000)
    write(folder, "nan.json", '{"format": "sgemm-course-submission", "version": 1, "module": NaN}')
    (folder / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    write(folder, "future.json", submission("F1", {}, "2026-11-22T10:00:00.000Z", version=2))
    write(folder, "bad_time.json", submission("T1", {}, "yesterday"))
    write(folder, "bad_self.json", submission("S1", {}, "2026-11-22T10:00:00.000Z", self_assessment={"m06-q08": "yes"}))
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 3, proc.stderr
    rows = read_csv(out)
    assert [r["student_id"] for r in rows] == ["O1"]
    assert rows[0]["score"] == "0" and rows[0]["m06-q08"] == "0"
    assert "채점(graded): 1개, 건너뜀(skipped): 6개" in proc.stdout
    assert "새로운 제출 형식" in proc.stdout and "submitted_at" in proc.stdout


def test_integrity_roundtrip():
    doc = submission("A1", ALL_RIGHT, "2026-11-22T11:00:00.000Z")
    assert integrity_status(doc) == "ok"
    doc["student"]["name"] = "바뀜"
    assert integrity_status(doc) == "mismatch"
    doc["integrity"] = "garbage"
    assert integrity_status(doc) == "mismatch"
    doc["integrity"] = None
    assert integrity_status(doc) == "absent"


# ---------------------------------------------------------------- spreadsheet-safe CSV

INJECTIONS = ['=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1:A2)",
              "\t=1+2", "\r=1+3", "  =1+4", "\uff1d1+5"]


def spreadsheet_text_cells(path, numeric_columns=()):
    """Every text cell of a CSV as a spreadsheet reads it (numeric columns are checked apart)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    return [(header[i], cell) for row in rows[1:] for i, cell in enumerate(row) if header[i] not in numeric_columns]


def assert_no_cell_runs(cells):
    for column, cell in cells:
        assert cell[:1] not in FORMULA_TRIGGERS and cell.lstrip()[:1] not in FORMULA_TRIGGERS \
            or cell.startswith("'"), (column, cell)
        assert not cell or cell[0] not in FORMULA_TRIGGERS, (column, cell)


def test_safe_cell_rules():
    assert safe_cell('=HYPERLINK("http://x","y")') == '\'=HYPERLINK("http://x","y")'
    for text in INJECTIONS:
        assert safe_cell(text) == "'" + text.replace("\r", "\\r"), repr(text)   # a CR is made visible too
    assert safe_cell(-3) == -3 and safe_cell(-0.5) == -0.5 and safe_cell(2.0) == 2
    assert safe_cell(1 / 3) == 0.3333
    assert safe_cell("-3") == "'-3"                    # text that looks like a number is still text
    assert safe_cell("홍길동") == "홍길동" and safe_cell("A1") == "A1" and safe_cell(None) == ""
    assert safe_cell(True) == "True" and safe_cell(float("nan")) == "nan"


def test_write_safe_csv_quotes_text_and_keeps_numbers(tmp_path):
    path = write_safe_csv(tmp_path / "x.csv", ["name", "score"], [["=1+1", -2.5], ["a;=b,\"c\"", 3]])
    raw = path.read_text(encoding="utf-8-sig").splitlines()
    assert raw == ['"name","score"', '"\'=1+1",-2.5', '"a;=b,""c""",3']
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    assert rows[1] == ["'=1+1", "-2.5"] and rows[2] == ['a;=b,"c"', "3"]


def test_formula_student_id_and_name_are_neutralised(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    for n, (sid, name) in enumerate(zip(INJECTIONS, reversed(INJECTIONS))):
        write(folder, f"evil{n}.json", submission(sid, ALL_RIGHT, "2026-11-22T10:00:00.000Z", name=name))
    write(folder, "=evil_name.json", submission("G7", ALL_RIGHT, "2026-11-22T10:00:00.000Z", name="정상"))
    write(folder, "-broken.json", "{")
    out, summary = tmp_path / "gradebook.csv", tmp_path / "difficulty.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out, "--summary", summary)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    numeric = ("module", "score", "max_score", "correct_count", *BANK.ids)
    cells = spreadsheet_text_cells(out, numeric)
    ids = [cell for column, cell in cells if column == "student_id"]
    # .strip() in the grader removes the leading tab, CR and spaces; every formula still starts with '
    assert sorted(ids) == sorted(["G7"] + ["'" + sid.strip() for sid in INJECTIONS])
    names = [cell for column, cell in cells if column == "student_name"]
    assert "'=cmd|' /C calc'!A0" in names and '\'=HYPERLINK("http://x","y")' in names
    assert_no_cell_runs(cells)
    assert_no_cell_runs(spreadsheet_text_cells(summary, ("count", "fraction_correct", "mean_score", "pending")))
    problems = spreadsheet_text_cells(tmp_path / "gradebook_problems.csv")
    assert ("file", "'-broken.json") in problems
    assert_no_cell_runs(problems)
    with open(out, newline="", encoding="utf-8-sig") as handle:      # numbers stay numbers
        for row in csv.DictReader(handle):
            float(row["score"]), int(row["correct_count"]), int(row["module"])


def test_manual_marks_accept_a_neutralised_student_id(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "x.json", submission("=X1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    marks = tmp_path / "marks.csv"
    write_safe_csv(marks, ["student_id", "question_id", "mark"], [["=X1", "m06-q08", 1]])   # as copied from a gradebook
    out = tmp_path / "g.csv"
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(folder), "--out", str(out),
                 "--manual-marks", str(marks)]) == 0
    assert read_csv(out)[0]["m06-q08"] == "1"


# ---------------------------------------------------------------- symbolic links and odd files

def test_symbolic_links_are_never_followed(tmp_path):
    folder, outside = tmp_path / "subs", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    write(folder, "real.json", submission("R1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    write(outside, "elsewhere.json", submission("L2", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    secret = outside / "secret.json"
    secret.write_text('{"format": "secret"}', encoding="utf-8")
    os.symlink("/etc/passwd", folder / "passwd.json")
    os.symlink(secret, folder / "secret.json")
    os.symlink(outside / "elsewhere.json", folder / "linked.json")
    os.symlink(folder / "real.json", folder / "inside_link.json")          # even links that stay inside
    os.symlink(outside, folder / "linked_dir")
    os.symlink(tmp_path / "missing.json", folder / "dangling.json")
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert [r["student_id"] for r in read_csv(out)] == ["R1"]             # nothing reached through a link
    problems = {r["file"]: r for r in read_csv(problems_path_for(out))}
    for name in ("passwd.json", "secret.json", "linked.json", "inside_link.json", "linked_dir", "dangling.json"):
        assert problems[name]["kind"] == "symlink" and problems[name]["outcome"] == "skipped", name
        assert "심볼릭 링크" in problems[name]["reason"]
    assert "root:" not in proc.stdout and "JSON" not in problems["passwd.json"]["reason"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_skipped_without_hanging(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    os.mkfifo(folder / "pipe.json")
    write(folder, "ok.json", submission("K1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 3
    assert {r["file"]: r["kind"] for r in read_csv(problems_path_for(out))} == {"pipe.json": "not_regular_file"}


def test_clean_folder_exits_zero_with_an_empty_problems_file(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "a.json", submission("A1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    out, problems = tmp_path / "g.csv", tmp_path / "elsewhere" / "p.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out, "--problems", problems)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert problems.read_text(encoding="utf-8-sig").splitlines() == ['"file","student_id","outcome","kind","reason"']
    assert not problems_path_for(out).exists()


def test_recorded_choice_order_is_checked_against_its_seed(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    order = {q.id: shuffled_ids([c.id for c in q.choices], "abc123", 2, q.id)
             for q in BANK.questions if q.choices}
    good = build_submission(BANK, {"id": "P1", "name": ""}, ALL_RIGHT, {}, submitted_at="2026-11-22T10:00:00.000Z",
                            presentation={"learner": "abc123", "attempt": 2, "choice_order": order})
    write(folder, "good.json", good)
    order2 = {q.id: shuffled_ids([c.id for c in q.choices], "def456", 2, q.id) for q in BANK.questions if q.choices}
    wrong = dict(order2, **{"m06-q01": sorted(order2["m06-q01"],
                                              reverse=order2["m06-q01"] == sorted(order2["m06-q01"]))})
    bad = build_submission(BANK, {"id": "P2", "name": ""}, ALL_RIGHT, {}, submitted_at="2026-11-22T10:00:00.000Z",
                           presentation={"learner": "def456", "attempt": 2, "choice_order": wrong})
    write(folder, "bad.json", bad)
    broken = build_submission(BANK, {"id": "P3", "name": ""}, ALL_RIGHT, {}, submitted_at="2026-11-22T10:00:00.000Z",
                              presentation={"learner": "abc123", "attempt": 0, "choice_order": "a,b"})
    write(folder, "broken.json", broken)
    out = tmp_path / "g.csv"
    assert main(["--banks", str(FIXTURES), "grade", "--module", "6", "--submissions", str(folder), "--out", str(out)]) == 3
    assert sorted(r["student_id"] for r in read_csv(out)) == ["P1", "P2"]
    problems = {r["file"]: r for r in read_csv(problems_path_for(out))}
    assert set(problems) == {"bad.json", "broken.json"}
    assert problems["bad.json"]["kind"] == "order_mismatch" and "m06-q01" in problems["bad.json"]["reason"]
    assert problems["broken.json"]["kind"] == "malformed" and "presentation" in problems["broken.json"]["reason"]


# ---------------------------------------------------------------- one file never stops the run

def crafted_folder(tmp_path):
    """The crafted files of the issue, and two honest submissions beside them."""
    folder, outside = tmp_path / "subs", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    write(folder, "honest.json", submission("H1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    write(folder, "honest2.json", submission("H2", ALL_RIGHT, "2026-11-22T10:05:00.000Z"))
    huge = submission("N1", {}, "2026-11-22T10:00:00.000Z")
    huge.update(answers={"m06-q03": 10 ** 310}, integrity=None)                # a 310-digit integer
    write(folder, "huge_number.json", huge)
    deep = submission("D1", {}, "2026-11-22T10:00:00.000Z")
    deep.update(answers={"m06-q05": "x"}, integrity=None)
    text = json.dumps(deep).replace('"x"', "[" * 986 + "]" * 986)             # a value nested 986 deep
    write(folder, "deep.json", text)
    write(outside, "other.json", submission("O9", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    os.link(outside / "other.json", folder / "hardlinked.json")                # no symlink bit to see
    write(folder, "tie_a.json", submission("T1", {"m06-q01": "a"}, "2026-11-22T10:00:00.000Z"))
    write(folder, "tie_b.json", submission("T1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    write(folder, "m06_H1_20991231T000000Z.json", submission("E9", ALL_RIGHT, "2099-12-31T00:00:00.000Z"))
    write(folder, "\x1b[2Kansi.json", submission("\x1b[1A\x1b[2KA1\u202e", ALL_RIGHT, "2026-11-22T10:00:00.000Z",
                                                   name="\x07이름"))
    return folder


def test_crafted_files_are_listed_and_the_gradebook_is_written(tmp_path):
    folder = crafted_folder(tmp_path)
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    rows = {r["student_id"]: r for r in read_csv(out)}
    assert {"H1", "H2", "T1", "E9"} <= set(rows) and "O9" not in rows             # nothing read through the hard link
    problems = {}
    for r in read_csv(problems_path_for(out)):
        problems.setdefault(r["file"], []).append(r)
    kinds = {name: {r["kind"] for r in rs} for name, rs in problems.items()}
    assert kinds["hardlinked.json"] == {"hardlink"} and "폴더 밖" in problems["hardlinked.json"][0]["reason"]
    assert kinds["deep.json"] == {"malformed"} and "중첩" in problems["deep.json"][0]["reason"]
    assert rows["N1"]["m06-q03"] == "0" and kinds["huge_number.json"] == {"no_integrity"}   # graded: wrong, no crash
    assert kinds["tie_a.json"] == {"duplicate_tie"} and "tie" in problems["tie_a.json"][0]["reason"]
    assert "시도 번호, 그다음 파일 이름 순" in problems["tie_a.json"][0]["reason"]
    assert rows["T1"]["file"] == "tie_b.json"
    future = "m06_H1_20991231T000000Z.json"
    assert kinds[future] == {"future_time", "id_mismatch"} and set(rows["E9"]["warnings"].split("; ")) == \
        {"future_time", "id_mismatch"}
    assert all(re.search("[\uac00-\ud7a3]", r["reason"]) for rs in problems.values() for r in rs)   # Korean reasons


def test_control_characters_never_reach_the_terminal_or_a_cell_raw(tmp_path):
    folder = crafted_folder(tmp_path)
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    for text in (proc.stdout, proc.stderr, out.read_text(encoding="utf-8-sig"),
                 problems_path_for(out).read_text(encoding="utf-8-sig")):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]", text)
    ids = [r["student_id"] for r in read_csv(out)]
    assert "\\x1b[1A\\x1b[2KA1\\u202e" in ids                                     # visible, not obeyed
    assert "\\x1b[2Kansi.json" in proc.stdout or "\\x1b[2Kansi.json" in out.read_text(encoding="utf-8-sig")


def test_one_file_that_breaks_the_grader_is_listed_and_the_rest_are_graded(tmp_path, monkeypatch):
    from course.instructor import submissions as instructor
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "a.json", submission("A1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    write(folder, "b.json", submission("B2", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    real = instructor.grade_quiz

    def flaky(questions, answers, *args, **kwargs):
        if answers.get("m06-q07") == "9.58" and kwargs.get("manual_marks") == "boom":
            raise RecursionError("maximum recursion depth exceeded")
        return real(questions, answers, *args, **kwargs)

    monkeypatch.setattr(instructor, "grade_quiz", flaky)
    report = instructor.grade_folder(BANK, folder, 6, manual_marks={"B2": "boom"})
    assert [g.student_id for g in report.graded] == ["A1"]
    [problem] = report.problems
    assert (problem.file, problem.kind, problem.outcome) == ("b.json", "unjudgeable", "skipped")
    assert "RecursionError" in problem.reason and "나머지" in problem.reason


def test_a_hard_link_whose_names_are_all_inside_is_graded(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "a.json", submission("A1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    os.link(folder / "a.json", folder / "a_copy.json")
    report = __import__("course.instructor.submissions", fromlist=["grade_folder"]).grade_folder(BANK, folder, 6)
    assert [g.student_id for g in report.graded] == ["A1"]
    assert {p.kind for p in report.problems} <= {"duplicate_tie"}


def test_the_same_learner_under_two_student_ids_is_noticed(tmp_path):
    from course.instructor.submissions import grade_folder
    folder = tmp_path / "subs"
    folder.mkdir()
    order = {q.id: shuffled_ids([c.id for c in q.choices], "samebrowser", 1, q.id) for q in BANK.questions if q.choices}
    for sid in ("S1", "S2"):
        doc = build_submission(BANK, {"id": sid, "name": ""}, ALL_RIGHT, {}, submitted_at="2026-11-22T10:00:00.000Z",
                               presentation={"learner": "samebrowser", "attempt": 1, "choice_order": order})
        write(folder, f"{sid}.json", doc)
    report = grade_folder(BANK, folder, 6)
    notes = {(p.file, p.kind) for p in report.problems}
    assert notes == {("S1.json", "shared_learner"), ("S2.json", "shared_learner")}
    assert all(g.attempt == 1 and g.learner == "samebrowser" for g in report.graded)


def test_a_forged_variant_is_graded_with_the_seeds_key(tmp_path):
    from course.instructor.submissions import grade_folder
    from course.quiz.variants import draw_params
    q = BANK.question("m06-q03")
    params = draw_params(q.variant, "lrn", 4, q.id)
    key = 2 * params["T"] ** 2 * 4
    folder = tmp_path / "subs"
    folder.mkdir()
    order = {x.id: shuffled_ids([c.id for c in x.choices], "lrn", 4, x.id) for x in BANK.questions if x.choices}
    honest = build_submission(BANK, {"id": "V1", "name": ""}, dict(ALL_RIGHT, **{"m06-q03": str(key)}), {},
                              submitted_at="2026-11-22T10:00:00.000Z",
                              presentation={"learner": "lrn", "attempt": 4, "choice_order": order,
                                            "variants": {"m06-q03": params}})
    write(folder, "honest.json", honest)
    forged = build_submission(BANK, {"id": "V2", "name": ""}, dict(ALL_RIGHT, **{"m06-q03": "128"}), {},
                              submitted_at="2026-11-22T10:00:00.000Z",
                              presentation={"learner": "lrn2", "attempt": 4, "choice_order": {},
                                            "variants": {"m06-q03": {"T": 4}}})           # an easy, unseeded value
    write(folder, "forged.json", forged)
    report = grade_folder(BANK, folder, 6)
    by_id = {g.student_id: g for g in report.graded}
    assert by_id["V1"].result.by_id()["m06-q03"].correct
    assert not by_id["V2"].result.by_id()["m06-q03"].correct
    assert ("forged.json", "variant_mismatch") in {(p.file, p.kind) for p in report.problems}


def test_duplicate_manual_marks_are_a_listed_problem_and_neither_is_applied(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    write(folder, "a.json", submission("A1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    marks = tmp_path / "marks.csv"
    marks.write_text("student_id,question_id,mark\nA1,m06-q08,1\nA1,m06-q08,0\n", encoding="utf-8")
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out, "--manual-marks", marks)
    assert proc.returncode == 3
    assert read_csv(out)[0]["m06-q08"] == "pending"
    [problem] = read_csv(problems_path_for(out))
    assert problem["kind"] == "manual_mark" and ":2, 3" in problem["reason"] and "중복" in problem["reason"]


@pytest.mark.parametrize("text", [
    "\u200b=HYPERLINK(\"x\")", "\ufeff=1+1", "\u200d\u200c@SUM(A1)", "\u3000=1", "\u3164=1", "\u00a0+1",
    "\ufe66cmd", "\ufe62cmd", "\ufe63cmd", "\ufe6bcmd", "\uff1dcmd", "\u2212 1", "\u207b1", "\u208a1", "\u2795x",
    "\u2796x", "\u207c1", "\u034f=1",
])
def test_the_csv_guard_sees_through_invisible_leaders_and_every_form_of_the_triggers(text):
    cell = safe_cell(text)
    assert cell.startswith("'"), (text, cell)
    assert not re.search("[\u200b-\u200d\ufeff]", cell[1:])          # zero-width characters made visible


def test_huge_numbers_never_break_a_csv_or_a_grade():
    from course.quiz.grading import grade_question
    assert safe_cell(10 ** 310) == "1" + "0" * 310 and safe_cell(-(10 ** 20)) == "'-" + "1" + "0" * 20
    assert grade_question(BANK.question("m06-q03"), 10 ** 310).status == "invalid"


def test_pass_count_beyond_the_question_count_is_a_usage_error(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    assert run_cli("grade", "--module", 6, "--submissions", folder, "--out", tmp_path / "g.csv",
                   "--pass-count", 99).returncode == 2
    assert run_cli("grade", "--module", 6, "--submissions", folder, "--out", tmp_path / "g.csv",
                   "--pass-count", 0).returncode == 2


# ---------------------------------------------------------------- names of any bytes, ids of any text, numbers of any size

def odd_named_folder(tmp_path):
    """crafted_folder plus what a Korean LMS download gives: CP949 names (a stray .txt too), bytes that are
    not UTF-8, control characters in a name, lone surrogates in an id, a 400-digit number and 1e400."""
    folder = crafted_folder(tmp_path)
    raw = os.fsencode(folder)
    good = json.dumps(submission("K1", ALL_RIGHT, "2026-11-22T10:00:00.000Z"), ensure_ascii=False)
    with open(raw + b"/" + "홍길동_제출.json".encode("cp949"), "w", encoding="utf-8") as handle:
        handle.write(good)
    with open(raw + b"/" + "메모.txt".encode("cp949"), "wb") as handle:
        handle.write(b"not a submission")
    os.mkdir(raw + b"/" + "3반".encode("cp949"))
    with open(raw + b"/" + "3반".encode("cp949") + b"/bad\xff\xfe.json", "w", encoding="utf-8") as handle:
        handle.write(json.dumps(submission("K2", ALL_RIGHT, "2026-11-22T10:00:00.000Z")))
    write(folder, "name\x1b[31m\u202e\x07.json", submission("K3", ALL_RIGHT, "2026-11-22T10:00:00.000Z"))
    lone = submission("SURROGATE", ALL_RIGHT, "2026-11-22T10:00:00.000Z")
    lone["integrity"] = None
    write(folder, "surrogate.json", json.dumps(lone).replace('"SURROGATE"', '"S\\udc80\\ud800x"'))
    big = submission("BIG1", dict(ALL_RIGHT, **{"m06-q03": "9" * 400}), "2026-11-22T10:00:00.000Z")
    write(folder, "big_text.json", big)
    variant = submission("BIG2", ALL_RIGHT, "2026-11-22T10:00:00.000Z", presentation={
        "learner": "x", "attempt": 3, "choice_order": {}, "variants": {"m06-q03": {"T": 10 ** 400}}})
    write(folder, "big_variant.json", variant)
    inf = submission("INF1", ALL_RIGHT, "2026-11-22T10:00:00.000Z")
    inf["integrity"] = None
    write(folder, "inf.json", json.dumps(inf, ensure_ascii=False).replace('"8,192 B"', "1e400"))
    write(folder, "nan.json", json.dumps(inf, ensure_ascii=False).replace('"8,192 B"', "NaN").replace("INF1", "NAN1"))
    write(folder, "nan_text.json", json.dumps(inf, ensure_ascii=False).replace('"8,192 B"', '"NaN"').replace("INF1", "NAN2"))
    return folder


def odd_names(folder) -> int:
    """How many files under folder have a path (inside it) that is not UTF-8 or holds control/bidi characters."""
    count, root = 0, os.fsencode(folder)
    for top, _, files in os.walk(root):
        for name in files:
            relative = os.path.relpath(os.path.join(top, name), root)
            try:
                text = relative.decode("utf-8")
            except UnicodeDecodeError:
                count += 1
                continue
            count += bool(re.search("[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]", text))
    return count


def test_grade_lists_every_odd_name_and_writes_every_csv(tmp_path):
    folder = odd_named_folder(tmp_path)
    out, summary = tmp_path / "g.csv", tmp_path / "s.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out, "--summary", summary)
    assert proc.returncode in (0, 3), proc.stdout + proc.stderr
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    for path in (out, summary, problems_path_for(out)):
        raw = path.read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf")                            # UTF-8 with BOM, as every CSV
        text = raw.decode("utf-8-sig")                                     # strict: no surrogate got through
        assert not re.search("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e]", text)   # \r\n ends rows
        assert list(csv.reader(text.splitlines()))
    rows = {r["student_id"]: r for r in read_csv(out)}
    assert {"K1", "K2", "K3", "BIG1", "INF1", "NAN1", "NAN2", "S\\udc80\\ud800x"} <= set(rows)
    assert {rows[k]["m06-q03"] for k in ("BIG1", "INF1", "NAN1", "NAN2")} == {"0"}
    problems = read_csv(problems_path_for(out))
    named = {p["file"] for p in problems if p["kind"] == "odd_file_name" or "UTF-8이 아니어서" in p["reason"]}
    assert len(named) == odd_names(folder) == 5                               # every odd name is listed, once each
    by_reason = lambda text: [p for p in problems if text in p["reason"]]             # noqa: E731
    [korean] = [p for p in by_reason("'홍길동_제출.json'") if p["kind"] == "odd_file_name"]
    assert korean["outcome"] == "graded" and korean["file"] == rows["K1"]["file"] and "\\x" in korean["file"]
    [memo] = by_reason("'메모.txt'")
    assert memo["kind"] == "not_json" and memo["outcome"] == "skipped"
    [bad] = [p for p in problems if p["file"].endswith("bad\\xff\\xfe.json")]
    assert bad["kind"] == "odd_file_name" and "'3반/" in bad["reason"] or "UTF-8" in bad["reason"]
    [ctl] = [p for p in problems if p["file"] == "name\\x1b[31m\\u202e\\x07.json"]
    assert ctl["kind"] == "odd_file_name" and rows["K3"]["file"] == ctl["file"]
    assert {p["kind"] for p in problems if p["file"] == "surrogate.json"} == {"no_integrity", "odd_student_id"}
    [variant] = [p for p in problems if p["file"] == "big_variant.json"]
    assert variant["kind"] == "malformed" and "variants" in variant["reason"]      # a named reason, not "unexpected"
    assert not [p for p in problems if p["kind"] == "unjudgeable"]
    counted = re.search(r"문제\(problems\): (\d+)건", proc.stdout)
    assert counted and int(counted.group(1)) == len(problems)
    assert "\x1b" not in proc.stdout + proc.stderr and "\ufffd" not in proc.stdout


def test_grade_writes_every_csv_when_every_file_is_bad(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    with open(os.fsencode(folder) + b"/" + "과제.json".encode("cp949"), "wb") as handle:
        handle.write(b'{"format": ')
    with open(os.fsencode(folder) + b"/\xff.txt", "wb") as handle:
        handle.write(b"x")
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 1, proc.stderr                                  # nothing graded
    assert read_csv(out) == [] and out.read_bytes().startswith(b"\xef\xbb\xbf\"student_id\"")
    kinds = sorted(p["kind"] for p in read_csv(problems_path_for(out)))
    assert kinds == ["malformed", "not_json"] and "문제(problems): 2건" in proc.stdout


def test_a_lone_surrogate_hashes_as_the_browser_writes_it():
    doc = submission("S\udc80", ALL_RIGHT, "2026-11-22T10:00:00.000Z")
    assert integrity_status(doc) == "ok"                       # no UnicodeEncodeError, no false "tampered"
    from course.quiz.submission import canonical_json
    assert canonical_json({"a": "\ud800"}) == '{"a":"\\ud800"}'  # JSON.stringify's escape


def test_attempts_above_the_limit_are_flagged(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    for sid, attempt in (("A1", 2), ("A2", 5)):
        order = {q.id: shuffled_ids([c.id for c in q.choices], sid, attempt, q.id) for q in BANK.questions if q.choices}
        doc = build_submission(BANK, {"id": sid, "name": ""}, ALL_RIGHT, {}, submitted_at="2026-11-22T10:00:00.000Z",
                               presentation={"learner": sid, "attempt": attempt, "choice_order": order})
        write(folder, f"{sid}.json", doc)
    out = tmp_path / "g.csv"
    proc = run_cli("grade", "--module", 6, "--submissions", folder, "--out", out, "--attempt-limit", 3)
    assert proc.returncode == 3, proc.stderr
    rows = {r["student_id"]: r for r in read_csv(out)}
    assert rows["A1"]["warnings"] == "" and rows["A2"]["warnings"] == "attempts_over_limit"
    [problem] = read_csv(problems_path_for(out))
    assert problem["file"] == "A2.json" and "5" in problem["reason"] and "3회" in problem["reason"]
    config = tmp_path / "_config.yml"
    config.write_text("title: t\nsphinx:\n  config:\n    course_settings:\n      attempt_limit: 4\n", encoding="utf-8")
    proc = run_cli("--config", config, "grade", "--module", 6, "--submissions", folder, "--out", out)
    assert proc.returncode == 3 and {r["student_id"]: r["warnings"] for r in read_csv(out)}["A2"] == "attempts_over_limit"
    assert run_cli("--config", config, "grade", "--module", 6, "--submissions", folder, "--out", out,
                   "--attempt-limit", 0).returncode == 0                        # 0 on the command line: no limit
    config.write_text("sphinx:\n  config:\n    course_settings:\n      attempt_limit: many\n", encoding="utf-8")
    bad = run_cli("--config", config, "grade", "--module", 6, "--submissions", folder, "--out", out)
    assert bad.returncode == 2 and "attempt_limit" in bad.stderr and "Traceback" not in bad.stderr
