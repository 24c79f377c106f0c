//! The layering of docs/architecture.md, checked: which workspace crates each crate may
//! use (normal dependencies; tests may reach further, e.g. a real envd). Adding an edge is
//! a design change: change the table here and in the doc together.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

#[test]
fn crates_depend_only_on_the_layers_below_them() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running cargo metadata");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let ours: BTreeSet<&str> = packages.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for package in packages {
        let uses = graph.entry(package["name"].as_str().unwrap()).or_default();
        for dependency in package["dependencies"].as_array().unwrap() {
            let name = dependency["name"].as_str().unwrap();
            // Normal dependencies only (`kind` is null); dev and build ones are free.
            if ours.contains(name) && dependency["kind"].is_null() {
                uses.insert(name);
            }
        }
    }
    let expected: BTreeMap<&str, BTreeSet<&str>> = [
        ("dsh-proto", &[][..]),
        ("dsh-core", &[]),
        ("dsh-http", &[]),
        // E2B's code-interpreter server, run by the in-sandbox daemon's binary.
        ("dsh-code-interpreter", &["dsh-http"]),
        ("dsh-envd", &["dsh-code-interpreter", "dsh-http", "dsh-proto"]),
        // The isolation layer: one sandbox, no async runtime and no HTTP.
        ("dsh-sandbox", &[]),
        ("dsh-sandboxd", &["dsh-http", "dsh-proto", "dsh-sandbox"]),
        ("dsh-e2b", &["dsh-core", "dsh-proto"]),
        ("dsh-pty", &["dsh-core"]),
        ("dsh-lsp", &["dsh-core"]),
        ("dsh-code", &["dsh-core"]),
        ("dsh-tools", &["dsh-code", "dsh-core", "dsh-lsp", "dsh-pty"]),
        // Test-only: drives dsh-e2b against dsh-sandboxd from its tests (dev edges).
        ("dsh-edge-standin", &[]),
        (
            "dsh",
            &[
                "dsh-code",
                "dsh-core",
                "dsh-e2b",
                "dsh-envd",
                "dsh-lsp",
                "dsh-proto",
                "dsh-pty",
                "dsh-sandboxd",
                "dsh-tools",
            ],
        ),
    ]
    .into_iter()
    .map(|(name, uses)| (name, uses.iter().copied().collect()))
    .collect();
    assert_eq!(graph, expected);
}
