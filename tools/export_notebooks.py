"""Write every chapter as a Jupyter notebook (.ipynb) that reads like its site page in Colab and on any JupyterHub.

    python tools/export_notebooks.py                       # book/_static/notebooks/ (make book: on the site)
    python tools/export_notebooks.py --out notebooks       # make notebooks: notebooks/ (committed; Colab opens it)
    python tools/export_notebooks.py --out notebooks --check   # exit 1 when notebooks/ differs from the chapters

The conversion is course.notebook.export's (numbers filled in, MyST turned into Markdown/HTML, the site's
hidden cells collapsed, the install and GPU-check cells in front). Settings come from _config.yml:
repository.url (GitHub: the install cell clones it, and each chapter page links "Colab에서 열기") and
html.baseurl (the published site: cross-references link its pages). COURSE_REPO_URL, when set, overrides
repository.url for the install cell. Needs jupytext (the site's requirements, or `pip install -e ".[notebooks]"`).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:   # run as `python tools/export_notebooks.py` without the package installed
    sys.path.insert(0, str(REPO))

from course.notebook import export as notebook_export  # noqa: E402

SITE_DIR = notebook_export.SITE_DIR


def chapters() -> list[Path]:
    """The pages written as notebooks (course.page lists them on the Colab/JupyterHub page)."""
    return notebook_export.chapters()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=SITE_DIR, help=f"folder (default {SITE_DIR.relative_to(REPO)})")
    ap.add_argument("--repo-url", default=os.environ.get("COURSE_REPO_URL"),
                    help="git URL the install cell clones (default: $COURSE_REPO_URL, else _config.yml's repository.url)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if the folder differs from the chapters")
    args = ap.parse_args(argv)
    settings = notebook_export.load_settings()
    if args.repo_url:
        settings = dataclasses.replace(settings, repo_url=args.repo_url)
    out = args.out if args.out.is_absolute() else Path.cwd() / args.out
    try:
        if args.check:
            stale = notebook_export.differences(out, settings)
            if stale:
                print(f"{out}의 노트북이 장과 다릅니다: {', '.join(stale)}. 다시 만드세요: make notebooks")
                return 1
            print(f"{out}의 노트북이 장과 같습니다")
            return 0
        warnings: list[str] = []
        written = notebook_export.export(out, settings, warnings)
    except notebook_export.ExportError as err:
        print(f"노트북을 만들지 못했습니다: {err}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as err:
        print(f"노트북을 만들려면 {err.name} 패키지가 필요합니다: pip install -e \".[notebooks]\"", file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"주의(warning): {warning}", file=sys.stderr)
    print(f"{len(written)} notebooks in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
