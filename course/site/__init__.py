"""The Sphinx side of the book: the extensions Jupyter Book loads, the figures' text alternatives and the
static assets copied into the site.

Modules:
    extension    the course's Sphinx extension (_config.yml: sphinx.extra_extensions): settings written into
                 every page, the chapters' claims checked against the records, the site's scripts and styles
                 added in their load order, the site's index.html
    a11y         accessible names for HTML the course does not write itself (myst-nb's hidden-code toggles)
    colab_link   the second extension: a "Colab에서 열기" link on every page that has a notebook
    figure_text  a plotly figure's name, description and tables, made from its own JSON
    static/      the scripts and styles copied into the site's _static/course/: quiz_rules.js (the grading,
                 shuffle and variant rules, no DOM), quiz.js (the quiz widget, progress and gates on the page),
                 checkpoint_lock.js, unlock.js, figures.js, a11y.js, *.css

What it may import: the standard library, Sphinx and myst-nb (inside the extensions' functions),
course.syllabus, course.settings, course.toc, course.facts (the build checks the chapters' claims),
course.notebook.export (for the Colab links) and the quiz package's pure modules; never kernels/ itself (the
facts read the records through it) or course.autograder. figure_text imports only the standard library,
because course.page (which writes every figure's text into the page) imports it; this file imports nothing,
so that importing figure_text loads no Sphinx code.
"""
