#!/usr/bin/env bash
# The exercise record on the GPU machine, one call (run from the repository root):
#   every exercise's solution and every known-wrong attempt (course/exercises/*/) through the checker,
#   a table per submission (attempt, expected verdict, got, agrees, seconds per check, reason), the timed
#   shape each speed check drew (and any second measurement near the bar), whether the shared-memory fill
#   reaches a fresh block on this GPU, the slowest solution check against its time limit, and the full
#   record in $OUT/exercises.json (copy it to book/data/ to publish it).
# Usage: OUT=/some/dir bash tools/gpu/record_exercises.sh [--seed N] [--jobs J] [--only ID ...]
#   (needs python3 with cupy, numpy, PyYAML). Too long for one call: give each call some exercises with
#   --only, then on any machine: python tools/record_exercises.py --merge-from PART.json
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
export CUPY_TF32=0 PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}

echo "== environment"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
missing=""
for module in cupy numpy yaml; do
  $PY -c "import $module" 2>/dev/null || missing="$missing $module"
done
if [ -n "$missing" ]; then
  echo "missing Python modules:$missing (PyYAML is 'yaml': pip install pyyaml; CuPy: cupy-cuda13x). Nothing was checked."
  exit 2
fi
$PY -c "import cupy; print('cupy', cupy.__version__, 'runtime', cupy.cuda.runtime.runtimeGetVersion())"
command -v compute-sanitizer >/dev/null || ls /usr/local/cuda/bin/compute-sanitizer >/dev/null 2>&1 \
  || echo "note: compute-sanitizer not found: the hazards check falls back to repeated runs"

echo "== every solution and wrong attempt (record_exercises.py)"
timeout 560 $PY tools/record_exercises.py --out "$OUT/exercises.json" "$@" 2>&1 | tee "$OUT/record_exercises.log" \
  | grep -v "^  checked "
status=${PIPESTATUS[0]}
echo "record_exercises exit code: $status (0: every solution passed and every attempt got its expected verdict)"
exit "$status"
