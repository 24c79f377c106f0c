//! The inputs kept for the `control_plane` fuzz target (`fuzz/regressions/control_plane/`,
//! inputs that once failed, and its seeds in `fuzz/corpus/`) still hold its properties,
//! checked by the same code the fuzzer runs (`fuzz/checks/`). `scripts/fuzz` fuzzes. No
//! daemon and no root: `check_body` is pure.

#[path = "../../../fuzz/checks/control_plane.rs"]
mod control_plane;
#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn control_plane_inputs_hold() {
    replay::replay("control_plane", control_plane::check);
}
