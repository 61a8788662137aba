"""SHA-256 without loading OpenSSL: the extension's when it is built, else :mod:`hashlib`.

Every ``summarize`` run hashes its key (:mod:`wavemetrics.cache.runcache`), and a stored
output is checked by its digest (:class:`wavemetrics.cache.runcache.RunStore`). :mod:`hashlib` loads
OpenSSL's ``libcrypto``, ~3 ms of a cold run's start-up on the benchmark machine
(docs/performance-history.md, "Eleventh round"); the extension already links RustCrypto's
``sha2`` (for the lanes' ``session_hash``). Both are SHA-256 (FIPS 180-4): the same
digest for the same bytes (``tests/test_digest.py``), so a key does not depend on which
one made it.
"""

from __future__ import annotations

from wavemetrics.run import _extension

__all__ = ["sha256"]


def sha256(data: bytes) -> bytes:
    """The 32-byte SHA-256 digest of ``data``."""
    native = _extension.extension()
    if native is not None:
        digest: bytes = native.sha256(data)
        return digest
    import hashlib  # pragma: no cover (the test environment builds the extension)

    return hashlib.sha256(data).digest()  # pragma: no cover
