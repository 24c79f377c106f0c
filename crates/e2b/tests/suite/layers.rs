//! The layer client against a real local dsh-sandboxd (a layer built by its npm, seen in
//! a sandbox), and against a control plane without the API (a stand-in named as such).

use std::path::Path;

use dsh_e2b::{Connection, LayerError, Layers, SandboxConfig, open_runtime};

/// A small registry package with an exact version (the daemon takes nothing else).
const PACKAGE: &str = "is-number@7.0.0";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layers_are_provided_once_listed_and_seen_in_a_sandbox() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let connection = Connection {
        api_url: daemon.url(),
        api_key: daemon.api_key(),
        envd_url: Some(daemon.url()),
        domain: None,
    };
    let layers = Layers::for_connection(dsh_e2b::http_client().unwrap(), &connection);
    assert_eq!(layers.list().await.unwrap(), []);

    // A range is npm's, not a layer's: refused, with the reason.
    let refused = layers.provide_npm(&["is-number@^7".into()]).await.unwrap_err();
    let LayerError::BadRecipe(reason) = &refused else { panic!("{refused:?}") };
    assert_eq!(
        reason,
        "\"is-number@^7\": the version must be exact (digits, letters, '.', '-', '+'), not a range or tag"
    );

    let built = layers.provide_npm(&[PACKAGE.into()]).await.unwrap();
    assert!(!built.cached);
    let id = &built.layer.layer_id;
    assert!(id.starts_with("sha256-") && id.len() == 71, "{id}");
    assert_eq!(built.layer.path, Path::new("/.dsh/layers").join(id));
    assert_eq!(built.layer.bin, built.layer.path.join("node_modules/.bin"));
    assert!(built.layer.files > 0 && built.layer.bytes > 0, "{built:?}");

    let again = layers.provide_npm(&[PACKAGE.into()]).await.unwrap();
    assert!(again.cached);
    assert_eq!(again.layer.layer_id, *id);
    let listed = layers.list().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!((&listed[0].layer_id, &listed[0].path), (id, &built.layer.path));
    assert_eq!(listed[0].recipe.as_ref().map(|r| r.npm.clone()), Some(vec![PACKAGE.to_owned()]));

    // What the answer names is there, read-only, in a sandbox started afterwards.
    let config = SandboxConfig { template: Some("base".into()), ..SandboxConfig::default() };
    let (runtime, _sandbox) = open_runtime(&connection, &config).await.unwrap();
    let manifest = built.layer.path.join("node_modules/is-number/package.json");
    let text = runtime.fs.read_text(&manifest, 1 << 20).await.unwrap().text;
    assert!(text.contains("\"version\": \"7.0.0\""), "{text}");
    let write = runtime
        .fs
        .write_text(&built.layer.path.join("x"), "x", dsh_core::WriteExpectation::Any)
        .await;
    assert!(write.is_err(), "a layer took a write");
    runtime.dispose().await;
    daemon.stop().await.unwrap();
}

#[tokio::test]
async fn a_control_plane_without_layers_is_unsupported() {
    // Stands in for E2B cloud and older daemons: a control plane with no /layers route.
    let app = axum::Router::new()
        .route("/sandboxes", axum::routing::get(|| async { axum::Json(serde_json::json!([])) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let layers = Layers::new(dsh_e2b::http_client().unwrap(), &url, "key");
    let provided = layers.provide_npm(&[PACKAGE.into()]).await;
    assert!(matches!(provided, Err(LayerError::Unsupported)), "{provided:?}");
    assert!(matches!(layers.list().await, Err(LayerError::Unsupported)));
}
