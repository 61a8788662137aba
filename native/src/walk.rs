//! The folder walk of a `summarize` run over folders, made once: the run key's
//! fingerprint of the inputs and the readers' file list from the same listing.
//!
//! Before this module a cold `summarize` of a projects folder walked it three
//! times in Python: the run key's walk (`runcache._inputs`), the readers' walk
//! (`_files.expand_entries`) and the run key's walk again after the read (the
//! check that nothing changed). Here one listing gives both, the same bytes
//! and the same files, and the check after the read is a second native walk.
//!
//! The two Python walks stay the reference (`tests/test_walk.py` compares them
//! with this module on generated trees):
//!
//! - [`Walk::key`] is `json.dumps(runcache._inputs(tops), ensure_ascii=False,
//!   separators=(",", ":"))` as UTF-8 bytes, or `None` where `_inputs` raises
//!   `_Uncacheable` (a folder that cannot be listed, a trace name whose stat
//!   fails or that is no regular file once links are followed).
//! - [`Walk::files`] is the file list `fastpath._files_of` takes from
//!   `_files.expand_entries` (every trace file found, in walk order), or `None`
//!   where that function gives a reason to leave the run to the CLI, or where
//!   this walk cannot tell (any trace name that the listing does not show as a
//!   plain regular file, a folder that cannot be listed, a top folder with no
//!   trace file). [`Walk::sidecars`] are the `*.meta.json` files it passes over.
//!
//! Names that are not UTF-8 are left to Python ([`walk`] gives `None`): Python
//! sorts them as surrogate escapes, which is not their byte order.

use crate::pyjson::{write_int, write_unicode_string};
use std::fs::{self, DirEntry, FileType};
use std::os::unix::fs::MetadataExt;

/// The suffix rules of `wavemetrics/inputs/_suffixes.py`, given by the caller.
pub struct Suffixes<'a> {
    /// `TRACE_SUFFIXES`: the files a folder walk reads.
    pub trace: &'a [String],
    /// `SKIPPED_SUFFIXES`: trace-suffixed names skipped (the sidecars).
    pub skipped: &'a [String],
    /// `SESSION_SUFFIXES`: a session's own file beside its `<session>/` folder.
    pub session: &'a [String],
}

impl Suffixes<'_> {
    fn skipped(&self, name: &str) -> bool {
        self.skipped.iter().any(|s| name.ends_with(s.as_str()))
    }

    /// `_files._is_trace_name`.
    fn is_trace(&self, name: &str) -> bool {
        self.trace.iter().any(|s| name.ends_with(s.as_str())) && !self.skipped(name)
    }
}

/// A folder given as input: as the user spelled it (the readers' paths start
/// with it) and `os.path.abspath` of it (the run key's paths do).
pub struct Top<'a> {
    pub spelled: &'a str,
    pub absolute: &'a str,
}

/// What one walk of the tops found.
#[derive(Debug, PartialEq, Eq)]
pub struct Walk {
    /// The run key's inputs part as JSON text; `None`: the run is never cached.
    /// Not computed (`None`) when [`walk`] was not asked for it.
    pub key: Option<Vec<u8>>,
    /// The readers' files in walk order, spelled from the tops; `None` when the
    /// Python walk must decide.
    pub files: Option<Vec<String>>,
    /// What the native command passes to the readers for each of [`Walk::files`]
    /// (`fastpath.summarize_json`'s arguments), in the same order.
    pub names: Option<Vec<Names>>,
    /// The sidecars passed over (walk order; the caller sorts them).
    pub sidecars: Vec<String>,
}

/// The names a reader derives from a walked file's path, as `wavemetrics/inputs/_files.py`
/// derives them (`tests/test_walk.py` compares the two).
#[derive(Debug, PartialEq, Eq)]
pub struct Names {
    /// `fallback_session_id(path)`: the `<session>` of `<session>/subagents/<file>`,
    /// else the file's stem.
    pub fallback_session_id: String,
    /// `file_stem(path)` when `"subagents"` is in the path, else `None`.
    pub stem: Option<String>,
    /// The number of `project_folder(path)`, in order of first appearance.
    pub group: usize,
}

/// `_files.file_stem` of a walked file's own name (never `.`, `..` or empty, so
/// `PurePath(path).name` is the name): without `.gz`, then without its last
/// suffix unless the name starts or ends with that dot.
fn stem(name: &str) -> &str {
    let name = name.strip_suffix(".gz").unwrap_or(name);
    match name.rfind('.') {
        Some(dot) if dot > 0 && dot + 1 < name.len() => &name[..dot],
        _ => name,
    }
}

/// `(PurePath(path).parent.name, PurePath(path).parent.parent.name)` of a path
/// whose last part is a file name: `PurePath` drops empty and `.` parts.
fn parents(path: &str) -> (&str, &str) {
    let mut parts = path
        .rsplit('/')
        .filter(|part| !part.is_empty() && *part != ".");
    parts.next(); // the file's own name
    (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
}

/// `_files.project_folder` of a walked file's absolute, normal path: its folder,
/// or for `<project>/<session>/subagents/<file>` the `<project>` folder.
fn project_folder(absolute: &str) -> &str {
    let parent = dirname(absolute);
    if basename(parent) == "subagents" {
        dirname(dirname(parent))
    } else {
        parent
    }
}

/// [`Names`] of every walked file: `(spelled, absolute)` paths in walk order.
fn names_of(files: &[(String, String)]) -> Vec<Names> {
    let mut groups: hashbrown::HashMap<&str, usize> = hashbrown::HashMap::new();
    files
        .iter()
        .map(|(spelled, absolute)| {
            let own = stem(basename(spelled));
            let subagents = spelled.contains("subagents");
            let (parent, grandparent) = parents(spelled);
            let fallback = if subagents && parent == "subagents" && !grandparent.is_empty() {
                grandparent
            } else {
                own
            };
            let count = groups.len();
            Names {
                fallback_session_id: fallback.to_owned(),
                stem: subagents.then(|| own.to_owned()),
                group: *groups.entry(project_folder(absolute)).or_insert(count),
            }
        })
        .collect()
}

/// `os.path.join(a, b)` for a non-empty, slash-free `b`.
fn join(a: &str, b: &str) -> String {
    if a.is_empty() || a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `os.path.basename`.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `os.path.dirname`.
fn dirname(path: &str) -> &str {
    let head = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let stripped = head.trim_end_matches('/');
    if stripped.is_empty() {
        head
    } else {
        stripped
    }
}

/// `DirEntry.is_dir()` (links followed; an error is `False`).
fn is_dir(entry: &DirEntry, kind: FileType) -> bool {
    kind.is_dir() || (kind.is_symlink() && fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()))
}

/// `[path,size,mtime_ns,ctime_ns,inode,device]` of a regular file
/// (`runcache._stat_key`), or `None` (the run is never cached).
fn stat_key(out: &mut Vec<u8>, path: &str, plain: bool, entry: &DirEntry) -> Option<()> {
    // a plain file's entry needs no link followed: its own metadata is the stat
    let info = if plain {
        entry.metadata()
    } else {
        fs::metadata(entry.path())
    }
    .ok()?;
    if !info.is_file() {
        return None;
    }
    out.push(b'[');
    write_unicode_string(out, path);
    for value in [
        i128::from(info.size()),
        i128::from(info.mtime()) * 1_000_000_000 + i128::from(info.mtime_nsec()),
        i128::from(info.ctime()) * 1_000_000_000 + i128::from(info.ctime_nsec()),
        i128::from(info.ino()),
        i128::from(info.dev()),
    ] {
        out.push(b',');
        write_int(out, value);
    }
    out.extend_from_slice(b"],");
    Some(())
}

fn write_names(out: &mut Vec<u8>, names: &[String]) {
    out.push(b'[');
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_unicode_string(out, name);
    }
    out.push(b']');
}

/// One folder's listing, sorted by name (code point order: UTF-8 byte order);
/// `Err(())` for a name that is not UTF-8, `Ok(None)` when it cannot be listed.
#[allow(clippy::type_complexity)]
fn listing(root: &str) -> Result<Option<Vec<(String, DirEntry, FileType)>>, ()> {
    let Ok(read) = fs::read_dir(root) else {
        return Ok(None);
    };
    let mut entries = Vec::new();
    for entry in read {
        let Ok(entry) = entry else {
            return Ok(None);
        };
        let Ok(kind) = entry.file_type() else {
            return Ok(None);
        };
        let name = entry.file_name().into_string().map_err(|_| ())?;
        entries.push((name, entry, kind));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(Some(entries))
}

/// What the walk of one folder and everything below it found; the parts of a
/// walk are merged in walk order ([`Part::append`]).
struct Part {
    /// The run key's JSON entries, each followed by a comma; `None` once the run is
    /// known to be uncacheable (or the key is not wanted).
    key: Option<Vec<u8>>,
    /// The readers' files, spelled and absolute; `None` once the Python walk must decide.
    files: Option<Vec<(String, String)>>,
    sidecars: Vec<String>,
    /// `<session>` of every `<session>/subagents/` folder that keyed a trace file.
    sessions: Vec<String>,
    /// Trace names seen (a top with none is "no trace files in this directory").
    found: usize,
}

impl Part {
    fn new(key: bool) -> Part {
        Part {
            key: key.then(Vec::new),
            files: Some(Vec::new()),
            sidecars: Vec::new(),
            sessions: Vec::new(),
            found: 0,
        }
    }

    /// The walk failed here: uncacheable, and the files are Python's to find.
    fn failed(&mut self) {
        self.key = None;
        self.files = None;
    }

    fn append(&mut self, later: Part) {
        match (self.key.as_mut(), later.key) {
            (Some(key), Some(more)) => key.extend_from_slice(&more),
            _ => self.key = None,
        }
        match (self.files.as_mut(), later.files) {
            (Some(files), Some(more)) => files.extend(more),
            _ => self.files = None,
        }
        self.sidecars.extend(later.sidecars);
        self.sessions.extend(later.sessions);
        self.found += later.found;
    }
}

/// Walks one folder's listing into `part` (the body of `runcache._folder`'s and
/// `_files._walk_files`' loops): its sub-folders' names, `Ok(None)` when it cannot
/// be listed (`part` has failed), `Err(())` for a name that is not UTF-8.
fn folder(
    suffixes: &Suffixes,
    spelled: &str,
    root: &str,
    part: &mut Part,
) -> Result<Option<Vec<String>>, ()> {
    let Some(entries) = listing(root)? else {
        part.failed();
        return Ok(None);
    };
    let mut names = Vec::new();
    let mut subfolders = Vec::new();
    let mut keyed = false;
    for (name, entry, kind) in &entries {
        if !is_dir(entry, *kind) {
            names.push(name.clone());
            let plain = kind.is_file();
            if suffixes.is_trace(name) {
                part.found += 1;
                if let Some(out) = part.key.as_mut() {
                    if stat_key(out, &join(root, name), plain, entry).is_none() {
                        part.key = None;
                    }
                    keyed = true;
                }
                match part.files.as_mut() {
                    Some(files) if plain => files.push((join(spelled, name), join(root, name))),
                    _ => part.files = None,
                }
            } else if suffixes.skipped(name) {
                part.sidecars.push(join(spelled, name));
            }
        } else if kind.is_symlink() {
            names.push(format!("{name}/")); // not walked; its presence is keyed
        } else {
            subfolders.push(name.clone());
        }
    }
    if let Some(out) = part.key.as_mut() {
        if keyed && basename(root) == "subagents" {
            part.sessions.push(dirname(root).to_owned());
        }
        out.push(b'[');
        write_unicode_string(out, root);
        out.push(b',');
        write_names(out, &names);
        out.push(b',');
        write_names(out, &subfolders);
        out.extend_from_slice(b"],");
    }
    Ok(Some(subfolders))
}

/// The folder `root` and everything below it, depth first, sub-folders in name
/// order (the stack of `runcache._folder` and `_files._walk_files`).
fn subtree(suffixes: &Suffixes, spelled: &str, root: &str, key: bool) -> Result<Part, ()> {
    let mut part = Part::new(key);
    let mut stack = vec![(spelled.to_owned(), root.to_owned())];
    while let Some((spelled, root)) = stack.pop() {
        let Some(subfolders) = folder(suffixes, &spelled, &root, &mut part)? else {
            return Ok(part);
        };
        stack.extend(
            subfolders
                .iter()
                .rev()
                .map(|name| (join(&spelled, name), join(&root, name))),
        );
    }
    Ok(part)
}

/// One top: its own listing, then each sub-folder's subtree on up to `jobs`
/// threads, appended in name order (the same order as one depth-first walk).
fn top(suffixes: &Suffixes, top: &Top, key: bool, jobs: usize) -> Result<Part, ()> {
    let mut part = Part::new(key);
    let Some(subfolders) = folder(suffixes, top.spelled, top.absolute, &mut part)? else {
        return Ok(part);
    };
    let below = crate::parallel::map_indexed(subfolders.len(), jobs, |i| {
        let name = &subfolders[i];
        subtree(
            suffixes,
            &join(top.spelled, name),
            &join(top.absolute, name),
            key,
        )
    });
    for later in below {
        part.append(later?);
    }
    if part.found == 0 {
        part.files = None; // "no trace files in this directory": the CLI says so
    }
    Ok(part)
}

/// Walks the folders `tops` (each one a folder, links followed: the caller
/// checks `os.path.isdir`) as `runcache._inputs` and `_files.expand_entries`
/// do, on up to `jobs` threads (the result never depends on it); `key`: whether
/// the run key's fingerprint is wanted (each trace file is then stat'ed).
/// `None` when a name is not UTF-8: the Python walks decide.
pub fn walk(tops: &[Top], suffixes: &Suffixes, key: bool, jobs: usize) -> Option<Walk> {
    let mut all = Part::new(key);
    for one in tops {
        all.append(top(suffixes, one, key, jobs).ok()?);
    }
    let mut sessions: Vec<String> = all.sessions;
    sessions.sort_unstable();
    sessions.dedup();
    let key = all.key.map(|mut out| {
        for session in &sessions {
            out.push(b'[');
            write_unicode_string(&mut out, session);
            out.extend_from_slice(b",[");
            for (i, suffix) in suffixes.session.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let file = format!("{session}{suffix}");
                let is_file = fs::metadata(file).is_ok_and(|m| m.is_file());
                out.extend_from_slice(if is_file { b"true" } else { b"false" });
            }
            out.extend_from_slice(b"]],");
        }
        out.pop(); // the last entry's comma (or nothing: no entry at all)
        let mut text = Vec::with_capacity(out.len() + 2);
        text.push(b'[');
        text.extend_from_slice(&out);
        text.push(b']');
        text
    });
    let names = all.files.as_deref().map(names_of);
    Some(Walk {
        key,
        files: all
            .files
            .map(|files| files.into_iter().map(|(spelled, _)| spelled).collect()),
        names,
        sidecars: all.sidecars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::time::{Duration, UNIX_EPOCH};

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    struct Rules {
        trace: Vec<String>,
        skipped: Vec<String>,
        session: Vec<String>,
    }

    /// The suffixes of `wavemetrics/inputs/_suffixes.py`.
    fn rules() -> Rules {
        Rules {
            trace: strings(&[".jsonl", ".json", ".jsonl.gz", ".json.gz", ".eval", ".traj"]),
            skipped: strings(&[".meta.json"]),
            session: strings(&[".jsonl", ".jsonl.gz"]),
        }
    }

    fn walk_of(tops: &[(&str, &str)], key: bool) -> Option<Walk> {
        let one = walk_on(tops, key, 1);
        // the walk on threads gives the same bytes and files
        assert_eq!(walk_on(tops, key, 3), one);
        one
    }

    fn walk_on(tops: &[(&str, &str)], key: bool, jobs: usize) -> Option<Walk> {
        let rules = rules();
        let suffixes = Suffixes {
            trace: &rules.trace,
            skipped: &rules.skipped,
            session: &rules.session,
        };
        let tops: Vec<Top> = tops
            .iter()
            .map(|(spelled, absolute)| Top { spelled, absolute })
            .collect();
        walk(&tops, &suffixes, key, jobs)
    }

    /// A file of `size` bytes whose mtime is 1,700,000,000.123456789 s.
    fn file(path: &Path, size: usize) {
        fs::write(path, vec![b'x'; size]).unwrap();
        let when = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    /// What the key writes for the file at `path` (`file` made it: its size and mtime
    /// are known; its ctime, inode and device are the file system's).
    fn stat_of(path: &str, size: u64) -> String {
        let info = fs::metadata(path).unwrap();
        let ctime = i128::from(info.ctime()) * 1_000_000_000 + i128::from(info.ctime_nsec());
        format!(
            "[\"{path}\",{size},1700000000123456789,{ctime},{},{}]",
            info.ino(),
            info.dev()
        )
    }

    fn text(walk: &Walk) -> String {
        String::from_utf8(walk.key.clone().unwrap()).unwrap()
    }

    #[test]
    fn os_path_helpers() {
        assert_eq!(join("", "b"), "b");
        assert_eq!(join("a/", "b"), "a/b");
        assert_eq!(join("a", "b"), "a/b");
        assert_eq!(join("/", "b"), "/b");
        assert_eq!(basename("/x/y"), "y");
        assert_eq!(basename("y"), "y");
        assert_eq!(basename("/x/"), "");
        assert_eq!(dirname("/x/y"), "/x");
        assert_eq!(dirname("/x"), "/");
        assert_eq!(dirname("x"), "");
        assert_eq!(dirname("//x"), "//");
        assert_eq!(dirname("a//b"), "a");
        assert_eq!(dirname("a/b/c"), "a/b");
    }

    #[test]
    fn file_stems_as_file_stem_makes_them() {
        assert_eq!(stem("a.jsonl"), "a");
        assert_eq!(stem("a.b.jsonl"), "a.b");
        assert_eq!(stem("a.jsonl.gz"), "a");
        assert_eq!(stem("a.gz"), "a");
        assert_eq!(stem(".hidden"), ".hidden"); // a leading dot is no suffix
        assert_eq!(stem("a."), "a."); // nor a trailing one
        assert_eq!(stem("noext"), "noext");
        assert_eq!(stem("\u{e9}t\u{e9}.json"), "\u{e9}t\u{e9}");
        assert_eq!(stem(".gz"), ""); // a name that is only ".gz" has no stem left
    }

    #[test]
    fn parents_as_purepath_reads_them() {
        assert_eq!(parents("p/s/subagents/a.jsonl"), ("subagents", "s"));
        assert_eq!(parents("./s//subagents/./a.jsonl"), ("subagents", "s"));
        assert_eq!(parents("subagents/a.jsonl"), ("subagents", ""));
        assert_eq!(parents("/subagents/a.jsonl"), ("subagents", ""));
        assert_eq!(parents("a.jsonl"), ("", ""));
        assert_eq!(parents("x/../subagents/a.jsonl"), ("subagents", ".."));
    }

    #[test]
    fn project_folders_of_absolute_paths() {
        assert_eq!(project_folder("/p/s/subagents/a.jsonl"), "/p");
        assert_eq!(project_folder("/p/s.jsonl"), "/p");
        assert_eq!(project_folder("/s/subagents/a.jsonl"), "/");
        assert_eq!(project_folder("/subagents/a.jsonl"), "/");
        assert_eq!(project_folder("/p/subagentsx/a.jsonl"), "/p/subagentsx");
    }

    #[test]
    fn names_number_project_folders_by_first_appearance() {
        let files: Vec<(String, String)> = [
            ("t/q/b.jsonl", "/t/q/b.jsonl"),
            (
                "t/p/s/subagents/agent-1.jsonl",
                "/t/p/s/subagents/agent-1.jsonl",
            ),
            ("t/p/s.jsonl", "/t/p/s.jsonl"),
            ("t/q/subagents/c.jsonl", "/t/q/subagents/c.jsonl"),
            ("t/subagents-old/d.json.gz", "/t/subagents-old/d.json.gz"),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
        let names = |fallback: &str, stem: Option<&str>, group| Names {
            fallback_session_id: fallback.to_owned(),
            stem: stem.map(str::to_owned),
            group,
        };
        assert_eq!(
            names_of(&files),
            vec![
                names("b", None, 0),
                names("s", Some("agent-1"), 1),
                names("s", None, 1),
                // /t/q/subagents/c.jsonl: its project folder is /t (not /t/q)
                names("q", Some("c"), 2),
                // "subagents" in the path, but no subagents folder: the stem
                names("d", Some("d"), 3),
            ]
        );
    }

    #[test]
    fn suffix_rules() {
        let rules = rules();
        let suffixes = Suffixes {
            trace: &rules.trace,
            skipped: &rules.skipped,
            session: &rules.session,
        };
        assert!(suffixes.is_trace("a.jsonl"));
        assert!(suffixes.is_trace("a.traj"));
        assert!(suffixes.is_trace("a.json"));
        assert!(!suffixes.is_trace("a.meta.json")); // a trace suffix, but skipped
        assert!(!suffixes.is_trace("a.txt"));
        assert!(suffixes.skipped("a.meta.json"));
        assert!(!suffixes.skipped("a.json"));
    }

    #[test]
    fn a_tree_gives_the_run_keys_bytes_and_the_readers_files() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("top");
        fs::create_dir_all(top.join("s1/subagents")).unwrap();
        file(&top.join("a.jsonl"), 3);
        file(&top.join("b.txt"), 1);
        file(&top.join("c.meta.json"), 1);
        file(&top.join("q\"t\u{e9}.json"), 5);
        file(&top.join("s1.jsonl"), 7);
        file(&top.join("s1/subagents/agent-1.jsonl"), 2);
        file(&top.join("s1/subagents/agent-1.meta.json"), 2);
        std::os::unix::fs::symlink("s1", top.join("dirlink")).unwrap();
        let top = top.to_str().unwrap();
        let walked = walk_of(&[("top", top)], true).unwrap();
        let expected = format!(
            "[{},{},{},[\"{top}\",[\"a.jsonl\",\"b.txt\",\"c.meta.json\",\"dirlink/\",\
             \"q\\\"t\u{e9}.json\",\"s1.jsonl\"],[\"s1\"]],[\"{top}/s1\",[],[\"subagents\"]],\
             {},[\"{top}/s1/subagents\",[\"agent-1.jsonl\",\"agent-1.meta.json\"],[]],\
             [\"{top}/s1\",[true,false]]]",
            stat_of(&format!("{top}/a.jsonl"), 3),
            stat_of(&format!("{top}/q\"t\u{e9}.json"), 5).replace("q\"t", "q\\\"t"),
            stat_of(&format!("{top}/s1.jsonl"), 7),
            stat_of(&format!("{top}/s1/subagents/agent-1.jsonl"), 2),
        );
        assert_eq!(text(&walked), expected);
        assert_eq!(
            walked.files,
            Some(strings(&[
                "top/a.jsonl",
                "top/q\"t\u{e9}.json",
                "top/s1.jsonl",
                "top/s1/subagents/agent-1.jsonl"
            ]))
        );
        assert_eq!(
            walked.sidecars,
            strings(&["top/c.meta.json", "top/s1/subagents/agent-1.meta.json"])
        );
        let names = walked.names.as_ref().unwrap();
        assert_eq!(names.len(), 4);
        assert_eq!(
            (
                names[3].fallback_session_id.as_str(),
                names[3].stem.as_deref()
            ),
            ("s1", Some("agent-1"))
        );
        assert_eq!(
            names.iter().map(|n| n.group).collect::<Vec<_>>(),
            [0, 0, 0, 0]
        );
        let unkeyed = walk_of(&[("top", top)], false).unwrap();
        assert_eq!(unkeyed.key, None);
        assert_eq!(unkeyed.files, walked.files);
        assert_eq!(unkeyed.sidecars, walked.sidecars);
    }

    #[test]
    fn names_sort_by_code_point_and_spelled_tops_keep_their_slash() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir(top.join("p")).unwrap();
        for name in ["\u{e9}.jsonl", "a.jsonl", "Z.jsonl", "p/x.jsonl"] {
            file(&top.join(name), 1);
        }
        let absolute = top.to_str().unwrap();
        let walked = walk_of(&[("t/", absolute)], false).unwrap();
        assert_eq!(
            walked.files,
            Some(strings(&[
                "t/Z.jsonl",
                "t/a.jsonl",
                "t/\u{e9}.jsonl",
                "t/p/x.jsonl"
            ]))
        );
    }

    #[test]
    fn a_link_to_a_file_is_keyed_through_the_link_and_leaves_the_files_to_python() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        file(&top.join("a.txt"), 4);
        std::os::unix::fs::symlink("a.txt", top.join("l.jsonl")).unwrap();
        let absolute = top.to_str().unwrap();
        let walked = walk_of(&[(absolute, absolute)], true).unwrap();
        let target = stat_of(&format!("{absolute}/a.txt"), 4);
        let expected = format!(
            "[{},[\"{absolute}\",[\"a.txt\",\"l.jsonl\"],[]]]",
            target.replace("a.txt", "l.jsonl")
        );
        assert_eq!(text(&walked), expected);
        assert_eq!(walked.files, None);
    }

    #[test]
    fn a_broken_link_or_a_fifo_makes_the_run_uncacheable() {
        for (name, make) in [
            ("broken", 0), // a link to nothing
            ("fifo", 1),   // not a regular file once links are followed
        ] {
            let dir = tempfile::tempdir().unwrap();
            let top = dir.path();
            file(&top.join("b.jsonl"), 1);
            let trace = top.join(format!("{name}.jsonl"));
            if make == 0 {
                std::os::unix::fs::symlink("gone", &trace).unwrap();
            } else {
                // coreutils' mkfifo: a FIFO without unsafe code in the tests
                let made = std::process::Command::new("mkfifo").arg(&trace).status();
                assert!(made.unwrap().success());
            }
            let absolute = top.to_str().unwrap();
            let walked = walk_of(&[(absolute, absolute)], true).unwrap();
            assert_eq!(walked.key, None, "{name}");
            assert_eq!(walked.files, None, "{name}");
            let unkeyed = walk_of(&[(absolute, absolute)], false).unwrap();
            assert_eq!(unkeyed.files, None, "{name}");
        }
    }

    #[test]
    fn a_folder_with_no_trace_file_is_keyed_but_left_to_python() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir(top.join("sub")).unwrap();
        file(&top.join("sub/agent-1.meta.json"), 1);
        let absolute = top.to_str().unwrap();
        let walked = walk_of(&[(absolute, absolute)], true).unwrap();
        assert_eq!(
            text(&walked),
            format!(
                "[[\"{absolute}\",[],[\"sub\"]],[\"{absolute}/sub\",[\"agent-1.meta.json\"],[]]]"
            )
        );
        assert_eq!(walked.files, None);
        assert_eq!(
            walked.sidecars,
            vec![format!("{absolute}/sub/agent-1.meta.json")]
        );
    }

    #[test]
    fn a_subagents_folder_names_a_session_only_when_a_trace_file_was_keyed() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir_all(top.join("x/subagents")).unwrap();
        fs::create_dir_all(top.join("y/subagents")).unwrap();
        file(&top.join("x/subagents/notes.txt"), 1);
        file(&top.join("y/subagents/a.jsonl"), 1);
        file(&top.join("y.jsonl.gz"), 1);
        let absolute = top.to_str().unwrap();
        let walked = walk_of(&[(absolute, absolute)], true).unwrap();
        // x/subagents keyed no trace file: only y is a session
        let expected = format!(
            "[{},[\"{absolute}\",[\"y.jsonl.gz\"],[\"x\",\"y\"]],\
             [\"{absolute}/x\",[],[\"subagents\"]],[\"{absolute}/x/subagents\",[\"notes.txt\"],[]],\
             [\"{absolute}/y\",[],[\"subagents\"]],{},[\"{absolute}/y/subagents\",[\"a.jsonl\"],[]],\
             [\"{absolute}/y\",[false,true]]]",
            stat_of(&format!("{absolute}/y.jsonl.gz"), 1),
            stat_of(&format!("{absolute}/y/subagents/a.jsonl"), 1),
        );
        assert_eq!(text(&walked), expected);
    }

    #[test]
    fn several_tops_in_order_with_their_sessions_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("b/s/subagents")).unwrap();
        fs::create_dir_all(root.join("a/s/subagents")).unwrap();
        file(&root.join("b/s/subagents/x.jsonl"), 1);
        file(&root.join("a/s/subagents/y.jsonl"), 1);
        let a = root.join("a");
        let b = root.join("b");
        let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
        let walked = walk_of(&[("b", b), ("a", a)], true).unwrap();
        assert_eq!(
            walked.files,
            Some(strings(&["b/s/subagents/x.jsonl", "a/s/subagents/y.jsonl"]))
        );
        let key = text(&walked);
        let sessions = format!("[\"{a}/s\",[false,false]],[\"{b}/s\",[false,false]]]");
        assert!(key.ends_with(&sessions), "{key}");
        assert!(key.find(b).unwrap() < key.find(&format!("{a}/s/subagents/y")).unwrap());
    }

    #[test]
    fn a_folder_that_cannot_be_listed() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let gone = gone.to_str().unwrap();
        assert!(matches!(listing(gone), Ok(None)));
        let walked = walk_of(&[(gone, gone)], true).unwrap();
        assert_eq!(
            walked,
            Walk {
                key: None,
                files: None,
                names: None,
                sidecars: vec![]
            }
        );
        // the first top's files are not kept once a later one fails
        let top = dir.path().to_str().unwrap();
        file(&dir.path().join("a.jsonl"), 1);
        let walked = walk_of(&[(top, top), (gone, gone)], false).unwrap();
        assert_eq!(walked.files, None);
    }

    #[test]
    fn a_name_that_is_not_utf8_is_left_to_python() {
        let dir = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"\xff.jsonl");
        file(&dir.path().join(name), 1);
        let top = dir.path().to_str().unwrap();
        assert!(listing(top).is_err());
        assert_eq!(walk_of(&[(top, top)], true), None);
        assert_eq!(walk_of(&[(top, top)], false), None);
    }

    #[test]
    fn an_empty_top_and_the_brackets() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().to_str().unwrap();
        let walked = walk_of(&[(top, top)], true).unwrap();
        assert_eq!(text(&walked), format!("[[\"{top}\",[],[]]]"));
        assert_eq!(walked.files, None);
        assert_eq!(walk_of(&[], true).unwrap().key, Some(b"[]".to_vec()));
    }
}
