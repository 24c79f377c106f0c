//! The seccomp filter and the capability drop on real processes (these need root, as on
//! this machine and CI): a child gets `drop_privileges` and/or `install` in its `pre_exec`,
//! then runs small probes whose exact errno the test checks.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use dsh_sandbox::seccomp::{self, KEPT_CAPABILITIES};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// No filter, no capability drop: shows what the probes do without us.
    Unconfined,
    /// Filters only, with every capability: an EPERM can only come from the filter.
    FilterOnly,
    /// What a sandbox payload gets: `drop_privileges` then `install`.
    Full,
}

/// Runs `program args` in `mode`; returns its stdout, after checking it succeeded.
fn run(mode: Mode, program: &str, args: &[&str]) -> String {
    let filters = seccomp::compile().unwrap();
    let mut command = Command::new(program);
    command.args(args);
    // SAFETY: the hook only makes raw system calls and allocates nothing.
    unsafe {
        command.pre_exec(move || match mode {
            Mode::Unconfined => Ok(()),
            Mode::FilterOnly => seccomp::install(&filters),
            Mode::Full => {
                seccomp::drop_privileges()?;
                seccomp::install(&filters)
            }
        });
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{program} {args:?} in {mode:?}: {}\n{stderr}", output.status);
    String::from_utf8(output.stdout).unwrap()
}

fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() { "/usr/bin/python3" } else { "python3" }
}

/// An argument of a probe: an integer (passed as a C long), a C string, or NULL.
enum Arg {
    Int(i64),
    Str(&'static str),
    Null,
}
use Arg::{Int, Null, Str};

const MISSING: &str = "/nonexistent-dsh-seccomp-probe";

/// One raw system call with arguments chosen to fail harmlessly even unconfined and as
/// the host's root (bad pointers, bad fds, missing paths, invalid flags), and the errno
/// the filter must give it.
struct Probe {
    name: &'static str,
    number: i64,
    args: Vec<Arg>,
    errno: i32,
}

fn probe(name: &'static str, number: i64, args: Vec<Arg>) -> Probe {
    Probe { name, number, args, errno: libc::EPERM }
}

fn probes() -> Vec<Probe> {
    let sigchld = i64::from(libc::SIGCHLD);
    #[allow(unused_mut)]
    let mut probes = vec![
        probe("open_by_handle_at", libc::SYS_open_by_handle_at, vec![Int(-1), Null, Int(0)]),
        probe(
            "name_to_handle_at",
            libc::SYS_name_to_handle_at,
            vec![Int(-100), Str("/"), Null, Null, Int(0)],
        ),
        probe(
            "mount",
            libc::SYS_mount,
            vec![Str("none"), Str(MISSING), Str("tmpfs"), Int(0), Null],
        ),
        probe("umount2", libc::SYS_umount2, vec![Str(MISSING), Int(0)]),
        probe("fsopen", libc::SYS_fsopen, vec![Null, Int(0)]),
        probe("fsconfig", libc::SYS_fsconfig, vec![Int(-1), Int(0), Null, Null, Int(0)]),
        probe("fsmount", libc::SYS_fsmount, vec![Int(-1), Int(0), Int(0)]),
        probe("fspick", libc::SYS_fspick, vec![Int(-1), Null, Int(0)]),
        probe("move_mount", libc::SYS_move_mount, vec![Int(-1), Null, Int(-1), Null, Int(0)]),
        probe("open_tree", libc::SYS_open_tree, vec![Int(-1), Null, Int(0)]),
        probe("open_tree_attr", 467, vec![Int(-1), Null, Int(0), Null, Int(0)]),
        probe("mount_setattr", libc::SYS_mount_setattr, vec![Int(-1), Null, Int(0), Null, Int(0)]),
        probe("pivot_root", libc::SYS_pivot_root, vec![Null, Null]),
        probe("setns", libc::SYS_setns, vec![Int(-1), Int(0)]),
        probe(
            "clone_newuser",
            libc::SYS_clone,
            vec![Int(i64::from(libc::CLONE_NEWUSER) | sigchld), Int(0), Int(0), Int(0), Int(0)],
        ),
        probe(
            "clone_newns",
            libc::SYS_clone,
            vec![Int(i64::from(libc::CLONE_NEWNS) | sigchld), Int(0), Int(0), Int(0), Int(0)],
        ),
        probe(
            "clone_newnet",
            libc::SYS_clone,
            vec![Int(i64::from(libc::CLONE_NEWNET) | sigchld), Int(0), Int(0), Int(0), Int(0)],
        ),
        Probe {
            name: "clone3",
            number: libc::SYS_clone3,
            args: vec![Null, Int(0)],
            errno: libc::ENOSYS,
        },
        probe("kexec_load", libc::SYS_kexec_load, vec![Int(0), Int(0), Null, Int(0xffff_ffff)]),
        probe(
            "kexec_file_load",
            libc::SYS_kexec_file_load,
            vec![Int(-1), Int(-1), Int(0), Null, Int(0xffff_ffff)],
        ),
        probe("init_module", libc::SYS_init_module, vec![Null, Int(0), Null]),
        probe("finit_module", libc::SYS_finit_module, vec![Int(-1), Null, Int(0)]),
        probe("delete_module", libc::SYS_delete_module, vec![Null, Int(0)]),
        probe("bpf", libc::SYS_bpf, vec![Int(1000), Null, Int(0)]),
        probe(
            "perf_event_open",
            libc::SYS_perf_event_open,
            vec![Null, Int(0), Int(-1), Int(-1), Int(0)],
        ),
        probe("userfaultfd", libc::SYS_userfaultfd, vec![Int(0xffff_ffff)]),
        probe("io_uring_setup", libc::SYS_io_uring_setup, vec![Int(0), Null]),
        probe(
            "io_uring_enter",
            libc::SYS_io_uring_enter,
            vec![Int(-1), Int(0), Int(0), Int(0), Null, Int(0)],
        ),
        probe(
            "io_uring_register",
            libc::SYS_io_uring_register,
            vec![Int(-1), Int(0), Null, Int(0)],
        ),
        probe("lookup_dcookie", libc::SYS_lookup_dcookie, vec![Int(0), Null, Int(0)]),
        probe("keyctl", libc::SYS_keyctl, vec![Int(0xffff), Int(0), Int(0), Int(0), Int(0)]),
        probe("add_key", libc::SYS_add_key, vec![Null, Null, Null, Int(0), Int(0)]),
        probe("request_key", libc::SYS_request_key, vec![Null, Null, Null, Int(0)]),
        probe("reboot", libc::SYS_reboot, vec![Int(0), Int(0), Int(0), Null]),
        probe("swapon", libc::SYS_swapon, vec![Str(MISSING), Int(0)]),
        probe("swapoff", libc::SYS_swapoff, vec![Str(MISSING)]),
        probe("acct", libc::SYS_acct, vec![Str(MISSING)]),
        probe("settimeofday", libc::SYS_settimeofday, vec![Null, Null]),
        probe("clock_settime", libc::SYS_clock_settime, vec![Int(0xffff), Null]),
        probe("clock_adjtime", libc::SYS_clock_adjtime, vec![Int(0xffff), Null]),
        probe("adjtimex", libc::SYS_adjtimex, vec![Null]),
        probe("syslog", libc::SYS_syslog, vec![Int(0xffff), Null, Int(0)]),
        probe("quotactl", libc::SYS_quotactl, vec![Int(0), Null, Int(0), Null]),
        probe("quotactl_fd", libc::SYS_quotactl_fd, vec![Int(-1), Int(0), Int(0), Null]),
    ];
    #[cfg(target_arch = "x86_64")]
    probes.extend([
        probe("iopl", libc::SYS_iopl, vec![Int(99)]),
        probe("ioperm", libc::SYS_ioperm, vec![Int(0x10000), Int(1), Int(0)]),
        probe("uselib", libc::SYS_uselib, vec![Null]),
        // An x32 call (keyctl) must not slip past the table: ENOSYS, as without x32.
        Probe {
            name: "x32_keyctl",
            number: 0x4000_0000 | libc::SYS_keyctl,
            args: vec![Int(0xffff), Int(0), Int(0), Int(0), Int(0)],
            errno: libc::ENOSYS,
        },
    ]);
    // Last: unconfined, it moves the probing process into a new user namespace.
    probes.push(probe("unshare", libc::SYS_unshare, vec![Int(i64::from(libc::CLONE_NEWUSER))]));
    probes
}

/// Runs every probe in one Python process; returns name → "ok" or the errno.
fn run_probes(mode: Mode, probes: &[Probe]) -> BTreeMap<String, String> {
    let mut script = String::from(
        r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def probe(name, nr, *args):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    if name.startswith("clone") and r == 0:
        os._exit(0)  # a child the call was not refused
    if name.startswith("clone") and r > 0:
        os.waitpid(r, 0)
    print(name, ctypes.get_errno() if r == -1 else "ok", flush=True)
"#,
    );
    for probe in probes {
        let args: Vec<String> = probe
            .args
            .iter()
            .map(|arg| match arg {
                Int(n) => n.to_string(),
                Str(s) => format!("b{s:?}"),
                Null => "None".to_owned(),
            })
            .collect();
        script += &format!("probe({:?}, {}, {})\n", probe.name, probe.number, args.join(", "));
    }
    run(mode, python(), &["-c", &script])
        .lines()
        .map(|line| {
            let (name, result) = line.split_once(' ').unwrap();
            (name.to_owned(), result.to_owned())
        })
        .collect()
}

fn expected(probes: &[Probe]) -> BTreeMap<String, String> {
    probes.iter().map(|p| (p.name.to_owned(), p.errno.to_string())).collect()
}

#[test]
fn the_filter_refuses_every_probe_even_with_all_capabilities() {
    let probes = probes();
    assert_eq!(run_probes(Mode::FilterOnly, &probes), expected(&probes));
}

#[test]
fn a_sandboxed_process_gets_the_exact_errnos() {
    let probes = probes();
    assert_eq!(run_probes(Mode::Full, &probes), expected(&probes));
}

/// Without the filter the same probes fail differently (or succeed): the errnos above
/// come from the filter, not from the probes' bad arguments. Only probes whose outcome
/// does not depend on host policy (lockdown, sysctls, kernel config) are compared.
#[test]
fn unconfined_the_probes_behave_differently() {
    let probes = probes();
    let got = run_probes(Mode::Unconfined, &probes);
    assert_eq!(got.len(), probes.len(), "{got:?}");
    for name in [
        "open_by_handle_at",
        "name_to_handle_at",
        "mount",
        "umount2",
        "pivot_root",
        "setns",
        "clone_newuser",
        "clone_newns",
        "clone3",
        "swapon",
        "acct",
        "settimeofday",
        "keyctl",
        "add_key",
        "unshare",
    ] {
        let probe = probes.iter().find(|p| p.name == name).unwrap();
        assert_ne!(got[name], probe.errno.to_string(), "{name} unconfined: {got:?}");
    }
}

#[test]
fn threads_fork_and_subprocesses_still_work() {
    let script = r#"
import os, subprocess, threading
t = threading.Thread(target=lambda: None)
t.start()
t.join()
pid = os.fork()
if pid == 0:
    os._exit(7)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 7, status
assert subprocess.run(["/bin/sh", "-c", "exit 3"]).returncode == 3
print("ok")
"#;
    for mode in [Mode::FilterOnly, Mode::Full] {
        assert_eq!(run(mode, python(), &["-c", script]), "ok\n", "{mode:?}");
        assert_eq!(run(mode, "/bin/sh", &["-c", "echo $(echo nested)"]), "nested\n", "{mode:?}");
    }
}

/// The fields of a `/proc/<pid>/status`.
fn status_fields(status: &str) -> BTreeMap<String, String> {
    status
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.to_owned(), value.trim().to_owned()))
        .collect()
}

fn hex(fields: &BTreeMap<String, String>, key: &str) -> u64 {
    u64::from_str_radix(&fields[key], 16).unwrap()
}

#[test]
fn a_sandboxed_process_keeps_dockers_capabilities_no_new_privs_and_two_filters() {
    let kept = KEPT_CAPABILITIES.iter().fold(0u64, |mask, cap| mask | (1u64 << cap.index()));
    assert_eq!(kept.count_ones(), 14);
    let parent = status_fields(&std::fs::read_to_string("/proc/self/status").unwrap());
    let inherited_filters: u64 = parent["Seccomp_filters"].parse().unwrap();
    // A sandbox's payload starts as root of its user namespace with every capability;
    // the test process (the host's root, or a container's) may already lack some.
    let expected_caps = kept & hex(&parent, "CapBnd");
    if hex(&parent, "CapBnd") & kept == kept {
        assert_eq!(expected_caps, kept);
    }

    let child = status_fields(&run(Mode::Full, "/bin/cat", &["/proc/self/status"]));
    assert_eq!(hex(&child, "CapBnd"), expected_caps, "{child:?}");
    assert_eq!(hex(&child, "CapPrm"), expected_caps & hex(&parent, "CapPrm"));
    assert_eq!(hex(&child, "CapEff"), expected_caps & hex(&parent, "CapPrm"));
    assert_eq!(hex(&child, "CapInh"), 0);
    assert_eq!(hex(&child, "CapAmb"), 0);
    assert_eq!(child["NoNewPrivs"], "1");
    assert_eq!(child["Seccomp"], "2");
    assert_eq!(child["Seccomp_filters"], (inherited_filters + 2).to_string());

    // Filters alone leave the capabilities and no_new_privs as they were.
    let child = status_fields(&run(Mode::FilterOnly, "/bin/cat", &["/proc/self/status"]));
    assert_eq!(hex(&child, "CapBnd"), hex(&parent, "CapBnd"));
    assert_eq!(child["NoNewPrivs"], parent["NoNewPrivs"]);
    assert_eq!(child["Seccomp"], "2");
    assert_eq!(child["Seccomp_filters"], (inherited_filters + 2).to_string());
}
