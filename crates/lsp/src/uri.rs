//! `file://` URIs for absolute sandbox paths (percent-encoded UTF-8, as VS Code does).

use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path.
pub fn from_path(path: &Path) -> String {
    let mut out = String::from("file://");
    for &byte in path.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI; `None` for other schemes or bad escapes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only an empty host (or localhost) is a local path.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for path in ["/tmp/a b/c.py", "/work/你好/café 🎉.ts", "/x/%41#?.rs"] {
            let uri = from_path(Path::new(path));
            assert!(uri.is_ascii(), "{uri}");
            assert_eq!(to_path(&uri).unwrap(), PathBuf::from(path));
        }
        assert_eq!(from_path(Path::new("/a b")), "file:///a%20b");
        // Servers may encode differently (lower-case escapes, `:` kept).
        assert_eq!(to_path("file:///c%3a/x%c3%a9").unwrap(), PathBuf::from("/c:/xé"));
        assert_eq!(to_path("untitled:1"), None);
    }
}
