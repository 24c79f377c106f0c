//! Test harness: real tools on the seams (read via Fs, bash via Subprocess, write via
//! Fs), both backends, and /proc scans.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dsh_code::{BoxFuture, CodeConfig, CodeEngine, ToolCallFailure, ToolDispatcher, ToolInfo};
use dsh_core::{Fs, SpawnSpec, Subprocess, WriteExpectation};
use serde_json::{Value, json};

/// `read`, `bash`, `write` and `echo`, built on the seams; counts calls in flight.
pub struct SeamTools {
    pub fs: Arc<dyn Fs>,
    pub subprocess: Arc<dyn Subprocess>,
    pub cwd: PathBuf,
    pub active: AtomicUsize,
    pub max_active: AtomicUsize,
    pub calls: AtomicUsize,
}

impl SeamTools {
    pub fn new(fs: Arc<dyn Fs>, subprocess: Arc<dyn Subprocess>, cwd: &Path) -> Arc<Self> {
        Arc::new(Self {
            fs,
            subprocess,
            cwd: cwd.to_path_buf(),
            active: AtomicUsize::new(0),
            max_active: AtomicUsize::new(0),
            calls: AtomicUsize::new(0),
        })
    }

    async fn dispatch(&self, name: &str, args: Value) -> Result<Value, String> {
        let text = |key: &str| -> Result<String, String> {
            args.get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("missing string argument {key:?}"))
        };
        match name {
            "read" => {
                let path = self.cwd.join(text("file_path")?);
                let read = self.fs.read_text(&path, 1 << 20).await.map_err(|e| e.to_string())?;
                Ok(json!({ "text": read.text, "version": read.version.as_str() }))
            }
            "write" => {
                let path = self.cwd.join(text("file_path")?);
                let content = text("content")?;
                let outcome = self
                    .fs
                    .write_text(&path, &content, WriteExpectation::Any)
                    .await
                    .map_err(|e| e.to_string())?;
                let operation = format!("{:?}", outcome.operation).to_lowercase();
                Ok(json!({ "operation": operation }))
            }
            "bash" => {
                let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
                let spec = SpawnSpec::new(["/bin/bash", "-c", &text("command")?], &self.cwd, env);
                let process = self.subprocess.spawn(spec).await.map_err(|e| e.to_string())?;
                let status = process.wait().await;
                Ok(json!({
                    "stdout": process.stdout().snapshot().to_string_lossy(),
                    "stderr": process.stderr().snapshot().to_string_lossy(),
                    "exit_code": status.code,
                }))
            }
            "echo" => Ok(args),
            other => Err(format!("no tool {other}")),
        }
    }
}

impl ToolDispatcher for SeamTools {
    fn tools(&self) -> Vec<ToolInfo> {
        ["read", "bash", "write", "echo", "run_code"]
            .into_iter()
            .map(|name| ToolInfo { name: name.into(), description: format!("the {name} tool") })
            .collect()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        args: Value,
    ) -> BoxFuture<'a, Result<Value, ToolCallFailure>> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let now = self.active.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_active.fetch_max(now, Ordering::SeqCst);
            let result = self.dispatch(name, args).await;
            self.active.fetch_sub(1, Ordering::SeqCst);
            result.map_err(|message| ToolCallFailure { tool_name: name.to_owned(), message })
        })
    }
}

/// Waits (5 s at most) until the programs have made `n` tool calls in all: how a test
/// knows a program is running, instead of guessing with a sleep.
pub async fn calls_reach(tools: &SeamTools, n: usize) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::time::Instant::now() < deadline {
        if tools.calls.load(Ordering::SeqCst) >= n {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    false
}

/// Everything a scenario needs.
pub struct Setup {
    pub engine: CodeEngine,
    pub tools: Arc<SeamTools>,
    pub fs: Arc<dyn Fs>,
    pub cwd: PathBuf,
    /// Keeps the tempdir or the daemon alive.
    pub _guard: Box<dyn std::any::Any + Send>,
}

pub fn local_with(config: CodeConfig) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let local = Arc::new(dsh_core::host::Host::new());
    let fs: Arc<dyn Fs> = local.clone();
    let subprocess: Arc<dyn Subprocess> = local;
    let tools = SeamTools::new(fs.clone(), subprocess.clone(), &cwd);
    let engine = CodeEngine::new(fs.clone(), subprocess, &cwd, config);
    Setup { engine, tools, fs, cwd, _guard: Box::new(dir) }
}

pub fn local() -> Setup {
    local_with(CodeConfig::default())
}

pub async fn sandbox_with(config: CodeConfig) -> Setup {
    let daemon = dsh_envd::testing::start().await.unwrap();
    let envd = dsh_e2b::EnvdClient::new(
        dsh_e2b::http_client().unwrap(),
        dsh_e2b::EnvdTarget::direct(&daemon.base_url),
        None,
    );
    let backend = Arc::new(dsh_e2b::SandboxBackend::new(envd, None));
    let cwd = daemon.home.clone();
    let fs: Arc<dyn Fs> = backend.clone();
    let subprocess: Arc<dyn Subprocess> = backend;
    let tools = SeamTools::new(fs.clone(), subprocess.clone(), &cwd);
    let engine = CodeEngine::new(fs.clone(), subprocess, &cwd, config);
    Setup { engine, tools, fs, cwd, _guard: Box::new(daemon) }
}

pub async fn sandbox() -> Setup {
    sandbox_with(CodeConfig::default()).await
}

/// Pids of live processes whose command line contains `needle`.
pub fn processes_matching(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let zombie =
            stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
        if cmdline.contains(needle) && !zombie {
            found.push(pid);
        }
    }
    found
}

/// Waits (up to 5 s) until no live process matches `needle`.
pub async fn assert_gone(needle: &str) {
    for _ in 0..100 {
        if processes_matching(needle).is_empty() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("processes still alive for {needle:?}: {:?}", processes_matching(needle));
}

/// Number of threads of a process.
pub fn thread_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map(|d| d.count()).unwrap_or(0)
}

/// The thread count once it holds still (three equal samples 100 ms apart, 5 s at most):
/// a retired worker's thread ends, and the next spare's starts, after the run's answer.
pub async fn settled_thread_count(pid: u32) -> usize {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut samples = vec![thread_count(pid)];
    while std::time::Instant::now() < deadline
        && !(samples.len() >= 3 && samples[samples.len() - 3..].windows(2).all(|w| w[0] == w[1]))
    {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        samples.push(thread_count(pid));
    }
    samples.last().copied().unwrap_or(0)
}
