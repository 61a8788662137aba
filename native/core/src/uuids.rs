//! Exact de-duplication of line uuids in bounded memory (`docs/formats.md`:
//! Claude Code lines are de-duplicated by `uuid` across a project folder).
//!
//! A canonical lower-case UUID is kept as its 128 bits (a bijection: nothing is
//! lost, unlike a hash); any other string as its bytes. The 128-bit values live
//! in one sorted array with a directory by their top 16 bits, which the array
//! then need not repeat: each value is stored as its low 112 bits (14 bytes, no
//! table overhead), plus a small hash set of recent inserts that is merged into
//! the array when it grows past a sixteenth of it.

use crate::arena::{entry_at, push_entry};
use hashbrown::{DefaultHashBuilder, HashSet, HashTable};
use std::hash::BuildHasher;

const MIN_RECENT: usize = 1 << 14;
const DIRECTORY_BITS: u32 = 16;

/// A value's bits below the directory's: its last 14 bytes, big-endian, so that
/// byte order is numeric order among values of one directory entry.
type Low = [u8; 14];

fn low_bits(bits: u128) -> Low {
    let mut low = [0u8; 14];
    low.copy_from_slice(&bits.to_be_bytes()[2..]);
    low
}

fn prefix(bits: u128) -> usize {
    (bits >> (128 - DIRECTORY_BITS)) as usize
}

/// The uuids seen so far.
#[derive(Default)]
pub struct SeenUuids {
    /// Sorted by (directory entry, low bits), i.e. by value.
    sorted: Vec<Low>,
    /// `directory[p]..directory[p + 1]`: where values with top bits `p` are in `sorted`.
    directory: Vec<u32>,
    recent: HashSet<u128>,
    other: HashSet<Box<[u8]>>,
}

/// The 128 bits of a canonical lower-case UUID (`8-4-4-4-12` hex digits), else `None`.
pub fn canonical_uuid(text: &[u8]) -> Option<u128> {
    let text: &[u8; 36] = text.try_into().ok()?;
    if [text[8], text[13], text[18], text[23]] != [b'-'; 4] {
        return None;
    }
    // group by group in 64 bits (a 128-bit multiply per digit cost twice as much)
    let mut value = 0u128;
    for (start, len) in [(0, 8), (9, 4), (14, 4), (19, 4), (24, 12)] {
        let mut group = 0u64;
        for &c in &text[start..start + len] {
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                _ => return None,
            };
            group = group * 16 + u64::from(digit);
        }
        value = (value << (4 * len)) + u128::from(group);
    }
    Some(value)
}

impl SeenUuids {
    /// True when `uuid` was not seen before (and remembers it).
    pub fn insert(&mut self, uuid: &[u8]) -> bool {
        match canonical_uuid(uuid) {
            Some(bits) => self.insert_bits(bits),
            None => {
                if self.other.contains(uuid) {
                    false
                } else {
                    self.other.insert(uuid.into())
                }
            }
        }
    }

    fn in_sorted(&self, bits: u128) -> bool {
        if self.sorted.is_empty() {
            return false;
        }
        let p = prefix(bits);
        let (lo, hi) = (self.directory[p] as usize, self.directory[p + 1] as usize);
        self.sorted[lo..hi].binary_search(&low_bits(bits)).is_ok()
    }

    fn insert_bits(&mut self, bits: u128) -> bool {
        if self.in_sorted(bits) || !self.recent.insert(bits) {
            return false;
        }
        if self.recent.len() >= MIN_RECENT.max(self.sorted.len() / 16) {
            self.merge();
        }
        true
    }

    /// Move the recent values into the sorted array: from the back, each fresh
    /// value's place is found by binary search and the old values after it move
    /// up in one block copy; the directory is shifted by the fresh values' prefixes.
    fn merge(&mut self) {
        let mut fresh: Vec<u128> = self.recent.drain().collect();
        fresh.sort_unstable();
        let old = self.sorted.len();
        self.sorted.resize(old + fresh.len(), [0; 14]);
        let mut end = old; // old values in sorted[..end] are not yet moved
        for (j, &value) in fresh.iter().enumerate().rev() {
            // the old values below `value`: all those of lower directory entries
            // (none moved yet), and those of its own entry with lower low bits
            let p = prefix(value);
            let (lo, hi) = match self.directory.get(p..p + 2) {
                Some(&[lo, hi]) => {
                    let hi = (hi as usize).min(end);
                    ((lo as usize).min(hi), hi)
                }
                _ => (0, 0),
            };
            let low = low_bits(value);
            let place = lo + self.sorted[lo..hi].partition_point(|x| *x < low);
            // the old values in place..end go after the j fresh values before this one
            self.sorted.copy_within(place..end, place + j + 1);
            self.sorted[place + j] = low;
            end = place;
        }
        let prefixes = 1usize << DIRECTORY_BITS;
        if self.directory.is_empty() {
            self.directory = vec![0; prefixes + 1];
        }
        // directory[p] counts the values with top bits < p: add the fresh ones
        let mut below = 0u32;
        let mut next = 0usize;
        for p in 0..=prefixes {
            while next < fresh.len() && prefix(fresh[next]) < p {
                next += 1;
                below += 1;
            }
            self.directory[p] += below;
        }
    }

    /// How many uuids are remembered.
    pub fn len(&self) -> usize {
        self.sorted.len() + self.recent.len() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The call ids a lane has fed, each with two flags, kept exactly in compact
/// memory: the ids' bytes in one arena (the length as LEB128, then the bytes) and
/// a table of 4-byte entries, the arena offset shifted left by 2 with the flags
/// in the low 2 bits: about 20 bytes a short id instead of about 60 for a map of
/// shared strings. Call ids come from untrusted files, so the table's hasher is
/// randomly seeded.
#[derive(Default)]
pub struct CallIds {
    arena: Vec<u8>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The arena of a [`CallIds`] would pass 1 GiB (30-bit offsets): the reader
/// hands such an input back to the Python engine instead.
#[derive(Debug, PartialEq, Eq)]
pub struct ArenaFull;

/// The two flag bits of a [`CallIds`] entry.
const FLAG_BITS: u32 = 0b11;

/// The id of table entry `entry` (its offset is `entry >> 2`).
fn key_at(arena: &[u8], entry: u32) -> &[u8] {
    entry_at(arena, (entry >> 2) as usize)
}

impl CallIds {
    /// Set `flag` (1 or 2) on `id`, adding the id when it is new; true when the
    /// flag was already set (the id was fed that way before).
    pub fn mark(&mut self, id: &[u8], flag: u8) -> Result<bool, ArenaFull> {
        let flag = u32::from(flag) & FLAG_BITS;
        let hash = self.hasher.hash_one(id);
        let arena = &self.arena;
        if let Some(entry) = self.table.find_mut(hash, |&e| key_at(arena, e) == id) {
            let had = *entry & flag != 0;
            *entry |= flag;
            return Ok(had);
        }
        let at = u32::try_from(self.arena.len())
            .ok()
            .filter(|&at| at <= u32::MAX >> 2)
            .ok_or(ArenaFull)?;
        push_entry(&mut self.arena, id);
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table.insert_unique(hash, (at << 2) | flag, |&e| {
            hasher.hash_one(key_at(arena, e))
        });
        Ok(false)
    }

    /// How many ids are kept.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uuid_text(bits: u128) -> String {
        let hex = format!("{bits:032x}");
        format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..]
        )
    }

    #[test]
    fn canonical_forms_only() {
        assert_eq!(
            canonical_uuid(b"00000000-0000-0000-0000-00000000000a"),
            Some(10)
        );
        assert_eq!(
            canonical_uuid(b"00000000-0000-0000-0000-00000000000A"),
            None
        );
        assert_eq!(
            canonical_uuid(b"00000000_0000-0000-0000-00000000000a"),
            None
        );
        assert_eq!(canonical_uuid(b"0000000-0000-0000-0000-00000000000a"), None);
    }

    #[test]
    fn every_hex_digit_in_place() {
        assert_eq!(
            canonical_uuid(b"123e4567-e89b-12d3-a456-426614174000"),
            Some(0x123e_4567_e89b_12d3_a456_4266_1417_4000)
        );
        assert_eq!(
            canonical_uuid(b"fedcba98-7654-3210-0123-456789abcdef"),
            Some(0xfedc_ba98_7654_3210_0123_4567_89ab_cdef)
        );
        assert_eq!(
            canonical_uuid(b"123e4567-e89b-12d3-a456-42661417400g"),
            None
        );
        assert_eq!(
            canonical_uuid(b"123e4567-e89b-12d3-a456-4266141740000"),
            None
        );
    }

    #[test]
    fn recent_values_merge_at_16384_or_a_sixteenth_of_the_array() {
        // values spread over every directory prefix (an odd multiplier is a bijection)
        let spread = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
        let mut seen = SeenUuids::default();
        assert!(seen.is_empty());
        let mut next = 0u128;
        let mut add = |seen: &mut SeenUuids, count: u128| {
            for _ in 0..count {
                assert!(seen.insert_bits(spread(next)));
                next += 1;
            }
        };
        add(&mut seen, 16_383);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (0, 16_383));
        add(&mut seen, 1);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (16_384, 0));
        add(&mut seen, 16_384);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (32_768, 0));
        // up to 17 * 16384: a sixteenth of 16 * 16384 is still 16384
        add(&mut seen, 15 * 16_384);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (278_528, 0));
        // now a sixteenth of the array, 17408, is the larger threshold
        add(&mut seen, 17_407);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (278_528, 17_407));
        add(&mut seen, 1);
        assert_eq!((seen.sorted.len(), seen.recent.len()), (295_936, 0));
        assert!(!seen.insert_bits(spread(0)) && !seen.insert_bits(spread(295_935)));
        assert_eq!(seen.len(), 295_936);
        assert!(!seen.is_empty());
    }

    #[test]
    fn low_bits_and_prefix() {
        let v = 0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10u128;
        assert_eq!(prefix(v), 0x0102);
        assert_eq!(
            low_bits(v),
            [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
        );
        assert_eq!(prefix(u128::MAX), 0xffff);
        assert_eq!(low_bits(1), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn one_prefix_merged_among_others() {
        // values of one directory entry arrive around values of the entries
        // beside it, over several merges; each is then known, and no other
        let mut seen = SeenUuids::default();
        let values: Vec<u128> = (0..3 * MIN_RECENT as u128)
            .map(|i| ((i % 3 + 7) << 112) | ((i * 7919) % 100_003))
            .collect();
        for &v in &values {
            assert!(seen.insert(uuid_text(v).as_bytes()));
        }
        assert!(!seen.sorted.is_empty());
        for &v in &values {
            assert!(!seen.insert(uuid_text(v).as_bytes()));
        }
        // same low bits under another prefix, and a neighbour, are new
        assert!(seen.insert(uuid_text((8 << 112) | 100_003).as_bytes()));
        assert!(seen.insert(uuid_text((6 << 112) | 1).as_bytes()));
        assert!(seen.insert(uuid_text((10 << 112) | 7919).as_bytes()));
    }

    #[test]
    fn exact_across_merges() {
        // spread and clustered values (one prefix), every one inserted twice
        let mut seen = SeenUuids::default();
        let values: Vec<u128> = (0..100_000u128)
            .map(|i| {
                if i % 2 == 0 {
                    i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
                } else {
                    i
                }
            })
            .collect();
        for &v in &values {
            assert!(seen.insert(uuid_text(v).as_bytes()), "{v}");
        }
        for &v in &values {
            assert!(!seen.insert(uuid_text(v).as_bytes()), "{v}");
        }
        assert_eq!(seen.len(), 100_000);
        // the stored values, rebuilt from the directory and the low bits, are the
        // inserted ones in increasing order, save the recent ones not yet merged
        let mut stored = Vec::new();
        for p in 0..(1usize << DIRECTORY_BITS) {
            for low in &seen.sorted[seen.directory[p] as usize..seen.directory[p + 1] as usize] {
                let mut bytes = [0u8; 16];
                bytes[..2].copy_from_slice(&(p as u16).to_be_bytes());
                bytes[2..].copy_from_slice(low);
                stored.push(u128::from_be_bytes(bytes));
            }
        }
        assert_eq!(stored.len(), seen.sorted.len());
        assert_eq!(*seen.directory.last().unwrap() as usize, seen.sorted.len());
        assert!(stored.windows(2).all(|w| w[0] < w[1]));
        let mut expected: Vec<u128> = values
            .iter()
            .copied()
            .filter(|v| !seen.recent.contains(v))
            .collect();
        expected.sort_unstable();
        assert_eq!(stored, expected);
        assert!(seen.sorted.len() >= 90_000);
        // an upper-case spelling is another string, kept apart
        assert!(seen.insert(uuid_text(2).to_uppercase().as_bytes()));
        assert!(!seen.insert(uuid_text(2).to_uppercase().as_bytes()));
        assert!(seen.insert(b"u1") && !seen.insert(b"u1"));
        // the two other strings count with the 100,000 uuids
        assert_eq!(seen.len(), 100_002);
    }

    #[test]
    fn an_entry_s_flags_are_not_its_offset() {
        // length 3, "abc" at offset 0; length 0 at offset 4; flags in the low bits
        let stored = [3u8, b'a', b'b', b'c', 0];
        assert_eq!(key_at(&stored, 0), b"abc");
        assert_eq!(key_at(&stored, 3), b"abc");
        assert_eq!(key_at(&stored, 4 << 2 | 2), b"");
        assert_eq!(key_at(&stored, 1 << 2), b"");
    }

    #[test]
    fn call_ids_keep_flags_exactly() {
        let mut ids = CallIds::default();
        assert!(ids.is_empty());
        assert_eq!(ids.mark(b"call_1", 1), Ok(false));
        assert_eq!(ids.mark(b"call_1", 1), Ok(true));
        assert_eq!(ids.mark(b"call_1", 2), Ok(false));
        assert_eq!(ids.mark(b"call_1", 2), Ok(true));
        assert_eq!(ids.mark(b"call_1", 1), Ok(true));
        // an end first, then its start
        assert_eq!(ids.mark(b"call_2", 2), Ok(false));
        assert_eq!(ids.mark(b"call_2", 1), Ok(false));
        assert_eq!(ids.mark(b"call_2", 2), Ok(true));
        // a prefix, an extension and the empty id are other ids
        assert_eq!(ids.mark(b"call_", 1), Ok(false));
        assert_eq!(ids.mark(b"call_12", 1), Ok(false));
        assert_eq!(ids.mark(b"", 2), Ok(false));
        assert_eq!(ids.mark(b"", 2), Ok(true));
        assert_eq!(ids.len(), 5);
        // 1 length byte + 6 + 6 + 5 + 7 + 0 bytes
        assert_eq!(ids.arena.len(), 5 + 24);
        let long = vec![b'z'; 300];
        assert_eq!(ids.mark(&long, 2), Ok(false));
        assert_eq!(ids.mark(&long, 1), Ok(false));
        assert_eq!(ids.mark(&long, 2), Ok(true));
        assert_eq!(ids.arena.len(), 29 + 2 + 300);
    }

    #[test]
    fn call_id_entries_hold_the_offset_and_the_flag_bits() {
        // "ab" at offset 0 with flag 1, then "c" at offset 3 (length byte + 2) with flag 2
        let mut ids = CallIds::default();
        assert_eq!(ids.mark(b"ab", 1), Ok(false));
        assert_eq!(ids.mark(b"c", 2), Ok(false));
        assert!(!ids.is_empty());
        let mut entries: Vec<u32> = ids.table.iter().copied().collect();
        entries.sort_unstable();
        assert_eq!(entries, vec![1, (3 << 2) | 2]);
        assert_eq!(ids.mark(b"ab", 2), Ok(false));
        let mut entries: Vec<u32> = ids.table.iter().copied().collect();
        entries.sort_unstable();
        assert_eq!(entries, vec![3, (3 << 2) | 2]);
    }

    #[test]
    fn call_ids_exact_across_growth() {
        let mut ids = CallIds::default();
        for i in 0..50_000u32 {
            let flag = if i % 2 == 0 { 1 } else { 2 };
            assert_eq!(ids.mark(format!("toolu_{i}").as_bytes(), flag), Ok(false));
        }
        assert_eq!(ids.len(), 50_000);
        for i in 0..50_000u32 {
            let id = format!("toolu_{i}");
            let (set, unset) = if i % 2 == 0 { (1, 2) } else { (2, 1) };
            assert_eq!(ids.mark(id.as_bytes(), set), Ok(true), "{id}");
            assert_eq!(ids.mark(id.as_bytes(), unset), Ok(false), "{id}");
        }
        assert_eq!(ids.len(), 50_000);
        assert_eq!(ids.mark(b"toolu_50000", 1), Ok(false));
    }

    #[test]
    fn call_ids_refuse_offsets_past_30_bits() {
        let mut ids = CallIds {
            arena: vec![0; (1 << 30) + 1],
            ..CallIds::default()
        };
        assert_eq!(ids.mark(b"x", 1), Err(ArenaFull));
        assert_eq!(ids.len(), 0);
    }

    #[test]
    fn call_ids_take_the_last_30_bit_offset() {
        // offset 2^30 - 1 still fits beside the two flag bits
        let mut ids = CallIds {
            arena: vec![0; (1 << 30) - 1],
            ..CallIds::default()
        };
        assert_eq!(ids.mark(b"x", 2), Ok(false));
        assert_eq!(ids.mark(b"x", 2), Ok(true));
        assert_eq!(ids.mark(b"x", 1), Ok(false));
        assert_eq!(ids.len(), 1);
        assert_eq!(ids.arena.len(), (1 << 30) + 1);
    }
}
