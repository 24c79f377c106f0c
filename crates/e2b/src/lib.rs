//! dsh-e2b: the client for E2B sandboxes and dsh's local sandboxes.
//!
//! [`envd::EnvdClient`] speaks envd's Connect protocol (binary protobuf by default, JSON on
//! request) and `/files`; the control-plane client creates, finds, pauses and kills
//! sandboxes. Only this crate (client side) and `dsh-envd` (server side) know the wire.

pub mod connect;
pub mod envd;
pub mod error;

pub use envd::{EnvdClient, EnvdTarget, ExitInfo, ProcessOutput, ProcessStream, StartOptions};
pub use error::{Error, Result};
