//! A domain name as egress rules name it (`allowOut` entries, `rules` keys), and how a
//! name a program connects to matches it.

/// A domain of `allowOut`: `example.test` (that name only) or `*.example.test` (every
/// name below it, not the name itself). Lowercase, without a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    name: String,
    subdomains: bool,
}

impl std::fmt::Display for Domain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subdomains {
            f.write_str("*.")?;
        }
        f.write_str(&self.name)
    }
}

impl Domain {
    /// `pypi.org`, `*.npmjs.org`; the error says what is wrong, for a 400.
    pub fn parse(text: &str) -> Result<Domain, String> {
        let lower = text.trim().trim_end_matches('.').to_ascii_lowercase();
        let (name, subdomains) = match lower.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (lower.as_str(), false),
        };
        let valid_label = |label: &str| {
            (1..=63).contains(&label.len())
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        if name.is_empty() || name.len() > 253 || !name.split('.').all(valid_label) {
            return Err(format!(
                "{text:?} is not a domain name (letters, digits, '-' and '_' in dot-separated labels, optionally after \"*.\"), an IPv4 address or a CIDR block"
            ));
        }
        Ok(Domain { name: name.to_owned(), subdomains })
    }

    /// Whether `host` (as a request names it: any case, maybe a trailing dot) is allowed.
    pub fn matches(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        if self.subdomains {
            host.len() > self.name.len() + 1
                && host[host.len() - self.name.len()..].eq_ignore_ascii_case(&self.name)
                && host.as_bytes()[host.len() - self.name.len() - 1] == b'.'
        } else {
            host.eq_ignore_ascii_case(&self.name)
        }
    }
}
