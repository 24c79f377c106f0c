//! Round-trip and throughput of the tools on the local backend and on the sandbox backend
//! (a real dsh-envd on loopback, as in the tests).
//!
//! `cargo run --release -p dsh-tools --example bench_tools` prints a markdown table:
//! - `bash` tool round trip of `true` (`/bin/bash -c true`, environment PATH only, so no
//!   shell init files), median and p99 over 200 runs after 10 warm-up runs;
//! - 64 MiB through the `write` tool, and 64 MiB write + read through the `Fs` seam
//!   directly (the `read` tool is line-limited, so it is not a throughput path).

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_core::host::Host;
use dsh_core::{Fs, Subprocess, WriteExpectation};
use dsh_e2b::{EnvdClient, EnvdTarget, SandboxBackend};
use dsh_tools::{ToolContext, ToolRegistry};
use serde_json::json;

const RUNS: usize = 200;
const WARMUP: usize = 10;
const BIG: usize = 64 * 1024 * 1024;

struct Row {
    backend: &'static str,
    median: Duration,
    p99: Duration,
    write_tool: Duration,
    fs_write: Duration,
    fs_read: Duration,
}

fn mib_per_s(elapsed: Duration) -> f64 {
    (BIG as f64 / (1024.0 * 1024.0)) / elapsed.as_secs_f64()
}

async fn measure(
    backend: &'static str,
    fs: Arc<dyn Fs>,
    subprocess: Arc<dyn Subprocess>,
    root: PathBuf,
) -> Result<Row, Box<dyn Error>> {
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    let registry = ToolRegistry::new(ToolContext::new(fs.clone(), subprocess, root.clone(), env));
    let args = json!({ "command": "true", "description": "bench" });
    let mut times = Vec::with_capacity(RUNS);
    for i in 0..WARMUP + RUNS {
        let start = Instant::now();
        let out = registry.call("bash", args.clone()).await?;
        let elapsed = start.elapsed();
        if out.value["exit_code"] != 0 {
            return Err(format!("`true` failed on {backend}: {}", out.text).into());
        }
        if i >= WARMUP {
            times.push(elapsed);
        }
    }
    times.sort();
    let median = times[RUNS / 2];
    let p99 = times[(RUNS * 99).div_ceil(100) - 1];

    let content = "0123456789abcdef".repeat(BIG / 16);
    let start = Instant::now();
    registry.call("write", json!({ "file_path": "big-tool.txt", "content": content })).await?;
    let write_tool = start.elapsed();

    let path = root.join("big-fs.txt");
    let start = Instant::now();
    fs.write_text(&path, &content, WriteExpectation::Any).await?;
    let fs_write = start.elapsed();
    let start = Instant::now();
    let read = fs.read_text(&path, 2 * BIG as u64).await?;
    let fs_read = start.elapsed();
    if read.text.len() != BIG {
        return Err(format!("read back {} bytes", read.text.len()).into());
    }
    registry.dispose().await;
    Ok(Row { backend, median, p99, write_tool, fs_write, fs_read })
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let local_root = std::fs::canonicalize(dir.path())?;
    let local = Arc::new(Host::new());
    let local_row = measure("local", local.clone(), local, local_root).await?;

    let daemon = dsh_envd::testing::start().await?;
    let envd = EnvdClient::new(dsh_e2b::http_client()?, EnvdTarget::direct(&daemon.base_url), None);
    let sandbox = Arc::new(SandboxBackend::new(envd, None));
    let root = std::fs::canonicalize(&daemon.home)?.join("bench");
    sandbox.make_dir(Path::new(&root), true).await?;
    let sandbox_row =
        measure("sandbox (dsh-envd, loopback)", sandbox.clone(), sandbox, root).await?;

    println!(
        "| backend | `bash` `true` median | `bash` `true` p99 | `write` tool 64 MiB | Fs write 64 MiB | Fs read 64 MiB |"
    );
    println!("|---|---|---|---|---|---|");
    for row in [local_row, sandbox_row] {
        println!(
            "| {} | {} | {} | {} ({:.0} MiB/s) | {} ({:.0} MiB/s) | {} ({:.0} MiB/s) |",
            row.backend,
            ms(row.median),
            ms(row.p99),
            ms(row.write_tool),
            mib_per_s(row.write_tool),
            ms(row.fs_write),
            mib_per_s(row.fs_write),
            ms(row.fs_read),
            mib_per_s(row.fs_read),
        );
    }
    println!("\n{RUNS} runs after {WARMUP} warm-up runs; env PATH only; /bin/bash -c true.");
    Ok(())
}
