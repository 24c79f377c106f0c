//! Connect server plumbing over axum: decoding requests, running handlers with the
//! caller's user and deadline, and answering in the framing the call used.
//!
//! Unary errors are HTTP statuses with a JSON body. Streaming responses are always
//! HTTP 200 and carry errors in the end-of-stream envelope, even errors raised before
//! the first message (as connect-go does), so clients see one shape.

use std::future::Future;
use std::io::Read as _;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, post};
use bytes::Bytes;
use dsh_proto::connect::{
    self, Code, Codec, ConnectError, EndStream, EnvelopeDecoder, FLAG_END_STREAM, Framing,
    WireMessage,
};
use futures_util::StreamExt as _;
use tokio::sync::mpsc;

use crate::state::Envd;
use crate::users::User;

/// Per-call facts taken from the request headers.
#[derive(Debug, Clone)]
pub struct CallContext {
    pub user: User,
    /// From `Connect-Timeout-Ms`.
    pub timeout: Option<Duration>,
    /// From `Keepalive-Ping-Interval` (seconds); 90 s when absent or invalid.
    pub keepalive: Duration,
}

const DEFAULT_KEEPALIVE: Duration = Duration::from_secs(90);

fn call_context(envd: &Envd, headers: &HeaderMap) -> Result<CallContext, ConnectError> {
    let timeout = match headers.get("connect-timeout-ms") {
        None => None,
        Some(value) => {
            let text = value
                .to_str()
                .map_err(|_| ConnectError::invalid_argument("connect-timeout-ms is not ASCII"))?;
            Some(Duration::from_millis(connect::parse_timeout_ms(text)?))
        }
    };
    let keepalive = headers
        .get("keepalive-ping-interval")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|secs| *secs > 0)
        .map_or(DEFAULT_KEEPALIVE, Duration::from_secs);
    let user = crate::auth::user_from_headers(envd, headers)?;
    Ok(CallContext { user, timeout, keepalive })
}

/// The request's codec, if its content type fits the procedure's framing.
fn negotiate(headers: &HeaderMap, expected: Framing) -> Result<Codec, Response> {
    let content_type =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    match Codec::from_content_type(content_type) {
        Some((codec, framing)) if framing == expected => Ok(codec),
        _ => {
            let accepted = match expected {
                Framing::Unary => "application/json, application/proto",
                Framing::Streaming => "application/connect+json, application/connect+proto",
            };
            let mut response = (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "unsupported content type {content_type:?}; this procedure accepts {accepted}"
                ),
            )
                .into_response();
            response.headers_mut().insert("accept-post", HeaderValue::from_static(accepted));
            Err(response)
        }
    }
}

fn gunzip(payload: &[u8], limit: usize) -> Result<Vec<u8>, ConnectError> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(payload)
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|err| ConnectError::invalid_argument(format!("malformed gzip message: {err}")))?;
    if out.len() > limit {
        return Err(ConnectError::new(
            Code::ResourceExhausted,
            format!("message is over the {limit}-byte cap"),
        ));
    }
    Ok(out)
}

/// Whether request messages are gzip-compressed; other encodings are refused.
fn request_compression(headers: &HeaderMap, header_name: &str) -> Result<bool, ConnectError> {
    match headers.get(header_name).and_then(|v| v.to_str().ok()).map(str::trim) {
        None | Some("") | Some("identity") => Ok(false),
        Some("gzip") => Ok(true),
        Some(other) => Err(ConnectError::unimplemented(format!(
            "unsupported compression {other:?}; use gzip or identity"
        ))),
    }
}

pub fn unary_error(error: &ConnectError) -> Response {
    let status =
        StatusCode::from_u16(error.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [(header::CONTENT_TYPE, "application/json")], error.to_json().to_string())
        .into_response()
}

/// Serves a unary procedure.
pub async fn unary<Req, Resp, F, Fut>(
    envd: Arc<Envd>,
    headers: HeaderMap,
    body: Bytes,
    handler: F,
) -> Response
where
    Req: WireMessage,
    Resp: WireMessage,
    F: FnOnce(Req, CallContext) -> Fut,
    Fut: Future<Output = Result<Resp, ConnectError>>,
{
    let codec = match negotiate(&headers, Framing::Unary) {
        Ok(codec) => codec,
        Err(response) => return response,
    };
    let outcome = async {
        let max = envd.config.max_message_bytes;
        let body = if request_compression(&headers, "content-encoding")? {
            Bytes::from(gunzip(&body, max)?)
        } else {
            body
        };
        if body.len() > max {
            return Err(ConnectError::new(
                Code::ResourceExhausted,
                format!("message is over the {max}-byte cap"),
            ));
        }
        let request: Req = codec.decode(&body)?;
        let context = call_context(&envd, &headers)?;
        let response = match context.timeout {
            Some(limit) => {
                tokio::time::timeout(limit, handler(request, context)).await.map_err(|_| {
                    ConnectError::new(Code::DeadlineExceeded, "the call's deadline passed")
                })??
            }
            None => handler(request, context).await?,
        };
        codec.encode(&response)
    }
    .await;
    match outcome {
        Ok(bytes) => {
            (StatusCode::OK, [(header::CONTENT_TYPE, codec.content_type(Framing::Unary))], bytes)
                .into_response()
        }
        Err(error) => unary_error(&error),
    }
}

/// The sending half of a server stream. Sends fail once the client has gone away,
/// which is how handlers learn to stop.
pub struct StreamWriter<M> {
    tx: mpsc::Sender<Bytes>,
    codec: Codec,
    _message: PhantomData<fn(M)>,
}

impl<M> Clone for StreamWriter<M> {
    fn clone(&self) -> Self {
        Self { tx: self.tx.clone(), codec: self.codec, _message: PhantomData }
    }
}

/// The client closed the response stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the client went away")]
pub struct ClientGone;

impl From<ClientGone> for ConnectError {
    fn from(_: ClientGone) -> Self {
        ConnectError::new(Code::Canceled, "the client went away")
    }
}

impl<M: WireMessage> StreamWriter<M> {
    pub async fn send(&self, message: &M) -> Result<(), ClientGone> {
        let payload = self.codec.encode(message).map_err(|_| ClientGone)?;
        let envelope = connect::encode_envelope(0, &payload).map_err(|_| ClientGone)?;
        self.tx.send(envelope).await.map_err(|_| ClientGone)
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

fn streaming_response(codec: Codec, body: Body) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, codec.content_type(Framing::Streaming))], body)
        .into_response()
}

fn end_stream_frame(error: Option<ConnectError>) -> Bytes {
    let end = error.map_or_else(EndStream::ok, EndStream::error);
    connect::encode_envelope(FLAG_END_STREAM, &end.to_json_bytes()).unwrap_or_default()
}

/// Reads the single request envelope of a server-streaming call.
fn single_request<Req: WireMessage>(
    codec: Codec,
    headers: &HeaderMap,
    body: &[u8],
    max: usize,
) -> Result<Req, ConnectError> {
    let compressed = request_compression(headers, "connect-content-encoding")?;
    let mut decoder = EnvelopeDecoder::new(max);
    decoder.push(body);
    let envelope = decoder
        .next_envelope()?
        .ok_or_else(|| ConnectError::invalid_argument("request has no message envelope"))?;
    if decoder.next_envelope()?.is_some() {
        return Err(ConnectError::invalid_argument(
            "a server-streaming call takes exactly one request message",
        ));
    }
    decoder.finish()?;
    let payload = decode_payload(&envelope, compressed, max)?;
    codec.decode(&payload)
}

fn decode_payload(
    envelope: &connect::Envelope,
    compressed: bool,
    max: usize,
) -> Result<Bytes, ConnectError> {
    if envelope.is_compressed() {
        if !compressed {
            return Err(ConnectError::invalid_argument(
                "compressed envelope without connect-content-encoding",
            ));
        }
        return Ok(Bytes::from(gunzip(&envelope.payload, max)?));
    }
    Ok(envelope.payload.clone())
}

/// Serves a server-streaming procedure. The handler runs in its own task and writes
/// messages; its result becomes the end-of-stream envelope.
pub async fn server_stream<Req, Resp, F, Fut>(
    envd: Arc<Envd>,
    headers: HeaderMap,
    body: Bytes,
    handler: F,
) -> Response
where
    Req: WireMessage,
    Resp: WireMessage,
    F: FnOnce(Req, CallContext, StreamWriter<Resp>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), ConnectError>> + Send + 'static,
{
    let codec = match negotiate(&headers, Framing::Streaming) {
        Ok(codec) => codec,
        Err(response) => return response,
    };
    let prepared = single_request::<Req>(codec, &headers, &body, envd.config.max_message_bytes)
        .and_then(|request| Ok((request, call_context(&envd, &headers)?)));
    let (request, context) = match prepared {
        Ok(ready) => ready,
        Err(error) => return streaming_response(codec, Body::from(end_stream_frame(Some(error)))),
    };
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let writer = StreamWriter { tx: tx.clone(), codec, _message: PhantomData };
    tokio::spawn(async move {
        let result = handler(request, context, writer).await;
        // A client that is gone cannot read the end either; nothing more to do.
        let _ = tx.send(end_stream_frame(result.err())).await;
    });
    streaming_response(codec, Body::from_stream(cut_at_shutdown(&envd, rx)))
}

/// The stream's messages until it ends, or an error once envd shuts down: a body error
/// aborts the response (no end of stream, the connection closes), which its client (or
/// the sandbox daemon's proxy, which resets the client's connection) takes as the
/// sandbox going away.
fn cut_at_shutdown(
    envd: &Envd,
    rx: mpsc::Receiver<Bytes>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let cut = Box::pin(envd.streams_cut());
    futures_util::stream::unfold(Some((rx, cut)), |state| async move {
        let (mut rx, mut cut) = state?;
        tokio::select! {
            biased;
            message = rx.recv() => message.map(|bytes| (Ok(bytes), Some((rx, cut)))),
            () = &mut cut => {
                Some((Err(std::io::Error::other("envd is shutting down")), None))
            }
        }
    })
}

/// The incoming messages of a client-streaming call, decoded as they arrive.
pub struct RequestStream<M> {
    body: axum::body::BodyDataStream,
    decoder: EnvelopeDecoder,
    codec: Codec,
    compressed: bool,
    max: usize,
    finished: bool,
    _message: PhantomData<fn() -> M>,
}

impl<M: WireMessage> RequestStream<M> {
    /// The next message; `None` once the client has closed its side cleanly.
    pub async fn next(&mut self) -> Option<Result<M, ConnectError>> {
        loop {
            if self.finished {
                return None;
            }
            match self.decoder.next_envelope() {
                Err(error) => {
                    self.finished = true;
                    return Some(Err(error.into()));
                }
                Ok(Some(envelope)) => {
                    if envelope.is_end_stream() {
                        // Clients do not send one; tolerate it as the end of input.
                        self.finished = true;
                        return None;
                    }
                    let decoded = decode_payload(&envelope, self.compressed, self.max)
                        .and_then(|payload| self.codec.decode(&payload));
                    return Some(decoded);
                }
                Ok(None) => {}
            }
            match self.body.next().await {
                Some(Ok(chunk)) => self.decoder.push(&chunk),
                Some(Err(err)) => {
                    self.finished = true;
                    return Some(Err(ConnectError::new(
                        Code::Canceled,
                        format!("request body failed: {err}"),
                    )));
                }
                None => {
                    self.finished = true;
                    return match self.decoder.finish() {
                        Ok(()) => None,
                        Err(error) => Some(Err(error.into())),
                    };
                }
            }
        }
    }
}

/// Serves a client-streaming procedure: one response message, then the end of stream.
pub async fn client_stream<Req, Resp, F, Fut>(
    envd: Arc<Envd>,
    headers: HeaderMap,
    body: Body,
    handler: F,
) -> Response
where
    Req: WireMessage,
    Resp: WireMessage,
    F: FnOnce(RequestStream<Req>, CallContext) -> Fut,
    Fut: Future<Output = Result<Resp, ConnectError>>,
{
    let codec = match negotiate(&headers, Framing::Streaming) {
        Ok(codec) => codec,
        Err(response) => return response,
    };
    let max = envd.config.max_message_bytes;
    let outcome = async {
        let compressed = request_compression(&headers, "connect-content-encoding")?;
        let context = call_context(&envd, &headers)?;
        let stream = RequestStream {
            body: body.into_data_stream(),
            decoder: EnvelopeDecoder::new(max),
            codec,
            compressed,
            max,
            finished: false,
            _message: PhantomData,
        };
        let response = handler(stream, context).await?;
        let payload = codec.encode(&response)?;
        Ok::<_, ConnectError>(connect::encode_envelope(0, &payload)?)
    }
    .await;
    let mut frames = Vec::new();
    match outcome {
        Ok(message) => {
            frames.extend_from_slice(&message);
            frames.extend_from_slice(&end_stream_frame(None));
        }
        Err(error) => frames.extend_from_slice(&end_stream_frame(Some(error))),
    }
    streaming_response(codec, Body::from(frames))
}

/// The answer for a path that names no procedure.
pub fn unknown_procedure(path: &str) -> Response {
    let error = ConnectError::unimplemented(format!("unknown procedure {path}"));
    let mut response = unary_error(&error);
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// A unary procedure as an axum route: `handler(envd, request, context)`.
pub fn unary_route<Req, Resp, F, Fut>(handler: F) -> MethodRouter<Arc<Envd>>
where
    Req: WireMessage,
    Resp: WireMessage,
    F: Fn(Arc<Envd>, Req, CallContext) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Resp, ConnectError>> + Send + 'static,
{
    post(move |State(envd): State<Arc<Envd>>, headers: HeaderMap, body: Bytes| {
        let handler = handler.clone();
        let shared = Arc::clone(&envd);
        unary(envd, headers, body, move |request, context| handler(shared, request, context))
    })
}

/// A server-streaming procedure as an axum route: `handler(envd, request, context, writer)`.
pub fn server_stream_route<Req, Resp, F, Fut>(handler: F) -> MethodRouter<Arc<Envd>>
where
    Req: WireMessage,
    Resp: WireMessage,
    F: Fn(Arc<Envd>, Req, CallContext, StreamWriter<Resp>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<(), ConnectError>> + Send + 'static,
{
    post(move |State(envd): State<Arc<Envd>>, headers: HeaderMap, body: Bytes| {
        let handler = handler.clone();
        let shared = Arc::clone(&envd);
        server_stream(envd, headers, body, move |request, context, out| {
            handler(shared, request, context, out)
        })
    })
}

/// A client-streaming procedure as an axum route: `handler(envd, requests, context)`.
pub fn client_stream_route<Req, Resp, F, Fut>(handler: F) -> MethodRouter<Arc<Envd>>
where
    Req: WireMessage,
    Resp: WireMessage,
    F: Fn(Arc<Envd>, RequestStream<Req>, CallContext) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Resp, ConnectError>> + Send + 'static,
{
    post(move |State(envd): State<Arc<Envd>>, headers: HeaderMap, body: Body| {
        let handler = handler.clone();
        let shared = Arc::clone(&envd);
        client_stream(envd, headers, body, move |requests, context| {
            handler(shared, requests, context)
        })
    })
}
