//! `/health`, `/init`, `/envs`, `/metrics`.

use dsh_proto::process::StartResponse;

use crate::common::{self, bash};

#[tokio::test]
async fn init_sets_env_token_and_defaults_and_ignores_stale_requests() {
    let envd = common::start().await;
    std::fs::create_dir(envd.home.join("wd")).unwrap();
    let init = |body: serde_json::Value, token: Option<&str>| {
        let mut request = envd.http.post(envd.url("/init")).json(&body);
        if let Some(token) = token {
            request = request.header("x-access-token", token);
        }
        request.send()
    };
    let response = init(
        serde_json::json!({
            "envVars": {"GREETING": "hi"},
            "accessToken": "tok",
            "timestamp": "2026-01-01T00:00:10Z",
            "defaultUser": "root",
            "defaultWorkdir": envd.home.join("wd"),
        }),
        None,
    )
    .await
    .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    assert_eq!(response.headers()["x-envd-version"], dsh_proto::ENVD_VERSION);

    let envs: serde_json::Value = envd
        .http
        .get(envd.url("/envs"))
        .header("x-access-token", "tok")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(envs, serde_json::json!({"E2B_SANDBOX": "true", "GREETING": "hi"}));
    let start = dsh_proto::process::StartRequest {
        process: Some(bash("echo $GREETING; id -u; pwd")),
        ..Default::default()
    };
    let outcome = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start, &[("x-access-token", "tok")])
        .await;
    let text: String = outcome
        .messages
        .iter()
        .filter_map(|m| match m.event.as_ref()?.event.as_ref()? {
            dsh_proto::process::process_event::Event::Data(d) => match d.output.as_ref()? {
                dsh_proto::process::process_event::data_event::Output::Stdout(b) => {
                    Some(String::from_utf8_lossy(b).into_owned())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(text, format!("hi\n0\n{}/wd\n", envd.home.display()));

    // A call refused for want of the token: its body was not read, so the connection
    // closes after the answer and says so (a reused one would fail the next call).
    let refused_rpc = envd
        .http
        .post(envd.url("/filesystem.Filesystem/Stat"))
        .header("content-type", "application/json")
        .body(r#"{"path": "/"}"#)
        .send()
        .await
        .unwrap();
    let connection =
        refused_rpc.headers().get("connection").map(|v| v.to_str().unwrap().to_owned());
    assert_eq!((refused_rpc.status().as_u16(), connection.as_deref()), (401, Some("close")));

    // Changing anything now needs the token; an older timestamp changes nothing.
    let refused = init(serde_json::json!({"envVars": {}}), None).await.unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let stale = init(
        serde_json::json!({"envVars": {"GREETING": "old"}, "accessToken": "tok", "timestamp": "2026-01-01T00:00:05Z"}),
        Some("tok"),
    )
    .await
    .unwrap();
    assert_eq!(stale.status().as_u16(), 204);
    let envs: serde_json::Value = envd
        .http
        .get(envd.url("/envs"))
        .header("x-access-token", "tok")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(envs["GREETING"], "hi");
    let bad = envd
        .http
        .post(envd.url("/init"))
        .header("x-access-token", "tok")
        .body("{nope")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status().as_u16(), 400);
}

#[tokio::test]
async fn metrics_report_the_documented_fields() {
    let envd = common::start().await;
    let metrics: serde_json::Value =
        envd.http.get(envd.url("/metrics")).send().await.unwrap().json().await.unwrap();
    for key in [
        "ts",
        "cpu_count",
        "mem_total",
        "mem_used",
        "mem_cache",
        "mem_total_mib",
        "mem_used_mib",
        "disk_used",
        "disk_total",
    ] {
        assert!(metrics[key].is_u64(), "{key}: {metrics}");
    }
    assert!(metrics["cpu_used_pct"].is_f64());
    assert!(metrics["mem_total"].as_u64().unwrap() > metrics["mem_used"].as_u64().unwrap());
    let health = envd.http.get(envd.url("/health")).send().await.unwrap();
    assert_eq!(
        (health.status().as_u16(), &health.headers()["cache-control"]),
        (204, &"no-store".parse::<reqwest::header::HeaderValue>().unwrap())
    );
}
