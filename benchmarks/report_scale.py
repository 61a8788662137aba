"""How large a ``wavemetrics report`` page gets, and how fast it opens, at scale.

Two inputs: the fleet (``benchmarks/fleet.py``: the corpus's Claude Code files
copied ``--copies`` times, about 1,800 files at the default 50) and one lane of
``--calls`` calls (``benchmarks/generate.py events``, default 130,000, read with
``--max-tracked-calls 0`` so that every call is held). For each,
``wavemetrics report`` writes the page (its wall time is reported), then headless
Chromium (the distribution's ``chromium``, driven by Playwright, as the tests do)
opens it ``--repeat`` times: *open-to-interactive* is the median time from the
navigation's start until the page's script has drawn everything and marked
``<html data-ready="true">`` (the timeline, the histogram, the filters). Prints one
Markdown row per input (docs/performance.md, "Current figures"), after the row of a
page holding plotly.js alone (the floor every report pays to open). Usage::

    python benchmarks/report_scale.py /tmp/report-scale [--copies 50] [--calls 130000]
        [--only fleet|lane] [--repeat 3] [--corpus CORPUS]

Inputs are generated under OUT when missing, never committed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from fleet import fleet_options, fleet_under  # benchmarks/ is this script's folder

HERE = Path(__file__).resolve().parent


def _lane(out: Path, calls: int) -> Path:
    path = out / f"events-{calls}.jsonl"
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), "events", str(calls),
                        str(path)], check=True)
    return path


def _write(source: Path, page: Path, *options: str) -> float:
    env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(page.parent / "cache")}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wavemetrics", "report", str(source), "--no-cache",
                    *options, "-o", str(page)], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _open_times(page: Path, repeat: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("WAVEMETRICS_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        raise SystemExit("report_scale: no chromium (apt-get install -y chromium)")
    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for _ in range(repeat):
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.goto(page.as_uri(), timeout=300_000)
            tab.wait_for_selector("html[data-ready=true]", timeout=300_000)
            # from the navigation's start to the mark, in the page's own clock
            times.append(tab.evaluate(
                "() => (performance.getEntriesByName('wm-ready')[0] || {startTime: NaN})"
                ".startTime") / 1000)
            tab.close()
        browser.close()
    return times


def _floor(out: Path) -> Path:
    """A page of plotly.js alone, marked ready when it has run: what opening any report
    costs before its own script starts."""
    import importlib

    offline = importlib.import_module("plotly.offline")
    page = out / "plotly-alone.html"
    page.write_text(
        "<!DOCTYPE html><html><body><script>" + offline.get_plotlyjs() + "</script><script>"
        "performance.mark('wm-ready');document.documentElement.dataset.ready='true'"
        "</script></body></html>", encoding="utf-8")
    return page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fleet_options(parser, repeat=3)
    parser.add_argument("--calls", type=int, default=130_000)
    parser.add_argument("--only", choices=("fleet", "lane"))
    args = parser.parse_args()
    inputs: list[tuple[str, Path, tuple[str, ...]]] = []
    if args.only in (None, "lane"):
        # the whole lane: no cap on the calls held (--max-tracked-calls 0)
        inputs.append((f"one lane, {args.calls:,} calls", _lane(args.out, args.calls),
                       ("--max-tracked-calls", "0")))
    if args.only in (None, "fleet"):
        fleet = fleet_under(args.out, args.copies, args.corpus)
        inputs.append((f"fleet, {args.copies} copies", fleet, ()))
    print("| input | report written, s | page, MB | open to interactive, s (median) |")
    print("|---|---:|---:|---:|")
    args.out.mkdir(parents=True, exist_ok=True)
    floor = _floor(args.out)
    print(f"| plotly.js alone (no report) | - | {floor.stat().st_size / 1e6:.1f} |"
          f" {statistics.median(_open_times(floor, args.repeat)):.2f} |", flush=True)
    for label, source, options in inputs:
        page = args.out / (label.split(",")[0].replace(" ", "-") + ".html")
        written = _write(source, page, *options)
        size = page.stat().st_size / 1e6
        opened = statistics.median(_open_times(page, args.repeat))
        print(f"| {label} | {written:.1f} | {size:.1f} | {opened:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
