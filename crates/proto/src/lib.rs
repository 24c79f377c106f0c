//! The envd wire: message types generated from our own `.proto` files (identical names
//! and numbers to E2B's envd, so the bytes on the wire match) and the Connect protocol
//! pieces both our daemon and our client need: envelopes, end-of-stream messages, error
//! codes and their HTTP statuses, and the JSON/binary codecs.
//!
//! Only this crate and its direct users know the wire; everything above talks in
//! Rust types.

pub mod connect;
pub mod control;
pub mod timestamp;

/// `filesystem.Filesystem` messages.
#[allow(clippy::all, clippy::unwrap_used, clippy::expect_used, missing_docs)]
pub mod filesystem {
    include!(concat!(env!("OUT_DIR"), "/filesystem.rs"));
    include!(concat!(env!("OUT_DIR"), "/filesystem.serde.rs"));
}

/// `process.Process` messages.
#[allow(clippy::all, clippy::unwrap_used, clippy::expect_used, missing_docs)]
pub mod process {
    include!(concat!(env!("OUT_DIR"), "/process.rs"));
    include!(concat!(env!("OUT_DIR"), "/process.serde.rs"));
}

/// The envd version we claim. The official SDKs gate features on it (§6 of the fact
/// sheet); everything up to this version is implemented.
pub const ENVD_VERSION: &str = "0.6.13";

/// The default envd port.
pub const ENVD_PORT: u16 = 49983;

/// Service paths, as routes on the HTTP server.
pub mod routes {
    pub const FILESYSTEM: &str = "filesystem.Filesystem";
    pub const PROCESS: &str = "process.Process";
}
