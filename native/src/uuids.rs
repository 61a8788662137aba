//! Exact de-duplication of line uuids in bounded memory (`spec/formats.md`:
//! Claude Code lines are de-duplicated by `uuid` across a project folder).
//!
//! A canonical lower-case UUID is kept as its 128 bits (a bijection: nothing is
//! lost, unlike a hash); any other string as its bytes. The 128-bit values live
//! in one sorted array (16 bytes each, no table overhead) with a directory by
//! their top 16 bits, plus a small hash set of recent inserts that is merged
//! into the array when it grows past a sixteenth of it.

use hashbrown::HashSet;

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
        value = value * 16 + u128::from(digit);
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
        assert!(seen.sorted.windows(2).all(|w| w[0] < w[1]));
        assert!(!seen.insert_bits(spread(0)) && !seen.insert_bits(spread(295_935)));
        assert_eq!(seen.len(), 295_936);
        assert!(!seen.is_empty());
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
        // the two other strings count with the 100,000 uuids
        assert_eq!(seen.len(), 100_002);
    }
}
