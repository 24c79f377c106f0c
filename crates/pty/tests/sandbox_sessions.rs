//! Terminal sessions in a real local sandbox (dsh-sandboxd → namespaces → dsh-envd),
//! through the e2b backend: the same engine, the shell now lives in the sandbox.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_core::Signal;
use dsh_e2b::{Connection, SandboxConfig, open_runtime};
use dsh_pty::engine::{EngineConfig, EngineError, TerminalEngine};
use dsh_pty::session::WaitReason;

mod common;
use common::{JOB, job_announced};

const T: Duration = Duration::from_secs(10);

struct World {
    engine: TerminalEngine,
    runtime: dsh_core::Runtime,
    daemon: dsh_sandboxd::testing::TestDaemon,
}

async fn world(configure: impl FnOnce(&mut EngineConfig)) -> World {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let connection = Connection {
        api_url: daemon.url(),
        api_key: daemon.api_key(),
        envd_url: Some(daemon.url()),
        domain: None,
    };
    let (runtime, _) = open_runtime(&connection, &SandboxConfig::default()).await.unwrap();
    let env = BTreeMap::from([
        ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
        ("HOME".to_owned(), "/home/user".to_owned()),
    ]);
    let mut engine_config = EngineConfig::new(&runtime.cwd, env);
    configure(&mut engine_config);
    let engine = TerminalEngine::new(Arc::clone(&runtime.terminals), engine_config);
    World { engine, runtime, daemon }
}

impl World {
    async fn finish(self) {
        self.engine.dispose().await;
        self.runtime.dispose().await;
        self.daemon.stop().await.unwrap();
    }
}

#[tokio::test]
async fn echo_identity_and_sigint_in_the_sandbox() {
    let world = world(|_| {}).await;
    let engine = &world.engine;
    let opened = engine.open("agent", None, None).await.unwrap();
    assert_eq!(opened.motd, "$");
    let id = opened.session_id;
    let sent = engine.send("agent", &id, "echo PTY-你好", true, T).await.unwrap();
    assert_eq!(sent.wait_reason, WaitReason::StdinRead);
    assert_eq!(sent.output, "$ echo PTY-你好\nPTY-你好\n$ ");
    assert_eq!(sent.viewport, "$ echo PTY-你好\nPTY-你好\n$");
    let whoami = engine.send("agent", &id, "whoami; pwd", true, T).await.unwrap();
    assert!(whoami.output.ends_with("user\n/home/user/workspace\n$ "), "{:?}", whoami.output);

    let long = engine.send("agent", &id, JOB, true, Duration::from_millis(500)).await.unwrap();
    assert_eq!(long.wait_reason, WaitReason::Timeout);
    assert!(job_announced(engine, "agent", &id).await, "the job never started");
    let began = Instant::now();
    let signalled = engine.signal("agent", &id, Signal::Int).await.unwrap();
    assert!(signalled.delivered && signalled.target_pgid > 0 && signalled.prompt_returned);
    let back = engine.send("agent", &id, "echo back", true, T).await.unwrap();
    assert_eq!(back.wait_reason, WaitReason::StdinRead);
    assert!(began.elapsed() < Duration::from_secs(2), "{:?}", began.elapsed());
    assert!(engine.list("agent")[0].running);
    assert!(matches!(
        engine.signal("agent", &id, Signal::Kill).await,
        Err(EngineError::ShellKillRefused)
    ));
    world.finish().await;
}

#[tokio::test]
async fn repl_pager_isolation_and_close_in_the_sandbox() {
    let world = world(|c| c.readiness.idle = Duration::from_millis(1500)).await;
    let engine = &world.engine;
    let id = engine.open("a", None, None).await.unwrap().session_id;
    let repl = engine.send("a", &id, "python3 -q", true, T).await.unwrap();
    assert_eq!(repl.wait_reason, WaitReason::InferredIdle);
    let two = engine.send("a", &id, "1+1", true, T).await.unwrap();
    assert!(two.viewport.ends_with(">>> 1+1\n2\n>>>"), "{:?}", two.viewport);
    let out = engine.send("a", &id, "exit()", true, T).await.unwrap();
    assert_eq!(out.wait_reason, WaitReason::StdinRead);
    let less = engine.send("a", &id, "printf 'first\\nsecond\\n' | less", true, T).await.unwrap();
    assert!(less.viewport.starts_with("first\nsecond"), "{:?}", less.viewport);
    let quit = engine.send("a", &id, "q", false, T).await.unwrap();
    assert_eq!(quit.wait_reason, WaitReason::StdinRead);

    assert!(matches!(
        engine.send("b", &id, "echo", true, T).await,
        Err(EngineError::UnknownSession(_))
    ));
    assert!(engine.list("b").is_empty());
    let status = engine.close("a", &id).await.unwrap();
    assert!(status.code.is_some() || status.signal.is_some());
    assert!(engine.list("a").is_empty());
    world.finish().await;
}
