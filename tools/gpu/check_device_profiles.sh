#!/usr/bin/env bash
# Every configuration the listed GPUs get, proved on one lent H100 in one call of at most 9 minutes: each class of the
# listed GPUs (kernels/configs.py) run on the H100 through COURSE_DEVICE_PROFILE:
#   T4                              (cc 7.5: no cp.async; kernels compiled to PTX for compute_75, JIT-ed)
#   RTX3090  = RTX3090, A10G, L4, RTX4090   (99 KiB per block: Level 5 BK 16 x 2, Level 6 BK 16 x 4)
#   A100-40GB = A100 40GB and 80GB  (163 KiB: Level 5 as the H100, Level 6 BK 32 x 3)
#   (none)   = H100, H200           (227 KiB: the tuned configurations, the shipped source)
# For each class: the GPU tests of the kernels whose configuration follows the device and of Level 7 (the whole
# GPU suite under T4), compute-sanitizer memcheck/racecheck/synccheck on those kernels, exercise m09-e1 (timed
# against Level 5), chapters 9, 11 and 12 executed as notebooks (every chapter under T4); then, alone on the GPU
# beforehand, each class's speed beside cuBLAS -> book/data/device_profiles.json, labelled "configuration
# of device X timed on an H100". One failing part never stops the others; a table closes the run.
#
# Before the call, here (needs the package index):   bash tools/prepare_device_wheels.sh   (-> .whl/)
# Run from the repository root on the device machine:
#   export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 CUPY_TF32=0 && bash tools/gpu/check_device_profiles.sh
# Results under $OUT: summary.txt (the table), device_profiles.json, logs.tar.gz (every log, executed
# notebooks, exercise records).
set -u
OUT=${OUT:-_build/device_profiles}
mkdir -p "$OUT"
LOGS=$(mktemp -d /tmp/device_profiles.XXXX)
PY=${PYTHON:-python3}
START=$(date +%s)
BUDGET=${BUDGET:-510}            # seconds for the whole script (the call's limit is 540)
DEADLINE=$((START + BUDGET))
JOBS=${JOBS:-8}                  # parallel parts after the timing phase (16 cores, one GPU)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUPY_TF32=0
unset COURSE_DEVICE_PROFILE

# ----------------------------------------------------------------------------- packages the machine lacks
if ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    > "$LOGS/wheels.log" 2>&1
  rc=$?
  export PYTHONPATH=$PYTHONPATH:/tmp/site
  echo "wheels: $(ls .whl/*.whl | wc -l) into /tmp/site (pip rc $rc)"
else
  echo "wheels: .whl/ missing (bash tools/prepare_device_wheels.sh here first): chapters cannot run"
fi

echo "== environment"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$PY - <<'EOF' 2>&1 | tee "$LOGS/environment.log"
import cupy, numpy
from kernels import compiler, configs
print("python", __import__("sys").version.split()[0], "cupy", cupy.__version__, "numpy", numpy.__version__)
try:
    print("NVRTC for SASS/configs:", compiler.nvrtc_version(), compiler._nvrtc().course_path)
except Exception as exc:
    print("NVRTC for SASS/configs: unavailable:", exc)
for names in configs.configuration_classes().values():
    print("class", ", ".join(names))
EOF

# ----------------------------------------------------------------------------- phase 1: speed, GPU alone
echo "== speed of each class's configuration beside cuBLAS (alone on the GPU)"
t0=$(date +%s)
timeout -k 5 150 $PY tools/record_device_profiles.py --sizes 1024 2048 4096 --reps 20 > "$LOGS/speed.log" 2>&1
echo "$? $(( $(date +%s) - t0 ))" > "$LOGS/speed.rc"
tail -14 "$LOGS/speed.log"
cp book/data/device_profiles.json "$OUT/" 2>/dev/null

# ----------------------------------------------------------------------------- phase 2: everything else, in parallel
CONFIGURABLE="sgemm_async_copy or sgemm_warp_tiling or configuration"
# Module 12 (Level 7) picks its forms from the device too: its chapter runs under every profile.
LEVEL7_CHAPTER=$([ -f book/m12_shape_aware.md ] && echo "--chapter m12_shape_aware")
run_job() {   # NAME PROFILE COMMAND...: one part, its log, its exit code and seconds
  local name=$1 profile=$2; shift 2
  local left=$(( DEADLINE - $(date +%s) ))
  if (( left < 15 )); then echo "skipped 0" > "$LOGS/$name.rc"; return; fi
  local t0=$(date +%s)
  ( if [ -n "$profile" ]; then export COURSE_DEVICE_PROFILE=$profile; fi
    timeout -k 5 "$left" bash -c "$*" ) > "$LOGS/$name.log" 2>&1
  echo "$? $(( $(date +%s) - t0 ))" > "$LOGS/$name.rc"
}

declare -a NAMES PROFS CMDS
add() { NAMES+=("$1"); PROFS+=("$2"); CMDS+=("$3"); }
for p in T4 RTX3090 A100-40GB none; do
  prof=$([ "$p" = none ] && echo "" || echo "$p")
  tag=${p%%-*}
  if [ "$p" = T4 ]; then
    add "tests_$tag" "$prof" "$PY -m pytest -m gpu -q -p no:cacheprovider tests/test_kernels_gpu.py tests/test_doctor.py tests/test_level7_gpu.py"
    add "chapters_$tag" "$prof" "$PY tools/run_chapters.py --timeout 240 --out $LOGS/notebooks_$tag"
  else
    add "tests_$tag" "$prof" "$PY -m pytest -m gpu -q -p no:cacheprovider tests/test_kernels_gpu.py -k '$CONFIGURABLE'; r=\$?; $PY -m pytest -m gpu -q -p no:cacheprovider tests/test_level7_gpu.py || r=1; exit \$r"
    add "chapters_$tag" "$prof" "$PY tools/run_chapters.py --timeout 240 --chapter m09_async_copy --chapter m11_beyond_cublas $LEVEL7_CHAPTER --out $LOGS/notebooks_$tag"
  fi
  for tool in memcheck racecheck synccheck; do
    add "${tool}_$tag" "$prof" "compute-sanitizer --tool $tool --error-exitcode 3 $PY tools/gpu_sanitize.py --configurable"
  done
  add "exercise_$tag" "$prof" "$PY tools/record_exercises.py --only m09-e1 --out $LOGS/exercise_m09_$tag.json"
done
add "doctor_T4" "T4" "$PY -m kernels doctor"

echo "== ${#NAMES[@]} parts, $JOBS at a time, until $(( DEADLINE - $(date +%s) )) s from now"
for i in "${!NAMES[@]}"; do
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n; done
  run_job "${NAMES[$i]}" "${PROFS[$i]}" "${CMDS[$i]}" &
done
wait

# ----------------------------------------------------------------------------- the table
summary_of() {   # the line that says how a part went
  local log=$1 line
  line=$(grep -aE "(passed|failed|skipped|errors?) in [0-9.]+s" "$log" | tail -1)
  [ -z "$line" ] && line=$(grep -aE "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  [ -z "$line" ] && line=$(grep -aE "^(ok  |FAIL)" "$log" | awk '{n++; if ($1 == "ok") ok++} END {if (n) printf "%d/%d chapters ok", ok, n}')
  [ -z "$line" ] && line=$(grep -aE "speed ratio|problem\(s\)|결론|rows with a wrong" "$log" | tail -2 | tr '\n' ' ')
  [ -z "$line" ] && line=$(grep -av "^\s*$" "$log" | tail -1)
  line=$(echo "$line" | sed 's/=//g; s/^ *//'); echo "${line:0:100}"
}
{
  printf "%-20s %-10s %-6s %5s  %s\n" part profile rc s summary
  for name in speed "${NAMES[@]}"; do
    read -r rc secs < "$LOGS/$name.rc" 2>/dev/null || { rc=missing; secs=0; }
    prof=$(echo "$name" | sed 's/.*_//')
    printf "%-20s %-10s %-6s %5s  %s\n" "$name" "$prof" "$rc" "$secs" "$(summary_of "$LOGS/$name.log" 2>/dev/null | head -1)"
  done
  echo "total $(( $(date +%s) - START )) s; rc 0 = passed (sanitizers: clean), 124 = ran out of time"
} | tee "$OUT/summary.txt"
tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . 2>/dev/null
