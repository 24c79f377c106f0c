//! Terminal benchmarks (not a test): keystroke-to-echo latency on a raw local PTY vs a
//! terminal in a local sandbox, and `cat` of a 100 MiB file through a full session (UTF-8
//! decoding, control filter, scrollback, screen model all on).
//!
//! `cargo run --release -p dsh-pty --example bench_pty` (as root: it starts a local
//! sandbox daemon; build the workspace binaries first).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_core::{TerminalSize, TerminalSpec, Terminals};
use dsh_pty::engine::{EngineConfig, TerminalEngine};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((p / 100.0 * sorted.len() as f64).ceil() as usize)
        .saturating_sub(1)
        .min(sorted.len() - 1)]
}

async fn keystroke_latency(terminals: Arc<dyn Terminals>, cwd: &std::path::Path) -> (f64, f64) {
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    // `cat` reads; the line discipline echoes each key as it arrives.
    let spec = TerminalSpec::new(["/bin/cat"], cwd, env, TerminalSize { rows: 24, cols: 80 });
    let terminal = terminals.spawn_terminal(spec).await.unwrap();
    let mut output = terminal.take_output().unwrap();
    let mut samples = Vec::new();
    for i in 0..220 {
        let key = [b'a' + (i % 26) as u8];
        let started = Instant::now();
        terminal.write(&key).await.unwrap();
        loop {
            let chunk =
                tokio::time::timeout(Duration::from_secs(5), output.next()).await.unwrap().unwrap();
            if chunk.contains(&key[0]) {
                break;
            }
        }
        if i >= 20 {
            samples.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    terminal.terminate().await;
    samples.sort_by(|a, b| a.total_cmp(b));
    (percentile(&samples, 50.0), percentile(&samples, 99.0))
}

#[tokio::main]
async fn main() {
    let local: Arc<dyn Terminals> = Arc::new(dsh_core::host::Host::new());
    let tmp = std::env::temp_dir();
    let (local_median, local_p99) = keystroke_latency(local, &tmp).await;

    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let connection = dsh_e2b::Connection {
        api_url: daemon.url(),
        api_key: daemon.api_key(),
        envd_url: Some(daemon.url()),
        domain: None,
    };
    let (runtime, _) =
        dsh_e2b::open_runtime(&connection, &dsh_e2b::SandboxConfig::default()).await.unwrap();
    let (sandbox_median, sandbox_p99) =
        keystroke_latency(Arc::clone(&runtime.terminals), &runtime.cwd).await;

    // 100 MiB of text through a whole session.
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    let engine =
        TerminalEngine::new(Arc::clone(&runtime.terminals), EngineConfig::new(&runtime.cwd, env));
    let id = engine.open("bench", None, None).await.unwrap().session_id;
    let made = engine
        .send(
            "bench",
            &id,
            "head -c 78643200 /dev/zero | base64 -w 99 > /tmp/big.txt; stat -c %s /tmp/big.txt",
            true,
            Duration::from_secs(120),
        )
        .await
        .unwrap();
    let size: f64 = made.output.lines().rev().nth(1).unwrap_or("0").trim().parse().unwrap_or(0.0);
    let started = Instant::now();
    let catted = engine
        .send("bench", &id, "cat /tmp/big.txt", true, Duration::from_secs(600))
        .await
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    engine.dispose().await;

    // The same through a local-backend session: what the text processing alone costs.
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    let local_engine =
        TerminalEngine::new(Arc::new(dsh_core::host::Host::new()), EngineConfig::new(&tmp, env));
    let local_id = local_engine.open("bench", None, None).await.unwrap().session_id;
    local_engine
        .send(
            "bench",
            &local_id,
            "head -c 78643200 /dev/zero | base64 -w 99 > /tmp/dsh-bench-big.txt",
            true,
            Duration::from_secs(120),
        )
        .await
        .unwrap();
    let local_started = Instant::now();
    local_engine
        .send("bench", &local_id, "cat /tmp/dsh-bench-big.txt", true, Duration::from_secs(600))
        .await
        .unwrap();
    let local_seconds = local_started.elapsed().as_secs_f64();
    local_engine
        .send("bench", &local_id, "rm /tmp/dsh-bench-big.txt", true, Duration::from_secs(10))
        .await
        .unwrap();
    local_engine.dispose().await;
    runtime.dispose().await;
    daemon.stop().await.unwrap();

    println!("| measure | local PTY | local sandbox |");
    println!("|---|---:|---:|");
    println!("| keystroke → echo, median | {local_median:.3} ms | {sandbox_median:.3} ms |");
    println!("| keystroke → echo, p99 | {local_p99:.3} ms | {sandbox_p99:.3} ms |");
    println!(
        "\n`cat` of {:.1} MiB through a sandbox session: {:.2} s = {:.0} MB/s ({:?})",
        size / 1048576.0,
        seconds,
        size / seconds / 1e6,
        catted.wait_reason
    );
    println!(
        "`cat` of the same through a local-backend session: {local_seconds:.2} s = {:.0} MB/s",
        size / local_seconds / 1e6
    );
}
