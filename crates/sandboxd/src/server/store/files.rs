//! Small helpers every part of the control plane uses: files written atomically and
//! privately, modes, ids, the clock.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use rand::Rng;

/// Writes `data` to `path` atomically and readable by its owner only (it may hold a
/// secret): into `tmp` (mode 0600, synced), then renamed. A failure removes `tmp`.
pub fn write_private(tmp: &Path, path: &Path, data: &[u8]) -> io::Result<()> {
    write_private_as(tmp, path, data, Durability::Synced)
}

/// [`write_private`] without waiting for the disk (see [`Store::save_unsynced`]).
pub(crate) fn write_private_unsynced(tmp: &Path, path: &Path, data: &[u8]) -> io::Result<()> {
    write_private_as(tmp, path, data, Durability::Unsynced)
}

/// Whether a write waits until the disk has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    Synced,
    Unsynced,
}

fn write_private_as(
    tmp: &Path,
    path: &Path,
    data: &[u8],
    durability: Durability,
) -> io::Result<()> {
    let written = (|| {
        let mut file =
            fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(tmp)?;
        file.write_all(data)?;
        if durability == Durability::Synced {
            file.sync_data()?;
        }
        fs::rename(tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(tmp);
    }
    written
}

pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// E2B's id format: 20 characters of `[a-z0-9]`.
pub fn new_sandbox_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..20).map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())])).collect()
}

/// `bytes` random bytes as lowercase hex.
pub fn random_hex(bytes: usize) -> String {
    let mut rng = rand::rng();
    (0..bytes).map(|_| format!("{:02x}", rng.random::<u8>())).collect()
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// RFC 3339 in UTC, e.g. `2026-11-30T10:08:00.123Z` (no fraction on a whole second).
pub fn rfc3339(ms: u64) -> String {
    let seconds = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    let nanos = i32::try_from(ms % 1000 * 1_000_000).unwrap_or(0);
    prost_types::Timestamp { seconds, nanos }.to_string()
}
