"""Execute chapters as notebooks, the way a learner's "Run All" does, and report each one.

    python tools/run_chapters.py                          # every page of _toc.yml that has code cells
    python tools/run_chapters.py --chapter m09_async_copy --chapter m11_beyond_cublas
    COURSE_DEVICE_PROFILE=T4 python tools/run_chapters.py --out $OUT/t4   # on a GPU, as a T4 would run
    python tools/run_chapters.py --exported               # the committed notebooks/*.ipynb, as Colab opens them

Each MyST chapter (book/*.md) is read with jupytext and run top to bottom by nbclient on an IPython kernel
of this very Python (a private kernelspec, so that no other installed "python3" kernel is picked), in the
chapter's folder, skipping the cells tagged skip-execution as the site build does. Without COURSE_STATIC
the cells take the JupyterLab path (live figures, widgets; on a GPU, live measurements). One failing
chapter does not stop the others; the exit code is the number of chapters that failed (at most 100).
Needs jupytext, nbclient and ipykernel (the site's requirements have them).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def toc_pages() -> list[Path]:
    """Pages of _toc.yml in order, as paths of their .md files."""
    if str(REPO) not in sys.path:   # run as `python tools/run_chapters.py` without the package installed
        sys.path.insert(0, str(REPO))
    from course import toc

    return [REPO / f"{name}.md" for name in toc.pages(REPO / "_toc.yml")]


def has_code(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return text.startswith("---\njupytext:") and "```{code-cell}" in text


def chapters(selected: list[str] | None = None) -> list[Path]:
    pages = [p for p in toc_pages() if p.exists() and has_code(p)]
    if not selected:
        return pages
    by_stem = {p.stem: p for p in pages}
    missing = [s for s in selected if s not in by_stem]
    if missing:
        raise SystemExit(f"알 수 없는 장: {', '.join(missing)} (있는 장: {', '.join(by_stem)})")
    return [by_stem[s] for s in selected]


def private_kernelspec() -> str:
    """A JUPYTER_PATH folder whose python3 kernel is this interpreter."""
    root = Path(tempfile.mkdtemp(prefix="course-kernels-"))
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (course)", "language": "python"}), encoding="utf-8")
    return str(root)


def run_one(path: Path, timeout: int, out: Path | None) -> tuple[bool, float, str]:
    """(passed, seconds, the error's last lines) for one chapter."""
    import jupytext
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4) if path.suffix == ".ipynb" else jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    error = ""
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        error = "\n".join(str(exc).strip().splitlines()[-6:])
    except Exception as exc:   # a kernel that does not start, a broken notebook: this chapter fails, not the run
        error = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out / f"{path.stem}.ipynb")
    return not error, seconds, error


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chapter", action="append", help="page name such as m09_async_copy (repeatable; default all)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    ap.add_argument("--out", type=Path, help="also write the executed notebooks here")
    ap.add_argument("--exported", action="store_true",
                    help="run the exported notebooks (notebooks/<page>.ipynb, install and GPU cells included)")
    args = ap.parse_args(argv)
    os.environ["JUPYTER_PATH"] = private_kernelspec() + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    os.environ.setdefault("CUPY_TF32", "0")
    profile = os.environ.get("COURSE_DEVICE_PROFILE") or "-"
    failed = 0
    pages = chapters(args.chapter)
    if args.exported:
        pages = [REPO / "notebooks" / f"{p.stem}.ipynb" for p in pages]
        pages = [p for p in pages if p.exists()]   # pages the exporter leaves out (the start pages) have none
    for path in pages:
        ok, seconds, error = run_one(path, args.timeout, args.out)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {path.relative_to(REPO)} profile={profile} {seconds:6.1f} s", flush=True)
        if error:
            print("     " + error.replace("\n", "\n     "), flush=True)
    return min(failed, 100)


if __name__ == "__main__":
    sys.exit(main())
