"""Headless Chromium for the site's browser test: serve a folder over http on 127.0.0.1, dump a
page's DOM with its console messages, take a screenshot, decode the PNG (with Pillow and NumPy,
which the pinned matplotlib brings)."""

from __future__ import annotations

import functools
import html
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
         # Nothing but the local server may be reached: an external load fails loudly.
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


def chromium() -> Path | None:
    """Debian's chromium, if it is installed and runs."""
    if not CHROMIUM.exists():
        return None
    try:
        subprocess.run([str(CHROMIUM), "--version"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return CHROMIUM


@dataclass
class Server:
    url: str
    requests: list[tuple[str, int]] = field(default_factory=list)  # (path, status)


@contextmanager
def serve(folder: Path) -> Iterator[Server]:
    """http.server on a free port of 127.0.0.1, in a thread, recording every request's status."""
    record: list[tuple[str, int]] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            record.append((self.path, int(code) if str(code).isdigit() else 0))

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", record)
    finally:
        httpd.shutdown()
        httpd.server_close()


@dataclass
class Visit:
    dom: str
    console: list[str]  # the page's console messages, uncaught exceptions included
    screenshot: bytes


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[bytes]:
    profile = tempfile.mkdtemp(prefix="didax-chromium-")
    try:
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, timeout=timeout, env={**os.environ, "LANG": "C.UTF-8"})
    finally:
        shutil.rmtree(profile, ignore_errors=True)


CONSOLE = re.compile(r":CONSOLE(?:\(\d+\)|:\d+)\] (.*)$", re.M)


def visit(url: str, size: tuple[int, int] = (1280, 900), timeout: float = 60) -> Visit:
    """Load `url` once, JavaScript given 3 s, dumping the DOM and taking a screenshot."""
    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "shot.png"
        run = _run(["--virtual-time-budget=3000", f"--window-size={size[0]},{size[1]}", "--dump-dom",
                    f"--screenshot={png}", url], timeout)
        data = png.read_bytes() if png.exists() else b""
    return Visit(run.stdout.decode(errors="replace"), CONSOLE.findall(run.stderr.decode(errors="replace")), data)


def decode_png(data: bytes) -> tuple[int, int, np.ndarray]:
    """(width, height, pixels) of a PNG: pixels is a height x width x 3 array of RGB bytes."""
    with Image.open(io.BytesIO(data)) as image:
        if image.format != "PNG":
            raise ValueError(f"not a PNG: {image.format}")
        pixels = np.asarray(image.convert("RGB"))
    return pixels.shape[1], pixels.shape[0], pixels


def colour_counts(pixels: np.ndarray) -> Counter[int]:
    """How many pixels have each colour (a colour as the integer 0xRRGGBB)."""
    packed = pixels.astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], np.uint32)
    colours, counts = np.unique(packed, return_counts=True)
    return Counter(dict(zip(colours.tolist(), counts.tolist())))


# ----------------------------------------------------------------------------------------------
# Layout: measure a page in the browser at a given width

# Put into a copy of each page: once the page has laid out, it writes what the layout test needs on
# the <body> of the page (or of the page that frames it), where --dump-dom shows it.
MEASURE = """<script>
window.addEventListener('load', () => setTimeout(() => {
  document.querySelectorAll('details').forEach(d => d.open = true);  // folded blocks measured open
  const codes = [...document.querySelectorAll('.md-typeset pre > code')];
  const cols = c => c.textContent.split('\\n').reduce((n, line) => Math.max(n, line.length), 0);
  const scrolled = codes.filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => cols(c) + ' columns: ' + c.textContent.trim().split('\\n')[0].slice(0, 60));
  const broken = [...document.querySelectorAll('.md-typeset td code, .md-typeset th code')]
    .filter(c => !/\\s/.test(c.textContent.trim()) && c.getClientRects().length > 1).map(c => c.textContent);
  // Tables wider than the column they sit in (the theme lets them scroll inside it), and the
  // smallest listing text in CSS pixels.
  const wideTables = [...document.querySelectorAll('.md-typeset__table > table, .didax-matrix > table')]
    .filter(t => t.scrollWidth > t.parentElement.closest('.md-typeset__scrollwrap, .didax-matrix').clientWidth + 1)
    .map(t => t.scrollWidth + ' px: ' + (t.querySelector('th') || t).textContent.trim().slice(0, 40));
  const codePx = Math.min(...codes.filter(c => c.getClientRects().length).map(c => parseFloat(getComputedStyle(c).fontSize)));
  // Each figure: whether the picture shown fits its card or the card scrolls to all of it, and
  // the smallest text of that picture as drawn (font size times the picture's scale), in px.
  const figures = [...document.querySelectorAll('figure.didax-figure')].map(f => {
    const svg = [...f.querySelectorAll('svg')].find(s => s.getClientRects().length);
    if (!svg) return {id: f.id, shown: false};
    const scale = svg.getScreenCTM().a;
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
    return {id: f.id, shown: true, card: f.clientWidth, reach: f.scrollWidth, picture: svg.getBoundingClientRect().width,
            overflow: getComputedStyle(f).overflowX, texts: sizes.length, textPx: Math.min(...sizes)};
  });
  const m = {innerWidth, scrollWidth: document.documentElement.scrollWidth, listings: codes.length, figures,
             widest: Math.max(0, ...codes.map(cols)), scrolled, broken, wideTables, codePx,
             numbered: document.querySelectorAll('.md-typeset table.highlighttable').length};
  const target = window.parent !== window ? window.parent.document.body : document.body;
  target.setAttribute('data-didax-layout', JSON.stringify(m));
}, 300));
</script>"""

# Chromium's headless window is at least 500 px wide: a narrower viewport is an iframe that wide.
NARROW = 500


def measurable_copy(site: Path, into: Path, paths: list[str]) -> Path:
    """A copy of a built site whose pages at `paths` (`stages/01_eval/`) measure themselves (see
    MEASURE)."""
    shutil.copytree(site, into)
    for path in paths:
        page = into / path / "index.html"
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    return into


@dataclass
class Layout:
    width: int
    metrics: dict
    screenshot: bytes
    visit: Visit  # the load itself: its DOM and console


def layout(server: Server, folder: Path, path: str, width: int, height: int = 900) -> Layout:
    """Load `path` with a viewport `width` CSS pixels wide and read what MEASURE wrote."""
    url = f"{server.url}/{path}"
    if width < NARROW:
        frame = f"frame-{width}-{abs(hash(path))}.html"
        (folder / frame).write_text(
            # No icon of its own, or Chromium asks for /favicon.ico, which the site does not have.
            '<!doctype html><html><head><link rel="icon" href="data:,"></head><body style="margin:0">'
            f'<iframe src="/{path}" width="{width}" height="{height}" style="border:0;display:block"></iframe>'
            "</body></html>")
        url = f"{server.url}/{frame}"
    seen = visit(url, size=(max(width, NARROW), height))
    found = re.search(r'data-didax-layout="([^"]*)"', seen.dom)
    metrics = json.loads(html.unescape(found.group(1))) if found else {}
    return Layout(width, metrics, seen.screenshot, seen)
