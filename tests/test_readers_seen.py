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
    """An id with a lone surrogate or of 1 MB is remembered by its digest, not held."""
    seen = SeenIds()
    assert seen.add("a\ud800") and not seen.add("a\ud800")
    huge = "u" * 1_000_000
    assert seen.add(huge) and huge in seen and ("u" * 999_999) not in seen


def test_ids_that_differ_only_in_case_or_layout_stay_apart() -> None:
    """Only the canonical lower-case UUID becomes an integer: its upper-case or dash-less twins are other ids."""
    seen = SeenIds()
    canonical = "0a1b2c3d-0000-4000-8000-00000000beef"
    assert seen.add(canonical)
    assert seen.add(canonical.upper())
    assert seen.add(canonical.replace("-", ""))
    assert not seen.add(canonical)
    assert len(seen) == 3


def test_a_canonical_uuid_is_kept_as_its_128_bit_integer() -> None:
    """The key of a canonical UUID is the integer of its 32 hex digits (one-to-one, exact)."""
    from wavemetrics.readers._seen import compact_key as _key

    assert _key("00000000-0000-0000-0000-000000000001") == 1
    assert _key("ffffffff-ffff-ffff-ffff-ffffffffffff") == 2**128 - 1
    assert _key("x" * 64) == "x" * 64
    # SHA-256 of 65 "x" bytes, from coreutils: printf 'x%.0s' $(seq 65) | sha256sum
    assert _key("x" * 65) == bytes.fromhex(
        "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9")
    # a long id holding a lone surrogate is hashed from its surrogatepass bytes, never lost
    # (65 x ED A0 80 | sha256sum)
    assert _key("\ud800" * 65) == bytes.fromhex(
        "73b4bcb61bdc3c2b06a206201df3db63f2d9899af1c4fb3a93f7aefdfe4f4181")


@given(st.lists(st.uuids().map(str), max_size=200), st.lists(st.text(min_size=60, max_size=70), max_size=50))
def test_uuids_and_long_ids_mix_exactly_as_a_set(uuids: list[str], others: list[str]) -> None:
    """Canonical UUIDs, short ids and long ids together answer exactly as a set of the strings."""
    seen, reference = SeenIds(), set()
    for text in [*uuids, *others, *uuids]:
        assert seen.add(text) is (text not in reference)
        reference.add(text)
    assert len(seen) == len(reference)
