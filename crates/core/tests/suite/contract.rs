//! The contract suites themselves.

/// A public contract function missing from `backend_contract!`'s list would silently run
/// against no backend: every one of them must be listed, and nothing else.
#[test]
fn every_contract_function_is_run_by_backend_contract() {
    let sources = [
        ("fs_contract", include_str!("../../src/testkit/fs_contract.rs")),
        ("process_contract", include_str!("../../src/testkit/process_contract.rs")),
        ("terminal_contract", include_str!("../../src/testkit/terminal_contract.rs")),
    ];
    let mut defined: Vec<String> = sources
        .iter()
        .flat_map(|(seam, source)| {
            source
                .lines()
                .filter_map(|line| line.strip_prefix("pub async fn "))
                .map(move |rest| format!("{seam}::{}", rest.split('(').next().unwrap_or(rest)))
        })
        .collect();
    let mut listed: Vec<String> =
        dsh_core::contract_names!().iter().map(|name| (*name).to_owned()).collect();
    defined.sort();
    listed.sort();
    assert_eq!(defined, listed);
    assert_eq!(listed.len(), 37);
}
