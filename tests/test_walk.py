"""The extension's folder walk (:mod:`wavemetrics.inputs._walk`, ``native/src/walk.rs``) against
the two Python walks it stands in for: the run key's fingerprint of the inputs
(:func:`wavemetrics.cache.runcache._inputs`) and the native command's file list
(:func:`wavemetrics.run.fastpath._files_of` over :func:`wavemetrics.inputs._files.expand_entries`).
Both Python walks are the reference: the same bytes, the same files, or no answer."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import wavemetrics.inputs._walk
from tests.corpus import CORPUS
from tests.strategies import folder_trees
from wavemetrics.cache import runcache
from wavemetrics.cache.units import walked_keys
from wavemetrics.inputs._files import SIDECAR_REASON, _is_trace_name, expand_entries
from wavemetrics.inputs._suffixes import SESSION_SUFFIXES, SKIPPED_SUFFIXES, TRACE_SUFFIXES
from wavemetrics.inputs._walk import Walk, walk
from wavemetrics.run import _extension, fastpath

pytestmark = pytest.mark.skipif(_extension.extension() is None, reason="no extension")

_TREES = settings(max_examples=150, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])


def build_tree(root: Path, tree: dict[str, Any]) -> None:
    """Make ``tree`` (:data:`tests.strategies.folder_trees`) under the folder ``root``."""
    root.mkdir(exist_ok=True)
    for name, entry in tree.items():
        path = root / name
        if entry == "file":
            path.write_bytes(b"{}\n")
        elif entry == "fifo":
            os.mkfifo(path)
        elif isinstance(entry, tuple):
            os.symlink(entry[1], path)
        else:
            build_tree(path, entry)


@contextlib.contextmanager
def _cwd(folder: str) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def python_key(paths: Sequence[str]) -> bytes | None:
    """The reference: the JSON text of ``runcache._inputs``, ``None`` when uncacheable."""
    try:
        return runcache._json(runcache._inputs(paths))
    except runcache._Uncacheable:
        return None


def python_walk(paths: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """The reference of :attr:`Walk.files` and :attr:`Walk.sidecars`: the readers' walk
    (``_files.expand_entries``), ``None`` when it gives an entry an error, finds a
    file that its listing does not show as a plain file, or lists a link with a trace
    name (the native walk leaves every such tree to Python, even when the link's
    target is a file of the tree, which ``expand_entries`` then lists once: the files
    are the same either way)."""
    skipped: list[tuple[str, str]] = []
    plain: set[str] = set()
    entries = expand_entries(list(paths), {}, skipped, plain)
    if any(error is not None or path not in plain for path, error in entries):
        return None
    for top in paths:
        for folder, _, names in os.walk(top):
            if any(_is_trace_name(name) and os.path.islink(os.path.join(folder, name))
                   for name in names):
                return None
    assert all(reason == SIDECAR_REASON for _, reason in skipped)
    return [path for path, _ in entries], sorted(path for path, _ in skipped)


def python_files_of(paths: Sequence[str]) -> Any:
    """The reference: ``fastpath._files_of`` with the extension's walk turned off."""
    with mock.patch.object(fastpath, "walk", lambda paths, key, jobs=1: None):
        return fastpath._files_of(paths)


def _spelled(tmp: str, spelling: str) -> str:
    return {"absolute": os.path.join(tmp, "top"), "slash": os.path.join(tmp, "top") + "/",
            "relative": "top", "dotted": "./top//"}[spelling]


@_TREES
@given(tree=folder_trees, spelling=st.sampled_from(["absolute", "slash", "relative", "dotted"]))
@example(tree={"é.jsonl": "file", "z.jsonl": "file", "Z.jsonl": "file", "a.meta.json": "file"},
         spelling="relative")
@example(tree={"s1.jsonl": "file", "s1": {"subagents": {"agent-1.jsonl": "file"}}},
         spelling="absolute")
@example(tree={"p": {"a.jsonl": ("link", "gone"), "b.jsonl": "file"}}, spelling="slash")
@example(tree={"p": {"a.jsonl": "fifo"}}, spelling="absolute")
@example(tree={"p": {"s1": ("link", "../a.jsonl"), "a.jsonl": "file"}}, spelling="dotted")
@example(tree={"a.txt": "file"}, spelling="absolute")
@example(tree={"a.jsonl": "file", "s1.jsonl": ("link", "a.jsonl")}, spelling="absolute")
def test_the_walk_gives_the_python_walks_bytes_and_files(
        tree: dict[str, Any], spelling: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build_tree(Path(tmp, "top"), tree)
        with _cwd(tmp):
            path = _spelled(tmp, spelling)
            walked = walk([path], key=True)
            assert walked is not None
            assert walked.key == python_key([path])
            expected = python_walk([path])
            assert walked.files == (None if expected is None else expected[0])
            if expected is not None:
                assert walked.sidecars == expected[1]
                # the readers' names of each file, as _files derives them from the path
                assert [(path, *names) for path, names in zip(
                    expected[0], walked.names or [], strict=True)] == fastpath._args_of(
                        expected[0])
            # as wired into the native command: the same answer either way
            assert fastpath._files_of([path]) == python_files_of([path])
            assert walk([path], key=False) == Walk(None, walked.files, walked.names, walked.sidecars)
            assert walk([path], key=True, jobs=3) == walked  # threads change nothing


@_TREES
@given(tree=folder_trees, picks=st.lists(st.sampled_from(["top", "top/p", "top/s1", "top/é",
                                                           "link"]), min_size=2, max_size=3))
@example(tree={"p": {"a.jsonl": "file"}}, picks=["top", "top/p"])
@example(tree={"p": {"a.jsonl": "file"}, "s1": {"b.jsonl": "file"}}, picks=["top/p", "top/s1"])
@example(tree={"p": {"a.jsonl": "file"}}, picks=["top/p", "link"])
def test_several_folders_give_the_python_walks_bytes_and_files(
        tree: dict[str, Any], picks: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        build_tree(Path(tmp, "top"), tree)
        os.symlink("top/p", Path(tmp, "link"))  # the same folder as top/p, by a link
        with _cwd(tmp):
            paths = [pick for pick in picks if os.path.isdir(pick)]
            if not paths:
                return
            walked = walk(paths, key=True, jobs=2)
            assert walked is not None
            assert walked.key == python_key(paths)
            assert fastpath._files_of(paths, jobs=2) == python_files_of(paths)


def test_folders_that_overlap_are_left_to_the_python_walk(tmp_path: Path) -> None:
    # the readers read a file reached twice once (by its real path): no concatenation
    build_tree(tmp_path / "top", {"p": {"a.jsonl": "file"}, "q": {"b.jsonl": "file"}})
    os.symlink(tmp_path / "top" / "p", tmp_path / "link")
    top, inner = str(tmp_path / "top"), str(tmp_path / "top" / "p")
    for paths in ([top, inner], [inner, top], [inner, inner], [inner, str(tmp_path / "link")]):
        walked = walk(paths, key=True)
        assert walked is not None and walked.files is None
        assert walked.key == python_key(paths)
    apart = walk([inner, str(tmp_path / "top" / "q")], key=False)
    assert apart == Walk(None, [inner + "/a.jsonl", str(tmp_path / "top" / "q" / "b.jsonl")],
                         [("a", None, 0), ("b", None, 1)], [])


def test_nested_compares_whole_names(tmp_path: Path) -> None:
    for name in ("a", "a-b", "ab", "b"):
        (tmp_path / name).mkdir()
    (tmp_path / "a" / "in").mkdir()
    assert not wavemetrics.inputs._walk._nested([str(tmp_path / "a"), str(tmp_path / "a-b"),
                                          str(tmp_path / "ab")])
    assert wavemetrics.inputs._walk._nested([str(tmp_path / "a-b"), str(tmp_path / "a"),
                                      str(tmp_path / "a" / "in")])
    assert wavemetrics.inputs._walk._nested([str(tmp_path / "a" / "in"), str(tmp_path / "b"),
                                      str(tmp_path / "a")])
    assert wavemetrics.inputs._walk._nested([str(tmp_path / "b"), str(tmp_path / "b") + "/."])


def test_names_that_are_not_utf8_are_left_to_the_python_walks(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path / "top")
    os.mkdir(folder)
    with open(os.path.join(folder, b"\xff.jsonl"), "wb") as out:
        out.write(b"{}\n")
    native = _extension.extension()
    assert native.walk_folders([(str(tmp_path / "top"),) * 2], list(TRACE_SUFFIXES),
                               list(SKIPPED_SUFFIXES), list(SESSION_SUFFIXES), True, 1) is None
    assert walk([str(tmp_path / "top")], key=True) is None
    # a path given that is not UTF-8 is not passed to the extension at all
    assert walk([os.fsdecode(os.path.join(folder, b"\xfe"))], key=True) is None
    # the run key then comes from runcache._inputs, as it did before the native walk
    options = runcache.options_from_args(["--format", "json", str(tmp_path / "top")])
    assert options is not None
    parts = runcache.fingerprint(options, [str(tmp_path / "top")])
    assert parts is not None and isinstance(parts[1], list)


def test_a_folder_named_through_dot_dot_is_left_to_the_python_walks(tmp_path: Path) -> None:
    # the readers list "link/.." through the link (its target's parent), the key walk
    # the lexical abspath (tmp_path): the native walk does not guess which
    build_tree(tmp_path / "top", {"p": {"a.jsonl": "file"}, "b.jsonl": "file"})
    os.symlink(tmp_path / "top" / "p", tmp_path / "link")
    assert walk([str(tmp_path / "link" / "..")], key=True) is None
    assert walk([str(tmp_path / "top" / "p" / "..")], key=False) is None
    with _cwd(str(tmp_path)):
        assert fastpath._files_of(["link/.."]) == python_files_of(["link/.."])


def test_the_readers_names_of_walked_files(tmp_path: Path) -> None:
    # fallback session id, stem (only with "subagents" in the path), project folder number
    build_tree(tmp_path / "top", {
        "p": {"s.jsonl": "file", "s": {"subagents": {"agent-1.jsonl": "file",
                                                      "agent-2.jsonl.gz": "file"}}},
        "q": {"x.y.json": "file"}, "subagents": {"z.jsonl": "file"}})
    top = str(tmp_path / "top")
    walked = walk([top], key=False)
    assert walked is not None
    assert walked.files == [f"{top}/p/s.jsonl", f"{top}/p/s/subagents/agent-1.jsonl",
                            f"{top}/p/s/subagents/agent-2.jsonl.gz", f"{top}/q/x.y.json",
                            f"{top}/subagents/z.jsonl"]
    # top/subagents/z.jsonl: its session is the top folder's name, its project the
    # top's parent folder
    assert walked.names == [("s", None, 0), ("s", "agent-1", 0), ("s", "agent-2", 0),
                            ("x.y", None, 1), ("top", "z", 2)]
    assert fastpath._args_of(walked.files) == [
        (path, *names) for path, names in zip(walked.files, walked.names, strict=True)]


def test_inputs_that_are_not_folders_are_left_to_the_python_walks(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(b"{}\n")
    (tmp_path / "p").mkdir()
    assert walk([str(tmp_path / "a.jsonl")], key=True) is None
    assert walk([str(tmp_path / "p"), str(tmp_path / "a.jsonl")], key=True) is None
    assert walk(["-"], key=True) is None
    assert walk([str(tmp_path / "missing")], key=True) is None
    assert walk([], key=True) is None
    with mock.patch.object(_extension, "_native", None):
        assert walk([str(tmp_path / "p")], key=True) is None


def test_the_run_key_is_the_same_from_either_walk(tmp_path: Path) -> None:
    build_tree(tmp_path / "top", {"s1.jsonl": "file", "s1": {"subagents": {
        "agent-1.jsonl": "file", "agent-1.meta.json": "file"}}, "é": {"a.json": "file"}})
    path = str(tmp_path / "top")
    options = runcache.options_from_args(["--format", "json", path])
    assert options is not None
    native_parts = runcache.fingerprint(options, [path])
    assert native_parts is not None and isinstance(native_parts[1], bytes)
    with mock.patch.object(wavemetrics.inputs._walk, "walk", lambda paths, key, jobs=1: None):
        python_parts = runcache.fingerprint(options, [path])
        python_key_pair = runcache.run_key(options, [path])
    assert python_parts is not None and isinstance(python_parts[1], list)
    assert runcache.run_key(options, [path]) == python_key_pair
    assert runcache._run_key(native_parts) == runcache._run_key(python_parts)
    assert walked_keys(native_parts[1]) == walked_keys(python_parts[1])
    assert len(walked_keys(native_parts[1])) == 3


def test_a_folder_that_vanished_is_uncacheable_and_left_to_the_python_walk(
        tmp_path: Path) -> None:
    # a folder gone between the caller's os.path.isdir and the listing (the tests run as
    # root, who can list any folder there is): runcache._inputs raises _Uncacheable for
    # it and the readers' walk gives it a reason
    native = _extension.extension()
    gone = str(tmp_path / "gone")
    found = native.walk_folders([(gone, gone)], list(TRACE_SUFFIXES), list(SKIPPED_SUFFIXES),
                                list(SESSION_SUFFIXES), True, 2)
    assert found == (None, None, None, [])
    build_tree(tmp_path / "top", {"a.jsonl": "file"})
    top = str(tmp_path / "top")
    found = native.walk_folders([(top, top), (gone, gone)], list(TRACE_SUFFIXES),
                                list(SKIPPED_SUFFIXES), list(SESSION_SUFFIXES), False, 2)
    assert found == (None, None, None, [])


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus absent: {CORPUS}")
def test_the_corpus_folder_gives_the_python_walks_bytes_and_files() -> None:
    paths = [str(CORPUS)]
    walked = walk(paths, key=True)
    assert walked is not None
    assert walked.key is not None and walked.key == python_key(paths)
    expected = python_walk(paths)
    assert walked.files == (None if expected is None else expected[0])
    assert fastpath._files_of(paths) == python_files_of(paths)


def test_the_keyed_walk_is_found_by_its_key_object(tmp_path: Path) -> None:
    """``keyed_walk`` gives the last walk that made a key for exactly those paths, and only
    for that key object: an equal copy of the bytes, other paths or a later keyed walk
    do not find it."""
    from wavemetrics.inputs._walk import keyed_walk

    build_tree(tmp_path / "top", {"a.jsonl": "file", "b.jsonl": "file"})
    path = str(tmp_path / "top")
    walked = walk([path], key=True)
    assert walked is not None and walked.key is not None
    assert keyed_walk([path], walked.key) is walked
    assert keyed_walk([path], bytes(bytearray(walked.key))) is None  # equal, not the same
    assert keyed_walk([path, path], walked.key) is None
    unkeyed = walk([path], key=False)
    assert unkeyed is not None and unkeyed.key is None
    assert keyed_walk([path], walked.key) is walked  # a walk without a key keeps it
    later = walk([path], key=True)
    assert later is not None and later.key is not None
    assert keyed_walk([path], walked.key) is None
    assert keyed_walk([path], later.key) is later
    assert later == walked and later is not walked
