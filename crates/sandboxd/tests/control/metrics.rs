//! `GET /sandboxes/{id}/metrics`: samples of a running sandbox's CPU, memory and disk,
//! picked by time range, in E2B's shape.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{Client, KillOnDrop, config, wait_until};

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_sandbox_is_sampled_and_samples_are_picked_by_time() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-metrics-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let mut settings = config(&state);
    settings.metrics_tick = Duration::from_millis(200);
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());

    let before = unix_now();
    let sandbox = c.create(json!({"templateID": "base", "cpuCount": 1, "memoryMB": 512})).await;
    let id = sandbox["sandboxID"].as_str().unwrap();
    let path = format!("/sandboxes/{id}/metrics");
    // Busy for a while on its one CPU, and 8 MiB in its writable layer.
    let (out, code) = c
        .run(
            &sandbox,
            "head -c 8M /dev/urandom > /home/user/blob && timeout 2 sh -c 'while :; do :; done'; echo $?",
        )
        .await;
    assert_eq!((out.as_str(), code), ("124\n", 0));
    let mut samples = Vec::new();
    wait_until(
        "a sample that saw the busy loop and the file",
        Duration::from_secs(15),
        async || {
            samples = c.call(Method::GET, &path, None).await.body.as_array().unwrap().clone();
            samples.iter().any(|s| {
                s["cpuUsedPct"].as_f64().unwrap() > 20.0
                    && s["diskUsed"].as_u64().unwrap() >= 8 << 20
            })
        },
    )
    .await;
    let after = unix_now();
    // The quota (10 GiB by default) or, smaller here, the test daemon's whole image.
    let disk_total = super::harness::DISK_IMAGE_MB << 20;
    for sample in &samples {
        let keys: Vec<&str> = sample.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "cpuCount",
                "cpuUsedPct",
                "diskTotal",
                "diskUsed",
                "memCache",
                "memTotal",
                "memUsed",
                "timestamp",
                "timestampUnix"
            ]
        );
        assert_eq!(sample["cpuCount"], 1);
        assert_eq!(sample["memTotal"], 512u64 << 20);
        assert_eq!(sample["diskTotal"], disk_total);
        let pct = sample["cpuUsedPct"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&pct), "{sample}");
        let used = sample["memUsed"].as_u64().unwrap();
        assert!(used > 0 && used <= 512 << 20, "{sample}");
        let at = sample["timestampUnix"].as_u64().unwrap();
        assert!((before..=after).contains(&at), "{sample}");
        assert!(sample["timestamp"].as_str().unwrap().ends_with('Z'), "{sample}");
    }

    // A range picks by timestampUnix, both ends included; before the sandbox: nothing.
    let first = samples[0]["timestampUnix"].as_u64().unwrap();
    let picked = c.call(Method::GET, &format!("{path}?start={first}&end={first}"), None).await;
    let picked = picked.body.as_array().unwrap().clone();
    assert!(!picked.is_empty());
    assert!(picked.iter().all(|s| s["timestampUnix"] == first), "{picked:?}");
    let earlier = format!("{path}?start={}&end={}", before - 3600, before - 1800);
    assert_eq!(c.call(Method::GET, &earlier, None).await.body, json!([]));
    // Bad input: a typed 400; an unknown sandbox: 404.
    let bad = c.call(Method::GET, &format!("{path}?start=yesterday"), None).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["message"], "start must be unix seconds, got \"yesterday\"");
    let unknown = c.call(Method::GET, "/sandboxes/nope/metrics", None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    // Paused: no new samples.
    assert_eq!(
        c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await.status,
        StatusCode::NO_CONTENT
    );
    let count = c.call(Method::GET, &path, None).await.body.as_array().unwrap().len();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let later: Value = c.call(Method::GET, &path, None).await.body;
    assert_eq!(later.as_array().unwrap().len(), count);
    daemon.shutdown().await.unwrap();
}
