//! Snapshots: a sandbox's files kept under a name (`POST /sandboxes/{id}/snapshots`),
//! listed (`GET /snapshots`, filters and paging), started from (`templateID` = the
//! snapshot), deleted (`DELETE /templates/{id}`); they outlive their sandbox and the
//! daemon, and nothing of them is left once deleted.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::Harness;

fn ids(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|s| s["snapshotID"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_outlives_its_sandbox_and_the_daemon_and_starts_independent_sandboxes() {
    let mut h = Harness::start().await;
    let c = h.client.clone();
    let source = c.create(json!({"templateID": "base", "envVars": {"FROM": "source"}})).await;
    let source_id = source["sandboxID"].as_str().unwrap().to_owned();
    c.write_file(&source, "/home/user/app/config.json", "{\"env\": \"test\"}").await;
    let path = format!("/sandboxes/{source_id}/snapshots");

    let named = c.call(Method::POST, &path, Some(json!({"name": "snap-a"}))).await;
    assert_eq!(
        (named.status, &named.body),
        (
            StatusCode::CREATED,
            &json!({"snapshotID": "snap-a:default", "names": ["snap-a:default"]})
        )
    );
    let unnamed = c.call(Method::POST, &path, None).await;
    assert_eq!(unnamed.status, StatusCode::CREATED);
    let unnamed_id = unnamed.body["snapshotID"].as_str().unwrap().to_owned();
    assert!(
        unnamed_id.starts_with("snap-") && unnamed.body["names"] == json!([]),
        "{}",
        unnamed.body
    );

    // Bad input: a name taken, a bad name, an unknown sandbox.
    let taken = c.call(Method::POST, &path, Some(json!({"name": "snap-a:default"}))).await;
    assert_eq!(
        (taken.status, taken.body),
        (
            StatusCode::CONFLICT,
            json!({"code": 409, "message": "snapshot 'snap-a:default' already exists: delete it first or choose another name"})
        )
    );
    let bad = c.call(Method::POST, &path, Some(json!({"name": "Snap A"}))).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    let unknown = c.call(Method::POST, "/sandboxes/nosuchsandbox0000000/snapshots", None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    // Listed newest first, filtered, paged.
    let all = c.call(Method::GET, "/snapshots", None).await;
    assert_eq!(ids(&all.body), [unnamed_id.clone(), "snap-a:default".to_owned()]);
    let by_name = c.call(Method::GET, "/snapshots?name=snap-a", None).await;
    assert_eq!(ids(&by_name.body), ["snap-a:default"]);
    let none = c.call(Method::GET, "/snapshots?name=snap-a-does-not-exist", None).await;
    assert_eq!(ids(&none.body), Vec::<String>::new());
    let of_other = c.call(Method::GET, "/snapshots?sandboxID=nosuchsandbox0000000", None).await;
    assert_eq!(ids(&of_other.body), Vec::<String>::new());
    let first = c.call(Method::GET, "/snapshots?limit=1", None).await;
    assert_eq!(
        (ids(&first.body), first.headers["x-next-token"].to_str().unwrap()),
        (vec![unnamed_id.clone()], "1")
    );
    let second = c.call(Method::GET, "/snapshots?limit=1&nextToken=1", None).await;
    assert_eq!(ids(&second.body), ["snap-a:default"]);
    assert!(second.headers.get("x-next-token").is_none());

    // The source goes; the snapshot stays, across a restart too.
    assert_eq!(
        c.call(Method::DELETE, &format!("/sandboxes/{source_id}"), None).await.status,
        StatusCode::NO_CONTENT
    );
    h.restart().await;
    let c = h.client.clone();
    let one = c.create(json!({"templateID": "snap-a"})).await;
    let two = c.create(json!({"templateID": "snap-a:default", "envVars": {"OWN": "two"}})).await;
    for sandbox in [&one, &two] {
        assert_eq!(
            c.read_file(sandbox, "/home/user/app/config.json").await,
            (StatusCode::OK, "{\"env\": \"test\"}".to_owned())
        );
    }
    assert_eq!(c.run(&two, "echo $FROM $OWN").await, ("source two\n".to_owned(), 0));
    c.write_file(&one, "/home/user/app/config.json", "changed in one").await;
    assert_eq!(c.read_file(&two, "/home/user/app/config.json").await.1, "{\"env\": \"test\"}");

    // Deleted while sandboxes made from it run: they keep their files.
    assert_eq!(
        c.call(Method::DELETE, "/templates/snap-a:default", None).await.status,
        StatusCode::NO_CONTENT
    );
    let again = c.call(Method::DELETE, "/templates/snap-a:default", None).await;
    assert_eq!(
        (again.status, again.body),
        (
            StatusCode::NOT_FOUND,
            json!({"code": 404, "message": "template or snapshot 'snap-a:default' not found"})
        )
    );
    assert_eq!(c.read_file(&one, "/home/user/app/config.json").await.1, "changed in one");
    let gone = c.call(Method::POST, "/v2/sandboxes", Some(json!({"templateID": "snap-a"}))).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(
        c.call(Method::DELETE, &format!("/templates/{unnamed_id}"), None).await.status,
        StatusCode::NO_CONTENT
    );

    // Nothing is left once every sandbox and snapshot is gone.
    for sandbox in [&one, &two] {
        let id = sandbox["sandboxID"].as_str().unwrap();
        assert_eq!(
            c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await.status,
            StatusCode::NO_CONTENT
        );
    }
    super::harness::killed_sandboxes_removed(&h.state()).await;
    let sandboxes = h.state().join("sandboxes");
    let left: Vec<String> = std::fs::read_dir(&sandboxes)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, [".snapshots"]);
    assert_eq!(std::fs::read_dir(sandboxes.join(".snapshots")).unwrap().count(), 0);
}

/// A snapshot directory without its description (a daemon killed while taking it) is
/// removed at the next start, and never listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_made_snapshot_is_removed_at_start() {
    let mut h = Harness::start().await;
    let half = h.state().join("sandboxes/.snapshots/0123456789abcdef0123");
    std::fs::create_dir_all(half.join("home/user")).unwrap();
    assert_eq!(
        ids(&h.client.call(Method::GET, "/snapshots", None).await.body),
        Vec::<String>::new()
    );
    h.restart().await;
    assert!(!half.exists());
}
