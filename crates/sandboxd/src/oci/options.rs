//! What a pull may do: its limits and network policy, and a registry's credentials.

use std::time::Duration;

/// Docker's and OCI's limit is undocumented; 4 MiB is what containerd accepts.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 4 << 20;

/// Limits and network policy for pulls.
#[derive(Debug, Clone)]
pub struct PullOptions {
    pub connect_timeout: Duration,
    /// Each manifest, config and token request, whole.
    pub request_timeout: Duration,
    /// Each layer blob, whole.
    pub blob_timeout: Duration,
    /// Longest silence while reading any response.
    pub read_timeout: Duration,
    pub max_layers: usize,
    /// The sum of the layers' compressed sizes (as the manifest declares them).
    pub max_download_bytes: u64,
    /// The sum of the sizes of the image's regular files.
    pub max_unpacked_bytes: u64,
    /// Tar entries over all layers.
    pub max_entries: u64,
    /// `host[:port]` of registries spoken to in plain http besides loopback ones
    /// (127.0.0.0/8, `localhost`, `[::1]`); every other registry is https.
    pub plain_http: Vec<String>,
    pub max_manifest_bytes: u64,
}

impl Default for PullOptions {
    fn default() -> PullOptions {
        PullOptions {
            connect_timeout: Duration::from_secs(15),
            request_timeout: Duration::from_secs(60),
            blob_timeout: Duration::from_secs(60 * 60),
            read_timeout: Duration::from_secs(120),
            // Overlay's own limit on lower layers is about this.
            max_layers: 128,
            max_download_bytes: 16 << 30,
            max_unpacked_bytes: 32 << 30,
            max_entries: 2_000_000,
            plain_http: Vec::new(),
            max_manifest_bytes: MAX_MANIFEST_BYTES,
        }
    }
}

/// Credentials for a registry (a Bearer token service or Basic auth).
#[derive(Clone)]
pub struct RegistryAuth {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for RegistryAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryAuth").field("username", &self.username).finish_non_exhaustive()
    }
}
