//! Volumes: `/volumes` create/list/get/delete and `volumeMounts` at create. Two
//! sandboxes (of different uid blocks) share one with the same owners; a volume outlives
//! its sandboxes and the daemon; one still mounted cannot be deleted; bad mounts are
//! refused before anything starts.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{DISK_IMAGE_MB, Harness};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_volume_is_shared_by_sandboxes_and_outlives_them() {
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let made = c.call(Method::POST, "/volumes", Some(json!({"name": "shared-data"}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let id = made.body["volumeID"].as_str().unwrap().to_owned();
    assert_eq!((id.len(), made.body["name"].as_str()), (36, Some("shared-data")));
    assert_eq!(made.body["token"].as_str().unwrap().len(), 64);
    let taken = c.call(Method::POST, "/volumes", Some(json!({"name": "shared-data"}))).await;
    assert_eq!(
        (taken.status, taken.body),
        (
            StatusCode::CONFLICT,
            json!({"code": 409, "message": "volume 'shared-data' already exists"})
        )
    );
    // Without sizeMB: the sandboxes' disk_mb (10240), at most the image (4096).
    assert_eq!(made.body["sizeMB"], DISK_IMAGE_MB);
    let listed = c.call(Method::GET, "/volumes", None).await;
    assert_eq!(
        listed.body,
        json!([{"volumeID": id, "name": "shared-data", "sizeMB": DISK_IMAGE_MB}])
    );
    assert_eq!(c.call(Method::GET, &format!("/volumes/{id}"), None).await.body, made.body);

    let mount = |path: &str| json!({"templateID": "base", "volumeMounts": [{"name": "shared-data", "path": path}]});
    let a = c.create(mount("/mnt/data")).await;
    let b = c.create(mount("/workspace/shared")).await;
    let (out, code) =
        c.run(&a, "echo from-a > /mnt/data/note && stat -c '%U %a' /mnt/data /mnt/data/note").await;
    assert_eq!((out.as_str(), code), ("user 755\nuser 644\n", 0));
    let (out, code) = c.run(&b, "cat /workspace/shared/note && stat -c %U /workspace/shared/note && echo from-b >> /workspace/shared/note").await;
    assert_eq!((out.as_str(), code), ("from-a\nuser\n", 0));
    assert_eq!(c.run(&a, "cat /mnt/data/note").await, ("from-a\nfrom-b\n".to_owned(), 0));
    // Inside, the mount names no host path, and nothing on it is setuid or a device.
    let (line, _) = c.run(&a, "grep ' /mnt/data ' /proc/self/mountinfo").await;
    let state = h.state();
    assert!(!line.contains(state.to_str().unwrap()) && !line.contains("/tmp/"), "{line}");
    let options = line.split(' ').nth(5).unwrap();
    assert!(options.contains("nosuid") && options.contains("nodev"), "{line}");

    // Mounted: not deletable.
    let a_id = a["sandboxID"].as_str().unwrap().to_owned();
    let b_id = b["sandboxID"].as_str().unwrap().to_owned();
    let busy = c.call(Method::DELETE, &format!("/volumes/{id}"), None).await;
    assert_eq!(busy.status, StatusCode::CONFLICT, "{}", busy.body);
    let message = busy.body["message"].as_str().unwrap();
    assert!(message.starts_with("volume 'shared-data' is mounted by sandbox "), "{message}");

    // Bad mounts.
    for (body, expected) in [
        (
            json!({"volumeMounts": [{"name": "nope", "path": "/mnt/x"}]}),
            "volumeMounts: volume 'nope' not found",
        ),
        (
            json!({"volumeMounts": [{"name": "shared-data", "path": "/home/user/data"}]}),
            "volumeMounts: invalid volume mount path \"/home/user/data\": mount volumes on a path of the sandbox's own root, such as /mnt/data (not under /home, /root, /var, /tmp, /run, /proc, /sys, /dev, /.dsh or a host directory the sandbox shows)",
        ),
        (
            json!({"volumeMounts": [{"name": "shared-data", "path": "mnt"}]}),
            "volumeMounts: invalid volume mount path \"mnt\": it must be absolute",
        ),
    ] {
        let reply = c.call(Method::POST, "/v2/sandboxes", Some(body)).await;
        assert_eq!(
            (reply.status, reply.body["message"].as_str()),
            (StatusCode::BAD_REQUEST, Some(expected))
        );
    }

    // Kept across a restart and a files-only pause; then the sandboxes go, the volume stays.
    h.restart().await;
    let c = h.client.clone();
    let resumed = c
        .call(Method::POST, &format!("/sandboxes/{a_id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED, "{}", resumed.body);
    assert_eq!(c.run(&a, "cat /mnt/data/note").await, ("from-a\nfrom-b\n".to_owned(), 0));
    for sandbox in [&a_id, &b_id] {
        assert_eq!(
            c.call(Method::DELETE, &format!("/sandboxes/{sandbox}"), None).await.status,
            StatusCode::NO_CONTENT
        );
    }
    let later = c.create(mount("/data")).await;
    assert_eq!(c.run(&later, "cat /data/note").await, ("from-a\nfrom-b\n".to_owned(), 0));
    let later_id = later["sandboxID"].as_str().unwrap();
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{later_id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        c.call(Method::DELETE, &format!("/volumes/{id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        c.call(Method::DELETE, &format!("/volumes/{id}"), None).await.status,
        StatusCode::NOT_FOUND
    );
    let volumes = h.state().join("sandboxes/.volumes");
    assert_eq!(std::fs::read_dir(volumes).unwrap().count(), 0);
}

/// Without the disk image (quotas off) there are no volumes: a volume's path would show
/// the host's directories inside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volumes_need_the_disk_image() {
    let h = Harness::start_with(|c| c.defaults.disk_mb = 0).await;
    let reply = h.client.call(Method::POST, "/volumes", Some(json!({"name": "v"}))).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        reply.body["message"],
        "volumes need the sandboxes' disk image, which this daemon lacks: disk quotas are off (disk_mb = 0)"
    );
}

/// Runs `change` on the sandboxes' directory of a stopped daemon (its disk image,
/// mounted read-write for the call).
fn change_stopped(state: &std::path::Path, change: impl FnOnce(&std::path::Path)) {
    let mountpoint = tempfile::Builder::new().prefix("dsh-change-").tempdir().unwrap();
    let status = std::process::Command::new("mount")
        .arg("-oloop")
        .arg(state.join(dsh_sandboxd::server::disk::IMAGE_FILE))
        .arg(mountpoint.path())
        .status()
        .unwrap();
    assert!(status.success(), "mounting the disk image of {}", state.display());
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| change(mountpoint.path())));
    let _ = std::process::Command::new("umount").arg(mountpoint.path()).status();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// A volume an older daemon made keeps its inside ids on the host (root's files are
/// host root's, a setuid bit and all). The next start moves it into the volumes' block
/// once: every owner shifted, every mode kept, the record says so, and sandboxes and
/// the volume content API see the same owners as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_volume_made_before_volumes_had_a_block_is_moved_into_it_at_start() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mut h = Harness::start().await;
    let made = h.client.call(Method::POST, "/volumes", Some(json!({"name": "old"}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let token = made.body["token"].as_str().unwrap().to_owned();
    let id = made.body["volumeID"].as_str().unwrap().to_owned();
    h.stop().await;
    // As a daemon before volume blocks left it.
    change_stopped(&h.state(), |root| {
        let volumes = root.join(".volumes");
        let record = std::fs::read_dir(&volumes)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "json"))
            .unwrap();
        let mut described: Value =
            serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
        assert!(described.as_object_mut().unwrap().remove("ids").is_some(), "{described}");
        std::fs::write(&record, serde_json::to_vec(&described).unwrap()).unwrap();
        let dir = record.with_extension("");
        std::os::unix::fs::chown(&dir, Some(1000), Some(1000)).unwrap();
        std::fs::write(dir.join("suid"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(dir.join("suid"), std::fs::Permissions::from_mode(0o6755))
            .unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/f"), "kept").unwrap();
        std::os::unix::fs::chown(dir.join("sub/f"), Some(1000), Some(1000)).unwrap();
        std::fs::set_permissions(dir.join("sub/f"), std::fs::Permissions::from_mode(0o640))
            .unwrap();
    });
    h.restart().await;

    let block = dsh_sandboxd::IdRange::VOLUMES.host_base;
    let volumes = h.state().join("sandboxes/.volumes");
    let record = std::fs::read_dir(&volumes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let described: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(described["ids"], json!({"hostBase": block}));
    let dir = record.with_extension("");
    let host = |path: &str| {
        let m = std::fs::symlink_metadata(dir.join(path)).unwrap();
        (m.uid() - block, m.gid() - block, m.mode() & 0o7777)
    };
    assert_eq!(
        [host("."), host("suid"), host("sub"), host("sub/f")],
        [(1000, 1000, 0o755), (0, 0, 0o6755), (0, 0, 0o755), (1000, 1000, 0o640)]
    );

    let c = h.client.clone();
    let sandbox = c
        .create(
            json!({"templateID": "base", "volumeMounts": [{"name": "old", "path": "/mnt/old"}]}),
        )
        .await;
    let (out, code) = c
        .run(
            &sandbox,
            "stat -c %u:%g:%a /mnt/old /mnt/old/suid /mnt/old/sub/f && cat /mnt/old/sub/f",
        )
        .await;
    assert_eq!((out.as_str(), code), ("1000:1000:755\n0:0:6755\n1000:1000:640\nkept", 0));
    let stat = reqwest::Client::new()
        .get(format!("{}/volumecontent/{id}/path?path=/suid", h.daemon().url()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(stat.status(), StatusCode::OK);
    let stat: Value = stat.json().await.unwrap();
    assert_eq!((&stat["uid"], &stat["gid"], &stat["mode"]), (&json!(0), &json!(0), &json!(0o6755)));
}
