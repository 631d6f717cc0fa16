#!/usr/bin/env bash
# Module 12's GPU work in one call (at most 9 minutes on one H100, 16 cores), run from the repository root:
#   OUT=/some/dir [WHEELS=path/to/.whl] COURSE_GIT_COMMIT=$(git rev-parse HEAD) bash tools/gpu/record_module12.sh
#
#   1. compile every Level 7 form of this GPU in parallel (tools/warm_level7.py, CuPy's disk cache)
#   2. side by side: exercise m12-e1's solution and wrong attempts through the checker (tools/record_exercises.py
#      --only m12-e1) and the kernels cuBLAS launches per zoo shape under Nsight Compute (tools/profile_shapes.py
#      names -> cublas_kernels.json: names and launch shapes only, no timing is read from it)
#   3. alone on the GPU: Level 7 and cuBLAS profiled at 2048^3 and 4095x4097x4099 (profile_shapes.py gap ->
#      level7_profiles.json)
#   4. module 12 executed as a notebook (tools/run_chapters.py; its live zoo cell times on this GPU)
#   5. tests/test_level7_gpu.py with the time that is left (BUDGET, default 525 s from the start)
#   6. a short table; $OUT holds at most 5 files: cublas_kernels.json, level7_profiles.json, m12_exercise.json,
#      m12_shape_aware.ipynb and module12_logs.tgz (every log).
# Copy the three JSON files to book/data/ (the exercise record merges into exercises.json with
# `python tools/record_exercises.py --merge-from m12_exercise.json`).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOGS=$(mktemp -d /tmp/module12.XXXX)
PY=${PYTHON:-python3}
T0=$(date +%s)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUPY_TF32=0
unset COURSE_DEVICE_PROFILE
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

WHEELS=${WHEELS:-}
for candidate in "$WHEELS" .whl ../../.whl; do
  if [ -n "$candidate" ] && ls "$candidate"/*.whl >/dev/null 2>&1; then WHEELS=$candidate; break; fi
done
if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$WHEELS"/*.whl \
    > "$LOGS/wheels.log" 2>&1
  rc=$?
  echo "wheels: $(ls "$WHEELS"/*.whl | wc -l) from $WHEELS into /tmp/site (pip rc $rc)"
  export PYTHONPATH=$PYTHONPATH:/tmp/site
else
  echo "wheels: none found (.whl, ../../.whl or \$WHEELS): the chapter cannot run as a notebook"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$LOGS/gpu.txt"

stamp "1. compiling this GPU's Level 7 forms"
timeout 80 $PY tools/warm_level7.py > "$LOGS/warm.log" 2>&1
echo "   warm rc=$?: $(tail -1 "$LOGS/warm.log")"

stamp "2. exercise m12-e1 and cuBLAS's kernel names, side by side (names only: no timing is taken from ncu)"
( timeout 150 $PY tools/record_exercises.py --only m12-e1 --jobs 4 --out "$OUT/m12_exercise.json" \
    > "$LOGS/record_exercises.log" 2>&1; echo $? > "$LOGS/record_exercises.rc" ) &
( timeout 130 $PY tools/profile_shapes.py names --out "$OUT/cublas_kernels.json" \
    > "$LOGS/cublas_names.log" 2>&1; echo $? > "$LOGS/cublas_names.rc" ) &
wait
echo "   exercise rc=$(cat "$LOGS/record_exercises.rc") (0: the solution passed and every attempt got its diagnosis)"
sed -n '/^attempt/,/^$/p' "$LOGS/record_exercises.log" | cut -c1-150
grep -E "^speed|^shared-memory|^slowest|problem|^  m12" "$LOGS/record_exercises.log" | cut -c1-200
echo "   cuBLAS names rc=$(cat "$LOGS/cublas_names.rc")"
grep -E "kernel\(s\)|wrote|rror" "$LOGS/cublas_names.log" | cut -c1-170

stamp "3. Level 7 and cuBLAS under Nsight Compute where Level 7 loses (GPU otherwise idle)"
timeout 110 $PY tools/profile_shapes.py gap --out "$OUT/level7_profiles.json" > "$LOGS/gap.log" 2>&1
echo "   gap rc=$?"; grep -E "us  SM busy|wrote|rror" "$LOGS/gap.log" | cut -c1-170

stamp "4. module 12 as a notebook (its live zoo cell on this GPU)"
timeout 130 $PY tools/run_chapters.py --timeout 120 --chapter m12_shape_aware --out "$LOGS/notebooks" \
    > "$LOGS/chapter.log" 2>&1
echo "   chapter rc=$?"; cut -c1-200 "$LOGS/chapter.log" | grep -v "WARNING | Kernel is running" | tail -12
if [ -f "$LOGS/notebooks/m12_shape_aware.ipynb" ]; then
  cp "$LOGS/notebooks/m12_shape_aware.ipynb" "$OUT/"
  $PY tools/summarize_notebook.py "$OUT/m12_shape_aware.ipynb" "모양 모음 12가지"
fi

LEFT=$(( T0 + ${BUDGET:-525} - $(date +%s) - 12 ))
stamp "5. GPU tests (tests/test_level7_gpu.py), ${LEFT} s left"
if [ "$LEFT" -gt 20 ]; then
  timeout "$LEFT" $PY -m pytest -m gpu -q -p no:cacheprovider --tb=short -rf tests/test_level7_gpu.py \
      > "$LOGS/tests_level7.log" 2>&1
  echo "   tests rc=$? (124: cut at the time limit)"; grep -E "passed|failed|error" "$LOGS/tests_level7.log" | tail -1
  grep -E "^FAILED|^ERROR" "$LOGS/tests_level7.log" | head -10
else
  echo "   no time left for the GPU tests"
fi

stamp "6. packing"
(cd "$LOGS" && tar -czf "$OUT/module12_logs.tgz" -- *)
ls -la "$OUT"
stamp "done"
