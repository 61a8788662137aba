"""``wavemetrics timeline``: the SVG/PNG picture of each lane's calls and waves.

The corpus session ``agentcmd/claude/full-session-five.jsonl`` has 5 calls in 3
waves (one WebSearch alone, then two WebSearch together, then Read with Grep),
as ``wavemetrics waves`` lists them; its times below are the trace's own
timestamps relative to the first call (11:18:39.894Z).
"""

from __future__ import annotations

import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.corpus import CORPUS, needs_corpus
from tests.extras import needs_matplotlib
from wavemetrics.cli.commands import main
from wavemetrics.run.pipeline import LaneResult, analyse, read_inputs
from wavemetrics.views.timeline import (
    MatplotlibMissing,
    figure_size_px,
    output_format,
    render_timeline,
)

FIVE = CORPUS / "agentcmd" / "claude" / "full-session-five.jsonl"
ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "timeline-example.png"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["timeline", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def _ids(svg: Path) -> dict[str, ET.Element]:
    root = ET.parse(svg).getroot()  # raises if the file is not well-formed XML
    return {e.attrib["id"]: e for e in root.iter() if "id" in e.attrib}


def _numbered(ids: dict[str, ET.Element], prefix: str) -> list[str]:
    return sorted(
        (i for i in ids if re.fullmatch(rf"{prefix}-\d+", i)), key=lambda i: int(i.split("-")[1])
    )


def _text(element: ET.Element) -> str:
    return "".join(element.itertext()).strip()


def _bar_path(bar: ET.Element) -> ET.Element:
    return next(e for e in bar if e.tag.endswith("path"))


def _bar_width_pt(bar: ET.Element) -> float:
    xs = [float(x) for x in re.findall(r"[ML] ([-\d.]+) ", _bar_path(bar).attrib["d"])]
    return max(xs) - min(xs)


def _lanes(path: Path) -> tuple[LaneResult, ...]:
    return analyse(read_inputs([str(path)], "auto")).lanes


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", header[16:24])  # the IHDR chunk's first fields
    return width, height


def _events(tmp_path: Path, calls: list[tuple[str, str, str, float, float]]) -> str:
    """An events trace of session ``s1``: one start and one end per (lane, id, tool, start, end)."""
    lines: list[dict[str, Any]] = []
    for lane, call, tool, start, end in calls:
        common = {"sessionId": "s1", "agentId": lane, "toolCallId": call, "toolName": tool}
        lines.append({"type": "tool_execution_start", "timestamp": start, **common})
        lines.append({"type": "tool_execution_end", "timestamp": end, **common})
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


TWO_LANES = [
    ("main", "a", "read", 1000, 2000),
    ("main", "b", "grep", 1100, 1400),
    ("helper", "c", "bash", 5000, 9000),
]


@needs_matplotlib
@needs_corpus
def test_svg_of_a_corpus_session_has_one_bar_per_call(tmp_path: Path) -> None:
    """The SVG of the five-call session is valid XML with bars call-0..call-4 and two wave bands."""
    out = tmp_path / "five.svg"
    code, stdout, stderr = _run(str(FIVE), "-o", str(out))
    assert (code, stdout, stderr) == (0, f"{out}: 1 lane, 5 calls\n", "")
    ids = _ids(out)
    assert _numbered(ids, "call") == ["call-0", "call-1", "call-2", "call-3", "call-4"]
    assert _numbered(ids, "wave") == ["wave-0", "wave-1"]


@needs_matplotlib
@needs_corpus
def test_svg_legend_names_the_buckets_and_the_wave_band(tmp_path: Path) -> None:
    """The legend has one entry per bucket, in bucket order, and one for the wave band."""
    out = tmp_path / "five.svg"
    render_timeline(_lanes(FIVE), out)
    ids = _ids(out)
    labels = {i: _text(e) for i, e in ids.items() if re.fullmatch(r"legend-\w+-label", i)}
    assert labels == {
        "legend-non_eval-label": "non_eval (counted as parallelism)",
        "legend-eval_only-label": "eval_only (code cells: not counted)",
        "legend-mixed-label": "mixed (not counted)",
        "legend-wave-label": "one wave of 2+ calls",
    }
    assert {"legend-non_eval", "legend-eval_only", "legend-mixed", "legend-wave"} <= set(ids)


@needs_matplotlib
@needs_corpus
def test_svg_bars_carry_name_and_times_as_hover_text(tmp_path: Path) -> None:
    """Each bar's <title> gives tool, duration, start from the first call, bucket and wave size."""
    out = tmp_path / "five.svg"
    render_timeline(_lanes(FIVE), out)
    ids = _ids(out)
    titles = [_text(next(e for e in ids[i] if e.tag.endswith("title")))
              for i in _numbered(ids, "call")]
    assert titles == [
        "WebSearch: 16.974 s from 0.000 s (non_eval wave of 1)",
        "WebSearch: 16.558 s from 22.102 s (non_eval wave of 2)",
        "WebSearch: 17.481 s from 22.194 s (non_eval wave of 2)",
        "Read: 1.203 s from 44.632 s (non_eval wave of 2)",
        "Grep: 0.180 s from 45.688 s (non_eval wave of 2)",
    ]


@needs_matplotlib
@needs_corpus
def test_tool_names_are_written_only_on_bars_they_fit(tmp_path: Path) -> None:
    """Only the 17 s WebSearch bars carry a name; the 1.2 s Read and 0.18 s Grep are too short."""
    out = tmp_path / "five.svg"
    render_timeline(_lanes(FIVE), out)
    ids = _ids(out)
    assert {i: _text(ids[i]) for i in _numbered(ids, "name")} == {
        "name-0": "WebSearch", "name-1": "WebSearch", "name-2": "WebSearch",
    }


@needs_matplotlib
@needs_corpus
def test_svg_is_the_same_bytes_for_the_same_input(tmp_path: Path) -> None:
    """Two renderings of one input are byte-identical (fixed hash salt, no date)."""
    first, second = tmp_path / "1.svg", tmp_path / "2.svg"
    render_timeline(_lanes(FIVE), first)
    render_timeline(_lanes(FIVE), second)
    assert first.read_bytes() == second.read_bytes()


@needs_matplotlib
@needs_corpus
def test_png_of_one_lane_is_as_high_as_its_largest_wave(tmp_path: Path) -> None:
    """full-session-five's largest wave has 2 calls: 12 x (0.75 + (0.25 + 2 x 0.25 + 0.5)
    + 0.25) in at 100 dpi, 1200 x 225 px (a fixed-height panel was 300 px, mostly empty)."""
    out = tmp_path / "five.png"
    code, _, _ = _run(str(FIVE), "-o", str(out))
    assert code == 0
    assert _png_size(out) == (1200, 225)


@needs_matplotlib
def test_png_height_adds_each_panels_rows(tmp_path: Path) -> None:
    """Lanes with waves of 2 and 1 calls: 0.75 + (0.25 + 0.5 + 0.5) + (0.25 + 0.25 + 0.5)
    + 0.25 = 3.25 in, 1200 x 325 px."""
    out = tmp_path / "two.png"
    code, stdout, _ = _run(_events(tmp_path, TWO_LANES), "-o", str(out))
    assert (code, stdout) == (0, f"{out}: 2 lanes, 3 calls\n")
    assert _png_size(out) == (1200, 325)


@needs_matplotlib
def test_lanes_of_a_session_share_one_clock(tmp_path: Path) -> None:
    """A sub-agent lane's bars are placed from the session's first call, under the main
    lane's calls of the same moment (its bash starts 4 s after main's read)."""
    out = tmp_path / "t.svg"
    code, _, _ = _run(_events(tmp_path, TWO_LANES), "-o", str(out))
    assert code == 0
    ids = _ids(out)
    tips = [_text(next(iter(ids[i]))) for i in _numbered(ids, "call")]
    assert tips[2] == "bash: 4.000 s from 4.000 s (non_eval wave of 1)"
    main_bar, helper_bar = _bar_path(ids["call-0"]), _bar_path(ids["call-2"])
    x0 = float(re.findall(r"M ([-\d.]+) ", main_bar.attrib["d"])[0])
    x2 = float(re.findall(r"M ([-\d.]+) ", helper_bar.attrib["d"])[0])
    # both panels span the session's 8 s (1 s to 9 s) plus 1 % margins: 8.16 s over
    # (12 - 0.5) in x 72 = 828 pt, so bash starts 4 / 8.16 x 828 pt right of read
    assert abs((x2 - x0) - 4 / 8.16 * 828) < 0.01


@needs_matplotlib
def test_panel_title_carries_the_lower_bound_mark(tmp_path: Path) -> None:
    """A lane with a call that never ended says, on a second line of its title, that its
    figures are a lower bound."""
    path = tmp_path / "s1.jsonl"
    lines = [
        {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 0},
        {"type": "tool_execution_end", "toolCallId": "a", "toolName": "read", "timestamp": 10},
        {"type": "tool_execution_start", "toolCallId": "b", "toolName": "read", "timestamp": 20},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "t.svg"
    code, _, _ = _run(str(path), "-o", str(out))
    assert code == 0
    texts = [_text(e) for e in ET.parse(out).getroot().iter() if e.tag.endswith("text")]
    assert any(t.startswith("session s1 / lane main: 1 call in 1 wave (") and t.endswith(
        "(upper bound 0.00 s)") for t in texts)
    assert "calls not counted: incomplete 1 (figures are a lower bound)" in texts


@needs_matplotlib
def test_lane_limit_is_checked_before_waves_are_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """101 lanes are refused as soon as they are read: no wave is assembled for them."""
    import wavemetrics.run.pipeline

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("waves were assembled before the lane limit was checked")

    # the CLI imports analyse when the command runs (a lazy import, for start-up time)
    monkeypatch.setattr(wavemetrics.run.pipeline, "analyse", never)
    trace = _events(tmp_path, [(f"lane{n}", f"c{n}", "read", 0, 10) for n in range(101)])
    code, _, stderr = _run(trace, "-o", str(tmp_path / "t.png"))
    assert code == 1
    assert stderr.endswith("101 lanes: at most 100 fit in one picture; choose some with --lane\n")


@needs_matplotlib
def test_lane_option_keeps_the_lanes_it_names(tmp_path: Path) -> None:
    """--lane matches a lane id or session_id/lane_id, is repeatable, and keeps lane order."""
    trace = _events(tmp_path, TWO_LANES)
    out = tmp_path / "t.svg"
    expected = {
        ("helper",): ("1 lane, 1 call", ["bash: 4.000 s from 0.000 s (non_eval wave of 1)"]),
        ("s1/main",): ("1 lane, 2 calls", [
            "read: 1.000 s from 0.000 s (non_eval wave of 2)",
            "grep: 0.300 s from 0.100 s (non_eval wave of 2)",
        ]),
        ("helper", "main"): ("2 lanes, 3 calls", [
            "read: 1.000 s from 0.000 s (non_eval wave of 2)",
            "grep: 0.300 s from 0.100 s (non_eval wave of 2)",
            "bash: 4.000 s from 4.000 s (non_eval wave of 1)",
        ]),
    }
    for lanes, (counts, titles) in expected.items():
        args = [a for lane in lanes for a in ("--lane", lane)]
        code, stdout, _ = _run(trace, "-o", str(out), *args)
        assert (code, stdout) == (0, f"{out}: {counts}\n")
        ids = _ids(out)
        assert [_text(next(iter(ids[i]))) for i in _numbered(ids, "call")] == titles


@needs_matplotlib
def test_lane_option_without_a_match_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    """A --lane id that matches no lane is an error naming the lanes there are, with exit 1."""
    out = tmp_path / "t.svg"
    code, stdout, stderr = _run(_events(tmp_path, TWO_LANES), "-o", str(out), "--lane", "mian")
    assert (code, stdout) == (1, "")
    assert stderr == "wavemetrics: error: --lane mian: no such lane (lanes: s1/main, s1/helper)\n"
    assert not out.exists()


def test_missing_matplotlib_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without matplotlib the command prints one line naming the extra to install and exits 2."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    monkeypatch.setattr("sys.executable", "/home/me/wm/.venv/bin/python")
    out = tmp_path / "t.png"
    code, stdout, stderr = _run(_events(tmp_path, TWO_LANES), "-o", str(out))
    assert (code, stdout) == (2, "")
    assert stderr == (
        "wavemetrics: error: timeline needs matplotlib:"
        " /home/me/wm/.venv/bin/python -m pip install 'wavemetrics[timeline]'\n"
    )
    assert not out.exists()


def test_render_timeline_without_matplotlib_raises_matplotlib_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python API raises MatplotlibMissing, whose message is the install hint."""
    lanes = _lanes(Path(_events(tmp_path, TWO_LANES)))
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr("sys.executable", "/opt/py/bin/python")
    with pytest.raises(MatplotlibMissing, match="^" + re.escape(
            "timeline needs matplotlib: /opt/py/bin/python -m pip install"
            " 'wavemetrics[timeline]'") + "$"):
        render_timeline(lanes, tmp_path / "t.svg")


def test_output_suffix_other_than_svg_or_png_is_a_usage_error(tmp_path: Path) -> None:
    """-o FILE.pdf (or no suffix) exits 2 with click's usage message and writes nothing."""
    trace = _events(tmp_path, TWO_LANES)
    for name in ("t.pdf", "t"):
        out = tmp_path / name
        code, stdout, stderr = _run(trace, "-o", str(out))
        assert (code, stdout) == (2, "")
        assert f"'{out}': the file name must end in .svg or .png" in stderr
        assert not out.exists()


def test_output_format_follows_the_suffix_in_any_case() -> None:
    """The suffix picks the format, case-insensitively; anything else is None."""
    assert [output_format(p) for p in ("a.svg", "a.SVG", "b.png", "b.Png", "c.jpg", "c")] == [
        "svg", "svg", "png", "png", None, None,
    ]


@needs_matplotlib
def test_bars_are_coloured_by_their_wave_bucket(tmp_path: Path) -> None:
    """A mixed wave's bars are pink, an eval_only wave's orange, a non_eval wave's blue."""
    trace = _events(tmp_path, [
        ("main", "a", "read", 0, 1000), ("main", "b", "eval", 100, 400),
        ("main", "c", "eval", 2000, 3000), ("main", "d", "bash", 4000, 5000),
    ])
    out = tmp_path / "t.svg"
    assert _run(trace, "-o", str(out))[0] == 0
    ids = _ids(out)
    styles = [_bar_path(ids[i]).attrib["style"] for i in _numbered(ids, "call")]
    fills = [re.findall(r"fill: (#\w+)", style) for style in styles]
    assert fills == [["#cc79a7"], ["#cc79a7"], ["#e69f00"], ["#0072b2"]]


@needs_matplotlib
def test_zero_length_calls_are_drawn_3_pixels_wide(tmp_path: Path) -> None:
    """Calls whose end equals their start are bars 3 px (2.16 pt) wide, not invisible."""
    trace = _events(tmp_path, [
        ("main", "a", "read", 0, 10000), ("main", "b", "grep", 20000, 20000),
        ("main", "c", "glob", 20000, 20000),
    ])
    out = tmp_path / "t.svg"
    assert _run(trace, "-o", str(out))[0] == 0
    ids = _ids(out)
    widths = [_bar_width_pt(ids[i]) for i in _numbered(ids, "call")]
    assert widths[1:] == [pytest.approx(2.16, abs=1e-5)] * 2
    assert _numbered(ids, "wave") == ["wave-0"]  # the two touch at one instant: one wave


@needs_matplotlib
def test_odd_tool_names_are_drawn_literally(tmp_path: Path) -> None:
    """Dollar signs are not parsed as math; control characters show as '?' (the SVG stays XML)."""
    trace = _events(tmp_path, [("main", "a", "$x$ <y> & \u0001z", 0, 1000)])
    out = tmp_path / "t.svg"
    assert _run(trace, "-o", str(out))[0] == 0
    ids = _ids(out)
    assert _text(ids["name-0"]) == "$x$ <y> & ?z"
    assert _text(ids["call-0"]) == "$x$ <y> & ?z: 1.000 s from 0.000 s (non_eval wave of 1)"


@needs_matplotlib
def test_lane_without_paired_calls_is_an_empty_panel(tmp_path: Path) -> None:
    """A lane whose only call never ended is drawn as a panel saying it has no paired calls."""
    path = tmp_path / "s1.jsonl"
    start = {"type": "tool_execution_start", "toolCallId": "a", "toolName": "read", "timestamp": 5}
    path.write_text(json.dumps(start) + "\n", encoding="utf-8")
    out = tmp_path / "t.svg"
    code, stdout, stderr = _run(str(path), "-o", str(out))
    assert (code, stdout) == (
        0, f"{out}: 1 lane, 0 calls; not drawn: incomplete 1 (see the warning above)\n")
    assert stderr == ("wavemetrics: warning: calls not counted: incomplete 1 (figures are a"
                      " lower bound)\n")
    ids = _ids(out)
    assert _numbered(ids, "call") == []
    root = ET.parse(out).getroot()
    texts = [_text(e) for e in root.iter() if e.tag.endswith("text")]
    assert "no paired tool calls" in texts
    # no time axis (it was an empty 0-1 s axis): no axis label, no tick labels
    assert not any(t.startswith("seconds from") for t in texts)
    assert not any(re.fullmatch(r"[\d.]+", t) for t in texts)
    png = tmp_path / "t.png"
    _run(str(path), "-o", str(png))
    # 0.75 + (0.25 title + 0.2 its line on the call not counted + 0.25 text) + 0.25 in
    assert _png_size(png) == (1200, 170)


@needs_matplotlib
def test_unreadable_input_is_reported_and_the_others_drawn_with_exit_1(tmp_path: Path) -> None:
    """A missing input is named on stderr with exit 1; the readable input is still drawn."""
    out = tmp_path / "t.svg"
    missing = tmp_path / "missing.jsonl"
    code, stdout, stderr = _run(_events(tmp_path, TWO_LANES), str(missing), "-o", str(out))
    assert (code, stdout) == (1, f"{out}: 2 lanes, 3 calls\n")
    assert stderr == f"wavemetrics: error: {missing}: no such file or directory\n"
    assert _numbered(_ids(out), "call") == ["call-0", "call-1", "call-2"]


@needs_matplotlib
def test_no_lanes_at_all_exits_1_without_a_picture(tmp_path: Path) -> None:
    """An empty input has no lane to draw: exit 1, and no file is written."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "t.png"
    code, stdout, stderr = _run(str(empty), "-o", str(out))
    assert (code, stdout) == (1, "")
    assert stderr.splitlines()[-1] == "wavemetrics: error: no lanes to draw"
    assert not out.exists()


@needs_matplotlib
def test_more_than_100_lanes_is_refused(tmp_path: Path) -> None:
    """101 lanes would not fit one picture: exit 1 with advice to pick lanes with --lane."""
    trace = _events(tmp_path, [(f"lane{n}", f"c{n}", "read", 0, 10) for n in range(101)])
    out = tmp_path / "t.png"
    code, _, stderr = _run(trace, "-o", str(out))
    assert code == 1
    assert stderr == (
        "wavemetrics: error: 101 lanes: at most 100 fit in one picture; choose some with --lane\n"
    )
    assert not out.exists()


def test_readme_shows_the_timeline_of_the_bundled_example() -> None:
    """The README's picture exists, is the 7-lane PNG of the example and stays under 200 KB.

    Largest waves per lane (the example's histograms): 3, 1, 2, 1, 1, 2, 1 rows, so
    0.75 + 7 x (0.25 + 0.5) + 11 x 0.25 + 0.25 = 9 in: 1200 x 900 px.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Seeing the waves", 1)[1].split("\n## ", 1)[0]
    assert "](docs/timeline-example.png)" in section
    assert "wavemetrics timeline wavemetrics/examples/claude-code-demo.jsonl" in section
    assert _png_size(PICTURE) == (1200, 900)
    assert PICTURE.stat().st_size < 200_000


@needs_matplotlib
def test_lane_option_takes_prefixes_and_sessions(tmp_path: Path) -> None:
    """--lane accepts a lane-id prefix, a session-id prefix (all its lanes) and
    SESSION/LANE prefixes; an exact lane id still wins over longer ones it prefixes."""
    trace = _events(tmp_path, TWO_LANES)
    out = tmp_path / "t.svg"
    for lane, counts in (("hel", "1 lane, 1 call"), ("s", "2 lanes, 3 calls"),
                         ("s1/ma", "1 lane, 2 calls"), ("s/h", "1 lane, 1 call")):
        code, stdout, _ = _run(trace, "-o", str(out), "--lane", lane)
        assert (code, stdout) == (0, f"{out}: {counts}\n"), lane


@needs_matplotlib
def test_lane_error_lists_lanes_as_the_table_shows_them_and_each_is_accepted(
        tmp_path: Path) -> None:
    """Lanes a36efb2a1d0c and a4ca752981aa of session s1 are listed as the table shows them,
    9 characters and ``…`` (``s1/a36efb2a1…``), not cut to 2; each listed form, ``…``
    included, names its lane again."""
    trace = _events(tmp_path, [("a36efb2a1d0c", "a", "read", 1000, 2000),
                               ("a4ca752981aa", "b", "grep", 3000, 3500),
                               ("a4ca752981aa", "c", "bash", 4000, 4100)])
    out = tmp_path / "t.svg"
    code, stdout, stderr = _run(trace, "-o", str(out), "--lane", "zzz")
    assert (code, stdout) == (1, "")
    assert stderr == ("wavemetrics: error: --lane zzz: no such lane"
                      " (lanes: s1/a36efb2a1…, s1/a4ca75298…)\n")
    for lane, counts in (("s1/a36efb2a1…", "1 lane, 1 call"), ("a4ca75298…", "1 lane, 2 calls")):
        code, stdout, _ = _run(trace, "-o", str(out), "--lane", lane)
        assert (code, stdout) == (0, f"{out}: {counts}\n"), lane


@needs_matplotlib
def test_nothing_read_gives_the_input_error_only(tmp_path: Path) -> None:
    """A missing input and --lane: the input's error alone, not also ``no such lane``."""
    missing = tmp_path / "missing.jsonl"
    code, stdout, stderr = _run(str(missing), "-o", str(tmp_path / "t.svg"), "--lane", "main")
    assert (code, stdout) == (1, "")
    assert stderr == f"wavemetrics: error: {missing}: no such file or directory\n"


def _events_trace(path: Path, calls: list[tuple[str, str, int, int]], agent: str = "main") -> Path:
    """An ``events`` trace of ``(call id, tool name, start ms, end ms)`` calls in one lane."""
    lines = []
    for call_id, name, start, end in calls:
        for kind, at in (("tool_execution_start", start), ("tool_execution_end", end)):
            lines.append(json.dumps({"type": kind, "toolCallId": call_id, "toolName": name,
                                     "timestamp": at, "agentId": agent}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_huge_tool_name_and_lane_id_are_drawn_shortened(tmp_path: Path) -> None:
    """A 1 MB tool name and lane id are cut to 80 characters (79 and "…") in the SVG."""
    huge = "x" * 1_000_000
    trace = _events_trace(tmp_path / "t.jsonl", [("a", huge, 0, 60_000)], agent="L" * 1_000_000)
    out = tmp_path / "t.svg"
    render_timeline(_lanes(trace), out)
    assert out.stat().st_size < 100_000
    ids = _ids(out)
    title = _text(next(e for e in ids["call-0"] if e.tag.endswith("title")))
    assert title == "x" * 79 + "…: 60.000 s from 0.000 s (non_eval wave of 1)"
    assert ("L" * 39 + "…") in out.read_text(encoding="utf-8")
    assert ("L" * 41) not in out.read_text(encoding="utf-8")


def test_every_bar_gets_its_own_hover_text_among_many_calls(tmp_path: Path) -> None:
    """With 300 calls, bar ``call-n`` carries the n-th call's title (call-1 is not call-10)."""
    calls = [(f"c{n}", f"tool{n}", n * 1000, n * 1000 + 500) for n in range(300)]
    out = tmp_path / "many.svg"
    render_timeline(_lanes(_events_trace(tmp_path / "many.jsonl", calls)), out)
    ids = _ids(out)
    titles = [_text(next(e for e in ids[i] if e.tag.endswith("title")))
              for i in _numbered(ids, "call")]
    assert titles == [f"tool{n}: 0.500 s from {n:.3f} s (non_eval wave of 1)"
                      for n in range(300)]


@needs_matplotlib
def test_timeline_takes_the_window_and_demo_options(tmp_path: Path) -> None:
    """timeline shares summarize's --since/--until/--timezone and --demo: the bundled
    example (117 calls in 7 lanes, all on 2026-04-18 UTC) is drawn whole from that day,
    and a window before it excludes its 105 waves, which is said, and nothing is drawn."""
    out = tmp_path / "t.svg"
    assert _run("--demo", "--since", "2026-04-18", "--timezone", "UTC", "-o", str(out)) == (
        0, f"{out}: 7 lanes, 117 calls\n", "")
    before = tmp_path / "before.svg"
    code, stdout, stderr = _run("--demo", "--until", "2026-04-17", "--timezone", "UTC",
                                "-o", str(before))
    assert (code, stdout) == (1, "")
    assert stderr == (
        "wavemetrics: note: the window --until 2026-04-17 excluded every wave: 105 waves"
        " (117 paired calls, in 7 lanes) start outside it\n"
        "wavemetrics: error: no lanes to draw in the window --until 2026-04-17\n")
    assert not before.exists()
    code, _, stderr = _run("--demo", str(out), "-o", str(out))
    assert code == 2
    assert stderr.startswith("wavemetrics: error: --demo reads the bundled example")


@needs_matplotlib
def test_a_capped_lane_says_so_in_its_title_on_stdout_and_on_stderr(tmp_path: Path) -> None:
    """Under --max-tracked-calls 3, CAPPED keeps 3 of its 5 calls: the title's second
    line names the 2 dropped and the option that counts them, the stdout line says
    they were not drawn, stderr gives the summarize table's loss line; the panel (2
    rows: wave {a, b}) is 0.25 + 0.2 + 2 x 0.25 + 0.5 = 1.45 in high."""
    from tests.event_traces import CAPPED, CAPPED_WARNING, write_events

    path = write_events(tmp_path / "s.jsonl", CAPPED)
    out = tmp_path / "t.svg"
    code, stdout, stderr = _run(str(path), "-o", str(out), "--max-tracked-calls", "3",
                                "--no-cache")
    assert code == 0
    assert stdout == f"{out}: 1 lane, 3 calls; not drawn: dropped 2 (see the warning above)\n"
    assert stderr.splitlines() == [CAPPED_WARNING]
    texts = [_text(e) for e in ET.parse(out).getroot().iter() if e.tag.endswith("text")]
    assert ("calls not counted: dropped 2 (figures are a lower bound; --max-tracked-calls 0"
            " counts every call)") in texts
    assert figure_size_px([2], [True]) == (1200, 245)  # 0.75 + 1.45 + 0.25 in
    assert len(_numbered(_ids(out), "call")) == 3
