//! dsh-e2b: the client for E2B sandboxes and dsh's local sandboxes.
//!
//! [`envd::EnvdClient`] speaks envd's Connect protocol (binary protobuf by default, JSON on
//! request) and `/files`; the control-plane client creates, finds, pauses and kills
//! sandboxes; [`Layers`] asks a local daemon for read-only layers mounted into every
//! sandbox (language servers built once per machine). Only this crate (client side) and
//! `dsh-envd` (server side) know the wire.

pub mod backend;
pub mod config;
pub mod connect;
pub mod control;
pub mod envd;
pub mod error;
pub mod layers;
pub mod sandbox;
pub mod templates;

pub use backend::{KILL_WAIT, SandboxBackend};
pub use config::{
    EgressProxyConfig, NetworkConfig, OnDispose, OnTimeout, RuleConfig, SandboxConfig, SecretSource,
};
pub use control::{Collected, ControlPlane, NewSandbox, SandboxDetail, SandboxInfo, SandboxMetric};
pub use envd::{
    EnvdClient, EnvdTarget, EnvdVersion, ExitInfo, ProcessOutput, ProcessStream, StartOptions,
};
pub use error::{Error, Result};
pub use layers::{Layer, LayerError, Layers, ProvidedLayer, Recipe};
/// A request body for [`EnvdClient::upload`] (stream one with `UploadBody::wrap_stream`).
pub use reqwest::Body as UploadBody;
pub use sandbox::{Connection, Sandbox, open_runtime, put_secrets};

/// A PEM file of extra root certificates the client trusts (a self-hosted E2B's CA, or
/// the test CA of a stand-in for E2B's edge).
pub const CA_FILE_ENV: &str = "DSH_E2B_CA_FILE";
/// `DOMAIN=IP[,DOMAIN=IP...]`: `DOMAIN` and every name under it resolve to `IP` instead of
/// through DNS (so `api.<domain>`, `sandbox.<domain>` and `49983-<id>.<domain>` reach one
/// address, as E2B's wildcard DNS does), the port staying the URL's.
pub const RESOLVE_ENV: &str = "DSH_E2B_RESOLVE";

/// An HTTP client for the control plane and envd: HTTP/1.1 for `http://` URLs (local
/// sandboxes), HTTP/2 negotiated by ALPN over TLS (E2B cloud), with the OS's roots plus
/// those of [`CA_FILE_ENV`], names resolved as [`RESOLVE_ENV`] says.
pub fn http_client() -> Result<reqwest::Client> {
    let lookup = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    http_client_with(lookup(CA_FILE_ENV).as_deref(), lookup(RESOLVE_ENV).as_deref())
}

/// [`http_client`] for `connection`. One that reaches only plain-HTTP URLs (a local
/// daemon: its API and its envd router) trusts no certificate at all rather than the
/// system's store, whose loading (every file in `/etc/ssl/certs` read and parsed) costs a
/// short command like `dsh exec` more than the rest of its start; an `https://` URL
/// reached through it anyway fails with a certificate error.
pub fn http_client_for(connection: &sandbox::Connection) -> Result<reqwest::Client> {
    let lookup = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let plain = |url: &str| url.starts_with("http://");
    let ca_file = lookup(CA_FILE_ENV);
    if ca_file.is_none()
        && plain(&connection.api_url)
        && connection.envd_url.as_deref().is_some_and(plain)
    {
        return client_with(Trust::Nothing, lookup(RESOLVE_ENV).as_deref());
    }
    http_client_with(ca_file.as_deref(), lookup(RESOLVE_ENV).as_deref())
}

/// [`http_client`] with the CA file and resolve rules given, not read from the environment.
pub fn http_client_with(ca_file: Option<&str>, resolve: Option<&str>) -> Result<reqwest::Client> {
    client_with(Trust::System { ca_file }, resolve)
}

/// Which certificates a client trusts.
enum Trust<'a> {
    /// The system's store, and the roots in this PEM file.
    System { ca_file: Option<&'a str> },
    /// None: a client for plain HTTP only.
    Nothing,
}

fn client_with(trust: Trust<'_>, resolve: Option<&str>) -> Result<reqwest::Client> {
    let ca_file = match trust {
        Trust::System { ca_file } => ca_file,
        Trust::Nothing => None,
    };
    let mut builder = reqwest::Client::builder()
        .tcp_nodelay(true)
        // Below the 30 s after which dsh-sandboxd and dsh-envd close an idle keep-alive
        // connection: the pool drops it first, so no request is sent on one the server
        // is closing.
        .pool_idle_timeout(std::time::Duration::from_secs(20))
        // A connection (TCP + TLS) that is not up in 10 s is retried, not waited on.
        .connect_timeout(std::time::Duration::from_secs(10));
    if let Some(path) = ca_file {
        let pem = std::fs::read(path)
            .map_err(|err| Error::Invalid(format!("cannot read {CA_FILE_ENV} {path}: {err}")))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|err| Error::Invalid(format!("{CA_FILE_ENV} {path}: {err}")))?;
        for cert in certs {
            builder = builder.add_root_certificate(cert);
        }
    }
    if let Trust::Nothing = trust {
        builder = builder.tls_certs_only(Vec::new());
    }
    if let Some(rules) = resolve {
        builder = builder.dns_resolver(std::sync::Arc::new(SuffixResolver::parse(rules)?));
    }
    builder.build().map_err(|err| Error::Invalid(format!("cannot build the HTTP client: {err}")))
}

/// Names under configured domains resolve to fixed addresses; others through the system.
struct SuffixResolver {
    rules: Vec<(String, std::net::IpAddr)>,
}

impl SuffixResolver {
    fn parse(text: &str) -> Result<Self> {
        let mut rules = Vec::new();
        for rule in text.split(',').map(str::trim).filter(|r| !r.is_empty()) {
            let parsed = rule.split_once('=').and_then(|(domain, ip)| {
                Some((
                    domain.trim().trim_matches('.').to_ascii_lowercase(),
                    ip.trim().parse().ok()?,
                ))
            });
            match parsed {
                Some((domain, ip)) if !domain.is_empty() => rules.push((domain, ip)),
                _ => {
                    return Err(Error::Invalid(format!(
                        "{RESOLVE_ENV}: expected DOMAIN=IP, got '{rule}'"
                    )));
                }
            }
        }
        Ok(Self { rules })
    }

    fn lookup(&self, name: &str) -> Option<std::net::IpAddr> {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        self.rules.iter().find_map(|(domain, ip)| {
            let under = name.strip_suffix(domain.as_str()).is_some_and(|rest| rest.ends_with('.'));
            (name == *domain || under).then_some(*ip)
        })
    }
}

impl reqwest::dns::Resolve for SuffixResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let fixed = self.lookup(name.as_str());
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: reqwest::dns::Addrs = match fixed {
                // Port 0: the URL's port (or the scheme's) is used.
                Some(ip) => Box::new(std::iter::once(std::net::SocketAddr::new(ip, 0))),
                None => {
                    let found: Vec<_> =
                        tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
                    Box::new(found.into_iter())
                }
            };
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn resolve_rules_cover_a_domain_and_every_name_under_it() {
        let resolver = SuffixResolver::parse("e2b.test=127.0.0.1, other.test=::1").unwrap();
        let local = Some(std::net::IpAddr::from([127, 0, 0, 1]));
        assert_eq!(resolver.lookup("api.e2b.test"), local);
        assert_eq!(resolver.lookup("49983-abc.E2B.test."), local);
        assert_eq!(resolver.lookup("e2b.test"), local);
        assert_eq!(resolver.lookup("xe2b.test"), None);
        assert_eq!(
            resolver.lookup("a.other.test"),
            Some(std::net::IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]))
        );
        assert!(SuffixResolver::parse("e2b.test").is_err());
        assert!(SuffixResolver::parse("e2b.test=nowhere").is_err());
        assert!(http_client_with(Some("/nonexistent/ca.pem"), None).is_err());
    }
}
