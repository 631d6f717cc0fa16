"""Quizzes, learner progress, gating, kernel exercises, instructor tools and the site's code for the
SGEMM course.

Modules and packages, bottom to top (each imports only what lies below it):
    syllabus     the modules, their pages and checkpoints, declared once
    toc          _toc.yml's modules part, written from the syllabus
    settings     pass rules and gating policy, read from ``_config.yml`` (course_settings)
    page/        what a chapter's code cells call: figures, quoted code, tables, the "run it" cell
    quiz/        question banks, grading, variants, submissions, progress, unlock codes, ``show(module)``
    notebook/    chapters exported as notebooks, the cells they start with, the exercise magics
    gating       gating decisions and the ``gate(module)`` display
    facts/       each chapter's numbers, read from the records
    autograder/  the kernel exercises' checker (its data: exercises/<id>/)
    instructor/  the instructor commands (forms, keys, grading, unlock codes) and the text-safety leaves
    site/        the Sphinx side: extensions Jupyter Book loads, static assets
Leaves that any layer may import: instructor.safe_text, instructor.files, instructor.problems,
quiz.unlock (settings checks the unlock key with it), site.figure_text (page describes figures with it).
One module sits above its package: notebook.exercise_magic wraps the autograder, and only IPython loads it.
Command line: ``python -m course --help``.
"""
