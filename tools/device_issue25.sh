#!/usr/bin/env bash
# Issue 25, module 12's GPU work in one call (at most 9 minutes on one H100, 16 cores), run from the repository root:
#   OUT=/some/dir [WHEELS=path/to/.whl] COURSE_GIT_COMMIT=$(git rev-parse HEAD) bash tools/device_issue25.sh
#
#   1. compile every Level 7 form of this GPU in parallel (tools/warm_level7.py, CuPy's disk cache)
#   2. side by side: tests/test_level7_gpu.py; exercise m12-e1's solution and wrong attempts through the
#      checker (tools/record_exercises.py --only m12-e1); the kernels cuBLAS launches per zoo shape under
#      Nsight Compute (tools/profile_shapes.py names -> cublas_kernels.json: names only, not timings)
#   3. alone on the GPU: Level 7 and cuBLAS profiled at 2048^3 and 4095x4097x4099 (profile_shapes.py gap ->
#      level7_profiles.json), then module 12 executed as a notebook (tools/run_chapters.py, its live zoo timing)
#   4. a short table; $OUT holds at most 5 files: cublas_kernels.json, level7_profiles.json, m12_exercise.json,
#      m12_shape_aware.ipynb and issue25_logs.tgz (every log).
# Copy the three JSON files to book/data/ (the exercise record merges into exercises.json with
# `python tools/record_exercises.py --merge-from m12_exercise.json`).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOGS=$(mktemp -d /tmp/issue25.XXXX)
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
  echo "wheels: $(ls "$WHEELS"/*.whl | wc -l) from $WHEELS into /tmp/site (pip rc $?)"
  export PYTHONPATH=$PYTHONPATH:/tmp/site
else
  echo "wheels: none found (.whl, ../../.whl or \$WHEELS): the chapter cannot run as a notebook"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$LOGS/gpu.txt"

stamp "1. compiling this GPU's Level 7 forms"
timeout 90 $PY tools/warm_level7.py > "$LOGS/warm.log" 2>&1
echo "   warm rc=$?: $(tail -1 "$LOGS/warm.log")"

stamp "2. GPU tests, exercise m12-e1 and cuBLAS's kernel names, side by side"
( timeout 200 $PY -m pytest -m gpu -q -p no:cacheprovider --tb=short -rf tests/test_level7_gpu.py \
    > "$LOGS/tests_level7.log" 2>&1; echo $? > "$LOGS/tests_level7.rc" ) &
( timeout 230 $PY tools/record_exercises.py --only m12-e1 --jobs 4 --out "$OUT/m12_exercise.json" \
    > "$LOGS/record_exercises.log" 2>&1; echo $? > "$LOGS/record_exercises.rc" ) &
( timeout 150 $PY tools/profile_shapes.py names --out "$OUT/cublas_kernels.json" \
    > "$LOGS/cublas_names.log" 2>&1; echo $? > "$LOGS/cublas_names.rc" ) &
wait
echo "   tests rc=$(cat "$LOGS/tests_level7.rc"): $(grep -E 'passed|failed|error' "$LOGS/tests_level7.log" | tail -1)"
grep -E "^FAILED|^ERROR" "$LOGS/tests_level7.log" | head -10
echo "   exercise rc=$(cat "$LOGS/record_exercises.rc") (0: the solution passed and every attempt got its diagnosis)"
sed -n '/^attempt/,/^$/p' "$LOGS/record_exercises.log" | cut -c1-150
grep -E "^speed|^shared-memory|^slowest|problem" "$LOGS/record_exercises.log"
echo "   cuBLAS names rc=$(cat "$LOGS/cublas_names.rc")"
grep -E "kernel\(s\)|wrote|rror" "$LOGS/cublas_names.log" | cut -c1-170

stamp "3a. Level 7 and cuBLAS under Nsight Compute where Level 7 loses"
timeout 150 $PY tools/profile_shapes.py gap --out "$OUT/level7_profiles.json" > "$LOGS/gap.log" 2>&1
echo "   gap rc=$?"; grep -E "us  SM busy|wrote|rror" "$LOGS/gap.log" | cut -c1-170

stamp "3b. module 12 as a notebook (its live zoo cell on this GPU)"
timeout 170 $PY tools/run_chapters.py --timeout 150 --chapter m12_shape_aware --out "$LOGS/notebooks" \
    > "$LOGS/chapter.log" 2>&1
echo "   chapter rc=$?"; cat "$LOGS/chapter.log" | cut -c1-200 | tail -12
if [ -f "$LOGS/notebooks/m12_shape_aware.ipynb" ]; then
  cp "$LOGS/notebooks/m12_shape_aware.ipynb" "$OUT/"
  $PY - "$OUT/m12_shape_aware.ipynb" <<'EOF'
import json, re, sys
nb = json.load(open(sys.argv[1], encoding="utf-8"))
for cell in nb["cells"]:
    for out in cell.get("outputs", []):
        html = "".join(out.get("data", {}).get("text/html", ""))
        if "모양 모음 12가지" in html:
            rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
            for row in rows:
                cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
                print("   live | " + " | ".join(cells))
        if "live)" in html or "recorded)" in html:
            text = re.sub(r"<[^>]+>", "", html)
            if "측정한 결과" in text or "기록된 결과" in text:
                print("   label: " + text[:160])
EOF
fi

stamp "4. packing"
(cd "$LOGS" && tar -czf "$OUT/issue25_logs.tgz" -- *)
ls -la "$OUT"
stamp "done"
