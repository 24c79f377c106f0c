//! `file://` URIs for absolute sandbox paths.
//!
//! Parsing and percent-decoding are lsp-types' [`Uri`] (strict RFC 3986). Encoding is
//! percent-encoding's with an explicit set: the URI crates' own encoders keep characters
//! RFC 3986 forbids in a path (`[`, `]`, `|`, `^`, which `Uri` then refuses, and which
//! Next.js route files such as `[id].tsx` carry). Everything but unreserved characters and
//! `/` is escaped, as VS Code does, so the result always parses.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_encode};

/// Every byte but unreserved characters (RFC 3986) and `/`.
const ESCAPED_IN_PATHS: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'/').remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The `file://` URI of an absolute path.
pub fn from_path(path: &Path) -> String {
    let encoded = percent_encode(path.as_os_str().as_encoded_bytes(), ESCAPED_IN_PATHS);
    format!("file://{encoded}")
}

/// The path of a `file://` URI; `None` for other schemes, other hosts or bad escapes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    path_of(&Uri::from_str(uri).ok()?)
}

/// [`from_path`] as a protocol [`Uri`].
pub(crate) fn file_uri(path: &Path) -> Result<Uri, crate::LspError> {
    let text = from_path(path);
    Uri::from_str(&text).map_err(|error| {
        crate::LspError::InvalidArgument(format!(
            "{} cannot be named by a file URI ({text}): {error}",
            path.display()
        ))
    })
}

/// The local path a `file` URI names.
pub(crate) fn path_of(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().is_some_and(|scheme| scheme.eq_lowercase("file")) {
        return None;
    }
    // `file://host/path`: only an empty host (or localhost) is a local path.
    if let Some(authority) = uri.authority() {
        let host = authority.host().as_str();
        let local = host.is_empty() || host.eq_ignore_ascii_case("localhost");
        if !local || authority.userinfo().is_some() || authority.port().is_some() {
            return None;
        }
    }
    let path = uri.path();
    if !path.is_absolute() {
        return None;
    }
    let bytes = path.as_estr().decode().into_bytes().into_owned();
    Some(PathBuf::from(String::from_utf8(bytes).ok()?))
}

/// Where a server's URI points: its path, or the URI itself when it names no local file
/// (so the answer still says what the server said).
pub(crate) fn path_or_text(uri: &Uri) -> PathBuf {
    path_of(uri).unwrap_or_else(|| PathBuf::from(uri.as_str()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for path in ["/tmp/a b/c.py", "/work/你好/café 🎉.ts", "/x/%41#?.rs", "/app/[id]|^.tsx"]
        {
            let uri = from_path(Path::new(path));
            assert!(uri.is_ascii(), "{uri}");
            assert_eq!(to_path(&uri).unwrap(), PathBuf::from(path));
            assert_eq!(file_uri(Path::new(path)).unwrap().as_str(), uri);
        }
        assert_eq!(from_path(Path::new("/a b")), "file:///a%20b");
        assert_eq!(from_path(Path::new("/app/[id].tsx")), "file:///app/%5Bid%5D.tsx");
        // Servers may encode differently (lower-case escapes, `:` kept).
        assert_eq!(to_path("file:///c%3a/x%c3%a9").unwrap(), PathBuf::from("/c:/xé"));
        assert_eq!(to_path("file://localhost/x").unwrap(), PathBuf::from("/x"));
        assert_eq!(to_path("untitled:1"), None);
        assert_eq!(to_path("file://server/share/x"), None);
    }

    #[test]
    fn the_encoded_form_is_pinned() {
        // Spaces, `%`, non-ASCII (UTF-8 bytes, upper-case escapes) and every reserved
        // character but `/` are escaped; unreserved characters are kept.
        assert_eq!(
            from_path(Path::new("/a b/100%/é/:@!$&'()*+,;=?#[]|^{}\\\"<>`/A-z0_9.~")),
            "file:///a%20b/100%25/%C3%A9/%3A%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%3F%23%5B%5D\
             %7C%5E%7B%7D%5C%22%3C%3E%60/A-z0_9.~"
        );
    }

    #[test]
    fn uris_naming_no_local_file_are_shown_as_sent() {
        let remote = Uri::from_str("https://example.test/lib.d.ts").unwrap();
        assert_eq!(path_or_text(&remote), PathBuf::from("https://example.test/lib.d.ts"));
        let local = Uri::from_str("file:///w/a%20b.py").unwrap();
        assert_eq!(path_or_text(&local), PathBuf::from("/w/a b.py"));
    }
}
