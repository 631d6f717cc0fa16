"""Shared fixtures: GPU detection (GPU tests skip cleanly without one) and the built site in Chromium."""
from __future__ import annotations

import functools
import gzip
import http.server
import os
import shutil
import socketserver
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")


@functools.lru_cache(maxsize=1)
def gpu_present() -> bool:
    from kernels.device import gpu_available

    return gpu_available()


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="CUDA GPU가 없습니다 (no CUDA GPU): GPU 머신에서 `make gpu-test`로 실행하세요")
    for item in items:
        if "gpu" in item.keywords and not gpu_present():
            item.add_marker(skip_gpu)


# ----------------------------------------------------------------------------- built site

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files like a typical web host: text assets are gzip-compressed when the browser asks."""

    COMPRESSIBLE = (".html", ".js", ".css", ".json", ".svg", ".txt")
    _cache: dict = {}

    def log_message(self, *args):  # keep pytest output readable
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or path.suffix not in self.COMPRESSIBLE \
                or not path.is_file():
            return super().do_GET()
        key = (path, path.stat().st_mtime)
        if key not in self._cache:
            self._cache[key] = gzip.compress(path.read_bytes(), compresslevel=6)
        body = self._cache[key]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def site_dir() -> Path:
    if not (SITE / "index.html").exists():
        pytest.skip("사이트가 빌드되지 않았습니다 (site not built): `make book`을 먼저 실행하세요")
    return SITE


@pytest.fixture(scope="session")
def site_url(site_dir):
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
        httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("Chromium이 없습니다 (no /usr/bin/chromium): `apt-get install chromium` 후 다시 실행하세요")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser, site_url, tmp_path):
    """A fresh page whose requests may reach only the local site; errors are collected."""
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900}, locale="ko-KR")
    pg = context.new_page()
    pg.console_errors = []
    pg.failed_requests = []
    pg.blocked_requests = []

    def route(r):
        if r.request.url.startswith(site_url) or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            pg.blocked_requests.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.on("requestfailed", lambda r: pg.failed_requests.append(r.url))
    yield pg
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    d = REPO / "_build" / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d


from course.site.extension import PLOTLY_BUNDLE as PLOTLY_BUNDLE_NAME  # noqa: E402

PLOTLY_BUNDLE = REPO / "book" / "_static" / PLOTLY_BUNDLE_NAME


@pytest.fixture
def figure_page(browser):
    """Draw a plotly figure in Chromium with the site's own plotly.js; returns (page, page errors)."""
    opened = []

    def draw(fig):
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content(
            f"<html><head><meta charset='utf-8'><script>{PLOTLY_BUNDLE.read_text()}</script></head>"
            f"<body><div id='g'></div><script>const f = {fig.to_json()};"
            "Plotly.newPlot('g', f.data, f.layout).then(() => { window.ready = true; });"
            "</script></body></html>")
        page.wait_for_function("window.ready === true")
        opened.append(page)
        return page, errors

    yield draw
    for page in opened:
        page.close()
