//! Byte strings kept end to end in one arena: each entry is its length as
//! LEB128 (7 bits a byte, low bits first, the high bit set on every byte but the
//! last), then its bytes; an entry is named by the offset where it begins. The
//! call-id set of `uuids` and the span readers' string table keep their keys
//! this way, a 4-byte offset in a hash table in place of an owned string.

/// Append `bytes` to `arena` as one entry (its offset is `arena.len()` before the call).
pub fn push_entry(arena: &mut Vec<u8>, bytes: &[u8]) {
    let mut n = bytes.len();
    while n >= 0x80 {
        // the low byte with bit 7 set: its low seven bits, and the mark of more to come
        arena.push(n as u8 | 0x80);
        n >>= 7;
    }
    arena.push(n as u8);
    arena.extend_from_slice(bytes);
}

/// The bytes of the entry that begins at `offset`; empty when `offset` is not
/// where [`push_entry`] wrote one and the bytes there run past the arena.
pub fn entry_at(arena: &[u8], offset: usize) -> &[u8] {
    let mut pos = offset;
    let (mut len, mut shift) = (0usize, 0u32);
    while let Some(&byte) = arena.get(pos) {
        pos += 1;
        // wrapping: an offset inside an entry may read a run of 10 or more
        // continuation bytes, whose shift would pass the word (no panic, a length
        // that runs past the arena: empty)
        len |= usize::from(byte & 0x7f).wrapping_shl(shift);
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    arena.get(pos..pos + len).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_leb128() {
        let mut arena = Vec::new();
        push_entry(&mut arena, b"");
        assert_eq!(arena, [0x00]);
        push_entry(&mut arena, &[b'a'; 0x7f]);
        assert_eq!(arena[1], 0x7f);
        assert_eq!(arena.len(), 1 + 1 + 0x7f);
        // 0x80 = 0b1_0000000: 0x80 (low seven bits 0, more to come), then 0x01
        push_entry(&mut arena, &[b'b'; 0x80]);
        assert_eq!(arena[129..131], [0x80, 0x01]);
        // 300 = 0b10_0101100: 0xac, then 0x02
        push_entry(&mut arena, &[b'c'; 300]);
        assert_eq!(arena[259..261], [0xac, 0x02]);
        // 16,384 = 1 << 14 takes three bytes: 0x80 0x80 0x01
        push_entry(&mut arena, &[b'd'; 1 << 14]);
        assert_eq!(arena[561..564], [0x80, 0x80, 0x01]);
        assert_eq!(arena.len(), 564 + (1 << 14));
    }

    #[test]
    fn an_entry_is_read_back_at_its_offset() {
        let mut arena = Vec::new();
        push_entry(&mut arena, b"abc");
        push_entry(&mut arena, b"");
        push_entry(&mut arena, &[b'x'; 200]);
        push_entry(&mut arena, &[b'y'; 1 << 14]);
        assert_eq!(entry_at(&arena, 0), b"abc");
        assert_eq!(entry_at(&arena, 4), b"");
        assert_eq!(entry_at(&arena, 5), [b'x'; 200]);
        assert_eq!(entry_at(&arena, 207), vec![b'y'; 1 << 14]);
        // an offset inside an entry reads a byte of it as a length: "a" is 97, so the
        // 97 bytes from offset 2 ("bc", the empty entry's 0, then 200's 0xc8 0x01)
        let inside = entry_at(&arena, 1);
        assert_eq!(inside.len(), 97);
        assert_eq!(inside[..5], [b'b', b'c', 0, 0xc8, 0x01]);
        assert_eq!(entry_at(&[3, b'a', b'b', b'c', 2, b'z'], 4), b"");
        assert_eq!(entry_at(&[1, 3, b'a', b'b', b'c'], 1), b"abc");
        // past the end, or a length past it: nothing
        assert_eq!(entry_at(&arena, arena.len()), b"");
        assert_eq!(entry_at(&[0x80], 0), b"");
        // twelve continuation bytes, then 1 at a shift of 84 (taken mod 64: 1 << 20)
        let mut runaway = vec![0x80u8; 12];
        runaway.push(0x01);
        runaway.extend([b'z'; 8]);
        assert_eq!(entry_at(&runaway, 0), b"");
    }
}
