//! Egress by domain name: E2B's `allowOut` entries such as `pypi.org` or `*.npmjs.org`.
//!
//! nftables in the sandbox's namespace matches addresses (see `network.rs`); a name it
//! cannot see. So, as E2B does, a name is matched on what the program says it connects
//! to: the server name (SNI) of a TLS ClientHello, or the `Host` header of an HTTP
//! request. When `allowOut` names a domain, TCP connections to ports 80 and 443 that the
//! address rules would refuse are diverted (nftables `redirect`) to a listener the daemon
//! holds on the sandbox's loopback. The daemon reads the first bytes; when they name an
//! allowed domain it opens the connection to the original destination itself, from the
//! sandbox's namespace (so through its pasta, under its rules), with a socket mark the
//! rules let through, replays the bytes and splices the two. Nothing inside can set that
//! mark: `SO_MARK` needs `CAP_NET_ADMIN` over the namespace's owner, the host's user
//! namespace. A refused connection is closed after an answer that says why: a 403 for
//! HTTP, an `access_denied` alert for TLS.
//!
//! What this does not check (E2B does not either): that the destination address is one
//! the allowed name resolves to, and the names of later requests on a kept-alive HTTP
//! connection. Other ports and UDP (QUIC) follow the address rules only.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

pub use crate::server::egress::Domain;
use crate::server::egress::{Allowed, Cidr, Egress, LAN};
use crate::server::header_rules::{EgressProxy, HeaderRule};
use crate::server::intercept::Interception;
use crate::server::{netns, socks5};

/// The mark of the daemon's own connections out of a sandbox's namespace ("dsh" + 1):
/// the rules neither divert nor refuse them for the user's `denyOut`.
pub const DIVERT_MARK: u32 = 0x6473_6801;
/// The ports whose connections are matched by name.
pub const DIVERTED_PORTS: [u16; 2] = [80, 443];
/// The most bytes read to find the name: a ClientHello (even with post-quantum key
/// shares) or a request head fits many times over.
const MAX_HEAD: usize = 16 * 1024;
/// The most header fields a request head may have (hyper's server allows as many): one
/// with more is not read for a name.
const MAX_HEADERS: usize = 100;
/// How long a program gets to send the bytes that name its destination.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// An alert record: fatal (2), access_denied (49).
const TLS_ACCESS_DENIED: [u8; 7] = [0x15, 3, 3, 0, 2, 2, 49];
/// Diverted connections open at once per sandbox; more are closed at once (a sandbox
/// flooding the daemon with connections costs itself, not the daemon's other sandboxes).
const MAX_CONNECTIONS: usize = 512;

/// What the first bytes of a connection say about where it goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Head {
    /// Not enough bytes yet.
    Incomplete,
    /// A TLS ClientHello, with its server name if it has one.
    Tls(Option<String>),
    /// An HTTP/1 request head, with its `Host` (without the port) if it has one.
    Http(Option<String>),
    /// Neither: nothing to match a name on.
    Unknown,
}

/// Reads the first bytes a sandboxed program sent on a diverted connection (untrusted:
/// any bytes, cut anywhere). Once it says more than [`Head::Incomplete`], more bytes do
/// not change its answer, so it can be asked again after every read.
pub fn read_head(bytes: &[u8]) -> Head {
    match bytes.first() {
        None => Head::Incomplete,
        Some(0x16) => match tls_server_name(bytes) {
            Some(Parsed::Done(name)) => Head::Tls(name),
            Some(Parsed::Incomplete) => Head::Incomplete,
            None => Head::Unknown,
        },
        Some(byte) if byte.is_ascii_uppercase() => match http_host(bytes) {
            Some(Parsed::Done(host)) => Head::Http(host),
            Some(Parsed::Incomplete) => Head::Incomplete,
            None => Head::Unknown,
        },
        Some(_) => Head::Unknown,
    }
}

enum Parsed<T> {
    Incomplete,
    Done(T),
}

/// A bounds-checked reader over a byte slice (`None` past its end).
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }
    fn number(&mut self, width: usize) -> Option<usize> {
        Some(self.take(width)?.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b)))
    }
    /// A field prefixed by its length in `width` bytes.
    fn field(&mut self, width: usize) -> Option<&'a [u8]> {
        let n = self.number(width)?;
        self.take(n)
    }
}

/// The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3), reassembled from
/// as many handshake records as it spans. `None`: not a ClientHello.
fn tls_server_name(bytes: &[u8]) -> Option<Parsed<Option<String>>> {
    let mut records = Cursor(bytes);
    let mut handshake = Vec::new();
    loop {
        if records.0.len() < 5 {
            return Some(Parsed::Incomplete);
        }
        let header = records.take(5)?;
        if header[0] != 0x16 || header[1] != 3 {
            return None;
        }
        let length = usize::from(header[3]) << 8 | usize::from(header[4]);
        let Some(fragment) = records.take(length) else { return Some(Parsed::Incomplete) };
        handshake.extend_from_slice(fragment);
        if handshake.len() < 4 {
            continue;
        }
        if handshake[0] != 1 {
            return None;
        }
        let message = usize::from(handshake[1]) << 16
            | usize::from(handshake[2]) << 8
            | usize::from(handshake[3]);
        if handshake.len() >= 4 + message {
            let hello = handshake.get(4..4 + message)?;
            return Some(Parsed::Done(client_hello_server_name(hello)));
        }
    }
}

fn client_hello_server_name(hello: &[u8]) -> Option<String> {
    let mut hello = Cursor(hello);
    hello.take(2 + 32)?; // legacy version, random
    hello.field(1)?; // session id
    hello.field(2)?; // cipher suites
    hello.field(1)?; // compression methods
    let mut extensions = Cursor(hello.field(2)?);
    while !extensions.0.is_empty() {
        let kind = extensions.number(2)?;
        let data = extensions.field(2)?;
        if kind != 0 {
            continue;
        }
        let mut names = Cursor(Cursor(data).field(2)?);
        while !names.0.is_empty() {
            let name_type = names.number(1)?;
            let name = names.field(2)?;
            if name_type == 0 {
                return std::str::from_utf8(name).ok().map(str::to_ascii_lowercase);
            }
        }
    }
    None
}

/// The `Host` of an HTTP/1 request head, without its port. `None`: not a request head (as
/// httparse, hyper's parser, reads one), or a `Host` that is not UTF-8.
fn http_host(bytes: &[u8]) -> Option<Parsed<Option<String>>> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(bytes) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Some(Parsed::Incomplete),
        Err(_) => return None,
    }
    let host = match request.headers.iter().find(|h| h.name.eq_ignore_ascii_case("host")) {
        Some(header) => Some(std::str::from_utf8(header.value).ok()?.trim()),
        None => None,
    };
    Some(Parsed::Done(host.map(|host| without_port(host).to_ascii_lowercase())))
}

/// `name:80` -> `name`, `[2001:db8::1]:80` -> `[2001:db8::1]`.
fn without_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// What the egress path of one sandbox acts on: its rules as data (E2B's `allowOut`,
/// `denyOut`, `allow_internet_access`, `rules`, `egressProxy`).
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The names of `allowOut`.
    domains: Vec<Domain>,
    /// The addresses and blocks of `allowOut` and of `denyOut`.
    allow: Vec<Cidr>,
    deny: Vec<Cidr>,
    /// The LAN's ranges (`egress::LAN`), parsed.
    lan: Vec<Cidr>,
    internet_denied: bool,
    rules: Vec<HeaderRule>,
    proxy: Option<EgressProxy>,
}

impl Policy {
    /// The policy `egress` says (a stored record's rules were checked when set: entries
    /// that do not parse are left out).
    pub fn of(egress: &Egress) -> Policy {
        let allowed = egress.allow_out.iter().filter_map(|entry| Allowed::parse(entry).ok());
        let (mut domains, mut allow) = (Vec::new(), Vec::new());
        for entry in allowed {
            match entry {
                Allowed::Domain(domain) => domains.push(domain),
                Allowed::Cidr(cidr) => allow.push(cidr),
            }
        }
        let deny = egress.deny_out.iter().filter_map(|entry| Cidr::parse(entry).ok()).collect();
        Policy {
            domains,
            allow,
            deny,
            lan: LAN.iter().filter_map(|block| Cidr::parse(block).ok()).collect(),
            internet_denied: egress.internet_denied,
            rules: egress.header_rules(),
            proxy: egress.egress_proxy.clone(),
        }
    }

    /// Whether the address rules alone let a connection to `ip` out, as the nftables
    /// rules decide (see `network.rs`): allowed first, then the LAN refused, then denied.
    /// The host's own addresses are refused apart.
    pub fn address_allows(&self, ip: Ipv4Addr) -> bool {
        if self.allow.iter().any(|cidr| cidr.contains(ip)) {
            return true;
        }
        if self.lan.iter().any(|cidr| cidr.contains(ip)) {
            return false;
        }
        !self.internet_denied && !self.deny.iter().any(|cidr| cidr.contains(ip))
    }

    /// The header rule for `name`, if one matches (the first, in domain order).
    fn rule_for(&self, name: &str) -> Option<&HeaderRule> {
        self.rules.iter().find(|rule| rule.domain.matches(name))
    }
}

/// The domain filter of one sandbox: a listener on its loopback (made with its
/// namespace, before anything of the sandbox runs) and the task serving it, stopped
/// with the value.
pub struct Divert {
    port: u16,
    policy: watch::Sender<Arc<Policy>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Divert {
    /// Listens on `127.0.0.1:<any>` in the calling thread's network namespace (the
    /// socket stays in the namespace it was made in, whichever thread serves it).
    pub fn listener_here() -> io::Result<std::net::TcpListener> {
        let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        Ok(listener)
    }

    /// Serves `listener` (from [`Divert::listener_here`], made in `netns`) on the current
    /// tokio runtime, with `policy` until [`Divert::set_policy`] replaces it. Without
    /// `interception`, header rules are not acted on (their connections pass through).
    pub fn serve(
        listener: std::net::TcpListener,
        netns: OwnedFd,
        policy: Policy,
        interception: Option<Arc<Interception>>,
    ) -> io::Result<Divert> {
        let port = listener.local_addr()?.port();
        let listener = TcpListener::from_std(listener)?;
        let (sender, receiver) = watch::channel(Arc::new(policy));
        let context = Arc::new(Outbound { netns: Arc::new(netns), interception });
        let task = tokio::spawn(accept_loop(listener, context, receiver));
        Ok(Divert { port, policy: sender, task: Some(task) })
    }

    /// The listener's port on the sandbox's loopback (where the rules redirect to).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Replaces the policy, for connections diverted from now on.
    pub fn set_policy(&self, policy: Policy) {
        self.policy.send_replace(Arc::new(policy));
    }
}

impl std::fmt::Debug for Divert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Divert").field("port", &self.port).finish_non_exhaustive()
    }
}

impl Drop for Divert {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// What every diverted connection of a sandbox uses: its namespace (where connections
/// to destinations are made) and the daemon's interception.
struct Outbound {
    netns: Arc<OwnedFd>,
    interception: Option<Arc<Interception>>,
}

async fn accept_loop(
    listener: TcpListener,
    context: Arc<Outbound>,
    policy: watch::Receiver<Arc<Policy>>,
) {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted,
            // Reap finished connections as they end, so the set stays small.
            Some(_) = connections.join_next() => continue,
        };
        let stream = match stream {
            Ok((stream, _)) => stream,
            // Out of descriptors, most likely: wait instead of spinning.
            Err(e) => {
                tracing::warn!(error = %e, "accepting a diverted connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else { continue };
        let policy = policy.borrow().clone();
        let context = Arc::clone(&context);
        // Aborting the loop (the sandbox stopped) aborts its connections with it.
        connections.spawn(async move {
            if let Err(e) = relay(stream, &context, &policy).await {
                tracing::debug!(error = %e, "diverted connection");
            }
            drop(permit);
        });
    }
}

/// One diverted connection: read its name where it has one, refuse it, serve it (a
/// header rule) or connect it where it was going.
async fn relay(mut stream: TcpStream, context: &Outbound, policy: &Policy) -> io::Result<()> {
    let destination = original_destination(&stream)?;
    // The host's addresses as they are now, not as the rules last heard of them: an
    // address the host gained a moment ago is still refused.
    if crate::server::host_addresses::is_host_address(*destination.ip()) {
        tracing::debug!(%destination, "egress to the host refused");
        stream.shutdown().await?;
        return Ok(());
    }
    let by_address = policy.address_allows(*destination.ip());
    if !DIVERTED_PORTS.contains(&destination.port()) {
        // Diverted only to go through the egress proxy: no name to read (the program may
        // wait for the server to speak first).
        if !by_address {
            stream.shutdown().await?;
            return Ok(());
        }
        let mut upstream = open(context, policy, destination, None).await?;
        stream.set_nodelay(true)?;
        tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
        return Ok(());
    }
    let mut head = Vec::with_capacity(2048);
    let read = tokio::time::timeout(HEAD_TIMEOUT, async {
        loop {
            let parsed = read_head(&head);
            if parsed != Head::Incomplete || head.len() >= MAX_HEAD {
                return Ok::<_, io::Error>(parsed);
            }
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(Head::Unknown);
            }
            head.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no request head in time"))??;
    let name = match &read {
        Head::Tls(name) | Head::Http(name) => name.as_deref(),
        Head::Incomplete | Head::Unknown => None,
    };
    let permitted = by_address
        || name.is_some_and(|name| policy.domains.iter().any(|domain| domain.matches(name)));
    if !permitted {
        tracing::debug!(%destination, ?name, "egress refused by the sandbox's rules");
        return refuse(&mut stream, &read, &format!(
            "dsh: egress to {} ({destination}) is refused by this sandbox's network rules; allowOut names the domains it may reach\n",
            name.unwrap_or("a request without a Host header")
        )).await;
    }
    let tls = matches!(read, Head::Tls(_));
    if let (Some(name), Some(interception)) = (name, &context.interception)
        && let Some(rule) = policy.rule_for(name)
        && (tls || matches!(read, Head::Http(_)))
    {
        // Plain HTTP proves nothing about where it goes: the headers go only to an
        // address the name has for the daemon (or by name through the proxy).
        if !tls && policy.proxy.is_none() {
            let addresses = interception.addresses(name).await;
            if !addresses.contains(destination.ip()) {
                tracing::debug!(%destination, name, "a rule domain's request to an address the name does not have");
                return refuse(&mut stream, &read, &format!(
                    "dsh: {name} has header rules, which are sent only to its own addresses; {} is not one ({name} resolves to {addresses:?} for the daemon)\n",
                    destination.ip()
                )).await;
            }
        }
        let upstream = open(context, policy, destination, Some(name)).await;
        stream.set_nodelay(true)?;
        return crate::server::intercept::serve(
            interception,
            stream,
            head,
            tls,
            name,
            rule.clone(),
            upstream,
        )
        .await;
    }
    let mut upstream = match open(context, policy, destination, name).await {
        Ok(upstream) => upstream,
        // Said to an HTTP client (a proxy's refusal, say); a TLS one sees the close.
        Err(e) if matches!(read, Head::Http(_)) => {
            let message = format!("dsh: {e}\n");
            let reply = format!(
                "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{message}",
                message.len()
            );
            stream.write_all(reply.as_bytes()).await?;
            return stream.shutdown().await;
        }
        Err(e) => return Err(e),
    };
    stream.set_nodelay(true)?;
    upstream.write_all(&head).await?;
    tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
    Ok(())
}

/// Closes a refused connection after an answer that says why: a 403 for HTTP, an
/// `access_denied` alert for TLS.
async fn refuse(stream: &mut TcpStream, read: &Head, message: &str) -> io::Result<()> {
    match read {
        // A fatal access_denied alert (RFC 8446 6.2), which TLS clients report as such
        // instead of a bare end of stream.
        Head::Tls(_) => stream.write_all(&TLS_ACCESS_DENIED).await?,
        Head::Http(_) => {
            let reply = format!(
                "HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{message}",
                message.len()
            );
            stream.write_all(reply.as_bytes()).await?;
        }
        Head::Incomplete | Head::Unknown => {}
    }
    stream.shutdown().await
}

/// The daemon's connection toward `destination` for a sandbox: through the egress proxy
/// when there is one (by `name` when the flow has one: the proxy resolves it), else from
/// the sandbox's namespace, with the mark its rules let through.
async fn open(
    context: &Outbound,
    policy: &Policy,
    destination: SocketAddrV4,
    name: Option<&str>,
) -> io::Result<TcpStream> {
    if let Some(proxy) = &policy.proxy {
        // A Host that is an address names nothing for the proxy to resolve.
        let target = match name.filter(|name| name.parse::<std::net::IpAddr>().is_err()) {
            Some(name) => socks5::Target::Name(name, destination.port()),
            None => socks5::Target::Address(destination),
        };
        return socks5::connect(proxy, target).await;
    }
    let socket = netns::socket_in(Arc::clone(&context.netns), Some(DIVERT_MARK)).await?;
    let upstream =
        tokio::time::timeout(CONNECT_TIMEOUT, socket.connect(SocketAddr::V4(destination)))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connecting upstream"))??;
    upstream.set_nodelay(true)?;
    Ok(upstream)
}

/// Where a redirected connection was going (`SO_ORIGINAL_DST`, from conntrack).
fn original_destination(stream: &TcpStream) -> io::Result<SocketAddrV4> {
    // SAFETY: sockaddr_in is plain old data; all-zero is a valid value.
    let mut address: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut length = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: the fd is a live TCP socket; address/length describe a sockaddr_in buffer.
    let ret = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_IP,
            libc::SO_ORIGINAL_DST,
            (&raw mut address).cast(),
            &mut length,
        )
    };
    if ret == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(SocketAddrV4::new(
        Ipv4Addr::from(u32::from_be(address.sin_addr.s_addr)),
        u16::from_be(address.sin_port),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_policy_decides_an_address_as_the_nftables_rules_do() {
        let egress = Egress {
            allow_out: vec!["10.1.0.0/16".into(), "pkg.test".into()],
            deny_out: vec!["198.51.100.7".into()],
            ..Egress::default()
        };
        let policy = Policy::of(&egress);
        let ip = |text: &str| text.parse::<Ipv4Addr>().unwrap();
        assert!(policy.address_allows(ip("10.1.2.3")), "allowed wins over the LAN");
        assert!(!policy.address_allows(ip("10.2.0.1")), "the LAN");
        assert!(!policy.address_allows(ip("169.254.169.254")), "link-local (metadata)");
        assert!(!policy.address_allows(ip("198.51.100.7")), "denied");
        assert!(policy.address_allows(ip("203.0.113.1")), "the internet");
        let closed = Policy::of(&Egress { internet_denied: true, ..egress });
        assert!(!closed.address_allows(ip("203.0.113.1")));
        assert!(closed.address_allows(ip("10.1.2.3")));
    }

    #[test]
    fn domains_parse_and_match_like_e2b() {
        let exact = Domain::parse("Example.TEST.").unwrap();
        assert_eq!(exact.to_string(), "example.test");
        assert!(exact.matches("example.test"));
        assert!(exact.matches("EXAMPLE.test."));
        assert!(!exact.matches("api.example.test"));
        assert!(!exact.matches("badexample.test"));
        let wild = Domain::parse("*.example.test").unwrap();
        assert_eq!(wild.to_string(), "*.example.test");
        assert!(wild.matches("api.example.test"));
        assert!(wild.matches("a.b.Example.test"));
        assert!(!wild.matches("example.test"));
        assert!(!wild.matches("badexample.test"));
        assert!(!wild.matches(".example.test"));
        for bad in ["", "*", "*.", "a..b", "-a.test", "a b.test", "a/b", &"x".repeat(64)] {
            let error = Domain::parse(bad).unwrap_err();
            assert!(error.contains("is not a domain name"), "{bad:?}: {error}");
        }
    }

    /// A ClientHello as a TLS 1.3 client sends it: SNI after another extension, and the
    /// hello split over two records and into every possible short read.
    fn client_hello(server_name: Option<&str>) -> Vec<u8> {
        let mut extensions = Vec::new();
        // supported_versions (43): TLS 1.3.
        extensions.extend_from_slice(&[0, 43, 0, 3, 2, 3, 4]);
        if let Some(name) = server_name {
            let name = name.as_bytes();
            let entry_len = 3 + name.len();
            extensions.extend_from_slice(&[0, 0]);
            extensions.extend_from_slice(&u16::try_from(2 + entry_len).unwrap().to_be_bytes());
            extensions.extend_from_slice(&u16::try_from(entry_len).unwrap().to_be_bytes());
            extensions.push(0);
            extensions.extend_from_slice(&u16::try_from(name.len()).unwrap().to_be_bytes());
            extensions.extend_from_slice(name);
        }
        let mut hello = vec![3, 3];
        hello.extend_from_slice(&[7; 32]);
        hello.extend_from_slice(&[32]);
        hello.extend_from_slice(&[9; 32]);
        hello.extend_from_slice(&[0, 4, 0x13, 0x01, 0x13, 0x02, 1, 0]);
        hello.extend_from_slice(&u16::try_from(extensions.len()).unwrap().to_be_bytes());
        hello.extend_from_slice(&extensions);
        let mut message = vec![1];
        message.extend_from_slice(&u32::try_from(hello.len()).unwrap().to_be_bytes()[1..]);
        message.extend_from_slice(&hello);
        let (first, second) = message.split_at(20);
        let mut records = Vec::new();
        for fragment in [first, second] {
            records.extend_from_slice(&[0x16, 3, 1]);
            records.extend_from_slice(&u16::try_from(fragment.len()).unwrap().to_be_bytes());
            records.extend_from_slice(fragment);
        }
        records
    }

    #[test]
    fn a_client_hello_gives_its_server_name_once_complete() {
        let bytes = client_hello(Some("API.Example.test"));
        for cut in 0..bytes.len() {
            assert_eq!(read_head(&bytes[..cut]), Head::Incomplete, "cut at {cut}");
        }
        assert_eq!(read_head(&bytes), Head::Tls(Some("api.example.test".into())));
        assert_eq!(read_head(&client_hello(None)), Head::Tls(None));
        // A record of another kind, or a handshake that is not a ClientHello.
        assert_eq!(read_head(&[0x16, 3, 3, 0, 4, 2, 0, 0, 0]), Head::Unknown);
        assert_eq!(read_head(&[0x16, 9, 9, 0, 0]), Head::Unknown);
        // A hello whose lengths lie: no name, no panic.
        let mut lying = client_hello(Some("a.test"));
        let at = lying.len() - 10;
        lying[at] = 0xff;
        assert!(matches!(read_head(&lying), Head::Tls(_) | Head::Unknown));
    }

    #[test]
    fn an_http_head_gives_its_host_without_the_port() {
        let head = b"GET /index.txt HTTP/1.1\r\nUser-Agent: x\r\nhost: Allowed.TEST:8080\r\n\r\n";
        for cut in 1..head.len() {
            assert_eq!(read_head(&head[..cut]), Head::Incomplete, "cut at {cut}");
        }
        assert_eq!(read_head(head), Head::Http(Some("allowed.test".into())));
        assert_eq!(read_head(b"GET / HTTP/1.0\r\n\r\n"), Head::Http(None));
        assert_eq!(
            read_head(b"GET / HTTP/1.1\r\nHost: [2001:db8::1]:80\r\n\r\n"),
            Head::Http(Some("[2001:db8::1]".into()))
        );
        assert_eq!(read_head(b"SSH-2.0-x\r\n\r\n"), Head::Unknown);
        assert_eq!(read_head(b"\x00\x01"), Head::Unknown);
    }

    /// Where httparse (hyper's parser, so what an upstream hyper server would read) differs
    /// from the hand-written reader it replaced.
    #[test]
    fn an_http_head_is_read_as_hyper_reads_it() {
        // Bare LF line endings end a head (the old reader waited for CRLF CRLF).
        assert_eq!(
            read_head(b"GET / HTTP/1.1\nHost: a.test\n\n"),
            Head::Http(Some("a.test".into()))
        );
        // Other headers need not be UTF-8, only the Host (the whole head had to be).
        assert_eq!(
            read_head(b"GET / HTTP/1.1\r\nX: \xff\r\nHost: a.test\r\n\r\n"),
            Head::Http(Some("a.test".into()))
        );
        assert_eq!(read_head(b"GET / HTTP/1.1\r\nHost: \xff.test\r\n\r\n"), Head::Unknown);
        // A malformed head names nothing (the old reader took the Host of these), and
        // says so as soon as the fault arrives.
        for bad in [
            b"GET /a b HTTP/1.1\r\nHost: a.test\r\n\r\n".as_slice(),
            b"GET / HTTP/1.1\r\nHost : a.test\r\n\r\n",
            b"GET / HTTP/1.1\r\nno colon\r\nHost: a.test\r\n\r\n",
            b"GET / HTTP/2.0\r\n",
        ] {
            assert_eq!(read_head(bad), Head::Unknown, "{}", String::from_utf8_lossy(bad));
        }
        // More header fields than hyper's server takes.
        let many = format!("GET / HTTP/1.1\r\nHost: a.test\r\n{}\r\n", "X: y\r\n".repeat(100));
        assert_eq!(read_head(many.as_bytes()), Head::Unknown);
        let first = b"GET / HTTP/1.1\r\nHost: First.test\r\nHost: second.test\r\n\r\n";
        assert_eq!(read_head(first), Head::Http(Some("first.test".into())));
    }
}
