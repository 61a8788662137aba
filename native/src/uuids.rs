//! Exact de-duplication of line uuids in bounded memory (`spec/formats.md`:
//! Claude Code lines are de-duplicated by `uuid` across a project folder).
//!
//! A canonical lower-case UUID is kept as its 128 bits (a bijection: nothing is
//! lost, unlike a hash); any other string as its bytes. The 128-bit values live
//! in one sorted array (16 bytes each, no table overhead) with a directory by
//! their top 16 bits, plus a small hash set of recent inserts that is merged
//! into the array when it grows past a sixteenth of it.

use hashbrown::{DefaultHashBuilder, HashSet, HashTable};
use std::hash::BuildHasher;

const MIN_RECENT: usize = 1 << 14;
const DIRECTORY_BITS: u32 = 16;

/// The uuids seen so far.
#[derive(Default)]
pub struct SeenUuids {
    sorted: Vec<u128>,
    /// `directory[p]..directory[p + 1]`: where values with top bits `p` are in `sorted`.
    directory: Vec<u32>,
    recent: HashSet<u128>,
    other: HashSet<Box<[u8]>>,
}

/// The 128 bits of a canonical lower-case UUID (`8-4-4-4-12` hex digits), else `None`.
pub fn canonical_uuid(text: &[u8]) -> Option<u128> {
    if text.len() != 36 {
        return None;
    }
    let mut value = 0u128;
    for (i, &c) in text.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let digit = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        value = (value << 4) | u128::from(digit);
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
        let prefix = (bits >> (128 - DIRECTORY_BITS)) as usize;
        let (lo, hi) = (
            self.directory[prefix] as usize,
            self.directory[prefix + 1] as usize,
        );
        self.sorted[lo..hi].binary_search(&bits).is_ok()
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
        self.sorted.resize(old + fresh.len(), 0);
        let mut end = old; // old values in sorted[..end] are not yet moved
        for (j, &value) in fresh.iter().enumerate().rev() {
            let place = self.sorted[..end].partition_point(|&x| x < value);
            // the old values in place..end go after the j fresh values before this one
            self.sorted.copy_within(place..end, place + j + 1);
            self.sorted[place + j] = value;
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
            while next < fresh.len() && ((fresh[next] >> (128 - DIRECTORY_BITS)) as usize) < p {
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

/// The call ids a lane has fed, each with its flag byte, kept exactly in compact
/// memory: the ids' bytes in one arena (`flags`, the length as LEB128, the bytes)
/// and a table of 4-byte arena offsets: about 20 bytes a short id instead of
/// about 60 for a map of shared strings. Call ids come from untrusted files, so
/// the table's hasher is randomly seeded.
#[derive(Default)]
pub struct CallIds {
    arena: Vec<u8>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The arena of a [`CallIds`] would pass 4 GiB (offsets are 32-bit): the reader
/// hands such an input back to the Python engine instead.
#[derive(Debug, PartialEq, Eq)]
pub struct ArenaFull;

/// Append `n` as LEB128 (7 bits a byte, low bits first, high bit set on all but the last).
fn push_leb128(arena: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        arena.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    arena.push(n as u8);
}

/// The id stored at offset `at` (after its flag byte).
fn key_at(arena: &[u8], at: u32) -> &[u8] {
    let mut pos = at as usize + 1;
    let (mut len, mut shift) = (0usize, 0u32);
    while let Some(&byte) = arena.get(pos) {
        pos += 1;
        len |= usize::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    arena.get(pos..pos + len).unwrap_or_default()
}

impl CallIds {
    /// The flag byte of `id`, added with flags 0 when it is new.
    pub fn flags(&mut self, id: &[u8]) -> Result<&mut u8, ArenaFull> {
        let hash = self.hasher.hash_one(id);
        let arena = &self.arena;
        let at = match self.table.find(hash, |&at| key_at(arena, at) == id) {
            Some(&at) => at,
            None => {
                let at = u32::try_from(self.arena.len()).map_err(|_| ArenaFull)?;
                self.arena.push(0);
                push_leb128(&mut self.arena, id.len());
                self.arena.extend_from_slice(id);
                let (arena, hasher) = (&self.arena, &self.hasher);
                self.table
                    .insert_unique(hash, at, |&a| hasher.hash_one(key_at(arena, a)));
                at
            }
        };
        Ok(&mut self.arena[at as usize])
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
        assert!(seen.sorted.windows(2).all(|w| w[0] < w[1]));
        // an upper-case spelling is another string, kept apart
        assert!(seen.insert(uuid_text(2).to_uppercase().as_bytes()));
        assert!(!seen.insert(uuid_text(2).to_uppercase().as_bytes()));
        assert!(seen.insert(b"u1") && !seen.insert(b"u1"));
    }

    #[test]
    fn leb128_lengths() {
        let mut arena = Vec::new();
        push_leb128(&mut arena, 0);
        push_leb128(&mut arena, 0x7f);
        push_leb128(&mut arena, 0x80);
        push_leb128(&mut arena, 300);
        assert_eq!(arena, vec![0x00, 0x7f, 0x80, 0x01, 0xac, 0x02]);
        // flag byte, length 3, "abc"; then flag 5, length 0
        let stored = [9u8, 3, b'a', b'b', b'c', 5, 0];
        assert_eq!(key_at(&stored, 0), b"abc");
        assert_eq!(key_at(&stored, 5), b"");
        // a 200-byte key: its length takes two bytes (0xc8 0x01)
        let mut long = vec![0u8, 0xc8, 0x01];
        long.extend(std::iter::repeat_n(b'x', 200));
        assert_eq!(key_at(&long, 0).len(), 200);
    }

    #[test]
    fn call_ids_keep_flags_exactly() {
        let mut ids = CallIds::default();
        assert!(ids.is_empty());
        assert_eq!(*ids.flags(b"call_1").unwrap(), 0);
        *ids.flags(b"call_1").unwrap() |= 1;
        assert_eq!(*ids.flags(b"call_1").unwrap(), 1);
        *ids.flags(b"call_1").unwrap() |= 2;
        assert_eq!(*ids.flags(b"call_1").unwrap(), 3);
        // a prefix, an extension and the empty id are other ids
        assert_eq!(*ids.flags(b"call_").unwrap(), 0);
        assert_eq!(*ids.flags(b"call_12").unwrap(), 0);
        assert_eq!(*ids.flags(b"").unwrap(), 0);
        assert_eq!(ids.len(), 4);
        // flag byte + 1 length byte + 6 + 5 + 7 + 0 bytes
        assert_eq!(ids.arena.len(), 4 * 2 + 18);
        let long = vec![b'z'; 300];
        *ids.flags(&long).unwrap() = 2;
        assert_eq!(*ids.flags(&long).unwrap(), 2);
        assert_eq!(ids.arena.len(), 26 + 1 + 2 + 300);
    }

    #[test]
    fn call_ids_exact_across_growth() {
        let mut ids = CallIds::default();
        for i in 0..50_000u32 {
            *ids.flags(format!("toolu_{i}").as_bytes()).unwrap() = (i % 3) as u8 + 1;
        }
        assert_eq!(ids.len(), 50_000);
        for i in 0..50_000u32 {
            assert_eq!(
                *ids.flags(format!("toolu_{i}").as_bytes()).unwrap(),
                (i % 3) as u8 + 1
            );
        }
        assert_eq!(ids.len(), 50_000);
        assert_eq!(*ids.flags(b"toolu_50000").unwrap(), 0);
    }
}
