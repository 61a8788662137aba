"""Regenerate docs/report-example.png: the report page of the bundled demo, in Chromium.

Writes ``wavemetrics report --demo`` to a temporary file, opens it in headless
Chromium (the distribution's ``chromium``, or ``WAVEMETRICS_CHROMIUM``, driven by
Playwright: ``pip install -e '.[test]'``) and saves the top of the page (the
summary cards, the filters and the timeline) as a PNG. Same wavemetrics, same
browser, same picture.

Run from the repository root:  python scripts/report_screenshot.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "report-example.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("WAVEMETRICS_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        print("report_screenshot: no chromium (apt-get install -y chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        page_path = Path(folder) / "report.html"
        env = {**os.environ, "WAVEMETRICS_CACHE_DIR": str(Path(folder) / "cache")}
        subprocess.run([sys.executable, "-m", "wavemetrics", "report", "--demo", "--no-cache",
                        "-o", str(page_path)], check=True, cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium,
                                                 args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1180})
            page.goto(page_path.as_uri(), timeout=120_000)
            page.wait_for_selector("html[data-ready=true]", timeout=120_000)
            page.screenshot(path=str(OUT))
            browser.close()
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
