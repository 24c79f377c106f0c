//! E2B's code-interpreter server, written for dsh: the HTTP API the official
//! `e2b-code-interpreter` SDKs speak on port 49999 of a sandbox, over Jupyter kernels.
//!
//! It starts a `jupyter-server` (loopback only, no token) as its child, waits for it,
//! creates the default Python context and then listens. Each *context* is one kernel of
//! that server (the context id is the kernel id), reached through the kernel's WebSocket
//! (Jupyter's JSON messaging protocol). The routes follow E2B's own server
//! (e2b-dev/code-interpreter, `template/server/main.py`):
//!
//! - `GET /health`: `"OK"`.
//! - `POST /execute` `{code, context_id?, language?, env_vars?}`: runs the code and
//!   streams one JSON object a line (see [`execute`]).
//! - `POST /contexts` `{language?, cwd?}`, `GET /contexts`,
//!   `POST /contexts/{id}/restart`, `DELETE /contexts/{id}`.
//!
//! `dsh-envd code-interpreter` runs it (the envd binary is in every sandbox); the
//! `code-interpreter-v1` template that dsh-sandboxd builds starts it at boot.

mod execute;
mod jupyter;
mod language;
mod server;

pub use language::{Language, normalize_language};
pub use server::{Config, main_with_args};
