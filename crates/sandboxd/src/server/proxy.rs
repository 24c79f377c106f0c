//! Routing envd traffic: requests naming a sandbox (header `E2b-Sandbox-Id`, or a Host
//! `49983-<id>.<domain>`) are forwarded to that sandbox's envd, streaming both ways.

use std::collections::HashMap;

use axum::body::Body;
use axum::extract::Query;
use axum::http::{HeaderMap, HeaderName, Method, Request, Response, StatusCode, Uri, header};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use sha2::{Digest, Sha256};

use super::netns::Reach;
use super::registry::Phase;
use super::{ApiError, Shared};

/// A TCP port of a sandbox: envd's, or one its code listens on.
#[derive(Debug, Clone)]
pub struct Port {
    pub reach: Reach,
    pub port: u16,
}

impl std::fmt::Display for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reach {
            Reach::Host => write!(f, "127.0.0.1:{} (host network)", self.port),
            Reach::Namespace(_) => write!(f, "127.0.0.1:{} (sandbox network)", self.port),
        }
    }
}

/// envd's port in E2B; the only port the Host form routes.
pub const ENVD_PORT: u16 = 49983;
pub const SANDBOX_ID_HEADER: &str = "e2b-sandbox-id";
pub const SANDBOX_PORT_HEADER: &str = "e2b-sandbox-port";

/// The sandbox a request is addressed to, if any.
pub fn target(headers: &HeaderMap) -> Option<String> {
    if let Some(id) = headers.get(SANDBOX_ID_HEADER).and_then(|v| v.to_str().ok()) {
        let id = id.trim();
        if !id.is_empty() {
            return Some(id.to_owned());
        }
    }
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let label = host.split('.').next()?;
    let (port, id) = label.split_once('-')?;
    (port.parse::<u16>().ok()? == ENVD_PORT && !id.is_empty() && host.contains('.'))
        .then(|| id.to_owned())
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

/// Forwards `request` to the envd of sandbox `id`.
pub async fn forward(shared: &Shared, id: &str, request: Request<Body>) -> Response<Body> {
    if let Some(port) = request.headers().get(SANDBOX_PORT_HEADER).and_then(|v| v.to_str().ok())
        && port.trim() != ENVD_PORT.to_string()
    {
        return ApiError::new(
            StatusCode::BAD_GATEWAY,
            format!("port {port} of sandbox {id} is not routed (only envd's {ENVD_PORT} is)"),
        )
        .response();
    }
    // 502 (not 404) like E2B's edge proxy: the SDK's `is_running()` reads 502 as "not
    // running" and raises on anything else, so a killed sandbox must answer 502 too.
    let Some(slot) = shared.slot(id) else {
        return ApiError::new(StatusCode::BAD_GATEWAY, format!("sandbox {id} not found"))
            .response();
    };
    let (envd, phase) = {
        let inner = slot.lock();
        (inner.envd.clone(), inner.record.phase)
    };
    let Some(envd) = envd else {
        let message = match phase {
            Phase::Paused => format!("sandbox {id} is paused: connect to it (or resume it) first"),
            _ => format!("sandbox {id} is not running"),
        };
        return ApiError::new(StatusCode::BAD_GATEWAY, message).response();
    };
    let (mut parts, body) = request.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    if let Some(path) = parts.uri.path_and_query().cloned() {
        parts.uri = path.into();
    }
    match send(&envd, Request::from_parts(parts, body)).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, Body::new(body))
        }
        Err(e) => {
            tracing::warn!(sandbox = %id, %envd, error = %e, "envd unreachable");
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                format!("envd of sandbox {id} is unreachable: {e}"),
            )
            .response()
        }
    }
}

/// One HTTP/1.1 request on a fresh connection to `to` (loopback: connecting costs
/// microseconds), with TCP_NODELAY. The response body streams.
pub async fn send<B>(to: &Port, request: Request<B>) -> Result<Response<Incoming>, BoxError>
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let stream = to.reach.connect(to.port).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(error = %e, "envd connection ended with an error");
        }
    });
    Ok(sender.send_request(request).await?)
}

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn strip_hop_by_hop(headers: &mut HeaderMap) {
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
    fn finds_the_sandbox_from_the_header_or_the_host() {
        assert_eq!(target(&headers(&[("E2b-Sandbox-Id", "abc")])).as_deref(), Some("abc"));
        assert_eq!(
            target(&headers(&[("host", "49983-abc.localhost:3000")])).as_deref(),
            Some("abc")
        );
        assert_eq!(target(&headers(&[("host", "127.0.0.1:3000")])), None);
        assert_eq!(target(&headers(&[("host", "8080-abc.localhost")])), None);
        assert_eq!(target(&headers(&[])), None);
    }
}
