//! A real OCI registry for tests (Debian's `docker-registry`, on 127.0.0.1 only), a
//! pusher speaking its HTTP API v2 as `docker push` does, and tar layers built entry by
//! entry: what the image tests (`oci.rs`) and the `fromImage` build test share.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

pub const REGISTRY: &str = "/usr/bin/docker-registry";
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";

pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!("sha256:{}", hash.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

pub fn arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    }
}

/// A `docker-registry serve` on 127.0.0.1, killed on drop.
pub struct Registry {
    child: Option<Child>,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

impl Registry {
    pub async fn start(htpasswd: Option<&str>) -> Registry {
        assert!(
            Path::new(REGISTRY).exists(),
            "{REGISTRY} is missing: `apt-get install docker-registry` (this test needs a real registry)"
        );
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let storage = dir.path().join("storage");
        std::fs::create_dir_all(&storage).unwrap();
        let mut config = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
            storage.display()
        );
        if let Some(line) = htpasswd {
            let file = dir.path().join("htpasswd");
            std::fs::write(&file, line).unwrap();
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: x\n    path: {}\n",
                file.display()
            ));
        }
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new(REGISTRY)
            .arg("serve")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{REGISTRY}: {e} (`apt-get install docker-registry`)"));
        let mut registry = Registry { child: Some(child), port, dir };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = client.get(format!("{}/v2/", registry.url())).send().await
                && (r.status().is_success() || r.status() == 401)
            {
                break;
            }
            if let Some(status) = registry.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("the registry exited ({status}): {}", registry.log());
            }
            assert!(Instant::now() < deadline, "the registry never answered: {}", registry.log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        registry
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    pub fn blob_data(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.dir
            .path()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Pushes through the registry API, as `docker push` does (monolithic uploads).
pub struct Pusher {
    client: reqwest::Client,
    base: String,
    basic: Option<(String, String)>,
}

impl Pusher {
    pub fn new(registry: &Registry, basic: Option<(&str, &str)>) -> Pusher {
        Pusher {
            client: reqwest::Client::new(),
            base: registry.url(),
            basic: basic.map(|(u, p)| (u.to_owned(), p.to_owned())),
        }
    }

    pub fn auth(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.basic {
            Some((u, p)) => request.basic_auth(u, Some(p)),
            None => request,
        }
    }

    pub async fn blob(&self, name: &str, bytes: &[u8]) -> String {
        let digest = digest(bytes);
        let started = self
            .auth(self.client.post(format!("{}/v2/{name}/blobs/uploads/", self.base)))
            .send()
            .await
            .unwrap();
        assert_eq!(started.status(), 202, "upload start: {:?}", started.text().await);
        let location = started.headers()["location"].to_str().unwrap().to_owned();
        let location =
            if location.starts_with('/') { format!("{}{location}", self.base) } else { location };
        assert!(location.starts_with(&self.base), "only 127.0.0.1: {location}");
        let sep = if location.contains('?') { '&' } else { '?' };
        let put = self
            .auth(self.client.put(format!("{location}{sep}digest={digest}")))
            .header("content-type", "application/octet-stream")
            .body(bytes.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 201, "blob put: {:?}", put.text().await);
        digest
    }

    pub async fn manifest(&self, name: &str, tag: &str, media_type: &str, body: &[u8]) -> String {
        let put = self
            .auth(self.client.put(format!("{}/v2/{name}/manifests/{tag}", self.base)))
            .header("content-type", media_type)
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 201, "manifest put: {:?}", put.text().await);
        let digest = digest(body);
        assert_eq!(put.headers()["docker-content-digest"].to_str().unwrap(), digest);
        digest
    }
}

/// A tar layer built entry by entry.
pub struct Layer {
    pub builder: tar::Builder<Vec<u8>>,
}

impl Layer {
    pub fn new() -> Layer {
        Layer { builder: tar::Builder::new(Vec::new()) }
    }

    pub fn header(
        path: &str,
        kind: tar::EntryType,
        mode: u32,
        owner: u64,
        size: u64,
    ) -> tar::Header {
        let mut h = tar::Header::new_gnu();
        h.set_path(path).unwrap();
        h.set_entry_type(kind);
        h.set_mode(mode);
        h.set_uid(owner);
        h.set_gid(owner);
        h.set_mtime(1_700_000_000);
        h.set_size(size);
        h
    }

    pub fn file(&mut self, path: &str, mode: u32, owner: u64, data: &[u8]) -> &mut Layer {
        let mut h = Self::header(path, tar::EntryType::Regular, mode, owner, data.len() as u64);
        h.set_cksum();
        self.builder.append(&h, data).unwrap();
        self
    }

    pub fn dir(&mut self, path: &str, mode: u32, owner: u64) -> &mut Layer {
        let mut h = Self::header(path, tar::EntryType::Directory, mode, owner, 0);
        h.set_cksum();
        self.builder.append(&h, std::io::empty()).unwrap();
        self
    }

    pub fn link(&mut self, kind: tar::EntryType, path: &str, target: &str) -> &mut Layer {
        let mut h = Self::header(path, kind, 0o777, 0, 0);
        // Raw bytes: the tar crate spells `/` as `//`.
        let field = &mut h.as_old_mut().linkname;
        field.fill(0);
        field[..target.len()].copy_from_slice(target.as_bytes());
        h.set_cksum();
        self.builder.append(&h, std::io::empty()).unwrap();
        self
    }

    /// A path the tar crate itself refuses to write (`..`).
    pub fn raw_file(&mut self, path: &[u8], data: &[u8]) -> &mut Layer {
        let mut h = Self::header("placeholder", tar::EntryType::Regular, 0o644, 0, 0);
        h.set_size(data.len() as u64);
        let name = &mut h.as_old_mut().name;
        name.fill(0);
        name[..path.len()].copy_from_slice(path);
        h.set_cksum();
        self.builder.append(&h, data).unwrap();
        self
    }

    /// (gzip blob, diff id)
    pub fn finish(self) -> (Vec<u8>, String) {
        let tar = self.builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&tar).unwrap();
        (gz.finish().unwrap(), digest(&tar))
    }
}

pub fn config_json(diff_ids: &[String], created: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "created": created,
        "architecture": arch(),
        "os": "linux",
        "config": {
            "Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=a=b", "NOEQUALS"],
            "WorkingDir": "/work",
            "User": "1000:1000",
            "Entrypoint": ["/bin/tool", "--verbose"],
            "Cmd": ["serve", "--port", "8080"],
        },
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
    }))
    .unwrap()
}

/// Pushes config + layers and a manifest under `tag`; the manifest's digest.
pub async fn push_image(pusher: &Pusher, name: &str, tag: &str, layers: Vec<Layer>) -> String {
    push_image_created(pusher, name, tag, layers, "2024-01-01T00:00:00Z").await.0
}

/// (manifest digest, config digest); `created` makes the config blob distinct.
pub async fn push_image_created(
    pusher: &Pusher,
    name: &str,
    tag: &str,
    layers: Vec<Layer>,
    created: &str,
) -> (String, String) {
    let mut descriptors = Vec::new();
    let mut diff_ids = Vec::new();
    for layer in layers {
        let (blob, diff_id) = layer.finish();
        let d = pusher.blob(name, &blob).await;
        descriptors.push(serde_json::json!({
            "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
            "digest": d,
            "size": blob.len(),
        }));
        diff_ids.push(diff_id);
    }
    let config = config_json(&diff_ids, created);
    let config_digest = pusher.blob(name, &config).await;
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_digest,
            "size": config.len(),
        },
        "layers": descriptors,
    }))
    .unwrap();
    (pusher.manifest(name, tag, OCI_MANIFEST, &manifest).await, config_digest)
}
