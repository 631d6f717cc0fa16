"""Global-memory access of one warp: sectors, lines and requests (simulations 4 and 5).

Model (shared by both simulations)
----------------------------------
* One warp-wide load instruction issues **one request**. The memory system serves it in
  32-byte **sectors** (``address // 32``); four sectors make a 128-byte **line**
  (``address // 128``). "Sectors per request" is the number of distinct sectors that the
  active threads of the warp touch; Nsight Compute reports its average over a kernel as
  ``l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio``.
* Threads that read the same address form a **broadcast group**: they cost one access.
* Out-of-bounds threads (the kernel's ``if (row < M && col < N)``) make no access.
* A fully coalesced 32-bit warp load touches 128 B = **4 sectors**; a 128-bit (float4) one
  touches 512 B = **16 sectors**; a column walk with rows at least 32 B apart touches
  **32 sectors**. An ideal request is therefore not "1 sector".

Simulation 4: the course's naive kernel
    ``tx = threadIdx.x``, ``ty = threadIdx.y``, thread id ``ty*bdx + tx``, warp ``w`` =
    threads ``32w .. 32w+31``; ``row = by*bdy + ty``, ``col = bx*bdx + tx``. At step ``k``
    a thread reads ``A[row][k]`` at byte ``(row*lda + k)*4`` and ``B[k][col]`` at byte
    ``(k*ldb + col)*4``, and only if ``row < M and col < N``.
    See :func:`naive_warp_request` and :func:`naive_average_sectors`.

Simulation 5: float4 and sectors per request
    One warp loads a strip of 128 floats (4 per lane) either with 32-bit loads
    (``LDG.E``, 4 instructions) or with 128-bit loads (``LDG.E.128``, 1 instruction).
    float4 divides instructions and requests by 4; it does **not** change the sectors or
    bytes that the same data occupies, so it leaves arithmetic intensity unchanged.
    A 128-bit load needs a 16-byte aligned address; a misaligned one faults on the
    hardware ("misaligned address"), which the model reports as a fault, not as numbers.
    See :func:`vector_warp_request` and :func:`strip_load`.

The views (``widget``/``figure`` for simulation 4, ``float4_widget``/``float4_figure`` for
simulation 5) only format what these functions return.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from sims._common import (
    SimInputError,
    apply_stepped_controls,
    error_figure,
    escape,
    live_widget,
    require,
    require_int_in_range,
)

WARP_SIZE = 32
SECTOR_BYTES = 32
LINE_BYTES = 128
FLOAT_BYTES = 4
MAX_BLOCK_THREADS = 1024
FLOATS_PER_LANE = 4  # the simulation-5 strip: 4 floats per lane, 128 per warp
MNEMONICS = {4: "LDG.E", 16: "LDG.E.128"}
MAPPING_LABELS = {
    "col": "threadIdx.x가 열을 고름 (코얼레싱)",
    "row": "threadIdx.x가 행을 고름 (스트라이드)",
}


# ---------------------------------------------------------------------------------------
# Generic model: one warp request
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ThreadAccess:
    """What one thread of the warp reads (address None when it makes no access)."""

    tid: int
    tx: int
    ty: int
    row: int
    col: int
    element: int | None
    address: int | None
    width_bytes: int
    in_bounds: bool

    @property
    def sector(self) -> int | None:
        return None if self.address is None else self.address // SECTOR_BYTES

    @property
    def line(self) -> int | None:
        return None if self.address is None else self.address // LINE_BYTES

    @property
    def sectors_touched(self) -> tuple[int, ...]:
        """All sectors covered by the access (one for aligned 4- and 16-byte loads)."""
        if self.address is None:
            return ()
        last = self.address + self.width_bytes - 1
        return tuple(range(self.address // SECTOR_BYTES, last // SECTOR_BYTES + 1))

    @property
    def misaligned(self) -> bool:
        return self.address is not None and self.address % self.width_bytes != 0


@dataclass(frozen=True)
class WarpRequest:
    """One warp-wide load instruction and what it costs."""

    threads: tuple[ThreadAccess, ...]
    width_bytes: int
    sectors: tuple[int, ...]
    lines: tuple[int, ...]
    broadcast_groups: tuple[tuple[int, ...], ...]
    useful_bytes: int

    @property
    def active_threads(self) -> int:
        return sum(1 for t in self.threads if t.address is not None)

    @property
    def issues_request(self) -> bool:
        # A load predicated off for the whole warp sends nothing to memory.
        return self.active_threads > 0

    @property
    def sectors_per_request(self) -> int:
        return len(self.sectors)

    @property
    def lines_per_request(self) -> int:
        return len(self.lines)

    @property
    def moved_bytes(self) -> int:
        return len(self.sectors) * SECTOR_BYTES

    @property
    def misaligned_tids(self) -> tuple[int, ...]:
        return tuple(t.tid for t in self.threads if t.misaligned)

    @property
    def fault(self) -> str | None:
        """Korean message when the hardware would fault on this request, else None."""
        bad = [t for t in self.threads if t.misaligned]
        if not bad:
            return None
        first = bad[0]
        return (f"정렬 오류(misaligned address): T{first.tid}의 주소 {first.address} B는 "
                f"{self.width_bytes} B의 배수가 아닙니다 (스레드 {len(bad)}개). "
                "GPU에서는 이 명령에서 커널이 중단됩니다.")


def summarize_request(threads, width_bytes: int) -> WarpRequest:
    """Count sectors, lines, broadcast groups and useful bytes of one warp request."""
    threads = tuple(threads)
    active = [t for t in threads if t.address is not None]
    sectors = sorted({s for t in active for s in t.sectors_touched})
    lines = sorted({s * SECTOR_BYTES // LINE_BYTES for s in sectors})
    by_address = defaultdict(list)
    for t in active:
        by_address[t.address].append(t.tid)
    groups = tuple(tuple(tids) for _, tids in sorted(by_address.items()) if len(tids) > 1)
    useful = len({b for t in active for b in range(t.address, t.address + width_bytes)})
    return WarpRequest(threads, width_bytes, tuple(sectors), tuple(lines), groups, useful)


# ---------------------------------------------------------------------------------------
# Simulation 4: the naive kernel
# ---------------------------------------------------------------------------------------

def _grid_shape(M: int, N: int, bdx: int, bdy: int) -> tuple[int, int]:
    return (-(-N // bdx), -(-M // bdy))


def validate_naive(matrix="B", M=8, N=8, K=8, ld=None, bdx=16, bdy=16,
                   bx=0, by=0, warp=0, k=0) -> dict:
    """Check the simulation-4 inputs; return them normalised (ld filled in)."""
    require(matrix in ("A", "B"),
            f"행렬(matrix)은 \"A\" 또는 \"B\"여야 합니다 (받은 값: {matrix!r})")
    M = require_int_in_range(M, "행 수 M(rows)", 1)
    N = require_int_in_range(N, "열 수 N(columns)", 1)
    K = require_int_in_range(K, "공통 차원 K", 1)
    cols = K if matrix == "A" else N
    ld_name = "lda" if matrix == "A" else "ldb"
    ld = cols if ld is None else require_int_in_range(ld, f"선행 차원 {ld_name}(leading dimension)", 1)
    require(ld >= cols, f"선행 차원 {ld_name}(leading dimension)은 행렬 {matrix}의 열 수({cols}) "
                        f"이상이어야 합니다 (받은 값: {ld})")
    bdx = require_int_in_range(bdx, "블록 너비 blockDim.x", 1, MAX_BLOCK_THREADS)
    bdy = require_int_in_range(bdy, "블록 높이 blockDim.y", 1, MAX_BLOCK_THREADS)
    require(bdx * bdy <= MAX_BLOCK_THREADS,
            f"블록 크기(block size)는 {MAX_BLOCK_THREADS} 스레드 이하여야 합니다 "
            f"(받은 값: {bdx}×{bdy} = {bdx * bdy})")
    gx, gy = _grid_shape(M, N, bdx, bdy)
    bx = require_int_in_range(bx, "블록 인덱스 blockIdx.x", 0, gx - 1)
    by = require_int_in_range(by, "블록 인덱스 blockIdx.y", 0, gy - 1)
    warps = -(-(bdx * bdy) // WARP_SIZE)
    warp = require_int_in_range(warp, "워프 번호(warp index)", 0, warps - 1)
    k = require_int_in_range(k, "단계 k(step)", 0, K - 1)
    return dict(matrix=matrix, M=M, N=N, K=K, ld=ld, bdx=bdx, bdy=bdy,
                bx=bx, by=by, warp=warp, k=k)


def naive_thread_access(tid, *, matrix, M, N, K, ld, bdx, bdy, bx, by, k) -> ThreadAccess:
    """The element one thread of the naive kernel reads at step k (inputs already valid)."""
    tx, ty = tid % bdx, tid // bdx
    row, col = by * bdy + ty, bx * bdx + tx
    in_bounds = row < M and col < N
    # A[row][k] for A; B[k][col] for B. Position (r, c) in the matrix that is read.
    r, c = (row, k) if matrix == "A" else (k, col)
    element = r * ld + c
    address = element * FLOAT_BYTES if in_bounds else None
    return ThreadAccess(tid, tx, ty, r, c, element if in_bounds else None, address,
                        FLOAT_BYTES, in_bounds)


def naive_warp_request(matrix="B", M=8, N=8, K=8, ld=None, bdx=16, bdy=16,
                       bx=0, by=0, warp=0, k=0) -> WarpRequest:
    """One warp's load of A or B at step k of the naive kernel (simulation 4)."""
    p = validate_naive(matrix, M, N, K, ld, bdx, bdy, bx, by, warp, k)
    first = p["warp"] * WARP_SIZE
    last = min(first + WARP_SIZE, p["bdx"] * p["bdy"])  # a partial last warp is shorter
    args = {key: p[key] for key in ("matrix", "M", "N", "K", "ld", "bdx", "bdy", "bx", "by", "k")}
    return summarize_request((naive_thread_access(t, **args) for t in range(first, last)),
                             FLOAT_BYTES)


@dataclass(frozen=True)
class NaiveAverage:
    """Sectors per request averaged over k and over the warps of one block."""

    a_sectors_per_request: float
    b_sectors_per_request: float
    a_requests: int
    b_requests: int

    @property
    def overall(self) -> float:
        # Nsight Compute divides total sectors by total requests over both loads.
        total = self.a_requests + self.b_requests
        if total == 0:
            return 0.0
        return (self.a_sectors_per_request * self.a_requests
                + self.b_sectors_per_request * self.b_requests) / total


def distinct_per_row(ids: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Number of distinct ids among the active entries of each row (last axis)."""
    # Inactive entries become -1 (ids are >= 0), then one sort counts the runs.
    marked = np.sort(np.where(active, ids, -1), axis=-1)
    runs = 1 + np.count_nonzero(np.diff(marked, axis=-1), axis=-1)
    has_inactive = (~active).any(axis=-1)
    return runs - has_inactive.astype(int)


def naive_average_sectors(M=4096, N=4096, K=4096, lda=None, ldb=None, bdx=16, bdy=16,
                          bx=0, by=0, ks=None) -> NaiveAverage:
    """Average sectors/request of the naive kernel's A and B loads over k and warps.

    ks: the steps to include (default all 0..K-1). Warps with no in-bounds thread issue
    no request and are left out of the average, as the hardware counters do.
    """
    p_a = validate_naive("A", M, N, K, lda, bdx, bdy, bx, by, 0, 0)
    p_b = validate_naive("B", M, N, K, ldb, bdx, bdy, bx, by, 0, 0)
    ks = np.arange(K) if ks is None else np.asarray(
        [require_int_in_range(k, "단계 k(step)", 0, K - 1) for k in ks], dtype=np.int64)
    nthreads = bdx * bdy
    warps = -(-nthreads // WARP_SIZE)
    tid = np.arange(warps * WARP_SIZE).reshape(warps, WARP_SIZE)
    exists = tid < nthreads
    row = by * bdy + tid // bdx
    col = bx * bdx + tid % bdx
    active = exists & (row < M) & (col < N)
    kk = ks[:, None, None]
    a_sector = ((row[None] * p_a["ld"] + kk) * FLOAT_BYTES) // SECTOR_BYTES
    b_sector = ((kk * p_b["ld"] + col[None]) * FLOAT_BYTES) // SECTOR_BYTES
    act = np.broadcast_to(active[None], a_sector.shape)
    a_mean, a_n = _mean_over_requests(a_sector, act)
    b_mean, b_n = _mean_over_requests(b_sector, act)
    return NaiveAverage(a_mean, b_mean, a_n, b_n)


def _mean_over_requests(sector_ids: np.ndarray, active: np.ndarray) -> tuple[float, int]:
    """Mean distinct sectors over the requests actually issued, and their number."""
    counts = distinct_per_row(sector_ids, active)
    issued = active.any(axis=-1)
    n = int(issued.sum())
    return (float(counts[issued].mean()) if n else 0.0), n


# ---------------------------------------------------------------------------------------
# Simulation 5: float4 strip loads
# ---------------------------------------------------------------------------------------

def validate_vector(mapping="col", width_bytes=4, base_offset=0, lda=4096) -> dict:
    """Check the simulation-5 inputs."""
    require(mapping in MAPPING_LABELS,
            f"배치(mapping)는 \"col\" 또는 \"row\"여야 합니다 (받은 값: {mapping!r})")
    require(width_bytes in MNEMONICS,
            f"접근 폭(access width)은 4 B(32비트) 또는 16 B(128비트, float4)여야 합니다 "
            f"(받은 값: {width_bytes!r})")
    base_offset = require_int_in_range(base_offset, "시작 오프셋(base offset, float 단위)", 0, 1 << 20)
    lda = require_int_in_range(lda, "선행 차원 lda(leading dimension)", 1, 1 << 20)
    if mapping == "row":
        # Each lane reads 4 floats of its own row; they must lie inside that row.
        require(lda >= base_offset + FLOATS_PER_LANE,
                f"선행 차원 lda(leading dimension)은 시작 오프셋 + {FLOATS_PER_LANE} "
                f"= {base_offset + FLOATS_PER_LANE} 이상이어야 합니다 (받은 값: {lda})")
    return dict(mapping=mapping, width_bytes=int(width_bytes), base_offset=base_offset, lda=lda)


def instructions_per_strip(width_bytes: int) -> int:
    """Warp instructions needed for 4 floats per lane: 4 LDG.E or 1 LDG.E.128."""
    return FLOATS_PER_LANE * FLOAT_BYTES // width_bytes


def _strip_position(mapping, width_bytes, lane, instruction, base_offset):
    """(row, first column) of what lane reads in the given instruction of the strip."""
    if mapping == "col":
        # The strip is 128 consecutive floats of row 0; 32-bit loads walk it warp-wide
        # (lane i, instruction j -> base + 32j + i), float4 gives each lane 4 in a row.
        if width_bytes == FLOAT_BYTES:
            return 0, base_offset + WARP_SIZE * instruction + lane
        return 0, base_offset + FLOATS_PER_LANE * lane
    # "row": lane i owns 4 floats of row i; the 32-bit version takes one per instruction.
    step = instruction if width_bytes == FLOAT_BYTES else 0
    return lane, base_offset + step


def vector_warp_request(mapping="col", width_bytes=4, base_offset=0, lda=4096,
                        instruction=0) -> WarpRequest:
    """One warp instruction of the simulation-5 strip load."""
    p = validate_vector(mapping, width_bytes, base_offset, lda)
    count = instructions_per_strip(p["width_bytes"])
    instruction = require_int_in_range(instruction, "명령 번호(instruction)", 0, count - 1)
    threads = []
    for lane in range(WARP_SIZE):
        row, col = _strip_position(p["mapping"], p["width_bytes"], lane, instruction,
                                   p["base_offset"])
        element = row * p["lda"] + col
        threads.append(ThreadAccess(lane, lane, 0, row, col, element, element * FLOAT_BYTES,
                                    p["width_bytes"], True))
    return summarize_request(threads, p["width_bytes"])


@dataclass(frozen=True)
class StripLoad:
    """A warp loading 128 floats (4 per lane): all its instructions and their cost."""

    mapping: str
    width_bytes: int
    base_offset: int
    lda: int
    requests: tuple[WarpRequest, ...]

    @property
    def mnemonic(self) -> str:
        return MNEMONICS[self.width_bytes]

    @property
    def instructions(self) -> int:
        return len(self.requests)

    @property
    def request_count(self) -> int:
        # One request per warp-wide load instruction.
        return sum(1 for r in self.requests if r.issues_request)

    @property
    def total_sectors(self) -> int:
        # A sector requested by two instructions is counted twice: each request asks for it.
        return sum(r.sectors_per_request for r in self.requests)

    @property
    def sectors_per_request(self) -> float:
        return self.total_sectors / self.request_count

    @property
    def moved_bytes(self) -> int:
        return self.total_sectors * SECTOR_BYTES

    @property
    def distinct_sectors(self) -> int:
        """Sectors the strip's data occupies: the same for 32- and 128-bit loads."""
        return len({s for r in self.requests for s in r.sectors})

    @property
    def useful_bytes(self) -> int:
        return WARP_SIZE * FLOATS_PER_LANE * FLOAT_BYTES

    @property
    def efficiency(self) -> float:
        """Useful bytes / bytes in the requested sectors (1.0 = no wasted sector bytes)."""
        return self.useful_bytes / self.moved_bytes

    @property
    def fault(self) -> str | None:
        return next((r.fault for r in self.requests if r.fault), None)


def strip_load(mapping="col", width_bytes=4, base_offset=0, lda=4096) -> StripLoad:
    """The whole 128-float strip of simulation 5 (4 LDG.E or 1 LDG.E.128)."""
    p = validate_vector(mapping, width_bytes, base_offset, lda)
    requests = tuple(vector_warp_request(**p, instruction=j)
                     for j in range(instructions_per_strip(p["width_bytes"])))
    return StripLoad(p["mapping"], p["width_bytes"], p["base_offset"], p["lda"], requests)


# ---------------------------------------------------------------------------------------
# Views: text formatting shared by the widget and the figure (numbers come from the model)
# ---------------------------------------------------------------------------------------

def _thread_label(t: ThreadAccess, matrix: str) -> str:
    if t.address is None:
        return f"T{t.tid} (tx={t.tx}, ty={t.ty}): 경계 밖 — 접근 없음"
    return (f"T{t.tid} (tx={t.tx}, ty={t.ty}): {matrix}[{t.row}][{t.col}] · 원소 {t.element}"
            f" · 주소 {t.address} B · 섹터 {t.sector} · 라인 {t.line}")


def request_summary(req: WarpRequest, matrix: str, k: int) -> str:
    """One-line Korean summary of a simulation-4 request."""
    if not req.issues_request:
        return f"{matrix} 읽기, k={k}: 활성 스레드가 없어 요청(request)이 나가지 않습니다"
    return (f"{matrix} 읽기, k={k}: 요청 1개당 섹터(sector) {req.sectors_per_request}개, "
            f"128 B 라인(line) {req.lines_per_request}개 · 활성 스레드 {req.active_threads}/"
            f"{len(req.threads)} · 브로드캐스트(broadcast) 그룹 {len(req.broadcast_groups)}개")


def _request_table_html(req: WarpRequest, matrix: str) -> str:
    head = ("<tr><th>스레드</th><th>tx</th><th>ty</th><th>원소</th><th>주소 (B)</th>"
            "<th>섹터</th><th>128 B 라인</th></tr>")
    rows = []
    for t in req.threads:
        if t.address is None:
            rows.append(f"<tr style='color:#999'><td>T{t.tid}</td><td>{t.tx}</td><td>{t.ty}</td>"
                        "<td colspan='4'>경계 밖 (접근 없음)</td></tr>")
        else:
            rows.append(f"<tr><td>T{t.tid}</td><td>{t.tx}</td><td>{t.ty}</td>"
                        f"<td>{matrix}[{t.row}][{t.col}] = {t.element}</td><td>{t.address}</td>"
                        f"<td>{t.sector}</td><td>{t.line}</td></tr>")
    return ("<table style='border-collapse:collapse;font-size:12px'><caption>스레드별 주소, 섹터, 라인</caption>" + head + "".join(rows)
            + "</table>")


def _naive_result_html(params: dict) -> str:
    req = naive_warp_request(**params)
    avg_kwargs = dict(M=params["M"], N=params["N"], K=params["K"], bdx=params["bdx"],
                      bdy=params["bdy"], bx=params["bx"], by=params["by"])
    avg_kwargs["lda" if params["matrix"] == "A" else "ldb"] = params["ld"]
    avg = naive_average_sectors(**avg_kwargs, ks=range(min(params["K"], 64)))
    groups = ", ".join("{" + ", ".join(f"T{t}" for t in g) + "}" for g in req.broadcast_groups)
    return (f"<p><b>{escape(request_summary(req, params['matrix'], params['k']))}</b></p>"
            f"<p>섹터 번호: {list(req.sectors)} · 라인 번호: {list(req.lines)}</p>"
            f"<p>브로드캐스트 그룹: {groups or '없음'}</p>"
            f"<p>이 블록의 모든 워프, k = 0..{min(params['K'], 64) - 1} 평균: "
            f"A {avg.a_sectors_per_request:.2f} · B {avg.b_sectors_per_request:.2f} · "
            f"전체 {avg.overall:.2f} 섹터/요청</p>"
            + _request_table_html(req, params["matrix"]))


def _strip_result_html(params: dict) -> str:
    strip = strip_load(**params)
    if strip.fault:
        return f"<p><b>{escape(strip.fault)}</b></p>"
    first = strip.requests[0]
    lanes = "".join(
        f"<tr><td>T{t.tid}</td><td>[{t.row}][{t.col}..{t.col + t.width_bytes // FLOAT_BYTES - 1}]</td>"
        f"<td>{t.address}</td><td>{list(t.sectors_touched)}</td></tr>" for t in first.threads)
    return (f"<p><b>{escape(strip_summary(strip))}</b></p>"
            f"<p>{escape(FLOAT4_NOTE)}</p>"
            "<p>첫 번째 명령의 레인별 접근:</p>"
            "<table style='border-collapse:collapse;font-size:12px'><caption>첫 번째 명령의 레인별 주소와 섹터</caption><tr><th>레인</th>"
            "<th>[행][열]</th><th>주소 (B)</th><th>섹터</th></tr>" + lanes + "</table>")


FLOAT4_NOTE = ("float4(128비트 로드)는 같은 데이터를 읽는 명령 수와 요청 수를 4분의 1로 줄입니다. "
               "그러나 같은 데이터가 차지하는 섹터와 바이트는 그대로이므로 산술 강도(arithmetic "
               "intensity)는 변하지 않습니다.")


def strip_summary(strip: StripLoad) -> str:
    """Korean summary of a simulation-5 strip load."""
    if strip.fault:
        return strip.fault
    return (f"{strip.mnemonic} × {strip.instructions} (명령 {strip.instructions}개 = 요청 "
            f"{strip.request_count}개) · 요청 1개당 섹터 {strip.sectors_per_request:g}개 · "
            f"요청한 섹터 합계 {strip.total_sectors}개 = {strip.moved_bytes} B, 유효 "
            f"{strip.useful_bytes} B (효율 {strip.efficiency:.0%}) · 데이터가 걸친 서로 다른 섹터 "
            f"{strip.distinct_sectors}개")


# ---------------------------------------------------------------------------------------
# Widget views (JupyterLab)
# ---------------------------------------------------------------------------------------

NAIVE_TOOLTIPS = {
    "matrix": "워프가 읽는 행렬: A(행을 따라 읽음) 또는 B(열을 따라 읽음)",
    "M": "행렬 크기 M: A와 C의 행 수",
    "N": "행렬 크기 N: B와 C의 열 수",
    "K": "행렬 크기 K: A의 열 수이자 B의 행 수",
    "ld": "선행 차원(leading dimension): 한 행에서 다음 행까지 건너뛰는 원소 수 (lda 또는 ldb)",
    "bdx": "스레드 블록의 x 크기 bdx (blockDim.x, 스레드 수)",
    "bdy": "스레드 블록의 y 크기 bdy (blockDim.y, 스레드 수)",
    "bx": "블록 번호 x (blockIdx.x)",
    "by": "블록 번호 y (blockIdx.y)",
    "warp": "블록 안의 워프 번호 (0부터)",
    "k": "내적 루프의 반복 번호 k (0부터 K−1까지)",
}
STRIP_TOOLTIPS = {
    "mapping": "스레드 배치: threadIdx.x가 열을 고르는지(코얼레싱) 행을 고르는지",
    "width_bytes": "한 스레드가 한 번에 읽는 폭: 32비트(LDG.E) 또는 128비트 float4(LDG.E.128)",
    "base_offset": "첫 원소의 시작 오프셋 (float 단위, 16 B 정렬이 깨지는지 확인)",
    "lda": "A의 선행 차원 lda (행 배치에서 행 사이 간격, float 단위)",
}


def widget(**initial):
    """Simulation 4 in JupyterLab: pick the matrix, sizes, lda, block, warp and k."""
    import ipywidgets as w

    p = dict(matrix="B", M=8, N=8, K=8, ld=8, bdx=16, bdy=16, bx=0, by=0, warp=0, k=0)
    p.update(initial)
    short = w.Layout(width="150px")
    controls = {
        "matrix": w.ToggleButtons(options=["A", "B"], value=p["matrix"], description="행렬"),
        "M": w.IntText(value=p["M"], description="M", layout=short),
        "N": w.IntText(value=p["N"], description="N", layout=short),
        "K": w.IntText(value=p["K"], description="K", layout=short),
        "ld": w.IntText(value=p["ld"], description="lda/ldb", layout=short),
        "bdx": w.IntText(value=p["bdx"], description="bdx", layout=short),
        "bdy": w.IntText(value=p["bdy"], description="bdy", layout=short),
        "bx": w.IntText(value=p["bx"], description="bx", layout=short),
        "by": w.IntText(value=p["by"], description="by", layout=short),
        "warp": w.IntText(value=p["warp"], description="워프", layout=short),
        "k": w.IntText(value=p["k"], description="k", layout=short),
    }
    return live_widget(controls, _naive_result_html,
                        "시뮬레이션 4: 워프 하나의 글로벌 메모리 접근과 섹터(sector)", NAIVE_TOOLTIPS)


def float4_widget(**initial):
    """Simulation 5 in JupyterLab: mapping, load width, base offset and lda."""
    import ipywidgets as w

    p = dict(mapping="col", width_bytes=4, base_offset=0, lda=4096)
    p.update(initial)
    controls = {
        "mapping": w.ToggleButtons(options=[(v, k) for k, v in MAPPING_LABELS.items()],
                                   value=p["mapping"], description="배치"),
        "width_bytes": w.ToggleButtons(options=[("32비트 (LDG.E)", 4), ("128비트 float4 (LDG.E.128)", 16)],
                                       value=p["width_bytes"], description="폭"),
        "base_offset": w.IntText(value=p["base_offset"], description="시작 오프셋"),
        "lda": w.IntText(value=p["lda"], description="lda"),
    }
    return live_widget(controls, _strip_result_html,
                        "시뮬레이션 5: float4와 요청 1개당 섹터 수 (워프당 float 128개)", STRIP_TOOLTIPS)


# ---------------------------------------------------------------------------------------
# Static figure views (no kernel): precomputed states behind buttons and a slider
# ---------------------------------------------------------------------------------------

# Eight distinguishable colours; sector rank r is drawn with colour r mod 8.
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
_STEP_COLORSCALE = [[pos, c] for i, c in enumerate(_PALETTE) for pos in (i / 8, (i + 1) / 8)]


def _warp_grid(req: WarpRequest):
    """Rows (ty values) and columns (tx values) spanned by the warp's threads."""
    tys = sorted({t.ty for t in req.threads})
    txs = sorted({t.tx for t in req.threads})
    return tys, txs


def _naive_state(params: dict):
    """(data_update, layout_update) of the simulation-4 heatmap for one parameter set."""
    try:
        req = naive_warp_request(**params)
    except SimInputError as err:
        return ({"z": [[[None]]], "text": [[[""]]], "hovertext": [[[""]]], "x": [[0]], "y": [[0]]},
                {"title.text": f"입력 오류: {escape(str(err))}"})
    tys, txs = _warp_grid(req)
    rank = {s: i for i, s in enumerate(req.sectors)}
    z = [[None] * len(txs) for _ in tys]
    text = [[""] * len(txs) for _ in tys]
    hover = [[""] * len(txs) for _ in tys]
    for t in req.threads:
        i, j = tys.index(t.ty), txs.index(t.tx)
        hover[i][j] = _thread_label(t, params["matrix"])
        if t.address is None:
            text[i][j] = "×"
        else:
            z[i][j] = rank[t.sector] % len(_PALETTE)
            text[i][j] = str(t.element)
    title = escape(request_summary(req, params["matrix"], params["k"]))
    ld_name = "lda" if params["matrix"] == "A" else "ldb"
    sub = (f"M={params['M']}, N={params['N']}, K={params['K']}, {ld_name}={params['ld']}, "
           f"블록 {params['bdx']}×{params['bdy']}, 워프 {params['warp']} · 칸 숫자 = 원소 번호, "
           "색 = 섹터, × = 경계 밖")
    return ({"z": [z], "text": [text], "hovertext": [hover], "x": [txs], "y": [tys]},
            {"title.text": f"{title}<br><sup>{escape(sub)}</sup>"})


def figure(matrix="B", M=8, N=8, K=8, ld=None, bdx=16, bdy=16, bx=0, by=0, warp=0, k=0,
           k_values=range(8), far_ld=4096):
    """Simulation 4 as a static interactive figure.

    Buttons: A or B, with the given leading dimension and with ``far_ld`` (the seed's
    extrapolation to lda = 4096). Slider: k over k_values (clipped to 0..K-1).
    """
    try:
        start = validate_naive(matrix, M, N, K, ld, bdx, bdy, bx, by, warp, k)
    except SimInputError as err:
        return error_figure(err, "시뮬레이션 4 입력 오류")
    import plotly.graph_objects as go

    ks = sorted({kv for kv in k_values if 0 <= kv < start["K"]} | {start["k"]})
    groups = []
    for mat in ("B", "A"):
        cols = start["K"] if mat == "A" else start["N"]
        given_ld = start["ld"] if mat == start["matrix"] else cols
        for ld_value in dict.fromkeys([given_ld, max(far_ld, cols)]):
            base = dict(start, matrix=mat, ld=ld_value)
            name = "lda" if mat == "A" else "ldb"
            steps = [(str(kv), *_naive_state(dict(base, k=kv))) for kv in ks]
            groups.append((f"{mat} 읽기 · {name}={ld_value}", steps, mat, ld_value))
    active_group = next(i for i, g in enumerate(groups)
                        if g[2] == start["matrix"] and g[3] == start["ld"])
    fig = go.Figure(go.Heatmap(
        z=[[None]], colorscale=_STEP_COLORSCALE, zmin=0, zmax=len(_PALETTE), showscale=False,
        texttemplate="%{text}", hoverinfo="text", xgap=2, ygap=2,
    ))
    fig.update_layout(
        height=380, margin={"t": 110, "l": 60, "r": 20, "b": 40},
        xaxis={"title": {"text": "threadIdx.x (tx)"}, "dtick": 1},
        yaxis={"title": {"text": "threadIdx.y (ty)"}, "dtick": 1, "autorange": "reversed"},
        title={"font": {"size": 14}, "y": 0.97},
    )
    return apply_stepped_controls(
        fig, [(label, steps) for label, steps, _, _ in groups],
        active_group=active_group, active_step=ks.index(start["k"]), slider_prefix="k = ",
        menu_y=1.1, slider_name="k (K 방향 반복)", menu_name="읽는 행렬과 선행 차원")


def _strip_state(params: dict):
    """(data_update, layout_update) of the simulation-5 figure for one parameter set."""
    labels = ["명령(instruction)", "요청(request)", "섹터(sector)"]
    try:
        strip = strip_load(**params)
    except SimInputError as err:
        strip, message = None, f"입력 오류: {err}"
    else:
        message = strip.fault
    if strip is None or strip.fault:
        return ({"x": [[], labels], "y": [[], [0, 0, 0]], "hovertext": [[], ["", "", ""]]},
                {"title.text": escape(message)})
    first = strip.requests[0]
    used = defaultdict(int)
    lanes = defaultdict(list)
    for t in first.threads:
        for byte in range(t.address, t.address + t.width_bytes):
            used[byte // SECTOR_BYTES] += 1
        lanes[t.sector].append(t.tid)
    x = [f"섹터 {s}" for s in first.sectors]
    y = [used[s] for s in first.sectors]
    hover = [f"섹터 {s}: 주소 {s * SECTOR_BYTES}..{s * SECTOR_BYTES + 31} B, 유효 {used[s]} B/32 B, "
             f"레인 {', '.join(f'T{t}' for t in lanes[s])}" for s in first.sectors]
    counts = [strip.instructions, strip.request_count, strip.total_sectors]
    title = (f"{MAPPING_LABELS[strip.mapping]} · {strip.mnemonic}: "
             f"요청 1개당 섹터 {strip.sectors_per_request:g}개<br><sup>"
             f"워프당 float 128개: 명령 {strip.instructions}개, 요청한 섹터 {strip.total_sectors}개 "
             f"({strip.moved_bytes} B, 유효 {strip.useful_bytes} B, 효율 {strip.efficiency:.0%}), "
             f"서로 다른 섹터 {strip.distinct_sectors}개 · 오프셋 {strip.base_offset}, "
             f"lda {strip.lda}{' (이 배치에서는 주소와 무관)' if strip.mapping == 'col' else ''}"
             "</sup>")
    return ({"x": [x, labels], "y": [y, counts],
             "hovertext": [hover, [f"{label}: {c}" for label, c in zip(labels, counts)]]},
            {"title.text": title})


DEFAULT_VECTOR_STEPS = ((0, 4096), (1, 4096), (4, 4096), (0, 4097), (0, 8), (0, 4))


def float4_figure(mapping="col", width_bytes=4, base_offset=0, lda=4096,
                  steps=DEFAULT_VECTOR_STEPS):
    """Simulation 5 as a static interactive figure.

    Buttons: mapping × load width (4 groups). Slider: (base offset, lda) pairs from steps,
    plus the given pair. Left: the sectors of the first instruction and the useful bytes
    in each; right: instructions, requests and sectors for the whole 128-float strip.
    """
    try:
        start = validate_vector(mapping, width_bytes, base_offset, lda)
    except SimInputError as err:
        return error_figure(err, "시뮬레이션 5 입력 오류")
    from plotly.subplots import make_subplots
    import plotly.graph_objects as go

    pairs = list(dict.fromkeys([(start["base_offset"], start["lda"]), *steps]))
    groups = []
    for mp in MAPPING_LABELS:
        for width in MNEMONICS:
            states = [(f"오프셋 {b} · lda {l}",
                       *_strip_state(dict(mapping=mp, width_bytes=width, base_offset=b, lda=l)))
                      for b, l in pairs]
            groups.append((f"{'열' if mp == 'col' else '행'} · {MNEMONICS[width]}", states, mp, width))
    active_group = next(i for i, g in enumerate(groups)
                        if g[2] == start["mapping"] and g[3] == start["width_bytes"])
    fig = make_subplots(rows=1, cols=2, column_widths=[0.68, 0.32], horizontal_spacing=0.1,
                        subplot_titles=("첫 번째 명령이 건드리는 섹터: 유효 바이트 (B)",
                                        "float 128개를 읽는 데 필요한 개수"))
    fig.add_trace(go.Bar(x=[], y=[], marker_color="#1f77b4", hoverinfo="text",
                         name="유효 바이트"), row=1, col=1)
    fig.add_trace(go.Bar(x=[], y=[], marker_color=["#7f7f7f", "#2ca02c", "#d62728"],
                         hoverinfo="text", texttemplate="%{y}", name="개수"), row=1, col=2)
    fig.update_yaxes(range=[0, SECTOR_BYTES], title_text="B / 섹터 32 B", row=1, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    fig.update_layout(height=440, showlegend=False, margin={"t": 130, "l": 60, "r": 20, "b": 80},
                      title={"font": {"size": 14}, "y": 0.97})
    return apply_stepped_controls(
        fig, [(label, states) for label, states, _, _ in groups],
        active_group=active_group, active_step=0, slider_prefix="", menu_y=1.17,
        slider_name="시작 오프셋과 lda", menu_name="스레드 배치와 로드 폭")
