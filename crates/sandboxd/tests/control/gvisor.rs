//! The gVisor runtime (`gvisor.rs`): envd in a runsc container whose network namespace is
//! linked behind one the daemon made and pinned (`gvisor_net.rs`), reached at the guest's
//! address from there, and what root inside makes stored as a uid block's root on the
//! host (the root shown to runsc through an idmapped mount).

use std::io::{Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_sandboxd::gvisor::{GvisorSpec, Runsc, container_id};
use dsh_sandboxd::spec::IdRange;

use super::harness::{envd_binary, scopeguard};

/// `GET /health` on the guest's 49983 from the namespace pinned at `pin`: the status
/// line, or the error.
fn health_inside(pin: &Path) -> Result<String, String> {
    let namespace = std::fs::File::open(pin).unwrap();
    std::thread::spawn(move || {
        // SAFETY: setns(2) of this thread (which ends here) into a namespace file.
        let joined = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(joined, 0, "{}", std::io::Error::last_os_error());
        let guest = std::net::SocketAddr::from((dsh_sandboxd::gvisor_net::GUEST, 49983));
        let mut stream = std::net::TcpStream::connect_timeout(&guest, Duration::from_secs(2))
            .map_err(|e| e.to_string())?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).map_err(|e| e.to_string())?;
        Ok(reply.lines().next().unwrap_or_default().to_owned())
    })
    .join()
    .unwrap()
}

/// Processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(needle)
        })
        .collect()
}

#[test]
fn envd_runs_under_gvisor_in_a_pinned_namespace_and_root_inside_is_a_block_of_its_own() {
    let dir = tempfile::Builder::new().prefix("dsh-gvisor-").tempdir().unwrap();
    // runsc's gofer and sandbox run as the block's root and as nobody: they must reach
    // the root and the bundle (a tempdir is 0700).
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let id = format!("gv{}", std::process::id());
    let pin = dir.path().join("netns");
    std::fs::File::create(&pin).unwrap();
    drop(dsh_sandboxd::server::spare_netns::new_namespace_pinned_at(&pin).unwrap());

    // The root: the host's merged-usr links as they are, the rest shown read-only.
    let ids = IdRange { host_base: IdRange::DEFAULT_BASE + 4000 * IdRange::SIZE };
    let rootfs = dir.path().join("rootfs");
    std::fs::create_dir(&rootfs).unwrap();
    std::os::unix::fs::chown(&rootfs, Some(ids.host_base), Some(ids.host_base)).unwrap();
    let mut read_only: Vec<PathBuf> = vec!["/usr".into(), "/etc".into()];
    for path in ["/bin", "/sbin", "/lib", "/lib64"] {
        match std::fs::read_link(path) {
            Ok(target) => std::os::unix::fs::symlink(target, rootfs.join(&path[1..])).unwrap(),
            Err(_) if Path::new(path).is_dir() => read_only.push(path.into()),
            Err(_) => {}
        }
    }
    let envd = envd_binary();
    read_only.push(envd.clone());
    let runsc = Runsc::new(None, dir.path().join("runsc")).unwrap();
    let spec = GvisorSpec {
        id: id.clone(),
        bundle: dir.path().join("bundle"),
        rootfs: rootfs.clone(),
        overlays: Vec::new(),
        read_only,
        binds: Vec::new(),
        volumes: Vec::new(),
        netns: Some(pin.clone()),
        ids: Some(ids),
        cgroup: None,
        args: vec![
            envd.display().to_string(),
            "--listen".into(),
            "0.0.0.0:49983".into(),
            "--default-user".into(),
            "root".into(),
        ],
        env: vec!["PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin".into()],
        cwd: "/".into(),
        log: dir.path().join("envd.log"),
    };
    let started = Instant::now();
    let container = runsc.start(&spec).unwrap();
    assert!(container.link.is_some(), "gVisor's namespace is linked to the pinned one");
    let destroy = scopeguard(|| {
        let _ = runsc.destroy(&spec);
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let health = loop {
        let health = health_inside(&pin);
        if health.is_ok() || Instant::now() > deadline {
            break health;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = std::fs::read_to_string(dir.path().join("envd.log")).unwrap_or_default();
    assert_eq!(health.as_deref(), Ok("HTTP/1.1 204 No Content"), "{log}");
    eprintln!("envd answered under gVisor {:?} after runsc run", started.elapsed());
    assert_eq!(runsc.state(&id).unwrap(), "running");

    // gVisor's kernel answers, not the host's.
    let (version, code) = runsc.exec(&id, &["cat", "/proc/version"]).unwrap();
    assert_eq!(code, 0);
    let host = std::fs::read_to_string("/proc/version").unwrap();
    assert_ne!(version, host);
    assert!(version.starts_with("Linux version 4.4.0"), "{version}");
    // Root inside makes files of its block's root on the host.
    // (Python: coreutils' `stat` asks statx for more than this gVisor answers: EINVAL.)
    let script =
        "import os; open('/made', 'w').write('made'); print(os.getuid(), os.stat('/made').st_uid)";
    let (out, code) = runsc.exec(&id, &["python3", "-c", script]).unwrap();
    assert_eq!((out.as_str(), code), ("0 0\n", 0));
    assert_eq!(std::fs::metadata(rootfs.join("made")).unwrap().uid(), ids.host_base);
    // The host's shown directories stay read-only.
    let (out, code) = runsc.exec(&id, &["sh", "-c", "touch /usr/x 2>&1; echo $?"]).unwrap();
    assert_eq!(code, 0);
    assert_ne!(out.lines().last(), Some("0"), "{out}");
    assert!(!Path::new("/usr/x").exists());

    drop(destroy);
    assert!(runsc.state(&id).is_err(), "the container is gone");
    assert_eq!(processes_mentioning(&container_id(&id)), Vec::<u32>::new());
    drop(container);
    let after = health_inside(&pin);
    assert!(after.is_err(), "envd still answers: {after:?}");
    assert!(!dir.path().join(format!("{id}.guest")).exists(), "the guest's pin is gone");
    let pin_c = std::ffi::CString::new(pin.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: umount2 of the pin made above.
    assert_eq!(unsafe { libc::umount2(pin_c.as_ptr(), libc::MNT_DETACH) }, 0);
}

/// Through the control plane, as a user asks for it: `runtime: "gvisor"` at create. The
/// sandbox is the same product (envd's commands and files, the default `user`, the
/// private network's address) on gVisor's kernel; its kill leaves nothing of runsc.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_created_with_the_gvisor_runtime_runs_envd_under_gvisor() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();

    let reply = c
        .call(Method::POST, "/sandboxes", Some(json!({"templateID": "base", "runtime": "kata"})))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.body,
        json!({"code": 400, "message": "runtime: \"native\" or \"gvisor\", not \"kata\""})
    );

    let sandbox = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&sandbox, "head -c 19 /proc/version; echo; id -un; pwd").await;
    assert_eq!((out.as_str(), code), ("Linux version 4.4.0\nuser\n/home/user\n", 0));
    let (out, _) = c
        .run(
            &sandbox,
            "ip -4 -br addr show eth0 2>&1 || cat /proc/net/fib_trie | grep -c 198.18.0.2",
        )
        .await;
    // gVisor's own stack, behind the sandbox's namespace (see `gvisor_net.rs`).
    assert!(out.contains("198.19.0.2"), "{out}");
    // gVisor's own /dev, with its terminals: a process gets one.
    let pty = "python3 -c \"import os, pty\npid, fd = pty.fork()\nif pid == 0:\n    os.execv('/bin/echo', ['echo', 'in-pty'])\nprint(os.read(fd, 100))\"";
    let (out, code) = c.run(&sandbox, pty).await;
    assert_eq!((out.as_str(), code), ("b'in-pty\\r\\n'\n", 0));
    c.write_file(&sandbox, "/home/user/note.txt", "from the host").await;
    assert_eq!(
        c.read_file(&sandbox, "/home/user/note.txt").await,
        (StatusCode::OK, "from the host".to_owned())
    );
    // (Python: coreutils ask statx for more than this gVisor answers.)
    let owner = "python3 -c \"import os, pwd; print(pwd.getpwuid(os.stat('/home/user/note.txt').st_uid).pw_name)\"";
    let (out, code) = c.run(&sandbox, owner).await;
    assert_eq!((out.as_str(), code), ("user\n", 0));
    // coreutils too (statx: runsc 2024 answers what they ask), `sudo` and the `python`
    // alias (planted by envd in /usr/local/bin, a directory in gVisor's memory that
    // shows the host's entries), and those entries.
    let (out, code) = c
        .run(&sandbox, "stat -c %U /home/user/note.txt; sudo whoami; python --version | cut -c1-7")
        .await;
    assert_eq!((out.as_str(), code), ("user\nroot\nPython \n", 0));
    let host_bin: Vec<String> = std::fs::read_dir("/usr/local/bin")
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().exists())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    let (out, code) = c.run(&sandbox, "ls /usr/local/bin").await;
    assert_eq!(code, 0, "{out}");
    for name in &host_bin {
        assert!(out.lines().any(|line| line == name), "{name} missing from {out}");
    }
    assert!(!Path::new("/usr/local/bin/sudo").exists(), "sudo went to the host");
    // On the host the file is the sandbox's block's `user`, in its own directory.
    let dir = h.state().join("sandboxes").join(&id);
    let block = std::fs::metadata(dir.join("rootfs-upper")).unwrap().uid();
    assert!(block >= IdRange::DEFAULT_BASE, "the root is host uid {block}");
    assert_eq!(std::fs::metadata(dir.join("home/user/note.txt")).unwrap().uid(), block + 1000);
    let bundles = h.state().join("runsc-bundles");
    assert!(bundles.join(&id).join("config.json").is_file());
    let runsc_processes = processes_mentioning(&container_id(&id));
    assert!(!runsc_processes.is_empty(), "runsc's processes of {id}");

    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    super::harness::wait_until("runsc's processes to go", Duration::from_secs(20), async || {
        processes_mentioning(&container_id(&id)).is_empty() && !bundles.join(&id).exists()
    })
    .await;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mountinfo.contains(&id), "a mount of {id} is left");
    h.stop().await;
}

/// What a sandbox holds in memory for the tests below: a shell loop counting (its pid
/// and its count in files), an HTTP server counting its requests on port 8000, and a
/// Python REPL reading statements from a FIFO (a writer holds it open) and writing what
/// it prints to /tmp/repl.out.
const RUN_STATEFUL: &str = "\
mkfifo /tmp/in
setsid sh -c 'exec sleep 100000 > /tmp/in' </dev/null >/dev/null 2>&1 &
setsid python3 -i -q -u < /tmp/in > /tmp/repl.out 2>/dev/null &
setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/count; sleep 0.05; done' </dev/null >/dev/null 2>&1 &
echo $! > /tmp/count.pid
setsid python3 -c '
import http.server
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global n
        n += 1
        body = str(n).encode()
        self.send_response(200)
        self.send_header(\"Content-Length\", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer((\"0.0.0.0\", 8000), H).serve_forever()
' </dev/null >/dev/null 2>&1 &
";

/// One request to the counting server inside: its count (retried while it starts).
const ASK_SERVER: &str = "python3 -c \"
import time, urllib.request
for _ in range(100):
    try:
        print(urllib.request.urlopen('http://127.0.0.1:8000', timeout=5).read().decode())
        break
    except OSError:
        time.sleep(0.1)
\"";

/// Sends `statement` to the REPL and prints what it has written so far, once it has
/// written `lines` lines.
fn ask_repl(statement: &str, lines: usize) -> String {
    format!(
        "echo '{statement}' > /tmp/in; for _ in $(seq 100); do \
         [ $(wc -l < /tmp/repl.out) -ge {lines} ] && break; sleep 0.05; done; cat /tmp/repl.out"
    )
}

/// The counter's pid and count.
async fn counter(c: &super::harness::Client, sandbox: &serde_json::Value) -> (String, u64) {
    let (out, code) = c.run(sandbox, "cat /tmp/count.pid /tmp/count").await;
    assert_eq!(code, 0, "{out}");
    let mut lines = out.lines();
    let pid = lines.next().unwrap_or_default().to_owned();
    let count = lines.next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{out}"));
    (pid, count)
}

/// A gVisor sandbox paused with its memory writes it to disk and outlives its daemon:
/// killed with SIGKILL, a new daemon on the same state directory resumes it, and the
/// processes that ran go on with their memory (a counting loop, a server's count of its
/// requests on a socket still listening, a REPL's variable). A daemon stopped cleanly
/// saves a running one's memory the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gvisor_sandbox_paused_with_its_memory_outlives_a_killed_daemon() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let dir = tempfile::Builder::new().prefix("dsh-gvisor-pause-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _cleanup = super::harness::KillOnDrop(state.clone());
    let (daemon, c) = super::harness::spawn_daemon(&state).await;
    // A failed assertion must not leave the daemon running.
    let log = super::harness::daemon_log(&state);
    let mut daemon = DaemonChild(daemon, log.clone());
    let state = std::fs::canonicalize(&state).unwrap();
    let sandbox = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&sandbox, RUN_STATEFUL).await;
    assert_eq!((out.as_str(), code), ("", 0));
    assert_eq!(c.run(&sandbox, ASK_SERVER).await, ("1\n".to_owned(), 0));
    assert_eq!(c.run(&sandbox, ASK_SERVER).await, ("2\n".to_owned(), 0));
    let (out, _) = c.run(&sandbox, &ask_repl("x = 41; print(\"set\", x)", 1)).await;
    assert_eq!(out, "set 41\n");
    let (pid, before) = counter(&c, &sandbox).await;

    let reply = c.call(Method::POST, &format!("/sandboxes/{id}/pause"), Some(json!({}))).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{:?}", reply.body);
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state.join(format!("sandboxes/{id}.json"))).unwrap())
            .unwrap();
    assert_eq!(record["phase"], "paused");
    assert_eq!(record["checkpoint"]["envdAccessToken"], sandbox["envdAccessToken"]);
    let image = state.join(format!("sandboxes/{id}/memory/checkpoint.img"));
    let size = std::fs::metadata(&image).unwrap().len();
    assert!(size > 100_000, "a checkpoint of {size} bytes");
    assert_eq!(processes_mentioning(&container_id(&id)), Vec::<u32>::new());

    // The daemon dies without a word; a new one finds the sandbox paused.
    daemon.0.kill().unwrap();
    daemon.0.wait().unwrap();
    let (second, c) = super::harness::spawn_daemon(&state).await;
    daemon = DaemonChild(second, log.clone());
    let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.body["state"], "paused");
    assert_eq!(
        (&detail.body["runtime"], &detail.body["pausedMemory"]),
        (&json!("gvisor"), &json!("disk"))
    );
    let reply = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    assert_eq!(reply.body["envdAccessToken"], sandbox["envdAccessToken"], "the token is kept");

    let (same_pid, after) = counter(&c, &sandbox).await;
    assert_eq!(same_pid, pid, "the counting loop is the same process");
    assert!(after >= before, "the count went back: {before} -> {after}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, later) = counter(&c, &sandbox).await;
    assert!(later > after, "the loop does not count any more: {after} -> {later}");
    assert_eq!(c.run(&sandbox, ASK_SERVER).await, ("3\n".to_owned(), 0));
    let (out, _) = c.run(&sandbox, &ask_repl("print(x + 1)", 2)).await;
    assert_eq!(out, "set 41\n42\n");
    assert!(!image.exists(), "the spent checkpoint is removed");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state.join(format!("sandboxes/{id}.json"))).unwrap())
            .unwrap();
    assert_eq!(record["checkpoint"], serde_json::Value::Null);

    // A daemon stopped cleanly saves a running gVisor sandbox's memory too.
    // SAFETY: kill(2) of our own child.
    unsafe { libc::kill(daemon.0.id() as i32, libc::SIGTERM) };
    assert_eq!(daemon.0.wait().unwrap().code(), Some(0));
    assert_eq!(processes_mentioning(&container_id(&id)), Vec::<u32>::new());
    let (third, c) = super::harness::spawn_daemon(&state).await;
    daemon = DaemonChild(third, log.clone());
    let reply = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    let (same_pid, last) = counter(&c, &sandbox).await;
    assert_eq!(same_pid, pid, "the counting loop is the same process");
    assert!(last >= later, "the count went back: {later} -> {last}");
    assert_eq!(c.run(&sandbox, ASK_SERVER).await, ("4\n".to_owned(), 0));

    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    super::harness::wait_until("runsc's processes to go", Duration::from_secs(20), async || {
        processes_mentioning(&container_id(&id)).is_empty()
    })
    .await;
    // SAFETY: kill(2) of our own child.
    unsafe { libc::kill(daemon.0.id() as i32, libc::SIGTERM) };
    assert_eq!(daemon.0.wait().unwrap().code(), Some(0));
}

/// A daemon child killed (and reaped) when dropped; a failing test shows its log.
struct DaemonChild(std::process::Child, PathBuf);

impl Drop for DaemonChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.1).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            eprintln!("daemon log ({}), last lines:", self.1.display());
            for line in tail.iter().rev() {
                eprintln!("  {line}");
            }
            // And what each sandbox's envd (and runsc, which writes there too) said last.
            let sandboxes = self.1.with_extension("").join("sandboxes");
            for entry in std::fs::read_dir(sandboxes).into_iter().flatten().flatten() {
                let envd = entry.path().join("envd.log");
                let Ok(log) = std::fs::read_to_string(&envd) else { continue };
                let tail: Vec<&str> = log.lines().rev().take(20).collect();
                eprintln!("{}, last lines:", envd.display());
                for line in tail.iter().rev() {
                    eprintln!("  {line}");
                }
            }
        }
    }
}

/// A fork of a gVisor sandbox has its processes: a REPL holding a variable is forked 3
/// times, and each fork (and the parent, which goes on) changes it on its own. Each
/// fork has its own envd token, network (its server's port is its own) and container.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forks_of_a_gvisor_sandbox_carry_its_processes_and_go_their_own_ways() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();
    let parent = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let parent_id = parent["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&parent, RUN_STATEFUL).await;
    assert_eq!((out.as_str(), code), ("", 0));
    let (out, _) = c.run(&parent, &ask_repl("x = 1; print(\"x\", x)", 1)).await;
    assert_eq!(out, "x 1\n");
    assert_eq!(c.run(&parent, ASK_SERVER).await, ("1\n".to_owned(), 0));

    let reply = c
        .call(
            Method::POST,
            &format!("/sandboxes/{parent_id}/fork"),
            Some(json!({"count": 3, "timeout": 60})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    let forks: Vec<serde_json::Value> =
        reply.body.as_array().unwrap().iter().map(|entry| entry["sandbox"].clone()).collect();
    assert_eq!(forks.len(), 3, "{:?}", reply.body);
    let mut tokens: Vec<&str> =
        forks.iter().map(|f| f["envdAccessToken"].as_str().unwrap()).collect();
    tokens.push(parent["envdAccessToken"].as_str().unwrap());
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), 4, "each fork has a token of its own");

    for (n, fork) in forks.iter().enumerate() {
        let value = 10 * (n + 1);
        let statement = format!("x = x + {value}; print(\"x\", x)");
        let (out, _) = c.run(fork, &ask_repl(&statement, 2)).await;
        assert_eq!(out, format!("x 1\nx {}\n", 1 + value));
        assert_eq!(c.run(fork, ASK_SERVER).await, ("2\n".to_owned(), 0));
        // The parent's token does not open a fork.
        let mut stranger = fork.clone();
        stranger["envdAccessToken"] = parent["envdAccessToken"].clone();
        let reply = c.envd(&stranger, Method::GET, "/files?path=/tmp/count").send().await.unwrap();
        assert_eq!(reply.status(), StatusCode::UNAUTHORIZED);
    }
    let (out, _) = c.run(&parent, &ask_repl("print(\"x\", x)", 2)).await;
    assert_eq!(out, "x 1\nx 1\n");
    assert_eq!(c.run(&parent, ASK_SERVER).await, ("2\n".to_owned(), 0));
    // Four containers, each with its own sandbox process.
    let mut pids: Vec<u32> = std::iter::once(&parent)
        .chain(&forks)
        .flat_map(|sandbox| {
            processes_mentioning(&container_id(sandbox["sandboxID"].as_str().unwrap()))
        })
        .collect();
    let all = pids.len();
    pids.sort();
    pids.dedup();
    assert_eq!(pids.len(), all, "a process of two containers");
    for sandbox in std::iter::once(&parent).chain(&forks) {
        let id = sandbox["sandboxID"].as_str().unwrap();
        assert!(!processes_mentioning(&container_id(id)).is_empty(), "no container of {id}");
    }
    for sandbox in forks.iter().chain([&parent]) {
        let id = sandbox["sandboxID"].as_str().unwrap();
        let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT);
    }
    h.stop().await;
}

/// A gVisor sandbox's network is the same product as a native one's, through gVisor's
/// own stack behind the sandbox's namespace (`gvisor_net.rs`): it reaches the stand-in
/// internet, never the host (its loopback, its addresses, pasta's gateway) nor the
/// router's own address, and E2B's egress rules and the domain filter hold for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gvisor_sandbox_reaches_the_internet_never_the_host_and_its_rules_hold() {
    use super::network::{INTERNET, Internet, by_name, reach};
    use serde_json::json;

    let mut internet = Internet::start();
    internet.serve_tls();
    let h = super::harness::Harness::start().await;
    let c = h.client.clone();
    let open = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let web = format!("http://{INTERNET}/index.txt");
    super::harness::wait_until(
        "the stand-in internet answers",
        Duration::from_secs(15),
        async || reach(&c, &open, std::slice::from_ref(&web)).await == ["200"],
    )
    .await;
    let port = internet.host_port;
    // The host as a native sandbox could try it, and the router in front of gVisor.
    let mut host_urls = internet.host_urls();
    host_urls.push(format!("http://{}:{port}/index.txt", dsh_sandboxd::gvisor_net::ROUTER));
    let refused = reach(&c, &open, &host_urls).await;
    assert_eq!(refused.len(), host_urls.len());
    assert!(refused.iter().all(|r| r != "200"), "{host_urls:?} -> {refused:?}");
    let direct = reqwest::get(format!("http://127.0.0.1:{port}/index.txt")).await.unwrap();
    assert_eq!(direct.text().await.unwrap(), "the internet");

    let closed = c
        .create(json!({"templateID": "base", "runtime": "gvisor", "allow_internet_access": false}))
        .await;
    assert_ne!(reach(&c, &closed, std::slice::from_ref(&web)).await, ["200"]);

    let listed = c
        .create(json!({"templateID": "base", "runtime": "gvisor", "network": {
            "denyOut": ["0.0.0.0/0"], "allowOut": ["allowed.test"]}}))
        .await;
    let (http, tls) = by_name(&c, &listed, &["allowed.test", "other.test"]).await;
    assert_eq!(
        http,
        [
            "allowed.test 200 the internet".to_owned(),
            format!(
                "other.test 403 dsh: egress to other.test ({INTERNET}:80) is refused by this sandbox's network rules; allowOut names the domains it may reach"
            ),
        ]
    );
    assert_eq!(tls[0], "allowed.test tls to allowed.test", "{tls:?}");
    assert_ne!(tls[1], "other.test tls to other.test", "{tls:?}");
    drop(h);
}

/// A snapshot of a running gVisor sandbox keeps its memory: sandboxes created from it
/// start with its processes running (a REPL's variable, a server's count), each on its
/// own; the sandbox snapshotted goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandboxes_from_a_gvisor_snapshot_start_with_its_processes_running() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();
    let origin = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let origin_id = origin["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&origin, RUN_STATEFUL).await;
    assert_eq!((out.as_str(), code), ("", 0));
    let (out, _) = c.run(&origin, &ask_repl("x = 7; print(\"x\", x)", 1)).await;
    assert_eq!(out, "x 7\n");
    assert_eq!(c.run(&origin, ASK_SERVER).await, ("1\n".to_owned(), 0));

    let reply = c
        .call(
            Method::POST,
            &format!("/sandboxes/{origin_id}/snapshots"),
            Some(json!({"name": "warm"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    assert_eq!(reply.body["snapshotID"], "warm:default");

    for n in 1..=2 {
        let made = c.create(json!({"templateID": "warm"})).await;
        let statement = format!("x = x * {}; print(\"x\", x)", n + 1);
        let (out, _) = c.run(&made, &ask_repl(&statement, 2)).await;
        assert_eq!(out, format!("x 7\nx {}\n", 7 * (n + 1)));
        assert_eq!(c.run(&made, ASK_SERVER).await, ("2\n".to_owned(), 0));
        let (out, code) = c.run(&made, "head -c 19 /proc/version").await;
        assert_eq!((out.as_str(), code), ("Linux version 4.4.0", 0), "it runs under gVisor");
    }
    // Asked for the native runtime, a sandbox from it boots from its files alone.
    let cold = c.create(json!({"templateID": "warm", "runtime": "native"})).await;
    let (out, code) =
        c.run(&cold, "cat /tmp/count.pid 2>&1 | head -c 40; test -e /home/user").await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("No such file"), "{out}");
    // The origin goes on.
    let (out, _) = c.run(&origin, &ask_repl("print(\"x\", x)", 2)).await;
    assert_eq!(out, "x 7\nx 7\n");
    assert_eq!(c.run(&origin, ASK_SERVER).await, ("2\n".to_owned(), 0));
    h.stop().await;
}

/// A volume mounted in a gVisor sandbox is the one native sandboxes share: what root and
/// `user` write there is stored in the volumes' block (never host root's), and a native
/// sandbox reads it with the same owners.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gvisor_sandbox_shares_volumes_with_native_ones() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();
    let reply =
        c.call(Method::POST, "/volumes", Some(json!({"name": "shared", "sizeMB": 64}))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    let mounts = json!([{"name": "shared", "path": "/mnt/shared"}]);
    let gvisor =
        c.create(json!({"templateID": "base", "runtime": "gvisor", "volumeMounts": mounts})).await;
    let (out, code) = c
        .run_as(
            &gvisor,
            "root",
            "echo from-root > /mnt/shared/root.txt && head -c 19 /proc/version",
        )
        .await;
    assert_eq!((out.as_str(), code), ("Linux version 4.4.0", 0));
    let (out, code) = c.run_as(&gvisor, "user", "echo from-user > /mnt/shared/user.txt").await;
    assert_eq!((out.as_str(), code), ("", 0));

    let native = c.create(json!({"templateID": "base", "volumeMounts": mounts})).await;
    let (out, code) = c
        .run(
            &native,
            "cd /mnt/shared && stat -c '%n %U' root.txt user.txt && cat root.txt user.txt",
        )
        .await;
    assert_eq!((out.as_str(), code), ("root.txt root\nuser.txt user\nfrom-root\nfrom-user\n", 0));
    // On the host: the volumes' block, not host root.
    let volumes = h.state().join("sandboxes/.volumes");
    let dir = std::fs::read_dir(&volumes)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("root.txt").exists())
        .unwrap();
    let base = IdRange::VOLUMES.host_base;
    assert_eq!(std::fs::metadata(dir.join("root.txt")).unwrap().uid(), base);
    assert_eq!(std::fs::metadata(dir.join("user.txt")).unwrap().uid(), base + 1000);
    for sandbox in [&gvisor, &native] {
        let id = sandbox["sandboxID"].as_str().unwrap();
        let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT);
    }
    h.stop().await;
}

/// A gVisor sandbox's limits are written by runsc to the cgroup a native sandbox would
/// have (memory, tasks, CPU), and the daemon samples it there: E2B's metrics see its
/// CPU and memory (gVisor's memory counts as its sentry's shared memory).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gvisor_sandbox_has_its_limits_in_its_cgroup_and_is_sampled() {
    use reqwest::Method;
    use serde_json::json;

    let mut h = super::harness::Harness::start_with(|config| {
        config.metrics_tick = Duration::from_millis(200);
    })
    .await;
    let c = h.client.clone();
    let sandbox = c
        .create(json!({"templateID": "base", "runtime": "gvisor", "cpuCount": 1, "memoryMB": 512}))
        .await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let cgroups = dsh_sandboxd::cgroup::Cgroups::probe("dsh-sandboxes").unwrap();
    let memory_dir = cgroups
        .paths()
        .into_iter()
        .find(|path| path.to_string_lossy().contains("/memory"))
        .map(|parent| parent.join(&id));
    if let Some(dir) = memory_dir {
        // cgroup v1, as on this project's machines.
        let limit = std::fs::read_to_string(dir.join("memory.limit_in_bytes")).unwrap();
        assert_eq!(limit.trim(), (512u64 << 20).to_string());
    }
    let (out, code) = c.run(&sandbox, "timeout 2 sh -c 'while :; do :; done'; echo $?").await;
    assert_eq!((out.as_str(), code), ("124\n", 0));
    let path = format!("/sandboxes/{id}/metrics");
    let mut samples = Vec::new();
    super::harness::wait_until(
        "a sample that saw the busy loop",
        Duration::from_secs(15),
        async || {
            samples = c.call(Method::GET, &path, None).await.body.as_array().unwrap().clone();
            samples.iter().any(|s| s["cpuUsedPct"].as_f64().unwrap_or(0.0) > 20.0)
        },
    )
    .await;
    let memory: Vec<u64> = samples.iter().filter_map(|s| s["memUsed"].as_u64()).collect();
    assert!(memory.iter().any(|bytes| *bytes > 10 << 20), "{samples:?}");
    assert!(samples.iter().all(|s| s["memTotal"] == json!(512u64 << 20)), "{samples:?}");
    h.stop().await;
}

/// A running gVisor sandbox does not outlive its daemon killed with SIGKILL (as a native
/// sandbox's init ends its sandbox when its lifeline closes): runsc's foreground process
/// gets SIGTERM at the daemon's death and ends the container.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_gvisor_sandbox_ends_with_its_killed_daemon() {
    use serde_json::json;

    let dir = tempfile::Builder::new().prefix("dsh-gvisor-lifeline-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _cleanup = super::harness::KillOnDrop(state.clone());
    let (daemon, c) = super::harness::spawn_daemon(&state).await;
    let mut daemon = DaemonChild(daemon, super::harness::daemon_log(&state));
    let sandbox = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    assert!(!processes_mentioning(&container_id(&id)).is_empty());
    daemon.0.kill().unwrap();
    daemon.0.wait().unwrap();
    super::harness::wait_until("runsc's processes to go", Duration::from_secs(10), async || {
        processes_mentioning(&container_id(&id)).is_empty()
    })
    .await;
}

/// A template says which runtime its sandboxes get (`runtime` in its build request, a dsh
/// extension), and its build, which runs natively, is what a gVisor sandbox of it sees:
/// both runtimes keep a sandbox's files in the same layout (the host's directories as
/// overlays over the sandbox's own layers). Built as root: a program in `/usr/local/bin`,
/// a user appended to `/etc/passwd`, a file in `/etc` and one at the root; as `user`: a file
/// in its home. A create without a runtime gets the template's (gVisor), one that names
/// `native` gets that; both see every file. An unknown runtime is refused at the build
/// request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_says_its_runtime_and_a_gvisor_sandbox_sees_what_its_native_build_installed() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();
    let refused = c
        .call(Method::POST, "/v3/templates", Some(json!({"name": "gv-tool", "runtime": "kata"})))
        .await;
    assert_eq!(
        (refused.status, refused.body),
        (
            StatusCode::BAD_REQUEST,
            json!({"code": 400, "message": "runtime: \"native\" or \"gvisor\", not \"kata\""})
        )
    );
    let reply = c
        .call(Method::POST, "/v3/templates", Some(json!({"name": "gv-tool", "runtime": "gvisor"})))
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    let template = reply.body["templateID"].as_str().unwrap().to_owned();
    let build = reply.body["buildID"].as_str().unwrap().to_owned();
    let steps = json!([
        {"type": "USER", "args": ["root"], "force": false},
        {"type": "RUN", "args": ["printf '#!/bin/sh\\necho tool ran as $(id -un)\\n' > /usr/local/bin/gv-tool \
            && chmod 755 /usr/local/bin/gv-tool && echo builder:x:1500:1500::/:/bin/sh >> /etc/passwd && echo built > /etc/gv-build.conf \
            && mkdir -p /srv/data && echo kept > /srv/data/f"], "force": false},
        {"type": "USER", "args": ["user"], "force": false},
        {"type": "RUN", "args": ["echo mine > /home/user/mine.txt"], "force": false},
    ]);
    let started = c
        .call(
            Method::POST,
            &format!("/v2/templates/{template}/builds/{build}"),
            Some(json!({"fromImage": "e2bdev/base", "force": false, "steps": steps})),
        )
        .await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.body);
    let (status, logs) = super::templates::wait_for_build(&c, &template, &build).await;
    assert_eq!(status["status"], "ready", "{logs:?}");
    let listed = c.call(Method::GET, "/templates", None).await;
    let listed: Vec<_> = listed.body.as_array().unwrap().iter().map(|t| &t["runtime"]).collect();
    assert_eq!(listed, [&json!("gvisor")]);

    let check = "head -c 19 /proc/version; echo; gv-tool; sudo gv-tool; \
                 cat /etc/gv-build.conf /srv/data/f /home/user/mine.txt; getent passwd builder | cut -d: -f1";
    let built = "tool ran as user\ntool ran as root\nbuilt\nkept\nmine\nbuilder\n";
    let mut ids = Vec::new();
    for (asked, runtime, kernel) in [
        (None, "gvisor", "Linux version 4.4.0"),
        (Some("native"), "native", &std::fs::read_to_string("/proc/version").unwrap()[..19]),
    ] {
        let mut body = json!({"templateID": "gv-tool"});
        if let Some(asked) = asked {
            body["runtime"] = json!(asked);
        }
        let sandbox = c.create(body).await;
        let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
        let described = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(described.body["runtime"], json!(runtime));
        let (out, code) = c.run(&sandbox, check).await;
        assert_eq!((out.as_str(), code), (format!("{kernel}\n{built}").as_str(), 0), "{runtime}");
        ids.push(id);
    }
    for id in ids {
        let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT);
    }
    h.stop().await;
}
