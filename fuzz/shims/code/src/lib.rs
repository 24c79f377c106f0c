//! The part of dsh-code the Code Mode fuzz targets reach, from the crate's own files.

// What only the engine uses (the host's line encoding, the boot version) is not called here.
#![allow(dead_code)]

#[path = "../../../../crates/code/src/frame.rs"]
mod frame;
#[path = "../../../../crates/code/src/lossless.rs"]
pub mod lossless;

pub use frame::decode_runner_line;
