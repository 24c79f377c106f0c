//! Connections to a sandbox's ports: where a port is reached (the host's loopback, or
//! the sandbox's own network namespace), one request on a fresh connection, and the
//! connections the proxy keeps alive between requests.

use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

use crate::server::netns::Reach;

/// A TCP port of a sandbox: envd's, or one its code listens on.
#[derive(Debug, Clone)]
pub struct Port {
    pub reach: Reach,
    pub port: u16,
}

impl std::fmt::Display for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reach {
            Reach::Host => write!(f, "127.0.0.1:{} (host network)", self.port),
            Reach::Namespace(_, address) => {
                write!(f, "{address}:{} (sandbox network)", self.port)
            }
        }
    }
}

/// envd's port in E2B, and the default of `E2b-Sandbox-Port`.
pub use dsh_proto::ENVD_PORT;
/// One HTTP/1.1 request on a fresh connection to `to` (loopback: connecting costs
/// microseconds), with TCP_NODELAY. The response body streams.
pub async fn send<B>(to: &Port, request: Request<B>) -> Result<Response<Incoming>, BoxError>
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let mut kept = connect(to).await?;
    Ok(kept.sender.send_request(request).await?)
}

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The body of a request sent over a kept connection (whatever the client's was).
pub type RequestBody = http_body_util::combinators::UnsyncBoxBody<bytes::Bytes, BoxError>;

/// Idle connections kept per sandbox port.
pub(crate) const IDLE_PER_PORT: usize = 8;

/// A connection to a sandbox port: hyper's handle, and a duplicate of its socket to look
/// at before the connection is used again.
pub struct Kept<B> {
    pub(crate) sender: hyper::client::conn::http1::SendRequest<B>,
    socket: std::os::fd::OwnedFd,
}

impl<B> Kept<B> {
    /// Whether the connection may still carry requests: hyper has not closed it and, if
    /// it is between exchanges, neither has the sandbox.
    pub(crate) fn open(&self) -> bool {
        if self.sender.is_closed() {
            return false;
        }
        !self.sender.is_ready() || !self.closed_by_peer()
    }

    /// Whether the sandbox side closed the connection (or sent bytes nobody asked for)
    /// since its last exchange ended: a live idle connection has nothing to read. hyper
    /// notices a close only once its connection task runs again; a request sent before
    /// that meets the close ("connection closed before message completed") and cannot be
    /// sent again. envd closes a connection right after answering a request whose body
    /// it did not read (a 507 for an upload to a full disk, say).
    fn closed_by_peer(&self) -> bool {
        let mut byte = 0u8;
        // SAFETY: recv(2) into one byte we own, on a socket we hold; it only peeks.
        let peeked = unsafe {
            libc::recv(
                std::os::fd::AsRawFd::as_raw_fd(&self.socket),
                (&raw mut byte).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        let nothing_to_read = peeked < 0
            && matches!(
                std::io::Error::last_os_error().raw_os_error(),
                Some(libc::EAGAIN | libc::EINTR)
            );
        !nothing_to_read
    }
}

pub(crate) async fn connect<B>(to: &Port) -> Result<Kept<B>, BoxError>
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let stream = to.reach.connect(to.port).await?;
    let socket = std::os::fd::AsFd::as_fd(&stream).try_clone_to_owned()?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        if let Err(e) = conn.with_upgrades().await {
            tracing::debug!(error = %e, "a sandbox connection ended with an error");
        }
    });
    Ok(Kept { sender, socket })
}
