//! `dsh tour` is the product's main job; it runs here exactly as a newcomer runs it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

/// Processes whose command line names `needle` (envd's carries its sandbox id).
fn processes_mentioning(needle: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| String::from_utf8_lossy(cmdline).contains(needle))
        .count()
}

#[test]
fn the_tour_passes_on_the_embedded_local_sandbox_and_leaves_nothing_behind() {
    let output = Command::new(env!("CARGO_BIN_EXE_dsh"))
        .args(["tour", "--json"])
        .env_remove("E2B_API_KEY")
        .env_remove("E2B_API_URL")
        .env_remove("E2B_SANDBOX_URL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tour failed:\n{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["backend"], "local sandbox (embedded dsh-sandboxd)");
    let steps: Vec<&str> =
        report["steps"].as_array().unwrap().iter().map(|s| s["step"].as_str().unwrap()).collect();
    assert_eq!(
        steps,
        [
            "sandbox",
            "files <-> commands",
            "terminal",
            "language server",
            "code mode",
            "isolation",
            "teardown"
        ]
    );
    let teardown = &report["steps"][6]["details"];
    assert_eq!(
        teardown["engines"],
        serde_json::json!(["background tasks", "code runner", "language servers", "terminals"])
    );
    let lsp = &report["steps"][3]["details"];
    assert_eq!(lsp["definition"]["line"], 1);
    assert_eq!(lsp["definition"]["character"], 5);
    let code = &report["steps"][4]["details"];
    assert_eq!(code["parallel"]["result"], serde_json::json!({"doubled": 42, "typed": true}));
    assert_eq!(code["tampering"]["logs"], serde_json::json!(["post-mutation"]));
    assert_eq!(teardown["lookupAfterwards"], "not-found");
    assert_eq!(
        teardown["sandbox"],
        format!("killed sandbox {}", report["sandboxId"].as_str().unwrap())
    );
    let isolation = &report["steps"][5]["details"];
    assert!(isolation["rootOnHost"].as_u64().unwrap() >= 1 << 30, "{isolation}");
    assert_eq!(
        (isolation["noNewPrivs"].as_bool(), isolation["seccomp"].as_bool()),
        (Some(true), Some(true))
    );
    let terminal = &report["steps"][2]["details"];
    assert!(terminal["promptBackMs"].as_u64().unwrap() < 2000, "{terminal}");
    let id = report["sandboxId"].as_str().unwrap();
    assert_eq!(processes_mentioning(id), 0, "the tour left sandbox {id} running");
}
