"""Record the golden outputs of ``tests/golden_cases.py`` into ``tests/golden/outputs.json``.

Run from the repository root: ``python scripts/record_golden.py``. Only for a
change that is meant to alter what users see; say which cases changed and why.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.golden_cases import GOLDEN, cases, run_case, run_example


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    outputs: dict[str, object] = {name: run_case(args) for name, args in cases()}
    outputs.update(run_example())
    GOLDEN.parent.mkdir(exist_ok=True)
    document = {"recorded_at_commit": commit, "cases": outputs}
    GOLDEN.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(outputs)} cases at {commit} into {GOLDEN}")


if __name__ == "__main__":
    main()
