"""The built site in a real browser: headless Chromium loads the home page, the chapters and the
other measured pages once at a desktop width and once at a phone's. The theme's JavaScript runs,
nothing fails to load, the console stays silent, the screenshot shows a rendered page, and the
layout holds at both widths. Skipped (and only this) where Chromium is not installed: see
site/install_browser.sh."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import site_browser as browser
from site_common import ROOT

pytestmark = pytest.mark.skipif(
    browser.chromium() is None,
    reason="Chromium is not installed at /usr/bin/chromium (run site/install_browser.sh as root)",
)

PAGES = {
    "": ("didax", "didax: JAX's core, rebuilt from scratch"),
    "stages/01_eval/": ("01 · Evaluation - didax", "What this stage adds"),
    "stages/02_jvp/": ("02 · Forward mode - didax", "What this stage adds"),
    "stages/03_vmap/": ("03 · Batching - didax", "What this stage adds"),
    "stages/04_jaxpr/": ("04 · Jaxprs - didax", "What this stage adds"),
    "stages/05_jit/": ("05 · Compilation - didax", "What this stage adds"),
    "stages/06_vjp/": ("06 · Reverse mode - didax", "What this stage adds"),
    "stages/07_sharding/": ("07 · Sharding - didax", "What this stage adds"),
}


@pytest.mark.parametrize("path", list(PAGES))
def test_page_renders_with_its_title_and_content(visits, path: str):
    visit = visits[0][path]
    title, text = PAGES[path]
    assert f"<title>{title}</title>" in visit.dom
    assert text in visit.dom
    assert "md-search-result__list" in visit.dom, "the theme's JavaScript did not run"


@pytest.mark.parametrize("path", list(PAGES))
def test_console_has_no_messages(visits, path: str):
    assert visits[0][path].console == []


def test_every_request_succeeded(visits):
    requests = visits[1]
    assert any(p.endswith(".js") for p, _ in requests), "no script was loaded at all"
    assert ("/search/search_index.json", 200) in requests, "the search worker did not load its index"
    failed = [(p, status) for p, status in requests if status >= 400]
    assert not failed


@pytest.mark.parametrize("path", list(PAGES))
def test_screenshot_shows_a_rendered_page(visits, path: str):
    width, height, pixels = browser.decode_png(visits[0][path].screenshot)
    assert (width, height) == (DESKTOP, 900)
    colours = browser.colour_counts(pixels)
    assert len(colours) >= 200, f"only {len(colours)} colours: a blank or unstyled page"
    assert colours.most_common(1)[0][1] < 0.97 * width * height
    # The theme's header bar, indigo in the light palette, spans the top of the page.
    r, g, b = pixels[10, 20].tolist()
    assert b > 150 and r < 100 and g < 120, f"the header is ({r}, {g}, {b}), not the theme's indigo"


def test_the_checks_can_fail(tmp_path: Path):
    """A page with a script error and a missing file is caught by the same checks."""
    (tmp_path / "index.html").write_text(
        "<!doctype html><html><head><title>broken</title></head><body><p>x</p>"
        '<script>throw new Error("boom")</script><script src="missing.js"></script></body></html>'
    )
    with browser.serve(tmp_path) as server:
        visit = browser.visit(server.url + "/")
        requests = list(server.requests)
    assert any("Uncaught Error: boom" in line for line in visit.console)
    assert ("/missing.js", 404) in requests
    _, _, pixels = browser.decode_png(visit.screenshot)
    assert len(browser.colour_counts(pixels)) < 200  # a nearly blank page fails the rendering check


# ----------------------------------------------------------------------------------------------
# Layout at a desktop width and a phone's, with screenshots kept in build/screenshots/ to look at

LAYOUT_PAGES = ["", "stages/01_eval/", "stages/02_jvp/", "stages/03_vmap/", "stages/04_jaxpr/", "stages/05_jit/", "stages/06_vjp/", "stages/07_sharding/",
                "reference/01_eval/",
                "reference/04_jaxpr/", "code/01_eval/didax/core.py/", "course/", "conformance/", "performance/"]
DESKTOP = 1400
WIDTHS = (DESKTOP, 400)
SHOTS = ROOT / "build" / "screenshots"


@pytest.fixture(scope="module")
def layouts_and_requests(built_site: Path, tmp_path_factory: pytest.TempPathFactory
                         ) -> tuple[dict[tuple[str, int], browser.Layout], list[tuple[str, int]]]:
    folder = browser.measurable_copy(built_site, tmp_path_factory.mktemp("measured") / "site", LAYOUT_PAGES)
    SHOTS.mkdir(parents=True, exist_ok=True)
    jobs = [(path, width) for path in LAYOUT_PAGES for width in WIDTHS]
    with browser.serve(folder) as server, ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(zip(jobs, pool.map(lambda job: browser.layout(server, folder, *job), jobs)))
    for (path, width), seen in found.items():
        (SHOTS / f"{path.strip('/').replace('/', '_') or 'home'}-{width}.png").write_bytes(seen.screenshot)
    return found, list(server.requests)


@pytest.fixture(scope="module")
def visits(layouts_and_requests) -> tuple[dict[str, browser.Visit], list[tuple[str, int]]]:
    """The desktop loads of PAGES, and every request the server answered: the first checks above
    read the same loads as the layout checks (one Chromium run a page and width)."""
    found, requests = layouts_and_requests
    return {path: found[path, DESKTOP].visit for path in PAGES}, requests


@pytest.fixture(scope="module")
def layouts(layouts_and_requests) -> dict[tuple[str, int], browser.Layout]:
    return layouts_and_requests[0]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", LAYOUT_PAGES)
def test_no_page_scrolls_sideways(layouts, path: str, width: int):
    metrics = layouts[path, width].metrics
    assert metrics, "the page did not report its layout"
    assert metrics["innerWidth"] == width
    assert metrics["scrollWidth"] <= metrics["innerWidth"], metrics
    assert metrics["broken"] == [], f"names broken inside a word: {metrics['broken']}"


@pytest.mark.parametrize("path", LAYOUT_PAGES)
def test_listings_fit_without_scrolling_on_a_desktop(layouts, path: str):
    metrics = layouts[path, 1400].metrics
    assert metrics["scrolled"] == [], f"listings scrolled sideways at 1400 px: {metrics['scrolled']}"


@pytest.mark.parametrize("path", LAYOUT_PAGES)
def test_tables_fit_their_column_on_a_desktop(layouts, path: str):
    """Every column of a table is in sight at 1400 px: none scrolls inside the text column."""
    assert layouts[path, 1400].metrics["wideTables"] == []


@pytest.mark.parametrize("path", LAYOUT_PAGES)
def test_code_is_set_at_a_readable_size(layouts, path: str):
    """Listings, in admonitions and folded blocks too, are at least 12 CSS pixels (prose is 16)."""
    metrics = layouts[path, 1400].metrics
    assert metrics["listings"] == 0 or metrics["codePx"] >= 12, metrics["codePx"]


def test_the_stage_files_are_110_columns_wide_and_numbered(layouts):
    chapter, core = layouts["stages/01_eval/", 1400].metrics, layouts["code/01_eval/didax/core.py/", 1400].metrics
    assert chapter["widest"] >= 100 and core["widest"] >= 100  # the test measures real long lines
    assert chapter["numbered"] >= 10 and core["numbered"] == 1


def test_the_screenshots_are_rendered_pages(layouts):
    for (path, width), seen in layouts.items():
        shot_width, _, pixels = browser.decode_png(seen.screenshot)
        assert shot_width == max(width, browser.NARROW)
        assert len(browser.colour_counts(pixels)) >= 100, (path, width)


FIGURE_PAGES = {"stages/01_eval/": ["figure-trace-stack", "figure-lattice", "figure-pytree", "figure-lattice-strict"],
                "stages/02_jvp/": ["figure-jvp-pairs"], "stages/03_vmap/": ["figure-vmap-axes"],
                "stages/04_jaxpr/": ["figure-jaxpr-graph"], "stages/05_jit/": ["figure-jit-pipeline"],
                "stages/07_sharding/": ["figure-sharding-mesh"]}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", list(FIGURE_PAGES))
def test_every_figure_is_whole_and_its_text_readable(layouts, path: str, width: int):
    """At 1400 px and at 400 px each figure is in sight whole, or its card scrolls to all of it
    (nothing is cut off), and its smallest text is at least 9 px tall; on a phone the lattice is
    drawn top to bottom and fits the screen."""
    figures = {f["id"]: f for f in layouts[path, width].metrics["figures"]}
    assert sorted(figures) == sorted(FIGURE_PAGES[path])
    for name, f in figures.items():
        assert f["shown"] and f["texts"] > 0, name
        fits = f["picture"] <= f["card"] + 1
        assert fits or (f["overflow"] in ("auto", "scroll") and f["reach"] >= f["picture"] - 1), (name, f)
        assert f["textPx"] >= 9, (name, f)
    if path == "stages/01_eval/" and width == 400:
        assert figures["figure-lattice"]["picture"] <= figures["figure-lattice"]["card"], figures["figure-lattice"]
