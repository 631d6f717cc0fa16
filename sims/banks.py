"""Shared-memory bank conflicts of one warp request (simulation 6).

Model (the course's one model, stated in book/appendix/models.md, section "LDS.128 service")
----------------------------------------------------------------------------------------------
* Shared memory has 32 banks of 4 bytes: 32-bit word ``w`` lives in bank ``w mod 32``.
* The array is ``float s[rows][cols + padding]``: its row pitch is ``cols + padding``
  words. An access of width W words (1 for 32-bit, 4 for 128-bit float4) at logical
  position ``[r][c]`` starts at word ``r*pitch + c*W`` (the column index counts elements of
  the access width) and covers W consecutive words.
* A request is served in **passes**: a 32-bit request in one pass of the whole warp; a 128-bit
  request (LDS.128/STS.128) in two passes, one per **half-warp** (lanes 0-15, then 16-31).
  The half-warp service is a model fitted to Nsight Compute's counters on the H100 (module 6's
  four tiled kernels, module 7's micro-kernel: book/data/profiles.json), not a documented
  hardware fact; the whole-warp pass for 128-bit (``service="warp"``) is kept only as the
  rejected alternative module 6 compares it with.
* Within one pass, collect the **distinct** words its lanes touch. Lanes that read the same
  word are a **broadcast** and cost nothing extra; a broadcast never crosses passes (two
  half-warps reading the same float4 each pay for it). A pass costs the largest number of
  distinct words that fall into one bank; the request's **wavefronts** are the sum over its
  passes. **Ideal wavefronts** = the sum over passes of ``ceil(distinct words / 32)``: a
  conflict-free half-warp of 16 distinct float4 (64 words) costs 2. The **n-way conflict** is
  wavefronts / ideal.
* A 128-bit access needs a 16-byte aligned address (start word a multiple of 4). A
  misaligned one faults on the hardware ("misaligned address"); the model reports it as a
  fault of the request, not as a cost.

What the model counts is a lower bound of Nsight's wavefronts per instruction: other traffic adds a
few percent (16x16 tile store on H100: model 1 unpadded / 2 padded, measured 1.07 / 2.03), and
Level 6's conflict-free LDS.128 measures more than the model's 2 (module 11).

Threads map to ``(tx, ty)`` as in CUDA: ``tid = ty*bdx + tx``; warp ``w`` holds threads
``32w .. 32w+31`` of the block; lane = ``tid mod 32``.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from sims._common import (
    SimInputError,
    apply_stepped_controls,
    error_figure,
    escape,
    live_widget,
    require,
    require_int_in_range,
)

NUM_BANKS = 32
BANK_BYTES = 4
WARP_SIZE = 32
MAX_BLOCK_THREADS = 1024
MAX_PADDING = 8
WIDTH_WORDS = {4: 1, 16: 4}
# Lanes served together in one pass, per access width: the half-warp model of 128-bit accesses (fitted in
# module 6) and, for module 6's comparison only, the rejected whole-warp model.
SERVICES = {
    "half-warp": {4: WARP_SIZE, 16: WARP_SIZE // 2},
    "warp": {4: WARP_SIZE, 16: WARP_SIZE},
}
SERVICE = "half-warp"

# Access expressions: (kind, row index, column index) in terms of tx, ty and k.
EXPRESSIONS = {
    "load [ty][k]": ("load", "ty", "k"),
    "load [k][tx]": ("load", "k", "tx"),
    "load [tx][k]": ("load", "tx", "k"),
    "store [ty][tx]": ("store", "ty", "tx"),
}


@dataclass(frozen=True)
class ThreadBankAccess:
    """The words (and banks) one thread touches."""

    tid: int
    tx: int
    ty: int
    row: int
    col: int
    words: tuple[int, ...]

    @property
    def banks(self) -> tuple[int, ...]:
        return tuple(w % NUM_BANKS for w in self.words)

    @property
    def misaligned(self) -> bool:
        return len(self.words) > 1 and self.words[0] % len(self.words) != 0


@dataclass(frozen=True)
class BankPass:
    """The lanes served together (a whole warp, or a half-warp for 128-bit) and their words per bank."""

    tids: tuple[int, ...]
    words_per_bank: tuple[tuple[int, ...], ...]

    @property
    def distinct_words(self) -> int:
        return sum(len(ws) for ws in self.words_per_bank)

    @property
    def wavefronts(self) -> int:
        return max((len(ws) for ws in self.words_per_bank), default=0)

    @property
    def ideal_wavefronts(self) -> int:
        return math.ceil(self.distinct_words / NUM_BANKS)


@dataclass(frozen=True)
class BankRequest:
    """One warp's shared-memory request and its cost in wavefronts."""

    threads: tuple[ThreadBankAccess, ...]
    width_bytes: int
    pitch: int
    kind: str
    words_per_bank: tuple[tuple[int, ...], ...]  # per bank, the distinct words of its busiest pass, sorted
    broadcast_groups: tuple[tuple[int, tuple[int, ...]], ...]  # (start word, tids) inside one pass, 2+ tids
    passes: tuple["BankPass", ...] = ()
    service: str = SERVICE

    @property
    def active_threads(self) -> int:
        return len(self.threads)

    @property
    def distinct_words(self) -> int:
        """Distinct words of the whole request (two passes reading one word count it once)."""
        return len({w for t in self.threads for w in t.words})

    @property
    def wavefronts(self) -> int:
        """Sum over the passes of the busiest bank's distinct words."""
        return sum(p.wavefronts for p in self.passes)

    @property
    def ideal_wavefronts(self) -> int:
        return sum(p.ideal_wavefronts for p in self.passes)

    @property
    def pass_ideal(self) -> int:
        """The most one pass needs without a conflict: a bank bar above it is a conflict."""
        return max((p.ideal_wavefronts for p in self.passes), default=0)

    @property
    def conflict_ways(self) -> float:
        """wavefronts / ideal: 1 means no conflict, 2 a 2-way conflict, ..."""
        return self.wavefronts / self.ideal_wavefronts if self.ideal_wavefronts else 0.0

    @property
    def misaligned_tids(self) -> tuple[int, ...]:
        return tuple(t.tid for t in self.threads if t.misaligned)

    @property
    def fault(self) -> str | None:
        bad = [t for t in self.threads if t.misaligned]
        if not bad:
            return None
        t = bad[0]
        return (f"정렬 오류(misaligned address): T{t.tid}의 float4가 워드 {t.words[0]} "
                f"(주소 {t.words[0] * BANK_BYTES} B)에서 시작해 16 B 정렬이 아닙니다 "
                f"(스레드 {len(bad)}개, 행 피치 {self.pitch} 워드). GPU에서는 커널이 중단됩니다.")

    def threads_in_bank(self, bank: int) -> tuple[int, ...]:
        return tuple(t.tid for t in self.threads if bank in t.banks)


def validate(rows=16, cols=16, padding=0, width_bytes=4, bdx=16, bdy=16, warp=0,
             expression="load [ty][k]", k=0) -> dict:
    """Check the simulation-6 inputs; return them normalised."""
    rows = require_int_in_range(rows, "배열 행 수(rows)", 1, 4096)
    cols = require_int_in_range(cols, "배열 열 수(cols)", 1, 4096)
    padding = require_int_in_range(padding, "패딩(padding, 추가 열)", 0, MAX_PADDING)
    require(width_bytes in WIDTH_WORDS,
            f"원소 폭(element width)은 4 B(32비트) 또는 16 B(128비트, float4)여야 합니다 "
            f"(받은 값: {width_bytes!r})")
    bdx = require_int_in_range(bdx, "블록 너비 blockDim.x", 1, MAX_BLOCK_THREADS)
    bdy = require_int_in_range(bdy, "블록 높이 blockDim.y", 1, MAX_BLOCK_THREADS)
    require(bdx * bdy <= MAX_BLOCK_THREADS,
            f"블록 크기(block size)는 {MAX_BLOCK_THREADS} 스레드 이하여야 합니다 "
            f"(받은 값: {bdx}×{bdy} = {bdx * bdy})")
    warp = require_int_in_range(warp, "워프 번호(warp index)", 0, -(-(bdx * bdy) // WARP_SIZE) - 1)
    require(expression in EXPRESSIONS,
            f"접근식(access expression)은 {', '.join(EXPRESSIONS)} 중 하나여야 합니다 "
            f"(받은 값: {expression!r})")
    width = WIDTH_WORDS[width_bytes]
    require(cols % width == 0,
            f"float4 접근에는 열 수(cols)가 4의 배수여야 합니다 (받은 값: {cols})")
    _, row_of, col_of = EXPRESSIONS[expression]
    if "k" in (row_of, col_of):
        k_limit = rows if row_of == "k" else cols // width
        k = require_int_in_range(k, "k 스텝(k-step)", 0, k_limit - 1)
    else:
        k = 0  # the store does not use k
    return dict(rows=rows, cols=cols, padding=padding, width_bytes=int(width_bytes), bdx=bdx,
                bdy=bdy, warp=warp, expression=expression, k=k)


def _thread_access(tid, p) -> ThreadBankAccess:
    tx, ty = tid % p["bdx"], tid // p["bdx"]
    index = {"tx": tx, "ty": ty, "k": p["k"]}
    _, row_of, col_of = EXPRESSIONS[p["expression"]]
    row, col = index[row_of], index[col_of]
    width = WIDTH_WORDS[p["width_bytes"]]
    # Indexing outside the declared array is a bug in the kernel, not a bank question.
    if row >= p["rows"] or (col + 1) * width > p["cols"]:
        in_float4 = f" (float4 열 {p['cols'] // width}개)" if width > 1 else ""
        raise SimInputError(
            f"스레드 T{tid} (tx={tx}, ty={ty})의 접근 [{row}][{col}]이 배열 범위를 벗어납니다: "
            f"배열은 {p['rows']}×{p['cols']}{in_float4}입니다. "
            "블록 모양(block shape)이나 배열 크기를 바꾸세요")
    start = row * (p["cols"] + p["padding"]) + col * width
    return ThreadBankAccess(tid, tx, ty, row, col, tuple(range(start, start + width)))


def bank_request(rows=16, cols=16, padding=0, width_bytes=4, bdx=16, bdy=16, warp=0,
                 expression="load [ty][k]", k=0, service=SERVICE) -> BankRequest:
    """Simulate one warp's shared-memory access and count its wavefronts (128-bit: per half-warp)."""
    p = validate(rows, cols, padding, width_bytes, bdx, bdy, warp, expression, k)
    first = p["warp"] * WARP_SIZE
    last = min(first + WARP_SIZE, p["bdx"] * p["bdy"])
    threads = tuple(_thread_access(tid, p) for tid in range(first, last))
    return summarize(threads, p["width_bytes"], p["cols"] + p["padding"],
                     EXPRESSIONS[p["expression"]][0], service)


def _require_service(service: str) -> dict:
    require(service in SERVICES, f"처리 모델(service)은 {', '.join(SERVICES)} 중 하나여야 합니다 "
                                 f"(받은 값: {service!r})")
    return SERVICES[service]


def summarize(threads, width_bytes: int, pitch: int, kind: str = "load", service: str = SERVICE) -> BankRequest:
    """Group the words of a warp request by pass (lane // lanes per pass) and by bank, and find the
    broadcasts inside each pass. `threads` are one warp's (or part of one warp's) accesses."""
    lanes_per_pass = _require_service(service)[width_bytes]
    by_pass = defaultdict(list)
    for t in threads:
        by_pass[(t.tid % WARP_SIZE) // lanes_per_pass].append(t)
    passes, groups = [], []
    busiest = [()] * NUM_BANKS
    for _, members in sorted(by_pass.items()):
        per_bank, by_start = defaultdict(set), defaultdict(list)
        for t in members:
            for w in t.words:
                per_bank[w % NUM_BANKS].add(w)
            by_start[t.words[0]].append(t.tid)
        words = tuple(tuple(sorted(per_bank[b])) for b in range(NUM_BANKS))
        passes.append(BankPass(tuple(t.tid for t in members), words))
        groups += [(w, tuple(tids)) for w, tids in sorted(by_start.items()) if len(tids) > 1]
        busiest = [ws if len(ws) > len(old) else old for ws, old in zip(words, busiest)]
    return BankRequest(tuple(threads), width_bytes, pitch, kind, tuple(busiest), tuple(groups),
                       tuple(passes), service)


def request_summary(req: BankRequest) -> str:
    """One-line Korean summary (numbers from the model)."""
    if req.fault:
        return req.fault
    verdict = ("충돌 없음" if req.wavefronts <= req.ideal_wavefronts
               else f"{req.conflict_ways:g}-way 뱅크 충돌(bank conflict)")
    served = f" · 반 워프씩 {len(req.passes)}번" if len(req.passes) > 1 else ""
    return (f"웨이브프론트(wavefront) {req.wavefronts}개 · 이상적 {req.ideal_wavefronts}개 → "
            f"{verdict}{served} · 서로 다른 워드 {req.distinct_words}개 · 활성 스레드 "
            f"{req.active_threads}개 · 브로드캐스트 그룹 {len(req.broadcast_groups)}개")


def _bank_hover(req: BankRequest, bank: int) -> str:
    lines = []
    for number, served in enumerate(req.passes):
        members = set(served.tids)
        readers = defaultdict(list)
        for t in req.threads:
            if t.tid in members:
                for w in t.words:
                    if w % NUM_BANKS == bank:
                        readers[w].append(t.tid)
        if not readers:
            continue
        where = f"반 워프 {number}: " if len(req.passes) > 1 else ""
        lines.append(f"{where}서로 다른 워드 {len(readers)}개")
        lines += [f"워드 {w} ← " + ",".join(f"T{tid}" for tid in tids) for w, tids in sorted(readers.items())]
    return f"뱅크 {bank}: " + ("<br>".join(lines) if lines else "접근 없음")


# ---------------------------------------------------------------------------------------
# Widget view (JupyterLab)
# ---------------------------------------------------------------------------------------

def _result_html(params: dict) -> str:
    req = bank_request(**params)
    if req.fault:
        return f"<p><b>{escape(req.fault)}</b></p>"
    bank_rows = "".join(
        f"<tr><td>{b}</td><td>{len(ws)}</td><td>{', '.join(map(str, ws))}</td></tr>"
        for b, ws in enumerate(req.words_per_bank) if ws)
    thread_rows = "".join(
        f"<tr><td>T{t.tid}</td><td>{t.tx}</td><td>{t.ty}</td><td>[{t.row}][{t.col}]</td>"
        f"<td>{', '.join(map(str, t.words))}</td><td>{', '.join(map(str, t.banks))}</td></tr>"
        for t in req.threads)
    groups = "; ".join(f"워드 {w}: " + ",".join(f"T{t}" for t in tids)
                       for w, tids in req.broadcast_groups)
    style = "style='border-collapse:collapse;font-size:12px;margin-right:16px'"
    return (f"<p><b>{escape(request_summary(req))}</b></p>"
            f"<p>행 피치(pitch) {req.pitch} 워드 · 브로드캐스트: {groups or '없음'}</p>"
            f"<div style='display:flex;flex-wrap:wrap'><table {style}><caption>뱅크별 워드</caption><tr><th>뱅크</th>"
            f"<th>워드 수</th><th>워드</th></tr>{bank_rows}</table>"
            f"<table {style}><caption>스레드별 접근 위치와 뱅크</caption><tr><th>스레드</th><th>tx</th><th>ty</th><th>[행][열]</th>"
            f"<th>워드</th><th>뱅크</th></tr>{thread_rows}</table></div>")


TOOLTIPS = {
    "expression": "공유 메모리 접근식: 워프의 스레드가 읽거나 쓰는 위치",
    "width_bytes": "한 스레드가 한 번에 접근하는 폭: 32비트 또는 128비트 float4",
    "rows": "공유 메모리 배열의 행 수",
    "cols": "공유 메모리 배열의 열 수 (패딩 제외)",
    "padding": "행 끝에 덧붙이는 패딩(padding) 워드 수: 행 피치 = 열 수 + 패딩",
    "bdx": "스레드 블록의 x 크기 bdx (blockDim.x)",
    "bdy": "스레드 블록의 y 크기 bdy (blockDim.y)",
    "warp": "블록 안의 워프 번호 (0부터)",
    "k": "접근식의 k 값 (타일 안의 열 또는 행 번호)",
}


def widget(**initial):
    """Simulation 6 in JupyterLab: array shape, padding, width, block, warp, expression, k."""
    import ipywidgets as w

    p = dict(rows=16, cols=16, padding=0, width_bytes=4, bdx=16, bdy=16, warp=0,
             expression="load [ty][k]", k=0)
    p.update(initial)
    short = w.Layout(width="150px")
    controls = {
        "expression": w.Dropdown(options=list(EXPRESSIONS), value=p["expression"],
                                 description="접근식"),
        "width_bytes": w.ToggleButtons(options=[("32비트", 4), ("128비트 float4", 16)],
                                       value=p["width_bytes"], description="폭"),
        "rows": w.IntText(value=p["rows"], description="행", layout=short),
        "cols": w.IntText(value=p["cols"], description="열", layout=short),
        "padding": w.IntText(value=p["padding"], description="패딩", layout=short),
        "bdx": w.IntText(value=p["bdx"], description="bdx", layout=short),
        "bdy": w.IntText(value=p["bdy"], description="bdy", layout=short),
        "warp": w.IntText(value=p["warp"], description="워프", layout=short),
        "k": w.IntText(value=p["k"], description="k", layout=short),
    }
    return live_widget(controls, _result_html, "시뮬레이션 6: 공유 메모리 뱅크 충돌(bank conflict) 검출기",
                       TOOLTIPS)


# ---------------------------------------------------------------------------------------
# Static figure view
# ---------------------------------------------------------------------------------------

# (label, parameters, paddings offered). The first is the seed's hypothetical case; the
# next four are what a warp of the real 16x16 tiled kernel does; the last two use float4.
SCENARIOS = {
    "seed": ("가상 예제: 16스레드가 열 5를 읽음", dict(
        rows=16, cols=16, bdx=1, bdy=16, expression="load [ty][k]", k=5), (0, 1)),
    "column": ("열 읽기 s[tx][k]", dict(
        rows=16, cols=16, bdx=16, bdy=16, expression="load [tx][k]", k=5), (0, 1)),
    "tile_a": ("실제 커널: A_tile[ty][k]", dict(
        rows=16, cols=16, bdx=16, bdy=16, expression="load [ty][k]", k=5), (0, 1)),
    "tile_b": ("실제 커널: B_tile[k][tx]", dict(
        rows=16, cols=16, bdx=16, bdy=16, expression="load [k][tx]", k=5), (0, 1)),
    "tile_store": ("실제 커널: 타일 저장 [ty][tx]", dict(
        rows=16, cols=16, bdx=16, bdy=16, expression="store [ty][tx]", k=0), (0, 1)),
    "float4_column": ("float4: s[tx][k] (행 32 B)", dict(
        rows=16, cols=8, bdx=16, bdy=16, expression="load [tx][k]", k=0, width_bytes=16),
        (0, 1, 4)),
    "float4_rows": ("float4: 행 저장 [ty][tx]", dict(
        rows=16, cols=64, bdx=16, bdy=16, expression="store [ty][tx]", k=0, width_bytes=16),
        (0, 1, 4)),
}

_OK, _CONFLICT, _IDLE = "#1f77b4", "#d62728", "#c7c7c7"


def _describe(params: dict) -> str:
    p = params
    shape = f"float s[{p['rows']}][{p['cols']}+{p['padding']}]"
    width = "float4" if p.get("width_bytes", 4) == 16 else "float"
    return (f"{shape}, {width}, 블록 {p['bdx']}×{p['bdy']}, 워프 {p.get('warp', 0)}, "
            f"{p['expression']}, k={p['k']}")


def _state(params: dict):
    """(data_update, layout_update) of the bank chart for one parameter set."""
    banks = list(range(NUM_BANKS))
    try:
        req = bank_request(**params)
    except SimInputError as err:
        return ({"y": [[0] * NUM_BANKS, [None, None]], "hovertext": [[""] * NUM_BANKS, ""],
                 "marker.color": [[_IDLE] * NUM_BANKS, None]},
                {"title.text": escape(f"입력 오류: {err}")})
    sub = escape(f"{_describe(params)} · 행 피치 {req.pitch} 워드")
    if req.fault:
        return ({"y": [[0] * NUM_BANKS, [None, None]], "hovertext": [[""] * NUM_BANKS, ""],
                 "marker.color": [[_IDLE] * NUM_BANKS, None]},
                {"title.text": f"{escape(req.fault)}<br><sup>{sub}</sup>"})
    counts = [len(req.words_per_bank[b]) for b in banks]
    colors = [_CONFLICT if c > req.pass_ideal else (_OK if c else _IDLE) for c in counts]
    return ({"y": [counts, [req.pass_ideal] * 2],
             "hovertext": [[_bank_hover(req, b) for b in banks], "한 번의 이상적 웨이브프론트"],
             "marker.color": [colors, None]},
            {"title.text": f"{escape(request_summary(req))}<br><sup>{sub}</sup>"})


def figure(scenario="seed", padding=None, **custom):
    """Simulation 6 as a static interactive figure.

    A menu switches between the scenarios in SCENARIOS (the seed's hypothetical column
    read, the real tiled kernel's warp, float4 rows); a slider sets the padding. Bars:
    distinct words per bank in one pass (the whole warp; for 128-bit, the busier half-warp); a bar
    above the dashed line (one pass's ideal) is a conflict.
    Passing bank_request keyword arguments (custom) adds that setting as the first entry.
    """
    groups, active_group, active_step = [], 0, 0
    try:
        if custom:
            params = validate(**{"padding": padding or 0, **custom})
            paddings = sorted({params["padding"], 0, 1} | ({4} if params["width_bytes"] == 16 else set()))
            groups.append(("지정한 설정", params, paddings))
            active_step = paddings.index(params["padding"])
        else:
            require(scenario in SCENARIOS, f"시나리오(scenario)는 {', '.join(SCENARIOS)} 중 "
                                           f"하나여야 합니다 (받은 값: {scenario!r})")
        for key, (label, params, paddings) in SCENARIOS.items():
            groups.append((label, params, list(paddings)))
            if not custom and key == scenario:
                active_group = len(groups) - 1
                if padding is not None:
                    require(padding in paddings, f"이 시나리오의 패딩(padding)은 {paddings} 중 "
                                                 f"하나입니다 (받은 값: {padding})")
                    active_step = list(paddings).index(padding)
    except SimInputError as err:
        return error_figure(err, "시뮬레이션 6 입력 오류")
    import plotly.graph_objects as go

    stepped = [(label, [(f"+{pad}", *_state(dict(params, padding=pad))) for pad in paddings])
               for label, params, paddings in groups]
    fig = go.Figure([
        go.Bar(x=list(range(NUM_BANKS)), y=[0] * NUM_BANKS, hoverinfo="text",
               name="서로 다른 워드 수"),
        go.Scatter(x=[-0.5, NUM_BANKS - 0.5], y=[1, 1], mode="lines", hoverinfo="text",
                   line={"dash": "dash", "color": "#2ca02c"}, name="한 번의 이상적 웨이브프론트"),
    ])
    fig.update_layout(
        height=440, showlegend=False, margin={"t": 130, "l": 60, "r": 20, "b": 60},
        title={"font": {"size": 14}, "y": 0.97},
        xaxis={"title": {"text": "뱅크(bank) 번호"}, "dtick": 1, "range": [-0.6, NUM_BANKS - 0.4]},
        yaxis={"title": {"text": "한 번(128비트는 반 워프)에 읽는 서로 다른 워드 수"}, "rangemode": "tozero",
               "dtick": 1},
    )
    return apply_stepped_controls(fig, stepped, active_group=active_group,
                                  active_step=active_step, slider_prefix="패딩(padding) ",
                                  menu_type="dropdown", menu_y=1.1,
                                  slider_name="행 끝 패딩(padding, 워드)", menu_name="접근 장면")
