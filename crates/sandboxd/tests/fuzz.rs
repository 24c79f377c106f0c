//! The inputs kept for the daemon's fuzz targets (`fuzz/regressions/<target>/`, inputs
//! that once failed, and their seeds in `fuzz/corpus/`) still hold their properties,
//! checked by the same code the fuzzer runs (`fuzz/checks/`). `scripts/fuzz` fuzzes. No
//! daemon and no root: `check_body` and `read_head` are pure.
//! - `control_plane`: the control plane's request bodies;
//! - `egress_head`: the name a diverted connection's first bytes give (TLS SNI, HTTP Host).

#[path = "../../../fuzz/checks/control_plane.rs"]
mod control_plane;
#[path = "../../../fuzz/checks/egress_head.rs"]
mod egress_head;
#[path = "../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn control_plane_inputs_hold() {
    replay::replay("control_plane", control_plane::check);
}

#[test]
fn egress_head_inputs_hold() {
    replay::replay("egress_head", egress_head::check);
}
