//! Tool names and sizes as the figures classify them: the normal form and the
//! eval-name rule of `docs/metrics.md` section 4 (`wavemetrics/core/classify.py`),
//! shared by the eval names and section 9's batchable names, and the histogram
//! position of a wave or a batch of n calls (`wavemetrics/core/histogram.py`).
//! A leaf: the summary and the section-9 accumulator both use it.

const BUCKET_MAXIMA: [usize; 7] = [1, 2, 3, 4, 8, 16, 32];

/// The JavaScript `trim()` set of section 4.
fn is_js_trim(c: char) -> bool {
    matches!(c, '\u{9}'..='\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
}

/// Normal form of a tool name: JS trim, lower-case, `-` to `_` (section 4).
pub fn normalize_tool_name(name: &str) -> String {
    name.trim_matches(is_js_trim)
        .to_lowercase()
        .replace('-', "_")
}

/// Eval-name test of section 4 against names already in normal form (none empty).
pub fn is_eval_normal(normal: &str, eval_names: &[String]) -> bool {
    eval_names.iter().any(|e| {
        normal == e
            || (normal.len() > e.len()
                && normal.ends_with(e.as_str())
                && matches!(
                    normal.as_bytes()[normal.len() - e.len() - 1],
                    b'_' | b':' | b'/'
                ))
    })
}

/// 0-based histogram position (0..7) of a wave (or batch) of `size >= 1` calls.
pub fn wave_size_bucket(size: usize) -> usize {
    BUCKET_MAXIMA
        .iter()
        .position(|&m| size <= m)
        .unwrap_or(BUCKET_MAXIMA.len())
}
