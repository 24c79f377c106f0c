//! Read-only layers: a language server installed once per machine (`POST /layers`) is
//! seen by a sandbox that was already running, by every later one, and after a restart;
//! nothing inside can write to it, and mountinfo inside shows no host path.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::harness::Harness;

/// The version `scripts/install-language-servers` pins (npm's cache usually has it).
const PYRIGHT: &str = "pyright@1.1.414";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layer_is_built_once_and_seen_by_running_later_and_restarted_sandboxes() {
    let mut h = Harness::start().await;
    let state = h.state();
    let before = h.client.create(json!({"templateID": "base"})).await;
    let (listing, code) = h.client.run(&before, "ls -A /.dsh/layers | wc -l").await;
    assert_eq!((listing.as_str(), code), ("0\n", 0), "a fresh machine has no layers");

    let built = h.client.call(Method::POST, "/layers", Some(json!({"npm": [PYRIGHT]}))).await;
    assert_eq!(built.status, StatusCode::OK, "{}", built.body);
    let id = built.body["layerID"].as_str().unwrap().to_owned();
    assert!(id.starts_with("sha256-") && id.len() == 71, "{id}");
    assert_eq!(built.body["cached"], false);
    assert_eq!(built.body["path"], format!("/.dsh/layers/{id}"));
    assert_eq!(built.body["bin"], format!("/.dsh/layers/{id}/node_modules/.bin"));
    assert!(built.body["files"].as_u64().unwrap() > 100, "{}", built.body);
    assert!(built.body["bytes"].as_u64().unwrap() > 1_000_000, "{}", built.body);

    // The sandbox that was running before the layer existed sees it now.
    let bin = format!("/.dsh/layers/{id}/node_modules/.bin");
    let (version, stderr, code) =
        h.client.run_output(&before, &format!("{bin}/pyright --version")).await;
    assert_eq!((version.as_str(), code), ("pyright 1.1.414\n", 0), "{stderr}");
    // Read-only for everyone inside, root included.
    let (_, stderr, code) =
        h.client.run_output(&before, &format!("touch /.dsh/layers/{id}/x")).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    let (_, stderr, code) = h.client.run_output(&before, "mkdir /.dsh/layers/new").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    // Root inside can neither remount it writable, unmount it to look beneath, nor make
    // it shared to send mounts back.
    for attack in [
        format!("sudo touch /.dsh/layers/{id}/x"),
        "sudo mount -o remount,rw /.dsh/layers".to_owned(),
        format!("sudo mount -o remount,rw /.dsh/layers/{id}"),
        format!("sudo umount -l /.dsh/layers/{id}"),
        "sudo umount -l /.dsh/layers".to_owned(),
        "sudo mount --make-shared /.dsh/layers".to_owned(),
        "sudo mount -t tmpfs tmpfs /.dsh/layers".to_owned(),
    ] {
        let (_, stderr, code) = h.client.run_output(&before, &attack).await;
        assert_ne!(code, 0, "{attack} succeeded");
        assert!(
            [
                "Read-only file system",
                "Operation not permitted",
                "must be superuser",
                "permission denied"
            ]
            .iter()
            .any(|m| stderr.contains(m)),
            "{attack}: {stderr}"
        );
    }
    let (version, _, code) =
        h.client.run_output(&before, &format!("{bin}/pyright --version")).await;
    assert_eq!((version.as_str(), code), ("pyright 1.1.414\n", 0), "still there after the attacks");
    let (mountinfo, _) = h.client.run(&before, "cat /proc/self/mountinfo").await;
    assert!(mountinfo.contains(&format!(" /.dsh/layers/{id} ro,")), "{mountinfo}");
    assert!(!mountinfo.contains(state.to_str().unwrap()), "a host path shows: {mountinfo}");

    // Asked again: the same layer, not built again.
    let again = h.client.call(Method::POST, "/layers", Some(json!({"npm": [PYRIGHT]}))).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.body["layerID"], id.as_str());
    assert_eq!(again.body["cached"], true);
    assert_eq!(again.body["buildMs"], built.body["buildMs"]);

    let after = h.client.create(json!({"templateID": "base"})).await;
    let (version, _, code) = h.client.run_output(&after, &format!("{bin}/pyright --version")).await;
    assert_eq!((version.as_str(), code), ("pyright 1.1.414\n", 0));

    let listed = h.client.call(Method::GET, "/layers", None).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.body.as_array().unwrap().len(), 1, "{}", listed.body);
    assert_eq!(listed.body[0]["layerID"], id.as_str());
    assert_eq!(listed.body[0]["recipe"], json!({"npm": [PYRIGHT]}));

    // Shutdown unmounts the view; the next start mounts the stored layer again.
    h.stop().await;
    let host_mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!host_mounts.contains(state.join("layers").to_str().unwrap()), "{host_mounts}");
    h.restart().await;
    let later = h.client.create(json!({"templateID": "base"})).await;
    let (version, _, code) = h.client.run_output(&later, &format!("{bin}/pyright --version")).await;
    assert_eq!((version.as_str(), code), ("pyright 1.1.414\n", 0));
    let cached = h.client.call(Method::POST, "/layers", Some(json!({"npm": [PYRIGHT]}))).await;
    assert_eq!(
        (cached.body["layerID"].as_str(), cached.body["cached"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    h.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_recipes_are_refused_with_the_reason_before_npm_runs() {
    let h = Harness::start().await;
    for (body, message) in [
        (json!({"npm": []}), "the recipe names no npm package"),
        (
            json!({"npm": ["pyright"]}),
            "\"pyright\" is not name@version (an exact version, like pyright@1.1.414)",
        ),
        (
            json!({"npm": ["pyright@>=1"]}),
            "\"pyright@>=1\": the version must be exact (digits, letters, '.', '-', '+'), not a range or tag",
        ),
        (
            json!({"npm": ["git+ssh://host/x.git@1.0.0"]}),
            "\"git+ssh://host/x.git\" is not an npm package name",
        ),
    ] {
        let reply = h.client.call(Method::POST, "/layers", Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.body, json!({"code": 400, "message": message}), "{body}");
    }
    let reply = h.client.call(Method::POST, "/layers", Some(json!({"pip": ["x==1"]}))).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.body["message"],
        "invalid request body: pip: unknown field `pip`, expected `npm` at line 1 column 6"
    );
    let unauthenticated = h
        .client
        .call_with_key(Method::POST, "/layers", Some(json!({"npm": [PYRIGHT]})), None)
        .await;
    assert_eq!(unauthenticated.status, StatusCode::UNAUTHORIZED);
    assert_eq!(h.client.call(Method::GET, "/layers", None).await.body, json!([]));
}

/// Two daemons sharing one store (as every dsh process's embedded daemon does): asked at
/// once, the recipe is built once, and each daemon's sandboxes see the layer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemons_sharing_a_store_build_a_recipe_once() {
    let store = tempfile::Builder::new().prefix("dsh-layer-store-").tempdir().unwrap();
    let shared = store.path().to_owned();
    let mut a = Harness::start_with(|c| c.layer_store = Some(shared.clone())).await;
    let mut b = Harness::start_with(|c| c.layer_store = Some(shared.clone())).await;
    let body = json!({"npm": [PYRIGHT]});
    let (from_a, from_b) = tokio::join!(
        a.client.call(Method::POST, "/layers", Some(body.clone())),
        b.client.call(Method::POST, "/layers", Some(body.clone())),
    );
    assert_eq!((from_a.status, from_b.status), (StatusCode::OK, StatusCode::OK));
    assert_eq!(from_a.body["layerID"], from_b.body["layerID"]);
    let mut cached = [from_a.body["cached"].as_bool(), from_b.body["cached"].as_bool()];
    cached.sort();
    assert_eq!(cached, [Some(false), Some(true)], "built once: {} / {}", from_a.body, from_b.body);
    let stored: Vec<_> = std::fs::read_dir(shared.join("store"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .collect();
    assert_eq!(stored.len(), 1);
    let bin = from_a.body["bin"].as_str().unwrap().to_owned();
    for h in [&a, &b] {
        let sandbox = h.client.create(json!({"templateID": "base"})).await;
        let (version, _, code) =
            h.client.run_output(&sandbox, &format!("{bin}/pyright --version")).await;
        assert_eq!((version.as_str(), code), ("pyright 1.1.414\n", 0));
    }
    a.stop().await;
    b.stop().await;
}

/// A daemon that cannot start (its port is taken) says why and leaves nothing mounted in
/// its state directory, so that the directory can be removed; and one dropped without
/// shutting down detaches its view too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_that_fails_to_start_or_is_dropped_leaves_no_layer_view_mounted() {
    let dir = tempfile::Builder::new().prefix("dsh-layer-view-").tempdir().unwrap();
    let state = dir.path().join("state");
    let view = state.join("layers/view");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut config = super::harness::config(&state);
    config.listen = taken.local_addr().unwrap();
    let err = dsh_sandboxd::Daemon::start(config).await.err().expect("the port is taken");
    let message = format!("{err:#}");
    assert!(
        message.starts_with(&format!("cannot listen on {}: ", taken.local_addr().unwrap())),
        "{message}"
    );
    assert_eq!(mounts_at(&view), 0, "a failed start left the view mounted");

    let daemon = dsh_sandboxd::Daemon::start(super::harness::config(&state)).await.unwrap();
    assert_eq!(mounts_at(&view), 1);
    drop(daemon);
    super::harness::wait_until(
        "the dropped daemon's view detached",
        Duration::from_secs(10),
        async || mounts_at(&view) == 0,
    )
    .await;
    // Its (here sandbox-less) disk image stays mounted, as after a crash.
    super::harness::kill_all_sandboxes(&state);
    std::fs::remove_dir_all(&state).unwrap();
}

/// How many mounts sit exactly at `path`, by this process's mountinfo.
fn mounts_at(path: &std::path::Path) -> usize {
    let path = path.to_str().unwrap();
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap()
        .lines()
        .filter(|line| line.split(' ').nth(4) == Some(path))
        .count()
}
