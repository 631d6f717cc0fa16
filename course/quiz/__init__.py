"""Quizzes: the question banks and everything that grades, presents and remembers an answer.

    banks/            one YAML bank per module (banks/SCHEMA.md describes the format)
    bank              loading a bank, strict validation, the student view and the key
    variants          checkpoint variants: parameters drawn per attempt, keys from a small formula
    shuffle           the seeded choice order (the site's quiz_rules.js draws the same one)
    grading           the grading rules (the site's quiz_rules.js implements the same rules)
    submission        the submission file format and its integrity digest
    progress          the learner's progress file (atomic, locked, recoverable)
    checkpoint_lock   a checkpoint page's payload without its key (digests, or no grading data at all)
    unlock            the instructor-signed unlock codes: the signed message, keys, codes
    widget            ``show(module)``: the quiz in the static site or in JupyterLab

Chapters call ``from course.quiz import show as show_quiz``; ``show`` is the widget's and is loaded on
first use, so that importing one of the pure modules (course.settings checks the unlock key with
``unlock``, the facts read ``bank``) does not load the widget.

What it may import: korean_text, course.syllabus, course.settings, course.instructor.safe_text (the
text-safety leaf), and, in the widget only, course.page. Never course.gating, course.notebook,
course.autograder, course.site or the instructor's commands. ``unlock`` sits lower than the rest:
course.settings imports it, so it imports nothing from the course but course.instructor.safe_text.
"""

__all__ = ["show"]


def __getattr__(name):
    if name == "show":
        from course.quiz.widget import show

        return show
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
