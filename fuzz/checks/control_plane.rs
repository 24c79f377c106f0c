//! Properties of the control plane's request bodies
//! (`dsh_sandboxd::server::check_body`: the parsing and checks each route applies), for
//! the `control_plane` fuzz target and dsh-sandboxd's test replaying its regressions.
//!
//! Input: one control byte (route and Content-Type), then a request body.

use dsh_sandboxd::server::check_body;

const ROUTES: [&str; 7] = [
    "POST /sandboxes",
    "POST /v2/sandboxes",
    "POST /sandboxes/{id}/connect",
    "POST /sandboxes/{id}/resume",
    "POST /sandboxes/{id}/timeout",
    "PUT /sandboxes/{id}/network",
    "POST /layers",
];

/// Content types that are JSON, then one that is not.
const JSON_TYPES: [Option<&str>; 4] = [
    None,
    Some("application/json"),
    Some("Application/JSON; charset=utf-8"),
    Some("application/vnd.e2b+json"),
];

/// The verdict without its message (serde's messages name columns, which move).
fn status(result: &Result<(), (u16, String)>) -> Option<u16> {
    result.as_ref().err().map(|(status, _)| *status)
}

pub fn check(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else { return };
    let route = ROUTES[usize::from(control) % ROUTES.len()];
    let json_type = JSON_TYPES[usize::from(control / 8) % JSON_TYPES.len()];

    // A bad body is the client's fault: a 4xx naming something, never a 5xx.
    let verdict = check_body(route, json_type, body);
    if let Err((code, message)) = &verdict {
        assert!((400..500).contains(code), "{route}: {code} {message}");
        assert!(!message.trim().is_empty(), "{route}: {code} without a message");
    }
    // Every JSON content type reads the body the same way; text is refused unless there
    // is no body at all.
    assert_eq!(check_body(route, None, body), verdict);
    let blank = body.iter().all(u8::is_ascii_whitespace);
    let as_text = check_body(route, Some("text/plain"), body);
    if blank {
        assert_eq!(as_text, verdict);
    } else {
        assert_eq!(status(&as_text), Some(415), "{route}: {as_text:?}");
    }
    // Whitespace around a body changes nothing.
    if !blank {
        let padded = [b" \r\n".as_slice(), body, b"\t\n"].concat();
        assert_eq!(status(&check_body(route, json_type, &padded)), status(&verdict));
    }
}
