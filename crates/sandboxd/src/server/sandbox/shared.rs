//! What the handlers, the proxy, the reaper and the lifecycle share: the configuration,
//! the sandboxes' registry, the launcher and the host's resources (cgroups, layers,
//! disk, spare networks, runsc), and the uid blocks handed to new sandboxes.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;

use crate::cgroup::Cgroups;
use crate::launch::Launcher;
use crate::server::config::Config;
use crate::server::record::{self, Store};
use crate::server::slot::Slot;
use crate::server::{demand, disk, files, layers, open_files, secrets, spare_netns};
use crate::spec::{IdRange, Isolation, IsolationLevel};
use crate::template::Templates;

/// State shared by the handlers, the proxy and the reaper.
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) api_key: String,
    pub(crate) store: Store,
    /// E2B's secrets (`<state>/secrets/`); the egress path reads values with
    /// [`secrets::Secrets::resolve`].
    pub(crate) secrets: secrets::Secrets,
    pub(crate) launcher: Launcher,
    pub(crate) envd_binary: PathBuf,
    /// None where the daemon may not make cgroups (an ordinary user's, without a
    /// delegated hierarchy): sandboxes then run without limits.
    pub(crate) cgroups: Option<Arc<Cgroups>>,
    /// Read-only layers every sandbox sees at `/.dsh/layers`.
    pub(crate) layers: layers::Layers,
    /// Where sandboxes keep their files, with a quota each when the host allows.
    pub(crate) disk: disk::Disk,
    pub(crate) sandboxes: Mutex<HashMap<String, Arc<Slot>>>,
    /// Templates whose pool is being refilled.
    pub(crate) refilling: Mutex<std::collections::HashSet<String>>,
    /// Set by shutdown: no new pooled sandboxes.
    pub(crate) stopping: std::sync::atomic::AtomicBool,
    /// Images pulled for builds `fromImage` (`<state>/images`).
    pub(crate) images: crate::oci::ImageStore,
    /// The tasks and files per process each sandbox gets (see `open_files.rs`).
    pub(crate) open_files: open_files::OpenFileBound,
    /// Teardowns of killed sandboxes still running after their kill was answered.
    pub(crate) teardowns: Teardowns,
    /// Recent creates per template, for an auto pool's size.
    pub(crate) demand: demand::Demand,
    /// Private networks made ahead for launches (see `spare_netns.rs`).
    pub(crate) spare_netns: Arc<spare_netns::SpareNetworks>,
    /// gVisor's runsc, where it is installed and new enough, or why not (then
    /// `runtime: "gvisor"` is refused with it).
    pub(crate) runsc: Result<crate::gvisor::Runsc, String>,
    /// Header rules on the egress path: the CA, the secrets (see `intercept.rs`). None
    /// when the CA could not be made (rules then are refused with why).
    pub(crate) interception: Option<Arc<crate::server::intercept::Interception>>,
}

/// Background work the daemon owes before it may stop: the teardowns of killed sandboxes
/// (see `lifecycle::kill_then_tear_down`). Shutdown awaits every one.
#[derive(Default)]
pub(crate) struct Teardowns(Mutex<tokio::task::JoinSet<()>>);

impl Teardowns {
    pub(crate) fn spawn(&self, work: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Finished ones are dropped here, so the set holds only what still runs.
        while set.try_join_next().is_some() {}
        set.spawn(work);
    }

    /// Waits for every teardown started so far.
    pub(crate) async fn wait(&self) {
        let mut set = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        while set.join_next().await.is_some() {}
    }
}

/// A template by name: the configured ones (`base`), then, when `images` is given, an
/// image pulled here (`image:sha256:<hex>`, what sandboxes of a template built
/// `fromImage` run on).
pub(crate) fn find_template(
    templates: &Templates,
    images: Option<&crate::oci::ImageStore>,
    name: &str,
) -> crate::error::Result<crate::template::Template> {
    if let (Some(images), Some(digest)) = (images, name.strip_prefix(crate::oci::TEMPLATE_PREFIX))
        && let Ok(Some(image)) = images.cached(digest)
    {
        return Ok(image.template());
    }
    templates.get(name).cloned()
}

impl Shared {
    /// The template `name` (see [`find_template`]).
    pub(crate) fn template(&self, name: &str) -> crate::error::Result<crate::template::Template> {
        find_template(&self.config.templates, Some(&self.images), name)
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub(crate) fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.sandboxes.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn slot(&self, id: &str) -> Option<Arc<Slot>> {
        self.map().get(id).cloned()
    }

    pub(crate) fn slots(&self) -> Vec<Arc<Slot>> {
        self.map().values().cloned().collect()
    }

    /// Inserts a new slot; `false` when the id is taken.
    pub(crate) fn insert_slot(&self, slot: Arc<Slot>) -> bool {
        let mut map = self.map();
        if map.contains_key(&slot.id) {
            return false;
        }
        map.insert(slot.id.clone(), slot);
        true
    }

    /// Inserts a slot for a new sandbox with a fresh id and, under strict isolation, the
    /// lowest uid block nothing of this daemon holds.
    pub(crate) fn insert_new(&self, record: &record::Record) -> anyhow::Result<Arc<Slot>> {
        let strict = self.config.isolation == IsolationLevel::Strict;
        let held = if strict { self.held_blocks() } else { Vec::new() };
        let mut map = self.map();
        let isolation = match strict {
            true => Isolation::strict(self.free_block(&map, &held, None)?),
            false => Isolation::Namespaces,
        };
        let record = record::Record { isolation: Some(isolation), ..record.clone() };
        Ok(insert_with_new_id(&mut map, record))
    }

    /// Inserts a slot for a sandbox whose files start as another's (a fork's parent, a
    /// snapshot, a template build: `record.isolation` is theirs): a fresh id, and under
    /// strict isolation a block of its own to run in, over the files' block (see
    /// [`Isolation::Strict`]'s `files`). An ordinary user's daemon has no idmapped mounts
    /// to shift the files with: there the sandbox keeps the files' block.
    pub(crate) fn insert_fork(&self, record: &record::Record) -> anyhow::Result<Arc<Slot>> {
        let Some(origin @ Isolation::Strict { .. }) = record.isolation else {
            return Ok(insert_with_new_id(&mut self.map(), record.clone()));
        };
        if crate::rootless::blocks_inside().is_some() {
            return Ok(insert_with_new_id(&mut self.map(), record.clone()));
        }
        let held = self.held_blocks();
        let mut map = self.map();
        let ids = self.free_block(&map, &held, Some(origin))?;
        let record = record::Record { isolation: Some(origin.running_in(ids)), ..record.clone() };
        Ok(insert_with_new_id(&mut map, record))
    }

    /// Blocks of snapshots and template builds (their files are owned by them), read
    /// from disk before the registry is locked.
    pub(crate) fn held_blocks(&self) -> Vec<Isolation> {
        crate::server::held_blocks::held_blocks(self.store.root())
    }

    /// The lowest block nothing holds: no sandbox in `map` (for its processes or its
    /// files), nothing in `held`, nor `origin` (whose files a new sandbox starts from).
    /// The caller inserts under the same lock, so two creates never get one block.
    pub(crate) fn free_block(
        &self,
        map: &HashMap<String, Arc<Slot>>,
        held: &[Isolation],
        origin: Option<Isolation>,
    ) -> anyhow::Result<IdRange> {
        let taken: std::collections::HashSet<u32> = map
            .values()
            .filter_map(|slot| slot.lock().record.isolation)
            .chain(held.iter().copied())
            .chain(origin)
            .flat_map(Isolation::blocks)
            // Volumes' files are owned by theirs (a daemon configured below it).
            .chain(std::iter::once(IdRange::VOLUMES))
            .map(|ids| ids.host_base)
            .collect();
        let blocks = self.config.id_blocks.unwrap_or(u32::MAX);
        (0..blocks)
            .map_while(|slot| IdRange::slot(self.config.id_base, slot))
            .find(|ids| !taken.contains(&ids.host_base))
            .with_context(|| match self.config.id_blocks {
                Some(blocks) => format!(
                    "every uid block is taken (the user's subordinate ids hold {blocks}): kill some sandboxes, or give the user a larger range in /etc/subuid and /etc/subgid"
                ),
                None => "every uid block is taken: kill some sandboxes".to_owned(),
            })
    }

    pub(crate) fn remove_slot(&self, id: &str) {
        self.map().remove(id);
    }
}

fn insert_with_new_id(map: &mut HashMap<String, Arc<Slot>>, record: record::Record) -> Arc<Slot> {
    loop {
        let id = files::new_sandbox_id();
        if map.contains_key(&id) {
            continue;
        }
        let slot = Arc::new(Slot::new(record::Record { sandbox_id: id.clone(), ..record }));
        map.insert(id, slot.clone());
        return slot;
    }
}
