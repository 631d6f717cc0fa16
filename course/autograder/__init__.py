"""Hands-on kernel exercises and their checker.

An exercise lives in course/exercises/<id>/ (exercise.yaml, starter.cu, solution.cu, wrong_*.cu;
schema in course.autograder.spec). The checker gives a learner's kernel five checks, each with Korean
feedback that points at the learner's own lines:

  compile      NVRTC, ahead of time for sm_90 (no GPU needed); errors mapped to the learner's lines
  sass         forbidden / required opcodes and the register count (no GPU needed)
  correctness  fuzzed shapes incl. edges, alpha/beta, NaN-poisoned C, guard bands; against cuBLAS
  hazards      compute-sanitizer memcheck / racecheck / synccheck (or a repeated-run test without it)
  speed        timed in alternation with the level's reference kernel; ratio against min_ratio

The kernel runs only in subprocesses with time limits (course.autograder.worker), so a hang or a
fault becomes a verdict and the notebook or command line goes on. Entry points:
`python -m course exercise list|show|check`, `python -m course grade-code`, the JupyterLab magic
`%%exercise ID` (course.exercise_magic), and the site's cards (course.autograder.page).
"""
from course.autograder.checker import check_file, check_source, gpu_ready, measure_speed
from course.autograder.gpu import Limits
from course.autograder.learner import ExerciseInputError, read_source_file
from course.autograder.spec import (DIAGNOSES, DIAGNOSIS_PRIORITY, ExerciseError, ExerciseSpec, exercise_ids, load,
                                  load_all)
from course.autograder.verdict import CHECKS, CheckResult, Verdict

__all__ = ["CHECKS", "DIAGNOSES", "DIAGNOSIS_PRIORITY", "CheckResult", "ExerciseError", "ExerciseInputError",
           "ExerciseSpec", "Limits", "Verdict", "check_file", "check_source", "exercise_ids", "gpu_ready", "load",
           "load_all", "measure_speed", "read_source_file"]
