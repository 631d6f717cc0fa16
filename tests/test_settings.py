"""course.settings is the one place that reads and validates course_settings: the unlock keys, attempt_limit,
checkpoint_grading and unknown keys get Korean errors naming the key; course.quiz.unlock and the page
(as_site_dict) take their values from there."""
from __future__ import annotations

import pytest

from course.quiz import unlock
from course.settings import SettingsError, load_settings, load_unlock_settings, settings_from_dict


@pytest.fixture(scope="module")
def public_key():
    pytest.importorskip("cryptography")
    return unlock.public_key_text(unlock.generate_private_key())


def write_config(tmp_path, body: str, title: str = "책 제목"):
    path = tmp_path / "_config.yml"
    lines = "".join(f"      {line}\n" for line in body.splitlines())
    path.write_text(f"title: {title}\nsphinx:\n  config:\n    course_settings:\n{lines}", encoding="utf-8")
    return path


@pytest.mark.parametrize("raw, fragment", [
    ({"checkpoint_grading": "teacher"}, "checkpoint_grading는 page, instructor 중 하나"),
    ({"checkpoint_grading": "instructor"}, "gating_unlock: instructor"),          # strict + progress: nothing would open
    ({"gating_unlock": "teacher"}, "gating_unlock는 progress, instructor"),
    ({"lab_unlock": "always"}, "lab_unlock는 same, instructor"),
    ({"gating_unlock": "instructor"}, "unlock_public_key가 있어야"),
    ({"unlock_public_key": 42}, "unlock_public_key는 문자열"),
    ({"unlock_course_id": ["a"]}, "unlock_course_id는 문자열"),
    ({"unlock_course_id": "강좌\x1b[2K"}, "제어 문자"),
    ({"attempt_limit": "many"}, "attempt_limit는 0 이상"),
    ({"attempt_limit": -1}, "attempt_limit는 0 이상"),
    ({"attempt_limit": True}, "attempt_limit는 0 이상"),
    ({"checkpoint_gradng": "instructor"}, "checkpoint_gradng: 알 수 없는 설정 항목(unknown key)입니다. 'checkpoint_grading'"),
    ({"gating": "off"}, "gating: 알 수 없는 설정 항목"),
])
def test_a_bad_setting_is_a_korean_error_naming_its_key(raw, fragment):
    with pytest.raises(SettingsError) as caught:
        settings_from_dict(raw, source="_config.yml")
    assert fragment in str(caught.value) and str(caught.value).startswith("_config.yml: course_settings")


def test_every_key_has_its_default_and_reaches_the_page():
    s = settings_from_dict({})
    assert (s.gating_unlock, s.lab_unlock, s.unlock_public_key, s.attempt_limit, s.checkpoint_grading) == \
        ("progress", "same", "", 0, "page")
    assert not (s.site_by_code or s.lab_by_code or s.graded_by_instructor)
    site = s.as_site_dict()
    assert site["gating_unlock"] == "progress" and site["checkpoint_grading"] == "page"
    assert "unlock_public_key" not in site and "attempt_limit" not in site       # the page needs neither
    for policy in ("advisory", "off"):                                            # nothing gates on a pass there
        assert settings_from_dict({"checkpoint_grading": "instructor", "gating_policy": policy}).graded_by_instructor
    assert settings_from_dict({"attempt_limit": 5}).attempt_limit == 5


def test_instructor_grading_with_unlock_codes_and_the_site_is_told(public_key):
    s = settings_from_dict({"checkpoint_grading": "instructor", "gating_unlock": "instructor",
                            "unlock_public_key": public_key[:20] + "\n " + public_key[20:]}, title=" 책 ")
    assert s.graded_by_instructor and s.site_by_code and s.lab_by_code
    assert s.unlock_public_key == public_key and s.unlock_course == "책"          # whitespace out, title as course
    assert s.as_site_dict()["gating_unlock"] == "instructor" and s.as_site_dict()["checkpoint_grading"] == "instructor"
    with pytest.raises(SettingsError, match="unlock_public_key: .*SPKI"):
        settings_from_dict({"gating_unlock": "instructor", "unlock_public_key": "bm90IGEga2V5"})
    assert settings_from_dict({"lab_unlock": "instructor", "unlock_public_key": public_key}).lab_by_code


def test_course_unlock_reads_its_settings_from_course_settings(tmp_path, public_key):
    config = write_config(tmp_path, f"gating_unlock: instructor\nunlock_public_key: {public_key}\nattempt_limit: 4",
                          title="'GPU 강좌 '")
    loaded = load_unlock_settings(config)
    settings = load_settings(config)
    assert (loaded.mode, loaded.public_key, loaded.course) == (settings.gating_unlock, public_key, "GPU 강좌")
    assert loaded.site_by_code and settings.attempt_limit == 4
    from course.__main__ import _configured_attempt_limit

    assert _configured_attempt_limit(config) == 4
    named = write_config(tmp_path, f"gating_unlock: instructor\nunlock_public_key: {public_key}\n"
                                   "unlock_course_id: 2026-2 GPU")
    assert load_unlock_settings(named).course == "2026-2 GPU"
    # one validator: a wrong key anywhere in course_settings stops the unlock tools too
    broken = write_config(tmp_path, "checkpoint_grading: sometimes")
    with pytest.raises(SettingsError, match="checkpoint_grading"):
        load_unlock_settings(broken)
    with pytest.raises(SettingsError, match="checkpoint_grading"):
        _configured_attempt_limit(broken)


def test_the_repository_config_is_valid_and_grades_on_the_page():
    s = load_settings()
    assert s.checkpoint_grading == "page" and s.gating_unlock in ("progress", "instructor")
