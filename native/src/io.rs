//! Opening an input file to read natively, for detection (`detect.rs`) and the
//! readers (`readers/`) alike: one module below both, so neither reaches into the
//! other to open a file (`sources.py` is its Python side).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A file opened by [`open_plain`]: the bytes its gzip check read, then the rest.
pub type PlainFile = io::Chain<io::Take<io::Cursor<[u8; 2]>>, File>;

/// Opens a file to read natively; a file starting with the gzip magic bytes is
/// refused (`Unsupported`): Python reads it, decompressed (`sources.py`). The bytes
/// the check read are handed back first (no second open: ~2 ms of the 1,800-file
/// fleet, docs/performance-history.md, "Eleventh round"), so the reader sees the whole file.
pub fn open_plain(path: &Path) -> io::Result<PlainFile> {
    let mut file = File::open(path)?;
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if got == 2 && head == GZIP_MAGIC {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "gzip content"));
    }
    Ok(io::Cursor::new(head).take(got as u64).chain(file))
}

/// The first two bytes of a gzip stream.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_file_is_read_whole_after_its_gzip_check() {
        // the two bytes the check read come first, then the rest, for every short length
        let dir = tempfile::tempdir().unwrap();
        for content in [
            &b""[..],
            b"{",
            b"{}",
            b"{}\n",
            b"\x1f",
            b"\x1fx",
            b"{\"a\":1}\n{}\n",
        ] {
            let path = dir.path().join("f.jsonl");
            std::fs::write(&path, content).unwrap();
            let mut read = Vec::new();
            open_plain(&path).unwrap().read_to_end(&mut read).unwrap();
            assert_eq!(read, content);
        }
        let path = dir.path().join("g.jsonl");
        std::fs::write(&path, b"\x1f\x8b\x08rest").unwrap();
        assert_eq!(
            open_plain(&path).err().map(|e| e.kind()),
            Some(io::ErrorKind::Unsupported)
        );
        assert!(open_plain(&dir.path().join("missing")).is_err());
    }
}
