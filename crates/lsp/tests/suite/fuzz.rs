//! The inputs kept for the `lsp_framing` fuzz target (`fuzz/regressions/lsp_framing/`,
//! inputs that once failed, and its seeds in `fuzz/corpus/`) still hold its properties,
//! checked by the same code the fuzzer runs (`fuzz/checks/`). `scripts/fuzz` fuzzes.

#[path = "../../../../fuzz/checks/lsp_framing.rs"]
mod lsp_framing;
#[path = "../../../../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn lsp_framing_inputs_hold() {
    replay::replay("lsp_framing", lsp_framing::check);
}
