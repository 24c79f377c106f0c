//! The client side of SOCKS5 (RFC 1928), with user name and password (RFC 1929): how a
//! sandbox's outbound TCP reaches its destination when the create (or
//! `PUT .../network`) names an `egressProxy`. The daemon connects to the proxy from the
//! host, after the sandbox's rules allowed the connection; a flow whose name the daemon
//! read (a TLS server name, an HTTP Host) asks the proxy for the name (`ATYP` 3, the
//! proxy resolves it, as E2B's spec says: "Domain-matched flows use remote DNS"), any
//! other for the address it was going to.

use std::io;
use std::net::SocketAddrV4;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::header_rules::EgressProxy;

/// How long the proxy gets to connect and answer the whole exchange.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Where the proxy is asked to connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    Address(SocketAddrV4),
    /// A name (at most 255 bytes) and a port.
    Name(&'a str, u16),
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Address(address) => write!(f, "{address}"),
            Target::Name(name, port) => write!(f, "{name}:{port}"),
        }
    }
}

/// A connection through `proxy` to `target`, ready for the flow's bytes.
pub async fn connect(proxy: &EgressProxy, target: Target<'_>) -> io::Result<TcpStream> {
    tokio::time::timeout(TIMEOUT, async {
        let mut stream = TcpStream::connect(proxy.address.as_str()).await.map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("connecting to the egress proxy {}: {e}", proxy.address),
            )
        })?;
        stream.set_nodelay(true)?;
        handshake(&mut stream, proxy, target).await?;
        Ok(stream)
    })
    .await
    .map_err(|_| {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the egress proxy {} did not connect {target} within {TIMEOUT:?}",
                proxy.address
            ),
        )
    })?
}

/// The exchange on a connection to the proxy: method selection, authentication if the
/// proxy asks for it, then CONNECT.
pub async fn handshake<S>(stream: &mut S, proxy: &EgressProxy, target: Target<'_>) -> io::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let credentials =
        proxy.username.as_deref().map(|user| (user, proxy.password.as_deref().unwrap_or("")));
    // RFC 1928 section 3: VER, NMETHODS, METHODS (0 = no authentication, 2 = user name
    // and password, offered only with credentials).
    let greeting: &[u8] = if credentials.is_some() { &[5, 2, 0, 2] } else { &[5, 1, 0] };
    stream.write_all(greeting).await?;
    let mut choice = [0u8; 2];
    stream.read_exact(&mut choice).await?;
    if choice[0] != 5 {
        return Err(protocol(format!(
            "the egress proxy answered version {} (not SOCKS5)",
            choice[0]
        )));
    }
    match (choice[1], credentials) {
        (0, _) => {}
        (2, Some((user, password))) => authenticate(stream, user, password).await?,
        (0xff, _) => {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                if credentials.is_some() {
                    "the egress proxy accepts neither no authentication nor a user name and password"
                } else {
                    "the egress proxy requires authentication; egressProxy has no username"
                },
            ));
        }
        (method, _) => {
            return Err(protocol(format!(
                "the egress proxy chose method {method}, which was not offered"
            )));
        }
    }
    // Section 4: VER, CMD (1 = CONNECT), RSV, ATYP, DST.ADDR, DST.PORT.
    let mut request = vec![5, 1, 0];
    let port = match target {
        Target::Address(address) => {
            request.push(1);
            request.extend_from_slice(&address.ip().octets());
            address.port()
        }
        Target::Name(name, port) => {
            let length = u8::try_from(name.len()).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "a name longer than 255 bytes")
            })?;
            request.push(3);
            request.push(length);
            request.extend_from_slice(name.as_bytes());
            port
        }
    };
    request.extend_from_slice(&port.to_be_bytes());
    stream.write_all(&request).await?;
    // Section 6: VER, REP, RSV, ATYP, BND.ADDR, BND.PORT.
    let mut reply = [0u8; 4];
    stream.read_exact(&mut reply).await?;
    if reply[0] != 5 {
        return Err(protocol(format!(
            "the egress proxy answered version {} (not SOCKS5)",
            reply[0]
        )));
    }
    let bound_length = match reply[3] {
        1 => 4,
        4 => 16,
        3 => usize::from(stream.read_u8().await?),
        other => return Err(protocol(format!("the egress proxy answered address type {other}"))),
    };
    let mut bound = vec![0u8; bound_length + 2];
    stream.read_exact(&mut bound).await?;
    if reply[1] != 0 {
        return Err(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            format!("the egress proxy could not connect {target}: {}", reply_meaning(reply[1])),
        ));
    }
    Ok(())
}

/// RFC 1929 section 2: VER 1, ULEN, UNAME, PLEN, PASSWD; the answer's STATUS 0 is success.
async fn authenticate<S>(stream: &mut S, user: &str, password: &str) -> io::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let too_long =
        || io::Error::new(io::ErrorKind::InvalidInput, "a SOCKS5 credential longer than 255 bytes");
    let mut request = vec![1, u8::try_from(user.len()).map_err(|_| too_long())?];
    request.extend_from_slice(user.as_bytes());
    request.push(u8::try_from(password.len()).map_err(|_| too_long())?);
    request.extend_from_slice(password.as_bytes());
    stream.write_all(&request).await?;
    let mut status = [0u8; 2];
    stream.read_exact(&mut status).await?;
    if status[1] != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the egress proxy refused egressProxy's username and password",
        ));
    }
    Ok(())
}

/// What a reply's REP field says (RFC 1928 section 6).
fn reply_meaning(code: u8) -> String {
    match code {
        1 => "general SOCKS server failure".into(),
        2 => "connection not allowed by ruleset".into(),
        3 => "network unreachable".into(),
        4 => "host unreachable".into(),
        5 => "connection refused".into(),
        6 => "TTL expired".into(),
        7 => "command not supported".into(),
        8 => "address type not supported".into(),
        other => format!("reply code {other}"),
    }
}

fn protocol(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::net::Ipv4Addr;

    fn proxy(user: Option<&str>, password: Option<&str>) -> EgressProxy {
        EgressProxy {
            address: "proxy.test:1080".into(),
            username: user.map(Into::into),
            password: password.map(Into::into),
        }
    }

    /// The bytes a client sends, against a scripted proxy's answers (a duplex pipe: the
    /// answers RFC 1928 gives, including those a real proxy gives only on a fault).
    async fn exchange(
        proxy: &EgressProxy,
        target: Target<'_>,
        answers: &[u8],
    ) -> (io::Result<()>, Vec<u8>) {
        let (mut client, mut server) = tokio::io::duplex(4096);
        server.write_all(answers).await.unwrap();
        // Nothing more comes from the proxy: a client waiting for more reads the end.
        server.shutdown().await.unwrap();
        let result = handshake(&mut client, proxy, target).await;
        drop(client);
        let mut sent = Vec::new();
        server.read_to_end(&mut sent).await.unwrap();
        (result, sent)
    }

    #[tokio::test]
    async fn a_name_is_sent_for_remote_resolution_and_credentials_when_asked() {
        let (result, sent) = exchange(
            &proxy(Some("u"), Some("pw")),
            Target::Name("api.example.test", 443),
            &[5, 2, 1, 0, 5, 0, 0, 1, 127, 0, 0, 1, 0x04, 0x38],
        )
        .await;
        result.unwrap();
        let mut expected = vec![5, 2, 0, 2, 1, 1, b'u', 2, b'p', b'w', 5, 1, 0, 3, 16];
        expected.extend_from_slice(b"api.example.test");
        expected.extend_from_slice(&[1, 187]);
        assert_eq!(sent, expected);
    }

    #[tokio::test]
    async fn an_address_without_credentials() {
        let target = Target::Address(SocketAddrV4::new(Ipv4Addr::new(203, 0, 113, 7), 22));
        let (result, sent) =
            exchange(&proxy(None, None), target, &[5, 0, 5, 0, 0, 3, 1, b'x', 0, 22]).await;
        result.unwrap();
        assert_eq!(sent, [5, 1, 0, 5, 1, 0, 1, 203, 0, 113, 7, 0, 22]);
    }

    #[tokio::test]
    async fn refusals_say_what_the_proxy_said() {
        let target = Target::Name("a.test", 80);
        let (result, _) =
            exchange(&proxy(None, None), target, &[5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]).await;
        assert_eq!(
            result.unwrap_err().to_string(),
            "the egress proxy could not connect a.test:80: connection not allowed by ruleset"
        );
        let (result, _) = exchange(&proxy(None, None), target, &[5, 0xff]).await;
        assert_eq!(
            result.unwrap_err().to_string(),
            "the egress proxy requires authentication; egressProxy has no username"
        );
        let (result, _) = exchange(&proxy(Some("u"), Some("p")), target, &[5, 2, 1, 1]).await;
        assert_eq!(
            result.unwrap_err().to_string(),
            "the egress proxy refused egressProxy's username and password"
        );
        let (result, _) = exchange(&proxy(None, None), target, &[4, 0]).await;
        assert_eq!(
            result.unwrap_err().to_string(),
            "the egress proxy answered version 4 (not SOCKS5)"
        );
        let (result, _) = exchange(&proxy(None, None), target, &[5, 2]).await;
        assert_eq!(
            result.unwrap_err().to_string(),
            "the egress proxy chose method 2, which was not offered"
        );
        // An answer cut short is an error, not a hang.
        let (result, _) = exchange(&proxy(None, None), target, &[5, 0, 5, 0]).await;
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }
}
