"""Quizzes, learner progress, gating and instructor tools for the SGEMM course.

Modules:
    settings    pass rules and gating policy, read from ``_config.yml`` (course_settings)
    bank        question banks (YAML): loading, strict validation, student view and key
    grading     the grading rules (the site's quiz.js implements the same rules)
    submission  the submission file format and its integrity digest
    progress    the learner's progress file (atomic, locked, recoverable)
    gating      gating decisions and the ``gate(module)`` display
    quiz        ``show(module)``: the quiz in the static site or in JupyterLab
    instructor  export forms and keys, grade submissions into a gradebook
    variants    checkpoint variants: parameters drawn per attempt, keys from a small formula
    autograder  the kernel exercises' checker (its data: course/exercises/<id>/)
Command line: ``python -m course --help``.
"""
