#!/usr/bin/env bash
# One GPU session (run from the repository root on the GPU machine) for three of the book's records:
# the cp.async (LDGSTS) counts for every profiled kernel and Level 3 with RB_PAD=4 under Nsight Compute
# (book/data/profiles.json), the unshipped variants timed against their bases (variants.json), and Level 5's
# per-instruction stall samples ($OUT/l5v_source.csv, which tools/source_stalls.py turns into source_stalls.json).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export CUPY_TF32=0
python tools/profile_levels.py --cublas --keys ldgsts_access_sectors,ldgsts_bypass_sectors,ldgsts_access_requests,ldgsts_bypass_requests --merge 2>&1 | tail -20
python tools/profile_levels.py --kernel sgemm_register_blocking --variant sgemm_register_blocking:RB_PAD=4 --merge 2>&1 | tail -4
cp book/data/profiles.json "$OUT/"
python tools/record_variants.py 2>&1 | tail -12
cp book/data/variants.json "$OUT/"
ncu --clock-control none --section SourceCounters --section WarpStateStats --kernel-name sgemm_async_copy_vec \
    --launch-skip 1 --launch-count 1 -f -o "$OUT/l5v" python tools/ncu_one.py sgemm_async_copy_vec 4096 > "$OUT/ncu_l5v.log" 2>&1
ncu -i "$OUT/l5v.ncu-rep" --page source --csv --print-source sass > "$OUT/l5v_source.csv" 2> "$OUT/l5v_source.err"
echo "source csv: $(wc -l < "$OUT/l5v_source.csv") lines"; head -c 600 "$OUT/l5v_source.csv"; echo; tail -3 "$OUT/l5v_source.err"
