//! Reaching TCP ports inside a sandbox from the daemon.
//!
//! A sandbox with a network of its own listens only in its own network namespace, where
//! nothing of the host (nor of another sandbox) can connect. The daemon holds a handle to
//! that namespace and opens its connections there: a short-lived thread enters the
//! namespace, makes the socket and exits; the socket stays in the namespace it was made
//! in, and tokio connects it like any other. (`setns` changes only the calling thread,
//! which is why that thread is never one tokio reuses.)

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use tokio::net::{TcpSocket, TcpStream};

/// Where a sandbox's ports are: the host's network, or its own namespace.
#[derive(Debug, Clone)]
pub enum Reach {
    /// `net = "host"`: its ports are the host's.
    Host,
    /// Its own network namespace (a handle to it, held while the sandbox runs).
    Namespace(Arc<OwnedFd>),
}

impl Reach {
    /// The network namespace of the process `pid` (the sandbox's init).
    pub fn of_process(pid: u32) -> io::Result<Reach> {
        let file = std::fs::File::open(format!("/proc/{pid}/ns/net"))?;
        Ok(Reach::Namespace(Arc::new(OwnedFd::from(file))))
    }

    /// A connection to `port` on the sandbox's loopback, with TCP_NODELAY.
    pub async fn connect(&self, port: u16) -> io::Result<TcpStream> {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let stream = match self {
            Reach::Host => TcpStream::connect(addr).await?,
            Reach::Namespace(netns) => {
                let socket = socket_in(Arc::clone(netns), None).await?;
                socket.connect(addr).await?
            }
        };
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

/// A TCP socket made inside `netns`, with `mark` (`SO_MARK`) if given.
pub async fn socket_in(netns: Arc<OwnedFd>, mark: Option<u32>) -> io::Result<TcpSocket> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new().name("dsh-netns".into()).stack_size(64 * 1024).spawn(
        move || {
            let _ = sender.send(make_socket(&netns, mark));
        },
    )?;
    let fd = receiver.await.map_err(|_| io::Error::other("the netns thread died"))??;
    // SAFETY: `fd` is a fresh, non-blocking TCP socket that nothing else owns.
    Ok(unsafe { TcpSocket::from_raw_fd(std::os::fd::IntoRawFd::into_raw_fd(fd)) })
}

/// Runs on a thread of its own, which ends right after: it never goes back to the host's
/// namespace, so nothing else can run in the sandbox's by mistake.
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
