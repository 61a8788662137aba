//! The per-input line account (`wavemetrics/readers/_lines.py` `LineAccount`).

use std::collections::HashMap;

/// Distinct ignored record types kept per input before folding into `other_types`.
pub const MAX_IGNORED_KINDS: usize = 64;
/// The key of ignored types beyond `MAX_IGNORED_KINDS`, and of types that are
/// not short identifiers.
pub const OTHER_KINDS: &[u8] = b"other";
/// Longest record type kept as a key, in characters (code points).
pub const MAX_KIND_LENGTH: usize = 64;

/// Counters of one input: every physical line lands in exactly one bucket.
/// Ignored keys are WTF-8 (a JSON type may hold a lone surrogate).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LineAccount {
    pub lines_read: u64,
    pub lines_used: u64,
    pub ignored: Vec<(Vec<u8>, u64)>,
    ignored_index: HashMap<Vec<u8>, usize>,
    pub problems: Vec<(&'static str, u64)>,
    pub notes: Vec<(&'static str, u64)>,
    /// Notes named at run time ([`Self::note_named`]: `mcode`'s `run_status.<status>`),
    /// after the fixed ones; a name is held once, on its first count.
    pub named_notes: Vec<(Box<str>, u64)>,
    /// Problems named at run time ([`Self::problem_named`]: the account of a unit the
    /// Python readers read, handed to the native command), after the fixed ones.
    pub named_problems: Vec<(Box<str>, u64)>,
}

/// `count` more under a name built at run time: a fixed entry of that name if there is
/// one, else a named one, whose name is copied only when it is new.
fn bump_named(
    fixed: &mut [(&'static str, u64)],
    named: &mut Vec<(Box<str>, u64)>,
    what: &str,
    count: u64,
) {
    if let Some(entry) = fixed.iter_mut().find(|(k, _)| *k == what) {
        entry.1 += count;
    } else if let Some(entry) = named.iter_mut().find(|(k, _)| &**k == what) {
        entry.1 += count;
    } else {
        named.push((what.into(), count));
    }
}

/// The fixed entries, then the named ones (each name once).
fn chained<'a>(
    fixed: &'a [(&'static str, u64)],
    named: &'a [(Box<str>, u64)],
) -> Vec<(&'a str, u64)> {
    let fixed = fixed.iter().map(|&(k, n)| (k, n));
    fixed.chain(named.iter().map(|(k, n)| (&**k, *n))).collect()
}

fn bump(table: &mut Vec<(&'static str, u64)>, key: &'static str, count: u64) {
    match table.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 += count,
        None => table.push((key, count)),
    }
}

/// `_KIND` of `_lines.py`: ASCII letters, digits and `_.:-`, 1 to
/// `MAX_KIND_LENGTH` characters (`docs/formats.md`, "Limits and hostile input").
pub fn is_short_identifier(kind: &[u8]) -> bool {
    !kind.is_empty()
        && kind.len() <= MAX_KIND_LENGTH
        && kind
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

impl LineAccount {
    pub fn use_line(&mut self) {
        self.lines_used += 1;
    }

    /// A known non-tool record, counted under its type when that is a short
    /// identifier (else `other`); at most
    /// `MAX_IGNORED_KINDS` distinct keys, later ones under `other`.
    pub fn ignore(&mut self, kind: &[u8]) {
        let key = if is_short_identifier(kind) {
            kind
        } else {
            OTHER_KINDS
        };
        if let Some(&index) = self.ignored_index.get(key) {
            self.ignored[index].1 += 1;
            return;
        }
        let key: &[u8] = if self.ignored.len() >= MAX_IGNORED_KINDS {
            OTHER_KINDS
        } else {
            key
        };
        match self.ignored_index.get(key) {
            Some(&index) => self.ignored[index].1 += 1,
            None => {
                self.ignored_index.insert(key.to_vec(), self.ignored.len());
                self.ignored.push((key.to_vec(), 1));
            }
        }
    }

    /// `count` more records under `key`, as Python's `account.ignored[key] += count`:
    /// the key as given, past the cap of [`Self::ignore`] (the `codex` reader's
    /// `replayed_items` and a merged gate account, `codex.py` `_close_gate`).
    pub fn add_ignored(&mut self, key: &[u8], count: u64) {
        match self.ignored_index.get(key) {
            Some(&index) => self.ignored[index].1 += count,
            None => {
                self.ignored_index.insert(key.to_vec(), self.ignored.len());
                self.ignored.push((key.to_vec(), count));
            }
        }
    }

    /// Add `other`'s used lines and counters to this account (`Counter.update` of
    /// each table, no cap), leaving `lines_read` alone: `other` counted records read
    /// into this account's lines.
    pub fn merge(&mut self, other: &LineAccount) {
        self.lines_used += other.lines_used;
        for (key, count) in &other.ignored {
            self.add_ignored(key, *count);
        }
        for (key, count) in &other.problems {
            bump(&mut self.problems, key, *count);
        }
        for (key, count) in &other.notes {
            bump(&mut self.notes, key, *count);
        }
        for (key, count) in &other.named_notes {
            self.note_named(key, *count);
        }
        for (key, count) in &other.named_problems {
            self.problem_named(key, *count);
        }
    }

    pub fn problem(&mut self, reason: &'static str) {
        bump(&mut self.problems, reason, 1);
    }

    pub fn note(&mut self, what: &'static str, count: u64) {
        bump(&mut self.notes, what, count);
    }

    /// `count` more of a note whose name the reader built from the input (as
    /// `account.note(f"...")` in Python): counted under a fixed note of that name if
    /// there is one, else under a named note, whose name is copied only when it is new.
    /// The reader keeps the names few and short (Python's caps are the reader's).
    pub fn note_named(&mut self, what: &str, count: u64) {
        bump_named(&mut self.notes, &mut self.named_notes, what, count);
    }

    /// `count` more of a problem named at run time, as [`Self::note_named`] counts a note.
    pub fn problem_named(&mut self, what: &str, count: u64) {
        bump_named(&mut self.problems, &mut self.named_problems, what, count);
    }

    /// Every note, the fixed ones then the named ones (each name once): what the
    /// account reports as `notes`.
    pub fn all_notes(&self) -> Vec<(&str, u64)> {
        chained(&self.notes, &self.named_notes)
    }

    /// Every problem, the fixed ones then the named ones: what the account reports as
    /// `problems`.
    pub fn all_problems(&self) -> Vec<(&str, u64)> {
        chained(&self.problems, &self.named_problems)
    }

    pub fn lines_ignored(&self) -> u64 {
        self.ignored.iter().map(|(_, n)| n).sum()
    }

    /// `account_tool_line` of `_lines.py`: a transcript line holding `blocks` tool blocks.
    pub fn tool_line(&mut self, blocks: u64, usable: u64, fed: u64) {
        if usable < blocks {
            self.note("invalid_tool_blocks", blocks - usable);
        }
        if fed > 0 {
            self.use_line();
        } else if usable > 0 {
            self.ignore(b"repeated_tool_record");
        } else {
            self.problem("invalid_tool_record");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_and_merged_counts_pass_the_cap_and_keep_lines_read() {
        let mut account = LineAccount::default();
        for i in 0..64 {
            account.ignore(format!("k{i}").as_bytes());
        }
        account.add_ignored(b"replayed_items", 3);
        account.add_ignored(b"replayed_items", 2);
        account.add_ignored(b"k1", 4);
        assert_eq!(account.ignored.len(), 65);
        assert_eq!(account.ignored[64], (b"replayed_items".to_vec(), 5));
        assert_eq!(account.ignored[1], (b"k1".to_vec(), 5));
        let mut gate = LineAccount {
            lines_read: 9,
            lines_used: 2,
            ..Default::default()
        };
        gate.ignore(b"turn_context");
        gate.ignore(b"k0");
        gate.problem("invalid_timestamp");
        gate.note("batched_write_no_duration", 2);
        account.problem("invalid_timestamp");
        account.lines_read = 70;
        account.merge(&gate);
        assert_eq!((account.lines_read, account.lines_used), (70, 2));
        assert_eq!(account.ignored.len(), 66);
        assert_eq!(account.ignored[0], (b"k0".to_vec(), 2));
        assert_eq!(account.ignored[65], (b"turn_context".to_vec(), 1));
        assert_eq!(account.problems, vec![("invalid_timestamp", 2)]);
        assert_eq!(account.notes, vec![("batched_write_no_duration", 2)]);
    }

    #[test]
    fn notes_named_at_run_time_are_counted_once_per_name_and_merged() {
        let mut account = LineAccount::default();
        account.note("truncated", 1);
        let status = String::from("run_status.") + "ok";
        account.note_named(&status, 1);
        account.note_named("run_status.ok", 2);
        account.note_named("run_status.failed", 1);
        // a name that is a fixed note's counts there, not twice
        account.note_named("truncated", 4);
        assert_eq!(account.notes, vec![("truncated", 5)]);
        assert_eq!(
            account.named_notes,
            vec![("run_status.ok".into(), 3), ("run_status.failed".into(), 1)]
        );
        assert_eq!(
            account.all_notes(),
            vec![
                ("truncated", 5),
                ("run_status.ok", 3),
                ("run_status.failed", 1)
            ]
        );
        let mut total = LineAccount::default();
        total.note_named("run_status.failed", 2);
        total.merge(&account);
        assert_eq!(
            total.all_notes(),
            vec![
                ("truncated", 5),
                ("run_status.failed", 3),
                ("run_status.ok", 3)
            ]
        );
        // an account without named notes reports its fixed ones as before
        let mut plain = LineAccount::default();
        plain.note("invalid_tool_blocks", 2);
        assert_eq!(plain.all_notes(), vec![("invalid_tool_blocks", 2)]);
        assert!(plain.named_notes.is_empty());
    }

    #[test]
    fn problems_named_at_run_time_follow_the_fixed_ones_and_merge() {
        let mut account = LineAccount::default();
        account.problem("invalid_json");
        account.problem_named("invalid_row", 2);
        account.problem_named("invalid_row", 1);
        // a name that is a fixed problem's counts there
        account.problem_named("invalid_json", 3);
        assert_eq!(account.problems, vec![("invalid_json", 4)]);
        assert_eq!(account.named_problems, vec![("invalid_row".into(), 3)]);
        assert_eq!(
            account.all_problems(),
            vec![("invalid_json", 4), ("invalid_row", 3)]
        );
        let mut total = LineAccount::default();
        total.problem_named("bad_time", 5);
        total.merge(&account);
        assert_eq!(
            total.all_problems(),
            vec![("invalid_json", 4), ("bad_time", 5), ("invalid_row", 3)]
        );
        // named problems are not notes
        assert!(total.all_notes().is_empty());
    }

    #[test]
    fn kinds_are_named_only_as_short_identifiers_and_folded() {
        let mut account = LineAccount::default();
        for i in 0..70 {
            account.ignore(format!("k{i}").as_bytes());
        }
        account.ignore(b"k0");
        assert_eq!(account.ignored.len(), 65);
        assert_eq!(account.ignored[0], (b"k0".to_vec(), 2));
        assert_eq!(account.ignored[64], (b"other".to_vec(), 6));
        account.ignore("é".as_bytes());
        account.ignore(&[b'x'; 65]);
        account.ignore(b"a\x1b[2J");
        account.ignore(b"");
        assert_eq!(account.ignored[64].1, 10);
        assert_eq!(account.lines_ignored(), 75);
        let mut fresh = LineAccount::default();
        fresh.ignore(b""); // empty: not an identifier
        fresh.ignore(&[b'x'; 65]);
        fresh.ignore(&[b'x'; 64]);
        fresh.ignore(b"file-history_snapshot.v2:x");
        assert_eq!(fresh.ignored[0], (b"other".to_vec(), 2));
        assert_eq!(fresh.ignored[1], (vec![b'x'; 64], 1));
        assert_eq!(
            fresh.ignored[2],
            (b"file-history_snapshot.v2:x".to_vec(), 1)
        );
    }

    #[test]
    fn tool_line_buckets() {
        let mut account = LineAccount::default();
        account.tool_line(2, 1, 1);
        // usable but not fed (its ids were seen): ignored, not a problem; each
        // call checked alone, or a swap of the two buckets would sum the same
        account.tool_line(1, 1, 0);
        assert_eq!(account.ignored, vec![(b"repeated_tool_record".to_vec(), 1)]);
        assert!(account.problems.is_empty());
        account.tool_line(1, 0, 0);
        assert_eq!(account.lines_used, 1);
        assert_eq!(account.ignored, vec![(b"repeated_tool_record".to_vec(), 1)]);
        assert_eq!(account.problems, vec![("invalid_tool_record", 1)]);
        assert_eq!(account.notes, vec![("invalid_tool_blocks", 2)]);
        // every block usable and fed: used, and no note at all (not a note of 0)
        let mut clean = LineAccount::default();
        clean.tool_line(2, 2, 2);
        clean.tool_line(1, 1, 1);
        assert_eq!(
            (clean.lines_used, clean.notes.len(), clean.lines_ignored()),
            (2, 0, 0)
        );
        assert!(clean.problems.is_empty());
        // one of two fed: used
        let mut half = LineAccount::default();
        half.tool_line(2, 2, 1);
        assert_eq!((half.lines_used, half.lines_ignored()), (1, 0));
    }
}
