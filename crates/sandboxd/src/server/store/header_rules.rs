//! E2B's `network.rules` and `network.egressProxy` as data: what a create request or
//! `PUT /sandboxes/{id}/network` may say, checked for a 400 with E2B's limits, and
//! compiled into what the egress path acts on (`net/intercept.rs`, `net/socks5.rs`).
//!
//! A rule names a domain and the headers every HTTP or HTTPS request to it gets (an
//! existing header of the same name is replaced). A header value may name a secret of
//! the daemon's `/secrets` (`${e2b.secrets.NAME}`), resolved at request time, so the
//! value is never in the sandbox, in its record or in any answer.

use std::collections::BTreeMap;

use crate::server::domain::Domain;

/// Limits of E2B's API (packages/api/internal/handlers/sandbox_create.go l. 54-59).
pub const MAX_RULE_DOMAINS: usize = 10;
pub const MAX_TRANSFORMS_PER_DOMAIN: usize = 1;
pub const MAX_RULE_DOMAIN_LEN: usize = 128;
pub const MAX_HEADER_NAME_LEN: usize = 64;
pub const MAX_HEADER_VALUE_LEN: usize = 2048;
pub const MAX_HEADERS_PER_RULE: usize = 20;
/// Distinct secrets one domain's headers may name
/// (packages/shared/pkg/networktransform/placeholders.go l. 17, `MaxMarkerNames`).
pub const MAX_SECRETS_PER_DOMAIN: usize = 32;
/// SOCKS5 user names and passwords are at most 255 bytes (RFC 1929 section 2;
/// packages/shared/pkg/sandbox-network/byop.go l. 88).
pub const MAX_PROXY_CREDENTIAL_LEN: usize = 255;

/// What starts a placeholder naming a secret
/// (packages/shared/pkg/networktransform/placeholders.go l. 12-13).
const SECRET_PREFIX: &str = "${e2b.secrets.";
const IDENTITY_TOKEN_PREFIX: &str = "${e2b.identity.tokens.";

/// One rule of a domain and its transform: the wire's types (E2B's
/// `SandboxNetworkRule`, `SandboxNetworkTransform`), kept as given.
pub use dsh_proto::control::NetworkRule;
#[cfg(test)]
use dsh_proto::control::NetworkTransform as Transform;

/// `network.rules`: domain → its rules.
pub type Rules = BTreeMap<String, Vec<NetworkRule>>;

/// E2B's `SandboxEgressProxyConfig`: a SOCKS5 proxy every outbound TCP connection goes
/// through, after the sandbox's rules allowed it (the wire's type). The password is kept
/// in the sandbox's record (a 0600 file) and never answered or printed.
pub use dsh_proto::control::EgressProxyConfig as EgressProxy;

/// Checks `proxy` as E2B does (packages/shared/pkg/sandbox-network/byop.go l. 128-190)
/// and returns the canonical form: trimmed, the host lower-cased, the port as a number.
/// Unlike E2B, a proxy on the host's loopback or LAN is accepted: the daemon (not the
/// sandbox) connects to it, from the host, and whoever sets it holds the daemon's key.
pub fn checked_proxy(proxy: &EgressProxy) -> Result<EgressProxy, String> {
    {
        let address = proxy.address.trim();
        if address.is_empty() {
            return Err("egressProxy: the address must not be empty".into());
        }
        let (host, port) = split_host_port(address).ok_or_else(|| {
            format!("egressProxy: the address {address:?} must be in host:port form")
        })?;
        let host = host.trim().to_ascii_lowercase();
        if host.is_empty() {
            return Err("egressProxy: the host must not be empty".into());
        }
        let port = port.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(|| {
            format!("egressProxy: the port {port:?} is not a valid 1-65535 value")
        })?;
        if let Ok(ip) = host.parse::<std::net::Ipv4Addr>()
            && ip.octets()[0] == 0
        {
            return Err(format!("egressProxy: {ip} is not an address a proxy can have"));
        }
        if host.parse::<std::net::IpAddr>().is_err() && Domain::parse(&host).is_err() {
            return Err(format!(
                "egressProxy: the host {host:?} is not an IP address or a domain name"
            ));
        }
        let username = proxy.username.clone().filter(|u| !u.is_empty());
        let password = proxy.password.clone().filter(|p| !p.is_empty());
        if username.is_none() && password.is_some() {
            return Err("egressProxy: the password must be empty when the username is".into());
        }
        for (name, value) in [("username", &username), ("password", &password)] {
            if value.as_ref().is_some_and(|v| v.len() > MAX_PROXY_CREDENTIAL_LEN) {
                return Err(format!(
                    "egressProxy: the {name} must not exceed {MAX_PROXY_CREDENTIAL_LEN} bytes"
                ));
            }
        }
        let address =
            if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
        Ok(EgressProxy { address, username, password })
    }
}

/// `host:port` or `[v6]:port`.
fn split_host_port(address: &str) -> Option<(&str, &str)> {
    if let Some(rest) = address.strip_prefix('[') {
        let (host, port) = rest.split_once(']')?;
        return Some((host, port.strip_prefix(':')?));
    }
    let (host, port) = address.rsplit_once(':')?;
    (!host.contains(':')).then_some((host, port))
}

/// A header value as the egress path sends it: text, and the secrets it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValuePart {
    Text(String),
    /// A secret's canonical (lower-case) name.
    Secret(String),
}

/// One domain's headers, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderRule {
    pub domain: Domain,
    /// Header names lower-cased (HTTP names are case-insensitive), in name order.
    pub headers: Vec<(String, Vec<ValuePart>)>,
}

impl HeaderRule {
    /// The secrets the rule names, each once.
    pub fn secrets(&self) -> std::collections::BTreeSet<&str> {
        let parts = self.headers.iter().flat_map(|(_, parts)| parts);
        parts
            .filter_map(|part| match part {
                ValuePart::Secret(name) => Some(name.as_str()),
                ValuePart::Text(_) => None,
            })
            .collect()
    }
}

/// Checks `rules` with E2B's limits and messages
/// (packages/api/internal/handlers/sandbox_create.go l. 803-925) and compiles them.
/// The error is for a 400. A domain may also be `*.example.test` (E2B takes plain names
/// only): every name below it.
pub fn compile(rules: &Rules) -> Result<Vec<HeaderRule>, String> {
    if rules.len() > MAX_RULE_DOMAINS {
        return Err(format!("Network rules can have at most {MAX_RULE_DOMAINS} domains."));
    }
    let mut compiled = Vec::with_capacity(rules.len());
    for (domain, domain_rules) in rules {
        if domain.is_empty() {
            return Err("Rule domain must not be empty.".into());
        }
        if domain.len() > MAX_RULE_DOMAIN_LEN {
            return Err(format!(
                "Rule domain {domain:?} exceeds maximum length of {MAX_RULE_DOMAIN_LEN} characters."
            ));
        }
        let parsed = Domain::parse(domain)
            .map_err(|_| format!("Rule domain {domain:?} is not a valid domain name."))?;
        if domain_rules.len() > MAX_TRANSFORMS_PER_DOMAIN {
            return Err(format!(
                "Domain {domain:?} can have at most {MAX_TRANSFORMS_PER_DOMAIN} transform rule."
            ));
        }
        let mut headers = Vec::new();
        let mut secrets = std::collections::BTreeSet::new();
        let transforms = domain_rules.iter().filter_map(|rule| rule.transform.as_ref());
        for given in transforms.filter_map(|transform| transform.headers.as_ref()) {
            if given.len() > MAX_HEADERS_PER_RULE {
                return Err(format!(
                    "Domain {domain:?} can have at most {MAX_HEADERS_PER_RULE} headers per rule."
                ));
            }
            for (name, value) in given {
                check_header(domain, name, value)?;
                let parts = parse_value(value)?;
                secrets.extend(parts.iter().filter_map(|part| match part {
                    ValuePart::Secret(name) => Some(name.clone()),
                    ValuePart::Text(_) => None,
                }));
                if secrets.len() > MAX_SECRETS_PER_DOMAIN {
                    return Err(format!(
                        "Rule domain {domain:?} references more than {MAX_SECRETS_PER_DOMAIN} secrets."
                    ));
                }
                headers.push((name.to_ascii_lowercase(), parts));
            }
        }
        headers.sort_by(|a, b| a.0.cmp(&b.0));
        // Two names differing in case only are one header: the last (in the JSON
        // object's key order) would win silently, so neither is taken.
        if let Some(pair) = headers.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(format!(
                "Header {:?} is named twice (in different case) in the rule for domain {domain:?}.",
                pair[0].0
            ));
        }
        compiled.push(HeaderRule { domain: parsed, headers });
    }
    Ok(compiled)
}

/// The checks of one header (sandbox_create.go l. 868-903; `httpguts.ValidHeaderFieldName`
/// and `ValidHeaderFieldValue`, golang.org/x/net/http/httpguts/httplex.go).
fn check_header(domain: &str, name: &str, value: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("Header name in rule for domain {domain:?} must not be empty."));
    }
    if !name.bytes().all(is_token_byte) {
        return Err(format!(
            "Header name {name:?} in rule for domain {domain:?} must contain only valid HTTP token characters."
        ));
    }
    if name.len() > MAX_HEADER_NAME_LEN {
        return Err(format!(
            "Header name {name:?} in rule for domain {domain:?} exceeds maximum length of {MAX_HEADER_NAME_LEN} characters."
        ));
    }
    // A CTL other than HTAB (CR and LF among them) would end the header early.
    if value.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f) {
        return Err(format!(
            "Value for header {name:?} in rule for domain {domain:?} contains invalid characters."
        ));
    }
    if value.len() > MAX_HEADER_VALUE_LEN {
        return Err(format!(
            "Value for header {name:?} in rule for domain {domain:?} exceeds maximum length of {MAX_HEADER_VALUE_LEN} characters."
        ));
    }
    Ok(())
}

/// RFC 9110 section 5.6.2 `tchar`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Splits a header value at its placeholders, left to right, as E2B parses them
/// (placeholders.go l. 41-90): `${e2b.secrets.NAME}` names a secret (its name
/// normalised as `/secrets` stores it); an unclosed or nested placeholder, or an empty
/// name, is malformed. `${e2b.identity.tokens.NAME}` names an E2B identity token, which
/// a local daemon has none of.
pub fn parse_value(value: &str) -> Result<Vec<ValuePart>, String> {
    const MALFORMED: &str = "Network transform header contains a malformed E2B placeholder.";
    let mut parts = Vec::new();
    let mut rest = value;
    loop {
        let next = [SECRET_PREFIX, IDENTITY_TOKEN_PREFIX]
            .iter()
            .filter_map(|prefix| rest.find(prefix).map(|at| (at, *prefix)))
            .min_by_key(|(at, _)| *at);
        let Some((at, prefix)) = next else { break };
        if at > 0 {
            parts.push(ValuePart::Text(rest[..at].to_owned()));
        }
        let after = &rest[at + prefix.len()..];
        let end = after.find('}').ok_or(MALFORMED)?;
        let name = &after[..end];
        if name.is_empty() || name.contains("${e2b.") {
            return Err(MALFORMED.into());
        }
        if prefix == IDENTITY_TOKEN_PREFIX {
            return Err(format!(
                "Network transform header names identity token {name:?}: a local daemon has no E2B identity tokens; name a secret (${{e2b.secrets.NAME}}) instead."
            ));
        }
        parts.push(ValuePart::Secret(normalize_secret_name(name).ok_or(MALFORMED)?));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        parts.push(ValuePart::Text(rest.to_owned()));
    }
    Ok(parts)
}

/// A secret's name as `/secrets` stores it: 1-128 of `[a-zA-Z0-9_-]`, lower-cased
/// (E2B's spec/openapi.yml `NewSecret.name`).
pub fn normalize_secret_name(name: &str) -> Option<String> {
    let valid = (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    valid.then(|| name.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn rules(domain: &str, headers: &[(&str, &str)]) -> Rules {
        let headers = headers.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
        let rule = NetworkRule { transform: Some(Transform { headers: Some(headers) }) };
        BTreeMap::from([(domain.to_owned(), vec![rule])])
    }

    #[test]
    fn values_split_at_their_secrets() {
        assert_eq!(parse_value("plain").unwrap(), [ValuePart::Text("plain".into())]);
        assert_eq!(
            parse_value("Bearer ${e2b.secrets.GitHub_Token}!").unwrap(),
            [
                ValuePart::Text("Bearer ".into()),
                ValuePart::Secret("github_token".into()),
                ValuePart::Text("!".into())
            ]
        );
        assert_eq!(
            parse_value("${e2b.secrets.a}${e2b.secrets.b}").unwrap(),
            [ValuePart::Secret("a".into()), ValuePart::Secret("b".into())]
        );
        // Other `${...}` text is the value's own.
        assert_eq!(parse_value("${HOME}").unwrap(), [ValuePart::Text("${HOME}".into())]);
        for malformed in [
            "${e2b.secrets.",
            "${e2b.secrets.}",
            "${e2b.secrets.a b}",
            "x${e2b.secrets.${e2b.secrets.a}}",
        ] {
            assert_eq!(
                parse_value(malformed).unwrap_err(),
                "Network transform header contains a malformed E2B placeholder.",
                "{malformed}"
            );
        }
        assert!(
            parse_value("${e2b.identity.tokens.gh}")
                .unwrap_err()
                .contains("no E2B identity tokens")
        );
    }

    #[test]
    fn rules_are_checked_with_e2bs_limits_and_messages() {
        let ok = compile(&rules(
            "API.Example.test",
            &[("Authorization", "Bearer ${e2b.secrets.tok}"), ("X-A", "1")],
        ))
        .unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].domain.to_string(), "api.example.test");
        assert_eq!(ok[0].headers[0].0, "authorization");
        assert_eq!(ok[0].secrets().into_iter().collect::<Vec<_>>(), ["tok"]);
        let error = |rules: Rules| compile(&rules).unwrap_err();
        assert_eq!(
            error(rules("a.test", &[("X-A", "a\r\nX-Evil: 1")])),
            "Value for header \"X-A\" in rule for domain \"a.test\" contains invalid characters."
        );
        assert_eq!(
            error(rules("a.test", &[("X A", "1")])),
            "Header name \"X A\" in rule for domain \"a.test\" must contain only valid HTTP token characters."
        );
        assert_eq!(
            error(rules("a.test", &[("", "1")])),
            "Header name in rule for domain \"a.test\" must not be empty."
        );
        let long_name = "x".repeat(65);
        assert_eq!(
            error(rules("a.test", &[(&long_name, "1")])),
            format!(
                "Header name \"{long_name}\" in rule for domain \"a.test\" exceeds maximum length of 64 characters."
            )
        );
        assert_eq!(
            error(rules("a.test", &[("X", &"v".repeat(2049))])),
            "Value for header \"X\" in rule for domain \"a.test\" exceeds maximum length of 2048 characters."
        );
        assert_eq!(error(rules("a b", &[])), "Rule domain \"a b\" is not a valid domain name.");
        assert_eq!(error(rules("", &[])), "Rule domain must not be empty.");
        let long_domain = format!("{}.test", "a.".repeat(62));
        assert!(
            error(rules(&long_domain, &[])).ends_with("exceeds maximum length of 128 characters.")
        );
        let many: Vec<(String, String)> = (0..21).map(|i| (format!("X-{i}"), "1".into())).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(
            error(rules("a.test", &many)),
            "Domain \"a.test\" can have at most 20 headers per rule."
        );
        let domains: Rules = (0..11).map(|i| (format!("d{i}.test"), Vec::new())).collect();
        assert_eq!(error(domains), "Network rules can have at most 10 domains.");
        let two = BTreeMap::from([(
            "a.test".to_owned(),
            vec![NetworkRule::default(), NetworkRule::default()],
        )]);
        assert_eq!(error(two), "Domain \"a.test\" can have at most 1 transform rule.");
        assert_eq!(
            error(rules("a.test", &[("X-A", "1"), ("x-a", "2")])),
            "Header \"x-a\" is named twice (in different case) in the rule for domain \"a.test\"."
        );
        let secrets: String = (0..33).map(|i| format!("${{e2b.secrets.s{i}}}")).collect();
        assert_eq!(
            error(rules("a.test", &[("X", &secrets)])),
            "Rule domain \"a.test\" references more than 32 secrets."
        );
    }

    #[test]
    fn a_proxy_is_checked_and_made_canonical_as_e2b_does() {
        let proxy = |address: &str, user: Option<&str>, password: Option<&str>| EgressProxy {
            address: address.into(),
            username: user.map(Into::into),
            password: password.map(Into::into),
        };
        let ok = checked_proxy(&proxy(" Proxy.Example.TEST:1080 ", Some("u"), Some("p"))).unwrap();
        assert_eq!(ok.address, "proxy.example.test:1080");
        assert_eq!(
            format!("{ok:?}"),
            "EgressProxy { address: \"proxy.example.test:1080\", username: Some(\"u\"), password: Some(\"<hidden>\") }"
        );
        assert_eq!(
            checked_proxy(&proxy("127.0.0.1:1080", None, None)).unwrap().address,
            "127.0.0.1:1080"
        );
        assert_eq!(checked_proxy(&proxy("[::1]:1080", None, None)).unwrap().address, "[::1]:1080");
        let error = |p: EgressProxy| checked_proxy(&p).unwrap_err();
        assert_eq!(error(proxy("", None, None)), "egressProxy: the address must not be empty");
        assert_eq!(
            error(proxy("proxy.test", None, None)),
            "egressProxy: the address \"proxy.test\" must be in host:port form"
        );
        assert_eq!(
            error(proxy("proxy.test:0", None, None)),
            "egressProxy: the port \"0\" is not a valid 1-65535 value"
        );
        assert_eq!(
            error(proxy("proxy.test:70000", None, None)),
            "egressProxy: the port \"70000\" is not a valid 1-65535 value"
        );
        assert_eq!(
            error(proxy("0.0.0.0:1080", None, None)),
            "egressProxy: 0.0.0.0 is not an address a proxy can have"
        );
        assert_eq!(
            error(proxy("p.test:1", None, Some("x"))),
            "egressProxy: the password must be empty when the username is"
        );
        assert_eq!(
            error(proxy("p.test:1", Some(&"u".repeat(256)), None)),
            "egressProxy: the username must not exceed 255 bytes"
        );
    }
}
