"""`python -m course grade-code` on a folder as a Korean LMS download gives it: file and folder names
that are not UTF-8 (CP949), control and bidirectional characters in a name, a stray text file. The
file-reading stage needs no GPU (--no-gpu: compile and SASS only), so this runs anywhere."""
import csv
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STARTER = (REPO / "course" / "exercises" / "m04-e1" / "starter.cu").read_bytes()


def run_grade_code(folder, out):
    return subprocess.run([sys.executable, "-m", "course", "grade-code", "--exercise", "m04-e1", "--submissions",
                           str(folder), "--out", str(out), "--no-gpu", "--time-limit", "30"],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COURSE_EXERCISE_CPU_ONLY": "1"})


def read(path):
    raw = Path(path).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    text = raw.decode("utf-8-sig")                                        # strict UTF-8: no surrogate got through
    assert not re.search("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e]", text)
    return list(csv.DictReader(text.splitlines()))


def test_grade_code_lists_every_odd_name_and_writes_both_csvs(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    raw = os.fsencode(folder)
    with open(raw + b"/" + "홍길동.cu".encode("cp949"), "wb") as handle:      # a CP949 file name
        handle.write(STARTER)
    os.mkdir(raw + b"/" + "김철수".encode("cp949"))                            # a CP949 folder (the learner)
    with open(raw + b"/" + "김철수".encode("cp949") + b"/k\xff.cu", "wb") as handle:
        handle.write(STARTER)
    with open(raw + b"/" + "메모.txt".encode("cp949"), "wb") as handle:       # a stray text file
        handle.write(b"x")
    (folder / "ctl\x1b[2K\u202e.cu").write_bytes(STARTER)
    (folder / "empty\x07.cu").write_bytes(b"")
    out = tmp_path / "out.csv"
    proc = run_grade_code(folder, out)
    assert proc.returncode in (0, 3) and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert proc.returncode == 3
    rows = read(out)
    problems = read(tmp_path / "out_problems.csv")
    assert len(rows) == 3                                                      # every readable kernel checked
    files = {r["file"] for r in rows}
    assert "ctl\\x1b[2K\\u202e.cu" in files
    odd = {p["file"]: p for p in problems if p["kind"] == "odd_file_name"}
    assert set(odd) == files                                                   # each checked odd name is listed
    assert any("'홍길동.cu'" in p["reason"] for p in odd.values())
    assert any("'김철수/k" in p["reason"] or "UTF-8" in p["reason"] for p in odd.values())
    skipped = {p["kind"]: p for p in problems if p["outcome"] == "skipped"}
    assert set(skipped) == {"not_cuda_file", "empty"}
    assert "'메모.txt'" in skipped["not_cuda_file"]["reason"] and skipped["empty"]["file"] == "empty\\x07.cu"
    assert "\x1b" not in proc.stdout + proc.stderr
    assert re.search(r"문제\(problems\): 5건", proc.stdout), proc.stdout
