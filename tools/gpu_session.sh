#!/usr/bin/env bash
# One call on a GPU machine: environment, GPU tests, sanitizers, benchmark, recorded results.
# Usage: bash tools/gpu_session.sh [quick]   (writes logs and results under $OUT if set)
set -u
OUT=${OUT:-_build/gpu_session}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUPY_TF32=0
mode=${1:-full}

echo "== environment"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,memory.total --format=csv
$PY -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion())"

echo "== GPU test suite"
$PY -m pytest -m gpu tests/test_kernels_gpu.py -q -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -15

if [ "$mode" != quick ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 3 $PY tools/gpu_sanitize.py > "$OUT/sanitize_$tool.log" 2>&1
    echo "exit $? ; $(grep -c '^ok ' "$OUT/sanitize_$tool.log") runs ok; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1)"
  done
fi

echo "== record (all kernels at 1024/2048/4096, Levels 3-6 at 8192, awkward shapes, level pairs)"
$PY -m kernels record 2>&1 | tee "$OUT/record.log" | tail -60
cp book/data/benchmarks.json "$OUT/" 2>/dev/null || true

if [ "$mode" != quick ]; then
  echo "== tuners (Level 5 ring, Level 6 shape) and Nsight Compute profiles"
  $PY tools/tune_async.py --out book/data/async_tuning.json > "$OUT/tune_async.log" 2>&1; tail -2 "$OUT/tune_async.log"
  $PY tools/tune_level6.py --out book/data/level6_tuning.json > "$OUT/tune_level6.log" 2>&1; tail -1 "$OUT/tune_level6.log"
  command -v ncu >/dev/null && $PY tools/profile_levels.py --cublas > "$OUT/profiles.log" 2>&1; tail -3 "$OUT/profiles.log"
fi
