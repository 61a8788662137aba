//! Physical lines of a file, read in large chunks (`_lines.py` `iter_records`).

use std::io::{self, Read};

const CHUNK: usize = 1 << 17;

/// A line this long or longer is not held: the reader stops with an
/// `Unsupported` error and the unit is handed back to Python, which counts it
/// as `line_too_long` under the default `--max-line-bytes` (64 MiB,
/// `wavemetrics/readers/limits.py`) or ends the input past `--max-document-bytes`.
/// A little under the limit, so that a trailing `\r` never decides.
pub const MAX_HELD_LINE: usize = 64 * (1 << 20) - 16;

/// Splits a byte stream on `\n`; a line is never copied unless it crosses a chunk.
pub struct LineReader<R> {
    source: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The buffer still holds the source from its first byte (no line was moved to
    /// the front), so [`LineReader::rewound`] can hand its lines out again.
    from_origin: bool,
}

impl<R: Read> LineReader<R> {
    pub fn new(source: R) -> Self {
        LineReader {
            source,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            from_origin: true,
        }
    }

    /// This reader back at the source's first line, when its buffer still holds every
    /// byte read so far (no line has crossed the end of a chunk yet): the lines read
    /// come again without reading the source again. `None` otherwise.
    pub fn rewound(mut self) -> Option<Self> {
        if !self.from_origin {
            return None;
        }
        self.start = 0;
        Some(self)
    }

    /// The next line without its `\n`, and whether it had one; `None` at the end.
    pub fn next_line(&mut self) -> io::Result<Option<(&[u8], bool)>> {
        let mut scanned = self.start;
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[scanned..self.end]) {
                let line_start = self.start;
                let line_end = scanned + pos;
                self.start = line_end + 1;
                return Ok(Some((&self.buf[line_start..line_end], true)));
            }
            scanned = self.end;
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let line_start = self.start;
                self.start = self.end;
                return Ok(Some((&self.buf[line_start..self.end], false)));
            }
            if self.end - self.start >= MAX_HELD_LINE {
                return Err(io::Error::new(io::ErrorKind::Unsupported, "line_too_long"));
            }
            // a full buffer keeps the partial line: moved to the front, or the buffer
            // doubled when it is there already
            if self.end == self.buf.len() {
                if self.start > 0 {
                    self.from_origin = false;
                    self.buf.copy_within(self.start..self.end, 0);
                    scanned -= self.start;
                    self.end -= self.start;
                    self.start = 0;
                } else {
                    let grown = self.buf.len() * 2;
                    self.buf.resize(grown, 0);
                }
            }
            let read = loop {
                match self.source.read(&mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            if read == 0 {
                self.eof = true;
            }
            self.end += read;
        }
    }
}

/// `bytes.isspace()`: ASCII space, `\t`, `\n`, `\r`, `\x0b`, `\x0c`.
pub fn is_py_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(data: &[u8]) -> Vec<(Vec<u8>, bool)> {
        let mut reader = LineReader::new(data);
        reader.buf = vec![0; 4]; // tiny chunks: lines cross chunk borders
        let mut out = Vec::new();
        while let Some((line, nl)) = reader.next_line().unwrap() {
            out.push((line.to_vec(), nl));
        }
        out
    }

    #[test]
    fn python_bytes_whitespace() {
        for byte in [b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c] {
            assert!(is_py_space(byte), "{byte}");
        }
        for byte in [b'x', 0x1c, 0x85, 0xa0, 0] {
            assert!(!is_py_space(byte), "{byte}");
        }
    }

    #[test]
    fn splits_on_newlines_only() {
        assert_eq!(
            all(b"ab\r\n\nlonger line\nend"),
            vec![
                (b"ab\r".to_vec(), true),
                (b"".to_vec(), true),
                (b"longer line".to_vec(), true),
                (b"end".to_vec(), false)
            ]
        );
        assert!(all(b"").is_empty());
        assert_eq!(all(b"x\n"), vec![(b"x".to_vec(), true)]);
    }

    /// A source that hands out one piece per `read`: bytes, or an error of that kind.
    struct Pieces(Vec<Result<&'static [u8], io::ErrorKind>>);

    impl Read for Pieces {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let bytes = self.0.remove(0).map_err(io::Error::from)?;
            out[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_other_errors_end_the_read() {
        let mut reader = LineReader::new(Pieces(vec![
            Ok(b"ab"),
            Err(io::ErrorKind::Interrupted),
            Ok(b"c\n"),
        ]));
        assert_eq!(reader.next_line().unwrap(), Some((&b"abc"[..], true)));
        assert_eq!(reader.next_line().unwrap(), None);
        let mut reader = LineReader::new(Pieces(vec![
            Ok(b"ab"),
            Err(io::ErrorKind::PermissionDenied),
        ]));
        let error = reader.next_line().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
    }

    #[test]
    fn the_buffer_doubles_for_a_long_line_and_stays_small_for_short_ones() {
        // a 100-byte line from a 4-byte buffer: 4, 8, 16, 32, 64, 128
        let mut data = vec![b'y'; 100];
        data.push(b'\n');
        let mut reader = LineReader::new(&data[..]);
        reader.buf = vec![0; 4];
        assert_eq!(reader.next_line().unwrap().unwrap().0.len(), 100);
        assert_eq!(reader.buf.len(), 128);
        // 1,000 lines of 3 bytes: each partial line moves to the front, no growth
        let short = b"ab\n".repeat(1000);
        let mut reader = LineReader::new(&short[..]);
        reader.buf = vec![0; 4];
        let mut count = 0;
        while let Some((line, true)) = reader.next_line().unwrap() {
            assert_eq!(line, b"ab");
            count += 1;
        }
        assert_eq!((count, reader.buf.len()), (1000, 4));
    }

    #[test]
    fn a_reader_rewinds_while_its_buffer_holds_the_source_from_its_start() {
        // one 16-byte chunk holds all: the lines come again, then the end
        let mut reader = LineReader::new(&b"ab\ncd\nef"[..]);
        reader.buf = vec![0; 16];
        assert_eq!(reader.next_line().unwrap(), Some((&b"ab"[..], true)));
        assert_eq!(reader.next_line().unwrap(), Some((&b"cd"[..], true)));
        let mut again = reader.rewound().unwrap();
        let mut lines = Vec::new();
        while let Some((line, newline)) = again.next_line().unwrap() {
            lines.push((line.to_vec(), newline));
        }
        assert_eq!(
            lines,
            [
                (b"ab".to_vec(), true),
                (b"cd".to_vec(), true),
                (b"ef".to_vec(), false)
            ]
        );
        // read to its end, with room left in the buffer: nothing was moved
        let mut again = again.rewound().unwrap();
        assert_eq!(again.next_line().unwrap(), Some((&b"ab"[..], true)));
        // a line that grows the buffer from the front keeps it
        let mut reader = LineReader::new(&b"abcdefgh\nij\n"[..]);
        reader.buf = vec![0; 4];
        assert_eq!(reader.next_line().unwrap(), Some((&b"abcdefgh"[..], true)));
        let mut again = reader.rewound().unwrap();
        assert_eq!(again.next_line().unwrap(), Some((&b"abcdefgh"[..], true)));
        // a line moved to the front loses the bytes before it: no rewind
        let mut reader = LineReader::new(&b"ab\ncdef\n"[..]);
        reader.buf = vec![0; 4];
        assert_eq!(reader.next_line().unwrap(), Some((&b"ab"[..], true)));
        assert_eq!(reader.next_line().unwrap(), Some((&b"cdef"[..], true)));
        assert!(reader.rewound().is_none());
        // nothing read yet
        let fresh = LineReader::new(&b"x\n"[..]).rewound();
        assert_eq!(fresh.unwrap().next_line().unwrap(), Some((&b"x"[..], true)));
    }

    #[test]
    fn the_limit_counts_the_partial_line_alone() {
        // a line 100 bytes under the limit, after one of 99 bytes that stays in the
        // buffer (not full) while the long one is read: only the long one counts
        const LIMIT: usize = 64 * 1024 * 1024 - 16;
        let data = (&[b'y'; 99][..])
            .chain(&b"\n"[..])
            .chain(io::repeat(b'x').take(LIMIT as u64 - 100))
            .chain(&b"\nend\n"[..]);
        let mut reader = LineReader::new(data);
        reader.buf = vec![0; LIMIT];
        assert_eq!(reader.next_line().unwrap().unwrap().0.len(), 99);
        let (line, newline) = reader.next_line().unwrap().unwrap();
        assert_eq!((line.len(), newline), (LIMIT - 100, true));
        assert_eq!(reader.next_line().unwrap().unwrap().0, b"end");
    }

    #[test]
    fn a_line_of_the_limit_is_not_held() {
        // the limit: 16 bytes under the default --max-line-bytes, 64 MiB
        const LIMIT: usize = 64 * 1024 * 1024 - 16;
        // the sources are generated (io::repeat), not held: only the reader's
        // own buffer takes the 64 MiB (this test was most of each mutant's test run)
        let data = io::repeat(b'x')
            .take(LIMIT as u64 - 1)
            .chain(&b"\nshort\n"[..]);
        let mut reader = LineReader::new(data);
        let (line, newline) = reader.next_line().unwrap().unwrap();
        assert_eq!((line.len(), newline), (LIMIT - 1, true));
        assert_eq!(reader.next_line().unwrap().unwrap().0, b"short");
        let long = io::repeat(b'x').take(LIMIT as u64);
        let mut reader = LineReader::new(long);
        let error = reader.next_line().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::Unsupported);
    }
}
