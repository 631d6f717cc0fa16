#!/usr/bin/env bash
# Re-record, on the GPU machine, the book/data files whose numbers come from timing, stage by stage:
#   bash tools/gpu_records.sh STAGE [STAGE ...]
# Stages (each with its own time limit, so one slow stage still leaves the others' results):
#   warm        compile every Level 7 form (all listed GPUs' rings, the streaming kernels) and the levels' files
#   stream      tools/stream_bench.py: the streaming path against cuBLAS and the measured DRAM bandwidth
#   tune        tools/tune_level7.py: the sweep on the zoo and the fit of the cost model (level7_tuning.json)
#   tests       the Level 7 GPU tests and the registry's Level 7 entries
#   shapes      tools/record_shapes.py: every level and Level 7 on the zoo (shapes.json)
#   heldout     tools/record_heldout.py: Level 7 on the held-out shapes (level7_heldout.json)
#   check       a second sweep of the zoo with the fitted model (level7_tuning_check.json)
#   protocols   tools/record_timing_protocols.py: the old and the new timing side by side (timing_protocols.json)
#   experiments tools/level7_experiments.py (level7_experiments.json)
#   sanitize    compute-sanitizer memcheck, racecheck and synccheck over every Level 7 path
#   bench       python -m kernels record (benchmarks.json)
#   exercises   tools/record_exercises.py: every exercise's solution and wrong attempts (exercises.json)
#   variants    tools/record_variants.py (variants.json)
#   profiles    tools/record_device_profiles.py: the configurable levels under every listed GPU's form (device_profiles.json)
#   notebooks   the exported notebooks run as Colab would (tools/run_notebooks_on_gpu.sh; PAGES narrows them; needs .whl)
# Each stage writes into a work folder, and after every stage the whole folder is packed into $OUT/records.tgz (the
# device tool returns only a few files, and nothing of a call cut off by its time limit except what is already in
# $OUT); a short table goes to stdout. COURSE_GIT_COMMIT names the commit when the machine's copy of the repository
# has no usable .git (kernels/record.py provenance).
set -uo pipefail
BUNDLE=${OUT:-/tmp/out}; mkdir -p "$BUNDLE"
OUT=${WORK:-/tmp/gpu_records}; mkdir -p "$OUT"
pack() { tar czf "$BUNDLE/records.tgz.part" -C "$OUT" . && mv "$BUNDLE/records.tgz.part" "$BUNDLE/records.tgz"; }
PY=${PY:-python3}
export CUPY_TF32=0 PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader \
  > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

for stage in "$@"; do
  stamp "$stage"
  case "$stage" in
    warm)
      timeout 150 "$PY" tools/warm_level7.py --all-profiles --levels > "$OUT/warm.log" 2>&1
      echo "warm rc=$?: $(tail -1 "$OUT/warm.log")" ;;
    stream)
      timeout 120 "$PY" tools/stream_bench.py --out "$OUT/level7_stream.json" > "$OUT/stream.log" 2>&1
      echo "stream rc=$?"; tail -25 "$OUT/stream.log" | cut -c1-160
      # the model's streaming constants follow this record, here and (the same command) where it is committed
      [ -s "$OUT/level7_stream.json" ] && "$PY" tools/stream_bench.py --apply "$OUT/level7_stream.json" ;;
    tune)
      timeout 330 "$PY" tools/tune_level7.py --out "$OUT/level7_tuning.json" > "$OUT/tune.log" 2>&1
      echo "tune rc=$?"; sed -n '/^fit:/,$p' "$OUT/tune.log" | cut -c1-160 | head -60 ;;
    tests)
      timeout 200 "$PY" -m pytest -m gpu -q -p no:cacheprovider --tb=short -rf tests/test_level7_gpu.py \
        tests/test_kernels_gpu.py -k "level7 or shape_aware or stream or resources or bench or hold or timing" \
        > "$OUT/tests.log" 2>&1
      echo "tests rc=$?"; grep -E "passed|failed|error" "$OUT/tests.log" | tail -1
      grep -E "^FAILED|^ERROR" "$OUT/tests.log" | head -20 ;;
    shapes)
      timeout 240 "$PY" tools/record_shapes.py --out "$OUT/shapes.json" > "$OUT/shapes.log" 2>&1
      echo "shapes rc=$?"; grep -E "sgemm_shape_aware|^[0-9]+x|geometric|WRONG" "$OUT/shapes.log" | cut -c1-160 ;;
    heldout)
      timeout 240 "$PY" tools/record_heldout.py --out "$OUT/level7_heldout.json" > "$OUT/heldout.log" 2>&1
      echo "heldout rc=$?"; tail -45 "$OUT/heldout.log" | cut -c1-170 ;;
    check)
      timeout 240 "$PY" tools/tune_level7.py --no-rings --no-narrow --out "$OUT/level7_tuning_check.json" \
        > "$OUT/tune_check.log" 2>&1
      echo "check rc=$?"; sed -n '/shape .*best measured/,$p' "$OUT/tune_check.log" | cut -c1-160 | head -30 ;;
    protocols)
      timeout 90 "$PY" tools/record_timing_protocols.py --out "$OUT/timing_protocols.json" > "$OUT/protocols.log" 2>&1
      echo "protocols rc=$?"; tail -12 "$OUT/protocols.log" ;;
    experiments)
      timeout 90 "$PY" tools/level7_experiments.py --out "$OUT/level7_experiments.json" > "$OUT/experiments.log" 2>&1
      echo "experiments rc=$?"; cut -c1-160 "$OUT/experiments.log" | tail -12 ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 "$PY" tools/sanitize_level7.py \
          > "$OUT/sanitize_$tool.log" 2>&1
        rc=$?
        echo "$tool rc=$rc: $(grep -c '^ok' "$OUT/sanitize_$tool.log") ok, $(grep -c '^BAD' "$OUT/sanitize_$tool.log") bad;" \
             "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1)"
      done ;;
    bench)
      timeout 300 "$PY" -m kernels record > "$OUT/bench.log" 2>&1
      echo "bench rc=$?"; tail -5 "$OUT/bench.log"; cp book/data/benchmarks.json "$OUT/" 2>/dev/null ;;
    exercises)
      timeout 330 "$PY" tools/record_exercises.py --jobs 8 --out "$OUT/exercises.json" > "$OUT/exercises.log" 2>&1
      echo "exercises rc=$?"; grep -vE "^  checked " "$OUT/exercises.log" | tail -30 | cut -c1-160 ;;
    variants)
      timeout 240 "$PY" tools/record_variants.py --out "$OUT/variants.json" > "$OUT/variants.log" 2>&1
      echo "variants rc=$?"; tail -8 "$OUT/variants.log" | cut -c1-160 ;;
    profiles)
      timeout 300 "$PY" tools/record_device_profiles.py --sizes 1024 2048 4096 --reps 20 --out "$OUT/device_profiles.json" \
        > "$OUT/profiles.log" 2>&1
      echo "profiles rc=$?"; tail -8 "$OUT/profiles.log" | cut -c1-160 ;;
    notebooks)
      OUT="$OUT/notebooks" RUNNERS=${RUNNERS:-8} timeout 300 bash tools/run_notebooks_on_gpu.sh 2>&1 | tail -20 ;;
    *)
      echo "unknown stage: $stage" ;;
  esac
  pack
done
stamp "done"
