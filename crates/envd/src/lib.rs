//! dsh-envd: an E2B-compatible in-sandbox daemon.
//!
//! It speaks envd's wire protocol (Connect RPC `filesystem.Filesystem` and
//! `process.Process`, plus HTTP `/files`, `/health`, `/init`, `/envs`, `/metrics`), so
//! the official E2B SDKs and our own client drive it unchanged. See `docs/envd.md`
//! for the protocol notes and dsh's wire-compatible extensions.

// Handlers return finished HTTP responses as their error values, as axum does.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod cacerts;
pub mod cli;
pub mod files;
pub mod fs;
pub mod http_api;
pub mod paths;
pub mod process;
pub mod rpc;
pub mod state;
pub mod strict;
pub mod sudo;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod users;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;

pub use state::{Caps, Envd, EnvdConfig};

/// The complete envd HTTP surface.
pub fn router(envd: Arc<Envd>) -> Router {
    let max_body = envd.config.max_message_bytes + 64 * 1024;
    let rpcs = Router::new().merge(fs::routes()).merge(process::routes()).merge(http_api::routes());
    Router::new()
        .merge(rpcs.layer(DefaultBodyLimit::max(max_body)))
        .merge(files::routes())
        .fallback(|uri: axum::http::Uri| async move { rpc::unknown_procedure(uri.path()) })
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&envd), strict::gate))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&envd), auth::require_access_token))
        .layer(axum::middleware::from_fn(http_api::cors))
        .with_state(envd)
}

/// Serves envd on `listener` until `shutdown` resolves, then kills every process
/// group it started.
/// envd's door: the descriptor limit raised to its hard limit, and at most half of it
/// (64 to 4,096) for connections, so a flood of connections (from a program inside the
/// sandbox, say) leaves envd descriptors for the processes, files and terminals it serves.
pub fn door_limits() -> dsh_http::Limits {
    let descriptors =
        dsh_http::raise_open_files_limit().unwrap_or_else(|_| dsh_http::open_files_limit());
    let max_connections = usize::try_from(descriptors / 2).unwrap_or(usize::MAX).clamp(64, 4096);
    dsh_http::Limits { max_connections, ..dsh_http::Limits::default() }
}

pub async fn serve(
    listener: tokio::net::TcpListener,
    envd: Arc<Envd>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(Arc::clone(&envd));
    let limits = envd.config.door.unwrap_or_else(door_limits);
    // At shutdown the streams still open are cut at once (their clients see the
    // connection break, as when the sandbox dies) instead of holding the graceful
    // shutdown for its whole grace: a stream follows a command, a terminal or a watch,
    // none of which ends by itself, and a sandbox's pause would wait out its stop grace.
    let stopping = Arc::clone(&envd);
    let shutdown = async move {
        shutdown.await;
        stopping.cut_streams();
    };
    let result = dsh_http::serve(listener, app, limits, |_| (), shutdown).await;
    envd.processes.kill_all();
    result
}
