//! A sandbox's egress rules as data (E2B's `allowOut`, `denyOut` and
//! `allow_internet_access`): kept in its record, checked for a 400, parsed into addresses,
//! blocks and domains. Turning them into firewall rules and the domain filter is the
//! network layer's (`net/network.rs`, `net/domains.rs`).

use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

pub use crate::server::domain::Domain;
use crate::server::header_rules::{self, EgressProxy, HeaderRule, Rules};

/// Private and special ranges the sandbox may not reach unless `allowOut` names them:
/// the host's LAN, link-local (cloud metadata services), carrier-grade NAT, loopback.
pub const LAN: &[&str] = &[
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "0.0.0.0/8",
];

/// Entries in `allowOut` or `denyOut` at most.
pub const MAX_RULES: usize = 1000;

/// An IPv4 address or CIDR block, as `allowOut`/`denyOut` name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    pub address: Ipv4Addr,
    pub prefix: u8,
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.address, self.prefix)
    }
}

impl Cidr {
    /// Whether `ip` is in the block.
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        let mask = if self.prefix == 0 { 0 } else { u32::MAX << (32 - self.prefix) };
        u32::from(ip) & mask == u32::from(self.address)
    }

    /// `203.0.113.4` or `203.0.113.0/24`; the error says what is wrong, for a 400.
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty entry".into());
        }
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => {
                let prefix = prefix
                    .parse::<u8>()
                    .ok()
                    .filter(|p| *p <= 32)
                    .ok_or_else(|| format!("{text:?}: the prefix must be 0-32"))?;
                (address, prefix)
            }
            None => (text, 32),
        };
        let address = address.parse::<Ipv4Addr>().map_err(|_| {
            if address.contains(':') {
                format!("{text:?}: IPv6 is not routed in local sandboxes")
            } else if address.chars().any(|c| c.is_ascii_alphabetic()) {
                format!("{text:?}: domain names may only be allowed (allowOut), as in E2B; denyOut takes IPv4 addresses and CIDR blocks")
            } else {
                format!("{text:?} is not an IPv4 address or CIDR block")
            }
        })?;
        // The network address, so `10.1.2.3/8` and `10.0.0.0/8` are the same rule.
        let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
        Ok(Cidr { address: Ipv4Addr::from(u32::from(address) & mask), prefix })
    }
}

/// E2B's egress settings of one sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Egress {
    #[serde(default)]
    pub allow_out: Vec<String>,
    #[serde(default)]
    pub deny_out: Vec<String>,
    /// `allow_internet_access: false`: everything not allowed is denied.
    #[serde(default)]
    pub internet_denied: bool,
    /// `rules`: headers set on HTTP and HTTPS requests to a domain (see `header_rules.rs`).
    #[serde(default, skip_serializing_if = "Rules::is_empty")]
    pub rules: Rules,
    /// `egressProxy`: the SOCKS5 proxy outbound TCP goes through, canonical.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress_proxy: Option<EgressProxy>,
}

/// An entry of `allowOut`: an address or CIDR block, or a domain (see `domains.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    Cidr(Cidr),
    Domain(Domain),
}

impl Allowed {
    pub fn parse(text: &str) -> Result<Allowed, String> {
        match Cidr::parse(text) {
            Ok(cidr) => Ok(Allowed::Cidr(cidr)),
            Err(_)
                if text.bytes().any(|b| b.is_ascii_alphabetic()) && !text.contains([':', '/']) =>
            {
                Domain::parse(text).map(Allowed::Domain)
            }
            Err(e) => Err(e),
        }
    }
}

impl Egress {
    /// Checks every entry; the error is for a 400.
    pub fn validate(&self) -> Result<(), String> {
        for (name, list) in [("allowOut", &self.allow_out), ("denyOut", &self.deny_out)] {
            if list.len() > MAX_RULES {
                return Err(format!("{name} has {} entries; at most {MAX_RULES}", list.len()));
            }
        }
        self.allowed()?;
        self.denied()?;
        header_rules::compile(&self.rules)?;
        if let Some(proxy) = &self.egress_proxy {
            header_rules::checked_proxy(proxy)?;
        }
        Ok(())
    }

    /// The rules, compiled (a stored record's were checked when they were set; one that
    /// no longer compiles gives none).
    pub fn header_rules(&self) -> Vec<HeaderRule> {
        header_rules::compile(&self.rules).unwrap_or_default()
    }

    pub(crate) fn allowed(&self) -> Result<Vec<Allowed>, String> {
        let parse = |entry: &String| Allowed::parse(entry).map_err(|e| format!("allowOut: {e}"));
        self.allow_out.iter().map(parse).collect()
    }

    pub(crate) fn denied(&self) -> Result<Vec<Cidr>, String> {
        let parse = |entry: &String| Cidr::parse(entry).map_err(|e| format!("denyOut: {e}"));
        self.deny_out.iter().map(parse).collect()
    }

    /// The domains of `allowOut` (entries that do not parse are left out: a stored
    /// record's rules were checked when they were set).
    pub fn domains(&self) -> Vec<Domain> {
        let allowed = self.allow_out.iter().filter_map(|entry| Allowed::parse(entry).ok());
        allowed
            .filter_map(|entry| match entry {
                Allowed::Domain(domain) => Some(domain),
                Allowed::Cidr(_) => None,
            })
            .collect()
    }
}
