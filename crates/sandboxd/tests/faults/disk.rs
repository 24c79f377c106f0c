//! A full disk under the daemon's state directory: a 64 MiB ext4 filesystem the test
//! makes and loop-mounts. A sandbox fills it: its write gets ENOSPC, an upload a 507;
//! the daemon keeps serving. Then the host fills the root reserve too: a create fails
//! with a 500 naming the file it could not write, leaves nothing behind, and succeeds
//! again once there is room.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dsh_sandboxd::Daemon;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::common::{listed, within};
use crate::control::harness::{Client, config, kill_all_sandboxes};

/// A small ext4 filesystem in a file, loop-mounted for one test; on drop every sandbox
/// under it is killed and it is unmounted (the loop device goes with it).
struct LoopMount {
    _dir: tempfile::TempDir,
    mountpoint: PathBuf,
}

fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl LoopMount {
    fn new(size_mb: u64) -> LoopMount {
        let dir = tempfile::Builder::new().prefix("dsh-fault-disk-").tempdir().unwrap();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image).unwrap().set_len(size_mb << 20).unwrap();
        run("mkfs.ext4", &["-q", "-F", image.to_str().unwrap()]);
        let mountpoint = dir.path().join("mnt");
        std::fs::create_dir(&mountpoint).unwrap();
        run("mount", &["-o", "loop", image.to_str().unwrap(), mountpoint.to_str().unwrap()]);
        LoopMount { _dir: dir, mountpoint }
    }

    fn state(&self) -> PathBuf {
        self.mountpoint.join("state")
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        kill_all_sandboxes(&self.state());
        let unmounted = Command::new("umount")
            .arg(&self.mountpoint)
            .stderr(std::process::Stdio::null())
            .status();
        if !matches!(unmounted, Ok(status) if status.success()) {
            // Busy (a failed test left something open): detach it now, freed when idle.
            let _ = Command::new("umount").arg("-l").arg(&self.mountpoint).status();
        }
    }
}

/// Free bytes (root's reserve included) and free bytes for everyone else on the
/// filesystem holding `path`.
fn free_bytes(path: &Path) -> (u64, u64) {
    let stat = rustix::fs::statvfs(path).unwrap();
    (stat.f_bfree * stat.f_frsize, stat.f_bavail * stat.f_frsize)
}

/// Fills the filesystem holding `file` as host root (its reserve too): appends ever
/// smaller chunks (a write that does not fit whole fails whole) until nothing more goes
/// in right after a sync (which returns what delayed allocation had set aside and not
/// used). Bounded by the filesystem's size.
fn fill_as_root(file: &Path) {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;
    let mut filler = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
    loop {
        let mut wrote = 0;
        for size in [64 << 10, 4 << 10, 1 << 10, 1] {
            let chunk = vec![0u8; size];
            loop {
                match filler.write(&chunk) {
                    Ok(n) => wrote += n,
                    Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                    Err(e) => panic!("filling {}: {e}", file.display()),
                }
            }
        }
        filler.sync_all().unwrap();
        // SAFETY: syncfs(2) on a descriptor we hold.
        assert_eq!(unsafe { libc::syncfs(filler.as_raw_fd()) }, 0);
        if wrote == 0 {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_state_disk_is_enospc_inside_507_on_upload_and_a_clear_500_on_create() {
    let disk = LoopMount::new(64);
    // The host's own disk filling, with no quota in between (as on a host without
    // btrfs-progs): quotas are tested in tests/control/disk.rs.
    let mut config = config(&disk.state());
    config.defaults.disk_mb = 0;
    let daemon =
        within("the daemon's start", Duration::from_secs(30), Daemon::start(config)).await.unwrap();
    let state = std::fs::canonicalize(disk.state()).unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    let filler = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    let neighbour = within("a create", Duration::from_secs(30), c.create(json!({}))).await;

    // The sandbox fills the disk: ENOSPC inside.
    let (_, stderr, code) = within(
        "filling the disk",
        Duration::from_secs(30),
        c.run_output(&filler, "head -c 100M /dev/zero > /home/user/fill"),
    )
    .await;
    assert_eq!(
        (stderr.as_str(), code),
        ("head: error writing 'standard output': No space left on device\n", 1)
    );
    let (free, free_for_others) = free_bytes(&state);
    assert_eq!(free_for_others, 0);
    eprintln!("full for sandboxes: {free} bytes left for root (the reserve)");

    // An upload: 507 naming the file.
    let response = within(
        "an upload",
        Duration::from_secs(10),
        c.envd(&filler, Method::POST, "/files?path=/home/user/more.txt")
            .header("Content-Type", "application/octet-stream")
            .body(vec![b'x'; 1 << 20])
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    // The rest of the body was not read: the connection closes after the answer, and
    // says so (the client's next request goes on another one).
    assert_eq!(response.headers()["connection"], "close");
    let body = response.json::<Value>().await.unwrap();
    assert_eq!(
        body,
        json!({"code": 507, "message": "not enough disk space to write '/home/user/more.txt': No space left on device (os error 28)"})
    );

    // The daemon serves on: its API, both sandboxes' commands.
    assert_eq!(listed(&c).await.len(), 2);
    for sandbox in [&filler, &neighbour] {
        assert_eq!(
            within("a command", Duration::from_secs(10), c.run(sandbox, "echo served")).await,
            ("served\n".to_owned(), 0)
        );
    }

    // Host root fills the reserve too: a create has nowhere to write its record.
    fill_as_root(&state.join("host-fill"));
    let reply = within(
        "a create on a full disk",
        Duration::from_secs(30),
        c.call(Method::POST, "/v2/sandboxes", Some(json!({}))),
    )
    .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", reply.body);
    let message = reply.body["message"].as_str().unwrap();
    let records = state.join("sandboxes");
    let id = message
        .strip_prefix(&format!("writing the sandbox record {}/.", records.display()))
        .and_then(|rest| rest.get(..20))
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(
        reply.body,
        json!({"code": 500, "message": format!(
            "writing the sandbox record {}/.{id}.json.tmp: No space left on device (os error 28)",
            records.display()
        )})
    );
    // Nothing of it stays: no record (whole or half-written), no directory.
    let mut entries: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains(id))
        .collect();
    entries.sort();
    assert_eq!(entries, Vec::<String>::new());
    assert_eq!(listed(&c).await.len(), 2);
    let health = c.http.get(format!("{}/health", c.base)).send();
    let health = within("a health check", Duration::from_secs(10), health).await.unwrap();
    assert_eq!(health.status(), 200);

    // Room again: creates work.
    std::fs::remove_file(state.join("host-fill")).unwrap();
    let filler_id = filler["sandboxID"].as_str().unwrap();
    let reply = c.call(Method::DELETE, &format!("/sandboxes/{filler_id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    // Its files go right after the answer (`lifecycle::kill_then_tear_down`).
    crate::control::harness::killed_sandboxes_removed(&state).await;
    let again = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    assert_eq!(
        within("a command", Duration::from_secs(10), c.run(&again, "echo room")).await,
        ("room\n".to_owned(), 0)
    );
    // No connection holds the shutdown (its grace is 5 s), not even one the client's pool
    // opened ahead of need and never sent a byte on.
    let stopping = std::time::Instant::now();
    within("the shutdown", Duration::from_secs(30), daemon.shutdown()).await.unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(2), "shutdown took {:?}", stopping.elapsed());
}

/// A mount left under a sandbox's directory (what a leak would look like) stops a kill
/// before anything is removed: the kill answers a 500 naming the mount, the sandbox stays,
/// paused, with its files, and a kill once the mount is gone removes it all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_that_cannot_remove_the_directory_keeps_the_sandbox_paused_with_its_files() {
    let h = crate::control::harness::Harness::start().await;
    let c = &h.client;
    let sandbox = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    c.write_file(&sandbox, "/home/user/kept.txt", "kept").await;
    let dir = h.state().join(format!("sandboxes/{id}"));
    let leaked = dir.join("leaked");
    std::fs::create_dir(&leaked).unwrap();
    run("mount", &["-t", "tmpfs", "-o", "size=1m", "dsh-fault-leak", leaked.to_str().unwrap()]);
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let mounted = Unmount(leaked.clone());

    let reply = within(
        "a kill",
        Duration::from_secs(30),
        c.call(Method::DELETE, &format!("/sandboxes/{id}"), None),
    )
    .await;
    assert_eq!(
        reply.body,
        json!({"code": 500, "message": format!(
            "removing {}: sandbox mount {:?} is visible on the host; refusing to remove the state directory",
            dir.display(),
            leaked
        )})
    );
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(listed(c).await, [(id.clone(), "paused".to_owned())]);
    let record: Value = serde_json::from_slice(
        &std::fs::read(h.state().join(format!("sandboxes/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(record["phase"], "paused");

    drop(mounted);
    let reply = c.call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({}))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        c.read_file(&sandbox, "/home/user/kept.txt").await,
        (StatusCode::OK, "kept".to_owned())
    );
    let init = h.init_pid(&id);
    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    h.assert_no_leftovers(&id, init);
}
