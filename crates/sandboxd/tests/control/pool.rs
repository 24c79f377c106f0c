//! The warm pool: sandboxes started ahead of demand, handed out once with their owner's
//! settings, refilled in the background, never listed, killed (not paused) at shutdown;
//! by default (auto) as large as recent demand, within the machine's cap.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::harness::{Client, KillOnDrop, config, wait_until};

/// Sandbox directories with a live init and no record: the pool.
pub(super) fn pooled(state: &Path) -> BTreeSet<String> {
    let sandboxes = state.join("sandboxes");
    let Ok(entries) = std::fs::read_dir(&sandboxes) else { return BTreeSet::new() };
    entries
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|id| !sandboxes.join(format!("{id}.json")).exists())
        .filter(|id| {
            let dir = dsh_sandboxd::state::StateDir::new(sandboxes.join(id));
            matches!(dir.live_init(), Ok(Some(_)))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pooled_sandbox_is_handed_out_once_with_its_owners_settings() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-pool-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let mut settings = config(&state);
    settings.pool = dsh_sandboxd::server::PoolSize::Fixed(2);
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());

    wait_until("the pool fills", Duration::from_secs(20), async || pooled(&state).len() == 2).await;
    let listed = c.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(listed.body, json!([]), "pooled sandboxes are not listed");
    let before = pooled(&state);

    let sandbox =
        c.create(json!({"templateID": "base", "envVars": {"FROM_CREATE": "owner-value"}})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    assert!(before.contains(&id), "{id} was not one of the pooled {before:?}");
    assert_eq!(sandbox["isolation"], "strict");
    let (out, code) = c.run(&sandbox, "echo $FROM_CREATE; id -un; hostname").await;
    assert_eq!((out.as_str(), code), (format!("owner-value\nuser\n{id}\n").as_str(), 0));

    // envd now wants the owner's token: none, or any other, is refused.
    for token in [None, Some("0".repeat(64))] {
        let mut request =
            c.http.get(format!("{}/envs", c.base)).header("E2b-Sandbox-Id", id.as_str());
        if let Some(token) = token {
            request = request.header("X-Access-Token", token);
        }
        assert_eq!(request.send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    }

    // The pool refills behind the hand-out; the handed-out sandbox is never pooled again.
    wait_until("the pool refills", Duration::from_secs(20), async || pooled(&state).len() == 2)
        .await;
    assert!(!pooled(&state).contains(&id));

    // An insecure create also takes a pooled sandbox, and its envd then needs no token.
    let open = c.create(json!({"templateID": "base", "secure": false})).await;
    assert!(open.get("envdAccessToken").is_none(), "{open}");
    let (out, code) = c.run(&open, "echo open").await;
    assert_eq!((out.as_str(), code), ("open\n", 0));

    // A create asking for other limits than the pool's starts a sandbox of its own.
    let sized = c.create(json!({"templateID": "base", "memoryMB": 512, "cpuCount": 1})).await;
    let sized_id = sized["sandboxID"].as_str().unwrap();
    let detail = c.call(Method::GET, &format!("/sandboxes/{sized_id}"), None).await;
    assert_eq!(
        (detail.body["memoryMB"].as_u64(), detail.body["cpuCount"].as_u64()),
        (Some(512), Some(1))
    );

    // Shutdown pauses the owned sandboxes and kills the pool: nothing of it is kept.
    daemon.shutdown().await.unwrap();
    let mut left: Vec<String> = super::harness::inspect_stopped(&state, |sandboxes| {
        std::fs::read_dir(sandboxes)
            .unwrap()
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .filter_map(|entry| entry.file_name().into_string().ok())
            .collect()
    });
    left.sort();
    let mut owned = vec![
        id,
        open["sandboxID"].as_str().unwrap().to_owned(),
        sized["sandboxID"].as_str().unwrap().to_owned(),
    ];
    owned.sort();
    assert_eq!(left, owned);
}

/// The default pool (auto): one sandbox of `base` ahead of demand from the start; creates
/// in quick succession grow it to as many as were asked for recently, within the
/// machine's cap; once they are older than the demand window it shrinks back to one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_pool_follows_demand_within_the_machines_cap() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-pool-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let mut settings = config(&state);
    settings.pool = dsh_sandboxd::server::PoolSize::Auto;
    settings.pool_window = Duration::from_secs(3);
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    wait_until("one pooled sandbox", Duration::from_secs(20), async || pooled(&state).len() == 1)
        .await;

    let mut made = Vec::new();
    for _ in 0..3 {
        made.push(c.create(json!({"templateID": "base"})).await);
    }
    let grown = 3.min(dsh_sandboxd::server::pool_cap());
    wait_until("the pool to grow", Duration::from_secs(30), async || pooled(&state).len() == grown)
        .await;
    for sandbox in &made {
        let id = sandbox["sandboxID"].as_str().unwrap();
        let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT);
    }
    wait_until("the pool to shrink back", Duration::from_secs(30), async || {
        pooled(&state).len() == 1
    })
    .await;
    daemon.shutdown().await.unwrap();
    assert_eq!(pooled(&state), BTreeSet::new());
}
