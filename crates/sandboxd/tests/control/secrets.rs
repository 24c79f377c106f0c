//! Secrets (E2B's `/secrets`): create, list (paged), get by id and by name, update, delete,
//! over real HTTP to a real daemon. The value goes in and never comes out: no answer, no
//! error, no log line of the daemon holds it; only the daemon's own store resolves it
//! (what the egress path calls). Names are lower-cased; bad requests are 400s saying
//! which rule they broke, quoting nothing of the request; the files are 0600 in a 0700
//! directory and outlive the daemon.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{
    Client, Harness, RawReply, daemon_binary, envd_binary, init_binary, wait_until,
};

/// Conspicuous stand-ins for secret values (E2B's own,
/// packages/api/internal/handlers/secrets_test.go:40). No assertion prints them.
const VALUE: &str = "sentinel-value-DO-NOT-LOG-0000";
const VALUE_2: &str = "sentinel-value-DO-NOT-LOG-0002";
const VALUE_3: &str = "sentinel-value-DO-NOT-LOG-0003";
const SENTINELS: [&str; 3] = [VALUE, VALUE_2, VALUE_3];

/// What a name must be, as every name refusal ends.
const NAME_RULE: &str = "a secret's name is 1 to 128 letters, digits, '_' or '-'";

/// Fails, without echoing the sentinel, when `text` holds a secret value.
#[track_caller]
fn assert_no_value(what: &str, text: &str) {
    for sentinel in SENTINELS {
        assert!(!text.contains(sentinel), "{what} holds a secret value");
    }
}

/// A request's answer as sent, checked for secret values and for `no-store`.
async fn call(c: &Client, method: Method, path: &str, body: Option<Value>) -> RawReply {
    let reply = c.call_raw(method.clone(), path, body).await;
    checked(&format!("{method} {path}"), reply)
}

#[track_caller]
fn checked(what: &str, reply: RawReply) -> RawReply {
    assert_no_value(what, &reply.body);
    for value in reply.headers.values() {
        assert_no_value(what, &String::from_utf8_lossy(value.as_bytes()));
    }
    // Every answer of the path family, errors too (E2B: packages/api/main.go:114-116).
    assert_eq!(reply.headers["cache-control"], "no-store", "{what}");
    reply
}

/// `{"code": 400, "message": message}`.
#[track_caller]
fn assert_error(reply: &RawReply, status: StatusCode, message: &str) {
    assert_eq!(
        (reply.status, reply.json()),
        (status, json!({"code": status.as_u16(), "message": message})),
        "{}",
        reply.body
    );
}

/// `body`'s top-level keys are exactly `keys`, sent in that order.
#[track_caller]
fn assert_keys_in_order(body: &str, keys: &[&str]) {
    let parsed = serde_json::from_str::<Value>(body).unwrap();
    let mut sent: Vec<&str> = parsed.as_object().unwrap().keys().map(String::as_str).collect();
    sent.sort_unstable();
    let mut expected = keys.to_vec();
    expected.sort_unstable();
    assert_eq!(sent, expected, "{body}");
    let at: Vec<usize> = keys.iter().map(|k| body.find(&format!("\"{k}\":")).unwrap()).collect();
    assert!(at.is_sorted(), "keys out of order: {body}");
}

/// An RFC 3339 UTC time as (seconds part, nanoseconds), to compare two.
fn instant(time: &Value) -> (String, u32) {
    let text = time.as_str().unwrap().strip_suffix('Z').unwrap();
    let (seconds, fraction) = text.split_once('.').unwrap_or((text, ""));
    let nanos = format!("{fraction:0<9}").parse().unwrap();
    (seconds.to_owned(), nanos)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_is_made_read_updated_and_deleted_without_its_value_coming_out() {
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let new = json!({"name": "My-API_Token", "value": VALUE, "metadata": {"env": "prod"}});
    let made = call(&c, Method::POST, "/secrets", Some(new)).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    assert_eq!(made.content_type(), Some("application/json"));
    // E2B's Secret, its keys as E2B's server sends them (byte order), no value.
    let keys = ["createdAt", "currentVersion", "metadata", "name", "secretID", "updatedAt"];
    assert_keys_in_order(&made.body, &keys);
    let secret = made.json();
    let id = secret["secretID"].as_str().unwrap().to_owned();
    assert!(id.starts_with("sec_") && id.len() == 30, "{id}");
    assert!(id[4..].bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()), "{id}");
    assert_eq!(secret["name"], "my-api_token", "the name is lower-cased");
    assert_eq!(secret["currentVersion"], 1);
    assert_eq!(secret["metadata"], json!({"env": "prod"}));
    assert_eq!(secret["createdAt"], secret["updatedAt"]);
    assert!(secret["createdAt"].as_str().unwrap().ends_with('Z'));
    let created_at = secret["createdAt"].clone();

    // One name, whatever its case: 409.
    let taken = json!({"name": "MY-API_TOKEN", "value": VALUE_2});
    let taken = call(&c, Method::POST, "/secrets", Some(taken)).await;
    assert_error(&taken, StatusCode::CONFLICT, "a secret with this name already exists");

    // By id, by name in any case: the same answer.
    for selector in [id.as_str(), &id.to_uppercase(), "my-api_token", "My-API_Token"] {
        let got = call(&c, Method::GET, &format!("/secrets/{selector}"), None).await;
        assert_eq!((got.status, got.json()), (StatusCode::OK, secret.clone()), "{selector}");
    }
    for unknown in ["no-such-secret", "sec_01kyjhkfvse96rg4d2qzd9enft"] {
        let missing = call(&c, Method::GET, &format!("/secrets/{unknown}"), None).await;
        assert_error(&missing, StatusCode::NOT_FOUND, "Secret not found");
    }
    let listed = call(&c, Method::GET, "/secrets", None).await;
    assert_eq!((listed.status, listed.json()), (StatusCode::OK, json!([secret])));
    assert!(!listed.headers.contains_key("x-next-token"), "one page only");

    // The egress path's view: the value, by name.
    let secrets = h.daemon().secrets();
    assert_eq!(
        secrets.resolve("my-api_token").map(|v| v.expose().to_owned()).as_deref(),
        Some(VALUE)
    );
    assert_eq!(secrets.resolve("My-API_Token").map(|v| v.expose().len()), Some(VALUE.len()));
    assert!(secrets.resolve("no-such-secret").is_none());
    assert_no_value("the store's Debug", &format!("{secrets:?}"));
    assert_no_value("a value's Debug", &format!("{:?}", secrets.resolve("my-api_token")));

    // A new value: one version more, updatedAt later, metadata kept when not sent.
    let update = json!({"value": VALUE_2});
    let updated = call(&c, Method::POST, "/secrets/My-API_Token", Some(update)).await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    let updated = updated.json();
    assert_eq!(updated["currentVersion"], 2);
    assert_eq!(updated["metadata"], json!({"env": "prod"}));
    assert_eq!((&updated["secretID"], &updated["name"]), (&secret["secretID"], &secret["name"]));
    assert_eq!(updated["createdAt"], created_at);
    assert!(instant(&updated["updatedAt"]) > instant(&created_at), "{updated}");
    let secrets = h.daemon().secrets();
    assert_eq!(
        secrets.resolve("my-api_token").map(|v| v.expose().to_owned()).as_deref(),
        Some(VALUE_2)
    );
    // Metadata sent replaces; `{}` clears (E2B: handlers/secrets.go:234-238).
    let update = json!({"value": VALUE_3, "metadata": {"team": "a"}});
    let replaced = call(&c, Method::POST, &format!("/secrets/{id}"), Some(update)).await;
    assert_eq!(replaced.status, StatusCode::OK, "{}", replaced.body);
    let replaced = replaced.json();
    assert_eq!(
        (replaced["currentVersion"].clone(), replaced["metadata"].clone()),
        (json!(3), json!({"team": "a"}))
    );
    let update = json!({"value": VALUE_3, "metadata": {}});
    let cleared = call(&c, Method::POST, &format!("/secrets/{id}"), Some(update)).await.json();
    assert_eq!(
        (cleared["currentVersion"].clone(), cleared["metadata"].clone()),
        (json!(4), json!({}))
    );
    let nowhere =
        call(&c, Method::POST, "/secrets/no-such-secret", Some(json!({"value": VALUE}))).await;
    assert_error(&nowhere, StatusCode::NOT_FOUND, "Secret not found");

    // On disk: the directory 0700, the file 0600, holding the latest value.
    let dir = h.state().join("secrets");
    let file = dir.join(format!("{id}.json"));
    assert_eq!((mode(&dir), mode(&file)), (0o700, 0o600));
    let stored: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(stored["value"] == VALUE_3, "the file holds the latest value");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left");

    // A restart: the same secret, the same answer, the same value.
    h.restart().await;
    let c = h.client.clone();
    let again = call(&c, Method::GET, &format!("/secrets/{id}"), None).await;
    assert_eq!((again.status, again.json()), (StatusCode::OK, cleared.clone()));
    let secrets = h.daemon().secrets();
    assert_eq!(
        secrets.resolve("my-api_token").map(|v| v.expose().to_owned()).as_deref(),
        Some(VALUE_3)
    );
    assert_eq!((mode(&dir), mode(&file)), (0o700, 0o600));

    // Deleted (by name): 204, then 404 everywhere, the file gone.
    let deleted = call(&c, Method::DELETE, "/secrets/MY-api_token", None).await;
    assert_eq!((deleted.status, deleted.body.as_str()), (StatusCode::NO_CONTENT, ""));
    for (method, body) in
        [(Method::GET, None), (Method::DELETE, None), (Method::POST, Some(json!({"value": "v"})))]
    {
        let gone = call(&c, method, &format!("/secrets/{id}"), body).await;
        assert_error(&gone, StatusCode::NOT_FOUND, "Secret not found");
    }
    assert!(!file.exists());
    assert!(h.daemon().secrets().resolve("my-api_token").is_none());
    assert_eq!(call(&c, Method::GET, "/secrets", None).await.json(), json!([]));
    // The name is free again.
    let remade =
        call(&c, Method::POST, "/secrets", Some(json!({"name": "my-api_token", "value": VALUE})))
            .await;
    assert_eq!(remade.status, StatusCode::CREATED, "{}", remade.body);
    assert_ne!(remade.json()["secretID"], json!(id));
    assert_eq!(remade.json()["metadata"], json!({}), "metadata is always present");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_secret_requests_are_400s_that_say_what_is_wrong() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let name_error = |why: &str| format!("name: {why}: {NAME_RULE}");
    let many: serde_json::Map<String, Value> =
        (0..33).map(|i| (format!("k{i}"), json!("v"))).collect();
    let thirty_two: serde_json::Map<String, Value> =
        (0..32).map(|i| (format!("k{i}"), json!("v"))).collect();
    let big: serde_json::Map<String, Value> =
        (0..8).map(|i| (i.to_string(), json!("v".repeat(1024)))).collect();
    let cases: Vec<(Value, String)> = vec![
        (
            json!({"name": "my secret", "value": VALUE}),
            name_error("a character that is not allowed"),
        ),
        (
            json!({"name": "tab\tbed", "value": VALUE}),
            name_error("a character that is not allowed"),
        ),
        (json!({"name": " padded", "value": VALUE}), name_error("a character that is not allowed")),
        (json!({"name": "émoji", "value": VALUE}), name_error("a character that is not allowed")),
        (json!({"name": "a".repeat(129), "value": VALUE}), name_error("longer than 128 bytes")),
        (json!({"name": "", "value": VALUE}), name_error("empty")),
        (
            json!({"name": "SEC_reserved", "value": VALUE}),
            "name: the prefix 'sec_' is reserved for secret ids".into(),
        ),
        (json!({"value": VALUE}), "name: missing: a secret needs a name".into()),
        (json!({"name": 7, "value": VALUE}), "name: a string is expected".into()),
        (json!({"name": "no-value"}), "value: missing: a secret needs a value".into()),
        (json!({"name": "no-value", "value": null}), "value: a string is expected".into()),
        (json!({"name": "no-value", "value": 12345}), "value: a string is expected".into()),
        (
            json!({"name": "huge", "value": "v".repeat(64 * 1024 + 1)}),
            "value: longer than 65536 bytes".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": many}),
            "metadata: more than 32 entries (33 sent)".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": {"k".repeat(129): "v"}}),
            "metadata: a key is longer than 128 bytes".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": {"k": "v".repeat(1025)}}),
            "metadata: a value is longer than 1024 bytes".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": big}),
            "metadata: 8200 bytes in all (keys and values), more than the 8192 allowed".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": {"k": VALUE.len()}}),
            "metadata: every value must be a string".into(),
        ),
        (
            json!({"name": "meta", "value": VALUE, "metadata": [VALUE]}),
            "metadata: an object of strings is expected".into(),
        ),
        (
            json!([VALUE]),
            "invalid request body: a JSON object with the secret's value is expected".into(),
        ),
    ];
    for (body, message) in cases {
        let reply = call(&c, Method::POST, "/secrets", Some(body)).await;
        assert_error(&reply, StatusCode::BAD_REQUEST, &message);
    }
    // Not JSON at all, or none: 400; JSON sent as something else: 415 (as every route).
    let raw = |body: String, content_type: &str| {
        c.request(Method::POST, "/secrets").header("content-type", content_type).body(body)
    };
    let truncated = format!(r#"{{"name": "cut", "value": "{VALUE}"#);
    let reply = checked(
        "truncated",
        RawReply::read(raw(truncated, "application/json").send().await.unwrap()).await,
    );
    assert_error(
        &reply,
        StatusCode::BAD_REQUEST,
        "invalid request body: value: EOF while parsing a string at line 1 column 56",
    );
    let reply = checked(
        "empty",
        RawReply::read(raw(String::new(), "application/json").send().await.unwrap()).await,
    );
    assert_error(
        &reply,
        StatusCode::BAD_REQUEST,
        "invalid request body: a JSON object with the secret's value is expected",
    );
    let text = format!(r#"{{"name": "t", "value": "{VALUE}"}}"#);
    let reply =
        checked("text", RawReply::read(raw(text, "text/plain").send().await.unwrap()).await);
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{}", reply.body);

    // The limits themselves are allowed.
    let at_limits =
        json!({"name": "a".repeat(128), "value": "v".repeat(64 * 1024), "metadata": thirty_two});
    let made = call(&c, Method::POST, "/secrets", Some(at_limits)).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let edge: serde_json::Map<String, Value> =
        (0..8).map(|i| (i.to_string(), json!("v".repeat(1023)))).collect();
    let made = call(
        &c,
        Method::POST,
        "/secrets",
        Some(json!({"name": "x", "value": "", "metadata": edge})),
    )
    .await;
    assert_eq!(
        made.status,
        StatusCode::CREATED,
        "8192 bytes of metadata, an empty value: {}",
        made.body
    );

    // Updates: the path is checked first, then the body.
    let path_error = |why: &str| format!("the secret name in the path: {why}: {NAME_RULE}");
    let id_error = "the secretID in the path is malformed: an id is 'sec_' and 26 of 0-9 and a-z but i, l, o and u";
    let too_long = format!("/secrets/{}", "a".repeat(129));
    for (path, body, message) in [
        ("/secrets/x", json!({}), "value: missing: a secret needs a value".to_owned()),
        (
            "/secrets/x",
            json!({"value": VALUE, "metadata": "env"}),
            "metadata: an object of strings is expected".into(),
        ),
        ("/secrets/bad%20name!", json!({}), path_error("a character that is not allowed")),
        ("/secrets/sec_nope", json!({"value": VALUE}), id_error.into()),
        ("/secrets/SEC_FOO", json!({"value": VALUE}), id_error.into()),
        (too_long.as_str(), json!({"value": VALUE}), path_error("longer than 128 bytes")),
    ] {
        let reply = call(&c, Method::POST, path, Some(body)).await;
        assert_error(&reply, StatusCode::BAD_REQUEST, &message);
    }
    for path in ["/secrets/bad%20name!", "/secrets/sec_nope"] {
        for method in [Method::GET, Method::DELETE] {
            let reply = call(&c, method, path, None).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}: {}", reply.body);
        }
    }
    // The list's paging parameters.
    let limit_error = "limit: a whole number from 1 to 100 is expected";
    let token_error = "nextToken: not a token this API handed out (send X-Next-Token's value)";
    for (query, message) in [
        ("limit=0", limit_error),
        ("limit=101", limit_error),
        ("limit=-1", limit_error),
        ("limit=ten", limit_error),
        ("nextToken=sentinel-value-DO-NOT-LOG-0000", token_error),
    ] {
        let reply = call(&c, Method::GET, &format!("/secrets?{query}"), None).await;
        assert_error(&reply, StatusCode::BAD_REQUEST, message);
    }
    // Without the API key: 401, as every control route.
    let anonymous = c.http.get(format!("{}/secrets", c.base)).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // Nothing refused was stored.
    let listed = call(&c, Method::GET, "/secrets", None).await.json();
    let names: Vec<&str> =
        listed.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a".repeat(128).as_str(), "x"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_is_paged_with_next_tokens() {
    let h = Harness::start().await;
    let c = h.client.clone();
    let mut ids = Vec::new();
    for i in 0..5 {
        let made = call(
            &c,
            Method::POST,
            "/secrets",
            Some(json!({"name": format!("s{i}"), "value": VALUE})),
        )
        .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
        ids.push(made.json()["secretID"].as_str().unwrap().to_owned());
        // Ids sort by time, to the millisecond: the list's order is the creates'.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let all = call(&c, Method::GET, "/secrets", None).await;
    let listed: Vec<String> = all
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["secretID"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, ids, "oldest first");
    assert!(!all.headers.contains_key("x-next-token"));

    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let query = match &token {
            Some(token) => format!("/secrets?limit=2&nextToken={token}"),
            None => "/secrets?limit=2".to_owned(),
        };
        let page = call(&c, Method::GET, &query, None).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        let page_ids: Vec<String> = page
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["secretID"].as_str().unwrap().to_owned())
            .collect();
        token = page.headers.get("x-next-token").map(|v| v.to_str().unwrap().to_owned());
        pages.push(page_ids);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(pages, [ids[0..2].to_vec(), ids[2..4].to_vec(), ids[4..].to_vec()]);

    // A token stays good when the secret it names is deleted meanwhile.
    let first = call(&c, Method::GET, "/secrets?limit=2", None).await;
    let token = first.headers["x-next-token"].to_str().unwrap().to_owned();
    assert_eq!(token, ids[1]);
    let deleted = call(&c, Method::DELETE, &format!("/secrets/{}", ids[1]), None).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let next = call(&c, Method::GET, &format!("/secrets?limit=2&nextToken={token}"), None).await;
    let next_ids: Vec<String> = next
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["secretID"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(next_ids, ids[2..4]);
    // A last page exactly full has no token.
    let last = call(&c, Method::GET, &format!("/secrets?limit=1&nextToken={}", ids[3]), None).await;
    assert_eq!(last.json().as_array().unwrap().len(), 1);
    assert!(!last.headers.contains_key("x-next-token"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_logs_no_secret_value() {
    // The daemon's binary, logging everything (RUST_LOG=trace) to a file.
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-secrets-").tempdir().unwrap();
    let state = dir.path().join("state");
    let log = dir.path().join("daemon.log");
    let _cleanup = super::harness::KillOnDrop(state.clone());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new(daemon_binary())
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--state-dir"])
        .arg(&state)
        .arg("--envd")
        .arg(envd_binary())
        .arg("--init")
        .arg(init_binary())
        .args(["--pool", "0"])
        .env("RUST_LOG", "trace")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id();
    let _stop = super::harness::scopeguard(|| {
        let _ = child.kill();
        let _ = child.wait();
    });
    let key_file = state.join("api-key");
    let base = format!("http://127.0.0.1:{port}");
    wait_until("the daemon to listen", Duration::from_secs(20), async || {
        key_file.exists() && reqwest::get(format!("{base}/health")).await.is_ok()
    })
    .await;
    let c = Client::new(&base, std::fs::read_to_string(&key_file).unwrap().trim());

    // Every route, with values in good requests and in refused ones.
    let made =
        call(&c, Method::POST, "/secrets", Some(json!({"name": "logged", "value": VALUE}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let id = made.json()["secretID"].as_str().unwrap().to_owned();
    for (method, path, body) in [
        (Method::POST, "/secrets".to_owned(), json!({"name": "logged", "value": VALUE})),
        (Method::POST, "/secrets".to_owned(), json!({"name": VALUE, "value": 1})),
        (
            Method::POST,
            "/secrets".to_owned(),
            json!({"name": "m", "value": VALUE, "metadata": {"k": [VALUE]}}),
        ),
        (Method::POST, "/secrets/logged".to_owned(), json!({"value": VALUE_2})),
        (Method::POST, format!("/secrets/{id}"), json!({"value": VALUE_3, "metadata": {"k": "v"}})),
        (Method::GET, format!("/secrets/{id}"), Value::Null),
        (Method::GET, "/secrets?limit=1".to_owned(), Value::Null),
        (Method::DELETE, "/secrets/logged".to_owned(), Value::Null),
    ] {
        let body = (!body.is_null()).then_some(body);
        let reply = call(&c, method, &path, body).await;
        assert!(reply.status.as_u16() < 500, "{path}: {}", reply.body);
    }
    let truncated = format!(r#"{{"name": "cut", "value": "{VALUE}"#);
    let request = c.request(Method::POST, "/secrets").header("content-type", "application/json");
    checked("truncated", RawReply::read(request.body(truncated).send().await.unwrap()).await);

    // SIGTERM: the daemon stops and its log is complete.
    // SAFETY: kill(2) of our own child.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    wait_until("the daemon to stop", Duration::from_secs(30), async || {
        std::fs::read_to_string(&log).unwrap_or_default().contains("dsh-sandboxd stopped")
    })
    .await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("secret created") && text.contains("secret deleted"),
        "the log is the daemon's"
    );
    assert!(text.contains(&id), "the log names secrets by id");
    assert_no_value("the daemon's log", &text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_bodies_get_a_secret_or_an_e2b_shaped_4xx_never_a_500() {
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    let h = Harness::start().await;
    let c = h.client.clone();
    let made =
        call(&c, Method::POST, "/secrets", Some(json!({"name": "target", "value": VALUE}))).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-zA-Z0-9_ é.\\x00-]{0,12}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(vec!["name", "value", "metadata"])
                            .prop_map(str::to_owned),
                        "[a-z]{1,4}"
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    });
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 64,
        failure_persistence: None,
        ..Default::default()
    });
    let mut created = 1;
    for (path, success) in [("/secrets", StatusCode::CREATED), ("/secrets/target", StatusCode::OK)]
    {
        for _ in 0..runner.config().cases {
            let body = value.new_tree(&mut runner).unwrap().current();
            let reply = call(&c, Method::POST, path, Some(body.clone())).await;
            if reply.status == success {
                created += usize::from(success == StatusCode::CREATED);
                continue;
            }
            assert!(
                matches!(reply.status.as_u16(), 400 | 409),
                "{path} {body}: {} {}",
                reply.status,
                reply.body
            );
            let answer = reply.json();
            assert_eq!(answer["code"], reply.status.as_u16(), "{path} {body}: {answer}");
            assert!(!answer["message"].as_str().unwrap().is_empty(), "{path} {body}");
        }
    }
    let listed = call(&c, Method::GET, "/secrets", None).await.json();
    assert_eq!(listed.as_array().unwrap().len(), created, "only what was answered 201 is stored");
}
