"""``wavemetrics report`` pages in a real browser: headless Chromium driven by Playwright.

The browser is the distribution's ``chromium`` (``apt-get install -y chromium``;
``WAVEMETRICS_CHROMIUM`` names another), launched once per session. Without a
browser or Playwright these tests skip, saying why, except in CI (``CI=true``),
where they fail. The small trace is :data:`tests.event_traces.TWO_LANES` (8 calls in
5 waves, laid out in ``tests/test_report_page.py``).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from click.testing import CliRunner

from tests.event_traces import SERIAL_READS, TWO_LANES, Event, saving_trial, write_events
from tests.extras import needs_scipy
from wavemetrics.cli.commands import main

pytest.importorskip("jinja2", reason="needs the report extra: pip install 'wavemetrics[report]'")
pytest.importorskip("plotly", reason="needs the report extra: pip install 'wavemetrics[report]'")

#: Hostile tool names: each must stay text, run nothing and load nothing.
HOSTILE = (
    "</script><script>window.__pwned = 1</script>",
    '"onmouseover="window.__pwned = 2" x="',
    "<img src=x onerror=\"window.__pwned = 3\">",
    "right\u202eto-left\u2066isolate",
    "<b>bold</b><a href=\"javascript:window.__pwned = 4\">link</a>",
    "N" * 10_000,
)


def _unavailable(reason: str) -> None:
    """Skip, saying why; in CI (``CI=true``) fail instead: CI must run these tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI: the browser tests cannot run: {reason}")
    pytest.skip(reason)


def _chromium() -> str | None:
    named = os.environ.get("WAVEMETRICS_CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    path = _chromium()
    if path is None:
        _unavailable("no chromium found (apt-get install -y chromium, or set"
                     " WAVEMETRICS_CHROMIUM)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


class Opened:
    """A page opened from a file, with every request and console error it made."""

    def __init__(self, browser: Any, path: Path, fragment: str = "") -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.set_default_timeout(10_000)
        self.page.set_default_navigation_timeout(60_000)  # parsing plotly.js: seconds
        self.url = path.as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.errors.append(message.text)
                     if message.type == "error" else None)
        self.page.goto(self.url + fragment)
        self.page.wait_for_selector("html[data-ready=true]", timeout=60_000)

    def others(self) -> list[str]:
        """Requests other than the page's own file."""
        return [url for url in self.requests if url.split("#")[0] != self.url]

    def figures(self) -> dict[str, str]:
        return dict(self.page.eval_on_selector_all(
            "td[data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"))

    def x_range(self) -> list[float]:
        return list(self.page.evaluate(
            "() => { const a = document.getElementById('timeline')._fullLayout.xaxis;"
            " return a.range.map(v => a.r2l(v)); }"))

    def close(self) -> None:
        self.page.close()


def _report(folder: Path, events: list[Event], *options: str) -> Path:
    trace = write_events(folder / "trace.jsonl", events)
    out = folder / "report.html"
    result = CliRunner().invoke(main, ["report", str(trace), "--no-cache", *options,
                                       "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("small")
    page = _report(folder, TWO_LANES)
    summary = CliRunner().invoke(main, ["summarize", str(folder / "trace.jsonl"), "--no-cache",
                                        "--format", "json"])
    return page, json.loads(summary.stdout)


@pytest.fixture(scope="module")
def small_page(chromium: Any, small: tuple[Path, dict[str, Any]]) -> Iterator[Opened]:
    """The small report, opened once for the module (loading plotly.js takes seconds)."""
    page = Opened(chromium, small[0])
    yield page
    page.close()


@pytest.fixture
def opened(small_page: Opened) -> Opened:
    """The small report as it opened: filters cleared, whole run shown, light theme."""
    page = small_page.page
    page.click("#f-reset")
    page.click("#zoom-reset")
    if page.evaluate("document.documentElement.dataset.theme") == "dark":
        page.click("#theme")
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    return small_page


def _call_bars(opened: Opened) -> Any:
    """The call bars (the page tags each bar trace: call or wave)."""
    return opened.page.locator("#timeline .trace.bars[data-trace=call] .point path")


def test_figures_equal_the_json_documents(opened: Opened, small: tuple[Path, dict]) -> None:
    assert opened.figures() == {key: json.dumps(value) for key, value in small[1]["total"].items()}
    assert opened.errors == []


def test_one_bar_per_call_and_one_band_per_wave(opened: Opened) -> None:
    # 6 calls in lane main, 2 in lane sub; 4 + 1 waves
    assert _call_bars(opened).count() == 8
    bands = opened.page.locator("#timeline .trace.bars[data-trace=wave] .point path")
    assert bands.count() == 5
    assert opened.page.inner_text("#shown") == "5 of 5 waves shown (8 calls)"


def test_hover_shows_tool_and_duration(opened: Opened) -> None:
    # the longest bar of lane sub: read h [2000, 2020], 20 ms; hover its middle
    opened.page.click("#zoom-reset")
    bars = _call_bars(opened)
    boxes = [bars.nth(i).bounding_box() for i in range(bars.count())]
    lowest = max(boxes, key=lambda box: (box["y"], box["width"]))
    opened.page.mouse.move(lowest["x"] + lowest["width"] / 2, lowest["y"] + lowest["height"] / 2)
    hover = opened.page.locator("#timeline .hoverlayer .hovertext")
    hover.wait_for(timeout=5000)
    text = hover.text_content() or ""
    assert "read" in text and "duration 0.020 s" in text and "saving 0.010 s" in text


def test_no_serial_bar_without_a_serial_run(opened: Opened) -> None:
    # TWO_LANES: lane main's calls are one batch of 6, lane sub's have none: no run
    serial = opened.page.locator("#timeline .trace.bars[data-trace=call][data-serial=true]"
                                 " .point path")
    assert serial.count() == 0


def test_serial_runs_are_highlighted(chromium: Any, tmp_path: Path) -> None:
    """SERIAL_READS (tests/event_traces.py): 11 calls; the runs a b and g h i are drawn
    as 2 + 3 = 5 outlined, hatched bars; the last, i, hovers as run 2 of its lane; the
    outline is --serial in both themes (black, then white)."""
    opened = Opened(chromium, _report(tmp_path, SERIAL_READS))
    page = opened.page
    assert _call_bars(opened).count() == 11
    serial = page.locator("#timeline .trace.bars[data-trace=call][data-serial=true] .point path")
    assert serial.count() == 5
    assert page.is_visible("#serial-key")
    assert page.inner_text("#serial-key") == (
        "serial single read-only calls (missed batching, an upper bound)")
    strokes = {serial.nth(i).evaluate("p => getComputedStyle(p).stroke") for i in range(5)}
    assert strokes == {"rgb(0, 0, 0)"}
    boxes = [serial.nth(i).bounding_box() for i in range(serial.count())]
    last = max(boxes, key=lambda box: box["x"])
    page.mouse.move(last["x"] + last["width"] / 2, last["y"] + last["height"] / 2)
    hover = page.locator("#timeline .hoverlayer .hovertext")
    hover.wait_for(timeout=5000)
    text = hover.text_content() or ""
    assert "ls" in text and "serial run 2 of the lane" in text
    page.mouse.move(0, 0)
    page.click("#theme")
    serial = page.locator("#timeline .trace.bars[data-trace=call][data-serial=true] .point path")
    assert serial.count() == 5
    strokes = {serial.nth(i).evaluate("p => getComputedStyle(p).stroke") for i in range(5)}
    assert strokes == {"rgb(255, 255, 255)"}
    assert opened.others() == [] and opened.errors == []
    opened.close()


def test_keyboard_focus_shows_each_wave(opened: Opened) -> None:
    page = opened.page
    for _ in range(40):  # tab order: the next-wave button is reachable
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "wave-next":
            break
    assert page.evaluate("document.activeElement.id") == "wave-next"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"  # the focus is visible
    seen = []
    for _ in range(5):
        page.keyboard.press("n")
        seen.append(page.inner_text("#wave-detail"))
    # waves in lane then time order: read+grep, bash, eval, eval+read, read+read
    assert [text.split(":")[0] for text in seen] == [
        f"Wave {n} of 5 shown" for n in range(1, 6)]
    assert "read, start 1970-01-01T00:00:01Z, duration 0.100 s" in seen[0]
    assert "grep, start 1970-01-01T00:00:01.010Z, duration 0.030 s" in seen[0]
    page.keyboard.press("n")  # past the last: the first again
    assert page.inner_text("#wave-detail") == seen[0]
    page.keyboard.press("p")
    assert page.inner_text("#wave-detail") == seen[4]


def test_keyboard_focus_on_the_timeline_hovers_each_call(opened: Opened) -> None:
    """What hovering a bar shows, by keyboard: the timeline is in the tab order (after
    the wave buttons), n chooses wave 1 (read [1000, 1100] and grep [1010, 1040] ms:
    saving 100 + 30 - 100 = 30 ms) and shows its first call's label; the arrow keys step
    through the wave's calls, round; Escape hides the label. (plotly draws a hover at
    most every 50 ms, so each label is awaited.)"""
    from playwright.sync_api import expect

    page = opened.page
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "timeline":
            break
    assert page.evaluate("document.activeElement.id") == "timeline"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    hover = page.locator("#timeline .hoverlayer .hovertext")
    read = ("readstart 1970-01-01T00:00:01Zduration 0.100 s"
            "wave 0 of trace/main (non_eval, 2 calls)wave saving 0.030 s")
    grep = ("grepstart 1970-01-01T00:00:01.010Zduration 0.030 s"
            "wave 0 of trace/main (non_eval, 2 calls)wave saving 0.030 s")
    page.keyboard.press("n")
    expect(hover).to_have_text(read)
    page.keyboard.press("ArrowRight")
    expect(hover).to_have_text(grep)
    page.keyboard.press("ArrowRight")  # past the wave's last call: its first again
    expect(hover).to_have_text(read)
    page.keyboard.press("ArrowLeft")
    expect(hover).to_have_text(grep)
    page.keyboard.press("Escape")
    expect(hover).to_have_count(0)
    assert page.evaluate("document.activeElement.id") == "timeline"


def test_top_wave_row_shows_the_wave(opened: Opened) -> None:
    page = opened.page
    low, high = opened.x_range()
    # savings: mixed eval+read 40, read+grep 30, read+read 10, then 0 and 0
    rows = page.eval_on_selector_all("#top-waves tbody tr",
                                     "r => r.map(e => e.cells[5].textContent)")
    assert rows == ["0.040", "0.030", "0.010", "0.000", "0.000"]
    page.click("#top-waves tbody tr:first-child button")
    assert "mixed, 2 calls, start 1970-01-01T00:00:01.500Z, span 0.100 s, saving 0.040 s" in (
        page.inner_text("#wave-detail"))
    zoomed_low, zoomed_high = opened.x_range()
    # the wave [1500, 1600] ms with 500 ms either side
    assert (zoomed_low, zoomed_high) == pytest.approx((1000, 2100))
    assert zoomed_high - zoomed_low < high - low


def test_zoom_changes_the_visible_range(opened: Opened) -> None:
    page = opened.page
    page.click("#zoom-reset")
    low, high = opened.x_range()
    box = page.locator("#timeline .nsewdrag").first.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.3, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.5, y, steps=5)
    page.mouse.up()
    zoomed_low, zoomed_high = opened.x_range()
    # a drag over a fifth of the width shows about a fifth of the range
    assert low < zoomed_low < zoomed_high < high
    assert (zoomed_high - zoomed_low) == pytest.approx((high - low) * 0.2, rel=0.05)
    page.click("#zoom-out")
    out_low, out_high = opened.x_range()
    assert (out_high - out_low) == pytest.approx(2 * (zoomed_high - zoomed_low), rel=1e-6)


def test_no_network_request(opened: Opened) -> None:
    opened.page.keyboard.press("n")
    opened.page.click("#theme")
    assert opened.others() == []


def test_screenshot_is_not_blank(opened: Opened) -> None:
    from matplotlib.image import imread

    pixels = imread(io.BytesIO(opened.page.locator("#timeline").screenshot()), format="png")
    colours = {tuple(pixel) for row in pixels[::4] for pixel in row[::4]}
    assert len(colours) > 10
    # the non_eval colour #0072B2 is drawn (bars over a light background)
    blue = (0x00 / 255, 0x72 / 255, 0xB2 / 255)
    assert any(abs(c[0] - blue[0]) + abs(c[1] - blue[1]) + abs(c[2] - blue[2]) < 0.02
               for c in colours)


def test_filters_live_counts_and_url(
    chromium: Any, small: tuple[Path, dict], opened: Opened
) -> None:
    page = opened.page
    page.uncheck("input[name=bucket][value=eval_only]")
    page.fill("#f-size", "2")
    page.dispatch_event("#f-size", "change")
    # waves of 2+ calls, not eval_only: read+grep, eval+read (mixed), read+read
    assert page.inner_text("#shown") == "3 of 5 waves shown (6 calls)"
    # counts by bucket under the other filters: non_eval 2 (sizes 2), eval_only 0, mixed 1
    counts = page.eval_on_selector_all(".count", "c => c.map(e => e.textContent)")
    assert counts == ["(2)", "(0)", "(1)"]
    fragment = page.evaluate("location.hash")
    state = parse_qs(fragment.removeprefix("#"))
    assert {key: state.get(key) for key in ("bucket", "lane", "tool", "min")} == {
        "bucket": ["non_eval,mixed"], "lane": None, "tool": None, "min": ["2"]}
    again = Opened(chromium, small[0], fragment)
    assert again.page.inner_text("#shown") == "3 of 5 waves shown (6 calls)"
    assert _call_bars(again).count() == 6
    again.close()


def test_theme_switches(opened: Opened) -> None:
    page = opened.page
    before = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.click("#theme")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != before


def test_hostile_names_stay_text(chromium: Any, tmp_path: Path) -> None:
    events: list[Event] = []
    for number, name in enumerate(HOSTILE):
        at = 1000 + 100 * number
        events += [("tool_execution_start", f"c{number}", name, at, "main"),
                   ("tool_execution_end", f"c{number}", name, at + 50, "main")]
    lane = "</script><script>window.__pwned = 5</script>\u202e"  # a hostile lane id too
    events += [("tool_execution_start", "z", "read", 5000, lane),
               ("tool_execution_end", "z", "read", 5050, lane)]
    page_path = _report(tmp_path, events)
    opened = Opened(chromium, page_path)
    page = opened.page
    lanes = page.eval_on_selector_all("#f-lane option", "o => o.map(e => e.textContent)")
    # the session is the file's name; the lane id cut to 40 characters (39 and "…")
    assert lanes == ["all lanes", "trace/main",
                     "\u21b3 trace/</script><script>window.__pwned = 5</sc…"]
    for index in range(len(HOSTILE)):  # hover every bar: plotly's labels run nothing
        box = _call_bars(opened).nth(index).bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.keyboard.press("n")
    assert page.evaluate("window.__pwned") is None
    assert opened.others() == []
    names = page.eval_on_selector_all("#tools td.name", "c => c.map(e => e.textContent)")
    # the names as text: markup kept, bidi controls shown as escapes, long ones cut
    assert HOSTILE[0] in names and HOSTILE[1] in names and HOSTILE[2] in names
    assert "right\\u202eto-left\\u2066isolate" in names
    assert "N" * 119 + "…" in names
    assert page.locator("#tools img, #tools b, #tools a, #top-waves img").count() == 0
    # n pressed once per call of lane main: its last wave is shown, its name as text
    assert "N" * 119 + "…, start" in page.inner_text("#wave-detail")
    page.keyboard.press("n")  # the hostile lane's wave
    page.keyboard.press("n")
    assert HOSTILE[0] + ", start" in page.inner_text("#wave-detail")
    opened.close()


@needs_scipy
def test_compare_page_shows_the_interval(chromium: Any, tmp_path: Path) -> None:
    base, cand = tmp_path / "base", tmp_path / "cand"
    for task, (b, c) in enumerate([(10, 30), (20, 50), (40, 45), (5, 60)]):
        saving_trial(base / f"t{task}" / "a.jsonl", b)
        saving_trial(cand / f"t{task}" / "a.jsonl", c)
    out = tmp_path / "compare.html"
    result = CliRunner().invoke(main, ["report", "--compare", str(base), str(cand),
                                       "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    document = json.loads(CliRunner().invoke(
        main, ["compare", str(base), str(cand), "--format", "json"]).stdout)
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(out.as_uri())
    figures = dict(page.eval_on_selector_all(
        "td[data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"))
    assert [figures["interval-low"], figures["interval-high"]] == [
        json.dumps(value) for value in document["interval"]]
    # differences 20, 30, 5, 55: a higher saving, better, on every task
    assert page.eval_on_selector_all("#tasks td[aria-label]",
                                     "c => c.map(e => e.textContent)") == ["▲"] * 4
    assert [url for url in requests if url != out.as_uri()] == []
    page.close()


def test_many_calls_are_drawn_as_waves(chromium: Any, tmp_path: Path) -> None:
    # 700 waves of 3 calls: wave k's calls start at k s and last 100, 200 and 300 ms
    # (span 300 ms, saving 600 - 300 = 300 ms); 2,100 calls > 2,000: one bar per wave
    events: list[Event] = []
    for wave in range(700):
        at = 1_767_225_600_000 + 1000 * wave
        events += [("tool_execution_start", f"w{wave}c{n}", "read", at, "main") for n in range(3)]
        events += [("tool_execution_end", f"w{wave}c{n}", "read", at + 100 * (n + 1), "main")
                   for n in range(3)]
    opened = Opened(chromium, _report(tmp_path, events, "--max-tracked-calls", "0"))
    page = opened.page
    assert page.inner_text("#aggregated") == (
        "Aggregated: 2,100 calls in 700 waves are more than 2,000 bars, so each wave is drawn"
        " as one bar. The figures above count every call. Serial runs of single read-only"
        " calls are not highlighted (no call is drawn); missed_batch_runs counts them.")
    assert _call_bars(opened).count() == 0
    assert page.inner_text("#shown") == "700 of 700 waves shown (2100 calls)"
    page.keyboard.press("n")
    assert ", non_eval, 3 calls, start 2026-01-01T00:00:00Z, span 0.300 s, saving 0.300 s" in (
        page.inner_text("#wave-detail"))
    # the chosen wave's bar hovers, as a mouse over it would show
    hover = page.locator("#timeline .hoverlayer .hovertext")
    hover.wait_for(timeout=5000)
    assert "non_eval, 3 calls, start 2026-01-01T00:00:00Z" in (hover.text_content() or "")
    assert "span 0.300 s, saving 0.300 s" in (hover.text_content() or "")
    assert opened.others() == [] and opened.errors == []
    opened.close()
