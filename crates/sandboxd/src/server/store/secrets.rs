//! Secrets (E2B's `/secrets`, see `control/secrets.rs`) as the disk keeps them: one file
//! per secret, `<state>/secrets/<secretID>.json` (mode 0600, in a 0700 directory), holding
//! its name, version, metadata, times and value. The files are read once, at
//! [`Secrets::open`]; from then on every change is written through (atomically: a
//! temporary file renamed over) before it is seen, so a lookup ([`Secrets::resolve`],
//! which the egress path calls at request time) reads memory only.
//!
//! A value is write-only: no answer, log line, error or `Debug` output carries it. It
//! lives in a [`SecretValue`], whose `Debug` prints `[redacted]` and whose memory is
//! zeroed when dropped; only [`SecretValue::expose`] reads it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::server::files::{now_ms, rfc3339, set_mode, write_private};

/// The directory of the secrets, in the state directory.
pub const DIR: &str = "secrets";

/// The prefix of every secret id. E2B: packages/shared/pkg/id/object.go:23-30
/// (`SecretIDPrefix = "sec" + "_"`, "reserved for public secret identifiers").
pub const ID_PREFIX: &str = "sec_";

/// Characters after [`ID_PREFIX`]: a TypeID suffix (E2B: packages/shared/pkg/id/object.go:32,
/// `typeIDSuffixLen = 26`).
const ID_SUFFIX_LEN: usize = 26;

/// TypeID's base32 alphabet (Crockford's, lower case): in ASCII order, so ids sort as the
/// UUIDs they encode, by time first.
const ID_ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A new secret id as E2B makes them: a UUIDv7 (48 bits of Unix milliseconds, then random
/// bits) rendered as a TypeID, `sec_` and 26 lower-case base32 characters, e.g.
/// `sec_01kyjhkfvse96rg4d2qzd9enft`. E2B: packages/shared/pkg/id/object.go:51 (`secretTypeID
/// = typeid.Sortable[...] // uuidv7`), :81-87 (`SecretID.String`), and its README.md:40
/// ("Secret UUIDs are UUIDv7 and use `typeid.Sortable`").
pub fn new_id() -> String {
    let random: [u8; 16] = rand::random();
    let mut uuid = u128::from_be_bytes(random);
    let millis = u128::from(now_ms()) & ((1 << 48) - 1);
    // RFC 9562: unix_ts_ms (48) | ver 0b0111 (4) | rand_a (12) | var 0b10 (2) | rand_b (62).
    uuid = (millis << 80) | (uuid & ((1 << 80) - 1));
    uuid = (uuid & !(0xf << 76)) | (0x7 << 76);
    uuid = (uuid & !(0x3 << 62)) | (0x2 << 62);
    let mut id = String::with_capacity(ID_PREFIX.len() + ID_SUFFIX_LEN);
    id.push_str(ID_PREFIX);
    // 130 bits (two leading zero bits, then the UUID's 128), 5 bits a character.
    for i in (0..ID_SUFFIX_LEN).rev() {
        let digit = (uuid >> (5 * i)) & 31;
        id.push(char::from(ID_ALPHABET[usize::try_from(digit).unwrap_or(0)]));
    }
    id
}

/// Whether `text` is a well-formed secret id: [`ID_PREFIX`] and 26 characters of
/// [`ID_ALPHABET`], the first at most `7` (the encoding's two leading bits are zero).
/// Lower case only, as E2B's `ParseSecretID` (packages/shared/pkg/id/object.go:119-127;
/// its tests refuse an upper-case id, object_test.go:94).
pub fn is_id(text: &str) -> bool {
    let Some(suffix) = text.strip_prefix(ID_PREFIX) else { return false };
    suffix.len() == ID_SUFFIX_LEN
        && suffix.bytes().all(|b| ID_ALPHABET.contains(&b))
        && suffix.as_bytes().first().is_some_and(|b| *b <= b'7')
}

/// A secret's value. Never printed: its `Debug` is `[redacted]`, it has no `Display`, and
/// it is serialized only into the secret's own file. Its memory is zeroed when dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretValue(Zeroizing<String>);

impl SecretValue {
    pub fn new(value: String) -> SecretValue {
        SecretValue(Zeroizing::new(value))
    }

    /// The value itself, for the one use it has: the egress path putting it into a
    /// request leaving a sandbox.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// A secret without its value: what every answer is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretInfo {
    /// See [`new_id`].
    pub secret_id: String,
    /// Its canonical name: lower case, unique.
    pub name: String,
    /// 1 at create, one more at each update (each update stores a new value, as E2B's
    /// "appending a new version", spec/openapi.yml:4292-4294).
    pub current_version: i64,
    pub metadata: BTreeMap<String, String>,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

impl SecretInfo {
    /// E2B's `Secret` (spec/openapi.yml:2153-2183): times in RFC 3339, metadata always
    /// present (`{}` when unset, as packages/api/internal/handlers/secrets.go:475-477).
    pub fn wire(&self) -> dsh_proto::control::Secret {
        dsh_proto::control::Secret {
            created_at: rfc3339(self.created_at_ms),
            current_version: self.current_version,
            metadata: self.metadata.clone(),
            name: self.name.clone(),
            secret_id: self.secret_id.clone(),
            updated_at: rfc3339(self.updated_at_ms),
        }
    }
}

/// Which secret a request names (E2B's `SecretRef`: an id or a name, never both;
/// packages/api/internal/handlers/secrets.go:399-427). The name is canonical already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Id(String),
    Name(String),
}

/// What a change of the store can fail with. No message holds a value, a name or an id
/// a client sent.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// Another secret has the name (E2B answers 409:
    /// packages/api/internal/handlers/secrets.go:358-359).
    #[error("a secret with this name already exists")]
    NameTaken,
    /// The file could not be written or removed.
    #[error(transparent)]
    Io(anyhow::Error),
}

/// One secret's file, `<secretID>.json`: [`SecretInfo`] and the value. No `Debug`; the
/// value's copy is zeroed when it is dropped.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SecretFile {
    #[serde(rename = "secretID")]
    secret_id: String,
    name: String,
    current_version: i64,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
    created_at_ms: u64,
    updated_at_ms: u64,
    value: String,
}

impl Drop for SecretFile {
    fn drop(&mut self) {
        self.value.zeroize();
    }
}

/// A secret in memory.
struct Entry {
    info: SecretInfo,
    value: SecretValue,
}

impl Entry {
    fn file(&self) -> SecretFile {
        let info = &self.info;
        SecretFile {
            secret_id: info.secret_id.clone(),
            name: info.name.clone(),
            current_version: info.current_version,
            metadata: info.metadata.clone(),
            created_at_ms: info.created_at_ms,
            updated_at_ms: info.updated_at_ms,
            value: self.value.expose().to_owned(),
        }
    }
}

struct Inner {
    dir: PathBuf,
    /// Held by a change from its check to its end (a name checked is still free when it
    /// is taken); never by a lookup, so no lookup waits for the disk.
    writing: Mutex<()>,
    /// By id: ids sort by creation time, which is the listing order. Held for memory
    /// operations only.
    entries: Mutex<BTreeMap<String, Entry>>,
}

/// The daemon's secrets: cheap to clone (one shared store), safe to use from any thread.
#[derive(Clone)]
pub struct Secrets {
    inner: Arc<Inner>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secrets")
            .field("dir", &self.inner.dir)
            .field("count", &self.entries().len())
            .finish()
    }
}

impl Secrets {
    /// Opens (making it, mode 0700) the directory `dir` and reads every secret in it. A
    /// file that cannot be read is skipped and logged (by path, never by content), as is a
    /// second secret of one name; a temporary file a killed daemon left is removed.
    pub fn open(dir: impl Into<PathBuf>) -> anyhow::Result<Secrets> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        set_mode(&dir, 0o700).with_context(|| format!("setting the mode of {}", dir.display()))?;
        let mut entries = BTreeMap::new();
        let listing =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        let mut paths: Vec<PathBuf> = listing.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            if file_name.ends_with(".tmp") {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            let Some(id) = file_name.strip_suffix(".json") else { continue };
            let entry = match read_entry(&path) {
                Ok(entry) if entry.info.secret_id == id && is_id(id) => entry,
                Ok(_) => {
                    tracing::warn!(path = %path.display(), "skipping a secret file whose secretID is not its name");
                    continue;
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "skipping an unreadable secret file");
                    continue;
                }
            };
            let taken = entries.values().any(|e: &Entry| e.info.name == entry.info.name);
            if taken {
                tracing::warn!(path = %path.display(), "skipping a secret whose name an older one has");
                continue;
            }
            entries.insert(entry.info.secret_id.clone(), entry);
        }
        let inner = Inner { dir, writing: Mutex::new(()), entries: Mutex::new(entries) };
        Ok(Secrets { inner: Arc::new(inner) })
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    fn entries(&self) -> MutexGuard<'_, BTreeMap<String, Entry>> {
        self.inner.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn writing(&self) -> MutexGuard<'_, ()> {
        self.inner.writing.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value of the secret named `name` (trimmed and lower-cased first, as E2B
    /// canonicalizes a name: packages/shared/pkg/secretsstore/name.go:18,30), if there is
    /// one. What the egress path calls at request time: memory only, no disk.
    pub fn resolve(&self, name: &str) -> Option<SecretValue> {
        let name = name.trim().to_ascii_lowercase();
        self.entries().values().find(|e| e.info.name == name).map(|e| e.value.clone())
    }

    /// Every secret, by id (oldest first).
    pub fn list(&self) -> Vec<SecretInfo> {
        self.entries().values().map(|e| e.info.clone()).collect()
    }

    /// The secret `selector` names.
    pub fn get(&self, selector: &Selector) -> Option<SecretInfo> {
        let entries = self.entries();
        find(&entries, selector).map(|id| entries[id].info.clone())
    }

    /// Stores a new secret, version 1. `name` is canonical (checked by the caller).
    /// Blocks on the disk: call it off the async threads.
    pub fn create(
        &self,
        name: &str,
        value: SecretValue,
        metadata: BTreeMap<String, String>,
    ) -> Result<SecretInfo, SecretsError> {
        let _writing = self.writing();
        let secret_id = {
            let entries = self.entries();
            if entries.values().any(|e| e.info.name == name) {
                return Err(SecretsError::NameTaken);
            }
            loop {
                let id = new_id();
                if !entries.contains_key(&id) {
                    break id;
                }
            }
        };
        let now = now_ms();
        let entry = Entry {
            info: SecretInfo {
                secret_id: secret_id.clone(),
                name: name.to_owned(),
                current_version: 1,
                metadata,
                created_at_ms: now,
                updated_at_ms: now,
            },
            value,
        };
        self.write(&entry).map_err(SecretsError::Io)?;
        let info = entry.info.clone();
        self.entries().insert(secret_id, entry);
        Ok(info)
    }

    /// Replaces the value of the secret `selector` names (its version goes up by one, its
    /// `updatedAt` forward) and, when `metadata` is given, its metadata (an omitted one is
    /// kept: packages/api/internal/handlers/secrets.go:234-238). `None`: no such secret.
    /// Blocks on the disk.
    pub fn update(
        &self,
        selector: &Selector,
        value: SecretValue,
        metadata: Option<BTreeMap<String, String>>,
    ) -> Result<Option<SecretInfo>, SecretsError> {
        let _writing = self.writing();
        let Some(old) = self.get(selector) else { return Ok(None) };
        let info = SecretInfo {
            current_version: old.current_version.saturating_add(1),
            metadata: metadata.unwrap_or_else(|| old.metadata.clone()),
            // Strictly later than the last update, even within one millisecond.
            updated_at_ms: now_ms().max(old.updated_at_ms.saturating_add(1)),
            ..old
        };
        let entry = Entry { info: info.clone(), value };
        self.write(&entry).map_err(SecretsError::Io)?;
        self.entries().insert(info.secret_id.clone(), entry);
        Ok(Some(info))
    }

    /// Deletes the secret `selector` names (its file, then its entry); `false` when there
    /// is none. Blocks on the disk.
    pub fn delete(&self, selector: &Selector) -> Result<bool, SecretsError> {
        let _writing = self.writing();
        let Some(id) = self.get(selector).map(|s| s.secret_id) else { return Ok(false) };
        let path = self.path(&id);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(SecretsError::Io(
                    anyhow::Error::new(e).context(format!("removing {}", path.display())),
                ));
            }
            _ => {}
        }
        self.entries().remove(&id);
        Ok(true)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.inner.dir.join(format!("{id}.json"))
    }

    /// Writes `entry`'s file: 0600, atomically, synced.
    fn write(&self, entry: &Entry) -> anyhow::Result<()> {
        let id = &entry.info.secret_id;
        let path = self.path(id);
        let tmp = self.inner.dir.join(format!(".{id}.json.tmp"));
        // Serializing a struct of strings, integers and a string map cannot fail; were it
        // to, the error is serde_json's own, which names no content.
        let data = Zeroizing::new(
            serde_json::to_vec_pretty(&entry.file()).context("serializing a secret")?,
        );
        write_private(&tmp, &path, &data).with_context(|| format!("writing {}", path.display()))
    }
}

/// The id of the entry `selector` names.
fn find<'a>(entries: &'a BTreeMap<String, Entry>, selector: &Selector) -> Option<&'a str> {
    match selector {
        Selector::Id(id) => entries.get_key_value(id).map(|(id, _)| id.as_str()),
        Selector::Name(name) => {
            entries.iter().find(|(_, e)| e.info.name == *name).map(|(id, _)| id.as_str())
        }
    }
}

/// Reads one file. The error names the failure's kind and place, never the content (a
/// serde error can quote what it could not read).
fn read_entry(path: &Path) -> anyhow::Result<Entry> {
    let data = Zeroizing::new(std::fs::read(path)?);
    let mut file: SecretFile = serde_json::from_slice(&data).map_err(|e| {
        anyhow::anyhow!("{:?} error at line {} column {}", e.classify(), e.line(), e.column())
    })?;
    Ok(Entry {
        info: SecretInfo {
            secret_id: std::mem::take(&mut file.secret_id),
            name: std::mem::take(&mut file.name),
            current_version: file.current_version,
            metadata: std::mem::take(&mut file.metadata),
            created_at_ms: file.created_at_ms,
            updated_at_ms: file.updated_at_ms,
        },
        value: SecretValue::new(std::mem::take(&mut file.value)),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn ids_are_typeids_of_uuidv7s() {
        let before = now_ms();
        let id = new_id();
        assert!(is_id(&id), "{id}");
        assert_eq!(id.len(), 30);
        // Decoded, the UUID's version is 7, its variant RFC 9562's, its time now.
        let uuid = id[4..].bytes().fold(0u128, |acc, b| {
            (acc << 5) | ID_ALPHABET.iter().position(|c| *c == b).unwrap() as u128
        });
        assert_eq!((uuid >> 76) & 0xf, 7);
        assert_eq!((uuid >> 62) & 0x3, 2);
        let millis = u64::try_from(uuid >> 80).unwrap();
        assert!((before..=now_ms()).contains(&millis));
        // E2B's own example (packages/shared/pkg/id/object.go:5) is one.
        assert!(is_id("sec_01kyjhkfvse96rg4d2qzd9enft"));
        for bad in [
            "sec_01KYJHKFVSE96RG4D2QZD9ENFT",
            "sec_01kyjhkfvse96rg4d2qzd9enf",
            "sec_01kyjhkfvse96rg4d2qzd9enfi",
            "sec_81kyjhkfvse96rg4d2qzd9enft",
            "prj_01kyjhkfvse96rg4d2qzd9enft",
            "sec_",
        ] {
            assert!(!is_id(bad), "{bad}");
        }
    }

    #[test]
    fn ids_sort_by_time() {
        let a = new_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = new_id();
        assert!(a < b, "{a} {b}");
    }

    #[test]
    fn a_value_is_never_printed() {
        let value = SecretValue::new("hunter2-sentinel".into());
        assert_eq!(format!("{value:?}"), "[redacted]");
        assert_eq!(format!("{:?}", Some(value.clone())), "Some([redacted])");
        assert_eq!(value.expose(), "hunter2-sentinel");
    }

    #[test]
    fn concurrent_creates_of_one_name_make_one_secret() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::open(dir.path().join(DIR)).unwrap();
        let made: Vec<bool> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..8)
                .map(|i| {
                    let secrets = secrets.clone();
                    scope.spawn(move || {
                        let value = SecretValue::new(format!("value-{i}"));
                        let made = secrets.create("shared", value, BTreeMap::new()).is_ok();
                        // Lookups go on while others write.
                        assert!(secrets.resolve("shared").is_some() || !made);
                        made
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(made.iter().filter(|m| **m).count(), 1);
        assert_eq!(secrets.list().len(), 1);
        assert_eq!(std::fs::read_dir(secrets.dir()).unwrap().count(), 1);
    }

    #[test]
    fn the_store_keeps_secrets_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(DIR);
        let secrets = Secrets::open(&root).unwrap();
        let made = secrets
            .create("api-token", SecretValue::new("v1-sentinel".into()), BTreeMap::new())
            .unwrap();
        assert!(matches!(
            secrets.create("api-token", SecretValue::new("x".into()), BTreeMap::new()),
            Err(SecretsError::NameTaken)
        ));
        let printed = format!("{secrets:?}");
        assert!(!printed.contains("v1-sentinel"), "{printed}");
        let updated = secrets
            .update(
                &Selector::Name("api-token".into()),
                SecretValue::new("v2-sentinel".into()),
                None,
            )
            .unwrap()
            .unwrap();
        assert_eq!(updated.current_version, 2);
        assert!(updated.updated_at_ms > made.updated_at_ms);
        drop(secrets);

        let again = Secrets::open(&root).unwrap();
        assert_eq!(again.list(), vec![updated.clone()]);
        assert_eq!(again.resolve(" API-Token ").unwrap().expose(), "v2-sentinel");
        assert!(again.resolve("other").is_none());
        assert!(again.delete(&Selector::Id(made.secret_id.clone())).unwrap());
        assert!(!again.delete(&Selector::Id(made.secret_id)).unwrap());
        assert!(again.list().is_empty());
        assert!(Secrets::open(&root).unwrap().list().is_empty());
    }
}
