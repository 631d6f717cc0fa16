"""The site's scripts (course/site/static/*.js): every one is added to the pages in a declared order, the quiz's
rules (quiz_rules.js) before the page code that reads them (quiz.js), and the rules stay free of the page."""
import re
import zlib

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


def test_the_built_pages_load_the_rules_before_the_page_code_each_by_its_own_checksum(site_dir):
    """The ?v= after a script is the checksum of the file the site holds: a browser that cached an earlier
    build's quiz.js or quiz_rules.js fetches it again instead of pairing it with the other file of this build."""
    page = (site_dir / "book" / "m06_tiling.html").read_text(encoding="utf-8")
    scripts = re.findall(r'<script[^>]+src="[./]*_static/course/([^"?]+)(?:\?v=([0-9a-f]+))?"', page)
    names = [name for name, _ in scripts]
    assert names.index("quiz_rules.js") < names.index("quiz.js"), names
    for name, version in scripts:
        built = (site_dir / "_static" / "course" / name).read_bytes().replace(b"\r", b"")
        assert version == f"{zlib.crc32(built):08x}", name
