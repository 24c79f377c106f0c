//! `/init caBundle`: PEM CA certificates installed into the system trust bundle, as E2B's
//! envd does it (e2b-dev/infra at 54693ff, envd 0.6.13; the field came with envd 0.5.13):
//! `packages/envd/internal/host/cacerts.go`, called from `internal/api/init.go:296-300`.
//!
//! Like E2B, envd does not parse the PEM: the text is trusted as the orchestrator sent it
//! (the spec, `spec/envd.yaml:77-79`, allows several concatenated blocks).
//!
//! Where this differs from E2B, on purpose:
//! - the bundle is always read first, and a bundle that already holds this exact PEM is
//!   left alone: E2B only remembers its last PEM in memory (`cacerts.go:94`), so after an
//!   envd restart it appends a second copy;
//! - everything happens before `/init` answers (E2B appends in the request and removes the
//!   previous PEM and writes `e2b-ca.crt` in a goroutine, `cacerts.go:123-158`), and the
//!   bundle is always replaced atomically (E2B appends in place, `cacerts.go:105-115`);
//! - a missing bundle is created (E2B's `os.OpenFile` without `O_CREATE` fails);
//! - a bundle whose last line lacks its newline gets one before the appended PEM;
//! - a caBundle of blank lines only is ignored (E2B would append a lone newline, and on
//!   the next rotation remove every newline of the bundle).
//!
//! The bundle is replaced by renaming a temporary file over its path, so a bundle path
//! that is a symlink becomes a regular file (Debian's is a regular file already).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The system trust bundle (`cacerts.go:20`, `CaBundlePath`).
pub const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// Where the installed PEM is also kept so that `update-ca-certificates`, which rebuilds
/// the bundle from `/usr/local/share/ca-certificates/*.crt`, keeps it (`cacerts.go:22-28`,
/// `caExtraPath`, E2B's name being `e2b-ca.crt`).
pub const SYSTEM_EXTRA: &str = "/usr/local/share/ca-certificates/dsh-egress-ca.crt";

/// Where [`CaCertInstaller`] writes. Only code sets these (tests point them into a
/// temporary directory); envd itself always uses [`CaPaths::system`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaPaths {
    /// The trust bundle the PEM is appended to.
    pub bundle: PathBuf,
    /// The copy for `update-ca-certificates` (best effort).
    pub extra: PathBuf,
}

impl CaPaths {
    pub fn system() -> Self {
        CaPaths { bundle: SYSTEM_BUNDLE.into(), extra: SYSTEM_EXTRA.into() }
    }
}

impl Default for CaPaths {
    fn default() -> Self {
        Self::system()
    }
}

/// What an install did to the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// Nothing to do: the bundle already held this PEM (or the PEM was blank).
    Unchanged,
    /// The PEM was appended (and the one installed before it, if any, removed).
    Appended,
    /// The bundle already held the new PEM; only the one installed before it was removed.
    PreviousRemoved,
}

/// Why the bundle could not be updated.
#[derive(Debug, thiserror::Error)]
#[error("{action} {path}: {source}")]
pub struct InstallError {
    action: &'static str,
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

/// Installs `/init`'s caBundle, one install at a time (`cacerts.go:88-92`, `mu`).
#[derive(Debug)]
pub struct CaCertInstaller {
    paths: CaPaths,
    /// The normalised PEM this envd put in the bundle, to remove when another replaces
    /// it (`cacerts.go:41-46`, `lastCACert`). Memory only: a restarted envd does not know
    /// what the previous one installed, and leaves it in the bundle (as E2B does).
    installed: Mutex<Option<Vec<u8>>>,
}

impl CaCertInstaller {
    pub fn new(paths: CaPaths) -> Self {
        CaCertInstaller { paths, installed: Mutex::new(None) }
    }

    pub fn paths(&self) -> &CaPaths {
        &self.paths
    }

    /// Puts `pem` into the bundle, replacing the PEM this envd installed before. Blocking
    /// (file I/O): call it off the async runtime's threads.
    pub fn install(&self, pem: &str) -> Result<Installed, InstallError> {
        self.install_at(pem, None)
    }

    /// [`CaCertInstaller::install`] into `bundle` instead of the configured one when
    /// given: a bundle of the caller's choosing, made from the configured (system) one
    /// when it does not exist yet. No copy is kept for `update-ca-certificates` then (it
    /// rebuilds the system's bundle only).
    pub fn install_at(&self, pem: &str, bundle: Option<&Path>) -> Result<Installed, InstallError> {
        // cacerts.go:84-86: normalise to a single trailing newline, so comparisons and
        // removals do not depend on how the caller ended the PEM.
        let trimmed = pem.trim_end_matches('\n');
        if trimmed.trim().is_empty() {
            return Ok(Installed::Unchanged);
        }
        let normalized = format!("{trimmed}\n").into_bytes();

        // cacerts.go:88-92: one install at a time, against concurrent /init calls.
        let mut installed = match self.installed.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };

        let own = bundle.is_some_and(|path| path != self.paths.bundle);
        let bundle = bundle.unwrap_or(&self.paths.bundle).to_owned();
        let read = |path: &Path| match std::fs::read(path) {
            Ok(content) => Ok(Some(content)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(InstallError { action: "read", path: path.to_owned(), source }),
        };
        let mut content = match read(&bundle)? {
            Some(content) => content,
            None if own => read(&self.paths.bundle)?.unwrap_or_default(),
            None => Vec::new(),
        };
        let bundle = &bundle;

        // cacerts.go:102-103 and 142-153: the PEM installed before is removed (every
        // occurrence, as `removeCertFromBundle`'s `strings.ReplaceAll`, cacerts.go:179).
        let mut removed = false;
        if let Some(previous) = installed.as_deref().filter(|p| *p != normalized.as_slice()) {
            let (without, count) = remove_all(&content, previous);
            content = without;
            removed = count > 0;
        }

        // Our addition: a bundle holding this exact PEM already (an envd restarted since it
        // installed it, say) gets no second copy.
        let append = find(&content, &normalized).is_none();
        if append {
            if content.last().is_some_and(|&b| b != b'\n') {
                content.push(b'\n');
            }
            content.extend_from_slice(&normalized);
        }

        if append || removed {
            // cacerts.go:163-217 (`removeCertFromBundle`): a temporary file in the bundle's
            // directory, made 0644, renamed over the bundle.
            write_atomically(bundle, &content)?;
        }

        if append && own {
            *installed = Some(normalized.clone());
            Ok(Installed::Appended)
        } else if append {
            *installed = Some(normalized.clone());
            // cacerts.go:136-141: also persisted for update-ca-certificates; best effort,
            // logged on failure.
            if let Err(err) = write_atomically(&self.paths.extra, &normalized) {
                tracing::warn!(%err, "cannot keep the CA certificate for update-ca-certificates");
            }
            Ok(Installed::Appended)
        } else if removed {
            // The new PEM was in the bundle before this envd put it there: not ours to
            // remove later. Nor is the copy for update-ca-certificates still current.
            *installed = None;
            match std::fs::remove_file(&self.paths.extra) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => tracing::warn!(
                    path = %self.paths.extra.display(),
                    %err,
                    "cannot remove the previous CA certificate kept for update-ca-certificates"
                ),
            }
            Ok(Installed::PreviousRemoved)
        } else {
            Ok(Installed::Unchanged)
        }
    }
}

/// Replaces `path` with `content` (mode 0644) by renaming a temporary file from the same
/// directory over it; the directory is created (0755) if missing.
fn write_atomically(path: &Path, content: &[u8]) -> Result<(), InstallError> {
    let error = |action, source| InstallError { action, path: path.to_owned(), source };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(|e| error("create the directory of", e))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".dsh-ca-")
        .tempfile_in(dir)
        .map_err(|e| error("create a temporary file beside", e))?;
    // cacerts.go:188-195: the temporary file is made 0600; the bundle must stay readable
    // by every user (TLS clients run as anyone).
    temp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(|e| error("set the mode of a temporary file beside", e))?;
    temp.write_all(content).map_err(|e| error("write a temporary file beside", e))?;
    temp.as_file().sync_all().map_err(|e| error("sync a temporary file beside", e))?;
    // On failure the temporary file is removed when dropped (cacerts.go:210-214).
    temp.persist(path).map_err(|e| error("rename a temporary file over", e.error))?;
    Ok(())
}

/// The first position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// `haystack` without any occurrence of `needle`, and how many there were.
fn remove_all(haystack: &[u8], needle: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    let mut count = 0;
    while let Some(at) = find(rest, needle).filter(|_| !needle.is_empty()) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at + needle.len()..];
        count += 1;
    }
    out.extend_from_slice(rest);
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_all_removes_every_occurrence() {
        assert_eq!(remove_all(b"aXbXc", b"X"), (b"abc".to_vec(), 2));
        assert_eq!(remove_all(b"abc", b"X"), (b"abc".to_vec(), 0));
        assert_eq!(remove_all(b"abc", b""), (b"abc".to_vec(), 0));
        assert_eq!(find(b"abc", b"bc"), Some(1));
        assert_eq!(find(b"ab", b"abc"), None);
    }
}
