//! A create whose sandbox cannot start (its init binary went away, as an upgrade may
//! do to an installed daemon): a 500 naming why, and nothing left of it, the private
//! network it was getting (its pasta, its pinned namespace) included.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::common::{cmdline, listed, within};
use crate::control::harness::{Harness, init_binary};

/// Processes whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<(u32, String)> {
    let entries = std::fs::read_dir("/proc").unwrap().flatten();
    entries
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .map(|pid| (pid, cmdline(pid).join(" ")))
        .filter(|(pid, line)| *pid != std::process::id() && line.contains(needle))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_whose_sandbox_cannot_start_answers_500_and_leaves_no_network_behind() {
    let bin = tempfile::Builder::new().prefix("dsh-fault-start-").tempdir().unwrap();
    let init = bin.path().join("dsh-sandbox-init");
    std::fs::copy(init_binary(), &init).unwrap();
    let h = Harness::start_with(|config| config.init_binary = Some(init.clone())).await;
    let c = &h.client;
    std::fs::remove_file(&init).unwrap();

    let reply = within(
        "a create",
        Duration::from_secs(30),
        c.call(Method::POST, "/v2/sandboxes", Some(json!({}))),
    )
    .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", reply.body);
    let message = reply.body["message"].as_str().unwrap();
    let id = message
        .strip_prefix("creating sandbox ")
        .and_then(|rest| rest.get(..20))
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(
        reply.body,
        json!({"code": 500, "message": format!(
            "creating sandbox {id}: sandbox init binary not found (looked at {})",
            init.display()
        )})
    );
    // Its network was being set up when the launch failed: pasta (started a moment
    // later) must not outlive it, and is gone by the time the 500 is answered (a
    // daemon embedded in a command that exits right after, as `dsh exec`'s, would
    // otherwise leave it running).
    let netns = h.state().join("netns");
    let pin = netns.join(id);
    let pid_file = netns.join(format!("{id}.pasta.pid"));
    assert!(!pin.exists(), "the failed sandbox's network is still pinned");
    assert!(!pid_file.exists(), "the failed sandbox's pasta pid file is still there");
    assert_eq!(processes_naming(pin.to_str().unwrap()), []);
    // And it stays gone (a pasta that started late would show now).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(processes_naming(pin.to_str().unwrap()), []);
    assert!(!h.state().join(format!("sandboxes/{id}")).exists());
    assert!(!h.state().join(format!("sandboxes/{id}.json")).exists());
    let cgroups =
        dsh_sandboxd::cgroup::Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).unwrap();
    for dir in cgroups.open(id).paths() {
        assert!(!dir.exists(), "cgroup {} is left", dir.display());
    }
    assert_eq!(listed(c).await, []);

    // The binary back: creates work again.
    std::fs::copy(init_binary(), &init).unwrap();
    let sandbox = within("a create", Duration::from_secs(30), c.create(json!({}))).await;
    assert_eq!(
        within("a command", Duration::from_secs(10), c.run(&sandbox, "echo started")).await,
        ("started\n".to_owned(), 0)
    );
}
