//! The escape suite against gVisor sandboxes (`runtime: "gvisor"`), created through the
//! daemon's API as a user would (`escape/daemon.rs`'s `Harness`): the same attacks as on
//! native sandboxes, tried from inside as root and as `user` (each probe runs as root,
//! then as `user` after `setuid(1000)`, see `escape/probe.rs`), each compared with a table
//! of exact results. Between the sandbox and the host stand gVisor's kernel (the Sentry,
//! in runsc's sandbox process), runsc's gofer (which opens the sandbox's files on the
//! host), and the sandbox's own network namespace (pasta, the egress rules) behind
//! gVisor's (`gvisor_net.rs`).
//!
//! Probes are bounded (connections time out after 1.5 s, no loops over memory or
//! processes) and non-destructive (no write to a device or to `/proc/sys`; a mode "changed"
//! to the one a host directory has; what unexpectedly succeeds is undone).

use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::daemon::{Harness, envd_binary};
use super::probe::{HostPath, assert_lines, both_roles, expected, hex, hex_paths};

/// A daemon whose sandboxes are created under gVisor by [`create`].
/// A daemon to attack gVisor sandboxes of; None as an ordinary user, whose daemon runs
/// none (runsc runs as root here): its refusal is what is checked then.
async fn harness() -> Option<Harness> {
    let h = Harness::start(Duration::from_secs(20)).await;
    if dsh_sandboxd::rootless::blocks_inside().is_some() {
        let body = json!({"templateID": "base", "runtime": "gvisor"});
        let (status, reply) = h.call(reqwest::Method::POST, "/sandboxes", Some(body)).await;
        assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{reply}");
        let message = reply["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(
                "runtime \"gvisor\" is not available on this host: an ordinary user's daemon"
            ),
            "{reply}"
        );
        return None;
    }
    Some(h)
}

async fn create(h: &Harness) -> Value {
    h.create_with(json!({"templateID": "base", "runtime": "gvisor", "timeout": 300})).await
}

fn id(sandbox: &Value) -> String {
    sandbox["sandboxID"].as_str().unwrap().to_owned()
}

/// The daemon's state directory, as the host names it.
fn state(h: &Harness) -> PathBuf {
    std::fs::canonicalize(h.daemon().state_dir()).unwrap()
}

/// Runs `body` as root and then as `user` in `sandbox` (gVisor's root has no `/run`:
/// the probe's directory is made first); asserts the exact output.
async fn assert_probe(h: &Harness, sandbox: &Value, body: &str, rows: &[(&str, &str, &str)]) {
    let (out, code) = h.run(sandbox, "root", &probe_script(body)).await;
    assert_lines(&out, &expected(rows), "");
    assert_eq!(code, 0, "{out}");
}

fn probe_script(body: &str) -> String {
    format!("mkdir -p /run && {}", both_roles(body))
}

/// The host processes of sandbox `id`'s runsc container, with their command lines: the
/// sandbox process names the container (`dsh-<id>`), the gofer only its bundle.
fn runsc_processes(id: &str) -> Vec<(u32, String)> {
    let needles = [dsh_sandboxd::gvisor::container_id(id), format!("runsc-bundles/{id} ")];
    let mut found: Vec<(u32, String)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let mine = needles.iter().any(|needle| cmdline.contains(needle.as_str()));
            (mine && !cmdline.starts_with("sh ")).then_some((pid, cmdline))
        })
        .collect();
    found.sort();
    found
}

/// The runsc process of sandbox `id` whose command line holds the subcommand `role`
/// (`boot`: the sandbox process, gVisor's kernel; `gofer`).
fn runsc_process(id: &str, role: &str) -> u32 {
    let all = runsc_processes(id);
    let with_role: Vec<u32> = all
        .iter()
        .filter(|(_, cmdline)| cmdline.split(' ').any(|arg| arg == role))
        .map(|(pid, _)| *pid)
        .collect();
    assert_eq!(with_role.len(), 1, "runsc {role} of {id}: {all:?}");
    with_role[0]
}

/// The `Uid:` and `Gid:` lines (real, effective, saved, filesystem) of host process
/// `pid`'s status, and its effective capabilities (hex).
fn host_ids(pid: u32) -> (String, String, String) {
    let status = super::probe::host_status(pid);
    (status["Uid"].clone(), status["Gid"].clone(), status["CapEff"].clone())
}

/// Host process `pid`'s uid map, one `inside host count` line per range.
fn uid_map(pid: u32) -> String {
    let map = std::fs::read_to_string(format!("/proc/{pid}/uid_map")).unwrap();
    map.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Runs `work` on a thread inside the network namespace pinned at `pin`.
fn in_namespace<T: Send + 'static>(pin: &Path, work: impl FnOnce() -> T + Send + 'static) -> T {
    let namespace = std::fs::File::open(pin).unwrap();
    std::thread::spawn(move || {
        // SAFETY: setns(2) of this thread (which ends here) into a namespace file.
        let joined = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(joined, 0, "{}", std::io::Error::last_os_error());
        work()
    })
    .join()
    .unwrap()
}

/// Connections waiting in `listener`'s queue: every one that reached it (the kernel
/// completes the handshake whether or not anyone accepts).
fn connections_that_reached(listener: &TcpListener) -> usize {
    listener.set_nonblocking(true).unwrap();
    std::iter::from_fn(|| listener.accept().ok()).count()
}

fn datagrams_that_reached(socket: &UdpSocket) -> usize {
    socket.set_nonblocking(true).unwrap();
    let mut buffer = [0u8; 2048];
    std::iter::from_fn(|| socket.recv(&mut buffer).ok()).count()
}

/// Every entry under `dir` (and `dir`) with its host owner and mode, not following links.
fn listing(dir: &Path) -> Vec<(PathBuf, u32, u32, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        out.push((path.clone(), meta.uid(), meta.gid(), meta.mode()));
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap().flatten() {
                stack.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

/// Host files and the daemon's secrets are out of reach of a gVisor sandbox A, as root
/// and as `user`: a 0600 file in a directory the test owns, the daemon's state directory,
/// its API key file, sandbox B's directory, root and bundle, runsc's state and envd's
/// host path do not exist inside; the API key and B's envd token are in no process's
/// environment or command line; the shown host directories (`/usr`, `/usr/local`,
/// `/etc`, `/opt`) are the sandbox's own layers: root inside writes them, `user` is
/// refused, envd's `/.dsh/bin` refuses both, and the host finds nothing made or changed; `/proc/self` and `/proc/1` (mountinfo, mounts,
/// cgroup, cmdline, environ, maps) name no host path (the state directory, the test's
/// directory, envd's host directory, `rootfs-upper`, `runsc-bundles`, A's id as a path). A and B run in
/// distinct uid blocks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_host_files_the_daemon_and_a_neighbour_are_out_of_reach() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let b = create(&h).await;
    let state = state(&h);
    let secret_dir = HostPath::dir(h.dir.path().join("host-only"));
    std::fs::set_permissions(secret_dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret = secret_dir.path().join("secret.txt");
    std::fs::write(&secret, "host only").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let api_key_file = state.join(dsh_sandboxd::server::API_KEY_FILE);
    assert!(api_key_file.is_file());
    let b_dir = state.join("sandboxes").join(id(&b));
    let b_root = b_dir.join("rootfs-upper");
    assert!(b_root.is_dir());
    let bundles = state.join("runsc-bundles");
    let b_bundle = bundles.join(id(&b));
    assert!(b_bundle.join("config.json").is_file());
    let runsc_state = state.join(dsh_sandboxd::server::RUNSC_DIR);
    let envd = envd_binary();
    let paths: Vec<(&str, &Path)> = vec![
        ("host secret", secret.as_path()),
        ("host secret's dir", secret_dir.path()),
        ("test's dir", h.dir.path()),
        ("state dir", state.as_path()),
        ("API key file", api_key_file.as_path()),
        ("B's dir", b_dir.as_path()),
        ("B's root", b_root.as_path()),
        ("B's bundle", b_bundle.as_path()),
        ("runsc state", runsc_state.as_path()),
        ("envd's host path", envd.as_path()),
    ];
    let api_key = h.daemon().api_key().to_owned();
    let token_b = b["envdAccessToken"].as_str().unwrap().to_owned();
    let secrets: Vec<(String, String)> =
        [("API key", api_key.as_str()), ("B's token", &token_b), ("host secret", "host only")]
            .iter()
            .map(|(label, secret)| (label.to_string(), hex(secret.as_bytes())))
            .collect();
    let host_paths: Vec<(String, String)> = [
        ("state dir", state.display().to_string()),
        ("test's dir", h.dir.path().display().to_string()),
        ("envd's dir", envd.parent().unwrap().display().to_string()),
        ("rootfs-upper", "rootfs-upper".to_owned()),
        ("overlay layers", format!("/{}/", id(&a))),
        ("runsc-bundles", "runsc-bundles".to_owned()),
    ]
    .iter()
    .map(|(label, path)| (label.to_string(), hex(path.as_bytes())))
    .collect();
    let body = format!(
        r#"
import glob
PATHS = [(label, bytes.fromhex(h).decode()) for label, h in {paths:?}]
SECRETS = [(label, bytes.fromhex(h).decode()) for label, h in {secrets:?}]
HOST_PATHS = [(label, bytes.fromhex(h).decode()) for label, h in {host_paths:?}]

def found(text, needles):
    return ",".join(label for label, needle in needles if needle in text) or "none"

for label, path in PATHS:
    out(f"stat({{label}})", attempt(lambda: os.stat(path) and None))
    out(f"read({{label}})", read(path))

def read_all(pattern):
    texts = []
    for path in sorted(glob.glob(pattern)):
        try:
            with open(path, "rb") as f:
                texts.append(f.read().decode(errors="replace"))
        except OSError:
            pass
    return "\n".join(texts)

out("secrets in /proc/*/environ", found(read_all("/proc/[0-9]*/environ"), SECRETS))
out("secrets in /proc/*/cmdline", found(read_all("/proc/[0-9]*/cmdline"), SECRETS))
out("secrets in its environment", found(repr(dict(os.environ)), SECRETS))

for path in ("/proc/self/mountinfo", "/proc/1/mountinfo", "/proc/self/mounts", "/proc/1/cgroup",
             "/proc/self/cgroup", "/proc/1/cmdline", "/proc/1/environ", "/proc/1/maps",
             "/proc/self/maps"):
    def host_paths_in():
        with open(path, "rb") as f:
            return found(f.read().decode(errors="replace"), HOST_PATHS)
    out(f"host paths in {{path}}", attempt(host_paths_in))

def create(path):
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    os.unlink(path)

for where in ("/usr", "/usr/local", "/usr/bin", "/etc", "/opt"):
    out(f"create({{where}})", attempt(lambda: create(f"{{where}}/dsh-escape-{{ROLE}}")))
for path in ("/etc/passwd", "/etc/hostname", "/etc/resolv.conf", "/etc/hosts", "/.dsh/bin/dsh-envd"):
    out(f"open({{path}}, append)", attempt(lambda: os.close(os.open(path, os.O_WRONLY | os.O_APPEND))))
out("mkdir(/usr/dsh-escape)", attempt(lambda: os.rmdir(os.mkdir("/usr/dsh-escape") or "/usr/dsh-escape")))
# The mode it has already: a no-op had it gone through.
out("chmod(/usr/bin)", attempt(lambda: os.chmod("/usr/bin", stat.S_IMODE(os.stat("/usr/bin").st_mode))))
out("rename(/etc/passwd)", attempt(lambda: os.rename("/etc/passwd", "/etc/passwd")))
"#,
        paths = hex_paths(&paths),
    );
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut row = |label: String, root: &str, user: &str| {
        rows.push((label, root.to_owned(), user.to_owned()));
    };
    for (label, _) in &paths {
        row(format!("stat({label})"), "ENOENT", "ENOENT");
        row(format!("read({label})"), "ENOENT", "ENOENT");
    }
    // (A's own token: `gvisor_user_cannot_read_envds_token`.)
    row("secrets in /proc/*/environ".into(), "none", "none");
    row("secrets in /proc/*/cmdline".into(), "none", "none");
    row("secrets in its environment".into(), "none", "none");
    for path in [
        "/proc/self/mountinfo",
        "/proc/1/mountinfo",
        "/proc/self/mounts",
        "/proc/1/cgroup",
        "/proc/self/cgroup",
        "/proc/1/cmdline",
        "/proc/1/environ",
        "/proc/1/maps",
        "/proc/self/maps",
    ] {
        row(format!("host paths in {path}"), "none", "none");
    }
    // The shown host directories are the sandbox's own layers over the host's: root
    // inside writes them (as in a native sandbox), `user` is refused by their modes, and
    // nothing reaches the host's files (checked below).
    for dir in ["/usr", "/usr/local", "/usr/bin", "/etc", "/opt"] {
        row(format!("create({dir})"), "ok", "EACCES");
    }
    for file in ["/etc/passwd", "/etc/hostname", "/etc/resolv.conf", "/etc/hosts"] {
        row(format!("open({file}, append)"), "ok", "EACCES");
    }
    row("open(/.dsh/bin/dsh-envd, append)".into(), "EROFS", "EACCES");
    row("mkdir(/usr/dsh-escape)".into(), "ok", "EACCES");
    row("chmod(/usr/bin)".into(), "ok", "EPERM");
    row("rename(/etc/passwd)".into(), "ok", "EACCES");
    let host_files = ["/etc/passwd", "/etc/group", "/etc/hostname", "/etc/hosts"]
        .map(|path| (path, std::fs::read(path).ok()));
    let rows: Vec<(&str, &str, &str)> =
        rows.iter().map(|(l, r, u)| (l.as_str(), r.as_str(), u.as_str())).collect();
    assert_probe(&h, &a, &body, &rows).await;

    for dir in ["/usr", "/usr/local", "/usr/bin", "/etc", "/opt"] {
        for role in ["root", "user"] {
            let made = Path::new(dir).join(format!("dsh-escape-{role}"));
            assert!(!made.exists(), "{} exists on the host", made.display());
        }
    }
    assert!(!Path::new("/usr/dsh-escape").exists());
    for (path, before) in host_files {
        assert_eq!(std::fs::read(path).ok(), before, "the host's {path} changed");
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "host only");
    // A and B are different host ids.
    let block = |sandbox: &Value| {
        let root = state.join("sandboxes").join(id(sandbox)).join("rootfs-upper");
        std::fs::metadata(root).unwrap().uid()
    };
    let (block_a, block_b) = (block(&a), block(&b));
    assert!(block_a.abs_diff(block_b) >= dsh_sandboxd::IdRange::SIZE, "{block_a} {block_b}");
}

/// No host process is visible or reachable from a gVisor sandbox, as root and as `user`:
/// `/proc` lists only the sandbox's own processes (envd is its pid 1, every pid is
/// small), and the host pids of the test process (the daemon's), runsc's sandbox and
/// gofer processes and pasta exist nowhere inside: `/proc/<pid>` is absent, `kill` (0
/// and SIGCONT) and `ptrace` attach answer ESRCH (`pidfd_open` is not in gVisor: ENOSYS). `uname -r` and
/// `/proc/version` are gVisor's (Linux 4.4.0), not the host's kernel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_host_processes_are_out_of_sight_and_reach() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let a_id = id(&a);
    let pasta: u32 = std::fs::read_to_string(state(&h).join(format!("netns/{a_id}.pasta.pid")))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let host_pids = [
        ("the test", std::process::id()),
        ("runsc sandbox", runsc_process(&a_id, "boot")),
        ("runsc gofer", runsc_process(&a_id, "gofer")),
        ("pasta", pasta),
    ];
    for (label, pid) in host_pids {
        assert!(Path::new(&format!("/proc/{pid}")).exists(), "{label} {pid}");
        assert!(pid > 100, "{label}'s pid {pid} could be one inside");
    }
    let host_pids: Vec<(&str, u32)> = host_pids.to_vec();
    let body = format!(
        r#"
HOST_PIDS = {host_pids:?}
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
def comm(pid):
    try:
        return open(f"/proc/{{pid}}/comm").read().strip()
    except OSError as e:
        return ename(e.errno)
out("processes", ",".join(sorted(set(comm(p) for p in pids))))
out("pid 1", comm(1))
out("every pid below 100", all(p < 100 for p in pids))

def attach(pid):
    result = call("ptrace", 16, pid, None, None)
    if result == "ok":
        raw("ptrace", 17, pid, None, None)   # PTRACE_DETACH
    return result

for label, pid in HOST_PIDS:
    out(f"/proc/<{{label}}>", "exists" if os.path.exists(f"/proc/{{pid}}") else "absent")
    out(f"kill({{label}}, 0)", attempt(lambda: os.kill(pid, 0)))
    out(f"kill({{label}}, SIGCONT)", attempt(lambda: os.kill(pid, 18)))
    out(f"ptrace(attach {{label}})", attach(pid))
    out(f"pidfd_open({{label}})", call("pidfd_open", pid, 0, undo=os.close))
out("uname -r", os.uname().release)
out("/proc/version", open("/proc/version").read()[:19])
out("uname command", subprocess.run(["uname", "-r"], capture_output=True, text=True).stdout.strip())
"#
    );
    let mut rows: Vec<(String, String, String)> = vec![
        ("processes".into(), "dsh-envd,python3,sh".into(), "dsh-envd,python3,sh".into()),
        ("pid 1".into(), "dsh-envd".into(), "dsh-envd".into()),
        ("every pid below 100".into(), "True".into(), "True".into()),
    ];
    for (label, _) in &host_pids {
        let mut row = |check: String, result: &str| {
            rows.push((check, result.to_owned(), result.to_owned()));
        };
        row(format!("/proc/<{label}>"), "absent");
        row(format!("kill({label}, 0)"), "ESRCH");
        row(format!("kill({label}, SIGCONT)"), "ESRCH");
        row(format!("ptrace(attach {label})"), "ESRCH");
        row(format!("pidfd_open({label})"), "ENOSYS");
    }
    for (check, result) in [
        ("uname -r", "4.4.0"),
        ("/proc/version", "Linux version 4.4.0"),
        ("uname command", "4.4.0"),
    ] {
        rows.push((check.into(), result.into(), result.into()));
    }
    let rows: Vec<(&str, &str, &str)> =
        rows.iter().map(|(l, r, u)| (l.as_str(), r.as_str(), u.as_str())).collect();
    assert_probe(&h, &a, &body, &rows).await;
    let host = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_ne!(host.trim(), "4.4.0", "the host's kernel");
    // Everything the probe aimed at is still there.
    for (label, pid) in host_pids {
        assert!(Path::new(&format!("/proc/{pid}")).exists(), "{label} {pid} is gone");
    }
}

/// The system calls behind container breakouts, from a gVisor sandbox as root and as
/// `user`: none succeeds. What answers is gVisor's kernel (the Sentry), never the host's:
/// mounts (tmpfs, proc, a bind of `/`, remounting `/sys` writable, unmounting `/proc`),
/// new namespaces (each tried in a child), file handles (the "shocker" escape), the
/// keyring, BPF, perf events, io_uring, userfaultfd, module loading, kexec, reboot,
/// swapon, the kernel log, the clock, and device nodes (kmsg, a disk, null: made in
/// `/tmp` and in the root, then opened read-only if made).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_kernel_calls_behind_breakouts_are_refused() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let body = r#"
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
MNT_DETACH = 2
target = f"/tmp/mnt-{ROLE}".encode()
os.makedirs(target, exist_ok=True)
unmount = lambda _: raw("umount2", target, MNT_DETACH)
out("mount(tmpfs)", call("mount", b"tmpfs", target, b"tmpfs", 0, None, undo=unmount))
out("mount(proc)", call("mount", b"proc", target, b"proc", 0, None, undo=unmount))
out("mount(cgroup)", call("mount", b"cgroup", target, b"cgroup", 0, b"memory", undo=unmount))
out("mount(bind /)", call("mount", b"/", target, None, MS_BIND, None, undo=unmount))
out("remount(/sys, rw)", call("mount", None, b"/sys", None, MS_REMOUNT, None,
    undo=lambda _: raw("mount", None, b"/sys", None, MS_REMOUNT | MS_RDONLY, None)))
out("umount2(/proc)", call("umount2", b"/proc", MNT_DETACH))
out("pivot_root(/tmp, /tmp)", call("pivot_root", b"/tmp", b"/tmp"))
out("fsopen(tmpfs)", call("fsopen", b"tmpfs", 0, undo=os.close))
out("open_tree(/)", call("open_tree", AT_FDCWD, b"/", 1, undo=os.close))

def in_child(name, *args):
    """`name(*args)` in a forked child (a namespace made stays there)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.write(w, call(name, *args).encode())
        os._exit(0)
    os.close(w)
    result = os.read(r, 100).decode()
    os.close(r)
    os.waitpid(pid, 0)
    return result

CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP = 0x04000000, 0x08000000, 0x02000000
for label, flag in (("user", CLONE_NEWUSER), ("mount", CLONE_NEWNS), ("net", CLONE_NEWNET),
                    ("pid", CLONE_NEWPID), ("uts", CLONE_NEWUTS), ("ipc", CLONE_NEWIPC),
                    ("cgroup", CLONE_NEWCGROUP)):
    out(f"unshare({label})", in_child("unshare", flag))
out("unshare -Ur true", run("unshare", "-Ur", "true"))
out("unshare -Urm mount -t tmpfs", run("unshare", "-Urm", "mount", "-t", "tmpfs", "none", "/tmp"))

class Handle(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("type", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]
handle, mount_id = Handle(size=128), ctypes.c_int()
out("name_to_handle_at(/usr)",
    call("name_to_handle_at", AT_FDCWD, b"/usr", ctypes.byref(handle), ctypes.byref(mount_id), 0))
for path in ("/", "/usr"):
    handle = Handle(size=8, type=1)
    handle.data[0] = 2
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    out(f"open_by_handle_at({path})",
        call("open_by_handle_at", fd, ctypes.byref(handle), os.O_RDONLY, undo=os.close))
    os.close(fd)

KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING = -2, -3
out("keyctl(get session keyring)", call("keyctl", 0, KEY_SPEC_SESSION_KEYRING, 0))
out("add_key(user)", call("add_key", b"user", b"dsh-escape-probe", b"x", 1, KEY_SPEC_PROCESS_KEYRING))
out("read(/proc/keys)", read("/proc/keys"))
out("bpf(map create)", call("bpf", 0, None, 0, undo=os.close))
out("bpf(prog load)", call("bpf", 5, None, 0, undo=os.close))
out("perf_event_open", call("perf_event_open", None, 0, -1, -1, 0, undo=os.close))
out("io_uring_setup", call("io_uring_setup", 1, None, undo=os.close))
out("userfaultfd", call("userfaultfd", os.O_CLOEXEC, undo=os.close))
out("init_module", call("init_module", None, 0, b""))
out("finit_module", call("finit_module", -1, b"", 0))
out("kexec_load", call("kexec_load", 0, 0, None, 0))
out("kexec_file_load", call("kexec_file_load", -1, -1, 0, None, 0))
out("reboot(bad magic)", call("reboot", 0, 0, 0, None))
out("swapon(NULL)", call("swapon", None, 0))
out("syslog(size of the kernel log)", call("syslog", 10, None, 0))
log = ctypes.create_string_buffer(4096)
n = raw("syslog", 3, log, 4096)
out("kernel log", log.raw[:n].decode(errors="replace").split("\n")[0][-18:] if n > 0 else ename(-n))
out("settimeofday(NULL, NULL)", call("settimeofday", None, None))
out("read(/proc/kcore)", read("/proc/kcore"))
out("read(/dev/kmsg)", read("/dev/kmsg"))
out("read(/dev/mem)", read("/dev/mem"))

def node(path, kind, major, minor):
    os.mknod(path, kind | 0o600, os.makedev(major, minor))
    try:
        return attempt(lambda: os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))) + " (made)"
    finally:
        os.unlink(path)

for where in ("/tmp", "/home/user"):
    for label, kind, major, minor in (("kmsg", stat.S_IFCHR, 1, 11), ("sda", stat.S_IFBLK, 8, 0),
                                      ("null", stat.S_IFCHR, 1, 3)):
        out(f"mknod({where}, {label})", attempt(lambda: node(f"{where}/{label}-{ROLE}", kind, major, minor)))
"#;
    let rows = [
        ("mount(tmpfs)", "EPERM", "EPERM"),
        ("mount(proc)", "EPERM", "EPERM"),
        ("mount(cgroup)", "EPERM", "EPERM"),
        ("mount(bind /)", "EPERM", "EPERM"),
        ("remount(/sys, rw)", "EPERM", "EPERM"),
        ("umount2(/proc)", "EPERM", "EPERM"),
        ("pivot_root(/tmp, /tmp)", "EPERM", "EPERM"),
        ("fsopen(tmpfs)", "ENOSYS", "ENOSYS"),
        ("open_tree(/)", "ENOSYS", "ENOSYS"),
        ("unshare(user)", "ok", "ok"),
        ("unshare(mount)", "EPERM", "EPERM"),
        ("unshare(net)", "EPERM", "EPERM"),
        ("unshare(pid)", "EPERM", "EPERM"),
        ("unshare(uts)", "EPERM", "EPERM"),
        ("unshare(ipc)", "EPERM", "EPERM"),
        ("unshare(cgroup)", "ok", "ok"),
        ("unshare -Ur true", "exit 0: ", "exit 0: "),
        ("unshare -Urm mount -t tmpfs", "exit 0: ", "exit 0: "),
        ("name_to_handle_at(/usr)", "ENOTSUP", "ENOTSUP"),
        ("open_by_handle_at(/)", "ENOTSUP", "ENOTSUP"),
        ("open_by_handle_at(/usr)", "ENOTSUP", "ENOTSUP"),
        ("keyctl(get session keyring)", "ok", "ok"),
        ("add_key(user)", "EACCES", "EACCES"),
        ("read(/proc/keys)", "ENOENT", "ENOENT"),
        ("bpf(map create)", "EPERM", "EPERM"),
        ("bpf(prog load)", "EPERM", "EPERM"),
        ("perf_event_open", "ENODEV", "ENODEV"),
        ("io_uring_setup", "ENOSYS", "ENOSYS"),
        ("userfaultfd", "ENOSYS", "ENOSYS"),
        ("init_module", "EPERM", "EPERM"),
        ("finit_module", "EPERM", "EPERM"),
        ("kexec_load", "EPERM", "EPERM"),
        ("kexec_file_load", "EPERM", "EPERM"),
        ("reboot(bad magic)", "EPERM", "EPERM"),
        ("swapon(NULL)", "EPERM", "EPERM"),
        ("syslog(size of the kernel log)", "ok", "ok"),
        ("kernel log", "Starting gVisor...", "Starting gVisor..."),
        ("settimeofday(NULL, NULL)", "EPERM", "EPERM"),
        ("read(/proc/kcore)", "ENOENT", "ENOENT"),
        ("read(/dev/kmsg)", "ENOENT", "ENOENT"),
        ("read(/dev/mem)", "ENOENT", "ENOENT"),
        ("mknod(/tmp, kmsg)", "ENXIO (made)", "ENXIO (made)"),
        ("mknod(/tmp, sda)", "ENXIO (made)", "ENXIO (made)"),
        ("mknod(/tmp, null)", "ok (made)", "ok (made)"),
        ("mknod(/home/user, kmsg)", "EPERM", "EPERM"),
        ("mknod(/home/user, sda)", "EPERM", "EPERM"),
        ("mknod(/home/user, null)", "EPERM", "EPERM"),
    ];
    assert_probe(&h, &a, body, &rows).await;
    // Nothing made in the root reached the host as a device node.
    let root = state(&h).join("sandboxes").join(id(&a)).join("home/user");
    let left: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.iter().all(|name| !name.to_string_lossy().contains('-')), "{left:?}");
}

/// A gVisor sandbox's network reaches neither the host nor the sandbox's own namespace
/// nor a neighbour, as root and as `user`. Listeners the test holds count whatever
/// arrives: on the host (TCP and UDP on every address), in A's namespace (the router,
/// `198.19.0.1`, and `198.18.0.2`, pasta's side), besides the daemon's API port and the
/// domain filter's port on that namespace's loopback. From A: the host's loopback (through
/// pasta's gateway `198.18.0.1`) and every host address, the router, pasta's address,
/// the filter's and the API's ports, and the port sandbox B serves on (every guest is
/// `198.19.0.2` in its own namespaces: A reaches only itself there). None is connected,
/// no listener got a connection or a datagram, and B's server logged no request. Raw and
/// packet sockets (what ARP spoofing and forged packets need) are refused by gVisor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_network_reaches_neither_the_host_nor_the_router_nor_a_neighbour() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let b = create(&h).await;
    let state = state(&h);
    let (pin_a, pin_b) = (state.join("netns").join(id(&a)), state.join("netns").join(id(&b)));

    // B serves on 8000, reached from B's namespace (the daemon's side of B).
    let serve = "cd /tmp && setsid python3 -m http.server 8000 --bind 0.0.0.0 \
                 </dev/null >/tmp/served.log 2>&1 & echo started";
    assert_eq!(h.run(&b, "user", serve).await, ("started\n".to_owned(), 0));
    let guest = SocketAddr::from((dsh_sandboxd::gvisor_net::GUEST, 8000));
    let mut b_serves = false;
    for _ in 0..100 {
        b_serves = in_namespace(&pin_b, move || {
            TcpStream::connect_timeout(&guest, Duration::from_secs(1)).is_ok()
        });
        if b_serves {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(b_serves, "B's server does not answer in B's namespace");

    let host_tcp = TcpListener::bind("0.0.0.0:0").unwrap();
    let host_port = host_tcp.local_addr().unwrap().port();
    let host_udp = UdpSocket::bind("0.0.0.0:0").unwrap();
    let udp_port = host_udp.local_addr().unwrap().port();
    let (router_tcp, filter_port) = in_namespace(&pin_a, || {
        let listener = TcpListener::bind("0.0.0.0:0").unwrap();
        // The domain filter: the namespace's other listener, on its loopback.
        let own = format!(":{:04X}", listener.local_addr().unwrap().port());
        let tcp = std::fs::read_to_string("/proc/thread-self/net/tcp").unwrap();
        let filter: Vec<u16> = tcp
            .lines()
            .skip(1)
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let (address, port) = fields[1].split_once(':')?;
                (fields[3] == "0A" && address == "0100007F" && !fields[1].ends_with(&own))
                    .then(|| u16::from_str_radix(port, 16).unwrap())
            })
            .collect();
        assert_eq!(filter.len(), 1, "{tcp}");
        (listener, filter[0])
    });
    let router_port = router_tcp.local_addr().unwrap().port();
    let api_port: u16 =
        h.daemon().url().rsplit(':').next().unwrap().trim_end_matches('/').parse().unwrap();

    let router = dsh_sandboxd::gvisor_net::ROUTER.to_string();
    let targets: Vec<(String, String, u16)> = vec![
        ("its own loopback".into(), "127.0.0.1".into(), host_port),
        ("host via the gateway".into(), "198.18.0.1".into(), host_port),
        ("host via the router".into(), router.clone(), host_port),
        ("router".into(), router.clone(), router_port),
        ("router via pasta's address".into(), "198.18.0.2".into(), router_port),
        ("domain filter on the router".into(), router.clone(), filter_port),
        ("domain filter via pasta's address".into(), "198.18.0.2".into(), filter_port),
        ("API via the gateway".into(), "198.18.0.1".into(), api_port),
        ("B's port at the guest's address".into(), "198.19.0.2".into(), 8000),
        ("B's port at the router".into(), router.clone(), 8000),
        ("B's port via the gateway".into(), "198.18.0.1".into(), 8000),
    ];
    let host_addresses: Vec<String> = dsh_sandboxd::server::network::host_addresses()
        .iter()
        .filter(|address| !address.is_loopback())
        .map(ToString::to_string)
        .collect();
    assert!(!host_addresses.is_empty(), "{host_addresses:?}");
    let body = format!(
        r#"
TARGETS = {targets:?}
HOST_ADDRESSES = {host_addresses:?}
HOST_PORT, UDP_PORT, API_PORT = {host_port}, {udp_port}, {api_port}

def connect(host, port):
    s = socket.socket()
    s.settimeout(1.5)
    try:
        s.connect((host, port))
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        return "connected"
    except socket.timeout:
        return "timeout"
    except OSError as e:
        return ename(e.errno)
    finally:
        s.close()

for label, host, port in TARGETS:
    out(f"tcp {{label}}", connect(host, port))
for label, port in (("host port", HOST_PORT), ("API port", API_PORT)):
    results = sorted(set(connect(address, port) for address in HOST_ADDRESSES))
    out(f"tcp {{label}} at the host's addresses", ",".join(results))

def datagram(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"dsh-escape", (host, UDP_PORT))
    except OSError:
        pass
    s.close()
for address in HOST_ADDRESSES + ["127.0.0.1", "198.18.0.1", "{router}"]:
    datagram(address)

out("socket(AF_PACKET, SOCK_RAW)", attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)).close()))
out("socket(AF_PACKET, SOCK_DGRAM)", attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x806)).close()))
out("socket(AF_INET, SOCK_RAW, udp)", attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP).close()))
out("socket(AF_INET, SOCK_RAW, raw)", attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW).close()))
time.sleep(0.5)
"#
    );
    let mut rows: Vec<(String, &str, &str)> = vec![
        ("tcp its own loopback".into(), "ECONNREFUSED", "ECONNREFUSED"),
        ("tcp host via the gateway".into(), "EHOSTUNREACH", "EHOSTUNREACH"),
        ("tcp host via the router".into(), "timeout", "timeout"),
        ("tcp router".into(), "timeout", "timeout"),
        ("tcp router via pasta's address".into(), "timeout", "timeout"),
        ("tcp domain filter on the router".into(), "timeout", "timeout"),
        ("tcp domain filter via pasta's address".into(), "timeout", "timeout"),
        ("tcp API via the gateway".into(), "EHOSTUNREACH", "EHOSTUNREACH"),
        ("tcp B's port at the guest's address".into(), "ECONNREFUSED", "ECONNREFUSED"),
        ("tcp B's port at the router".into(), "timeout", "timeout"),
        ("tcp B's port via the gateway".into(), "EHOSTUNREACH", "EHOSTUNREACH"),
        ("tcp host port at the host's addresses".into(), "EHOSTUNREACH", "EHOSTUNREACH"),
        ("tcp API port at the host's addresses".into(), "EHOSTUNREACH", "EHOSTUNREACH"),
    ];
    for check in [
        "socket(AF_PACKET, SOCK_RAW)",
        "socket(AF_PACKET, SOCK_DGRAM)",
        "socket(AF_INET, SOCK_RAW, udp)",
        "socket(AF_INET, SOCK_RAW, raw)",
    ] {
        rows.push((check.into(), "EPERM", "EPERM"));
    }
    let rows: Vec<(&str, &str, &str)> = rows.iter().map(|(l, r, u)| (l.as_str(), *r, *u)).collect();
    assert_probe(&h, &a, &body, &rows).await;

    assert_eq!(connections_that_reached(&host_tcp), 0, "connections reached the host");
    assert_eq!(datagrams_that_reached(&host_udp), 0, "datagrams reached the host");
    assert_eq!(connections_that_reached(&router_tcp), 0, "connections reached the router");
    let (log, code) = h.run(&b, "user", "cat /tmp/served.log").await;
    assert_eq!((log.as_str(), code), ("", 0), "B's server was reached");
    // The listeners were reachable: the host's from the host, the router's from its
    // namespace.
    drop(TcpStream::connect(("127.0.0.1", host_port)).unwrap());
    assert_eq!(connections_that_reached(&host_tcp), 1);
    in_namespace(&pin_a, move || drop(TcpStream::connect(("127.0.0.1", router_port)).unwrap()));
    assert_eq!(connections_that_reached(&router_tcp), 1);
}

/// What root inside leaves in its directories is the next start's input: at every start
/// the daemon (host root) makes `/home/user` and `/var/tmp` in the sandbox's directories
/// and writes its account files (`/etc/hostname`, `/etc/resolv.conf`: replaced each time)
/// into `/etc`'s layer, chowning them to the sandbox's
/// block. Root inside plants symlinks at each, pointing into a directory and at a file the
/// test owns on the host, and has the sandbox paused without its memory and resumed (a
/// fresh start from its files). The host directory and file are unchanged after it
/// (nothing made, written or chowned: before the change that replaces what is not a
/// directory there, the daemon followed a planted `/home` and made
/// `<target>/home-target/user`, owned by the sandbox's `user` on the host); inside, the
/// directories are directories of their owners again and the replaced files are files.
/// (`/home`, `/root` and `/var` themselves are mount points: root cannot move them.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_symlinks_planted_in_its_directories_do_not_redirect_the_next_start() {
    let Some(h) = harness().await else { return };
    let target = HostPath::dir(h.dir.path().join("host-dir"));
    std::fs::set_permissions(target.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::create_dir(target.path().join("home-target")).unwrap();
    std::fs::write(target.path().join("file"), "host only").unwrap();
    let before = listing(target.path());
    let a = create(&h).await;
    let a_id = id(&a);
    let dir = state(&h).join("sandboxes").join(&a_id);
    let t = target.path().display();
    // (Python: coreutils' `ls` asks statx for more than this gVisor answers.)
    const LINKS: &str = "python3 -c 'import os, stat, sys\nfor p in sys.argv[1:]: print(stat.S_ISLNK(os.lstat(p).st_mode))'";
    const MOVE: &str = "python3 -c 'import errno, os\nfor p in (\"/home\", \"/root\", \"/var\"):\n  try: os.rename(p, p + \"-moved\"); print(p, \"moved\")\n  except OSError as e: print(p, errno.errorcode[e.errno])'";
    assert_eq!(
        h.run(&a, "root", MOVE).await,
        ("/home EBUSY\n/root EBUSY\n/var EBUSY\n".to_owned(), 0)
    );
    let plant = format!(
        "rm -rf /home/user /var/tmp /etc/hostname /etc/resolv.conf \
         && ln -s {t}/home-target /home/user && ln -s {t}/home-target /var/tmp \
         && ln -s {t}/file /etc/hostname && ln -s {t}/file /etc/resolv.conf \
         && {LINKS} /home/user /var/tmp /etc/hostname /etc/resolv.conf && echo planted"
    );
    assert_eq!(
        h.run(&a, "root", &plant).await,
        ("True\nTrue\nTrue\nTrue\nplanted\n".to_owned(), 0)
    );
    let (status, body) = h
        .call(Method::POST, &format!("/sandboxes/{a_id}/pause"), Some(json!({"memory": false})))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) = h
        .call(Method::POST, &format!("/sandboxes/{a_id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(
        listing(target.path()),
        before,
        "the start followed a planted link into the host directory (path, uid, gid, mode)"
    );
    assert_eq!(std::fs::read_to_string(target.path().join("file")).unwrap(), "host only");
    assert_eq!(status, StatusCode::CREATED, "the sandbox did not come back: {body}");
    // Inside, directories of their owners again; the replaced files are files.
    let check = "python3 -c \"import os, stat\nfor p in ('/home/user', '/var/tmp', '/etc/hostname', '/etc/resolv.conf'):\n    \
                 s = os.lstat(p)\n    print(p, 'dir' if stat.S_ISDIR(s.st_mode) else 'link' if stat.S_ISLNK(s.st_mode) else 'file', s.st_uid)\"";
    let (out, code) = h.run(&a, "root", check).await;
    assert_eq!(
        (out.as_str(), code),
        ("/home/user dir 1000\n/var/tmp dir 0\n/etc/hostname file 0\n/etc/resolv.conf file 0\n", 0)
    );
    let block = std::fs::metadata(dir.join("rootfs-upper")).unwrap().uid();
    for (path, uid) in [
        ("home/user", block + 1000),
        ("var/tmp", block),
        ("overlay/etc/upper/hostname", block),
        ("overlay/etc/upper/resolv.conf", block),
    ] {
        let meta = std::fs::symlink_metadata(dir.join(path)).unwrap();
        assert!(!meta.file_type().is_symlink(), "{path}");
        assert_eq!(meta.uid(), uid, "{path}");
    }
}

/// The host ids of a gVisor sandbox. runsc's processes of the sandbox (those whose
/// command line names `dsh-<id>`) are its sandbox process (`boot`: gVisor's kernel,
/// which runs every process inside), its gofer (which opens the root's files on the
/// host for it) and the `runsc run` that started them and waits for them. What root and `user` inside make in the root is stored as the sandbox's
/// block (B and B+1000 on the host: the root is shown to runsc through an idmapped
/// mount), a setuid file root makes included: never host root's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_runsc_processes_and_files_have_these_host_ids() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let a_id = id(&a);
    let processes = runsc_processes(&a_id);
    let described: Vec<String> = processes
        .iter()
        .map(|(pid, cmdline)| {
            let (uid, gid, caps) = host_ids(*pid);
            format!("{pid} uid {uid} gid {gid} caps {caps} uid_map {}: {cmdline}", uid_map(*pid))
        })
        .collect();
    eprintln!("runsc processes of {a_id}:\n{}", described.join("\n"));
    let boot = runsc_process(&a_id, "boot");
    let gofer = runsc_process(&a_id, "gofer");
    // And the runsc process that started it and waits for it in the foreground (the
    // daemon's child, in the host's namespaces: it runs nothing of the sandbox's).
    let runner: Vec<&(u32, String)> =
        processes.iter().filter(|(pid, _)| *pid != boot && *pid != gofer).collect();
    assert_eq!(runner.len(), 1, "{described:#?}");
    assert!(runner[0].1.contains(" run ") || runner[0].1.contains(" restore "), "{described:#?}");
    assert_eq!(processes.len(), 3, "{described:#?}");
    // Host root, in user namespaces of their own that map every id to itself: their
    // capabilities are over those namespaces, and files are host files to them.
    let host_userns = std::fs::read_link("/proc/self/ns/user").unwrap();
    for (pid, caps) in [(boot, "00000000a80c25ff"), (gofer, "000000000004001f")] {
        let expected = ("0 0 0 0".to_owned(), "0 0 0 0".to_owned(), caps.to_owned());
        assert_eq!(host_ids(pid), expected, "{described:#?}");
        assert_eq!(uid_map(pid), "0 0 4294967295", "{described:#?}");
        assert_ne!(std::fs::read_link(format!("/proc/{pid}/ns/user")).unwrap(), host_userns);
    }

    let (out, code) = h
        .run(&a, "root", "touch /made-by-root && cp /usr/bin/true /setuid-root && chmod 4755 /setuid-root \
              && cp /usr/bin/true /usr/local/bin/setuid-usr && chmod 4755 /usr/local/bin/setuid-usr && echo made")
        .await;
    assert_eq!((out.as_str(), code), ("made\n", 0));
    let (out, code) = h.run(&a, "user", "touch /home/user/made-by-user && echo made").await;
    assert_eq!((out.as_str(), code), ("made\n", 0));
    let root = state(&h).join("sandboxes").join(&a_id);
    let block = std::fs::metadata(root.join("rootfs-upper")).unwrap().uid();
    assert!(block >= dsh_sandboxd::IdRange::DEFAULT_BASE, "the root is host uid {block}");
    let owner = |path: &str| {
        let meta = std::fs::symlink_metadata(root.join(path)).unwrap();
        (meta.uid(), meta.gid(), meta.mode() & 0o7777)
    };
    assert_eq!(owner("rootfs-upper/made-by-root"), (block, block, 0o644));
    assert_eq!(owner("rootfs-upper/setuid-root"), (block, block, 0o4755));
    // In `/usr`: its layer's, the host's `/usr` untouched.
    assert_eq!(owner("overlay/usr/upper/local/bin/setuid-usr"), (block, block, 0o4755));
    assert!(!Path::new("/usr/local/bin/setuid-usr").exists());
    assert_eq!(owner("home/user/made-by-user"), (block + 1000, block + 1000, 0o644));
}

/// In a native sandbox `user` cannot read envd's environment (envd is root inside), where
/// the daemon hands envd the sandbox's access token (`DSH_ENVD_ACCESS_TOKEN`). Under
/// gVisor it can (gVisor's `/proc/1/environ`, `/proc/1/maps` and `/proc/1/fd` are
/// readable by uid 1000): the token was found there, so a gVisor sandbox's envd gets it
/// only through the daemon's first `/init`, and it is in neither its environment nor
/// (this test reads it) its memory as `user` can read it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gvisor_user_cannot_read_envds_token() {
    let Some(h) = harness().await else { return };
    let a = create(&h).await;
    let token = a["envdAccessToken"].as_str().unwrap();
    let (out, code) = h.run(&a, "user", "id -u; cat /proc/1/environ 2>&1 | tr '\\0' '\\n'").await;
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("1000\n"), "{out}");
    assert!(
        !out.contains(token),
        "HOLE: `user` (uid 1000) reads envd's environment and the sandbox's envd access token \
         in it under gVisor (root inside is one request away)"
    );
    // Nor its memory, where envd keeps the token `/init` gave it (at most 256 MiB read).
    let search = format!(
        "import re\ntry:\n    maps = open('/proc/1/maps').read().splitlines()\n    mem = open('/proc/1/mem', 'rb')\nexcept OSError as e:\n    print('refused', e.errno); raise SystemExit\nseen, found = 0, False\nfor line in maps:\n    a, b = (int(x, 16) for x in line.split()[0].split('-'))\n    if 'r' not in line.split()[1] or seen > 256 << 20: continue\n    try:\n        mem.seek(a); chunk = mem.read(b - a)\n    except OSError:\n        continue\n    seen += len(chunk)\n    found = found or b'{token}' in chunk\nprint('read', seen > 0, 'found', found)\n"
    );
    let (out, code) = h.run(&a, "user", &format!("python3 -c \"{search}\"")).await;
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("found True"), "HOLE: `user` finds envd's token in its memory: {out}");
}
