//! Templates built from steps (E2B's Template SDK flow, driven over the same REST calls
//! the SDK makes): a build request, upload links and an upload, a build with every step
//! type and start/ready commands, its status and logs, sandboxes made from it, the step
//! cache on a rebuild, tags, a failing step, a restart, and deletion leaving nothing.
//! Also the persistent root the builds rely on (`WORKDIR /srv/app` outlives a reboot).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::harness::{Client, Harness};

/// Requests a build of `name`: (templateID, buildID), after checking the answer's shape.
pub(super) async fn request_build(c: &Client, name: &str) -> (String, String) {
    let reply = c
        .call(
            Method::POST,
            "/v3/templates",
            Some(json!({"name": name, "cpuCount": 1, "memoryMB": 1024})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
    let (base, tag) = name.split_once(':').unwrap_or((name, "default"));
    assert_eq!(reply.body["names"], json!([format!("{base}:{tag}")]));
    assert_eq!(reply.body["tags"], json!([tag]));
    assert_eq!(reply.body["aliases"], json!([base]));
    let id = |key: &str| reply.body[key].as_str().unwrap().to_owned();
    (id("templateID"), id("buildID"))
}

/// Polls a build's status until it is ready or failed (at most `timeout`): the last
/// status answer and every log message, in order.
pub(super) async fn wait_for_build(
    c: &Client,
    template: &str,
    build: &str,
) -> (Value, Vec<String>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    let mut messages = Vec::new();
    loop {
        let path =
            format!("/templates/{template}/builds/{build}/status?logsOffset={}", messages.len());
        let reply = c.call(Method::GET, &path, None).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        let entries = reply.body["logEntries"].as_array().unwrap();
        assert!(entries.len() <= 100);
        messages.extend(entries.iter().map(|e| e["message"].as_str().unwrap().to_owned()));
        let status = reply.body["status"].as_str().unwrap().to_owned();
        if (status == "ready" || status == "error") && entries.is_empty() {
            return (reply.body, messages);
        }
        assert!(tokio::time::Instant::now() < deadline, "build still {status}: {messages:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The hash the SDK would send for a COPY (any 64 hex digits name the upload).
fn files_hash(seed: &str) -> String {
    Sha256::digest(seed.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A gzipped tar of `files` (path, contents) made by the host's tar, as the SDK's is.
fn archive(files: &[(&str, &str)]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    for (path, contents) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, contents).unwrap();
    }
    let names: Vec<&str> = files.iter().map(|(path, _)| *path).collect();
    let out = std::process::Command::new("tar")
        .arg("-czf")
        .arg("-")
        .arg("-C")
        .arg(dir.path())
        .args(names)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Uploads `data` for `hash` the way the SDK does: the link from the API, then a PUT
/// without the API key.
async fn upload(c: &Client, template: &str, hash: &str, data: Vec<u8>) {
    let link = c.call(Method::GET, &format!("/templates/{template}/files/{hash}"), None).await;
    assert_eq!(link.status, StatusCode::CREATED, "{}", link.body);
    assert_eq!(link.body["present"], json!(false));
    let url = link.body["url"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    // A link whose signature is altered is refused.
    let forged = url.replace("signature=", "signature=0");
    let refused = http.put(&forged).body(data.clone()).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let put = http.put(&url).body(data).send().await.unwrap();
    assert_eq!(put.status(), StatusCode::OK);
    let again = c.call(Method::GET, &format!("/templates/{template}/files/{hash}"), None).await;
    assert_eq!(again.body["present"], json!(true));
}

fn steps(copy_hash: &str, last: &str) -> Value {
    json!([
        {"type": "COPY", "args": ["app", "/srv/app", "", ""], "force": false, "filesHash": copy_hash},
        {"type": "RUN", "args": ["echo built as $(whoami) in $(pwd) > /home/user/built.txt"], "force": false},
        {"type": "ENV", "args": ["GREETING", "hello there"], "force": false},
        {"type": "RUN", "args": ["echo \"$GREETING\" > /home/user/greet.txt; echo wrote greeting"], "force": false},
        {"type": "WORKDIR", "args": ["/srv/app"], "force": false},
        {"type": "RUN", "args": [last], "force": false},
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_built_from_steps_boots_as_built_and_a_rebuild_runs_only_what_changed() {
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let (template, build) = request_build(&c, "webapp:v1").await;
    let hash = files_hash("webapp files");
    upload(
        &c,
        &template,
        &hash,
        archive(&[("app/index.html", "<h1>built</h1>\n"), ("app/sub/x.txt", "x\n")]),
    )
    .await;

    let start = |build: &str, last: &str| {
        let c = c.clone();
        let path = format!("/v2/templates/{template}/builds/{build}");
        let body = json!({
            "fromImage": "e2bdev/base",
            "force": false,
            "steps": steps(&hash, last),
            "startCmd": "python3 -m http.server 8080",
            "readyCmd": "curl -sf localhost:8080/index.html",
        });
        async move { c.call(Method::POST, &path, Some(body)).await }
    };
    assert_eq!(start(&build, "echo last one").await.status, StatusCode::ACCEPTED);
    // A build starts once.
    let twice = start(&build, "echo last one").await;
    assert_eq!(
        (twice.status, twice.body),
        (
            StatusCode::CONFLICT,
            json!({"code": 409, "message": format!("build '{build}' was already started")})
        )
    );
    let (status, logs) = wait_for_build(&c, &template, &build).await;
    assert_eq!(status["status"], "ready", "{logs:?}");
    let expected_start = [
        "[base] FROM base",
        "[1/6] COPY app /srv/app",
        "copied 1 item(s) to /srv/app",
        "[2/6] RUN echo built as $(whoami) in $(pwd) > /home/user/built.txt",
        "[3/6] ENV GREETING=hello there",
        "[4/6] RUN echo \"$GREETING\" > /home/user/greet.txt; echo wrote greeting",
        "wrote greeting",
        "[5/6] WORKDIR /srv/app",
        "[6/6] RUN echo last one",
        "last one",
        "[finalize] starting the template's start command",
    ];
    assert_eq!(&logs[..expected_start.len()], expected_start, "{logs:?}");
    assert!(logs.iter().any(|l| l.starts_with("ready command succeeded (try ")), "{logs:?}");
    assert_eq!(
        logs.last().map(String::as_str).map(|l| l.starts_with("Build finished in ")),
        Some(true)
    );

    // A sandbox of it: its files, the last WORKDIR, the default user, the start command
    // running when the create answers.
    let sandbox = c.create(json!({"templateID": "webapp:v1"})).await;
    assert_eq!(sandbox["templateID"], json!(template));
    assert_eq!(
        c.run(&sandbox, "pwd; whoami; cat /home/user/built.txt /home/user/greet.txt; \
            curl -s localhost:8080/index.html; stat -c '%U %a' /srv/app/index.html /srv/app/sub")
            .await,
        (
            "/srv/app\nuser\nbuilt as user in /home/user\nhello there\n<h1>built</h1>\nuser 644\nuser 755\n"
                .to_owned(),
            0
        )
    );
    let alias = c.call(Method::GET, "/templates/aliases/webapp", None).await;
    assert_eq!(alias.body, json!({"templateID": template, "public": false}));

    // The rebuild with its last step changed runs only that step.
    let (same_template, build2) = request_build(&c, "webapp:v2").await;
    assert_eq!(same_template, template);
    let link = c.call(Method::GET, &format!("/templates/{template}/files/{hash}"), None).await;
    assert_eq!(link.body["present"], json!(true));
    assert_eq!(start(&build2, "echo changed").await.status, StatusCode::ACCEPTED);
    let (status2, logs2) = wait_for_build(&c, &template, &build2).await;
    assert_eq!(status2["status"], "ready", "{logs2:?}");
    let expected_rebuild = [
        "[base] FROM base",
        "CACHED [1/6] COPY app /srv/app",
        "CACHED [2/6] RUN echo built as $(whoami) in $(pwd) > /home/user/built.txt",
        "CACHED [3/6] ENV GREETING=hello there",
        "CACHED [4/6] RUN echo \"$GREETING\" > /home/user/greet.txt; echo wrote greeting",
        "CACHED [5/6] WORKDIR /srv/app",
        "[6/6] RUN echo changed",
        "changed",
    ];
    assert_eq!(&logs2[..expected_rebuild.len()], expected_rebuild, "{logs2:?}");

    // Tags: another name for v1's build, refused malformed ones, the listing.
    let tagged = c
        .call(
            Method::POST,
            "/templates/tags",
            Some(json!({"target": "webapp:v1", "tags": ["prod"]})),
        )
        .await;
    assert_eq!(
        (tagged.status, tagged.body),
        (StatusCode::CREATED, json!({"buildID": build, "tags": ["prod"]}))
    );
    for bad in [":prod", "webapp:", "other:prod"] {
        let reply = c
            .call(
                Method::POST,
                "/templates/tags",
                Some(json!({"target": "webapp:v1", "tags": [bad]})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}: {}", reply.body);
    }
    let listed = c.call(Method::GET, &format!("/templates/{template}/tags"), None).await;
    let tags: Vec<(String, String)> = listed
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["tag"].as_str().unwrap().to_owned(), t["buildID"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(
        tags,
        [
            ("v1".into(), build.clone()),
            ("v2".into(), build2.clone()),
            ("prod".into(), build.clone())
        ]
    );
    let untag = c
        .call(Method::DELETE, "/templates/tags", Some(json!({"name": "webapp", "tags": ["v1"]})))
        .await;
    assert_eq!(untag.status, StatusCode::NO_CONTENT);
    let gone_tag =
        c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": "webapp:v1"}))).await;
    assert_eq!(gone_tag.status, StatusCode::NOT_FOUND);

    // A failing step: the build fails naming it, with the command's output; the template
    // has no build to start sandboxes from.
    let (broken, broken_build) = request_build(&c, "broken").await;
    let body = json!({"fromTemplate": "base", "steps": [
        {"type": "RUN", "args": ["echo about to fail; exit 3"]},
        {"type": "RUN", "args": ["echo never"]},
    ]});
    let path = format!("/v2/templates/{broken}/builds/{broken_build}");
    assert_eq!(c.call(Method::POST, &path, Some(body)).await.status, StatusCode::ACCEPTED);
    let (failed, failed_logs) = wait_for_build(&c, &broken, &broken_build).await;
    assert_eq!(failed["status"], "error");
    assert_eq!(
        failed["reason"],
        json!({"message": "the command exited with code 3: echo about to fail; exit 3", "step": "1", "logEntries": []})
    );
    assert!(failed_logs.contains(&"about to fail".to_owned()), "{failed_logs:?}");
    assert!(!failed_logs.iter().any(|l| l.contains("never")), "{failed_logs:?}");
    let none = c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": "broken"}))).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);

    // Bad requests: an unknown step, another template's build, an unknown base.
    let (badsteps, bad_build) = request_build(&c, "badsteps").await;
    let start_bad = |template: &str, body: Value| {
        let c = c.clone();
        let path = format!("/v2/templates/{template}/builds/{bad_build}");
        async move { c.call(Method::POST, &path, Some(body)).await }
    };
    let add = start_bad(&badsteps, json!({"steps": [{"type": "ADD", "args": ["x"]}]})).await;
    assert_eq!(
        (add.status, add.body),
        (
            StatusCode::BAD_REQUEST,
            json!({"code": 400, "message": "step 1: unknown step type \"ADD\" (this daemon builds COPY, ENV, RUN, WORKDIR and USER)"})
        )
    );
    let other = start_bad(&template, json!({})).await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "{}", other.body);
    let no_base = start_bad(&badsteps, json!({"fromTemplate": "nosuchtemplate"})).await;
    assert_eq!(
        (no_base.status, no_base.body),
        (
            StatusCode::BAD_REQUEST,
            json!({"code": 400, "message": "fromTemplate: template 'nosuchtemplate' not found"})
        )
    );
    let unknown = c
        .call(Method::GET, &format!("/templates/{template}/builds/{broken_build}/status"), None)
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let base_conflict = c.call(Method::POST, "/v3/templates", Some(json!({"name": "base"}))).await;
    assert_eq!(base_conflict.status, StatusCode::CONFLICT);

    // Across a restart: the built template, and a finished build's status.
    h.restart().await;
    let c = h.client.clone();
    let after = c.create(json!({"templateID": "webapp:prod"})).await;
    assert_eq!(
        c.run(&after, "cat greet.txt 2>/dev/null || cat /home/user/greet.txt; pwd").await.0,
        "hello there\n/srv/app\n"
    );
    let old =
        c.call(Method::GET, &format!("/templates/{template}/builds/{build}/status"), None).await;
    assert_eq!((old.status, &old.body["status"]), (StatusCode::OK, &json!("ready")));

    // Deleting the templates leaves nothing of them: no build, cache entry or upload.
    for name in ["webapp", "broken", "badsteps"] {
        let reply = c.call(Method::DELETE, &format!("/templates/{name}"), None).await;
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{name}");
    }
    for sandbox in [&sandbox, &after] {
        let id = sandbox["sandboxID"].as_str().unwrap();
        assert_eq!(
            c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
            StatusCode::NO_CONTENT
        );
    }
    let state = h.state();
    super::harness::killed_sandboxes_removed(&state).await;
    let entries = |dir: &str| -> Vec<String> {
        match std::fs::read_dir(state.join(dir)) {
            Ok(read) => read.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
            Err(_) => Vec::new(),
        }
    };
    assert_eq!(entries("sandboxes/.builds"), Vec::<String>::new());
    assert_eq!(entries("sandboxes/.build-cache"), Vec::<String>::new());
    assert_eq!(entries("template-files"), Vec::<String>::new());
    assert_eq!(std::fs::read_to_string(state.join("templates.json")).unwrap(), "[]");
    let mut left = entries("sandboxes");
    left.retain(|name| name != ".builds" && name != ".build-cache" && name != ".snapshots");
    assert_eq!(left, Vec::<String>::new());
}

/// A build the daemon stops in the middle leaves no sandbox, no build and no half-made
/// step behind, and its template can be built again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_cut_by_a_restart_leaves_nothing_half_made() {
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let (template, build) = request_build(&c, "slow").await;
    let body = json!({"steps": [
        {"type": "RUN", "args": ["echo started; sleep 60"]},
    ]});
    let path = format!("/v2/templates/{template}/builds/{build}");
    assert_eq!(c.call(Method::POST, &path, Some(body)).await.status, StatusCode::ACCEPTED);
    super::harness::wait_until("the step to start", Duration::from_secs(60), async || {
        let path = format!("/templates/{template}/builds/{build}/status");
        let status = c.call(Method::GET, &path, None).await;
        status.body["logEntries"].as_array().unwrap().iter().any(|e| e["message"] == "started")
    })
    .await;
    // The build's sandbox is no sandbox of the API's.
    let listed = c.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(listed.body, json!([]));
    h.restart().await;
    let c = h.client.clone();
    let status =
        c.call(Method::GET, &format!("/templates/{template}/builds/{build}/status"), None).await;
    assert_eq!(status.status, StatusCode::NOT_FOUND);
    let state = h.state();
    let sandboxes: Vec<String> = std::fs::read_dir(state.join("sandboxes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.starts_with('.'))
        .collect();
    assert_eq!(sandboxes, Vec::<String>::new());
    let none = c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": "slow"}))).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
}

/// What a sandbox makes outside its shown directories (a project in `/srv`, written as
/// root) is on its disk, not in memory: it outlives a reboot (a files-only pause).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_root_persists_across_a_reboot() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let sandbox = c.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    assert_eq!(
        c.run_as(
            &sandbox,
            "root",
            "mkdir -p /srv/project && echo kept > /srv/project/f && \
            chown -R user: /srv/project && echo ok"
        )
        .await,
        ("ok\n".to_owned(), 0)
    );
    let reply = c
        .call(Method::POST, &format!("/sandboxes/{id}/pause"), Some(json!({"memory": false})))
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let reply = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 60})))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    assert_eq!(
        c.run(
            &sandbox,
            "cat /srv/project/f; stat -c %U /srv/project; df --output=fstype / | tail -1"
        )
        .await,
        ("kept\nuser\noverlay\n".to_owned(), 0)
    );
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
}
