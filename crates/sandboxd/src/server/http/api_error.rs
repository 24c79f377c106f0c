//! The control plane's error answer: `{"code": <status>, "message": "..."}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// An error answered as `{"code": <status>, "message": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }

    pub fn not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, format!("sandbox {id} not found"))
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn internal(error: &anyhow::Error) -> ApiError {
        let message = chain_text(error);
        tracing::error!(error = %message, "request failed");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// What the client reads: `{"code": <status>, "message": "..."}`.
    pub fn body(self) -> dsh_proto::control::ErrorBody {
        dsh_proto::control::ErrorBody { code: self.status.as_u16(), message: self.message }
    }

    pub fn response(self) -> Response {
        self.into_response()
    }
}

/// An error and its causes, `: `-separated, skipping a cause the text before it already
/// ends with (an error whose message shows its source, as the launcher's do, would
/// otherwise print the OS error twice).
pub(crate) fn chain_text(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// The one place a control operation's failure gets its status.
impl From<crate::server::control_error::ControlError> for ApiError {
    fn from(error: crate::server::control_error::ControlError) -> ApiError {
        use crate::server::control_error::ControlError;
        let status = match &error {
            ControlError::Invalid(_) => StatusCode::BAD_REQUEST,
            ControlError::Conflict(_) => StatusCode::CONFLICT,
            ControlError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ControlError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ControlError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ControlError::Internal(error) => return ApiError::internal(error),
        };
        ApiError::new(status, error.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status;
        (status, Json(self.body())).into_response()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_error_that_shows_its_source_is_not_printed_twice() {
        let os = std::io::Error::from_raw_os_error(libc::ENOSPC);
        let launcher = crate::error::Error::Io { context: "writing /s/program".into(), source: os };
        let error = anyhow::Error::new(launcher).context("creating sandbox abc");
        assert_eq!(
            chain_text(&error),
            "creating sandbox abc: writing /s/program: No space left on device (os error 28)"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(chain_text(&plain), "outer: inner");
    }
}
