//! dsh-e2b: the client for E2B sandboxes and dsh's local sandboxes.
//!
//! [`envd::EnvdClient`] speaks envd's Connect protocol (binary protobuf by default, JSON on
//! request) and `/files`; the control-plane client creates, finds, pauses and kills
//! sandboxes; [`Layers`] asks a local daemon for read-only layers mounted into every
//! sandbox (language servers built once per machine). Only this crate (client side) and
//! `dsh-envd` (server side) know the wire.

pub mod backend;
pub mod config;
pub mod connect;
pub mod control;
pub mod envd;
pub mod error;
pub mod layers;
pub mod sandbox;

pub use backend::SandboxBackend;
pub use config::{OnDispose, OnTimeout, SandboxConfig};
pub use control::{ControlPlane, NewSandbox, SandboxDetail, SandboxInfo, SandboxMetric};
pub use envd::{EnvdClient, EnvdTarget, ExitInfo, ProcessOutput, ProcessStream, StartOptions};
pub use error::{Error, Result};
pub use layers::{Layer, LayerError, Layers, ProvidedLayer, Recipe};
/// A request body for [`EnvdClient::upload`] (stream one with `UploadBody::wrap_stream`).
pub use reqwest::Body as UploadBody;
pub use sandbox::{Connection, Sandbox, open_runtime};

/// An HTTP client for the control plane and envd: HTTP/1.1 for `http://` URLs (local
/// sandboxes), HTTP/2 negotiated by ALPN over TLS (E2B cloud), with the OS's roots.
pub fn http_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .tcp_nodelay(true)
        // Below the 30 s after which dsh-sandboxd and dsh-envd close an idle keep-alive
        // connection: the pool drops it first, so no request is sent on one the server
        // is closing.
        .pool_idle_timeout(std::time::Duration::from_secs(20))
        .build()
        .map_err(|err| Error::Invalid(format!("cannot build the HTTP client: {err}")))
}
