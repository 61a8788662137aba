"""The compact set of seen line ids (``wavemetrics/readers/_seen.py``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.readers._seen import SeenIds


@given(st.lists(st.text(max_size=40), max_size=200))
def test_add_says_new_exactly_as_a_set_would(ids: list[str]) -> None:
    """``add`` is ``True`` the first time an id is seen and ``False`` after, as with a set."""
    seen, reference = SeenIds(), set()
    for text in ids:
        assert seen.add(text) is (text not in reference)
        reference.add(text)
    assert len(seen) == len(reference)
    assert all(text in seen for text in reference)


def test_many_ids_stay_known() -> None:
    """50 000 ids are each new once, then known."""
    seen = SeenIds()
    ids = [f"{index:08x}-0000-4000-8000-{index:012x}" for index in range(50_000)]
    assert all(seen.add(text) for text in ids)
    assert not any(seen.add(text) for text in ids)
    assert len(seen) == 50_000
    assert "not-seen" not in seen
    assert 7 not in seen  # type: ignore[operator]


def test_lone_surrogates_and_huge_ids_are_fingerprinted() -> None:
    """An id with a lone surrogate or of 1 MB is remembered by its hash, not held."""
    seen = SeenIds()
    assert seen.add("a\ud800") and not seen.add("a\ud800")
    huge = "u" * 1_000_000
    assert seen.add(huge) and huge in seen and ("u" * 999_999) not in seen
