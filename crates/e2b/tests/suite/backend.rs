//! The e2b backend of the seams against a real dsh-envd: the same contract the local
//! backend's tests pin, now over the wire.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use dsh_core::{
    EditRequest, FileKind, Fs, FsError, OutputMode, Signal, SpawnSpec, StdinMode, Subprocess,
    TerminalSize, TerminalSpec, Terminals, WriteExpectation, WriteOperation,
};
use dsh_e2b::{EnvdClient, EnvdTarget, SandboxBackend};

async fn backend() -> (dsh_envd::testing::TestDaemon, SandboxBackend) {
    let daemon = dsh_envd::testing::start().await.unwrap();
    let envd = EnvdClient::new(
        dsh_e2b::http_client().unwrap(),
        EnvdTarget::direct(&daemon.base_url),
        None,
    );
    (daemon, SandboxBackend::new(envd, None))
}

fn env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
    ])
}

fn bash(script: &str, cwd: &Path) -> SpawnSpec {
    SpawnSpec::new(["/bin/bash", "-c", script], cwd, env())
}

use dsh_core::host::{HostProcess, wait_for_processes};

/// How long a process change the kernel makes asynchronously may take to be visible.
const SETTLE: Duration = Duration::from_secs(5);

#[tokio::test]
async fn versions_agree_between_reads_stats_and_writes_and_stale_edits_are_refused() {
    let (daemon, fs) = backend().await;
    let file = daemon.home.join("notes.txt");
    let created =
        fs.write_text(&file, "alpha\nbeta\n", WriteExpectation::CreateIfAbsent).await.unwrap();
    assert_eq!(created.operation, WriteOperation::Create);
    let read = fs.read_text(&file, 1 << 20).await.unwrap();
    assert_eq!((read.text.as_str(), &read.version), ("alpha\nbeta\n", &created.version));
    let stat = fs.stat(&file).await.unwrap();
    assert_eq!(
        (stat.kind, stat.size, stat.version.as_ref()),
        (FileKind::File, 11, Some(&created.version))
    );
    assert!(matches!(
        fs.write_text(&file, "x", WriteExpectation::CreateIfAbsent).await,
        Err(FsError::AlreadyExists { .. })
    ));
    // An out-of-band change between the read and the edit.
    std::fs::write(&file, "alpha\nBETA\n").unwrap();
    let edit = EditRequest {
        old: "alpha".into(),
        new: "gamma".into(),
        replace_all: false,
        expected_version: Some(read.version.clone()),
        max_bytes: 1 << 20,
    };
    assert!(matches!(fs.edit_text(&file, &edit).await, Err(FsError::StaleVersion { .. })));
    let fresh = fs.read_text(&file, 1 << 20).await.unwrap();
    let edited = fs
        .edit_text(&file, &EditRequest { expected_version: Some(fresh.version), ..edit.clone() })
        .await
        .unwrap();
    assert_eq!((edited.replacements, edited.after.as_str()), (1, "gamma\nBETA\n"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "gamma\nBETA\n");
    let none = EditRequest { old: "delta".into(), expected_version: None, ..edit.clone() };
    assert!(matches!(fs.edit_text(&file, &none).await, Err(FsError::NoMatch { .. })));
    std::fs::write(&file, "a a").unwrap();
    let two = EditRequest { old: "a".into(), expected_version: None, ..edit };
    assert!(matches!(
        fs.edit_text(&file, &two).await,
        Err(FsError::AmbiguousMatch { count: 2, .. })
    ));
    let replaced = fs.write_text(&file, "new", WriteExpectation::Any).await.unwrap();
    assert_eq!(replaced.operation, WriteOperation::Replace);
}

#[tokio::test]
async fn typed_errors_for_binary_large_and_directory_cases() {
    let (daemon, fs) = backend().await;
    let binary = daemon.home.join("bin.dat");
    std::fs::write(&binary, b"ok\xffno").unwrap();
    assert!(matches!(fs.read_text(&binary, 100).await, Err(FsError::NotUtf8 { offset: 2, .. })));
    assert_eq!(fs.read_bytes(&binary, 100).await.unwrap().bytes, Bytes::from_static(b"ok\xffno"));
    assert!(matches!(
        fs.read_text(&binary, 3).await,
        Err(FsError::TooLarge { size: 5, limit: 3, .. })
    ));
    let dir = daemon.home.join("d/e");
    fs.make_dir(&dir, true).await.unwrap();
    fs.make_dir(&dir, true).await.unwrap();
    assert!(matches!(fs.make_dir(&dir, false).await, Err(FsError::AlreadyExists { .. })));
    assert!(matches!(
        fs.make_dir(&daemon.home.join("x/y"), false).await,
        Err(FsError::NotFound { .. })
    ));
    assert!(matches!(fs.read_text(&dir, 100).await, Err(FsError::IsADirectory { .. })));
    assert!(matches!(
        fs.remove(&daemon.home.join("d"), false).await,
        Err(FsError::DirectoryNotEmpty { .. })
    ));
    let listed = fs.list_dir(&daemon.home.join("d")).await.unwrap();
    assert_eq!(
        (listed.len(), listed[0].name.as_str(), listed[0].kind),
        (1, "e", FileKind::Directory)
    );
    fs.remove(&daemon.home.join("d"), true).await.unwrap();
    assert!(matches!(fs.stat(&daemon.home.join("d")).await, Err(FsError::NotFound { .. })));
    assert!(matches!(fs.stat(Path::new("relative")).await, Err(FsError::RelativePath { .. })));
    assert_eq!(
        fs.resolve(Path::new("../b/./c"), &daemon.home.join("a")).await.unwrap(),
        daemon.home.join("b/c")
    );
}

#[tokio::test]
async fn files_and_commands_see_each_other() {
    let (daemon, backend) = backend().await;
    let cwd = daemon.home.clone();
    backend
        .write_text(&cwd.join("from-fs.txt"), "written-by-fs\n", WriteExpectation::Any)
        .await
        .unwrap();
    let cat = backend
        .spawn(bash("cat from-fs.txt; echo written-by-bash > from-bash.txt", &cwd))
        .await
        .unwrap();
    let status = cat.wait().await;
    assert!(status.success());
    assert_eq!(cat.stdout().snapshot().head, b"written-by-fs\n");
    let read = backend.read_text(&cwd.join("from-bash.txt"), 1024).await.unwrap();
    assert_eq!(read.text, "written-by-bash\n");
}

#[tokio::test]
async fn timeouts_kill_the_whole_group_and_sigterm_ignorers_get_killed() {
    let (daemon, backend) = backend().await;
    let mut spec = bash("sleep 100 & sleep 100", &daemon.home);
    // Long enough for the group to be seen whole before it is killed.
    spec.timeout = Some(Duration::from_millis(1500));
    spec.grace = Duration::from_millis(300);
    let process = backend.spawn(spec).await.unwrap();
    let pid = process.pid();
    let in_group = |procs: &[HostProcess]| procs.iter().filter(|p| p.group == pid).count();
    assert!(wait_for_processes(SETTLE, |procs| in_group(procs) == 3).await, "bash + 2 sleeps");
    let status = process.wait().await;
    assert_eq!(status.reason, dsh_core::EndReason::TimedOut);
    assert!(wait_for_processes(SETTLE, |procs| in_group(procs) == 0).await);

    let mut stubborn = bash("trap '' TERM; sleep 100", &daemon.home);
    stubborn.grace = Duration::from_millis(300);
    let process = backend.spawn(stubborn).await.unwrap();
    // `sleep` runs only once the trap is set.
    let group = process.pid();
    assert!(
        wait_for_processes(SETTLE, |procs| {
            procs.iter().any(|p| p.group == group && p.name == "sleep")
        })
        .await
    );
    let began = Instant::now();
    let status = process.terminate().await;
    assert_eq!(status.signal, Some(9));
    assert!(
        began.elapsed() >= Duration::from_millis(300) && began.elapsed() < Duration::from_secs(5)
    );
}

#[tokio::test]
async fn a_gibibyte_of_output_is_capped_with_head_and_tail_and_does_not_block() {
    let (daemon, backend) = backend().await;
    let mut spec = bash("printf START; head -c 1073741824 /dev/zero; printf END", &daemon.home);
    spec.stdout = OutputMode::Capped { max_bytes: 64 * 1024 };
    let began = Instant::now();
    let process = backend.spawn(spec).await.unwrap();
    let status = process.wait().await;
    assert!(status.success());
    let out = process.stdout().snapshot();
    assert_eq!(out.total, 1_073_741_824 + 8);
    assert!(out.head.starts_with(b"START") && out.tail.ends_with(b"END"));
    assert_eq!((out.head.len(), out.tail.len()), (32 * 1024, 32 * 1024));
    assert_eq!(out.dropped, out.total - 64 * 1024);
    eprintln!("1 GiB through the e2b backend in {:?}", began.elapsed());
}

#[tokio::test]
async fn stdin_data_and_pipes_reach_the_process() {
    let (daemon, backend) = backend().await;
    let mut spec = bash("cat", &daemon.home);
    spec.stdin = StdinMode::Data(Bytes::from_static("données\n".as_bytes()));
    let process = backend.spawn(spec).await.unwrap();
    process.wait().await;
    assert_eq!(process.stdout().snapshot().head, "données\n".as_bytes());
    let mut piped = bash("cat", &daemon.home);
    piped.stdin = StdinMode::Pipe;
    let process = backend.spawn(piped).await.unwrap();
    process.write_stdin(b"one ").await.unwrap();
    process.write_stdin(b"two").await.unwrap();
    process.close_stdin().await.unwrap();
    assert!(process.wait().await.success());
    assert_eq!(process.stdout().snapshot().head, b"one two");
}

#[tokio::test]
async fn terminals_stream_exact_bytes_resize_and_signal_the_foreground_job() {
    let (daemon, backend) = backend().await;
    let mut env = env();
    env.insert("PS1".into(), "$ ".into());
    let spec = TerminalSpec::new(
        ["/bin/bash", "--norc", "--noprofile", "-i"],
        &daemon.home,
        env,
        TerminalSize { rows: 24, cols: 80 },
    );
    let terminal = backend.spawn_terminal(spec).await.unwrap();
    let mut output = terminal.take_output().unwrap();
    let mut seen = Vec::new();
    let mut until = async |needle: &[u8], seen: &mut Vec<u8>| {
        while !seen.windows(needle.len()).any(|w| w == needle) {
            let chunk = tokio::time::timeout(Duration::from_secs(10), output.next())
                .await
                .unwrap()
                .unwrap();
            seen.extend_from_slice(&chunk);
        }
    };
    terminal.write(b"echo h\xc3\xa9llo; stty size\n").await.unwrap();
    until("héllo\r\n24 80\r\n".as_bytes(), &mut seen).await;
    terminal.resize(TerminalSize { rows: 30, cols: 100 }).await.unwrap();
    terminal.write(b"stty size\n").await.unwrap();
    until(b"30 100\r\n", &mut seen).await;
    // Once the prompt is back the shell owns the terminal again.
    let mut foreground = 0;
    for _ in 0..100 {
        foreground = terminal.foreground_group().await.unwrap();
        if foreground == terminal.pid() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(foreground, terminal.pid());
    terminal.write(b"sleep 30\n").await.unwrap();
    // The job must have exec'd `sleep`: before that, its forked shell ignores SIGINT.
    let shell = terminal.pid();
    let job_of = |procs: &[HostProcess]| {
        procs.iter().find(|p| p.parent == shell && p.name == "sleep").map(|p| p.group)
    };
    assert!(wait_for_processes(SETTLE, |procs| job_of(procs).is_some()).await);
    let job = terminal.foreground_group().await.unwrap();
    assert_eq!(Some(job), job_of(&dsh_core::host::live_processes()));
    assert_ne!(job, shell);
    assert_eq!(terminal.signal_foreground(Signal::Int).await.unwrap(), job);
    terminal.write(b"echo back-$((40+2))\n").await.unwrap();
    until(b"back-42\r\n", &mut seen).await;
    let status = terminal.terminate().await;
    assert!(status.signal.is_some() || status.code.is_some());
    assert!(wait_for_processes(SETTLE, |procs| procs.iter().all(|p| p.group != shell)).await);
}

#[tokio::test]
async fn a_sandbox_that_goes_away_ends_waits_instead_of_hanging() {
    let (daemon, backend) = backend().await;
    let process = backend.spawn(bash("sleep 30", &daemon.home)).await.unwrap();
    drop(daemon);
    let status = tokio::time::timeout(Duration::from_secs(10), process.wait())
        .await
        .expect("wait must not hang");
    assert!(!status.success());
    let fs: Arc<dyn Fs> = Arc::new(backend);
    let err = fs.stat(&PathBuf::from("/tmp")).await.unwrap_err();
    assert!(matches!(err, FsError::Unavailable(_)), "{err}");
}
