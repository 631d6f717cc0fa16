"""Exported notebooks read like the site in plain Jupyter and Colab: values filled in, no MyST left, hidden cells
collapsed, cross-references linked; the committed notebooks/ is what the chapters give; the install cell refuses
an old Python in Korean without a traceback and keeps progress on Google Drive when asked."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from conftest import REPO, SITE
from course.notebook import cells as notebook_cells, export as notebook_export, markdown as notebook_markdown
from course.notebook import runtime as notebook_runtime
from course.notebook.export import NOTEBOOK_DIR, Settings
from course.site import colab_link

MYST_LEFT = re.compile(r"\{[A-Za-z][\w:.-]*\}`|^\s*(`{3,}|:{3,}|~{3,})\s*\{|^\s*:{3,}|^\(\S+\)=\s*$|^%", re.M)


@pytest.fixture(scope="module")
def exported():
    """{file name: notebook text} as `make notebooks` writes them, and the conversion's warnings."""
    warnings: list[str] = []
    files = notebook_export.rendered(NOTEBOOK_DIR, notebook_export.load_settings(), warnings)
    return files, warnings


def _markdown(text: str) -> list[str]:
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"]


def test_every_chapter_exports_with_no_myst_left(exported):
    files, warnings = exported
    assert not warnings, warnings
    assert {"m04_naive.ipynb", "m10_profiling.ipynb", "m12_shape_aware.ipynb", "models.ipynb"} <= set(files)
    for name, text in files.items():
        nbformat.validate(nbformat.reads(text, as_version=4))
        for cell in _markdown(text):
            left = MYST_LEFT.search(cell)
            assert left is None, f"{name}: MyST left in a text cell: {cell[max(0, left.start() - 80):left.end() + 80]!r}"
            assert cell.count("<details>") == cell.count("</details>"), f"{name}: an answer box left open: {cell[:200]!r}"
    m10 = "\n".join(_markdown(files["m10_profiling.ipynb"]))
    assert "<details>\n<summary>정답 보기</summary>" in m10 and "<details open" not in m10
    assert "**표:** 모듈 10 학습 목표와 Bloom 수준" in m10
    assert "[스톨 이유의 뜻](models.ipynb#models-stalls)" in m10


def test_committed_notebooks_match_the_chapters(exported):
    files, _ = exported
    committed = {p.name: p.read_text(encoding="utf-8") for p in NOTEBOOK_DIR.glob("*.ipynb")}
    stale = sorted(n for n in set(files) | set(committed) if files.get(n) != committed.get(n))
    assert not stale, f"notebooks/ differs from the chapters in {stale}: run `make notebooks` and commit notebooks/"


def _site_text(page: str) -> str:
    raw = (SITE / "book" / f"{page}.html").read_text(encoding="utf-8")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


@pytest.mark.parametrize("page", ["m04_naive", "m10_profiling", "m12_shape_aware"])
def test_exported_numbers_are_the_numbers_of_the_built_site(page):
    built = SITE / "book" / f"{page}.html"
    if not built.exists():
        pytest.skip("사이트가 빌드되지 않았습니다 (make book)")
    path = REPO / "book" / f"{page}.md"
    sources = [path, *(REPO / "course" / "facts").glob("*.py"), *(REPO / "book" / "data").glob("*.json")]
    if built.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip("사이트가 장이나 기록보다 오래되었습니다 (make book으로 다시 빌드하세요)")
    import jupytext

    nb = jupytext.read(path)
    values = notebook_export.ChapterValues(path, nb.cells)
    shown = {}
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for expression in re.findall(r"\{eval\}`([^`]+)`", cell.source):
                shown[expression] = values.evaluate(expression, k)
    assert len(shown) >= 20
    site = _site_text(page)
    # Smart quotes are off (_config.yml), so a command's "--" options reach the page as typed.
    sample = sorted({v for v in shown.values() if len(v) >= 3})
    missing = [v for v in sample if v not in site]
    assert not missing, f"{page}: values the notebook shows but the site does not: {missing[:10]}"


def _ctx(**values):
    return notebook_markdown.Context(
        page="book/m05_coalescing", evaluate=lambda e: values[e],
        link=lambda name, anchor: f"{name.rsplit('/', 1)[-1]}.ipynb" + (f"#{anchor}" if anchor else ""),
        doc_title={"book/m04_naive": "모듈 4 — 나이브"}.get,
        label={"models-ridge": ("book/appendix/models", "꺾임점과 산술 강도")}.get,
        asset=lambda p: f"../book/{p}")


def test_each_myst_construct_becomes_markdown_that_colab_renders():
    ctx = _ctx(**{"f.n": "4,096", "f.name": "a_b*c|d", "f.p(\"x\", \"과\")": "2.00과"})
    source = textwrap.dedent("""\
        (sec-x)=
        ## 제목 {eval}`f.n`

        % a comment the site drops
        값은 {eval}`f.n`이고 이름은 {eval}`f.name`, {eval}`f.p("x", "과")`; 코드 `` {eval}`f.n` `` 그대로.
        {doc}`m04_naive`, {doc}`앞 장 <m04_naive>`, {ref}`models-ridge`, 수식 $a_{k} = {eval}$.

        :::{note}
        상자 안 {eval}`f.n`.
        :::

        :::{dropdown} 정답 **보기** {eval}`f.n`
        ```{table} 캡션 {eval}`f.n`
        :name: tbl-x
        | a | b |
        | --- | --- |
        | {eval}`f.name` | 2 |
        ```
        :::

        ```{figure} img/x.png
        :alt: 그림 설명
        캡션.
        ```

        $$
        x = y
        $$ (eq-x)
        """)
    out = notebook_markdown.convert(source, ctx)
    assert not ctx.warnings, ctx.warnings
    assert MYST_LEFT.search(out.replace("`` {eval}`f.n` ``", "")) is None, out
    assert '<a id="sec-x"></a>\n\n## 제목 4,096' in out
    assert "a comment" not in out
    assert r"이름은 a\_b\*c\|d, 2.00과" in out and "코드 `` {eval}`f.n` `` 그대로" in out
    assert "[모듈 4 — 나이브](m04_naive.ipynb), [앞 장](m04_naive.ipynb), [꺾임점과 산술 강도](models.ipynb#models-ridge)" in out
    assert "$a_{k} = {eval}$" in out
    assert "> **참고**\n>\n> 상자 안 4,096." in out
    assert "<details>\n<summary>정답 <strong>보기</strong> 4,096</summary>\n\n" in out and out.count("</details>") == 1
    assert '<a id="tbl-x"></a>\n\n**표:** 캡션 4,096\n\n| a | b |' in out and r"| a\_b\*c\|d | 2 |" in out
    assert "![그림 설명](../book/img/x.png)\n\n**그림:** 캡션." in out
    assert '<a id="eq-x"></a>\n\n$$\nx = y\n$$' in out


def test_an_unknown_role_or_directive_is_reported_not_kept_as_markup():
    ctx = _ctx()
    out = notebook_markdown.convert("{foo}`bar`\n\n:::{card} 제목\n본문\n:::\n\n:::{weird}\n몸\n:::", ctx)
    assert MYST_LEFT.search(out) is None and "bar" in out and "몸" in out
    assert len(ctx.warnings) == 2 and "{foo}" in ctx.warnings[0] and "{weird}" in ctx.warnings[1]


def test_cells_the_site_hides_are_collapsed_with_a_colab_title():
    hidden = nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["remove-input"]})
    folded = nbformat.v4.new_code_cell("y = 2", metadata={"tags": ["hide-input"]})
    magic = nbformat.v4.new_code_cell("%%timeit\nx", metadata={"tags": ["remove-input", "hide-output"]})
    shown = nbformat.v4.new_code_cell("z = 3")
    for cell in (hidden, folded, magic, shown):
        notebook_export.hidden_metadata(cell)
    assert hidden.metadata["jupyter"] == {"source_hidden": True} and hidden.metadata["cellView"] == "form"
    assert hidden.source.startswith("#@title 숨긴 코드") and hidden.source.endswith("\nx = 1")
    assert folded.source.startswith("#@title 코드 보기")
    assert magic.source.startswith("%%timeit") and "cellView" not in magic.metadata
    assert magic.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert "jupyter" not in shown.metadata and shown.source == "z = 3"


def test_links_follow_the_site_url_the_sibling_notebook_or_the_repository():
    stems = frozenset({"m04_naive", "models"})
    plain = notebook_export.Links(Settings(), NOTEBOOK_DIR, stems)
    assert plain.page("book/appendix/models", "models-ridge") == "models.ipynb#models-ridge"
    assert plain.page("book/start/progress") == "../book/start/progress.md"
    site_copy = notebook_export.Links(Settings(), notebook_export.SITE_DIR, stems)
    assert site_copy.page("book/start/progress") == "../../book/start/progress.html"
    github = notebook_export.Links(Settings(repo_url="https://github.com/o/r.git"), NOTEBOOK_DIR, stems)
    assert github.page("book/start/progress") == "https://github.com/o/r/blob/main/book/start/progress.md"
    site = notebook_export.Links(Settings(site_url="https://x.io/sgemm/"), NOTEBOOK_DIR, stems)
    assert site.page("book/m04_naive", "a") == "https://x.io/sgemm/book/m04_naive.html#a"


def test_first_cells_say_what_to_run_and_carry_the_repository(exported):
    files, _ = exported
    cells = json.loads(files["m10_profiling.ipynb"])["cells"]
    intro, install, runtime = ("".join(c["source"]) for c in cells[:3])
    assert "런타임 → 런타임\n   유형 변경" in intro or "런타임 유형 변경" in intro
    assert "KEEP_PROGRESS_ON_DRIVE = False  #@param" in install and "sys.version_info < (3, 11)" in install
    assert cells[1]["metadata"]["tags"] == [notebook_cells.INSTALL_TAG]
    assert "show_runtime()" in runtime and cells[2]["metadata"]["jupyter"]["source_hidden"]
    with_url = notebook_cells.install_source("https://github.com/o/r")
    assert "COURSE_REPO_URL = 'https://github.com/o/r'  #@param" in with_url


OLD_PYTHON_WRAPPER = """\
import sys
source = sys.stdin.read()
try:
    exec(compile(source, "install-cell", "exec"), {"__name__": "__main__"})
except BaseException as stop:
    print("\\n".join(stop._render_traceback_()))
    sys.exit(3)
"""


def _python_3_10() -> "str | None":
    candidates = [shutil.which("python3.10"),
                  *sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.10*/bin/python3.10"))]
    for python in filter(None, candidates):
        if subprocess.run([python, "-c", "1"], capture_output=True).returncode == 0:
            return python
    return None


def test_install_cell_on_python_3_10_stops_with_korean_and_no_traceback():
    python = _python_3_10()
    if python is None:
        pytest.skip("python3.10이 없습니다")
    out = subprocess.run([python, "-c", OLD_PYTHON_WRAPPER], input=notebook_cells.install_source(""),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "Python은 3.10입니다" in out.stdout and "3.11 이상" in out.stdout and "런타임 유형 변경" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr and "pip" not in out.stdout


def test_ipython_shows_the_install_cells_stop_as_its_message_alone(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""\
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        cell = sys.stdin.read().replace("sys.version_info < (3, 11)", "sys.version_info < (99, 0)")
        shell.run_cell(cell)
        """), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], input=notebook_cells.install_source(""),
                         capture_output=True, text=True, timeout=60)
    shown = out.stdout + out.stderr
    assert "강좌에는 Python 3.11 이상이 필요합니다" in shown
    assert "Traceback" not in shown and "CourseSetupStop" not in shown, shown


def test_install_cell_keeps_progress_on_drive_when_asked(tmp_path):
    drive_dir = tmp_path / "MyDrive" / "sgemm-course"
    fake = tmp_path / "fake"
    (fake / "google" / "colab").mkdir(parents=True)
    (fake / "google" / "__init__.py").write_text("", encoding="utf-8")
    (fake / "google" / "colab" / "__init__.py").write_text("", encoding="utf-8")
    (fake / "google" / "colab" / "drive.py").write_text(
        "mounted = []\ndef mount(path):\n    mounted.append(path)\n    print('mounted', path)\n", encoding="utf-8")
    cell = (notebook_cells.install_source("")
            .replace("KEEP_PROGRESS_ON_DRIVE = False", "KEEP_PROGRESS_ON_DRIVE = True")
            .replace(notebook_cells.DRIVE_FOLDER, str(drive_dir)))
    cell += "\nimport course.quiz.progress as p\nprint('data dir:', p.default_data_dir())"
    env = {k: v for k, v in os.environ.items() if k != "SGEMM_COURSE_DATA"}
    env["PYTHONPATH"] = os.pathsep.join([str(fake), str(REPO)])
    out = subprocess.run([sys.executable, "-c", cell], capture_output=True, text=True, timeout=120, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "mounted /content/drive" in out.stdout and drive_dir.is_dir()
    assert f"data dir: {drive_dir}" in out.stdout and "SGEMM_COURSE_DATA" in out.stdout


def test_runtime_check_tells_a_colab_learner_how_to_get_a_gpu():
    colab = notebook_runtime.message(None, "colab", "NVIDIA H100 80GB HBM3")
    assert "런타임 → 런타임 유형 변경 → 하드웨어 가속기에서 T4 GPU" in colab
    assert "기록된 결과(NVIDIA H100 80GB HBM3에서 잰 값)" in colab and "ubuntu-drivers" not in colab
    hub = notebook_runtime.message(None, "jupyterhub", "")
    assert "Hub Control Panel" in hub and "기록된 결과" in hub and "T4" not in hub
    assert notebook_runtime.message("Tesla T4", "colab").startswith("GPU: Tesla T4.")
    elsewhere = notebook_runtime.message(None, None, "")
    assert "!{sys.executable} -m kernels doctor" in elsewhere and "!python" not in elsewhere


def test_colab_link_on_pages_with_a_notebook_only_with_a_github_repository():
    assert colab_link.page_links(Settings()) == {}
    assert colab_link.page_links(Settings(repo_url="https://gitlab.com/o/r")) == {}
    links = colab_link.page_links(Settings(repo_url="https://github.com/owner/sgemm-course", branch="main"))
    assert links["book/m10_profiling"] == \
        "https://colab.research.google.com/github/owner/sgemm-course/blob/main/notebooks/m10_profiling.ipynb"
    assert "book/start/colab_hub" not in links and "book/appendix/glossary" not in links
    body = '<section id="x">\n<h1>모듈 10<a class="headerlink" href="#x">#</a></h1>\n<p>본문</p>'
    linked = colab_link.with_link(body, links["book/m10_profiling"])
    assert linked.index("</h1>") < linked.index("Colab에서 열기") < linked.index("<p>본문")


def test_config_names_the_repository_key_and_the_link_extension():
    import yaml

    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
    assert "url" in config["repository"] and config["repository"].get("branch") == "main"
    assert "course.site.colab_link" in config["sphinx"]["extra_extensions"]

    class App:   # Jupyter Book fills in its own repository when _config.yml names none: no link then
        class config:
            html_theme_options = {"repository_url": colab_link.JUPYTER_BOOK_DEFAULT}
    assert colab_link._settings(App).github is None


def test_export_command_checks_the_committed_notebooks(tmp_path):
    out = subprocess.run([sys.executable, "tools/export_notebooks.py", "--out", str(tmp_path / "nb"), "--check"],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and "make notebooks" in out.stdout
    assert Path(REPO / "notebooks").is_dir()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.browser
def test_exported_notebook_reads_in_jupyterlab_without_jupyterlab_myst(browser, tmp_path):
    """JupyterLab with jupyterlab-myst turned off stands in for Colab: m10 shows numbers, tables and closed answers."""
    import time
    import urllib.request

    pytest.importorskip("jupyterlab")
    config = tmp_path / "config" / "labconfig"
    config.mkdir(parents=True)
    (config / "page_config.json").write_text(json.dumps({"disabledExtensions": {"jupyterlab-myst": True}}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "run"),
           "SGEMM_COURSE_DATA": str(tmp_path / "progress")}
    port = _free_port()
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={REPO}",
         "--allow-root", f"--LabApp.workspaces_dir={tmp_path / 'ws'}", f"--LabApp.user_settings_dir={tmp_path / 'settings'}"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/api/status", timeout=2)
                break
            except OSError:
                assert proc.poll() is None and time.time() < deadline, (tmp_path / "lab.log").read_text()[-2000:]
                time.sleep(0.5)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
        page = context.new_page()
        page.goto(f"{url}/lab/workspaces/export/tree/notebooks/m10_profiling.ipynb?reset")
        page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell .jp-RenderedMarkdown table", timeout=60_000)
        assert page.evaluate("() => !document.querySelector('.jp-MarkdownCell .myst')"), "jupyterlab-myst still renders"
        text = page.locator(".jp-NotebookPanel .jp-MarkdownCell .jp-RenderedMarkdown").all_inner_texts()
        joined = "\n".join(text)
        assert MYST_LEFT.search(joined) is None and "{eval}" not in joined
        assert "표: 모듈 10 학습 목표와 Bloom 수준" in joined and "NVIDIA H100" in joined
        details = page.locator(".jp-RenderedMarkdown details")
        assert details.count() >= 5 and page.locator(".jp-RenderedMarkdown details[open]").count() == 0
        hidden = page.locator(".jp-NotebookPanel .jp-CodeCell .jp-InputPlaceholder")
        assert hidden.count() >= 5, "the cells the site hides are collapsed"
        page.locator(".jp-RenderedMarkdown table").first.scroll_into_view_if_needed()
        shots = REPO / "_build" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "notebook_m10_without_myst.png"))
        context.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
