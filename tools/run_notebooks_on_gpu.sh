#!/usr/bin/env bash
# Every exported notebook (notebooks/*.ipynb, as Colab opens them) run on the GPU machine with the oldest
# NumPy, ipywidgets and plotly the course allows (Colab's), installed from wheels carried in .whl/:
#   here:   bash tools/prepare_device_wheels.sh, then replace NumPy/ipywidgets/plotly in .whl/ by the
#           versions to test (see the closing lines of tests/test_oldest_versions.py for Colab's);
#   there:  OUT=$OUT bash tools/run_notebooks_on_gpu.sh          (prints a table; logs under $OUT)
# The machine's CuPy stays. Chapters run in RUNNERS parallel runners (the GPU is shared, so their live
# timings are not measurements; what counts here is that every cell runs without an error).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
RUNNERS=${RUNNERS:-4}
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  > "$OUT/wheels.log" 2>&1 || { echo "wheel install failed"; tail -5 "$OUT/wheels.log"; exit 2; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 CUPY_TF32=0
$PY -c "import sys, numpy, cupy, plotly, ipywidgets; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'cupy', cupy.__version__, 'plotly', plotly.__version__, 'ipywidgets', ipywidgets.__version__); print('gpu', cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
# PAGES="m10_profiling m12_shape_aware" runs only those chapters
pages=${PAGES:-}
[ -n "$pages" ] || pages=$($PY -c "import sys; sys.path.insert(0, 'tools'); import run_chapters; print(' '.join(p.stem for p in run_chapters.chapters() if (run_chapters.REPO / 'notebooks' / (p.stem + '.ipynb')).exists()))")
i=0; for page in $pages; do echo "$page" >> "$OUT/group$((i % RUNNERS)).txt"; i=$((i + 1)); done
for g in $(seq 0 $((RUNNERS - 1))); do
  [ -f "$OUT/group$g.txt" ] || continue
  args=$(sed 's/^/--chapter /' "$OUT/group$g.txt" | tr '\n' ' ')
  timeout -k 5 520 $PY tools/run_chapters.py --exported --timeout 400 $args > "$OUT/group$g.log" 2>&1 &
done
wait
cat "$OUT"/group*.log | grep -E "^(ok  |FAIL)|^     " | sort
echo "notebooks ok: $(cat "$OUT"/group*.log | grep -c '^ok  ') of $(echo $pages | wc -w)"
