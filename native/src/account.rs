//! The per-input line account (`wavemetrics/readers/_lines.py` `LineAccount`).

use std::collections::HashMap;

/// Distinct ignored record types kept per input before folding into `other_types`.
pub const MAX_IGNORED_KINDS: usize = 64;
/// The key of ignored types beyond `MAX_IGNORED_KINDS`.
pub const OTHER_KINDS: &[u8] = b"other_types";
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
}

fn bump(table: &mut Vec<(&'static str, u64)>, key: &'static str, count: u64) {
    match table.iter_mut().find(|(k, _)| *k == key) {
        Some(entry) => entry.1 += count,
        None => table.push((key, count)),
    }
}

/// The first `MAX_KIND_LENGTH` code points of a WTF-8 string.
fn cut_kind(kind: &[u8]) -> &[u8] {
    let mut chars = 0;
    for (index, &byte) in kind.iter().enumerate() {
        if byte & 0xC0 != 0x80 {
            if chars == MAX_KIND_LENGTH {
                return &kind[..index];
            }
            chars += 1;
        }
    }
    kind
}

impl LineAccount {
    pub fn use_line(&mut self) {
        self.lines_used += 1;
    }

    /// A known non-tool record, counted under its (cut) type; at most
    /// `MAX_IGNORED_KINDS` distinct keys, later ones under `other_types`.
    pub fn ignore(&mut self, kind: &[u8]) {
        let key = cut_kind(kind);
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

    pub fn problem(&mut self, reason: &'static str) {
        bump(&mut self.problems, reason, 1);
    }

    pub fn note(&mut self, what: &'static str, count: u64) {
        bump(&mut self.notes, what, count);
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
    fn kinds_are_cut_and_folded() {
        let mut account = LineAccount::default();
        for i in 0..70 {
            account.ignore(format!("k{i}").as_bytes());
        }
        account.ignore(b"k0");
        assert_eq!(account.ignored.len(), 65);
        assert_eq!(account.ignored[0], (b"k0".to_vec(), 2));
        assert_eq!(account.ignored[64], (b"other_types".to_vec(), 6));
        let long = "é".repeat(70);
        account.ignore(long.as_bytes());
        assert_eq!(account.ignored[64].1, 7);
        assert_eq!(cut_kind(long.as_bytes()).len(), 128);
        assert_eq!(account.lines_ignored(), 72);
    }

    #[test]
    fn tool_line_buckets() {
        let mut account = LineAccount::default();
        account.tool_line(2, 1, 1);
        account.tool_line(1, 1, 0);
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
