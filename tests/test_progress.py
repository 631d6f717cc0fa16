"""The progress store (course.quiz.progress): atomic, locked, recoverable, never loses attempts."""
import json
import multiprocessing
import os
from pathlib import Path

import pytest

from course.quiz.bank import load_bank
from course.quiz.grading import grade_quiz
from course.quiz.progress import DATA_ENV, SCHEMA_VERSION, ProgressReadOnlyError, ProgressStore

FIXTURES = Path(__file__).parent / "fixtures" / "banks"
BANK = load_bank(6, FIXTURES)


def result_with(correct_single: bool):
    answers = {"m06-q01": "b" if correct_single else "a", "m06-q03": "8192"}
    return answers, grade_quiz(BANK.questions, answers, {}, pass_count=6)


def record(store, correct_single=True, when="2026-11-22T10:00:00.000Z"):
    answers, result = result_with(correct_single)
    return store.record_attempt(6, answers, result, submitted_at=when)


def test_record_and_reload(tmp_path):
    store = ProgressStore(tmp_path)
    first = record(store, False, "2026-11-22T10:00:00.000Z")
    second = record(store, True, "2026-11-22T11:00:00.000Z")
    fresh = ProgressStore(tmp_path)
    attempts = fresh.attempts(6)
    assert [a["id"] for a in attempts] == [first["id"], second["id"]]
    assert attempts[1]["results"]["m06-q01"] == {"status": "correct", "score": 1.0}
    assert fresh.best(6)["attempt_id"] == second["id"] and fresh.best_correct_count(6) == 2
    state = json.loads((tmp_path / "progress.json").read_text(encoding="utf-8"))
    assert state["schema_version"] == SCHEMA_VERSION and state["best"]["6"]["correct_count"] == 2
    assert fresh.notices == []


def test_backup_holds_the_previous_good_file(tmp_path):
    store = ProgressStore(tmp_path)
    record(store)
    before = (tmp_path / "progress.json").read_bytes()
    record(store)
    assert (tmp_path / "progress.json.bak").read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


def test_data_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "elsewhere"))
    store = ProgressStore()
    record(store)
    assert (tmp_path / "elsewhere" / "progress.json").exists()


def test_empty_when_nothing_stored(tmp_path):
    store = ProgressStore(tmp_path / "missing")
    assert store.attempts() == [] and store.best(6) is None and store.student() == {"id": "", "name": ""}
    assert not (tmp_path / "missing").exists()


def _writer(args):
    directory, worker, count = args
    store = ProgressStore(directory)
    for i in range(count):
        answers, result = result_with(i % 2 == 0)
        store.add_attempt({"id": f"w{worker}-{i}", "module": 6, "time": f"2026-11-22T10:{worker:02d}:{i:02d}.000Z",
                           "answers": answers, "results": {}, "score": result.score,
                           "max_score": result.max_score, "correct_count": result.correct_count,
                           "passed": result.passed})
    return count


def test_concurrent_writers_lose_nothing(tmp_path):
    workers, each = 6, 12
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with context.Pool(workers) as pool:
        assert sum(pool.map(_writer, [(str(tmp_path), w, each) for w in range(workers)])) == workers * each
    ids = {a["id"] for a in ProgressStore(tmp_path).attempts()}
    assert ids == {f"w{w}-{i}" for w in range(workers) for i in range(each)}
    assert not list(tmp_path.glob("progress.json.corrupt-*"))


def test_truncated_file_is_set_aside_and_recovered(tmp_path):
    store = ProgressStore(tmp_path)
    kept = [record(store)["id"] for _ in range(3)]
    path = tmp_path / "progress.json"
    damaged = path.read_bytes()[: len(path.read_bytes()) // 2]
    path.write_bytes(damaged)
    fresh = ProgressStore(tmp_path)
    ids = [a["id"] for a in fresh.attempts()]
    assert kept[:2] == ids[:2]                      # the backup had the first two
    aside = list(tmp_path.glob("progress.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == damaged
    assert fresh.notices and "progress.json.corrupt-" in fresh.notices[0]
    record(fresh)                                     # the store keeps working
    assert len(ProgressStore(tmp_path).attempts()) == len(ids) + 1


def test_slightly_truncated_file_keeps_even_the_newest_attempt(tmp_path):
    store = ProgressStore(tmp_path)
    kept = [record(store)["id"] for _ in range(3)]
    path = tmp_path / "progress.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index('"best"')], encoding="utf-8")   # cut after the attempts
    assert [a["id"] for a in ProgressStore(tmp_path).attempts()] == kept


def test_hand_edited_invalid_file_keeps_the_good_attempts(tmp_path):
    store = ProgressStore(tmp_path)
    good = [record(store)["id"] for _ in range(3)]
    path = tmp_path / "progress.json"
    state = json.loads(path.read_text(encoding="utf-8"))
    state["attempts"][1]["score"] = "a lot"          # hand edit that breaks one attempt
    path.write_text(json.dumps(state), encoding="utf-8")
    fresh = ProgressStore(tmp_path)
    ids = [a["id"] for a in fresh.attempts()]
    assert good[0] in ids and good[2] in ids         # salvaged from the edited file
    assert good[1] in ids                            # the unedited copy came from the backup
    assert all(isinstance(a["score"], (int, float)) for a in fresh.attempts())
    assert len(list(tmp_path.glob("progress.json.corrupt-*"))) == 1


def test_garbage_without_backup_starts_fresh_but_keeps_the_file(tmp_path):
    (tmp_path / "progress.json").write_text("not json at all", encoding="utf-8")
    store = ProgressStore(tmp_path)
    assert store.attempts() == []
    aside = list(tmp_path.glob("progress.json.corrupt-*"))
    assert aside and aside[0].read_text(encoding="utf-8") == "not json at all"


def test_missing_file_is_restored_from_backup(tmp_path):
    store = ProgressStore(tmp_path)
    ids = [record(store)["id"] for _ in range(2)]
    os.remove(tmp_path / "progress.json")
    fresh = ProgressStore(tmp_path)
    assert [a["id"] for a in fresh.attempts()] == ids[:1] and fresh.notices


def test_newer_schema_is_read_only_and_untouched(tmp_path):
    path = tmp_path / "progress.json"
    future = {"schema": "sgemm-course-progress", "schema_version": SCHEMA_VERSION + 1, "attempts": [],
              "new_field": {"from": "the future"}}
    path.write_text(json.dumps(future), encoding="utf-8")
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    store = ProgressStore(tmp_path)
    assert store.attempts() == []
    assert store.read_only and "읽기 전용" in store.notices[0]
    with pytest.raises(ProgressReadOnlyError, match="schema_version 2"):
        record(store)
    with pytest.raises(ProgressReadOnlyError):
        store.set_student("1", "x")
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert not (tmp_path / "progress.json.bak").exists()
    assert not list(tmp_path.glob("progress.json.corrupt-*"))


def test_student_is_stored(tmp_path):
    store = ProgressStore(tmp_path)
    store.set_student(" 2026001 ", "김하나")
    assert ProgressStore(tmp_path).student() == {"id": "2026001", "name": "김하나"}


def test_add_attempt_rejects_incomplete_records(tmp_path):
    with pytest.raises(ValueError):
        ProgressStore(tmp_path).add_attempt({"module": 6})


@pytest.mark.parametrize("content", [
    '{"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [' + "[" * 1000 + "]" * 1000 + "]}",
    "[" * 100000 + "]" * 100000,
    '{"schema": "sgemm-course-progress", "schema_version": 1, "attempts": [], "student": '
    + '{"a": ' * 900 + "1" + "}" * 900 + "}",
    "[1, 2, 3]", '"progress"', "42", "null", '{"schema": "sgemm-course-progress", "schema_version": 1}',
])
def test_a_progress_file_of_any_shape_is_set_aside_and_rebuilt(tmp_path, content):
    """Whatever the file holds (nested a thousand deep, a list, a bare string), loading recovers."""
    store = ProgressStore(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    store.path.write_text(content, encoding="utf-8")
    state = store.load()
    assert state["attempts"] == [] and state["schema"] == "sgemm-course-progress"
    assert store.notices and any(p.name.startswith("progress.json.corrupt-") for p in tmp_path.iterdir())
    record(store, correct_single=True)                        # and it works from then on
    assert len(ProgressStore(tmp_path).attempts(6)) == 1


def test_an_attempt_submitted_but_never_recorded_still_counts(tmp_path):
    store = ProgressStore(tmp_path)
    assert store.next_attempt_number(6) == 1
    store.note_attempt(6, 1)
    assert store.next_attempt_number(6) == 2 and store.attempts(6) == []
    store.note_attempt(6, 1)                                   # idempotent
    assert store.next_attempt_number(6) == 2 and store.next_attempt_number(9) == 1
    raw = json.loads(store.path.read_text(encoding="utf-8"))
    raw["attempt_numbers"] = {"6": "many"}                     # a damaged counter: the file is recovered
    store.path.write_text(json.dumps(raw), encoding="utf-8")
    fresh = ProgressStore(tmp_path)
    assert fresh.next_attempt_number(6) >= 1 and fresh.notices
