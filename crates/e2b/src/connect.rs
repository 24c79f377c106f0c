//! Connect calls over reqwest: unary, server streams read incrementally, client streams.

use std::marker::PhantomData;
use std::time::Duration;

use bytes::Bytes;
use dsh_proto::connect::{self, Codec, EndStream, EnvelopeDecoder, Framing, WireMessage};
use reqwest::header::{CONTENT_TYPE, HeaderMap};

use crate::error::{Error, Result};

/// The largest message the client accepts from a peer: a lying peer cannot make it
/// buffer more than this.
pub const MAX_MESSAGE_BYTES: usize = connect::DEFAULT_MAX_MESSAGE_BYTES;

/// Attempts at setting up a connection before giving up: the SDKs' `E2B_CONNECTION_RETRIES`
/// default (3 retries, `e2b/api/__init__.py` `connection_retries`), only for failures
/// before the request was written, so nothing is ever sent twice.
const CONNECT_ATTEMPTS: u32 = 4;

/// Sends `request`, retrying (100 ms, 200 ms, 400 ms apart) when the connection could not
/// be set up (refused, unreachable, TLS handshake failed). A request whose body cannot be
/// replayed (a stream) is sent once.
pub(crate) async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response> {
    let mut delay = Duration::from_millis(100);
    for _ in 1..CONNECT_ATTEMPTS {
        let Some(attempt) = request.try_clone() else { break };
        match attempt.send().await {
            Err(err) if err.is_connect() => {
                tracing::debug!(%err, ?delay, "connection setup failed; retrying");
                tokio::time::sleep(delay).await;
                delay *= 2;
            }
            other => return Ok(other?),
        }
    }
    Ok(request.send().await?)
}

/// A non-200 answer to a Connect call as the client's error: E2B's edge answers 502 for a
/// sandbox it no longer has (`e2b/envd/api.py` maps 502 to "sandbox was killed or reached
/// its end of life"), and a 404 that is not a Connect error is a procedure the server
/// does not have (Connect's HTTP mapping: 404 is `unimplemented`; envd before 0.5.2 has
/// no CloseStdin), never "the process is not found".
pub(crate) fn error_answer(status: u16, body: &[u8]) -> Error {
    if let Some(edge) = edge_answer(status, body) {
        return edge;
    }
    let is_connect_error = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|v| v.get("code").is_some_and(serde_json::Value::is_string));
    if status == 404 && !is_connect_error {
        let message = String::from_utf8_lossy(body).trim().to_owned();
        return Error::Rpc(connect::ConnectError::new(connect::Code::Unimplemented, message));
    }
    connect::ConnectError::from_unary_response(status, body).into()
}

/// Plain-text answers of E2B's edge (Go's `http.Error`, body and a newline): routing
/// failures (`packages/shared/pkg/proxy/handler.go`, `pool/client.go`).
const EDGE_TEXTS: [&str; 6] = [
    "missing header",
    "Invalid host",
    "Invalid sandbox ID",
    "Invalid sandbox port",
    "Failed to route request to sandbox",
    "Unexpected error when routing request",
];

/// An answer E2B's edge gave for itself (not envd's), as the client's error; `None` for
/// anything else. A 502 JSON without `port` is the sandbox gone ("The sandbox was not
/// found", `template/sandbox_not_found.go`; dsh-sandboxd's router answers its own 502
/// JSON so too); with `port` the sandbox runs and the port is not open
/// (`template/port_closed.go`); the JSON of 409, 403 and 429 (`sandbox_still_transitioning`,
/// `sandbox_resume_permission_denied`, `sandbox_too_many_connections`,
/// `team_sandbox_limit`) has a numeric `code` and a `sandboxId`; the text answers are
/// [`EDGE_TEXTS`]. Any other 502 (a load balancer's page) is the edge, not proof the
/// sandbox is gone.
pub(crate) fn edge_answer(status: u16, body: &[u8]) -> Option<Error> {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(value) => {
            let numeric_code = value.get("code").is_some_and(serde_json::Value::is_number);
            let message =
                value.get("message").and_then(|m| m.as_str()).unwrap_or_default().to_owned();
            if status == 502 && numeric_code {
                if value.get("port").is_some() {
                    return Some(Error::Edge { status, message });
                }
                return Some(Error::SandboxGone(message));
            }
            if numeric_code && value.get("sandboxId").is_some() {
                return Some(Error::Edge { status, message });
            }
            None
        }
        Err(_) => {
            let text = String::from_utf8_lossy(body).trim().to_owned();
            let edge_text = EDGE_TEXTS.iter().any(|known| text.starts_with(known));
            (edge_text || status == 502).then_some(Error::Edge { status, message: text })
        }
    }
}

pub(crate) fn timeout_header(timeout: Duration) -> String {
    // At most 10 digits per the protocol; clamp absurd values instead of failing.
    timeout.as_millis().min(9_999_999_999).to_string()
}

pub(crate) async fn unary<Req: WireMessage, Resp: WireMessage>(
    request: reqwest::RequestBuilder,
    codec: Codec,
    message: &Req,
) -> Result<Resp> {
    let body = codec.encode(message)?;
    let response = send(
        request
            .header(CONTENT_TYPE, codec.content_type(Framing::Unary))
            .header("connect-protocol-version", "1")
            .body(body),
    )
    .await?;
    let status = response.status().as_u16();
    let content_type = content_type(response.headers());
    let bytes = response.bytes().await?;
    if status != 200 {
        return Err(error_answer(status, &bytes));
    }
    match Codec::from_content_type(&content_type) {
        Some((answered, Framing::Unary)) if answered == codec => Ok(codec.decode(&bytes)?),
        _ => Err(Error::Protocol(format!("unary response has content type {content_type:?}"))),
    }
}

fn content_type(headers: &HeaderMap) -> String {
    headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
}

/// Opens a server stream: one request envelope, then messages until the end envelope.
pub(crate) async fn server_stream<Req: WireMessage, Resp: WireMessage>(
    request: reqwest::RequestBuilder,
    codec: Codec,
    message: &Req,
) -> Result<ResponseStream<Resp>> {
    let payload = codec.encode(message)?;
    let envelope = connect::encode_envelope(0, &payload).map_err(connect::ConnectError::from)?;
    let response = send(
        request
            .header(CONTENT_TYPE, codec.content_type(Framing::Streaming))
            .header("connect-protocol-version", "1")
            .body(envelope),
    )
    .await?;
    ResponseStream::from_response(response, codec).await
}

/// Sends a client stream of already-encoded envelopes and reads the single answer.
pub(crate) async fn client_stream<Resp: WireMessage>(
    request: reqwest::RequestBuilder,
    codec: Codec,
    body: reqwest::Body,
) -> Result<Resp> {
    let response = request
        .header(CONTENT_TYPE, codec.content_type(Framing::Streaming))
        .header("connect-protocol-version", "1")
        .body(body)
        .send()
        .await?;
    let mut stream = ResponseStream::<Resp>::from_response(response, codec).await?;
    let answer = stream
        .next()
        .await?
        .ok_or_else(|| Error::Protocol("client stream answered with no message".into()))?;
    if stream.next().await?.is_some() {
        return Err(Error::Protocol("client stream answered with more than one message".into()));
    }
    Ok(answer)
}

/// Messages of a server stream, decoded as they arrive.
pub struct ResponseStream<M> {
    response: reqwest::Response,
    decoder: EnvelopeDecoder,
    codec: Codec,
    finished: bool,
    _message: PhantomData<fn() -> M>,
}

impl<M: WireMessage> ResponseStream<M> {
    async fn from_response(response: reqwest::Response, codec: Codec) -> Result<Self> {
        let status = response.status().as_u16();
        let content_type = content_type(response.headers());
        if status != 200 {
            let body = response.bytes().await.unwrap_or_default();
            return Err(error_answer(status, &body));
        }
        match Codec::from_content_type(&content_type) {
            Some((answered, Framing::Streaming)) if answered == codec => {}
            _ => {
                return Err(Error::Protocol(format!(
                    "stream response has content type {content_type:?}"
                )));
            }
        }
        Ok(Self {
            response,
            decoder: EnvelopeDecoder::new(MAX_MESSAGE_BYTES),
            codec,
            finished: false,
            _message: PhantomData,
        })
    }

    /// The next message; `Ok(None)` after a clean end of stream. An error carried in the
    /// end-of-stream envelope comes back as `Error::Rpc`.
    pub async fn next(&mut self) -> Result<Option<M>> {
        loop {
            if self.finished {
                return Ok(None);
            }
            match self.decoder.next_envelope() {
                Err(err) => {
                    self.finished = true;
                    return Err(Error::Protocol(err.to_string()));
                }
                Ok(Some(envelope)) if envelope.is_end_stream() => {
                    self.finished = true;
                    let end = EndStream::from_json_bytes(&envelope.payload)
                        .map_err(|err| Error::Protocol(err.message))?;
                    return match end.error {
                        Some(error) => Err(Error::Rpc(error)),
                        None => Ok(None),
                    };
                }
                Ok(Some(envelope)) => {
                    if envelope.is_compressed() {
                        self.finished = true;
                        return Err(Error::Protocol(
                            "compressed envelope although none was negotiated".into(),
                        ));
                    }
                    return self.codec.decode(&envelope.payload).map(Some).map_err(|err| {
                        self.finished = true;
                        Error::Protocol(format!("undecodable stream message: {}", err.message))
                    });
                }
                Ok(None) => {}
            }
            match self.response.chunk().await {
                Ok(Some(chunk)) => self.decoder.push(&chunk),
                Ok(None) => {
                    self.finished = true;
                    return Err(Error::Protocol(
                        "stream ended without an end-of-stream message".into(),
                    ));
                }
                Err(err) => {
                    self.finished = true;
                    return Err(err.into());
                }
            }
        }
    }
}

/// Frames messages as request envelopes for a client stream.
pub(crate) fn envelope<M: WireMessage>(codec: Codec, message: &M) -> Result<Bytes> {
    let payload = codec.encode(message)?;
    Ok(connect::encode_envelope(0, &payload).map_err(connect::ConnectError::from)?)
}
