"""Instructor-signed unlock codes (course.quiz.unlock, course.gating.unlock, course/site/static/unlock.js): the CLI
round trip, codes that fail for another student, module, course or key, the same message and
normalisation in Python and JavaScript, JupyterLab's gate opening only with a verified code, and the
gate marker that hands the public key to the page."""
import csv
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cryptography")

from course import gating  # noqa: E402
from course.instructor import unlock_codes  # noqa: E402
from course.quiz import unlock  # noqa: E402
from course.quiz.progress import ProgressStore  # noqa: E402
from course.settings import SettingsError, default_settings, settings_from_dict, unlock_settings_from  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
COURSE = "GPU 행렬 곱셈 최적화"


def cli(*args, config=None):
    """`python -m course unlock ...` in this process (as the CLI runs it: main(argv)); keygen runs it as a subprocess."""
    import contextlib
    import io

    from course.__main__ import main

    argv = [*(["--config", str(config)] if config else []), "unlock", *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def cli_process(*args):
    command = [sys.executable, "-m", "course", "unlock", *map(str, args)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)


def config_file(folder, public_key, mode="instructor", extra=""):
    path = folder / "_config.yml"
    path.write_text(f'title: "{COURSE}"\nsphinx:\n  config:\n    course_settings:\n      gating_unlock: {mode}\n'
                    f"      unlock_public_key: {public_key}\n{extra}", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """One key pair made by the CLI (keygen is the slow part: made once)."""
    folder = tmp_path_factory.mktemp("keys")
    proc = cli_process("keygen", "--out", folder)                          # the real command line, once
    assert proc.returncode == 0, proc.stderr
    line = next(x.strip() for x in proc.stdout.splitlines() if x.strip().startswith("unlock_public_key:"))
    public = line.split(":", 1)[1].strip()
    return folder / unlock_codes.KEY_FILE, public, proc


def test_keygen_keeps_the_private_key_private_and_prints_the_config_line(keys, tmp_path):
    private, public, proc = keys
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert "gating_unlock: instructor" in proc.stdout and public in (private.parent / unlock_codes.PUBLIC_FILE).read_text()
    assert unlock.public_key_text(unlock.load_private_key(private)) == public
    again = cli("keygen", "--out", private.parent)
    assert again.returncode == 2 and "--force" in again.stderr                     # never replaced by accident
    inside = cli("keygen", "--out", REPO / "_build" / "keys")
    assert inside.returncode == 2 and "저장소" in inside.stderr and not (REPO / "_build" / "keys").exists()


def test_cli_round_trip_and_every_way_a_code_fails(keys, tmp_path):
    private, public, _ = keys
    config = config_file(tmp_path, public)
    made = cli("code", "--key", private, "--module", 6, "--student", "20261234", "--student", " 2026\u00a05678 ",
               config=config)
    assert made.returncode == 0, made.stderr
    codes = dict(line.split("\t") for line in made.stdout.splitlines())
    assert set(codes) == {"20261234", "2026\u00a05678"} and all(c.startswith("U6-") for c in codes.values())
    code = codes["20261234"]
    assert cli("verify", "--module", 6, "--student", "20261234", "--code", code, config=config).returncode == 0
    assert cli("verify", "--module", 6, "--student", " 20261234\n", "--code", " " + code[:40] + "\n" + code[40:],
               config=config).returncode == 0                                     # pasted with spaces and a break
    tampered = code[:-2] + ("A" if code[-2] != "A" else "B") + code[-1]
    for student, module, text in (("20261234", 6, tampered), ("20261235", 6, code), ("2026\u00a05678", 6, code),
                                  ("20261234", 9, code), ("20261234", 6, "U6-" + "A" * 86), ("20261234", 6, "hello")):
        proc = cli("verify", "--module", module, "--student", student, "--code", text, config=config)
        assert proc.returncode == 1 and "틀림" in proc.stdout, (student, module, text)
    other = unlock.generate_private_key()
    wrong_key = cli("verify", "--module", 6, "--student", "20261234", "--code", code, "--public-key",
                    unlock.public_key_text(other), config=config)
    assert wrong_key.returncode == 1
    (tmp_path / "other").mkdir()
    renamed = config_file(tmp_path / "other", public, extra='      unlock_course_id: "다른 강좌"\n')
    assert cli("verify", "--module", 6, "--student", "20261234", "--code", code, config=renamed).returncode == 1


def test_codes_for_a_roster_csv_in_cp949_with_a_bad_id(keys, tmp_path):
    private, public, _ = keys
    config = config_file(tmp_path, public)
    roster = tmp_path / "roster.csv"
    roster.write_bytes("학번,이름\n20261234,홍길동\n=cmd,나쁜\nbad\x07id,제어\n\n".encode("cp949"))
    out = tmp_path / "codes.csv"
    proc = cli("code", "--key", private, "--module", 9, "--roster", roster, "--out", out, config=config)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr and "코드를 만들지 못함" in proc.stderr
    with open(out, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["name"] for r in rows] == ["홍길동", "나쁜", "제어"]
    assert rows[0]["code"].startswith("U9-") and rows[1]["student_id"] == "'=cmd" and rows[1]["code"].startswith("U9-")
    assert rows[2]["code"] == "" and "제어 문자" in rows[2]["problem"]
    checked = cli("verify", "--codes", out, config=config)
    assert checked.returncode == 0 and "맞지 않는 코드 0개" in checked.stdout      # the CSV for the LMS verifies


def test_codes_are_made_for_a_checkpoint_not_for_the_chapter_it_locks(keys, tmp_path):
    private, public, _ = keys
    proc = cli("code", "--key", private, "--module", 7, "--student", "A1", config=config_file(tmp_path, public))
    assert proc.returncode == 2 and "모듈 6 체크포인트의 코드로 열립니다" in proc.stderr and "U7-" not in proc.stdout


def test_settings_need_a_valid_key_for_instructor_mode():
    with pytest.raises(SettingsError, match="unlock_public_key"):
        unlock_settings_from({"gating_unlock": "instructor"}, "t")
    with pytest.raises(SettingsError, match="unlock_public_key"):
        unlock_settings_from({"lab_unlock": "instructor"}, "t")
    with pytest.raises(SettingsError, match="SPKI"):
        unlock_settings_from({"gating_unlock": "instructor", "unlock_public_key": "bm90IGEga2V5"}, "t")
    with pytest.raises(SettingsError, match="gating_unlock"):
        unlock_settings_from({"gating_unlock": "teacher"}, "t")
    s = unlock_settings_from({}, " 강좌 ")
    assert (s.mode, s.lab, s.course, s.site_by_code, s.lab_by_code) == ("progress", "same", "강좌", False, False)


# ---------------------------------------------------------------- JavaScript: the same message, the same verdicts

NODE_SCRIPT = r"""
const api = require(process.argv[2]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
Promise.all(cases.map(c => api.verify(c.key, c.course, c.module, c.student, c.code)))
  .then(results => console.log(JSON.stringify({
    results, messages: cases.map(c => api.message(c.course, c.module, c.student)),
    modules: cases.map(c => api.codeModule(c.code)) })));
"""


URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def spare_bit_flipped(last: str) -> str:
    """The code's last character with a bit that carries no signature bit flipped (86 characters hold 516
    bits for 512): a lenient base64 decoder reads the same signature from it."""
    return URL_ALPHABET[URL_ALPHABET.index(last) ^ 1]


def test_javascript_verifies_what_python_signs_and_nothing_else(keys, tmp_path):
    node = pytest.importorskip("shutil").which("node")
    if not node:
        pytest.skip("node가 없습니다 (no node)")
    private, public, _ = keys
    key = unlock.load_private_key(private)
    other = unlock.public_key_text(unlock.generate_private_key())
    nfd = "\u1112\u1169\u11bc\u1100\u1175\u11af\u1103\u1169\u11bc"                   # 홍길동 in NFD (macOS)
    good = [(COURSE, 6, "20261234"), (" " + COURSE + "\u3000", 9, "A-17"), (COURSE, 6, nfd), (COURSE, 6, "\ufeffab\u2003")]
    cases, want = [], []
    for course, module, student in good:
        code = unlock.make_code(key, course, module, student)
        cases.append(dict(key=public, course=course, module=module, student=student, code=code))
        want.append(True)
        assert unlock.verify_code(public, course, module, student, code)
    code = cases[0]["code"]
    bad = [dict(cases[0], student="20261235"), dict(cases[0], module=9), dict(cases[0], course="x"),
           dict(cases[0], key=other), dict(cases[0], code=code[:-1] + spare_bit_flipped(code[-1])),
               dict(cases[0], code=code[:40] + ("A" if code[40] != "A" else "B") + code[41:]),
           dict(cases[0], code="U6-" + "A" * 86), dict(cases[0], code="'" + code + "=")]
    cases += bad
    want += [False] * 7 + [True]                                                    # a spreadsheet's apostrophe is fine
    for case, ok in zip(bad, want[len(good):]):
        assert unlock.verify_code(case["key"], case["course"], case["module"], case["student"], case["code"]) == ok
    script = tmp_path / "run.js"
    script.write_text(NODE_SCRIPT, encoding="utf-8")
    proc = subprocess.run([node, str(script), str(REPO / "course" / "site" / "static" / "unlock.js")], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["results"] == want
    for case, text in zip(cases, out["messages"]):
        assert text.encode("utf-8") == unlock.message(case["course"], case["module"], case["student"])
    assert out["modules"][:4] == [6, 9, 6, 6]


# ---------------------------------------------------------------- JupyterLab: course.gating.unlock and the banner

@pytest.fixture
def displayed(monkeypatch):
    pytest.importorskip("IPython")
    import IPython.display
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    monkeypatch.setattr(gating, "_static_mode", lambda: False)
    monkeypatch.setattr(gating, "_SESSION_CODES", {})
    return shown


def strict():
    return settings_from_dict(dict(default_settings(), gating_policy="strict"))


def passed_store(folder):
    store = ProgressStore(folder)
    store.add_attempt({"module": 6, "time": "2026-11-22T10:00:00.000Z", "answers": {}, "results": {},
                       "score": 8.0, "max_score": 8, "correct_count": 8, "passed": True})
    return store


def test_lab_gate_opens_only_with_a_verified_code(keys, tmp_path, displayed):
    private, public, _ = keys
    by_code = unlock_settings_from({"gating_unlock": "instructor", "unlock_public_key": public}, COURSE)
    store = passed_store(tmp_path)                                         # the checkpoint passed locally
    gating.gate(7, strict(), store, by_code)
    assert "잠금 해제 코드" in displayed[-1] and 'course.gating.unlock("학번", "코드")' in displayed[-1]
    assert "열었습니다" not in displayed[-1]                                  # passing alone opens nothing
    code = unlock.make_code(unlock.load_private_key(private), COURSE, 6, "20261234")
    assert not gating.unlock("20261235", code, settings=strict(), store=store, unlock_settings=by_code)
    assert "맞지 않습니다" in displayed[-1]
    assert gating.unlock(" 20261234 ", code, settings=strict(), store=store, unlock_settings=by_code)
    assert "모듈 7" in displayed[-1] and store.unlock_codes()["6"]["student"] == "20261234"
    gating._SESSION_CODES.clear()                                           # a new session reads the progress file
    gating.gate(7, strict(), store, by_code)
    assert "코드(unlock code)로 열었습니다 (학번 20261234)" in displayed[-1]
    state = json.loads(store.path.read_text(encoding="utf-8"))
    state["unlock_codes"]["6"]["student"] = "99999999"                       # a hand-edited file opens nothing
    store.path.write_text(json.dumps(state), encoding="utf-8")
    gating.gate(7, strict(), store, by_code)
    assert "열었습니다" not in displayed[-1]


def test_lab_unlock_instructor_ignores_local_progress(keys, tmp_path, displayed):
    _, public, _ = keys
    code_only_in_lab = unlock_settings_from({"lab_unlock": "instructor", "unlock_public_key": public}, COURSE)
    assert not code_only_in_lab.site_by_code and code_only_in_lab.lab_by_code
    gating.gate(7, strict(), passed_store(tmp_path), code_only_in_lab)
    assert "잠금 해제 코드" in displayed[-1] and "통과했습니다" not in displayed[-1]
    gating.gate(7, strict(), passed_store(tmp_path / "b"), unlock_settings_from({}, COURSE))
    assert "통과했습니다" in displayed[-1]                                      # progress mode: as before


def test_static_marker_carries_the_key_only_in_instructor_mode(keys, monkeypatch):
    _, public, _ = keys
    monkeypatch.setenv("COURSE_STATIC", "1")
    by_code = unlock_settings_from({"gating_unlock": "instructor", "unlock_public_key": public}, 'A "B" <C>')
    marker = gating.gate(7, strict(), unlock_settings=by_code)._repr_html_()
    assert 'data-unlock="instructor"' in marker and f'data-unlock-key="{public}"' in marker
    assert 'data-unlock-course="A &quot;B&quot; &lt;C&gt;"' in marker
    plain = gating.gate(7, strict(), unlock_settings=unlock_settings_from({"lab_unlock": "instructor",
                                                                                  "unlock_public_key": public}, "x"))
    assert plain._repr_html_() == '<div class="course-gate" data-module="7" data-requires="6"></div>'


def test_banner_links_to_the_sibling_notebook(tmp_path, monkeypatch):
    assert gating.checkpoint_link("m06_tiling", tmp_path) == "m06_tiling.ipynb"
    (tmp_path / "m06_tiling.md").write_text("x", encoding="utf-8")
    assert gating.checkpoint_link("m06_tiling", tmp_path) == "m06_tiling.md"        # the repository's MyST page
    (tmp_path / "m06_tiling.ipynb").write_text("{}", encoding="utf-8")
    assert gating.checkpoint_link("m06_tiling", tmp_path) == "m06_tiling.ipynb"     # an exported notebook folder
    monkeypatch.setenv("COLAB_RELEASE_TAG", "x")
    from course.notebook import export as notebook_export

    monkeypatch.setattr(notebook_export, "load_settings",
                        lambda: notebook_export.Settings(repo_url="https://github.com/o/r", branch="main", site_url=""))
    assert gating.checkpoint_link("m06_tiling", tmp_path / "nothing") == \
        "https://colab.research.google.com/github/o/r/blob/main/notebooks/m06_tiling.ipynb"
    decision = gating.decide(7, strict(), None)
    banner = gating.lab_banner_html(decision, None, "m06_tiling.ipynb")
    assert 'href="m06_tiling.ipynb"' in banner and ".md" not in banner


def test_codes_for_the_students_a_gradebook_says_passed(keys, tmp_path):
    private, public, _ = keys
    config = config_file(tmp_path, public)
    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text('\ufeff"student_id","student_name","module","passed"\n"A1","가",6,"yes"\n"B2","나",6,"no"\n'
                         '"\'-C3","다",6,"yes"\n"D4","라",6,"pending"\n', encoding="utf-8")
    out = tmp_path / "codes.csv"
    proc = cli("code", "--key", private, "--module", 6, "--roster", gradebook, "--passed-only", "--out", out,
               config=config)
    assert proc.returncode == 0, proc.stderr
    with open(out, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["student_id"], r["name"]) for r in rows] == [("A1", "가"), ("'-C3", "다")]
    assert unlock.verify_code(public, COURSE, 6, "-C3", rows[1]["code"])      # the id without the CSV's apostrophe
    plain = tmp_path / "plain.csv"
    plain.write_text("student_id\nA1\n", encoding="utf-8")
    refused = cli("code", "--key", private, "--module", 6, "--roster", plain, "--passed-only", config=config)
    assert refused.returncode == 2 and "passed" in refused.stderr
