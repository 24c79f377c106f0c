//! Volumes as the disk keeps them: `<sandboxes>/.volumes/<key>/` and its description
//! `<key>.json` (see `control/volumes.rs` for what a volume is).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::server::described::Described;
use crate::server::record::Store;
use crate::spec::IdRange;

/// The directory, among the sandboxes' (in the disk image).
pub const DIR: &str = ".volumes";

/// A volume as kept in `<key>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume {
    /// The directory's name.
    pub key: String,
    #[serde(rename = "volumeID")]
    pub volume_id: String,
    pub name: String,
    /// E2B's token for the volume content API (`volume_content.rs`).
    pub token: String,
    pub created_at_ms: u64,
    /// The host block its files are owned by; `None` for a volume made before volumes
    /// had one (its files keep the inside ids until `volume_ids::migrate` moves them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<IdRange>,
    /// Its size in MiB, its subvolume's limit (`volume_quota.rs`); 0 in a record from
    /// before sizes (converted at start).
    #[serde(default, rename = "sizeMB")]
    pub size_mb: u64,
}

impl Volume {
    /// E2B's Volume.
    pub fn listed(&self) -> dsh_proto::control::Volume {
        dsh_proto::control::Volume { token: None, ..self.with_token() }
    }

    /// E2B's VolumeAndToken. (`sizeMB`, dsh's, is left out for a volume that could not
    /// be converted to a sized one: E2B's SDKs keep fields they do not know aside.)
    pub fn with_token(&self) -> dsh_proto::control::Volume {
        dsh_proto::control::Volume {
            name: self.name.clone(),
            size_mb: (self.size_mb != 0).then_some(self.size_mb),
            token: Some(self.token.clone()),
            volume_id: self.volume_id.clone(),
        }
    }
}

pub fn store(records: &Store) -> Described {
    Described::new(records.root().join(DIR), "volume")
}

/// The directory holding `volume`'s files: a subvolume limited to the volume's size
/// (`volume_quota.rs`).
pub fn files(records: &Store, volume: &Volume) -> PathBuf {
    store(records).dir(&volume.key)
}

/// The host block `volume`'s files are owned by (the ids themselves for an old volume
/// not yet moved).
pub fn block(volume: &Volume) -> IdRange {
    volume.ids.unwrap_or(IdRange { host_base: 0 })
}

/// Records that `volume`'s files are now owned by `ids`.
pub fn set_block(records: &Store, volume: &Volume, ids: IdRange) -> anyhow::Result<()> {
    store(records).describe(&volume.key, &Volume { ids: Some(ids), ..volume.clone() })
}

/// Every volume, oldest first.
pub fn list(records: &Store) -> Vec<Volume> {
    let mut volumes: Vec<Volume> = store(records).list(|v: &Volume| &v.key);
    volumes.sort_by(|a, b| a.created_at_ms.cmp(&b.created_at_ms).then(a.key.cmp(&b.key)));
    volumes
}

pub fn by_id(records: &Store, id: &str) -> Option<Volume> {
    list(records).into_iter().find(|v| v.volume_id == id)
}

pub fn by_name(records: &Store, name: &str) -> Option<Volume> {
    list(records).into_iter().find(|v| v.name == name)
}
