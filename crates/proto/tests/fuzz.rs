//! The inputs kept for the Connect fuzz targets (`fuzz/regressions/<target>/`, inputs that
//! once failed, and the seeds in `fuzz/corpus/<target>/`) still hold their properties,
//! checked by the same code the fuzzers run (`fuzz/checks/`). `scripts/fuzz` fuzzes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../fuzz/checks/connect_codec.rs"]
mod connect_codec;
#[path = "../../../fuzz/checks/connect_envelope.rs"]
mod connect_envelope;
#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn connect_envelope_inputs_hold() {
    replay::replay("connect_envelope", connect_envelope::check);
}

#[test]
fn connect_codec_inputs_hold() {
    replay::replay("connect_codec", connect_codec::check);
}
