"""The three cells in front of every exported notebook: what to do first, the install cell, the GPU check.

The install cell runs in whatever Python the platform gives (Colab, a JupyterHub, an old kernel), before
the course exists there, so it is plain Python that still parses on old versions, and it never ends in a
traceback: a problem stops "Run All" with a Korean message alone (an exception whose
``_render_traceback_`` IPython prints instead of the traceback). In order it

1. refuses a Python older than 3.11 (the course's requires-python), saying where to pick a newer one;
2. with ``KEEP_PROGRESS_ON_DRIVE = True`` on Colab, mounts Google Drive and points ``SGEMM_COURSE_DATA``
   (course.quiz.progress) at a folder there, so quiz and exercise progress outlives the runtime;
3. fetches the course (git clone of ``COURSE_REPO_URL``, or an uploaded ``sgemm-course.zip``) and installs
   it into this Python with pip, next to the platform's NumPy, CuPy, ipywidgets and plotly: the course asks
   for version ranges they already meet, so pip keeps them (tests/test_oldest_versions.py checks it with
   Colab's versions); CuPy is added (the cuda12 extra) only where there is none.

The GPU check (course.notebook.runtime) names the GPU, or says in Korean how to switch Colab to a GPU
runtime and goes on with the recorded results.
"""
from __future__ import annotations

INSTALL_TAG = "course-install"
RUNTIME_TAG = "course-runtime"
DRIVE_FOLDER = "/content/drive/MyDrive/sgemm-course"

INTRO = """\
**처음 실행할 때 (Colab·JupyterHub)**

이 노트북은 강좌 사이트의 한 장을 노트북으로 옮긴 것입니다.{page} 장을 실행하기 전에 아래 두 셀을 먼저
실행하세요.

1. **설치 셀**: Python이 3.11 이상인지 확인하고, 강좌 저장소를 받아 이 노트북의 Python에 설치합니다. 플랫폼에
   이미 있는 NumPy, CuPy, ipywidgets, plotly는 바꾸지 않습니다. 강좌가 이미 설치된 곳(`make lab`, 강좌용으로
   등록한 커널)에서는 설치를 건너뜁니다. Colab에서 퀴즈와 실습 기록을 남기려면 `KEEP_PROGRESS_ON_DRIVE`를
   켜세요(Colab의 입력 양식에서는 체크 상자입니다). 기록이 Google Drive의 `sgemm-course` 폴더에 저장되어
   런타임이 새로 시작되어도 남습니다.
2. **GPU 확인 셀**: 이 런타임의 GPU를 알려 줍니다. Colab에서 GPU가 없다고 나오면 메뉴의 *런타임 → 런타임
   유형 변경*에서 **T4 GPU**를 고르고 저장한 뒤 설치 셀부터 다시 실행하세요. GPU 없이 계속해도 커널을
   실행하는 셀은 기록된 결과를 보여 줍니다.

그다음 *런타임 → 모두 실행*(Colab)이나 *Run → Run All Cells*(JupyterLab)로 장 전체를 실행합니다.{guide}"""

INSTALL = '''\
#@title 설치 셀: 처음 한 번 실행하세요
# Course install cell: checks this Python, keeps progress on Google Drive when asked, and installs the course
# next to the platform's NumPy, CuPy, ipywidgets and plotly (pip keeps them: the course asks for ranges they meet).
COURSE_REPO_URL = {url!r}  #@param {{type:"string"}}
KEEP_PROGRESS_ON_DRIVE = False  #@param {{type:"boolean"}}
import importlib, importlib.util, os, pathlib, subprocess, sys, zipfile


class CourseSetupStop(Exception):
    """Stops Run All with its Korean message alone: IPython prints _render_traceback_ instead of a traceback."""

    def _render_traceback_(self):
        return [str(self)]


if sys.version_info < (3, 11):
    raise CourseSetupStop(
        "이 노트북의 Python은 %d.%d입니다. 강좌에는 Python 3.11 이상이 필요합니다 (Python 3.11 or newer).\\n"
        "- Colab: 런타임 → 런타임 유형 변경에서 가장 최신 런타임 버전을 고른 뒤 다시 실행하세요.\\n"
        "- JupyterHub: Kernel → Change Kernel에서 Python 3.11 이상인 커널을 고르거나, 관리자에게 요청하세요."
        % sys.version_info[:2])


def _course_setup_run(args, problem, **where):
    done = subprocess.run(args, capture_output=True, text=True, **where)
    if done.returncode != 0:
        last = "\\n".join((done.stdout + done.stderr).strip().splitlines()[-6:])
        raise CourseSetupStop(problem + "\\n\\n" + last)


def _course_found():
    spec = importlib.util.find_spec("kernels")
    return bool(spec and spec.origin and pathlib.Path(spec.origin).with_name("sgemm_naive.cu").exists())


if KEEP_PROGRESS_ON_DRIVE and not os.environ.get("SGEMM_COURSE_DATA"):
    try:
        from google.colab import drive
    except ImportError:
        print("Google Drive는 Colab에서만 연결합니다. 진행 기록은 이 서버의 사용자 폴더에 남습니다.")
    else:
        try:
            drive.mount("/content/drive")
        except Exception as error:
            raise CourseSetupStop("Google Drive를 연결하지 못했습니다 (%s). Drive 없이 계속하려면 "
                                  "KEEP_PROGRESS_ON_DRIVE를 끄고 다시 실행하세요." % error)
        pathlib.Path({drive!r}).mkdir(parents=True, exist_ok=True)
        os.environ["SGEMM_COURSE_DATA"] = {drive!r}
if os.environ.get("SGEMM_COURSE_DATA"):
    print("진행 기록 폴더 (SGEMM_COURSE_DATA):", os.environ["SGEMM_COURSE_DATA"])

if not _course_found():
    _home = pathlib.Path("sgemm-course").resolve()
    if not _home.exists() and pathlib.Path("sgemm-course.zip").exists():
        with zipfile.ZipFile("sgemm-course.zip") as _archive:
            _top = pathlib.Path(_archive.namelist()[0].split("/")[0]).resolve()
            _archive.extractall(".")
        if _top != _home:
            _top.rename(_home)
    if not _home.exists():
        if not COURSE_REPO_URL:
            raise CourseSetupStop("COURSE_REPO_URL에 강좌 저장소 주소를 적거나, 저장소를 ZIP으로 받아 "
                                  "sgemm-course.zip이라는 이름으로 올린 뒤 이 셀을 다시 실행하세요.")
        _course_setup_run(["git", "clone", "--depth", "1", COURSE_REPO_URL, str(_home)],
                          "강좌 저장소를 받지 못했습니다 (git clone). COURSE_REPO_URL의 주소를 확인하세요.")
    # CuPy comes from the platform (Colab: cupy-cuda12x); the extra adds one only where there is none.
    _target = "." if importlib.util.find_spec("cupy") else ".[cuda12]"
    _course_setup_run([sys.executable, "-m", "pip", "install", "-q", "-e", _target],
                      "강좌를 설치하지 못했습니다 (pip install). pip이 남긴 마지막 줄:", cwd=_home)
    sys.path.insert(0, str(_home))   # importable now, without restarting the kernel
    importlib.invalidate_caches()
print("강좌 패키지:", importlib.util.find_spec("kernels").origin)'''

RUNTIME = """\
#@title GPU 확인
# Which GPU this runtime has; without one the chapter runs on the recorded results (and says how to get one).
from course.notebook.runtime import show_runtime

show_runtime()"""


def install_source(repo_url: str = "") -> str:
    """The install cell's code, with COURSE_REPO_URL filled in (empty: the learner fills it in or uploads a ZIP)."""
    return INSTALL.format(url=repo_url, drive=DRIVE_FOLDER)


def intro_text(site_page: str = "", guide: str = "") -> str:
    page = f" 사이트의 같은 장: [웹 페이지로 보기]({site_page})." if site_page else ""
    more = (f" 자세한 설명은 [Colab·JupyterHub에서 실행하기]({guide})에 있습니다." if guide
            else " 자세한 설명은 강좌 사이트의 \"Colab·JupyterHub에서 실행하기\"에 있습니다.")
    return INTRO.format(page=page, guide=more)


def first_cells(repo_url: str = "", site_page: str = "", guide: str = "") -> list:
    import nbformat

    return [
        nbformat.v4.new_markdown_cell(intro_text(site_page, guide)),
        nbformat.v4.new_code_cell(install_source(repo_url), metadata={"tags": [INSTALL_TAG], "cellView": "form"}),
        nbformat.v4.new_code_cell(RUNTIME, metadata={"tags": [RUNTIME_TAG], "cellView": "form",
                                                     "jupyter": {"source_hidden": True}}),
    ]
