//! Tool-call round trips through the stand-in edge (TLS + HTTP/2) against the same calls
//! straight to dsh-sandboxd over HTTP/1.1, on one sandbox: `cargo run --release -p
//! dsh-edge-standin --example round_trips` (as root, like the daemon's tests). Prints one
//! JSON line per path with the median and p90 of each call, in microseconds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use dsh_e2b::{Connection, Sandbox, SandboxConfig};

const ROUNDS: usize = 200;

fn quantile(samples: &mut [Duration], q: f64) -> u128 {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
    samples[index].as_micros()
}

async fn measure(label: &str, sandbox: &Sandbox) {
    let envd = sandbox.backend().envd();
    let path = format!("{}/bench.txt", sandbox.cwd().display());
    envd.write_file(&path, bytes::Bytes::from_static(b"x\n"), None).await.unwrap();
    let (mut stat, mut read, mut command) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let started = Instant::now();
        envd.stat(&path, None).await.unwrap();
        stat.push(started.elapsed());
        let started = Instant::now();
        envd.read_file(&path, None).await.unwrap();
        read.push(started.elapsed());
        let started = Instant::now();
        sandbox.backend().run_helper(&["true"]).await.unwrap();
        command.push(started.elapsed());
    }
    println!(
        "{}",
        serde_json::json!({
            "path": label,
            "rounds": ROUNDS,
            "stat_us": {"p50": quantile(&mut stat, 0.5), "p90": quantile(&mut stat, 0.9)},
            "read_file_us": {"p50": quantile(&mut read, 0.5), "p90": quantile(&mut read, 0.9)},
            "command_us": {"p50": quantile(&mut command, 0.5), "p90": quantile(&mut command, 0.9)},
        })
    );
}

#[tokio::main]
async fn main() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = dsh_edge_standin::Edge::start("e2b.test", &daemon.url()).await.unwrap();
    let config = SandboxConfig { template: Some("base".into()), ..SandboxConfig::default() };

    let direct = Connection {
        api_url: daemon.url(),
        api_key: daemon.api_key(),
        envd_url: Some(daemon.url()),
        domain: None,
    };
    let sandbox = Sandbox::open(dsh_e2b::http_client_with(None, None).unwrap(), &direct, &config)
        .await
        .unwrap();
    measure("direct http/1.1 to dsh-sandboxd", &sandbox).await;
    sandbox.dispose().await.unwrap();

    let http =
        dsh_e2b::http_client_with(Some(edge.ca_file.to_str().unwrap()), Some(&edge.resolve_rule()))
            .unwrap();
    let through = Connection::resolve(None, daemon.api_key(), None, Some(&edge.client_domain()));
    let sandbox = Sandbox::open(http, &through, &config).await.unwrap();
    measure("stand-in edge: TLS + h2", &sandbox).await;
    sandbox.dispose().await.unwrap();
    daemon.stop().await.unwrap();
}
