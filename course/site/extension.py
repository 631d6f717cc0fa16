"""Sphinx extension of the course site (listed in _config.yml: sphinx.extra_extensions).

- registers the `course_settings` config value (gating policy, checkpoints' pass counts), merges it
  over the syllabus (course/syllabus.py: pages, gates, checkpoints) exactly as course.settings does,
  and writes the result into every page as `window.COURSE_SETTINGS`, for the quiz/gating script;
- checks every claim the chapters' text makes against the records (course.facts: claims functions), so
  a re-recording that contradicts a sentence stops the build instead of publishing it;
- adds the site's own scripts and styles (course/site/static/*.js|css, the bundled plotly.js) once per
  page, from _static/ — no CDN, so the site works offline; the scripts in the order SCRIPTS names
  (a script that uses another's global comes after it: quiz_rules.js before quiz.js);
- writes the site's index.html (a redirect to the first page) as a page of its own, with the
  book's language and a title: the bare redirect sphinx-external-toc writes has neither.
"""
from __future__ import annotations

import html
import importlib
import json
import shutil
from pathlib import Path

STATIC_SRC = Path(__file__).resolve().parent / "static"
# plotly.js core + the trace types the figures draw (scatter, bar, heatmap); built by
# tools/build_plotly_bundle.sh, license in book/_static/plotly-LICENSE.txt.
PLOTLY_BUNDLE = "plotly-course-3.4.0.min.js"

DEFAULT_SETTINGS = {"gating_policy": "strict"}


def _copy_course_static(app):
    """Copied before the pages are written (builder-inited), as Sphinx copies its own assets: each page's
    ?v= checksum is then that of the file it loads, so a browser never keeps a cached quiz.js or
    quiz_rules.js from an earlier build beside the other file of this one."""
    if app.builder.format != "html":
        return
    out = Path(app.outdir) / "_static" / "course"
    out.mkdir(parents=True, exist_ok=True)
    for path in STATIC_SRC.glob("*"):
        if path.suffix in {".js", ".css"}:
            shutil.copy2(path, out / path.name)


INDEX_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<meta http-equiv="Refresh" content="0; url={target}">
<link rel="canonical" href="{target}">
</head>
<body>
<p><a href="{target}">{title}: 첫 페이지로 가기</a></p>
</body>
</html>
"""


def index_page(title: str, target: str, language: str) -> str:
    """The site's index.html: a redirect to target that is still a page (language, title, a link)."""
    return INDEX_PAGE.format(lang=html.escape(language or "en"), title=html.escape(title),
                             target=html.escape(target))


def _write_index(app, exc=None):
    """Runs before sphinx-external-toc's own build-finished handler, which then leaves the file alone."""
    if exc is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    title = app.env.titles.get(app.config.root_doc)
    name = app.config.html_title or (title.astext() if title is not None else app.config.root_doc)
    target = app.builder.get_target_uri(app.config.root_doc)
    (Path(app.outdir) / "index.html").write_text(index_page(name, target, app.config.language), encoding="utf-8")


def _settings_script(app) -> str:
    from course.settings import settings_from_dict

    settings = settings_from_dict(app.config.course_settings or {}, source="_config.yml").as_site_dict()
    payload = json.dumps(settings, ensure_ascii=False).replace("<", "\\u003c")
    return f"window.COURSE_SETTINGS = {payload};"


# The site's scripts in load order: the site opens from file://, so they are classic scripts sharing globals,
# not ES modules. quiz.js (the page) reads window.CourseQuizRules (quiz_rules.js) while it loads;
# checkpoint_lock.js and unlock.js are looked up only when called, so their place is free.
SCRIPTS = ("a11y.js", "checkpoint_lock.js", "figures.js", "quiz_rules.js", "quiz.js", "unlock.js")


def script_order() -> tuple[str, ...]:
    """SCRIPTS, checked against the folder: a script there but not listed would never load, silently."""
    found = {path.name for path in STATIC_SRC.glob("*.js")}
    if found != set(SCRIPTS):
        from sphinx.errors import ExtensionError

        raise ExtensionError("course/site/static/*.js and course.site.extension.SCRIPTS differ: "
                             f"not listed {sorted(found - set(SCRIPTS))}, listed but missing {sorted(set(SCRIPTS) - found)}")
    return SCRIPTS


def _add_assets(app):
    app.add_js_file(None, body=_settings_script(app), priority=200)
    app.add_js_file(PLOTLY_BUNDLE, priority=210)
    for position, name in enumerate(script_order()):
        app.add_js_file(f"course/{name}", priority=220 + position)
    for path in sorted(STATIC_SRC.glob("*.css")):
        app.add_css_file(f"course/{path.name}", priority=220)


def _verify_claims(app):
    """Run every chapter's claims (course.facts.verify); any failure stops the build with the sentences."""
    from sphinx.errors import ExtensionError

    from course import syllabus
    from course.facts import verify

    failures, checked = [], 0
    reports = [verify(module.number) for module in syllabus.load()]
    reports.append(importlib.import_module("course.facts.models").f.verify())   # the appendix "하드웨어 모델"
    for report in reports:
        checked += report.checked
        failures += report.failures
    if failures:
        raise ExtensionError("기록과 맞지 않는 본문 주장(claims that contradict the records):\n  " + "\n  ".join(failures))
    from sphinx.util import logging

    logging.getLogger(__name__).info(f"course: {checked} claims of the chapters hold on the records")


def _drop_thebe(app, pagename, templatename, context, doctree):
    """Jupyter Book always loads sphinx-thebe, which declares THEBE_JS_URL twice (a console error)
    and points at a CDN. The course never launches Thebe, so its scripts are left out."""
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [s for s in scripts
                                   if "thebe" not in str(getattr(s, "filename", s) or "")
                                   and "THEBE" not in str(getattr(s, "attributes", {}).get("body", ""))]


def setup(app):
    from course.site import a11y

    a11y.setup(app)   # accessible names for myst-nb's hidden-code toggles
    app.add_config_value("course_settings", DEFAULT_SETTINGS, "html", types=[dict])
    app.connect("builder-inited", _add_assets)
    app.connect("builder-inited", _verify_claims)
    app.connect("builder-inited", _copy_course_static)
    app.connect("build-finished", _write_index, priority=400)
    app.connect("html-page-context", _drop_thebe, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
