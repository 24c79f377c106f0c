//! The sandbox's pid 1 (`dsh-sandbox-init`).
//!
//! The launcher clones this process into a new pid namespace, so it starts as pid 1 with
//! the host's filesystem still visible. It then
//! 1. takes the control socket (fd 3) and reads the plan,
//! 2. applies the plan (user namespace, new mount/uts/ipc(/net) namespaces, mounts,
//!    `pivot_root`, rlimits),
//! 3. starts the payload in its own process group and reports its pid; with strict
//!    isolation the payload first enters the user namespace as its root, keeps only
//!    Docker's capabilities, sets `no_new_privs` and installs the seccomp filters,
//!    while the init itself stays outside (host root, unreachable from inside: another
//!    user namespace's processes cannot ptrace or signal it),
//! 4. stays pid 1: reaps every orphan, forwards termination signals to the payload's
//!    process group, and exits with the payload's status when the payload exits, which
//!    makes the kernel kill everything left in the namespace.
//!
//! It is single-threaded, so `unshare` is safe here (it is never called in the daemon).

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::Command;

use crate::exec;
use crate::plan::Step;
use crate::seccomp;
use crate::syscall::{LinuxSyscall, Resource};
use crate::wire::{CONTROL_FD, GO, InitConfig, MAX_PLAN_BYTES, Report};

/// Signals pid 1 passes on to the payload's process group.
const FORWARDED: &[libc::c_int] = &[
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGTERM,
    libc::SIGALRM,
    libc::SIGWINCH,
    libc::SIGCONT,
    libc::SIGTSTP,
];

/// Entry point of the `dsh-sandbox-init` binary (also usable as a hidden subcommand of
/// another binary). Never returns.
pub fn main() -> ! {
    let code = match run() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("dsh-sandbox-init: {message}");
            1
        }
    };
    std::process::exit(code)
}

fn run() -> Result<i32, String> {
    if rustix::process::getpid().as_raw_nonzero().get() != 1 {
        return Err("not pid 1 of a new pid namespace; only dsh-sandboxd starts this".into());
    }
    // SAFETY: F_GETFD only inspects the descriptor table.
    if unsafe { libc::fcntl(CONTROL_FD, libc::F_GETFD) } == -1 {
        return Err("no control socket on fd 3; only dsh-sandboxd starts this".into());
    }
    // SAFETY: fd 3 is the control socket the launcher placed there for us, and nothing
    // else in this process owns it.
    let control = unsafe { OwnedFd::from_raw_fd(CONTROL_FD) };
    // SAFETY: plain fcntl/close_range on our own descriptors; nothing else holds fds > 3.
    unsafe {
        libc::fcntl(CONTROL_FD, libc::F_SETFD, libc::FD_CLOEXEC);
        // Anything else the daemon leaked to us must not reach the sandbox.
        libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
        // Our own session: signals to the daemon's process group or terminal stay there.
        libc::setsid();
    }
    let waited = block_signals();
    let mut control = UnixStream::from(control);

    let mut length = [0u8; 8];
    control.read_exact(&mut length).map_err(|e| format!("reading the plan's length: {e}"))?;
    let length = u64::from_le_bytes(length);
    if length > MAX_PLAN_BYTES {
        return Err(format!("a plan of {length} bytes (at most {MAX_PLAN_BYTES})"));
    }
    let mut raw = vec![0u8; length as usize];
    control.read_exact(&mut raw).map_err(|e| format!("reading the plan: {e}"))?;
    let config: InitConfig =
        serde_json::from_slice(&raw).map_err(|e| format!("decoding the plan: {e}"))?;

    // RLIMIT_NPROC is set in the payload, once it is the sandbox's root: set here it
    // would count the init's own user's processes at the payload's fork (a daemon of an
    // ordinary user runs as that user, whose other processes would use up the limit).
    let (nproc, steps): (Vec<Step>, Vec<Step>) = config
        .steps
        .into_iter()
        .partition(|step| matches!(step, Step::SetRlimit { resource: Resource::Nproc, .. }));
    let nproc = nproc.iter().find_map(|step| match step {
        Step::SetRlimit { limit, .. } => Some(*limit),
        _ => None,
    });
    // The cgroup namespace is rooted where the init is when it is made: that must be the
    // sandbox's own cgroup, which the launcher moves the init into while the rest is set
    // up, so it is made after `GO` below.
    let mut cgroup_namespace = false;
    let steps: Vec<Step> = steps
        .into_iter()
        .map(|step| match step {
            Step::Unshare { mut namespaces } if namespaces.cgroup => {
                cgroup_namespace = true;
                namespaces.cgroup = false;
                Step::Unshare { namespaces }
            }
            other => other,
        })
        .collect();
    let sys = LinuxSyscall::new();
    if let Err(failure) = exec::apply(&sys, &steps) {
        send(
            &mut control,
            &Report::SetupFailed {
                errno: failure.source.raw_os_error(),
                message: failure.source.to_string(),
                step: failure.step,
            },
        );
        return Ok(1);
    }

    // Nothing of the sandbox's may run before the init is in the sandbox's cgroup: the
    // launcher says so with `GO`; an end of file means it is gone.
    let mut go = [0u8; 1];
    match control.read(&mut go) {
        Ok(1) if go[0] == GO => {}
        Ok(_) => return Err("the launcher went away before the sandbox was in its cgroup".into()),
        Err(e) => return Err(format!("waiting for the launcher's go-ahead: {e}")),
    }
    if cgroup_namespace {
        let namespaces = crate::syscall::Namespaces { cgroup: true, ..Default::default() };
        if let Err(e) = crate::syscall::Syscall::unshare(&sys, namespaces) {
            let step = Step::Unshare { namespaces };
            let message = e.to_string();
            send(&mut control, &Report::SetupFailed { errno: e.raw_os_error(), message, step });
            return Ok(1);
        }
    }

    let mut command = Command::new(&config.program);
    command
        .args(config.args.iter().map(|a| OsStr::from_bytes(a)))
        .env_clear()
        .envs(config.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&config.workdir)
        .process_group(0);
    let user_namespace = sys.user_namespace();
    if config.confine.is_some() && user_namespace.is_none() {
        let message = "strict isolation without a user namespace in the plan".to_owned();
        send(&mut control, &Report::SpawnFailed { errno: None, message });
        return Ok(127);
    }
    let filters = config.confine.map(|confine| confine.seccomp);
    // The init blocks the signals it forwards (for sigwaitinfo); std does not reset the
    // mask of a spawned child, so without this the payload would start with SIGTERM,
    // SIGINT, ... blocked and never see the signals the init forwards to it.
    // SAFETY: the init is single-threaded, so the forked child may run this code; it
    // touches only the child's own signal mask, credentials and namespaces.
    unsafe {
        command.pre_exec(move || {
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            if libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut()) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if filters.is_some() {
                become_namespace_root(user_namespace)?;
            }
            if let Some(limit) = nproc {
                let limit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                if libc::setrlimit(libc::RLIMIT_NPROC, &limit) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(filters) = &filters {
                seccomp::drop_privileges()?;
                seccomp::install(filters)?;
            }
            Ok(())
        });
    }
    let spawned = command.spawn();
    let payload = match spawned {
        Ok(child) => child.id(),
        Err(e) => {
            send(
                &mut control,
                &Report::SpawnFailed { errno: e.raw_os_error(), message: e.to_string() },
            );
            return Ok(127);
        }
    };
    // Keep the socket: when the daemon's end closes (its handle dropped, or the daemon
    // killed), the kernel raises SIGIO and the sandbox ends with its owner. Armed before
    // `Ready`, since the owner may let go as soon as it reads that; a close that came
    // even earlier is caught by the check `supervise` makes first.
    arm_lifeline(&control);
    send(&mut control, &Report::Ready { payload_pid: payload });
    Ok(supervise(payload as libc::pid_t, &waited, control.as_raw_fd()))
}

/// Enters the sandbox's user namespace (full capabilities there, none on the host) and
/// becomes its root with no supplementary groups.
///
/// # Safety
/// Only in a forked child of the single-threaded init, right before exec.
unsafe fn become_namespace_root(user_namespace: Option<libc::c_int>) -> std::io::Result<()> {
    let check = |ret: libc::c_int| {
        if ret == -1 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
    };
    let Some(fd) = user_namespace else {
        return Err(std::io::Error::other("no user namespace to enter"));
    };
    // SAFETY: plain system calls on this process's own credentials and namespaces.
    unsafe {
        check(libc::setns(fd, libc::CLONE_NEWUSER))?;
        check(libc::setgroups(0, std::ptr::null()))?;
        check(libc::setresgid(0, 0, 0))?;
        check(libc::setresuid(0, 0, 0))
    }
}

fn send(control: &mut UnixStream, report: &Report) {
    // If the launcher is gone there is nobody to tell; the exit status still says it.
    if let Ok(mut bytes) = serde_json::to_vec(report) {
        bytes.push(b'\n');
        let _ = control.write_all(&bytes);
    }
}

/// Asks for SIGIO (queued for `sigwaitinfo`) when the control socket changes state.
fn arm_lifeline(control: &UnixStream) {
    let fd = control.as_raw_fd();
    // SAFETY: fcntl on our own descriptor; F_SETOWN names this process.
    unsafe {
        libc::fcntl(fd, libc::F_SETOWN, libc::getpid());
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_ASYNC | libc::O_NONBLOCK);
    }
}

/// Whether the daemon's end of the control socket is closed.
fn daemon_gone(fd: libc::c_int) -> bool {
    let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, zero timeout.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready > 0 && poll.revents & (libc::POLLHUP | libc::POLLERR) != 0
}

/// Resets the dispositions we rely on and blocks the signals we wait for, so they queue
/// for `sigwaitinfo` (pid 1 would otherwise drop signals it has no handler for).
fn block_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data initialised by sigemptyset; signal/sigprocmask only
    // change this (single-threaded) process's signal state.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &sig in FORWARDED.iter().chain(&[libc::SIGCHLD, libc::SIGIO]) {
            libc::signal(sig, libc::SIG_DFL);
            libc::sigaddset(&mut set, sig);
        }
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

fn supervise(payload: libc::pid_t, waited: &libc::sigset_t, lifeline: libc::c_int) -> i32 {
    if daemon_gone(lifeline) {
        // pid 1 exiting takes every process of the namespace with it.
        return 128 + libc::SIGKILL;
    }
    loop {
        // SAFETY: `waited` is an initialised set; a null siginfo pointer is allowed.
        let sig = unsafe { libc::sigwaitinfo(waited, std::ptr::null_mut()) };
        if sig == libc::SIGCHLD {
            if let Some(code) = reap(payload) {
                return code;
            }
        } else if sig == libc::SIGIO {
            if daemon_gone(lifeline) {
                // pid 1 exiting takes every process of the namespace with it.
                return 128 + libc::SIGKILL;
            }
        } else if sig > 0 {
            forward(payload, sig);
        } else if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // Cannot wait for signals any more: fall back to waiting for the payload.
            return wait_blocking(payload);
        }
    }
}

/// Reaps every exited child; returns the payload's exit code if it was among them.
fn reap(payload: libc::pid_t) -> Option<i32> {
    let mut payload_code = None;
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes only into `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return payload_code;
        }
        if pid == payload {
            payload_code = Some(exit_code(status));
        }
    }
}

fn wait_blocking(payload: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes only into `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == payload {
            return exit_code(status);
        }
        if pid < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return 1;
        }
    }
}

/// The payload's own code, or 128 + signal like a shell reports it (pid 1 cannot
/// re-raise a signal on itself).
fn exit_code(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

fn forward(payload: libc::pid_t, sig: libc::c_int) {
    // SAFETY: kill only sends a signal.
    unsafe {
        // The payload's group first (its children too); if it left that group, itself.
        if libc::kill(-payload, sig) == -1 {
            libc::kill(payload, sig);
        }
    }
}
