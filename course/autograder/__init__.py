"""Hands-on kernel exercises and their checker.

An exercise lives in course/exercises/<id>/ (exercise.yaml, starter.cu, solution.cu, wrong_*.cu;
schema in course.autograder.spec). The checker gives a learner's kernel five checks, each with Korean
feedback that points at the learner's own lines:

  compile      NVRTC, ahead of time for sm_90 (no GPU needed); errors mapped to the learner's lines;
               includes limited to the course's headers; the entry's parameter list (from the PTX)
  sass         forbidden / required opcodes, the operands a required opcode must serve (A, B, C,
               from the PTX), and the register count (no GPU needed)
  correctness  fixed edge cases and cases drawn from the run's seed (recorded in the verdict; replay
               with --seed), lda/ldb/ldc all different, every class of (alpha, beta), whole tiles with
               alpha, beta != 0, a single k tile, K past 4096, NaN and +-Inf inside A and B, C poisoned
               with NaN and +-Inf when beta = 0, shared memory filled with the run's two random bit
               patterns (the results must agree bit for bit), A and B unchanged, guard bands; against cuBLAS
  hazards      compute-sanitizer memcheck / racecheck / synccheck (or a repeated-run test without it)
  speed        at a shape drawn from the run's seed, timed in alternation with the level's reference kernel
               on the same padded operands, every launch's output checked; a ratio within 3% of the bar
               is measured again, longer

The kernel runs only in subprocesses with time limits (course.autograder.worker), so a hang or a
fault becomes a verdict and the notebook or command line goes on; the kernel's printf is shown,
capped, and never read as the checker's own status. Entry points:
`python -m course exercise list|show|check`, `python -m course grade-code`, the JupyterLab magic
`%%exercise ID` (course.notebook.exercise_magic), and the site's cards (course.autograder.page).

Modules, bottom to top (a module imports only modules on lines above its own, never one beside or below):

  diagnosis, compare, learner, signatures   the diagnosis vocabulary; how a result is compared with the
                                            reference; the learner's source text; parameter lists
  cases, timing, worker_base                the SGEMM cases and the draws every kind shares; the speed
                                            measurement; what every kind's worker shares (the status channel,
                                            operands with guard bands, the shared-memory fill, the judgement)
  kind_base                                 the interface an exercise kind implements (ExerciseKind)
  kind_sgemm, kind_splitk_reduce            one module per kind: signature, cases, messages, worker side
  kinds                                     the registry: kind name -> kind
  spec                                      exercise.yaml, validated against its kind
  verdict, ptx, card_text                   the verdict; the PTX reading; the card's texts
  static, gpu                               compile and SASS checks; the GPU checks in subprocesses
  checker, worker                           check_source; the subprocess entry point (python -m
                                            course.autograder.worker, started by gpu)
  grade, page, cli                          grading a folder; the site's card; the command line
  lab                                       the notebook session (course.notebook.exercise_magic wraps it)

A new exercise kind is one new module (a subclass of kind_base.ExerciseKind: its parameter list, its cases,
what the learner is told in its terms, and in the worker how its kernel is launched on a case and what the
right result is), one entry in kinds.KINDS, and its exercise.yaml (`kind: <name>`).

From outside the package it imports only kernels (compiler, device, errors, launch, record, registry,
source, sass, timing), korean_text, course.settings, course.page (displayable HTML),
course.quiz.progress (the learner's progress file) and course.instructor (safe CSV text, file walking,
the problems report), besides NumPy, CuPy (inside functions, in the worker) and PyYAML.
"""
# What the checker checks changed: a verdict recorded by an older version (book/data/exercises.json)
# is still evidence for what it covers, not for attempts or checks added since. 2: seeded cases, distinct
# lda/ldb/ldc, +-Inf poison, shared-memory fill, inputs checked, signatures, operands. 3: exercise kinds (the
# split-K reduction); a failing case whose result changes between identical re-runs is judged a race before any
# other cause is looked for. 4: every (alpha, beta) class, a single k tile, K past 4096, S past 16, NaN and
# +-Inf in the inputs, two random shared-memory fills per run, a drawn timed shape with every launch checked,
# a second measurement near the speed bar.
CHECKER_VERSION = 4

from course.autograder.checker import check_file, check_source, gpu_ready, measure_speed  # noqa: E402
from course.autograder.gpu import Limits  # noqa: E402
from course.autograder.learner import ExerciseInputError, read_source_file  # noqa: E402
from course.autograder.diagnosis import DIAGNOSES, DIAGNOSIS_PRIORITY  # noqa: E402
from course.autograder.spec import ExerciseError, ExerciseSpec, exercise_ids, load, load_all  # noqa: E402
from course.autograder.verdict import CHECKS, CheckResult, Verdict  # noqa: E402

__all__ = ["CHECKER_VERSION", "CHECKS", "DIAGNOSES", "DIAGNOSIS_PRIORITY", "CheckResult", "ExerciseError", "ExerciseInputError",
           "ExerciseSpec", "Limits", "Verdict", "check_file", "check_source", "exercise_ids", "gpu_ready", "load",
           "load_all", "measure_speed", "read_source_file"]
