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
