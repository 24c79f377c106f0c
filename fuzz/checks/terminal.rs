//! Properties of the terminal's text path (`dsh_pty::utf8` then `dsh_pty::filter`), for
//! the `terminal` fuzz target and dsh-pty's test replaying its regressions.
//!
//! Input: one control byte (how the output is cut), then what a program wrote to its
//! terminal.

use dsh_pty::filter::{ControlFilter, Piece};
use dsh_pty::utf8::Utf8Decoder;

#[path = "split.rs"]
mod split;

/// What the filter hands on, with text runs joined (where a run is cut depends on the
/// chunks) and every other piece rendered as a marker.
#[derive(Debug, PartialEq, Eq)]
enum Out {
    Text(String),
    Control(String),
}

fn filter(chunks: &[String]) -> Vec<Out> {
    let mut filter = ControlFilter::new();
    let mut out: Vec<Out> = Vec::new();
    for chunk in chunks {
        filter.feed(chunk, |piece| {
            let text = match piece {
                Piece::Text(text) => text.to_owned(),
                Piece::Char(c) => c.to_string(),
                Piece::Osc(payload) => {
                    assert!(payload.len() <= 4096, "an OSC payload of {} bytes", payload.len());
                    return out.push(Out::Control(format!("osc {payload}")));
                }
                other => return out.push(Out::Control(format!("{other:?}"))),
            };
            // Only printable characters get through as text.
            assert!(
                !text.chars().any(|c| c < ' ' || c == '\x7f' || ('\u{80}'..='\u{9f}').contains(&c)),
                "control character in {text:?}"
            );
            match out.last_mut() {
                Some(Out::Text(run)) => run.push_str(&text),
                _ => out.push(Out::Text(text)),
            }
        });
    }
    out
}

pub fn check(data: &[u8]) {
    let Some((&control, bytes)) = data.split_first() else { return };

    // UTF-8: at once, the output is the standard lossy decoding (one U+FFFD per maximal
    // invalid subpart); cut anywhere, the same characters and the same count come out.
    let mut whole = Utf8Decoder::new();
    let text = whole.decode(bytes) + &whole.finish();
    assert_eq!(text, String::from_utf8_lossy(bytes));
    let mut cut = Utf8Decoder::new();
    let mut chunks: Vec<String> =
        split::pieces(control, bytes).into_iter().map(|piece| cut.decode(piece)).collect();
    chunks.push(cut.finish());
    assert_eq!(chunks.concat(), text);
    assert_eq!(cut.invalid_count(), whole.invalid_count());
    // Every U+FFFD out is a replacement counted, or one the program wrote (EF BF BD).
    let written = bytes.windows(3).filter(|w| *w == "\u{fffd}".as_bytes()).count();
    assert_eq!(whole.invalid_count(), (text.matches('\u{fffd}').count() - written) as u64);

    // Control filter: the decoded text in the decoder's own chunks (sequences cut
    // anywhere) filters to the same pieces as the text at once.
    assert_eq!(filter(&chunks), filter(&[text]));
}
