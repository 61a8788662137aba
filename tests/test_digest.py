"""SHA-256 without OpenSSL (wavemetrics.cache._digest): FIPS 180-4's digests, and hashlib's."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from wavemetrics.cache._digest import sha256
from wavemetrics.run import _extension


def test_the_standard_test_vectors() -> None:
    """FIPS 180-4's examples (NIST's "SHA256.pdf"): "abc", the empty message and the
    448-bit two-block message."""
    assert sha256(b"abc").hex() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert sha256(b"").hex() == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex() == (
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    # a million "a"s: many blocks, not one call per block
    assert sha256(b"a" * 1_000_000).hex() == (
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")


def test_the_extension_hashes() -> None:
    """The test environment builds the extension: the digest is its own, not hashlib's."""
    native = _extension.extension()
    assert native is not None
    assert native.sha256(b"abc").hex() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert native.sha256(b"x" * 100) == hashlib.sha256(b"x" * 100).digest()


@given(st.binary(max_size=300))
def test_the_same_digest_as_hashlib(data: bytes) -> None:
    """Every length across several 64-byte blocks and their padding boundaries (55/56
    bytes in a block): the digest is hashlib's, so a key does not depend on which made it."""
    assert sha256(data) == hashlib.sha256(data).digest()
