//! Code Mode numbers: `cargo run --release -p dsh-code --example bench_code`.
//!
//! - strip time (`strip_types`, swc) of the programs below, and its throughput on a
//!   100 KiB and a 500 KiB TypeScript file. `BENCH_STRIP_ONLY=1` stops after these;
//!   `BENCH_SAMPLES=1` prints every throughput sample;
//! - cold `run_code` of `return 1` with the runner already up (a fresh worker per run;
//!   the next one pre-spawned while idle), on the local backend and through a real
//!   dsh-envd (the sandbox backend);
//! - `run_code` end to end of a ~4 KiB and a ~100 KiB typed TypeScript program that call
//!   one tool (strip, ship, compile, run, result);
//! - binding round trip: one `await tools.noop({})` from inside a program, measured in
//!   the worker (worker → runner → host dispatch → runner → worker).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_code::{
    BoxFuture, CodeConfig, CodeEngine, RunRequest, ToolCallFailure, ToolDispatcher, ToolInfo,
    strip_types,
};
use dsh_core::{Fs, Subprocess};
use serde_json::{Value, json};

#[path = "support/typescript.rs"]
mod typescript;

/// The realistic programs: one unit (about 4 KiB) and 26 (about 100 KiB).
const PROGRAM_UNITS: [usize; 2] = [1, 26];

struct Noop;

impl ToolDispatcher for Noop {
    fn tools(&self) -> Vec<ToolInfo> {
        vec![ToolInfo { name: "noop".into(), description: "returns {}".into() }]
    }
    fn call<'a>(&'a self, _: &'a str, _: Value) -> BoxFuture<'a, Result<Value, ToolCallFailure>> {
        Box::pin(async { Ok(json!({})) })
    }
}

fn stats(mut samples: Vec<f64>) -> String {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    format!("median {:.2} ms, p99 {:.2} ms, n={}", at(0.5), at(0.99), samples.len())
}

async fn bench(label: &str, fs: Arc<dyn Fs>, subprocess: Arc<dyn Subprocess>, cwd: &Path) {
    let engine = CodeEngine::new(fs, subprocess, cwd, CodeConfig::default());
    let tools: Arc<dyn ToolDispatcher> = Arc::new(Noop);
    let started = Instant::now();
    engine.warm().await.unwrap();
    println!(
        "[{label}] runner start (install + node boot): {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    for (mode, idle) in
        [("idle 100 ms between runs", Duration::from_millis(100)), ("back to back", Duration::ZERO)]
    {
        let mut samples = Vec::new();
        for i in 0..120 {
            tokio::time::sleep(idle).await;
            let t = Instant::now();
            let outcome = engine.run(RunRequest::new("return 1"), tools.clone()).await.unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(outcome.result, Some(json!(1)), "{outcome:?}");
            if i >= 20 {
                samples.push(ms);
            }
        }
        println!("[{label}] cold run_code `return 1`, runner warm, {mode}: {}", stats(samples));
    }

    // End to end (strip, ship, compile, run, one tool call, result) for programs of the
    // sizes models write, and a long one; idle between runs, as between model turns.
    for units in PROGRAM_UNITS {
        let code = typescript::program(units);
        let mut samples = Vec::new();
        for i in 0..120 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let t = Instant::now();
            let outcome = engine.run(RunRequest::new(code.as_str()), tools.clone()).await.unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(
                outcome.result,
                Some(json!({ "units": units, "reply": {} })),
                "{:?}",
                outcome.error
            );
            if i >= 20 {
                samples.push(ms);
            }
        }
        println!(
            "[{label}] run_code, {units} unit(s) of typed TypeScript ({:.1} KiB, one tool call), \
             runner warm, idle 100 ms between runs: {}",
            code.len() as f64 / 1024.0,
            stats(samples)
        );
    }

    let code = r#"
const times: number[] = [];
for (let i = 0; i < 2000; i++) {
  const t = performance.now();
  await tools.noop({ i });
  times.push(performance.now() - t);
}
return times.slice(200);
"#;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let outcome = engine
        .run(
            RunRequest::new(code).with_limits(dsh_code::Limits {
                max_output_bytes: 1 << 20,
                ..dsh_code::Limits::default()
            }),
            tools.clone(),
        )
        .await
        .unwrap();
    let times: Vec<f64> = outcome
        .result
        .unwrap_or_else(|| panic!("{:?}", outcome.error))
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    println!("[{label}] binding round trip (in the worker): {}", stats(times));
    engine.dispose().await;
}

/// Median and best throughput of `strip` over `runs` runs on `source`, in MB/s.
fn throughput(source: &str, runs: usize, strip: impl Fn(&str) -> String) -> String {
    strip(source);
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let out = strip(source);
            let seconds = t.elapsed().as_secs_f64();
            assert_eq!(out.len(), source.len());
            seconds
        })
        .collect();
    if std::env::var_os("BENCH_SAMPLES").is_some() {
        eprintln!("{:.2?}", samples.iter().map(|s| s * 1e3).collect::<Vec<_>>());
    }
    samples.sort_by(f64::total_cmp);
    let (median, best) = (samples[samples.len() / 2], samples[0]);
    let bytes = source.len() as f64;
    format!(
        "median {:.1} ms = {:.0} MB/s (best {:.0} MB/s, n={runs})",
        median * 1e3,
        bytes / median / 1e6,
        bytes / best / 1e6
    )
}

fn bench_strip() {
    // Per program, at the sizes `run_code` is measured at below.
    for units in PROGRAM_UNITS {
        let code = typescript::program(units);
        let runs = if units == 1 { 2000 } else { 200 };
        let mut samples = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let out = strip_types(&code).unwrap();
            samples.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(out.len(), code.len());
        }
        println!("strip a {} B program: {}", code.len(), stats(samples));
    }
    // Throughput on type-dense TypeScript, below the program size limit.
    let source = typescript::one_mib();
    for (size, runs) in [(100 << 10, 100), (500 << 10, 20)] {
        let slice = &source[..source[..size].rfind('\n').unwrap() + 1];
        println!(
            "strip {} KiB of TypeScript: {}",
            slice.len() >> 10,
            throughput(slice, runs, |code| strip_types(code).unwrap())
        );
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    bench_strip();
    if std::env::var_os("BENCH_STRIP_ONLY").is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let local = Arc::new(dsh_core::host::Host::new());
    bench("local", local.clone(), local, &dir.path().canonicalize().unwrap()).await;

    let daemon = dsh_envd::testing::start().await.unwrap();
    let envd = dsh_e2b::EnvdClient::new(
        dsh_e2b::http_client().unwrap(),
        dsh_e2b::EnvdTarget::direct(&daemon.base_url),
        None,
    );
    let backend = Arc::new(dsh_e2b::SandboxBackend::new(envd, None));
    bench("dsh-envd sandbox backend", backend.clone(), backend, &daemon.home.clone()).await;
}
