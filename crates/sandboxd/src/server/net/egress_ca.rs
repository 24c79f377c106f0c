//! The TLS both sides of an intercepted HTTPS connection need (see `intercept.rs`).
//!
//! Toward the sandbox: a certificate for the name the program asked for, signed by the
//! daemon's egress CA, which every sandbox trusts (envd's `/init caBundle` puts it in the
//! system store, as E2B's orchestrator does: packages/orchestrator/pkg/sandbox/envd.go
//! l. 92). One CA per daemon, as E2B has one per orchestrator
//! (packages/orchestrator/pkg/tcpfirewall/proxy.go l. 192): a sandbox's trust store then
//! stays right across pauses, forks and snapshots, whichever sandbox they came from. Its
//! key is in the daemon's state directory (0600, in a 0700 directory) and in the daemon's
//! memory, never in a sandbox: a sandbox sees only the certificate.
//!
//! Toward the destination: a fresh TLS connection verified against the host's trust
//! store (what `SSL_CERT_FILE`/`SSL_CERT_DIR` or the system bundle say,
//! rustls-native-certs), for the name the program asked for: a rule's headers only ever
//! go to a server that proves it is that name.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::server::files::write_private;

/// The state directory's folder for the CA.
pub const CA_DIR: &str = "egress-ca";
/// How long a minted certificate is used before a fresh one is made (it is valid for
/// [`LEAF_VALIDITY`]; a daemon running for weeks never serves an expired one).
const LEAF_REUSE: Duration = Duration::from_secs(7 * 24 * 3600);
const LEAF_VALIDITY: time::Duration = time::Duration::days(30);
/// Names minted for at most (each a few hundred bytes); the cache starts afresh beyond.
const MAX_MINTED: usize = 4096;

/// The daemon's egress CA and what it minted.
pub struct EgressCa {
    issuer: Issuer<'static, KeyPair>,
    /// The CA's certificate, PEM (what sandboxes trust).
    certificate_pem: String,
    /// One key for every minted certificate: making a key per name costs more than
    /// signing, and the key never leaves the daemon.
    leaf_key: KeyPair,
    minted: Mutex<HashMap<String, (Instant, Arc<rustls::ServerConfig>)>>,
    provider: Arc<rustls::crypto::CryptoProvider>,
    /// Connections out to destinations, verified with the host's trust store.
    upstream: Arc<rustls::ClientConfig>,
}

impl std::fmt::Debug for EgressCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EgressCa").finish_non_exhaustive()
    }
}

impl EgressCa {
    /// The CA kept in `<state_dir>/egress-ca`, made there on first use.
    /// `extra_trust`: PEM certificates trusted for destinations besides the host's store.
    pub fn open(state_dir: &Path, extra_trust: Option<&Path>) -> anyhow::Result<EgressCa> {
        let dir = state_dir.join(CA_DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        crate::server::files::set_mode(&dir, 0o700)?;
        let (key_path, name_path, cert_path) =
            (dir.join("ca.key"), dir.join("ca.name"), dir.join("ca.crt"));
        let (key, name, certificate) = match (
            std::fs::read(&key_path),
            std::fs::read_to_string(&name_path),
            std::fs::read(&cert_path),
        ) {
            (Ok(key), Ok(name), Ok(certificate)) => {
                let key = KeyPair::try_from(key.as_slice())
                    .map_err(|e| anyhow!("{}: {e}", key_path.display()))?;
                (key, name.trim().to_owned(), CertificateDer::from(certificate))
            }
            _ => {
                let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256)
                    .map_err(|e| anyhow!("making the egress CA's key: {e}"))?;
                let name = format!("dsh egress CA {}", crate::server::files::random_hex(4));
                let certificate = ca_params(&name)
                    .self_signed(&key)
                    .map_err(|e| anyhow!("making the egress CA: {e}"))?;
                let tmp = dir.join(".ca.tmp");
                write_private(&tmp, &key_path, &key.serialize_der())?;
                write_private(&tmp, &name_path, name.as_bytes())?;
                write_private(&tmp, &cert_path, certificate.der())?;
                (key, name, certificate.der().clone())
            }
        };
        let issuer = Issuer::new(ca_params(&name), key);
        let leaf_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256)
            .map_err(|e| anyhow!("making the egress certificates' key: {e}"))?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let upstream = Arc::new(upstream_config(&provider, extra_trust)?);
        Ok(EgressCa {
            issuer,
            certificate_pem: pem("CERTIFICATE", &certificate),
            leaf_key,
            minted: Mutex::new(HashMap::new()),
            provider,
            upstream,
        })
    }

    /// The CA's certificate, PEM: what a sandbox is told to trust.
    pub fn certificate_pem(&self) -> &str {
        &self.certificate_pem
    }

    /// The TLS configuration that answers a program asking for `name` (lower-case):
    /// a certificate for it, HTTP/1.1 only (the interception speaks HTTP/1.1).
    pub fn server_config(&self, name: &str) -> anyhow::Result<Arc<rustls::ServerConfig>> {
        let mut minted = self.minted.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made, config)) = minted.get(name)
            && made.elapsed() < LEAF_REUSE
        {
            return Ok(Arc::clone(config));
        }
        let config = Arc::new(self.mint(name)?);
        if minted.len() >= MAX_MINTED {
            minted.clear();
        }
        minted.insert(name.to_owned(), (Instant::now(), Arc::clone(&config)));
        Ok(config)
    }

    fn mint(&self, name: &str) -> anyhow::Result<rustls::ServerConfig> {
        let certificate = self.certificate_for(name)?;
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.leaf_key.serialize_der()));
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::clone(&self.provider))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(vec![certificate], key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(config)
    }

    /// A certificate for `name`, signed by the CA.
    fn certificate_for(&self, name: &str) -> anyhow::Result<CertificateDer<'static>> {
        let mut params = CertificateParams::new(vec![name.to_owned()])
            .map_err(|e| anyhow!("a certificate for {name:?}: {e}"))?;
        let mut subject = DistinguishedName::new();
        subject.push(DnType::CommonName, name);
        params.distinguished_name = subject;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        let now = time::OffsetDateTime::now_utc();
        // A sandbox's clock is the host's; an hour back covers a clock stepped since.
        params.not_before = now - time::Duration::hours(1);
        params.not_after = now + LEAF_VALIDITY;
        let mut serial = [0u8; 16];
        rand::Rng::fill(&mut rand::rng(), &mut serial[..]);
        serial[0] &= 0x7f;
        params.serial_number = Some(rcgen::SerialNumber::from_slice(&serial));
        let certificate = params
            .signed_by(&self.leaf_key, &self.issuer)
            .map_err(|e| anyhow!("signing a certificate for {name:?}: {e}"))?;
        Ok(certificate.der().clone())
    }

    /// The configuration of connections out to destinations (HTTP/1.1).
    pub fn upstream_config(&self) -> Arc<rustls::ClientConfig> {
        Arc::clone(&self.upstream)
    }
}

/// The CA's own parameters: the same for a given name every time, so an issuer built
/// from them again after a restart signs as the stored certificate's subject.
fn ca_params(name: &str) -> CertificateParams {
    let mut params = CertificateParams::default();
    let mut subject = DistinguishedName::new();
    subject.push(DnType::CommonName, name);
    subject.push(DnType::OrganizationName, "dsh");
    params.distinguished_name = subject;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::hours(1);
    params.not_after = now + time::Duration::days(3650);
    params
}

/// Verifies destinations with the host's trust store. A store that cannot be read at all
/// is an error (every HTTPS rule would fail); single bad certificates are skipped.
fn upstream_config(
    provider: &Arc<rustls::crypto::CryptoProvider>,
    extra_trust: Option<&Path>,
) -> anyhow::Result<rustls::ClientConfig> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (mut added, _ignored) = roots.add_parsable_certificates(found.certs);
    if let Some(path) = extra_trust {
        use rustls::pki_types::pem::PemObject as _;
        let certificates = CertificateDer::pem_file_iter(path)
            .and_then(|found| found.collect::<Result<Vec<_>, _>>())
            .map_err(|e| anyhow!("reading trusted certificates from {}: {e}", path.display()))?;
        if certificates.is_empty() {
            return Err(anyhow!("{} holds no PEM certificate", path.display()));
        }
        for certificate in certificates {
            roots.add(certificate).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            added += 1;
        }
    }
    if added == 0 {
        let errors: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
        tracing::warn!(errors = ?errors, "no trusted certificate found on the host: HTTPS header rules cannot reach any destination");
    }
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::clone(provider))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// DER as PEM (RFC 7468): base64 in lines of 64.
fn pem(label: &str, der: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in encoded.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// A server name for TLS toward a destination.
pub fn server_name(name: &str) -> io::Result<rustls::pki_types::ServerName<'static>> {
    rustls::pki_types::ServerName::try_from(name.to_owned())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{name:?}: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_ca_is_kept_private_and_signs_the_same_after_a_restart() {
        let state = tempfile::tempdir().unwrap();
        let first = EgressCa::open(state.path(), None).unwrap();
        let pem = first.certificate_pem().to_owned();
        assert!(pem.starts_with("-----BEGIN CERTIFICATE-----\n"), "{pem}");
        assert!(pem.ends_with("-----END CERTIFICATE-----\n"));
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&state.path().join(CA_DIR)), 0o700);
        assert_eq!(mode(&state.path().join(CA_DIR).join("ca.key")), 0o600);
        drop(first);
        let again = EgressCa::open(state.path(), None).unwrap();
        assert_eq!(again.certificate_pem(), pem);
        // What it mints verifies against the stored CA (a client trusting only it).
        let mut roots = rustls::RootCertStore::empty();
        use rustls::pki_types::pem::PemObject as _;
        roots.add(CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()).unwrap();
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::clone(&again.provider),
        )
        .build()
        .unwrap();
        let config = again.server_config("api.example.test").unwrap();
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        let leaf = again.certificate_for("api.example.test").unwrap();
        let now = rustls::pki_types::UnixTime::now();
        use rustls::client::danger::ServerCertVerifier as _;
        verifier
            .verify_server_cert(&leaf, &[], &server_name("api.example.test").unwrap(), &[], now)
            .unwrap();
        let wrong =
            verifier.verify_server_cert(&leaf, &[], &server_name("other.test").unwrap(), &[], now);
        assert!(wrong.is_err());
        // Cached: the same configuration for the same name.
        assert!(Arc::ptr_eq(&config, &again.server_config("api.example.test").unwrap()));
    }
}
