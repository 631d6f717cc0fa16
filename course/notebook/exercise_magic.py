"""JupyterLab magics for the kernel exercises. Load once per notebook:

    %load_ext course.notebook.exercise_magic

then
    %exercise_start m06-e1     turns this cell into a %%exercise cell holding the starter (like %load)
    %%exercise m06-e1          the cell's body is your CUDA source; shows the verdict table
    %exercise_hint m06-e1      unlocks the next hint (one at a time) and shows those unlocked
    %exercise_solution m06-e1  shows the reference solution, only after a first attempt
    %exercise_show m06-e1      the exercise's goal and the checks it will receive

Every attempt's verdict goes to the learner's progress file (course.quiz.progress), as do unlocked
hints. The kernel runs in subprocesses with time limits (course.autograder.gpu): a kernel that hangs
or faults gives a verdict, and the notebook goes on. COURSE_EXERCISE_TIME_LIMIT (seconds) sets the
limit of each subprocess. The work is done by course.autograder.lab.LabSession.
"""
from __future__ import annotations

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

from course.autograder.lab import TIME_LIMIT_ENV, LabSession

__all__ = ["ExerciseMagics", "TIME_LIMIT_ENV", "load_ipython_extension"]


@magics_class
class ExerciseMagics(Magics):
    def __init__(self, shell=None, store=None):
        super().__init__(shell)
        self.session = LabSession(store)

    @cell_magic
    def exercise(self, line, cell):
        """%%exercise ID — check the CUDA source in this cell; returns the verdict (shown as a table)."""
        return self.session.check(line, cell)

    @line_magic
    def exercise_start(self, line):
        """%exercise_start ID — replace this cell with a %%exercise cell holding the starter code."""
        text, note = self.session.start(line)
        if text is not None and self.shell is not None:
            self.shell.set_next_input(text, replace=True)
        return note

    @line_magic
    def exercise_hint(self, line):
        """%exercise_hint ID — unlock the next hint and show every unlocked one."""
        return self.session.hint(line)

    @line_magic
    def exercise_solution(self, line):
        """%exercise_solution ID — the reference solution, once the exercise has been attempted."""
        return self.session.solution(line)

    @line_magic
    def exercise_show(self, line):
        """%exercise_show ID — the goal and the checks of an exercise."""
        return self.session.show(line)


def load_ipython_extension(ipython) -> None:
    ipython.register_magics(ExerciseMagics(ipython))
