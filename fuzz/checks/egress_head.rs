//! Properties of what a diverted connection's first bytes name
//! (`dsh_sandboxd::server::domains::read_head`: the server name of a TLS ClientHello or
//! the `Host` of an HTTP/1 request, which `allowOut` domains are matched on), for the
//! `egress_head` fuzz target and dsh-sandboxd's test replaying its regressions.
//!
//! Input: the bytes a sandboxed program sends first (untrusted: anything, cut anywhere).

use dsh_sandboxd::server::domains::{Head, read_head};

/// Names are lowercased for `Domain::matches`. A server name is not checked further: it
/// is any UTF-8 (line breaks too), which no `allowOut` domain equals.
fn assert_lowercase(name: &str) {
    assert_eq!(name, name.to_ascii_lowercase(), "{name:?} is not lowercase");
}

pub fn check(data: &[u8]) {
    let head = read_head(data);
    match &head {
        Head::Tls(name) => {
            assert_eq!(data.first(), Some(&0x16), "a TLS answer for a non-handshake record");
            if let Some(name) = name {
                assert_lowercase(name);
            }
        }
        Head::Http(host) => {
            assert!(data[0].is_ascii_uppercase(), "an HTTP answer for a non-method byte");
            if let Some(host) = host {
                assert_lowercase(host);
                // A header value ends at its line.
                assert!(!host.contains(['\r', '\n']), "{host:?} spans lines");
            }
        }
        Head::Incomplete | Head::Unknown => {}
    }

    // The relay asks again after every read and acts on the first answer: an answer, once
    // given, must not change with more bytes, or how the program split its writes would
    // pick the name that is checked. So being answered is monotone in the length, and a
    // bisection finds the shortest answered prefix, which must answer the same.
    if head != Head::Incomplete {
        let (mut unanswered, mut answered) = (0, data.len());
        while answered - unanswered > 1 {
            let middle = unanswered + (answered - unanswered) / 2;
            if read_head(&data[..middle]) == Head::Incomplete {
                unanswered = middle;
            } else {
                answered = middle;
            }
        }
        assert_eq!(read_head(&data[..answered]), head, "the answer at {answered} bytes");
    }
    for cut in [data.len() / 3, data.len() / 2, data.len() - data.len() / 4] {
        let prefix = read_head(&data[..cut]);
        if prefix != Head::Incomplete {
            assert_eq!(prefix, head, "the first {cut} bytes answer otherwise");
        }
    }
}
