//! What a sandboxed process may still ask of the kernel: the seccomp filter and the
//! capabilities it keeps.
//!
//! Local sandboxes run code nobody has read. Its processes are root of a per-sandbox user
//! namespace; on top of the namespaces they get
//! - a capability bounding set reduced to Docker's default ([`KEPT_CAPABILITIES`]) and
//!   `no_new_privs` ([`drop_privileges`]);
//! - a seccomp filter modelled on Docker's default profile ([`PROFILE`]): a deny-list of the
//!   calls that reach host-wide state or large, bug-prone kernel surface.
//!
//! The daemon (multi-threaded) [`compile`]s the profile once and ships the raw BPF
//! ([`Program`]s of [`Instruction`]s) in the init's plan; the init (single-threaded) calls
//! [`drop_privileges`] and then [`install`] in the payload's `pre_exec`, right before
//! `execve`. Neither of those allocates: they run between `fork` and `exec`.

use std::collections::BTreeMap;
use std::io;

use caps::Capability;
use seccompiler::{
    BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule, TargetArch,
};

/// One BPF instruction (the kernel's `struct sock_filter`), serializable so the daemon can
/// ship the compiled program in the init's JSON plan.
///
/// `repr(C)` with the kernel's layout: [`install`] hands a slice of these to the kernel as is.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Instruction {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

const _: () = assert!(size_of::<Instruction>() == size_of::<libc::sock_filter>());
const _: () = assert!(align_of::<Instruction>() == align_of::<libc::sock_filter>());

impl From<seccompiler::sock_filter> for Instruction {
    fn from(insn: seccompiler::sock_filter) -> Instruction {
        Instruction { code: insn.code, jt: insn.jt, jf: insn.jf, k: insn.k }
    }
}

/// One compiled filter.
pub type Program = Vec<Instruction>;

/// When an [`Entry`] applies, beyond the syscall number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// Argument `arg` (0-based) has at least one bit of `mask` set. Compiled to one
    /// masked comparison per bit (seccompiler ORs rules and ANDs conditions).
    AnyBitSet { arg: u8, mask: u64 },
}

/// One row of the profile: calls to `syscall` (matching `condition`, if any) fail with
/// `errno` instead of running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub syscall: &'static str,
    /// The number on this architecture (`libc::SYS_*`).
    pub number: i64,
    pub errno: i32,
    /// `None`: every call is refused.
    pub condition: Option<Condition>,
    /// Why the call is refused, for reviewers.
    pub why: &'static str,
}

const fn eperm(syscall: &'static str, number: i64, why: &'static str) -> Entry {
    Entry { syscall, number, errno: libc::EPERM, condition: None, why }
}

/// The namespace flags of `clone`'s first argument (its flags, on x86_64 and aarch64 alike).
///
/// `CLONE_NEWTIME` (0x80) is deliberately absent: legacy `clone` reads the low byte of its
/// flags as the exit signal (`CSIGNAL`), so a time namespace can only be asked for through
/// `clone3` or `unshare`, both refused below; masking 0x80 would only misread exit signals.
const CLONE_NAMESPACE_FLAGS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u64;

/// `open_tree_attr` (Linux 6.15), not yet in `libc`; new syscalls share one number on
/// x86_64 and aarch64.
const SYS_OPEN_TREE_ATTR: i64 = 467;

/// The reviewed profile: a deny-list (everything not listed is allowed), modelled on
/// Docker's default seccomp profile for a container without `CAP_SYS_ADMIN`.
///
/// Deliberately *not* listed:
/// - `ptrace`, `process_vm_readv`, `process_vm_writev` (and `kcmp`, `pidfd_getfd`): debuggers
///   inside the sandbox must work, and the pid and user namespaces already keep every
///   process outside the sandbox out of reach (Docker allows them too on kernels >= 4.8);
/// - `personality`: Docker allows only a handful of argument values (0x0, 0x8, 0x20000,
///   0x20008, 0xffffffff); an allow-list of values is awkward to express here, and the
///   other values (e.g. `ADDR_NO_RANDOMIZE`, which gdb uses) affect only the caller, so the
///   call stays allowed;
/// - `chroot`: Docker keeps `CAP_SYS_CHROOT`, so do we;
/// - `modify_ldt`, and the mempolicy calls (`mbind`, `set_mempolicy`, `get_mempolicy`,
///   `move_pages`), which newer Docker profiles allow;
/// - calls the kernel no longer has (`create_module`, `query_module`, `_sysctl`,
///   `nfsservctl`, ...): they fail with `ENOSYS` anyway.
///
/// Two more rules are not rows of this table but part of every compiled filter:
/// - a call from another ABI than the native one (i386 via `int 0x80` on x86_64, AArch32 on
///   aarch64) kills the process: the table's numbers mean nothing there, and 32-bit
///   binaries therefore do not run in a sandbox (Docker allows them);
/// - on x86_64, every x32 call (numbers with bit 30 set, `__X32_SYSCALL_BIT`) fails with
///   `ENOSYS`, as on a kernel built without x32: x32 shares x86_64's audit arch, so
///   otherwise `0x40000000 | keyctl` would walk past this list.
pub const PROFILE: &[Entry] = &[
    // Escapes from the filesystem view.
    eperm(
        "open_by_handle_at",
        libc::SYS_open_by_handle_at,
        "opens any file of a host filesystem by handle (the 'shocker' escape)",
    ),
    eperm(
        "name_to_handle_at",
        libc::SYS_name_to_handle_at,
        "mints the file handles open_by_handle_at consumes",
    ),
    eperm("mount", libc::SYS_mount, "rearranges the sandbox's view of the host filesystem"),
    eperm("umount2", libc::SYS_umount2, "would uncover what the sandbox's mounts hide"),
    eperm("fsopen", libc::SYS_fsopen, "new mount API: same power as mount"),
    eperm("fsconfig", libc::SYS_fsconfig, "new mount API: same power as mount"),
    eperm("fsmount", libc::SYS_fsmount, "new mount API: same power as mount"),
    eperm("fspick", libc::SYS_fspick, "new mount API: reconfigures existing mounts"),
    eperm("move_mount", libc::SYS_move_mount, "new mount API: same power as mount"),
    eperm("open_tree", libc::SYS_open_tree, "new mount API: clones mount trees"),
    eperm("open_tree_attr", SYS_OPEN_TREE_ATTR, "new mount API: clones mount trees"),
    eperm(
        "mount_setattr",
        libc::SYS_mount_setattr,
        "new mount API: changes mount flags (e.g. makes read-only mounts writable)",
    ),
    eperm("pivot_root", libc::SYS_pivot_root, "changes the root of the mount namespace"),
    // Namespaces: the door to kernel surface otherwise reserved to the host's root.
    eperm(
        "unshare",
        libc::SYS_unshare,
        "a new user namespace grants CAP_SYS_ADMIN over fresh namespaces: large kernel surface",
    ),
    eperm("setns", libc::SYS_setns, "joins other namespaces"),
    Entry {
        syscall: "clone",
        number: libc::SYS_clone,
        errno: libc::EPERM,
        condition: Some(Condition::AnyBitSet { arg: 0, mask: CLONE_NAMESPACE_FLAGS }),
        why: "creating namespaces is refused as for unshare; plain fork and threads stay allowed",
    },
    Entry {
        syscall: "clone3",
        number: libc::SYS_clone3,
        errno: libc::ENOSYS,
        condition: None,
        why: "its flags sit in a struct seccomp cannot read; ENOSYS makes glibc fall back to \
              clone (EPERM would break thread creation)",
    },
    // The kernel itself.
    eperm("kexec_load", libc::SYS_kexec_load, "replaces the running kernel"),
    eperm("kexec_file_load", libc::SYS_kexec_file_load, "replaces the running kernel"),
    eperm("init_module", libc::SYS_init_module, "loads code into the kernel"),
    eperm("finit_module", libc::SYS_finit_module, "loads code into the kernel"),
    eperm("delete_module", libc::SYS_delete_module, "unloads kernel modules"),
    eperm("bpf", libc::SYS_bpf, "loads programs into the kernel; large, exploit-prone surface"),
    eperm(
        "perf_event_open",
        libc::SYS_perf_event_open,
        "observes the kernel and other processes; exploit-prone surface",
    ),
    eperm(
        "userfaultfd",
        libc::SYS_userfaultfd,
        "stalls the kernel mid-copy: the standard tool to win kernel races",
    ),
    eperm(
        "io_uring_setup",
        libc::SYS_io_uring_setup,
        "its operations bypass seccomp, and it is an exploit-prone surface",
    ),
    eperm("io_uring_enter", libc::SYS_io_uring_enter, "see io_uring_setup"),
    eperm("io_uring_register", libc::SYS_io_uring_register, "see io_uring_setup"),
    eperm("lookup_dcookie", libc::SYS_lookup_dcookie, "kernel profiling interface (oprofile)"),
    // Keyrings are not namespaced.
    eperm("keyctl", libc::SYS_keyctl, "the kernel keyrings are not namespaced"),
    eperm("add_key", libc::SYS_add_key, "the kernel keyrings are not namespaced"),
    eperm("request_key", libc::SYS_request_key, "the kernel keyrings are not namespaced"),
    // Host-wide state.
    eperm("reboot", libc::SYS_reboot, "reboots the host"),
    eperm("swapon", libc::SYS_swapon, "changes the host's swap"),
    eperm("swapoff", libc::SYS_swapoff, "changes the host's swap"),
    eperm("acct", libc::SYS_acct, "switches host-wide process accounting"),
    eperm("settimeofday", libc::SYS_settimeofday, "the clock is not namespaced"),
    eperm("clock_settime", libc::SYS_clock_settime, "the clock is not namespaced"),
    eperm("clock_adjtime", libc::SYS_clock_adjtime, "the clock is not namespaced"),
    eperm("adjtimex", libc::SYS_adjtimex, "the clock is not namespaced"),
    eperm("syslog", libc::SYS_syslog, "reads the kernel log: host messages and kernel addresses"),
    eperm("quotactl", libc::SYS_quotactl, "changes host filesystem quotas"),
    eperm("quotactl_fd", libc::SYS_quotactl_fd, "changes host filesystem quotas"),
    // Hardware.
    #[cfg(target_arch = "x86_64")]
    eperm("iopl", libc::SYS_iopl, "raw access to I/O ports"),
    #[cfg(target_arch = "x86_64")]
    eperm("ioperm", libc::SYS_ioperm, "raw access to I/O ports"),
    #[cfg(target_arch = "x86_64")]
    eperm("uselib", libc::SYS_uselib, "obsolete a.out loader: surface nothing needs"),
];

/// Errors of [`compile`].
#[derive(Debug, thiserror::Error)]
pub enum SeccompError {
    #[error("no seccomp profile for the {0} architecture")]
    UnsupportedArch(&'static str),
    #[error("the seccomp profile lists {0} twice")]
    Duplicate(&'static str),
    #[error("the seccomp profile's condition for {0} matches nothing")]
    EmptyCondition(&'static str),
    #[error("the seccomp profile gives {syscall} errno {errno}, outside 1..=4095")]
    BadErrno { syscall: &'static str, errno: i32 },
    #[error("compiling the seccomp filter for {what}: {source}")]
    Compile { what: String, source: BackendError },
    #[error(
        "the seccomp filter for errno {errno} has {len} instructions, more than {BPF_MAXINSNS}"
    )]
    TooLong { errno: i32, len: usize },
}

/// The kernel's limit on one filter's length.
const BPF_MAXINSNS: usize = 4096;

/// `__X32_SYSCALL_BIT`.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Compiles the profile for this architecture: the filters in install order.
///
/// A seccompiler filter has one action on match, so there is one filter per errno of the
/// table, in order of first appearance: EPERM, then ENOSYS. The kernel runs every
/// installed filter on every call and keeps the most restrictive verdict (any errno beats
/// allow), so installing them all enforces the whole table; no syscall is in two filters.
pub fn compile() -> Result<Vec<Program>, SeccompError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| SeccompError::UnsupportedArch(std::env::consts::ARCH))?;
    let mut errnos: Vec<i32> = Vec::new();
    for (i, entry) in PROFILE.iter().enumerate() {
        if PROFILE[..i].iter().any(|e| e.number == entry.number || e.syscall == entry.syscall) {
            return Err(SeccompError::Duplicate(entry.syscall));
        }
        if !(1..=4095).contains(&entry.errno) {
            return Err(SeccompError::BadErrno { syscall: entry.syscall, errno: entry.errno });
        }
        if !errnos.contains(&entry.errno) {
            errnos.push(entry.errno);
        }
    }
    errnos.into_iter().map(|errno| compile_filter(arch, errno)).collect()
}

/// The filter refusing, with `errno`, the table's entries that carry it.
fn compile_filter(arch: TargetArch, errno: i32) -> Result<Program, SeccompError> {
    let mut rules = BTreeMap::new();
    for entry in PROFILE.iter().filter(|e| e.errno == errno) {
        rules.insert(entry.number, rules_for(entry)?);
    }
    let what = |source| SeccompError::Compile { what: format!("errno {errno}"), source };
    let refuse = SeccompAction::Errno(errno.unsigned_abs());
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, refuse, arch).map_err(what)?;
    let bpf = BpfProgram::try_from(filter).map_err(what)?;

    let mut program = x32_guard();
    program.extend(bpf.into_iter().map(Instruction::from));
    if program.len() > BPF_MAXINSNS {
        return Err(SeccompError::TooLong { errno, len: program.len() });
    }
    Ok(program)
}

/// The seccompiler rules of one entry: none (match on the number alone) or one rule per
/// bit of an [`Condition::AnyBitSet`] mask.
fn rules_for(entry: &Entry) -> Result<Vec<SeccompRule>, SeccompError> {
    let Some(Condition::AnyBitSet { arg, mask }) = entry.condition else {
        return Ok(Vec::new());
    };
    if mask == 0 {
        // No rules would mean "every call": refuse rather than widen the entry.
        return Err(SeccompError::EmptyCondition(entry.syscall));
    }
    // A 32-bit mask compares the low half only, which is also all the kernel reads of
    // an `int` flags argument.
    let len =
        if mask <= u64::from(u32::MAX) { SeccompCmpArgLen::Dword } else { SeccompCmpArgLen::Qword };
    let what = |source| SeccompError::Compile { what: entry.syscall.to_owned(), source };
    (0..64)
        .map(|bit| 1u64 << bit)
        .filter(|bit| mask & bit != 0)
        .map(|bit| {
            let condition =
                SeccompCondition::new(arg, len.clone(), SeccompCmpOp::MaskedEq(bit), bit)
                    .map_err(what)?;
            SeccompRule::new(vec![condition]).map_err(what)
        })
        .collect()
}

/// x86_64: every x32 call fails with `ENOSYS` (see [`PROFILE`]). Runs before seccompiler's
/// own architecture check, which kills on any audit arch other than x86_64.
#[cfg(target_arch = "x86_64")]
fn x32_guard() -> Program {
    // Classic BPF opcodes (linux/bpf_common.h).
    const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const BPF_JMP_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS.unsigned_abs();
    vec![
        // A = seccomp_data.nr; if A >= __X32_SYSCALL_BIT return ERRNO(ENOSYS).
        Instruction { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: 0 },
        Instruction { code: BPF_JMP_JGE_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT },
        Instruction { code: BPF_RET_K, jt: 0, jf: 0, k: enosys },
    ]
}

#[cfg(not(target_arch = "x86_64"))]
fn x32_guard() -> Program {
    Vec::new()
}

/// Installs the filters on the calling thread, in order.
///
/// Made for a `pre_exec` hook after `fork`: it allocates nothing (the `sock_fprog` lives on
/// the stack). Requires `no_new_privs` (see [`drop_privileges`]) or `CAP_SYS_ADMIN` in the
/// current user namespace. Filters survive `fork`, `clone` and `execve`, and cannot be
/// removed. An empty slice or an empty or oversized program is `EINVAL`: installing
/// nothing is never what a caller meant.
pub fn install(filters: &[Program]) -> io::Result<()> {
    let invalid = || io::Error::from_raw_os_error(libc::EINVAL);
    if filters.is_empty() || filters.iter().any(|p| p.is_empty() || p.len() > BPF_MAXINSNS) {
        return Err(invalid());
    }
    for program in filters {
        let len = u16::try_from(program.len()).map_err(|_| invalid())?;
        let prog = libc::sock_fprog {
            len,
            // The kernel only reads through this pointer; `Instruction` has the layout of
            // `sock_filter` (asserted above).
            filter: program.as_ptr().cast::<libc::sock_filter>().cast_mut(),
        };
        // SAFETY: `prog` points at `len` valid instructions that outlive the call; the
        // kernel copies the program.
        let rc = unsafe {
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::c_ulong::from(libc::SECCOMP_MODE_FILTER),
                &raw const prog,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Docker's default capability set, kept in the bounding set of sandboxed processes.
pub const KEPT_CAPABILITIES: &[Capability] = &[
    Capability::CAP_CHOWN,
    Capability::CAP_DAC_OVERRIDE,
    Capability::CAP_FSETID,
    Capability::CAP_FOWNER,
    Capability::CAP_MKNOD,
    Capability::CAP_NET_RAW,
    Capability::CAP_SETGID,
    Capability::CAP_SETUID,
    Capability::CAP_SETFCAP,
    Capability::CAP_SETPCAP,
    Capability::CAP_NET_BIND_SERVICE,
    Capability::CAP_SYS_CHROOT,
    Capability::CAP_KILL,
    Capability::CAP_AUDIT_WRITE,
];

/// [`KEPT_CAPABILITIES`] as a bit mask (bit n = capability n).
const KEPT_MASK: u64 = {
    let mut mask = 0u64;
    let mut i = 0;
    while i < KEPT_CAPABILITIES.len() {
        mask |= 1u64 << (KEPT_CAPABILITIES[i] as u8);
        i += 1;
    }
    mask
};

/// Drops every capability not in [`KEPT_CAPABILITIES`] from the bounding set, clears the
/// inheritable and ambient sets, and sets `no_new_privs`.
///
/// Called in `pre_exec` after the process entered its user namespace and became uid 0
/// there (dropping from the bounding set needs `CAP_SETPCAP`), so it allocates nothing.
/// The effective and permitted sets are left alone: `execve` by uid 0 recomputes them as
/// bounding | inheritable, i.e. exactly the kept set (with `no_new_privs`, setuid bits and
/// file capabilities cannot add to it).
pub fn drop_privileges() -> io::Result<()> {
    for cap in 0..64u32 {
        if KEPT_MASK & (1u64 << cap) != 0 {
            continue;
        }
        match prctl(libc::PR_CAPBSET_DROP, cap.into()) {
            Ok(()) => {}
            // Past the kernel's last capability (they are numbered densely).
            Err(err) if err.raw_os_error() == Some(libc::EINVAL) => break,
            Err(err) => return Err(err),
        }
    }
    clear_inheritable()?;
    match prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong) {
        // EINVAL: a kernel before 4.3, without an ambient set.
        Err(err) if err.raw_os_error() != Some(libc::EINVAL) => return Err(err),
        _ => {}
    }
    prctl(libc::PR_SET_NO_NEW_PRIVS, 1)
}

/// `prctl(option, arg2, 0, 0, 0)`: the unused arguments must be zero for some options,
/// and passed at full width through the variadic call.
fn prctl(option: libc::c_int, arg2: libc::c_ulong) -> io::Result<()> {
    let zero: libc::c_ulong = 0;
    // SAFETY: integer arguments only.
    let rc = unsafe { libc::prctl(option, arg2, zero, zero, zero) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`: two `CapData`, for capabilities 0-31 and 32-63.
const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Empties this thread's inheritable set (capget + capset, no allocation; `caps::clear`
/// formats its errors).
fn clear_inheritable() -> io::Result<()> {
    let mut header = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let mut data = [CapData { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: header and two data structs, as version 3 requires.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    for half in &mut data {
        half.inheritable = 0;
    }
    // SAFETY: as above; the kernel only reads `data`.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::HashSet;

    use super::*;

    #[test]
    fn the_table_has_no_duplicates_and_every_entry_says_why() {
        let mut names = HashSet::new();
        let mut numbers = HashSet::new();
        for entry in PROFILE {
            assert!(names.insert(entry.syscall), "{} listed twice", entry.syscall);
            assert!(numbers.insert(entry.number), "number of {} listed twice", entry.syscall);
            assert!(!entry.why.trim().is_empty(), "{} has no reason", entry.syscall);
            assert!(matches!(entry.errno, libc::EPERM | libc::ENOSYS), "{}", entry.syscall);
        }
    }

    #[test]
    fn debugging_calls_stay_allowed() {
        for number in [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_personality,
            libc::SYS_chroot,
        ] {
            assert!(PROFILE.iter().all(|e| e.number != number), "{number} is refused");
        }
    }

    #[test]
    fn compiles_to_two_nonempty_programs() {
        let filters = compile().unwrap();
        assert_eq!(filters.len(), 2);
        assert!(filters.iter().all(|p| !p.is_empty() && p.len() <= BPF_MAXINSNS));
        // Serializable for the init's plan, and back.
        let json = serde_json::to_string(&filters).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Program>>(&json).unwrap(), filters);
    }

    #[test]
    fn keeps_dockers_fourteen_capabilities() {
        let distinct: HashSet<_> = KEPT_CAPABILITIES.iter().collect();
        assert_eq!(KEPT_CAPABILITIES.len(), 14);
        assert_eq!(distinct.len(), 14);
        assert!(!distinct.contains(&Capability::CAP_SYS_ADMIN));
        assert_eq!(KEPT_MASK, KEPT_CAPABILITIES.iter().fold(0, |m, c| m | c.bitmask()));
        assert_eq!(KEPT_MASK.count_ones(), 14);
    }

    #[test]
    fn install_refuses_nothing_and_empty_programs() {
        // Rejected before any prctl: the test process keeps no filter.
        assert_eq!(install(&[]).unwrap_err().raw_os_error(), Some(libc::EINVAL));
        assert_eq!(install(&[Vec::new()]).unwrap_err().raw_os_error(), Some(libc::EINVAL));
    }

    /// A classic-BPF interpreter for what the filters use: runs every filter on one call
    /// and combines the verdicts as the kernel does.
    fn verdict(filters: &[Program], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        filters
            .iter()
            .map(|program| run(program, arch, nr, args))
            // Kernel precedence: lower action values win; KILL_PROCESS (0x80000000) first.
            .min_by_key(|ret| (ret & libc::SECCOMP_RET_ACTION_FULL) as i32)
            .unwrap()
    }

    fn run(program: &[Instruction], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        let load = |k: u32| -> u32 {
            match k {
                0 => nr,
                4 => arch,
                16..=63 => {
                    let arg = args[(k as usize - 16) / 8];
                    if k.is_multiple_of(8) { arg as u32 } else { (arg >> 32) as u32 }
                }
                _ => panic!("load of seccomp_data offset {k}"),
            }
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let insn = program[pc];
            pc += 1;
            let jump = |cond: bool| if cond { insn.jt as usize } else { insn.jf as usize };
            match insn.code {
                0x20 => acc = load(insn.k),
                0x54 => acc &= insn.k,
                0x05 => pc += insn.k as usize,
                0x15 => pc += jump(acc == insn.k),
                0x25 => pc += jump(acc > insn.k),
                0x35 => pc += jump(acc >= insn.k),
                0x45 => pc += jump(acc & insn.k != 0),
                0x06 => return insn.k,
                code => panic!("unexpected BPF opcode {code:#x}"),
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    const NATIVE: u32 = 62 | 0xc000_0000;
    #[cfg(target_arch = "aarch64")]
    const NATIVE: u32 = 183 | 0xc000_0000;

    fn errno(e: i32) -> u32 {
        libc::SECCOMP_RET_ERRNO | e as u32
    }

    #[test]
    fn every_entry_gets_its_errno_and_the_rest_is_allowed() {
        let filters = compile().unwrap();
        for entry in PROFILE {
            let args = match entry.condition {
                None => [0; 6],
                Some(Condition::AnyBitSet { arg, mask }) => {
                    let mut args = [0; 6];
                    args[arg as usize] = mask;
                    args
                }
            };
            let got = verdict(&filters, NATIVE, entry.number as u32, args);
            assert_eq!(got, errno(entry.errno), "{}", entry.syscall);
        }
        for number in [libc::SYS_read, libc::SYS_ptrace, libc::SYS_execve, libc::SYS_chroot] {
            assert_eq!(verdict(&filters, NATIVE, number as u32, [0; 6]), libc::SECCOMP_RET_ALLOW);
        }
    }

    #[test]
    fn clone_is_refused_only_with_namespace_flags() {
        let filters = compile().unwrap();
        let clone =
            |flags: u64| verdict(&filters, NATIVE, libc::SYS_clone as u32, [flags, 0, 0, 0, 0, 0]);
        // What glibc's fork and pthread_create pass.
        let fork = (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID | libc::SIGCHLD) as u64;
        let thread = (libc::CLONE_VM
            | libc::CLONE_FS
            | libc::CLONE_FILES
            | libc::CLONE_SIGHAND
            | libc::CLONE_THREAD
            | libc::CLONE_SYSVSEM
            | libc::CLONE_SETTLS
            | libc::CLONE_PARENT_SETTID
            | libc::CLONE_CHILD_CLEARTID) as u64;
        assert_eq!(clone(fork), libc::SECCOMP_RET_ALLOW);
        assert_eq!(clone(thread), libc::SECCOMP_RET_ALLOW);
        for bit in 0..32 {
            let flag = 1u64 << bit;
            let expected = if CLONE_NAMESPACE_FLAGS & flag != 0 {
                errno(libc::EPERM)
            } else {
                libc::SECCOMP_RET_ALLOW
            };
            assert_eq!(clone(fork | flag), expected, "flag {flag:#x}");
        }
        assert_eq!(
            clone(libc::CLONE_NEWUSER as u64 | libc::CLONE_NEWNET as u64),
            errno(libc::EPERM)
        );
    }

    #[test]
    fn foreign_abis_are_refused() {
        let filters = compile().unwrap();
        // i386 (x86_64) or AArch32 (aarch64): killed, whatever the number.
        let foreign = if NATIVE == 183 | 0xc000_0000 { 40 | 0x4000_0000 } else { 3 | 0x4000_0000 };
        assert_eq!(verdict(&filters, foreign, 20, [0; 6]), libc::SECCOMP_RET_KILL_PROCESS);
        #[cfg(target_arch = "x86_64")]
        {
            let x32_keyctl = X32_SYSCALL_BIT | libc::SYS_keyctl as u32;
            assert_eq!(verdict(&filters, NATIVE, x32_keyctl, [0; 6]), errno(libc::ENOSYS));
            let x32_getpid = X32_SYSCALL_BIT | libc::SYS_getpid as u32;
            assert_eq!(verdict(&filters, NATIVE, x32_getpid, [0; 6]), errno(libc::ENOSYS));
        }
    }
}
