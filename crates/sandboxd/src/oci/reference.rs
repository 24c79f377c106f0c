//! Image references as Docker spells them: `ubuntu`, `ubuntu:22.04`, `library/ubuntu`,
//! `ghcr.io/org/img:tag`, `127.0.0.1:5000/team/img@sha256:…`.

use std::fmt;

use super::error::ImageError;

/// Docker Hub's name in references, and the host its registry API is served from.
const DOCKER_HUB: &str = "docker.io";
const DOCKER_HUB_API: &str = "registry-1.docker.io";
/// Longest reference accepted (docker/distribution's limit on a repository name is 255).
const MAX_REFERENCE_LEN: usize = 512;

/// A parsed reference: where the registry is, which repository, and which manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]` of the registry's API (Docker Hub's is `registry-1.docker.io`).
    pub registry: String,
    /// `library/ubuntu`, `team/img`.
    pub repository: String,
    /// The tag; `latest` when neither a tag nor a digest is named.
    pub tag: Option<String>,
    /// `sha256:<64 hex>`: wins over the tag when both are named (as in Docker).
    pub digest: Option<String>,
}

impl Reference {
    pub fn parse(reference: &str) -> Result<Reference, ImageError> {
        let bad = |why: &str| ImageError::BadReference(format!("{reference:?}: {why}"));
        if reference.is_empty() || reference.len() > MAX_REFERENCE_LEN {
            return Err(bad("empty or too long"));
        }
        let (rest, digest) = match reference.split_once('@') {
            Some((rest, digest)) => {
                if !is_sha256_digest(digest) {
                    return Err(bad("the digest must be sha256:<64 lowercase hex digits>"));
                }
                (rest, Some(digest.to_owned()))
            }
            None => (reference, None),
        };
        // The tag is after the last ':' that follows the last '/' (a ':' before it is a port).
        let last_slash = rest.rfind('/').map_or(0, |at| at + 1);
        let (name, tag) = match rest[last_slash..].rfind(':') {
            Some(at) => {
                let at = last_slash + at;
                (&rest[..at], Some(rest[at + 1..].to_owned()))
            }
            None => (rest, None),
        };
        if let Some(tag) = &tag
            && !valid_tag(tag)
        {
            return Err(bad("a tag is 1–128 of [A-Za-z0-9_.-], not starting with '.' or '-'"));
        }
        // The first component is a registry when it looks like a host (Docker's rule).
        let (registry, repository) = match name.split_once('/') {
            Some((first, rest))
                if first.contains('.') || first.contains(':') || first == "localhost" =>
            {
                (first.to_owned(), rest.to_owned())
            }
            _ => (DOCKER_HUB.to_owned(), name.to_owned()),
        };
        if registry.is_empty()
            || !registry.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        {
            return Err(bad("the registry is not host[:port]"));
        }
        if !repository.split('/').all(valid_component) {
            return Err(bad(
                "a repository is lowercase letters, digits and single '.', '_', '__' or '-' between them, in '/'-separated parts",
            ));
        }
        let (registry, repository) = if registry == DOCKER_HUB || registry == "index.docker.io" {
            let repository =
                if repository.contains('/') { repository } else { format!("library/{repository}") };
            (DOCKER_HUB_API.to_owned(), repository)
        } else {
            (registry, repository)
        };
        let tag = match (&tag, &digest) {
            (None, None) => Some("latest".to_owned()),
            _ => tag,
        };
        Ok(Reference { registry, repository, tag, digest })
    }

    /// What the manifest request names: the digest if there is one, else the tag.
    pub fn manifest_ref(&self) -> &str {
        self.digest.as_deref().or(self.tag.as_deref()).unwrap_or("latest")
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

pub fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn valid_tag(tag: &str) -> bool {
    let bytes = tag.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && (bytes[0].is_ascii_alphanumeric() || bytes[0] == b'_')
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(b))
}

/// docker/distribution: `[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*`.
fn valid_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return false;
    }
    let mut at = 0;
    while at < bytes.len() {
        if alnum(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && !alnum(bytes[at]) {
            at += 1;
        }
        let sep = &part[start..at];
        if !(sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|b| b == b'-')) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn parse(s: &str) -> (String, String, Option<String>, Option<String>) {
        let r = Reference::parse(s).unwrap();
        (r.registry, r.repository, r.tag, r.digest)
    }

    #[test]
    fn docker_hub_names() {
        let hub = || "registry-1.docker.io".to_owned();
        assert_eq!(
            parse("ubuntu:22.04"),
            (hub(), "library/ubuntu".into(), Some("22.04".into()), None)
        );
        assert_eq!(
            parse("library/ubuntu"),
            (hub(), "library/ubuntu".into(), Some("latest".into()), None)
        );
        assert_eq!(
            parse("docker.io/org/img"),
            (hub(), "org/img".into(), Some("latest".into()), None)
        );
    }

    #[test]
    fn registries_ports_and_digests() {
        let digest = format!("sha256:{}", "a".repeat(64));
        assert_eq!(
            parse("127.0.0.1:5000/team/img:tag"),
            ("127.0.0.1:5000".into(), "team/img".into(), Some("tag".into()), None)
        );
        assert_eq!(
            parse(&format!("localhost:5000/img@{digest}")),
            ("localhost:5000".into(), "img".into(), None, Some(digest.clone()))
        );
        assert_eq!(
            parse(&format!("img:1@{digest}")),
            ("registry-1.docker.io".into(), "library/img".into(), Some("1".into()), Some(digest))
        );
    }

    #[test]
    fn rejects_bad_references() {
        for bad in ["", "Ubuntu", "img@sha256:abc", "img:", "a//b", "img:-x", "reg.io/", "a..b"] {
            assert!(matches!(Reference::parse(bad), Err(ImageError::BadReference(_))), "{bad:?}");
        }
    }
}
