//! Opening an input file to read natively, for detection (`detect.rs`) and the
//! readers (`readers/`) alike: one module below both, so neither reaches into the
//! other to open a file (`sources.py` is its Python side).

use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A file opened by [`open_plain`]: the bytes its gzip check read, then the rest.
pub type PlainFile = io::Chain<io::Take<io::Cursor<[u8; 2]>>, File>;

/// An input opened by [`open_input`]: its content as Python's `Source` reads it.
pub enum Input {
    Plain(PlainFile),
    /// gzip content, decompressed member after member as `gzip.open` does; a
    /// decompression failure is [`io::ErrorKind::Unsupported`] (see [`open_input`]).
    Gzip(Box<MultiGzDecoder<PlainFile>>),
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Plain(file) => file.read(buf),
            // every failure, an interrupted read too (which would only cost a
            // decline): the file is then read by Python
            Input::Gzip(stream) => stream
                .read(buf)
                .map_err(|e| io::Error::new(io::ErrorKind::Unsupported, e)),
        }
    }
}

/// Opens `path` and reads its first two bytes: the file (those bytes handed back
/// first, so the reader sees the whole file: no second open, ~2 ms of the
/// 1,800-file fleet, docs/performance-history.md, "Eleventh round") and whether
/// they are the gzip magic bytes.
fn open_checked(path: &Path) -> io::Result<(PlainFile, bool)> {
    let mut file = File::open(opened(path))?;
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
    let gzip = got == 2 && head == GZIP_MAGIC;
    Ok((io::Cursor::new(head).take(got as u64).chain(file), gzip))
}

/// The file to open for `path`: `-`, the package's name for standard input
/// (`sources.STDIN`), is opened anew through `/dev/stdin`, every other path as it is.
/// The package names `-` to the extension only once standard input is a regular file
/// that reads the same from its start on every open (`wavemetrics/inputs/_stdin.py`
/// puts piped input in an in-memory file in its place first), never a pipe, which an
/// open would take lines from.
pub fn opened(path: &Path) -> &Path {
    if path.as_os_str() == STDIN {
        Path::new("/dev/stdin")
    } else {
        path
    }
}

/// `sources.STDIN`: the path that names standard input.
pub const STDIN: &str = "-";

/// Whether `path` is named as compressed: `sources.py` opens a `.gz` file with
/// `gzip.open` whatever its first bytes are (without the magic bytes: an error).
fn named_gzip(path: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().ends_with(b".gz")
}

fn unsupported(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::Unsupported, what)
}

/// Opens a file to read natively as it is: a file that is compressed (the gzip
/// magic bytes) or named so (`.gz`) is refused (`Unsupported`), and Python reads
/// it. For the `inspect` reader, whose Python twin opens some files itself.
pub fn open_plain(path: &Path) -> io::Result<PlainFile> {
    let (file, gzip) = open_checked(path)?;
    if gzip || named_gzip(path) {
        return Err(unsupported("gzip content"));
    }
    Ok(file)
}

/// Opens a file to read natively as Python's `Source` reads it (`sources.py`): a
/// file that starts with the gzip magic bytes is decompressed, member after member,
/// by flate2 (each member's CRC-32 and size checked, as `gzip` checks them). Every
/// gzip file Python could read otherwise is left to it (`Unsupported`, which the
/// readers and detection take as "read by Python"): a `.gz` name without the magic
/// bytes (an error there, or an empty file), and any stream flate2 does not
/// decompress to its end, since `gzip` may still read lines of it (a cut or
/// damaged stream: the lines before the damage, then the input's error), take more
/// (zero bytes padding the last member, a wrong header CRC, reserved flag bits) or
/// say it in its own words.
pub fn open_input(path: &Path) -> io::Result<Input> {
    let (file, gzip) = open_checked(path)?;
    if gzip {
        return Ok(Input::Gzip(Box::new(MultiGzDecoder::new(file))));
    }
    if named_gzip(path) {
        return Err(unsupported("a .gz name without gzip content"));
    }
    Ok(Input::Plain(file))
}

/// The first two bytes of a gzip stream.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_input_is_opened_through_dev_stdin_and_only_it() {
        assert_eq!(opened(Path::new("-")), Path::new("/dev/stdin"));
        for path in ["./-", "-.jsonl", "a/-", "--", "", "/dev/stdin"] {
            assert_eq!(opened(Path::new(path)), Path::new(path), "{path}");
        }
    }

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

    /// `content` compressed as one gzip member (flate2's encoder, the default level).
    fn gzipped(content: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(content).unwrap();
        encoder.finish().unwrap()
    }

    /// Everything `open_input` gives for `bytes` written as `name`, or the error's kind.
    fn read_input(name: &str, bytes: &[u8]) -> Result<Vec<u8>, io::ErrorKind> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let mut read = Vec::new();
        open_input(&path)
            .and_then(|mut input| input.read_to_end(&mut read))
            .map(|_| read)
            .map_err(|e| e.kind())
    }

    #[test]
    fn gzip_content_is_decompressed_member_after_member() {
        let content = b"{\"a\":1}\n{}\n";
        assert_eq!(
            read_input("s.jsonl.gz", &gzipped(content)),
            Ok(content.to_vec())
        );
        // the magic bytes decide, not the name
        assert_eq!(
            read_input("s.jsonl", &gzipped(content)),
            Ok(content.to_vec())
        );
        let mut two = gzipped(b"{}\n{");
        two.extend(gzipped(b"}\n"));
        assert_eq!(read_input("s.jsonl.gz", &two), Ok(b"{}\n{}\n".to_vec()));
        assert_eq!(read_input("s.jsonl.gz", &gzipped(b"")), Ok(Vec::new()));
        // plain content is read as it is, under any other name
        assert_eq!(read_input("s.jsonl", content), Ok(content.to_vec()));
        assert_eq!(read_input("s.gzip", b"\x1f"), Ok(b"\x1f".to_vec()));
    }

    #[test]
    fn a_gzip_read_python_may_make_otherwise_is_unsupported() {
        let packed = gzipped(b"{}\n{}\n");
        let n = packed.len();
        let unsupported = Err(io::ErrorKind::Unsupported);
        // cut short, in the body and in the trailer
        assert_eq!(read_input("a.gz", &packed[..n - 12]), unsupported);
        assert_eq!(read_input("a.gz", &packed[..n - 1]), unsupported);
        // a wrong CRC-32, a wrong size
        let mut crc = packed.clone();
        crc[n - 8] ^= 1;
        assert_eq!(read_input("a.gz", &crc), unsupported);
        let mut size = packed.clone();
        size[n - 4] ^= 1;
        assert_eq!(read_input("a.gz", &size), unsupported);
        // zero bytes after the last member (gzip skips them), other bytes
        let mut padded = packed.clone();
        padded.extend([0u8; 8]);
        assert_eq!(read_input("a.gz", &padded), unsupported);
        let mut trailing = packed.clone();
        trailing.push(b'x');
        assert_eq!(read_input("a.gz", &trailing), unsupported);
        // cut inside the header: the magic bytes alone, part of the fixed header, a
        // file name never ended; a member then a second member's magic bytes alone
        // (gzip: "ended early" for each)
        assert_eq!(read_input("a.gz", b"\x1f\x8b"), unsupported);
        assert_eq!(read_input("a.gz", &packed[..6]), unsupported);
        assert_eq!(
            read_input("a.gz", b"\x1f\x8b\x08\x08\0\0\0\0\0\xffname"),
            unsupported
        );
        let mut magic_after = packed.clone();
        magic_after.extend(b"\x1f\x8b");
        assert_eq!(read_input("a.gz", &magic_after), unsupported);
        // a .gz name without the magic bytes, empty or not
        assert_eq!(read_input("a.jsonl.gz", b"{}\n"), unsupported);
        assert_eq!(read_input("a.jsonl.gz", b""), unsupported);
        // open_plain refuses gzip content and gzip names alike
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [("g.jsonl", &packed[..]), ("p.jsonl.gz", &b"{}\n"[..])] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let kind = open_plain(&path).err().map(|e| e.kind());
            assert_eq!(kind, Some(io::ErrorKind::Unsupported), "{name}");
        }
    }
}
