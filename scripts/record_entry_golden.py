"""Record ``tests/entry_cases.py``'s outputs into ``tests/golden/entry_outputs.json``.

Run from the repository root: ``python scripts/record_entry_golden.py``. Only for a
change meant to alter what users see: say which cases changed and why. Refuses
to record when two runs of one case (the two engines, a repeat) disagree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.entry_cases import ENTRY_GOLDEN, run_all


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    outputs: dict[str, object] = {}
    disagreements = []
    for name, run, output in run_all():
        if name in outputs and outputs[name] != output:
            disagreements.append(f"{name} ({run})")
        outputs.setdefault(name, output)
    if disagreements:
        raise SystemExit("runs of one case disagree: " + ", ".join(disagreements))
    document = {"recorded_at_commit": commit, "cases": outputs}
    ENTRY_GOLDEN.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(outputs)} cases at {commit} into {ENTRY_GOLDEN}")


if __name__ == "__main__":
    main()
