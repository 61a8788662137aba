"""The fleet folder of issue 12: the corpus's Claude Code files copied many times.

Every Claude Code transcript of the corpus (with its ``<session>/subagents/``
files) is copied ``--copies`` times (default 50: about 1,800 files, ~370 MB)
into ``OUT/projects/<project>-<copy>/``, each copy with fresh ids: every
UUID-shaped string of a copy (line ``uuid``, ``parentUuid``, ``sessionId``, file
and folder names) is replaced by a new random UUID, consistently within the
copy, so copies neither de-duplicate against each other nor share sessions.
``OUT`` is laid out as a Claude config folder (``CLAUDE_CONFIG_DIR``), so the
peer ``ccusage`` reads the same files. Generated at benchmark time, never
committed. With ``--one-project`` every copy goes into one project folder,
``OUT/projects/one/`` (a file name without a UUID gets its copy number as a
prefix): one large folder, the case ``--jobs N`` splits across threads. Usage::

    python benchmarks/fleet.py /tmp/fleet [--copies 50] [--corpus ../shared/corpus]
    python benchmarks/fleet.py /tmp/one --copies 10 --one-project
"""

from __future__ import annotations

import argparse
import re
import sys
import uuid
from pathlib import Path

_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_UUID_TEXT = re.compile(_UUID.pattern.decode())


def claude_files(corpus: Path) -> list[Path]:
    """The corpus's Claude Code transcripts (detected as the CLI detects them), sorted."""
    from wavemetrics.readers import read_inputs

    outcome = read_inputs([str(corpus)])
    return sorted(Path(r.path) for r in outcome.inputs if r.format == "claude-code")


def _project_of(path: Path) -> Path:
    return path.parent.parent.parent if path.parent.name == "subagents" else path.parent


def make_fleet(
    out: Path, corpus: Path, copies: int, seed: int = 12, one_project: bool = False
) -> tuple[int, int]:
    """Write the fleet folder (or one project folder of all copies); returns (files, bytes)."""
    files = claude_files(corpus)
    rng_state = uuid.UUID(int=seed)  # deterministic ids: uuid5 of (seed, copy, old id)
    count = size = 0
    for copy in range(copies):
        fresh: dict[bytes, bytes] = {}

        def fresh_id(old: bytes, copy: int = copy, fresh: dict[bytes, bytes] = fresh) -> bytes:
            if old not in fresh:
                fresh[old] = str(uuid.uuid5(rng_state, f"{copy}:{old.decode()}")).encode()
            return fresh[old]

        for path in files:
            project = _project_of(path)
            relative = path.relative_to(project)
            renamed = _UUID_TEXT.sub(lambda m: fresh_id(m.group(0).encode()).decode(),
                                     relative.as_posix())
            if one_project:
                if renamed == relative.as_posix():  # no id in the name: keep copies apart
                    renamed = f"{copy:03d}-{renamed}"
                target = out / "projects" / "one" / renamed
            else:
                target = out / "projects" / f"{project.name}-{copy:03d}" / renamed
            if target.exists():
                raise SystemExit(f"{target}: two copies would share this name")
            target.parent.mkdir(parents=True, exist_ok=True)
            data = _UUID.sub(lambda m: fresh_id(m.group(0)), path.read_bytes())
            target.write_bytes(data)
            count += 1
            size += len(data)
    return count, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--one-project", action="store_true",
                        help="every copy in one project folder (projects/one)")
    parser.add_argument("--corpus", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    args = parser.parse_args()
    count, size = make_fleet(args.out, args.corpus, args.copies, one_project=args.one_project)
    print(f"{args.out}: {count} files, {size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
