//! dsh-e2b's cloud path (TLS, HTTP/2, the API and sandbox hosts of a domain) through the
//! stand-in edge in front of a real dsh-sandboxd, on loopback only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dsh_e2b::{Connection, Sandbox, SandboxConfig};
use dsh_edge_standin::Edge;

const DOMAIN: &str = "e2b.test";

async fn open(edge: &Edge, daemon: &dsh_sandboxd::testing::TestDaemon) -> Sandbox {
    let http =
        dsh_e2b::http_client_with(Some(edge.ca_file.to_str().unwrap()), Some(&edge.resolve_rule()))
            .unwrap();
    // What E2B_DOMAIN=<domain>:<port> and E2B_API_KEY give: nothing else configured.
    let connection = Connection::resolve(None, daemon.api_key(), None, Some(&edge.client_domain()));
    assert_eq!(connection.api_url, edge.api_url());
    let config = SandboxConfig { template: Some("base".into()), ..SandboxConfig::default() };
    Sandbox::open(http, &connection, &config).await.unwrap()
}

/// `sleep 30` started in the sandbox: a stream that stays open.
async fn sleeping(envd: &dsh_e2b::EnvdClient) -> dsh_e2b::ProcessStream {
    envd.start(dsh_e2b::StartOptions {
        cmd: "/bin/sleep".into(),
        args: vec!["30".into()],
        ..dsh_e2b::StartOptions::default()
    })
    .await
    .unwrap()
}

/// How `stream` ended (its events skipped), within 5 s of its last event.
async fn end_of(
    stream: &mut dsh_e2b::ProcessStream,
) -> dsh_e2b::Result<Option<dsh_e2b::ProcessOutput>> {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap() {
            Ok(Some(_)) => continue,
            other => return other,
        }
    }
}

#[tokio::test]
async fn the_cloud_path_keeps_the_api_key_and_the_access_token_apart_over_h2() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let sandbox = open(&edge, &daemon).await;
    let backend = sandbox.backend();
    assert_eq!(
        backend.run_helper(&["echo", "through-the-edge"]).await.unwrap(),
        "through-the-edge\n"
    );
    let path = format!("{}/edge.txt", sandbox.cwd().display());
    backend.envd().write_file(&path, bytes::Bytes::from_static(b"e\n"), None).await.unwrap();
    assert_eq!(
        backend.envd().read_file(&path, None).await.unwrap(),
        bytes::Bytes::from_static(b"e\n")
    );
    let token = sandbox.info().envd_access_token.clone().expect("a secure sandbox has a token");
    sandbox.dispose().await.unwrap();

    let recorded = edge.recorded();
    let api_host = format!("api.{}", edge.client_domain());
    let envd_host = format!("49983-{}.{}", sandbox.id(), edge.client_domain());
    let (api, envd): (Vec<_>, Vec<_>) = recorded.iter().partition(|r| r.authority == api_host);
    assert!(!api.is_empty() && !envd.is_empty(), "{recorded:#?}");
    for request in &api {
        assert_eq!(request.header("x-api-key"), Some(daemon.api_key().as_str()));
        assert_eq!(request.header("x-access-token"), None, "access token sent to the API host");
        assert_eq!(request.version, "HTTP/2.0");
    }
    for request in &envd {
        assert_eq!(request.authority, envd_host);
        assert_eq!(request.header("x-api-key"), None, "API key sent to the sandbox host");
        // `/files` authenticates by the token too (E2B's envd checks it there).
        if request.path != "/files" {
            assert_eq!(request.header("x-access-token"), Some(token.as_str()), "{request:?}");
        }
        assert_eq!(request.version, "HTTP/2.0");
    }
    daemon.stop().await.unwrap();
}

#[tokio::test]
async fn a_killed_sandbox_is_a_typed_gone_within_a_second_through_the_edge() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let sandbox = open(&edge, &daemon).await;
    let envd = sandbox.backend().envd().clone();
    let mut stream = sleeping(&envd).await;
    assert!(sandbox.control().kill(sandbox.id()).await.unwrap());
    let started = std::time::Instant::now();
    let ended = end_of(&mut stream).await;
    assert!(matches!(ended, Err(dsh_e2b::Error::SandboxGone(_))), "{ended:?}");
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert!(err.is_sandbox_gone(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    daemon.stop().await.unwrap();
}

#[tokio::test]
async fn after_goaway_and_reset_streams_the_client_goes_on_on_a_new_connection() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let sandbox = open(&edge, &daemon).await;
    let envd = sandbox.backend().envd().clone();
    let mut stream = sleeping(&envd).await;
    edge.reset_connections();
    // The open stream is cut; the sandbox lives, so it is a transport error, not "gone".
    let cut = end_of(&mut stream).await;
    assert!(matches!(cut, Err(dsh_e2b::Error::Transport(_))), "{cut:?}");
    assert_eq!(sandbox.backend().run_helper(&["echo", "again"]).await.unwrap(), "again\n");
    sandbox.dispose().await.unwrap();
    daemon.stop().await.unwrap();
}

fn raw_client(edge: &Edge) -> reqwest::Client {
    dsh_e2b::http_client_with(Some(edge.ca_file.to_str().unwrap()), Some(&edge.resolve_rule()))
        .unwrap()
}

/// (status, content type, body) of `request`.
async fn answer_of(request: reqwest::RequestBuilder) -> (u16, String, String) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, kind, response.text().await.unwrap())
}

/// What E2B's proxy answers a request it cannot route (packages/shared/pkg/proxy/host.go
/// and handler.go), and a sandbox it does not have (template/sandbox_not_found.go).
#[tokio::test]
async fn the_edge_answers_what_it_cannot_route_as_e2bs_proxy_does() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let http = raw_client(&edge);
    let port = edge.address.port();
    let text = |body: &str| (400, "text/plain; charset=utf-8".to_owned(), format!("{body}\n"));
    let shared = format!("{}/health", edge.sandbox_url());
    // One routing header without the other.
    let only_id = http.get(&shared).header("E2b-Sandbox-Id", "abc123");
    assert_eq!(answer_of(only_id).await, text("missing header"));
    // No headers: the shared host is parsed as `<port>-<id>`, which it is not.
    assert_eq!(answer_of(http.get(&shared)).await, text("Invalid host"));
    let bad_port =
        http.get(&shared).header("E2b-Sandbox-Id", "abc123").header("E2b-Sandbox-Port", "envd");
    assert_eq!(answer_of(bad_port).await, text("Invalid sandbox port"));
    let bad_id =
        http.get(&shared).header("E2b-Sandbox-Id", "not_an_id").header("E2b-Sandbox-Port", "49983");
    assert_eq!(answer_of(bad_id).await, text("Invalid sandbox ID"));
    let no_dash = format!("https://nodash.{DOMAIN}:{port}/health");
    assert_eq!(answer_of(http.get(&no_dash)).await, text("Invalid host"));
    let word_port = format!("https://envd-abc123.{DOMAIN}:{port}/health");
    assert_eq!(answer_of(http.get(&word_port)).await, text("Invalid sandbox port"));
    // A sandbox it does not have, by either route: E2B's 502 JSON, fields in its order.
    let unknown = format!("https://49983-nosuchsandbox0.{DOMAIN}:{port}/health");
    let not_found = (
        502,
        "application/json; charset=utf-8".to_owned(),
        r#"{"sandboxId":"nosuchsandbox0","message":"The sandbox was not found","code":502}"#
            .to_owned(),
    );
    assert_eq!(answer_of(http.get(&unknown)).await, not_found);
    let by_headers = http
        .get(&shared)
        .header("E2b-Sandbox-Id", "nosuchsandbox0")
        .header("E2b-Sandbox-Port", "49983");
    assert_eq!(answer_of(by_headers).await, not_found);
    // The API refuses a timeout of 0 (timeout_helper.go).
    let create = http
        .post(format!("{}/sandboxes", edge.api_url()))
        .header("X-API-Key", daemon.api_key())
        .json(&serde_json::json!({"templateID": "base", "timeout": 0}));
    let (status, _, body) = answer_of(create).await;
    assert_eq!(
        (status, serde_json::from_str::<serde_json::Value>(&body).unwrap()),
        (400, serde_json::json!({"code": 400, "message": "Timeout must be greater than 0"}))
    );
    // A path E2B's API does not have (dsh's own layer store): its validator's 404, so a
    // dsh reaching E2B installs language servers in the sandbox, as it must there.
    let layers =
        http.get(format!("{}/layers", edge.api_url())).header("X-API-Key", daemon.api_key());
    let (status, _, body) = answer_of(layers).await;
    assert_eq!(
        (status, serde_json::from_str::<serde_json::Value>(&body).unwrap()),
        (
            404,
            serde_json::json!({"code": 404, "message": "validation error: no matching operation was found"})
        )
    );
    daemon.stop().await.unwrap();
}

/// The edge's own 409, 403, 429 and 502 answers are typed as the edge's, never as envd's
/// Connect codes (a 409 was AlreadyExists, which `make_dir` with parents took for done).
#[tokio::test]
async fn the_edges_own_answers_are_typed_and_never_taken_for_envds() {
    use dsh_edge_standin::Fault;
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let sandbox = std::sync::Arc::new(open(&edge, &daemon).await);
    let runtime = sandbox.runtime();
    let envd = sandbox.backend().envd().clone();
    let dir = sandbox.cwd().join("made");

    edge.fail_next(Fault::StillTransitioning);
    let err = runtime.fs.make_dir(&dir, true).await.unwrap_err();
    assert!(matches!(err, dsh_core::FsError::Unavailable(_)), "{err}");
    assert!(!runtime.fs.stat(&dir).await.is_ok_and(|m| m.kind == dsh_core::FileKind::Directory));

    let edge_error = |err: dsh_e2b::Error| match err {
        dsh_e2b::Error::Edge { status, message } => (status, message),
        other => panic!("not the edge's: {other:?}"),
    };
    edge.fail_next(Fault::StillTransitioning);
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert_eq!(err.code(), dsh_proto::connect::Code::Unavailable);
    assert_eq!(
        edge_error(err),
        (409, "The sandbox is still transitioning. Try again in a moment.".to_owned())
    );
    edge.fail_next(Fault::PortClosed);
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert!(!err.is_sandbox_gone());
    assert_eq!(edge_error(err), (502, "The sandbox is running but port is not open".to_owned()));
    edge.fail_next(Fault::RouteFailed);
    let err = envd.read_file("/etc/hostname", None).await.unwrap_err();
    assert!(!err.is_sandbox_gone());
    assert_eq!(edge_error(err), (502, "Failed to route request to sandbox".to_owned()));
    edge.fail_next(Fault::TooManyConnections(10));
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert_eq!(err.code(), dsh_proto::connect::Code::ResourceExhausted);
    edge.fail_next(Fault::TeamSandboxLimit);
    let err = envd.read_file("/etc/hostname", None).await.unwrap_err();
    assert_eq!(edge_error(err), (429, "Sandbox limit reached".to_owned()));
    edge.fail_next(Fault::ResumeDenied);
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert_eq!(err.code(), dsh_proto::connect::Code::PermissionDenied);
    edge.fail_next(Fault::SandboxNotFound);
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert!(err.is_sandbox_gone(), "{err}");
    // Nothing queued: envd answers again.
    assert_eq!(envd.stat("/tmp", None).await.unwrap().path, "/tmp");
    sandbox.dispose().await.unwrap();
    daemon.stop().await.unwrap();
}

/// E2B's API refuses to extend a sandbox past the team's maximum length (400 "Max
/// instance length exceeded", keep_alive.go): the keep-alive stops there instead of
/// asking (and warning) every tick until the sandbox ends.
#[tokio::test]
async fn the_keepalive_stops_at_the_teams_maximum_length() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    edge.set_max_instance_length(Duration::from_secs(3));
    let http = raw_client(&edge);
    let connection = Connection::resolve(None, daemon.api_key(), None, Some(&edge.client_domain()));
    let config = SandboxConfig {
        template: Some("base".into()),
        timeout_secs: 10,
        keepalive_secs: Some(2),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::open(http, &connection, &config).await.unwrap();
    // Extensions at 2 s (granted) and 4 s (refused: past 3 s); none at 6 s.
    tokio::time::sleep(Duration::from_millis(7000)).await;
    let path = format!("/sandboxes/{}/timeout", sandbox.id());
    let asked = edge.recorded().iter().filter(|r| r.path == path).count();
    assert_eq!(asked, 2);
    sandbox.dispose().await.unwrap();
    daemon.stop().await.unwrap();
}

/// Pausing: only "already paused" is `false`; another 409 is an error; a paused
/// sandbox's timeout is 404 (not in E2B's store of running sandboxes, keep_alive.go);
/// dispose says whether it paused the sandbox.
#[tokio::test]
async fn pause_conflicts_and_a_paused_sandboxs_timeout_are_told_apart() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let edge = Edge::start(DOMAIN, &daemon.url()).await.unwrap();
    let http = raw_client(&edge);
    let connection = Connection::resolve(None, daemon.api_key(), None, Some(&edge.client_domain()));
    let config = SandboxConfig {
        template: Some("base".into()),
        on_dispose: dsh_e2b::OnDispose::Pause,
        keepalive_secs: Some(0),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::open(http, &connection, &config).await.unwrap();
    let (control, id) = (sandbox.control().clone(), sandbox.id().to_owned());
    let transition = format!("Sandbox '{id}' cannot be paused while in 'killing' state");
    edge.answer_next_api("POST", &format!("/sandboxes/{id}/pause"), 409, &transition);
    let err = control.pause(&id, true).await.unwrap_err();
    assert!(
        matches!(&err, dsh_e2b::Error::Http { status: 409, message } if *message == transition),
        "{err}"
    );
    assert!(control.pause(&id, true).await.unwrap());
    let err = control.set_timeout(&id, 60).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert_eq!(sandbox.dispose().await.unwrap(), format!("sandbox {id} was already paused"));
    assert!(control.kill(&id).await.unwrap());
    daemon.stop().await.unwrap();
}
