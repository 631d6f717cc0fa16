"""Sphinx extension: a "Colab에서 열기" link on every page that has a notebook in notebooks/.

The notebooks (tools/export_notebooks.py, ``make notebooks``) are committed, so Colab can open them straight
from GitHub: https://colab.research.google.com/github/<owner>/<repo>/blob/<branch>/notebooks/<name>.ipynb.
The link needs the repository, which _config.yml names under ``repository: url`` (and ``branch``); Jupyter
Book passes both to the theme as ``repository_url`` / ``repository_branch``. Without a GitHub URL there, no
page gets a link (never a broken one). sphinx-book-theme's own Colab launch button is not used: it points at
the page's source file (book/*.md), which Colab cannot open.
"""
from __future__ import annotations

import html
from functools import lru_cache

# Jupyter Book's default repository (its own), which it fills in when _config.yml names none.
JUPYTER_BOOK_DEFAULT = "https://github.com/executablebooks/jupyter-book"
LINK_TEXT = "Colab에서 열기"


def _settings(app):
    from course.notebook.export import Settings

    options = app.config.html_theme_options or {}
    url = str(options.get("repository_url") or "").strip()
    if url.rstrip("/") == JUPYTER_BOOK_DEFAULT:
        url = ""
    return Settings(repo_url=url, branch=str(options.get("repository_branch") or "main").strip() or "main")


def page_links(settings) -> dict:
    """{docname: Colab URL} for every page written as a notebook; empty without a GitHub repository."""
    from course.notebook.export import REPO, chapters, docname

    if settings.github is None:
        return {}
    return {docname(path): settings.colab_url(path.stem) for path in chapters() if path.is_relative_to(REPO)}


def link_html(url: str) -> str:
    return (f'<p class="course-colab-link"><a href="{html.escape(url, quote=True)}">{LINK_TEXT}</a> '
            "(이 장을 노트북으로 실행합니다)</p>")


def with_link(body: str, url: str) -> str:
    """The page body with the link after its title (or first, when the body has no h1)."""
    end = body.find("</h1>")
    if end < 0:
        return link_html(url) + "\n" + body
    end += len("</h1>")
    return body[:end] + "\n" + link_html(url) + body[end:]


@lru_cache(maxsize=4)
def _links_for(settings) -> dict:
    return page_links(settings)


def _add_link(app, pagename, templatename, context, doctree):
    url = _links_for(_settings(app)).get(pagename)
    if url and isinstance(context.get("body"), str):
        context["body"] = with_link(context["body"], url)


def setup(app):
    app.connect("html-page-context", _add_link)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["page_links", "with_link", "link_html", "setup"]
