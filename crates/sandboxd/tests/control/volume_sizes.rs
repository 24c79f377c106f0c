//! Volume sizes (`server/control/volume_quota.rs`): each volume is a btrfs subvolume limited to
//! its `sizeMB` (a dsh extension of `POST /volumes`; default the sandboxes' `disk_mb`, at
//! most the image). A bad size is a 400; a volume past its size answers 507 on envd's
//! `/files` and on the volume content API, and the host sees it hold no more; delete
//! removes the subvolume; plain-directory volumes of older daemons (and ones a daemon
//! died converting) become subvolumes once, at start, with their files as they were.

use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{DISK_IMAGE_MB, Harness};

/// (referenced bytes, referenced-bytes limit) of the subvolume holding `path`, as btrfs
/// counts them (after a sync, so that writes just made are counted).
fn qgroup(path: &Path) -> (u64, u64) {
    let output = std::process::Command::new("btrfs")
        .args(["qgroup", "show", "-rf", "--raw", "--sync"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{text}{}", String::from_utf8_lossy(&output.stderr));
    // Qgroupid Referenced Exclusive Max-referenced Path
    let fields: Vec<&str> = text.lines().last().unwrap().split_whitespace().collect();
    (fields[1].parse().unwrap(), fields[3].parse().unwrap())
}

/// The subvolumes of the daemon's disk image (paths relative to its root).
fn subvolumes(state: &Path) -> Vec<String> {
    let output = std::process::Command::new("btrfs")
        .args(["subvolume", "list", "-o"])
        .arg(state.join("sandboxes"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines().map(|line| line.rsplit(' ').next().unwrap().to_owned()).collect()
}

/// The record (`<key>.json`) of the volume `name`, and its key.
fn record(state: &Path, name: &str) -> (String, Value) {
    let dir = state.join("sandboxes/.volumes");
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if entry.path().extension().is_some_and(|x| x == "json") {
            let value: Value =
                serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
            if value["name"] == name {
                return (value["key"].as_str().unwrap().to_owned(), value);
            }
        }
    }
    panic!("no record of volume {name} in {}", dir.display());
}

fn is_subvolume(dir: &Path) -> bool {
    dsh_sandboxd::btrfs::is_subvolume(dir).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_volume_size_is_checked_kept_and_is_its_subvolumes_limit() {
    let h = Harness::start().await;
    let c = &h.client;
    let state = h.state();
    for (size, shown) in [
        (json!(0), "0"),
        (json!(-16), "-16"),
        (json!(1.5), "1.5"),
        (json!("16"), "\"16\""),
        (json!(true), "true"),
        (json!(DISK_IMAGE_MB + 1), "4097"),
    ] {
        let reply =
            c.call(Method::POST, "/volumes", Some(json!({"name": "v", "sizeMB": size}))).await;
        let message = format!(
            "sizeMB: {shown} is not a volume size: give a whole number of MiB from 1 to 4096 (the size of the daemon's disk image)"
        );
        assert_eq!(
            (reply.status, reply.body),
            (StatusCode::BAD_REQUEST, json!({"code": 400, "message": message}))
        );
    }
    assert_eq!(c.call(Method::GET, "/volumes", None).await.body, json!([]));

    let made = c.call(Method::POST, "/volumes", Some(json!({"name": "small", "sizeMB": 16}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    assert_eq!(made.body["sizeMB"], 16);
    let id = made.body["volumeID"].as_str().unwrap().to_owned();
    assert_eq!(c.call(Method::GET, &format!("/volumes/{id}"), None).await.body, made.body);
    // `null` is no size: the default (disk_mb 10240, at most the 4096 MiB image).
    let default =
        c.call(Method::POST, "/volumes", Some(json!({"name": "default", "sizeMB": null}))).await;
    assert_eq!(default.status, StatusCode::CREATED, "{}", default.body);
    let default_id = default.body["volumeID"].as_str().unwrap().to_owned();
    assert_eq!(
        c.call(Method::GET, "/volumes", None).await.body,
        json!([
            {"volumeID": id, "name": "small", "sizeMB": 16},
            {"volumeID": default_id, "name": "default", "sizeMB": DISK_IMAGE_MB},
        ])
    );

    // Kept in the record; each directory is a subvolume limited to its size.
    let (small_key, small) = record(&state, "small");
    let (default_key, _) = record(&state, "default");
    assert_eq!(small["sizeMB"], 16);
    let volumes = state.join("sandboxes/.volumes");
    assert!(is_subvolume(&volumes.join(&small_key)));
    assert_eq!(qgroup(&volumes.join(&small_key)).1, 16 << 20);
    assert_eq!(qgroup(&volumes.join(&default_key)).1, DISK_IMAGE_MB << 20);
    let mut listed = subvolumes(&state);
    listed.sort();
    let mut expected = vec![format!(".volumes/{small_key}"), format!(".volumes/{default_key}")];
    expected.sort();
    assert_eq!(listed, expected);

    // Delete removes the subvolumes.
    for volume in [&id, &default_id] {
        let deleted = c.call(Method::DELETE, &format!("/volumes/{volume}"), None).await;
        assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    }
    assert_eq!(subvolumes(&state), Vec::<String>::new());
    assert_eq!(std::fs::read_dir(&volumes).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_volume_past_its_size_answers_507_on_files_and_on_the_content_api() {
    let h = Harness::start().await;
    let c = &h.client;
    let made = c.call(Method::POST, "/volumes", Some(json!({"name": "small", "sizeMB": 16}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let id = made.body["volumeID"].as_str().unwrap().to_owned();
    let token = made.body["token"].as_str().unwrap().to_owned();
    let sandbox = c
        .create(json!({
            "templateID": "base",
            "volumeMounts": [{"name": "small", "path": "/mnt/data"}]
        }))
        .await;

    // envd's upload into the volume: 507, naming the path and the quota.
    let response = c
        .envd(&sandbox, Method::POST, "/files?path=/mnt/data/big.bin")
        .header("Content-Type", "application/octet-stream")
        .body(vec![b'x'; 32 << 20])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"code": 507, "message": "not enough disk space to write '/mnt/data/big.bin': Disk quota exceeded (os error 122)"})
    );
    let (key, _) = record(&h.state(), "small");
    let dir = h.state().join("sandboxes/.volumes").join(&key);
    let (referenced, limit) = qgroup(&dir);
    assert_eq!(limit, 16 << 20);
    assert!(referenced <= limit, "{referenced} bytes referenced past a {limit}-byte limit");

    // The volume content API: 507 naming the volume and its size; nothing is left of the
    // refused file.
    let put = |path: &str, bytes: usize| {
        c.http
            .put(format!("{}/volumecontent/{id}/file?path={path}&force=true", c.base))
            .header("Authorization", format!("Bearer {token}"))
            .body(vec![b'y'; bytes])
            .send()
    };
    let response = put("/other.bin", 32 << 20).await.unwrap();
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"code": 507, "message": "volume 'small' is full: it holds at most 16 MiB (its sizeMB); remove files to make room"})
    );
    let (listing, code) = c.run(&sandbox, "ls -A /mnt/data").await;
    assert_eq!((listing.as_str(), code), ("big.bin\n", 0));

    // Room comes back as files go.
    let (out, code) = c.run(&sandbox, "rm /mnt/data/big.bin && sync && echo removed").await;
    assert_eq!((out.as_str(), code), ("removed\n", 0));
    let response = put("/other.bin", 8 << 20).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let (out, code) = c.run(&sandbox, "stat -c %s /mnt/data/other.bin").await;
    assert_eq!((out.as_str(), code), ("8388608\n", 0));
}

/// A tree as an older daemon's volume would hold it: owners, modes, a symlink, a hard
/// link, an extended attribute, a 3 MiB file and `files` small ones.
fn fill(dir: &Path, files: usize) {
    use std::os::unix::fs::{chown, lchown, symlink};
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    chown(dir, Some(1000), Some(1000)).unwrap();
    mode(dir, 0o755);
    std::fs::write(dir.join("notes.txt"), "hello\n").unwrap();
    chown(dir.join("notes.txt"), Some(1000), Some(1000)).unwrap();
    rustix::fs::setxattr(
        dir.join("notes.txt"),
        "user.origin",
        b"old-daemon",
        rustix::fs::XattrFlags::empty(),
    )
    .unwrap();
    std::fs::create_dir(dir.join("private")).unwrap();
    mode(&dir.join("private"), 0o700);
    std::fs::write(dir.join("private/secret"), "s").unwrap();
    mode(&dir.join("private/secret"), 0o600);
    let big: Vec<u8> = (0..3u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("big.bin"), &big).unwrap();
    chown(dir.join("big.bin"), Some(1001), Some(1002)).unwrap();
    mode(&dir.join("big.bin"), 0o640);
    std::fs::hard_link(dir.join("big.bin"), dir.join("big.link")).unwrap();
    symlink("notes.txt", dir.join("to-notes")).unwrap();
    lchown(dir.join("to-notes"), Some(1000), Some(1000)).unwrap();
    std::fs::create_dir(dir.join("many")).unwrap();
    for i in 0..files {
        std::fs::write(dir.join(format!("many/{i}")), i.to_string()).unwrap();
    }
}

/// A record as an older daemon wrote it (no `sizeMB`).
fn old_record(volumes: &Path, key: &str, name: &str, created_at_ms: u64) -> Value {
    let record = json!({
        "key": key,
        "volumeID": format!("00000000-0000-4000-8000-{key}"),
        "name": name,
        "token": "ab".repeat(32),
        "createdAtMs": created_at_ms,
    });
    std::fs::write(volumes.join(format!("{key}.json")), record.to_string()).unwrap();
    record
}

/// The image of a stopped daemon, mounted read-write until dropped.
struct Mounted(tempfile::TempDir);

impl Mounted {
    fn new(state: &Path) -> Mounted {
        let mountpoint = tempfile::Builder::new().prefix("dsh-old-volumes-").tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args(["-o", "loop"])
            .arg(state.join(dsh_sandboxd::server::disk::IMAGE_FILE))
            .arg(mountpoint.path())
            .status()
            .unwrap();
        assert!(status.success());
        Mounted(mountpoint)
    }

    fn path(&self) -> PathBuf {
        self.0.path().to_path_buf()
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(self.0.path()).status();
    }
}

/// What a sandbox sees of the tree [`fill`] made (its small files left out).
const TREE_INSIDE: &str = "\
. 1000:1000 755 directory
./big.bin 1001:1002 640 regular file 2 3145728
./big.link 1001:1002 640 regular file 2 3145728
./notes.txt 1000:1000 644 regular file 1 6
./private 0:0 700 directory
./private/secret 0:0 600 regular file 1 1
./to-notes 1000:1000 777 symbolic link -> notes.txt
";

/// Volumes of an older daemon (plain directories, records without `sizeMB`), and two a
/// daemon was killed converting (before and after the swap), become one subvolume each,
/// with every file, owner, mode, link and extended attribute they had, limited to the
/// default size; a second start changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volumes_from_before_sizes_become_subvolumes_once_with_their_files() {
    const FILES: usize = 1000;
    let mut h = Harness::start().await;
    h.stop().await;
    let state = h.state();
    let keys = ["0123456789ab", "0123456789cd", "0123456789ef"];
    {
        let mounted = Mounted::new(&state);
        let volumes = mounted.path().join(".volumes");
        std::fs::create_dir(&volumes).unwrap();
        std::fs::set_permissions(&volumes, std::fs::Permissions::from_mode(0o700)).unwrap();
        // As an older daemon left it.
        std::fs::create_dir(volumes.join(keys[0])).unwrap();
        fill(&volumes.join(keys[0]), FILES);
        old_record(&volumes, keys[0], "old", 1);
        // Killed while copying: the old directory, and a partial copy beside it.
        std::fs::create_dir(volumes.join(keys[1])).unwrap();
        fill(&volumes.join(keys[1]), FILES);
        old_record(&volumes, keys[1], "before-swap", 2);
        let partial = volumes.join(format!("{}.converting", keys[1]));
        dsh_sandboxd::btrfs::create_subvolume(&partial).unwrap();
        std::fs::write(partial.join("notes.txt"), "half").unwrap();
        // Killed after the swap: the complete subvolume, the old directory beside it, the
        // record not yet given its size.
        dsh_sandboxd::btrfs::create_subvolume(&volumes.join(keys[2])).unwrap();
        fill(&volumes.join(keys[2]), FILES);
        let old = volumes.join(format!("{}.converting", keys[2]));
        std::fs::create_dir(&old).unwrap();
        fill(&old, FILES);
        old_record(&volumes, keys[2], "after-swap", 3);
    }

    let started = Instant::now();
    h.restart().await;
    eprintln!("start converting 3 volumes of {} files each: {:?}", FILES + 6, started.elapsed());
    let c = h.client.clone();
    let volumes = state.join("sandboxes/.volumes");
    let mut names: Vec<String> = std::fs::read_dir(&volumes)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected: Vec<String> =
        keys.iter().flat_map(|k| [k.to_string(), format!("{k}.json")]).collect();
    expected.sort();
    assert_eq!(names, expected);
    let listed = c.call(Method::GET, "/volumes", None).await.body;
    let names = |listed: &Value| -> Vec<(String, u64)> {
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["name"].as_str().unwrap().to_owned(), v["sizeMB"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(
        names(&listed),
        [
            ("old".to_owned(), DISK_IMAGE_MB),
            ("before-swap".to_owned(), DISK_IMAGE_MB),
            ("after-swap".to_owned(), DISK_IMAGE_MB)
        ]
    );
    let mut records = Vec::new();
    for key in keys {
        let dir = volumes.join(key);
        assert!(is_subvolume(&dir), "{key}");
        let (referenced, limit) = qgroup(&dir);
        assert_eq!(limit, DISK_IMAGE_MB << 20, "{key}");
        assert!(referenced > 3 << 20, "{key}: {referenced}");
        let record: Value =
            serde_json::from_slice(&std::fs::read(volumes.join(format!("{key}.json"))).unwrap())
                .unwrap();
        assert_eq!(record["sizeMB"], DISK_IMAGE_MB, "{key}");
        // From the host: contents, modes, links and the extended attribute.
        assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "hello\n");
        let xattr = rustix::fs::getxattr(dir.join("notes.txt"), "user.origin", &mut [0u8; 64]);
        assert_eq!(xattr.unwrap(), 10, "{key}");
        let big = std::fs::metadata(dir.join("big.bin")).unwrap();
        let link = std::fs::metadata(dir.join("big.link")).unwrap();
        assert_eq!((big.ino(), big.nlink()), (link.ino(), 2));
        let bytes = std::fs::read(dir.join("big.bin")).unwrap();
        assert!(bytes.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
        assert_eq!(std::fs::read_dir(dir.join("many")).unwrap().count(), FILES);
        assert_eq!(std::fs::read_to_string(dir.join("many/999")).unwrap(), "999");
        records.push(std::fs::read(volumes.join(format!("{key}.json"))).unwrap());
    }

    // From inside, through the volume's idmapped mount: owners and modes as they were.
    let mounts: Vec<Value> = ["old", "before-swap", "after-swap"]
        .iter()
        .map(|name| json!({"name": name, "path": format!("/mnt/{name}")}))
        .collect();
    let sandbox = c.create(json!({"templateID": "base", "volumeMounts": mounts})).await;
    for name in ["old", "before-swap", "after-swap"] {
        let script = format!(
            "cd /mnt/{name} && find . -path ./many -prune -o -printf '%p %U:%G %m %y %n %s %l\\n' \
             | sort | awk '{{t = $4 == \"d\" ? \"directory\" : $4 == \"l\" ? \"symbolic link\" : \
             \"regular file\"; if ($4 == \"d\") print $1, $2, $3, t; else if ($4 == \"l\") \
             print $1, $2, $3, t, \"->\", $7; else print $1, $2, $3, t, $5, $6}}'"
        );
        // As root: `private` is root's alone.
        let (out, code) = c.run_as(&sandbox, "root", &script).await;
        assert_eq!((out.as_str(), code), (TREE_INSIDE, 0), "{name}");
    }
    let id = sandbox["sandboxID"].as_str().unwrap();
    let killed = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(killed.status, StatusCode::NO_CONTENT);

    // A second start converts nothing again.
    h.restart().await;
    for (key, before) in keys.iter().zip(records) {
        assert_eq!(std::fs::read(volumes.join(format!("{key}.json"))).unwrap(), before);
        assert!(is_subvolume(&volumes.join(key)));
    }
}
