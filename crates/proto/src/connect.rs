//! The Connect protocol over HTTP/1.1: codes, errors, envelopes and codecs.
//!
//! Unary calls carry one bare message (`application/json` or `application/proto`);
//! streaming calls carry envelopes (`application/connect+json` / `+proto`): one flag
//! byte, a 4-byte big-endian length, the payload. A streaming response always ends with
//! one end-of-stream envelope (flag 0x02) whose payload is JSON, whatever the codec.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Envelope flag: the payload is compressed with the negotiated encoding.
pub const FLAG_COMPRESSED: u8 = 0x01;
/// Envelope flag: this is the end-of-stream message.
pub const FLAG_END_STREAM: u8 = 0x02;
/// Bytes before an envelope's payload.
pub const ENVELOPE_HEADER_LEN: usize = 5;
/// The default cap on one message, in either direction.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// A Connect error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    Canceled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
}

impl Code {
    pub const ALL: [Code; 16] = [
        Code::Canceled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// The snake_case name used in JSON error bodies.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Canceled => "canceled",
            Code::Unknown => "unknown",
            Code::InvalidArgument => "invalid_argument",
            Code::DeadlineExceeded => "deadline_exceeded",
            Code::NotFound => "not_found",
            Code::AlreadyExists => "already_exists",
            Code::PermissionDenied => "permission_denied",
            Code::ResourceExhausted => "resource_exhausted",
            Code::FailedPrecondition => "failed_precondition",
            Code::Aborted => "aborted",
            Code::OutOfRange => "out_of_range",
            Code::Unimplemented => "unimplemented",
            Code::Internal => "internal",
            Code::Unavailable => "unavailable",
            Code::DataLoss => "data_loss",
            Code::Unauthenticated => "unauthenticated",
        }
    }

    pub fn parse(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|code| code.as_str() == name)
    }

    /// The HTTP status of a unary error response with this code.
    pub fn http_status(self) -> u16 {
        match self {
            Code::Canceled => 499,
            Code::Unknown | Code::Internal | Code::DataLoss => 500,
            Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
            Code::DeadlineExceeded => 504,
            Code::NotFound => 404,
            Code::AlreadyExists | Code::Aborted => 409,
            Code::PermissionDenied => 403,
            Code::ResourceExhausted => 429,
            Code::Unimplemented => 501,
            Code::Unavailable => 503,
            Code::Unauthenticated => 401,
        }
    }

    /// The code a client infers from an HTTP status when the body is not a Connect
    /// error (a proxy's page, envd's own `{"code":401}` body).
    pub fn from_http_status(status: u16) -> Code {
        match status {
            400 => Code::InvalidArgument,
            401 => Code::Unauthenticated,
            403 => Code::PermissionDenied,
            404 => Code::NotFound,
            409 => Code::AlreadyExists,
            413 | 429 => Code::ResourceExhausted,
            499 => Code::Canceled,
            500 => Code::Internal,
            501 | 505 => Code::Unimplemented,
            502 | 503 => Code::Unavailable,
            504 => Code::DeadlineExceeded,
            _ => Code::Unknown,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of an error's `details`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetail {
    /// Fully qualified message name.
    pub type_name: String,
    /// The serialized message.
    pub value: Vec<u8>,
}

/// An RPC error as Connect carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectError {
    pub code: Code,
    pub message: String,
    pub details: Vec<ErrorDetail>,
}

impl ConnectError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: Vec::new() }
    }
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::Internal, message)
    }
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(Code::Unimplemented, message)
    }

    /// The JSON body of a unary error, or the `error` member of an end-of-stream message.
    pub fn to_json(&self) -> serde_json::Value {
        let mut body = serde_json::Map::new();
        body.insert("code".into(), self.code.as_str().into());
        if !self.message.is_empty() {
            body.insert("message".into(), self.message.clone().into());
        }
        if !self.details.is_empty() {
            let details = self
                .details
                .iter()
                .map(|detail| {
                    serde_json::json!({
                        "type": detail.type_name,
                        "value": base64::engine::general_purpose::STANDARD_NO_PAD.encode(&detail.value),
                    })
                })
                .collect();
            body.insert("details".into(), serde_json::Value::Array(details));
        }
        serde_json::Value::Object(body)
    }

    /// Reads an error from JSON. A body that is not a Connect error yields `None`, and
    /// the caller falls back to the HTTP status.
    pub fn from_json(value: &serde_json::Value) -> Option<Self> {
        let code = Code::parse(value.get("code")?.as_str()?)?;
        let message = value.get("message").and_then(|m| m.as_str()).unwrap_or_default().to_owned();
        let details = value
            .get("details")
            .and_then(|d| d.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| {
                        let type_name = item.get("type")?.as_str()?.to_owned();
                        let value = decode_base64_lenient(item.get("value")?.as_str()?)?;
                        Some(ErrorDetail { type_name, value })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self { code, message, details })
    }

    /// Reads a unary error response body, falling back to the HTTP status when the body
    /// is not a Connect error.
    pub fn from_unary_response(status: u16, body: &[u8]) -> Self {
        let parsed = serde_json::from_slice::<serde_json::Value>(body).ok();
        if let Some(error) = parsed.as_ref().and_then(Self::from_json) {
            return error;
        }
        let message = parsed
            .as_ref()
            .and_then(|v| v.get("message"))
            .and_then(|m| m.as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
        Self::new(Code::from_http_status(status), message)
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.code)
        } else {
            write!(f, "{}: {}", self.code, self.message)
        }
    }
}

impl std::error::Error for ConnectError {}

fn decode_base64_lenient(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let trimmed = text.trim_end_matches('=');
    STANDARD_NO_PAD.decode(trimmed).or_else(|_| URL_SAFE_NO_PAD.decode(trimmed)).ok()
}

/// The end-of-stream message of a streaming response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndStream {
    pub error: Option<ConnectError>,
    pub metadata: BTreeMap<String, Vec<String>>,
}

impl EndStream {
    pub fn ok() -> Self {
        Self::default()
    }
    pub fn error(error: ConnectError) -> Self {
        Self { error: Some(error), metadata: BTreeMap::new() }
    }

    pub fn to_json_bytes(&self) -> Bytes {
        let mut body = serde_json::Map::new();
        if let Some(error) = &self.error {
            body.insert("error".into(), error.to_json());
        }
        if !self.metadata.is_empty() {
            let metadata = self
                .metadata
                .iter()
                .map(|(key, values)| (key.clone(), serde_json::json!(values)))
                .collect();
            body.insert("metadata".into(), serde_json::Value::Object(metadata));
        }
        Bytes::from(serde_json::Value::Object(body).to_string())
    }

    pub fn from_json_bytes(payload: &[u8]) -> Result<Self, ConnectError> {
        let value: serde_json::Value = serde_json::from_slice(payload).map_err(|err| {
            ConnectError::internal(format!("malformed end-of-stream message: {err}"))
        })?;
        let error = match value.get("error") {
            None | Some(serde_json::Value::Null) => None,
            Some(error) => Some(ConnectError::from_json(error).unwrap_or_else(|| {
                ConnectError::new(Code::Unknown, format!("unreadable stream error: {error}"))
            })),
        };
        let metadata = value
            .get("metadata")
            .and_then(|m| m.as_object())
            .map(|object| {
                object
                    .iter()
                    .map(|(key, values)| {
                        let values = values
                            .as_array()
                            .map(|items| {
                                items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
                            })
                            .unwrap_or_default();
                        (key.clone(), values)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self { error, metadata })
    }
}

/// One framed message of a streaming body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub flags: u8,
    pub payload: Bytes,
}

impl Envelope {
    pub fn is_end_stream(&self) -> bool {
        self.flags & FLAG_END_STREAM != 0
    }
    pub fn is_compressed(&self) -> bool {
        self.flags & FLAG_COMPRESSED != 0
    }
}

/// Frames `payload` as one envelope.
pub fn encode_envelope(flags: u8, payload: &[u8]) -> Result<Bytes, EnvelopeError> {
    let len = u32::try_from(payload.len()).map_err(|_| EnvelopeError::TooLarge {
        len: payload.len() as u64,
        max: u32::MAX as usize,
    })?;
    let mut out = BytesMut::with_capacity(ENVELOPE_HEADER_LEN + payload.len());
    out.put_u8(flags);
    out.put_u32(len);
    out.put_slice(payload);
    Ok(out.freeze())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("envelope of {len} bytes is over the {max}-byte cap")]
    TooLarge { len: u64, max: usize },
    #[error("stream ended inside an envelope ({buffered} bytes buffered)")]
    Truncated { buffered: usize },
    #[error("unknown envelope flags 0x{0:02x}")]
    UnknownFlags(u8),
}

impl From<EnvelopeError> for ConnectError {
    fn from(err: EnvelopeError) -> Self {
        let code = match err {
            EnvelopeError::TooLarge { .. } => Code::ResourceExhausted,
            EnvelopeError::Truncated { .. } | EnvelopeError::UnknownFlags(_) => {
                Code::InvalidArgument
            }
        };
        ConnectError::new(code, err.to_string())
    }
}

/// Reassembles envelopes from chunks split anywhere. Memory stays bounded by the cap:
/// an oversized length is refused as soon as its header arrives.
#[derive(Debug)]
pub struct EnvelopeDecoder {
    buffer: BytesMut,
    max_message_bytes: usize,
}

impl EnvelopeDecoder {
    pub fn new(max_message_bytes: usize) -> Self {
        Self { buffer: BytesMut::new(), max_message_bytes }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next complete envelope, if one has arrived.
    pub fn next_envelope(&mut self) -> Result<Option<Envelope>, EnvelopeError> {
        if self.buffer.len() < ENVELOPE_HEADER_LEN {
            return Ok(None);
        }
        let flags = self.buffer[0];
        if flags & !(FLAG_COMPRESSED | FLAG_END_STREAM) != 0 {
            return Err(EnvelopeError::UnknownFlags(flags));
        }
        let len =
            u32::from_be_bytes([self.buffer[1], self.buffer[2], self.buffer[3], self.buffer[4]])
                as usize;
        if len > self.max_message_bytes {
            return Err(EnvelopeError::TooLarge { len: len as u64, max: self.max_message_bytes });
        }
        if self.buffer.len() < ENVELOPE_HEADER_LEN + len {
            return Ok(None);
        }
        self.buffer.advance(ENVELOPE_HEADER_LEN);
        let payload = self.buffer.split_to(len).freeze();
        Ok(Some(Envelope { flags, payload }))
    }

    /// Call when the body has ended: bytes left over mean a cut-off envelope.
    pub fn finish(&self) -> Result<(), EnvelopeError> {
        if self.buffer.is_empty() {
            Ok(())
        } else {
            Err(EnvelopeError::Truncated { buffered: self.buffer.len() })
        }
    }
}

/// A message type of the envd wire: binary (prost) and proto3-JSON (pbjson) capable.
pub trait WireMessage:
    prost::Message + Default + Serialize + DeserializeOwned + Send + 'static
{
}
impl<T: prost::Message + Default + Serialize + DeserializeOwned + Send + 'static> WireMessage
    for T
{
}

/// How messages are serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Json,
    Proto,
}

/// Whether a request is unary (bare message) or streaming (envelopes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Unary,
    Streaming,
}

impl Codec {
    /// Parses a request `Content-Type` into codec and framing.
    pub fn from_content_type(content_type: &str) -> Option<(Codec, Framing)> {
        let essence =
            content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        match essence.as_str() {
            "application/json" => Some((Codec::Json, Framing::Unary)),
            "application/proto" => Some((Codec::Proto, Framing::Unary)),
            "application/connect+json" => Some((Codec::Json, Framing::Streaming)),
            "application/connect+proto" => Some((Codec::Proto, Framing::Streaming)),
            _ => None,
        }
    }

    pub fn content_type(self, framing: Framing) -> &'static str {
        match (self, framing) {
            (Codec::Json, Framing::Unary) => "application/json",
            (Codec::Proto, Framing::Unary) => "application/proto",
            (Codec::Json, Framing::Streaming) => "application/connect+json",
            (Codec::Proto, Framing::Streaming) => "application/connect+proto",
        }
    }

    pub fn encode<M: WireMessage>(self, message: &M) -> Result<Bytes, ConnectError> {
        match self {
            Codec::Proto => Ok(Bytes::from(message.encode_to_vec())),
            Codec::Json => serde_json::to_vec(message)
                .map(Bytes::from)
                .map_err(|err| ConnectError::internal(format!("cannot encode message: {err}"))),
        }
    }

    pub fn decode<M: WireMessage>(self, payload: &[u8]) -> Result<M, ConnectError> {
        match self {
            Codec::Proto => M::decode(payload).map_err(|err| {
                ConnectError::invalid_argument(format!("malformed protobuf message: {err}"))
            }),
            Codec::Json => {
                // Checked first so invalid UTF-8 gets its own clear message.
                std::str::from_utf8(payload).map_err(|err| {
                    ConnectError::invalid_argument(format!(
                        "request body is not valid UTF-8: {err}"
                    ))
                })?;
                // An empty unary body is the empty message, as connect-go treats it.
                if payload.iter().all(u8::is_ascii_whitespace) {
                    return Ok(M::default());
                }
                serde_json::from_slice(payload).map_err(|err| {
                    ConnectError::invalid_argument(format!("malformed JSON message: {err}"))
                })
            }
        }
    }
}

/// Parses `Connect-Timeout-Ms`: at most 10 ASCII digits, as the protocol specifies.
pub fn parse_timeout_ms(value: &str) -> Result<u64, ConnectError> {
    if value.is_empty() || value.len() > 10 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ConnectError::invalid_argument(format!(
            "invalid connect-timeout-ms header: {value:?}"
        )));
    }
    value.parse().map_err(|_| {
        ConnectError::invalid_argument(format!("invalid connect-timeout-ms header: {value:?}"))
    })
}

#[cfg(test)]
mod tests;
