//! Local sandboxes for an ordinary user, as rootless Podman runs containers.
//!
//! A process that is not root re-executes itself in a user namespace of its own (with a
//! mount namespace), whose ids map to the user's: id 0 inside is the user, and ids from
//! [`BLOCKS_START`] on are the user's subordinate ids (`/etc/subuid`, `/etc/subgid`,
//! mapped by the setuid helpers `newuidmap`/`newgidmap`, the one place privilege is
//! used). Inside, the daemon is root over what the user owns: it makes the sandboxes'
//! namespaces, mounts and networks exactly as it does as root, and hands each sandbox a
//! block of 65,536 of the subordinate ids, so root inside a sandbox is a subordinate id
//! of the user on the host, never the user and never root.
//!
//! What root has and a user's namespace cannot (idmapped mounts of the host's files,
//! cgroups nobody delegated, a loop-mounted btrfs image for quotas) is left out and said
//! once; `docs/sandboxes.md` has the table.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

use crate::ids::IdRange;
pub use crate::ids::{BLOCKS_START, blocks_inside};
use crate::requirements::{self, MissingTools, Need};

/// The environment variable that tells the re-executed process which descriptors talk
/// to its parent (`read,write`).
const STAGE_ENV: &str = "DSH_ROOTLESS_SYNC";

/// How long the parent waits for the child to make its namespace.
const UNSHARE_TIMEOUT: Duration = Duration::from_secs(10);

/// A range of subordinate ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubIds {
    pub start: u32,
    pub count: u32,
}

/// The largest range `/etc/subuid`-style `text` gives the user named `user` (or
/// numbered `id`).
pub fn sub_ids(text: &str, user: &str, id: u32) -> Option<SubIds> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.trim().split(':');
            let owner = fields.next()?;
            let start = fields.next()?.trim().parse().ok()?;
            let count = fields.next()?.trim().parse().ok()?;
            (owner == user || owner == id.to_string()).then_some(SubIds { start, count })
        })
        .max_by_key(|ids| ids.count)
}

/// Why sandboxes cannot run as this user.
#[derive(Debug, thiserror::Error)]
pub enum RootlessError {
    #[error("{0}")]
    Tools(MissingTools),
    #[error(
        "unprivileged user namespaces are unavailable ({0}); enable them (sysctl), or run dsh as root"
    )]
    UserNamespaces(String),
    #[error(
        "{file} gives {user} no subordinate ids, and each sandbox needs 65536 of its own; as root: usermod --add-subuids {suggested} --add-subgids {suggested} {user}"
    )]
    NoRange { file: &'static str, user: String, suggested: String },
    #[error(
        "{file} gives {user} {count} subordinate ids, fewer than one sandbox's 65536; as root: usermod --add-subuids {suggested} --add-subgids {suggested} {user}"
    )]
    TooFew { file: &'static str, user: String, count: u32, suggested: String },
    #[error("{program} refused to map {user}'s ids: {message}")]
    Map { program: &'static str, user: String, message: String },
    #[error("{context}: {source}")]
    Io {
        context: &'static str,
        #[source]
        source: io::Error,
    },
}

fn io_error(context: &'static str) -> impl FnOnce(io::Error) -> RootlessError {
    move |source| RootlessError::Io { context, source }
}

/// Who the user is and which subordinate ids are theirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub uid: u32,
    pub gid: u32,
    pub uids: SubIds,
    pub gids: SubIds,
}

impl Identity {
    /// This process's user, checked for everything [`enter`] needs.
    pub fn of_this_process() -> Result<Identity, RootlessError> {
        let uid = rustix::process::getuid().as_raw();
        let gid = rustix::process::getgid().as_raw();
        let missing = requirements::missing(&[Need::Rootless], None);
        if !missing.is_empty() {
            return Err(RootlessError::Tools(MissingTools(missing)));
        }
        crate::privileges::unprivileged_user_namespaces().map_err(RootlessError::UserNamespaces)?;
        let user = user_name(uid).unwrap_or_else(|| uid.to_string());
        let read = |file: &'static str| -> Result<SubIds, RootlessError> {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let suggested = suggested_range(uid);
            match sub_ids(&text, &user, uid) {
                None => Err(RootlessError::NoRange { file, user: user.clone(), suggested }),
                Some(ids) if ids.count < IdRange::SIZE => Err(RootlessError::TooFew {
                    file,
                    user: user.clone(),
                    count: ids.count,
                    suggested,
                }),
                Some(ids) => Ok(ids),
            }
        };
        let uids = read("/etc/subuid")?;
        let gids = read("/etc/subgid")?;
        Ok(Identity { user, uid, gid, uids, gids })
    }

    /// How many sandboxes may run at once: one id block each.
    pub fn blocks(&self) -> u32 {
        self.uids.count.min(self.gids.count) / IdRange::SIZE
    }

    /// `newuidmap`'s arguments for `pid`: id 0 is the user, the blocks their subuids.
    fn map_args(&self, pid: u32, own: u32, sub: SubIds) -> Vec<String> {
        [pid, 0, own, 1, BLOCKS_START, sub.start, self.blocks() * IdRange::SIZE]
            .iter()
            .map(u32::to_string)
            .collect()
    }
}

/// A range for `usermod --add-subuids`: 64 blocks, numbered after the uid, above the
/// ranges `useradd` hands out and below the root daemon's blocks (from 2^30); a
/// suggestion, any free range works.
fn suggested_range(uid: u32) -> String {
    let size = 64 * u64::from(IdRange::SIZE);
    let start = (1u64 << 28) + u64::from(uid % 64) * size;
    format!("{start}-{}", start + size - 1)
}

/// The name `/etc/passwd` gives `uid`.
fn user_name(uid: u32) -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        (fields.nth(1)? == uid.to_string()).then(|| name.to_owned())
    })
}

/// Whether this process is root on the host (not root of a user's namespace).
pub fn is_host_root() -> bool {
    rustix::process::geteuid().is_root() && blocks_inside().is_none()
}

/// Adds the system directories an ordinary user's `PATH` often lacks (Debian puts
/// `nft` in `/usr/sbin`) to this process's, so the daemon finds what root's would.
///
/// # Safety
/// Changes the environment: call it while the process has one thread.
pub unsafe fn add_system_dirs_to_path() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<std::path::PathBuf> = std::env::split_paths(&path).collect();
    for dir in ["/usr/local/sbin", "/usr/sbin", "/sbin"] {
        if !dirs.iter().any(|d| d == std::path::Path::new(dir)) {
            dirs.push(dir.into());
        }
    }
    if let Ok(joined) = std::env::join_paths(dirs) {
        // SAFETY: the caller promises a single thread.
        unsafe { std::env::set_var("PATH", joined) };
    }
}

/// The device pasta opens for a private network; root opens it whatever its mode.
pub const TUN_DEVICE: &str = "/dev/net/tun";

/// Whether this process may open [`TUN_DEVICE`] (an ordinary user's pasta must); else
/// what to do.
pub fn tun_usable() -> Result<(), String> {
    // SAFETY: access reads the NUL-terminated path only.
    if unsafe { libc::access(c"/dev/net/tun".as_ptr(), libc::R_OK | libc::W_OK) } == 0 {
        return Ok(());
    }
    Err(format!(
        "{TUN_DEVICE} is not open to this user ({}), and pasta needs it for the sandboxes' private networks; as root: chmod 0666 {TUN_DEVICE} (udev's default mode for it)",
        io::Error::last_os_error()
    ))
}

/// What [`enter`] did.
#[derive(Debug)]
pub enum Entered {
    /// This process goes on: it is root on the host (nothing was done), or it is the
    /// re-executed process, now root of the user's namespace.
    Continue,
    /// This process was the user's: the re-executed one ran and exited with this code.
    Exited(i32),
}

/// Puts the rest of this program in the user's namespace. Call it first thing in
/// `main`, while the process has one thread (a process with more cannot make a user
/// namespace). Real root: nothing to do.
pub fn enter() -> Result<Entered, RootlessError> {
    if let Some(fds) = std::env::var_os(STAGE_ENV) {
        // SAFETY: the variable is removed while the process has one thread (see above).
        unsafe { std::env::remove_var(STAGE_ENV) };
        child_stage(&fds)?;
        return Ok(Entered::Continue);
    }
    if rustix::process::geteuid().is_root() {
        return Ok(Entered::Continue);
    }
    let identity = Identity::of_this_process()?;
    parent_stage(&identity).map(Entered::Exited)
}

fn pipe() -> Result<(OwnedFd, OwnedFd), RootlessError> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(io_error("making a pipe")(io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The signals the user's process passes on to the one in the namespace.
const RELAYED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The user's side: starts this program again, maps its ids once it has made its
/// namespace, then waits for it, passing on the signals sent to this process (a
/// terminal's Ctrl-C reaches both already), and returns its exit code.
fn parent_stage(identity: &Identity) -> Result<i32, RootlessError> {
    // Blocked before the child exists, so none is lost; the child unblocks them (std
    // keeps a spawned child's mask as it was).
    let mut set = empty_sigset();
    for signal in RELAYED.iter().chain(&[libc::SIGCHLD]) {
        // SAFETY: sigaddset only writes into `set`.
        unsafe { libc::sigaddset(&mut set, *signal) };
    }
    // SAFETY: blocks signals of this (single) thread.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };

    let (to_child_read, to_child) = pipe()?;
    let (from_child, from_child_write) = pipe()?;
    let inherited = [to_child_read.as_raw_fd(), from_child_write.as_raw_fd()];
    let mut command = Command::new("/proc/self/exe");
    let mut args = std::env::args_os();
    if let Some(arg0) = args.next() {
        command.arg0(arg0);
    }
    command.args(args).env(STAGE_ENV, format!("{},{}", inherited[0], inherited[1]));
    // SAFETY: fcntl and sigprocmask are async-signal-safe; they clear close-on-exec on
    // our two ends and empty the child's signal mask.
    unsafe {
        command.pre_exec(move || {
            for fd in inherited {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(io::Error::last_os_error());
                }
            }
            let empty = empty_sigset();
            if libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut()) == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn().map_err(io_error("starting dsh in the user's namespace"))?;
    drop((to_child_read, from_child_write));
    let pid = child.id();

    let mapped = wait_for_byte(&from_child, UNSHARE_TIMEOUT).and_then(|()| {
        for (program, own, sub) in
            [("newuidmap", identity.uid, identity.uids), ("newgidmap", identity.gid, identity.gids)]
        {
            map_ids(program, &identity.user, identity.map_args(pid, own, sub))?;
        }
        Ok(())
    });
    if let Err(e) = mapped {
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        let _ = wait_exit(pid, &set);
        return Err(e);
    }
    let mut go = std::fs::File::from(to_child);
    go.write_all(b"g").map_err(io_error("telling dsh in the user's namespace to go on"))?;
    wait_exit(pid, &set)
}

fn map_ids(program: &'static str, user: &str, args: Vec<String>) -> Result<(), RootlessError> {
    let output = Command::new(program).args(&args).output().map_err(|e| RootlessError::Map {
        program,
        user: user.to_owned(),
        message: e.to_string(),
    })?;
    if output.status.success() {
        return Ok(());
    }
    Err(RootlessError::Map {
        program,
        user: user.to_owned(),
        message: format!(
            "{} ({program} {})",
            String::from_utf8_lossy(&output.stderr).trim(),
            args.join(" ")
        ),
    })
}

/// Waits (at most `timeout`) for the child's one byte; its absence means it could not
/// make its namespace (it says why on stderr).
fn wait_for_byte(fd: &OwnedFd, timeout: Duration) -> Result<(), RootlessError> {
    let mut poll = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    let millis = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: poll reads and writes only `poll`.
        let ready = unsafe { libc::poll(&mut poll, 1, millis) };
        if ready == -1 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        if ready <= 0 {
            return Err(io_error("waiting for dsh to make the user's namespace")(io::Error::new(
                io::ErrorKind::TimedOut,
                "no answer",
            )));
        }
        break;
    }
    let mut byte = [0u8; 1];
    let mut file = std::fs::File::from(fd.try_clone().map_err(io_error("reading the child"))?);
    match file.read(&mut byte) {
        Ok(1) => Ok(()),
        _ => Err(RootlessError::UserNamespaces(
            "the re-executed dsh could not make its user namespace".into(),
        )),
    }
}

/// Waits for the child, relaying the signals someone sent this process; its exit code
/// (128 + the signal that ended it).
fn wait_exit(pid: u32, set: &libc::sigset_t) -> Result<i32, RootlessError> {
    loop {
        if let Some(code) = reap(pid)? {
            return Ok(code);
        }
        // SAFETY: a zeroed siginfo_t is a valid buffer for sigwaitinfo to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waits for one of the blocked signals of `set`.
        let signal = unsafe { libc::sigwaitinfo(set, &mut info) };
        // A terminal's signals (si_code SI_KERNEL) reach the child from the terminal;
        // those sent with kill(2) to this process are passed on.
        if RELAYED.contains(&signal) && info.si_code <= 0 {
            // SAFETY: kill on our own child's pid.
            unsafe { libc::kill(pid as libc::pid_t, signal) };
        }
    }
}

/// The child's exit code once it has ended, reaped.
fn reap(pid: u32) -> Result<Option<i32>, RootlessError> {
    let mut status = 0;
    // SAFETY: waitpid writes only `status`.
    let ret = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
    if ret == -1 {
        let error = io::Error::last_os_error();
        if error.kind() == io::ErrorKind::Interrupted {
            return Ok(None);
        }
        return Err(io_error("waiting for dsh in the user's namespace")(error));
    }
    if ret == 0 {
        return Ok(None);
    }
    if libc::WIFEXITED(status) {
        return Ok(Some(libc::WEXITSTATUS(status)));
    }
    Ok(Some(128 + libc::WTERMSIG(status)))
}

fn empty_sigset() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set it is given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        set
    }
}

/// The re-executed side: makes the user and mount namespaces, lets the parent map the
/// ids, and goes on as root of the namespace.
fn child_stage(fds: &std::ffi::OsStr) -> Result<(), RootlessError> {
    let parse = |text: Option<&str>| text.and_then(|t| t.parse::<RawFd>().ok());
    let text = fds.to_string_lossy();
    let mut parts = text.split(',');
    let (Some(read_fd), Some(write_fd)) = (parse(parts.next()), parse(parts.next())) else {
        return Err(RootlessError::UserNamespaces(format!("{STAGE_ENV} is malformed")));
    };
    // SAFETY: the parent passed these two descriptors to us alone.
    let (go, ready) = unsafe { (OwnedFd::from_raw_fd(read_fd), OwnedFd::from_raw_fd(write_fd)) };
    // Dies with the user's process (an agent that kills its MCP server kills this).
    // SAFETY: prctl with constant arguments.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    // SAFETY: unshare on a single-threaded process (see `enter`).
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } == -1 {
        return Err(RootlessError::UserNamespaces(io::Error::last_os_error().to_string()));
    }
    let mut ready = std::fs::File::from(ready);
    ready.write_all(b"r").map_err(io_error("telling the user's dsh the namespace is made"))?;
    drop(ready);
    let mut byte = [0u8; 1];
    let mut go = std::fs::File::from(go);
    if go.read(&mut byte).ok() != Some(1) {
        return Err(RootlessError::UserNamespaces("the user's dsh did not map the ids".into()));
    }
    // The ids are mapped: this process is root of the namespace, with every capability
    // in it. Its mounts stay its own; the host's still reach it.
    // SAFETY: mount with constant arguments changes only propagation.
    let ret = unsafe {
        libc::mount(
            c"none".as_ptr(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        )
    };
    if ret == -1 {
        return Err(io_error("making the namespace's mounts its own")(io::Error::last_os_error()));
    }
    Ok(())
}

/// Runs `program` with `args` in the user's namespace (after [`enter`]): `dsh sandbox
/// unshare`, for tools and tests that look at sandboxes as the daemon sees them.
pub fn exec(program: &OsString, args: &[OsString]) -> io::Error {
    Command::new(program).args(args).exec()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_largest_range_of_the_user_by_name_or_id_is_theirs() {
        let text = "alice:100000:65536\nbob:165536:65536\n1001:300000:1048576\nbad line\n";
        assert_eq!(sub_ids(text, "alice", 1000), Some(SubIds { start: 100000, count: 65536 }));
        assert_eq!(sub_ids(text, "carol", 1001), Some(SubIds { start: 300000, count: 1048576 }));
        assert_eq!(sub_ids(text, "dave", 1002), None);
    }

    #[test]
    fn the_maps_give_the_user_id_0_and_whole_blocks_of_subordinate_ids() {
        let identity = Identity {
            user: "alice".into(),
            uid: 1000,
            gid: 1000,
            uids: SubIds { start: 100000, count: 3 * 65536 + 5 },
            gids: SubIds { start: 200000, count: 2 * 65536 },
        };
        assert_eq!(identity.blocks(), 2);
        assert_eq!(
            identity.map_args(42, 1000, identity.uids),
            ["42", "0", "1000", "1", "65536", "100000", "131072"]
        );
    }

    #[test]
    fn the_suggested_range_is_64_blocks_below_the_root_daemon_s() {
        assert_eq!(suggested_range(1000), "436207616-440401919");
    }
}
