"""Accessibility fixes to HTML that the course does not write itself, applied while the site is built.

myst-nb names the toggle of every hidden code cell "Toggle hidden content" (English, and not the
text the learner sees: "코드 보기" / "코드 숨기기"), which fails WCAG 2.5.3 (label in name). Its
renderer is replaced by one that lets the visible Korean prompt be the toggle's name. The theme's
own parts are fixed by template overrides in book/_templates/components/.
"""
from __future__ import annotations

from html import escape


def _visit_hidden_input(self, node):
    """The same <details> as myst-nb's, without the English aria-label: the summary's name is then
    its visible text ("코드 보기" while closed, "코드 숨기기" while open; the other one is hidden)."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def _depart_hidden_input(self, node):
    self.body.append("</details>\n")


def setup(app) -> None:
    """Called from course.site.extension.setup, after myst-nb has registered its nodes."""
    from myst_nb.sphinx_ import HideCodeCellNode

    app.add_node(HideCodeCellNode, override=True, html=(_visit_hidden_input, _depart_hidden_input))
