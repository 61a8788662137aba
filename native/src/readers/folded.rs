//! The folded read: a Claude Code project folder's candidate files detected and
//! read in one pass, each file's first lines parsed once for both (`detect.rs`'s
//! [`Window`] decides from the records the Claude Code parse makes of them); the
//! files found `events` or `codex` are read there too, each a unit of its own, and
//! those found `pi`, a unit per folder.

use super::claude_code::{
    claude_line, claude_recs_from, read_claude_once, read_claude_split, ClaudeFolder, Rec, Tape,
    SPLIT_BUDGET, SPLIT_READS,
};
use super::codex::Codex;
use super::events::Events;
use super::names::session_id_from_file_name;
use super::pi::Pi;
use super::protocol::{Failure, Reader, Unit, UnitOut};
use crate::account::LineAccount;
use crate::detect::{Detected, Sniffers, Window};
use crate::io::{open_input, Input};
use crate::lines::LineReader;
use crate::parallel::ordered_pipeline;
use crate::summary::Settings;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One file of a folded read: its path, and the session id of its lines without
/// one when it is a Claude Code file (`fallback_session_id`) and when it is an
/// `events` file (`file_stem`).
pub struct FoldFile<'a> {
    pub path: &'a Path,
    pub claude_fallback: &'a str,
    pub events_default: &'a str,
}

/// What a folded read gives for one group of files (the candidates of one Claude
/// Code project folder).
#[derive(Debug, Clone, PartialEq)]
pub struct FoldOut {
    /// Each file's format as [`crate::detect::detect`] finds it (`None`: the Python
    /// registry decides: another format, empty, unrecognised or unreadable).
    pub found: Vec<Option<Detected>>,
    /// The unit of the files found `claude-code`, read as one project folder in the
    /// group's order (as [`read_claude_code`] reads them); `None` when no file is, or
    /// when the read failed (the caller then reads the unit another way).
    pub claude: Option<UnitOut>,
    /// Each file read as a unit of its own (found `events` or `codex`: its format is
    /// in `found`), by the file's index, in index order; `None` when its read failed.
    pub alone: Vec<(usize, Option<UnitOut>)>,
    /// Each folder of files found `pi` (a pi unit: the files of one folder, forks
    /// after their parents), its files' indexes in group order, and its unit (`None`
    /// when its read failed), in order of each folder's first file.
    pub folders: Vec<(Vec<usize>, Option<UnitOut>)>,
}

/// A file's detection window, read as Claude Code records: what detection finds,
/// the window's records, and the reader after the window.
struct Sniff {
    found: Option<Detected>,
    tape: Tape,
    rest: LineReader<Input>,
    /// No line was read yet (the window was empty).
    first: bool,
}

/// Read a file's first lines once, both as detection reads them ([`Window`]) and as
/// Claude Code records (kept on a tape until detection has decided). `None` when
/// detection leaves the file to Python: it cannot be opened or read (a gzip stream
/// `open_input` leaves to Python included), or its window reaches the peek's caps (as [`crate::detect::detect`]).
fn sniff(path: &Path, sniffers: &Sniffers) -> Option<Sniff> {
    let mut rest = LineReader::new(open_input(path).ok()?);
    let mut window = Window::new(sniffers);
    let mut tape = Tape::default();
    let mut first = true;
    while window.looking() {
        let Some((raw, has_newline)) = rest.next_line().ok()? else {
            break; // the whole file is in the window
        };
        let line = window.take(raw)?;
        claude_line(raw, first, has_newline, |rec, seen| {
            tape.push(&rec);
            if let Some((kind, has_uuid, qwen)) = seen {
                window.record(kind, has_uuid, qwen.resolve(kind, has_uuid));
                window.line(kind, line);
            }
            Ok(())
        })
        .ok()?;
        first = false;
    }
    Some(Sniff {
        found: window.found(),
        tape,
        rest,
        first,
    })
}

/// A sniffed Claude Code file into the folder as file `file`: the window's records,
/// then the lines after the window (the same records as [`claude_recs`] gives).
fn apply_sniffed(
    folder: &mut ClaudeFolder<'_>,
    sniff: Sniff,
    file: usize,
    fallback: &str,
) -> Result<LineAccount, Failure> {
    let Sniff {
        tape,
        mut rest,
        first,
        ..
    } = sniff;
    let mut account = LineAccount::default();
    let mut each = |rec: Rec<'_>| folder.apply(rec, file, fallback, &mut account);
    tape.replay(&mut each)?;
    claude_recs_from(&mut rest, first, &mut each)?;
    Ok(account)
}

/// A sniffed Claude Code file's records on one tape (the window's, then the rest).
fn tape_sniffed(sniff: Sniff) -> Result<Tape, Failure> {
    let Sniff {
        mut tape,
        mut rest,
        first,
        ..
    } = sniff;
    claude_recs_from(&mut rest, first, |rec| {
        tape.push(&rec);
        Ok(())
    })?;
    Ok(tape)
}

/// The Claude Code part of a folded read while it goes: the folder, the accounts of
/// the files applied, and the first failure (after which files are only detected).
struct FoldedFolder<'s> {
    folder: ClaudeFolder<'s>,
    accounts: Vec<LineAccount>,
    /// The group's index of each file found `claude-code`.
    files: Vec<usize>,
    failure: Option<Failure>,
}

impl<'s> FoldedFolder<'s> {
    fn new(settings: &'s Settings) -> Self {
        FoldedFolder {
            folder: ClaudeFolder::new(settings),
            accounts: Vec::new(),
            files: Vec::new(),
            failure: None,
        }
    }

    /// Group file `index`, found `claude-code`, read by `read` into the folder as
    /// its next file, unless an earlier file failed.
    fn add<F>(&mut self, index: usize, read: F)
    where
        F: FnOnce(&mut ClaudeFolder<'s>, usize) -> Result<LineAccount, Failure>,
    {
        let file = self.files.len();
        self.files.push(index);
        if self.failure.is_none() {
            match read(&mut self.folder, file) {
                Ok(account) => self.accounts.push(account),
                Err(failure) => self.failure = Some(failure),
            }
        }
    }

    /// The unit, as [`with_fallback`] gives it: read again in batch mode when its
    /// calls came out of order, `None` when it failed or has no file.
    fn finish(self, group: &[FoldFile], settings: &Settings, threads: usize) -> Option<UnitOut> {
        if self.files.is_empty() {
            return None;
        }
        let failure = match self.failure {
            None => match self.folder.finish(self.accounts) {
                Ok(out) => return Some(out),
                Err(failure) => failure,
            },
            Some(failure) => failure,
        };
        if let Failure::Read(_) = failure {
            return None;
        }
        let paths: Vec<&Path> = self.files.iter().map(|&i| group[i].path).collect();
        let fallbacks: Vec<String> = self
            .files
            .iter()
            .map(|&i| group[i].claude_fallback.to_string())
            .collect();
        let batch = Settings {
            stream: false,
            ..settings.clone()
        };
        let again = if threads < 2 || paths.len() < 2 {
            read_claude_once(&paths, &fallbacks, &batch)
        } else {
            read_claude_split(&paths, &fallbacks, &batch, threads, SPLIT_BUDGET)
        };
        let mut out = again.ok()?;
        out.read_again_in_batch = true;
        Some(out)
    }
}

/// How many groups were read by [`read_folded`] in this process (for tests).
pub static FOLDED_READS: AtomicUsize = AtomicUsize::new(0);

/// Detect and read one group of files (the regular, uncompressed candidates of one
/// Claude Code project folder, in path order), the first lines of each file parsed
/// once (the file is still opened by `open_input`'s gzip check, then read): the window of each file is parsed as Claude Code records and
/// detection decides from the same parse ([`Window`], the rule of
/// [`crate::detect::detect`]); the files found `claude-code` are read as one folder
/// unit in the group's order, each `events` file or Codex rollout as a unit of its own
/// and the `pi` files of each folder as one unit (opened again), and the others are
/// left to the caller. With `threads` > 1 and several files, the
/// files are parsed on worker threads and merged in order (the split read): the
/// same output for any number of threads.
pub fn read_folded(
    group: &[FoldFile],
    sniffers: &Sniffers,
    settings: &Settings,
    threads: usize,
) -> FoldOut {
    FOLDED_READS.fetch_add(1, Ordering::Relaxed);
    fold_group(group, sniffers, settings, threads, SPLIT_BUDGET)
}

/// [`read_folded`] with the split read's `budget` (bytes of files parsed ahead).
fn fold_group(
    group: &[FoldFile],
    sniffers: &Sniffers,
    settings: &Settings,
    threads: usize,
    budget: u64,
) -> FoldOut {
    let mut found = Vec::with_capacity(group.len());
    let mut alone = Vec::new();
    let mut folder = FoldedFolder::new(settings);
    // a file found `events` or `codex`, read as a unit of its own: a rollout from
    // its detection's reader when that still holds the file's start, else opened again
    let read_alone = |file: &FoldFile, format: Detected, sniffed: Sniff| {
        let (reader, session_id): (&dyn Reader, String) = match format {
            Detected::Codex => {
                let session_id = session_id_from_file_name(file.path);
                if let Some(lines) = sniffed.rest.rewound() {
                    return Codex::read_lines(lines, &session_id, settings).ok();
                }
                (&Codex, session_id)
            }
            _ => {
                drop(sniffed); // closed before the file is opened again
                (&Events, file.events_default.to_string())
            }
        };
        let unit = Unit {
            paths: &[file.path],
            session_ids: &[session_id],
        };
        reader.read(&unit, settings, 1).ok()
    };
    // one file detected and read on this thread, its lines applied as they are read
    let direct = |index: usize,
                  found: &mut Vec<Option<Detected>>,
                  alone: &mut Vec<(usize, Option<UnitOut>)>,
                  folder: &mut FoldedFolder| {
        let file = &group[index];
        let sniffed = sniff(file.path, sniffers);
        let detected = sniffed.as_ref().and_then(|s| s.found);
        found.push(detected);
        match (detected, sniffed) {
            (Some(Detected::ClaudeCode), Some(sniffed)) => folder.add(index, |f, n| {
                apply_sniffed(f, sniffed, n, file.claude_fallback)
            }),
            (Some(format @ (Detected::Events | Detected::Codex)), Some(sniffed)) => {
                alone.push((index, read_alone(file, format, sniffed)));
            }
            _ => {}
        }
    };
    if threads < 2 || group.len() < 2 {
        for index in 0..group.len() {
            direct(index, &mut found, &mut alone, &mut folder);
        }
        let claude = folder.finish(group, settings, threads);
        let folders = read_folders(group, &found, settings, threads);
        return FoldOut {
            found,
            claude,
            alone,
            folders,
        };
    }
    SPLIT_READS.fetch_add(1, Ordering::Relaxed);
    // a file whose size cannot be read counts as 0: its open fails in the same way
    let sizes: Vec<u64> = group
        .iter()
        .map(|f| std::fs::metadata(f.path).map_or(0, |m| m.len()))
        .collect();
    enum Parsed {
        Claude(Result<Tape, Failure>),
        Alone(Detected, Option<UnitOut>),
        /// Not read here: another format, or none (the caller's).
        Other(Option<Detected>),
    }
    let parse = |index: usize| -> Parsed {
        let file = &group[index];
        let Some(sniffed) = sniff(file.path, sniffers) else {
            return Parsed::Other(None);
        };
        match sniffed.found {
            Some(Detected::ClaudeCode) => Parsed::Claude(tape_sniffed(sniffed)),
            Some(format @ (Detected::Events | Detected::Codex)) => {
                Parsed::Alone(format, read_alone(file, format, sniffed))
            }
            other => Parsed::Other(other),
        }
    };
    let merged: Result<(), ()> =
        ordered_pipeline(&sizes, threads, budget, parse, |index, parsed| {
            let file = &group[index];
            match parsed {
                Some(Parsed::Claude(tape)) => {
                    found.push(Some(Detected::ClaudeCode));
                    folder.add(index, |f, n| {
                        let mut account = LineAccount::default();
                        tape?.replay(|rec| f.apply(rec, n, file.claude_fallback, &mut account))?;
                        Ok(account)
                    });
                }
                Some(Parsed::Alone(format, out)) => {
                    found.push(Some(format));
                    alone.push((index, out));
                }
                Some(Parsed::Other(other)) => found.push(other),
                // a file larger than the budget: read here, line by line
                None => direct(index, &mut found, &mut alone, &mut folder),
            }
            Ok(())
        });
    debug_assert!(merged.is_ok(), "the merge never fails: failures are kept");
    let claude = folder.finish(group, settings, threads);
    let folders = read_folders(group, &found, settings, threads);
    FoldOut {
        found,
        claude,
        alone,
        folders,
    }
}

/// The files of `group` found `pi`, by folder (`pi.unit_key`: the file's folder), each
/// folder's files in group order (path order, as `plan_units` sorts a unit's files),
/// and each folder read as one unit by the pi reader on `threads` (opened again; a
/// file's session id without a header from its name, `session_id_from_file_name`).
fn read_folders(
    group: &[FoldFile],
    found: &[Option<Detected>],
    settings: &Settings,
    threads: usize,
) -> Vec<(Vec<usize>, Option<UnitOut>)> {
    let mut folders: Vec<(&Path, Vec<usize>)> = Vec::new();
    for (index, file) in group.iter().enumerate() {
        if found.get(index) != Some(&Some(Detected::Pi)) {
            continue;
        }
        let parent = file.path.parent().unwrap_or(Path::new(""));
        match folders.iter_mut().find(|(folder, _)| *folder == parent) {
            Some((_, files)) => files.push(index),
            None => folders.push((parent, vec![index])),
        }
    }
    folders
        .into_iter()
        .map(|(_, files)| {
            let paths: Vec<&Path> = files.iter().map(|&i| group[i].path).collect();
            let ids: Vec<String> = paths.iter().map(|p| session_id_from_file_name(p)).collect();
            let unit = Unit {
                paths: &paths,
                session_ids: &ids,
            };
            let out = Pi.read(&unit, settings, threads).ok();
            (files, out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::claude_code::ClaudeCode;
    use crate::readers::protocol::fixtures::{read_unit, settings, USE};

    #[test]
    fn a_folded_read_detects_and_reads_as_the_separate_pass_and_readers_do() {
        let dir = std::env::temp_dir().join(format!("wm-fold-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("f.jsonl")).unwrap(); // a folder: unreadable
        let claude_a = concat!(
            r#"{"type":"assistant","uuid":"u1","sessionId":"s1","timestamp":"2025-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"a","name":"Read"}]}}"#,
            "\n\n",
            r#"{"type":"user","uuid":"x1","isSidechain":true,"parentUuid":null}"#,
            "\n"
        );
        let claude_c = concat!(
            r#"{"type":"user","uuid":"u1","sessionId":"s1"}"#,
            "\n",
            r#"{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2025-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"a"}]}}"#,
            "\n{bad\n",
            r#"{"type":"assistant","uuid":"x2","isSidechain":true,"parentUuid":"x1","timestamp":"2025-01-01T00:00:03Z","message":{"content":[{"type":"tool_use","id":"c","name":"Bash"}]}}"#,
        );
        let events_b = concat!(
            r#"{"type":"tool_execution_start","toolCallId":"e","toolName":"t","timestamp":1}"#,
            "\n",
            r#"{"type":"tool_execution_end","toolCallId":"e","timestamp":3}"#,
            "\n"
        );
        // Claude Code lines first, an events record third: an events file
        let late_events = format!("{}\n{}\n{events_b}", USE, r#"{"type":"summary"}"#);
        let rollout = concat!(
            r#"{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"x"}}"#,
            "\n",
            r#"{"timestamp":"2025-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"ok"}}"#,
            "\n"
        );
        let files: [(&str, &[u8]); 8] = [
            ("a.jsonl", claude_a.as_bytes()),
            ("b.jsonl", events_b.as_bytes()),
            ("c.jsonl", claude_c.as_bytes()),
            ("d.jsonl", br#"{"type":"session_meta","payload":{}}"#),
            ("e.jsonl", b""),
            ("g.jsonl", &[0x1f, 0x8b, 8, 0]),
            ("h.jsonl", late_events.as_bytes()),
            (ROLLOUT_NAME, rollout.as_bytes()),
        ];
        for (name, data) in files {
            std::fs::write(dir.join(name), data).unwrap();
        }
        const ROLLOUT_NAME: &str = "i-0195500a-1b2c-7d3e-8f40-123456789abc.jsonl";
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", &ROLLOUT_NAME[..38]];
        let paths: Vec<std::path::PathBuf> = names
            .iter()
            .map(|n| dir.join(format!("{n}.jsonl")))
            .collect();
        let fallbacks: Vec<String> = names.iter().map(|n| format!("fb-{n}")).collect();
        let group: Vec<FoldFile> = paths
            .iter()
            .zip(&fallbacks)
            .map(|(path, fallback)| FoldFile {
                path,
                claude_fallback: fallback,
                events_default: &fallback[3..],
            })
            .collect();
        let event_types = ["tool_execution_start".to_string(), "turn_end".to_string()];
        let claude_only = ["summary".to_string()];
        let codex = ["session_meta".to_string(), "response_item".to_string()];
        let sniffers = Sniffers {
            event_types: &event_types,
            claude_only_types: &claude_only,
            codex_types: &codex,
            pi_types: &[],
        };
        let (claude, events) = (Some(Detected::ClaudeCode), Some(Detected::Events));
        let codex_found = Some(Detected::Codex);
        let found = vec![
            claude,
            events,
            claude,
            None,
            None,
            None,
            None,
            events,
            codex_found,
        ];
        for (path, want) in paths.iter().zip(&found) {
            assert_eq!(crate::detect::detect(path, &sniffers).ok().flatten(), *want);
        }
        let expected = FoldOut {
            found,
            claude: Some(read_unit(
                &ClaudeCode,
                &[&paths[0], &paths[2]],
                &["fb-a", "fb-c"],
            )),
            folders: vec![],
            alone: vec![
                (1, Some(read_unit(&Events, &[&paths[1]], &["b"]))),
                (7, Some(read_unit(&Events, &[&paths[7]], &["h"]))),
                // its session id without session_meta: its file name's UUID
                (
                    8,
                    Some(read_unit(
                        &Codex,
                        &[&paths[8]],
                        &["0195500a-1b2c-7d3e-8f40-123456789abc"],
                    )),
                ),
            ],
        };
        let lanes = expected.claude.as_ref().map(|out| out.lanes.len());
        assert_eq!(lanes, Some(3)); // (s1, main), (fb-a, x1), (fb-c, x1)
        for budget in [0, 300, 1 << 20] {
            for threads in [1, 2, 3] {
                let out = fold_group(&group, &sniffers, &settings(), threads, budget);
                assert_eq!(out, expected, "budget {budget}, threads {threads}");
            }
        }
        let before = (
            FOLDED_READS.load(Ordering::Relaxed),
            SPLIT_READS.load(Ordering::Relaxed),
        );
        assert_eq!(read_folded(&group, &sniffers, &settings(), 2), expected);
        assert!(FOLDED_READS.load(Ordering::Relaxed) > before.0);
        assert!(SPLIT_READS.load(Ordering::Relaxed) > before.1);
        // only others: nothing read
        let none = fold_group(&group[3..7], &sniffers, &settings(), 1, 0);
        assert_eq!(none.found, vec![None; 4]);
        assert_eq!((none.claude, none.alone), (None, vec![]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_rollout_is_read_from_its_detection_s_reader_or_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let call = |pad: usize| {
            format!(
                concat!(
                    r#"{{"timestamp":"2025-01-01T00:00:01Z","type":"response_item","#,
                    r#""payload":{{"type":"function_call","name":"shell","call_id":"x","pad":"{}"}}}}"#,
                    "\n",
                    r#"{{"timestamp":"2025-01-01T00:00:04Z","type":"response_item","#,
                    r#""payload":{{"type":"function_call_output","call_id":"x","output":"ok"}}}}"#,
                    "\n"
                ),
                "p".repeat(pad)
            )
        };
        // the first chunk (128 KiB) holds the small rollout whole; in the large one a
        // blank line of 100,000 spaces comes first, and the call's line crosses the
        // chunk's end, so the window's reader moves it to the front
        let small = call(10);
        let large = format!("{}\n{}", " ".repeat(100_000), call(60_000));
        let names = [
            "a-0195500a-1b2c-7d3e-8f40-123456789abc.jsonl",
            "b-0195500a-1b2c-7d3e-8f40-123456789abd.jsonl",
        ];
        let paths: Vec<std::path::PathBuf> = names.iter().map(|n| dir.path().join(n)).collect();
        std::fs::write(&paths[0], &small).unwrap();
        std::fs::write(&paths[1], &large).unwrap();
        let codex = ["session_meta".to_string(), "response_item".to_string()];
        let sniffers = Sniffers {
            event_types: &[],
            claude_only_types: &[],
            codex_types: &codex,
            pi_types: &[],
        };
        let sniffed: Vec<Sniff> = paths.iter().map(|p| sniff(p, &sniffers).unwrap()).collect();
        assert_eq!(
            sniffed.iter().map(|s| s.found).collect::<Vec<_>>(),
            [Some(Detected::Codex); 2]
        );
        let rewinds: Vec<bool> = sniffed
            .into_iter()
            .map(|s| s.rest.rewound().is_some())
            .collect();
        assert_eq!(rewinds, [true, false]);
        let group: Vec<FoldFile> = paths
            .iter()
            .map(|path| FoldFile {
                path,
                claude_fallback: "fb",
                events_default: "ev",
            })
            .collect();
        let unit = |i: usize, id: &str| (i, Some(read_unit(&Codex, &[&paths[i]], &[id])));
        let expected = FoldOut {
            found: vec![Some(Detected::Codex); 2],
            claude: None,
            alone: vec![
                unit(0, "0195500a-1b2c-7d3e-8f40-123456789abc"),
                unit(1, "0195500a-1b2c-7d3e-8f40-123456789abd"),
            ],
            folders: vec![],
        };
        // two lines read (three with the blank line), one lane each
        let read: Vec<(usize, usize)> = expected
            .alone
            .iter()
            .map(|(_, out)| {
                let out = out.as_ref().unwrap();
                (out.accounts[0].lines_read as usize, out.lanes.len())
            })
            .collect();
        assert_eq!(read, [(2, 1), (3, 1)]);
        for threads in [1, 2] {
            let out = fold_group(&group, &sniffers, &settings(), threads, 1 << 20);
            assert_eq!(out, expected, "threads {threads}");
        }
    }

    #[test]
    fn a_folded_folder_whose_calls_come_out_of_order_is_read_again_in_batch() {
        let dir = std::env::temp_dir().join(format!("wm-fold-late-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let call = |id: String, at: u32, result: bool| {
            let (kind, block) = if result {
                (
                    "user",
                    format!(r#"{{"type":"tool_result","tool_use_id":"{id}"}}"#),
                )
            } else {
                (
                    "assistant",
                    format!(r#"{{"type":"tool_use","id":"{id}","name":"t"}}"#),
                )
            };
            format!(
                r#"{{"type":"{kind}","uuid":"{id}-{kind}","sessionId":"s","timestamp":"2025-01-01T00:{:02}:{:02}Z","message":{{"content":[{block}]}}}}"#,
                at / 60,
                at % 60
            )
        };
        let mut early = String::new();
        for index in 0..70u32 {
            early += &call(format!("c{index}"), 10 + 2 * index, false);
            early += "\n";
            early += &call(format!("c{index}"), 11 + 2 * index, true);
            early += "\n";
        }
        let late = format!(
            "{}\n{}\n",
            call("z".into(), 0, false),
            call("z".into(), 1, true)
        );
        std::fs::write(dir.join("a.jsonl"), early).unwrap();
        std::fs::write(dir.join("b.jsonl"), late).unwrap();
        let paths = [dir.join("a.jsonl"), dir.join("b.jsonl")];
        let fallbacks = ["a".to_string(), "b".to_string()];
        let group: Vec<FoldFile> = paths
            .iter()
            .zip(&fallbacks)
            .map(|(path, fallback)| FoldFile {
                path,
                claude_fallback: fallback,
                events_default: fallback,
            })
            .collect();
        let none: [String; 0] = [];
        let sniffers = Sniffers {
            event_types: &none,
            claude_only_types: &none,
            codex_types: &none,
            pi_types: &[],
        };
        let plain = read_unit(&ClaudeCode, &[&paths[0], &paths[1]], &["a", "b"]);
        assert!(plain.read_again_in_batch);
        assert_eq!(plain.lanes[0].summary.paired_calls, 71);
        for threads in [1, 2] {
            let out = fold_group(&group, &sniffers, &settings(), threads, 1 << 20);
            assert_eq!(out.found, vec![Some(Detected::ClaudeCode); 2]);
            assert_eq!(out.claude.as_ref(), Some(&plain), "threads {threads}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
