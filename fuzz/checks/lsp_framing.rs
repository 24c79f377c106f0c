//! Properties of the LSP base-protocol framing (`dsh_lsp::framing`), for the
//! `lsp_framing` fuzz target and dsh-lsp's test replaying its regressions.
//!
//! Input: one control byte (frame cap and how the stream is cut), then what a language
//! server wrote to its stdout.

use dsh_lsp::framing::{FrameDecoder, FrameError, MAX_HEADER_BYTES, encode};

#[path = "split.rs"]
mod split;

/// The bodies read, then the error that stopped the stream if any, then what was left
/// held (0 after an error: how much was pushed by then depends on the cut).
type Outcome = (Vec<Vec<u8>>, Option<FrameError>, usize);

fn decode(pieces: &[&[u8]], max: usize) -> Outcome {
    let mut decoder = FrameDecoder::new(max);
    let mut frames = Vec::new();
    for piece in pieces {
        decoder.push(piece);
        loop {
            match decoder.next_frame() {
                Ok(Some(body)) => {
                    assert!(body.len() <= max);
                    frames.push(body);
                }
                Ok(None) => break,
                Err(error) => return (frames, Some(error), 0),
            }
        }
        // Waiting for more never holds more than one header block or one body.
        assert!(decoder.buffered() <= max.max(MAX_HEADER_BYTES + 3), "{}", decoder.buffered());
    }
    (frames, None, decoder.buffered())
}

pub fn check(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else { return };
    let max = [0, 8, 100, 1 << 16][usize::from(control & 3)];

    // The same output cut anywhere gives the same frames and the same verdict.
    let whole = decode(&[stream], max);
    assert_eq!(decode(&split::pieces(control >> 2, stream), max), whole);

    // A body read back from its own framing is itself, with nothing left over.
    for body in &whole.0 {
        assert_eq!(decode(&[&encode(body)], max), (vec![body.clone()], None, 0));
    }
    if whole.1.is_none() {
        let bodies = whole.0.iter().map(|b| b.len()).sum::<usize>();
        assert!(bodies + whole.2 <= stream.len());
    }
}
