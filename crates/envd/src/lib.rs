//! dsh-envd: an E2B-compatible in-sandbox daemon.
//!
//! It speaks envd's wire protocol (Connect RPC `filesystem.Filesystem` and
//! `process.Process`, plus HTTP `/files`, `/health`, `/init`, `/envs`, `/metrics`), so
//! the official E2B SDKs and our own client drive it unchanged. See `docs/envd.md`
//! for the protocol notes and dsh's wire-compatible extensions.

// Handlers return finished HTTP responses as their error values, as axum does.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod cli;
pub mod files;
pub mod fs;
pub mod http_api;
pub mod paths;
pub mod process;
pub mod rpc;
pub mod state;
pub mod sudo;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod users;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;

pub use state::{Envd, EnvdConfig};

/// The complete envd HTTP surface.
pub fn router(envd: Arc<Envd>) -> Router {
    let max_body = envd.config.max_message_bytes + 64 * 1024;
    let rpcs = Router::new().merge(fs::routes()).merge(process::routes()).merge(http_api::routes());
    Router::new()
        .merge(rpcs.layer(DefaultBodyLimit::max(max_body)))
        .merge(files::routes())
        .fallback(|uri: axum::http::Uri| async move { rpc::unknown_procedure(uri.path()) })
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&envd), auth::require_access_token))
        .layer(axum::middleware::from_fn(http_api::cors))
        .with_state(envd)
}

/// Serves envd on `listener` until `shutdown` resolves, then kills every process
/// group it started.
pub async fn serve(
    listener: tokio::net::TcpListener,
    envd: Arc<Envd>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt as _;
    let app = router(Arc::clone(&envd));
    // Streams are many small writes; without NODELAY, Nagle plus delayed ACK adds ~40 ms.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let result = axum::serve(listener, app).with_graceful_shutdown(shutdown).await;
    envd.processes.kill_all();
    result
}
