//! Faults under the tools, through `dsh mcp` (stdio, as MCP clients run it) on a real
//! local sandbox daemon (`dsh sandbox serve`): the sandbox killed while a terminal, a
//! language-server request and a Code Mode program are in flight, and its envd
//! SIGKILLed under a running command. Every tool call answers with a typed error within
//! a bound, nothing hangs, and nothing of the sandbox is left. Needs root, and pyright's
//! npm package in npm's cache (`scripts/install-language-servers` puts it there):
//! npm runs offline here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const DSH: &str = env!("CARGO_BIN_EXE_dsh");

/// `future`, or a panic naming `what` after `timeout`.
async fn within<T>(what: &str, timeout: Duration, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(timeout, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what} did not finish within {timeout:?}"),
    }
}

/// Polls `check` every 20 ms until it gives a value; panics after `timeout`.
async fn poll<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn cmdline(pid: u32) -> Vec<String> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    raw.split(|&b| b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// Every process below `root` (children, their children, ...). A child is listed under
/// the thread that made it, so every thread of each process is looked at.
fn descendants(root: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        let threads = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten();
        for thread in threads.flatten() {
            let text = std::fs::read_to_string(thread.path().join("children")).unwrap_or_default();
            for child in text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()) {
                found.push(child);
                todo.push(child);
            }
        }
    }
    found
}

/// Processes whose command line names `needle` (every process of a sandbox does).
fn processes_mentioning(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != std::process::id() && cmdline(pid).join(" ").contains(needle))
        .collect()
}

fn signal(pid: u32, sig: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, sig).unwrap();
}

fn is_stopped(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().any(|line| line.starts_with("State:") && line.contains("T (stopped)"))
}

/// `dsh sandbox serve` on a free port over a temporary state directory; stopped with
/// SIGTERM (it pauses what is left, then exits) when dropped, SIGKILLed if it does not.
struct Daemon {
    child: std::process::Child,
    url: String,
    key: String,
    state: PathBuf,
    _dir: tempfile::TempDir,
}

/// The environment of the test's dsh processes: no E2B settings, and npm offline (a
/// language server comes from npm's cache; nothing reaches a registry).
fn environment(command: &mut std::process::Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("E2B_") {
            command.env_remove(name);
        }
    }
    command.env_remove("DSH_SANDBOXD_STATE").env("npm_config_offline", "true");
}

impl Daemon {
    async fn start() -> Daemon {
        let dir = tempfile::Builder::new().prefix("dsh-fault-tools-").tempdir().unwrap();
        let state = dir.path().join("state");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log = std::fs::File::create(dir.path().join("daemon.log")).unwrap();
        let mut command = std::process::Command::new(DSH);
        command
            .args(["sandbox", "serve", "--listen", &format!("127.0.0.1:{port}"), "--state-dir"])
            .arg(&state)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        environment(&mut command);
        let child = command.spawn().unwrap();
        let url = format!("http://127.0.0.1:{port}");
        let key_file = state.join("api-key");
        poll("the daemon to listen", Duration::from_secs(20), || {
            let listening = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
            (listening && key_file.exists()).then_some(())
        })
        .await;
        let key = std::fs::read_to_string(&key_file).unwrap().trim().to_owned();
        Daemon { child, url, key, state, _dir: dir }
    }

    fn control(&self) -> dsh_e2b::ControlPlane {
        dsh_e2b::ControlPlane::new(dsh_e2b::http_client().unwrap(), &self.url, &self.key)
    }

    /// The only sandbox the daemon has: its id and its init's pid.
    async fn the_sandbox(&self) -> (String, u32) {
        let listed =
            within("a list", Duration::from_secs(10), self.control().list()).await.unwrap();
        assert_eq!(listed.len(), 1, "{listed:?}");
        let id = listed[0].sandbox_id.clone();
        let pid = std::fs::read_to_string(self.state.join(format!("sandboxes/{id}/init.pid")))
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        (id, pid)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("daemon.log")).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        signal(self.child.id(), rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(20);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Pending = Arc<Mutex<HashMap<u64, tokio::sync::oneshot::Sender<Value>>>>;

/// `dsh mcp` over stdio against `daemon`, spoken to in newline-delimited JSON-RPC.
struct Mcp {
    child: tokio::process::Child,
    /// Locked for each line written whole; `None` once closed.
    stdin: tokio::sync::Mutex<Option<tokio::process::ChildStdin>>,
    pending: Pending,
    next_id: std::sync::atomic::AtomicU64,
    log: PathBuf,
}

impl Mcp {
    async fn start(daemon: &Daemon) -> Mcp {
        let log = daemon._dir.path().join("mcp.log");
        let mut command = std::process::Command::new(DSH);
        command
            .args(["mcp", "--api-url", &daemon.url, "--api-key", &daemon.key])
            .current_dir(daemon._dir.path())
            .env("RUST_LOG", "dsh=debug,warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap());
        environment(&mut command);
        let mut child = tokio::process::Command::from(command).kill_on_drop(true).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let pending: Pending = Arc::default();
        let answers = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message: Value = serde_json::from_str(&line).unwrap();
                let Some(id) = message["id"].as_u64() else { continue };
                if message.get("method").is_some() {
                    continue; // a request from the server: none is expected
                }
                if let Some(waiter) = answers.lock().unwrap().remove(&id) {
                    let _ = waiter.send(message);
                }
            }
        });
        let stdin = tokio::sync::Mutex::new(child.stdin.take());
        let mcp = Mcp { child, stdin, pending, next_id: 1.into(), log };
        let initialize = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "dsh-faults", "version": "0"}}),
        );
        let init = within("the MCP handshake", Duration::from_secs(30), initialize).await;
        assert_eq!(init["result"]["serverInfo"]["name"], "dsh", "{init}");
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        mcp
    }

    async fn send(&self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        let stdin = stdin.as_mut().unwrap();
        stdin.write_all(&line).await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        rx.await.unwrap_or_else(|_| panic!("dsh mcp ended:\n{}", self.stderr()))
    }

    /// A tool call's result (`content`, `structuredContent`, `isError`).
    async fn call(&self, tool: &str, arguments: Value) -> Value {
        let answer =
            self.request("tools/call", json!({"name": tool, "arguments": arguments})).await;
        assert!(answer.get("error").is_none(), "{tool}: {answer}");
        answer["result"].clone()
    }

    /// A tool call that must succeed: its structured content.
    async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result =
            within(tool, Duration::from_secs(120), self.call(tool, arguments.clone())).await;
        assert_ne!(result["isError"], true, "{tool} {arguments}: {result}\n{}", self.stderr());
        result["structuredContent"].clone()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Closes stdin (the session ends) and waits for the server to exit.
    async fn close(mut self) -> (std::process::ExitStatus, Duration) {
        let started = Instant::now();
        drop(self.stdin.lock().await.take());
        let status = within("dsh mcp's exit", Duration::from_secs(30), self.child.wait()).await;
        (status.unwrap(), started.elapsed())
    }
}

/// The error a tool call answered with: `(code, message)`.
fn tool_error(result: &Value) -> (String, String) {
    assert_eq!(result["isError"], true, "not an error: {result}");
    let error = &result["structuredContent"]["error"];
    (error["code"].as_str().unwrap().to_owned(), error["message"].as_str().unwrap().to_owned())
}

const APP: &str =
    "def greet(name: str) -> str:\n    return \"hi \" + name\n\n\nprint(greet(\"x\"))\n";

/// Spawns a tool call in the background; its result and when it came are the task's.
fn in_flight(
    mcp: &Arc<Mcp>,
    tool: &'static str,
    arguments: Value,
) -> tokio::task::JoinHandle<(Value, Instant)> {
    let mcp = Arc::clone(mcp);
    tokio::spawn(async move {
        let result = mcp.call(tool, arguments).await;
        (result, Instant::now())
    })
}

/// Closes the session; dsh mcp must exit 0 soon, and nothing of the sandbox remain.
async fn close_and_check(mcp: Arc<Mcp>, daemon: &Daemon, id: &str) -> Duration {
    let mcp = Arc::into_inner(mcp).expect("no call left in flight");
    let stderr = mcp.stderr();
    let (status, took) = mcp.close().await;
    assert!(status.success(), "dsh mcp: {status}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A kill is answered once every process of the sandbox has SIGKILL pending; they are
    // reaped right after (`lifecycle::kill_then_tear_down`), so they get a few seconds.
    let deadline = Instant::now() + Duration::from_secs(10);
    let left = loop {
        let left: Vec<(u32, String)> =
            processes_mentioning(id).into_iter().map(|pid| (pid, cmdline(pid).join(" "))).collect();
        if left.is_empty() || Instant::now() > deadline {
            break left;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(left, [], "left behind by sandbox {id}\n{}", daemon.log());
    let listed = within("a list", Duration::from_secs(10), daemon.control().list()).await.unwrap();
    assert_eq!(listed, []);
    // The sandbox's files and mounts go in the same teardown, after the answer.
    let dir = daemon.state.join(format!("sandboxes/{id}"));
    let mounts = loop {
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let mounts: Vec<String> =
            mountinfo.lines().filter(|line| line.contains(id)).map(str::to_owned).collect();
        if (mounts.is_empty() && !dir.exists()) || Instant::now() > deadline {
            break mounts;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!dir.exists(), "{} is left\n{}", dir.display(), daemon.log());
    assert_eq!(mounts, Vec::<String>::new());
    assert!(!daemon.log().contains("panicked"), "{}", daemon.log());
    took
}

const LOST: &str = "its sandbox went away (killed, paused or unreachable)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_killed_under_a_terminal_an_lsp_request_and_a_program_fails_each_call_typed() {
    let daemon = Daemon::start().await;
    let mcp = Mcp::start(&daemon).await;
    mcp.ok("write", json!({"file_path": "app.py", "content": APP})).await;
    let (id, init) = daemon.the_sandbox().await;

    // pyright runs (its first request on this machine may build its layer), then stops
    // answering: SIGSTOP, a real server that hangs.
    let hover = mcp
        .ok("lsp", json!({"operation": "hover", "file_path": "app.py", "line": 1, "character": 5}))
        .await;
    assert!(hover.to_string().contains("def greet(name: str) -> str"), "{hover}");
    let pyright = descendants(init)
        .into_iter()
        .find(|&pid| cmdline(pid).iter().any(|arg| arg.ends_with("/pyright-langserver")))
        .unwrap_or_else(|| panic!("no pyright under the sandbox's init {init}"));
    signal(pyright, rustix::process::Signal::STOP);
    poll("pyright to stop", Duration::from_secs(5), || is_stopped(pyright).then_some(())).await;
    let terminal = mcp.ok("terminal_open", json!({"type": "shell"})).await;
    let session = terminal["sessionId"].as_str().unwrap().to_owned();

    // Three calls in flight: a hover the stopped server never answers, a command that
    // prints forever in the terminal, a program waiting on a command.
    let mcp = Arc::new(mcp);
    let lsp = in_flight(
        &mcp,
        "lsp",
        json!({"operation": "hover", "file_path": "app.py", "line": 5, "character": 7}),
    );
    let term = in_flight(
        &mcp,
        "terminal_send",
        json!({"sessionId": session, "text": "while :; do echo tick; sleep 0.21; done"}),
    );
    let code = in_flight(
        &mcp,
        "run_code",
        json!({"code": "await tools.bash({command: 'sleep 61', description: 'wait'}); return 'done';"}),
    );
    let running = |argv: &[&str]| descendants(init).into_iter().any(|pid| cmdline(pid) == argv);
    poll("the terminal's command", Duration::from_secs(20), || {
        running(&["sleep", "0.21"]).then_some(())
    })
    .await;
    poll("the program's command", Duration::from_secs(30), || {
        running(&["sleep", "61"]).then_some(())
    })
    .await;

    let killed = Instant::now();
    let was_there = within("the kill", Duration::from_secs(30), daemon.control().kill(&id)).await;
    assert!(was_there.unwrap());
    let kill_took = killed.elapsed();
    let mut errors = Vec::new();
    for (tool, call) in [("lsp", lsp), ("terminal_send", term), ("run_code", code)] {
        let (result, at) = within(tool, Duration::from_secs(20), call).await.unwrap();
        let after = at.saturating_duration_since(killed);
        eprintln!("{tool}: answered {after:?} after the kill");
        assert!(after < Duration::from_secs(2), "{tool} answered {after:?} after the kill");
        errors.push((tool, tool_error(&result)));
    }
    let unavailable =
        |message: String| ("unavailable".to_owned(), format!("sandbox unavailable: {message}"));
    assert_eq!(
        errors,
        [
            ("lsp", unavailable(format!("language server pyright was lost: {LOST}"))),
            (
                "terminal_send",
                unavailable(format!(
                    "session {session} was lost: {LOST}; open a new one with terminal_open once the sandbox is back"
                ))
            ),
            ("run_code", unavailable(format!("the code runner was lost: {LOST}"))),
        ]
    );
    eprintln!("the kill took {kill_took:?}");

    // Later calls: typed errors too, at once.
    // E2B's 502 for a sandbox it no longer has, typed as gone (dsh_e2b::Error::SandboxGone).
    let gone = format!("the sandbox is gone (killed, timed out or paused): sandbox {id} not found");
    let mut later = Vec::new();
    for (tool, arguments) in [
        ("bash", json!({"command": "true", "description": "after the kill"})),
        ("lsp", json!({"operation": "hover", "file_path": "app.py", "line": 1, "character": 5})),
        ("run_code", json!({"code": "return 1"})),
        ("terminal_send", json!({"sessionId": session, "text": "true"})),
    ] {
        let result = within(tool, Duration::from_secs(10), mcp.call(tool, arguments)).await;
        later.push((tool, tool_error(&result)));
    }
    assert_eq!(
        later,
        [
            ("bash", unavailable(gone.clone())),
            ("lsp", unavailable(format!("filesystem backend unavailable: {gone}"))),
            (
                "run_code",
                unavailable(format!(
                    "cannot install the code runner: mkdir /home/user/workspace/.dsh-e2b: process backend unavailable: {gone}"
                ))
            ),
            (
                "terminal_send",
                unavailable(format!(
                    "session {session} was lost: {LOST}; open a new one with terminal_open once the sandbox is back"
                ))
            ),
        ]
    );
    let took = close_and_check(mcp, &daemon, &id).await;
    eprintln!("dsh mcp exited {took:?} after its stdin closed");
}

/// envd SIGKILLed under a running command: the call is a typed error within a second;
/// the daemon marks the sandbox paused, and once it is resumed the same session's tools
/// work on it again, its files intact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envd_killed_under_a_command_is_a_typed_error_within_a_second_and_the_sandbox_recovers() {
    let daemon = Daemon::start().await;
    let mcp = Mcp::start(&daemon).await;
    mcp.ok("write", json!({"file_path": "kept.txt", "content": "written before\n"})).await;
    let (id, init) = daemon.the_sandbox().await;
    let mcp = Arc::new(mcp);
    let call = in_flight(&mcp, "bash", json!({"command": "sleep 62", "description": "wait"}));
    poll("the command", Duration::from_secs(20), || {
        descendants(init).into_iter().any(|pid| cmdline(pid) == ["sleep", "62"]).then_some(())
    })
    .await;
    let envd = descendants(init)
        .into_iter()
        .find(|&pid| cmdline(pid).get(1).is_some_and(|arg| arg == "__envd"))
        .expect("envd under the sandbox's init");
    signal(envd, rustix::process::Signal::KILL);
    let killed = Instant::now();
    let (result, at) = within("the command's call", Duration::from_secs(10), call).await.unwrap();
    let after = at.saturating_duration_since(killed);
    assert_eq!(
        tool_error(&result),
        (
            "unavailable".to_owned(),
            format!("sandbox unavailable: the command was lost: {LOST} while it ran")
        )
    );
    assert!(after < Duration::from_secs(1), "the call answered {after:?} after envd's death");
    eprintln!("bash: answered {after:?} after envd was killed");

    // The daemon marks it paused; resumed, the session's tools work on it again.
    let control = daemon.control();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let listed = within("a list", Duration::from_secs(10), control.list()).await.unwrap();
        if listed.iter().any(|s| s.sandbox_id == id && s.state == "paused") {
            break;
        }
        assert!(Instant::now() < deadline, "not marked paused: {listed:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let resumed = within("the resume", Duration::from_secs(30), control.connect(&id, 300)).await;
    assert_eq!(resumed.unwrap().sandbox_id, id);
    let ran = mcp.ok("bash", json!({"command": "cat kept.txt", "description": "after"})).await;
    assert_eq!(
        (ran["stdout"].as_str(), ran["exit_code"].as_i64()),
        (Some("written before\n"), Some(0))
    );
    let took = close_and_check(mcp, &daemon, &id).await;
    eprintln!("dsh mcp exited {took:?} after its stdin closed");
}
