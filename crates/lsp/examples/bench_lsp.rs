//! Latency of the LSP engine with pyright: warm hover and definition (median and p99 over
//! 200 requests) and cold start to first hover, through
//!   - the sandbox backend (dsh-envd on loopback, Connect RPC),
//!   - the local backend (host processes),
//!   - pyright driven directly over stdio on the host (no engine, no seams).
//!
//! `scripts/install-language-servers` first, then
//! `cargo run --release -p dsh-lsp --example bench_lsp`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dsh_core::{Fs, Subprocess, WriteExpectation};
use dsh_lsp::{LspConfig, LspEngine, Operation};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ROUNDS: usize = 200;
const COLD_RUNS: usize = 5;

const MAIN: &str = r#"def greet(name: str) -> str:
    """Greets in many scripts: 你好 café 🎉"""
    return "hello " + name


label = "你好 café 🎉"; result = greet(label)
again = greet("é")
"#;
const CALL: (u32, u32) = (6, 32);

fn tools_bin() -> PathBuf {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/node_modules/.bin");
    let bin = bin.canonicalize().unwrap_or(bin);
    assert!(
        bin.join("pyright-langserver").exists(),
        "pyright-langserver missing: run scripts/install-language-servers"
    );
    bin
}

fn env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".to_owned(), format!("{}:/usr/local/bin:/usr/bin:/bin", tools_bin().display())),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
    ])
}

struct Stats {
    median: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats { median: at(0.5), p99: at(0.99) }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

struct Row {
    name: &'static str,
    /// One `Fs::read_text` of the source (the engine re-reads it before every request).
    read: Option<Stats>,
    hover: Stats,
    definition: Stats,
    cold: Duration,
}

async fn engine_bench(
    name: &'static str,
    fs: Arc<dyn Fs>,
    subprocess: Arc<dyn Subprocess>,
    root: &Path,
    same_ns: bool,
) -> Row {
    fs.make_dir(root, true).await.unwrap();
    let main = root.join("main.py");
    fs.write_text(&main, MAIN, WriteExpectation::Any).await.unwrap();
    fs.write_text(&root.join("pyrightconfig.json"), "{}\n", WriteExpectation::Any).await.unwrap();
    let make = || {
        let mut config = LspConfig::new(root, env());
        config.same_process_namespace = same_ns;
        LspEngine::new(Arc::clone(&fs), Arc::clone(&subprocess), config)
    };
    let mut colds = Vec::new();
    for _ in 0..COLD_RUNS {
        let engine = make();
        let start = Instant::now();
        engine.request(Operation::Hover, &main, 1, 5).await.unwrap();
        colds.push(start.elapsed());
        engine.dispose().await;
    }
    colds.sort();
    let engine = make();
    engine.request(Operation::Hover, &main, 1, 5).await.unwrap();
    // Warm-up.
    for _ in 0..20 {
        engine.request(Operation::Hover, &main, 1, 5).await.unwrap();
        engine.request(Operation::GoToDefinition, &main, CALL.0, CALL.1).await.unwrap();
    }
    let mut hovers = Vec::new();
    let mut definitions = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        engine.request(Operation::Hover, &main, 1, 5).await.unwrap();
        hovers.push(start.elapsed());
        let start = Instant::now();
        engine.request(Operation::GoToDefinition, &main, CALL.0, CALL.1).await.unwrap();
        definitions.push(start.elapsed());
    }
    engine.dispose().await;
    let mut reads = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        fs.read_text(&main, 1 << 20).await.unwrap();
        reads.push(start.elapsed());
    }
    Row {
        name,
        read: Some(stats(reads)),
        hover: stats(hovers),
        definition: stats(definitions),
        cold: colds[COLD_RUNS / 2],
    }
}

/// pyright over stdio with nothing in between: tokio::process and our framing.
struct Direct {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::process::ChildStdout,
    decoder: dsh_lsp::framing::FrameDecoder,
    next_id: i64,
}

impl Direct {
    async fn send(&mut self, message: Value) {
        let frame = dsh_lsp::framing::encode(message.to_string().as_bytes());
        self.stdin.write_all(&frame).await.unwrap();
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            while let Some(frame) = self.decoder.next_frame().unwrap() {
                let message: Value = serde_json::from_slice(&frame).unwrap();
                if message.get("method").is_some() {
                    if let Some(server_id) = message.get("id") {
                        let reply = json!({ "jsonrpc": "2.0", "id": server_id, "result": null });
                        self.send(reply).await;
                    }
                    continue;
                }
                if message.get("id") == Some(&json!(id)) {
                    return message.get("result").cloned().unwrap_or(Value::Null);
                }
            }
            let n = self.stdout.read(&mut buf).await.unwrap();
            assert!(n > 0, "pyright closed stdout");
            self.decoder.push(&buf[..n]);
        }
    }
}

async fn direct_bench(root: &Path) -> Row {
    std::fs::create_dir_all(root).unwrap();
    let main = root.join("main.py");
    std::fs::write(&main, MAIN).unwrap();
    std::fs::write(root.join("pyrightconfig.json"), "{}\n").unwrap();
    let uri = dsh_lsp::uri::from_path(&main);
    let start_one = || async {
        let mut child = tokio::process::Command::new(tools_bin().join("pyright-langserver"))
            .arg("--stdio")
            .current_dir(root)
            .env_clear()
            .envs(env())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut direct = Direct {
            child,
            stdin,
            stdout,
            decoder: dsh_lsp::framing::FrameDecoder::new(64 << 20),
            next_id: 0,
        };
        let root_uri = dsh_lsp::uri::from_path(root);
        direct
            .request(
                "initialize",
                json!({
                    "processId": std::process::id(),
                    "rootUri": root_uri,
                    "workspaceFolders": [{ "uri": root_uri, "name": "proj" }],
                    "capabilities": {}
                }),
            )
            .await;
        direct.send(json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} })).await;
        direct
            .send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                "textDocument": { "uri": uri, "languageId": "python", "version": 1, "text": MAIN }
            } }))
            .await;
        direct
    };
    let hover =
        json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 4 } });
    let definition = json!({
        "textDocument": { "uri": uri },
        "position": { "line": CALL.0 - 1, "character": CALL.1 - 1 }
    });
    let mut colds = Vec::new();
    for _ in 0..COLD_RUNS {
        let start = Instant::now();
        let mut direct = start_one().await;
        direct.request("textDocument/hover", hover.clone()).await;
        colds.push(start.elapsed());
        let _ = direct.child.kill().await;
    }
    colds.sort();
    let mut direct = start_one().await;
    for _ in 0..20 {
        direct.request("textDocument/hover", hover.clone()).await;
        direct.request("textDocument/definition", definition.clone()).await;
    }
    let mut hovers = Vec::new();
    let mut definitions = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        direct.request("textDocument/hover", hover.clone()).await;
        hovers.push(start.elapsed());
        let start = Instant::now();
        direct.request("textDocument/definition", definition.clone()).await;
        definitions.push(start.elapsed());
    }
    let _ = direct.child.kill().await;
    Row {
        name: "pyright direct over stdio (host)",
        read: None,
        hover: stats(hovers),
        definition: stats(definitions),
        cold: colds[COLD_RUNS / 2],
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let mut rows = Vec::new();

    rows.push(direct_bench(&base.join("direct")).await);

    let local = Arc::new(dsh_core::host::Host::new());
    rows.push(
        engine_bench("engine, local backend", local.clone(), local, &base.join("local"), true)
            .await,
    );

    let daemon = dsh_envd::testing::start().await.unwrap();
    let envd = dsh_e2b::EnvdClient::new(
        dsh_e2b::http_client().unwrap(),
        dsh_e2b::EnvdTarget::direct(&daemon.base_url),
        None,
    );
    let sandbox = Arc::new(dsh_e2b::SandboxBackend::new(envd, None));
    rows.push(
        engine_bench(
            "engine, sandbox backend (envd on loopback)",
            sandbox.clone(),
            sandbox,
            &daemon.home.join("proj"),
            false,
        )
        .await,
    );

    println!(
        "pyright warm latency over {ROUNDS} requests each, cold start = median of {COLD_RUNS} (spawn to first hover answer)\n"
    );
    println!(
        "| path | hover median | hover p99 | definition median | definition p99 | cold start | Fs read_text median |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            ms(row.hover.median),
            ms(row.hover.p99),
            ms(row.definition.median),
            ms(row.definition.p99),
            ms(row.cold),
            row.read.as_ref().map_or_else(|| "-".to_owned(), |r| ms(r.median))
        );
    }
}
