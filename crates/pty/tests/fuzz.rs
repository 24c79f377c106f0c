//! The inputs kept for the `terminal` fuzz target (`fuzz/regressions/terminal/`, inputs
//! that once failed, and its seeds in `fuzz/corpus/`) still hold its properties, checked by
//! the same code the fuzzer runs (`fuzz/checks/`). `scripts/fuzz` fuzzes.

#[path = "../../../fuzz/checks/replay.rs"]
mod replay;
#[path = "../../../fuzz/checks/terminal.rs"]
mod terminal;

#[test]
fn terminal_inputs_hold() {
    replay::replay("terminal", terminal::check);
}
