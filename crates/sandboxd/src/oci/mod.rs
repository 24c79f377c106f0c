//! OCI and Docker images as template bases (`Template().from_image("ubuntu:22.04")`): pulls
//! an image from a registry and unpacks it into a directory a sandbox can mount as its
//! read-only lower layer.
//!
//! Layout under the store's root (`<state>/images/`):
//! - `sha256-<hex>/rootfs/`: an image's files, for the digest of its (platform) manifest;
//!   never written again once there.
//! - `sha256-<hex>/image.json`: what the pull learned ([`ImageConfig`], sizes).
//! - `index/sha256-<hex>`: for an image index (a multi-platform image) pulled by digest,
//!   the digest of the manifest picked for this host, so a pull by that digest needs no
//!   network.
//! - `tmp/<random>/`: an image being unpacked, renamed to `sha256-<hex>/` when complete;
//!   a daemon killed mid-pull leaves only this, removed by the next [`ImageStore::new`].
//!
//! A pull by tag always asks the registry for the manifest (tags move); a pull by digest
//! of an image already here asks nothing, so it is not checked against the registry's
//! access rules again (fine for a single-user local daemon).
//!
//! The image is untrusted: see [`unpack`] for how a layer is kept inside its rootfs.

mod error;
mod options;
mod reference;
mod registry;
mod unpack;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use error::ImageError;
pub use options::{PullOptions, RegistryAuth};
pub use reference::Reference;

const MAX_CONFIG_BYTES: u64 = 4 << 20;
/// Chunks in flight between a layer's download and its unpacking.
const PIPE_CHUNKS: usize = 16;

/// An unpacked image.
#[derive(Debug, Clone)]
pub struct PulledImage {
    /// The digest of the image manifest (for this host's platform, when the reference
    /// names an index).
    pub digest: String,
    /// Its files; read-only by convention, and never to be executed from the host.
    pub rootfs: PathBuf,
    pub config: ImageConfig,
    /// Whether it was already here (no layer was downloaded).
    pub cached: bool,
}

/// How a template made from an image is named: `image:sha256:<hex>` (the manifest's
/// digest), the `templateID` of the sandboxes that run on it.
pub const TEMPLATE_PREFIX: &str = "image:";

/// What a sandbox makes itself and an image's root may not show (its own `/tmp`, `/proc`,
/// the persistent `/home`, `/root` and `/var`, ...): [`crate::spec::RESERVED_PATHS`].
fn shown_from_image(name: &str) -> bool {
    let inside = format!("/{name}");
    !crate::spec::RESERVED_PATHS.contains(&inside.as_str()) && !name.starts_with('.')
}

impl PulledImage {
    /// The template of a sandbox running on this image: every top-level directory and
    /// symlink of its root (each shown read-only under the sandbox's writable root, as
    /// `base` shows the host's), but what the sandbox makes itself; the image's `Env` in
    /// every process's environment. The working directory stays `/home/user` and the user
    /// `user`, as on E2B, whatever the image's `WORKDIR` and `USER` say (a build's
    /// `set_workdir` and `set_user` set them).
    pub fn template(&self) -> crate::template::Template {
        let mut read_only_paths: Vec<PathBuf> = std::fs::read_dir(&self.rootfs)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                entry.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink())
                    && entry.file_name().to_str().is_some_and(shown_from_image)
            })
            .map(|entry| Path::new("/").join(entry.file_name()))
            .collect();
        read_only_paths.sort();
        let mut template = crate::template::Template::base();
        template.name = format!("{TEMPLATE_PREFIX}{}", self.digest);
        template.read_only_paths = read_only_paths;
        template.process_env = self.config.env.iter().cloned().collect();
        template.rootfs = Some(self.rootfs.clone());
        template
    }
}

/// What of the image's config a sandbox runs with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageConfig {
    /// `Env`, split at the first `=` (entries without one are left out).
    pub env: Vec<(String, String)>,
    pub workdir: Option<String>,
    pub user: Option<String>,
    pub entrypoint: Vec<String>,
    pub cmd: Vec<String>,
}

/// Pulled images under one directory.
pub struct ImageStore {
    root: PathBuf,
    options: PullOptions,
    client: Result<reqwest::Client, ImageError>,
    /// One pull per manifest digest at a time: the second waits and finds it unpacked.
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Images in use by something not recorded yet (a build running on one), by digest:
    /// [`ImageStore::remove_unused`] keeps them.
    pins: Arc<Mutex<HashMap<String, usize>>>,
}

/// An image kept from [`ImageStore::remove_unused`] while this lives.
pub struct ImagePin {
    pins: Arc<Mutex<HashMap<String, usize>>>,
    digest: String,
}

impl Drop for ImagePin {
    fn drop(&mut self) {
        let mut pins = self.pins.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = pins.get_mut(&self.digest) {
            *count -= 1;
            if *count == 0 {
                pins.remove(&self.digest);
            }
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    digest: String,
    reference: String,
    config: ImageConfig,
    layers: usize,
    bytes: u64,
    files: u64,
    pull_ms: u64,
}

impl ImageStore {
    /// Removes what a killed pull left in `tmp/`. Errors surface at the first pull.
    pub fn new(root: PathBuf, options: PullOptions) -> ImageStore {
        let _ = std::fs::remove_dir_all(root.join("tmp"));
        let client = registry::client(&options);
        ImageStore {
            root,
            options,
            client,
            locks: Mutex::new(HashMap::new()),
            pins: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Keeps the image `digest` from [`ImageStore::remove_unused`] until the pin drops.
    pub fn pin(&self, digest: &str) -> ImagePin {
        let mut pins = self.pins.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *pins.entry(digest.to_owned()).or_default() += 1;
        ImagePin { pins: Arc::clone(&self.pins), digest: digest.to_owned() }
    }

    /// Removes every pulled image whose manifest digest is neither in `in_use` nor
    /// pinned, and the index entries that named one; returns the digests removed.
    pub fn remove_unused(&self, in_use: &std::collections::HashSet<String>) -> Vec<String> {
        let pinned: Vec<String> = {
            let pins = self.pins.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            pins.keys().cloned().collect()
        };
        let mut removed = Vec::new();
        for entry in std::fs::read_dir(&self.root).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(hex) = name.strip_prefix("sha256-") else { continue };
            let digest = format!("sha256:{hex}");
            if !reference::is_sha256_digest(&digest)
                || in_use.contains(&digest)
                || pinned.contains(&digest)
            {
                continue;
            }
            match std::fs::remove_dir_all(entry.path()) {
                Ok(()) => removed.push(digest),
                Err(e) => tracing::warn!(%digest, error = %e, "removing an unused image"),
            }
        }
        let index = self.root.join("index");
        for entry in std::fs::read_dir(&index).into_iter().flatten().flatten() {
            let names = std::fs::read_to_string(entry.path()).unwrap_or_default();
            if removed.iter().any(|digest| digest == names.trim()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        removed
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Pulls `reference` ("ubuntu:22.04", "library/ubuntu", "127.0.0.1:5000/team/img:tag",
    /// "img@sha256:…") and unpacks it once per manifest digest; a pull of an image already
    /// here downloads no layer (and, by digest, makes no request at all). `progress` gets
    /// one line per step, for the build log.
    pub async fn pull(
        &self,
        reference: &str,
        auth: Option<&RegistryAuth>,
        progress: &mut (dyn FnMut(String) + Send),
    ) -> Result<PulledImage, ImageError> {
        let started = Instant::now();
        let parsed = Reference::parse(reference)?;
        if let Some(digest) = &parsed.digest
            && let Some(image) = self.cached(digest)?
        {
            progress(format!("{reference}: {} already pulled", image.digest));
            return Ok(image);
        }
        let client = self.client.as_ref().map_err(Clone::clone)?;
        let mut session = registry::Session::new(client, &self.options, &parsed, reference, auth);
        progress(format!("Pulling {reference} from {}", parsed.registry));

        let (body, media_type) = session.manifest(parsed.manifest_ref()).await?;
        let first_digest = sha256_digest(&body);
        if let Some(wanted) = &parsed.digest
            && *wanted != first_digest
        {
            return Err(ImageError::Corrupt(format!(
                "{reference}: the registry's manifest has digest {first_digest}"
            )));
        }
        let mut index_digest = None;
        let (body, digest) = match kind_of(&body, &media_type, reference)? {
            Kind::Manifest => (body, first_digest),
            Kind::Index => {
                let picked = pick_platform(&body, reference)?;
                progress(format!("{reference}: index {first_digest}, {} is {picked}", platform()));
                if let Some(image) = self.cached(&picked)? {
                    // Recorded here too: a later pull by the index's digest needs no network.
                    self.remember_index(Some(&first_digest), &picked);
                    progress(format!("{reference}: {picked} already pulled"));
                    return Ok(image);
                }
                index_digest = Some(first_digest);
                let (body, media_type) = session.manifest(&picked).await?;
                if sha256_digest(&body) != picked {
                    return Err(ImageError::Corrupt(format!(
                        "{reference}: the manifest the index names as {picked} has another digest"
                    )));
                }
                if kind_of(&body, &media_type, reference)? != Kind::Manifest {
                    return Err(ImageError::Unsupported(format!(
                        "{reference}: an index inside an index"
                    )));
                }
                (body, picked)
            }
        };
        let manifest = parse_manifest(&body, reference, &self.options)?;

        let lock = {
            let mut locks =
                self.locks.lock().map_err(|_| ImageError::Io("lock poisoned".into()))?;
            locks.entry(digest.clone()).or_default().clone()
        };
        let _guard = lock.lock().await;
        if let Some(image) = self.cached(&digest)? {
            progress(format!("{reference}: {digest} already pulled"));
            self.remember_index(index_digest.as_deref(), &digest);
            return Ok(image);
        }
        let total: u64 = manifest.layers.iter().map(|l| l.size).sum();
        progress(format!(
            "{reference}: manifest {digest}, {} layers, {total} bytes",
            manifest.layers.len()
        ));

        let config_body = session.small_blob(&manifest.config.digest, MAX_CONFIG_BYTES).await?;
        if sha256_digest(&config_body) != manifest.config.digest {
            return Err(ImageError::Corrupt(format!(
                "{reference}: the config blob does not match its digest {}",
                manifest.config.digest
            )));
        }
        let config = parse_config(&config_body, reference)?;

        let tmp = self.root.join("tmp").join(format!("{:016x}", rand::random::<u64>()));
        let rootfs = tmp.join("rootfs");
        std::fs::create_dir_all(&rootfs).map_err(|e| io(&rootfs, e))?;
        let result = self
            .unpack(&mut session, &manifest, &rootfs, reference, progress)
            .await
            .and_then(|(bytes, files)| {
                let record = Record {
                    digest: digest.clone(),
                    reference: reference.to_owned(),
                    config: config.clone(),
                    layers: manifest.layers.len(),
                    bytes,
                    files,
                    pull_ms: started.elapsed().as_millis() as u64,
                };
                self.commit(&tmp, &digest, &record)
            });
        if let Err(error) = result {
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_dir_all(tmp)).await;
            return Err(error);
        }
        self.remember_index(index_digest.as_deref(), &digest);
        progress(format!(
            "{reference}: unpacked {digest} in {:.1} s",
            started.elapsed().as_secs_f64()
        ));
        Ok(PulledImage {
            rootfs: self.image_dir(&digest).join("rootfs"),
            digest,
            config,
            cached: false,
        })
    }

    /// Downloads each layer while unpacking it: the blob is hashed as it streams and the
    /// unpacker sees its end only once the digest matched. A mismatch fails the pull and
    /// the whole temporary directory goes.
    async fn unpack(
        &self,
        session: &mut registry::Session<'_>,
        manifest: &Manifest,
        rootfs: &Path,
        reference: &str,
        progress: &mut (dyn FnMut(String) + Send),
    ) -> Result<(u64, u64), ImageError> {
        let limits = unpack::Limits {
            max_bytes: self.options.max_unpacked_bytes,
            max_entries: self.options.max_entries,
        };
        let mut unpacker =
            unpack::Unpacker::new(rootfs, limits).map_err(|e| unpack_error(e, reference))?;
        let count = manifest.layers.len();
        for (at, layer) in manifest.layers.iter().enumerate() {
            let index = at + 1;
            progress(format!(
                "{reference}: layer {index}/{count} {} ({} bytes)",
                layer.digest, layer.size
            ));
            let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<bytes::Bytes, ()>>(PIPE_CHUNKS);
            let task = tokio::task::spawn_blocking(move || {
                let mut reader = Pipe { rx: &mut rx, chunk: bytes::Bytes::new() };
                let result = unpacker.apply_layer(index, &mut reader);
                (unpacker, result)
            });
            let downloaded =
                download(session, layer, &tx, self.options.blob_timeout, reference).await;
            if downloaded.is_err() {
                let _ = tx.send(Err(())).await;
            }
            drop(tx);
            let (back, unpacked) = task
                .await
                .map_err(|e| ImageError::Io(format!("{reference}: the unpacker panicked: {e}")))?;
            unpacker = back;
            downloaded?;
            unpacked.map_err(|e| unpack_error(e, reference))?;
            for warning in std::mem::take(&mut unpacker.warnings) {
                progress(format!("{reference}: {warning}"));
            }
        }
        let (bytes, files) = (unpacker.bytes(), unpacker.entries());
        tokio::task::spawn_blocking(move || unpacker.finish_all())
            .await
            .map_err(|e| ImageError::Io(format!("{reference}: {e}")))?;
        Ok((bytes, files))
    }

    /// Makes a finished image visible: the record is written, everything flushed, then
    /// the directory is renamed into place in one step.
    fn commit(&self, tmp: &Path, digest: &str, record: &Record) -> Result<(), ImageError> {
        let json = serde_json::to_vec_pretty(record).map_err(|e| ImageError::Io(e.to_string()))?;
        let path = tmp.join("image.json");
        std::fs::write(&path, json).map_err(|e| io(&path, e))?;
        if let Ok(dir) = std::fs::File::open(tmp) {
            let _ = rustix::fs::syncfs(&dir);
        }
        let target = self.image_dir(digest);
        match std::fs::rename(tmp, &target) {
            Ok(()) => Ok(()),
            // Another process sharing the store finished it first: the same content.
            Err(_) if target.join("image.json").is_file() => {
                let _ = std::fs::remove_dir_all(tmp);
                Ok(())
            }
            Err(e) => Err(io(&target, e)),
        }
    }

    /// The image for a manifest digest, or for an index digest already resolved here.
    /// The image pulled here under `digest` (of its manifest, or of an index pulled by
    /// digest), without asking any registry; `None` when it is not here.
    pub fn cached(&self, digest: &str) -> Result<Option<PulledImage>, ImageError> {
        let manifest =
            match std::fs::read_to_string(self.root.join("index").join(file_name(digest))) {
                Ok(manifest) if reference::is_sha256_digest(manifest.trim()) => {
                    manifest.trim().to_owned()
                }
                _ => digest.to_owned(),
            };
        let dir = self.image_dir(&manifest);
        let record = match std::fs::read(dir.join("image.json")) {
            Ok(record) => record,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&dir, e)),
        };
        let record: Record = serde_json::from_slice(&record)
            .map_err(|e| ImageError::Io(format!("{}: {e}", dir.display())))?;
        Ok(Some(PulledImage {
            digest: manifest,
            rootfs: dir.join("rootfs"),
            config: record.config,
            cached: true,
        }))
    }

    fn remember_index(&self, index: Option<&str>, manifest: &str) {
        let Some(index) = index else { return };
        let dir = self.root.join("index");
        let tmp = dir.join(format!(".{:016x}", rand::random::<u64>()));
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&tmp, manifest))
            .and_then(|()| std::fs::rename(&tmp, dir.join(file_name(index))));
        if let Err(e) = written {
            tracing::warn!("cannot record index {index}: {e}");
            let _ = std::fs::remove_file(&tmp);
        }
    }

    fn image_dir(&self, digest: &str) -> PathBuf {
        self.root.join(file_name(digest))
    }
}

/// `sha256:<hex>` → `sha256-<hex>` (a name without ':', for paths and overlay options).
fn file_name(digest: &str) -> String {
    digest.replacen(':', "-", 1)
}

fn io(path: &Path, e: std::io::Error) -> ImageError {
    ImageError::Io(format!("{}: {e}", path.display()))
}

fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

fn unpack_error(error: unpack::UnpackError, reference: &str) -> ImageError {
    match error {
        unpack::UnpackError::Corrupt(m) => ImageError::Corrupt(format!("{reference}: {m}")),
        unpack::UnpackError::TooLarge(m) => ImageError::TooLarge(format!("{reference}: {m}")),
        unpack::UnpackError::Unsupported(m) => ImageError::Unsupported(format!("{reference}: {m}")),
        unpack::UnpackError::Io(m) => ImageError::Io(format!("{reference}: unpacking: {m}")),
        unpack::UnpackError::Source => {
            ImageError::Registry(format!("{reference}: a layer's download failed"))
        }
    }
}

/// Streams one layer blob into the unpacker, hashing it; the unpacker's input ends
/// cleanly only if the size and digest match the manifest.
async fn download(
    session: &mut registry::Session<'_>,
    layer: &Descriptor,
    tx: &tokio::sync::mpsc::Sender<Result<bytes::Bytes, ()>>,
    timeout: Duration,
    reference: &str,
) -> Result<(), ImageError> {
    let mut response = session.blob(&layer.digest, timeout).await?;
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) if e.is_timeout() => {
                return Err(ImageError::TimedOut(format!(
                    "{reference}: downloading {}",
                    layer.digest
                )));
            }
            Err(e) => {
                return Err(ImageError::Registry(format!(
                    "{reference}: downloading {}: {e}",
                    layer.digest
                )));
            }
        };
        size += chunk.len() as u64;
        if size > layer.size {
            return Err(ImageError::Corrupt(format!(
                "{reference}: layer {} is larger than the {} bytes its manifest declares",
                layer.digest, layer.size
            )));
        }
        hasher.update(&chunk);
        if tx.send(Ok(chunk)).await.is_err() {
            // The unpacker stopped; its error says why.
            return Ok(());
        }
    }
    let got = format!("sha256:{:x}", hasher.finalize());
    if size != layer.size || got != layer.digest {
        return Err(ImageError::Corrupt(format!(
            "{reference}: layer {} does not match its digest (got {got}, {size} bytes)",
            layer.digest
        )));
    }
    Ok(())
}

/// The unpacker's side of a layer's download.
struct Pipe<'a> {
    rx: &'a mut tokio::sync::mpsc::Receiver<Result<bytes::Bytes, ()>>,
    chunk: bytes::Bytes,
}

impl std::io::Read for Pipe<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            match self.rx.blocking_recv() {
                Some(Ok(chunk)) => self.chunk = chunk,
                Some(Err(())) => return Err(std::io::Error::other(unpack::SourceFailed)),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk[..n]);
        let _ = self.chunk.split_to(n);
        Ok(n)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Index,
    Manifest,
}

/// What a manifest response is: by its `mediaType` field, else by its Content-Type.
fn kind_of(body: &[u8], content_type: &str, reference: &str) -> Result<Kind, ImageError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        schema_version: Option<u32>,
        media_type: Option<String>,
        manifests: Option<serde_json::Value>,
    }
    let probe: Probe = serde_json::from_slice(body)
        .map_err(|e| ImageError::Corrupt(format!("{reference}: the manifest is not JSON: {e}")))?;
    if probe.schema_version != Some(2) {
        return Err(ImageError::Unsupported(format!(
            "{reference}: manifest schema version {:?} (only 2; schema 1 images are deprecated)",
            probe.schema_version
        )));
    }
    let media_type = probe.media_type.as_deref().unwrap_or(content_type);
    match media_type {
        registry::OCI_INDEX | registry::DOCKER_LIST => Ok(Kind::Index),
        registry::OCI_MANIFEST | registry::DOCKER_MANIFEST => Ok(Kind::Manifest),
        _ if probe.manifests.is_some() => Ok(Kind::Index),
        "" => Ok(Kind::Manifest),
        other => {
            Err(ImageError::Unsupported(format!("{reference}: manifest media type {other:?}")))
        }
    }
}

/// The host's platform in OCI's words.
fn arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" => "ppc64le",
        other => other,
    }
}

fn platform() -> String {
    format!("linux/{}", arch())
}

/// The digest of the index entry for this host's platform.
fn pick_platform(body: &[u8], reference: &str) -> Result<String, ImageError> {
    #[derive(Deserialize)]
    struct Index {
        manifests: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        digest: String,
        platform: Option<Platform>,
    }
    #[derive(Deserialize)]
    struct Platform {
        os: String,
        architecture: String,
        variant: Option<String>,
    }
    let index: Index = serde_json::from_slice(body)
        .map_err(|e| ImageError::Corrupt(format!("{reference}: bad image index: {e}")))?;
    let mut candidates: Vec<(&Entry, &Platform)> = index
        .manifests
        .iter()
        .filter_map(|e| e.platform.as_ref().map(|p| (e, p)))
        .filter(|(_, p)| p.os == "linux" && p.architecture == arch())
        .collect();
    // arm64 images may come as several variants; v8 (or none) is the baseline.
    candidates.sort_by_key(|(_, p)| !matches!(p.variant.as_deref(), None | Some("v8")));
    match candidates.first() {
        Some((entry, _)) if reference::is_sha256_digest(&entry.digest) => Ok(entry.digest.clone()),
        Some((entry, _)) => Err(ImageError::Unsupported(format!(
            "{reference}: the index names {:?} (only sha256 digests)",
            entry.digest
        ))),
        None => {
            let offered: Vec<String> = index
                .manifests
                .iter()
                .filter_map(|e| e.platform.as_ref())
                .map(|p| format!("{}/{}", p.os, p.architecture))
                .collect();
            Err(ImageError::Unsupported(format!(
                "{reference}: no {} image in the index (it has: {})",
                platform(),
                offered.join(", ")
            )))
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    #[serde(default)]
    media_type: String,
    digest: String,
    size: u64,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    config: Descriptor,
    layers: Vec<Descriptor>,
}

const CONFIG_TYPES: [&str; 2] =
    ["application/vnd.oci.image.config.v1+json", "application/vnd.docker.container.image.v1+json"];

fn parse_manifest(
    body: &[u8],
    reference: &str,
    options: &PullOptions,
) -> Result<Manifest, ImageError> {
    let manifest: Manifest = serde_json::from_slice(body)
        .map_err(|e| ImageError::Corrupt(format!("{reference}: bad manifest: {e}")))?;
    if !CONFIG_TYPES.contains(&manifest.config.media_type.as_str()) {
        return Err(ImageError::Unsupported(format!(
            "{reference}: not a container image (config type {:?})",
            manifest.config.media_type
        )));
    }
    if manifest.layers.len() > options.max_layers {
        return Err(ImageError::TooLarge(format!(
            "{reference}: {} layers (at most {})",
            manifest.layers.len(),
            options.max_layers
        )));
    }
    let mut total = 0u64;
    for descriptor in std::iter::once(&manifest.config).chain(&manifest.layers) {
        if !reference::is_sha256_digest(&descriptor.digest) {
            return Err(ImageError::Unsupported(format!(
                "{reference}: blob digest {:?} (only sha256)",
                descriptor.digest
            )));
        }
    }
    for layer in &manifest.layers {
        let media = layer.media_type.as_str();
        if media.ends_with("+zstd") || media.ends_with(".zstd") {
            return Err(ImageError::Unsupported(format!(
                "{reference}: layer {} is zstd-compressed; only gzip and uncompressed layers are supported (rebuild the image with gzip compression)",
                layer.digest
            )));
        }
        if !media.contains("tar") {
            return Err(ImageError::Unsupported(format!(
                "{reference}: layer {} has media type {media:?}, not a tar layer",
                layer.digest
            )));
        }
        total = total.saturating_add(layer.size);
    }
    if total > options.max_download_bytes {
        return Err(ImageError::TooLarge(format!(
            "{reference}: the layers are {total} bytes (at most {})",
            options.max_download_bytes
        )));
    }
    Ok(manifest)
}

fn parse_config(body: &[u8], reference: &str) -> Result<ImageConfig, ImageError> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        os: String,
        #[serde(default)]
        architecture: String,
        #[serde(default)]
        config: Option<Config>,
    }
    #[derive(Deserialize, Default)]
    #[serde(rename_all = "PascalCase")]
    struct Config {
        env: Option<Vec<String>>,
        working_dir: Option<String>,
        user: Option<String>,
        entrypoint: Option<Vec<String>>,
        cmd: Option<Vec<String>>,
    }
    let file: File = serde_json::from_slice(body)
        .map_err(|e| ImageError::Corrupt(format!("{reference}: bad image config: {e}")))?;
    if file.os != "linux" || file.architecture != arch() {
        return Err(ImageError::Unsupported(format!(
            "{reference}: the image is for {}/{}, this host is {}",
            file.os,
            file.architecture,
            platform()
        )));
    }
    let config = file.config.unwrap_or_default();
    let non_empty = |s: Option<String>| s.filter(|s| !s.is_empty());
    Ok(ImageConfig {
        env: config
            .env
            .unwrap_or_default()
            .into_iter()
            .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
            .collect(),
        workdir: non_empty(config.working_dir),
        user: non_empty(config.user),
        entrypoint: config.entrypoint.unwrap_or_default(),
        cmd: config.cmd.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_named_as_registries_name_them() {
        let digest = sha256_digest(b"");
        assert_eq!(
            digest,
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert!(reference::is_sha256_digest(&digest));
    }
}
