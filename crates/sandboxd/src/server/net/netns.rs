//! Reaching TCP ports inside a sandbox from the daemon.
//!
//! A sandbox with a network of its own listens only in its own network namespace, where
//! nothing of the host (nor of another sandbox) can connect. The daemon holds a handle to
//! that namespace and opens its connections there: a thread of its own enters the
//! namespace and makes the socket; the socket stays in the namespace it was made in, and
//! tokio connects it like any other. (`setns` changes only the calling thread, which is
//! why that thread is never one tokio uses: it does nothing but make sockets, entering
//! each request's namespace and then going back to the host's, so it is kept rather than
//! started for each socket, which cost a connection 0.2-0.5 ms, and holds no sandbox's
//! namespace alive. An ordinary user's daemon may not enter its own namespace again:
//! there the kept thread stays in the first sandbox's, making no socket there again, and
//! every socket gets a thread of its own.)

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use tokio::net::{TcpSocket, TcpStream};

use anyhow::{Context as _, bail};

/// Where a sandbox's ports are: the host's network, or its own namespace.
#[derive(Debug, Clone)]
pub enum Reach {
    /// `net = "host"`: its ports are the host's.
    Host,
    /// Its own network namespace (a handle to it, held while the sandbox runs), and the
    /// address its ports are at there: its loopback, or a gVisor sandbox's guest
    /// address (`gvisor_net.rs`).
    Namespace(Arc<OwnedFd>, Ipv4Addr),
}

impl Reach {
    /// The network namespace of the process `pid` (the sandbox's init), its ports on
    /// that namespace's loopback.
    pub fn of_process(pid: u32) -> io::Result<Reach> {
        let file = std::fs::File::open(format!("/proc/{pid}/ns/net"))?;
        Ok(Reach::Namespace(Arc::new(OwnedFd::from(file)), Ipv4Addr::LOCALHOST))
    }

    /// The network namespace pinned at `pin`, its ports at `address` there.
    pub fn of_pin(pin: &std::path::Path, address: Ipv4Addr) -> io::Result<Reach> {
        let file = std::fs::File::open(pin)?;
        Ok(Reach::Namespace(Arc::new(OwnedFd::from(file)), address))
    }

    /// A connection to `port` of the sandbox, with TCP_NODELAY.
    pub async fn connect(&self, port: u16) -> io::Result<TcpStream> {
        let stream = match self {
            Reach::Host => {
                TcpStream::connect(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?
            }
            Reach::Namespace(netns, address) => {
                let addr = SocketAddr::from((*address, port));
                let socket = socket_in(Arc::clone(netns), None).await?;
                socket.connect(addr).await?
            }
        };
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

/// A request to the socket maker: the namespace, the mark, and where the socket goes.
type SocketRequest = (Arc<OwnedFd>, Option<u32>, tokio::sync::oneshot::Sender<io::Result<OwnedFd>>);

type Maker = std::sync::Mutex<Option<std::sync::mpsc::Sender<SocketRequest>>>;

/// The socket maker's queue; its thread is started on first use, and again if it ended.
fn socket_maker(fresh: bool) -> io::Result<std::sync::mpsc::Sender<SocketRequest>> {
    static MAKER: std::sync::OnceLock<Maker> = std::sync::OnceLock::new();
    let mut maker = MAKER.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let (Some(sender), false) = (maker.as_ref(), fresh) {
        return Ok(sender.clone());
    }
    let home = std::fs::File::open("/proc/thread-self/ns/net").map(OwnedFd::from)?;
    let (sender, requests) = std::sync::mpsc::channel::<SocketRequest>();
    std::thread::Builder::new().name("dsh-netns".into()).stack_size(64 * 1024).spawn(
        move || {
            let mut returns_home = true;
            for (netns, mark, reply) in requests {
                if !returns_home {
                    // A thread of its own per socket, which ends right after.
                    let spawned = std::thread::Builder::new()
                        .name("dsh-netns-once".into())
                        .stack_size(64 * 1024)
                        .spawn(move || {
                            let _ = reply.send(make_socket(&netns, mark));
                        });
                    if let Err(e) = spawned {
                        tracing::warn!(error = %e, "no thread to make a socket in a sandbox");
                    }
                    continue;
                }
                let _ = reply.send(make_socket(&netns, mark));
                // SAFETY: setns affects this thread only. A thread that cannot go back
                // (an ordinary user's daemon may not enter the namespace it started in)
                // makes no socket here again: every later one gets a thread of its own.
                if unsafe { libc::setns(home.as_raw_fd(), libc::CLONE_NEWNET) } == -1 {
                    tracing::debug!(error = %io::Error::last_os_error(), "the netns thread cannot return to the daemon's namespace; a thread per socket from now on");
                    returns_home = false;
                }
            }
        },
    )?;
    *maker = Some(sender.clone());
    Ok(sender)
}

/// A TCP socket made inside `netns`, with `mark` (`SO_MARK`) if given.
pub async fn socket_in(netns: Arc<OwnedFd>, mark: Option<u32>) -> io::Result<TcpSocket> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let request = (netns, mark, sender);
    if let Err(std::sync::mpsc::SendError(request)) = socket_maker(false)?.send(request) {
        // The thread ended: a new one.
        socket_maker(true)?.send(request).map_err(|_| io::Error::other("the netns thread died"))?;
    }
    let fd = receiver.await.map_err(|_| io::Error::other("the netns thread died"))??;
    // SAFETY: `fd` is a fresh, non-blocking TCP socket that nothing else owns.
    Ok(unsafe { TcpSocket::from_raw_fd(std::os::fd::IntoRawFd::into_raw_fd(fd)) })
}

/// Runs on the socket maker's thread only, which does nothing else: whichever namespace
/// it was left in, nothing can run there by mistake.
fn make_socket(netns: &OwnedFd, mark: Option<u32>) -> io::Result<OwnedFd> {
    // SAFETY: setns, socket and setsockopt are plain system calls (setsockopt reads an
    // int that lives across the call); setns affects this thread only.
    unsafe {
        if libc::setns(netns.as_raw_fd(), libc::CLONE_NEWNET) == -1 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::socket(
            libc::AF_INET,
            libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        );
        if fd == -1 {
            return Err(io::Error::last_os_error());
        }
        let fd = OwnedFd::from_raw_fd(fd);
        if let Some(mark) = mark {
            let value = libc::c_int::from_ne_bytes(mark.to_ne_bytes());
            let set = libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_MARK,
                (&raw const value).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            if set == -1 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(fd)
    }
}

/// Bind-mounts `source` (a namespace file) onto `target` (an existing file): a pin.
pub(crate) fn bind(source: &str, target: &Path) -> std::io::Result<()> {
    let nul = |_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in a path");
    let source = std::ffi::CString::new(source).map_err(nul)?;
    let target = std::ffi::CString::new(target.as_os_str().as_encoded_bytes()).map_err(nul)?;
    // SAFETY: both are valid NUL-terminated paths; a bind mount takes no data.
    let ret = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        )
    };
    if ret == -1 { Err(std::io::Error::last_os_error()) } else { Ok(()) }
}

/// Runs `program args` in the network namespace pinned at `pin`, `input` on its standard
/// input; its standard error is the error when it fails. Blocking (10 s at most).
pub(crate) fn run_in(pin: &Path, program: &str, args: &[&str], input: &str) -> anyhow::Result<()> {
    let namespace = std::fs::File::open(pin).context("opening the pinned namespace")?;
    let fd = namespace.as_raw_fd();
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: setns is async-signal-safe; it moves only the forked child.
    unsafe {
        command.pre_exec(move || {
            if libc::setns(fd, libc::CLONE_NEWNET) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().with_context(|| format!("running {program}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).with_context(|| format!("writing to {program}"))?;
    }
    let output = crate::command::wait_with_timeout(child, Duration::from_secs(10))?;
    if !output.status.success() {
        bail!("{}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

/// Makes a network namespace on a thread of its own (see `spare_netns::new_namespace_pinned_at`),
/// pins it at `pin` (an existing empty file) and runs `then` in it.
pub(crate) fn pin_new_namespace<T: Send + 'static>(
    pin: &Path,
    then: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    let pin = pin.to_owned();
    std::thread::Builder::new()
        .name("dsh-netns-new".into())
        .spawn(move || {
            // SAFETY: unshare(CLONE_NEWNET) moves only this thread, which ends afterwards.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } == -1 {
                return Err(std::io::Error::last_os_error());
            }
            bind("/proc/thread-self/ns/net", &pin)?;
            then()
        })?
        .join()
        .map_err(|_| std::io::Error::other("the namespace thread panicked"))?
}
