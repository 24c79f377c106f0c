//! The stand-in edge as a process, for suites in other languages (`scripts/test`'s
//! `mcp_edge` step runs the MCP Python suite through it): a real dsh-sandboxd whose
//! sandboxes run envd as E2B's (`--e2b-strict 0.6.13`), behind the TLS/HTTP/2 stand-in of
//! E2B's edge on loopback. Prints one JSON line: the environment a dsh configured for E2B
//! cloud needs to reach it (`E2B_API_KEY`, `E2B_DOMAIN`, `DSH_E2B_RESOLVE`,
//! `DSH_E2B_CA_FILE`); then serves until its standard input closes or it gets SIGTERM,
//! and stops the daemon (its sandboxes with it).
//!
//! `cargo run -p dsh-edge-standin --example serve` (as root, like the daemon's tests;
//! build every binary first: the daemon takes dsh-envd and dsh-sandbox-init from beside it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tokio::io::AsyncReadExt as _;

/// The version E2B's current envd reports, which the strict envd behaves as.
const STRICT_ENVD: &str = "0.6.13";
const DOMAIN: &str = "e2b.test";

#[tokio::main]
async fn main() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start_with(|config| {
        config.envd_args = vec!["--e2b-strict".into(), STRICT_ENVD.into()];
        // The names and trust of a suite's stand-in API, for header rules (the daemon's
        // `egress_hosts` and `egress_trust`; scripts/test's mcp_edge step makes them).
        config.egress_hosts = std::env::var_os("DSH_EDGE_EGRESS_HOSTS").map(Into::into);
        config.egress_trust = std::env::var_os("DSH_EDGE_EGRESS_TRUST").map(Into::into);
    })
    .await
    .unwrap();
    let edge = dsh_edge_standin::Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let environment = serde_json::json!({
        "E2B_API_KEY": daemon.api_key(),
        "E2B_DOMAIN": edge.client_domain(),
        "DSH_E2B_RESOLVE": edge.resolve_rule(),
        "DSH_E2B_CA_FILE": edge.ca_file.display().to_string(),
    });
    println!("{environment}");
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
    let mut stdin = tokio::io::stdin();
    let mut buffer = [0u8; 64];
    loop {
        tokio::select! {
            _ = terminate.recv() => break,
            read = stdin.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            },
        }
    }
    drop(edge);
    daemon.stop().await.unwrap();
    // Not a return: the runtime would wait for its thread still blocked reading stdin
    // (after a SIGTERM, stdin is still open).
    std::process::exit(0);
}
