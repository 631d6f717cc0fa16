"""The site's scripts (course/site/static/*.js): every one is added to the pages in a declared order, the quiz's
rules (quiz_rules.js) before the page code that reads them (quiz.js), and the rules stay free of the page."""
import re

import pytest

from conftest import REPO
from course.site import extension

STATIC = REPO / "course" / "site" / "static"


def test_every_script_is_listed_once_and_the_rules_load_before_the_page():
    order = extension.script_order()
    assert sorted(order) == sorted(p.name for p in STATIC.glob("*.js")) and len(set(order)) == len(order)
    assert order.index("quiz_rules.js") < order.index("quiz.js")


def test_a_script_left_out_of_the_order_stops_the_build(tmp_path, monkeypatch):
    from sphinx.errors import ExtensionError

    for name in extension.SCRIPTS + ("extra.js",):
        (tmp_path / name).write_text("", encoding="utf-8")
    monkeypatch.setattr(extension, "STATIC_SRC", tmp_path)
    with pytest.raises(ExtensionError, match="extra.js"):
        extension.script_order()


def test_the_rules_touch_no_page_and_no_storage():
    """quiz_rules.js runs under Node without a document (tests/test_quiz_js.py); the page's parts stay in quiz.js."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", (STATIC / "quiz_rules.js").read_text(encoding="utf-8"), flags=re.S)
    for word in ("document", "localStorage", "addEventListener", "querySelector", "createElement"):
        assert word not in code, word
    assert "CourseQuizRules" in (STATIC / "quiz.js").read_text(encoding="utf-8")


def test_the_built_pages_load_the_rules_before_the_page_code(site_dir):
    page = (site_dir / "book" / "m06_tiling.html").read_text(encoding="utf-8")
    scripts = re.findall(r'<script[^>]+src="([^"]+)"', page)
    names = [s.split("?")[0].rsplit("/", 1)[-1] for s in scripts]
    assert names.index("quiz_rules.js") < names.index("quiz.js"), names
