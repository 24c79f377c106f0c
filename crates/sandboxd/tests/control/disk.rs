//! Disk quotas (`server/store/disk.rs`): every sandbox's files live in a subvolume of the
//! daemon's btrfs image, limited to `disk_mb`. A sandbox past its quota gets EDQUOT
//! inside and a 507 on `/files`; its neighbour keeps writing, the image never grows past
//! its size, and the quota holds after a restart.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::Harness;

const QUOTA_MB: u64 = 64;
const IMAGE_MB: u64 = 512;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_past_its_quota_gets_edquot_and_a_507_while_its_neighbour_writes_on() {
    let mut h = Harness::start_with(|c| {
        c.defaults.disk_mb = QUOTA_MB;
        c.disk_image_mb = Some(IMAGE_MB);
    })
    .await;
    let state = h.state();
    // The image is as big as asked, and sparse: only what is written takes host space.
    let image = std::fs::metadata(state.join("disk.img")).unwrap();
    assert_eq!(image.len(), IMAGE_MB << 20);
    let filler = h.client.create(json!({"templateID": "base"})).await;
    let neighbour = h.client.create(json!({"templateID": "base"})).await;
    let filler_id = filler["sandboxID"].as_str().unwrap().to_owned();
    let info = h.client.call(Method::GET, &format!("/sandboxes/{filler_id}"), None).await;
    assert_eq!(info.body["diskSizeMB"], QUOTA_MB);

    let (_, stderr, code) =
        h.client.run_output(&filler, "head -c 100M /dev/zero > /home/user/fill").await;
    assert_eq!(
        (stderr.as_str(), code),
        ("head: error writing 'standard output': Disk quota exceeded\n", 1)
    );
    // What it holds stays under the quota (its envd binary, shared, counts too).
    let (size, _) = h.client.run(&filler, "stat -c %s /home/user/fill").await;
    let size: u64 = size.trim().parse().unwrap();
    assert!(size < QUOTA_MB << 20, "{size} bytes written past a {QUOTA_MB} MiB quota");

    let response = h
        .client
        .envd(&filler, Method::POST, "/files?path=/home/user/more.bin")
        .header("Content-Type", "application/octet-stream")
        .body(vec![b'x'; 8 << 20])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"code": 507, "message": "not enough disk space to write '/home/user/more.bin': Disk quota exceeded (os error 122)"})
    );

    // The neighbour's share is its own.
    let (out, code) =
        h.client.run(&neighbour, "head -c 32M /dev/zero > /home/user/fill && echo written").await;
    assert_eq!((out.as_str(), code), ("written\n", 0));

    // Deleting gives the room back.
    let (out, code) = h
        .client
        .run(
            &filler,
            "rm /home/user/fill && sync && head -c 16M /dev/zero > /home/user/f2 && echo ok",
        )
        .await;
    assert_eq!((out.as_str(), code), ("ok\n", 0));

    // After a restart (the sandbox paused, then resumed) the quota it was made with holds.
    h.restart().await;
    let resumed = h
        .client
        .call(
            Method::POST,
            &format!("/sandboxes/{filler_id}/connect"),
            Some(json!({"timeout": 60})),
        )
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED, "{}", resumed.body);
    let (_, stderr, code) =
        h.client.run_output(&filler, "head -c 100M /dev/zero > /home/user/fill").await;
    assert_eq!(
        (stderr.as_str(), code),
        ("head: error writing 'standard output': Disk quota exceeded\n", 1)
    );
    h.stop().await;
    // Shutdown unmounts the image: the state directory can be removed.
    std::fs::remove_dir_all(&state).unwrap();
}

/// `disk_mb = 0`: no image, sandboxes' files in a plain directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quotas_off_means_no_image_and_the_host_filesystem_size() {
    let mut h = Harness::start_with(|c| c.defaults.disk_mb = 0).await;
    let state = h.state();
    assert!(!state.join("disk.img").exists());
    let sandbox = h.client.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap();
    let info = h.client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    let stat = rustix::fs::statvfs(&state).unwrap();
    assert_eq!(info.body["diskSizeMB"], (stat.f_blocks * stat.f_frsize) >> 20);
    h.stop().await;
}

/// Quotas turned off over a state directory that has the image: the image is still
/// mounted (its sandboxes' files are in it), and new sandboxes get no limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turning_quotas_off_keeps_the_image_and_its_sandboxes() {
    let mut h = Harness::start_with(|c| {
        c.defaults.disk_mb = QUOTA_MB;
        c.disk_image_mb = Some(IMAGE_MB);
    })
    .await;
    let old = h.client.create(json!({"templateID": "base"})).await;
    h.client.write_file(&old, "/home/user/kept.txt", "kept").await;
    h.stop().await;

    let mut config = super::harness::config(&h.state());
    config.defaults.disk_mb = 0;
    let daemon = dsh_sandboxd::Daemon::start(config).await.unwrap();
    assert_eq!(daemon.disk_quota_mb(), Ok(IMAGE_MB));
    let client = super::harness::Client::new(&daemon.url(), daemon.api_key());
    let id = old["sandboxID"].as_str().unwrap();
    let resumed = client
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED, "{}", resumed.body);
    assert_eq!(
        client.read_file(&old, "/home/user/kept.txt").await,
        (StatusCode::OK, "kept".to_owned())
    );
    let new = client.create(json!({"templateID": "base"})).await;
    let (out, code) = client
        .run(&new, "head -c 100M /dev/zero > /home/user/big && stat -c %s /home/user/big")
        .await;
    assert_eq!((out.as_str(), code), ("104857600\n", 0));
    daemon.shutdown().await.unwrap();
}
