"""The documentation stays true to the code it describes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wavemetrics.core.schema import EXTRA_PROPERTIES, V1_PROPERTIES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _rows(text: str, header: str) -> list[list[str]]:
    section = text.split(header, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return [r for r in rows[2:]]  # drop the header row and the rule


def test_metrics_doc_lists_the_v1_properties_in_registry_order() -> None:
    """docs/metrics.md's v1 table has the 16 registry properties, order and types."""
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = _rows(text, "## 6. The v1 payload")
    assert [(r[1].strip("`"), r[2], r[3], r[4]) for r in rows] == [
        (p.name, p.json_type, p.unit, p.meaning) for p in V1_PROPERTIES
    ]
    assert len(rows) == 16


def test_metrics_doc_lists_every_extra() -> None:
    """docs/metrics.md's extras table matches the registry's extras."""
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = _rows(text, "### Extras")
    assert [(r[0].strip("`"), r[1], r[2], r[3]) for r in rows] == [
        (p.name, p.json_type, p.unit, p.meaning) for p in EXTRA_PROPERTIES
    ]


def test_readme_quick_start_has_two_commands() -> None:
    """The README's quick start is two sh blocks: run the bundled example, run the tests."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", quick, flags=re.S)
    assert len(blocks) == 2
    assert "wavemetrics summarize wavemetrics/examples/claude-code-demo.jsonl" in blocks[0]
    assert "pytest" in blocks[1]
    assert (DOCS.parent / "wavemetrics" / "examples" / "claude-code-demo.jsonl").is_file()


def test_readme_quick_start_says_what_it_needs_before_the_command() -> None:
    """The quick start states Rust 1.87 and the silent first build before the install
    command, puts the output right after the command that prints it, gives the tests'
    duration, and uses none of the words a newcomer cannot know."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    before, after = quick.split("```sh\n", 1)
    assert "Rust 1.87 or newer" in before
    assert "about a minute" in before and "prints nothing" in before
    assert after.split("```\n", 1)[1].lstrip("\n").startswith("It prints:\n\n```\ninputs:")
    assert "Run the tests (about 12 minutes" in quick
    intro = text.split("## Quick start", 1)[0]
    for jargon in ("contract", "live pipeline", "host `events` stream", "skeleton",
                   "../shared"):
        assert jargon not in intro + quick, jargon


def test_readme_example_output_is_what_the_demo_prints() -> None:
    """The table shown in the README is exactly what the quick-start command prints."""
    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    root = DOCS.parent
    text = (root / "README.md").read_text(encoding="utf-8")
    shown = text.split("It prints:", 1)[1].split("```", 2)[1]
    result = CliRunner().invoke(
        main, ["summarize", str(root / "wavemetrics" / "examples" / "claude-code-demo.jsonl")]
    )
    assert result.exit_code == 0
    assert result.stdout == shown.lstrip("\n")


def test_formats_doc_examples_give_the_figures_it_states(tmp_path: Path) -> None:
    """The events and claude-code examples of docs/formats.md give the savings it states."""
    import json

    from click.testing import CliRunner

    from wavemetrics.cli.commands import main

    blocks = re.findall(r"```\n(.*?)```", (DOCS / "formats.md").read_text(encoding="utf-8"),
                        flags=re.S)
    expected = [(30.0, 65.0, 1), (1500.0, 1750.0, 1)]  # worked out by hand in the doc
    for name, block, figures in zip(("events.jsonl", "s.jsonl"), blocks, expected, strict=False):
        path = tmp_path / name
        path.write_text(block, encoding="utf-8")
        result = CliRunner().invoke(main, ["summarize", "--format", "json", str(path)])
        total = json.loads(result.stdout)["total"]
        assert (total["modeled_wallclock_saved_ms"], total["upper_bound_saved_ms"],
                total["non_eval_saved_round_trips"]) == figures


def _doc_files() -> list[Path]:
    return [DOCS.parent / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("doc", ["docs/bench-integration.md", "README.md"])
def test_bench_snippet_defines_every_name_it_uses(
    doc: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """The bench-runner Python block (docs and README) runs as written: no undefined name."""
    text = (DOCS.parent / doc).read_text(encoding="utf-8")
    snippet = next(block for block in re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
                   if "efficiency_axis(" in block)
    monkeypatch.chdir(tmp_path)  # its trial folder does not exist here: a skipped axis
    namespace: dict[str, Any] = {}
    exec(compile(snippet, doc, "exec"), namespace)
    assert namespace["result"]["axes"]["efficiency"]["state"] == "skipped"


def test_readme_core_snippet_gives_the_saving_it_states() -> None:
    """The README's core-API block runs and its wave saves 100 + 30 - 100 = 30 ms."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    snippet = next(block for block in re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
                   if "assemble_waves(" in block)
    namespace: dict[str, Any] = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    assert namespace["summary"].modeled_wallclock_saved_ms == 30.0


def test_readme_summarize_paths_snippet_gives_the_figures_it_states(monkeypatch: Any) -> None:
    """The README's first Python block runs from the clone's folder and gives what its
    comments say: the quick start's 2021.75 s saved, in 7 lanes."""
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    python_api = text.index("## Python API")
    first = next(block for block in blocks if text.index(block) > python_api)
    assert "summarize_paths(" in first
    monkeypatch.chdir(DOCS.parent)
    namespace: dict[str, Any] = {}
    exec(compile(first, "README.md", "exec"), namespace)
    document = namespace["document"]
    assert (document["total"]["modeled_wallclock_saved_ms"], len(document["lanes"])) == (
        2021753.0, 7)


def test_doc_commands_never_write_a_tracked_file() -> None:
    """No ``-o FILE`` in a README or docs command names a file of the repository
    (docs/timeline.md's command overwrote docs/timeline-example.png)."""
    root = DOCS.parent.resolve()
    tracked = {(root / line).resolve() for line in subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True,
    ).stdout.splitlines()}
    assert root / "docs" / "timeline-example.png" in tracked
    for doc in _doc_files():
        for block in re.findall(r"```sh\n(.*?)\n```", doc.read_text(encoding="utf-8"), re.S):
            for target in re.findall(r"(?:-o|--output)\s+(\S+)", block):
                assert (root / target).resolve() not in tracked, f"{doc.name}: -o {target}"


def test_one_install_spelling_in_docs_and_messages() -> None:
    """Every extra is installed as ``pip install [-q] -e '.[extra]'`` in a clone, or
    ``pip install 'wavemetrics[extra]'`` (a wheel, or any install): in the README and the
    docs (a bare ``'.[extra]'`` undoes an editable install); the error hints name the
    second, which works for both, with the running interpreter's pip."""
    from wavemetrics.run.distributed import INSTALL_HINT as DASK
    from wavemetrics.views.compare import INSTALL_HINT as COMPARE
    from wavemetrics.views.timeline import INSTALL_HINT as TIMELINE

    texts = [doc.read_text(encoding="utf-8") for doc in _doc_files()]
    texts += [COMPARE, DASK, TIMELINE]
    commands = [c for text in texts for c in re.findall(r"pip install [^`\n|]*", text)]
    assert commands
    ours = [c for c in commands if "wavemetrics[" in c or "'.[" in c or re.search(r" \.( |$)", c)]
    assert ours
    for command in ours:  # installs of wavemetrics itself (others, e.g. orjson, are not ours)
        assert re.match(r"pip install ((-q )?-e ('\.\[[a-z,]+\]'|\.)|'wavemetrics\[[a-z]+\]')( |$|\))",
                        command), command
    for hint, extra in ((TIMELINE, "timeline"), (COMPARE, "compare"), (DASK, "dask")):
        assert hint.endswith(f" -m pip install 'wavemetrics[{extra}]'")


def test_summarize_table_keeps_to_80_columns_with_many_formats() -> None:
    """docs/cli.md promises at most 80 columns: the ``inputs:`` line of the whole
    corpus (seven formats and unreadable files) is wrapped, not 121 columns wide."""
    from click.testing import CliRunner

    from tests.corpus import CORPUS
    from wavemetrics.cli.commands import main

    if not CORPUS.is_dir():
        pytest.skip(f"corpus absent: {CORPUS}")
    result = CliRunner().invoke(main, ["summarize", "--jobs", "1", str(CORPUS)])
    lines = result.stdout.splitlines()
    assert lines[0].startswith("inputs: ")
    assert max(len(line) for line in lines) <= 80


def test_cli_doc_maps_every_waves_json_key_to_its_csv_column() -> None:
    """docs/cli.md's waves JSON-to-CSV table is csvout's mapping, and its last row names
    the call's own columns: every CSV column is in the table once."""
    from wavemetrics.views.csvout import WAVE_CALL_COLUMNS, WAVE_JSON_TO_CSV

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    rows = _rows(text, "**`waves`: JSON keys and CSV columns.**")
    pairs = [(r[0].strip("`"), r[1].split(" (")[0].strip("`")) for r in rows[:-1]]
    assert pairs == list(WAVE_JSON_TO_CSV.items())
    calls = [cell.strip().strip("`") for cell in rows[-1][1].split(",")]
    assert rows[-1][0] == "(none: the call's own)"
    assert sorted([*WAVE_JSON_TO_CSV.values(), *calls]) == sorted(WAVE_CALL_COLUMNS)


def test_cli_doc_statusline_snippet_is_what_print_settings_prints() -> None:
    """docs/cli.md's settings.json snippet names wavemetrics by an absolute path (Claude
    Code's PATH seldom holds a clone's .venv/bin) and is what --print-settings prints."""
    from wavemetrics.cli.statusline_setup import settings_snippet

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```json\n(.*?)```", text, flags=re.S) if "statusLine" in b]
    assert len(blocks) == 1
    command = json.loads(blocks[0])["statusLine"]["command"]
    assert command == "/home/me/wavemetrics/.venv/bin/wavemetrics statusline"
    assert blocks[0] == settings_snippet(command)


#: What a clone does not have: the contract's folder beside the repository, and an
#: issue tracker a reader can see. A doc states the rule or the behaviour instead.
_OUTSIDE_REFERENCES = re.compile(
    r"\.\./shared|shared/(?:spec|reference|corpus)|spec/(?:metrics|formats)\.md"
    r"|reference/trace-formats\.md|issues?\s*#?\d+",
    re.IGNORECASE,
)


@pytest.mark.parametrize("doc", [path.name for path in _doc_files()])
def test_docs_stand_alone(doc: str) -> None:
    """No doc points to the contract files beside the repository or cites an issue
    number: every rule a user needs is stated in the README and docs/ themselves."""
    path = DOCS.parent / doc if doc == "README.md" else DOCS / doc
    text = path.read_text(encoding="utf-8")
    found = [(text.count("\n", 0, m.start()) + 1, m.group())
             for m in _OUTSIDE_REFERENCES.finditer(text)]
    assert found == [], f"{doc}: {found}"


def _source_files() -> list[Path]:
    root = DOCS.parent
    return [*_doc_files(), *sorted((root / "wavemetrics").rglob("*.py")),
            *sorted((root / "native").rglob("*.rs")), *sorted((root / "tests").glob("*.py")),
            *sorted((root / "benchmarks").glob("*.py")), *sorted((root / "scripts").glob("*.py")),
            root / "pyproject.toml", *sorted((root / "native").glob("**/Cargo.toml"))]


def _headings(doc: Path) -> list[str]:
    """The headings of ``doc``, and the bold lead of each paragraph that opens with one
    (docs/cli.md's "**Whole `summarize` outputs are served again.**")."""
    text = doc.read_text(encoding="utf-8")
    return [*(line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")),
            *re.findall(r"^\*\*(.+?)\*\*", text, flags=re.M)]


def test_named_doc_sections_exist() -> None:
    """Every ``docs/NAME.md, "Section"`` reference (docs, code comments, docstrings,
    also wrapped over comment lines) names a file of docs/ and one of its headings, so
    a moved section leaves no dangling pointer."""
    pattern = re.compile(r"(?:docs/)?([a-z-]+\.md)\)?,?\s+\"([^\"]+)\"")
    missing = []
    for source in _source_files():
        if source == Path(__file__).resolve() or not source.is_file():
            continue
        text = source.read_text(encoding="utf-8")
        text = re.sub(r"\n\s*(?:#:?|///?|//!)\s*", " ", text)  # join wrapped comments
        text = re.sub(r"\s+", " ", text)
        for name, section in pattern.findall(text):
            doc = DOCS / name
            if not doc.is_file() or not any(
                section.lower() in heading.lower() for heading in _headings(doc)
            ):
                missing.append((source.name, name, section))
    assert missing == [], missing


def _table(text: str, header: str) -> list[list[str]]:
    """The cells of the rows of the first table whose header line is ``header``."""
    lines = text.split(header + "\n", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def _lane_summary(block: str, options: dict[str, str]) -> tuple[Any, Any]:
    """The waves and summary of one ``observations`` block of docs/metrics.md."""
    from wavemetrics import assemble_waves, summarize
    from wavemetrics.core.turns import TurnClock

    observations: list[dict[str, Any]] = []
    clock = TurnClock()
    for line in block.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) == 2:
            clock.add(fields[0], float(fields[1]))
        elif fields:  # kind, call id, tool name, ms, and on a start its batch key
            kind, call_id, tool_name, at_ms, *batch = fields
            observations.append({"kind": kind, "call_id": call_id, "tool_name": tool_name,
                                 "at_ms": float(at_ms), "batch": batch[0] if batch else None})
    cap = int(options.get("max_tracked_calls", "2000"))
    assembly = assemble_waves(observations, max_tracked_calls=cap)
    summary = summarize(
        assembly, measured_turn_duration_ms_total=clock.total_ms,
        turn_intervals=clock.intervals, timing=options.get("timing", "execution"),  # type: ignore[arg-type]
        idle_gap_ms=float(options.get("idle_gap_ms", "300000")),
    )
    return assembly.waves, summary


def _figure(name: str, waves: tuple[Any, ...], summary: Any) -> Any:
    if name == "waves":
        return len(waves)
    wave = re.fullmatch(r"wave (\d+) (size|span_ms|max_concurrency)", name)
    if wave:
        return getattr(waves[int(wave.group(1)) - 1], wave.group(2))
    return getattr(summary, name)


def _worked_examples() -> list[tuple[str, Any, Any, str, str]]:
    """``(figure, computed, stated value, worked out, where)`` of every row of every
    figures table of docs/metrics.md; a table covers the blocks since the last one
    (several blocks: their lanes merged)."""
    from wavemetrics import merge_summaries

    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    parts = re.split(r"```observations([^\n]*)\n(.*?)```", text, flags=re.S)
    rows: list[tuple[str, Any, Any, str, str]] = []
    lanes: list[tuple[Any, Any]] = []
    for index in range(1, len(parts), 3):
        options = dict(item.split("=", 1) for item in parts[index].split())
        lanes.append(_lane_summary(parts[index + 1], options))
        after = parts[index + 2]
        if "| figure | worked out | value |" not in after.split("```", 1)[0]:
            continue
        waves = tuple(w for lane_waves, _ in lanes for w in lane_waves)
        summary = merge_summaries(s for _, s in lanes)
        for row in _table(after, "| figure | worked out | value |"):
            name, worked, value = row[0].strip("`"), row[1], row[2]
            rows.append((name, _figure(name, waves, summary), value, worked,
                         f"block {index // 3 + 1}"))
        lanes = []
    return rows


def test_metrics_doc_worked_examples_give_the_figures_they_state() -> None:
    """Every worked example of docs/metrics.md, run through the metric core, gives the
    value its table states, and every purely arithmetic *worked out* cell equals it."""
    rows = _worked_examples()
    assert len(rows) >= 60  # eight examples: none may be skipped unread
    for name, computed, value, worked, where in rows:
        stated: Any = value if ":" in value else float(value)
        assert computed == stated, (where, name, computed, value)
        arithmetic = worked.replace(" x ", " * ")
        if re.fullmatch(r"[\d\s.+\-*/()]+", arithmetic):
            # only digits and operators reach eval (the pattern above)
            assert eval(arithmetic) == stated, (where, name, worked, value)


def test_metrics_doc_classification_table_is_the_rule() -> None:
    """docs/metrics.md's classification table: each name's normal form and verdict."""
    from wavemetrics import is_eval_tool_name, normalize_tool_name

    def unescape(cell: str) -> str:
        return re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)),
                      cell.strip("`"))

    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = _table(text, "| name | normal form | eval name |")
    assert len(rows) == 15
    for name, normal, verdict in rows:
        assert normalize_tool_name(unescape(name)) == unescape(normal), name
        assert is_eval_tool_name(unescape(name)) is (verdict == "yes"), name


def test_metrics_doc_histogram_table_is_the_encoding() -> None:
    """docs/metrics.md's histogram table: wave sizes to their encoded histogram."""
    from wavemetrics import encode_histogram, wave_size_bucket

    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    rows = _table(text, "| wave sizes | histogram |")
    assert len(rows) == 4
    for sizes, encoded in rows:
        counts = [0] * 8
        for size in re.findall(r"\d+", sizes):
            counts[wave_size_bucket(int(size))] += 1
        assert encode_histogram(counts) == encoded.strip("`"), sizes


def test_performance_doc_starts_with_current_figures() -> None:
    """docs/performance.md opens with one table of current figures (what, the command
    that reproduces it, the figure, the date measured), keeps no measurement rounds
    (they are in docs/performance-history.md, which it links), and every headline
    figure of the table is one the history records."""
    text = (DOCS / "performance.md").read_text(encoding="utf-8")
    history = (DOCS / "performance-history.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == "## Current figures"
    assert "](performance-history.md)" in text.split("## Current figures", 1)[0]
    assert not any("round" in heading.lower() for heading in headings)
    assert len(text.splitlines()) < 300
    rows = _table(text, "| what | command to reproduce | figure | measured |")
    assert len(rows) >= 5
    for what, command, figure, measured in rows:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", measured), what
        assert command == "same run" or command.startswith("`"), what
        headline = re.search(r"\*\*(.+?)\*\*", figure)
        assert headline and headline.group(1) in history, (what, figure)
    assert "### Eleventh round" in history and "## Current figures" not in history
