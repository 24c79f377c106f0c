//! Escapes through the kernel's interfaces: file handles, device nodes, mounts, kernel
//! knobs, keyrings, the calls behind most container breakouts, the init, and the host's
//! network. Each test runs one probe as root and as user of one sandbox.
//!
//! Most refusals come from two layers at once: the seccomp profile (EPERM before the
//! kernel looks at the arguments) and the user namespace (root inside holds its
//! capabilities only over namespaces it owns, and the init made every namespace except
//! the user namespace as host root, so root inside owns none of them).

use std::path::Path;

use super::probe::{assert_output, assert_probe, both_roles, expected};
use crate::common::{Shell, base_spec};

/// The "shocker" escape (Docker 1.0): `open_by_handle_at` with a guessed handle opens any
/// file of the filesystem a mount belongs to, whatever the mount shows.
#[test]
fn file_handles_cannot_open_host_files() {
    let (_dir, spec) = base_spec("shocker");
    let body = r#"
class Handle(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint), ("type", ctypes.c_int), ("data", ctypes.c_ubyte * 128)]

for path in (b"/", b"/home", b"/usr", b"/etc"):
    handle, mount_id = Handle(size=128), ctypes.c_int()
    out(f"name_to_handle_at({path.decode()})",
        call("name_to_handle_at", AT_FDCWD, path, ctypes.byref(handle), ctypes.byref(mount_id), 0))
# What shocker used: FILEID_INO32_GEN (1) of inode 2, the root of an ext4 filesystem,
# opened relative to any descriptor on that filesystem.
for path in ("/", "/usr", "/home"):
    handle = Handle(size=8, type=1)
    handle.data[0] = 2
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    out(f"open_by_handle_at({path})",
        call("open_by_handle_at", fd, ctypes.byref(handle), os.O_RDONLY, undo=os.close))
    os.close(fd)
"#;
    assert_probe(
        &spec,
        body,
        &[
            ("name_to_handle_at(/)", "EPERM", "EPERM"),
            ("name_to_handle_at(/home)", "EPERM", "EPERM"),
            ("name_to_handle_at(/usr)", "EPERM", "EPERM"),
            ("name_to_handle_at(/etc)", "EPERM", "EPERM"),
            ("open_by_handle_at(/)", "EPERM", "EPERM"),
            ("open_by_handle_at(/usr)", "EPERM", "EPERM"),
            ("open_by_handle_at(/home)", "EPERM", "EPERM"),
        ],
    );
}

/// A device node made inside would open the host's device (`/dev/kmsg`, a disk): mknod
/// needs CAP_MKNOD over the host, which root inside lacks (as `user`, where the directory
/// is not writable, EACCES comes first); and a node that gets in some other way (here one
/// the host plants in the sandbox's persistent /home) opens nothing on a `nodev` mount.
///
/// The mount options are pinned exactly: every writable mount is `nosuid,nodev` (the root
/// tmpfs and the `/usr`, `/etc`, `/opt` overlays too), `/dev` and `/dev/shm` also
/// `noexec`; only the devpts instance allows device nodes (its own ptys).
#[test]
fn device_nodes_cannot_be_made_or_opened() {
    let (_dir, spec) = base_spec("mknod");
    // Planted by the host in the sandbox's persistent /home: the null device (1:3), so
    // that even a successful open touches nothing.
    // Rootless, the daemon's user cannot make one either (mknod needs host root): the
    // attack has nothing to open, and the rest is the same.
    let rootless = dsh_sandboxd::rootless::blocks_inside().is_some();
    let home = spec.state_dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let planted = make_null_node(&home.join("planted-null"));
    assert_eq!(planted.raw_os_error(), if rootless { Some(libc::EPERM) } else { Some(0) });
    let body = r#"
def mknod(path):
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 11))
    os.unlink(path)

for where in ("/tmp", "/dev", "/dev/shm", "/home/user", "/var/tmp", "/usr", "/etc"):
    out(f"mknod({where})", attempt(lambda: mknod(f"{where}/kmsg-{ROLE}")))
out("open(/home/planted-null)", attempt(lambda: os.close(os.open("/home/planted-null", os.O_RDONLY))))

mounts = {}
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    mounts[fields[4]] = fields[5]
for point in ("/", "/dev", "/dev/shm", "/dev/pts", "/tmp", "/run", "/home", "/root", "/var",
              "/usr", "/etc", "/opt", "/.dsh/bin", "/proc", "/sys"):
    out(f"options({point})", mounts.get(point, "not a mount point"))
"#;
    let rows = [
        ("mknod(/tmp)", "EPERM", "EPERM"),
        ("mknod(/dev)", "EPERM", "EACCES"),
        ("mknod(/dev/shm)", "EPERM", "EPERM"),
        ("mknod(/home/user)", "EPERM", "EPERM"),
        ("mknod(/var/tmp)", "EPERM", "EPERM"),
        ("mknod(/usr)", "EPERM", "EACCES"),
        ("mknod(/etc)", "EPERM", "EACCES"),
        (
            "open(/home/planted-null)",
            if rootless { "ENOENT" } else { "EACCES" },
            if rootless { "ENOENT" } else { "EACCES" },
        ),
        ("options(/)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/dev)", "rw,nosuid,nodev,noexec,relatime", "rw,nosuid,nodev,noexec,relatime"),
        ("options(/dev/shm)", "rw,nosuid,nodev,noexec,relatime", "rw,nosuid,nodev,noexec,relatime"),
        ("options(/dev/pts)", "rw,nosuid,noexec,relatime", "rw,nosuid,noexec,relatime"),
        ("options(/tmp)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/run)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/home)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/root)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/var)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/usr)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/etc)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/opt)", "rw,nosuid,nodev,relatime", "rw,nosuid,nodev,relatime"),
        ("options(/.dsh/bin)", "ro,nosuid,nodev,relatime", "ro,nosuid,nodev,relatime"),
        ("options(/proc)", "rw,nosuid,nodev,noexec,relatime", "rw,nosuid,nodev,noexec,relatime"),
        ("options(/sys)", "ro,nosuid,nodev,noexec,relatime", "ro,nosuid,nodev,noexec,relatime"),
    ];
    assert_probe(&spec, body, &rows);
}

/// mknod's result: an error with raw code 0 when the node was made.
fn make_null_node(path: &Path) -> std::io::Error {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mknod with a valid C string; 1:3 is the null device.
    let made = unsafe { libc::mknod(c_path.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made == 0 { std::io::Error::from_raw_os_error(0) } else { std::io::Error::last_os_error() }
}

/// Mounts rearrange what the sandbox sees of the host: remounting /sys read-write, a new
/// tmpfs, cgroup v1 (the `release_agent` escape starts with mounting it), proc, a bind of
/// /, the new mount API (fsopen, open_tree, mount_setattr), and unmounting a mask.
#[test]
fn mounts_cannot_be_made_or_undone() {
    let (_dir, spec) = base_spec("mount");
    let body = r#"
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
MNT_DETACH = 2

def sys_back_read_only(_):
    raw("mount", None, b"/sys", None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)

out("remount(/sys, rw)", call("mount", None, b"/sys", None, MS_REMOUNT, None, undo=sys_back_read_only))
out("remount(/sys, bind rw)",
    call("mount", None, b"/sys", None, MS_REMOUNT | MS_BIND, None, undo=sys_back_read_only))
out("remount(/proc/sys, bind rw)",
    call("mount", None, b"/proc/sys", None, MS_REMOUNT | MS_BIND, None,
         undo=lambda _: raw("mount", None, b"/proc/sys", None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)))
target = f"/tmp/mnt-{ROLE}".encode()
os.makedirs(target, exist_ok=True)
unmount = lambda _: raw("umount2", target, MNT_DETACH)
out("mount(tmpfs)", call("mount", b"tmpfs", target, b"tmpfs", 0, None, undo=unmount))
out("mount(cgroup rdma)", call("mount", b"cgroup", target, b"cgroup", 0, b"rdma", undo=unmount))
out("mount(cgroup2)", call("mount", b"cgroup2", target, b"cgroup2", 0, None, undo=unmount))
out("mount(proc)", call("mount", b"proc", target, b"proc", 0, None, undo=unmount))
out("mount(bind /)", call("mount", b"/", target, None, MS_BIND, None, undo=unmount))
out("fsopen(ext4)", call("fsopen", b"ext4", 0, undo=os.close))
out("fsopen(tmpfs)", call("fsopen", b"tmpfs", 0, undo=os.close))
out("open_tree(/, clone)", call("open_tree", AT_FDCWD, b"/", 1, undo=os.close))

class MountAttr(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]

clear_read_only = MountAttr(0, 1, 0, 0)
out("mount_setattr(/sys, rw)",
    call("mount_setattr", AT_FDCWD, b"/sys", 0, ctypes.byref(clear_read_only), ctypes.sizeof(MountAttr),
         undo=sys_back_read_only))
out("umount2(/proc/keys)", call("umount2", b"/proc/keys", MNT_DETACH))
out("umount2(/proc/sys)", call("umount2", b"/proc/sys", MNT_DETACH))
out("umount2(/sys/firmware)", call("umount2", b"/sys/firmware", MNT_DETACH))
out("pivot_root(/tmp, /tmp)", call("pivot_root", b"/tmp", b"/tmp"))
out("mount command", run("mount", "-t", "tmpfs", "none", "/tmp"))
"#;
    // mount(8) reads the failure differently for root and for a user.
    let root_mount = "exit 32: mount: /tmp: permission denied.";
    let user_mount = "exit 32: mount: /tmp: must be superuser to use mount.";
    assert_probe(
        &spec,
        body,
        &[
            ("remount(/sys, rw)", "EPERM", "EPERM"),
            ("remount(/sys, bind rw)", "EPERM", "EPERM"),
            ("remount(/proc/sys, bind rw)", "EPERM", "EPERM"),
            ("mount(tmpfs)", "EPERM", "EPERM"),
            ("mount(cgroup rdma)", "EPERM", "EPERM"),
            ("mount(cgroup2)", "EPERM", "EPERM"),
            ("mount(proc)", "EPERM", "EPERM"),
            ("mount(bind /)", "EPERM", "EPERM"),
            ("fsopen(ext4)", "EPERM", "EPERM"),
            ("fsopen(tmpfs)", "EPERM", "EPERM"),
            ("open_tree(/, clone)", "EPERM", "EPERM"),
            ("mount_setattr(/sys, rw)", "EPERM", "EPERM"),
            ("umount2(/proc/keys)", "EPERM", "EPERM"),
            ("umount2(/proc/sys)", "EPERM", "EPERM"),
            ("umount2(/sys/firmware)", "EPERM", "EPERM"),
            ("pivot_root(/tmp, /tmp)", "EPERM", "EPERM"),
            ("mount command", root_mount, user_mount),
        ],
    );
}

/// Kernel knobs that run host programs as host root (`core_pattern`, `modprobe`) or act
/// on the host (`sysrq-trigger`, sysfs) must not open for writing (the probe opens, never
/// writes); Docker's masked files read as empty, and the masked directories are empty.
///
/// The paths that exist depend on the kernel's configuration, so each row is derived from
/// the host: a path missing on the host is missing inside too (ENOENT). On this machine
/// (6.18, no CONFIG_MODULES or CONFIG_MAGIC_SYSRQ) `modprobe`, `sysrq-trigger`,
/// `uevent_helper`, `kcore`, `latency_stats`, `timer_stats`, `sched_debug`, `asound`,
/// `scsi` and `powercap` are missing; `keys`, `timer_list`, `acpi` and `firmware` exist.
///
/// A knob that exists opens with EACCES (or EROFS: see below), before the read-only
/// mounts over `/proc/sys`,
/// `/proc/sysrq-trigger` and `/sys` get to say EROFS: the permission check comes first,
/// and it sees the knobs' owner, host root, which root inside is not (it is uid
/// `host_base` on the host, so the "other" bits apply: r-- or nothing).
#[test]
fn kernel_knobs_cannot_be_opened_for_writing_and_masked_files_are_empty() {
    let (_dir, spec) = base_spec("knobs");
    let knobs = [
        "/proc/sys/kernel/core_pattern",
        "/proc/sys/kernel/modprobe",
        "/proc/sysrq-trigger",
        "/proc/sys/kernel/hostname",
        "/proc/sys/vm/drop_caches",
        "/sys/kernel/uevent_helper",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ];
    let masked_files = [
        "/proc/kcore",
        "/proc/keys",
        "/proc/timer_list",
        "/proc/latency_stats",
        "/proc/timer_stats",
        "/proc/sched_debug",
    ];
    let masked_dirs = [
        "/proc/acpi",
        "/proc/asound",
        "/proc/scsi",
        "/sys/firmware",
        "/sys/devices/virtual/powercap",
    ];
    let body = format!(
        r#"
def open_for_writing(path):
    os.close(os.open(path, os.O_WRONLY))   # never write()

for path in {knobs:?}:
    out(f"open_wronly({{path}})", attempt(lambda: open_for_writing(path)))
for path in {masked_files:?}:
    out(f"read({{path}})", read(path))
for path in {masked_dirs:?}:
    out(f"listdir({{path}})", attempt(lambda: ",".join(sorted(os.listdir(path))) or "empty"))
"#
    );
    let on_host = |path: &str, present: &'static str| {
        if Path::new(path).exists() { present } else { "ENOENT" }
    };
    let mut rows: Vec<(String, &str)> = Vec::new();
    // A sandbox with a network namespace of its own has a sysfs superblock of its own,
    // mounted read-only (rootless sandboxes always do): EROFS comes before the owner's
    // check there. Sharing the host's network, it shares the host's superblock.
    let refusal = |p: &str| match p.starts_with("/sys/") && spec.net.is_own_namespace() {
        true => "EROFS",
        false => "EACCES",
    };
    rows.extend(knobs.iter().map(|p| (format!("open_wronly({p})"), on_host(p, refusal(p)))));
    rows.extend(masked_files.iter().map(|p| (format!("read({p})"), on_host(p, "empty"))));
    rows.extend(masked_dirs.iter().map(|p| (format!("listdir({p})"), on_host(p, "empty"))));
    let rows: Vec<(&str, &str, &str)> =
        rows.iter().map(|(label, result)| (label.as_str(), *result, *result)).collect();
    assert_probe(&spec, &body, &rows);
}

/// The kernel keyrings are not namespaced: a key added or read inside would be the
/// host's (or another sandbox's) under the same uid.
#[test]
fn kernel_keyrings_are_unreachable() {
    let (_dir, spec) = base_spec("keys");
    let body = r#"
KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING = -2, -3, -4
out("keyctl(get session keyring)", call("keyctl", 0, KEY_SPEC_SESSION_KEYRING, 0))
out("keyctl(get user keyring)", call("keyctl", 0, KEY_SPEC_USER_KEYRING, 0))
out("keyctl(join session keyring)", call("keyctl", 1, None))
out("add_key(user)", call("add_key", b"user", b"dsh-escape-probe", b"x", 1, KEY_SPEC_PROCESS_KEYRING))
out("request_key(user)", call("request_key", b"user", b"dsh-escape-probe", None, 0))
out("read(/proc/keys)", read("/proc/keys"))
out("read(/proc/key-users)", read("/proc/key-users"))
"#;
    assert_probe(
        &spec,
        body,
        &[
            ("keyctl(get session keyring)", "EPERM", "EPERM"),
            ("keyctl(get user keyring)", "EPERM", "EPERM"),
            ("keyctl(join session keyring)", "EPERM", "EPERM"),
            ("add_key(user)", "EPERM", "EPERM"),
            ("request_key(user)", "EPERM", "EPERM"),
            ("read(/proc/keys)", "empty", "empty"),
            ("read(/proc/key-users)", "empty", "empty"),
        ],
    );
}

/// The calls behind most kernel exploits and container breakouts, and new namespaces
/// (a user namespace of its own would hand root inside CAP_SYS_ADMIN over fresh mount
/// and network namespaces: a large kernel surface). Arguments are chosen so that a call
/// that got through would still fail or do nothing.
#[test]
fn kernel_attack_surface_and_new_namespaces_are_refused() {
    let (_dir, spec) = base_spec("surface");
    let body = r#"
def clone_with(flags):
    # Fork-like (no new stack); a child that got created leaves at once.
    pid = raw("clone", flags | 17, 0, None, None, 0)
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return ename(-pid)
    os.waitpid(pid, 0)
    return "ok"

out("bpf(map create)", call("bpf", 0, None, 0, undo=os.close))
out("perf_event_open", call("perf_event_open", None, 0, -1, -1, 0, undo=os.close))
out("userfaultfd", call("userfaultfd", os.O_CLOEXEC, undo=os.close))
out("io_uring_setup", call("io_uring_setup", 1, None, undo=os.close))
out("kexec_load", call("kexec_load", 0, 0, None, 0))
out("kexec_file_load", call("kexec_file_load", -1, -1, 0, None, 0))
out("init_module", call("init_module", None, 0, b""))
out("finit_module", call("finit_module", -1, b"", 0))
out("delete_module", call("delete_module", b"dsh_no_such_module", os.O_NONBLOCK))
out("syslog(size of the kernel log)", call("syslog", 10, None, 0))
out("reboot(bad magic)", call("reboot", 0, 0, 0, None))
out("swapon(NULL)", call("swapon", None, 0))
out("settimeofday(NULL, NULL)", call("settimeofday", None, None))
out("clone3", call("clone3", None, 0))
out("unshare(user)", call("unshare", CLONE_NEWUSER))
out("unshare(mount)", call("unshare", CLONE_NEWNS))
out("unshare(net)", call("unshare", CLONE_NEWNET))
out("clone(user)", clone_with(CLONE_NEWUSER))
out("clone(pid)", clone_with(CLONE_NEWPID))
uts = os.open("/proc/self/ns/uts", os.O_RDONLY)
out("setns(own uts)", call("setns", uts, 0))
os.close(uts)
out("unshare -Ur true", run("unshare", "-Ur", "true"))
out("unshare -m true", run("unshare", "-m", "true"))
"#;
    let unshare = "exit 1: unshare: unshare failed: Operation not permitted";
    assert_probe(
        &spec,
        body,
        &[
            ("bpf(map create)", "EPERM", "EPERM"),
            ("perf_event_open", "EPERM", "EPERM"),
            ("userfaultfd", "EPERM", "EPERM"),
            ("io_uring_setup", "EPERM", "EPERM"),
            ("kexec_load", "EPERM", "EPERM"),
            ("kexec_file_load", "EPERM", "EPERM"),
            ("init_module", "EPERM", "EPERM"),
            ("finit_module", "EPERM", "EPERM"),
            ("delete_module", "EPERM", "EPERM"),
            ("syslog(size of the kernel log)", "EPERM", "EPERM"),
            ("reboot(bad magic)", "EPERM", "EPERM"),
            ("swapon(NULL)", "EPERM", "EPERM"),
            ("settimeofday(NULL, NULL)", "EPERM", "EPERM"),
            ("clone3", "ENOSYS", "ENOSYS"),
            ("unshare(user)", "EPERM", "EPERM"),
            ("unshare(mount)", "EPERM", "EPERM"),
            ("unshare(net)", "EPERM", "EPERM"),
            ("clone(user)", "EPERM", "EPERM"),
            ("clone(pid)", "EPERM", "EPERM"),
            ("setns(own uts)", "EPERM", "EPERM"),
            ("unshare -Ur true", unshare, unshare),
            ("unshare -m true", unshare, unshare),
        ],
    );
}

/// The init (pid 1) stays host root outside the sandbox's user namespace: nothing inside
/// may trace it, signal it, take its descriptors or read through its /proc entries (its
/// root and descriptors lead out of the sandbox's view).
#[test]
fn the_init_cannot_be_traced_signalled_or_read() {
    let (_dir, spec) = base_spec("init");
    let body = r#"
def attach(request):
    result = call("ptrace", request, 1, None, None)
    if result == "ok":
        raw("ptrace", 17, 1, None, None)   # PTRACE_DETACH
    return result

out("ptrace(attach 1)", attach(16))
out("ptrace(seize 1)", attach(0x4206))
out("kill(1, SIGKILL)", attempt(lambda: os.kill(1, 9)))
out("kill(1, SIGTERM)", attempt(lambda: os.kill(1, 15)))
pidfd = raw("pidfd_open", 1, 0)
out("pidfd_open(1)", "ok" if pidfd >= 0 else ename(-pidfd))
out("pidfd_getfd(1, 3)", call("pidfd_getfd", pidfd, 3, 0, undo=os.close))
out("pidfd_send_signal(1, SIGKILL)", call("pidfd_send_signal", pidfd, 9, None, 0))
time.sleep(0.1)
out("init alive", open("/proc/1/comm").read().strip())
for path in ("/proc/1/exe", "/proc/1/root", "/proc/1/cwd", "/proc/1/fd/3", "/proc/1/ns/user", "/proc/1/ns/mnt"):
    out(f"readlink({path})", attempt(lambda: os.readlink(path)))
for path in ("/proc/1/environ", "/proc/1/mem", "/proc/1/auxv", "/proc/1/stack", "/proc/1/syscall"):
    out(f"read({path})", read(path))
for path in ("/proc/1/fd", "/proc/1/root/", "/proc/1/map_files"):
    out(f"listdir({path})", attempt(lambda: ",".join(sorted(os.listdir(path)))))
out("cmdline(1)", open("/proc/1/cmdline", "rb").read())
"#;
    assert_probe(
        &spec,
        body,
        &[
            ("ptrace(attach 1)", "EPERM", "EPERM"),
            ("ptrace(seize 1)", "EPERM", "EPERM"),
            ("kill(1, SIGKILL)", "EPERM", "EPERM"),
            ("kill(1, SIGTERM)", "EPERM", "EPERM"),
            ("pidfd_open(1)", "ok", "ok"),
            ("pidfd_getfd(1, 3)", "EPERM", "EPERM"),
            ("pidfd_send_signal(1, SIGKILL)", "EPERM", "EPERM"),
            ("init alive", "dsh-sandbox-ini", "dsh-sandbox-ini"),
            ("readlink(/proc/1/exe)", "EACCES", "EACCES"),
            ("readlink(/proc/1/root)", "EACCES", "EACCES"),
            ("readlink(/proc/1/cwd)", "EACCES", "EACCES"),
            ("readlink(/proc/1/fd/3)", "EACCES", "EACCES"),
            ("readlink(/proc/1/ns/user)", "EACCES", "EACCES"),
            ("readlink(/proc/1/ns/mnt)", "EACCES", "EACCES"),
            ("read(/proc/1/environ)", "EACCES", "EACCES"),
            ("read(/proc/1/mem)", "EACCES", "EACCES"),
            ("read(/proc/1/auxv)", "EACCES", "EACCES"),
            ("read(/proc/1/stack)", "EACCES", "EACCES"),
            ("read(/proc/1/syscall)", "EACCES", "EACCES"),
            ("listdir(/proc/1/fd)", "EACCES", "EACCES"),
            ("listdir(/proc/1/root/)", "EACCES", "EACCES"),
            ("listdir(/proc/1/map_files)", "EACCES", "EACCES"),
            ("cmdline(1)", "b'dsh-sandbox-init\\x00'", "b'dsh-sandbox-init\\x00'"),
        ],
    );
}

/// The sandbox shares the host's network namespace (`Net::Host`) but holds no capability
/// over it: no interfaces, no raw or packet sockets. (A private network is later work;
/// reachability over it is not tested here.)
#[test]
fn no_capability_over_the_host_network() {
    let (_dir, spec) = base_spec("netcap");
    let link = "/sys/class/net/dshprobe0";
    let body = r#"
def link_add():
    result = run("/usr/sbin/ip", "link", "add", "dshprobe0", "type", "dummy")
    if result.startswith("exit 0"):
        subprocess.run(["/usr/sbin/ip", "link", "del", "dshprobe0"])
        return "ok (deleted again)"
    return result

def open_socket(family, kind, proto):
    socket.socket(family, kind, proto).close()

out("ip link add dummy", link_add())
out("socket(inet, raw, icmp)", attempt(lambda: open_socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)))
out("socket(packet, raw)", attempt(lambda: open_socket(socket.AF_PACKET, socket.SOCK_RAW, 0)))
out("exists(dshprobe0)", os.path.exists("/sys/class/net/dshprobe0"))
"#;
    let done = Shell::start(&spec, &both_roles(body)).finish();
    if Path::new(link).exists() {
        let _ = std::process::Command::new("ip").args(["link", "del", "dshprobe0"]).status();
        panic!("the sandbox created a network interface on the host:\n{}", done.stdout);
    }
    let denied = "exit 2: RTNETLINK answers: Operation not permitted";
    assert_output(
        &done,
        &expected(&[
            ("ip link add dummy", denied, denied),
            ("socket(inet, raw, icmp)", "EPERM", "EPERM"),
            ("socket(packet, raw)", "EPERM", "EPERM"),
            ("exists(dshprobe0)", "False", "False"),
        ]),
    );
}
