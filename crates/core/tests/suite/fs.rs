use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Instant;

use dsh_core::host::Host;
use dsh_core::{EditRequest, FileKind, Fs, FsError, WriteExpectation, WriteOperation};

const CAP: u64 = 1024 * 1024;

fn edit(old: &str, new: &str, replace_all: bool) -> EditRequest {
    EditRequest {
        old: old.into(),
        new: new.into(),
        replace_all,
        expected_version: None,
        max_bytes: CAP,
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn write_then_read_round_trips_with_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/file.txt");
    let fs = Host::new();

    let created = fs.write_text(&path, "héllo\n", WriteExpectation::CreateIfAbsent).await.unwrap();
    assert_eq!(created.operation, WriteOperation::Create);
    let read = fs.read_text(&path, CAP).await.unwrap();
    assert_eq!(read.text, "héllo\n");
    assert_eq!(read.version, created.version);
    let stat = fs.stat(&path).await.unwrap();
    assert_eq!((stat.kind, stat.size), (FileKind::File, 7));
    assert_eq!(stat.version, Some(created.version.clone()));

    let replaced = fs.write_text(&path, "bye\n", WriteExpectation::Any).await.unwrap();
    assert_eq!(replaced.operation, WriteOperation::Replace);
    assert_ne!(replaced.version, created.version);
    let bytes = fs.read_bytes(&path, CAP).await.unwrap();
    assert_eq!((&bytes.bytes[..], bytes.version), (&b"bye\n"[..], replaced.version));
    // No temporary sibling is left behind.
    assert_eq!(names(path.parent().unwrap()), ["file.txt"]);
}

#[tokio::test]
async fn create_if_absent_refuses_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, "x").unwrap();
    let err =
        Host::new().write_text(&path, "y", WriteExpectation::CreateIfAbsent).await.unwrap_err();
    assert!(matches!(err, FsError::AlreadyExists { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
    assert_eq!(names(dir.path()), ["f"]);
}

#[tokio::test]
async fn replace_if_version_refuses_a_stale_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let fs = Host::new();
    let first = fs.write_text(&path, "one", WriteExpectation::Any).await.unwrap();
    let second = fs
        .write_text(&path, "two", WriteExpectation::ReplaceIfVersion(first.version.clone()))
        .await
        .unwrap();
    assert_eq!(second.operation, WriteOperation::Replace);
    let err = fs
        .write_text(&path, "three", WriteExpectation::ReplaceIfVersion(first.version))
        .await
        .unwrap_err();
    assert!(matches!(err, FsError::StaleVersion { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    let missing = dir.path().join("missing");
    let err = fs
        .write_text(&missing, "x", WriteExpectation::ReplaceIfVersion(second.version))
        .await
        .unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn edit_refuses_a_stale_version_after_an_out_of_band_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let fs = Host::new();
    fs.write_text(&path, "alpha beta\n", WriteExpectation::Any).await.unwrap();
    let read = fs.read_text(&path, CAP).await.unwrap();
    // Same size, same inode, within the same clock tick: only the content differs.
    std::fs::write(&path, "alpha gamm\n").unwrap();
    let mut request = edit("alpha", "omega", false);
    request.expected_version = Some(read.version.clone());
    let err = fs.edit_text(&path, &request).await.unwrap_err();
    assert!(matches!(err, FsError::StaleVersion { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "alpha gamm\n");

    let fresh = fs.read_text(&path, CAP).await.unwrap();
    request.expected_version = Some(fresh.version.clone());
    let done = fs.edit_text(&path, &request).await.unwrap();
    assert_eq!(done.replacements, 1);
    assert_eq!((done.before.as_str(), done.after.as_str()), ("alpha gamm\n", "omega gamm\n"));
    assert_eq!(fs.read_text(&path, CAP).await.unwrap().version, done.version);
}

#[tokio::test]
async fn edit_distinguishes_no_match_from_several_matches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    let fs = Host::new();
    fs.write_text(&path, "a-a-a", WriteExpectation::Any).await.unwrap();

    let err = fs.edit_text(&path, &edit("zzz", "y", false)).await.unwrap_err();
    assert!(matches!(err, FsError::NoMatch { .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("a", "b", false)).await.unwrap_err();
    assert!(matches!(err, FsError::AmbiguousMatch { count: 3, .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("", "b", false)).await.unwrap_err();
    assert!(matches!(err, FsError::InvalidArgument(_)), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a-a-a");

    let done = fs.edit_text(&path, &edit("a", "bb", true)).await.unwrap();
    assert_eq!(done.replacements, 3);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "bb-bb-bb");
}

#[tokio::test]
async fn non_utf8_read_names_the_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bin");
    std::fs::write(&path, b"ok\xff\xfe").unwrap();
    let fs = Host::new();
    let err = fs.read_text(&path, CAP).await.unwrap_err();
    assert!(matches!(err, FsError::NotUtf8 { offset: 2, .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("ok", "no", false)).await.unwrap_err();
    assert!(matches!(err, FsError::NotUtf8 { offset: 2, .. }), "{err:?}");
    // As bytes it reads fine.
    assert_eq!(&fs.read_bytes(&path, CAP).await.unwrap().bytes[..], b"ok\xff\xfe");
}

#[tokio::test]
async fn reads_over_the_size_cap_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    std::fs::write(&path, vec![b'x'; 1000]).unwrap();
    let fs = Host::new();
    let err = fs.read_text(&path, 999).await.unwrap_err();
    assert!(matches!(err, FsError::TooLarge { size: 1000, limit: 999, .. }), "{err:?}");
    let err = fs.read_bytes(&path, 10).await.unwrap_err();
    assert!(matches!(err, FsError::TooLarge { .. }), "{err:?}");
    assert_eq!(fs.read_text(&path, 1000).await.unwrap().text.len(), 1000);
}

#[tokio::test]
async fn replacing_keeps_mode_and_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("script.sh");
    let link = dir.path().join("link.sh");
    std::fs::write(&real, "echo 1\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let fs = Host::new();
    fs.write_text(&link, "echo 2\n", WriteExpectation::Any).await.unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "echo 2\n");
    assert_eq!(std::fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o750);
    assert_eq!(fs.lstat(&link).await.unwrap().kind, FileKind::Symlink);
    assert_eq!(fs.stat(&link).await.unwrap().kind, FileKind::File);
}

#[tokio::test]
async fn directory_operations_and_their_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fs = Host::new();
    fs.make_dir(&root.join("d/e"), true).await.unwrap();
    fs.make_dir(&root.join("d/e"), true).await.unwrap();
    let err = fs.make_dir(&root.join("d"), false).await.unwrap_err();
    assert!(matches!(err, FsError::AlreadyExists { .. }), "{err:?}");
    let err = fs.make_dir(&root.join("x/y"), false).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");

    fs.write_text(&root.join("d/f.txt"), "1", WriteExpectation::Any).await.unwrap();
    let listing = fs.list_dir(&root.join("d")).await.unwrap();
    let summary: Vec<_> = listing.iter().map(|e| (e.name.as_str(), e.kind, e.size)).collect();
    assert_eq!(summary[1], ("f.txt", FileKind::File, 1));
    assert_eq!((summary[0].0, summary[0].1), ("e", FileKind::Directory));

    let err = fs.read_text(&root.join("d"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");
    let err = fs.list_dir(&root.join("d/f.txt")).await.unwrap_err();
    assert!(matches!(err, FsError::NotADirectory { .. }), "{err:?}");
    let err = fs.read_text(&root.join("d/f.txt/x"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::NotADirectory { .. }), "{err:?}");
    let err = fs.read_text(&root.join("nope"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
    let err = fs.write_text(&root.join("d"), "x", WriteExpectation::Any).await.unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");

    fs.rename(&root.join("d/f.txt"), &root.join("g.txt")).await.unwrap();
    assert_eq!(std::fs::read_to_string(root.join("g.txt")).unwrap(), "1");
    let err = fs.rename(&root.join("nope"), &root.join("g2")).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");

    let err = fs.remove(&root.join("d"), false).await.unwrap_err();
    assert!(matches!(err, FsError::DirectoryNotEmpty { .. }), "{err:?}");
    fs.remove(&root.join("d"), true).await.unwrap();
    fs.remove(&root.join("g.txt"), false).await.unwrap();
    assert!(names(root).is_empty());
    let err = fs.remove(&root.join("g.txt"), false).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn paths_resolve_against_cwd_and_must_otherwise_be_absolute() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir(root.join("real")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
    let fs = Host::new();
    let resolved = fs.resolve(Path::new("alias/./x/../new.txt"), &root).await.unwrap();
    assert_eq!(resolved, root.join("real/new.txt"));
    assert_eq!(
        fs.resolve(&root.join("real"), Path::new("/elsewhere")).await.unwrap(),
        root.join("real")
    );
    let err = fs.read_text(Path::new("relative.txt"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::RelativePath { .. }), "{err:?}");
    let err = fs.resolve(Path::new("x"), Path::new("rel")).await.unwrap_err();
    assert!(matches!(err, FsError::RelativePath { .. }), "{err:?}");
}

/// Measures 64 MiB write + read (versions included) and prints the throughput.
#[tokio::test]
async fn large_write_and_read_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let text = "0123456789abcdef".repeat(4 * 1024 * 1024);
    let fs = Host::new();
    let started = Instant::now();
    let written = fs.write_text(&path, &text, WriteExpectation::Any).await.unwrap();
    let write_time = started.elapsed();
    let read = fs.read_text(&path, 128 * 1024 * 1024).await.unwrap();
    let total = started.elapsed();
    assert_eq!(read.version, written.version);
    assert_eq!(read.text.len(), text.len());
    let mib = text.len() as f64 / (1024.0 * 1024.0);
    eprintln!(
        "64 MiB: write {write_time:?}, read {:?}, write+read {:.0} MB/s",
        total - write_time,
        text.len() as f64 / 1e6 / total.as_secs_f64()
    );
    assert!(mib >= 64.0);
}

#[tokio::test]
async fn concurrent_creates_have_exactly_one_winner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.txt");
    let fs = std::sync::Arc::new(Host::new());
    let attempts: Vec<_> = (0..8)
        .map(|i| {
            let (fs, path) = (fs.clone(), path.clone());
            tokio::spawn(async move {
                fs.write_text(&path, &format!("writer {i}"), WriteExpectation::CreateIfAbsent).await
            })
        })
        .collect();
    let mut created = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            Ok(outcome) => {
                assert_eq!(outcome.operation, WriteOperation::Create);
                created += 1;
            }
            Err(FsError::AlreadyExists { .. }) => {}
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(created, 1);
    assert_eq!(names(dir.path()), ["race.txt"]);
}

#[tokio::test]
async fn readers_never_see_a_half_written_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("swap.txt");
    let (a, b) = ("a".repeat(1 << 20), "b".repeat(1 << 19));
    let fs = std::sync::Arc::new(Host::new());
    fs.write_text(&path, &a, WriteExpectation::Any).await.unwrap();
    let writer = {
        let (fs, path, a, b) = (fs.clone(), path.clone(), a.clone(), b.clone());
        tokio::spawn(async move {
            for i in 0..30 {
                let text = if i % 2 == 0 { &b } else { &a };
                fs.write_text(&path, text, WriteExpectation::Any).await.unwrap();
            }
        })
    };
    while !writer.is_finished() {
        let read = fs.read_text(&path, CAP * 2).await.unwrap();
        assert!(read.text == a || read.text == b, "torn read of {} bytes", read.text.len());
    }
    writer.await.unwrap();
}

#[tokio::test]
async fn special_files_are_not_opened() {
    let fs = Host::new();
    let err = fs.read_text(Path::new("/dev/zero"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::InvalidArgument(_)), "{err:?}");
    assert_eq!(fs.stat(Path::new("/dev/null")).await.unwrap().kind, FileKind::Other);
}
