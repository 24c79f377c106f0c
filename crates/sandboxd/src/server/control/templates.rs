//! Templates built from steps (E2B's Template SDK): what a name or tag points to.
//!
//! - A *template* has an id, a name (`my-env`, or `team/my-env`) and tags, each naming
//!   one of its builds (`my-env:v1`, `my-env:latest`; a name alone is `my-env:default`).
//!   Every template lives in one index file, `<state>/templates.json`, written whole and
//!   atomically under the daemon's names lock.
//! - A *build* is a finished build's files, kept like a snapshot in
//!   `<sandboxes>/.builds/<buildID>/`, described by `<buildID>.json` (written last, so a
//!   half-made build is never listed and is removed at the next start). Sandboxes made
//!   from it get their own copy (a btrfs snapshot), as from a snapshot.
//!
//! A build no tag points to any more is removed; a template none of whose tags points to
//! a build (its first build failed, or never ran) is removed at the next start.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::server::context::Control;
use crate::server::described::Described;
use crate::server::files::{now_ms, write_private};
use crate::server::shared::Shared;
use crate::spec::Isolation;

/// The index of templates, in the state directory.
pub const INDEX_FILE: &str = "templates.json";
pub use crate::server::held_blocks::BUILDS_DIR;
pub const DEFAULT_TAG: &str = "default";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuiltTemplate {
    #[serde(rename = "templateID")]
    pub template_id: String,
    pub name: String,
    /// Tag → the build it names.
    pub tags: BTreeMap<String, Tag>,
    /// The hashes of the `COPY` archives its builds asked to upload (kept while a
    /// template names them).
    #[serde(default)]
    pub files: std::collections::BTreeSet<String>,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    #[serde(rename = "buildID")]
    pub build_id: String,
    pub assigned_at_ms: u64,
}

/// A finished build: what a sandbox made from it starts with besides its files.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Build {
    #[serde(rename = "buildID")]
    pub build_id: String,
    #[serde(rename = "templateID")]
    pub template_id: String,
    /// The daemon's own template the files run on (its host directories): `base`.
    pub base: String,
    /// The uid block that owns the files.
    pub isolation: Option<Isolation>,
    pub startup: Startup,
    pub cpu_count: Option<u64>,
    #[serde(rename = "memoryMB")]
    pub memory_mb: Option<u64>,
    /// The runtime its sandboxes get unless their create asks for one (None: the
    /// daemon's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<crate::gvisor::Runtime>,
    pub created_at_ms: u64,
}

pub use crate::server::record::Startup;

/// A template reference split into name and tag: `name`, `name:tag`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub name: String,
    pub tag: Option<String>,
}

fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.contains("//")
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-' | b'/')
        })
}

pub fn valid_tag(tag: &str) -> bool {
    (1..=128).contains(&tag.len())
        && tag.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl Reference {
    /// Parses `name` or `name:tag` (names: lowercase letters, digits, `.`, `_`, `-`
    /// and `/` between parts; tags: letters, digits, `.`, `_`, `-`).
    pub fn parse(text: &str) -> Result<Reference, String> {
        let (name, tag) = match text.split_once(':') {
            Some((name, tag)) => (name, Some(tag)),
            None => (text, None),
        };
        if !valid_name(name) {
            return Err(format!(
                "invalid template name {text:?}: use 1 to 128 lowercase letters, digits, '.', '_', \
                 '-' and '/', with an optional ':tag'"
            ));
        }
        if let Some(tag) = tag
            && !valid_tag(tag)
        {
            return Err(format!(
                "invalid tag in {text:?}: a tag is 1 to 128 letters, digits, '.', '_' or '-'"
            ));
        }
        Ok(Reference { name: name.to_owned(), tag: tag.map(str::to_owned) })
    }
}

/// The templates of this daemon and their builds.
pub struct Index<'a> {
    shared: &'a Shared,
}

pub fn index(shared: &Shared) -> Index<'_> {
    Index { shared }
}

fn builds_store(shared: &Shared) -> Described {
    Described::new(shared.store.root().join(BUILDS_DIR), "template build")
}

impl Index<'_> {
    fn path(&self) -> PathBuf {
        self.shared.config.state_dir.join(INDEX_FILE)
    }

    /// Every template, oldest first.
    pub fn all(&self) -> Vec<BuiltTemplate> {
        let Ok(data) = std::fs::read(self.path()) else { return Vec::new() };
        match serde_json::from_slice::<Vec<BuiltTemplate>>(&data) {
            Ok(mut templates) => {
                templates.sort_by_key(|t| t.created_at_ms);
                templates
            }
            Err(e) => {
                tracing::error!(path = %self.path().display(), error = %e, "unreadable template index");
                Vec::new()
            }
        }
    }

    /// Writes the whole index (the caller holds the names lock).
    pub fn save(&self, templates: &[BuiltTemplate]) -> anyhow::Result<()> {
        let data = serde_json::to_vec_pretty(templates)?;
        let path = self.path();
        write_private(&path.with_extension("json.tmp"), &path, &data)
            .with_context(|| format!("writing {}", path.display()))
    }

    /// The template an id or a name (a tag, if any, ignored) names.
    pub fn find(&self, reference: &str) -> Option<BuiltTemplate> {
        let name = reference.split_once(':').map_or(reference, |(name, _)| name);
        self.all().into_iter().find(|t| t.template_id == reference || t.name == name)
    }

    /// The build `reference` (`id`, `name`, `name:tag`) points to: the tag's, else for a
    /// name alone the `default` tag's, else the tag assigned last.
    pub fn resolve(&self, reference: &str) -> Option<(BuiltTemplate, Build)> {
        let template = self.find(reference)?;
        let tag = match reference.split_once(':') {
            Some((_, tag)) => template.tags.get(tag)?,
            None => template
                .tags
                .get(DEFAULT_TAG)
                .or_else(|| template.tags.values().max_by_key(|t| t.assigned_at_ms))?,
        };
        let build = self.build(&tag.build_id)?;
        Some((template, build))
    }

    /// A finished build by id.
    pub fn build(&self, build_id: &str) -> Option<Build> {
        builds_store(self.shared)
            .list(|b: &Build| &b.build_id)
            .into_iter()
            .find(|b| b.build_id == build_id)
    }

    /// Every finished build.
    pub fn builds(&self) -> Vec<Build> {
        builds_store(self.shared).list(|b: &Build| &b.build_id)
    }

    /// The directory holding a build's files.
    pub fn files(&self, build_id: &str) -> PathBuf {
        builds_store(self.shared).dir(build_id)
    }

    /// Keeps a finished build's files (`made` fills the directory it is given) and
    /// describes it.
    pub fn keep_build(
        &self,
        build: &Build,
        made: impl FnOnce(&std::path::Path) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let store = builds_store(self.shared);
        store.prepare()?;
        let dir = store.dir(&build.build_id);
        let kept = made(&dir).and_then(|()| store.describe(&build.build_id, build));
        if kept.is_err() {
            let _ = crate::server::described::remove_dir(&dir);
        }
        kept
    }

    /// Removes the builds no tag of any template points to (the caller holds the names
    /// lock).
    /// Points `tags` of template `template_id` at `build_id`, saves the index and removes
    /// the builds no tag points to any more (the caller holds `names_lock`). `false`, with
    /// nothing changed, when the template is not there (deleted meanwhile).
    pub fn tag_build(
        &self,
        template_id: &str,
        build_id: &str,
        tags: &[String],
    ) -> anyhow::Result<bool> {
        let mut all = self.all();
        let Some(template) = all.iter_mut().find(|t| t.template_id == template_id) else {
            return Ok(false);
        };
        let now = now_ms();
        for tag in tags {
            template
                .tags
                .insert(tag.clone(), Tag { build_id: build_id.to_owned(), assigned_at_ms: now });
        }
        touch(template);
        self.save(&all)?;
        self.remove_unreferenced_builds(&all);
        Ok(true)
    }

    pub fn remove_unreferenced_builds(&self, templates: &[BuiltTemplate]) {
        let store = builds_store(self.shared);
        for build in self.builds() {
            let referenced = templates
                .iter()
                .flat_map(|t| t.tags.values())
                .any(|tag| tag.build_id == build.build_id);
            if !referenced && let Err(e) = store.remove(&build.build_id) {
                tracing::warn!(build = %build.build_id, error = format!("{e:#}"), "removing an unreferenced build");
            }
        }
    }
}

/// Removes what no template, build, sandbox or snapshot uses any more: builds no tag
/// points to, then (see [`crate::server::builds::collect_garbage`]) step cache entries, uploads
/// and pulled images. Runs at start, after a template's deletion, and on `POST /gc`.
pub fn collect(shared: &Control) -> crate::server::builds::Collected {
    let index = index(shared);
    let all = index.all();
    index.remove_unreferenced_builds(&all);
    let files: Vec<String> = all.iter().flat_map(|t| t.files.iter().cloned()).collect();
    crate::server::builds::collect_garbage(shared, &all, &files)
}

/// At start: half-made builds go, tags that point to a build that is gone, builds no
/// tag points to, and cache entries and uploads no template uses. A template without a
/// build (its first build failed) stays: it can be built again or deleted.
pub fn recover(shared: &Control) {
    builds_store(shared).recover();
    crate::server::builds::recover(shared);
    let index = index(shared);
    let mut all = index.all();
    let builds: Vec<String> = index.builds().into_iter().map(|b| b.build_id).collect();
    let mut changed = false;
    for template in &mut all {
        let before = template.tags.len();
        template.tags.retain(|_, tag| builds.contains(&tag.build_id));
        changed |= template.tags.len() != before;
    }
    if changed && let Err(e) = index.save(&all) {
        tracing::warn!(error = format!("{e:#}"), "rewriting the template index");
    }
    collect(shared);
}

/// Now, for a template's `updatedAtMs`.
pub fn touch(template: &mut BuiltTemplate) {
    template.updated_at_ms = now_ms();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn references_split_into_name_and_tag_and_bad_ones_are_refused() {
        assert_eq!(
            Reference::parse("my-env").unwrap(),
            Reference { name: "my-env".into(), tag: None }
        );
        assert_eq!(
            Reference::parse("team/my.env:v1-ABC").unwrap(),
            Reference { name: "team/my.env".into(), tag: Some("v1-ABC".into()) }
        );
        for bad in ["", ":v1", "env:", "Env", "a b", "/a", "a/", "a//b", "a:b:c", "a:b/c"] {
            assert!(Reference::parse(bad).is_err(), "{bad}");
        }
    }
}
