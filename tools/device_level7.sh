#!/usr/bin/env bash
# Level 7's GPU work in one batch, run from the repository root on the GPU machine:
#   bash tools/device_level7.sh tune     every path against cuBLAS, the tuning sweep (level7_tuning.json), memcheck
#   bash tools/device_level7.sh record   every path against cuBLAS, the shape zoo (shapes.json), a second sweep to
#                                        check the model's picks (level7_tuning_check.json), the two experiments
#                                        of tools/level7_experiments.py, and the three sanitizers
# Everything lands in $OUT (default /tmp/out); a short table goes to stdout. Each stage has its own time limit,
# so that one slow stage still leaves the others' results. COURSE_GIT_COMMIT names the commit when the copy
# has no .git (kernels/record.py provenance).
set -uo pipefail
MODE=${1:-record}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
PY=${PY:-python3}
export CUPY_TF32=0 PYTHONUNBUFFERED=1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

stamp "compiling every form in parallel"
LEVELS=""; [ "$MODE" = record ] && LEVELS="--levels"
timeout 120 "$PY" tools/warm_level7.py --all-profiles $LEVELS > "$OUT/warm.log" 2>&1
echo "warm rc=$?: $(tail -1 "$OUT/warm.log")"

stamp "GPU tests (tests/test_level7_gpu.py; Level 7 in tests/test_kernels_gpu.py)"
timeout 150 "$PY" -m pytest -m gpu -q -p no:cacheprovider --tb=short -rf --durations=8 tests/test_level7_gpu.py \
    > "$OUT/tests.log" 2>&1
echo "tests rc=$?"; grep -E "passed|failed|error" "$OUT/tests.log" | tail -1; grep -E "^FAILED|^ERROR" "$OUT/tests.log" | head -20
if [ "$MODE" = record ]; then   # the course-wide GPU suite's tests, for the registry's Level 7 entry
  timeout 90 "$PY" -m pytest -m gpu -q -p no:cacheprovider --tb=short -rf tests/test_kernels_gpu.py \
      -k "shape_aware or resources" > "$OUT/tests_registry.log" 2>&1
  echo "registry tests rc=$?"; grep -E "passed|failed|error" "$OUT/tests_registry.log" | tail -1
  grep -E "^FAILED|^ERROR" "$OUT/tests_registry.log" | head -10
fi

if [ "$MODE" = tune ]; then
  stamp "tuning sweep"
  timeout 170 "$PY" tools/tune_level7.py --out "$OUT/level7_tuning.json" > "$OUT/tune.log" 2>&1
  echo "tune rc=$?"; sed -n '/^fit:/,$p' "$OUT/tune.log"
  TOOLS="memcheck"
else
  stamp "shape zoo"
  timeout 230 "$PY" tools/record_shapes.py --out "$OUT/shapes.json" > "$OUT/record.log" 2>&1
  echo "record rc=$?"; grep -E "sgemm_shape_aware|^[0-9]+x|geometric|Level 7 /|WRONG" "$OUT/record.log" | cut -c1-150
  stamp "second sweep (the model's picks against fresh measurements)"
  timeout 90 "$PY" tools/tune_level7.py --out "$OUT/level7_tuning_check.json" > "$OUT/tune_check.log" 2>&1
  echo "check sweep rc=$?"; sed -n '/shape .*best measured/,$p' "$OUT/tune_check.log"
  stamp "experiments"
  timeout 60 "$PY" tools/level7_experiments.py --out "$OUT/level7_experiments.json" > "$OUT/experiments.log" 2>&1
  echo "experiments rc=$?"; cut -c1-160 "$OUT/experiments.log"
  TOOLS="memcheck racecheck synccheck"
fi

for tool in $TOOLS; do
  stamp "compute-sanitizer $tool"
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 3 "$PY" tools/sanitize_level7.py > "$OUT/sanitize_$tool.log" 2>&1
  rc=$?
  echo "$tool rc=$rc: $(grep -c '^ok' "$OUT/sanitize_$tool.log") ok, $(grep -c '^BAD' "$OUT/sanitize_$tool.log") bad; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1)"
done
stamp "done"
# The GPU tool returns only a few files: everything travels in one archive (and the short table above).
(cd "$OUT" && tar -czf level7_results.tgz --exclude=level7_results.tgz -- * && find . -type f ! -name level7_results.tgz -delete)
ls -la "$OUT"
