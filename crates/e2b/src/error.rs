//! The client's one error type. Each variant says what the caller can do about it.

use dsh_proto::connect::{Code, ConnectError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server answered with a Connect error; `code` tells whether retrying, fixing the
    /// request or giving up is right (e.g. `NotFound`: the file or process does not exist).
    #[error("{0}")]
    Rpc(#[from] ConnectError),
    /// A plain HTTP endpoint (control plane, `/files`) refused the request.
    #[error("http {status}: {message}")]
    Http { status: u16, message: String },
    /// The connection failed or broke (daemon gone, sandbox killed mid-stream). Retrying
    /// may help if the sandbox is still alive.
    #[error("transport error: {0}")]
    Transport(String),
    /// The peer broke the protocol (malformed envelope, missing end of stream, wrong
    /// content type, a message out of order). Not retryable: the peer is wrong.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The call did not finish within its deadline.
    #[error("timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// The request itself is invalid (bad URL, missing configuration).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// The sandbox is no more: killed, timed out or paused. E2B's edge answers 502 for
    /// such a sandbox, and a stream cut whose `/health` probe then fails means the same
    /// (the SDKs' "sandbox was killed or reached its end of life", `e2b/envd/api.py`,
    /// `e2b/envd/rpc.py`). Retrying will not help; create or resume a sandbox.
    #[error("the sandbox is gone (killed, timed out or paused): {0}")]
    SandboxGone(String),
    /// E2B's edge (its sandbox proxy) answered for itself, before the request reached
    /// envd: a sandbox still pausing or resuming (409, retry soon), too many connections
    /// or the team's sandbox limit (429), a resume the credentials may not do (403), the
    /// sandbox running with envd's port not open or a route that failed for now (502), a
    /// request it cannot route (400: a misconfigured domain or URL). Its JSON carries a
    /// numeric `code` (Connect errors carry a string one), its plain texts are Go's
    /// `http.Error` (e2b-dev/infra `packages/shared/pkg/proxy/handler.go`,
    /// `pool/client.go`, `template/*.go`). Never a Connect code of envd's: a 409 here is
    /// not "already exists".
    #[error("E2B's edge answered {status}: {message}")]
    Edge { status: u16, message: String },
    /// The sandbox's envd is too old for this operation (its template predates it):
    /// rebuild the template. `envd_version` is what the control plane reported.
    #[error("envd {envd_version} does not support {feature}; rebuild the template")]
    Unsupported { feature: &'static str, envd_version: String },
}

impl Error {
    /// The Connect code this error corresponds to, for callers that branch on it.
    pub fn code(&self) -> Code {
        match self {
            Error::Rpc(err) => err.code,
            Error::Http { status, .. } => Code::from_http_status(*status),
            Error::Transport(_) => Code::Unavailable,
            Error::Protocol(_) => Code::Internal,
            Error::Timeout(_) => Code::DeadlineExceeded,
            Error::Invalid(_) => Code::InvalidArgument,
            Error::SandboxGone(_) => Code::Unavailable,
            Error::Unsupported { .. } => Code::Unimplemented,
            Error::Edge { status, .. } => match status {
                403 => Code::PermissionDenied,
                429 => Code::ResourceExhausted,
                400 => Code::FailedPrecondition,
                // 409: still transitioning; 502: port not open or a failed route.
                _ => Code::Unavailable,
            },
        }
    }

    /// Whether the sandbox itself has ended (see [`Error::SandboxGone`]).
    pub fn is_sandbox_gone(&self) -> bool {
        matches!(self, Error::SandboxGone(_))
    }

    pub fn is_not_found(&self) -> bool {
        self.code() == Code::NotFound
    }
}

impl From<reqwest::Error> for Error {
    fn from(err: reqwest::Error) -> Self {
        if err.is_timeout() {
            return Error::Transport(format!("request timed out: {err}"));
        }
        // reqwest's Display hides the cause; keep the chain so "connection refused" shows.
        let mut text = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        Error::Transport(text)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
