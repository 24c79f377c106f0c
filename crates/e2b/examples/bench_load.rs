//! Load benchmark worker (not a test), driven by `scripts/bench-load`: through dsh's own
//! client (`ControlPlane` + `EnvdClient`), create N sandboxes at once, run M commands at
//! once in each (every output checked exactly), write a random file into each and read it
//! back (SHA-256 compared), then kill it. Prints one JSON line per measured call:
//!
//! ```text
//! {"op":"create"|"command"|"write"|"read"|"kill","ms":12.3,"sandbox":"…"}
//! {"op":"error","stage":"command","sandbox":"…","detail":"…"}
//! {"op":"done","wall_ms":…}
//! ```
//!
//! `cargo run --release -p dsh-e2b --example bench_load -- --api-url http://127.0.0.1:3000
//! --api-key e2b_… [--sandboxes 50] [--commands 10] [--file-mib 8] [--concurrency 0]`
//! (`--concurrency 0`: every sandbox at once). The envd traffic goes to `--api-url` too,
//! routed by `E2b-Sandbox-Id`, as the daemon serves it.

use std::io::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_e2b::{ControlPlane, EnvdClient, EnvdTarget, NewSandbox, StartOptions};
use serde_json::json;
use sha2::{Digest, Sha256};

struct Args {
    api_url: String,
    api_key: String,
    sandboxes: usize,
    commands: usize,
    file_mib: usize,
    concurrency: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        api_url: String::new(),
        api_key: String::new(),
        sandboxes: 50,
        commands: 10,
        file_mib: 8,
        concurrency: 0,
    };
    let mut it = std::env::args();
    let _program = it.next();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<usize>().map_err(|err| format!("{flag}: {err}"));
        match flag.as_str() {
            "--api-url" => args.api_url = value.clone(),
            "--api-key" => args.api_key = value.clone(),
            "--sandboxes" => args.sandboxes = number()?,
            "--commands" => args.commands = number()?,
            "--file-mib" => args.file_mib = number()?,
            "--concurrency" => args.concurrency = number()?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if args.api_url.is_empty() || args.api_key.is_empty() {
        return Err("--api-url and --api-key are required".into());
    }
    Ok(args)
}

fn emit(line: serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn error(stage: &str, sandbox: &str, detail: impl std::fmt::Display) {
    emit(json!({"op": "error", "stage": stage, "sandbox": sandbox, "detail": detail.to_string()}));
}

/// Command `i` and the exact stdout it must print.
fn command(i: usize) -> (String, String) {
    let n = 1000 * (i + 1);
    let mut seq = String::new();
    for k in 1..=n {
        seq.push_str(&k.to_string());
        seq.push('\n');
    }
    let digest = format!("{:x}", Sha256::digest(seq.as_bytes()));
    (format!("echo {i}; seq 1 {n} | sha256sum"), format!("{i}\n{digest}  -\n"))
}

/// Pseudo-random bytes (xorshift64*), different for every sandbox.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(len);
    out
}

async fn run_command(envd: &EnvdClient, cmd: &str) -> Result<(Vec<u8>, Vec<u8>, i32), String> {
    // What the official SDKs send for `commands.run(cmd)`.
    let options = StartOptions {
        cmd: "/bin/bash".into(),
        args: vec!["-l".into(), "-c".into(), cmd.into()],
        timeout: Some(Duration::from_secs(120)),
        ..StartOptions::default()
    };
    let stream = envd.start(options).await.map_err(|err| format!("start: {err}"))?;
    let (stdout, stderr, exit) = stream.wait().await.map_err(|err| format!("stream: {err}"))?;
    Ok((stdout, stderr, exit.exit_code))
}

async fn one_sandbox(
    index: usize,
    control: ControlPlane,
    http: reqwest::Client,
    api_url: String,
    commands: Arc<Vec<(String, String)>>,
    file_len: usize,
) {
    let mut new = NewSandbox::from_template("base");
    new.timeout = Some(600);
    let started = Instant::now();
    let info = match control.create(&new).await {
        Ok(info) => info,
        Err(err) => return error("create", "", err),
    };
    let id = info.sandbox_id.clone();
    emit(json!({"op": "create", "ms": ms(started), "sandbox": id}));
    let envd =
        EnvdClient::new(http, EnvdTarget::routed(&api_url, &id), info.envd_access_token.clone());

    let runs = commands.iter().map(|(cmd, expected)| {
        let envd = &envd;
        let id = &id;
        async move {
            let started = Instant::now();
            match run_command(envd, cmd).await {
                Ok((stdout, stderr, code)) => {
                    let took = ms(started);
                    if code != 0 || stdout != expected.as_bytes() {
                        error(
                            "command",
                            id,
                            format!(
                                "{cmd:?}: exit {code}, stdout {:?}, stderr {:?}",
                                String::from_utf8_lossy(&stdout),
                                String::from_utf8_lossy(&stderr)
                            ),
                        );
                    } else {
                        emit(json!({"op": "command", "ms": took, "sandbox": id}));
                    }
                }
                Err(err) => error("command", id, format!("{cmd:?}: {err}")),
            }
        }
    });
    futures_util::future::join_all(runs).await;

    let data = random_bytes(file_len, (index as u64).wrapping_add(1));
    let want = Sha256::digest(&data);
    let path = "/home/user/bench-load.bin";
    let started = Instant::now();
    match envd.write_file(path, data, None).await {
        Ok(_) => emit(json!({"op": "write", "ms": ms(started), "sandbox": id})),
        Err(err) => error("write", &id, err),
    }
    let started = Instant::now();
    match envd.read_file(path, None).await {
        Ok(bytes) => {
            let took = ms(started);
            if Sha256::digest(&bytes) != want {
                error("read", &id, format!("content differs: {} bytes read", bytes.len()));
            } else {
                emit(json!({"op": "read", "ms": took, "sandbox": id}));
            }
        }
        Err(err) => error("read", &id, err),
    }

    let started = Instant::now();
    match control.kill(&id).await {
        Ok(true) => emit(json!({"op": "kill", "ms": ms(started), "sandbox": id})),
        Ok(false) => error("kill", &id, "the daemon did not know the sandbox"),
        Err(err) => error("kill", &id, err),
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(err) => {
            eprintln!("bench_load: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    let http = match dsh_e2b::http_client() {
        Ok(http) => http,
        Err(err) => {
            eprintln!("bench_load: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let control = ControlPlane::new(http.clone(), &args.api_url, &args.api_key);
    let commands: Arc<Vec<_>> = Arc::new((0..args.commands).map(command).collect());
    let file_len = args.file_mib * 1024 * 1024;

    // Warm-up (first connections, page cache of the binaries); not measured.
    let warm = tokio::spawn(one_sandbox(
        usize::MAX,
        control.clone(),
        http.clone(),
        args.api_url.clone(),
        Arc::new(vec![command(0)]),
        1024,
    ));
    let _ = warm.await;
    emit(json!({"op": "warmed"}));

    let limit = if args.concurrency == 0 { args.sandboxes.max(1) } else { args.concurrency };
    let permits = Arc::new(tokio::sync::Semaphore::new(limit));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for index in 0..args.sandboxes {
        let permits = permits.clone();
        let task = one_sandbox(
            index,
            control.clone(),
            http.clone(),
            args.api_url.clone(),
            commands.clone(),
            file_len,
        );
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            task.await;
        }));
    }
    for task in tasks {
        if let Err(err) = task.await {
            error("task", "", err);
        }
    }
    emit(json!({"op": "done", "wall_ms": ms(started)}));
    std::process::ExitCode::SUCCESS
}
