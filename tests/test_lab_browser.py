"""What a learner sees in JupyterLab started the README's way (`make lab`), in Chromium, with no GPU.

Each chapter is opened from the file browser with a double click (it must open as a notebook), run with
"Run All Cells" (recorded results, since there is no GPU), and then read as the learner reads it:
no raw MyST in any rendered Markdown cell, every number the prose takes from the chapter's facts shown,
Korean prose, a short first code cell, no error output. Module 6 also checks that a simulator answers
its slider and that the quiz grades. Screenshots go to _build/screenshots/lab/.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import CHROMIUM, REPO

pytestmark = pytest.mark.browser

from course import syllabus  # noqa: E402

CHAPTERS = [m.page for m in syllabus.load()]
RAW_MYST = ["{glue", "{eval}", "```{", ":::{", "{doc}`", "{ref}`", "{numref}`", "{math}`", "{dropdown}"]
FIRST_CELL_MAX_LINES = 12
RUN_TIMEOUT_S = 420
# After the last code cell ran, jupyterlab-myst still evaluates each Markdown cell's {eval} expressions through
# the kernel; on a loaded machine that takes a while. Wait for the numbers (up to this long), never a fixed sleep.
RENDER_TIMEOUT_S = 120
KERNEL_START_TIMEOUT_S = 180
# The notebook in front has a kernel (its toolbar names one) and that kernel is idle.
KERNEL_READY = """panel => { const p = document.querySelector(panel); if (!p) return false;
  const name = p.querySelector('.jp-Toolbar-kernelName'), state = p.querySelector('.jp-Notebook-ExecutionIndicator');
  return !!name && !!state && !/no kernel|^\\s*$/i.test(name.textContent) && state.dataset.status === 'idle'; }"""
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"   # the notebook tab in front
EVAL_ROLE = re.compile(r"\{eval\}`f\.([A-Za-z_][A-Za-z0-9_]*)`")
EVAL_WITH_PARTICLE = re.compile(r'\{eval\}`f\.p\("([A-Za-z_][A-Za-z0-9_]*)", "([^"]+)"\)`')
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    """JupyterLab as `make lab` starts it (same packages, same settings overrides), on a free local port."""
    pytest.importorskip("jupyterlab")
    pytest.importorskip("jupyterlab_myst")
    jupyter = Path(sys.executable).with_name("jupyter")
    overrides = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert overrides.exists() and json.loads(overrides.read_text()) == json.loads(
        (REPO / "tools" / "lab_overrides.json").read_text()), "JupyterLab 설정이 없습니다: `make lab-install`을 실행하세요"
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("Chromium이 없습니다 (no /usr/bin/chromium)")
    home = tmp_path_factory.mktemp("lab")
    # The learner's settings are the overrides; the test only turns autosave off so that running a chapter
    # never rewrites its .md source.
    docmanager = home / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    env = {**os.environ, "SGEMM_COURSE_DATA": str(home / "progress"), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "")}
    env.pop("COURSE_STATIC", None)
    port = _free_port()
    log = open(home / "lab.log", "w")
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={REPO}", "--allow-root",
         f"--LabApp.workspaces_dir={home / 'workspaces'}", f"--LabApp.user_settings_dir={home / 'settings'}"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/api/status", timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start in 90 s:\n" + (home / "lab.log").read_text()[-3000:])
    if proc.poll() is not None:
        pytest.fail("JupyterLab exited:\n" + (home / "lab.log").read_text()[-3000:])
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def lab_shots() -> Path:
    d = REPO / "_build" / "screenshots" / "lab"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _open_and_run(browser, lab_url: str, chapter: str):
    """Open book/<chapter>.md by double click, run all cells, wait until every cell has run."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
    page = context.new_page()
    page.console_log = []
    page.on("console", lambda m: page.console_log.append(m.text))
    page.goto(f"{lab_url}/lab/workspaces/{chapter}/tree/book?reset")
    item = page.locator(f".jp-DirListing-item[title*='{chapter}.md']")
    item.wait_for(timeout=60_000)
    item.dblclick()
    try:
        page.wait_for_selector(f"{PANEL} .jp-Notebook .jp-Cell", timeout=60_000)
    except Exception:
        page.screenshot(path=str(REPO / "_build" / "screenshots" / "lab" / f"{chapter}_did_not_open.png"))
        raise AssertionError(f"{chapter} did not open as a notebook; console: {page.console_log[-15:]}")
    # Run All only once the kernel is idle: clicked while it still starts (a loaded machine), Run All can do
    # nothing at all, and every cell stays unrun ("[ ]:") — the old random failure of m09/m10/m11.
    try:
        page.wait_for_function(KERNEL_READY, arg=PANEL, timeout=KERNEL_START_TIMEOUT_S * 1000)
    except Exception:
        page.screenshot(path=str(REPO / "_build" / "screenshots" / "lab" / f"{chapter}_no_kernel.png"))
        raise AssertionError(f"{chapter}: the kernel was not idle after {KERNEL_START_TIMEOUT_S} s")
    _run_all(page)
    start, last_rerun = time.time(), time.time()
    while True:
        ran, running, unrun = _code_cell_states(page)
        errored = page.locator(f"{PANEL} [data-mime-type='application/vnd.jupyter.error']").count()
        if running == 0 and (unrun == 0 or errored) and time.time() - start > 2:
            break
        _answer_dialog(page, chapter)
        if ran == 0 and running == 0 and time.time() - last_rerun > 30:   # the click was lost: once more
            _run_all(page)
            last_rerun = time.time()
        assert time.time() - start < RUN_TIMEOUT_S, \
            f"{chapter}: after {RUN_TIMEOUT_S} s {ran} cells ran, {running} running, {unrun} not run"
        time.sleep(1)
    return context, page


def _answer_dialog(page, chapter: str) -> None:
    """A JupyterLab dialog in front (on a fresh server: the kernel choice) would swallow every click: its
    default answer is taken, and its text kept with a screenshot for the report."""
    dialog = page.locator(".jp-Dialog")
    if not dialog.count():
        return
    page.screenshot(path=str(REPO / "_build" / "screenshots" / "lab" / f"{chapter}_dialog.png"))
    print(f"{chapter}: JupyterLab dialog answered: {dialog.first.inner_text()[:300]!r}")
    page.locator(".jp-Dialog .jp-mod-accept").first.click()


def _run_all(page) -> None:
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()


def _code_cell_states(page) -> tuple[int, int, int]:
    """Code cells that ran ("[12]:"), are running ("[*]:") and have not run ("[ ]:")."""
    prompts = page.locator(f"{PANEL} .jp-CodeCell .jp-InputArea-prompt").all_text_contents()
    ran = sum(bool(re.search(r"\[\d+\]", p)) for p in prompts)
    running = sum("[*]" in p for p in prompts)
    return ran, running, len(prompts) - ran - running


def _rendered_markdown(page) -> tuple[int, list[str]]:
    cells = page.locator(f"{PANEL} .jp-MarkdownCell")
    return cells.count(), cells.locator(".myst, .jp-RenderedMarkdown").all_text_contents()


def _wait_for_rendered_facts(page, expected: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Poll until every expected number shows in the rendered Markdown (or the time is up): the rendered text and
    what is still missing. Strict: the caller fails on anything missing."""
    deadline = time.time() + RENDER_TIMEOUT_S
    while True:
        count, texts = _rendered_markdown(page)
        rendered = "\n".join(texts)
        flat = re.sub(r"\s+", " ", rendered)
        missing = {k: v for k, v in expected.items() if re.sub(r"\s+", " ", v) not in flat}
        complete = len(texts) == count and not any(p in rendered for p in ("{eval}",))
        if (not missing and complete) or time.time() > deadline:
            return rendered, missing
        time.sleep(1)


def _facts_shown(chapter: str) -> dict[str, str]:
    """Every f.NAME the chapter's prose shows, with the text it must show."""
    import importlib

    source = (REPO / "book" / f"{chapter}.md").read_text(encoding="utf-8")
    facts = importlib.import_module(f"course.facts.{chapter.split('_')[0]}").f
    shown = {}
    for name in set(EVAL_ROLE.findall(source)):
        shown[name] = str(getattr(facts, name))   # every {eval} is a fact of the module (tests/test_chapter_facts.py)
    for name, form in set(EVAL_WITH_PARTICLE.findall(source)):
        shown[f"{name}+{form}"] = str(facts.p(name, form))
    return shown


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_reads_in_jupyterlab_as_on_the_site(chapter, browser, lab_url, lab_shots):
    context, page = _open_and_run(browser, lab_url, chapter)
    try:
        page.screenshot(path=str(lab_shots / f"{chapter}_end.png"))
        page.locator(".jp-MarkdownCell").first.scroll_into_view_if_needed()
        page.screenshot(path=str(lab_shots / f"{chapter}_top.png"))

        first_code = page.locator(f"{PANEL} .jp-CodeCell").first
        lines = first_code.locator(".cm-content .cm-line").count()
        assert 0 < lines <= FIRST_CELL_MAX_LINES, f"{chapter}: the first code cell has {lines} lines"

        # jupyterlab-myst draws each Markdown cell into a `.myst` widget (the editor beside it stays hidden);
        # a cell JupyterLab rendered itself (no MyST) would be a `.jp-RenderedMarkdown`. Text content: the answers
        # inside closed dropdowns count too.
        # A cell that raised stops "Run All", and the text after it never gets its numbers: report the error first.
        errors = page.locator(f"{PANEL} [data-mime-type='application/vnd.jupyter.error']")
        assert errors.count() == 0, f"{chapter}: {errors.count()} cells raised an error:\n" + \
            "\n".join(t[-1500:] for t in errors.all_inner_texts())
        rendered, missing = _wait_for_rendered_facts(page, _facts_shown(chapter))
        count, texts = _rendered_markdown(page)
        assert len(texts) == count, f"{chapter}: some Markdown cells are not rendered"
        raw = {pattern: rendered.count(pattern) for pattern in RAW_MYST if pattern in rendered}
        assert not raw, f"{chapter}: raw MyST in rendered Markdown: {raw}"
        assert len(HANGUL.findall(rendered)) > 3000, f"{chapter}: little Korean prose rendered"
        assert not missing, f"{chapter}: numbers of the text not shown in JupyterLab: {dict(list(missing.items())[:8])}"

    finally:
        context.close()


def test_simulator_answers_its_slider(browser, lab_url, lab_shots):
    """Module 7's outer-product simulator: moving its k slider from the keyboard redraws the view."""
    context, page = _open_and_run(browser, lab_url, "m07_register_blocking")
    try:
        sim = page.locator(f"{PANEL} .widget-vbox").filter(has=page.locator(".widget-slider")).first
        sim.scroll_into_view_if_needed()
        view = sim.locator(".widget-html").last
        before = view.inner_html()
        sim.locator(".widget-slider .noUi-handle").first.focus()
        for _ in range(2):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("([el, old]) => el.innerHTML !== old", arg=[view.element_handle(), before],
                               timeout=15_000)
        page.screenshot(path=str(lab_shots / "m07_simulator_moved.png"))
    finally:
        context.close()


def test_quiz_grades_in_jupyterlab(browser, lab_url, lab_shots):
    """Module 6's checkpoint quiz: answer a question, submit, and the widget reports the grade."""
    context, page = _open_and_run(browser, lab_url, "m06_tiling")
    try:
        quiz = page.locator(f"{PANEL} .widget-vbox").filter(has_text="강사에게 낼 제출 파일").last
        quiz.scroll_into_view_if_needed()
        quiz.locator(".widget-radio-box input[type=radio]").first.check()
        quiz.get_by_role("button", name="제출하고 채점하기").click()
        # Unanswered questions: the widget asks once more before grading, and says so.
        quiz.get_by_role("button", name="그래도 제출하기").click()
        result = quiz.locator(".widget-html").filter(has_text=re.compile(r"문항 중 \d+문항 정답"))
        result.wait_for(timeout=15_000)
        text = result.inner_text()
        # A checkpoint attempt shows the count and the sections to review, not which question was wrong.
        assert "복습할 곳" in text and "통과하지 못했습니다" in text, text
        assert not re.search(r"(맞음|틀림)\s*$", text, re.M), text
        page.screenshot(path=str(lab_shots / "m06_quiz_graded.png"))
    finally:
        context.close()
