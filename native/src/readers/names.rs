//! The session id a file's name stands in with (`wavemetrics/readers/_uuids.py`), for
//! the formats whose files name their session in their name (`codex`, `pi`).

use std::path::Path;

/// `_uuids.session_id_from_file_name`: the UUID that ends a file's name (its text
/// before the first `.`, the UUID after a `-` or `_` or alone), else that text (the
/// whole name when it is empty). Name bytes that are not UTF-8 become `\xNN` text
/// (`os_text`). Python's `$` also matches before a final `\n`, so a UUID followed
/// by one still ends the name. Standard input (`-`) is `stdin`.
pub fn session_id_from_file_name(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    if path.as_os_str() == crate::io::STDIN {
        return "stdin".to_string(); // standard input, as Python names it
    }
    let raw = path.file_name().unwrap_or(path.as_os_str()).as_bytes();
    let mut name = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        name.push_str(chunk.valid());
        for byte in chunk.invalid() {
            name.push_str(&format!("\\x{byte:02x}"));
        }
    }
    let stem = match name.split('.').next() {
        Some(stem) if !stem.is_empty() => stem,
        _ => name.as_str(),
    };
    let body = stem.strip_suffix('\n').unwrap_or(stem).as_bytes();
    let Some(start) = body.len().checked_sub(36) else {
        return stem.to_string();
    };
    let uuid = &body[start..];
    let shaped = uuid.iter().enumerate().all(|(i, &b)| match i {
        8 | 13 | 18 | 23 => b == b'-',
        _ => b.is_ascii_hexdigit(),
    });
    if shaped && (start == 0 || matches!(body[start - 1], b'-' | b'_')) {
        // ASCII throughout, so the bytes are the text
        String::from_utf8_lossy(uuid).into_owned()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_s_trailing_uuid_is_the_session_id_as_python_finds_it() {
        use std::os::unix::ffi::OsStrExt as _;
        let id = |name: &[u8]| {
            let path = [b"/s/".as_slice(), name].concat();
            session_id_from_file_name(Path::new(std::ffi::OsStr::from_bytes(&path)))
        };
        let uuid = "01997e76-d124-7592-9cac-2ec05abbca08";
        let named = |name: String| id(name.as_bytes());
        assert_eq!(
            named(format!("rollout-2025-09-24T19-22-20-{uuid}.jsonl")),
            uuid
        );
        assert_eq!(named(format!("2025-12-09T00-52_{uuid}.jsonl")), uuid);
        assert_eq!(named(uuid.to_string()), uuid);
        // standard input (`-`) is `stdin`; a file named `-` in a folder is not it
        assert_eq!(session_id_from_file_name(Path::new("-")), "stdin");
        assert_eq!(named("-".to_string()), "-");
        assert_eq!(
            named(format!("a-{}\n.jsonl", uuid.to_uppercase())),
            uuid.to_uppercase()
        );
        // no separator before it, a letter after it, a separator out of place: the stem
        assert_eq!(named(format!("x{uuid}.jsonl")), format!("x{uuid}"));
        assert_eq!(named(format!("a-{uuid}x.jsonl")), format!("a-{uuid}x"));
        assert_eq!(named(format!("a-{uuid}\n\n")), format!("a-{uuid}\n\n"));
        let odd = uuid.replacen('-', "_", 1);
        assert_eq!(named(format!("a-{odd}")), format!("a-{odd}"));
        assert_eq!(id(b"notes.jsonl.gz"), "notes");
        assert_eq!(id(b".hidden.jsonl"), ".hidden.jsonl");
        // bytes that are not UTF-8 are \xNN text; the UUID after them still ends the name
        assert_eq!(id(b"r\xff\xc3.jsonl"), "r\\xff\\xc3");
        assert_eq!(id(b"r\xed\xa0\x80"), "r\\xed\\xa0\\x80");
        assert_eq!(named(format!("\u{e9}-{uuid}")), uuid);
        assert_eq!(
            id([b"\xff_".as_slice(), uuid.as_bytes()].concat().as_slice()),
            uuid
        );
    }
}
