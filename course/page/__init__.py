"""Everything a chapter's code cells call, in one place: figures, quoted kernel code, tables,
labelled notes, and the "run it" cell that measures live on a GPU or shows recorded results.

    from course.page import show, show_region, note, table, measure_or_recorded, show_results

The book is built with COURSE_STATIC=1 (see the Makefile): then every figure becomes a small HTML
block drawn by the site's own plotly.js (loaded once per page by course.site.extension, no CDN), so it
stays interactive with no kernel. In JupyterLab the same call shows the live plotly figure and,
where a simulator has one, the ipywidgets view.

On a GPU, `measure_or_recorded` checks the kernels against cuBLAS and times them live (with a
progress bar). Without one, the rows come from book/data/benchmarks.json and every table and
figure says so, with the device, driver, CuPy version, date and command that produced them.

The package also holds module 12's live cell over the shape zoo (course.page.shape_zoo).

What it may import: kernels, course.syllabus and the figures' text alternatives
(course.site.figure_text, a leaf that imports nothing); never course.quiz, course.notebook,
course.gating or course.autograder, which all draw through it.
"""
from __future__ import annotations

import html
import json
import os
import uuid
from dataclasses import dataclass

from course.site import figure_text
from kernels import record, registry
from kernels.device import gpu_available

STATIC_ENV = "COURSE_STATIC"



def static_mode() -> bool:
    """True while the book is being built into the static HTML site."""
    return os.environ.get(STATIC_ENV) == "1"


class StaticHTML:
    """An HTML fragment for the static site; plain text elsewhere."""

    def __init__(self, markup: str, text: str = ""):
        self.markup = markup
        self.text = text

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return self.text or "<HTML fragment>"


def _safe_json(obj) -> str:
    """JSON that can sit inside a <script> element without ending it early."""
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def figure_html(fig, height: int | None = None) -> str:
    """A div plus the figure as JSON; course/site/static/figures.js draws it with the site's plotly.js.

    Around it, for readers who cannot see it: a Korean accessible name and a description generated
    from the figure's data (course.site.figure_text), and its data as tables (with the words drawn in it)
    behind a "표로 보기" toggle. figures.js writes the title above the plot, adds a simulator's
    controls and keeps its description and tables those of the state shown."""
    spec = fig.to_plotly_json()
    _trim_template(spec)
    figure_text.apply_series_styles(spec.get("data", []))
    div_id = "fig-" + uuid.uuid4().hex[:12]
    h = height or spec.get("layout", {}).get("height") or 460
    payload = _safe_json({"data": spec.get("data", []), "layout": spec.get("layout", {}),
                          "frames": spec.get("frames", [])})
    name = html.escape(figure_text.figure_name(spec))
    description = html.escape(figure_text.figure_description(spec))
    # The block is the figure for assistive technology: a Korean name, then the description as
    # text. plotly's SVG (axis ticks, hover layers) is hidden from it; figures.js takes the mode
    # bar out of the tab order and adds the keyboard controls of a simulator.
    return (
        f'<div class="course-figure-block" role="figure" aria-label="{name}">'
        f'<div class="course-figure" id="{div_id}" aria-hidden="true" style="width:100%;height:{int(h)}px"></div>'
        f'<script type="application/json" id="{div_id}-spec">{payload}</script>'
        f'<p class="course-figure-desc course-sr-only" id="{div_id}-desc">{description}</p>'
        f"{figure_text.tables_html(figure_text.figure_tables(spec), div_id, figure_text.figure_notes(spec))}"
        "</div>"
    )


def _trim_template(spec: dict) -> None:
    """Keep the template's defaults only for the trace types the figure uses (about 7 KB less each)."""
    template = spec.get("layout", {}).get("template")
    if not isinstance(template, dict) or "data" not in template:
        return
    used = {trace.get("type", "scatter") for trace in spec.get("data", [])}
    for frame in spec.get("frames", []) or []:
        used |= {trace.get("type", "scatter") for trace in frame.get("data", [])}
    template["data"] = {kind: value for kind, value in template["data"].items() if kind in used}


def show(fig, widget_factory=None, height: int | None = None):
    """Display a plotly figure: static HTML in the site build, the live figure (or widget) in JupyterLab."""
    from IPython.display import display

    if static_mode():
        display(StaticHTML(figure_html(fig, height), text=f"[figure: {fig.layout.title.text or ''}]"))
    elif widget_factory is not None:
        display(widget_factory())
    else:
        _style_series(fig)
        display(fig)


def _style_series(fig) -> None:
    """The site's colour-independent series styles (marker, dash, pattern), on a live figure too."""
    traces = [trace.to_plotly_json() for trace in fig.data]
    for trace, update in zip(fig.data, figure_text.series_styles(traces)):
        if update:
            trace.update(update)


def show_region(file: str, region: str, caption: str | None = None):
    """Show a marked region of a kernel source as a highlighted CUDA block (quoted, never pasted)."""
    from IPython.display import Markdown, display

    from kernels.source import region as read_region, region_lines

    first, last = region_lines(file, region)
    title = caption or f"`kernels/{file}` — `{region}` (줄 {first}–{last})"
    language = "python" if file.endswith(".py") else "cuda"
    display(Markdown(f"{title}\n\n```{language}\n{read_region(file, region)}\n```"))


def note(text: str, kind: str = "note"):
    """A small labelled box (used for 'recorded result' labels and warnings)."""
    from IPython.display import display

    display(StaticHTML(f'<div class="course-note course-note-{html.escape(kind)}">{html.escape(text)}</div>', text))


def table(rows: list[dict], columns: list[tuple[str, str]], caption: str = ""):
    """A small HTML table: columns are (key, Korean header) pairs; values are pre-formatted."""
    from IPython.display import display

    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for _, h in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(r.get(k, '')))}</td>" for k, _ in columns) + "</tr>" for r in rows
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    # The scroll box is the wrapper, not the table: the theme's script makes it focusable when it
    # overflows, so a wide table can be scrolled from the keyboard (WCAG 2.1.1).
    markup = ('<div class="pst-scrollable-table-container course-table-scroll">'
              f'<table class="course-table">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
    display(StaticHTML(markup, caption))


# --------------------------------------------------------------------------- measured results


@dataclass
class Results:
    rows: list[dict]
    live: bool
    provenance: dict
    why_recorded: str = ""   # on a GPU: why the recorded rows are shown instead (a configuration that does not fit)

    def label(self) -> str:
        p = self.provenance
        if self.live:
            return (f"이 컴퓨터에서 방금 측정한 결과 (live): {p.get('device')}, CuPy {p.get('cupy')}, "
                    f"CUDA 런타임 {p.get('cuda_runtime')}, {p.get('date')}. " + self.configuration_note())
        return (f"기록된 결과 (recorded): {p.get('device')}, 드라이버 {p.get('driver')}, CUDA 런타임 "
                f"{p.get('cuda_runtime')}, CuPy {p.get('cupy')}, {str(p.get('date'))[:10]}, "
                f"명령 `{p.get('command')}`, 커밋 {str(p.get('git_commit'))[:10]}")

    def configuration_note(self) -> str:
        """Whose configuration ran, and that every ratio in the table is within this one GPU's run."""
        p = self.provenance
        shapes = dict.fromkeys(f"{r['kernel']} {r['config_text']}" for r in self.rows if r.get("config_text"))
        whose = p.get("label_ko") or "이 GPU의 한도로 고른 구성(kernels/configs.py)"
        text = f"구성: {whose}" + (f" — {'; '.join(shapes)}" if shapes else "") + ". "
        return text + ("cuBLAS 대비 비율은 모두 이 GPU에서 같은 실행에 잰 cuBLAS와의 비입니다. 본문의 수치는 기록된 "
                       "측정이므로 이 표의 값과 한 비율로 섞지 마세요.")

    def for_kernel(self, kernel: str) -> list[dict]:
        return [r for r in self.rows if r["kernel"] == kernel]

    def at(self, kernel: str, n: int) -> dict | None:
        return next((r for r in self.rows if r["kernel"] == kernel and r["M"] == r["N"] == r["K"] == n), None)

    def cublas_window_spread_pct(self, n: int) -> float:
        """How far apart the cuBLAS times measured beside each kernel at M = n are (max / min - 1, in %): each
        row's % of cuBLAS divides by the cuBLAS time of its own alternation window. This measures how much the GPU's
        speed drifted between windows, not the noise of a ratio: alternation cancels what hits both candidates alike."""
        times = [r["median_ms"] * r["pct_cublas"] / 100 for r in self.rows
                 if r["M"] == n and r["kernel"] != "cublas" and r.get("pct_cublas")]
        return 100 * (max(times) / min(times) - 1)


def recorded(path=None) -> Results | None:
    data = record.load(path) if path else record.load()
    if data is None:
        return None
    provenance = {k: v for k, v in data.items() if k != "rows"}
    return Results(data["rows"], False, provenance)


def measure_or_recorded(kernels: list[str], sizes=(1024, 2048, 4096), reps: int = 10,
                        force_recorded: bool = False) -> Results:
    """Live measurement on a GPU; otherwise the recorded rows of the same kernels and sizes."""
    for name in kernels:
        registry.get(name)
    why = ""
    if gpu_available() and not force_recorded:
        from kernels import bench
        from kernels.errors import DeviceLimitError

        try:
            rows = [r.as_row() for r in bench.bench(kernels, sizes, reps=reps)]
            return Results(rows, True, record.provenance("(live, in this notebook)"))
        except DeviceLimitError as exc:   # a configuration this GPU cannot run: show the record instead
            why = str(exc)
    data = recorded()
    if data is None:
        raise FileNotFoundError("GPU도 없고 기록된 결과(book/data/benchmarks.json)도 없습니다.")
    wanted = set(kernels) | {"cublas"}
    sizes = set(sizes)
    rows = [r for r in data.rows if r["kernel"] in wanted and r["M"] in sizes and r["M"] == r["N"] == r["K"]]
    return Results(rows, False, data.provenance, why_recorded=why)


def _fmt(value, digits=0, suffix=""):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}{suffix}"


def table_rows(results: Results) -> list[dict]:
    out = []
    for r in results.rows:
        out.append({
            "kernel": r["kernel"], "size": f"{r['M']}³" if r["M"] == r["N"] == r["K"] else f"{r['M']}×{r['N']}×{r['K']}",
            "ms": _fmt(r["median_ms"], 3), "range": f"{r['min_ms']:.3f}–{r['max_ms']:.3f}",
            "gflops": _fmt(r["gflops"]), "gbs": _fmt(r["gbs"]), "peak": _fmt(r.get("pct_peak"), 1, "%"),
            "cublas": _fmt(r.get("pct_cublas"), 1, "%"),
            "err": "-" if r.get("rel_error") is None else f"{r['rel_error']:.1e}",
            "regs": r.get("registers") if r.get("registers") is not None else "-",
        })
    return out


TABLE_COLUMNS = [("kernel", "커널"), ("size", "크기"), ("ms", "중앙값 ms"), ("range", "최소–최대 ms"),
                 ("gflops", "GFLOP/s"), ("gbs", "GB/s"), ("peak", "FP32 최대 대비"), ("cublas", "cuBLAS 대비"),
                 ("err", "상대 오차"), ("regs", "레지스터")]


def figure(results: Results, title: str):
    """GFLOP/s by size (bars) for each kernel, with % of cuBLAS in the hover and on a second panel."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    kernels = list(dict.fromkeys(r["kernel"] for r in results.rows))
    palette = ["#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880",
               "#ff97ff", "#fecb52"]
    colour = {name: palette[i % len(palette)] for i, name in enumerate(kernels)}   # same colour in both panels
    fig = make_subplots(rows=1, cols=2, subplot_titles=("처리량 (GFLOP/s)", "cuBLAS 대비 (%)"),
                        horizontal_spacing=0.12)
    for name in kernels:
        rows = sorted(results.for_kernel(name), key=lambda r: r["M"])
        x = [f"{r['M']}³" for r in rows]
        hover = [f"{name}<br>{r['M']}³: {r['median_ms']:.3f} ms, {r['gflops']:,.0f} GFLOP/s, "
                 f"cuBLAS 대비 {r['pct_cublas']:.1f}%" for r in rows]
        fig.add_trace(go.Bar(name=name, x=x, y=[r["gflops"] for r in rows], hovertext=hover, hoverinfo="text",
                             legendgroup=name, marker_color=colour[name]), row=1, col=1)
        if name != "cublas":
            fig.add_trace(go.Bar(name=name, x=x, y=[r["pct_cublas"] for r in rows], hovertext=hover,
                                 hoverinfo="text", legendgroup=name, showlegend=False, marker_color=colour[name]),
                          row=1, col=2)
    source = (f"실시간 측정, {results.provenance.get('device')}" if results.live
              else f"기록된 결과, {results.provenance.get('device')}")
    if results.live and results.provenance.get("device_profile"):
        source += f", {results.provenance['device_profile']}의 구성"
    fig.update_layout(title=f"{title} ({source})", barmode="group", height=420,
                      legend=dict(orientation="h", y=-0.18), margin=dict(t=70, b=40, l=50, r=20))
    fig.update_yaxes(title_text="GFLOP/s", row=1, col=1)
    fig.update_yaxes(title_text="% of cuBLAS", row=1, col=2)
    return fig


def show_results(results: Results, title: str, caption: str = ""):
    """The label (live or recorded, with provenance), the table, and the figure."""
    if results.why_recorded:
        note(results.why_recorded, kind="warning")
    note(results.label(), kind="live" if results.live else "recorded")
    table(table_rows(results), TABLE_COLUMNS, caption or f"{title}: 커널별 측정값")
    show(figure(results, title))


# --------------------------------------------------------------------------- one kernel, many GPUs

def _kib(nbytes: int) -> str:
    """Bytes in KiB, to a tenth where the number is not whole (16,640 B: 16.3 KiB; 65,536 B: 64 KiB)."""
    text = f"{nbytes / 1024:,.1f}"
    return (text[:-2] if text.endswith(".0") else text) + " KiB"


def device_class_rows(data: dict) -> list[dict]:
    """One row per configuration class of book/data/device_configs.json (devices sharing a configuration)."""
    by_name = {d["name"]: d for d in data["devices"]}
    smem = {(r["device"], r["kernel"]): r for r in data["rows"]}
    out = []
    for cls in data["classes"]:
        first = by_name[cls["devices"][0]]
        l5, l6 = cls["level5"], cls["level6"]
        r5, r6 = smem[(first["name"], "sgemm_async_copy_vec")], smem[(first["name"], "sgemm_warp_tiling")]
        out.append({
            "gpus": ", ".join(by_name[n]["title"] for n in cls["devices"]),
            "cc": ", ".join(dict.fromkeys(by_name[n]["cc"] for n in cls["devices"])),
            "limit": _kib(first["smem_per_block_optin"]),
            "l5": f"BK {l5['BK']}, 스테이지 {l5['STAGES']}개 ({_kib(r5['smem_bytes'])}, SM당 {r5['blocks_per_sm']}블록)",
            "l6": (f"{l6['BM']}×{l6['BN']}, BK {l6['BK']}, 스테이지 {l6['STAGES']}개 ({_kib(r6['smem_bytes'])}, "
                   f"레지스터 {r6['registers']})"),
            "copy": "cp.async" if cls["cp_async"] else "동기 복사 폴백",
        })
    return out


DEVICE_CLASS_COLUMNS = [("gpus", "GPU"), ("cc", "compute capability"), ("limit", "블록당 공유 메모리 한도 (opt-in)"),
                        ("l5", "Level 5 스테이지 링"), ("l6", "Level 6 블록 타일과 스테이지 링"), ("copy", "복사")]


def profile_rows(data: dict) -> list[dict]:
    """book/data/device_profiles.json as rows: each class's configuration timed on the recording GPU."""
    out = []
    for entry in data["profiles"]:
        for r in entry["rows"]:
            if r["kernel"] == "cublas":
                continue
            out.append({"config": f"{entry['profile']}의 구성", "kernel": r["kernel"],
                        "shape": r.get("config_text", "-"), "size": f"{r['M']}³", "ms": _fmt(r["median_ms"], 3),
                        "cublas": _fmt(r.get("pct_cublas"), 1, "%")})
    return out


PROFILE_COLUMNS = [("config", "구성"), ("kernel", "커널"), ("shape", "모양"), ("size", "크기"),
                   ("ms", "중앙값 ms"), ("cublas", "같은 GPU의 cuBLAS 대비")]


def show_device_configs(configs_path=None, profiles_path=None):
    """Module 11's table "같은 커널, 다른 GPU": each device class's configuration, and (when recorded) each
    configuration timed on the recording GPU, labelled as such (never as the other GPU's own speed)."""
    configs_path = configs_path or record.DATA_DIR / "device_configs.json"
    profiles_path = profiles_path or record.DATA_DIR / "device_profiles.json"
    data = json.loads(configs_path.read_text(encoding="utf-8"))
    table(device_class_rows(data), DEVICE_CLASS_COLUMNS, "GPU마다 고른 구성 (kernels/configs.py의 규칙)")
    compiler = data["compiler"]
    note(f"기록: device_configs.json, 명령 `{data['command']}`, {str(data['date'])[:10]}, 커밋 "
         f"{str(data['git_commit'])[:10]}. 레지스터는 NVRTC {compiler['nvrtc']}가 각 compute capability용으로 "
         "컴파일한 cubin에서 읽었습니다 (GPU 없이). 같은 줄의 GPU들은 같은 구성을 받습니다.", kind="recorded")
    if not profiles_path.exists():
        return
    timed = json.loads(profiles_path.read_text(encoding="utf-8"))
    table(profile_rows(timed), PROFILE_COLUMNS, f"각 구성을 {timed['device']}에서 잰 값")
    note(f"기록: device_profiles.json, {timed['device']}, {str(timed['date'])[:10]}, 명령 `{timed['command']}`. "
         f"모든 줄은 {timed['device']} 한 대에서 잰 값입니다. 'T4의 구성'은 T4의 속도가 아니라 T4가 받는 구성을 "
         f"{timed['device']}에서 돌린 속도이고, cuBLAS 대비 비율도 같은 GPU의 cuBLAS와 잰 것입니다.", kind="recorded")


# --------------------------------------------------------------------------- the Colab / JupyterHub page

NOTEBOOK_DIR = "_static/notebooks"   # where make book puts the .ipynb copies (tools/export_notebooks.py)


def _page_title(path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def show_notebook_links(site_root: str = "../../"):
    """Each chapter's .ipynb as a download link (site), or where `make notebooks` writes them (JupyterLab)."""
    import sys

    from IPython.display import Markdown, display

    tools = str(record.REPO_ROOT / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    from export_notebooks import chapters   # the pages tools/export_notebooks.py writes

    pages = [(p.stem, _page_title(p)) for p in chapters()]
    if static_mode():
        items = "".join(f'<li><a href="{site_root}{NOTEBOOK_DIR}/{html.escape(stem)}.ipynb" download>'
                        f"{html.escape(title)}</a> (<code>{html.escape(stem)}.ipynb</code>)</li>"
                        for stem, title in pages)
        display(StaticHTML(f'<ul class="course-notebook-links">{items}</ul>', "\n".join(t for _, t in pages)))
    else:
        display(Markdown("\n".join(f"- {title}: `notebooks/{stem}.ipynb` (저장소에 함께 있음; `make notebooks`가 다시 씀)"
                                   for stem, title in pages)))


def show_device_comparison(names=("T4", "H100")):
    """A few listed GPUs side by side, from kernels/devices.py (what a T4 changes against the recorded H100)."""
    from kernels import devices
    from kernels.device import fp32_lanes, peak_gflops

    rows = []
    for name in names:
        d = devices.profile(name)
        rows.append({"gpu": d.title, "cc": d.cc_text, "sm": d.sm_count, "smem": _kib(d.smem_per_block_optin),
                     "threads": f"{d.max_threads_per_sm:,}",
                     "peak": f"{peak_gflops(d.sm_count, fp32_lanes(d.cc), d.clock_mhz) / 1000:,.1f} TFLOP/s",
                     "async": "있음" if d.has_cp_async else "없음 (동기 복사 폴백)"})
    table(rows, [("gpu", "GPU"), ("cc", "compute capability"), ("sm", "SM 수"), ("smem", "블록당 공유 메모리"),
                 ("threads", "SM당 스레드"), ("peak", "FP32 최대 (부스트 클럭)"), ("async", "cp.async")],
          "kernels/devices.py에 적힌 한도")


def syllabus_rows() -> list[dict]:
    """The course map (module, level, title, kernel files) from the syllabus and the registry."""
    from course import syllabus

    rows = []
    for m in syllabus.load():
        specs = [s for s in registry.KERNELS.values() if s.chapter == m.number]
        if m.level is not None:   # the module's own level (a chapter also shows counter-examples of earlier ones)
            specs = [s for s in specs if s.level == m.level]
        levels = sorted({s.level for s in specs})
        title = m.title + (f" — {m.checkpoint.title}" if m.checkpoint else "") + (" (보너스)" if m.bonus else "")
        rows.append({"module": str(m.number), "level": ", ".join(f"Level {lv}" for lv in levels) or "—",
                     "title": title, "files": ", ".join(sorted({s.file for s in specs})) or "—"})
    return rows


def show_syllabus_map() -> None:
    table(syllabus_rows(), [("module", "모듈"), ("level", "단계"), ("title", "무엇을 배우나"), ("files", "커널 파일")],
          "단계별 지도 (course/syllabus.py)")

