//! State across daemon restarts: a clean shutdown pauses every sandbox, a crash leaves
//! them running and the next start kills and pauses them; half-made sandboxes go.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::harness::{Client, Harness, config, inspect_stopped, spawn_daemon, wait_until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_pauses_and_restart_brings_sandboxes_back_paused() {
    let mut h = Harness::start().await;
    let key = h.daemon().api_key().to_owned();
    let a = h.client.create(json!({"templateID": "base", "metadata": {"name": "a"}})).await;
    let b = h.client.create(json!({"templateID": "base", "envVars": {"B": "bee"}})).await;
    h.client.write_file(&a, "/home/user/a.txt", "file of a").await;
    h.client.write_file(&b, "/root/b.txt", "file of b").await;
    let (a_id, b_id) = (a["sandboxID"].as_str().unwrap(), b["sandboxID"].as_str().unwrap());
    let inits = [h.init_pid(a_id), h.init_pid(b_id)];

    h.stop().await;
    for init in inits {
        assert!(
            !std::path::Path::new(&format!("/proc/{init}")).exists(),
            "init {init} survived shutdown"
        );
    }
    let record: serde_json::Value = inspect_stopped(&h.state(), |sandboxes| {
        serde_json::from_slice(&std::fs::read(sandboxes.join(format!("{a_id}.json"))).unwrap())
            .unwrap()
    });
    assert_eq!(record["phase"], "paused");

    h.restart().await;
    assert_eq!(h.daemon().api_key(), key, "the API key is kept");
    let c = &h.client;
    let list = c.call(Method::GET, "/v2/sandboxes", None).await;
    let states = super::harness::states(&list.body);
    let mut expected =
        vec![(a_id.to_owned(), "paused".to_owned()), (b_id.to_owned(), "paused".to_owned())];
    expected.sort();
    assert_eq!(states, expected);
    assert_eq!(list.headers["x-total-running"], "0");
    let detail = c.call(Method::GET, &format!("/sandboxes/{a_id}"), None).await;
    assert_eq!(detail.body["metadata"], json!({"name": "a"}));

    for (sandbox, path, content) in
        [(&a, "/home/user/a.txt", "file of a"), (&b, "/root/b.txt", "file of b")]
    {
        let id = sandbox["sandboxID"].as_str().unwrap();
        let reply = c
            .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
            .await;
        assert_eq!(reply.status, StatusCode::CREATED);
        assert_eq!(reply.body["envdAccessToken"], sandbox["envdAccessToken"], "the token is kept");
        assert_eq!(c.read_file(sandbox, path).await, (StatusCode::OK, content.to_owned()));
    }
    let (out, code) = c.run(&b, "echo $B").await;
    assert_eq!((out.as_str(), code), ("bee\n", 0));
    for id in [a_id, b_id] {
        let init = h.init_pid(id);
        assert_eq!(
            c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
            StatusCode::NO_CONTENT
        );
        h.assert_no_leftovers(id, init);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_pauses_every_sandbox_and_exits() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-term-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _cleanup = super::harness::KillOnDrop(state.clone());
    let (mut child, client) = spawn_daemon(&state).await;
    let a = client.create(json!({"templateID": "base"})).await;
    let b = client.create(json!({"templateID": "base", "autoPause": true})).await;
    let state = std::fs::canonicalize(&state).unwrap();
    let ids = [a["sandboxID"].as_str().unwrap(), b["sandboxID"].as_str().unwrap()];
    let inits: Vec<u32> = ids.iter().map(|id| super::harness::init_pid(&state, id)).collect();

    // SAFETY: kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    // Nothing stays mounted (the disk image neither); the files are kept in the image.
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mountinfo.contains(state.to_str().unwrap()));
    for (id, init) in ids.iter().zip(inits) {
        assert!(!std::path::Path::new(&format!("/proc/{init}")).exists(), "init {init} survived");
        let (record, home) = inspect_stopped(&state, |sandboxes| {
            let record: serde_json::Value = serde_json::from_slice(
                &std::fs::read(sandboxes.join(format!("{id}.json"))).unwrap(),
            )
            .unwrap();
            (record, sandboxes.join(format!("{id}/home/user")).is_dir())
        });
        assert_eq!((record["phase"].as_str(), home), (Some("paused"), true));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashed_daemon_sandboxes_come_back_paused_and_half_created_ones_go() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-crash-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _cleanup = super::harness::KillOnDrop(state.clone());
    let (mut child, client) = spawn_daemon(&state).await;
    let sandbox = client.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    client.write_file(&sandbox, "/home/user/survivor.txt", "written before the crash").await;
    let state = std::fs::canonicalize(&state).unwrap();
    let old_init = super::harness::init_pid(&state, &id);

    // The daemon dies without pausing anything; its sandbox's init notices the lifeline
    // close and ends the sandbox (a restarted daemon would also end a stray init).
    child.kill().unwrap();
    child.wait().unwrap();
    wait_until("the init to follow its daemon", Duration::from_secs(5), async || {
        let stat = std::fs::read_to_string(format!("/proc/{old_init}/stat")).unwrap_or_default();
        stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z")
    })
    .await;

    // A create that never completed: a `creating` record and a directory.
    let half = "halfmadehalfmade0000";
    std::fs::create_dir_all(state.join(format!("sandboxes/{half}/home/user"))).unwrap();
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state.join(format!("sandboxes/{id}.json"))).unwrap())
            .unwrap();
    record["sandboxId"] = json!(half);
    record["phase"] = json!("creating");
    std::fs::write(state.join(format!("sandboxes/{half}.json")), record.to_string()).unwrap();
    // And a directory without any record.
    std::fs::create_dir_all(state.join("sandboxes/orphan0000000000000/var")).unwrap();

    let daemon = dsh_sandboxd::Daemon::start(config(&state)).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    assert!(!state.join(format!("sandboxes/{half}")).exists());
    assert!(!state.join(format!("sandboxes/{half}.json")).exists());
    assert!(!state.join("sandboxes/orphan0000000000000").exists());
    let list = c.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);
    assert_eq!(list.body[0]["sandboxID"], id.as_str());
    assert_eq!(list.body[0]["state"], "paused");

    let reply = c.call(Method::POST, &format!("/v2/sandboxes/{id}/connect"), Some(json!({}))).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    assert_eq!(
        c.read_file(&sandbox, "/home/user/survivor.txt").await,
        (StatusCode::OK, "written before the crash".to_owned())
    );
    let init = super::harness::init_pid(&state, &id);
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    super::harness::assert_no_leftovers(&state, &id, init);
    daemon.shutdown().await.unwrap();
}
