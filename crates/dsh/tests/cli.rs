//! The `dsh` command line end to end: the real binary, real sandboxes (an embedded
//! daemon, and a `dsh sandbox serve` daemon).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn dsh() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dsh"));
    // Nothing from the developer's environment may pick another daemon.
    for key in ["E2B_API_KEY", "E2B_API_URL", "E2B_SANDBOX_URL", "E2B_DOMAIN", "DSH_BACKEND"] {
        command.env_remove(key);
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn exec_streams_output_and_passes_the_exit_code_through() {
    let output = dsh()
        .args(["exec", "--", "bash", "-c", "echo out-é; echo err >&2; hostname | wc -c; exit 7"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(7), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "out-é\n21\n", "a sandbox id (20 chars) is the hostname");
    assert_eq!(text(&output.stderr), "err\n");
}

#[test]
fn unknown_subcommands_get_suggestions() {
    let output = dsh().args(["sandbox", "lst"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("a similar subcommand exists: 'list'"),
        "{}",
        text(&output.stderr)
    );
}

struct Served {
    child: Child,
    url: String,
    state: tempfile::TempDir,
}

impl Served {
    fn start() -> Self {
        let state = tempfile::Builder::new().prefix("dsh-cli-serve-").tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let child = dsh()
            .args(["sandbox", "serve", "--listen", &format!("127.0.0.1:{port}"), "--state-dir"])
            .arg(state.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let began = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(began.elapsed() < Duration::from_secs(20), "dsh sandbox serve did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, url, state }
    }

    fn run(&self, args: &[&str]) -> Output {
        dsh()
            .args(args)
            .env("E2B_API_URL", &self.url)
            .env("DSH_SANDBOXD_STATE", self.state.path())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(output.status.success(), "dsh {args:?} failed: {}", text(&output.stderr));
        text(&output.stdout)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SIGTERM: the daemon pauses its sandboxes and exits.
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let _ = self.child.wait();
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn sandbox_fs_and_exec_commands_against_a_served_daemon() {
    let served = Served::start();
    let created =
        json(&served.ok(&["sandbox", "create", "--json", "--metadata", "purpose=cli-test"]));
    let id = created["sandboxID"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 20);

    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("in.txt");
    std::fs::write(&local, "from the host\n").unwrap();
    served.ok(&["fs", "put", local.to_str().unwrap(), "/home/user/in.txt", "--sandbox", &id]);
    assert_eq!(served.ok(&["fs", "cat", "/home/user/in.txt", "--sandbox", &id]), "from the host\n");
    let back: PathBuf = dir.path().join("back.txt");
    served.ok(&["fs", "get", "/home/user/in.txt", back.to_str().unwrap(), "--sandbox", &id]);
    assert_eq!(std::fs::read_to_string(&back).unwrap(), "from the host\n");
    let listed = json(&served.ok(&["fs", "ls", "/home/user", "--json", "--sandbox", &id]));
    let names: Vec<&str> =
        listed.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"in.txt"), "{names:?}");
    assert_eq!(
        served.ok(&["exec", "--sandbox", &id, "--", "cat", "/home/user/in.txt"]),
        "from the host\n"
    );

    // Code Mode from a local file, in that sandbox.
    let program = dir.path().join("prog.ts");
    std::fs::write(
        &program,
        "const text: string = (await tools.read({ file_path: '/home/user/in.txt' })).content;\nconsole.log('read ' + text.length);\nreturn { upper: text.trim().toUpperCase() };\n",
    )
    .unwrap();
    let ran =
        json(&served.ok(&["code", "run", program.to_str().unwrap(), "--json", "--sandbox", &id]));
    assert_eq!(ran["result"], serde_json::json!({"upper": "FROM THE HOST"}));
    assert_eq!(ran["logs"], serde_json::json!(["read 14"]));
    let failing = dir.path().join("fail.ts");
    std::fs::write(&failing, "while (true) {}").unwrap();
    let timed_out = served.run(&[
        "code",
        "run",
        failing.to_str().unwrap(),
        "--timeout-ms",
        "1000",
        "--json",
        "--sandbox",
        &id,
    ]);
    assert_eq!(timed_out.status.code(), Some(1));
    assert_eq!(json(&text(&timed_out.stdout))["error"]["kind"], "timeout");

    // A language server in that sandbox (pyright installed into dsh's private directory).
    let install = "prefix=/home/user/workspace/.dsh-e2b/servers; cafile=$(npm config get cafile 2>/dev/null); \
        if [ -n \"$cafile\" ] && [ \"$cafile\" != null ]; then export npm_config_cafile=\"$cafile\"; fi; \
        npm install --prefix $prefix --no-audit --no-fund --loglevel=error pyright@1.1.414 >/dev/null";
    served.ok(&["exec", "--sandbox", &id, "--", "bash", "-c", install]);
    let source = dir.path().join("app.py");
    std::fs::write(
        &source,
        "def twice(x: int) -> int:\n    return 2 * x\n\nvalue: str = twice(3)\n",
    )
    .unwrap();
    served.ok(&[
        "fs",
        "put",
        source.to_str().unwrap(),
        "/home/user/workspace/app.py",
        "--sandbox",
        &id,
    ]);
    let definition =
        json(&served.ok(&["lsp", "goToDefinition", "app.py:4:14", "--json", "--sandbox", &id]));
    let target = &definition["output"]["items"][0];
    assert_eq!(
        (target["line"].as_u64(), target["character"].as_u64()),
        (Some(1), Some(5)),
        "{definition}"
    );
    let diagnostics = served.ok(&["lsp", "diagnostics", "app.py", "--sandbox", &id]);
    assert!(diagnostics.contains("app.py:4:14: error"), "{diagnostics}");
    let unknown = served.run(&["lsp", "hover", "notes.xyz:1:1", "--sandbox", &id]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("xyz"), "{}", text(&unknown.stderr));

    let list = json(&served.ok(&["sandbox", "list", "--json"]));
    assert_eq!(list[0]["sandboxID"], id.as_str());
    assert_eq!(
        (list[0]["state"].as_str(), list[0]["metadata"]["purpose"].as_str()),
        (Some("running"), Some("cli-test"))
    );
    assert_eq!(list[0]["isolation"], "strict");
    // CPU and memory from the daemon's latest sample (taken every 5 s).
    let sampled = (0..120)
        .find_map(|_| {
            let list = json(&served.ok(&["sandbox", "list", "--json"]));
            if list[0]["memTotal"].is_u64() {
                return Some(list);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            None
        })
        .expect("no metrics sample within 12 s");
    assert_eq!(sampled[0]["memTotal"], 4096u64 << 20, "{sampled}");
    assert_eq!(sampled[0]["cpuCount"], 2, "{sampled}");
    let used = sampled[0]["memUsed"].as_u64().unwrap();
    assert!(used > 0 && used < 4096 << 20, "{sampled}");
    assert!(sampled[0]["cpuUsedPct"].as_f64().is_some_and(|pct| pct >= 0.0), "{sampled}");
    let table = served.ok(&["sandbox", "list"]);
    assert!(table.starts_with("SANDBOX"), "{table}");
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["SANDBOX", "TEMPLATE", "STATE", "ISOLATION", "CPU", "MEMORY", "ENDS"]);
    let row = table.lines().nth(1).unwrap();
    assert!(
        row.contains(" strict ") && row.contains("% of 2 ") && row.contains("/4096 MiB"),
        "{table}"
    );
    // A server inside, reached from outside through the daemon the way `expose` says.
    let exposed = json(&served.ok(&["sandbox", "expose", &id, "8000", "--json"]));
    assert_eq!(exposed["headers"]["E2b-Sandbox-Port"], "8000");
    assert_eq!(exposed["headers"]["E2b-Sandbox-Id"], id.as_str());
    served.ok(&[
        "exec",
        "--sandbox",
        &id,
        "--",
        "sh",
        "-c",
        "cd /home/user && python3 -m http.server 8000 >/dev/null 2>&1 &",
    ]);
    let curl = exposed["curl"].as_str().unwrap().to_owned() + "in.txt";
    let fetched = (0..100)
        .find_map(|_| {
            let out = std::process::Command::new("sh")
                .args(["-c", &format!("{curl} -sf")])
                .output()
                .ok()?;
            if out.status.success() {
                return Some(String::from_utf8_lossy(&out.stdout).into_owned());
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            None
        })
        .expect("the exposed port never answered");
    assert_eq!(fetched, "from the host\n");
    let bad = served.run(&["sandbox", "expose", &id, "0"]);
    assert_eq!(bad.status.code(), Some(2));
    served.ok(&["sandbox", "pause", &id]);
    let paused = json(&served.ok(&["sandbox", "list", "--json"]));
    assert_eq!(
        (paused[0]["state"].as_str(), &paused[0]["memTotal"]),
        (Some("paused"), &serde_json::Value::Null)
    );
    served.ok(&["sandbox", "resume", &id]);
    assert_eq!(
        served.ok(&["exec", "--sandbox", &id, "--", "cat", "/home/user/in.txt"]),
        "from the host\n"
    );
    served.ok(&["sandbox", "kill", &id]);
    let again = served.run(&["sandbox", "kill", &id]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        text(&again.stderr),
        format!("dsh: sandbox {id} does not exist (see `dsh sandbox list`)\n")
    );
    let missing = served.run(&["exec", "--sandbox", "nosuchsandbox", "--", "true"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        text(&missing.stderr),
        "dsh: sandbox nosuchsandbox does not exist (see `dsh sandbox list`)\n"
    );
    assert!(Path::new(served.state.path()).join("api-key").exists());
}

#[test]
fn sandbox_fork_snapshot_pause_and_volume_commands_against_a_served_daemon() {
    let served = Served::start();
    let id = json(&served.ok(&["sandbox", "create", "--json"]))["sandboxID"]
        .as_str()
        .unwrap()
        .to_owned();
    let write = "echo parent > /home/user/state.txt";
    served.ok(&["exec", "--sandbox", &id, "--", "sh", "-c", write]);

    let forked = json(&served.ok(&["sandbox", "fork", &id, "--count", "2", "--json"]));
    assert_eq!(forked["parent"], id.as_str());
    let forks: Vec<String> = forked["forks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["sandboxID"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(forks.len(), 2);
    for fork in &forks {
        assert_ne!(fork, &id);
        assert_eq!(
            served.ok(&["fs", "cat", "/home/user/state.txt", "--sandbox", fork]),
            "parent\n"
        );
    }

    let snapshot = json(&served.ok(&["sandbox", "snapshot", &id, "--name", "cli-snap", "--json"]));
    assert_eq!(
        snapshot,
        serde_json::json!({"snapshotID": "cli-snap:default", "names": ["cli-snap:default"]})
    );
    let listed = json(&served.ok(&["sandbox", "snapshots", "--sandbox", &id, "--json"]));
    assert_eq!(listed, serde_json::json!([snapshot]));
    let from = json(&served.ok(&["sandbox", "create", "--template", "cli-snap", "--json"]));
    let from = from["sandboxID"].as_str().unwrap().to_owned();
    assert_eq!(served.ok(&["fs", "cat", "/home/user/state.txt", "--sandbox", &from]), "parent\n");
    assert_eq!(served.ok(&["sandbox", "delete-snapshot", "cli-snap"]), "deleted cli-snap\n");
    let again = served.run(&["sandbox", "delete-snapshot", "cli-snap"]);
    assert_eq!(
        (again.status.code(), text(&again.stderr)),
        (
            Some(1),
            "dsh: snapshot cli-snap does not exist (see `dsh sandbox snapshots`)\n".to_owned()
        )
    );

    // A files-only pause: the resumed sandbox keeps its files.
    let paused = json(&served.ok(&["sandbox", "pause", &id, "--files-only", "--json"]));
    assert_eq!(paused, serde_json::json!({"paused": id, "wasRunning": true}));
    served.ok(&["sandbox", "resume", &id]);
    assert_eq!(served.ok(&["fs", "cat", "/home/user/state.txt", "--sandbox", &id]), "parent\n");
    let fork_of_missing = served.run(&["sandbox", "fork", "nosuchsandbox0000000"]);
    assert_eq!(fork_of_missing.status.code(), Some(1));
    for sandbox in forks.iter().chain([&from, &id]) {
        served.ok(&["sandbox", "kill", sandbox]);
    }

    // A volume, mounted by one sandbox and seen by the next.
    let volume = json(&served.ok(&["sandbox", "create-volume", "cli-vol", "--json"]));
    assert_eq!(volume["name"], "cli-vol");
    let listed = json(&served.ok(&["sandbox", "volumes", "--json"]));
    assert_eq!(listed, serde_json::json!([volume]));
    let create = ["sandbox", "create", "--volume", "cli-vol:/mnt/v", "--json"];
    let first = json(&served.ok(&create))["sandboxID"].as_str().unwrap().to_owned();
    served.ok(&["exec", "--sandbox", &first, "--", "sh", "-c", "echo kept > /mnt/v/f"]);
    let busy = served.run(&["sandbox", "delete-volume", "cli-vol"]);
    assert_eq!(busy.status.code(), Some(1));
    assert!(text(&busy.stderr).contains("is mounted by sandbox"), "{}", text(&busy.stderr));
    served.ok(&["sandbox", "kill", &first]);
    let second = json(&served.ok(&create))["sandboxID"].as_str().unwrap().to_owned();
    assert_eq!(served.ok(&["fs", "cat", "/mnt/v/f", "--sandbox", &second]), "kept\n");
    served.ok(&["sandbox", "kill", &second]);
    assert_eq!(served.ok(&["sandbox", "delete-volume", "cli-vol"]), "deleted cli-vol\n");
    let bad = served.run(&["sandbox", "create", "--volume", "cli-vol"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn secret_create_list_and_delete_against_a_served_daemon() {
    use std::io::Write as _;
    let served = Served::start();
    let value = "cli-sentinel-DO-NOT-PRINT";
    let mut create = dsh()
        .args(["secret", "create", "CLI-Token", "--json"])
        .env("E2B_API_URL", &served.url)
        .env("DSH_SANDBOXD_STATE", served.state.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    create.stdin.take().unwrap().write_all(format!("{value}\n").as_bytes()).unwrap();
    let created = create.wait_with_output().unwrap();
    assert!(created.status.success(), "{}", text(&created.stderr));
    let secret = json(&text(&created.stdout));
    assert_eq!(
        (secret["name"].as_str(), secret["currentVersion"].as_i64()),
        (Some("cli-token"), Some(1))
    );
    // From a file, as is.
    let file = served.state.path().join("value.txt");
    std::fs::write(&file, format!("{value}-2\n")).unwrap();
    served.ok(&["secret", "create", "from-file", "--value-file", file.to_str().unwrap()]);
    let listed = served.ok(&["secret", "list"]);
    assert!(
        listed.starts_with("NAME") && listed.contains("cli-token") && listed.contains("from-file"),
        "{listed}"
    );
    let listed = json(&served.ok(&["secret", "list", "--json"]));
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert!(
        !listed.to_string().contains(value) && !text(&created.stdout).contains(value),
        "a value was printed"
    );
    // The daemon stores what was sent: stdin without its newline, the file as it is.
    let stored = |id: &serde_json::Value| {
        let path = served.state.path().join(format!("secrets/{}.json", id.as_str().unwrap()));
        json(&std::fs::read_to_string(path).unwrap())["value"].as_str().unwrap().to_owned()
    };
    assert!(
        stored(&listed[0]["secretID"]) == value
            && stored(&listed[1]["secretID"]) == format!("{value}-2\n")
    );
    assert_eq!(served.ok(&["secret", "delete", "CLI-Token"]), "deleted CLI-Token\n");
    let gone = served.run(&["secret", "delete", "cli-token"]);
    assert_eq!(
        (gone.status.code(), text(&gone.stderr)),
        (Some(1), "dsh: secret cli-token does not exist (see `dsh secret list`)\n".to_owned())
    );
}

#[test]
fn template_build_list_and_delete_against_a_served_daemon() {
    let served = Served::start();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("app")).unwrap();
    std::fs::write(project.path().join("app/index.html"), "<h1>from the cli</h1>\n").unwrap();
    let file = project.path().join("Dockerfile");
    std::fs::write(
        &file,
        "FROM base\nCOPY app /srv/app\nENV GREETING=hello\n\
         RUN echo $GREETING > /srv/app/greet.txt\nWORKDIR /srv/app\n\
         CMD python3 -m http.server 8080\n# ready: curl -sf localhost:8080\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let built = served.run(&["template", "build", "cli-web:v1", "-f", path, "--json"]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    let report = json(&text(&built.stdout));
    assert_eq!((&report["status"], &report["tags"]), (&"ready".into(), &serde_json::json!(["v1"])));
    // Progress went to stderr, step by step.
    let progress = text(&built.stderr);
    for line in ["uploaded app", "[1/4] COPY app /srv/app", "[4/4] WORKDIR /srv/app"] {
        assert!(progress.contains(line), "{line}: {progress}");
    }
    // A rebuild uploads nothing and runs nothing again.
    let again = served.run(&["template", "build", "cli-web:v2", "-f", path]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let progress = text(&again.stderr);
    assert!(progress.contains("app: already uploaded"), "{progress}");
    assert!(
        progress.contains("CACHED [3/4] RUN echo $GREETING > /srv/app/greet.txt"),
        "{progress}"
    );

    let listed = json(&served.ok(&["template", "list", "--json"]));
    assert_eq!(listed[0]["aliases"], serde_json::json!(["cli-web"]));
    assert_eq!(listed[0]["names"], serde_json::json!(["cli-web:v1", "cli-web:v2"]));
    let id =
        json(&served.ok(&["sandbox", "create", "--template", "cli-web:v2", "--json"]))["sandboxID"]
            .as_str()
            .unwrap()
            .to_owned();
    let out = served.ok(&[
        "exec",
        "--sandbox",
        &id,
        "--",
        "sh",
        "-c",
        "pwd; cat greet.txt; curl -s localhost:8080/index.html",
    ]);
    assert_eq!(out, "/srv/app\nhello\n<h1>from the cli</h1>\n");
    served.ok(&["sandbox", "kill", &id]);

    // A failing step fails the command with the step and the reason.
    std::fs::write(&file, "FROM base\nRUN echo nope; exit 7\n").unwrap();
    let failed = served.run(&["template", "build", "cli-broken", "-f", path]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        text(&failed.stderr).ends_with(
            "dsh: the build failed: step 1: the command exited with code 7: echo nope; exit 7\n"
        ),
        "{}",
        text(&failed.stderr)
    );
    assert_eq!(served.ok(&["template", "delete", "cli-web"]), "deleted cli-web\n");
    let gone = served.run(&["template", "delete", "cli-web"]);
    assert_eq!(
        (gone.status.code(), text(&gone.stderr)),
        (Some(1), "dsh: template cli-web does not exist (see `dsh template list`)\n".to_owned())
    );
    // The deletion collected its cache entries and uploads: `gc` finds nothing left.
    assert_eq!(served.ok(&["sandbox", "gc"]), "nothing to collect\n");
    assert_eq!(
        json(&served.ok(&["sandbox", "gc", "--json"])),
        serde_json::json!({"cacheEntries": [], "uploads": [], "images": []})
    );
}
