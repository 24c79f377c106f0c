//! Through the real control plane (a daemon on loopback running dsh-envd in each
//! sandbox): the daemon's API key and state directory and another sandbox's envd access
//! token are out of reach from inside, and what a sandbox leaves in its files cannot
//! turn the daemon (host root) against the host when it starts the sandbox again.
//!
//! The small parts of `tests/control/harness.rs` needed here are copied, not shared.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_sandboxd::cgroup::Cgroups;
use dsh_sandboxd::{Daemon, DaemonConfig};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tempfile::TempDir;

use super::probe::{HostPath, hex, hex_paths};

pub(super) fn envd_binary() -> PathBuf {
    let init = crate::common::init_binary();
    let path = std::env::var_os("DSH_ENVD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| init.parent().unwrap().join("dsh-envd"));
    assert!(path.is_file(), "{} missing: run `cargo build -p dsh-envd` first", path.display());
    path
}

/// A daemon on a free loopback port over a temporary state directory; every sandbox
/// under it is killed on drop, whatever happened.
pub(super) struct Harness {
    pub(super) dir: TempDir,
    daemon: Option<Daemon>,
    pub(super) http: reqwest::Client,
}

impl Harness {
    pub(super) async fn start(envd_start_timeout: Duration) -> Harness {
        Harness::start_with(envd_start_timeout, dsh_sandboxd::Net::Private).await
    }

    async fn start_with(envd_start_timeout: Duration, net: dsh_sandboxd::Net) -> Harness {
        Harness::try_start_with(envd_start_timeout, net).await.unwrap()
    }

    async fn try_start_with(
        envd_start_timeout: Duration,
        net: dsh_sandboxd::Net,
    ) -> anyhow::Result<Harness> {
        let dir = tempfile::Builder::new().prefix("dsh-escape-daemon-").tempdir().unwrap();
        let mut config = DaemonConfig::new(dir.path().join("state"));
        config.net = net;
        config.listen = "127.0.0.1:0".parse().unwrap();
        config.init_binary = Some(crate::common::init_binary());
        config.envd_binary = Some(envd_binary());
        config.reaper_tick = Duration::from_millis(100);
        config.envd_start_timeout = envd_start_timeout;
        config.pool = dsh_sandboxd::server::PoolSize::Fixed(0);
        let daemon = Daemon::start(config).await?;
        Ok(Harness { dir, daemon: Some(daemon), http: reqwest::Client::new() })
    }

    pub(super) fn daemon(&self) -> &Daemon {
        self.daemon.as_ref().unwrap()
    }

    pub(super) async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.daemon().url()))
            .header("X-API-Key", self.daemon().api_key());
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let bytes = response.bytes().await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn create(&self) -> Value {
        self.create_with(json!({"templateID": "base", "timeout": 60})).await
    }

    /// A sandbox created with `body` (`runtime: "gvisor"` for one under gVisor).
    pub(super) async fn create_with(&self, body: Value) -> Value {
        let (status, body) = self.call(Method::POST, "/v2/sandboxes", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    /// Runs `sh -c script` as `user` (`root` or the default `user`) through envd's
    /// `process.Process/Start`; returns (stdout, exit code).
    pub(super) async fn run(&self, sandbox: &Value, user: &str, script: &str) -> (String, i64) {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::STANDARD;
        let message = json!({"process": {"cmd": "/bin/sh", "args": ["-c", script]}});
        let payload = serde_json::to_vec(&message).unwrap();
        let mut frame = vec![0u8];
        frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
        frame.extend_from_slice(&payload);
        let response = self
            .http
            .post(format!("{}/process.Process/Start", self.daemon().url()))
            .header("E2b-Sandbox-Id", sandbox["sandboxID"].as_str().unwrap())
            .header("E2b-Sandbox-Port", "49983")
            .header("X-Access-Token", sandbox["envdAccessToken"].as_str().unwrap())
            .header("Authorization", format!("Basic {}", engine.encode(format!("{user}:"))))
            .header("Content-Type", "application/connect+json")
            .header("Connect-Protocol-Version", "1")
            .body(frame)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let bytes = response.bytes().await.unwrap();
        let (mut stdout, mut code, mut rest) = (Vec::new(), None, &bytes[..]);
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
            for stream in ["stdout", "stderr"] {
                if let Some(data) = event["data"][stream].as_str() {
                    stdout.extend(engine.decode(data).unwrap());
                }
            }
            if let Some(end) = event.get("end") {
                code = Some(end["exitCode"].as_i64().unwrap_or(0));
            }
        }
        (String::from_utf8(stdout).unwrap(), code.expect("no end event"))
    }
}

impl Drop for Harness {
    /// Kills every sandbox's init and removes its cgroup, and detaches the layer view and
    /// the disk image: a daemon dropped without `shutdown` leaves all four behind.
    fn drop(&mut self) {
        drop(self.daemon.take());
        // gVisor sandboxes: runsc's containers (their roots' views unmounted) and their
        // networks, which outlive a dropped daemon as a native sandbox's init does.
        let state = self.dir.path().join("state");
        dsh_sandboxd::server::clean_up_gvisor(&state);
        for entry in std::fs::read_dir(state.join("sandboxes")).into_iter().flatten().flatten() {
            if let Some(id) = entry.file_name().to_str().filter(|_| entry.path().is_dir()) {
                dsh_sandboxd::server::network::clean_up(&state.join("netns"), id);
            }
        }
        dsh_sandboxd::server::layers::clean_up(&self.dir.path().join("state"));
        dsh_sandboxd::server::spare_netns::clean_up(&self.dir.path().join("state/netns"));
        let cgroups = Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).ok();
        let Ok(entries) = std::fs::read_dir(self.dir.path().join("state/sandboxes")) else {
            return;
        };
        for entry in entries.flatten().filter(|entry| entry.path().is_dir()) {
            let state = dsh_sandboxd::state::StateDir::new(entry.path());
            if let Ok(Some(pid)) = state.live_init() {
                // SAFETY: plain kill(2) of the init just checked by pid and start time.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                let deadline = Instant::now() + Duration::from_secs(5);
                while matches!(state.live_init(), Ok(Some(_))) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            if let (Some(cgroups), Some(id)) = (&cgroups, entry.file_name().to_str()) {
                let cgroup = cgroups.open(id);
                let _ = cgroup.kill_all();
                let _ = cgroup.remove();
            }
        }
        dsh_sandboxd::server::disk::clean_up(&self.dir.path().join("state"));
    }
}

/// A Python program, run inside through envd: which secrets show in any readable
/// `/proc/*/environ` or `/proc/*/cmdline`, in the command's own environment, and which
/// daemon paths exist. The secrets are passed hex-encoded, so that the command line
/// holding the program does not itself contain them.
fn secrets_probe(secrets: &[(&str, &str)], paths: &[(&str, &Path)]) -> String {
    let needles: Vec<(String, String)> =
        secrets.iter().map(|(label, secret)| (label.to_string(), hex(secret.as_bytes()))).collect();
    let paths = hex_paths(paths);
    let program = format!(
        r#"
import glob, os
NEEDLES = [(label, bytes.fromhex(h).decode()) for label, h in {needles:?}]
PATHS = [(label, bytes.fromhex(h).decode()) for label, h in {paths:?}]
def leaks(text):
    return ",".join(label for label, needle in NEEDLES if needle in text) or "none"
def read_all(pattern):
    texts, unreadable = [], 0
    for path in sorted(glob.glob(pattern)):
        try:
            with open(path, "rb") as f:
                texts.append(f.read().decode(errors="replace"))
        except OSError:
            unreadable += 1
    return "\n".join(texts), unreadable
environ, unreadable = read_all("/proc/[0-9]*/environ")
print(f"environ leaks={{leaks(environ)}}")
cmdline, _ = read_all("/proc/[0-9]*/cmdline")
print(f"cmdline leaks={{leaks(cmdline)}}")
print(f"own environment leaks={{leaks(repr(dict(os.environ)))}}")
print(f"DSH_ENVD_ACCESS_TOKEN set={{'DSH_ENVD_ACCESS_TOKEN' in os.environ}}")
envd = [p for p in glob.glob("/proc/[0-9]*/cmdline") if b"--sandbox-id" in open(p, "rb").read()]
envd_environ = envd[0].replace("cmdline", "environ") if envd else "/proc/none/environ"
try:
    open(envd_environ, "rb").close()
    print("envd environ=readable")
except OSError as e:
    print(f"envd environ={{e.strerror}}")
for label, path in PATHS:
    print(f"exists({{label}})={{os.path.exists(path)}}")
"#
    );
    format!("python3 -c '{}'", program.replace('\'', "'\\''"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_and_another_sandboxs_token_are_out_of_reach() {
    let h = Harness::start(Duration::from_secs(10)).await;
    let a = h.create().await;
    let b = h.create().await;
    let token_a = a["envdAccessToken"].as_str().unwrap().to_owned();
    let token_b = b["envdAccessToken"].as_str().unwrap().to_owned();
    let api_key = h.daemon().api_key().to_owned();
    let state = h.daemon().state_dir().to_owned();
    let api_key_file = state.join(dsh_sandboxd::server::API_KEY_FILE);
    assert!(api_key_file.is_file());
    let b_dir = state.join("sandboxes").join(b["sandboxID"].as_str().unwrap());
    assert!(b_dir.is_dir());
    let envd = envd_binary();
    let probe = secrets_probe(
        &[("API key", &api_key), ("A's token", &token_a), ("B's token", &token_b)],
        &[
            ("daemon state dir", &state),
            ("API key file", &api_key_file),
            ("B's directory", &b_dir),
            ("envd binary", &envd),
        ],
    );
    let paths = "exists(daemon state dir)=False\nexists(API key file)=False\n\
                 exists(B's directory)=False\nexists(envd binary)=False\n";

    // The default user: only its own processes' environments are readable, and envd
    // (root inside) keeps its token from it.
    let (out, code) = h.run(&a, "user", &probe).await;
    assert_eq!(
        (out.as_str(), code),
        (
            format!(
                "environ leaks=none\ncmdline leaks=none\nown environment leaks=none\n\
                 DSH_ENVD_ACCESS_TOKEN set=False\nenvd environ=Permission denied\n{paths}"
            )
            .as_str(),
            0
        )
    );
    // Root of A reads every environment in A, envd's included, which holds A's own
    // token (`DSH_ENVD_ACCESS_TOKEN`, how the daemon hands it over): A's root already
    // commands A, so that is no escape. B's token and the API key are nowhere.
    let (out, code) = h.run(&a, "root", &probe).await;
    assert_eq!(
        (out.as_str(), code),
        (
            format!(
                "environ leaks=A's token\ncmdline leaks=none\nown environment leaks=none\n\
                 DSH_ENVD_ACCESS_TOKEN set=False\nenvd environ=readable\n{paths}"
            )
            .as_str(),
            0
        )
    );
    // Knowing its own token gets A nothing of B: B's envd refuses it.
    let response = h
        .http
        .get(format!("{}/envs", h.daemon().url()))
        .header("E2b-Sandbox-Id", b["sandboxID"].as_str().unwrap())
        .header("X-Access-Token", &token_a)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);

    // The daemon gave A and B distinct uid blocks: their envds run as different,
    // unprivileged host uids.
    let envd_uid = |sandbox: &Value| {
        let dir = state.join("sandboxes").join(sandbox["sandboxID"].as_str().unwrap());
        let init = std::fs::read_to_string(dir.join("init.pid")).unwrap();
        let init = init.split_whitespace().next().unwrap().to_owned();
        let children =
            std::fs::read_to_string(format!("/proc/{init}/task/{init}/children")).unwrap();
        let envd = children.split_whitespace().next().unwrap().to_owned();
        let status = std::fs::read_to_string(format!("/proc/{envd}/status")).unwrap();
        let uid = status.lines().find_map(|line| line.strip_prefix("Uid:")).unwrap();
        uid.split_whitespace().next().unwrap().parse::<u32>().unwrap()
    };
    let (uid_a, uid_b) = (envd_uid(&a), envd_uid(&b));
    let (first_block, _) = dsh_sandboxd::IdRange::blocks_of_this_process();
    assert!(uid_a >= first_block, "{uid_a}");
    assert!(uid_b >= first_block, "{uid_b}");
    assert!(
        uid_a.abs_diff(uid_b) >= dsh_sandboxd::IdRange::SIZE,
        "{uid_a} and {uid_b} share a block"
    );
}

/// When the daemon starts a sandbox again (resume, or after a restart), it creates and
/// chowns `<state>/var/lib/dsh-sandboxd` to the sandbox's root; that path is
/// `/var/lib/dsh-sandboxd` inside, the sandbox's to replace. It once followed symlinks
/// there (found by this suite: `ln -s /etc /var/lib/dsh-sandboxd` inside, pause, resume,
/// and the host's /etc belonged to the sandbox's root); now each component is opened
/// `O_NOFOLLOW` and a planted link is replaced.
///
/// The probe points the symlink at a directory this test owns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_left_in_var_does_not_make_the_daemon_chown_a_host_path() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // The address file in /var exists only on the host's network (where envd picks a
    // free port and says which); that is where the daemon touches the sandbox's /var.
    if dsh_sandboxd::rootless::blocks_inside().is_some() {
        // An ordinary user's daemon gives no sandbox the host's network: the path this
        // attack takes does not exist there.
        let refused = Harness::try_start_with(Duration::from_secs(3), dsh_sandboxd::Net::Host)
            .await
            .err()
            .expect("a rootless daemon with the host's network");
        assert_eq!(
            refused.to_string(),
            "sandboxes sharing the host's network need a daemon run as root (sysfs is mounted only for a network namespace the user's owns): use [sandboxd] net = \"private\" or \"none\""
        );
        return;
    }
    let h = Harness::start_with(Duration::from_secs(3), dsh_sandboxd::Net::Host).await;
    let target = HostPath::dir(h.dir.path().join("host-dir"));
    std::fs::set_permissions(target.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let owner = |path: &Path| {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.uid(), meta.gid(), meta.mode() & 0o7777)
    };
    let before = owner(target.path());
    let a = h.create().await;
    let id = a["sandboxID"].as_str().unwrap().to_owned();
    let plant = format!(
        "rm -rf /var/lib/dsh-sandboxd && ln -s {} /var/lib/dsh-sandboxd && echo planted",
        target.path().display()
    );
    assert_eq!(h.run(&a, "root", &plant).await, ("planted\n".to_owned(), 0));
    let (status, body) = h.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) =
        h.call(Method::POST, &format!("/sandboxes/{id}/resume"), Some(json!({}))).await;
    eprintln!("resume: {status} {body}");
    let after = owner(target.path());
    assert_eq!(
        after, before,
        "resuming the sandbox chowned the host directory its /var/lib/dsh-sandboxd points to \
         (uid, gid, mode)"
    );
}

/// The root is the sandbox's own persistent layer, and the daemon mounts into it at every
/// start (`/.dsh/bin`, the layer view, volumes). Root inside moves `/.dsh` away (a
/// directory holding a mount point can be renamed) and plants `/.dsh` as a symlink to a
/// host directory, then reboots the sandbox: had the plan's `mkdir`/`chmod`/`chown` of
/// `/.dsh/bin` followed it, host root would give that directory to the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_planted_in_the_persistent_root_does_not_redirect_the_next_start() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let h = Harness::start(Duration::from_secs(3)).await;
    let target = HostPath::dir(h.dir.path().join("host-dir"));
    std::fs::create_dir(target.path().join("bin")).unwrap();
    std::fs::set_permissions(target.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let owner = |path: &Path| {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.uid(), meta.gid(), meta.mode() & 0o7777)
    };
    let before = (owner(target.path()), owner(&target.path().join("bin")));
    let a = h.create().await;
    let id = a["sandboxID"].as_str().unwrap().to_owned();
    let plant = format!(
        "mv /.dsh /.dsh-moved && ln -s {} /.dsh && ls -ld /.dsh | cut -c1 && echo planted",
        target.path().display()
    );
    assert_eq!(h.run(&a, "root", &plant).await, ("l\nplanted\n".to_owned(), 0));
    let pause = format!("/sandboxes/{id}/pause");
    let (status, body) = h.call(Method::POST, &pause, Some(json!({"memory": false}))).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) =
        h.call(Method::POST, &format!("/sandboxes/{id}/resume"), Some(json!({}))).await;
    assert_eq!(status, StatusCode::CREATED, "the sandbox did not come back: {body}");
    assert_eq!(
        (owner(target.path()), owner(&target.path().join("bin"))),
        before,
        "starting the sandbox changed the host directory its /.dsh pointed to (uid, gid, mode)"
    );
    // Inside, /.dsh is a directory again, with envd's program mounted in it.
    let (out, code) = h.run(&a, "user", "ls -ld /.dsh | cut -c1; ls /.dsh/bin").await;
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("d\n"), "{out}");
}

/// envd's stdout and stderr go to `<state>/sandboxes/<id>/envd.log` on the host. Handed
/// in as that file, root inside read the daemon's state directory (where the API key
/// lives) from envd's `/proc/<pid>/fd` links (found by this suite); now they are pipes
/// that the launcher copies into the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envds_descriptors_do_not_reveal_the_daemon_state_directory() {
    let h = Harness::start(Duration::from_secs(10)).await;
    let a = h.create().await;
    let state = h.daemon().state_dir().display().to_string();
    let program = format!(
        r#"
import glob, os
state = bytes.fromhex({state:?}).decode()
links = []
for link in glob.glob("/proc/[0-9]*/fd/*"):
    try:
        links.append(os.readlink(link))
    except OSError:
        pass
print("fd links with the daemon state dir:", sum(state in link for link in links))
"#,
        state = hex(state.as_bytes())
    );
    let script = format!("python3 -c '{}'", program.replace('\'', "'\\''"));
    for user in ["root", "user"] {
        let (out, code) = h.run(&a, user, &script).await;
        assert_eq!(
            (out.as_str(), code),
            ("fd links with the daemon state dir: 0\n", 0),
            "as {user}"
        );
    }
}

/// `sudo` (envd's privilege service, `/usr/local/bin/sudo`) makes `user` the sandbox's
/// root, passwordless, as in E2B. That root is what root inside always was: an
/// unprivileged block of host ids with `no_new_privs` and the seccomp filters, and the
/// daemon's state, its API key and another sandbox's token stay out of reach. sudo adds
/// no host privilege.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudo_gives_user_the_sandboxs_root_and_nothing_of_the_hosts() {
    let h = Harness::start(Duration::from_secs(10)).await;
    let a = h.create().await;
    let b = h.create().await;
    let state = h.daemon().state_dir().to_owned();
    let record: Value = serde_json::from_slice(
        &std::fs::read(
            state.join("sandboxes").join(format!("{}.json", a["sandboxID"].as_str().unwrap())),
        )
        .unwrap(),
    )
    .unwrap();
    let base = record["isolation"]["ids"]["hostBase"].as_u64().unwrap();
    let (first_block, _) = dsh_sandboxd::IdRange::blocks_of_this_process();
    assert!(base >= u64::from(first_block), "{base}");

    // Inside: root, of a user namespace mapping it to the block; the sleep it leaves
    // behind (sudo kills nothing of a command that ended normally) is looked at from
    // the host below.
    let script = "sudo sh -c 'id -u; cat /proc/self/uid_map; grep -E \"^(NoNewPrivs|Seccomp):\" \
                  /proc/self/status; sleep 61.25 >/dev/null 2>&1 &'";
    let (out, code) = h.run(&a, "user", script).await;
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!((words(&out), code), (format!("0 0 {base} 65536 NoNewPrivs: 1 Seccomp: 2"), 0));
    // From the host: the root that sudo made is host uid `base`, never 0.
    let sleeper = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .find(|entry| {
            std::fs::read(entry.path().join("cmdline")).unwrap_or_default() == b"sleep\x0061.25\x00"
        })
        .expect("the sleep that root (through sudo) left in the sandbox");
    let status = std::fs::read_to_string(sleeper.path().join("status")).unwrap();
    let field = |name: &str| {
        status.lines().find_map(|line| line.strip_prefix(name)).map(words).unwrap_or_default()
    };
    let ids = format!("{base} {base} {base} {base}");
    assert_eq!(
        (field("Uid:"), field("Gid:"), field("NoNewPrivs:")),
        (ids.clone(), ids, "1".into())
    );

    // What root inside reaches through sudo is what root inside reaches: its own
    // sandbox's token (envd's environment), nothing of the daemon or of B.
    let token_a = a["envdAccessToken"].as_str().unwrap().to_owned();
    let token_b = b["envdAccessToken"].as_str().unwrap().to_owned();
    let api_key = h.daemon().api_key().to_owned();
    let api_key_file = state.join(dsh_sandboxd::server::API_KEY_FILE);
    let b_dir = state.join("sandboxes").join(b["sandboxID"].as_str().unwrap());
    let probe = secrets_probe(
        &[("API key", &api_key), ("A's token", &token_a), ("B's token", &token_b)],
        &[("daemon state dir", &state), ("API key file", &api_key_file), ("B's directory", &b_dir)],
    );
    let (out, code) = h.run(&a, "user", &format!("sudo {probe}")).await;
    assert_eq!(
        (out.as_str(), code),
        (
            "environ leaks=A's token\ncmdline leaks=none\nown environment leaks=none\n\
             DSH_ENVD_ACCESS_TOKEN set=False\nenvd environ=readable\n\
             exists(daemon state dir)=False\nexists(API key file)=False\n\
             exists(B's directory)=False\n",
            0
        )
    );
}

/// A network namespace made by a test, for the calling thread (and what it starts): a
/// stand-in host whose addresses the test may change without touching the machine's.
/// It goes with the thread. Root and a rootless user (in the user's namespace) alike may
/// make one.
struct TestHost;

impl TestHost {
    fn enter_new() -> TestHost {
        // SAFETY: unshare of this thread's network namespace only.
        assert_eq!(unsafe { libc::unshare(libc::CLONE_NEWNET) }, 0, "unshare(CLONE_NEWNET)");
        let host = TestHost;
        host.ip(&["link", "set", "lo", "up"]);
        // An interface with a default route, as pasta copies its settings from one (a
        // veth pair with both ends here: no traffic leaves this namespace).
        host.ip(&["link", "add", "d0", "type", "veth", "peer", "name", "d1"]);
        host.ip(&["addr", "add", "192.0.2.1/24", "dev", "d0"]);
        host.ip(&["link", "set", "d0", "up"]);
        host.ip(&["link", "set", "d1", "up"]);
        host.ip(&["route", "add", "default", "via", "192.0.2.254"]);
        host
    }

    /// `ip ARGS` in the namespace (from this thread).
    fn ip(&self, args: &[&str]) {
        let status = std::process::Command::new("ip").args(args).status().unwrap();
        assert!(status.success(), "ip {}", args.join(" "));
    }
}

/// A page only the host serves (on an address it gained after the sandboxes started).
fn serve_host_only_page(address: &str, port: u16) -> std::thread::JoinHandle<()> {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind((address, port)).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    let mut request = [0u8; 1024];
                    let _ = stream.read(&mut request);
                    let _ = stream.write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\nhost-only\n",
                    );
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    })
}

/// The rules refused the host's addresses as they were when a sandbox started: after
/// the host gained one (DHCP, a VPN, a new interface), a running sandbox read a
/// host-only page on it, directly and through the domain filter (an allowed name in
/// `Host:`, sent to that address on port 80; found by attacking a sandbox from inside).
/// The daemon now follows the host's address changes into every sandbox's rules, and the
/// domain filter checks the host's addresses as they are at each connection.
///
/// The "host" is a network namespace this test makes for one thread (the daemon runs
/// there); the later address is a TEST-NET one, added there and gone with it.
#[test]
fn a_host_address_gained_after_the_start_is_out_of_reach() {
    let later = "192.0.2.77";
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let host = TestHost::enter_new();
                let runtime =
                    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                runtime.block_on(async {
                    let h = Harness::start(Duration::from_secs(10)).await;
                    let direct = h.create().await;
                    let (status, filtered) = h
                        .call(
                            Method::POST,
                            "/v2/sandboxes",
                            Some(json!({
                                "templateID": "base",
                                "timeout": 60,
                                "allow_internet_access": false,
                                "network": {"allowOut": ["allowed.test"]}
                            })),
                        )
                        .await;
                    assert_eq!(status, StatusCode::CREATED, "{filtered}");
                    // Both run; now the host gains an address and serves a page on it.
                    host.ip(&["addr", "add", &format!("{later}/32"), "dev", "d0"]);
                    let _page = serve_host_only_page(later, 80);
                    let _other = serve_host_only_page(later, 8080);
                    // The daemon hears of it within a moment (it waits for no poll).
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    let probe = |url: &str, extra: &str| {
                        format!("curl -s -m 3 {extra} {url} || echo refused")
                    };
                    for user in ["root", "user"] {
                        let direct_probe = probe(&format!("http://{later}:8080/"), "");
                        assert_eq!(
                            h.run(&direct, user, &direct_probe).await,
                            ("refused\n".to_owned(), 0),
                            "as {user}: a direct connection to the host's new address"
                        );
                        let filtered_probe =
                            probe(&format!("http://{later}/"), "-H 'Host: allowed.test'");
                        assert_eq!(
                            h.run(&filtered, user, &filtered_probe).await,
                            ("refused\n".to_owned(), 0),
                            "as {user}: an allowed name sent to the host's new address"
                        );
                    }
                });
            })
            .join()
            .unwrap();
    });
}

/// The host uid of the process whose command line is exactly `args`, waiting a little
/// for it to start.
fn host_uid_of_command(args: &[&str]) -> u32 {
    let wanted: Vec<u8> = args.iter().flat_map(|a| a.bytes().chain([0])).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            if std::fs::read(entry.path().join("cmdline")).is_ok_and(|c| c == wanted) {
                let status = std::fs::read_to_string(entry.path().join("status")).unwrap();
                let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
                return line.split_whitespace().nth(1).unwrap().parse().unwrap();
            }
        }
        assert!(Instant::now() < deadline, "no host process runs {args:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Forks, and sandboxes started from one snapshot, used to run in the host uid block of
/// the sandbox whose files they started from: two running sandboxes with the same host
/// ids. Each now runs in a block of its own (its root and `user` are host ids no other
/// sandbox's are), and still sees the files it started from with their owners and modes,
/// and writes them, as root and as `user`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forks_and_sandboxes_from_one_snapshot_run_in_uid_blocks_of_their_own() {
    let rootless = dsh_sandboxd::rootless::blocks_inside().is_some();
    let h = Harness::start(Duration::from_secs(30)).await;
    let parent = h.create().await;
    let parent_id = parent["sandboxID"].as_str().unwrap();
    let setup = "echo r > /root/r && chmod 600 /root/r";
    assert_eq!(h.run(&parent, "root", setup).await, (String::new(), 0));
    let setup = "echo u > /home/user/u && chmod 600 /home/user/u";
    assert_eq!(h.run(&parent, "user", setup).await, (String::new(), 0));

    let (status, forks) = h
        .call(
            Method::POST,
            &format!("/sandboxes/{parent_id}/fork"),
            Some(json!({"count": 2, "timeout": 60})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{forks}");
    let (status, snapshot) =
        h.call(Method::POST, &format!("/sandboxes/{parent_id}/snapshots"), None).await;
    assert_eq!(status, StatusCode::CREATED, "{snapshot}");
    let mut sandboxes = vec![parent.clone()];
    sandboxes.extend(forks.as_array().unwrap().iter().map(|entry| entry["sandbox"].clone()));
    for _ in 0..2 {
        let body = json!({"templateID": snapshot["snapshotID"], "timeout": 60});
        let (status, made) = h.call(Method::POST, "/v2/sandboxes", Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{made}");
        sandboxes.push(made);
    }

    let mut roots = Vec::new();
    for (k, sandbox) in sandboxes.iter().enumerate() {
        let (out, code) = h.run(sandbox, "root", "cat /root/r && stat -c %u:%g:%a /root/r").await;
        assert_eq!((out.as_str(), code), ("r\n0:0:600\n", 0), "sandbox {k}");
        let script = format!(
            "cat /home/user/u && echo {k} >> /home/user/u && stat -c %u:%g:%a /home/user/u && \
             touch /home/user/new && stat -c %u:%g /home/user/new"
        );
        let (out, code) = h.run(sandbox, "user", &script).await;
        assert_eq!((out.as_str(), code), ("u\n1000:1000:600\n1000:1000\n", 0), "sandbox {k}");
        for (user, seconds) in [("root", format!("987.{k}")), ("user", format!("988.{k}"))] {
            let script = format!("setsid sleep {seconds} </dev/null >/dev/null 2>&1 &");
            assert_eq!(h.run(sandbox, user, &script).await, (String::new(), 0));
        }
        let root = host_uid_of_command(&["sleep", &format!("987.{k}")]);
        let user = host_uid_of_command(&["sleep", &format!("988.{k}")]);
        assert_eq!(user, root + 1000, "sandbox {k}: root and user of one block");
        // As an ordinary user the blocks are the user's subordinate ids, from 65536.
        let first_block = match rootless {
            true => dsh_sandboxd::rootless::BLOCKS_START,
            false => 1 << 30,
        };
        assert!(root >= first_block, "sandbox {k}: root inside is host uid {root}");
        roots.push(root);
    }
    eprintln!("host uids of root in each sandbox: {roots:?}");
    if rootless {
        // An ordinary user's daemon has no idmapped mounts to shift files with: a sandbox
        // made from another's files keeps that block (docs/sandboxes.md, Rootless). Said,
        // and checked as it is: every one runs in the parent's block.
        assert!(roots.iter().all(|root| *root == roots[0]), "{roots:?}");
        return;
    }
    for (a, root_a) in roots.iter().enumerate() {
        for (b, root_b) in roots.iter().enumerate().skip(a + 1) {
            assert!(
                root_a.abs_diff(*root_b) >= 65_536,
                "sandboxes {a} and {b} share a uid block: {roots:?}"
            );
        }
    }
}

/// Every entry under `dir` (and `dir`) with its host uid and gid, not following links.
fn host_owners(dir: &Path) -> Vec<(PathBuf, u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(path) = pending.pop() {
        let metadata = std::fs::symlink_metadata(&path).unwrap();
        if metadata.is_dir() {
            pending.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
        out.push((path, metadata.uid(), metadata.gid()));
    }
    out
}

/// A volume's files used to keep their inside ids on the host: what root inside made
/// there was host root's, a setuid-root program among them (harmless only while the
/// image stays mounted nosuid; a copy or a backup restored elsewhere hands the host a
/// setuid-root binary). Now every file in a volume, whoever made it inside, is owned
/// on the host by the volumes' block, which no process runs as, and root inside still
/// sees its files as its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_root_inside_makes_in_a_volume_is_not_host_roots() {
    let h = Harness::start(Duration::from_secs(30)).await;
    let (status, volume) = h.call(Method::POST, "/volumes", Some(json!({"name": "v"}))).await;
    if dsh_sandboxd::rootless::blocks_inside().is_some() {
        // An ordinary user's daemon has no volumes at all (docs/sandboxes.md, Rootless):
        // nothing to own. Its refusal is what is checked.
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{volume}");
        return;
    }
    assert_eq!(status, StatusCode::CREATED, "{volume}");
    let body = json!({"templateID": "base", "timeout": 60,
        "volumeMounts": [{"name": "v", "path": "/mnt/v"}]});
    let (status, sandbox) = h.call(Method::POST, "/v2/sandboxes", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{sandbox}");
    let script = "cp /bin/true /mnt/v/suid && chmod 6755 /mnt/v/suid && mkdir /mnt/v/d && \
                  touch /mnt/v/d/f && stat -c %u:%g:%a /mnt/v/suid /mnt/v/d/f";
    let (out, code) = h.run(&sandbox, "root", script).await;
    assert_eq!((out.as_str(), code), ("0:0:6755\n0:0:644\n", 0));
    let (out, code) = h.run(&sandbox, "user", "touch /mnt/v/mine && stat -c %u /mnt/v/mine").await;
    assert_eq!((out.as_str(), code), ("1000\n", 0));

    let volumes = h.dir.path().join("state/sandboxes/.volumes");
    let dirs: Vec<PathBuf> = std::fs::read_dir(&volumes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let block = dsh_sandboxd::IdRange::VOLUMES.host_base;
    let mut owners: Vec<(String, u32, u32)> = host_owners(&dirs[0])
        .into_iter()
        .map(|(path, uid, gid)| {
            let name = path.strip_prefix(&dirs[0]).unwrap().display().to_string();
            (name, uid.wrapping_sub(block), gid.wrapping_sub(block))
        })
        .collect();
    owners.sort();
    let expected =
        [("", 1000, 1000), ("d", 0, 0), ("d/f", 0, 0), ("mine", 1000, 1000), ("suid", 0, 0)];
    let expected: Vec<(String, u32, u32)> =
        expected.iter().map(|(n, u, g)| (n.to_string(), *u, *g)).collect();
    assert_eq!(owners, expected, "host owners, less the volumes' block {block}");
}

/// One sandbox could hold far more open files than the host's whole table (4096 tasks
/// × 65,536 files each, against `fs.file-max` 2,466,093 here): every other sandbox and
/// every unprivileged host process would then get ENFILE. Root inside now meets a
/// per-process limit it cannot raise and a task limit whose product is at most half of
/// the host's table (`server/sandbox/open_files.rs` has the arithmetic).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_sandbox_cannot_hold_more_than_half_of_the_hosts_file_table() {
    let h = Harness::start(Duration::from_secs(30)).await;
    let sandbox = h.create().await;
    let script = "hard=$(ulimit -Hn); echo $hard $(ulimit -Sn); \
        (ulimit -n $((hard + 1))) 2>/dev/null && echo raised || echo refused; \
        cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null; \
        python3 -c 'import os\nfds = []\ntry:\n    while True: fds.append(os.open(\"/dev/null\", os.O_RDONLY))\nexcept OSError as e: print(fds[-1] + 1, e.errno)'";
    let (out, code) = h.run(&sandbox, "root", script).await;
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let [limits, raised, tasks, opened] = lines[..] else { panic!("{out}") };
    let per_process: u64 = limits.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(limits, format!("{per_process} {per_process}"));
    assert_eq!(raised, "refused", "root inside raised RLIMIT_NOFILE");
    // The files opened stop at the limit, with EMFILE.
    assert_eq!(opened, format!("{per_process} 24"));
    let tasks: u64 = tasks.parse().unwrap();
    let file_max: u64 =
        std::fs::read_to_string("/proc/sys/fs/file-max").unwrap().trim().parse().unwrap();
    let expected = dsh_sandboxd::server::open_files::OpenFileBound::for_host(file_max, 4096);
    assert_eq!((tasks, per_process), (expected.tasks, expected.per_process));
    // Half of the table; on a host too small for the floors, still less than all of it.
    use dsh_sandboxd::server::open_files::{PER_PROCESS_FLOOR, TASKS_FLOOR};
    let most = (file_max / 2).max(TASKS_FLOOR * PER_PROCESS_FLOOR);
    assert!(
        tasks * per_process <= most && most < file_max,
        "{tasks} tasks × {per_process} files against fs.file-max {file_max}"
    );
}

/// A volume is shared storage in the daemon's disk image (every sandbox's files and every
/// volume share it). Before volumes had sizes, a volume was a plain directory there with
/// no limit: root (or `user`) in any sandbox mounting one could fill the image for every
/// sandbox and volume (measured: 300 MiB written into a volume by one sandbox; this
/// test's 64 MiB write succeeded whole). Now each volume is a subvolume whose
/// referenced bytes are limited to its `sizeMB`: the write stops with `EDQUOT` at 16 MiB,
/// preallocating past it fails the same way, and the host sees the volume hold no more.
/// Every write is bounded (64 MiB at most).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_cannot_write_a_volume_past_its_size() {
    use std::os::unix::fs::MetadataExt as _;
    let h = Harness::start(Duration::from_secs(10)).await;
    let (status, volume) =
        h.call(Method::POST, "/volumes", Some(json!({"name": "small", "sizeMB": 16}))).await;
    if dsh_sandboxd::rootless::blocks_inside().is_some() {
        // An ordinary user's daemon has no disk image, hence no volumes to fill: its
        // refusal is what is checked.
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{volume}");
        return;
    }
    assert_eq!(status, StatusCode::CREATED, "{volume}");
    let body = json!({
        "templateID": "base",
        "timeout": 60,
        "volumeMounts": [{"name": "small", "path": "/mnt/data"}]
    });
    let (status, sandbox) = h.call(Method::POST, "/v2/sandboxes", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{sandbox}");

    let (out, code) = h
        .run(
            &sandbox,
            "root",
            "exec 2>&1; fallocate -l 64M /mnt/data/preallocated; echo exit=$?; \
             head -c 64M /dev/zero > /mnt/data/fill; echo exit=$?",
        )
        .await;
    assert_eq!(
        (out.as_str(), code),
        (
            "fallocate: fallocate failed: Disk quota exceeded\nexit=1\n\
             head: error writing 'standard output': Disk quota exceeded\nexit=1\n",
            0
        )
    );
    // As `user`, the volume's owner, likewise (once root's file is gone).
    // (fallocate left its file, empty.)
    let script = "rm /mnt/data/fill && sync && ls -A /mnt/data && stat -c %s /mnt/data/*";
    let (out, code) = h.run(&sandbox, "root", script).await;
    assert_eq!((out.as_str(), code), ("preallocated\n0\n", 0));
    let script = "exec 2>&1; head -c 64M /dev/zero > /mnt/data/mine; echo exit=$?";
    let (out, code) = h.run(&sandbox, "user", script).await;
    assert_eq!(
        (out.as_str(), code),
        ("head: error writing 'standard output': Disk quota exceeded\nexit=1\n", 0)
    );
    let (out, code) = h.run(&sandbox, "root", "sync; du -sm /mnt/data | cut -f1").await;
    let inside: u64 = out.trim().parse().unwrap();
    assert!(code == 0 && inside <= 16, "{inside} MiB in a 16 MiB volume");

    // From the host: what the volume's files take stays within its size.
    let volumes = h.daemon().state_dir().join("sandboxes/.volumes");
    let dir = std::fs::read_dir(&volumes)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    let held: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().blocks() * 512)
        .sum();
    assert!(held <= 16 << 20, "{held} bytes in a 16 MiB volume");
}
