//! Routing traffic to sandboxes: requests naming a sandbox and a port (headers
//! `E2b-Sandbox-Id` and `E2b-Sandbox-Port`, or a Host `<port>-<id>.<domain>`) are
//! forwarded to that port of the sandbox — envd's (49983) or one its code listens on —
//! streaming both ways, upgrades spliced through.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Query;
use axum::http::{HeaderMap, HeaderName, Method, Request, Response, StatusCode, Uri, header};
use axum::response::IntoResponse as _;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use sha2::{Digest, Sha256};

use crate::server::record::Phase;
pub use crate::server::upstream::{BoxError, ENVD_PORT, Kept, Port, RequestBody, send};
use crate::server::upstream::{IDLE_PER_PORT, connect};
use crate::server::{ApiError, Shared};
use http_body_util::BodyExt as _;

pub const SANDBOX_ID_HEADER: &str = dsh_proto::control::headers::SANDBOX_ID;
pub const SANDBOX_PORT_HEADER: &str = dsh_proto::control::headers::SANDBOX_PORT;

/// A sandbox and one of its ports, as a request names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub id: String,
    pub port: u16,
}

/// Header with a sandbox's traffic access token (`allowPublicTraffic: false`).
pub const TRAFFIC_TOKEN_HEADER: &str = dsh_proto::control::headers::TRAFFIC_ACCESS_TOKEN;

/// The sandbox port a request is addressed to, if any: the `E2b-Sandbox-Id` header (with
/// `E2b-Sandbox-Port`, default envd's), or a Host `<port>-<id>.<domain>`. A port header
/// that is not a port 1-65535 is an error.
pub fn target(headers: &HeaderMap, uri: &Uri) -> Result<Option<Target>, String> {
    if let Some(id) = headers.get(SANDBOX_ID_HEADER).and_then(|v| v.to_str().ok()) {
        let id = id.trim();
        if !id.is_empty() {
            let port = match headers.get(SANDBOX_PORT_HEADER) {
                None => ENVD_PORT,
                Some(value) => parse_port(value.to_str().unwrap_or_default()).ok_or_else(|| {
                    format!("{SANDBOX_PORT_HEADER} must be a port 1-65535, not {value:?}")
                })?,
            };
            return Ok(Some(Target { id: id.to_owned(), port }));
        }
    }
    // HTTP/2 names the host in the request's authority, HTTP/1.1 in the Host header.
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let Some(host) = host.or_else(|| uri.authority().map(|a| a.as_str())) else {
        return Ok(None);
    };
    let Some((label, _domain)) = host.split_once('.') else { return Ok(None) };
    let Some((port, id)) = label.split_once('-') else { return Ok(None) };
    match parse_port(port) {
        Some(port) if !id.is_empty() => Ok(Some(Target { id: id.to_owned(), port })),
        _ => Ok(None),
    }
}

fn parse_port(text: &str) -> Option<u16> {
    text.trim().parse::<u16>().ok().filter(|&port| port != 0)
}

/// The sandbox a presigned `/files` URL belongs to. With `E2B_SANDBOX_URL` set, the
/// SDK's `download_url()`/`upload_url()` give `<E2B_SANDBOX_URL>/files?path=..&signature=..`,
/// which names no sandbox and is used without the SDK's headers (curl, a browser). The
/// signature is `v1_` + base64(SHA-256("<path>:<read|write>:<username>:<token>[:<exp>]"))
/// over the sandbox's envd access token, so the sandbox whose token reproduces it is
/// the one meant (envd then checks the signature, and its expiry, itself).
pub fn signed_files_target(shared: &Shared, method: &Method, uri: &Uri) -> Option<String> {
    if uri.path() != "/files" {
        return None;
    }
    let operation = match *method {
        Method::GET => "read",
        Method::POST => "write",
        _ => return None,
    };
    let Query(query) = Query::<HashMap<String, String>>::try_from_uri(uri).ok()?;
    let signature = query.get("signature")?;
    let path = query.get("path").map_or("", String::as_str);
    let user = query.get("username").map_or("", String::as_str);
    let expiration = query.get("signature_expiration");
    shared.slots().into_iter().find_map(|slot| {
        let token = slot.lock().record.envd_access_token.clone()?;
        let raw = match expiration {
            Some(exp) => format!("{path}:{operation}:{user}:{token}:{exp}"),
            None => format!("{path}:{operation}:{user}:{token}"),
        };
        let expected = format!("v1_{}", STANDARD_NO_PAD.encode(Sha256::digest(raw.as_bytes())));
        (expected == *signature).then(|| slot.id.clone())
    })
}

/// A client connection as handlers see it (`ConnectInfo<Peer>`): its socket (a duplicate
/// descriptor, closed with the connection's last handle).
#[derive(Debug, Clone)]
pub struct Peer {
    socket: Option<Arc<std::os::fd::OwnedFd>>,
}

impl Peer {
    /// The peer of an accepted connection (given to [`dsh_http::serve`]).
    pub fn of(stream: &tokio::net::TcpStream) -> Peer {
        Peer { socket: std::os::fd::AsFd::as_fd(stream).try_clone_to_owned().ok().map(Arc::new) }
    }
}

/// A response body from a sandbox that, if the sandbox side breaks mid-stream (the
/// sandbox was killed), resets the client's connection instead of closing it: a client
/// then sees a transport failure ("connection reset"), which the E2B SDKs answer with a
/// health check and "the sandbox was killed", not a malformed HTTP/1.1 response (an
/// unterminated chunked body). E2B's edge gives the same signal as an HTTP/2 stream reset.
/// The sandbox's stop breaks it too: a gVisor sandbox's end leaves the daemon's
/// connection to it open and silent.
struct SandboxBody<B> {
    inner: B,
    socket: Option<Arc<std::os::fd::OwnedFd>>,
    stopped: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

impl<B> SandboxBody<B> {
    /// Linger 0: the close that follows sends RST.
    fn reset_client(&self) {
        let Some(socket) = &self.socket else { return };
        let linger = libc::linger { l_onoff: 1, l_linger: 0 };
        // SAFETY: setsockopt on a socket we hold, with a correctly sized linger.
        unsafe {
            libc::setsockopt(
                std::os::fd::AsRawFd::as_raw_fd(&**socket),
                libc::SOL_SOCKET,
                libc::SO_LINGER,
                (&raw const linger).cast(),
                std::mem::size_of::<libc::linger>() as libc::socklen_t,
            );
        }
    }
}

impl<B> hyper::body::Body for SandboxBody<B>
where
    B: hyper::body::Body + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = B::Data;
    type Error = BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<B::Data>, BoxError>>> {
        use std::task::Poll;
        match std::pin::Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Err(e))) => {
                self.reset_client();
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(other) => Poll::Ready(other.map(|frame| frame.map_err(Into::into))),
            Poll::Pending => match self.stopped.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.reset_client();
                    Poll::Ready(Some(Err("the sandbox stopped".into())))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Forwards `request` to a port of a sandbox: envd's, or one its code listens on.
/// WebSocket (and any other) upgrades are spliced through once both ends agree.
pub async fn forward(shared: &Shared, target: &Target, request: Request<Body>) -> Response<Body> {
    let Target { id, port } = target;
    let (id, port) = (id.as_str(), *port);
    // 502 (not 404) like E2B's edge proxy: the SDK's `is_running()` reads 502 as "not
    // running" and raises on anything else, so a killed sandbox must answer 502 too.
    // A killed sandbox whose teardown still runs is gone already.
    let Some(slot) = shared.slot(id).filter(|slot| !slot.lock().gone) else {
        return ApiError::new(StatusCode::BAD_GATEWAY, format!("sandbox {id} not found"))
            .response();
    };
    let (envd, phase, network, mut stops) = {
        let inner = slot.lock();
        let stops = inner.stops.subscribe();
        (inner.envd.clone(), inner.record.phase, inner.record.network.clone(), stops)
    };
    let Some(envd) = envd else {
        let message = match phase {
            Phase::Paused => format!("sandbox {id} is paused: connect to it (or resume it) first"),
            _ => format!("sandbox {id} is not running"),
        };
        return ApiError::new(StatusCode::BAD_GATEWAY, message).response();
    };
    let (mut parts, body) = request.into_parts();
    let client_socket = parts
        .extensions
        .get::<axum::extract::ConnectInfo<Peer>>()
        .and_then(|info| info.0.socket.clone());
    let to = if port == ENVD_PORT {
        envd
    } else {
        if let Some(token) = &network.traffic_access_token {
            let presented = parts.headers.get(TRAFFIC_TOKEN_HEADER).and_then(|v| v.to_str().ok());
            if presented != Some(token.as_str()) {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "sandbox {id} takes traffic only with its {TRAFFIC_TOKEN_HEADER} header"
                    ),
                )
                .response();
            }
        }
        if let Some(mask) = &network.mask_request_host
            && let Ok(value) = mask.replace("${PORT}", &port.to_string()).parse()
        {
            parts.headers.insert(header::HOST, value);
        }
        Port { reach: envd.reach, port }
    };
    // The daemon's own routing headers are not the sandbox's business.
    for name in [SANDBOX_ID_HEADER, SANDBOX_PORT_HEADER, TRAFFIC_TOKEN_HEADER] {
        parts.headers.remove(name);
    }
    let client_upgrade = wants_upgrade(&parts.headers)
        .then(|| parts.extensions.remove::<hyper::upgrade::OnUpgrade>())
        .flatten();
    strip_hop_by_hop(&mut parts.headers, client_upgrade.is_some());
    // The sandbox side is HTTP/1.1 whatever the client spoke, with the Host header an
    // HTTP/2 client put in the authority.
    if !parts.headers.contains_key(header::HOST)
        && let Some(authority) = parts.uri.authority().and_then(|a| a.as_str().parse().ok())
    {
        parts.headers.insert(header::HOST, authority);
    }
    let client_http1 = parts.version < axum::http::Version::HTTP_2;
    parts.version = axum::http::Version::HTTP_11;
    if let Some(path) = parts.uri.path_and_query().cloned() {
        parts.uri = path.into();
    }
    let request = Request::from_parts(parts, body);
    let sent = match client_upgrade {
        // An upgraded connection is the client's alone: a fresh one, never pooled.
        Some(_) => send(&to, request).await,
        None => send_pooled(&slot, &to, request).await,
    };
    match sent {
        Ok(mut response) => {
            let upgraded = response.status() == StatusCode::SWITCHING_PROTOCOLS;
            if let (true, Some(client)) = (upgraded, client_upgrade) {
                let upstream = hyper::upgrade::on(&mut response);
                tokio::spawn(splice(client, upstream));
            }
            let (mut parts, body) = response.into_parts();
            // A sandbox that closes the connection after this answer has not read the
            // whole request (an upload refused half-way): the client's connection, whose
            // body the daemon stops forwarding, closes after it too, and says so.
            let closes = parts
                .headers
                .get_all(header::CONNECTION)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .any(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")));
            strip_hop_by_hop(&mut parts.headers, upgraded);
            if closes && client_http1 {
                parts.headers.insert(header::CONNECTION, header::HeaderValue::from_static("close"));
            }
            let stopped = Box::pin(async move {
                // A sender dropped (the slot is gone) ends the stream too.
                let _ = stops.changed().await;
            });
            let body = Body::new(SandboxBody { inner: body, socket: client_socket, stopped });
            Response::from_parts(parts, body)
        }
        Err(e) if port != ENVD_PORT => {
            tracing::debug!(sandbox = %id, port, error = %e, "sandbox port unreachable");
            let body = dsh_proto::control::PortClosed {
                code: 502,
                message: "The sandbox is running but port is not open".to_owned(),
                port,
                sandbox_id: id.to_owned(),
            };
            (StatusCode::BAD_GATEWAY, axum::Json(body)).into_response()
        }
        Err(e) => {
            tracing::warn!(sandbox = %id, %to, error = %e, "envd unreachable");
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                format!("envd of sandbox {id} is unreachable: {e}"),
            )
            .response()
        }
    }
}

fn wants_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
        && headers
            .get(header::CONNECTION)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("upgrade")))
}

/// Copies both ways between the client's and the sandbox's upgraded connections until
/// either side closes.
async fn splice(client: hyper::upgrade::OnUpgrade, upstream: hyper::upgrade::OnUpgrade) {
    let (client, upstream) = match tokio::try_join!(client, upstream) {
        Ok(both) => both,
        Err(e) => {
            tracing::debug!(error = %e, "an upgrade did not complete");
            return;
        }
    };
    let (mut client, mut upstream) = (TokioIo::new(client), TokioIo::new(upstream));
    if let Err(e) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
        tracing::debug!(error = %e, "an upgraded connection ended with an error");
    }
}

/// Like [`send`], over a kept-alive connection to the port when one is idle: making a
/// connection in a sandbox's namespace costs a thread and a handshake, which would
/// otherwise bound small requests through the proxy to a few thousand a second. A kept
/// connection the sandbox closed meanwhile gives its request back, which then goes out
/// on a fresh one.
async fn send_pooled(
    slot: &crate::server::slot::Slot,
    to: &Port,
    request: Request<Body>,
) -> Result<Response<Incoming>, BoxError> {
    let request = request.map(|body| body.map_err(BoxError::from).boxed_unsync());
    let idle = {
        let mut inner = slot.lock();
        let idle = inner.idle.entry(to.port).or_default();
        // Ready means the previous response's body was read to its end; the others stay
        // (dropping one would end its response still streaming).
        idle.retain(Kept::open);
        idle.iter().rposition(|kept| kept.sender.is_ready()).map(|at| idle.remove(at))
    };
    let request = match idle {
        Some(mut kept) => match kept.sender.try_send_request(request).await {
            Ok(response) => {
                keep(slot, to.port, kept);
                return Ok(response);
            }
            Err(mut failed) => match failed.take_message() {
                Some(request) => request,
                None => return Err(failed.into_error().into()),
            },
        },
        None => request,
    };
    let mut kept = connect(to).await?;
    let response = kept.sender.send_request(request).await?;
    keep(slot, to.port, kept);
    Ok(response)
}

fn keep(slot: &crate::server::slot::Slot, port: u16, kept: Kept<RequestBody>) {
    let mut inner = slot.lock();
    if inner.envd.is_none() {
        return; // stopped meanwhile
    }
    let idle = inner.idle.entry(port).or_default();
    // Closed ones go (each holds a duplicate of its socket).
    idle.retain(|kept| !kept.sender.is_closed());
    if idle.len() < IDLE_PER_PORT {
        idle.push(kept);
    }
}

/// Removes hop-by-hop headers; an upgrade keeps `Connection` and `Upgrade`, which are how
/// both ends agree on it.
fn strip_hop_by_hop(headers: &mut HeaderMap, upgrade: bool) {
    let kept = upgrade
        .then(|| (headers.get(header::CONNECTION).cloned(), headers.get(header::UPGRADE).cloned()));
    const HOP: [&str; 7] = [
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    ];
    if let Some(listed) = headers.get(header::CONNECTION).and_then(|v| v.to_str().ok()) {
        let listed: Vec<HeaderName> =
            listed.split(',').filter_map(|n| HeaderName::try_from(n.trim()).ok()).collect();
        for name in listed {
            headers.remove(name);
        }
    }
    for name in HOP {
        headers.remove(name);
    }
    if let Some((connection, upgrade)) = kept {
        if let Some(connection) = connection {
            headers.insert(header::CONNECTION, connection);
        }
        if let Some(upgrade) = upgrade {
            headers.insert(header::UPGRADE, upgrade);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(HeaderName::try_from(*k).unwrap(), v.parse().unwrap());
        }
        map
    }

    #[test]
    fn finds_the_sandbox_port_from_the_headers_or_the_host() {
        let at = |id: &str, port| Ok(Some(Target { id: id.into(), port }));
        let target = |headers: &HeaderMap| super::target(headers, &Uri::from_static("/"));
        assert_eq!(target(&headers(&[("E2b-Sandbox-Id", "abc")])), at("abc", 49983));
        assert_eq!(
            target(&headers(&[("E2b-Sandbox-Id", "abc"), ("E2b-Sandbox-Port", "8000")])),
            at("abc", 8000)
        );
        assert_eq!(target(&headers(&[("host", "49983-abc.localhost:3000")])), at("abc", 49983));
        assert_eq!(target(&headers(&[("host", "8080-abc.localhost")])), at("abc", 8080));
        assert_eq!(target(&headers(&[("host", "127.0.0.1:3000")])), Ok(None));
        assert_eq!(target(&headers(&[("host", "0-abc.localhost")])), Ok(None));
        assert_eq!(target(&headers(&[("host", "localhost:3000")])), Ok(None));
        assert_eq!(target(&headers(&[])), Ok(None));
        let h2 = Uri::from_static("http://8080-abc.localhost:3000/x");
        assert_eq!(super::target(&HeaderMap::new(), &h2), at("abc", 8080));
        for bad in ["0", "65536", "http", "-1"] {
            let err = target(&headers(&[("E2b-Sandbox-Id", "abc"), ("E2b-Sandbox-Port", bad)]));
            assert_eq!(err, Err(format!("e2b-sandbox-port must be a port 1-65535, not {bad:?}")));
        }
    }
}
