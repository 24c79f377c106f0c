//! The REST API on one daemon: create, get, list, pause, connect, resume, timeouts,
//! kill, errors and routing.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{Harness, wait_until};

fn is_id(id: &str) -> bool {
    id.len() == 20 && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_get_list_pause_connect_kill() {
    let h = Harness::start().await;
    let c = &h.client;
    let sandbox = c
        .create(json!({
            "templateID": "base",
            "timeout": 120,
            "metadata": {"owner": "test", "purpose": "lifecycle"},
            "envVars": {"FROM_CREATE": "create-value"},
        }))
        .await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    assert!(is_id(&id), "{id}");
    let token = sandbox["envdAccessToken"].as_str().unwrap();
    assert_eq!(token.len(), 64);
    assert_eq!(
        sandbox,
        json!({
            "templateID": "base",
            "sandboxID": id,
            "clientID": "dsh-sandboxd",
            "envdVersion": "0.6.13",
            "envdAccessToken": token,
            "trafficAccessToken": null,
            "domain": "localhost",
            "isolation": "strict",
        })
    );

    // Detail.
    let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.status, StatusCode::OK);
    let d = &detail.body;
    assert_eq!(d["state"], "running");
    assert_eq!(d["sandboxID"], id.as_str());
    assert_eq!(d["templateID"], "base");
    assert_eq!(d["envdVersion"], "0.6.13");
    assert_eq!(d["envdAccessToken"], token);
    assert_eq!(d["metadata"], json!({"owner": "test", "purpose": "lifecycle"}));
    // The daemon's default limits (each sandbox is in its own cgroup).
    assert_eq!(d["cpuCount"], 2);
    assert_eq!(d["memoryMB"], 4096);
    assert_eq!(d["isolation"], "strict");
    assert!(d["diskSizeMB"].as_u64().unwrap() > 0);
    assert!(d["startedAt"].as_str().unwrap().ends_with('Z'));
    assert!(d["endAt"].as_str().unwrap() > d["startedAt"].as_str().unwrap());

    // envd through the proxy: the /init env vars, the default user and workdir.
    let (out, code) = c.run(&sandbox, "echo $FROM_CREATE; id -un; pwd").await;
    assert_eq!((out.as_str(), code), ("create-value\nuser\n/home/user\n", 0));
    c.write_file(&sandbox, "/home/user/kept.txt", "kept across pause").await;

    // Without the access token envd refuses.
    let unauth =
        c.http.get(format!("{}/envs", c.base)).header("E2b-Sandbox-Id", &id).send().await.unwrap();
    assert_eq!(unauth.status(), StatusCode::UNAUTHORIZED);

    // The Host form routes too.
    let by_host = c
        .http
        .get(format!("{}/health", c.base))
        .header("Host", format!("49983-{id}.localhost"))
        .send()
        .await
        .unwrap();
    assert_eq!(by_host.status(), StatusCode::NO_CONTENT);

    // envd runs with no signal blocked (SIGTERM reaches it on pause).
    let init = h.init_pid(&id);
    let children = std::fs::read_to_string(format!("/proc/{init}/task/{init}/children")).unwrap();
    let envd_pid = children.split_whitespace().next().unwrap();
    let status = std::fs::read_to_string(format!("/proc/{envd_pid}/status")).unwrap();
    assert!(status.lines().any(|l| l == "SigBlk:\t0000000000000000"), "{status}");

    // Lists.
    let list = c.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.headers["x-total-running"], "1");
    assert!(list.headers.get("x-next-token").is_none());
    assert_eq!(list.body.as_array().unwrap().len(), 1);
    assert_eq!(list.body[0]["sandboxID"], id.as_str());
    assert_eq!(list.body[0]["state"], "running");
    assert!(list.body[0].get("envdAccessToken").is_none());
    let filtered = c
        .call(Method::GET, "/v2/sandboxes?metadata=owner%3Dtest%26purpose%3Dlifecycle", None)
        .await;
    assert_eq!(filtered.body.as_array().unwrap().len(), 1);
    let other = c.call(Method::GET, "/v2/sandboxes?metadata=owner%3Dsomeone", None).await;
    assert_eq!(other.body, json!([]));
    let v1 = c.call(Method::GET, "/sandboxes", None).await;
    assert_eq!(v1.body.as_array().unwrap().len(), 1);

    // Pause, twice.
    let paused = c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await;
    assert_eq!(paused.status, StatusCode::NO_CONTENT);
    // E2B's default pause keeps memory: the processes stay, frozen (tests/control/pause.rs).
    assert!(std::path::Path::new(&format!("/proc/{init}")).exists());
    let again = c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(
        again.body,
        json!({"code": 409, "message": format!("sandbox {id} is already paused")})
    );
    let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(detail.body["state"], "paused");
    let running = c.call(Method::GET, "/v2/sandboxes?state=running", None).await;
    assert_eq!(
        (running.body.clone(), &running.headers["x-total-running"]),
        (json!([]), &"0".parse().unwrap())
    );
    let paused_list = c.call(Method::GET, "/v2/sandboxes?state=paused", None).await;
    assert_eq!(paused_list.body[0]["state"], "paused");
    assert_eq!(c.call(Method::GET, "/sandboxes", None).await.body, json!([]));
    // envd traffic for a paused sandbox: 502 (what the SDK's is_running() reads as "not running").
    let (status, body) = c.read_file(&sandbox, "/home/user/kept.txt").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(body.contains("is paused"), "{body}");

    // Connect resumes (201), then only extends (200).
    let resumed = c
        .call(Method::POST, &format!("/v2/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED, "{}", resumed.body);
    assert_eq!(resumed.body, sandbox);
    assert_eq!(
        c.read_file(&sandbox, "/home/user/kept.txt").await,
        (StatusCode::OK, "kept across pause".into())
    );
    let (out, _) = c.run(&sandbox, "echo $FROM_CREATE").await;
    assert_eq!(out, "create-value\n");
    let connected = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 30})))
        .await;
    assert_eq!(connected.status, StatusCode::OK);
    let resume_running = c.call(Method::POST, &format!("/sandboxes/{id}/resume"), None).await;
    assert_eq!(resume_running.status, StatusCode::CONFLICT);
    // Resume (deprecated) after another pause.
    assert_eq!(
        c.call(Method::POST, &format!("/sandboxes/{id}/pause"), None).await.status,
        StatusCode::NO_CONTENT
    );
    let resumed = c
        .call(Method::POST, &format!("/sandboxes/{id}/resume"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED);
    assert_eq!(resumed.body["sandboxID"], id.as_str());

    // Timeout.
    let set = c
        .call(Method::POST, &format!("/sandboxes/{id}/timeout"), Some(json!({"timeout": 600})))
        .await;
    assert_eq!(set.status, StatusCode::NO_CONTENT);

    // Kill: 204, then everything is gone.
    let init = h.init_pid(&id);
    let killed = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(killed.status, StatusCode::NO_CONTENT);
    h.assert_no_leftovers(&id, init);
    let gone = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.body, json!({"code": 404, "message": format!("sandbox {id} not found")}));
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
        StatusCode::NOT_FOUND
    );
    let (status, body) = c.read_file(&sandbox, "/home/user/kept.txt").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_eq!(body, format!(r#"{{"code":502,"message":"sandbox {id} not found"}}"#));
    assert_eq!(c.call(Method::GET, "/v2/sandboxes", None).await.body, json!([]));
}

/// The names agents expect are there even when the host has only `python3`/`pip3`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_pip_are_there_by_those_names() {
    let h = Harness::start().await;
    let sandbox = h.client.create(json!({"templateID": "base"})).await;
    let (out, code) = h
        .client
        .run(&sandbox, "python -c 'import sys; print(sys.version_info[0])' && pip --version >/dev/null && echo pip")
        .await;
    assert_eq!((out.as_str(), code), ("3\npip\n", 0));
}

/// E2B's list: newest first by default, pages of `limit` chained by `x-next-token`,
/// `order=asc`, and `startedAfter` (inclusive).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_are_newest_first_paged_and_filtered_by_start_time() {
    let h = Harness::start().await;
    let c = &h.client;
    let mut ids = Vec::new();
    let mut started = Vec::new();
    for n in 0..3 {
        let created = c.create(json!({"templateID": "base", "metadata": {"list": "paged"}})).await;
        let id = created["sandboxID"].as_str().unwrap().to_owned();
        let detail = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
        started.push(detail.body["startedAt"].as_str().unwrap().to_owned());
        ids.push(id);
        if n < 2 {
            // Distinct start times (they have millisecond resolution).
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let page = |query: String| async move {
        let reply =
            c.call(Method::GET, &format!("/v2/sandboxes?metadata=list%3Dpaged{query}"), None).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        let listed: Vec<String> = reply
            .body
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sandboxID"].as_str().unwrap().to_owned())
            .collect();
        (listed, reply.headers.get("x-next-token").map(|t| t.to_str().unwrap().to_owned()))
    };
    let (first, next) = page("&limit=2".into()).await;
    assert_eq!(first, [ids[2].clone(), ids[1].clone()]);
    let next = next.expect("a next token");
    let (second, last) = page(format!("&limit=2&nextToken={next}")).await;
    assert_eq!((second, last), (vec![ids[0].clone()], None));
    let (ascending, _) = page("&order=asc".into()).await;
    assert_eq!(ascending, ids);
    let after = started[1].replace(':', "%3A").replace('+', "%2B");
    let (later, _) = page(format!("&startedAfter={after}")).await;
    assert_eq!(later, [ids[2].clone(), ids[1].clone()]);
    let bad = c.call(Method::GET, "/v2/sandboxes?startedAfter=yesterday", None).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.body["message"], "startedAfter must be an RFC 3339 time, got 'yesterday'");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_key_is_required() {
    let h = Harness::start().await;
    let c = &h.client;
    let key_file = h.state().join("api-key");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&key_file).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&key_file).unwrap().trim(), h.daemon().api_key());
    assert!(h.daemon().api_key().starts_with("e2b_"));

    for (key, message) in [
        (None, "missing API key: send it in the X-API-Key header"),
        (Some("e2b_wrong"), "invalid API key"),
    ] {
        for (method, path) in [
            (Method::GET, "/v2/sandboxes"),
            (Method::POST, "/v2/sandboxes"),
            (Method::POST, "/sandboxes"),
            (Method::GET, "/sandboxes/abc"),
            (Method::DELETE, "/sandboxes/abc"),
        ] {
            let reply = c.call_with_key(method.clone(), path, None, key).await;
            assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{method} {path}");
            assert_eq!(reply.body, json!({"code": 401, "message": message}));
        }
    }
    assert_eq!(c.call(Method::GET, "/v2/sandboxes", None).await.body, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_and_unknown_ids() {
    let h = Harness::start().await;
    let c = &h.client;
    let reply = c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": "nope"}))).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(
        reply.body,
        json!({"code": 404, "message": "template 'nope' not found (available: base)"})
    );
    // What would break the sandbox (a NUL in its environment) or bloat the record.
    for (body, message) in [
        (json!({"envVars": {"A": "x\u{0}y"}}), "envVars: the value of A contains a NUL byte"),
        (
            json!({"envVars": {"A=B": "x"}}),
            "envVars: \"A=B\" is not a variable name (it must be non-empty, without '=' or NUL)",
        ),
        (
            json!({"envVars": {"": "x"}}),
            "envVars: \"\" is not a variable name (it must be non-empty, without '=' or NUL)",
        ),
        (
            json!({"metadata": {"k": "v".repeat(20_000)}}),
            "metadata: 1 entries, 20001 bytes; at most 64 entries and 16384 bytes",
        ),
    ] {
        let reply = c.call(Method::POST, "/v2/sandboxes", Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.body["message"], message, "{body}");
    }
    assert_eq!(c.call(Method::GET, "/v2/sandboxes", None).await.body, json!([]));
    // Template names (what the SDK's `Template.exists` asks).
    let base = c.call(Method::GET, "/templates/aliases/base", None).await;
    assert_eq!(
        (base.status, base.body),
        (StatusCode::OK, json!({"templateID": "base", "public": true}))
    );
    let nope = c.call(Method::GET, "/templates/aliases/nope", None).await;
    assert_eq!(
        (nope.status, nope.body),
        (StatusCode::NOT_FOUND, json!({"code": 404, "message": "template 'nope' not found"}))
    );
    for timeout in [-1, 86_401] {
        let reply = c
            .call(
                Method::POST,
                "/sandboxes",
                Some(json!({"templateID": "base", "timeout": timeout})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            reply.body,
            json!({"code": 400, "message": format!("timeout must be between 0 and 86400 seconds, got {timeout}")})
        );
    }
    let reply = c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": 5}))).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["code"], 400);
    let reply = c.call(Method::GET, "/v2/sandboxes?limit=0", None).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let reply = c.call(Method::GET, "/v2/sandboxes?state=sleeping", None).await;
    assert_eq!(
        reply.body,
        json!({"code": 400, "message": "invalid state 'sleeping': expected running or paused"})
    );

    let id = "aaaaaaaaaaaaaaaaaaaa";
    let not_found = json!({"code": 404, "message": format!("sandbox {id} not found")});
    for (method, path, body) in [
        (Method::GET, format!("/sandboxes/{id}"), None),
        (Method::DELETE, format!("/sandboxes/{id}"), None),
        (Method::POST, format!("/sandboxes/{id}/pause"), None),
        (Method::POST, format!("/sandboxes/{id}/resume"), None),
        (Method::POST, format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 10}))),
        (Method::POST, format!("/v2/sandboxes/{id}/connect"), Some(json!({}))),
        (Method::POST, format!("/sandboxes/{id}/timeout"), Some(json!({"timeout": 10}))),
    ] {
        let reply = c.call(method.clone(), &path, body).await;
        assert_eq!(
            (reply.status, &reply.body),
            (StatusCode::NOT_FOUND, &not_found),
            "{method} {path}"
        );
    }
    let reply = c.call(Method::POST, &format!("/sandboxes/{id}/timeout"), Some(json!({}))).await;
    assert_eq!(reply.body, json!({"code": 400, "message": "timeout is required"}));
    // envd traffic for an unknown sandbox: 502, as E2B's proxy answers (the SDK's
    // is_running() returns False on 502 and raises on 404).
    let response =
        c.http.get(format!("{}/health", c.base)).header("E2b-Sandbox-Id", id).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"code": 502, "message": format!("sandbox {id} not found")})
    );
    // The daemon's own health check needs no key.
    let response = c.http.get(format!("{}/health", c.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // Nothing was left behind by the failed creates.
    assert_eq!(std::fs::read_dir(h.state().join("sandboxes")).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_kills_or_pauses() {
    let h = Harness::start().await;
    let c = &h.client;
    // Created with room to set them up; the 1 s timeouts are set once that is done, so a
    // slow create cannot make one expire early.
    let doomed = c.create(json!({"templateID": "base", "timeout": 60})).await;
    let paused = c.create(json!({"templateID": "base", "timeout": 60, "autoPause": true})).await;
    let extended = c.create(json!({"templateID": "base", "timeout": 1})).await;
    let (doomed_id, paused_id, extended_id) = (
        doomed["sandboxID"].as_str().unwrap(),
        paused["sandboxID"].as_str().unwrap(),
        extended["sandboxID"].as_str().unwrap(),
    );
    let set_timeout = async |id: &str, seconds: u64| {
        let path = format!("/sandboxes/{id}/timeout");
        c.call(Method::POST, &path, Some(json!({"timeout": seconds}))).await.status
    };
    assert_eq!(set_timeout(extended_id, 60).await, StatusCode::NO_CONTENT);
    c.write_file(&paused, "/home/user/f", "still here").await;
    let doomed_init = h.init_pid(doomed_id);
    let paused_init = h.init_pid(paused_id);
    assert_eq!(set_timeout(doomed_id, 1).await, StatusCode::NO_CONTENT);
    assert_eq!(set_timeout(paused_id, 1).await, StatusCode::NO_CONTENT);

    wait_until("the 1 s sandboxes to time out", Duration::from_secs(10), async || {
        c.call(Method::GET, &format!("/sandboxes/{doomed_id}"), None).await.status
            == StatusCode::NOT_FOUND
            && c.call(Method::GET, &format!("/sandboxes/{paused_id}"), None).await.body["state"]
                == "paused"
    })
    .await;
    h.assert_no_leftovers(doomed_id, doomed_init);
    // autoPause keeps memory unless autoPauseMemory is false: the processes stay, frozen.
    assert!(std::path::Path::new(&format!("/proc/{paused_init}")).exists());
    let state = c.call(Method::GET, &format!("/sandboxes/{extended_id}"), None).await;
    assert_eq!(state.body["state"], "running");
    let connected = c
        .call(
            Method::POST,
            &format!("/sandboxes/{paused_id}/connect"),
            Some(json!({"timeout": 60})),
        )
        .await;
    assert_eq!(connected.status, StatusCode::CREATED);
    assert_eq!(c.read_file(&paused, "/home/user/f").await, (StatusCode::OK, "still here".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_creates_get_distinct_sandboxes() {
    // The issue asks for 100 at once.
    const N: usize = 100;
    let h = Harness::start().await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..N {
        let c = h.client.clone();
        tasks.spawn(async move {
            let sandbox =
                c.create(json!({"templateID": "base", "metadata": {"i": i.to_string()}})).await;
            c.write_file(&sandbox, "/home/user/whoami", &format!("sandbox {i}")).await;
            (i, sandbox)
        });
    }
    let mut sandboxes = Vec::new();
    while let Some(result) = tasks.join_next().await {
        sandboxes.push(result.unwrap());
    }
    let c = &h.client;
    let list = c.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(list.headers["x-total-running"], N.to_string().as_str());
    assert_eq!(list.body.as_array().unwrap().len(), N);
    let paged = c.call(Method::GET, "/v2/sandboxes?limit=15", None).await;
    assert_eq!(paged.body.as_array().unwrap().len(), 15);
    assert_eq!(paged.headers["x-next-token"], "15");
    let rest = c.call(Method::GET, "/v2/sandboxes?limit=100&nextToken=15", None).await;
    assert_eq!(rest.body.as_array().unwrap().len(), N - 15);
    assert!(rest.headers.get("x-next-token").is_none());
    let mut ids: Vec<&str> =
        sandboxes.iter().map(|(_, s)| s["sandboxID"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), N);
    // Each has its own uid block: the lowest free ones, from 2^30 up, one per sandbox.
    let mut blocks: Vec<u64> = ids
        .iter()
        .map(|id| {
            let path = h.state().join("sandboxes").join(format!("{id}.json"));
            let record: serde_json::Value =
                serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            record["isolation"]["ids"]["hostBase"].as_u64().unwrap()
        })
        .collect();
    blocks.sort_unstable();
    let expected: Vec<u64> = (0..N as u64).map(|n| (1 << 30) + n * 65_536).collect();
    assert_eq!(blocks, expected);
    // Each sandbox sees only its own file (isolation and routing).
    for (i, sandbox) in &sandboxes {
        assert_eq!(
            c.read_file(sandbox, "/home/user/whoami").await,
            (StatusCode::OK, format!("sandbox {i}"))
        );
    }
    let inits: Vec<(String, u32)> =
        ids.iter().map(|id| ((*id).to_owned(), h.init_pid(id))).collect();
    let mut kills = tokio::task::JoinSet::new();
    for (id, _) in &inits {
        let c = c.clone();
        let id = id.clone();
        kills.spawn(async move {
            c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status
        });
    }
    while let Some(status) = kills.join_next().await {
        assert_eq!(status.unwrap(), StatusCode::NO_CONTENT);
    }
    for (id, init) in &inits {
        h.assert_no_leftovers(id, *init);
    }
    assert_eq!(std::fs::read_dir(h.state().join("sandboxes")).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_over_the_memory_limit_is_killed_and_told_why() {
    let h = Harness::start().await;
    let c = &h.client;
    let sandbox = c.create(json!({"templateID": "base", "memoryMB": 128})).await;
    // The sandbox sees its own limit, read-only, as programs that size themselves expect.
    let (limit, code) = c
        .run(&sandbox, "cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max 2>/dev/null; touch /sys/fs/cgroup/x 2>/dev/null || echo read-only")
        .await;
    assert_eq!((limit.as_str(), code), ("134217728\nread-only\n", 0));
    let allocate = "python3 -c 'b = bytearray(512 << 20); print(len(b))'";
    // Killed itself (exec'd by the shell), or reported by a shell as 137.
    for (script, status) in [
        (format!("exec {allocate}"), "signal: killed"),
        (format!("{allocate}; exit $?"), "exit status 137"),
    ] {
        let (_, end) = c.run_to_end(&sandbox, &script).await;
        assert_eq!(end["status"], status, "{script}: {end}");
        assert_eq!(
            end["error"],
            format!(
                "{status} (out of memory: the sandbox used up its memory limit of 128 MiB and the kernel killed this process)"
            ),
            "{end}"
        );
    }
    // The sandbox itself lives on.
    let (out, code) = c.run(&sandbox, "echo alive").await;
    assert_eq!((out.as_str(), code), ("alive\n", 0));
    // A plain SIGKILL is not mistaken for one.
    let (_, end) = c.run_to_end(&sandbox, "kill -KILL $$").await;
    assert_eq!(
        (end["status"].as_str(), end["error"].as_str()),
        (Some("signal: killed"), Some("signal: killed"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_network_envd_is_reached_inside_the_sandboxs_namespace() {
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-nonet-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = super::harness::KillOnDrop(state.clone());
    let mut settings = super::harness::config(&state);
    settings.net = dsh_sandboxd::Net::None;
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = super::harness::Client::new(&daemon.url(), daemon.api_key());
    let sandbox = c.create(json!({"templateID": "base"})).await;
    // envd listens on E2B's port in the sandbox's own namespace, which has only `lo`;
    // the host's loopback has nothing of it.
    let (out, code) = c.run(&sandbox, "ls /sys/class/net; cat /proc/net/tcp").await;
    // envd's listener, 127.0.0.1:49983 (0xC33F), in the namespace's own socket table.
    assert!(out.starts_with("lo\n"), "{out}");
    assert!(out.contains("0100007F:C33F 00000000:0000 0A"), "{out}");
    assert_eq!(code, 0);
    assert!(std::net::TcpStream::connect(("127.0.0.1", 49983)).is_err());
    c.write_file(&sandbox, "/home/user/f.txt", "through the namespace").await;
    assert_eq!(
        c.read_file(&sandbox, "/home/user/f.txt").await,
        (StatusCode::OK, "through the namespace".to_owned())
    );
    daemon.shutdown().await.unwrap();
}

/// `/tmp` and `/dev/shm` are sized from the sandbox's memory (half and a quarter): a full
/// one is ENOSPC inside, and a 507 on `/files`, not an OOM kill or the host's memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_backed_filesystems_are_sized_from_the_sandboxs_memory_and_fill_with_enospc() {
    let h = Harness::start().await;
    let c = &h.client;
    let s = c.create(json!({"templateID": "base", "memoryMB": 256})).await;
    let (sizes, code) = c
        .run(&s, "df -k --output=size,fstype /tmp /dev/shm /run / | awk 'NR > 1 { printf \"%s %s \", $1, $2 }'")
        .await;
    // The root is on the sandbox's disk (an overlay), the rest in its memory.
    let (memory, root) = sizes.rsplit_once("tmpfs ").unwrap();
    assert_eq!((memory, code), ("131072 tmpfs 65536 tmpfs 65536 ", 0), "{sizes}");
    assert!(root.ends_with(" overlay "), "{sizes}");
    let (_, stderr, code) = c.run_output(&s, "head -c 150M /dev/zero > /dev/shm/fill").await;
    assert_eq!(code, 1);
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let (out, code) = c.run(&s, "rm /dev/shm/fill; echo alive").await;
    assert_eq!((out.as_str(), code), ("alive\n", 0), "the sandbox survives a full tmpfs");

    let big = "x".repeat(140 << 20);
    let response = reqwest::Client::new()
        .post(format!("{}/files?path=/tmp/big", h.daemon().url()))
        .header("E2b-Sandbox-Id", s["sandboxID"].as_str().unwrap())
        .header("E2b-Sandbox-Port", "49983")
        .header("X-Access-Token", s["envdAccessToken"].as_str().unwrap())
        .header("Content-Type", "application/octet-stream")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["code"], 507);
    assert!(body["message"].as_str().unwrap().contains("/tmp/big"), "{body}");
}

/// Each start of a sandbox has a boot id of its own (a files-only pause and resume is a
/// reboot, as E2B's filesystem-only resume is), and the host's is out of sight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_start_has_its_own_boot_id_and_the_hosts_is_hidden() {
    let h = Harness::start().await;
    let c = &h.client;
    let host = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let read = async |sandbox: &Value| {
        let (id, code) = c.run(sandbox, "cat /proc/sys/kernel/random/boot_id").await;
        assert_eq!(code, 0);
        let bytes = id.trim_end().as_bytes();
        let dashes: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b'-').collect();
        assert_eq!((bytes.len(), dashes, bytes[14]), (36, vec![8, 13, 18, 23], b'4'), "{id}");
        id
    };
    let a = c.create(json!({"templateID": "base"})).await;
    let b = c.create(json!({"templateID": "base"})).await;
    let first = read(&a).await;
    assert_ne!(first, host);
    assert_ne!(first, read(&b).await);
    let id = a["sandboxID"].as_str().unwrap();
    let files_only = Some(json!({"memory": false}));
    assert_eq!(
        c.call(Method::POST, &format!("/sandboxes/{id}/pause"), files_only).await.status,
        StatusCode::NO_CONTENT
    );
    let resumed = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(resumed.status, StatusCode::CREATED);
    assert_ne!(read(&a).await, first);
}

/// Every v1 hierarchy's directory for cgroup `name` under the daemons' parent.
fn cgroup_dirs(name: &str) -> Vec<std::path::PathBuf> {
    let cgroups =
        dsh_sandboxd::cgroup::Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).unwrap();
    cgroups.open(name).paths()
}

/// The ids in `cgroup.procs` of each of `dirs`.
fn members(dirs: &[std::path::PathBuf]) -> Vec<u32> {
    let mut pids: Vec<u32> = dirs
        .iter()
        .flat_map(|dir| {
            std::fs::read_to_string(dir.join("cgroup.procs"))
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .map(|line| line.parse().unwrap())
        .collect();
    pids.sort();
    pids.dedup();
    pids
}

/// On cgroup v1 a sandbox's init is cloned by a thread already in a fresh cgroup, which
/// becomes the sandbox's (`staging.rs`), instead of being moved there (an RCU grace period,
/// 13 ms here). The daemon itself must never be among the sandbox's processes (a kill
/// signals all of them): only the sandbox's are, as a moved init's were; four threads wait
/// staged, each alone in its cgroup, and none is left once the daemon stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_s_cgroup_holds_its_processes_and_never_the_daemon() {
    let cgroups =
        dsh_sandboxd::cgroup::Cgroups::probe(dsh_sandboxd::server::CGROUP_PARENT).unwrap();
    // Nothing is staged on cgroup v2 (not this project's hosts); the rest holds there too.
    let expected_staged = if cgroups.is_v1() { dsh_sandboxd::server::STAGED_THREADS } else { 0 };
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let daemon = std::process::id();
    let parent = cgroup_dirs("x")[0].parent().unwrap().to_owned();
    // This daemon's staged cgroups (one of its threads in each): other tests' daemons,
    // in other processes, stage in the same parent.
    let staged = || -> std::collections::BTreeSet<std::path::PathBuf> {
        let ours = |dir: &std::path::Path| {
            let tasks = std::fs::read_to_string(dir.join("tasks")).unwrap_or_default();
            tasks
                .lines()
                .any(|tid| std::path::Path::new(&format!("/proc/self/task/{tid}")).exists())
        };
        std::fs::read_dir(&parent)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(dsh_sandboxd::staging::PREFIX))
            .map(|e| e.path())
            .filter(|path| ours(path))
            .collect()
    };
    wait_until("the staged threads", Duration::from_secs(10), async || {
        staged().len() == expected_staged
    })
    .await;
    let mut seen = staged();
    let sandbox = c.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&sandbox, "sleep 30 >/dev/null 2>&1 & echo started").await;
    assert_eq!((out.as_str(), code), ("started\n", 0));
    let pids = members(&cgroup_dirs(&id));
    assert!(!pids.is_empty());
    assert!(!pids.contains(&daemon), "the daemon {daemon} is in sandbox {id}'s cgroup: {pids:?}");
    let init = h.init_pid(&id);
    assert!(pids.contains(&init), "{pids:?} lacks the init {init}");
    for pid in &pids {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let tgid = status.lines().find(|l| l.starts_with("Tgid:")).unwrap_or("Tgid: 0");
        assert_ne!(tgid.split_whitespace().nth(1), Some(daemon.to_string().as_str()));
    }
    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    h.assert_no_leftovers(&id, init);
    seen.extend(staged());
    h.stop().await;
    // Every staged cgroup it had is removed with it.
    wait_until("no staged cgroup left", Duration::from_secs(10), async || {
        seen.iter().all(|dir| !dir.exists())
    })
    .await;
}
