//! Who a request acts as (`Authorization: Basic`), and whether it may come in at all
//! (`X-Access-Token`, or a signed URL for `/files`).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use dsh_proto::connect::{Code, ConnectError};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use subtle::ConstantTimeEq as _;

use crate::http_api::http_error;
use crate::state::Envd;
use crate::users::User;

pub const ACCESS_TOKEN_HEADER: &str = dsh_proto::control::headers::ACCESS_TOKEN;

/// The user named by a Basic header (password ignored: E2B uses it to pick a Linux
/// user, not to authenticate), else the default user.
pub fn user_from_headers(envd: &Envd, headers: &HeaderMap) -> Result<User, ConnectError> {
    let name = match headers.get(axum::http::header::AUTHORIZATION) {
        None => envd.settings().default_user,
        Some(value) => basic_username(value.as_bytes()).ok_or_else(|| {
            ConnectError::new(Code::Unauthenticated, "invalid authorization header: expected Basic")
        })?,
    };
    lookup_user(envd, &name)
}

pub fn lookup_user(envd: &Envd, name: &str) -> Result<User, ConnectError> {
    envd.users.lookup(name).ok_or_else(|| {
        ConnectError::new(Code::Unauthenticated, format!("invalid username: '{name}'"))
    })
}

fn basic_username(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?.trim();
    let (scheme, encoded) = text.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    Some(decoded.split_once(':').map_or(decoded.as_str(), |(user, _)| user).to_owned())
}

const UNAUTHORIZED: &str =
    "unauthorized access, please provide a valid access token or method signing if supported";

/// Token check for every route but the open ones. `/files` checks its own (it also
/// accepts signatures); `/init` validates the token in its handler.
pub async fn require_access_token(
    State(envd): State<Arc<Envd>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let open = (request.method() == Method::GET && path == "/health")
        || path == "/files"
        || (request.method() == Method::POST && path == "/init")
        || request.method() == Method::OPTIONS;
    if !open
        && let Some(expected) = envd.settings().access_token
        && !token_matches(request.headers(), &expected)
    {
        // The request's body is not read: the connection closes after the answer, and
        // says so, or a client would send its next request on it and get no answer
        // ("connection closed before message completed").
        let mut refused = http_error(StatusCode::UNAUTHORIZED, UNAUTHORIZED).into_response();
        refused
            .headers_mut()
            .insert(axum::http::header::CONNECTION, axum::http::HeaderValue::from_static("close"));
        return refused;
    }
    next.run(request).await
}

pub fn token_matches(headers: &HeaderMap, expected: &str) -> bool {
    headers
        .get(ACCESS_TOKEN_HEADER)
        .is_some_and(|value| constant_time_eq(value.as_bytes(), expected.as_bytes()))
}

/// Equal without the time taken saying where they differ (only whether the lengths do).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

/// The `/files` URL signature: `v1_` + unpadded base64 of
/// SHA-256("<path>:<op>:<username>:<token>[:<expiration>]").
pub fn file_signature(
    path: &str,
    operation: &str,
    username: &str,
    token: &str,
    expiration: Option<i64>,
) -> String {
    let mut hashed = format!("{path}:{operation}:{username}:{token}");
    if let Some(expiration) = expiration {
        hashed.push_str(&format!(":{expiration}"));
    }
    let digest = Sha256::digest(hashed.as_bytes());
    format!("v1_{}", base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest))
}

/// Whether a `/files` request may proceed: open when no token is set; else a matching
/// token header (a wrong one is refused outright) or a valid, unexpired signature.
pub fn authorize_file_request(
    envd: &Envd,
    headers: &HeaderMap,
    path: &str,
    operation: &str,
    username: &str,
    signature: Option<&str>,
    expiration: Option<&str>,
) -> Result<(), Response> {
    let Some(token) = envd.settings().access_token else { return Ok(()) };
    let refuse = |message: &str| http_error(StatusCode::UNAUTHORIZED, message).into_response();
    if headers.contains_key(ACCESS_TOKEN_HEADER) {
        return if token_matches(headers, &token) { Ok(()) } else { Err(refuse(UNAUTHORIZED)) };
    }
    let Some(signature) = signature else { return Err(refuse(UNAUTHORIZED)) };
    let expiration = match expiration {
        None => None,
        Some(text) => match text.parse::<i64>() {
            Ok(value) => Some(value),
            Err(_) => return Err(refuse("invalid signature expiration")),
        },
    };
    if let Some(expiration) = expiration {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or_default();
        if expiration < now {
            return Err(refuse("signature is already expired"));
        }
    }
    let expected = file_signature(path, operation, username, &token, expiration);
    if constant_time_eq(signature.as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        Err(refuse("invalid signature"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn basic_header_names_the_user() {
        assert_eq!(basic_username(b"Basic cm9vdDo=").as_deref(), Some("root"));
        assert_eq!(basic_username(b"basic dXNlcjpzZWNyZXQ=").as_deref(), Some("user"));
        assert_eq!(basic_username(b"Bearer abc"), None);
        assert_eq!(basic_username(b"Basic !!!"), None);
    }

    #[test]
    fn tokens_match_only_when_equal() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(constant_time_eq(b"", b""));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
        let mut headers = HeaderMap::new();
        assert!(!token_matches(&headers, "tok"));
        headers.insert(ACCESS_TOKEN_HEADER, "tok".parse().unwrap());
        assert!(token_matches(&headers, "tok"));
        assert!(!token_matches(&headers, "tok2"));
    }

    #[test]
    fn signature_matches_the_documented_recipe() {
        let plain = file_signature("/home/user/a.txt", "read", "", "tok", None);
        let digest = Sha256::digest(b"/home/user/a.txt:read::tok");
        assert_eq!(
            plain,
            format!("v1_{}", base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest))
        );
        let expiring = file_signature("/a", "write", "user", "tok", Some(1700000000));
        let digest = Sha256::digest(b"/a:write:user:tok:1700000000");
        assert_eq!(
            expiring,
            format!("v1_{}", base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest))
        );
    }
}
