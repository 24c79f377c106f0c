//! Header rules on the egress path (E2B's `network.rules`): a connection whose name
//! matches a rule's domain is not spliced through but served. The daemon reads each
//! HTTP/1 request the program sends, sets the rule's headers on it (replacing any of the
//! same name; a secret named in a value is read from `/secrets` now, so an update takes
//! effect at the next request) and sends it on over its own connection to the
//! destination; the answer streams back as it comes.
//!
//! Over TLS (port 443), the daemon answers as the name with a certificate of its egress
//! CA (see `egress_ca.rs`) and opens its own TLS connection to the destination, verified
//! for the same name against the host's trust store: the headers go only to a server
//! that proves to be the name, wherever the program pointed its connection. Over plain
//! HTTP the destination cannot prove anything, so the headers are sent only to an
//! address the name resolves to for the daemon (see `Resolver`), or through the egress
//! proxy by name.
//!
//! Not served (the connection fails with an answer that says so): HTTP/2 (ALPN offers
//! HTTP/1.1 only, which every HTTP client falls back to) and protocol upgrades
//! (WebSockets) on rule domains.

use std::collections::HashMap;
use std::io;
use std::net::Ipv4Addr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{Either, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::server::egress_ca::{EgressCa, server_name};
use crate::server::header_rules::{HeaderRule, ValuePart};

/// Where the values of secrets come from (the daemon's `/secrets`).
pub trait SecretSource: Send + Sync {
    /// The value of the secret `name` (canonical, lower-case), if it exists.
    fn value(&self, name: &str) -> Option<String>;
}

impl SecretSource for crate::server::secrets::Secrets {
    fn value(&self, name: &str) -> Option<String> {
        self.resolve(name).map(|value| value.expose().to_owned())
    }
}

/// What every sandbox's interception shares: the CA, the secrets, and the names the
/// daemon resolves itself.
pub struct Interception {
    pub ca: Arc<EgressCa>,
    pub secrets: Arc<dyn SecretSource>,
    /// Names given addresses by the daemon's configuration (`--egress-hosts`, hosts(5)
    /// format), looked up before the host's resolver: for names the host's DNS does not
    /// know (a split-horizon or offline setup, a test's stand-in).
    pub hosts: HashMap<String, Vec<Ipv4Addr>>,
}

impl Interception {
    /// The IPv4 addresses `name` has for the daemon: its configured hosts, else the host's
    /// resolver. Empty when it has none (or the lookup failed).
    pub async fn addresses(&self, name: &str) -> Vec<Ipv4Addr> {
        if let Some(addresses) = self.hosts.get(name) {
            return addresses.clone();
        }
        let lookup =
            tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, 80))).await;
        match lookup {
            Ok(Ok(found)) => found
                .filter_map(|address| match address.ip() {
                    std::net::IpAddr::V4(ip) => Some(ip),
                    std::net::IpAddr::V6(_) => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// How long the host's resolver gets for a rule domain's addresses.
const RESOLVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Reads a hosts(5) file: `address name [name...]` lines, `#` comments; IPv4 only
/// (sandboxes have no IPv6 route). Names lower-cased.
pub fn read_hosts(text: &str) -> HashMap<String, Vec<Ipv4Addr>> {
    let mut hosts: HashMap<String, Vec<Ipv4Addr>> = HashMap::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        let mut fields = line.split_whitespace();
        let Some(Ok(address)) = fields.next().map(str::parse::<Ipv4Addr>) else { continue };
        for name in fields {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            hosts.entry(name).or_default().push(address);
        }
    }
    hosts
}

impl std::fmt::Debug for Interception {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interception").finish_non_exhaustive()
    }
}

type Body = Either<Incoming, Full<Bytes>>;

/// Serves one connection to a rule's domain. `client` is the program's connection, of
/// which `head` was read already; `tls` says whether it speaks TLS (for `name`).
/// `upstream` is the daemon's own connection to the destination (not yet TLS).
pub async fn serve(
    interception: &Interception,
    client: TcpStream,
    head: Vec<u8>,
    tls: bool,
    name: &str,
    rule: HeaderRule,
    upstream: io::Result<TcpStream>,
) -> io::Result<()> {
    let client = Prefixed { head: Bytes::from(head), inner: client };
    if !tls {
        return serve_http(interception, client, rule, upstream.map(Upstream::Plain)).await;
    }
    let config = interception.ca.server_config(name).map_err(io::Error::other)?;
    let client = tokio_rustls::TlsAcceptor::from(config).accept(client).await?;
    let upstream = match upstream {
        Ok(stream) => {
            let connector = tokio_rustls::TlsConnector::from(interception.ca.upstream_config());
            connector.connect(server_name(name)?, stream).await.map(|tls| Upstream::Tls(Box::new(tls))).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("the TLS connection to {name} failed (its certificate is checked against the host's trust store): {e}"),
                )
            })
        }
        Err(e) => Err(e),
    };
    serve_http(interception, client, rule, upstream).await
}

/// The daemon's connection to the destination.
enum Upstream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

async fn serve_http<C>(
    interception: &Interception,
    client: C,
    rule: HeaderRule,
    upstream: io::Result<Upstream>,
) -> io::Result<()>
where
    C: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let sender = match upstream {
        Ok(Upstream::Plain(stream)) => handshake(stream).await,
        Ok(Upstream::Tls(stream)) => handshake(*stream).await,
        Err(e) => Err(e),
    };
    let sender = match sender {
        Ok(sender) => Ok(Arc::new(tokio::sync::Mutex::new(sender))),
        Err(e) => Err(Arc::new(e.to_string())),
    };
    let rule = Arc::new(rule);
    let secrets = Arc::clone(&interception.secrets);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let (sender, rule, secrets) = (sender.clone(), Arc::clone(&rule), Arc::clone(&secrets));
        async move {
            let sender = match sender {
                Ok(sender) => sender,
                Err(e) => {
                    return Ok::<_, hyper::Error>(answer(
                        StatusCode::BAD_GATEWAY,
                        &format!("dsh: {e}"),
                    ));
                }
            };
            forward(request, &sender, &rule, secrets.as_ref()).await
        }
    });
    hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(client), service)
        .await
        .map_err(io::Error::other)
}

async fn handshake<S>(stream: S) -> io::Result<hyper::client::conn::http1::SendRequest<Incoming>>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(io::Error::other)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "an intercepted connection's destination side ended");
        }
    });
    Ok(sender)
}

/// One request: the rule's headers set, sent on, the answer streamed back.
async fn forward(
    mut request: Request<Incoming>,
    sender: &tokio::sync::Mutex<hyper::client::conn::http1::SendRequest<Incoming>>,
    rule: &HeaderRule,
    secrets: &dyn SecretSource,
) -> Result<Response<Body>, hyper::Error> {
    if request.headers().contains_key(hyper::header::UPGRADE) {
        return Ok(answer(
            StatusCode::NOT_IMPLEMENTED,
            &format!(
                "dsh: protocol upgrades are not carried to {}, whose requests get header rules",
                rule.domain
            ),
        ));
    }
    for (name, parts) in &rule.headers {
        match header(name, parts, secrets) {
            Ok((name, value)) => {
                request.headers_mut().insert(name, value);
            }
            Err(message) => {
                return Ok(answer(StatusCode::BAD_GATEWAY, &format!("dsh: {message}")));
            }
        }
    }
    let mut sender = sender.lock().await;
    if sender.ready().await.is_err() {
        return Ok(answer(
            StatusCode::BAD_GATEWAY,
            &format!("dsh: the connection to {} closed", rule.domain),
        ));
    }
    match sender.send_request(request).await {
        Ok(response) => Ok(response.map(Either::Left)),
        Err(e) => Ok(answer(
            StatusCode::BAD_GATEWAY,
            &format!("dsh: sending the request to {}: {e}", rule.domain),
        )),
    }
}

/// A rule's header with its secrets filled in. The error names the secret, never a
/// value.
fn header(
    name: &str,
    parts: &[ValuePart],
    secrets: &dyn SecretSource,
) -> Result<(HeaderName, HeaderValue), String> {
    let mut value = String::new();
    for part in parts {
        match part {
            ValuePart::Text(text) => value.push_str(text),
            ValuePart::Secret(secret) => match secrets.value(secret) {
                Some(secret_value) => value.push_str(&secret_value),
                None => {
                    return Err(format!(
                        "the secret {secret:?} that header {name:?} names does not exist"
                    ));
                }
            },
        }
    }
    let header_name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("{name:?} is not a header name"))?;
    let mut header_value = HeaderValue::from_str(&value).map_err(|_| {
        format!("header {name:?}'s value (with its secrets filled in) is not a valid header value")
    })?;
    header_value.set_sensitive(true);
    Ok((header_name, header_value))
}

fn answer(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(format!("{message}\n")))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response.headers_mut().insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A stream whose first bytes were read already: they are read again first.
struct Prefixed {
    head: Bytes,
    inner: TcpStream,
}

impl AsyncRead for Prefixed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.head.is_empty() {
            let n = self.head.len().min(buf.remaining());
            let taken = self.head.split_to(n);
            buf.put_slice(&taken);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Prefixed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Drains a body (a test helper for answers).
#[cfg(test)]
async fn text(body: Body) -> String {
    use http_body_util::BodyExt as _;
    let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_hosts_file_gives_names_their_addresses() {
        let hosts = read_hosts(
            "# comment\n203.0.113.5 API.example.test. other.test # trailing\n::1 v6.test\n203.0.113.6 api.example.test\nbad line\n",
        );
        assert_eq!(
            hosts["api.example.test"],
            [Ipv4Addr::new(203, 0, 113, 5), Ipv4Addr::new(203, 0, 113, 6)]
        );
        assert_eq!(hosts["other.test"], [Ipv4Addr::new(203, 0, 113, 5)]);
        assert_eq!(hosts.len(), 2);
    }

    struct Fixed(HashMap<String, String>);
    impl SecretSource for Fixed {
        fn value(&self, name: &str) -> Option<String> {
            self.0.get(name).cloned()
        }
    }

    #[test]
    fn a_header_is_filled_in_and_a_missing_secret_is_named_without_values() {
        let secrets = Fixed(HashMap::from([
            ("tok".to_owned(), "s3cr3t".to_owned()),
            ("bad".to_owned(), "a\nb".to_owned()),
        ]));
        let parts = [ValuePart::Text("Bearer ".into()), ValuePart::Secret("tok".into())];
        let (name, value) = header("authorization", &parts, &secrets).unwrap();
        assert_eq!(name, "authorization");
        assert_eq!(value, "Bearer s3cr3t");
        assert!(value.is_sensitive());
        let error = header("x", &[ValuePart::Secret("gone".into())], &secrets).unwrap_err();
        assert_eq!(error, "the secret \"gone\" that header \"x\" names does not exist");
        let error = header("x", &[ValuePart::Secret("bad".into())], &secrets).unwrap_err();
        assert_eq!(
            error,
            "header \"x\"'s value (with its secrets filled in) is not a valid header value"
        );
        assert!(!error.contains("a\nb"));
    }

    #[tokio::test]
    async fn answers_close_and_say_why() {
        let response = answer(StatusCode::BAD_GATEWAY, "dsh: x");
        assert_eq!(response.status(), 502);
        assert_eq!(response.headers()[hyper::header::CONNECTION], "close");
        assert_eq!(text(response.into_body()).await, "dsh: x\n");
    }
}
