"""The course installed the way a Colab learner installs it: beside Colab's own packages, the rest at the oldest
versions pyproject.toml allows.

A fresh virtual environment (Python 3.12, as on Colab, where this machine has one; else this interpreter,
Python 3.11, the oldest requires-python allows) first gets a "platform": the NumPy, CuPy (cupy-cuda12x),
ipywidgets and plotly versions a learner found on Colab, installed before the course as Colab has them.
Then the notebooks' install cell (course/notebook/cells.py) runs there unchanged, with every other
dependency held to its lower bound by a constraints file (the oldest release with a wheel for that Python
where the lower bound has none); it must leave the platform's four packages as they were. Then the CPU
test subset and every chapter (executed as a notebook, without a GPU) must pass in that environment.

The CUDA compiler packages (NVRTC, cuobjdump, nvdisasm) stay at the tested lock (requirements.txt): the
book's SASS facts are stated for that compiler's output, which an older ptxas changes. The test tools
(pytest, jupytext, nbclient, ipykernel, hypothesis) come at the versions of the environment running this
test, so that pip's cache serves them.

It needs the package index; when the index cannot be reached it is skipped, saying so.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.oldest

# What Colab had before the course arrived, as a learner found it (Python 3.12).
PLATFORM = {"numpy": "2.0.2", "cupy-cuda12x": "13.3.0", "ipywidgets": "7.7.1", "plotly": "5.24.1"}
PLATFORM_PYTHON = "3.12"
# A lower bound with no wheel for a newer Python: its oldest release that has one (PyYAML 6.0's sdist no
# longer builds; 6.0.1 is the first with cp312 wheels).
OLDEST_WHEEL = {("pyyaml", "3.12"): "6.0.1"}
LOCKED_TOOLS = ("nvidia-cuda-nvrtc-cu12", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm")
TEST_TOOLS = ("pytest", "hypothesis", "jupytext", "nbformat", "nbclient", "ipykernel")
CPU_SUBSET = ["tests/test_kernels_cpu.py", "tests/test_configs.py", "tests/test_bank.py", "tests/test_grading.py",
              "tests/test_progress.py", "tests/test_gating.py", "tests/test_korean.py",
              *sorted(str(p.relative_to(REPO)) for p in (REPO / "tests").glob("test_sims_*.py"))]
INDEX_ERRORS = re.compile(r"NewConnectionError|ConnectTimeout|Temporary failure in name resolution|"
                          r"Network is unreachable|ProxyError|Max retries exceeded|Could not fetch URL", re.I)


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower()


def lower_bounds() -> dict[str, str]:
    """name -> the version after '>=' for every dependency and the cuda12 extra of pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = {}
    for req in project["dependencies"] + project["optional-dependencies"]["cuda12"]:
        match = re.search(r">=\s*([0-9][0-9.]*)", req)
        assert match, f"{req}: every dependency is a range with a lower bound"
        out[_name(req)] = match.group(1)
    return out


def locked(names) -> dict[str, str]:
    pins = {}
    for line in (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[name.strip().lower()] = version.strip()
    return {n: pins[n] for n in names}



def _pip(python, *args, env=None, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def _frozen(python) -> dict[str, str]:
    out = _pip(python, "list", "--format", "json")
    assert out.returncode == 0, out.stderr
    return {p["name"].lower(): p["version"] for p in json.loads(out.stdout)}


def _same_version(a: str, b: str) -> bool:
    pad = lambda v: tuple(int(x) for x in re.findall(r"\d+", v)) + (0,) * 3   # noqa: E731
    return pad(a)[:3] == pad(b)[:3]


def platform_python() -> tuple[str, str]:
    """(path, "3.12") of a Python like Colab's where this machine has one, else (this interpreter, its version)."""
    candidates = sorted(str(p) for p in Path.home().glob(f".pyenv/versions/{PLATFORM_PYTHON}*/bin/python{PLATFORM_PYTHON}"))
    for python in candidates:
        if subprocess.run([python, "-c", "import venv, ensurepip"], capture_output=True).returncode == 0:
            return python, PLATFORM_PYTHON
    return sys.executable, f"{sys.version_info[0]}.{sys.version_info[1]}"


def test_lower_bounds_cover_what_a_platform_has():
    from packaging.specifiers import SpecifierSet

    bounds = lower_bounds()
    assert bounds["numpy"].startswith("2.0") and bounds["cupy-cuda12x"].startswith("13.")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ranges = {_name(r): SpecifierSet(r[len(_name(r)):].split(";")[0].strip())
              for r in project["dependencies"] + project["optional-dependencies"]["cuda12"]}
    for name, version in PLATFORM.items():
        assert version in ranges[name], f"Colab's {name} {version} is outside pyproject.toml's {ranges[name]}: pip would replace it"
    assert project["requires-python"] == ">=3.11"
    assert not any(_name(r).startswith("cupy") for r in project["dependencies"]), \
        "CuPy only in extras: a second CuPy beside the platform's breaks both"


def test_oldest_allowed_versions_install_beside_the_platform_and_run_everything(tmp_path):
    base, version = platform_python()
    bounds = lower_bounds()
    venv = tmp_path / "venv"
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"

    platform = [f"{n}=={v}" for n, v in PLATFORM.items()]
    probe = _pip(python, "download", "--no-deps", "--only-binary=:all:", "-d", str(tmp_path / "probe"),
                 platform[0], timeout=300)
    if probe.returncode != 0:
        if INDEX_ERRORS.search(probe.stderr + probe.stdout):
            pytest.skip("패키지 색인(package index)에 닿지 않아 건너뜁니다: " + probe.stderr.strip().splitlines()[-1])
        pytest.fail(f"pip download {platform[0]}: {probe.stderr[-2000:]}")
    done = _pip(python, "install", "-q", "--only-binary=:all:", *platform)
    assert done.returncode == 0, done.stderr[-3000:]
    before = _frozen(python)

    # Every other dependency at its lower bound, the compiler packages at the lock.
    constraints = tmp_path / "constraints.txt"
    pins = {n: OLDEST_WHEEL.get((n, version), v) for n, v in bounds.items() if n not in PLATFORM} | locked(LOCKED_TOOLS)
    constraints.write_text("".join(f"{n}=={v}\n" for n, v in pins.items()), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "sgemm-course").symlink_to(REPO, target_is_directory=True)
    from course.notebook.cells import install_source

    env = dict(os.environ, PIP_CONSTRAINT=str(constraints))
    cell = subprocess.run([str(python), "-c", install_source("")], cwd=work, capture_output=True,
                          text=True, timeout=900, env=env)
    assert cell.returncode == 0, cell.stdout[-2000:] + cell.stderr[-4000:]
    assert "kernels" in cell.stdout
    after = _frozen(python)
    for name, wanted in PLATFORM.items():
        assert after[name] == before[name] == wanted, f"the install cell replaced the platform's {name}"
    for name, version in pins.items():
        assert _same_version(after[name], version), (name, after[name], version)

    tools = [f"{n}=={metadata.version(n)}" for n in TEST_TOOLS]
    done = _pip(python, "install", "-q", *tools, env=env)
    assert done.returncode == 0, done.stderr[-3000:]

    run_env = {k: v for k, v in os.environ.items() if k not in ("COURSE_STATIC", "COURSE_DEVICE_PROFILE")}
    # Hypothesis' per-example deadline measures this machine's load, not the versions under test.
    (tmp_path / "no_deadline.py").write_text(
        "from hypothesis import settings\nsettings.register_profile('oldest', deadline=None)\n"
        "settings.load_profile('oldest')\n", encoding="utf-8")
    tests = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no_deadline",
                            "-m", "not oldest", *CPU_SUBSET], cwd=REPO, capture_output=True, text=True, timeout=900,
                           env={**run_env, "PYTHONPATH": str(tmp_path)})
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    chapters = subprocess.run([str(python), str(REPO / "tools" / "run_chapters.py"), "--timeout", "300"],
                              cwd=REPO, capture_output=True, text=True, timeout=1200, env=run_env)
    assert chapters.returncode == 0, chapters.stdout[-4000:] + chapters.stderr[-2000:]
    assert chapters.stdout.count("ok  ") >= 10, chapters.stdout
