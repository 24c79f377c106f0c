//! Two sandboxes side by side, in distinct uid blocks: A must not see, signal or reach
//! anything of B (processes, files, shared memory, keyrings), and their processes run as
//! different host uids.

use super::probe::{assert_probe, hex, host_base, host_pid_of, host_status, in_slot};
use crate::common::{Shell, base_spec, unique};

#[test]
fn a_sandbox_cannot_see_signal_or_read_its_neighbour() {
    // Two adjacent blocks, chosen from this test process's pid so that concurrent runs
    // rarely share them.
    let slot = match dsh_sandboxd::rootless::blocks_inside() {
        // An ordinary user's namespace maps only its subordinate ids' blocks.
        Some(blocks) => (std::process::id() % (blocks / 2).max(1)) * 2,
        None => 8192 + (std::process::id() % 4096) * 2,
    };
    let (_dir_a, mut spec_a) = base_spec("neighbour-a");
    let (_dir_b, mut spec_b) = base_spec("neighbour-b");
    let base_a = in_slot(&mut spec_a, slot);
    let base_b = in_slot(&mut spec_b, slot + 1);
    assert_ne!(base_a, base_b);

    // B: files in /tmp, /home/user and /dev/shm, a System V shared memory segment, and
    // processes as root and as user, all kept alive while A probes.
    let mark = unique("dsh-escape-b");
    let shm_key = 0x05ec_0000 + std::process::id() % 0xffff;
    let script_b = format!(
        "echo secret > /tmp/{mark}; echo secret > /home/user/{mark}; echo secret > /dev/shm/{mark}\n\
         python3 -c 'import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); \
         sys.exit(libc.shmget({shm_key}, 4096, 0o1666) < 0)' || echo shmget failed\n\
         sleep 30 & r=$!\n\
         setpriv --reuid=1000 --regid=1000 --clear-groups sleep 30 & u=$!\n\
         for p in $r $u; do c=; while [ \"$c\" != sleep ]; do read c < /proc/$p/comm; done; done\n\
         echo \"ready $u\"; wait\n"
    );
    let mut b = Shell::start(&spec_b, &script_b);
    let ready = b.read_line();
    let user_sleeper: u32 =
        ready.strip_prefix("ready ").unwrap_or_else(|| panic!("B: {ready}")).parse().unwrap();
    let b_pids = b.host_pids();
    let b_payload = host_pid_of(&b, 3);
    let b_user = host_pid_of(&b, user_sleeper);
    let b_state = std::fs::canonicalize(&spec_b.state_dir).unwrap();

    // A: the same probe as root and as user.
    let body = format!(
        r#"
B_PIDS = {b_pids:?}
MARK = {mark:?}
def pidfd_open(pid):
    fd = raw("pidfd_open", pid, 0)
    if fd < 0:
        raise OSError(-fd, os.strerror(-fd))
    os.close(fd)

def results(action):
    return ",".join(sorted({{attempt(lambda: action(pid)) for pid in B_PIDS}}))

visible = {{int(p) for p in os.listdir("/proc") if p.isdigit()}}
out("pids besides the init, the shell and this probe", sorted(visible - {{1, 3, os.getpid()}}))
out("exists(/proc/<B's host pids>)", any(os.path.exists(f"/proc/{{pid}}") for pid in B_PIDS))
out("kill(B's host pids, 0)", results(lambda pid: os.kill(pid, 0)))
out("kill(B's host pids, SIGKILL)", results(lambda pid: os.kill(pid, 9)))
out("pidfd_open(B's host pids)", results(pidfd_open))
for where in ("/tmp", "/home/user", "/dev/shm"):
    out(f"exists({{where}}/<B's file>)", os.path.exists(f"{{where}}/{{MARK}}"))
out("exists(B's state dir)", os.path.exists(bytes.fromhex({state_hex:?}).decode()))
libc.shmget.restype = ctypes.c_int
ctypes.set_errno(0)
found = libc.shmget({shm_key}, 0, 0)
out("shmget(B's key)", "ok" if found >= 0 else ename(ctypes.get_errno()))
out("keyctl(get user keyring)", call("keyctl", 0, -4, 0))
"#,
        state_hex = hex(b_state.as_os_str().as_encoded_bytes()),
    );
    assert_probe(
        &spec_a,
        &body,
        &[
            ("pids besides the init, the shell and this probe", "[]", "[]"),
            ("exists(/proc/<B's host pids>)", "False", "False"),
            ("kill(B's host pids, 0)", "ESRCH", "ESRCH"),
            ("kill(B's host pids, SIGKILL)", "ESRCH", "ESRCH"),
            ("pidfd_open(B's host pids)", "ESRCH", "ESRCH"),
            ("exists(/tmp/<B's file>)", "False", "False"),
            ("exists(/home/user/<B's file>)", "False", "False"),
            ("exists(/dev/shm/<B's file>)", "False", "False"),
            ("exists(B's state dir)", "False", "False"),
            ("shmget(B's key)", "ENOENT", "ENOENT"),
            ("keyctl(get user keyring)", "EPERM", "EPERM"),
        ],
    );

    // B is untouched, and its processes run as B's host ids, not A's.
    assert!(b.process.try_wait().unwrap().is_none(), "B died");
    assert_eq!(b.host_pids(), b_pids, "B lost processes");
    let uid = |pid: u32| host_status(pid)["Uid"].split(' ').next().unwrap().parse::<u32>().unwrap();
    assert_eq!(uid(b_payload), base_b);
    assert_eq!(uid(b_user), base_b + 1000);
    assert_eq!(host_base(&spec_b), base_b);
    assert!(base_a + 65536 <= base_b, "the blocks overlap");
    b.process.kill().unwrap();
}
