//! dsh's cloud path end to end: `dsh tour --backend e2b` and `dsh mcp` configured as for
//! E2B cloud (an API key and `E2B_DOMAIN`, nothing else), reaching a stand-in of E2B's
//! edge (TLS with a test CA, HTTP/2) on loopback through `DSH_E2B_RESOLVE` and
//! `DSH_E2B_CA_FILE`, in front of a real dsh-sandboxd whose sandboxes run envd in
//! E2B-strict mode (signals TERM/KILL to the pid only, no dsh extension): so Ctrl-C in a
//! terminal goes through the fallback a real E2B sandbox needs. Nothing leaves the
//! machine. Needs root, and pyright's npm package in npm's cache (npm runs offline).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use dsh_edge_standin::{Edge, Recorded};
use serde_json::{Value, json};

const DSH: &str = env!("CARGO_BIN_EXE_dsh");
const DOMAIN: &str = "e2b.test";
/// The version E2B's current envd reports, which the strict envd behaves as.
const STRICT_ENVD: &str = "0.6.13";

async fn daemon_with_e2b_envd() -> dsh_sandboxd::testing::TestDaemon {
    dsh_sandboxd::testing::TestDaemon::start_with(|config| {
        config.envd_args = vec!["--e2b-strict".into(), STRICT_ENVD.into()];
    })
    .await
    .unwrap()
}

/// A dsh command configured as a user of E2B cloud configures it, pointed at `edge`.
fn through_edge(edge: &Edge, key: &str, cwd: &std::path::Path) -> Command {
    let mut command = Command::new(DSH);
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if name_text.starts_with("E2B_") || name_text.starts_with("DSH_") {
            command.env_remove(name);
        }
    }
    command
        .current_dir(cwd)
        .env("E2B_API_KEY", key)
        .env("E2B_DOMAIN", edge.client_domain())
        .env("DSH_E2B_RESOLVE", edge.resolve_rule())
        .env("DSH_E2B_CA_FILE", &edge.ca_file)
        .env("npm_config_offline", "true");
    command
}

/// The API key went to the API host only and the sandbox's token to its envd only, every
/// request over HTTP/2; returns how many requests each host got.
fn assert_secrets_kept_apart(recorded: &[Recorded], edge: &Edge, key: &str) -> (usize, usize) {
    let api_host = format!("api.{}", edge.client_domain());
    let (api, sandbox): (Vec<_>, Vec<_>) = recorded.iter().partition(|r| r.authority == api_host);
    assert!(!api.is_empty() && !sandbox.is_empty(), "{recorded:#?}");
    for request in &api {
        assert_eq!(request.header("x-api-key"), Some(key), "{request:?}");
        assert_eq!(request.header("x-access-token"), None, "token sent to the API: {request:?}");
        assert_eq!(request.version, "HTTP/2.0", "{request:?}");
    }
    for request in &sandbox {
        assert!(
            request.authority.starts_with("49983-")
                && request.authority.ends_with(&format!(".{}", edge.client_domain())),
            "{request:?}"
        );
        assert_eq!(request.header("x-api-key"), None, "API key sent to a sandbox: {request:?}");
        assert_eq!(request.version, "HTTP/2.0", "{request:?}");
    }
    (api.len(), sandbox.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tour_passes_through_a_stand_in_of_e2b_s_edge_against_e2b_s_envd() {
    let daemon = daemon_with_e2b_envd().await;
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let key = daemon.api_key();
    let mut command = through_edge(&edge, &key, cwd.path());
    command.args(["tour", "--backend", "e2b", "--json"]);
    let output = tokio::task::spawn_blocking(move || command.output()).await.unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tour failed:\n{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["backend"], "E2B cloud");
    let steps: Vec<(&str, bool)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["step"].as_str().unwrap(), s["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        steps,
        [
            ("sandbox", true),
            ("files <-> commands", true),
            ("terminal", true),
            ("language server", true),
            ("code mode", true),
            ("isolation", true),
            ("teardown", true)
        ]
    );
    // The terminal step's Ctrl-C reached `sleep 30`, not the shell: on E2B's envd that is a
    // `kill` of the foreground group inside the sandbox.
    let terminal = &report["steps"][2]["details"];
    assert!(terminal["promptBackMs"].as_u64().unwrap() < 2000, "{terminal}");
    let lsp = &report["steps"][3]["details"];
    assert_eq!(
        (&lsp["definition"]["line"], &lsp["definition"]["character"]),
        (&json!(1), &json!(5))
    );
    let id = report["sandboxId"].as_str().unwrap();
    assert_eq!(report["steps"][6]["details"]["sandbox"], format!("killed sandbox {id}"));

    let recorded = edge.recorded();
    let (api, sandbox) = assert_secrets_kept_apart(&recorded, &edge, &key);
    eprintln!("through the edge: {api} API requests, {sandbox} sandbox requests");
    // The tour's teardown killed its sandbox: the daemon has nothing left.
    let listed = daemon_control(&daemon).list().await.unwrap();
    assert_eq!(listed, []);
    daemon.stop().await.unwrap();
}

fn daemon_control(daemon: &dsh_sandboxd::testing::TestDaemon) -> dsh_e2b::ControlPlane {
    dsh_e2b::ControlPlane::new(dsh_e2b::http_client().unwrap(), daemon.url(), daemon.api_key())
}

/// `dsh mcp` over stdio, one request at a time; every answer within 120 s.
struct Mcp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Mcp {
    fn start(mut command: Command) -> Mcp {
        command.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str::<Value>(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut mcp = Mcp { child, stdin, lines, next_id: 1 };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "dsh-cloud", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "dsh", "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.lines.recv_timeout(Duration::from_secs(120)).unwrap();
            if message["id"].as_u64() == Some(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// A tool call that must succeed: its structured content.
    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let answer =
            self.request("tools/call", json!({"name": tool, "arguments": arguments.clone()}));
        assert_ne!(answer["result"]["isError"], true, "{tool} {arguments}: {answer}");
        answer["result"]["structuredContent"].clone()
    }

    /// Closes stdin and waits (at most 30 s) for a clean exit.
    fn close(mut self) {
        drop(self.stdin.take());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "dsh mcp exited {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("dsh mcp did not exit within 30 s of its stdin closing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_work_through_the_edge_and_ctrl_c_reaches_the_terminal_s_job() {
    let daemon = daemon_with_e2b_envd().await;
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let key = daemon.api_key();
    let command = through_edge(&edge, &key, cwd.path());
    let transcript = tokio::task::spawn_blocking(move || {
        let mut mcp = Mcp::start(command);
        let mut transcript = Vec::new();
        let wrote =
            mcp.ok("write", json!({"file_path": "cloud.txt", "content": "through the edge\n"}));
        transcript.push(wrote["bytes"].clone());
        let ran =
            mcp.ok("bash", json!({"command": "cat cloud.txt; whoami", "description": "read back"}));
        transcript.push(json!([ran["stdout"], ran["exit_code"]]));
        let opened = mcp.ok("terminal_open", json!({"type": "shell"}));
        let session = opened["sessionId"].as_str().unwrap().to_owned();
        let sleeping = mcp.ok(
            "terminal_send",
            json!({"sessionId": session, "text": "sleep 45; echo slept", "timeoutMs": 500}),
        );
        transcript.push(sleeping["waitReason"].clone());
        let signalled =
            mcp.ok("terminal_signal", json!({"sessionId": session, "signal": "SIGINT"}));
        transcript.push(signalled["delivered"].clone());
        // The shell lives on (it was not the target) and answers the next command; the
        // interrupted list never printed "slept".
        let after = mcp.ok(
            "terminal_send",
            json!({"sessionId": session, "text": "echo shell-$((40+2))", "timeoutMs": 10000}),
        );
        let viewport = after["viewport"].as_str().unwrap_or_default().to_owned();
        transcript.push(json!([
            after["waitReason"],
            after["sessionStatus"],
            viewport.contains("\nshell-42"),
            viewport.contains("\nslept")
        ]));
        let left = mcp
            .ok("bash", json!({"command": "pgrep -x sleep | wc -l", "description": "sleep gone"}));
        transcript.push(left["stdout"].clone());
        mcp.ok("terminal_close", json!({"sessionId": session}));
        mcp.close();
        transcript
    })
    .await
    .unwrap();
    assert_eq!(
        transcript,
        [
            json!(17),
            json!(["through the edge\nuser\n", 0]),
            json!("timeout"),
            json!(true),
            json!(["stdin_read", "running", true, false]),
            json!("0\n"),
        ]
    );
    let recorded = edge.recorded();
    // E2B's envd signals pids only: dsh asked once whether this envd takes a process
    // group (dsh-envd's extension; refused here), then delivered every group signal
    // (the Ctrl-C, the terminal's close) with `kill` started inside the sandbox.
    let signal_calls = recorded.iter().filter(|r| r.path == "/process.Process/SendSignal").count();
    assert_eq!(signal_calls, 1, "{recorded:#?}");
    let (api, sandbox) = assert_secrets_kept_apart(&recorded, &edge, &key);
    eprintln!("through the edge: {api} API requests, {sandbox} sandbox requests");
    assert_eq!(daemon_control(&daemon).list().await.unwrap(), []);
    daemon.stop().await.unwrap();
}
