//! The inputs kept for the Code Mode fuzz targets (`fuzz/regressions/<target>/`, inputs
//! that once failed, and the seeds in `fuzz/corpus/<target>/`) still hold their
//! properties, checked by the same code the fuzzers run (`fuzz/checks/`). `scripts/fuzz`
//! fuzzes.

#[path = "../../../../fuzz/checks/code.rs"]
mod code;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn code_wire_inputs_hold() {
    replay::replay("code_wire", code::wire);
}

#[test]
fn code_lossless_inputs_hold() {
    replay::replay("code_lossless", code::lossless);
}
