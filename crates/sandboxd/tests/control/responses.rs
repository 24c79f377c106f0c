//! Every control-plane route's answer pinned byte for byte (`golden/`, see `golden.rs`):
//! its status, its Content-Type and its body, for a success and the usual errors (an
//! unknown id, a bad body, a conflict). A change of the handlers that a client could
//! see, a key's order or a message's words included, fails here.
//!
//! One daemon per group (sandboxes; volumes and layers; templates), each request made
//! once and in order, so every body is the same from run to run once its ids, tokens
//! and times are replaced.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::golden::{Normalizer, assert_golden};
use super::harness::{Client, Harness, RawReply, wait_until};

const JSON: &str = "application/json";
/// An id no sandbox, volume or template has.
const UNKNOWN: &str = "nosuchid";

/// The normalizer of one group, and the checks of its answers.
struct Pins {
    normalizer: Normalizer,
}

impl Pins {
    fn new(c: &Client) -> Pins {
        let mut normalizer = Normalizer::default();
        // The daemon's address shows in links it hands out; its port is a free one.
        normalizer.name(c.base.strip_prefix("http://").unwrap(), "daemon");
        Pins { normalizer }
    }

    fn name(&mut self, value: &Value, placeholder: &str) {
        self.normalizer.name(value.as_str().unwrap(), placeholder);
    }

    /// A JSON answer: its status, Content-Type, and body as `golden/<name>.json`.
    fn json(&self, name: &str, reply: &RawReply, status: StatusCode) {
        assert_eq!(reply.status, status, "{name}: {}", reply.body);
        assert_eq!(reply.content_type(), Some(JSON), "{name}");
        assert_golden(name, &self.normalizer.apply(&reply.body));
    }

    /// An answer without a body (a 204, a 405, a started build's 202, an upload's 200).
    fn empty(&self, name: &str, reply: &RawReply, status: StatusCode) {
        assert_eq!(reply.status, status, "{name}: {}", reply.body);
        assert_eq!(reply.content_type(), None, "{name}");
        assert_eq!(reply.body, "", "{name}");
    }
}

async fn send(request: reqwest::RequestBuilder) -> RawReply {
    RawReply::read(request.send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_routes_answer_as_pinned() {
    // Samples 2 s apart: the metrics of one second hold one sample at most.
    let h = Harness::start_with(|config| config.metrics_tick = Duration::from_secs(2)).await;
    let c = h.client.clone();
    let mut pins = Pins::new(&c);
    let post = async |path: &str, body: Value| c.call_raw(Method::POST, path, Some(body)).await;
    let get = async |path: &str| c.call_raw(Method::GET, path, None).await;

    // The daemon's own routes and what comes before any handler.
    let health = send(c.http.get(format!("{}/health", c.base))).await;
    pins.json("health", &health, StatusCode::OK);
    let no_route = get("/no/such/route").await;
    pins.json("no_route_404", &no_route, StatusCode::NOT_FOUND);
    let missing_key = send(c.http.get(format!("{}/v2/sandboxes", c.base))).await;
    pins.json("auth_missing_key_401", &missing_key, StatusCode::UNAUTHORIZED);
    let wrong_key =
        send(c.http.get(format!("{}/v2/sandboxes", c.base)).header("X-API-Key", "wrong")).await;
    pins.json("auth_wrong_key_401", &wrong_key, StatusCode::UNAUTHORIZED);
    let wrong_method = c.call_raw(Method::PATCH, "/v2/sandboxes", None).await;
    pins.empty("method_not_allowed_405", &wrong_method, StatusCode::METHOD_NOT_ALLOWED);
    let bad_port = send(
        c.request(Method::GET, "/files")
            .header("E2b-Sandbox-Id", UNKNOWN)
            .header("E2b-Sandbox-Port", "port"),
    )
    .await;
    pins.json("proxy_bad_port_400", &bad_port, StatusCode::BAD_REQUEST);
    let proxy_unknown =
        send(c.request(Method::GET, "/files").header("E2b-Sandbox-Id", UNKNOWN)).await;
    pins.json("proxy_unknown_sandbox_502", &proxy_unknown, StatusCode::BAD_GATEWAY);

    // Creates refused before anything starts.
    let wrong_type = post("/v2/sandboxes", json!({"timeout": "soon"})).await;
    pins.json("create_wrong_type_400", &wrong_type, StatusCode::BAD_REQUEST);
    let not_json = send(
        c.request(Method::POST, "/v2/sandboxes")
            .header("Content-Type", "application/json")
            .body("{\"templateID\":"),
    )
    .await;
    pins.json("create_not_json_400", &not_json, StatusCode::BAD_REQUEST);
    let text = send(
        c.request(Method::POST, "/v2/sandboxes")
            .header("Content-Type", "text/plain")
            .body("templateID=base"),
    )
    .await;
    pins.json("create_text_body_415", &text, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let no_template = post("/v2/sandboxes", json!({"templateID": "no-such-template"})).await;
    pins.json("create_unknown_template_404", &no_template, StatusCode::NOT_FOUND);
    let long = post("/v2/sandboxes", json!({"timeout": 86_401})).await;
    pins.json("create_timeout_400", &long, StatusCode::BAD_REQUEST);
    let cpus = post("/v2/sandboxes", json!({"cpuCount": 0})).await;
    pins.json("create_cpu_count_400", &cpus, StatusCode::BAD_REQUEST);
    let env = post("/v2/sandboxes", json!({"envVars": {"A=B": "c"}})).await;
    pins.json("create_env_vars_400", &env, StatusCode::BAD_REQUEST);
    let egress = post("/v2/sandboxes", json!({"network": {"allowOut": ["not a rule"]}})).await;
    pins.json("create_network_400", &egress, StatusCode::BAD_REQUEST);
    let runtime = post("/v2/sandboxes", json!({"runtime": "vm"})).await;
    pins.json("create_runtime_400", &runtime, StatusCode::BAD_REQUEST);

    // The v1 create, without an envd token and with a traffic token; then killed.
    let v1 = post(
        "/sandboxes",
        json!({"templateID": "base", "secure": false, "network": {"allowPublicTraffic": false}}),
    )
    .await;
    let v1_body = v1.json();
    pins.name(&v1_body["sandboxID"], "v1SandboxID");
    pins.name(&v1_body["trafficAccessToken"], "trafficAccessToken");
    pins.json("create_v1_201", &v1, StatusCode::CREATED);
    let v1_path = format!("/sandboxes/{}", v1_body["sandboxID"].as_str().unwrap());
    let killed = c.call_raw(Method::DELETE, &v1_path, None).await;
    pins.empty("kill_204", &killed, StatusCode::NO_CONTENT);
    let killed_again = c.call_raw(Method::DELETE, &v1_path, None).await;
    pins.json("kill_unknown_404", &killed_again, StatusCode::NOT_FOUND);

    // The sandbox the rest of the test drives.
    let created = post(
        "/v2/sandboxes",
        json!({"templateID": "base", "metadata": {"purpose": "golden"}, "envVars": {"GREETING": "hi"}}),
    )
    .await;
    let sandbox = created.json();
    pins.name(&sandbox["sandboxID"], "sandboxID");
    pins.name(&sandbox["envdAccessToken"], "envdAccessToken");
    pins.json("create_v2_201", &created, StatusCode::CREATED);
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let at = |route: &str| format!("/sandboxes/{id}{route}");
    let unknown = |route: &str| format!("/sandboxes/{UNKNOWN}{route}");

    // Lists: one sandbox, and the filters' errors.
    let v1_list = get("/sandboxes").await;
    pins.json("list_v1", &v1_list, StatusCode::OK);
    assert_eq!(v1_list.headers["x-total-running"], "1");
    let v2_list = get("/v2/sandboxes?metadata=purpose%3Dgolden").await;
    pins.json("list_v2", &v2_list, StatusCode::OK);
    assert_eq!(v2_list.headers["x-total-running"], "1");
    pins.json("list_v2_paused_empty", &get("/v2/sandboxes?state=paused").await, StatusCode::OK);
    let bad_state = get("/v2/sandboxes?state=sleeping").await;
    pins.json("list_v2_bad_state_400", &bad_state, StatusCode::BAD_REQUEST);
    let bad_limit = get("/v2/sandboxes?limit=0").await;
    pins.json("list_v2_bad_limit_400", &bad_limit, StatusCode::BAD_REQUEST);
    let bad_time = get("/v2/sandboxes?startedAfter=yesterday").await;
    pins.json("list_v2_bad_started_after_400", &bad_time, StatusCode::BAD_REQUEST);

    pins.json("get_running", &get(&at("")).await, StatusCode::OK);
    pins.json("get_unknown_404", &get(&unknown("")).await, StatusCode::NOT_FOUND);

    // Deadline, network rules, connect and resume of a running sandbox.
    let timeout = post(&at("/timeout"), json!({"timeout": 600})).await;
    pins.empty("timeout_204", &timeout, StatusCode::NO_CONTENT);
    let no_timeout = post(&at("/timeout"), json!({})).await;
    pins.json("timeout_missing_400", &no_timeout, StatusCode::BAD_REQUEST);
    let timeout_unknown = post(&unknown("/timeout"), json!({"timeout": 60})).await;
    pins.json("timeout_unknown_404", &timeout_unknown, StatusCode::NOT_FOUND);
    let rules = json!({"allowOut": ["192.0.2.1"], "denyOut": ["0.0.0.0/0"]});
    let network = c.call_raw(Method::PUT, &at("/network"), Some(rules.clone())).await;
    pins.empty("network_204", &network, StatusCode::NO_CONTENT);
    let bad_rules = json!({"denyOut": ["not a cidr"]});
    let network_bad = c.call_raw(Method::PUT, &at("/network"), Some(bad_rules)).await;
    pins.json("network_bad_rule_400", &network_bad, StatusCode::BAD_REQUEST);
    let network_unknown = c.call_raw(Method::PUT, &unknown("/network"), Some(rules)).await;
    pins.json("network_unknown_404", &network_unknown, StatusCode::NOT_FOUND);
    let extended = post(&at("/connect"), json!({"timeout": 300})).await;
    pins.json("connect_running_200", &extended, StatusCode::OK);
    let extended_v2 = post(&format!("/v2/sandboxes/{id}/connect"), json!({"timeout": 300})).await;
    pins.json("connect_v2_running_200", &extended_v2, StatusCode::OK);
    let connect_bad = post(&at("/connect"), json!({"timeout": -1})).await;
    pins.json("connect_bad_timeout_400", &connect_bad, StatusCode::BAD_REQUEST);
    let connect_unknown = post(&unknown("/connect"), json!({})).await;
    pins.json("connect_unknown_404", &connect_unknown, StatusCode::NOT_FOUND);
    let resume_running = post(&at("/resume"), json!({})).await;
    pins.json("resume_running_409", &resume_running, StatusCode::CONFLICT);
    let resume_unknown = post(&unknown("/resume"), json!({})).await;
    pins.json("resume_unknown_404", &resume_unknown, StatusCode::NOT_FOUND);

    // Metrics: none in the future, one sample of one second, bad bounds.
    let future = get(&at("/metrics?start=99999999999")).await;
    pins.json("metrics_none", &future, StatusCode::OK);
    let mut first_second = 0;
    wait_until("a first sample", Duration::from_secs(15), async || {
        let samples = get(&at("/metrics")).await.json();
        first_second = samples[0]["timestampUnix"].as_u64().unwrap_or(0);
        first_second != 0
    })
    .await;
    for key in ["timestampUnix", "cpuUsedPct", "memUsed", "memCache", "diskUsed"] {
        pins.normalizer.mask_number(key);
    }
    let one = get(&at(&format!("/metrics?start={first_second}&end={first_second}"))).await;
    pins.json("metrics_one_sample", &one, StatusCode::OK);
    let bad_bound = get(&at("/metrics?start=noon")).await;
    pins.json("metrics_bad_start_400", &bad_bound, StatusCode::BAD_REQUEST);
    pins.json("metrics_unknown_404", &get(&unknown("/metrics")).await, StatusCode::NOT_FOUND);

    // Fork: one fork (killed right away), a bad count, an unknown parent.
    let forked = post(&at("/fork"), json!({"count": 1})).await;
    let fork = &forked.json()[0]["sandbox"];
    pins.name(&fork["sandboxID"], "forkID");
    pins.name(&fork["envdAccessToken"], "forkEnvdAccessToken");
    pins.json("fork_201", &forked, StatusCode::CREATED);
    let fork_path = format!("/sandboxes/{}", fork["sandboxID"].as_str().unwrap());
    assert_eq!(c.call_raw(Method::DELETE, &fork_path, None).await.status, StatusCode::NO_CONTENT);
    let fork_count = post(&at("/fork"), json!({"count": 0})).await;
    pins.json("fork_bad_count_400", &fork_count, StatusCode::BAD_REQUEST);
    let fork_unknown = post(&unknown("/fork"), json!({})).await;
    pins.json("fork_unknown_404", &fork_unknown, StatusCode::NOT_FOUND);

    // Snapshots: named, listed, taken again (409), unnamed, deleted.
    let named = post(&at("/snapshots"), json!({"name": "golden-snap"})).await;
    pins.json("snapshot_named_201", &named, StatusCode::CREATED);
    pins.json("snapshot_list", &get("/snapshots").await, StatusCode::OK);
    let taken = post(&at("/snapshots"), json!({"name": "golden-snap"})).await;
    pins.json("snapshot_name_taken_409", &taken, StatusCode::CONFLICT);
    let bad_name = post(&at("/snapshots"), json!({"name": "Golden Snap"})).await;
    pins.json("snapshot_bad_name_400", &bad_name, StatusCode::BAD_REQUEST);
    let snapshot_unknown = post(&unknown("/snapshots"), json!({})).await;
    pins.json("snapshot_unknown_404", &snapshot_unknown, StatusCode::NOT_FOUND);
    let unnamed = c.call_raw(Method::POST, &at("/snapshots"), None).await;
    pins.name(&unnamed.json()["snapshotID"], "snapshotID");
    pins.json("snapshot_unnamed_201", &unnamed, StatusCode::CREATED);
    let by_name = get(&format!("/snapshots?sandboxID={id}&name=golden-snap")).await;
    pins.json("snapshot_list_filtered", &by_name, StatusCode::OK);
    let list_bad = get("/snapshots?limit=101").await;
    pins.json("snapshot_list_bad_limit_400", &list_bad, StatusCode::BAD_REQUEST);
    for snapshot in ["golden-snap:default", unnamed.json()["snapshotID"].as_str().unwrap()] {
        let deleted = c.call_raw(Method::DELETE, &format!("/templates/{snapshot}"), None).await;
        pins.empty("delete_snapshot_204", &deleted, StatusCode::NO_CONTENT);
    }
    let delete_unknown = c.call_raw(Method::DELETE, &format!("/templates/{UNKNOWN}"), None).await;
    pins.json("delete_template_unknown_404", &delete_unknown, StatusCode::NOT_FOUND);

    // Pause and wake: resume (201), pause again, connect (201).
    pins.empty("pause_204", &post(&at("/pause"), json!({})).await, StatusCode::NO_CONTENT);
    pins.json("pause_paused_409", &post(&at("/pause"), json!({})).await, StatusCode::CONFLICT);
    let pause_unknown = post(&unknown("/pause"), json!({})).await;
    pins.json("pause_unknown_404", &pause_unknown, StatusCode::NOT_FOUND);
    pins.json("get_paused", &get(&at("")).await, StatusCode::OK);
    pins.json("list_v2_paused", &get("/v2/sandboxes?state=paused").await, StatusCode::OK);
    pins.json("fork_paused_409", &post(&at("/fork"), json!({})).await, StatusCode::CONFLICT);
    let resumed = post(&at("/resume"), json!({"timeout": 300})).await;
    pins.json("resume_paused_201", &resumed, StatusCode::CREATED);
    assert_eq!(post(&at("/pause"), json!({})).await.status, StatusCode::NO_CONTENT);
    let woken = post(&at("/connect"), json!({"timeout": 300})).await;
    pins.json("connect_paused_201", &woken, StatusCode::CREATED);

    // Aliases of the daemon's own templates.
    pins.json("template_alias_builtin", &get("/templates/aliases/base").await, StatusCode::OK);
    let alias_unknown = get(&format!("/templates/aliases/{UNKNOWN}")).await;
    pins.json("template_alias_unknown_404", &alias_unknown, StatusCode::NOT_FOUND);

    assert_eq!(c.call_raw(Method::DELETE, &at(""), None).await.status, StatusCode::NO_CONTENT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn volume_and_layer_routes_answer_as_pinned() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let mut pins = Pins::new(&c);
    let get = async |path: &str| c.call_raw(Method::GET, path, None).await;

    // Volumes.
    let nameless = c.call_raw(Method::POST, "/volumes", Some(json!({}))).await;
    pins.json("volume_create_no_name_400", &nameless, StatusCode::BAD_REQUEST);
    let bad_size = json!({"name": "golden-sized", "sizeMB": "big"});
    let bad_size = c.call_raw(Method::POST, "/volumes", Some(bad_size)).await;
    pins.json("volume_create_bad_size_400", &bad_size, StatusCode::BAD_REQUEST);
    let made = c.call_raw(Method::POST, "/volumes", Some(json!({"name": "golden-vol"}))).await;
    let volume = made.json();
    pins.name(&volume["volumeID"], "volumeID");
    pins.name(&volume["token"], "volumeToken");
    pins.json("volume_create_201", &made, StatusCode::CREATED);
    let taken = c.call_raw(Method::POST, "/volumes", Some(json!({"name": "golden-vol"}))).await;
    pins.json("volume_create_taken_409", &taken, StatusCode::CONFLICT);
    pins.json("volume_list", &get("/volumes").await, StatusCode::OK);
    let volume_id = volume["volumeID"].as_str().unwrap().to_owned();
    pins.json("volume_get", &get(&format!("/volumes/{volume_id}")).await, StatusCode::OK);
    let unknown = get(&format!("/volumes/{UNKNOWN}")).await;
    pins.json("volume_get_unknown_404", &unknown, StatusCode::NOT_FOUND);

    // Its content, with its token.
    let token = volume["token"].as_str().unwrap().to_owned();
    let content = |method: Method, route: &str| {
        c.http
            .request(method, format!("{}/volumecontent/{volume_id}/{route}", c.base))
            .bearer_auth(&token)
    };
    let untokened = c.http.get(format!("{}/volumecontent/{volume_id}/path?path=/", c.base));
    pins.json("content_no_token_401", &send(untokened).await, StatusCode::UNAUTHORIZED);
    let wrong_token = c
        .http
        .get(format!("{}/volumecontent/{volume_id}/path?path=/", c.base))
        .bearer_auth("wrong");
    pins.json("content_wrong_token_401", &send(wrong_token).await, StatusCode::UNAUTHORIZED);
    let no_volume =
        c.http.get(format!("{}/volumecontent/{UNKNOWN}/path?path=/", c.base)).bearer_auth(&token);
    pins.json("content_unknown_volume_404", &send(no_volume).await, StatusCode::NOT_FOUND);
    let root = send(content(Method::GET, "path?path=/")).await;
    pins.json("content_stat_root", &root, StatusCode::OK);
    let dots = send(content(Method::GET, "path?path=/a/../b")).await;
    pins.json("content_dot_dot_400", &dots, StatusCode::BAD_REQUEST);
    let no_path = send(content(Method::GET, "path")).await;
    pins.json("content_no_path_400", &no_path, StatusCode::BAD_REQUEST);
    let dir = send(content(Method::POST, "dir?path=/docs")).await;
    pins.json("content_mkdir_201", &dir, StatusCode::CREATED);
    let dir_again = send(content(Method::POST, "dir?path=/docs")).await;
    pins.json("content_mkdir_exists_409", &dir_again, StatusCode::CONFLICT);
    let orphan = send(content(Method::POST, "dir?path=/none/child")).await;
    pins.json("content_mkdir_no_parent_404", &orphan, StatusCode::NOT_FOUND);
    let file = send(content(Method::PUT, "file?path=/docs/note.txt").body("hello golden\n")).await;
    pins.json("content_write_201", &file, StatusCode::CREATED);
    let file_again = send(content(Method::PUT, "file?path=/docs/note.txt").body("again\n")).await;
    pins.json("content_write_exists_409", &file_again, StatusCode::CONFLICT);
    let over_dir = send(content(Method::PUT, "file?path=/docs").body("x")).await;
    pins.json("content_write_directory_409", &over_dir, StatusCode::CONFLICT);
    let bad_mode = send(content(Method::PUT, "file?path=/docs/x&mode=99999").body("x")).await;
    pins.json("content_write_bad_mode_400", &bad_mode, StatusCode::BAD_REQUEST);
    let read = send(content(Method::GET, "file?path=/docs/note.txt")).await;
    assert_eq!(
        (read.status, read.content_type(), read.body.as_str()),
        (StatusCode::OK, Some("application/octet-stream"), "hello golden\n")
    );
    let read_missing = send(content(Method::GET, "file?path=/docs/none.txt")).await;
    pins.json("content_read_missing_404", &read_missing, StatusCode::NOT_FOUND);
    pins.json("content_list", &send(content(Method::GET, "dir?path=/")).await, StatusCode::OK);
    let deep = send(content(Method::GET, "dir?path=/&depth=2")).await;
    pins.json("content_list_depth_2", &deep, StatusCode::OK);
    let list_missing = send(content(Method::GET, "dir?path=/none")).await;
    pins.json("content_list_missing_404", &list_missing, StatusCode::NOT_FOUND);
    let chmod =
        send(content(Method::PATCH, "path?path=/docs/note.txt").json(&json!({"mode": 384}))).await;
    pins.json("content_update_200", &chmod, StatusCode::OK);
    let bad_body = send(content(Method::PATCH, "path?path=/docs/note.txt").body("{")).await;
    pins.json("content_update_bad_body_400", &bad_body, StatusCode::BAD_REQUEST);
    let bad_id = json!({"uid": 70_000});
    let bad_id = send(content(Method::PATCH, "path?path=/docs/note.txt").json(&bad_id)).await;
    pins.json("content_update_bad_uid_400", &bad_id, StatusCode::BAD_REQUEST);
    let removed = send(content(Method::DELETE, "path?path=/docs")).await;
    pins.empty("content_remove_204", &removed, StatusCode::NO_CONTENT);
    let removed_again = send(content(Method::DELETE, "path?path=/docs")).await;
    pins.json("content_remove_missing_404", &removed_again, StatusCode::NOT_FOUND);
    let remove_root = send(content(Method::DELETE, "path?path=/")).await;
    pins.json("content_remove_root_400", &remove_root, StatusCode::BAD_REQUEST);

    // A volume mounted cannot be deleted; a mount of no volume is refused.
    let mount = |name: &str| json!({"templateID": "base", "volumeMounts": [{"name": name, "path": "/mnt/data"}]});
    let no_volume = c.call_raw(Method::POST, "/v2/sandboxes", Some(mount(UNKNOWN))).await;
    pins.json("create_unknown_volume_400", &no_volume, StatusCode::BAD_REQUEST);
    let sandbox = c.create(mount("golden-vol")).await;
    pins.name(&sandbox["sandboxID"], "sandboxID");
    let busy = c.call_raw(Method::DELETE, &format!("/volumes/{volume_id}"), None).await;
    pins.json("volume_delete_mounted_409", &busy, StatusCode::CONFLICT);
    let sandbox_path = format!("/sandboxes/{}", sandbox["sandboxID"].as_str().unwrap());
    assert_eq!(
        c.call_raw(Method::DELETE, &sandbox_path, None).await.status,
        StatusCode::NO_CONTENT
    );
    let deleted = c.call_raw(Method::DELETE, &format!("/volumes/{volume_id}"), None).await;
    pins.empty("volume_delete_204", &deleted, StatusCode::NO_CONTENT);
    let deleted_again = c.call_raw(Method::DELETE, &format!("/volumes/{volume_id}"), None).await;
    pins.json("volume_delete_unknown_404", &deleted_again, StatusCode::NOT_FOUND);

    // Layers: none on a fresh machine; recipes refused before any build (a build would
    // fetch from npm's registry).
    pins.json("layer_list_empty", &get("/layers").await, StatusCode::OK);
    let empty = c.call_raw(Method::POST, "/layers", Some(json!({}))).await;
    pins.json("layer_empty_recipe_400", &empty, StatusCode::BAD_REQUEST);
    let range = c.call_raw(Method::POST, "/layers", Some(json!({"npm": ["pyright@^1"]}))).await;
    pins.json("layer_version_range_400", &range, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn template_routes_answer_as_pinned() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let mut pins = Pins::new(&c);
    let post = async |path: &str, body: Value| c.call_raw(Method::POST, path, Some(body)).await;
    let get = async |path: &str| c.call_raw(Method::GET, path, None).await;

    pins.json("template_list_empty", &get("/templates").await, StatusCode::OK);
    // Build requests refused.
    let nameless = post("/v3/templates", json!({})).await;
    pins.json("build_request_no_name_400", &nameless, StatusCode::BAD_REQUEST);
    let own = post("/v3/templates", json!({"name": "base"})).await;
    pins.json("build_request_builtin_name_409", &own, StatusCode::CONFLICT);
    let bad_tag = post("/v3/templates", json!({"name": "golden-tpl", "tags": ["a b"]})).await;
    pins.json("build_request_bad_tag_400", &bad_tag, StatusCode::BAD_REQUEST);
    let memory = post("/v3/templates", json!({"name": "golden-tpl", "memoryMB": 1})).await;
    pins.json("build_request_memory_400", &memory, StatusCode::BAD_REQUEST);

    // The build: requested, waiting, files uploaded, started, ready.
    let requested = post("/v3/templates", json!({"name": "golden-tpl:v1", "cpuCount": 1})).await;
    let request = requested.json();
    pins.name(&request["templateID"], "templateID");
    pins.name(&request["buildID"], "buildID");
    pins.json("build_request_202", &requested, StatusCode::ACCEPTED);
    let template = request["templateID"].as_str().unwrap().to_owned();
    let build = request["buildID"].as_str().unwrap().to_owned();
    let status_path = format!("/templates/{template}/builds/{build}/status");
    pins.json("build_status_waiting", &get(&status_path).await, StatusCode::OK);
    let status_unknown = get(&format!("/templates/{template}/builds/{UNKNOWN}/status")).await;
    pins.json("build_status_unknown_404", &status_unknown, StatusCode::NOT_FOUND);

    let hash = "ab".repeat(32);
    let link = get(&format!("/templates/{template}/files/{hash}")).await;
    let url = link.json()["url"].as_str().unwrap().to_owned();
    let signature = url.split_once("signature=").unwrap().1.to_owned();
    pins.normalizer.name(&signature, "signature");
    pins.json("upload_link_201", &link, StatusCode::CREATED);
    let bad_hash = get(&format!("/templates/{template}/files/abc")).await;
    pins.json("upload_link_bad_hash_400", &bad_hash, StatusCode::BAD_REQUEST);
    let link_unknown = get(&format!("/templates/{UNKNOWN}/files/{hash}")).await;
    pins.json("upload_link_unknown_404", &link_unknown, StatusCode::NOT_FOUND);
    let forged = url.replace("signature=", "signature=0");
    let refused = send(c.http.put(&forged).body("not a real archive")).await;
    pins.json("upload_forged_403", &refused, StatusCode::FORBIDDEN);
    let uploaded = send(c.http.put(&url).body("not a real archive")).await;
    pins.empty("upload_200", &uploaded, StatusCode::OK);
    let present = get(&format!("/templates/{template}/files/{hash}")).await;
    pins.json("upload_link_present_201", &present, StatusCode::CREATED);

    let start_path = format!("/v2/templates/{template}/builds/{build}");
    let definition = json!({
        "fromTemplate": "base",
        "steps": [{"type": "RUN", "args": ["echo golden > /home/user/golden.txt"], "force": false}],
    });
    let bad_step = json!({"fromTemplate": "base", "steps": [{"type": "RUN", "args": []}]});
    pins.json(
        "build_start_bad_step_400",
        &post(&start_path, bad_step).await,
        StatusCode::BAD_REQUEST,
    );
    let no_origin = json!({"fromTemplate": UNKNOWN});
    let no_origin = post(&start_path, no_origin).await;
    pins.json("build_start_unknown_origin_400", &no_origin, StatusCode::BAD_REQUEST);
    let start_unknown =
        post(&format!("/v2/templates/{template}/builds/{UNKNOWN}"), definition.clone()).await;
    pins.json("build_start_unknown_404", &start_unknown, StatusCode::NOT_FOUND);
    let started = post(&start_path, definition.clone()).await;
    pins.empty("build_start_202", &started, StatusCode::ACCEPTED);
    let again = post(&start_path, definition).await;
    pins.json("build_start_again_409", &again, StatusCode::CONFLICT);
    let (status, logs) = super::templates::wait_for_build(&c, &template, &build).await;
    assert_eq!(status["status"], "ready", "{logs:?}");
    // Past the last log entry: the logs' words and times are the builder's, not the API's.
    let ready = get(&format!("{status_path}?logsOffset=100000")).await;
    pins.json("build_status_ready", &ready, StatusCode::OK);

    // Listed, tagged, aliased, untagged.
    pins.json("template_list", &get("/templates").await, StatusCode::OK);
    pins.json("template_tags", &get(&format!("/templates/{template}/tags")).await, StatusCode::OK);
    let tags_unknown = get(&format!("/templates/{UNKNOWN}/tags")).await;
    pins.json("template_tags_unknown_404", &tags_unknown, StatusCode::NOT_FOUND);
    let tagged = post("/templates/tags", json!({"target": "golden-tpl:v1", "tags": ["v2"]})).await;
    pins.json("tags_assign_201", &tagged, StatusCode::CREATED);
    let no_tags = post("/templates/tags", json!({"target": "golden-tpl:v1", "tags": []})).await;
    pins.json("tags_assign_none_400", &no_tags, StatusCode::BAD_REQUEST);
    let no_target = post("/templates/tags", json!({"target": "nosuch:v1", "tags": ["v3"]})).await;
    pins.json("tags_assign_unknown_404", &no_target, StatusCode::NOT_FOUND);
    let missing_field = post("/templates/tags", json!({"target": "golden-tpl:v1"})).await;
    pins.json("tags_assign_missing_field_400", &missing_field, StatusCode::BAD_REQUEST);
    pins.json("template_list_two_tags", &get("/templates").await, StatusCode::OK);
    let untag = |tags: Value| {
        let body = json!({"name": "golden-tpl", "tags": tags});
        c.call_raw(Method::DELETE, "/templates/tags", Some(body))
    };
    pins.empty("tags_remove_204", &untag(json!(["v2"])).await, StatusCode::NO_CONTENT);
    pins.json("tags_remove_missing_404", &untag(json!(["v2"])).await, StatusCode::NOT_FOUND);
    let alias = get("/templates/aliases/golden-tpl").await;
    pins.json("template_alias_built", &alias, StatusCode::OK);

    // A build that fails: its status gives the reason; its template is listed without a
    // build.
    let failing = post("/v3/templates", json!({"name": "golden-fail"})).await.json();
    pins.name(&failing["templateID"], "failedTemplateID");
    pins.name(&failing["buildID"], "failedBuildID");
    let (failed_template, failed_build) =
        (failing["templateID"].as_str().unwrap(), failing["buildID"].as_str().unwrap());
    let fail = json!({"fromTemplate": "base", "steps": [{"type": "RUN", "args": ["exit 3"]}]});
    let started =
        post(&format!("/v2/templates/{failed_template}/builds/{failed_build}"), fail).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.body);
    let (status, logs) = super::templates::wait_for_build(&c, failed_template, failed_build).await;
    assert_eq!(status["status"], "error", "{logs:?}");
    let failed_status =
        format!("/templates/{failed_template}/builds/{failed_build}/status?logsOffset=100000");
    pins.json("build_status_error", &get(&failed_status).await, StatusCode::OK);
    pins.json("template_list_with_failed", &get("/templates").await, StatusCode::OK);
    let deleted = c.call_raw(Method::DELETE, "/templates/golden-fail", None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);

    // A sandbox of it: the create's answer names the template's alias.
    let created = post("/v2/sandboxes", json!({"templateID": "golden-tpl:v1"})).await;
    let sandbox = created.json();
    pins.name(&sandbox["sandboxID"], "sandboxID");
    pins.name(&sandbox["envdAccessToken"], "envdAccessToken");
    pins.json("create_from_template_201", &created, StatusCode::CREATED);
    let sandbox_path = format!("/sandboxes/{}", sandbox["sandboxID"].as_str().unwrap());
    pins.json("get_from_template", &get(&sandbox_path).await, StatusCode::OK);
    assert_eq!(
        c.call_raw(Method::DELETE, &sandbox_path, None).await.status,
        StatusCode::NO_CONTENT
    );

    let deleted = c.call_raw(Method::DELETE, "/templates/golden-tpl", None).await;
    pins.empty("delete_template_204", &deleted, StatusCode::NO_CONTENT);
    pins.json("gc_200", &post("/gc", json!({})).await, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_routes_answer_as_pinned() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let mut pins = Pins::new(&c);
    let call = async |method: Method, path: &str, body: Option<Value>| {
        c.call_raw(method, path, body).await
    };

    let bad = json!({"name": "no spaces allowed", "value": "v"});
    let bad = call(Method::POST, "/secrets", Some(bad)).await;
    pins.json("secret_create_bad_name_400", &bad, StatusCode::BAD_REQUEST);
    let new = json!({"name": "Golden-Secret", "value": "v1", "metadata": {"env": "prod"}});
    let made = call(Method::POST, "/secrets", Some(new)).await;
    let secret = made.json();
    pins.name(&secret["secretID"], "secretID");
    pins.json("secret_create_201", &made, StatusCode::CREATED);
    let taken = json!({"name": "golden-secret", "value": "v2"});
    let taken = call(Method::POST, "/secrets", Some(taken)).await;
    pins.json("secret_create_taken_409", &taken, StatusCode::CONFLICT);
    pins.json("secret_list", &call(Method::GET, "/secrets", None).await, StatusCode::OK);
    let by_name = call(Method::GET, "/secrets/golden-secret", None).await;
    pins.json("secret_get", &by_name, StatusCode::OK);
    let unknown = call(Method::GET, &format!("/secrets/{UNKNOWN}"), None).await;
    pins.json("secret_get_unknown_404", &unknown, StatusCode::NOT_FOUND);
    let id = secret["secretID"].as_str().unwrap().to_owned();
    let update = json!({"value": "v2"});
    let updated = call(Method::POST, &format!("/secrets/{id}"), Some(update)).await;
    pins.json("secret_update_200", &updated, StatusCode::OK);
    let deleted = call(Method::DELETE, &format!("/secrets/{id}"), None).await;
    pins.empty("secret_delete_204", &deleted, StatusCode::NO_CONTENT);
}
