"""What a reader produces: the frozen per-input report (``wavemetrics/readers/lanes.py``)."""

from __future__ import annotations

import pickle

import attrs
import pytest

from wavemetrics.readers._lines import LineAccount
from wavemetrics.readers.lanes import InputReport


def _report() -> InputReport:
    return InputReport(
        path="t.jsonl", format="events", lines_read=5, lines_used=2, lines_ignored=1,
        problems={"invalid_json": 2}, ignored={"turn_start": 1}, notes={"repeated": 3},
    )


def test_the_counts_of_a_report_are_read_only() -> None:
    """A frozen report cannot be changed through its problems, ignored or notes mappings."""
    report = _report()
    with pytest.raises(TypeError):
        report.problems["invalid_json"] = 0  # type: ignore[index]
    with pytest.raises(TypeError):
        report.ignored["other"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        report.notes["x"] = 1  # type: ignore[index]
    assert dict(report.problems) == {"invalid_json": 2}


def test_a_report_does_not_share_the_dict_it_was_given() -> None:
    """Changing the dict a report was built from leaves the report as it was."""
    problems = {"invalid_json": 2}
    report = InputReport(path="t", format="events", lines_read=2, problems=problems)
    problems["invalid_json"] = 99
    assert report.problems == {"invalid_json": 2}


def test_a_report_survives_pickling_for_worker_processes() -> None:
    """--jobs and Dask send reports between processes: a pickled report comes back equal."""
    report = _report()
    back = pickle.loads(pickle.dumps(report))
    assert back == report
    assert back.notes == {"repeated": 3}
    with pytest.raises(TypeError):
        back.notes["repeated"] = 0  # type: ignore[index]


def test_evolve_makes_a_changed_read_only_copy() -> None:
    """attrs.evolve with a new mapping gives a new report whose counts are read-only too."""
    report = _report()
    changed = attrs.evolve(report, notes={**report.notes, "read_again_in_batch": 1})
    assert changed.notes == {"repeated": 3, "read_again_in_batch": 1}
    assert report.notes == {"repeated": 3}
    with pytest.raises(TypeError):
        changed.notes["repeated"] = 0  # type: ignore[index]


def test_from_account_sorts_the_counts_by_key() -> None:
    """A report made from a line account lists each count mapping in key order."""
    account = LineAccount()
    for reason in ("zeta", "alpha", "zeta"):
        account.lines_read += 1
        account.problem(reason)
    report = InputReport.from_account("t", "events", account)
    assert list(report.problems.items()) == [("alpha", 1), ("zeta", 2)]
    assert report.lines_read == 3
