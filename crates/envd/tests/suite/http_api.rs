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

// PEM-looking text: envd does not parse certificates (nor does E2B's).
const SYSTEM_CERTS: &str = "# System CA bundle\n\
-----BEGIN CERTIFICATE-----\nMIIBsystemONE/////AAAA\nc3lzdGVtIG9uZQ==\n-----END CERTIFICATE-----\n\
-----BEGIN CERTIFICATE-----\nMIIBsystemTWO/////BBBB\nc3lzdGVtIHR3bw==\n-----END CERTIFICATE-----\n";
const EGRESS_A: &str =
    "-----BEGIN CERTIFICATE-----\nMIIBegressA/////CCCC\nZWdyZXNzIEE=\n-----END CERTIFICATE-----";
const EGRESS_B: &str = "-----BEGIN CERTIFICATE-----\nMIIBegressB/////DDDD\nZWdyZXNzIEI=\n-----END CERTIFICATE-----\n\
-----BEGIN CERTIFICATE-----\nMIIBegressBintermediate\nZWdyZXNzIEIy\n-----END CERTIFICATE-----\n";

async fn post_init(envd: &common::TestEnvd, body: serde_json::Value) -> (u16, String) {
    let response = envd.http.post(envd.url("/init")).json(&body).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// The bundle's bytes, inode and modification time.
fn bundle_state(path: &std::path::Path) -> (String, u64, i64, i64) {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).unwrap();
    (std::fs::read_to_string(path).unwrap(), meta.ino(), meta.mtime(), meta.mtime_nsec())
}

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[tokio::test]
async fn init_ca_bundle_is_appended_once_and_replaced_on_rotation() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    std::fs::create_dir_all(paths.bundle.parent().unwrap()).unwrap();
    std::fs::write(&paths.bundle, SYSTEM_CERTS).unwrap();
    let before = bundle_state(&paths.bundle);

    // Absent or empty: nothing is touched.
    assert_eq!(post_init(&envd, serde_json::json!({})).await.0, 204);
    assert_eq!(post_init(&envd, serde_json::json!({"caBundle": ""})).await.0, 204);
    assert_eq!(bundle_state(&paths.bundle), before);
    assert!(!paths.extra.exists());

    // Appended, with one trailing newline; kept for update-ca-certificates too.
    let (status, body) = post_init(
        &envd,
        serde_json::json!({"caBundle": EGRESS_A, "timestamp": "2026-01-01T00:00:10Z"}),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let installed = bundle_state(&paths.bundle);
    assert_eq!(installed.0, format!("{SYSTEM_CERTS}{EGRESS_A}\n"));
    assert_eq!(mode(&paths.bundle), 0o644);
    assert_eq!(std::fs::read_to_string(&paths.extra).unwrap(), format!("{EGRESS_A}\n"));
    assert_eq!(mode(&paths.extra), 0o644);

    // The same PEM again (however its end is written): the file is not even rewritten.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    for pem in [EGRESS_A.to_owned(), format!("{EGRESS_A}\n\n")] {
        assert_eq!(post_init(&envd, serde_json::json!({"caBundle": pem})).await.0, 204);
        assert_eq!(bundle_state(&paths.bundle), installed);
    }

    // A stale /init installs nothing.
    let stale = serde_json::json!({"caBundle": EGRESS_B, "timestamp": "2026-01-01T00:00:05Z"});
    assert_eq!(post_init(&envd, stale).await.0, 204);
    assert_eq!(bundle_state(&paths.bundle), installed);

    // A different bundle replaces the first; the system's certificates stay.
    assert_eq!(post_init(&envd, serde_json::json!({"caBundle": EGRESS_B})).await.0, 204);
    let rotated = std::fs::read_to_string(&paths.bundle).unwrap();
    assert_eq!(rotated, format!("{SYSTEM_CERTS}{EGRESS_B}"));
    assert!(!rotated.contains("MIIBegressA"));
    assert_eq!(mode(&paths.bundle), 0o644);
    assert_eq!(std::fs::read_to_string(&paths.extra).unwrap(), EGRESS_B);

    // No temporary file is left beside either.
    for dir in [paths.bundle.parent().unwrap(), paths.extra.parent().unwrap()] {
        let names: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}

#[tokio::test]
async fn init_ca_bundle_creates_a_missing_bundle() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    assert_eq!(post_init(&envd, serde_json::json!({"caBundle": ""})).await.0, 204);
    assert!(!paths.bundle.exists());

    let (status, body) = post_init(&envd, serde_json::json!({"caBundle": EGRESS_A})).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(std::fs::read_to_string(&paths.bundle).unwrap(), format!("{EGRESS_A}\n"));
    assert_eq!(mode(&paths.bundle), 0o644);
    assert!(paths.bundle.parent().unwrap().is_dir());
}

/// `caBundlePath` (dsh extension): a bundle of its own, made from the system's the first
/// time, the system's untouched (a sandbox whose `/etc` cannot be written).
#[tokio::test]
async fn init_ca_bundle_path_makes_a_bundle_of_its_own_from_the_system_one() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    std::fs::create_dir_all(paths.bundle.parent().unwrap()).unwrap();
    std::fs::write(&paths.bundle, SYSTEM_CERTS).unwrap();
    let own = paths.bundle.parent().unwrap().parent().unwrap().join("own/bundle.crt");
    let body = serde_json::json!({"caBundle": EGRESS_A, "caBundlePath": own});
    assert_eq!(post_init(&envd, body.clone()).await.0, 204);
    assert_eq!(std::fs::read_to_string(&own).unwrap(), format!("{SYSTEM_CERTS}{EGRESS_A}\n"));
    assert_eq!(std::fs::read_to_string(&paths.bundle).unwrap(), SYSTEM_CERTS);
    assert!(!paths.extra.exists());
    // Again: nothing changes.
    assert_eq!(post_init(&envd, body).await.0, 204);
    assert_eq!(std::fs::read_to_string(&own).unwrap(), format!("{SYSTEM_CERTS}{EGRESS_A}\n"));
}

#[tokio::test]
async fn init_ca_bundle_appends_on_a_line_of_its_own() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    std::fs::create_dir_all(paths.bundle.parent().unwrap()).unwrap();
    let unterminated = SYSTEM_CERTS.trim_end_matches('\n');
    std::fs::write(&paths.bundle, unterminated).unwrap();
    assert_eq!(post_init(&envd, serde_json::json!({"caBundle": EGRESS_A})).await.0, 204);
    assert_eq!(
        std::fs::read_to_string(&paths.bundle).unwrap(),
        format!("{unterminated}\n{EGRESS_A}\n")
    );
}

#[tokio::test]
async fn init_ca_bundle_failure_answers_why_and_changes_nothing() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    // The bundle's directory is a regular file: neither it nor the bundle can be made.
    let dir = paths.bundle.parent().unwrap();
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    std::fs::write(dir, "not a directory").unwrap();

    let (status, body) =
        post_init(&envd, serde_json::json!({"caBundle": EGRESS_A, "envVars": {"GREETING": "hi"}}))
            .await;
    assert_eq!(status, 500);
    assert!(body.starts_with("failed to install CA bundle: "), "{body}");
    assert!(body.contains(&dir.display().to_string()), "{body}");
    let envs: serde_json::Value =
        envd.http.get(envd.url("/envs")).send().await.unwrap().json().await.unwrap();
    assert_eq!(envs, serde_json::json!({"E2B_SANDBOX": "true"}));
    assert!(!paths.extra.exists());
}

#[tokio::test]
async fn concurrent_init_ca_bundles_leave_exactly_one_installed() {
    let envd = common::start().await;
    let paths = envd.ca_paths.clone();
    std::fs::create_dir_all(paths.bundle.parent().unwrap()).unwrap();
    std::fs::write(&paths.bundle, SYSTEM_CERTS).unwrap();
    let pems: Vec<String> = (0..8)
        .map(|i| {
            format!("-----BEGIN CERTIFICATE-----\nMIIBconcurrent{i}\n-----END CERTIFICATE-----\n")
        })
        .collect();
    let calls = pems.iter().map(|pem| post_init(&envd, serde_json::json!({"caBundle": pem})));
    for (status, body) in futures_util::future::join_all(calls).await {
        assert_eq!(status, 204, "{body}");
    }
    let bundle = std::fs::read_to_string(&paths.bundle).unwrap();
    let installed = bundle.strip_prefix(SYSTEM_CERTS).unwrap();
    assert!(pems.iter().any(|pem| pem == installed), "{bundle}");
    assert_eq!(std::fs::read_to_string(&paths.extra).unwrap(), installed);
}

#[tokio::test]
async fn strict_envd_before_0_5_13_ignores_ca_bundle() {
    let envd = common::start_with(dsh_envd::EnvdConfig {
        default_user: "user".into(),
        strict: Some(dsh_envd::strict::StrictVersion(0, 5, 12)),
        ..dsh_envd::EnvdConfig::default()
    })
    .await;
    assert_eq!(post_init(&envd, serde_json::json!({"caBundle": EGRESS_A})).await.0, 204);
    assert!(!envd.ca_paths.bundle.exists());
}
