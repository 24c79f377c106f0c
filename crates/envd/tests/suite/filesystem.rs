//! Every filesystem RPC, with exact values and error codes.

use dsh_proto::connect::Code;
use dsh_proto::filesystem::*;

use crate::common;

#[tokio::test]
async fn stat_reports_envd_entry_fields() {
    let envd = common::start().await;
    let file = envd.home.join("hello.txt");
    std::fs::write(&file, "héllo").unwrap();
    std::os::unix::fs::chown(&file, Some(1000), Some(1000)).unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let stat: StatResponse = envd
        .unary("/filesystem.Filesystem/Stat", &StatRequest { path: "hello.txt".into() })
        .await
        .unwrap();
    let entry = stat.entry.unwrap();
    assert_eq!(entry.name, "hello.txt");
    assert_eq!(
        entry.path,
        file.to_str().unwrap(),
        "relative paths resolve against the user's home"
    );
    assert_eq!(entry.r#type, FileType::File as i32);
    assert_eq!(entry.size, 6);
    assert_eq!(entry.mode, 0o640);
    assert_eq!(entry.permissions, "-rw-r-----");
    assert_eq!((entry.owner.as_str(), entry.group.as_str()), ("user", "user"));
    assert!(entry.modified_time.unwrap().seconds > 1_700_000_000);

    let err = envd
        .unary::<_, StatResponse>(
            "/filesystem.Filesystem/Stat",
            &StatRequest { path: "missing".into() },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound);
}

#[tokio::test]
async fn make_dir_creates_parents_owned_by_the_user_then_reports_already_exists() {
    let envd = common::start().await;
    let made: MakeDirResponse = envd
        .unary("/filesystem.Filesystem/MakeDir", &MakeDirRequest { path: "a/b/c".into() })
        .await
        .unwrap();
    let entry = made.entry.unwrap();
    assert_eq!(entry.path, envd.home.join("a/b/c").to_str().unwrap());
    assert_eq!(
        (entry.r#type, entry.mode, entry.owner.as_str()),
        (FileType::Directory as i32, 0o755, "user")
    );
    let parent = std::fs::metadata(envd.home.join("a")).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::uid(&parent), 1000);

    let err = envd
        .unary::<_, MakeDirResponse>(
            "/filesystem.Filesystem/MakeDir",
            &MakeDirRequest { path: "a/b".into() },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::AlreadyExists);
    std::fs::write(envd.home.join("plain"), "").unwrap();
    let err = envd
        .unary::<_, MakeDirResponse>(
            "/filesystem.Filesystem/MakeDir",
            &MakeDirRequest { path: "plain".into() },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
}

#[tokio::test]
async fn move_creates_destination_parents_and_missing_source_is_not_found() {
    let envd = common::start().await;
    std::fs::write(envd.home.join("src.txt"), "data").unwrap();
    let moved: MoveResponse = envd
        .unary(
            "/filesystem.Filesystem/Move",
            &MoveRequest { source: "src.txt".into(), destination: "deep/er/dst.txt".into() },
        )
        .await
        .unwrap();
    assert_eq!(moved.entry.unwrap().path, envd.home.join("deep/er/dst.txt").to_str().unwrap());
    assert_eq!(std::fs::read_to_string(envd.home.join("deep/er/dst.txt")).unwrap(), "data");
    assert!(!envd.home.join("src.txt").exists());
    let err = envd
        .unary::<_, MoveResponse>(
            "/filesystem.Filesystem/Move",
            &MoveRequest { source: "nope".into(), destination: "x".into() },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound);
}

#[tokio::test]
async fn list_dir_walks_in_lexical_preorder_to_depth_and_keeps_the_requested_prefix() {
    let envd = common::start().await;
    let root = envd.home.join("tree");
    std::fs::create_dir_all(root.join("b/inner/deepest")).unwrap();
    std::fs::write(root.join("a.txt"), "").unwrap();
    std::fs::write(root.join("b/inner/x"), "").unwrap();
    std::fs::write(root.join("c"), "").unwrap();
    std::os::unix::fs::symlink(root.join("b"), envd.home.join("tree-link")).unwrap();

    let names = |response: ListDirResponse| -> Vec<String> {
        response.entries.into_iter().map(|e| e.path).collect()
    };
    let depth0: ListDirResponse = envd
        .unary("/filesystem.Filesystem/ListDir", &ListDirRequest { path: "tree".into(), depth: 0 })
        .await
        .unwrap();
    let home = envd.home.to_str().unwrap().to_owned();
    assert_eq!(
        names(depth0),
        [format!("{home}/tree/a.txt"), format!("{home}/tree/b"), format!("{home}/tree/c")]
    );
    let depth3: ListDirResponse = envd
        .unary("/filesystem.Filesystem/ListDir", &ListDirRequest { path: "tree".into(), depth: 3 })
        .await
        .unwrap();
    assert_eq!(
        names(depth3),
        [
            format!("{home}/tree/a.txt"),
            format!("{home}/tree/b"),
            format!("{home}/tree/b/inner"),
            format!("{home}/tree/b/inner/deepest"),
            format!("{home}/tree/b/inner/x"),
            format!("{home}/tree/c"),
        ]
    );
    let via_link: ListDirResponse = envd
        .unary(
            "/filesystem.Filesystem/ListDir",
            &ListDirRequest { path: "tree-link".into(), depth: 1 },
        )
        .await
        .unwrap();
    assert_eq!(names(via_link), [format!("{home}/tree-link/inner")]);

    let err = envd
        .unary::<_, ListDirResponse>(
            "/filesystem.Filesystem/ListDir",
            &ListDirRequest { path: "tree/c".into(), depth: 1 },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    let err = envd
        .unary::<_, ListDirResponse>(
            "/filesystem.Filesystem/ListDir",
            &ListDirRequest { path: "none".into(), depth: 1 },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound);
}

#[tokio::test]
async fn remove_is_recursive_and_a_missing_path_succeeds() {
    let envd = common::start().await;
    std::fs::create_dir_all(envd.home.join("gone/sub")).unwrap();
    std::fs::write(envd.home.join("gone/sub/f"), "x").unwrap();
    let _: RemoveResponse = envd
        .unary("/filesystem.Filesystem/Remove", &RemoveRequest { path: "gone".into() })
        .await
        .unwrap();
    assert!(!envd.home.join("gone").exists());
    let _: RemoveResponse = envd
        .unary("/filesystem.Filesystem/Remove", &RemoveRequest { path: "gone".into() })
        .await
        .unwrap();
}

/// A change made before a poll is in that poll's answer (E2B's SDK writes a file, then
/// reads the events once: `test_watch_directory_changes`), never only in a later one,
/// however the watcher's task is scheduled. 200 rounds on one watcher.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_after_a_change_has_the_change() {
    let envd = common::start().await;
    std::fs::create_dir(envd.home.join("polled")).unwrap();
    let created: CreateWatcherResponse = envd
        .unary(
            "/filesystem.Filesystem/CreateWatcher",
            &CreateWatcherRequest { path: "polled".into(), ..Default::default() },
        )
        .await
        .unwrap();
    let file = envd.home.join("polled/f.txt");
    for round in 0..200 {
        std::fs::write(&file, format!("round {round}")).unwrap();
        let polled: GetWatcherEventsResponse = envd
            .unary(
                "/filesystem.Filesystem/GetWatcherEvents",
                &GetWatcherEventsRequest { watcher_id: created.watcher_id.clone() },
            )
            .await
            .unwrap();
        assert!(
            polled.events.iter().any(|e| e.name == "f.txt" && e.r#type == EventType::Write as i32),
            "round {round}: {:?}",
            polled.events
        );
    }
}

#[tokio::test]
async fn polling_watcher_reports_create_write_remove_relative_to_the_root() {
    let envd = common::start().await;
    let watched = envd.home.join("watched");
    std::fs::create_dir(&watched).unwrap();
    let created: CreateWatcherResponse = envd
        .unary(
            "/filesystem.Filesystem/CreateWatcher",
            &CreateWatcherRequest { path: "watched".into(), recursive: true, ..Default::default() },
        )
        .await
        .unwrap();
    assert!(created.watcher_id.starts_with('w') && created.watcher_id.len() == 21);
    // One poll: the events buffered since the last one.
    let poll = async || -> Vec<(String, i32)> {
        let polled: GetWatcherEventsResponse = envd
            .unary(
                "/filesystem.Filesystem/GetWatcherEvents",
                &GetWatcherEventsRequest { watcher_id: created.watcher_id.clone() },
            )
            .await
            .unwrap();
        polled.events.into_iter().map(|e| (e.name, e.r#type)).collect()
    };
    // Polls until `want` events have arrived (they come asynchronously), or 5 s pass.
    let poll_until = async |seen: &mut Vec<(String, i32)>, want: usize| {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        while seen.len() < want && tokio::time::Instant::now() < deadline {
            seen.extend(poll().await);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let mut seen = Vec::new();
    std::fs::create_dir(watched.join("sub")).unwrap();
    // The watcher watches `sub` before it reports its creation; files made in `sub`
    // before that moment are not seen (as with inotify anywhere).
    poll_until(&mut seen, 1).await;
    std::fs::write(watched.join("sub/f.txt"), "x").unwrap();
    std::fs::remove_file(watched.join("sub/f.txt")).unwrap();
    poll_until(&mut seen, 4).await;
    assert_eq!(
        seen,
        [
            ("sub".to_owned(), EventType::Create as i32),
            ("sub/f.txt".to_owned(), EventType::Create as i32),
            ("sub/f.txt".to_owned(), EventType::Write as i32),
            ("sub/f.txt".to_owned(), EventType::Remove as i32),
        ]
    );
    assert_eq!(poll().await, [], "polling drains the buffer");
    let _: RemoveWatcherResponse = envd
        .unary(
            "/filesystem.Filesystem/RemoveWatcher",
            &RemoveWatcherRequest { watcher_id: created.watcher_id.clone() },
        )
        .await
        .unwrap();
    let err = envd
        .unary::<_, RemoveWatcherResponse>(
            "/filesystem.Filesystem/RemoveWatcher",
            &RemoveWatcherRequest { watcher_id: created.watcher_id },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound);
}

#[tokio::test]
async fn watch_dir_streams_start_then_events_and_ends_at_the_deadline() {
    let envd = common::start().await;
    let watched = envd.home.join("w");
    std::fs::create_dir(&watched).unwrap();
    let request = WatchDirRequest {
        path: watched.to_str().unwrap().into(),
        include_entry: true,
        ..Default::default()
    };
    let route = "/filesystem.Filesystem/WatchDir";
    let mut stream = envd.open_stream(route, &request, &[("connect-timeout-ms", "3000")]).await;
    // The watch is in place once the start event is sent.
    let start = stream.next::<WatchDirResponse>().await.unwrap();
    assert!(matches!(start.event, Some(watch_dir_response::Event::Start(_))), "{start:?}");
    std::fs::write(watched.join("new.txt"), "x").unwrap();
    let event = stream.next::<WatchDirResponse>().await.unwrap();
    let Some(watch_dir_response::Event::Filesystem(created)) = &event.event else {
        panic!("expected a filesystem event: {event:?}");
    };
    assert_eq!((created.name.as_str(), created.r#type), ("new.txt", EventType::Create as i32));
    assert_eq!(created.entry.as_ref().unwrap().name, "new.txt");
    // Writing "x" closes with a write event; then the deadline ends the stream.
    let mut rest = Vec::new();
    while let Some(message) = stream.next::<WatchDirResponse>().await {
        rest.push(message);
    }
    assert!(
        rest.iter().all(|m| matches!(&m.event,
            Some(watch_dir_response::Event::Filesystem(e)) if e.name == "new.txt")
            || matches!(m.event, Some(watch_dir_response::Event::Keepalive(_)))),
        "{rest:?}"
    );
    assert_eq!(stream.end.unwrap().error.unwrap().code, Code::DeadlineExceeded);

    let missing = envd
        .stream::<_, WatchDirResponse>(
            "/filesystem.Filesystem/WatchDir",
            &WatchDirRequest { path: "/no/such/dir".into(), ..Default::default() },
            &[],
        )
        .await;
    assert!(missing.messages.is_empty());
    assert_eq!(missing.end.error.unwrap().code, Code::NotFound);
}

/// A file whose mtime a program set past year 9999 is listed with the last valid instant:
/// one odd file never makes its directory unanswerable in JSON.
#[tokio::test]
async fn a_file_dated_past_year_9999_is_listed_with_the_last_valid_time() {
    let envd = common::start().await;
    // tmpfs keeps 64-bit times (ext4 stops in 2446).
    let shm = tempfile::Builder::new().prefix("dsh-dated-").tempdir_in("/dev/shm").unwrap();
    let dir = shm.path().to_owned();
    let file = dir.join("far.txt");
    std::fs::write(&file, "x").unwrap();
    let far = std::time::UNIX_EPOCH + std::time::Duration::from_secs(400_000_000_000);
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(far).unwrap();
    let listed = envd
        .unary::<_, dsh_proto::filesystem::ListDirResponse>(
            "/filesystem.Filesystem/ListDir",
            &dsh_proto::filesystem::ListDirRequest {
                path: dir.to_string_lossy().into_owned(),
                depth: 1,
            },
        )
        .await
        .unwrap();
    let time = listed.entries[0].modified_time.unwrap();
    assert_eq!((time.seconds, time.nanos), (253_402_300_799, 999_999_999));
}
