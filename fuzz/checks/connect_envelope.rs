//! Properties of the Connect envelope decoder and the messages around it
//! (`dsh_proto::connect`), for the `connect_envelope` fuzz target and dsh-proto's test
//! replaying its regressions.
//!
//! Input: one control byte (message cap and how the stream is cut), then a stream body.

use dsh_proto::connect::{
    Codec, ConnectError, ENVELOPE_HEADER_LEN, EndStream, Envelope, EnvelopeDecoder, EnvelopeError,
    FLAG_END_STREAM, encode_envelope, parse_timeout_ms,
};

#[path = "split.rs"]
mod split;

/// What a decoder made of a whole body.
type Outcome = (Vec<Envelope>, Result<(), EnvelopeError>);

fn decode(pieces: &[&[u8]], max: usize) -> Outcome {
    let mut decoder = EnvelopeDecoder::new(max);
    let mut envelopes = Vec::new();
    for piece in pieces {
        decoder.push(piece);
        loop {
            match decoder.next_envelope() {
                Ok(Some(envelope)) => envelopes.push(envelope),
                Ok(None) => break,
                Err(error) => return (envelopes, Err(error)),
            }
        }
    }
    (envelopes, decoder.finish())
}

pub fn check(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else { return };
    let max = [0, 3, 64, 4096][usize::from(control & 3)];

    // The same body cut anywhere decodes to the same envelopes and the same end.
    let (envelopes, end) = decode(&[stream], max);
    assert_eq!(decode(&split::pieces(control >> 2, stream), max), (envelopes.clone(), end.clone()));

    // Every envelope re-encodes to exactly the bytes it came from, within the cap.
    let mut consumed = 0;
    for envelope in &envelopes {
        assert!(envelope.payload.len() <= max);
        let bytes = encode_envelope(envelope.flags, &envelope.payload).unwrap_or_default();
        assert_eq!(&stream[consumed..consumed + bytes.len()], &bytes[..]);
        consumed += bytes.len();
    }
    let rest = &stream[consumed..];
    match end {
        Ok(()) => assert!(rest.is_empty()),
        Err(EnvelopeError::Truncated { buffered }) => {
            assert_eq!(buffered, rest.len());
            assert!(
                rest.len() < ENVELOPE_HEADER_LEN
                    || rest.len() < ENVELOPE_HEADER_LEN + declared_len(rest)
            );
        }
        Err(EnvelopeError::UnknownFlags(flags)) => assert_eq!(rest[0], flags),
        Err(EnvelopeError::TooLarge { len, max: cap }) => {
            assert_eq!((len, cap), (declared_len(rest) as u64, max));
            assert!(declared_len(rest) > max);
        }
    }

    for envelope in &envelopes {
        if envelope.flags & FLAG_END_STREAM != 0 {
            end_stream_round_trips(&envelope.payload);
        } else {
            unary_error_round_trips(u16::from(control) * 2 + 300, &envelope.payload);
        }
    }
    unary_error_round_trips(u16::from(control) + 399, stream);
    if let Ok(text) = std::str::from_utf8(stream) {
        headers(text);
    }
}

fn declared_len(header: &[u8]) -> usize {
    u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize
}

/// An end-of-stream message read back from what it writes is itself.
fn end_stream_round_trips(payload: &[u8]) {
    let Ok(end) = EndStream::from_json_bytes(payload) else { return };
    assert_eq!(EndStream::from_json_bytes(&end.to_json_bytes()), Ok(end));
}

/// A unary error body (or whatever stands in its place) reads as an error whose JSON
/// reads back as itself.
fn unary_error_round_trips(status: u16, body: &[u8]) {
    let error = ConnectError::from_unary_response(status, body);
    let _ = error.to_string();
    assert_eq!(ConnectError::from_json(&error.to_json()), Some(error));
}

/// The headers a Connect server parses: `Content-Type` and `Connect-Timeout-Ms`.
fn headers(text: &str) {
    if let Some((codec, framing)) = Codec::from_content_type(text) {
        let canonical = codec.content_type(framing);
        assert_eq!(Codec::from_content_type(canonical), Some((codec, framing)));
    }
    if let Ok(ms) = parse_timeout_ms(text) {
        assert!(ms <= 9_999_999_999);
        let digits = text.trim_start_matches('0');
        assert_eq!(ms.to_string(), if digits.is_empty() { "0" } else { digits });
    }
}
