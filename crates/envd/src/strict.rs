//! "E2B-strict" mode: envd behaving as E2B's own envd of a given version does, so that
//! dsh's client fallbacks (signals, uploads, stdin, default user) are tested against the
//! refusals real sandboxes give, not against dsh-envd's extensions.
//!
//! What is modelled (from e2b-dev/infra `packages/envd` and the version gates of the
//! Python SDK's `e2b/envd/versions.py`):
//! - `SendSignal` takes SIGTERM and SIGKILL only, sent to the pid; the `target` field
//!   (dsh's extension) is ignored and no `target_pgid` is answered.
//! - before 0.5.7 `POST /files` takes multipart bodies only (no `application/octet-stream`),
//! - before 0.5.2 there is no `CloseStdin` procedure (a plain 404, as Go's mux answers),
//! - before 0.4.0 there is no default user: a request naming none is refused.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Envd;

/// The envd version an E2B-strict envd behaves as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StrictVersion(pub u32, pub u32, pub u32);

impl StrictVersion {
    /// `MAJOR.MINOR.PATCH`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.').map(|p| p.parse::<u32>().ok());
        let version = StrictVersion(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }

    pub fn has_octet_stream_upload(self) -> bool {
        self >= StrictVersion(0, 5, 7)
    }

    pub fn has_close_stdin(self) -> bool {
        self >= StrictVersion(0, 5, 2)
    }

    pub fn has_default_user(self) -> bool {
        self >= StrictVersion(0, 4, 0)
    }
}

impl std::fmt::Display for StrictVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Refuses what E2B's envd of the configured version refuses, before any handler runs.
pub async fn gate(State(envd): State<Arc<Envd>>, request: Request, next: Next) -> Response {
    let Some(version) = envd.config.strict else { return next.run(request).await };
    let path = request.uri().path();
    if path == "/process.Process/CloseStdin" && !version.has_close_stdin() {
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain")],
            "404 page not found",
        )
            .into_response();
    }
    if path == "/files"
        && request.method() == Method::POST
        && !version.has_octet_stream_upload()
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/octet-stream"))
    {
        let body = serde_json::json!({
            "code": 400,
            "message": format!("envd {version}: the upload must be multipart/form-data"),
        });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    let names_user = request.headers().contains_key(header::AUTHORIZATION)
        || request.uri().query().is_some_and(|q| q.split('&').any(|p| p.starts_with("username=")));
    let needs_user =
        path.starts_with("/process.") || path.starts_with("/filesystem.") || path == "/files";
    if needs_user && !names_user && !version.has_default_user() {
        let message = format!("envd {version}: no user specified");
        if path == "/files" {
            let body = serde_json::json!({ "code": 400, "message": message });
            return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
        }
        let body = serde_json::json!({ "code": "invalid_argument", "message": message });
        return (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(StrictVersion::parse("0.5.1"), Some(StrictVersion(0, 5, 1)));
        assert_eq!(StrictVersion::parse("0.5"), None);
        assert_eq!(StrictVersion::parse("0.5.1.2"), None);
        assert!(!StrictVersion(0, 5, 1).has_close_stdin());
        assert!(StrictVersion(0, 5, 2).has_close_stdin());
        assert!(!StrictVersion(0, 3, 0).has_default_user());
        assert!(StrictVersion(0, 6, 13).has_octet_stream_upload());
    }
}
