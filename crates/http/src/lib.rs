//! Bounded HTTP serving for dsh's servers (the sandbox daemon's control plane and proxy,
//! and envd): no client can hold the server hostage.
//!
//! - **A cap on connections.** Past [`Limits::max_connections`] a new connection gets a
//!   `503` with E2B's error body and is closed; at most [`REFUSING_AT_ONCE`] refusals are
//!   written at a time, further ones are closed without an answer. The cap keeps the
//!   server's file descriptors for the connections it serves.
//! - **Header and idle timeouts** (hyper's own, with a timer): a client must send a whole
//!   request head within [`Limits::header_read_timeout`], and an idle keep-alive
//!   connection is closed after the same time (hyper starts that timer whenever it waits
//!   for a head). A slow or stalled client is dropped; a silent response stream (a command
//!   with no output yet) is not affected: the timer runs only while a head is awaited.
//!   HTTP/2 connections are pinged; a peer that stops answering is dropped.
//! - **A bounded graceful shutdown**: open connections get [`Limits::shutdown_grace`] to
//!   finish, then are aborted.
//! - [`bind`] listens with a deep backlog; [`raise_open_files_limit`] lifts the soft
//!   descriptor limit to the hard one.
//!
//! Handlers see the connection through `ConnectInfo<C>`, where `C` is what the caller's
//! `connect_info` makes of the socket.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// Refusals (503s) written at once; a flood beyond them is closed unanswered.
pub const REFUSING_AT_ONCE: usize = 64;
/// How long a refusal may take, reading the request head included.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(1);
/// How much of a refused connection's request is read (and dropped) at most.
const REFUSAL_HEAD_BYTES: usize = 16 * 1024;
/// How long to wait before accepting again when the process is out of descriptors.
const OUT_OF_DESCRIPTORS_PAUSE: Duration = Duration::from_millis(50);
/// Listen backlog [`bind`] asks for (the kernel caps it at `net.core.somaxconn`).
pub const BACKLOG: u32 = 4096;

/// What one server allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once; the next one gets a 503.
    pub max_connections: usize,
    /// Time to receive a whole request head, and the longest idle keep-alive.
    pub header_read_timeout: Duration,
    /// Interval of HTTP/2 pings (and how long an answer may take).
    pub http2_keep_alive: Duration,
    /// How long open connections may take to finish once shutdown starts.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 4096,
            header_read_timeout: Duration::from_secs(30),
            http2_keep_alive: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// Listens on `addr` with SO_REUSEADDR and a [`BACKLOG`]-deep queue.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; returns the new soft limit.
pub fn raise_open_files_limit() -> io::Result<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid, owned rlimit struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(limit.rlim_cur)
}

/// The soft `RLIMIT_NOFILE` of this process.
pub fn open_files_limit() -> u64 {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit with a valid, owned rlimit struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    limit.rlim_cur
}

/// The body of the 503 a connection past the cap gets (E2B's error shape).
pub fn refusal_body(max_connections: usize) -> String {
    format!(
        "{{\"code\":503,\"message\":\"too many connections: this server takes at most {max_connections} at once; retry shortly\"}}"
    )
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves; then lets
/// open connections finish for [`Limits::shutdown_grace`] and aborts the rest.
pub async fn serve<C>(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    connect_info: impl Fn(&TcpStream) -> C + Send + 'static,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()>
where
    C: Clone + Send + Sync + 'static,
{
    let serving = Arc::new(Semaphore::new(limits.max_connections));
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut trim = Trim::default();
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {
                trim.after_close(connections.len());
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    if matches!(err.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
                        // Out of descriptors: the pending connection stays queued; wait
                        // for some to close instead of spinning.
                        tracing::warn!("out of file descriptors; pausing accepts");
                        tokio::time::sleep(OUT_OF_DESCRIPTORS_PAUSE).await;
                    }
                    continue;
                }
            },
        };
        // Streams are many small writes; without NODELAY, Nagle plus delayed ACK adds ~40 ms.
        let _ = stream.set_nodelay(true);
        let Ok(permit) = Arc::clone(&serving).try_acquire_owned() else {
            if let Ok(refusal) = Arc::clone(&refusing).try_acquire_owned() {
                tokio::spawn(async move {
                    refuse(stream, limits.max_connections).await;
                    drop(refusal);
                });
            }
            continue;
        };
        let info = connect_info(&stream);
        let router = router.clone();
        let mut stop = stop_rx.clone();
        connections.spawn(async move {
            // The protocol is told apart by the first bytes, which hyper waits for with no
            // timer: a client that sends nothing is dropped here, and at once at shutdown
            // (a connection opened ahead of need, as client pools do, is not a request).
            let mut first = [0u8; 1];
            let peeked = tokio::select! {
                peeked = tokio::time::timeout(limits.header_read_timeout, stream.peek(&mut first)) => peeked,
                _ = stop.changed() => return drop(permit),
            };
            match peeked {
                Ok(Ok(n)) if n > 0 => {}
                _ => return drop(permit),
            }
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(info.clone()));
                    let mut router = router.clone();
                    async move {
                        let response: Result<axum::response::Response, Infallible> =
                            tower_service::Service::call(&mut router, request).await;
                        response
                    }
                });
            let mut builder = Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout);
            builder
                .http2()
                .timer(TokioTimer::new())
                .keep_alive_interval(limits.http2_keep_alive)
                .keep_alive_timeout(limits.http2_keep_alive);
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            let mut stopping = false;
            loop {
                tokio::select! {
                    _ = connection.as_mut() => break,
                    changed = stop.changed(), if !stopping => {
                        stopping = true;
                        if changed.is_ok() {
                            connection.as_mut().graceful_shutdown();
                        }
                    }
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(limits.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            open = connections.len(),
            grace = ?limits.shutdown_grace,
            "connections still open after the shutdown grace; closing them"
        );
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    }
    Ok(())
}

/// Answers a connection past the cap with a 503 and closes it: after reading its request
/// head (an HTTP client reads no answer before its request is sent), within one second.
async fn refuse(mut stream: TcpStream, max_connections: usize) {
    use tokio::io::AsyncReadExt;
    let body = refusal_body(max_connections);
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(REFUSAL_TIMEOUT, async {
        let mut head = Vec::with_capacity(1024);
        let mut chunk = [0u8; 2048];
        while head.len() < REFUSAL_HEAD_BYTES && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&chunk[..n]);
        }
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await?;
        // Read what else the client sent before closing: closing with unread bytes sends
        // a reset, which can reach the client before it reads the 503.
        let mut left = REFUSAL_HEAD_BYTES;
        while left > 0 {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            left = left.saturating_sub(n);
        }
        io::Result::Ok(())
    })
    .await;
}

/// Gives memory back to the system after a flood of connections ends. glibc keeps what a
/// burst of connections freed (a flood of 9,000 stalled connections left the daemon at
/// 156 MiB instead of 10); `malloc_trim` returns it. Called when few connections remain,
/// at most once a second.
#[derive(Default)]
struct Trim {
    last: Option<std::time::Instant>,
    /// Connections closed since the last trim.
    closed: usize,
}

impl Trim {
    /// Connections closed (since the last trim) that make a trim worth it.
    const WORTH_IT: usize = 256;
    /// Open connections at most, for the flood to count as over.
    const QUIET: usize = 64;

    fn after_close(&mut self, open: usize) {
        self.closed += 1;
        let due = self.last.is_none_or(|last| last.elapsed() >= Duration::from_secs(1));
        if self.closed >= Self::WORTH_IT && open <= Self::QUIET && due {
            #[cfg(target_env = "gnu")]
            // SAFETY: malloc_trim only releases free memory of glibc's heap.
            unsafe {
                libc::malloc_trim(0);
            }
            self.last = Some(std::time::Instant::now());
            self.closed = 0;
        }
    }
}

/// Bytes of a failed upload (a full disk, say) read and dropped before answering.
const FAILED_UPLOAD_DRAIN_LIMIT: usize = 256 << 20;

/// Reads (and drops) the rest of an upload whose write failed half-way, up to
/// [`FAILED_UPLOAD_DRAIN_LIMIT`] and for at most 10 s: answering while the client (or
/// a proxy in front of the server) is still sending makes it see the connection
/// break instead of the answer (a 502 instead of the 507, through the proxy).
pub async fn drain_failed_upload<S, T, E>(chunks: &mut S)
where
    S: futures_util::Stream<Item = Result<T, E>> + Unpin,
    T: AsRef<[u8]>,
{
    let drain = async {
        let mut left = FAILED_UPLOAD_DRAIN_LIMIT;
        while let Some(Ok(chunk)) = futures_util::StreamExt::next(chunks).await {
            left = left.saturating_sub(chunk.as_ref().len());
            if left == 0 {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), drain).await;
}
