//! How a probe runs: a Python 3 program (the host's, visible through `/usr`) that makes
//! raw system calls through ctypes and prints one `name=result` line per check, where
//! `result` is `ok` (the call went through: an escape, unless expected) or the errno's
//! name. The same program runs as root of the sandbox and then as `user` (uid 1000,
//! after `setgroups([])`, `setgid(1000)`, `setuid(1000)`), each run under a `[root]` or
//! `[user]` header, and the test compares the whole output with a table of expected
//! results, so a new, missing or changed line fails.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use dsh_sandboxd::{IdRange, Isolation, SandboxSpec};

use crate::common::{Finished, Shell};

/// Where the script puts the probe inside the sandbox (`/run` is a fresh tmpfs; unlike
/// `/tmp` it stays out of the way of checks that list `/tmp`).
pub const PROBE_PATH: &str = "/run/dsh-probe.py";

/// Helpers every probe starts with. `NR` (syscall numbers of this architecture, from
/// `libc`) is prepended by [`python`].
const PRELUDE: &str = r#"
import ctypes, errno, os, socket, stat, subprocess, sys, time

ROLE = sys.argv[1]
if ROLE == "user":
    os.setgroups([])
    os.setgid(1000)
    os.setuid(1000)

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000


def ename(code):
    return errno.errorcode.get(code, str(code))


def c(value):
    if value is None:
        return ctypes.c_void_p(None)
    if isinstance(value, bytes):
        return ctypes.c_char_p(value)
    if isinstance(value, int):
        return ctypes.c_long(value)
    return value


def raw(name, *args):
    """The raw system call `name`: its result, or -errno."""
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(NR[name]), *[c(a) for a in args])
    return -ctypes.get_errno() if result < 0 else result


def call(name, *args, undo=None):
    """`ok` (after `undo(result)`, which takes back what an unexpected success did) or
    the errno's name."""
    result = raw(name, *args)
    if result < 0:
        return ename(-result)
    if undo is not None:
        undo(result)
    return "ok"


def attempt(action):
    """`ok` (or what `action` returned) or the errno's name of the OSError it raised."""
    try:
        value = action()
    except OSError as e:
        return ename(e.errno)
    return "ok" if value is None else value


def out(label, value):
    print(f"{label}={value}", flush=True)


def status(field):
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        if key == field:
            return value.strip()


def read(path):
    """`empty`, `<n> bytes` (at most 64 KiB read) or the errno's name."""
    def go():
        with open(path, "rb") as f:
            data = f.read(65536)
        return f"{len(data)} bytes" if data else "empty"
    return attempt(go)


def run(*argv):
    """Runs a command: `exit <code>: <first line of its stderr>`."""
    done = subprocess.run(argv, capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    return f"exit {done.returncode}: {lines[0] if lines else ''}"
"#;

/// `bytes` as hex, for passing host paths and secrets to a probe without writing them
/// into its command line (which is readable inside); Python decodes them with
/// `bytes.fromhex`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// (label, hex of the path) for each labelled host path, as probes take them.
pub fn hex_paths<L: ToString, P: AsRef<std::path::Path>>(
    paths: &[(L, P)],
) -> Vec<(String, String)> {
    paths
        .iter()
        .map(|(label, path)| (label.to_string(), hex(path.as_ref().as_os_str().as_encoded_bytes())))
        .collect()
}

/// The probe program: syscall numbers, the prelude, then `body`.
pub fn python(body: &str) -> String {
    let numbers: &[(&str, libc::c_long)] = &[
        ("add_key", libc::SYS_add_key),
        ("bpf", libc::SYS_bpf),
        ("clone", libc::SYS_clone),
        ("clone3", libc::SYS_clone3),
        ("delete_module", libc::SYS_delete_module),
        ("finit_module", libc::SYS_finit_module),
        ("fsopen", libc::SYS_fsopen),
        ("init_module", libc::SYS_init_module),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("kexec_file_load", libc::SYS_kexec_file_load),
        ("kexec_load", libc::SYS_kexec_load),
        ("keyctl", libc::SYS_keyctl),
        ("mount", libc::SYS_mount),
        ("mount_setattr", libc::SYS_mount_setattr),
        ("move_mount", libc::SYS_move_mount),
        ("name_to_handle_at", libc::SYS_name_to_handle_at),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("open_tree", libc::SYS_open_tree),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("pidfd_getfd", libc::SYS_pidfd_getfd),
        ("pidfd_open", libc::SYS_pidfd_open),
        ("pidfd_send_signal", libc::SYS_pidfd_send_signal),
        ("pivot_root", libc::SYS_pivot_root),
        ("ptrace", libc::SYS_ptrace),
        ("reboot", libc::SYS_reboot),
        ("request_key", libc::SYS_request_key),
        ("setns", libc::SYS_setns),
        ("settimeofday", libc::SYS_settimeofday),
        ("shmget", libc::SYS_shmget),
        ("swapon", libc::SYS_swapon),
        ("syslog", libc::SYS_syslog),
        ("umount2", libc::SYS_umount2),
        ("unshare", libc::SYS_unshare),
        ("userfaultfd", libc::SYS_userfaultfd),
    ];
    let table: Vec<String> = numbers.iter().map(|(name, nr)| format!("{name:?}: {nr}")).collect();
    format!("NR = {{{}}}\n{PRELUDE}\n{body}\n", table.join(", "))
}

/// A shell script that writes the probe to [`PROBE_PATH`] and runs it as root, then as
/// `user`, each run under its header; Python's stderr joins stdout, so a traceback shows
/// up in (and fails) the comparison.
pub fn both_roles(body: &str) -> String {
    format!(
        "cat > {PROBE_PATH} <<'DSH_PROBE_END'\n{}DSH_PROBE_END\n\
         for role in root user; do echo \"[$role]\"; python3 {PROBE_PATH} $role 2>&1; done\n",
        python(body)
    )
}

/// The exact output expected from [`both_roles`]: one `(label, as root, as user)` row
/// per check, in the order the probe prints them.
pub fn expected(rows: &[(&str, &str, &str)]) -> String {
    let mut text = String::from("[root]\n");
    for (label, root, _) in rows {
        text.push_str(&format!("{label}={root}\n"));
    }
    text.push_str("[user]\n");
    for (label, _, user) in rows {
        text.push_str(&format!("{label}={user}\n"));
    }
    text
}

/// The exact output expected from [`both_roles`] of a probe whose checks differ by role.
pub fn expected_each(root: &[(&str, &str)], user: &[(&str, &str)]) -> String {
    let lines = |rows: &[(&str, &str)]| -> String {
        rows.iter().map(|(label, result)| format!("{label}={result}\n")).collect()
    };
    format!("[root]\n{}[user]\n{}", lines(root), lines(user))
}

/// Runs `body` as root and as user in a fresh strict sandbox; asserts the exact output
/// and a clean exit.
pub fn assert_probe(spec: &SandboxSpec, body: &str, rows: &[(&str, &str, &str)]) {
    let done = Shell::start(spec, &both_roles(body)).finish();
    assert_output(&done, &expected(rows));
}

/// Asserts a finished probe's exact output and its clean exit.
pub fn assert_output(done: &Finished, expected: &str) {
    assert_lines(&done.stdout, expected, &done.stderr);
    assert!(done.status.success(), "{}\n{}", done.status, done.stderr);
}

/// Asserts `got` is exactly `expected`, naming every line that differs.
pub fn assert_lines(got: &str, expected: &str, stderr: &str) {
    if got == expected {
        return;
    }
    let got_lines: Vec<&str> = got.lines().collect();
    let want: Vec<&str> = expected.lines().collect();
    let differing: Vec<String> = (0..got_lines.len().max(want.len()))
        .filter(|&i| got_lines.get(i) != want.get(i))
        .map(|i| format!("line {}: got {:?}, expected {:?}", i + 1, got_lines.get(i), want.get(i)))
        .collect();
    panic!(
        "probe output differs ({} lines):\n{}\n--- whole output:\n{got}\n--- stderr:\n{stderr}",
        differing.len(),
        differing.join("\n"),
    );
}

/// A strict spec in uid block `slot` (so that tests that compare host uids know them).
pub fn in_slot(spec: &mut SandboxSpec, slot: u32) -> u32 {
    let (base, _) = IdRange::blocks_of_this_process();
    let ids = IdRange::slot(base, slot).unwrap();
    spec.isolation = Isolation::strict(ids);
    ids.host_base
}

/// The host base of a strict spec's uid block.
pub fn host_base(spec: &SandboxSpec) -> u32 {
    match spec.isolation {
        Isolation::Strict { ids, .. } => ids.host_base,
        Isolation::Namespaces => panic!("the escape suite tests strict isolation"),
    }
}

/// `key: value` fields of a host `/proc/<pid>/status`.
pub fn host_status(pid: u32) -> BTreeMap<String, String> {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| {
            (key.to_owned(), value.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// The host pid of the process that is `inside` in the sandbox's pid namespace (the
/// last field of `NSpid`), among the sandbox's processes.
pub fn host_pid_of(shell: &Shell, inside: u32) -> u32 {
    let found = shell.host_pids().into_iter().find(|&pid| {
        host_status(pid)
            .get("NSpid")
            .and_then(|ns| ns.split(' ').next_back().map(|last| last == inside.to_string()))
            .unwrap_or(false)
    });
    found.unwrap_or_else(|| panic!("no process {inside} in the sandbox: {:?}", shell.host_pids()))
}

/// A host file or directory removed again when the test ends, even if it fails.
pub struct HostPath(pub std::path::PathBuf);

impl HostPath {
    pub fn file(path: impl Into<std::path::PathBuf>, contents: &str) -> HostPath {
        let path = path.into();
        fs::write(&path, contents).unwrap();
        HostPath(path)
    }

    pub fn dir(path: impl Into<std::path::PathBuf>) -> HostPath {
        let path = path.into();
        fs::create_dir(&path).unwrap();
        HostPath(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for HostPath {
    fn drop(&mut self) {
        if self.0.is_dir() && !self.0.is_symlink() {
            let _ = fs::remove_dir_all(&self.0);
        } else {
            let _ = fs::remove_file(&self.0);
        }
    }
}
