//! The harness: one registry over one backend, with a fresh workspace.

use std::any::Any;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use dsh_core::Fs;
use dsh_core::host::Host;
use dsh_e2b::{EnvdClient, EnvdTarget, SandboxBackend};
use dsh_tools::{ToolContext, ToolError, ToolOutput, ToolRegistry};
use serde_json::Value;

pub struct Harness {
    pub registry: ToolRegistry,
    /// The workspace (the context's cwd), canonical.
    pub root: PathBuf,
    pub backend: &'static str,
    _keep: Box<dyn Any + Send>,
}

pub fn env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
    ])
}

impl Harness {
    pub async fn local() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("ws");
        std::fs::create_dir(&root).unwrap();
        let backend = Arc::new(Host::new());
        let ctx = ToolContext::new(backend.clone(), backend.clone(), root.clone(), env());
        Self { registry: ToolRegistry::new(ctx), root, backend: "local", _keep: Box::new(dir) }
    }

    pub async fn sandbox() -> Self {
        let daemon = dsh_envd::testing::start().await.unwrap();
        let envd = EnvdClient::new(
            dsh_e2b::http_client().unwrap(),
            EnvdTarget::direct(&daemon.base_url),
            None,
        );
        let backend = Arc::new(SandboxBackend::new(envd, None));
        let home = std::fs::canonicalize(&daemon.home).unwrap();
        let root = home.join("ws");
        // Created by the sandbox user, so it owns the workspace.
        backend.make_dir(&root, true).await.unwrap();
        let ctx = ToolContext::new(backend.clone(), backend.clone(), root.clone(), env());
        Self { registry: ToolRegistry::new(ctx), root, backend: "sandbox", _keep: Box::new(daemon) }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn p(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }

    pub async fn ok(&self, tool: &str, args: Value) -> ToolOutput {
        match self.registry.call(tool, args.clone()).await {
            Ok(output) => output,
            Err(err) => panic!("[{}] {tool} {args} failed: {err}", self.backend),
        }
    }

    pub async fn err(&self, tool: &str, args: Value) -> ToolError {
        match self.registry.call(tool, args.clone()).await {
            Ok(output) => panic!("[{}] {tool} {args} succeeded: {}", self.backend, output.text),
            Err(err) => err,
        }
    }

    pub async fn sh(&self, command: &str) -> ToolOutput {
        let out = self
            .ok("bash", serde_json::json!({ "command": command, "description": "test setup" }))
            .await;
        assert_eq!(out.value["exit_code"], 0, "[{}] {command}: {}", self.backend, out.text);
        out
    }

    pub async fn write(&self, rel: &str, content: &str) -> ToolOutput {
        self.ok("write", serde_json::json!({ "file_path": rel, "content": content })).await
    }
}

/// Live members of process group `pgid` (zombies excluded).
pub fn group_members(pgid: u64) -> Vec<u64> {
    let Ok(pgid) = u32::try_from(pgid) else { return Vec::new() };
    dsh_core::host::live_group_members(pgid).into_iter().map(u64::from).collect()
}

/// Waits (up to 10 s) until process group `pgid` is empty; returns what is left.
pub async fn group_gone(pgid: u64) -> Vec<u64> {
    for _ in 0..200 {
        if group_members(pgid).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    group_members(pgid)
}

/// Runs one async test body against both backends: `name::local` and `name::sandbox`.
#[macro_export]
macro_rules! both {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn local() {
                super::$name($crate::common::Harness::local().await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sandbox() {
                super::$name($crate::common::Harness::sandbox().await).await;
            }
        }
    )*};
}
