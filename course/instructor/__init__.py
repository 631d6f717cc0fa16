"""The instructor's side: what the ``python -m course`` commands do, and the text safety every file
an instructor opens goes through.

Leaves (they import nothing from the course but each other, so any layer may use them):
    safe_text      CSV cells a spreadsheet never runs, terminal lines, file names of any bytes
    files          the regular files of a submissions folder, never through a link
    problems       the problems list (skipped, ignored, noted files) and its CSV

Commands (the top of the course, beside the command line; nothing but course.__main__ imports them):
    forms          export-form and export-key: a bank's student form and answer key
    submissions    grade: a folder of quiz submissions re-graded from the bank
    gradebook      grade's CSVs: the gradebook and the per-question difficulty
    unlock_codes   unlock: keygen, per-student codes, verify

What the commands may import: course.quiz, course.settings, course.syllabus, korean_text and the
leaves above; never course.gating, course.site or course.autograder (the autograder imports the leaves).
"""
