//! The `Fs` contract: versions, atomic writes, typed errors, path rules.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::{BackendUnderTest, Deviation};
use crate::{EditRequest, FileKind, Fs, FsError, WriteExpectation, WriteOperation};

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

pub async fn write_then_read_round_trips_with_versions(b: &BackendUnderTest) {
    let path = b.path("a/b/file.txt");
    let fs = &b.fs;

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
    assert_eq!(b.names(path.parent().unwrap()).await, ["file.txt"]);
}

pub async fn create_if_absent_refuses_an_existing_file(b: &BackendUnderTest) {
    let path = b.path("f");
    b.write_behind(&path, b"x").await;
    let err = b.fs.write_text(&path, "y", WriteExpectation::CreateIfAbsent).await.unwrap_err();
    assert!(matches!(err, FsError::AlreadyExists { .. }), "{err:?}");
    assert_eq!(b.read_behind(&path).await, "x");
    assert_eq!(b.names(&b.root).await, ["f"]);
}

pub async fn replace_if_version_refuses_a_stale_version(b: &BackendUnderTest) {
    let path = b.path("f");
    let fs = &b.fs;
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
    assert_eq!(b.read_behind(&path).await, "two");
    let missing = b.path("missing");
    let err = fs
        .write_text(&missing, "x", WriteExpectation::ReplaceIfVersion(second.version))
        .await
        .unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
}

pub async fn edit_refuses_a_stale_version_after_an_out_of_band_change(b: &BackendUnderTest) {
    let path = b.path("f.txt");
    let fs = &b.fs;
    fs.write_text(&path, "alpha beta\n", WriteExpectation::Any).await.unwrap();
    let read = fs.read_text(&path, CAP).await.unwrap();
    // Same size, same inode, (on the host) within the same clock tick: only the content
    // differs.
    b.write_behind(&path, b"alpha gamm\n").await;
    let mut request = edit("alpha", "omega", false);
    request.expected_version = Some(read.version.clone());
    let err = fs.edit_text(&path, &request).await.unwrap_err();
    assert!(matches!(err, FsError::StaleVersion { .. }), "{err:?}");
    assert_eq!(b.read_behind(&path).await, "alpha gamm\n");

    let fresh = fs.read_text(&path, CAP).await.unwrap();
    request.expected_version = Some(fresh.version.clone());
    let done = fs.edit_text(&path, &request).await.unwrap();
    assert_eq!(done.replacements, 1);
    assert_eq!((done.before.as_str(), done.after.as_str()), ("alpha gamm\n", "omega gamm\n"));
    assert_eq!(b.read_behind(&path).await, "omega gamm\n");
    assert_eq!(fs.read_text(&path, CAP).await.unwrap().version, done.version);
}

pub async fn edit_distinguishes_no_match_from_several_matches(b: &BackendUnderTest) {
    let path = b.path("f.txt");
    let fs = &b.fs;
    fs.write_text(&path, "a-a-a", WriteExpectation::Any).await.unwrap();

    let err = fs.edit_text(&path, &edit("zzz", "y", false)).await.unwrap_err();
    assert!(matches!(err, FsError::NoMatch { .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("a", "b", false)).await.unwrap_err();
    assert!(matches!(err, FsError::AmbiguousMatch { count: 3, .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("", "b", false)).await.unwrap_err();
    assert!(matches!(err, FsError::InvalidArgument(_)), "{err:?}");
    assert_eq!(b.read_behind(&path).await, "a-a-a");

    let done = fs.edit_text(&path, &edit("a", "bb", true)).await.unwrap();
    assert_eq!(done.replacements, 3);
    assert_eq!(b.read_behind(&path).await, "bb-bb-bb");
}

pub async fn non_utf8_read_names_the_byte_offset(b: &BackendUnderTest) {
    let path = b.path("bin");
    b.write_behind(&path, b"ok\xff\xfe").await;
    let fs = &b.fs;
    let err = fs.read_text(&path, CAP).await.unwrap_err();
    assert!(matches!(err, FsError::NotUtf8 { offset: 2, .. }), "{err:?}");
    let err = fs.edit_text(&path, &edit("ok", "no", false)).await.unwrap_err();
    assert!(matches!(err, FsError::NotUtf8 { offset: 2, .. }), "{err:?}");
    // As bytes it reads fine.
    assert_eq!(&fs.read_bytes(&path, CAP).await.unwrap().bytes[..], b"ok\xff\xfe");
}

pub async fn reads_over_the_size_cap_are_refused(b: &BackendUnderTest) {
    let path = b.path("big");
    b.write_behind(&path, &[b'x'; 1000]).await;
    let fs = &b.fs;
    let err = fs.read_text(&path, 999).await.unwrap_err();
    assert!(matches!(err, FsError::TooLarge { size: 1000, limit: 999, .. }), "{err:?}");
    let err = fs.read_bytes(&path, 10).await.unwrap_err();
    assert!(matches!(err, FsError::TooLarge { .. }), "{err:?}");
    assert_eq!(fs.read_text(&path, 1000).await.unwrap().text.len(), 1000);
}

pub async fn replacing_keeps_mode_and_symlinks(b: &BackendUnderTest) {
    let (real, link) = (b.path("script.sh"), b.path("link.sh"));
    let script = format!(
        "printf 'echo 1\\n' > script.sh && chmod 750 script.sh && ln -s '{}' link.sh",
        real.display()
    );
    b.run(&script, b"").await;
    b.fs.write_text(&link, "echo 2\n", WriteExpectation::Any).await.unwrap();
    // What is at each path now, the target's content and both modes, from the backend.
    let state = "for f in link.sh script.sh; do \
                 if [ -L $f ]; then echo \"$f link\"; else echo \"$f $(stat -c %a $f)\"; fi; \
                 done; cat script.sh";
    let seen = b.run(state, b"").await;
    if b.deviates(Deviation::WriteReplacesSymlinks) {
        assert_eq!(seen, "link.sh 750\nscript.sh 750\necho 1\n");
        assert_eq!(b.fs.lstat(&link).await.unwrap().kind, FileKind::File);
    } else {
        assert_eq!(seen, "link.sh link\nscript.sh 750\necho 2\n");
        assert_eq!(b.fs.lstat(&link).await.unwrap().kind, FileKind::Symlink);
    }
    assert_eq!(b.fs.stat(&link).await.unwrap().kind, FileKind::File);
}

pub async fn directory_operations_and_their_typed_errors(b: &BackendUnderTest) {
    let root = &b.root;
    let fs = &b.fs;
    fs.make_dir(&root.join("d/e"), true).await.unwrap();
    fs.make_dir(&root.join("d/e"), true).await.unwrap();
    let err = fs.make_dir(&root.join("d"), false).await.unwrap_err();
    assert!(matches!(err, FsError::AlreadyExists { .. }), "{err:?}");
    let err = fs.make_dir(&root.join("x/y"), false).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");

    fs.write_text(&root.join("d/f.txt"), "1", WriteExpectation::Any).await.unwrap();
    let listing = fs.list_dir(&root.join("d")).await.unwrap();
    let summary: Vec<_> = listing.iter().map(|e| (e.name.as_str(), e.kind, e.size)).collect();
    assert_eq!(summary.len(), 2, "{summary:?}");
    assert_eq!(summary[1], ("f.txt", FileKind::File, 1));
    assert_eq!((summary[0].0, summary[0].1), ("e", FileKind::Directory));

    let err = fs.read_text(&root.join("d"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");
    let err = fs.list_dir(&root.join("d/f.txt")).await.unwrap_err();
    assert!(matches!(err, FsError::NotADirectory { .. }), "{err:?}");
    let err = fs.read_text(&root.join("d/f.txt/x"), CAP).await.unwrap_err();
    assert!(
        matches!(&err, FsError::NotADirectory { path } if *path == root.join("d/f.txt/x")),
        "{err:?}"
    );
    let err = fs.read_text(&root.join("nope"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
    let err = fs.write_text(&root.join("d"), "x", WriteExpectation::Any).await.unwrap_err();
    assert!(matches!(err, FsError::IsADirectory { .. }), "{err:?}");

    fs.rename(&root.join("d/f.txt"), &root.join("g.txt")).await.unwrap();
    assert_eq!(b.read_behind(&root.join("g.txt")).await, "1");
    let err = fs.rename(&root.join("nope"), &root.join("g2")).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");

    let err = fs.remove(&root.join("d"), false).await.unwrap_err();
    assert!(matches!(err, FsError::DirectoryNotEmpty { .. }), "{err:?}");
    fs.remove(&root.join("d"), true).await.unwrap();
    let err = fs.stat(&root.join("d")).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
    fs.remove(&root.join("g.txt"), false).await.unwrap();
    assert!(b.names(root).await.is_empty());
    let err = fs.remove(&root.join("g.txt"), false).await.unwrap_err();
    assert!(matches!(err, FsError::NotFound { .. }), "{err:?}");
}

pub async fn paths_resolve_against_cwd_and_must_otherwise_be_absolute(b: &BackendUnderTest) {
    let root = &b.root;
    b.run(&format!("mkdir real && ln -s '{}' alias", root.join("real").display()), b"").await;
    let fs = &b.fs;
    let resolved = fs.resolve(Path::new("alias/./x/../new.txt"), root).await.unwrap();
    if b.deviates(Deviation::LexicalResolve) {
        assert_eq!(resolved, root.join("alias/new.txt"));
    } else {
        assert_eq!(resolved, root.join("real/new.txt"));
    }
    assert_eq!(
        fs.resolve(&root.join("real"), Path::new("/elsewhere")).await.unwrap(),
        root.join("real")
    );
    // Nothing on the way needs to exist.
    assert_eq!(fs.resolve(Path::new("../b/./c"), &root.join("a")).await.unwrap(), root.join("b/c"));
    let err = fs.read_text(Path::new("relative.txt"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::RelativePath { .. }), "{err:?}");
    let err = fs.stat(Path::new("relative")).await.unwrap_err();
    assert!(matches!(err, FsError::RelativePath { .. }), "{err:?}");
    let err = fs.resolve(Path::new("x"), Path::new("rel")).await.unwrap_err();
    assert!(matches!(err, FsError::RelativePath { .. }), "{err:?}");
}

/// Measures 64 MiB write + read (versions included) and prints the throughput.
pub async fn large_write_and_read_throughput(b: &BackendUnderTest) {
    let path = b.path("big.txt");
    let text = "0123456789abcdef".repeat(4 * 1024 * 1024);
    let started = Instant::now();
    let written = b.fs.write_text(&path, &text, WriteExpectation::Any).await.unwrap();
    let write_time = started.elapsed();
    let read = b.fs.read_text(&path, 128 * 1024 * 1024).await.unwrap();
    let total = started.elapsed();
    assert_eq!(read.version, written.version);
    assert_eq!(read.text.len(), text.len());
    let mib = text.len() as f64 / (1024.0 * 1024.0);
    eprintln!(
        "[{}] 64 MiB: write {write_time:?}, read {:?}, write+read {:.0} MB/s",
        b.name,
        total - write_time,
        text.len() as f64 / 1e6 / total.as_secs_f64()
    );
    assert!(mib >= 64.0);
}

pub async fn concurrent_creates_have_exactly_one_winner(b: &BackendUnderTest) {
    let path = b.path("race.txt");
    let attempts: Vec<_> = (0..8)
        .map(|i| {
            let (fs, path) = (Arc::clone(&b.fs), path.clone());
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
    if b.deviates(Deviation::CreateIfAbsentRaces) {
        // Several may win; still one whole file, one writer's, and no temporary left.
        assert!((1..=8).contains(&created), "{created}");
        let text = b.read_behind(&path).await;
        assert!((0..8).any(|i| text == format!("writer {i}")), "{text:?}");
    } else {
        assert_eq!(created, 1);
    }
    assert_eq!(b.names(&b.root).await, ["race.txt"]);
}

pub async fn readers_never_see_a_half_written_file(b: &BackendUnderTest) {
    let path = b.path("swap.txt");
    let (a, c) = ("a".repeat(1 << 20), "b".repeat(1 << 19));
    b.fs.write_text(&path, &a, WriteExpectation::Any).await.unwrap();
    let writer = {
        let fs: Arc<dyn Fs> = Arc::clone(&b.fs);
        let (path, a, c) = (path.clone(), a.clone(), c.clone());
        tokio::spawn(async move {
            for i in 0..30 {
                let text = if i % 2 == 0 { &c } else { &a };
                fs.write_text(&path, text, WriteExpectation::Any).await.unwrap();
            }
        })
    };
    let mut reads = 0;
    while !writer.is_finished() {
        let read = b.fs.read_text(&path, CAP * 2).await.unwrap();
        assert!(read.text == a || read.text == c, "torn read of {} bytes", read.text.len());
        reads += 1;
    }
    writer.await.unwrap();
    eprintln!("[{}] whole reads during the writes: {reads}", b.name);
    // The last write (i = 29) is what stays.
    assert!(b.fs.read_text(&path, CAP * 2).await.unwrap().text == a);
}

pub async fn special_files_are_not_opened(b: &BackendUnderTest) {
    let err = b.fs.read_text(Path::new("/dev/zero"), CAP).await.unwrap_err();
    assert!(matches!(err, FsError::InvalidArgument(_)), "{err:?}");
    assert_eq!(b.fs.stat(Path::new("/dev/null")).await.unwrap().kind, FileKind::Other);
}
