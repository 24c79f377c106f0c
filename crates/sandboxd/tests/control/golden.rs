//! Golden files: a response body pinned byte for byte in `golden/<name>.json`, so a change
//! of the handlers that alters what a client reads (a key's order, spacing, a message)
//! shows as a failing test. `DSH_UPDATE_GOLDEN=1` writes the files instead of comparing.
//!
//! What varies from run to run (ids, tokens, times, ports) is replaced in the raw text
//! before the comparison, by a [`Normalizer`]: the values the test itself learned (an id
//! from an earlier answer) by name, RFC 3339 times by shape, and the numbers of named
//! keys (samples of a running sandbox). The body is never parsed and re-serialized:
//! that would hide the very layout the files pin.

use std::path::PathBuf;

/// What a body's dynamic values are replaced with, in its raw text.
#[derive(Default)]
pub struct Normalizer {
    /// (value, placeholder): each value reads as its placeholder.
    known: Vec<(String, String)>,
    /// Keys whose number value reads `<key>`.
    masked_numbers: Vec<String>,
}

impl Normalizer {
    /// `value` reads `<placeholder>` in every body from now on. A value already named
    /// keeps its first name (a fork may share its parent's token).
    pub fn name(&mut self, value: &str, placeholder: &str) {
        assert!(!value.is_empty(), "an empty value for {placeholder}");
        if self.known.iter().any(|(known, _)| known == value) {
            return;
        }
        self.known.push((value.to_owned(), format!("<{placeholder}>")));
    }

    /// The number after `"key":` reads `<key>`: a value a running sandbox's sample has
    /// (CPU, memory) that no test can know.
    pub fn mask_number(&mut self, key: &str) {
        self.masked_numbers.push(key.to_owned());
    }

    pub fn apply(&self, text: &str) -> String {
        // Longest first: a value that holds another is replaced whole.
        let mut known: Vec<&(String, String)> = self.known.iter().collect();
        known.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        let mut text = text.to_owned();
        for (value, placeholder) in known {
            text = text.replace(value.as_str(), placeholder);
        }
        let mut text = replace_times(&text);
        for key in &self.masked_numbers {
            text = mask_number_of(&text, key);
        }
        text
    }
}

/// Every RFC 3339 UTC time (`2026-11-30T10:08:00Z`, `2026-11-30T10:08:00.123Z`, any
/// fraction) reads `<time>`.
fn replace_times(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        match time_length(&bytes[i..]) {
            Some(length) => {
                out.push_str("<time>");
                i += length;
            }
            None => {
                // Times are ASCII: a multi-byte character is copied whole.
                let next = text[i..].chars().next().unwrap();
                out.push(next);
                i += next.len_utf8();
            }
        }
    }
    out
}

/// The length of the RFC 3339 UTC time `bytes` start with, if they do.
fn time_length(bytes: &[u8]) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    if bytes.len() < SHAPE.len() {
        return None;
    }
    let shaped = SHAPE.iter().zip(bytes).all(|(shape, byte)| match shape {
        b'd' => byte.is_ascii_digit(),
        literal => literal == byte,
    });
    if !shaped {
        return None;
    }
    let mut end = SHAPE.len();
    if bytes.get(end) == Some(&b'.') {
        let digits = bytes[end + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        end += 1 + digits;
    }
    (bytes.get(end) == Some(&b'Z')).then_some(end + 1)
}

/// Each `"key":<number>` reads `"key":<key>`.
fn mask_number_of(text: &str, key: &str) -> String {
    let prefix = format!("\"{key}\":");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&prefix) {
        let value = &rest[at + prefix.len()..];
        let length = value
            .bytes()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'e' | b'E' | b'+'))
            .count();
        assert!(length > 0, "{key} is not a number in {text}");
        out.push_str(&rest[..at + prefix.len()]);
        out.push_str(&format!("<{key}>"));
        rest = &value[length..];
    }
    out.push_str(rest);
    out
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/control/golden")
        .join(format!("{name}.json"))
}

/// `body` (normalized already) is exactly `golden/<name>.json`; with
/// `DSH_UPDATE_GOLDEN=1` it becomes that file.
pub fn assert_golden(name: &str, body: &str) {
    let path = golden_path(name);
    if std::env::var_os("DSH_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, body).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e} (DSH_UPDATE_GOLDEN=1 writes it)", path.display());
    });
    assert_eq!(
        body,
        expected,
        "the body of {name} differs from {} (DSH_UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

#[test]
fn times_known_values_and_numbers_are_replaced_and_nothing_else() {
    let mut normalizer = Normalizer::default();
    normalizer.name("abc123", "sandboxID");
    normalizer.name("abc1234567", "token");
    normalizer.mask_number("memUsed");
    assert_eq!(
        normalizer.apply(
            r#"{"at":"2026-11-30T10:08:00Z","end":"2026-11-30T10:08:00.123Z","id":"abc123","memUsed":1234,"t":"abc1234567","x":"2026-11-30T10:08"}"#
        ),
        r#"{"at":"<time>","end":"<time>","id":"<sandboxID>","memUsed":<memUsed>,"t":"<token>","x":"2026-11-30T10:08"}"#
    );
}
