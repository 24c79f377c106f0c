//! Pause modes, as E2B has them: by default a pause keeps memory (the processes are
//! frozen in place and go on after resume, `/tmp` and all); `{"memory": false}` stops
//! them and keeps the files (resume is a reboot). A frozen sandbox can be killed, and a
//! daemon shutdown turns it into a files-only pause.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::Harness;

/// Starts a counter that writes to `/tmp/count` every 100 ms (in `/tmp`: memory, gone on
/// a reboot); returns its pid.
async fn start_counter(h: &Harness, sandbox: &Value) -> String {
    let (pid, code) = h
        .client
        .run(
            sandbox,
            "setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/count; sleep 0.1; done' \
             >/dev/null 2>&1 < /dev/null & echo $!",
        )
        .await;
    assert_eq!(code, 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    pid.trim().to_owned()
}

async fn count(h: &Harness, sandbox: &Value) -> u64 {
    let (out, code) = h.client.run(sandbox, "cat /tmp/count").await;
    assert_eq!(code, 0, "{out}");
    out.trim().parse().unwrap()
}

async fn pause(h: &Harness, id: &str, body: Value) {
    let reply = h.client.call(Method::POST, &format!("/sandboxes/{id}/pause"), Some(body)).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
}

async fn resume(h: &Harness, id: &str) {
    let path = format!("/sandboxes/{id}/connect");
    let reply = h.client.call(Method::POST, &path, Some(json!({"timeout": 60}))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_keeps_memory_and_processes_unless_asked_not_to() {
    let mut h = Harness::start().await;
    let sandbox = h.client.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let pid = start_counter(&h, &sandbox).await;
    let boot_id = h.client.run(&sandbox, "cat /proc/sys/kernel/random/boot_id").await.0;

    // Default pause: frozen. A second paused does not advance the counter.
    let before = count(&h, &sandbox).await;
    pause(&h, &id, json!({})).await;
    let detail = h.client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.body["state"], "paused");
    // It says truthfully that its memory lives only as long as this daemon.
    assert_eq!(
        (&detail.body["runtime"], &detail.body["pausedMemory"]),
        (&json!("native"), &json!("frozen"))
    );
    let proxied = h.client.envd(&sandbox, Method::GET, "/health").send().await.unwrap();
    assert_eq!(proxied.status(), StatusCode::BAD_GATEWAY);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    resume(&h, &id).await;
    let after = count(&h, &sandbox).await;
    assert!(after - before <= 3, "the counter ran while paused: {before} -> {after}");
    // The same process, the same memory, the same boot.
    let (out, code) = h.client.run(&sandbox, &format!("kill -0 {pid} && echo alive")).await;
    assert_eq!((out.as_str(), code), ("alive\n", 0));
    assert_eq!(h.client.run(&sandbox, "cat /proc/sys/kernel/random/boot_id").await.0, boot_id);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(count(&h, &sandbox).await > after, "the counter goes on after resume");

    // Files only: the processes and /tmp are gone, the boot is new.
    h.client.write_file(&sandbox, "/home/user/kept.txt", "kept").await;
    pause(&h, &id, json!({"memory": false})).await;
    let detail = h.client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.body["pausedMemory"], "none");
    resume(&h, &id).await;
    let (out, _) = h
        .client
        .run(
            &sandbox,
            &format!(
                "kill -0 {pid} 2>/dev/null || echo gone; cat /tmp/count 2>/dev/null || echo no-tmp"
            ),
        )
        .await;
    assert_eq!(out, "gone\nno-tmp\n");
    assert_eq!(
        h.client.read_file(&sandbox, "/home/user/kept.txt").await,
        (StatusCode::OK, "kept".to_owned())
    );
    assert_ne!(h.client.run(&sandbox, "cat /proc/sys/kernel/random/boot_id").await.0, boot_id);

    // Frozen at shutdown: the next daemon has it paused with its files.
    start_counter(&h, &sandbox).await;
    pause(&h, &id, json!({"memory": true})).await;
    h.restart().await;
    let listed = h.client.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(listed.body["state"], "paused");
    assert_eq!(
        listed.body["pausedMemory"], "none",
        "a native sandbox's memory died with its daemon"
    );
    resume(&h, &id).await;
    assert_eq!(h.client.read_file(&sandbox, "/home/user/kept.txt").await.1, "kept");

    // A frozen sandbox is killed at once, leaving nothing.
    start_counter(&h, &sandbox).await;
    pause(&h, &id, json!({})).await;
    let init = h.init_pid(&id);
    let started = std::time::Instant::now();
    let killed = h.client.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(killed.status, StatusCode::NO_CONTENT);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    h.assert_no_leftovers(&id, init);
}
