"""Simulators 8 and 9: load/compute overlap and the cp.async pipeline state machine.

Simulation 8 (double buffering, Level 4) is a timing model: a Gantt schedule of tile
loads and computations with 1 or 2 shared-memory buffers.
Simulation 9 (cp.async, Level 5) is a logical model: it replays the kernel's sequence of
``cp.async`` issues, ``commit_group``, ``wait_group(N)``, ``__syncthreads()`` and compute
steps, tracks which groups each wait *guarantees* complete, and raises a hazard flag when
a buffer is computed on before any wait guaranteed its group.

Both share :class:`Interval` (one bar of a timeline): Simulation 8 uses it for loads and
computations in time units, Simulation 9 for the life of each commit group in steps.

Model: :func:`double_buffer_schedule`, :func:`async_pipeline_trace`, :func:`group_intervals`.
Views: :func:`widget` / :func:`figure` (Simulation 8) and :func:`async_widget` /
:func:`async_figure` (Simulation 9).
"""
from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass

from korean_text import with_particle
from sims._common import (
    SimInputError,
    describe_controls,
    error_figure,
    error_html,
    group_visibility,
    require,
    require_int_in_range,
    restyle_slider,
    live_widget,
)

__all__ = [
    "Interval",
    "BufferSchedule",
    "double_buffer_schedule",
    "MODES",
    "Group",
    "BufferSnapshot",
    "Hazard",
    "PipelineStep",
    "PipelineTrace",
    "Frame",
    "async_pipeline_trace",
    "group_intervals",
    "wait_guarantee_text",
    "smem_bytes_per_stage",
    "widget",
    "figure",
    "async_widget",
    "async_figure",
]

MAX_TILES_TIMELINE = 64
STAGES_MIN, STAGES_MAX = 2, 4
TILES_MIN, TILES_MAX = 1, 16
MODES = ("shipped", "seed")
MODE_LABELS = {
    "shipped": "과정 커널(Level 5)의 순서: wait → sync → 발행 → commit → 연산",
    "seed": "원 자료의 순서: 발행 → commit → wait → sync → 연산 → sync",
}


# ====================================================================================
# Shared timeline element
# ====================================================================================

@dataclass(frozen=True)
class Interval:
    """One bar of a timeline: what occupies a resource from start to end."""

    resource: str           # row of the chart: "load", "compute", or a group label
    kind: str               # "load", "compute", "group", "group-unguaranteed"
    tile: int | None
    buffer: int | None
    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start


# ====================================================================================
# Simulation 8 — double-buffer timeline (timing model)
# ====================================================================================

@dataclass(frozen=True)
class BufferSchedule:
    """Result of :func:`double_buffer_schedule`."""

    t_load: float
    t_compute: float
    num_tiles: int
    stages: int
    intervals: tuple[Interval, ...]
    total_time: float
    compute_busy: float
    compute_idle: float                 # total time the compute unit waits
    steady_time_per_tile: float         # one more tile costs this much in steady state
    steady_idle_per_tile: float         # compute idle per tile in steady state

    @property
    def loads(self) -> list[Interval]:
        return [iv for iv in self.intervals if iv.kind == "load"]

    @property
    def computes(self) -> list[Interval]:
        return [iv for iv in self.intervals if iv.kind == "compute"]


def _require_positive_time(value, label: str) -> float:
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and math.isfinite(float(value)) and float(value) > 0)
    require(ok, f"{label} 값은 0보다 큰 유한한 수여야 합니다 (받은 값: {value!r})")
    return float(value)


def double_buffer_schedule(t_load, t_compute, num_tiles=8, stages=2) -> BufferSchedule:
    """Gantt schedule of num_tiles tiles with 1 (serial) or 2 (overlapped) buffers.

    1 buffer: load t, then compute t, then load t+1 (the buffer is busy until computed).
    2 buffers: the load of tile t+1 is issued when compute t starts (into the other
    buffer, which compute t-1 has released); compute t+1 starts at
    max(end of compute t, end of load t+1). One load unit: loads never overlap each other.
    """
    t_load = _require_positive_time(t_load, "T_load(타일 로드 시간)")
    t_compute = _require_positive_time(t_compute, "T_compute(타일 연산 시간)")
    num_tiles = require_int_in_range(num_tiles, "타일 수(number of tiles)", 1,
                                     MAX_TILES_TIMELINE)
    stages = require_int_in_range(stages, "버퍼 수(stages)", 1, 2)

    intervals: list[Interval] = []
    if stages == 1:
        clock = 0.0
        for tile in range(num_tiles):
            intervals.append(Interval("load", "load", tile, 0, clock, clock + t_load))
            clock += t_load
            intervals.append(Interval("compute", "compute", tile, 0, clock, clock + t_compute))
            clock += t_compute
        steady, steady_idle = t_load + t_compute, t_load
    else:
        load_end = t_load
        intervals.append(Interval("load", "load", 0, 0, 0.0, load_end))
        compute_end = 0.0
        for tile in range(num_tiles):
            start = max(compute_end, load_end)          # needs its data and the unit
            if tile + 1 < num_tiles:                    # prefetch next into other buffer
                next_end = start + t_load
                intervals.append(Interval("load", "load", tile + 1, (tile + 1) % 2,
                                          start, next_end))
            compute_end = start + t_compute
            intervals.append(Interval("compute", "compute", tile, tile % 2, start, compute_end))
            if tile + 1 < num_tiles:
                load_end = next_end
        steady, steady_idle = max(t_load, t_compute), max(0.0, t_load - t_compute)

    total = max(iv.end for iv in intervals)
    busy = num_tiles * t_compute
    return BufferSchedule(
        t_load=t_load, t_compute=t_compute, num_tiles=num_tiles, stages=stages,
        intervals=tuple(intervals), total_time=total, compute_busy=busy,
        compute_idle=total - busy, steady_time_per_tile=steady,
        steady_idle_per_tile=steady_idle,
    )


def smem_bytes_per_stage(bm=128, bn=128, bk=32, pad_a=4, bytes_per_float=4) -> int:
    """Shared memory of one stage of the Level 5 ring: the A tile stored transposed, BK rows of
    BM + pad_a floats (the padding spreads the 4-byte copies over all banks), plus the B tile, BK
    rows of BN floats. The defaults are the shipped kernel's (kernels/sgemm_async_copy.cu)."""
    return bk * ((bm + pad_a) + bn) * bytes_per_float


# ====================================================================================
# Simulation 9 — cp.async pipeline state machine (logical model)
# ====================================================================================

@dataclass(frozen=True)
class Group:
    """One cp.async commit group of this thread."""

    index: int
    tiles: tuple[int, ...]          # empty tuple: an empty group

    @property
    def label(self) -> str:
        if not self.tiles:
            return f"G{self.index}(빈 그룹)"
        return f"G{self.index}(타일 {', '.join(map(str, self.tiles))})"


@dataclass(frozen=True)
class BufferSnapshot:
    """State of one shared-memory stage at the moment the step is shown."""

    buffer: int
    state: str                      # "L" loading, "R" ready, "C" computing, "_" idle/free
    tile: int | None
    group: int | None

    @property
    def text(self) -> str:
        if self.tile is None or self.state == "_":
            return "_"
        return f"{self.state} t{self.tile}"


@dataclass(frozen=True)
class Hazard:
    """A read of a buffer that no preceding wait (and barrier) made safe, or a write
    into a buffer other threads may still be reading."""

    kind: str                       # "RAW" (compute before completion) or "WAR"
    step_label: str
    tile: int
    buffer: int
    group: int | None
    message: str


@dataclass(frozen=True)
class PipelineStep:
    """One prologue iteration (phase "prologue") or one main-loop iteration ("main")."""

    phase: str
    index: int
    label: str
    actions: tuple[str, ...]
    committed: tuple[Group, ...]    # every group committed so far (after this step)
    wait_n: int | None
    guarantee_text: str | None
    guaranteed_count: int           # groups G0..G(count-1) are guaranteed complete
    pending: tuple[Group, ...]      # committed, not guaranteed, at the shown moment
    compute_tile: int | None
    compute_buffer: int | None
    prefetch_tile: int | None
    prefetch_buffer: int | None
    buffers: tuple[BufferSnapshot, ...]
    hazards: tuple[Hazard, ...]
    # Main-loop steps only: the buffers and pending groups right after wait + barrier.
    buffers_after_wait: tuple[BufferSnapshot, ...] | None = None
    pending_after_wait: tuple[Group, ...] | None = None
    actions_until_wait: int | None = None   # how many of `actions` precede that moment

    @property
    def hazard(self) -> Hazard | None:
        return self.hazards[0] if self.hazards else None


@dataclass(frozen=True)
class Frame:
    """One column of the state chart: a prologue step, or a main-loop step seen right
    after its wait (phase "wait") or at its compute (phase "compute")."""

    label: str
    step: PipelineStep
    phase: str                      # "prologue", "wait", "compute"
    buffers: tuple[BufferSnapshot, ...]
    pending: tuple[Group, ...]

    @property
    def actions(self) -> tuple[str, ...]:
        """The step's actions that happen in this frame."""
        cut = self.step.actions_until_wait
        if self.phase == "wait":
            return self.step.actions[:cut]
        if self.phase == "compute":
            return self.step.actions[cut:]
        return self.step.actions

    @property
    def hazards(self) -> tuple[Hazard, ...]:
        return self.step.hazards if self.phase != "wait" else ()

    @property
    def flagged_buffers(self) -> set[int]:
        if self.phase != "compute":
            return set()
        return {h.buffer for h in self.step.hazards if h.kind == "RAW"}


@dataclass(frozen=True)
class PipelineTrace:
    num_stages: int
    num_tiles: int
    empty_commits: bool
    mode: str
    steps: tuple[PipelineStep, ...]

    @property
    def hazards(self) -> list[Hazard]:
        return [h for step in self.steps for h in step.hazards]

    @property
    def hazard_iterations(self) -> list[int]:
        """Main-loop kt values whose compute step is flagged."""
        return [s.index for s in self.steps if s.phase == "main" and s.hazards]

    @property
    def is_safe(self) -> bool:
        return not self.hazards

    @property
    def wait_n(self) -> int:
        return self.num_stages - 2 if self.mode == "shipped" else self.num_stages - 1

    @property
    def frames(self) -> list[Frame]:
        """Prologue steps, then two frames per main-loop step (after wait, at compute),
        so that a buffer's life L → R → C → _ is visible."""
        out = []
        for step in self.steps:
            if step.phase == "prologue":
                out.append(Frame(step.label.replace("프롤로그 ", ""), step, "prologue",
                                 step.buffers, step.pending))
                continue
            out.append(Frame(f"{step.label} 대기 후", step, "wait",
                             step.buffers_after_wait, step.pending_after_wait))
            out.append(Frame(f"{step.label} 연산", step, "compute",
                             step.buffers, step.pending))
        return out


def wait_guarantee_text(n: int, committed_count: int) -> str:
    """What ``cp.async.wait_group(n)`` guarantees after committed_count commits."""
    base = (f"wait_group({n}): 이 스레드가 커밋한 그룹 중 가장 최근 {n}개를 제외한 "
            f"모든 그룹 완료")
    done = committed_count - n
    if done <= 0:
        return f"{base} → 커밋 {committed_count}개뿐이라 완료가 보장되는 그룹 없음"
    first = "G0" if done == 1 else f"G0–G{done - 1}"
    return f"{base} → 커밋 {committed_count}개 중 {first} 완료 보장"


class _Machine:
    """Per-thread knowledge of the cp.async pipeline while the schedule is replayed."""

    def __init__(self, num_stages: int, empty_commits: bool):
        self.num_stages = num_stages
        self.empty_commits = empty_commits
        self.committed: list[Group] = []
        self.uncommitted: list[int] = []
        self.guaranteed = 0          # groups 0..guaranteed-1 complete for this thread
        self.visible = 0             # ... and published to the block by a barrier
        self.tile_in = [None] * num_stages
        self.group_of = [None] * num_stages
        self.consumed = [False] * num_stages
        self.read_since_barrier: set[int] = set()
        self.group_of_tile: dict[int, int] = {}

    # --- operations ------------------------------------------------------------------
    def issue(self, tile: int, buffer: int, label: str, log: list, hazards: list):
        if buffer in self.read_since_barrier:
            hazards.append(Hazard(
                "WAR", label, tile, buffer, None,
                f"위험(hazard, WAR): {label}에서 버퍼 {buffer}에 타일 {tile} 복사를 발행했지만, "
                f"그 버퍼를 읽던 연산 뒤에 __syncthreads()가 없었습니다"))
        self.tile_in[buffer] = tile
        self.group_of[buffer] = None
        self.consumed[buffer] = False
        self.uncommitted.append(tile)
        log.append(f"cp.async 발행: 타일 {tile} → 버퍼 {buffer}")

    def commit(self, log: list):
        if not self.uncommitted and not self.empty_commits:
            log.append("commit_group 생략 (발행 없음)")
            return
        group = Group(len(self.committed), tuple(self.uncommitted))
        self.committed.append(group)
        for tile in group.tiles:
            self.group_of_tile[tile] = group.index
            buffer = self.tile_in.index(tile)
            self.group_of[buffer] = group.index
        self.uncommitted = []
        log.append(f"commit_group → {group.label}")

    def wait(self, n: int, log: list) -> str:
        count = len(self.committed)
        self.guaranteed = max(self.guaranteed, count - n)
        done = count - n
        short = ("보장되는 그룹 없음" if done <= 0 else
                 ("G0" if done == 1 else f"G0–G{done - 1}") + " 완료 보장")
        log.append(f"wait_group({n}) → 커밋 {count}개 중 {short}")
        return wait_guarantee_text(n, count)

    def barrier(self, log: list):
        self.visible = self.guaranteed
        self.read_since_barrier.clear()
        log.append("__syncthreads()")

    def compute_check(self, tile: int, buffer: int, label: str) -> list[Hazard]:
        group = self.group_of[buffer] if self.tile_in[buffer] == tile else None
        if group is None or group >= self.guaranteed:
            shown = f"G{group}" if group is not None else "(커밋되지 않음)"
            done = (f"G0–G{self.guaranteed - 1}" if self.guaranteed > 0 else "없음")
            return [Hazard(
                "RAW", label, tile, buffer, group,
                f"위험(hazard): {label}에서 버퍼 {buffer}의 타일 {with_particle(tile, '로')} 연산하지만, 그 복사 "
                f"그룹 {shown}의 완료를 어떤 wait_group도 보장하지 않았습니다 "
                f"(보장된 그룹: {done})")]
        if group >= self.visible:
            return [Hazard(
                "RAW", label, tile, buffer, group,
                f"위험(hazard): {label}에서 G{group} 완료 뒤 __syncthreads()가 없어 다른 "
                f"스레드가 복사한 값이 보인다는 보장이 없습니다")]
        return []

    def compute_done(self, buffer: int):
        self.consumed[buffer] = True
        self.read_since_barrier.add(buffer)

    # --- views of the state -------------------------------------------------------------
    def pending(self) -> tuple[Group, ...]:
        return tuple(self.committed[self.guaranteed:])

    def snapshot(self, computing: int | None) -> tuple[BufferSnapshot, ...]:
        out = []
        for b in range(self.num_stages):
            tile, group = self.tile_in[b], self.group_of[b]
            if b == computing:
                state = "C"
            elif tile is None or self.consumed[b]:
                state = "_"
            elif group is None or group >= self.guaranteed:
                state = "L"
            else:
                state = "R"
            out.append(BufferSnapshot(b, state, tile if state != "_" else None,
                                      group if state != "_" else None))
        return tuple(out)


def _check_pipeline_args(num_stages, num_tiles, empty_commits, mode):
    num_stages = require_int_in_range(num_stages, "NUM_STAGES(파이프라인 단 수)",
                                      STAGES_MIN, STAGES_MAX)
    num_tiles = require_int_in_range(num_tiles, "K 타일 수(number of tiles)",
                                     TILES_MIN, TILES_MAX)
    require(isinstance(empty_commits, bool),
            f"빈 그룹 커밋(empty commits) 값은 True 또는 False여야 합니다 (받은 값: {empty_commits!r})")
    require(mode in MODES, f"순서(mode) 값은 {', '.join(MODES)} 중 하나여야 합니다 (받은 값: {mode!r})")
    require(mode != "seed" or num_stages >= 2, "원 자료 순서는 NUM_STAGES 2 이상에서만 정의됩니다")
    return num_stages, num_tiles, empty_commits, mode


def _prologue_step(machine: _Machine, s: int, num_tiles: int) -> PipelineStep:
    log: list[str] = []
    hazards: list[Hazard] = []
    label = f"프롤로그 s={s}"
    issued = s < num_tiles
    if issued:
        machine.issue(s, s, label, log, hazards)
    machine.commit(log)
    return PipelineStep(
        phase="prologue", index=s, label=label, actions=tuple(log),
        committed=tuple(machine.committed), wait_n=None, guarantee_text=None,
        guaranteed_count=machine.guaranteed, pending=machine.pending(),
        compute_tile=None, compute_buffer=None,
        prefetch_tile=s if issued else None, prefetch_buffer=s if issued else None,
        buffers=machine.snapshot(None), hazards=tuple(hazards))


def _main_step(machine: _Machine, kt: int, num_tiles: int, mode: str) -> PipelineStep:
    s = machine.num_stages
    log: list[str] = []
    hazards: list[Hazard] = []
    label = f"kt={kt}"
    nt = kt + s - 1
    prefetch = (nt, nt % s) if nt < num_tiles else (None, None)
    compute_buffer = kt % s

    def prefetch_and_commit():
        if prefetch[0] is not None:
            machine.issue(prefetch[0], prefetch[1], label, log, hazards)
        else:
            log.append(f"발행 없음 (타일 {nt} 없음)")
        machine.commit(log)

    if mode == "shipped":
        wait_n = s - 2
        text = machine.wait(wait_n, log)
        machine.barrier(log)
        after_wait, pending_after_wait = machine.snapshot(None), machine.pending()
        cut = len(log)
        prefetch_and_commit()
    else:
        wait_n = s - 1
        prefetch_and_commit()
        text = machine.wait(wait_n, log)
        machine.barrier(log)
        after_wait, pending_after_wait = machine.snapshot(None), machine.pending()
        cut = len(log)
    hazards += machine.compute_check(kt, compute_buffer, label)
    log.append(f"연산: 버퍼 {compute_buffer}, 타일 {kt}")
    buffers = machine.snapshot(compute_buffer)
    pending = machine.pending()
    machine.compute_done(compute_buffer)
    if mode == "seed":
        machine.barrier(log)
    return PipelineStep(
        phase="main", index=kt, label=label, actions=tuple(log),
        committed=tuple(machine.committed), wait_n=wait_n, guarantee_text=text,
        guaranteed_count=machine.guaranteed, pending=pending,
        compute_tile=kt, compute_buffer=compute_buffer,
        prefetch_tile=prefetch[0], prefetch_buffer=prefetch[1],
        buffers=buffers, hazards=tuple(hazards),
        buffers_after_wait=after_wait, pending_after_wait=pending_after_wait,
        actions_until_wait=cut)


def async_pipeline_trace(num_stages=3, num_tiles=8, empty_commits=True,
                         mode="shipped") -> PipelineTrace:
    """Replay the Level 5 schedule (mode "shipped") or the seed's ordering ("seed").

    shipped, per iteration kt: wait_group(S-2); __syncthreads(); issue tile kt+S-1 into
    stage (kt+S-1)%S if it exists; commit_group; compute stage kt%S.
    seed, per iteration kt: issue tile kt+S-1 (if it exists); commit_group;
    wait_group(S-1); __syncthreads(); compute stage kt%S; __syncthreads().
    Prologue (both): for s in 0..S-2, issue tile s if s < num_tiles; commit_group.
    empty_commits=False commits only when a copy was issued (the tail bug, course-spec B1).
    """
    num_stages, num_tiles, empty_commits, mode = _check_pipeline_args(
        num_stages, num_tiles, empty_commits, mode)
    machine = _Machine(num_stages, empty_commits)
    steps = [_prologue_step(machine, s, num_tiles) for s in range(num_stages - 1)]
    steps += [_main_step(machine, kt, num_tiles, mode) for kt in range(num_tiles)]
    return PipelineTrace(num_stages, num_tiles, empty_commits, mode, tuple(steps))


def group_intervals(trace: PipelineTrace) -> list[Interval]:
    """Life of each commit group over the frames of :attr:`PipelineTrace.frames`: the
    columns in which it is committed but not yet guaranteed complete. Frame i spans
    [i - 0.5, i + 0.5]. kind: "group", "group-empty", or "group-hazard" (its tile was
    computed while the group was still pending)."""
    frames = trace.frames
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    groups: dict[int, Group] = {}
    for position, frame in enumerate(frames):
        for group in frame.pending:
            first.setdefault(group.index, position)
            last[group.index] = position
            groups[group.index] = group
    flagged = {h.group for h in trace.hazards if h.kind == "RAW"}
    out = []
    for index in sorted(groups):
        group = groups[index]
        tile = group.tiles[0] if group.tiles else None
        if tile is None:
            kind = "group-empty"
        elif index in flagged:
            kind = "group-hazard"
        else:
            kind = "group"
        buffer = tile % trace.num_stages if tile is not None else None
        out.append(Interval(group.label, kind, tile, buffer,
                            first[index] - 0.5, last[index] + 0.5))
    return out


# ====================================================================================
# Views — Simulation 8
# ====================================================================================

def _schedule_summary(result: BufferSchedule) -> str:
    return (f"{result.stages}버퍼: 총 {result.total_time:g}, 연산 유휴 {result.compute_idle:g}, "
            f"정상 상태 타일당 {result.steady_time_per_tile:g} "
            f"(유휴 {result.steady_idle_per_tile:g})")


def _schedule_html(one: BufferSchedule, two: BufferSchedule) -> str:
    rows = []
    for r in (one, two):
        formula = ("T_load + T_compute" if r.stages == 1 else "max(T_load, T_compute)")
        idle = "T_load" if r.stages == 1 else "max(0, T_load − T_compute)"
        rows.append(
            f"<tr><td>{r.stages}</td><td>{r.total_time:g}</td><td>{r.compute_idle:g}</td>"
            f"<td>{r.steady_time_per_tile:g} = {formula}</td>"
            f"<td>{r.steady_idle_per_tile:g} = {idle}</td></tr>")
    bars = _ascii_gantt(two)
    return (
        "<table style='border-collapse:collapse' border='1' cellpadding='4'><caption>버퍼 수별 총 시간과 유휴 시간</caption>"
        "<tr><th>버퍼 수</th><th>총 시간</th><th>연산 유닛 유휴 시간</th>"
        "<th>정상 상태 타일당 시간</th><th>정상 상태 타일당 유휴</th></tr>"
        + "".join(rows) + "</table>"
        f"<p>2버퍼 일정(시간 단위는 임의: 사이클 또는 µs):</p><pre>{html.escape(bars)}</pre>")


def _ascii_gantt(result: BufferSchedule, width: int = 72) -> str:
    scale = width / result.total_time
    lines = []
    for resource, name in (("load", "로드"), ("compute", "연산")):
        row = [" "] * (width + 1)
        for iv in result.intervals:
            if iv.resource != resource:
                continue
            a, b = int(round(iv.start * scale)), max(int(round(iv.end * scale)), 1)
            for x in range(a, min(b, width)):
                row[x] = str(iv.tile % 10)
        lines.append(f"{name} |{''.join(row).rstrip()}")
    return "\n".join(lines)


TOOLTIPS = {
    "t_load": "타일 하나를 글로벌 메모리에서 공유 메모리로 옮기는 시간 T_load (임의 단위)",
    "t_compute": "타일 하나로 FMA를 계산하는 시간 T_compute (임의 단위)",
    "num_tiles": "K 방향 타일 수 (반복 횟수)",
}
ASYNC_TOOLTIPS = {
    "num_stages": "파이프라인 단 수 NUM_STAGES: 공유 메모리 버퍼 수",
    "num_tiles": "K 방향 타일 수 (반복 횟수)",
    "empty_commits": "남은 타일이 없어도 매 반복 빈 커밋 그룹을 커밋할지",
    "mode": "cp.async 명령 순서: 과정 커널 또는 원 자료의 순서",
    "step": "보여 줄 반복 단계 (표에서 강조되는 열)",
}


def widget(t_load=6.0, t_compute=4.0, num_tiles=8):
    """ipywidgets view of Simulation 8: both buffer counts side by side."""
    import ipywidgets as widgets

    controls = {
        "t_load": widgets.FloatText(value=t_load, description="T_load"),
        "t_compute": widgets.FloatText(value=t_compute, description="T_compute"),
        "num_tiles": widgets.IntText(value=num_tiles, description="타일 수"),
    }

    def render(p):
        args = (p["t_load"], p["t_compute"], p["num_tiles"])
        return _schedule_html(double_buffer_schedule(*args, stages=1), double_buffer_schedule(*args, stages=2))

    return live_widget(controls, render, "시뮬레이션 8: 더블 버퍼 타임라인(double-buffer timeline)", TOOLTIPS)


_ROW_LABELS = {"load": "로드 (글로벌→공유)", "compute": "연산 (FMA)"}
_BUFFER_COLOURS = {0: "#4c78a8", 1: "#f58518"}


def _gantt_patch(result: BufferSchedule, resource: str) -> dict:
    bars = [iv for iv in result.intervals if iv.resource == resource]
    return {
        "x": [iv.duration for iv in bars],
        "base": [iv.start for iv in bars],
        "y": [_ROW_LABELS[resource]] * len(bars),
        "text": [f"t{iv.tile}" for iv in bars],
        "customdata": [[iv.tile, iv.buffer, iv.start, iv.end] for iv in bars],
        "marker.color": [_BUFFER_COLOURS[iv.buffer] for iv in bars],
    }


def figure(t_compute=4.0, num_tiles=8, t_load_values=None, t_load=None, stages=2):
    """Gantt chart: a slider over T_load, buttons for 1 or 2 buffers.

    t_load_values defaults to T_compute × (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3).
    """
    import plotly.graph_objects as go

    try:
        t_compute = _require_positive_time(t_compute, "T_compute(타일 연산 시간)")
        if t_load_values is None:
            t_load_values = [round(t_compute * f, 6)
                             for f in (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3)]
        t_load_values = [_require_positive_time(v, "T_load(타일 로드 시간)")
                         for v in t_load_values]
        if t_load is not None:
            t_load = _require_positive_time(t_load, "T_load(타일 로드 시간)")
            t_load_values = sorted(set(t_load_values) | {t_load})
        stages = require_int_in_range(stages, "버퍼 수(stages)", 1, 2)
        grid = {(s, v): double_buffer_schedule(v, t_compute, num_tiles, s)
                for s in (1, 2) for v in t_load_values}
    except SimInputError as err:
        return error_figure(err, "더블 버퍼 타임라인")

    active_value = t_load if t_load is not None else t_load_values[len(t_load_values) // 2]
    active_index = t_load_values.index(active_value)
    traces, groups = [], []
    for s in (1, 2):
        for resource in ("load", "compute"):
            patch = _gantt_patch(grid[(s, active_value)], resource)
            traces.append(go.Bar(
                orientation="h", name=f"{_ROW_LABELS[resource]} ({s}버퍼)",
                x=patch["x"], base=patch["base"], y=patch["y"], text=patch["text"],
                customdata=patch["customdata"], marker={"color": patch["marker.color"],
                                                        "line": {"color": "white", "width": 1}},
                textposition="inside", insidetextanchor="middle", showlegend=False,
                hovertemplate=("타일 %{customdata[0]} (버퍼 %{customdata[1]})<br>"
                               "시작 %{customdata[2]:.3g} → 끝 %{customdata[3]:.3g}"
                               "<extra></extra>"),
            ))
            groups.append(s - 1)
    fig = go.Figure(data=traces)
    for trace, visible in zip(fig.data, group_visibility(groups, stages - 1)):
        trace.visible = visible

    def title_for(value: float) -> str:
        one, two = grid[(1, value)], grid[(2, value)]
        return (f"더블 버퍼링(double buffering) 타임라인 — T_load = {value:g}, "
                f"T_compute = {t_compute:g}, 타일 {num_tiles}개 (시간 단위 임의)<br>"
                f"{_schedule_summary(one)}<br>{_schedule_summary(two)}")

    indices = list(range(len(traces)))
    steps = []
    for value in t_load_values:
        patches = [_gantt_patch(grid[(s, value)], r) for s in (1, 2) for r in ("load", "compute")]
        update = {key: [p[key] for p in patches] for key in patches[0]}
        steps.append((f"{value:g}", update, indices))
    slider = restyle_slider(steps, prefix="T_load = ", active=active_index, name="타일 로드 시간 T_load")
    # The title compares both buffer counts, so it can follow the slider via "update".
    for step, value in zip(slider["steps"], t_load_values):
        update, idx = step["args"]
        step["method"] = "update"
        step["args"] = [update, {"title.text": title_for(value)}, idx]
    buttons = [{"label": f"{s}버퍼", "method": "restyle",
                "args": [{"visible": group_visibility(groups, s - 1)}]} for s in (1, 2)]
    fig.update_layout(
        title={"text": title_for(active_value), "font": {"size": 13}},
        barmode="overlay", height=440, margin={"t": 150, "l": 130},
        xaxis={"title": {"text": "시간 (임의 단위: 사이클 또는 µs)"}, "rangemode": "tozero"},
        yaxis={"categoryorder": "array",
               "categoryarray": [_ROW_LABELS["compute"], _ROW_LABELS["load"]]},
        updatemenus=[{"name": "버퍼 수", "type": "buttons", "direction": "right", "active": stages - 1,
                      "buttons": buttons, "x": 1.0, "y": 1.03, "xanchor": "right",
                      "yanchor": "bottom"}],
        sliders=[slider],
        annotations=[{"text": "색: 버퍼 0 파랑, 버퍼 1 주황", "xref": "paper", "yref": "paper",
                      "x": 0.0, "y": 1.02, "xanchor": "left", "yanchor": "bottom",
                      "showarrow": False, "font": {"size": 11}}],
    )
    return fig


# ====================================================================================
# Views — Simulation 9
# ====================================================================================

_STATE_CODES = {"_": 0, "L": 1, "R": 2, "C": 3}
_HAZARD_CODE = 4
_STATE_NAMES = {
    "_": "비어 있음/해제(idle)",
    "L": "로딩 중(loading): 복사 발행됨, 완료 보장 없음",
    "R": "준비됨(ready): wait_group이 완료를 보장",
    "C": "연산 중(computing)",
}
_STATE_COLOURSCALE = [
    [0.0, "#eeeeee"], [0.2, "#eeeeee"],
    [0.2, "#f9c74f"], [0.4, "#f9c74f"],
    [0.4, "#90be6d"], [0.6, "#90be6d"],
    [0.6, "#577590"], [0.8, "#577590"],
    [0.8, "#d62828"], [1.0, "#d62828"],
]


def _frame_text(frame: Frame) -> str:
    pending = ", ".join(g.label for g in frame.pending) or "없음"
    lines = [f"<b>{html.escape(frame.label)}</b>"] + [html.escape(a) for a in frame.actions]
    lines.append(f"완료가 보장되지 않은 그룹(pending): {html.escape(pending)}")
    lines += [f"<b>{html.escape(h.message)}</b>" for h in frame.hazards]
    return "<br>".join(lines)


def _cell(frame: Frame, buffer: int) -> tuple[int, str, str]:
    """(colour code, cell text, hover text) of one buffer in one frame."""
    snap = frame.buffers[buffer]
    flagged = buffer in frame.flagged_buffers
    where = f"타일 {snap.tile}, G{snap.group}" if snap.tile is not None else "비어 있음"
    hover = (f"{frame.label} · 버퍼 {buffer}: {_STATE_NAMES[snap.state]} ({where})"
             + (" — 위험(hazard)!" if flagged else ""))
    code = _HAZARD_CODE if flagged else _STATE_CODES[snap.state]
    return code, snap.text + (" ⚠" if flagged else ""), hover


def _verdict(trace: PipelineTrace) -> str:
    if trace.is_safe:
        return "위험 없음: 모든 연산 전에 그 타일의 그룹 완료가 보장됨"
    return f"위험(hazard) {len(trace.hazards)}건: kt = {', '.join(map(str, trace.hazard_iterations))}"


def _trace_html(trace: PipelineTrace, focus: int | None = None) -> str:
    """Table of buffer states over the frames; focus (a frame index) is outlined and its
    details are shown first, the full list of frames stays in a <details> block."""
    frames = trace.frames
    if focus is not None:
        focus = max(0, min(focus, len(frames) - 1))
    outline = "outline:3px solid black;"
    head = "".join(f"<th style='{outline if i == focus else ''}'>{html.escape(f.label)}</th>"
                   for i, f in enumerate(frames))
    colours = {0: "#f6f6f6", 1: "#fde9a9", 2: "#d5ecc2", 3: "#c9d6e3", _HAZARD_CODE: "#f4b6b6"}
    rows = []
    for b in range(trace.num_stages):
        cells = []
        for i, frame in enumerate(frames):
            code, text, hover = _cell(frame, b)
            style = f"background:{colours[code]};" + (outline if i == focus else "")
            cells.append(f"<td style='{style}' title='{html.escape(hover)}'>"
                         f"{html.escape(text)}</td>")
        rows.append(f"<tr><th>버퍼 {b}</th>{''.join(cells)}</tr>")
    details = "".join(
        f"<li>{_frame_text(f)}"
        + (f"<br><i>{html.escape(f.step.guarantee_text)}</i>" if f.phase == "wait" else "")
        + "</li>" for f in frames)
    focused = ""
    if focus is not None:
        frame = frames[focus]
        extra = (f"<br><i>{html.escape(frame.step.guarantee_text)}</i>"
                 if frame.phase == "wait" else "")
        focused = f"<p style='font-size:13px'>{_frame_text(frame)}{extra}</p>"
        details = f"<details><summary>모든 단계 보기</summary>{details}</details>"
    colour = "#1e6b30" if trace.is_safe else "#922b21"
    return (f"<p>{html.escape(MODE_LABELS[trace.mode])}; NUM_STAGES = {trace.num_stages}, "
            f"타일 {trace.num_tiles}개, 빈 그룹 커밋 {'켬' if trace.empty_commits else '끔'}</p>"
            f"<p style='color:{colour}'><b>{html.escape(_verdict(trace))}</b></p>"
            "<p style='font-size:12px'>L 로딩(완료 보장 없음) · R 준비(완료 보장) · C 연산 · "
            "_ 비어 있음 · ⚠ 위험</p>"
            f"<div style='overflow-x:auto'><table border='1' cellpadding='3' "
            f"style='border-collapse:collapse;font-size:12px'><caption>반복 단계별 커밋 그룹의 상태</caption><tr><th></th>{head}</tr>"
            f"{''.join(rows)}</table></div>{focused}"
            f"<ol start='0' style='font-size:12px'>{details}</ol>")


def async_widget(num_stages=3, num_tiles=8, empty_commits=True, mode="shipped"):
    """ipywidgets view of Simulation 9: stages, tiles, empty-commit toggle, ordering."""
    import ipywidgets as widgets

    stages_box = widgets.IntText(value=num_stages, description="NUM_STAGES")
    tiles_box = widgets.IntText(value=num_tiles, description="타일 수")
    empty_box = widgets.Checkbox(value=empty_commits, description="매 반복 빈 그룹도 커밋")
    mode_box = widgets.Dropdown(options=[(MODE_LABELS[m], m) for m in MODES], value=mode,
                                description="순서")
    step_slider = widgets.IntSlider(value=0, min=0, max=0, description="단계")
    out = widgets.HTML()

    def redraw(_change=None):
        try:
            trace = async_pipeline_trace(stages_box.value, tiles_box.value, empty_box.value,
                                         mode_box.value)
        except SimInputError as err:
            out.value = error_html(err)
            return
        step_slider.max = len(trace.frames) - 1     # clamps value too
        out.value = _trace_html(trace, focus=step_slider.value)

    for control in (stages_box, tiles_box, empty_box, mode_box, step_slider):
        control.observe(redraw, names="value")
    redraw()
    box = widgets.VBox([widgets.HBox([stages_box, tiles_box]),
                        widgets.HBox([empty_box, mode_box]), step_slider, out])
    box.controls = {"num_stages": stages_box, "num_tiles": tiles_box,
                    "empty_commits": empty_box, "mode": mode_box, "step": step_slider}
    describe_controls(box.controls, ASYNC_TOOLTIPS)
    box.output = out
    return box


def _config_label(trace: PipelineTrace) -> str:
    who = "과정 커널" if trace.mode == "shipped" else "원 자료 순서"
    empty = "빈 그룹 커밋 켬" if trace.empty_commits else "빈 그룹 커밋 끔"
    return f"{who}, S={trace.num_stages}, {empty}"


def _heatmap_arrays(trace: PipelineTrace):
    frames = trace.frames
    cells = [[_cell(frame, b) for frame in frames] for b in range(trace.num_stages)]
    z = [[c[0] for c in row] for row in cells]
    text = [[c[1] for c in row] for row in cells]
    hover = [[c[2] for c in row] for row in cells]
    return z, text, hover


def _cursor_xy(position: int, num_stages: int):
    x0, x1, y0, y1 = position - 0.5, position + 0.5, -0.5, num_stages - 0.5
    return [x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0]


_GROUP_COLOURS = {"group": "#f9c74f", "group-empty": "#bbbbbb", "group-hazard": "#d62828"}


def _config_traces(go, trace: PipelineTrace) -> list:
    """Heatmap of buffer states, group-lifetime bars, a cursor and the details text."""
    z, text, _hover = _heatmap_arrays(trace)
    n_frames = len(z[0])
    intervals = group_intervals(trace)
    cx, cy = _cursor_xy(0, trace.num_stages)
    return [
        go.Heatmap(
            z=z, text=text, texttemplate="%{text}",
            hovertemplate="버퍼 %{y}, 열 %{x}: %{text}<extra></extra>", zmin=-0.5, zmax=4.5,
            colorscale=_STATE_COLOURSCALE, showscale=False, xgap=2, ygap=2,
            x=list(range(n_frames)), y=list(range(trace.num_stages)),
            xaxis="x", yaxis="y", name=_config_label(trace)),
        go.Bar(
            orientation="h", x=[iv.duration for iv in intervals],
            base=[iv.start for iv in intervals], y=[iv.resource for iv in intervals],
            marker={"color": [_GROUP_COLOURS[iv.kind] for iv in intervals]},
            hovertemplate="%{y}: 커밋되었지만 완료 보장 전인 구간<extra></extra>",
            xaxis="x2", yaxis="y2", showlegend=False, name="그룹 수명"),
        go.Scatter(x=cx, y=cy, mode="lines", line={"color": "black", "width": 3},
                   hoverinfo="skip", showlegend=False, xaxis="x", yaxis="y"),
        go.Scatter(x=[0], y=[0], mode="text", text=[_frame_text(trace.frames[0])],
                   textposition="bottom right", hoverinfo="skip", showlegend=False,
                   xaxis="x3", yaxis="y3", textfont={"size": 12}),
    ]


def _config_layout(trace: PipelineTrace) -> dict:
    labels = [f.label.replace(" 대기 후", "·W").replace(" 연산", "·C") for f in trace.frames]
    return {
        "title.text": (f"cp.async 파이프라인 상태 기계 — {_config_label(trace)}, 타일 "
                       f"{trace.num_tiles}개 — {_verdict(trace)}<br><sup>"
                       f"{MODE_LABELS[trace.mode]}. {wait_guarantee_text(trace.wait_n, 0).split(' → ')[0]}."
                       "<br>열: s = 프롤로그, ·W = wait·sync 직후, "
                       "·C = 연산 시점. L 로딩 · R 준비 · C 연산 · _ 비어 있음 · 빨강 = 위험"
                       "</sup>"),
        "xaxis.tickvals": list(range(len(labels))), "xaxis.ticktext": labels,
        "xaxis.range": [-0.5, len(labels) - 0.5],
        "yaxis.range": [trace.num_stages - 0.5, -0.5],
    }


def async_figure(num_tiles=8, configs=None, active=0):
    """Buffer-state heatmap (frames × buffers), group lifetimes and frame details.

    configs: list of (mode, num_stages, empty_commits); default: the shipped schedule for
    S = 2 (the Level 5 kernel's ring), 3 and 4, with and without empty commits, then the
    seed's order for S = 3.
    A dropdown picks the configuration (trace visibility); the slider walks the frames
    of every configuration at once (restyle), so the two controls stay independent.
    """
    import plotly.graph_objects as go

    if configs is None:
        configs = [("shipped", s, e) for s in (2, 3, 4) for e in (True, False)]
        configs += [("seed", 3, True), ("seed", 3, False)]
    try:
        traces = [async_pipeline_trace(s, num_tiles, e, m) for m, s, e in configs]
        active = require_int_in_range(active, "초기 구성 번호(active)", 0, len(traces) - 1)
    except (SimInputError, TypeError, ValueError) as err:
        err = err if isinstance(err, SimInputError) else SimInputError(str(err))
        return error_figure(err, "cp.async 파이프라인")

    data, groups = [], []
    for c, tr in enumerate(traces):
        data += _config_traces(go, tr)
        groups += [c] * 4
    cursor_idx = [4 * c + 2 for c in range(len(traces))]
    info_idx = [4 * c + 3 for c in range(len(traces))]
    fig = go.Figure(data=data)
    for trace, visible in zip(fig.data, group_visibility(groups, active)):
        trace.visible = visible

    all_frames = [tr.frames for tr in traces]
    steps = []
    for p in range(max(len(f) for f in all_frames)):
        xs, ys, texts = [], [], []
        for tr, frames in zip(traces, all_frames):
            q = min(p, len(frames) - 1)
            cx, cy = _cursor_xy(q, tr.num_stages)
            xs.append(cx)
            ys.append(cy)
            texts.append([_frame_text(frames[q])])
        update = {"x": xs + [[0]] * len(traces), "y": ys + [[0]] * len(traces),
                  "text": [[]] * len(traces) + texts}
        steps.append((str(p), update, cursor_idx + info_idx))

    buttons = [{"label": _config_label(tr), "method": "update",
                "args": [{"visible": group_visibility(groups, c)}, _config_layout(tr)]}
               for c, tr in enumerate(traces)]
    fig.update_layout(
        height=860, margin={"t": 170, "l": 130, "b": 60, "r": 20},
        xaxis={"domain": [0, 1], "anchor": "y", "side": "top", "tickfont": {"size": 10}},
        yaxis={"domain": [0.64, 0.97], "tickvals": [0, 1, 2, 3],
               "ticktext": ["버퍼 0", "버퍼 1", "버퍼 2", "버퍼 3"]},
        xaxis2={"domain": [0, 1], "anchor": "y2", "matches": "x", "showticklabels": False},
        yaxis2={"domain": [0.36, 0.6], "autorange": "reversed",
                "title": {"text": "커밋 그룹 (보장 전 구간)"}, "tickfont": {"size": 10}},
        xaxis3={"domain": [0, 1], "anchor": "y3", "visible": False, "range": [0, 1]},
        yaxis3={"domain": [0.0, 0.32], "visible": False, "range": [-1, 0.05]},
        updatemenus=[{"name": "파이프라인 구성", "type": "dropdown", "active": active, "buttons": buttons,
                      "x": 0.0, "y": 1.04, "xanchor": "left", "yanchor": "bottom"}],
        sliders=[restyle_slider(steps, prefix="열 ", y=-0.02, name="반복 단계 (열)")],
    )
    for key, value in _config_layout(traces[active]).items():
        fig.layout[key] = value
    fig.layout.title.font.size = 13
    fig.layout.title.y = 0.985
    fig.layout.title.yanchor = "top"
    return fig
