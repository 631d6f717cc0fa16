"""Gating decisions (course.gating) and course settings (course.settings)."""
import copy

import pytest

from course import gating
from course.gating import decide, gate, gate_marker_html, lab_banner_html
from course.quiz.progress import ProgressStore
from course.settings import default_settings, SettingsError, load_settings, settings_from_dict


def settings_with(policy):
    raw = default_settings()
    raw["gating_policy"] = policy
    return settings_from_dict(raw)


@pytest.mark.parametrize("policy,best,locked,banner,passed", [
    ("strict", None, True, True, False),
    ("strict", 5, True, True, False),
    ("strict", 6, False, False, True),
    ("strict", 8, False, False, True),
    ("advisory", None, False, True, False),
    ("advisory", 5, False, True, False),
    ("advisory", 6, False, False, True),
    ("off", None, False, False, True),
    ("off", 2, False, False, True),
])
def test_decision_table_for_module_7(policy, best, locked, banner, passed):
    decision = decide(7, settings_with(policy), best)
    assert (decision.locked, decision.show_banner, decision.passed) == (locked, banner, passed)
    assert decision.requires == 6
    if policy != "off":
        assert decision.rule == "6/8" and decision.page == "m06_tiling"


def test_final_checkpoint_gates_module_10():
    decision = decide(10, settings_with("strict"), 7)
    assert decision.requires == 9 and decision.locked and decision.rule == "8/10"
    assert not decide(10, settings_with("strict"), 8).locked


def test_ungated_module_is_never_locked():
    from course import syllabus

    ungated = [m.number for m in syllabus.load() if m.gate is None]
    assert ungated == [4, 5, 6, 8, 9, 12]          # module 12: a bonus no checkpoint gates
    for module in ungated:
        decision = decide(module, settings_with("strict"), None)
        assert decision.requires is None and not decision.locked and not decision.show_banner


def test_pass_count_is_read_from_settings():
    raw = default_settings()
    raw["checkpoints"]["6"]["pass_count"] = 7
    assert decide(7, settings_from_dict(raw), 6).locked


def test_marker_html():
    assert gate_marker_html(7, 6) == '<div class="course-gate" data-module="7" data-requires="6"></div>'
    assert gate_marker_html(5, None) == ""


def test_gate_in_static_mode_returns_the_marker(monkeypatch):
    monkeypatch.setenv("COURSE_STATIC", "1")
    shown = gate(7, settings_with("strict"))
    assert shown._repr_html_() == '<div class="course-gate" data-module="7" data-requires="6"></div>'


@pytest.fixture
def displayed(monkeypatch):
    pytest.importorskip("IPython")
    import IPython.display
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    monkeypatch.delenv("COURSE_STATIC", raising=False)
    monkeypatch.setattr(gating, "_static_mode", lambda: False)
    return shown


def _store_with_best(tmp_path, correct):
    store = ProgressStore(tmp_path)
    if correct is not None:
        store.add_attempt({"module": 6, "time": "2026-11-22T10:00:00.000Z", "answers": {}, "results": {},
                           "score": float(correct), "max_score": 8, "correct_count": correct, "passed": correct >= 6})
    return store


def test_lab_banner_strict_says_cells_cannot_be_hidden(displayed, tmp_path):
    assert gate(7, settings_with("strict"), _store_with_best(tmp_path, 4)) is None
    text = displayed[0]
    assert "strict" in text and "셀을 숨길 수 없" in text and 'href="m06_tiling.ipynb"' in text   # no sibling here
    assert "6/8" in text and "최고 4문항" in text


def test_lab_banner_advisory_and_passed_and_off(displayed, tmp_path):
    gate(7, settings_with("advisory"), _store_with_best(tmp_path / "a", None))
    assert "advisory" in displayed[-1] and "응시 기록이 없습니다" in displayed[-1]
    gate(7, settings_with("strict"), _store_with_best(tmp_path / "b", 7))
    assert "통과했습니다" in displayed[-1]
    count = len(displayed)
    gate(7, settings_with("off"), _store_with_best(tmp_path / "c", None))
    assert len(displayed) == count


def test_lab_banner_text_is_empty_for_ungated():
    assert lab_banner_html(decide(5, settings_with("strict"), None), None) == ""


# ---------------------------------------------------------------- settings

def test_settings_from_the_repository_config():
    s = load_settings()
    assert s.gating_policy in ("strict", "advisory", "off")
    assert s.checkpoint(6).rule_text == "6/8" and s.checkpoint(9).rule_text == "8/10"
    assert s.required_module(7) == 6 and s.page(6) == "m06_tiling"


def test_settings_from_an_explicit_file(tmp_path):
    path = tmp_path / "_config.yml"
    path.write_text("sphinx:\n  config:\n    course_settings:\n      gating_policy: advisory\n"
                    "      checkpoints: {'6': {pass_count: 7, question_count: 8, title: T}}\n", encoding="utf-8")
    s = load_settings(path)
    assert s.gating_policy == "advisory" and s.checkpoint(6).pass_count == 7


def test_config_holds_only_what_an_instructor_sets():
    """_config.yml restates no structure: pages and gates are the syllabus's, checkpoints only override pass rules."""
    import yaml

    from conftest import REPO
    from course import syllabus

    raw = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))["sphinx"]["config"]["course_settings"]
    from course.settings import KNOWN_KEYS, STRUCTURE_KEYS

    assert set(raw) <= set(KNOWN_KEYS) - set(STRUCTURE_KEYS), set(raw)   # structure is the syllabus's
    course = syllabus.load()
    assert {int(k) for k in raw.get("checkpoints", {})} <= set(course.checkpoints())
    for key, rule in raw.get("checkpoints", {}).items():
        assert "question_count" not in rule or rule["question_count"] == course.checkpoints()[int(key)].question_count
    s = load_settings(REPO / "_config.yml")
    assert s.pages == course.pages() and s.gates == course.gates()


@pytest.mark.parametrize("change,fragment", [
    (lambda r: r.update(gating_policy="sometimes"), "gating_policy"),
    (lambda r: r["checkpoints"]["6"].update(pass_count=9), "pass_count"),
    (lambda r: r["checkpoints"]["6"].update(pass_count=0), "pass_count"),
    (lambda r: r["gates"].update({"8": "7"}), "gates: 모듈의 문서와 잠금은"),
    (lambda r: r["pages"].update({"4": ""}), "pages: 모듈의 문서와 잠금은"),
    (lambda r: r["checkpoints"].update({"7": {"pass_count": 1}}), "모듈 7에는 체크포인트가 없습니다"),
    (lambda r: r["checkpoints"]["9"].update(question_count=12), "문항 수는 10"),
    (lambda r: r.update(checkpoints=[6]), "checkpoints는 매핑"),
])
def test_invalid_settings_are_rejected(change, fragment):
    raw = default_settings()
    change(raw)
    with pytest.raises(SettingsError, match=fragment):
        settings_from_dict(raw)


def test_config_without_course_settings(tmp_path):
    path = tmp_path / "_config.yml"
    path.write_text("title: x\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="course_settings"):
        load_settings(path)
