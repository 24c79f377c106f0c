//! Validation at the control plane's boundary: every route's body, generated (proptest)
//! and hand-picked, gets either its success status or a 4xx in E2B's error shape whose
//! message names what is wrong: never a 500, never a sandbox made from a bad request.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::Harness;

/// Field names the routes know, so generated objects hit real fields with wrong values.
const FIELDS: &[&str] = &[
    "templateID",
    "timeout",
    "autoPause",
    "secure",
    "metadata",
    "envVars",
    "cpuCount",
    "memoryMB",
    "network",
    "allow_internet_access",
    "autoResume",
    "allowOut",
    "denyOut",
    "allowPublicTraffic",
    "maskRequestHost",
    "npm",
    "enabled",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        "[a-zA-Z0-9=\\x00 ._@/-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(FIELDS).prop_map(str::to_owned),
                        "[a-z=\\x00]{1,6}"
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// A body as bytes with the content type it is sent with.
fn request_body() -> impl Strategy<Value = (Vec<u8>, Option<&'static str>)> {
    let bytes = prop_oneof![
        3 => json_value().prop_map(|v| serde_json::to_vec(&v).unwrap_or_default()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ];
    let content_type = prop::sample::select(vec![
        None,
        Some("application/json"),
        Some("application/json; charset=utf-8"),
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ]);
    (bytes, content_type)
}

async fn send(
    h: &Harness,
    method: Method,
    path: &str,
    body: &[u8],
    content_type: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", h.daemon().url()))
        .header("X-API-Key", h.daemon().api_key())
        .body(body.to_vec());
    if let Some(content_type) = content_type {
        request = request.header("Content-Type", content_type);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let bytes = response.bytes().await.unwrap();
    let value =
        if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() };
    (status, value)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_bodies_get_their_status_or_an_e2b_shaped_4xx_never_a_500() {
    let h = Harness::start().await;
    let sandbox = h.client.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let routes: Vec<(Method, String, &str, &[u16])> = vec![
        (Method::POST, "/v2/sandboxes".into(), "POST /sandboxes", &[201]),
        (Method::POST, format!("/sandboxes/{id}/timeout"), "POST /sandboxes/{id}/timeout", &[204]),
        (Method::POST, format!("/sandboxes/{id}/connect"), "POST /sandboxes/{id}/connect", &[200]),
        (Method::PUT, format!("/sandboxes/{id}/network"), "PUT /sandboxes/{id}/network", &[204]),
        (Method::POST, "/layers".into(), "POST /layers", &[]),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 48,
        failure_persistence: None,
        ..Default::default()
    });
    for (method, path, route, successes) in &routes {
        for _ in 0..runner.config().cases {
            let (body, content_type) = request_body().new_tree(&mut runner).unwrap().current();
            let expected = dsh_sandboxd::server::check_body(route, content_type, &body);
            if expected.is_ok() && successes.is_empty() {
                continue; // a valid recipe would run npm: not here
            }
            let (status, answer) = send(&h, method.clone(), path, &body, content_type).await;
            let shown = String::from_utf8_lossy(&body);
            match expected {
                Ok(()) => {
                    assert!(
                        successes.contains(&status.as_u16()),
                        "{route} {shown:?}: {status} {answer}"
                    );
                    if status == StatusCode::CREATED && *route == "POST /sandboxes" {
                        let made = answer["sandboxID"].as_str().unwrap();
                        let killed = h
                            .client
                            .call(Method::DELETE, &format!("/sandboxes/{made}"), None)
                            .await;
                        assert_eq!(killed.status, StatusCode::NO_CONTENT);
                    }
                }
                Err((code, message)) => {
                    assert_eq!(
                        status.as_u16(),
                        code,
                        "{route} {shown:?} ({content_type:?}): {answer}"
                    );
                    assert_eq!(
                        answer,
                        json!({"code": code, "message": message}),
                        "{route} {shown:?}"
                    );
                    assert!((400..500).contains(&code), "{route} {shown:?}: {code}");
                }
            }
        }
    }
    // Nothing made from a bad request lingers: only the one sandbox is listed.
    let list = h.client.call(Method::GET, "/v2/sandboxes", None).await;
    assert_eq!(list.body.as_array().unwrap().len(), 1, "{}", list.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bodies_are_refused_with_a_message_naming_the_field() {
    let h = Harness::start().await;
    let cases: Vec<(&[u8], Option<&str>, u16, &str)> = vec![
        (
            br#"{"templateID":"base"}"#,
            Some("text/plain"),
            415,
            "the body must be JSON (Content-Type: application/json), not \"text/plain\"",
        ),
        (
            b"templateID=base",
            Some("application/x-www-form-urlencoded"),
            415,
            "the body must be JSON (Content-Type: application/json), not \"application/x-www-form-urlencoded\"",
        ),
        (
            br#"{"timeout":"soon"}"#,
            Some("application/json"),
            400,
            "invalid request body: timeout: invalid type: string \"soon\", expected i64 at line 1 column 17",
        ),
        (
            br#"{"metadata":{"team":7}}"#,
            None,
            400,
            "invalid request body: metadata.team: invalid type: integer `7`, expected a string at line 1 column 21",
        ),
        (
            br#"{"envVars":{"A=B":"x"}}"#,
            None,
            400,
            "envVars: \"A=B\" is not a variable name (it must be non-empty, without '=' or NUL)",
        ),
        (br#"{} {}"#, None, 400, "invalid request body: trailing characters at line 1 column 4"),
    ];
    for (body, content_type, code, message) in cases {
        assert_eq!(
            dsh_sandboxd::server::check_body("POST /sandboxes", content_type, body),
            Err((code, message.to_owned()))
        );
        let (status, answer) = send(&h, Method::POST, "/v2/sandboxes", body, content_type).await;
        assert_eq!(status.as_u16(), code);
        assert_eq!(answer, json!({"code": code, "message": message}));
    }
    // JSON without a Content-Type (what curl -d sends is a form; no header at all is JSON).
    let (status, made) =
        send(&h, Method::POST, "/v2/sandboxes", br#"{"templateID":"base"}"#, None).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(
        dsh_sandboxd::server::check_body("POST /nowhere", None, b"{}"),
        Err((404, "no route POST /nowhere".to_owned()))
    );
}
