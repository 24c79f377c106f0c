//! Properties of the Connect codecs over envd's messages (`dsh_proto::connect::Codec`:
//! prost binary, pbjson proto3 JSON, our RFC 3339 timestamps), for the `connect_codec`
//! fuzz target and dsh-proto's test replaying its regressions.
//!
//! Input: one control byte (which message, which codec), then a message body as a client
//! or a server would send it.

use dsh_proto::connect::{Codec, WireMessage};
use dsh_proto::{filesystem, process};

pub fn check(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else { return };
    let codec = if control & 1 == 0 { Codec::Json } else { Codec::Proto };
    match (control >> 1) % 6 {
        0 => round_trips::<process::StartRequest>(codec, body),
        1 => round_trips::<process::ProcessEvent>(codec, body),
        2 => round_trips::<process::StreamInputRequest>(codec, body),
        3 => round_trips::<filesystem::EntryInfo>(codec, body),
        4 => round_trips::<filesystem::WatchDirResponse>(codec, body),
        _ => round_trips::<process::SendSignalRequest>(codec, body),
    }
}

/// A message decoded from a body encodes, in either codec, to bytes that decode back to
/// itself. JSON encoding may refuse what only the binary form can carry (an enum number
/// the schema does not name): then only the binary round trip is asked for.
fn round_trips<M: WireMessage + PartialEq + std::fmt::Debug>(codec: Codec, body: &[u8]) {
    let Ok(message) = codec.decode::<M>(body) else { return };
    let proto = Codec::Proto.encode(&message).unwrap_or_else(|e| panic!("proto encode: {e}"));
    assert_eq!(Codec::Proto.decode::<M>(&proto).ok().as_ref(), Some(&message), "binary");
    match Codec::Json.encode(&message) {
        Ok(json) => {
            let back = Codec::Json.decode::<M>(&json);
            assert_eq!(
                back.as_ref().ok(),
                Some(&message),
                "JSON {:?}",
                String::from_utf8_lossy(&json)
            );
        }
        Err(error) => assert_eq!(
            codec,
            Codec::Proto,
            "a message read from JSON cannot be written as JSON: {error}"
        ),
    }
}
