//! The sandbox owner and runtime assembly against a real local dsh-sandboxd: real
//! namespaces, real envd, the same REST shape as E2B cloud.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use dsh_core::testkit::BackendUnderTest;
use dsh_core::{BoxFuture, Engine, SpawnSpec, WriteExpectation};
use dsh_e2b::{Connection, ControlPlane, OnDispose, Sandbox, SandboxConfig, open_runtime};

struct Daemon(dsh_sandboxd::testing::TestDaemon);

impl Daemon {
    async fn start() -> Self {
        Self(dsh_sandboxd::testing::TestDaemon::start().await.unwrap())
    }

    fn connection(&self) -> Connection {
        Connection {
            api_url: self.0.url(),
            api_key: self.0.api_key(),
            envd_url: Some(self.0.url()),
            domain: None,
        }
    }

    fn control(&self) -> ControlPlane {
        ControlPlane::new(dsh_e2b::http_client().unwrap(), self.0.url(), self.0.api_key())
    }

    async fn stop(self) {
        self.0.stop().await.unwrap();
    }
}

/// The e2b backend over a real local sandbox: its own pid namespace and filesystem, so
/// the contract reads processes and files behind the seams through commands inside it.
pub async fn sandbox_backend() -> BackendUnderTest {
    let daemon = Daemon::start().await;
    let (runtime, _sandbox) = open_runtime(&daemon.connection(), &sandbox_config()).await.unwrap();
    // The workspace holds dsh's private directory: the contract gets an empty one.
    let root = runtime.cwd.join("contract");
    runtime.fs.make_dir(&root, false).await.unwrap();
    let (fs, subprocess, terminals) =
        (runtime.fs.clone(), runtime.subprocess.clone(), runtime.terminals.clone());
    let mut under_test = BackendUnderTest::new("sandbox", fs, subprocess, terminals, root)
        .on_finish(async move {
            let report = runtime.dispose().await;
            assert!(matches!(report.sandbox, Some(Ok(_))), "{report:?}");
            daemon.stop().await;
        });
    under_test.same_process_namespace = false;
    under_test.root_on_host = false;
    // The same backend over the same envd, only inside the sandbox.
    under_test.deviations = super::backend::ENVD_DEVIATIONS.to_vec();
    under_test
}

/// How the e2b backend reaches a sandbox's envd through E2B's edge.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `https://<port>-<id>.<domain>` (a self-hosted E2B's domain).
    PortHost,
    /// `https://sandbox.<domain>` with `E2b-Sandbox-Id` / `E2b-Sandbox-Port` (E2B's own
    /// domains).
    SharedHost,
}

/// The e2b backend as it reaches E2B cloud: `E2B_DOMAIN`-style hosts over TLS and
/// HTTP/2 through the stand-in of E2B's edge, to a local sandbox whose envd behaves as
/// E2B's 0.6.13 does (commands started in envd's own process group, signals to pids
/// only, none of dsh's extensions).
pub async fn cloud_backend() -> BackendUnderTest {
    cloud_backend_by(Route::PortHost).await
}

/// [`cloud_backend`] through `sandbox.<domain>` and the routing headers.
pub async fn cloud_shared_host_backend() -> BackendUnderTest {
    cloud_backend_by(Route::SharedHost).await
}

async fn cloud_backend_by(route: Route) -> BackendUnderTest {
    let daemon = dsh_sandboxd::testing::TestDaemon::start_with(|config| {
        config.envd_args = vec!["--e2b-strict".into(), "0.6.13".into()];
    })
    .await
    .unwrap();
    let edge = dsh_edge_standin::Edge::start("e2b.test", &daemon.url()).await.unwrap();
    let http =
        dsh_e2b::http_client_with(Some(edge.ca_file.to_str().unwrap()), Some(&edge.resolve_rule()))
            .unwrap();
    let shared_host = edge.sandbox_url();
    let envd_url = (route == Route::SharedHost).then_some(shared_host.as_str());
    let connection =
        Connection::resolve(None, daemon.api_key(), envd_url, Some(&edge.client_domain()));
    let sandbox = Arc::new(Sandbox::open(http, &connection, &sandbox_config()).await.unwrap());
    let sandbox_id = sandbox.id().to_owned();
    let envd_host = match route {
        Route::PortHost => format!("49983-{}.{}", sandbox.id(), edge.client_domain()),
        Route::SharedHost => format!("sandbox.{}", edge.client_domain()),
    };
    let runtime = sandbox.runtime();
    let root = runtime.cwd.join("contract");
    runtime.fs.make_dir(&root, false).await.unwrap();
    let (fs, subprocess, terminals) =
        (runtime.fs.clone(), runtime.subprocess.clone(), runtime.terminals.clone());
    let mut under_test =
        BackendUnderTest::new("cloud", fs, subprocess, terminals, root).on_finish(async move {
            let report = runtime.dispose().await;
            assert!(matches!(report.sandbox, Some(Ok(_))), "{report:?}");
            let recorded = edge.recorded();
            let versions: std::collections::BTreeSet<String> =
                recorded.iter().map(|r| r.version.clone()).collect();
            assert_eq!(versions, std::collections::BTreeSet::from(["HTTP/2.0".to_owned()]));
            // Every envd request took the route under test, and on the shared host named
            // its sandbox and envd's port.
            let api_host = format!("api.{}", edge.client_domain());
            let envd: Vec<_> = recorded.iter().filter(|r| r.authority != api_host).collect();
            assert!(!envd.is_empty());
            for request in envd {
                assert_eq!(request.authority, envd_host, "{request:?}");
                let headers =
                    (request.header("e2b-sandbox-id"), request.header("e2b-sandbox-port"));
                match route {
                    Route::PortHost => assert_eq!(headers, (None, None), "{request:?}"),
                    Route::SharedHost => {
                        assert_eq!(
                            headers,
                            (Some(sandbox_id.as_str()), Some("49983")),
                            "{request:?}"
                        )
                    }
                }
            }
            drop(edge);
            daemon.stop().await.unwrap();
        });
    under_test.same_process_namespace = false;
    under_test.root_on_host = false;
    under_test.deviations = super::backend::ENVD_DEVIATIONS.to_vec();
    under_test
}

fn sandbox_config() -> SandboxConfig {
    SandboxConfig { template: Some("base".into()), ..SandboxConfig::default() }
}

fn env() -> std::collections::BTreeMap<String, String> {
    std::collections::BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())])
}

/// How many `sleep` processes run in the sandbox, counted inside it.
async fn sleepers(sandbox: &Sandbox) -> String {
    // Zombies (ended, not yet reaped by the sandbox's init) do not count.
    let script = "grep -l '^[0-9]* (sleep) [^Z]' /proc/[0-9]*/stat 2>/dev/null | wc -l";
    let count = sandbox.backend().run_helper(&["sh", "-c", script]).await.unwrap();
    count.trim().to_owned()
}

/// Polls [`sleepers`] until it is `want` (processes start and die asynchronously);
/// returns the last count.
async fn await_sleepers(sandbox: &Sandbox, want: &str) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let count = sleepers(sandbox).await;
        if count == want || tokio::time::Instant::now() >= deadline {
            return count;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn files_and_commands_share_one_sandbox_and_the_host_is_untouched() {
    let daemon = Daemon::start().await;
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &sandbox_config()).await.unwrap();
    assert_eq!(runtime.cwd, PathBuf::from("/home/user/workspace"));
    assert_eq!(runtime.runtime_root, PathBuf::from("/home/user/workspace/.dsh-e2b"));
    let mode = sandbox
        .backend()
        .run_helper(&["stat", "-c", "%a %U", "/home/user/workspace/.dsh-e2b"])
        .await
        .unwrap();
    assert_eq!(mode, "700 user\n");

    runtime
        .fs
        .write_text(&runtime.cwd.join("from-fs.txt"), "written-by-fs\n", WriteExpectation::Any)
        .await
        .unwrap();
    let spec = SpawnSpec::new(
        ["/bin/bash", "-c", "cat from-fs.txt; echo written-by-bash > from-bash.txt"],
        &runtime.cwd,
        env(),
    );
    let process = runtime.subprocess.spawn(spec).await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().head, b"written-by-fs\n");
    let read = runtime.fs.read_text(&runtime.cwd.join("from-bash.txt"), 1024).await.unwrap();
    assert_eq!(read.text, "written-by-bash\n");
    // Same absolute path string on the host: nothing was created or synced there.
    assert!(!Path::new("/home/user/workspace/from-fs.txt").exists());
    assert!(!Path::new("/home/user/workspace/from-bash.txt").exists());

    let report = runtime.dispose().await;
    assert_eq!(report.sandbox, Some(Ok(format!("killed sandbox {}", sandbox.id()))));
    let gone = daemon.control().get(sandbox.id()).await.unwrap_err();
    assert!(gone.is_not_found(), "{gone}");
    daemon.stop().await;
}

/// An engine holding a background process group in the sandbox; its dispose terminates
/// the group and records what the sandbox still ran at that moment.
struct BackgroundEngine {
    process: tokio::sync::Mutex<Option<dsh_core::Process>>,
    sandbox: Arc<Sandbox>,
    log: Arc<std::sync::Mutex<Vec<String>>>,
}

impl Engine for BackgroundEngine {
    fn name(&self) -> &str {
        "background"
    }

    fn dispose(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(process) = self.process.lock().await.take() {
                process.terminate().await;
            }
            let sleepers = sleepers(&self.sandbox).await;
            let listed = self.sandbox.backend().envd().list_processes().await.unwrap().len();
            self.log
                .lock()
                .unwrap()
                .push(format!("engine disposed: sleepers={sleepers} listed={listed}"));
        })
    }
}

#[tokio::test]
async fn disposal_ends_engine_processes_before_the_sandbox_is_killed() {
    let daemon = Daemon::start().await;
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &sandbox_config()).await.unwrap();
    let spec = SpawnSpec::new(["/bin/bash", "-c", "sleep 100 & sleep 100"], &runtime.cwd, env());
    let process = runtime.subprocess.spawn(spec).await.unwrap();
    assert_eq!(await_sleepers(&sandbox, "2").await, "2");
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    runtime.register_engine(Arc::new(BackgroundEngine {
        process: tokio::sync::Mutex::new(Some(process)),
        sandbox: Arc::clone(&sandbox),
        log: Arc::clone(&log),
    }));
    let report = runtime.dispose().await;
    // The engine ran first, saw no sleeper and no envd process left (its own helper
    // excluded: it had ended), and only then was the sandbox killed.
    assert_eq!(log.lock().unwrap().as_slice(), ["engine disposed: sleepers=0 listed=0"]);
    assert_eq!(report.engines, ["background"]);
    assert_eq!(report.sandbox, Some(Ok(format!("killed sandbox {}", sandbox.id()))));
    assert!(daemon.control().list().await.unwrap().is_empty());
    daemon.stop().await;
}

#[tokio::test]
async fn timeouts_kill_the_whole_group_inside_the_sandbox() {
    let daemon = Daemon::start().await;
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &sandbox_config()).await.unwrap();
    let mut spec =
        SpawnSpec::new(["/bin/bash", "-c", "sleep 100 & sleep 100"], &runtime.cwd, env());
    spec.timeout = Some(Duration::from_millis(500));
    spec.grace = Duration::from_millis(200);
    let process = runtime.subprocess.spawn(spec).await.unwrap();
    let status = process.wait().await;
    assert_eq!(status.reason, dsh_core::EndReason::TimedOut);
    assert_eq!(await_sleepers(&sandbox, "0").await, "0");
    runtime.dispose().await;
    daemon.stop().await;
}

#[tokio::test]
async fn reconnecting_by_id_restores_files_only_and_pause_policy_is_applied() {
    let daemon = Daemon::start().await;
    let mut config = sandbox_config();
    config.on_dispose = OnDispose::Pause;
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &config).await.unwrap();
    let id = sandbox.id().to_owned();
    runtime
        .fs
        .write_text(&runtime.cwd.join("kept.txt"), "still here\n", WriteExpectation::Any)
        .await
        .unwrap();
    let report = runtime.dispose().await;
    assert_eq!(report.sandbox, Some(Ok(format!("paused sandbox {id}"))));
    assert_eq!(daemon.control().get(&id).await.unwrap().state, "paused");

    let again = SandboxConfig { sandbox_id: Some(id.clone()), ..SandboxConfig::default() };
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &again).await.unwrap();
    assert_eq!(sandbox.id(), id);
    let read = runtime.fs.read_text(&runtime.cwd.join("kept.txt"), 1024).await.unwrap();
    assert_eq!(read.text, "still here\n");
    runtime.dispose().await;
    daemon.stop().await;
}

#[tokio::test]
async fn a_failed_assembly_rolls_back_the_sandbox_it_created() {
    let daemon = Daemon::start().await;
    let mut config = sandbox_config();
    config.cwd = PathBuf::from("/proc/dsh-cannot-create/workspace");
    let err = open_runtime(&daemon.connection(), &config).await.unwrap_err();
    assert!(
        err.to_string().starts_with("invalid request: preparing the sandbox workspace"),
        "{err}"
    );
    assert!(daemon.control().list().await.unwrap().is_empty(), "the half-made sandbox was killed");
    let missing = Connection::from_config(&SandboxConfig::default()).unwrap_err();
    assert!(missing.to_string().contains("E2B_API_KEY"), "{missing}");
    daemon.stop().await;
}

/// `[sandbox.secrets]`: put into the control plane's `/secrets` before the create
/// (created, then updated when the name exists); a missing source stops the open before
/// anything is sent, naming the secret and the source.
#[tokio::test]
async fn configured_secrets_are_put_before_the_create_and_a_missing_source_stops_it() {
    let daemon = Daemon::start().await;
    let control = daemon.control();
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "value-from-a-file\n").unwrap();
    let mut config = sandbox_config();
    config.secrets.insert("API_TOKEN".into(), dsh_e2b::SecretSource::File(token.clone()));
    config.secrets.insert(
        "missing".into(),
        dsh_e2b::SecretSource::Env("DSH_TEST_VARIABLE_NOBODY_SETS_7f3a".into()),
    );
    let err = open_runtime(&daemon.connection(), &config).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: secret missing (sandbox.secrets): the environment variable DSH_TEST_VARIABLE_NOBODY_SETS_7f3a is not set"
    );
    assert!(control.list_secrets().await.unwrap().is_empty(), "nothing was sent");
    assert!(control.list().await.unwrap().is_empty(), "no sandbox was created");

    config.secrets.remove("missing");
    let (runtime, _sandbox) = open_runtime(&daemon.connection(), &config).await.unwrap();
    runtime.dispose().await;
    let listed = control.list_secrets().await.unwrap();
    let versions: Vec<(&str, i64)> =
        listed.iter().map(|s| (s.name.as_str(), s.current_version)).collect();
    assert_eq!(versions, [("api_token", 1)]);
    // Opened again: the name exists, so the value is updated (a new version).
    std::fs::write(&token, "rotated-value\n").unwrap();
    let (runtime, _sandbox) = open_runtime(&daemon.connection(), &config).await.unwrap();
    runtime.dispose().await;
    let listed = control.list_secrets().await.unwrap();
    let versions: Vec<(&str, i64)> =
        listed.iter().map(|s| (s.name.as_str(), s.current_version)).collect();
    assert_eq!(versions, [("api_token", 2)]);
    // Directly, from a variable: a third version; a refused name is the server's 400,
    // naming the secret.
    let env = |name: &str| (name == "TOKEN").then(|| "value-from-env".to_owned());
    let secrets = std::collections::BTreeMap::from([(
        "api_token".to_owned(),
        dsh_e2b::SecretSource::Env("TOKEN".into()),
    )]);
    dsh_e2b::put_secrets(&control, &secrets, &env).await.unwrap();
    assert_eq!(control.list_secrets().await.unwrap()[0].current_version, 3);
    let bad = std::collections::BTreeMap::from([(
        "no spaces".to_owned(),
        dsh_e2b::SecretSource::Env("TOKEN".into()),
    )]);
    let err = dsh_e2b::put_secrets(&control, &bad, &env).await.unwrap_err().to_string();
    assert!(err.starts_with("http 400: storing secret no spaces (sandbox.secrets): "), "{err}");
    assert!(!err.contains("value-from-env"), "{err}");
    daemon.stop().await;
}

#[tokio::test]
async fn a_sandbox_killed_while_a_command_streams_is_a_typed_end_not_a_hang() {
    let daemon = Daemon::start().await;
    let (runtime, sandbox) = open_runtime(&daemon.connection(), &sandbox_config()).await.unwrap();
    let spec = SpawnSpec::new(
        ["/bin/bash", "-c", "while true; do echo tick; sleep 0.05; done"],
        &runtime.cwd,
        env(),
    );
    let process = runtime.subprocess.spawn(spec).await.unwrap();
    // Streaming for sure before the kill.
    let ticking = tokio::time::timeout(Duration::from_secs(10), process.stdout().wait_beyond(0));
    assert!(ticking.await.is_ok(), "no output");
    assert!(daemon.control().kill(sandbox.id()).await.unwrap());
    let status =
        tokio::time::timeout(Duration::from_secs(10), process.wait()).await.expect("no hang");
    // Lost with its sandbox: how it ended is unknown, and not taken for an exit.
    assert_eq!(
        (status.code, status.signal, status.reason),
        (None, None, dsh_core::EndReason::Lost)
    );
    assert!(process.stdout().snapshot().head.starts_with(b"tick\n"));
    let err = runtime.fs.stat(&runtime.cwd).await.unwrap_err();
    assert!(
        matches!(
            err,
            dsh_core::FsError::NotFound { .. }
                | dsh_core::FsError::Unavailable(_)
                | dsh_core::FsError::Io { .. }
        ),
        "{err}"
    );
    daemon.stop().await;
}

/// Through the stand-in of E2B's edge, envd E2B-strict (commands in envd's own group, as
/// E2B starts them): how long a kill, a timeout, an abort (cancellation) and a drop take
/// to end a tree of three
/// that ignores SIGTERM, until none of it is left (counted inside the sandbox), by each
/// of the edge's routes. Bounded by the grace (0.2 s) plus 2 s.
#[tokio::test]
async fn through_the_edge_kill_timeout_abort_and_drop_end_a_tree_within_a_bound() {
    const TREE: &str = "trap '' TERM; sleep 100 & sleep 100";
    let grace = Duration::from_millis(200);
    for (route, b) in
        [("port host", cloud_backend().await), ("shared host", cloud_shared_host_backend().await)]
    {
        for way in ["terminate", "timeout", "cancel", "drop"] {
            let mut spec = b.spec(&["bash", "--norc", "--noprofile", "-c", TREE]);
            spec.grace = grace;
            let cancel = spec.cancel.clone();
            if way == "timeout" {
                spec.timeout = Some(Duration::from_millis(1500));
            }
            let process = b.subprocess.spawn(spec).await.unwrap();
            let pgid = process.pid();
            assert!(b.group_reaches(pgid, 3).await, "{:?}", b.group_members(pgid).await);
            let started = std::time::Instant::now();
            match way {
                "terminate" => {
                    let status = process.terminate().await;
                    assert_eq!(status.signal, Some(libc::SIGKILL));
                }
                "timeout" => {
                    let status = process.wait().await;
                    assert_eq!(status.reason, dsh_core::EndReason::TimedOut);
                }
                "cancel" => {
                    cancel.cancel();
                    let status = process.wait().await;
                    assert_eq!(status.reason, dsh_core::EndReason::Cancelled);
                }
                _ => drop(process),
            }
            assert!(b.group_reaches(pgid, 0).await, "{:?}", b.group_members(pgid).await);
            let took = started.elapsed();
            eprintln!("[through the edge, {route}] {way}: tree of 3 gone in {took:?}");
            let bound = grace + Duration::from_secs(2);
            let bound = if way == "timeout" { bound + Duration::from_millis(1500) } else { bound };
            assert!(took < bound, "{way} by {route}: {took:?}");
        }
        b.finish().await;
    }
}
