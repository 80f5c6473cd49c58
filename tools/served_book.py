"""The built book served on localhost to Debian's Chromium: shared by the
browser tests (tests/conftest.py) and ``make bench`` (tools/bench.py)."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
# Headless in a sandbox-less container, with no background calls to Google:
# the machines here have no network beyond package registries.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class _GzipHandler(_QuietHandler):
    """Sends files gzip-compressed to clients that accept it, as web hosts do
    (fonts and images, compressed already, go as they are)."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if (
            not path.is_file()
            or not accepts
            or path.suffix in (".woff2", ".png", ".gz")
        ):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@contextmanager
def serve(directory: Path, compress: bool = False) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) and yield its base URL;
    gzip-compressed when ``compress``."""
    handler = functools.partial(
        _GzipHandler if compress else _QuietHandler, directory=str(directory)
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def book_pages() -> list[str]:
    """The built pages of _toc.yml, in its order, and the search page."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    documents = [toc["root"]] + [
        entry["file"] for entry in toc.get("chapters", [])
    ]
    return [f"{name}.html" for name in documents] + ["search.html"]
