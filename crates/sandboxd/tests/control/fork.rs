//! Fork (`POST /sandboxes/{id}/fork`): forks start from the parent's files and settings,
//! with ids and tokens of their own; writes on either side never show on the other; the
//! parent runs on; bad requests get E2B's shapes; nothing is left once all are killed.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::Harness;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forks_get_the_parents_files_and_settings_and_then_go_their_own_way() {
    let h = Harness::start().await;
    let c = &h.client;
    let parent = c
        .create(json!({"templateID": "base", "envVars": {"X": "from the parent"}, "metadata": {"k": "v"}}))
        .await;
    let parent_id = parent["sandboxID"].as_str().unwrap().to_owned();
    c.write_file(&parent, "/home/user/state.txt", "state before fork").await;
    let (_, code) = c.run(&parent, "head -c 10M /dev/urandom > /home/user/ten-mb && sync").await;
    assert_eq!(code, 0);

    let reply = c
        .call(
            Method::POST,
            &format!("/sandboxes/{parent_id}/fork"),
            Some(json!({"count": 2, "timeout": 60})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let forks: Vec<Value> =
        reply.body.as_array().unwrap().iter().map(|entry| entry["sandbox"].clone()).collect();
    assert_eq!(forks.len(), 2, "{}", reply.body);
    let mut ids: Vec<&str> = forks.iter().map(|f| f["sandboxID"].as_str().unwrap()).collect();
    ids.push(&parent_id);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "every fork has an id of its own");
    for fork in &forks {
        assert_eq!(fork["templateID"], "base");
        assert_eq!(fork["envdAccessToken"].as_str().unwrap().len(), 64);
        assert_ne!(fork["envdAccessToken"], parent["envdAccessToken"]);
        let id = fork["sandboxID"].as_str().unwrap();
        let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(
            (detail.body["state"].as_str(), &detail.body["metadata"]),
            (Some("running"), &json!({"k": "v"}))
        );
        assert_eq!(
            c.read_file(fork, "/home/user/state.txt").await,
            (StatusCode::OK, "state before fork".to_owned())
        );
        let (out, code) = c
            .run(
                fork,
                "echo $X; cmp /home/user/ten-mb /home/user/ten-mb && stat -c %s /home/user/ten-mb",
            )
            .await;
        assert_eq!((out.as_str(), code), ("from the parent\n10485760\n", 0));
    }
    // Independent both ways.
    c.write_file(&forks[0], "/home/user/state.txt", "modified in fork 0").await;
    c.write_file(&parent, "/home/user/state.txt", "modified in the parent").await;
    for (sandbox, expected) in [
        (&parent, "modified in the parent"),
        (&forks[0], "modified in fork 0"),
        (&forks[1], "state before fork"),
    ] {
        assert_eq!(
            c.read_file(sandbox, "/home/user/state.txt").await,
            (StatusCode::OK, expected.to_owned())
        );
    }
    // The parent kept its id, token and processes' home; killing it leaves the forks.
    let parent_init = h.init_pid(&parent_id);
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{parent_id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    h.assert_no_leftovers(&parent_id, parent_init);
    for fork in &forks {
        let id = fork["sandboxID"].as_str().unwrap();
        assert_eq!(
            c.run(fork, "cat /home/user/state.txt >/dev/null && echo alive").await,
            ("alive\n".to_owned(), 0)
        );
        let init = h.init_pid(id);
        assert_eq!(
            c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
            StatusCode::NO_CONTENT
        );
        h.assert_no_leftovers(id, init);
    }
    let left: Vec<_> = std::fs::read_dir(h.state().join("sandboxes")).unwrap().flatten().collect();
    assert_eq!(left.len(), 0, "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forking_a_paused_unknown_or_killed_sandbox_or_zero_times_is_refused() {
    let h = Harness::start().await;
    let c = &h.client;
    let sandbox = c.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap();
    let fork = |id: &str, body: Value| {
        let path = format!("/sandboxes/{id}/fork");
        async move { c.call(Method::POST, &path, Some(body)).await }
    };
    let zero = fork(id, json!({"count": 0})).await;
    assert_eq!(
        (zero.status, zero.body),
        (StatusCode::BAD_REQUEST, json!({"code": 400, "message": "count must be 1 to 64, not 0"}))
    );
    let many = fork(id, json!({"count": 65})).await;
    assert_eq!(many.body, json!({"code": 400, "message": "count must be 1 to 64, not 65"}));

    assert_eq!(
        c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await.status,
        StatusCode::NO_CONTENT
    );
    let paused = fork(id, json!({})).await;
    assert_eq!(
        (paused.status, paused.body),
        (
            StatusCode::CONFLICT,
            json!({"code": 409, "message": format!("sandbox {id} is paused: resume it to fork it")})
        )
    );
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    let killed = fork(id, json!({})).await;
    assert_eq!(
        (killed.status, killed.body),
        (StatusCode::NOT_FOUND, json!({"code": 404, "message": format!("sandbox {id} not found")}))
    );
    let unknown = fork("nosuchsandbox0000000", json!({})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    super::harness::killed_sandboxes_removed(&h.state()).await;
    assert_eq!(std::fs::read_dir(h.state().join("sandboxes")).unwrap().count(), 0);
}
