//! Template builds (E2B's Template SDK against this daemon): `POST /v3/templates` asks
//! for a build, `GET /templates/{id}/files/{hash}` hands out upload links for `COPY`
//! steps' files, `POST /v2/templates/{id}/builds/{buildID}` starts the build and
//! `GET .../status` reports it with its logs.
//!
//! A build runs its steps in a sandbox of its own, through that sandbox's envd (as
//! root or the step's user, confined like every sandbox): `RUN` through `bash -l -c`,
//! `COPY` by unpacking the uploaded archive inside, `WORKDIR` with `mkdir -p`; `ENV` and
//! `USER` change what later steps run with. The start and ready commands then run once
//! to prove the template boots. The finished files are kept as the build (see
//! `templates.rs`), and the sandbox is killed.
//!
//! **The step cache.** After each step that changes files, the sandbox's files are kept
//! in `<sandboxes>/.build-cache/<key>/`, where the key digests the base and every step up
//! to this one (type, arguments, the files' hash). A build starts from the longest
//! prefix of its steps found there, so a rebuild after changing its last step runs only
//! that step. `force` (`skip_cache`) on a step or the whole template skips the cache
//! from there on. With disk quotas (btrfs) each kept step is a snapshot: milliseconds,
//! sharing every unchanged block.
//!
//! While a build runs, its sandbox is `creating` and marked `building`: never listed, not
//! reachable through the API, removed by the next start if the daemon dies.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::server::context::Control;
use crate::server::control_error::{ControlError, ControlResult};
use crate::server::described::Described;
use crate::server::envd_client::{self, Envd};
use crate::server::files::{now_ms, random_hex};
use crate::server::record::{NetworkSettings, Phase, Record};
use crate::server::slot::Slot;
pub use crate::server::startup::{boot, quote};
use crate::server::templates::{self, Build, BuiltTemplate, Startup};
use crate::server::{fork, lifecycle};
use crate::spec::Isolation;
use crate::template::BASE;

/// Where uploaded `COPY` archives are kept (by their files' hash), in the state directory.
pub const FILES_DIR: &str = "template-files";
pub use crate::server::held_blocks::CACHE_DIR;
/// E2B's base image: built here from the daemon's own `base` template.
pub const E2B_BASE_IMAGE: &str = "e2bdev/base";
/// The most one uploaded archive may hold.
pub const MAX_UPLOAD_BYTES: u64 = 4 << 30;
/// How long one step may run.
const STEP_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How long one whole build may take (its sandbox's deadline).
const BUILD_TIMEOUT: Duration = Duration::from_secs(2 * 60 * 60);
/// Log entries one status answer carries (E2B: 100).
pub const LOGS_PER_PAGE: usize = 100;
/// What E2B's default template user and workdir are.
const DEFAULT_BUILD_USER: &str = "user";
const DEFAULT_BUILD_WORKDIR: &str = "/home/user";
/// The names E2B gives the steps around the numbered ones (the SDK maps a failure's
/// `reason.step` to the line of the Template code that made it).
const BASE_STEP: &str = "base";
const FINALIZE_STEP: &str = "finalize";

use crate::server::build_progress::lock;
pub use crate::server::build_progress::{LogEntry, Progress, Reason, Status};

/// The build definition the SDK sends (TemplateBuildStartV2).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    pub from_image: Option<String>,
    pub from_template: Option<String>,
    pub from_image_registry: Option<serde_json::Value>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub steps: Option<Vec<StepBody>>,
    pub start_cmd: Option<String>,
    pub ready_cmd: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepBody {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub force: Option<bool>,
    pub files_hash: Option<String>,
    #[serde(default)]
    pub force_upload: Option<bool>,
}

/// One checked step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Run { command: String, user: Option<String> },
    Copy { src: String, dest: String, owner: Option<String>, mode: Option<u32>, files_hash: String },
    Env { vars: Vec<(String, String)> },
    Workdir { path: String },
    User { user: String },
}

impl Step {
    fn changes_files(&self) -> bool {
        matches!(self, Step::Run { .. } | Step::Copy { .. } | Step::Workdir { .. })
    }

    /// How the log names it (E2B's Dockerfile-like form).
    fn describe(&self) -> String {
        match self {
            Step::Run { command, .. } => format!("RUN {command}"),
            Step::Copy { src, dest, .. } => format!("COPY {src} {dest}"),
            Step::Env { vars } => {
                let pairs: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("ENV {}", pairs.join(" "))
            }
            Step::Workdir { path } => format!("WORKDIR {path}"),
            Step::User { user } => format!("USER {user}"),
        }
    }
}

/// Checks every step of `definition` (see [`check_step`]).
pub fn check_steps(definition: &Definition) -> Result<Vec<Step>, String> {
    definition.steps.iter().flatten().enumerate().map(|(i, body)| check_step(i + 1, body)).collect()
}

/// Checks a step as the SDK sends it; the error names the step (1-based).
pub fn check_step(index: usize, body: &StepBody) -> Result<Step, String> {
    let args = body.args.clone().unwrap_or_default();
    let arg = |i: usize| args.get(i).cloned().filter(|a| !a.is_empty());
    let bad = |why: &str| format!("step {index} ({}): {why}", body.kind);
    let step = match body.kind.as_str() {
        "RUN" => Step::Run { command: arg(0).ok_or_else(|| bad("no command"))?, user: arg(1) },
        "COPY" => {
            let files_hash = body.files_hash.clone().ok_or_else(|| bad("no filesHash"))?;
            if !valid_hash(&files_hash) {
                return Err(bad("filesHash must be 64 hex digits"));
            }
            let mode = match arg(3) {
                None => None,
                Some(text) => Some(
                    u32::from_str_radix(&text, 8)
                        .ok()
                        .filter(|m| *m <= 0o7777)
                        .ok_or_else(|| bad("the mode must be octal, like 0755"))?,
                ),
            };
            Step::Copy {
                src: arg(0).ok_or_else(|| bad("no source"))?,
                dest: arg(1).ok_or_else(|| bad("no destination"))?,
                owner: arg(2),
                mode,
                files_hash,
            }
        }
        "ENV" => {
            if args.is_empty() || !args.len().is_multiple_of(2) {
                return Err(bad("arguments must be name, value pairs"));
            }
            let vars: Vec<(String, String)> =
                args.chunks(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect();
            if let Some((name, _)) = vars
                .iter()
                .find(|(name, _)| name.is_empty() || name.contains('=') || name.contains('\0'))
            {
                return Err(bad(&format!("invalid variable name {name:?}")));
            }
            Step::Env { vars }
        }
        "WORKDIR" => Step::Workdir { path: arg(0).ok_or_else(|| bad("no directory"))? },
        "USER" => Step::User { user: arg(0).ok_or_else(|| bad("no user"))? },
        other => {
            return Err(format!(
                "step {index}: unknown step type {other:?} (this daemon builds COPY, ENV, RUN, \
                 WORKDIR and USER)"
            ));
        }
    };
    let text = step.describe();
    if text.contains('\0') {
        return Err(bad("NUL in an argument"));
    }
    Ok(step)
}

pub fn valid_hash(hash: &str) -> bool {
    hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Where a build starts.
#[derive(Debug, Clone)]
pub enum Origin {
    /// One of the daemon's own templates (`base`), fresh.
    Builtin(String),
    /// The files of a finished build (`fromTemplate` naming a built template).
    Build(Build),
    /// The files of a snapshot (`fromTemplate` naming a snapshot).
    Snapshot(crate::server::snapshots::Snapshot),
    /// An OCI or Docker image (`fromImage`), pulled when the build starts.
    Image { reference: String, pulled: Option<crate::oci::PulledImage> },
}

impl Origin {
    /// What the cache keys start from.
    fn identity(&self) -> String {
        match self {
            Origin::Builtin(name) => format!("template:{name}"),
            Origin::Build(build) => format!("build:{}", build.build_id),
            Origin::Snapshot(snapshot) => format!("snapshot:{}", snapshot.key),
            // A tag moves: the cache follows the digest it pointed to at the build.
            Origin::Image { reference, pulled } => match pulled {
                Some(image) => format!("image:{}", image.digest),
                None => format!("image-reference:{reference}"),
            },
        }
    }

    fn base(&self) -> String {
        match self {
            Origin::Builtin(name) => name.clone(),
            Origin::Build(build) => build.base.clone(),
            Origin::Snapshot(snapshot) => snapshot.template_id.clone(),
            Origin::Image { reference, pulled } => match pulled {
                Some(image) => format!("{}{}", crate::oci::TEMPLATE_PREFIX, image.digest),
                None => reference.clone(),
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            Origin::Builtin(name) => format!("FROM {name}"),
            Origin::Build(build) => {
                format!("FROM template {} (build {})", build.template_id, build.build_id)
            }
            Origin::Snapshot(snapshot) => format!("FROM snapshot {}", snapshot.snapshot_id),
            Origin::Image { reference, pulled } => match pulled {
                Some(image) => format!("FROM {reference} ({})", image.digest),
                None => format!("FROM {reference}"),
            },
        }
    }

    /// Pulls the image of an `Image` origin (once per digest on this machine); the pull's
    /// progress goes to `log`. Other origins are ready as they are.
    async fn pull(
        self,
        images: &crate::oci::ImageStore,
        log: &mut (dyn FnMut(String) + Send),
    ) -> Result<Origin, String> {
        let Origin::Image { reference, pulled: None } = self else { return Ok(self) };
        match images.pull(&reference, None, log).await {
            Ok(image) => Ok(Origin::Image { reference, pulled: Some(image) }),
            Err(e) => Err(format!("pulling {reference}: {e}")),
        }
    }
}

/// Where a build starts, from its definition.
pub fn origin(shared: &Control, definition: &Definition) -> Result<Origin, String> {
    if definition.from_image_registry.as_ref().is_some_and(|v| !v.is_null()) {
        return Err("fromImageRegistry (private registries) is not supported by this daemon".into());
    }
    match (&definition.from_template, &definition.from_image) {
        (Some(template), _) => {
            if shared.config.templates.get(template).is_ok() {
                return Ok(Origin::Builtin(template.clone()));
            }
            if let Some((_, build)) = templates::index(shared).resolve(template) {
                return Ok(Origin::Build(build));
            }
            if let Some(snapshot) = crate::server::snapshots::find(shared, template) {
                return Ok(Origin::Snapshot(snapshot));
            }
            Err(format!("fromTemplate: template '{template}' not found"))
        }
        (None, Some(image)) => {
            let repository = image.split_once(':').map_or(image.as_str(), |(name, _)| name);
            let repository = repository.strip_prefix("docker.io/").unwrap_or(repository);
            if repository == E2B_BASE_IMAGE {
                return Ok(Origin::Builtin(BASE.to_owned()));
            }
            crate::oci::Reference::parse(image).map_err(|e| format!("fromImage '{image}': {e}"))?;
            Ok(Origin::Image { reference: image.clone(), pulled: None })
        }
        (None, None) => Ok(Origin::Builtin(BASE.to_owned())),
    }
}

/// A cache entry: a step's files, kept for later builds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheEntry {
    key: String,
    isolation: Option<Isolation>,
    /// The templates whose builds used it (it goes when the last of them is deleted).
    #[serde(rename = "templateIDs")]
    template_ids: Vec<String>,
    created_at_ms: u64,
}

fn cache(shared: &Control) -> Described {
    Described::new(shared.store.root().join(CACHE_DIR), "build cache entry")
}

pub use dsh_proto::control::Collected;

/// Removes cache entries and uploaded files no template of `templates` uses, and pulled
/// images no build, sandbox or snapshot runs on.
pub fn collect_garbage(
    shared: &Control,
    templates: &[BuiltTemplate],
    files_in_use: &[String],
) -> Collected {
    let mut collected = Collected::default();
    let image_of = |template_id: &str| {
        template_id.strip_prefix(crate::oci::TEMPLATE_PREFIX).map(str::to_owned)
    };
    let mut images_in_use: std::collections::HashSet<String> =
        templates::index(shared).builds().iter().filter_map(|b| image_of(&b.base)).collect();
    // A killed sandbox still tearing down uses no image: its mounts went with its processes.
    images_in_use.extend(
        shared
            .slots()
            .iter()
            .filter(|s| !s.lock().gone)
            .filter_map(|s| image_of(&s.record().template_id)),
    );
    images_in_use.extend(
        crate::server::snapshots::list(shared).iter().filter_map(|s| image_of(&s.template_id)),
    );
    collected.images = shared.images.remove_unused(&images_in_use);
    for digest in &collected.images {
        tracing::info!(%digest, "removed a pulled image nothing uses any more");
    }
    let store = cache(shared);
    for entry in store.list(|e: &CacheEntry| &e.key) {
        if entry.template_ids.iter().any(|id| templates.iter().any(|t| t.template_id == *id)) {
            continue;
        }
        match store.remove(&entry.key) {
            Ok(()) => collected.cache_entries.push(entry.key),
            Err(e) => {
                tracing::warn!(key = %entry.key, error = format!("{e:#}"), "removing a build cache entry");
            }
        }
    }
    let dir = shared.config.state_dir.join(FILES_DIR);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !files_in_use.contains(&name) && std::fs::remove_file(entry.path()).is_ok() {
                collected.uploads.push(name);
            }
        }
    }
    collected
}

/// At start: half-made cache entries and uploads go.
pub fn recover(shared: &Control) {
    cache(shared).recover();
    if let Ok(entries) = std::fs::read_dir(shared.config.state_dir.join(FILES_DIR)) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".part") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The archive a `COPY` step's files were uploaded as.
pub fn archive_path(shared: &Control, files_hash: &str) -> PathBuf {
    shared.config.state_dir.join(FILES_DIR).join(files_hash)
}

/// The cache key after each step (`None` for steps that change no files: they are
/// replayed, never kept).
fn step_keys(origin: &Origin, steps: &[Step], bodies: &[StepBody]) -> Vec<String> {
    let mut key = format!("{:x}", Sha256::digest(format!("dsh-build-v1\0{}", origin.identity())));
    let mut keys = Vec::with_capacity(steps.len());
    for body in bodies {
        let canonical = serde_json::json!([body.kind, body.args, body.files_hash]);
        key = format!("{:x}", Sha256::digest(format!("{key}\0{canonical}")));
        keys.push(key.clone());
    }
    debug_assert_eq!(keys.len(), steps.len());
    keys
}

/// What later steps run with.
#[derive(Debug, Clone)]
struct StepContext {
    user: String,
    workdir: String,
    envs: BTreeMap<String, String>,
}

impl StepContext {
    fn apply(&mut self, step: &Step) {
        match step {
            Step::Env { vars } => self.envs.extend(vars.iter().cloned()),
            Step::User { user } => self.user = user.clone(),
            Step::Workdir { path } => self.workdir = absolute(&self.workdir, path),
            Step::Run { .. } | Step::Copy { .. } => {}
        }
    }
}

/// `path` resolved against `cwd` (lexically).
fn absolute(cwd: &str, path: &str) -> String {
    let joined =
        if path.starts_with('/') { PathBuf::from(path) } else { Path::new(cwd).join(path) };
    let mut parts: Vec<String> = Vec::new();
    for component in joined.components() {
        match component {
            std::path::Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            std::path::Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    let mut text = format!("/{}", parts.join("/"));
    if path.ends_with('/') && text != "/" {
        text.push('/');
    }
    text
}

/// A step that failed: which (E2B's step name) and why.
struct Failure {
    step: String,
    message: String,
}

impl Failure {
    fn at(step: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure { step: step.into(), message: message.into() }
    }
}

/// Starts `build_id` of `template_id` in the background.
pub fn start(shared: &Arc<Control>, build_id: String, definition: Definition, steps: Vec<Step>) {
    let Some(progress) = shared.builds.get(&build_id) else { return };
    lock(&progress).status = Status::Building;
    let shared = shared.clone();
    tokio::spawn(async move {
        let started = Instant::now();
        let result = run(&shared, &build_id, &progress, &definition, &steps).await;
        let seconds = started.elapsed().as_secs_f64();
        match result {
            Ok(()) => {
                let mut progress = lock(&progress);
                progress.log("info", None, format!("Build finished in {seconds:.1} s"));
                progress.status = Status::Ready;
                tracing::info!(build = %build_id, seconds, "template build ready");
            }
            Err(failure) => {
                let mut progress = lock(&progress);
                progress.log("error", Some(&failure.step), failure.message.clone());
                progress.reason =
                    Some(Reason { message: failure.message, step: Some(failure.step) });
                progress.status = Status::Error;
                tracing::warn!(build = %build_id, "template build failed");
            }
        }
    });
}

async fn run(
    shared: &Arc<Control>,
    build_id: &str,
    progress: &Arc<Mutex<Progress>>,
    definition: &Definition,
    steps: &[Step],
) -> Result<(), Failure> {
    let log = |level: &'static str, step: Option<&str>, message: String| {
        lock(progress).log(level, step, message);
    };
    let (template_id, cpu_count, memory_mb, runtime) = {
        let p = lock(progress);
        (p.template_id.clone(), p.cpu_count, p.memory_mb, p.runtime)
    };
    let origin = origin(shared, definition).map_err(|m| Failure::at(BASE_STEP, m))?;
    let origin = origin
        .pull(&shared.images, &mut |line| log("info", Some(BASE_STEP), line))
        .await
        .map_err(|m| Failure::at(BASE_STEP, m))?;
    // Until the build is recorded as the image's user, a template deleted meanwhile must
    // not take the image with it.
    let _pin = match &origin {
        Origin::Image { pulled: Some(image), .. } => {
            let pin = shared.images.pin(&image.digest);
            // A collection between the pull and the pin (a template deleted at that very
            // moment) may have taken it: rare enough to ask for a new build.
            if !matches!(shared.images.cached(&image.digest), Ok(Some(_))) {
                return Err(Failure::at(
                    BASE_STEP,
                    format!("the image {} was removed during the build: build again", image.digest),
                ));
            }
            Some(pin)
        }
        _ => None,
    };
    let bodies = definition.steps.clone().unwrap_or_default();
    let keys = step_keys(&origin, steps, &bodies);
    let total = steps.len();

    // What the steps run with, and the longest cached prefix.
    let mut context = match &origin {
        Origin::Build(build) => StepContext {
            user: build.startup.user.clone(),
            workdir: build.startup.workdir.clone(),
            envs: BTreeMap::new(),
        },
        _ => StepContext {
            user: DEFAULT_BUILD_USER.into(),
            workdir: DEFAULT_BUILD_WORKDIR.into(),
            envs: BTreeMap::new(),
        },
    };
    let forced_from = if definition.force == Some(true) {
        0
    } else {
        bodies.iter().position(|b| b.force == Some(true)).unwrap_or(total)
    };
    let store = cache(shared);
    let entries: HashMap<String, CacheEntry> =
        store.list(|e: &CacheEntry| &e.key).into_iter().map(|e| (e.key.clone(), e)).collect();
    let resume = (0..forced_from.min(total))
        .rev()
        .find(|&i| steps[i].changes_files() && entries.contains_key(&keys[i]));

    log("info", Some(BASE_STEP), format!("[base] {}", origin.describe()));
    let (files, isolation): (Option<PathBuf>, Option<Isolation>) = match (resume, &origin) {
        (Some(i), _) => {
            let entry = &entries[&keys[i]];
            (Some(store.dir(&entry.key)), entry.isolation)
        }
        (None, Origin::Builtin(_) | Origin::Image { .. }) => (None, None),
        (None, Origin::Build(build)) => {
            (Some(templates::index(shared).files(&build.build_id)), build.isolation)
        }
        (None, Origin::Snapshot(snapshot)) => {
            (Some(crate::server::snapshots::files(shared, snapshot)), snapshot.isolation)
        }
    };
    let sandbox =
        BuildSandbox::start(shared, &origin.base(), files, isolation, cpu_count, memory_mb)
            .await
            .map_err(|e| Failure::at(BASE_STEP, format!("starting the build sandbox: {e:#}")))?;
    let result = async {
        let mut used_entries = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let name = (i + 1).to_string();
            let cached = resume.is_some_and(|r| i <= r);
            let label = format!("[{}/{total}] {}", i + 1, step.describe());
            if cached {
                log("info", Some(&name), format!("CACHED {label}"));
                if step.changes_files() {
                    used_entries.push(keys[i].clone());
                }
                context.apply(step);
                continue;
            }
            log("info", Some(&name), label);
            sandbox
                .run_step(shared, step, &context, &mut |level, line| log(level, Some(&name), line))
                .await
                .map_err(|message| Failure::at(&name, message))?;
            context.apply(step);
            if step.changes_files() {
                sandbox
                    .keep_step(shared, &keys[i], &template_id)
                    .await
                    .map_err(|e| Failure::at(&name, format!("keeping the step's files: {e:#}")))?;
                used_entries.push(keys[i].clone());
            }
        }
        mark_used(shared, &used_entries, &template_id);
        let startup = Startup {
            template_id: template_id.clone(),
            user: context.user.clone(),
            workdir: context.workdir.clone(),
            start_cmd: definition.start_cmd.clone().filter(|c| !c.is_empty()),
            ready_cmd: definition.ready_cmd.clone().filter(|c| !c.is_empty()),
        };
        if startup.start_cmd.is_some() || startup.ready_cmd.is_some() {
            log(
                "info",
                Some(FINALIZE_STEP),
                "[finalize] starting the template's start command".into(),
            );
            sandbox
                .boot(&startup, &context.envs, &mut |level, line| {
                    log(level, Some(FINALIZE_STEP), line)
                })
                .await
                .map_err(|message| Failure::at(FINALIZE_STEP, message))?;
        }
        let build = Build {
            build_id: build_id.to_owned(),
            template_id: template_id.clone(),
            base: origin.base(),
            isolation: sandbox.isolation(),
            startup,
            cpu_count,
            memory_mb,
            runtime,
            created_at_ms: now_ms(),
        };
        log("info", Some(FINALIZE_STEP), "[finalize] saving the template's files".into());
        sandbox
            .finish(shared, &build)
            .await
            .map_err(|e| Failure::at(FINALIZE_STEP, format!("saving the template: {e:#}")))?;
        Ok(build)
    }
    .await;
    sandbox.kill(shared).await;
    let build = result?;
    let tags = lock(progress).tags.clone();
    publish(shared, &build, &tags)
        .await
        .map_err(|e| Failure::at(FINALIZE_STEP, format!("publishing the template: {e:#}")))?;
    log(
        "info",
        Some(FINALIZE_STEP),
        format!("Template {template_id} is ready (tags: {})", tags.join(", ")),
    );
    Ok(())
}

/// Points `tags` of the build's template at it and removes the builds no tag points to
/// any more.
async fn publish(shared: &Control, build: &Build, tags: &[String]) -> anyhow::Result<()> {
    let _names = shared.names_lock.lock().await;
    if !templates::index(shared).tag_build(&build.template_id, &build.build_id, tags)? {
        bail!("template {} was deleted during its build", build.template_id);
    }
    Ok(())
}

/// Records that `template_id` used these cache entries (so they stay while it lives).
fn mark_used(shared: &Control, keys: &[String], template_id: &str) {
    let store = cache(shared);
    for entry in store.list(|e: &CacheEntry| &e.key) {
        if keys.contains(&entry.key) && !entry.template_ids.iter().any(|id| id == template_id) {
            let mut entry = entry;
            entry.template_ids.push(template_id.to_owned());
            if let Err(e) = store.describe(&entry.key.clone(), &entry) {
                tracing::warn!(key = %entry.key, error = format!("{e:#}"), "updating a build cache entry");
            }
        }
    }
}

/// The sandbox a build runs in.
struct BuildSandbox {
    slot: Arc<Slot>,
    envd: Envd,
}

impl BuildSandbox {
    async fn start(
        shared: &Arc<Control>,
        base: &str,
        files: Option<PathBuf>,
        isolation: Option<Isolation>,
        cpu_count: Option<u64>,
        memory_mb: Option<u64>,
    ) -> anyhow::Result<BuildSandbox> {
        let now = now_ms();
        let record = Record {
            sandbox_id: String::new(),
            template_id: base.to_owned(),
            alias: None,
            envd_access_token: Some(random_hex(32)),
            metadata: BTreeMap::new(),
            env_vars: BTreeMap::new(),
            auto_pause: false,
            auto_pause_memory: false,
            auto_resume: false,
            started_at_ms: now,
            end_at_ms: now + BUILD_TIMEOUT.as_millis() as u64,
            phase: Phase::Creating,
            isolation,
            cpu_count,
            memory_mb,
            network: NetworkSettings::default(),
            volume_mounts: Vec::new(),
            startup: None,
            runtime: Default::default(),
            checkpoint: None,
        };
        let slot = match files {
            Some(dir) => fork::from_files(&shared.shared, &record, dir).await?,
            None => {
                let slot = shared.insert_new(&record)?;
                // A `creating` record: a daemon killed during the build removes it.
                if let Err(e) = shared.store.save(&slot.record()) {
                    shared.remove_slot(&slot.id);
                    return Err(e.into());
                }
                slot
            }
        };
        slot.lock().building = true;
        let started = {
            let _ops = slot.ops.lock().await;
            lifecycle::start(&shared.shared, &slot).await
        };
        if let Err(e) = started {
            let _ = lifecycle::kill(&shared.shared, &slot).await;
            return Err(e);
        }
        let port = {
            let mut inner = slot.lock();
            // Hidden from the API for as long as it lives.
            inner.record.phase = Phase::Creating;
            inner.envd.clone()
        };
        let Some(port) = port else {
            let _ = lifecycle::kill(&shared.shared, &slot).await;
            anyhow::bail!("the build sandbox has no envd");
        };
        let envd = Envd { port, access_token: slot.record().envd_access_token };
        tracing::info!(sandbox = %slot.id, "build sandbox started");
        Ok(BuildSandbox { slot, envd })
    }

    fn isolation(&self) -> Option<Isolation> {
        self.slot.record().isolation
    }

    /// Runs one step; the error is the build's failure message.
    async fn run_step(
        &self,
        shared: &Control,
        step: &Step,
        context: &StepContext,
        log: &mut (dyn FnMut(&'static str, String) + Send),
    ) -> Result<(), String> {
        match step {
            Step::Run { command, user } => {
                let user = user.clone().unwrap_or_else(|| context.user.clone());
                self.command(
                    command,
                    &user,
                    Some(&context.workdir),
                    &context.envs,
                    STEP_TIMEOUT,
                    log,
                )
                .await
            }
            Step::Copy { src, dest, owner, mode, files_hash } => {
                let archive = archive_path(shared, files_hash);
                let data = tokio::fs::read(&archive).await.map_err(|e| {
                    format!(
                        "the files of this COPY (hash {files_hash}) were not uploaded ({e}): build \
                         with the SDK, which uploads them first"
                    )
                })?;
                let inside = format!("/tmp/.dsh-build-{files_hash}.tar");
                self.envd
                    .upload(&inside, "root", data.into())
                    .await
                    .map_err(|e| format!("uploading the files: {e:#}"))?;
                let owner = owner.clone().unwrap_or_else(|| context.user.clone());
                let dest = absolute(&context.workdir, dest);
                let script = copy_script(&inside, src, &dest, &owner, *mode);
                self.command(&script, "root", Some("/"), &BTreeMap::new(), STEP_TIMEOUT, log).await
            }
            Step::Workdir { path } => {
                let dir = absolute(&context.workdir, path);
                let script = format!(
                    "if [ ! -d {d} ]; then mkdir -p -- {d} && chown -- {u}: {d}; fi",
                    d = quote(&dir),
                    u = quote(&context.user)
                );
                self.command(&script, "root", Some("/"), &BTreeMap::new(), STEP_TIMEOUT, log).await
            }
            Step::User { user } => {
                let script = format!(
                    "id -u -- {u} >/dev/null 2>&1 || {{ echo \"user {u} does not exist in the \
                     template: create it with a RUN step (useradd) first\" >&2; exit 1; }}",
                    u = quote(user)
                );
                self.command(&script, "root", Some("/"), &BTreeMap::new(), STEP_TIMEOUT, log).await
            }
            Step::Env { .. } => Ok(()),
        }
    }

    /// Runs a shell line to its end; a non-zero exit is the failure.
    async fn command(
        &self,
        line: &str,
        user: &str,
        cwd: Option<&str>,
        envs: &BTreeMap<String, String>,
        timeout: Duration,
        log: &mut (dyn FnMut(&'static str, String) + Send),
    ) -> Result<(), String> {
        let command = envd_client::Command {
            line: line.to_owned(),
            user: user.to_owned(),
            cwd: cwd.map(str::to_owned),
            envs: envs.clone(),
            timeout,
        };
        let mut sink = |stream: envd_client::Stream, text: &str| {
            let level = match stream {
                envd_client::Stream::Stdout => "info",
                envd_client::Stream::Stderr => "warn",
            };
            log(level, text.to_owned());
        };
        let code = self.envd.run(&command, &mut sink).await.map_err(|e| format!("{e:#}"))?;
        if code != 0 {
            return Err(format!("the command exited with code {code}: {line}"));
        }
        Ok(())
    }

    /// The start command in the background and the ready command until it succeeds.
    async fn boot(
        &self,
        startup: &Startup,
        envs: &BTreeMap<String, String>,
        log: &mut (dyn FnMut(&'static str, String) + Send),
    ) -> Result<(), String> {
        boot(&self.envd, startup, envs, log).await
    }

    /// Keeps the sandbox's files as the cache entry `key` (unless one exists).
    async fn keep_step(
        &self,
        shared: &Arc<Control>,
        key: &str,
        template_id: &str,
    ) -> anyhow::Result<()> {
        let store = cache(shared);
        if store.dir(key).exists() {
            return Ok(());
        }
        let entry = CacheEntry {
            key: key.to_owned(),
            isolation: self.isolation(),
            template_ids: vec![template_id.to_owned()],
            created_at_ms: now_ms(),
        };
        let from = shared.store.sandbox_dir(&self.slot.id);
        let owner = shared.clone();
        tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            let store = cache(&owner);
            store.prepare()?;
            let to = store.dir(&entry.key);
            let made = owner
                .disk
                .copy_sandbox_dir(&from, &to)
                .and_then(|()| store.describe(&entry.key, &entry));
            if made.is_err() {
                let _ = crate::server::described::remove_dir(&to);
            }
            made
        })
        .await
        .context("the cache task panicked")?
    }

    /// Stops the sandbox's processes and keeps its files as `build`.
    async fn finish(&self, shared: &Arc<Control>, build: &Build) -> anyhow::Result<()> {
        {
            let _ops = self.slot.ops.lock().await;
            lifecycle::stop(&self.slot).await;
        }
        let from = shared.store.sandbox_dir(&self.slot.id);
        let owner = shared.clone();
        let build = build.clone();
        tokio::task::spawn_blocking(move || {
            templates::index(&owner).keep_build(&build, |to| owner.disk.copy_sandbox_dir(&from, to))
        })
        .await
        .context("the build task panicked")?
    }

    async fn kill(self, shared: &Arc<Control>) {
        let _ops = self.slot.ops.lock().await;
        if let Err(e) = lifecycle::kill(&shared.shared, &self.slot).await {
            tracing::error!(sandbox = %self.slot.id, error = format!("{e:#}"), "removing a build sandbox");
        }
    }
}

/// The shell lines of a `COPY`: unpack the archive in a fresh directory, expand the
/// source pattern there, and copy what matches like Docker's COPY (several matches, or a
/// destination ending in `/`: into that directory; one directory: its contents; one
/// file: to that path), then give what was copied (and the directories made for it) to
/// `owner`, with `mode` if given. Runs as the sandbox's root.
fn copy_script(archive: &str, src: &str, dest: &str, owner: &str, mode: Option<u32>) -> String {
    let chmod = match mode {
        Some(mode) => format!("chmod -R -- {mode:o} \"${{copied[@]}}\""),
        None => String::new(),
    };
    format!(
        r#"set -eu
archive={archive}; pattern={src}; dest={dest}; owner={owner}
work=$(mktemp -d /tmp/.dsh-copy.XXXXXX)
trap 'rm -rf -- "$work" "$archive"' EXIT
tar -xf "$archive" -C "$work"
cd "$work"
shopt -s nullglob dotglob
IFS=
matches=( $pattern )
if [ ${{#matches[@]}} -eq 0 ]; then echo "COPY: nothing matches $pattern" >&2; exit 1; fi
top=$dest
while [ ! -e "$(dirname -- "$top")" ]; do top=$(dirname -- "$top"); done
[ -e "$top" ] && top=
copied=()
if [ ${{#matches[@]}} -gt 1 ] || [ "${{dest%/}}" != "$dest" ]; then
  mkdir -p -- "$dest"
  for m in "${{matches[@]}}"; do cp -a -- "$m" "${{dest%/}}/"; copied+=("${{dest%/}}/$(basename -- "$m")"); done
elif [ -d "${{matches[0]}}" ] && [ ! -L "${{matches[0]}}" ]; then
  mkdir -p -- "$dest"
  cp -a -- "${{matches[0]}}/." "$dest/"
  copied+=("$dest")
else
  mkdir -p -- "$(dirname -- "$dest")"
  cp -a -- "${{matches[0]}}" "$dest"
  copied+=("$dest")
fi
[ -n "$top" ] && copied+=("$top")
chown -hR -- "$owner:" "${{copied[@]}}"
{chmod}
echo "copied ${{#matches[@]}} item(s) to $dest"
"#,
        archive = quote(archive),
        src = quote(src),
        dest = quote(dest),
        owner = quote(owner),
    )
}

/// Writes an uploaded archive for `files_hash` from `body`, at most
/// [`MAX_UPLOAD_BYTES`]; an existing one is replaced whole.
pub async fn receive_upload(
    shared: &Control,
    files_hash: &str,
    mut stream: impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Unpin,
) -> ControlResult<u64> {
    use futures_util::StreamExt;
    use tokio::io::AsyncWriteExt;
    let dir = shared.config.state_dir.join(FILES_DIR);
    tokio::fs::create_dir_all(&dir).await.map_err(|e| ControlError::Internal(e.into()))?;
    let part = dir.join(format!("{files_hash}.{}.part", random_hex(6)));
    let written = async {
        let mut file = tokio::fs::File::create(&part).await?;
        let mut total: u64 = 0;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            total += chunk.len() as u64;
            if total > MAX_UPLOAD_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::FileTooLarge,
                    format!("the upload is larger than {MAX_UPLOAD_BYTES} bytes"),
                ));
            }
            file.write_all(&chunk).await?;
        }
        file.sync_all().await?;
        tokio::fs::rename(&part, archive_path(shared, files_hash)).await?;
        Ok(total)
    }
    .await;
    match written {
        Ok(total) => Ok(total),
        Err(e) => {
            let _ = tokio::fs::remove_file(&part).await;
            let message = format!("upload of {files_hash}: {e}");
            Err(match e.kind() {
                std::io::ErrorKind::FileTooLarge => ControlError::TooLarge(message),
                _ => ControlError::Invalid(message),
            })
        }
    }
}

/// The signature of an upload link (the SDK uploads without the API key, as to a
/// presigned URL): a digest of the daemon's API key and the hash.
pub fn upload_signature(api_key: &str, files_hash: &str) -> String {
    format!("{:x}", Sha256::digest(format!("dsh-template-upload\0{api_key}\0{files_hash}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn body(kind: &str, args: &[&str]) -> StepBody {
        StepBody {
            kind: kind.into(),
            args: Some(args.iter().map(|a| (*a).to_owned()).collect()),
            force: None,
            files_hash: (kind == "COPY").then(|| "a".repeat(64)),
            force_upload: None,
        }
    }

    #[test]
    fn steps_are_checked_and_named_by_their_number() {
        assert_eq!(
            check_step(1, &body("RUN", &["echo hi", ""])).unwrap(),
            Step::Run { command: "echo hi".into(), user: None }
        );
        assert_eq!(
            check_step(2, &body("COPY", &["folder/*", "folder", "", "0755"])).unwrap(),
            Step::Copy {
                src: "folder/*".into(),
                dest: "folder".into(),
                owner: None,
                mode: Some(0o755),
                files_hash: "a".repeat(64)
            }
        );
        assert_eq!(
            check_step(3, &body("ENV", &["A", "1", "B", "x y"])).unwrap(),
            Step::Env { vars: vec![("A".into(), "1".into()), ("B".into(), "x y".into())] }
        );
        assert_eq!(
            check_step(4, &body("ENV", &["A"])).unwrap_err(),
            "step 4 (ENV): arguments must be name, value pairs"
        );
        assert_eq!(
            check_step(5, &body("COPY", &["a", "b", "", "9"])).unwrap_err(),
            "step 5 (COPY): the mode must be octal, like 0755"
        );
        assert_eq!(
            check_step(6, &body("ADD", &["x"])).unwrap_err(),
            "step 6: unknown step type \"ADD\" (this daemon builds COPY, ENV, RUN, WORKDIR and USER)"
        );
        assert_eq!(check_step(7, &body("RUN", &[])).unwrap_err(), "step 7 (RUN): no command");
    }

    #[test]
    fn cache_keys_chain_every_step_before() {
        let origin = Origin::Builtin("base".into());
        let bodies = [body("RUN", &["a"]), body("RUN", &["b"])];
        let steps: Vec<Step> =
            bodies.iter().enumerate().map(|(i, b)| check_step(i + 1, b).unwrap()).collect();
        let keys = step_keys(&origin, &steps, &bodies);
        let changed = [body("RUN", &["a"]), body("RUN", &["c"])];
        let changed_keys = step_keys(&origin, &steps, &changed);
        assert_eq!(keys[0], changed_keys[0]);
        assert_ne!(keys[1], changed_keys[1]);
        let first_changed = [body("RUN", &["z"]), body("RUN", &["b"])];
        assert_ne!(keys[1], step_keys(&origin, &steps, &first_changed)[1]);
        let other_origin = step_keys(&Origin::Builtin("other".into()), &steps, &bodies);
        assert_ne!(keys[0], other_origin[0]);
        assert_eq!(keys[0].len(), 64);
    }

    #[test]
    fn paths_resolve_against_the_workdir() {
        assert_eq!(absolute("/home/user", "folder"), "/home/user/folder");
        assert_eq!(absolute("/home/user", "/app"), "/app");
        assert_eq!(absolute("/home/user", "../x/./y/"), "/home/x/y/");
        assert_eq!(absolute("/", ".."), "/");
    }

    #[test]
    fn shell_words_are_quoted() {
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
