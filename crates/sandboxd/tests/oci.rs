//! `dsh_sandboxd::oci::ImageStore` against a real registry (Debian's `docker-registry`,
//! on 127.0.0.1 only): an image built here with the `tar` crate (modes, owners, links,
//! whiteouts, an opaque directory and entries that try to leave the rootfs) is pushed
//! through the Registry HTTP API v2, pulled and its unpacked tree compared exactly.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use dsh_sandboxd::oci::{ImageError, ImageStore, PullOptions, RegistryAuth};

use crate::registry::{
    Layer, OCI_INDEX, OCI_MANIFEST, Pusher, Registry, arch, config_json, digest, push_image,
    push_image_created,
};

fn layers() -> Vec<Layer> {
    let mut one = Layer::new();
    one.dir("bin", 0o755, 0)
        .file("bin/tool", 0o755, 0, b"#!/bin/sh\necho tool\n")
        .dir("etc", 0o755, 0)
        .file("etc/config", 0o644, 0, b"key=value\n")
        .file("secret", 0o700, 0, b"\x00\x01binary\xff")
        .dir("home", 0o755, 0)
        .dir("home/user", 0o750, 1000)
        .file("home/user/own", 0o600, 1000, b"mine\n")
        .link(tar::EntryType::Symlink, "link", "etc/config")
        .link(tar::EntryType::Link, "hard", "etc/config")
        .file("gone", 0o644, 0, b"removed by layer 2\n")
        .dir("opq", 0o755, 0)
        .file("opq/old", 0o644, 0, b"old\n")
        .dir("opq/sub", 0o755, 0)
        .file("opq/sub/deep", 0o644, 0, b"deep\n")
        .link(tar::EntryType::Symlink, "escape", "../../..")
        .link(tar::EntryType::Symlink, "abs", "/")
        .raw_file(b"../outside", b"outside\n");
    let mut two = Layer::new();
    two.file(".wh.gone", 0o644, 0, b"")
        .file("opq/.wh..wh..opq", 0o644, 0, b"")
        .file("opq/new", 0o640, 0, b"new\n")
        .file("escape/pwned", 0o644, 0, b"pwned 1\n")
        .file("abs/pwned", 0o644, 0, b"pwned 2\n")
        // Whiteouts and hard links through the planted links stay inside the rootfs too.
        .file("escape/.wh.victim", 0o644, 0, b"")
        .file("abs/.wh.victim", 0o644, 0, b"")
        .link(tar::EntryType::Link, "stolen", "escape/victim")
        .link(tar::EntryType::Link, "stolen-abs", "abs/victim");
    vec![one, two]
}

#[derive(Debug, PartialEq, Eq)]
enum Node {
    Dir { mode: u32, uid: u32, gid: u32 },
    File { mode: u32, uid: u32, gid: u32, bytes: Vec<u8> },
    Symlink { target: String },
}

fn walk(root: &Path) -> (BTreeMap<String, Node>, BTreeMap<String, u64>) {
    fn go(
        root: &Path,
        dir: &Path,
        out: &mut BTreeMap<String, Node>,
        inodes: &mut BTreeMap<String, u64>,
    ) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let (mode, uid, gid) = (meta.permissions().mode() & 0o7777, meta.uid(), meta.gid());
            inodes.insert(rel.clone(), meta.ino());
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap().to_str().unwrap().to_owned();
                out.insert(rel, Node::Symlink { target });
            } else if meta.is_dir() {
                out.insert(rel, Node::Dir { mode, uid, gid });
                go(root, &path, out, inodes);
            } else {
                assert!(meta.is_file(), "{rel}: {:?}", meta.file_type());
                out.insert(
                    rel,
                    Node::File { mode, uid, gid, bytes: std::fs::read(&path).unwrap() },
                );
            }
        }
    }
    let (mut out, mut inodes) = (BTreeMap::new(), BTreeMap::new());
    go(root, root, &mut out, &mut inodes);
    (out, inodes)
}

fn expected_tree() -> BTreeMap<String, Node> {
    let dir = |mode, owner| Node::Dir { mode, uid: owner, gid: owner };
    let file = |mode, owner, bytes: &[u8]| Node::File {
        mode,
        uid: owner,
        gid: owner,
        bytes: bytes.to_vec(),
    };
    let link = |target: &str| Node::Symlink { target: target.into() };
    [
        ("abs", link("/")),
        ("bin", dir(0o755, 0)),
        ("bin/tool", file(0o755, 0, b"#!/bin/sh\necho tool\n")),
        ("escape", link("../../..")),
        ("etc", dir(0o755, 0)),
        ("etc/config", file(0o644, 0, b"key=value\n")),
        ("hard", file(0o644, 0, b"key=value\n")),
        ("home", dir(0o755, 0)),
        ("home/user", dir(0o750, 1000)),
        ("home/user/own", file(0o600, 1000, b"mine\n")),
        ("link", link("etc/config")),
        ("opq", dir(0o755, 0)),
        ("opq/new", file(0o640, 0, b"new\n")),
        ("secret", file(0o700, 0, b"\x00\x01binary\xff")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// No file called `name` anywhere under `dir` except inside `allowed`.
fn assert_nothing_named(dir: &Path, name: &str, allowed: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path == allowed {
            continue;
        }
        assert_ne!(path.file_name().unwrap(), name, "{} escaped the rootfs", path.display());
        if std::fs::symlink_metadata(&path).unwrap().is_dir() {
            assert_nothing_named(&path, name, allowed);
        }
    }
}

fn no_progress() -> impl FnMut(String) + Send {
    |line| eprintln!("  pull: {line}")
}

#[tokio::test(flavor = "multi_thread")]
async fn pulls_unpacks_caches_and_resolves_indexes() {
    let mut registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let digest = push_image(&pusher, "team/img", "v1", layers()).await;
    let manifest_size = reqwest::Client::new()
        .get(format!("{}/v2/team/img/manifests/v1", registry.url()))
        .header("accept", OCI_MANIFEST)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .len();
    let index = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [{
            "mediaType": OCI_MANIFEST,
            "digest": digest,
            "size": manifest_size,
            "platform": {"architecture": arch(), "os": "linux"},
        }],
    }))
    .unwrap();
    let index_digest = pusher.manifest("team/img", "multi", OCI_INDEX, &index).await;

    let tmp = tempfile::tempdir().unwrap();
    // Where `../../..` from the rootfs (final or being unpacked) would lead, were it followed.
    std::fs::create_dir_all(tmp.path().join("images")).unwrap();
    let victims = [tmp.path().join("victim"), tmp.path().join("images/victim")];
    for victim in &victims {
        std::fs::write(victim, "host file\n").unwrap();
    }
    let store = ImageStore::new(tmp.path().join("images"), PullOptions::default());
    let reference = format!("{}/team/img:v1", registry.host());

    let started = Instant::now();
    let image = store.pull(&reference, None, &mut no_progress()).await.unwrap();
    eprintln!("first pull + unpack: {:?}", started.elapsed());
    assert_eq!(image.digest, digest);
    assert!(!image.cached);
    assert_eq!(
        image.rootfs,
        tmp.path().join("images").join(digest.replace(':', "-")).join("rootfs")
    );

    assert_nothing_named(tmp.path(), "pwned", &image.rootfs);
    assert_nothing_named(tmp.path(), "outside", &image.rootfs);
    assert_nothing_named(registry.dir.path(), "pwned", &image.rootfs);
    assert!(!Path::new("/pwned").exists() && !Path::new("/outside").exists());
    for victim in &victims {
        assert_eq!(std::fs::read_to_string(victim).unwrap(), "host file\n", "{}", victim.display());
        assert_eq!(
            std::fs::metadata(victim).unwrap().nlink(),
            1,
            "{} was linked",
            victim.display()
        );
    }
    let (mut tree, inodes) = walk(&image.rootfs);
    // `escape/pwned` and `abs/pwned` resolve inside the rootfs (its `/`), or are refused.
    eprintln!("pwned in the rootfs: {:?}", tree.get("pwned"));
    match tree.remove("pwned") {
        None => {}
        Some(Node::File { bytes, .. }) => {
            assert!(bytes == b"pwned 1\n" || bytes == b"pwned 2\n", "{bytes:?}")
        }
        Some(other) => panic!("pwned: {other:?}"),
    }
    assert_eq!(tree, expected_tree());
    assert_eq!(inodes["hard"], inodes["etc/config"], "a hard link shares its inode");
    assert_nothing_named(tmp.path(), "pwned", &image.rootfs);
    assert_nothing_named(tmp.path(), "outside", &image.rootfs);
    assert_nothing_named(registry.dir.path(), "pwned", &image.rootfs);
    assert!(!Path::new("/pwned").exists() && !Path::new("/outside").exists());
    assert!(
        !tmp.path().join("images/tmp").exists()
            || std::fs::read_dir(tmp.path().join("images/tmp")).unwrap().next().is_none()
    );

    let config = &image.config;
    assert_eq!(
        config.env,
        vec![
            ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
            ("GREETING".to_owned(), "a=b".to_owned()),
        ]
    );
    assert_eq!(config.workdir.as_deref(), Some("/work"));
    assert_eq!(config.user.as_deref(), Some("1000:1000"));
    assert_eq!(config.entrypoint, ["/bin/tool", "--verbose"]);
    assert_eq!(config.cmd, ["serve", "--port", "8080"]);

    // The index tag resolves to the same manifest, already unpacked.
    let multi = store
        .pull(&format!("{}/team/img:multi", registry.host()), None, &mut no_progress())
        .await
        .unwrap();
    assert_eq!(
        (&multi.digest, &multi.rootfs, &multi.config),
        (&digest, &image.rootfs, &image.config)
    );
    assert!(multi.cached);

    let started = Instant::now();
    let again = store.pull(&reference, None, &mut no_progress()).await.unwrap();
    eprintln!("cached pull: {:?}", started.elapsed());
    assert!(again.cached);
    assert_eq!(
        (&again.digest, &again.rootfs, &again.config),
        (&digest, &image.rootfs, &image.config)
    );

    let unknown =
        store.pull(&format!("{}/team/img:nope", registry.host()), None, &mut no_progress()).await;
    assert!(matches!(unknown, Err(ImageError::NotFound(_))), "{unknown:?}");
    let unknown_repo =
        store.pull(&format!("{}/team/other:v1", registry.host()), None, &mut no_progress()).await;
    assert!(matches!(unknown_repo, Err(ImageError::NotFound(_))), "{unknown_repo:?}");

    // The index, pulled by its digest once, is known here too.
    let by_index = store
        .pull(&format!("{}/team/img@{index_digest}", registry.host()), None, &mut no_progress())
        .await
        .unwrap();
    assert_eq!(by_index.digest, digest);

    registry.stop();
    for by_digest in [
        format!("{}/team/img@{digest}", registry.host()),
        format!("{}/team/img@{index_digest}", registry.host()),
    ] {
        let cached = store.pull(&by_digest, None, &mut no_progress()).await.unwrap();
        assert!(cached.cached);
        assert_eq!((&cached.digest, &cached.rootfs), (&digest, &image.rootfs));
    }
    // By tag it must ask the registry, which is gone.
    let gone = store.pull(&reference, None, &mut no_progress()).await;
    assert!(matches!(gone, Err(ImageError::Registry(_))), "{gone:?}");
    let (after, _) = walk(&image.rootfs);
    assert_eq!(after.len(), expected_tree().len() + usize::from(after.contains_key("pwned")));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_blob_fails_the_pull_and_leaves_nothing() {
    let registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let good = push_image(&pusher, "team/img", "good", layers()).await;
    let mut unique = Layer::new();
    unique.file("only-in-bad", 0o644, 0, &vec![b'z'; 100_000]);
    let mut bad_layers = layers();
    bad_layers.push(unique);
    let (blob, _) = {
        let mut again = Layer::new();
        again.file("only-in-bad", 0o644, 0, &vec![b'z'; 100_000]);
        again.finish()
    };
    let bad = push_image(&pusher, "team/img", "bad", bad_layers).await;
    let data = registry.blob_data(&digest(&blob));
    let mut bytes = std::fs::read(&data).unwrap();
    assert_eq!(bytes, blob);
    // Same length, different bytes past the gzip header.
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    bytes[at + 1] ^= 0x55;
    std::fs::write(&data, &bytes).unwrap();

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("images");
    let store = ImageStore::new(root.clone(), PullOptions::default());
    let pulled =
        store.pull(&format!("{}/team/img:bad", registry.host()), None, &mut no_progress()).await;
    assert!(matches!(pulled, Err(ImageError::Corrupt(_))), "{pulled:?}");
    assert!(!root.join(bad.replace(':', "-")).exists());
    let leftovers: Vec<_> =
        std::fs::read_dir(root.join("tmp")).map(|d| d.collect()).unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // The store still pulls a sound image.
    let ok = store
        .pull(&format!("{}/team/img:good", registry.host()), None, &mut no_progress())
        .await
        .unwrap();
    assert_eq!(ok.digest, good);

    // A corrupt config blob is refused too.
    let (third, config) =
        push_image_created(&pusher, "team/img", "third", layers(), "2025-01-01T00:00:00Z").await;
    let data = registry.blob_data(&config);
    let mut bytes = std::fs::read(&data).unwrap();
    let at = bytes.iter().position(|b| *b == b'2').unwrap();
    bytes[at] = b'3';
    std::fs::write(&data, &bytes).unwrap();
    let pulled =
        store.pull(&format!("{}/team/img:third", registry.host()), None, &mut no_progress()).await;
    assert!(matches!(pulled, Err(ImageError::Corrupt(_))), "{pulled:?}");
    assert!(!root.join(third.replace(':', "-")).exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_index_first_and_concurrent_pulls() {
    let mut registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let digest = push_image(&pusher, "team/img", "v1", layers()).await;
    let manifest = reqwest::Client::new()
        .get(format!("{}/v2/team/img/manifests/v1", registry.url()))
        .header("accept", OCI_MANIFEST)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let index = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [
            {
                "mediaType": OCI_MANIFEST,
                "digest": digest,
                "size": manifest.len(),
                "platform": {"architecture": "s390x", "os": "linux"},
            },
            {
                "mediaType": OCI_MANIFEST,
                "digest": digest,
                "size": manifest.len(),
                "platform": {"architecture": arch(), "os": "linux"},
            },
        ],
    }))
    .unwrap();
    let index_digest = pusher.manifest("team/img", "multi", OCI_INDEX, &index).await;

    let tmp = tempfile::tempdir().unwrap();
    let store = ImageStore::new(tmp.path().join("images"), PullOptions::default());
    let multi = format!("{}/team/img:multi", registry.host());
    let (mut p1, mut p2) = (no_progress(), no_progress());
    let (a, b) = tokio::join!(store.pull(&multi, None, &mut p1), store.pull(&multi, None, &mut p2));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((&a.digest, &b.digest), (&digest, &digest));
    assert_eq!(a.rootfs, b.rootfs);
    assert!(a.cached != b.cached, "exactly one of two concurrent pulls unpacks");
    let (mut tree, _) = walk(&a.rootfs);
    tree.remove("pwned");
    assert_eq!(tree, expected_tree());

    registry.stop();
    let offline = store
        .pull(&format!("{}/team/img@{index_digest}", registry.host()), None, &mut no_progress())
        .await
        .unwrap();
    assert!(offline.cached);
    assert_eq!(offline.digest, digest);
}

#[tokio::test(flavor = "multi_thread")]
async fn htpasswd_registries_need_credentials() {
    let output = Command::new("htpasswd")
        .args(["-Bbn", "user", "pass"])
        .output()
        .expect("htpasswd (`apt-get install apache2-utils`)");
    assert!(output.status.success());
    let line = String::from_utf8(output.stdout).unwrap();
    let registry = Registry::start(Some(line.trim())).await;
    let pusher = Pusher::new(&registry, Some(("user", "pass")));
    let digest = push_image(&pusher, "team/private", "v1", layers()).await;
    let reference = format!("{}/team/private:v1", registry.host());

    let tmp = tempfile::tempdir().unwrap();
    let store = ImageStore::new(tmp.path().join("images"), PullOptions::default());
    let anonymous = store.pull(&reference, None, &mut no_progress()).await;
    assert!(matches!(anonymous, Err(ImageError::Unauthorized(_))), "{anonymous:?}");
    let wrong = RegistryAuth { username: "user".into(), password: "wrong".into() };
    let refused = store.pull(&reference, Some(&wrong), &mut no_progress()).await;
    assert!(matches!(refused, Err(ImageError::Unauthorized(_))), "{refused:?}");
    let auth = RegistryAuth { username: "user".into(), password: "pass".into() };
    let image = store.pull(&reference, Some(&auth), &mut no_progress()).await.unwrap();
    assert_eq!(image.digest, digest);
    assert!(!image.cached);
    let (mut tree, _) = walk(&image.rootfs);
    tree.remove("pwned");
    assert_eq!(tree, expected_tree());
}

#[tokio::test(flavor = "multi_thread")]
async fn docker_media_types_plain_tar_and_replaced_entries() {
    let registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let mut one = Layer::new();
    one.file("etc/config", 0o644, 0, b"key=value\n")
        .link(tar::EntryType::Symlink, "link", "etc/config")
        .dir("d", 0o755, 0)
        .file("d/x", 0o644, 0, b"x\n")
        .file("f", 0o644, 0, b"f\n");
    let mut two = Layer::new();
    // A file over a symlink replaces the link, never writes through it.
    two.file("link", 0o600, 0, b"replaced\n")
        .file("d", 0o644, 0, b"now a file\n")
        .dir("f", 0o711, 0)
        .file("f/y", 0o644, 0, b"y\n")
        .link(tar::EntryType::Link, "hl", "etc/config");
    let mut blobs = Vec::new();
    let mut diff_ids = Vec::new();
    for layer in [one, two] {
        let tar = layer.builder.into_inner().unwrap();
        let d = pusher.blob("team/docker", &tar).await;
        blobs.push(serde_json::json!({
            "mediaType": "application/vnd.docker.image.rootfs.diff.tar",
            "digest": d,
            "size": tar.len(),
        }));
        diff_ids.push(d);
    }
    let config = config_json(&diff_ids, "2024-01-01T00:00:00Z");
    let config_digest = pusher.blob("team/docker", &config).await;
    const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
    let manifest = serde_json::to_vec(&serde_json::json!({
        "schemaVersion": 2,
        "mediaType": DOCKER_MANIFEST,
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "digest": config_digest,
            "size": config.len(),
        },
        "layers": blobs,
    }))
    .unwrap();
    let digest = pusher.manifest("team/docker", "latest", DOCKER_MANIFEST, &manifest).await;

    let tmp = tempfile::tempdir().unwrap();
    let store = ImageStore::new(tmp.path().join("images"), PullOptions::default());
    // No tag: `latest`.
    let image = store
        .pull(&format!("{}/team/docker", registry.host()), None, &mut no_progress())
        .await
        .unwrap();
    assert_eq!(image.digest, digest);
    let (tree, inodes) = walk(&image.rootfs);
    let file = |mode, bytes: &[u8]| Node::File { mode, uid: 0, gid: 0, bytes: bytes.to_vec() };
    let expected: BTreeMap<String, Node> = [
        ("d", file(0o644, b"now a file\n")),
        ("etc", Node::Dir { mode: 0o755, uid: 0, gid: 0 }),
        ("etc/config", file(0o644, b"key=value\n")),
        ("f", Node::Dir { mode: 0o711, uid: 0, gid: 0 }),
        ("f/y", file(0o644, b"y\n")),
        ("hl", file(0o644, b"key=value\n")),
        ("link", file(0o600, b"replaced\n")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(tree, expected);
    assert_eq!(inodes["hl"], inodes["etc/config"]);
    assert_eq!(image.config.cmd, ["serve", "--port", "8080"]);
}
