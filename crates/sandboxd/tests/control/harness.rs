//! A daemon on a free port over a temporary state directory, and an HTTP client that
//! speaks to its REST API and (through its proxy) to the envd of a sandbox.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_sandboxd::{Daemon, DaemonConfig};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tempfile::TempDir;

pub fn init_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dsh-sandbox-init"))
}

pub fn daemon_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dsh-sandboxd"))
}

/// dsh-envd: `$DSH_ENVD_BIN`, else next to this package's binaries.
pub fn envd_binary() -> PathBuf {
    let path = std::env::var_os("DSH_ENVD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| init_binary().parent().unwrap().join("dsh-envd"));
    assert!(path.is_file(), "{} missing: run `cargo build -p dsh-envd` first", path.display());
    path
}

pub fn config(state: &Path) -> DaemonConfig {
    let mut config = DaemonConfig::new(state);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.init_binary = Some(init_binary());
    config.envd_binary = Some(envd_binary());
    config.reaper_tick = Duration::from_millis(100);
    config.disk_image_mb = Some(DISK_IMAGE_MB);
    // No sandbox started ahead unless a test asks (`pool.rs` tests the default, auto).
    config.pool = dsh_sandboxd::server::PoolSize::Fixed(0);
    config
}

/// The size of each test daemon's disk image (sparse: it takes what is written).
pub const DISK_IMAGE_MB: u64 = 4096;

/// Runs `inspect` on the sandboxes' directory of a stopped daemon: its disk image,
/// mounted read-only for the call (a daemon unmounts it at shutdown).
pub fn inspect_stopped<T>(state: &Path, inspect: impl FnOnce(&Path) -> T) -> T {
    let mountpoint = tempfile::Builder::new().prefix("dsh-inspect-").tempdir().unwrap();
    let status = std::process::Command::new("mount")
        .args(["-o", "loop,ro"])
        .arg(state.join(dsh_sandboxd::server::disk::IMAGE_FILE))
        .arg(mountpoint.path())
        .status()
        .unwrap();
    assert!(status.success(), "mounting the disk image of {}", state.display());
    let _unmount = scopeguard(|| {
        let _ = std::process::Command::new("umount").arg(mountpoint.path()).status();
    });
    inspect(mountpoint.path())
}

pub struct Harness {
    pub dir: TempDir,
    pub daemon: Option<Daemon>,
    pub client: Client,
}

impl Harness {
    pub async fn start() -> Harness {
        Harness::start_with(|_| {}).await
    }

    /// [`Harness::start`] with `change` applied to the daemon's configuration.
    pub async fn start_with(change: impl FnOnce(&mut DaemonConfig)) -> Harness {
        let dir = tempfile::Builder::new().prefix("dsh-sandboxd-control-").tempdir().unwrap();
        let mut config = config(&dir.path().join("state"));
        change(&mut config);
        let daemon = Daemon::start(config).await.unwrap();
        let client = Client::new(&daemon.url(), daemon.api_key());
        Harness { dir, daemon: Some(daemon), client }
    }

    pub fn state(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path().join("state")).unwrap()
    }

    pub fn daemon(&self) -> &Daemon {
        self.daemon.as_ref().unwrap()
    }

    pub async fn restart(&mut self) {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await.unwrap();
        }
        let daemon = Daemon::start(config(&self.dir.path().join("state"))).await.unwrap();
        self.client = Client::new(&daemon.url(), daemon.api_key());
        self.daemon = Some(daemon);
    }

    pub async fn stop(&mut self) {
        if let Some(daemon) = self.daemon.take() {
            daemon.shutdown().await.unwrap();
        }
    }

    /// Pid of the sandbox's init on the host (from its pid file).
    pub fn init_pid(&self, id: &str) -> u32 {
        init_pid(&self.state(), id)
    }

    pub fn assert_no_leftovers(&self, id: &str, init_pid: u32) {
        assert_no_leftovers(&self.state(), id, init_pid);
    }
}

/// A test that ends (or fails) with sandboxes still running must not leak them: the
/// daemon itself leaves sandboxes running when it is dropped without `shutdown`.
impl Drop for Harness {
    fn drop(&mut self) {
        // The daemon first: its drop stops the networks it makes ahead.
        drop(self.daemon.take());
        kill_all_sandboxes(&self.dir.path().join("state"));
    }
}

/// Kills every sandbox under a state directory when dropped (for tests without a Harness).
pub struct KillOnDrop(pub PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        kill_all_sandboxes(&self.0);
    }
}

/// SIGKILLs every sandbox init recorded under `state` and waits for it to go; then
/// removes what a dropped (not shut down) daemon leaves as a crashed one would: pinned
/// network namespaces with their pasta, cgroups, and the mounted disk image.
pub fn kill_all_sandboxes(state: &Path) {
    dsh_sandboxd::server::clean_up_gvisor(state);
    let Ok(entries) = std::fs::read_dir(state.join("sandboxes")) else { return };
    let entries: Vec<_> = entries.flatten().collect();
    let cgroups = dsh_sandboxd::cgroup::Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).ok();
    let clean_up = || {
        dsh_sandboxd::server::layers::clean_up(state);
        for entry in &entries {
            let Some(id) = entry.file_name().to_str().map(str::to_owned) else { continue };
            dsh_sandboxd::server::network::clean_up(&state.join("netns"), &id);
            if let Some(cgroups) = &cgroups {
                let _ = cgroups.open(&id).remove();
            }
        }
        dsh_sandboxd::server::spare_netns::clean_up(&state.join("netns"));
        dsh_sandboxd::server::disk::clean_up(state);
    };
    let _cleaned = scopeguard(clean_up);
    for entry in &entries {
        let state = dsh_sandboxd::state::StateDir::new(entry.path());
        let Ok(Some(pid)) = state.live_init() else { continue };
        // SAFETY: plain kill(2) of the init just checked by pid and start time.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(state.live_init(), Ok(Some(_))) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Runs `f` when dropped.
pub fn scopeguard<F: FnMut()>(f: F) -> impl Drop {
    struct Guard<F: FnMut()>(F);
    impl<F: FnMut()> Drop for Guard<F> {
        fn drop(&mut self) {
            (self.0)();
        }
    }
    Guard(f)
}

pub fn init_pid(state: &Path, id: &str) -> u32 {
    let text = std::fs::read_to_string(state.join("sandboxes").join(id).join("init.pid")).unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

/// No process, no mount, no directory, no record, no cgroup left of sandbox `id`. A kill
/// is answered once its processes have SIGKILL pending and its record is gone; they are
/// reaped, and its cgroup and files removed, right after
/// (`lifecycle::kill_then_tear_down`), so those are given a few seconds.
pub fn assert_no_leftovers(state: &Path, id: &str, init_pid: u32) {
    assert!(!state.join("sandboxes").join(format!("{id}.json")).exists());
    let dir = state.join("sandboxes").join(id);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while (dir.exists() || Path::new(&format!("/proc/{init_pid}")).exists())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let cgroups =
        dsh_sandboxd::cgroup::Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).unwrap();
    let cgroup_dirs = cgroups.open(id).paths();
    assert!(!cgroup_dirs.is_empty());
    for dir in cgroup_dirs {
        assert!(!dir.exists(), "cgroup {} still exists", dir.display());
    }
    assert!(!Path::new(&format!("/proc/{init_pid}")).exists(), "init {init_pid} still exists");
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let leaked: Vec<&str> =
        mountinfo.lines().filter(|l| l.contains(dir.to_str().unwrap())).collect();
    assert!(leaked.is_empty(), "{leaked:?}");
    assert!(!dir.exists(), "{} still exists", dir.display());
    assert!(!state.join("sandboxes").join(format!("{id}.json")).exists());
    // No process anywhere still runs under that directory's sandbox id.
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        assert!(!cmdline.contains(id), "process {:?} still runs: {cmdline}", entry.file_name());
    }
}

/// Starts the `dsh-sandboxd` binary on a free port over `state`, with `envd` as its envd
/// and `extra` arguments; returns it with a client once it answers `/health`.
pub async fn spawn_daemon_with(
    state: &Path,
    envd: &Path,
    extra: &[&str],
) -> (std::process::Child, Client) {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let child = std::process::Command::new(daemon_binary())
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--state-dir"])
        .arg(state)
        .arg("--envd")
        .arg(envd)
        .arg("--init")
        .arg(init_binary())
        // As `config`: no pool unless the test's arguments ask for one (later wins).
        .args(["--pool", "0"])
        .args(extra)
        .stdout(std::process::Stdio::null())
        // Beside the state directory, for a test that fails to show (see `daemon_log`).
        .stderr(
            std::fs::OpenOptions::new().create(true).append(true).open(daemon_log(state)).unwrap(),
        )
        .spawn()
        .unwrap();
    let key_file = state.join("api-key");
    let base = format!("http://127.0.0.1:{port}");
    wait_until("the daemon to listen", Duration::from_secs(10), async || {
        key_file.exists() && reqwest::get(format!("{base}/health")).await.is_ok()
    })
    .await;
    let client = Client::new(&base, std::fs::read_to_string(&key_file).unwrap().trim());
    (child, client)
}

/// Where a daemon [`spawn_daemon_with`] started over `state` writes its log.
pub fn daemon_log(state: &Path) -> PathBuf {
    state.with_extension("log")
}

/// [`spawn_daemon_with`] the real envd and no extra arguments.
pub async fn spawn_daemon(state: &Path) -> (std::process::Child, Client) {
    spawn_daemon_with(state, &envd_binary(), &[]).await
}

/// Waits (at most 10 s) until the teardowns of killed sandboxes under `state` are done:
/// a kill is answered before its sandbox's directory is removed
/// (`lifecycle::kill_then_tear_down`), so no directory without a record is left.
pub async fn killed_sandboxes_removed(state: &Path) {
    let sandboxes = state.join("sandboxes");
    wait_until("the killed sandboxes' directories to go", Duration::from_secs(10), async || {
        std::fs::read_dir(&sandboxes).unwrap().flatten().all(|entry| {
            let name = entry.file_name().into_string().unwrap();
            name.starts_with('.')
                || name.ends_with(".json")
                || sandboxes.join(format!("{name}.json")).exists()
        })
    })
    .await;
}

pub async fn wait_until(what: &str, timeout: Duration, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The longest any request of a test may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Clone)]
pub struct Client {
    pub base: String,
    pub api_key: String,
    pub http: reqwest::Client,
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

/// An answer as the daemon sent it: the body is kept as text, not parsed, for tests
/// that pin bodies byte for byte (`responses.rs`).
pub struct RawReply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl RawReply {
    pub async fn read(response: reqwest::Response) -> RawReply {
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.text().await.unwrap();
        RawReply { status, headers, body }
    }

    pub fn content_type(&self) -> Option<&str> {
        self.headers.get(reqwest::header::CONTENT_TYPE).map(|v| v.to_str().unwrap())
    }

    /// The body parsed, to pick ids out of it (never to compare it: see `golden.rs`).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", self.status, self.body))
    }
}

impl Client {
    /// Every request (its answer read to the end included) is bounded: a hang fails
    /// the test instead of holding it.
    pub fn new(base: &str, api_key: &str) -> Client {
        let http = reqwest::Client::builder().timeout(REQUEST_TIMEOUT).build().unwrap();
        Client { base: base.to_owned(), api_key: api_key.to_owned(), http }
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        self.try_call(method, path, body).await.unwrap()
    }

    pub async fn call_with_key(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> Reply {
        self.try_call_with_key(method, path, body, key).await.unwrap()
    }

    /// Like [`Client::call`], with a transport failure (no answer) as the error.
    pub async fn try_call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Reply, reqwest::Error> {
        self.try_call_with_key(method, path, body, Some(&self.api_key)).await
    }

    async fn try_call_with_key(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> Result<Reply, reqwest::Error> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(key) = key {
            request = request.header("X-API-Key", key);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await?;
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                panic!("{status}: not JSON ({e}): {}", String::from_utf8_lossy(&bytes))
            })
        };
        Ok(Reply { status, headers, body })
    }

    /// A request to the daemon carrying the API key, for the caller to finish.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, format!("{}{path}", self.base)).header("X-API-Key", &self.api_key)
    }

    /// Like [`Client::call`], the answer's body kept as sent.
    pub async fn call_raw(&self, method: Method, path: &str, body: Option<Value>) -> RawReply {
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(&body);
        }
        RawReply::read(request.send().await.unwrap()).await
    }

    pub async fn create(&self, body: Value) -> Value {
        let reply = self.call(Method::POST, "/v2/sandboxes", Some(body)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        reply.body
    }

    pub fn envd(&self, sandbox: &Value, method: Method, path: &str) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("E2b-Sandbox-Id", sandbox["sandboxID"].as_str().unwrap())
            .header("E2b-Sandbox-Port", "49983");
        if let Some(token) = sandbox["envdAccessToken"].as_str() {
            request = request.header("X-Access-Token", token);
        }
        request
    }

    /// Writes a file in the sandbox through envd's `POST /files`.
    pub async fn write_file(&self, sandbox: &Value, path: &str, content: &str) {
        let response = self
            .envd(sandbox, Method::POST, &format!("/files?path={path}"))
            .header("Content-Type", "application/octet-stream")
            .body(content.to_owned())
            .send()
            .await
            .unwrap();
        let status = response.status();
        assert_eq!(status, StatusCode::OK, "{}", response.text().await.unwrap());
    }

    /// Reads a file through envd's `GET /files`: (status, body).
    pub async fn read_file(&self, sandbox: &Value, path: &str) -> (StatusCode, String) {
        let response =
            self.envd(sandbox, Method::GET, &format!("/files?path={path}")).send().await.unwrap();
        (response.status(), response.text().await.unwrap())
    }

    /// Runs `sh -c script` through `process.Process/Start` (Connect, JSON codec) and
    /// returns (stdout, exit code).
    pub async fn run(&self, sandbox: &Value, script: &str) -> (String, i64) {
        let (stdout, end) = self.run_to_end(sandbox, script).await;
        (stdout, end["exitCode"].as_i64().unwrap_or(0))
    }

    /// Like [`Client::run`], with the whole end event.
    pub async fn run_to_end(&self, sandbox: &Value, script: &str) -> (String, Value) {
        let (stdout, _, end) = self.run_all(sandbox, script).await;
        (stdout, end)
    }

    /// Like [`Client::run`]: (stdout, stderr, exit code).
    pub async fn run_output(&self, sandbox: &Value, script: &str) -> (String, String, i64) {
        let (stdout, stderr, end) = self.run_all(sandbox, script).await;
        (stdout, stderr, end["exitCode"].as_i64().unwrap_or(0))
    }

    /// Runs `sh -c script` to its end: (stdout, stderr, end event).
    pub async fn run_all(&self, sandbox: &Value, script: &str) -> (String, String, Value) {
        self.run_all_as(sandbox, None, script).await
    }

    /// [`Client::run`] as `user` (envd's Basic header): (stdout, exit code).
    pub async fn run_as(&self, sandbox: &Value, user: &str, script: &str) -> (String, i64) {
        let (stdout, _, end) = self.run_all_as(sandbox, Some(user), script).await;
        (stdout, end["exitCode"].as_i64().unwrap_or(0))
    }

    /// Runs `sh -c script` to its end as `user` (default: the sandbox's default user).
    pub async fn run_all_as(
        &self,
        sandbox: &Value,
        user: Option<&str>,
        script: &str,
    ) -> (String, String, Value) {
        use base64::Engine as _;
        let message = serde_json::json!({
            "process": {"cmd": "/bin/sh", "args": ["-c", script]}
        });
        let payload = serde_json::to_vec(&message).unwrap();
        let mut frame = vec![0u8];
        frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
        frame.extend_from_slice(&payload);
        let mut request = self.envd(sandbox, Method::POST, "/process.Process/Start");
        if let Some(user) = user {
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:"));
            request = request.header("Authorization", format!("Basic {basic}"));
        }
        let response = request
            .header("Content-Type", "application/connect+json")
            .header("Connect-Protocol-Version", "1")
            .body(frame)
            .send()
            .await
            .unwrap();
        let status = response.status();
        if status != StatusCode::OK {
            panic!("process.Process/Start: {status}: {}", response.text().await.unwrap());
        }
        let bytes = response.bytes().await.unwrap();
        let (mut stdout, mut stderr, mut code, mut rest) =
            (Vec::new(), Vec::new(), None, &bytes[..]);
        while rest.len() >= 5 {
            let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
            let flags = rest[0];
            let message: Value = serde_json::from_slice(&rest[5..5 + len]).unwrap();
            rest = &rest[5 + len..];
            if flags & 2 != 0 {
                assert!(message.get("error").is_none(), "{message}");
                continue;
            }
            let event = &message["event"];
            let engine = &base64::engine::general_purpose::STANDARD;
            if let Some(data) = event["data"]["stdout"].as_str() {
                stdout.extend(engine.decode(data).unwrap());
            }
            if let Some(data) = event["data"]["stderr"].as_str() {
                stderr.extend(engine.decode(data).unwrap());
            }
            if let Some(end) = event.get("end") {
                code = Some(end.clone());
            }
        }
        let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
        (text(stdout), text(stderr), code.expect("no end event"))
    }
}

/// `(sandboxID, state)` of each sandbox in a `GET /v2/sandboxes` body, sorted.
pub fn states(listed: &Value) -> Vec<(String, String)> {
    let mut states: Vec<(String, String)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (s["sandboxID"].as_str().unwrap().to_owned(), s["state"].as_str().unwrap().to_owned())
        })
        .collect();
    states.sort();
    states
}
