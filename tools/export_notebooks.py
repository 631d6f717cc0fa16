"""Write every chapter as a Jupyter notebook (.ipynb), for Colab and JupyterHubs without jupytext.

    python tools/export_notebooks.py                       # book/_static/notebooks/ (make book: on the site)
    python tools/export_notebooks.py --out notebooks       # make notebooks: next to the repository, for a Hub
    COURSE_REPO_URL=https://.../sgemm-course.git make book # the install cell then knows where to get the course

Each notebook is its chapter converted by jupytext (text and code, no outputs), with one install cell in
front: on Colab or a Hub it fetches the course (git clone of COURSE_REPO_URL, or an uploaded ZIP),
installs it into the notebook's own Python next to the platform's CuPy and NumPy, and makes it
importable at once; where the course is already importable (make lab, a Hub kernel registered for it) it
does nothing. book/start/colab_hub.md explains the cell and links the site's copies.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run_chapters import REPO, chapters as _pages  # noqa: E402

SITE_DIR = REPO / "book" / "_static" / "notebooks"   # html_static_path: copied into the site's _static/
INSTALL_TAG = "course-install"

INSTALL_TEXT = """\
**설치 셀 (Colab·JupyterHub).** 처음 한 번 실행하세요. 강좌 저장소를 받아 이 노트북의 Python에 설치하고 바로 불러올 수
있게 합니다. 플랫폼에 이미 있는 CuPy와 NumPy는 그대로 둡니다. 강좌가 이미 설치된 곳(`make lab`, 강좌용으로 등록한
커널)에서는 아무것도 하지 않습니다. 자세한 설명은 사이트의 "Colab·JupyterHub에서 실행하기"에 있습니다."""

INSTALL_CELL = """\
# Course install cell: fetch the course (git URL or an uploaded ZIP) and install it next to this Python's CuPy/NumPy.
COURSE_REPO_URL = {url!r}   # the repository your instructor gave you (or upload sgemm-course.zip and leave it empty)
import importlib.util, pathlib, subprocess, sys, zipfile
if importlib.util.find_spec("kernels") is None:
    home = pathlib.Path("sgemm-course").resolve()
    if not home.exists() and pathlib.Path("sgemm-course.zip").exists():
        with zipfile.ZipFile("sgemm-course.zip") as archive:
            top = pathlib.Path(archive.namelist()[0].split("/")[0]).resolve()
            archive.extractall(".")
        if top != home:
            top.rename(home)
    if not home.exists():
        if not COURSE_REPO_URL:
            raise SystemExit("COURSE_REPO_URL에 강좌 저장소 주소를 적거나 sgemm-course.zip을 올린 뒤 다시 실행하세요.")
        subprocess.run(["git", "clone", "--depth", "1", COURSE_REPO_URL, str(home)], check=True)
    # CuPy comes from the platform (Colab: cupy-cuda12x); the extra adds one only where there is none.
    target = "." if importlib.util.find_spec("cupy") else ".[cuda12]"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", target], check=True, cwd=home)
    sys.path.insert(0, str(home))   # importable now, without restarting the kernel
    importlib.invalidate_caches()
print("강좌 패키지:", importlib.util.find_spec("kernels").origin)"""


def chapters() -> list[Path]:
    """The pages a learner runs: every page of _toc.yml with code cells, except the start pages."""
    return [p for p in _pages() if "start" not in p.relative_to(REPO).parts]


def notebook(path: Path, repo_url: str):
    """The chapter as a notebook, with the install cell first."""
    import jupytext
    import nbformat

    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.pop("jupytext", None)
    intro = nbformat.v4.new_markdown_cell(INSTALL_TEXT)
    install = nbformat.v4.new_code_cell(INSTALL_CELL.format(url=repo_url),
                                        metadata={"tags": [INSTALL_TAG]})
    nb.cells[:0] = [intro, install]
    return nb


def export(out: Path, repo_url: str = "") -> list[Path]:
    import nbformat

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in chapters():
        nb = notebook(path, repo_url)
        nbformat.validate(nb)
        target = out / f"{path.stem}.ipynb"
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=SITE_DIR, help=f"folder (default {SITE_DIR.relative_to(REPO)})")
    ap.add_argument("--repo-url", default=os.environ.get("COURSE_REPO_URL", ""),
                    help="git URL the install cell clones (default: $COURSE_REPO_URL, else the learner fills it in)")
    args = ap.parse_args(argv)
    written = export(args.out, args.repo_url)
    print(f"{len(written)} notebooks in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
