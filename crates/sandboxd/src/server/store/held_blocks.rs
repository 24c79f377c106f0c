//! The uid blocks files kept on disk hold, besides running sandboxes': snapshots',
//! template builds' and the build step cache's files are owned by the block of the
//! sandbox that made them, and no new sandbox may get it. Read from their descriptions
//! (see `described.rs`), below the modules that make them, so that handing out a block
//! needs none of them.

use std::path::Path;

use serde::Deserialize;

use crate::server::described::Described;
use crate::spec::Isolation;

/// Snapshots, among the sandboxes' files (the same filesystem, for snapshots to be cheap).
pub const SNAPSHOTS_DIR: &str = ".snapshots";
/// Where finished builds keep their files, among the sandboxes' (cheap snapshots).
pub const BUILDS_DIR: &str = ".builds";
/// The step cache, among the sandboxes' files.
pub const CACHE_DIR: &str = ".build-cache";

/// What a snapshot's or a cache entry's description says of its block.
#[derive(Deserialize)]
struct Keyed {
    key: String,
    isolation: Option<Isolation>,
}

/// What a build's description says of its block.
#[derive(Deserialize)]
struct Built {
    #[serde(rename = "buildID")]
    build_id: String,
    isolation: Option<Isolation>,
}

/// Every block the files under `sandboxes` (the sandboxes' directory) hold.
pub fn held_blocks(sandboxes: &Path) -> Vec<Isolation> {
    let keyed = |dir: &str, what| {
        Described::new(sandboxes.join(dir), what).list(|e: &Keyed| &e.key).into_iter()
    };
    let built = Described::new(sandboxes.join(BUILDS_DIR), "template build")
        .list(|b: &Built| &b.build_id)
        .into_iter()
        .filter_map(|b| b.isolation);
    keyed(SNAPSHOTS_DIR, "snapshot")
        .chain(keyed(CACHE_DIR, "build cache entry"))
        .filter_map(|e| e.isolation)
        .chain(built)
        .collect()
}
