//! dsh's language-server engine.
//!
//! Language servers run in the sandbox (they must see the files the agent's commands
//! change); the JSON-RPC state stays on the host. The engine reaches the sandbox only
//! through dsh-core's seams: [`dsh_core::Subprocess`] runs each server with a piped stdin
//! and a capped stdout read as a byte stream, [`dsh_core::Fs`] supplies source text
//! (strict UTF-8, size cap, inside the workspace).
//!
//! - [`framing`]: byte-exact Content-Length framing with a frame cap.
//! - `client`: one server connection: ids and waiters, server-to-client requests,
//!   `$/cancelRequest` with a grace period, `shutdown`/`exit`/TERM/KILL.
//! - [`LspEngine`]: servers from [`LspConfig`] started lazily per project root, reused,
//!   restarted once after a crash; document sync; the operations. A missing server
//!   comes from the [`ServerCache`] if one is configured, else npm in the sandbox; the
//!   wait is reported through a per-request [`dsh_core::Progress`].
//! - [`position`]: 1-based UTF-16 columns ↔ LSP positions, excerpts.
//! - [`uri`]: sandbox paths as `file://` URIs and back.
//!
//! The protocol's messages are lsp-types' types; only the JSON-RPC envelope is plain JSON.

mod cache;
mod client;
pub mod config;
mod engine;
mod error;
pub mod framing;
pub mod position;
mod result;
pub mod uri;

pub use cache::{CachedServer, ServerCache};
pub use config::{LspConfig, ServerConfig, default_servers};
pub use engine::{LspEngine, Operation};
pub use error::LspError;
pub use result::{Diagnostic, FileEdits, Location, LspOutput, LspResult, Symbol, TextEditPreview};
