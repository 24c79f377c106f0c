//! The daemon SIGKILLed in the middle of a lifecycle operation. The client gets no
//! answer (its connection closes), the sandbox's init follows its daemon (lifeline), and
//! the next start finds the sandbox in a defined state: a create that did not finish is
//! gone without a trace; a pause, a kill that had not removed anything yet, or a resume
//! leave it paused with its files; a kill that had started removing files leaves nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_sandboxd::Daemon;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::common::{
    DaemonChild, FAKE_ENVD_SLEEP, children, cmdline, error_chain, fake_envd_that_never_listens,
    is_alive, is_pending, is_stopped, listed, poll, record, record_ids, signal, within,
};
use crate::control::harness::{
    Client, KillOnDrop, assert_no_leftovers, config, envd_binary, init_pid,
};

/// What a client whose request was in flight when the daemon died gets: the connection
/// closed with no answer (reqwest's error, then hyper's).
fn no_answer(url: &str) -> Vec<String> {
    vec![
        format!("error sending request for url ({url})"),
        "client error (SendRequest)".to_owned(),
        "connection closed before message completed".to_owned(),
    ]
}

/// A state directory; dropped, every sandbox under it is killed and what a crashed
/// daemon leaves (its layer view, networks, cgroups) is removed, then the directory.
struct Scene {
    // Fields drop in this order: the clean-up before the directory.
    _cleanup: KillOnDrop,
    _dir: tempfile::TempDir,
    state: PathBuf,
}

impl Scene {
    fn new(prefix: &str) -> Scene {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir_all(&state).unwrap();
        let state = std::fs::canonicalize(&state).unwrap();
        Scene { _cleanup: KillOnDrop(state.clone()), state, _dir: dir }
    }

    fn dir(&self) -> &Path {
        self.state.parent().unwrap()
    }

    /// The daemon started again, in this process, with the real envd.
    async fn restart(&self) -> (Daemon, Client) {
        let daemon = within(
            "the restarted daemon's start",
            Duration::from_secs(30),
            Daemon::start(config(&self.state)),
        )
        .await
        .unwrap();
        let client = Client::new(&daemon.url(), daemon.api_key());
        (daemon, client)
    }
}

/// Sends `method path` in the background; its outcome, and when it came, are the task's.
fn in_flight(
    client: &Client,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> tokio::task::JoinHandle<(Result<crate::control::harness::Reply, reqwest::Error>, Instant)> {
    let (client, path) = (client.clone(), path.to_owned());
    tokio::spawn(async move {
        let outcome = client.try_call(method, &path, body).await;
        (outcome, Instant::now())
    })
}

/// Waits for the answer to a request in flight when its daemon was SIGKILLed at
/// `killed`; asserts there was none, within a second.
async fn assert_no_answer(
    request: tokio::task::JoinHandle<(
        Result<crate::control::harness::Reply, reqwest::Error>,
        Instant,
    )>,
    killed: Instant,
    url: &str,
) -> Duration {
    let (outcome, at) =
        within("the interrupted request", Duration::from_secs(10), request).await.unwrap();
    let err = match outcome {
        Ok(reply) => panic!("the request was answered: {} {}", reply.status, reply.body),
        Err(err) => err,
    };
    assert_eq!(error_chain(&err), no_answer(url));
    let after = at.saturating_duration_since(killed);
    assert!(after < Duration::from_secs(1), "the client learned of the crash after {after:?}");
    after
}

/// The init of a sandbox whose daemon died ends it (its lifeline); returns when it did
/// and was reaped (the daemon was its parent: it is an orphan now, reaped by pid 1).
fn wait_init_gone(init: u32) {
    poll("the sandbox's init to follow its daemon", Duration::from_secs(10), || {
        (!Path::new(&format!("/proc/{init}")).exists()).then_some(())
    });
}

/// Creates a sandbox with a file in its home; returns it and its init's pid.
async fn sandbox_with_a_file(client: &Client, state: &Path) -> (Value, String, u32) {
    let sandbox = within(
        "a create",
        Duration::from_secs(30),
        client.create(json!({"templateID": "base", "metadata": {"fault": "yes"}})),
    )
    .await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    within(
        "a write",
        Duration::from_secs(10),
        client.write_file(&sandbox, "/home/user/kept.txt", "written before the fault"),
    )
    .await;
    let init = init_pid(state, &id);
    (sandbox, id, init)
}

/// After a restart: the sandbox is listed paused, resumes (201) with its file, and is
/// killed without leftovers.
async fn assert_paused_with_its_file(client: &Client, state: &Path, sandbox: &Value) {
    let id = sandbox["sandboxID"].as_str().unwrap();
    assert_eq!(listed(client).await, [(id.to_owned(), "paused".to_owned())]);
    let reply = within(
        "a resume",
        Duration::from_secs(30),
        client.call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({}))),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(reply.body["envdAccessToken"], sandbox["envdAccessToken"]);
    assert_eq!(
        within("a read", Duration::from_secs(10), client.read_file(sandbox, "/home/user/kept.txt"))
            .await,
        (StatusCode::OK, "written before the fault".to_owned())
    );
    let init = init_pid(state, id);
    let reply = within(
        "a kill",
        Duration::from_secs(30),
        client.call(Method::DELETE, &format!("/sandboxes/{id}"), None),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    assert_no_leftovers(state, id, init);
}

/// Whether the init runs the fake envd (the create or resume waits for its health).
fn runs_the_fake_envd(init: u32) -> bool {
    children(init).into_iter().any(|pid| cmdline(pid) == ["sleep", FAKE_ENVD_SLEEP])
}

/// The init of sandbox `id` once it runs the fake envd (its start is held there).
fn held_init(state: &Path, id: &str) -> Option<u32> {
    let text = std::fs::read_to_string(state.join(format!("sandboxes/{id}/init.pid"))).ok()?;
    let init = text.split_whitespace().next()?.parse::<u32>().ok()?;
    runs_the_fake_envd(init).then_some(init)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_killed_mid_create_leaves_nothing_once_it_restarts() {
    let scene = Scene::new("dsh-fault-create-");
    let fake = fake_envd_that_never_listens(scene.dir());
    let mut daemon = DaemonChild::spawn(&scene.state, &fake, &["--envd-start-timeout", "60"]).await;
    let url = format!("{}/v2/sandboxes", daemon.client.base);
    let request = in_flight(&daemon.client, Method::POST, "/v2/sandboxes", Some(json!({})));

    // Mid-create: the record says `creating` and the sandbox's init runs envd, which the
    // daemon waits for.
    let (id, init) = poll("the create to wait for envd", Duration::from_secs(20), || {
        let id = record_ids(&scene.state).pop()?;
        held_init(&scene.state, &id).map(|init| (id, init))
    });
    assert_eq!(record(&scene.state, &id).unwrap()["phase"], "creating");
    let killed = daemon.sigkill();
    let answered = assert_no_answer(request, killed, &url).await;
    wait_init_gone(init);
    // What the crash left: the record, the directory, the sandbox's network pin.
    assert!(scene.state.join(format!("sandboxes/{id}")).is_dir());
    assert!(scene.state.join(format!("netns/{id}")).exists());

    let (daemon, client) = scene.restart().await;
    assert_eq!(listed(&client).await, []);
    let reply = client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.body, json!({"code": 404, "message": format!("sandbox {id} not found")}));
    assert_no_leftovers(&scene.state, &id, init);
    assert!(!scene.state.join(format!("netns/{id}")).exists());
    // The restarted daemon creates and runs sandboxes as before.
    let sandbox = within("a create", Duration::from_secs(30), client.create(json!({}))).await;
    assert_eq!(
        within("a command", Duration::from_secs(10), client.run(&sandbox, "echo after")).await,
        ("after\n".to_owned(), 0)
    );
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
    eprintln!("mid-create: the client saw the connection close {answered:?} after the kill");
}

/// The daemon SIGKILLed while it stops a sandbox (a files-only pause):
/// the sandbox's init is held stopped (SIGSTOP, a real fault: an init that does not act
/// on SIGTERM), so the daemon is in its grace period when it dies.
async fn daemon_killed_while_stopping(
    operation: Method,
    path_of: fn(&str) -> String,
    body: Option<serde_json::Value>,
) {
    let scene = Scene::new("dsh-fault-stop-");
    let mut daemon = DaemonChild::spawn(&scene.state, &envd_binary(), &[]).await;
    let (sandbox, id, init) = sandbox_with_a_file(&daemon.client, &scene.state).await;
    signal(init, libc::SIGSTOP);
    poll("the init to stop", Duration::from_secs(5), || is_stopped(init).then_some(()));
    let path = path_of(&id);
    let url = format!("{}{path}", daemon.client.base);
    let request = in_flight(&daemon.client, operation, &path, body);
    // The daemon sent SIGTERM (held pending by the stop) and waits out its grace period.
    poll("the daemon's SIGTERM to the init", Duration::from_secs(5), || {
        is_pending(init, libc::SIGTERM).then_some(())
    });
    let killed = daemon.sigkill();
    assert_no_answer(request, killed, &url).await;
    // Stopped, the init cannot follow its daemon: the record still says running, and
    // the next start kills the init and pauses the sandbox.
    assert!(is_alive(init));
    assert_eq!(record(&scene.state, &id).unwrap()["phase"], "running");

    let (daemon, client) = scene.restart().await;
    assert!(!is_alive(init), "the restarted daemon left the old init {init} running");
    assert_paused_with_its_file(&client, &scene.state, &sandbox).await;
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_killed_mid_pause_leaves_the_sandbox_paused_with_its_files() {
    // A files-only pause stops the processes (the default, keeping memory, freezes them).
    let files_only = Some(serde_json::json!({"memory": false}));
    daemon_killed_while_stopping(Method::POST, |id| format!("/sandboxes/{id}/pause"), files_only)
        .await;
}

/// A kill does not ask the sandbox to stop (E2B's kill ends the VM): an init held stopped
/// (SIGSTOP, a real fault: it can act on no signal but SIGKILL) is killed at once, the kill
/// answered within a second, and nothing is left once the teardown behind the answer ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_does_not_wait_for_an_init_that_cannot_act_on_sigterm() {
    let scene = Scene::new("dsh-fault-stop-");
    let (daemon, client) = scene.restart().await;
    let (_, id, init) = sandbox_with_a_file(&client, &scene.state).await;
    signal(init, libc::SIGSTOP);
    poll("the init to stop", Duration::from_secs(5), || is_stopped(init).then_some(()));
    let started = Instant::now();
    let reply = within(
        "the kill",
        Duration::from_secs(10),
        client.call(Method::DELETE, &format!("/sandboxes/{id}"), None),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    assert!(took < Duration::from_secs(1), "the kill took {took:?}");
    // Answered with the init dead, or dying: SIGKILL pending, it runs no more of its code.
    assert!(!is_alive(init) || is_pending(init, libc::SIGKILL), "the init runs on");
    assert_eq!(record(&scene.state, &id), None);
    assert_no_leftovers(&scene.state, &id, init);
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
}

/// Files the sandbox makes so that removing its directory takes a while.
const MANY_FILES: usize = 2_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_killed_while_a_kill_removes_files_leaves_nothing_once_it_restarts() {
    let scene = Scene::new("dsh-fault-destroy-");
    let mut daemon = DaemonChild::spawn(&scene.state, &envd_binary(), &[]).await;
    let (sandbox, id, init) = sandbox_with_a_file(&daemon.client, &scene.state).await;
    let (out, code) = within(
        "making many files",
        Duration::from_secs(60),
        daemon.client.run(
            &sandbox,
            &format!("mkdir /home/user/many && cd /home/user/many && seq {MANY_FILES} | xargs touch && ls | wc -l"),
        ),
    )
    .await;
    assert_eq!((out.trim(), code), (MANY_FILES.to_string().as_str(), 0));
    let dir = scene.state.join(format!("sandboxes/{id}"));
    let many = dir.join("home/user/many");
    // Only a kill's removal takes directories away (a stop removes the init's pid file).
    let directories = || -> Vec<std::ffi::OsString> {
        let entries = std::fs::read_dir(&dir).into_iter().flatten().flatten();
        entries.filter(|e| e.path().is_dir()).map(|e| e.file_name()).collect()
    };
    let top = directories();
    assert!(top.len() >= 3, "{top:?}");

    let path = format!("/sandboxes/{id}");
    let request = in_flight(&daemon.client, Method::DELETE, &path, None);
    // The kill has stopped the sandbox and is removing its directory (after its answer:
    // `lifecycle::kill_then_tear_down`): some of it is gone.
    poll("the kill to remove files", Duration::from_secs(20), || {
        let files = std::fs::read_dir(&many).map(|d| d.count()).unwrap_or(0);
        (directories().len() < top.len() || files < MANY_FILES).then_some(())
    });
    daemon.sigkill();
    // Answered (the sandbox was dead and its record gone before the files went), or cut
    // off by the daemon's death: never anything but a 204.
    let (outcome, _) = within("the kill", Duration::from_secs(10), request).await.unwrap();
    if let Ok(reply) = outcome {
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    }
    assert!(!is_alive(init));
    // Interrupted half-way: the record is gone, part of the files too.
    assert_eq!(record(&scene.state, &id), None);
    assert!(dir.is_dir(), "the kill had finished: nothing was interrupted");
    let left = std::fs::read_dir(&many).map(|d| d.count()).unwrap_or(0);
    eprintln!(
        "mid-destroy: {left} of {MANY_FILES} files and {} of {} directories left",
        directories().len(),
        top.len()
    );

    // Half its files are gone: the sandbox must not come back.
    let (daemon, client) = scene.restart().await;
    assert_eq!(listed(&client).await, []);
    let reply = client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.body);
    assert_no_leftovers(&scene.state, &id, init);
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_killed_mid_resume_leaves_the_sandbox_paused_with_its_files() {
    let scene = Scene::new("dsh-fault-resume-");
    let (daemon, client) = scene.restart().await;
    let (sandbox, id, _) = sandbox_with_a_file(&client, &scene.state).await;
    let reply = client.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();

    let fake = fake_envd_that_never_listens(scene.dir());
    let mut daemon = DaemonChild::spawn(&scene.state, &fake, &["--envd-start-timeout", "60"]).await;
    let path = format!("/sandboxes/{id}/connect");
    let url = format!("{}{path}", daemon.client.base);
    let request = in_flight(&daemon.client, Method::POST, &path, Some(json!({})));
    let init = poll("the resume to wait for envd", Duration::from_secs(20), || {
        held_init(&scene.state, &id)
    });
    let killed = daemon.sigkill();
    assert_no_answer(request, killed, &url).await;
    wait_init_gone(init);
    assert_eq!(record(&scene.state, &id).unwrap()["phase"], "paused");

    let (daemon, client) = scene.restart().await;
    assert_paused_with_its_file(&client, &scene.state, &sandbox).await;
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
}

/// The marker a sandbox's files carry to have [`envd_that_holds_marked_sandboxes`] hold
/// its start.
const HOLD_MARKER: &str = "/home/user/.dsh-fault-hold-envd";

/// A stand-in for dsh-envd (a **fake**, in front of the real one): in a sandbox whose
/// files carry [`HOLD_MARKER`] it never listens (the daemon's start waits for its
/// health), anywhere else it is the real envd. So a fork of a marked parent is held in
/// its start, after its record and files were made, while the parent runs the real
/// envd. The real envd is put beside the daemon's shared copy, which every sandbox sees
/// at `/.dsh/bin`. Returns the fake's path.
fn envd_that_holds_marked_sandboxes(scene: &Scene) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let program = scene.state.join("program");
    std::fs::create_dir_all(&program).unwrap();
    std::fs::copy(envd_binary(), program.join("dsh-envd-real")).unwrap();
    let path = scene.dir().join("fake-envd-holds-marked");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ -e {HOLD_MARKER} ]; then exec sleep {FAKE_ENVD_SLEEP}; fi\nexec /.dsh/bin/dsh-envd-real \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The daemon SIGKILLed while a fork waits for its envd (its record says `creating`, its
/// files are made): after a restart the fork is gone without a trace and the parent is
/// paused with its files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_killed_mid_fork_leaves_no_fork_and_the_parent_with_its_files() {
    let scene = Scene::new("dsh-fault-fork-");
    let fake = envd_that_holds_marked_sandboxes(&scene);
    let mut daemon = DaemonChild::spawn(&scene.state, &fake, &["--envd-start-timeout", "60"]).await;
    let (parent, parent_id, parent_init) = sandbox_with_a_file(&daemon.client, &scene.state).await;
    within(
        "the marker",
        Duration::from_secs(10),
        daemon.client.write_file(&parent, HOLD_MARKER, "hold a fork's envd"),
    )
    .await;
    let path = format!("/sandboxes/{parent_id}/fork");
    let url = format!("{}{path}", daemon.client.base);
    let request = in_flight(&daemon.client, Method::POST, &path, Some(json!({})));

    // Mid-fork: a second record, `creating`, whose init runs the held envd.
    let (fork_id, fork_init) = poll("the fork to wait for envd", Duration::from_secs(20), || {
        let id = record_ids(&scene.state).into_iter().find(|id| *id != parent_id)?;
        held_init(&scene.state, &id).map(|init| (id, init))
    });
    assert_eq!(record(&scene.state, &fork_id).unwrap()["phase"], "creating");
    let killed = daemon.sigkill();
    let answered = assert_no_answer(request, killed, &url).await;
    wait_init_gone(fork_init);
    wait_init_gone(parent_init);

    let (daemon, client) = scene.restart().await;
    let reply = client.call(Method::GET, &format!("/sandboxes/{fork_id}"), None).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_no_leftovers(&scene.state, &fork_id, fork_init);
    assert!(!scene.state.join(format!("netns/{fork_id}")).exists());
    // The parent resumes (on the real envd: the restarted daemon has no fake) with its
    // file.
    assert_paused_with_its_file(&client, &scene.state, &parent).await;
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
    eprintln!("mid-fork: the client saw the connection close {answered:?} after the kill");
}
