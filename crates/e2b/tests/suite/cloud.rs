//! What E2B cloud does that dsh-envd and dsh-sandboxd do not by default (issue #17):
//! E2B's envd of a given version (dsh-envd's E2B-strict mode), the edge's 502 for a gone
//! sandbox, stalled and late connections, paging, the sandbox's deadline. Each test
//! drives a real envd or daemon; the stalled peers are plain sockets named as such.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use dsh_core::{Signal, TerminalSize, TerminalSpec, Terminals};
use dsh_e2b::{Connection, EnvdClient, EnvdTarget, Error, SandboxBackend};
use dsh_envd::EnvdConfig;
use dsh_envd::strict::StrictVersion;
use dsh_proto::connect::Code;
use futures_util::StreamExt as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

async fn strict_envd(version: StrictVersion) -> dsh_envd::testing::TestDaemon {
    let config =
        EnvdConfig { default_user: "user".into(), strict: Some(version), ..EnvdConfig::default() };
    dsh_envd::testing::start_with(config).await.unwrap()
}

fn client(daemon: &dsh_envd::testing::TestDaemon) -> EnvdClient {
    EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(&daemon.base_url), None)
}

/// Reads the terminal until `needle` shows, within 10 s.
async fn until(output: &mut dsh_core::TerminalOutput, screen: &mut String, needle: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !screen.contains(needle) {
        let chunk = tokio::time::timeout_at(deadline, output.next())
            .await
            .unwrap_or_else(|_| panic!("no {needle:?} in {screen:?}"))
            .unwrap_or_else(|| panic!("terminal closed before {needle:?}: {screen:?}"));
        screen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// The terminal's foreground group once it is not the shell's own (a job started).
async fn job_group(terminal: &dsh_core::Terminal) -> u32 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let group = terminal.foreground_group().await.unwrap();
        if group != terminal.pid() {
            return group;
        }
        assert!(tokio::time::Instant::now() < deadline, "no job took the terminal");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// 1. Signals: E2B's envd takes TERM/KILL to the pid only.

#[tokio::test]
async fn on_e2b_envd_ctrl_c_and_sigkill_reach_the_foreground_job_never_the_shell() {
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let backend = SandboxBackend::new(client(&daemon), None);
    let env = BTreeMap::from([
        ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
        ("PS1".to_owned(), "$ ".to_owned()),
    ]);
    let spec = TerminalSpec::new(
        ["/bin/bash", "--norc", "--noprofile", "-i"],
        &daemon.home,
        env,
        TerminalSize { cols: 80, rows: 24 },
    );
    let terminal = backend.spawn_terminal(spec).await.unwrap();
    let mut output = terminal.take_output().unwrap();
    let mut screen = String::new();
    for (signal, word) in [(Signal::Int, "int"), (Signal::Tstp, "tstp"), (Signal::Kill, "kill")] {
        terminal.write(b"sleep 30\n").await.unwrap();
        let job = job_group(&terminal).await;
        assert_ne!(job, terminal.pid());
        // Old dsh-e2b: SIGINT/SIGTSTP came back `unimplemented`, SIGKILL killed the shell.
        tokio::time::timeout(Duration::from_secs(10), terminal.signal_group(job, signal))
            .await
            .unwrap()
            .unwrap();
        if signal == Signal::Tstp {
            until(&mut output, &mut screen, "Stopped").await;
            terminal.write(b"kill -9 %1\n").await.unwrap();
        }
        let line = format!("echo after-{word}-$((40+2))\n");
        terminal.write(line.as_bytes()).await.unwrap();
        until(&mut output, &mut screen, &format!("after-{word}-42")).await;
        assert_eq!(terminal.try_wait(), None, "the shell must survive {signal:?} to its job");
    }
    // SIGHUP to the shell's own group is not refused either.
    terminal.signal_group(terminal.pid(), Signal::Hup).await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), terminal.wait()).await.unwrap();
    assert!(!status.success());
}

/// `sh -c SCRIPT` as a spawn spec in `dir`.
fn sh_spec(dir: &std::path::Path, script: &str) -> dsh_core::SpawnSpec {
    let env = BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]);
    dsh_core::SpawnSpec::new(["/bin/sh", "-c", script], dir, env)
}

/// The pgid and sid of `pid`, from `/proc` (the strict envd runs on this host).
fn group_and_session(pid: u32) -> (u32, u32) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = stat.rsplit_once(')').unwrap().1;
    let fields: Vec<u32> =
        after.split_whitespace().skip(2).take(2).map(|f| f.parse().unwrap()).collect();
    (fields[0], fields[1])
}

#[tokio::test]
async fn e2b_strict_envd_starts_commands_in_its_own_group_as_e2bs_envd_does() {
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let envd = client(&daemon);
    let process = envd.start(sleeper()).await.unwrap();
    // handler.go: only a Credential, no Setsid/Setpgid: the command is in envd's group
    // and session, and no group is numbered after its pid.
    assert_eq!(group_and_session(process.pid), group_and_session(std::process::id()));
    assert_ne!(group_and_session(process.pid).0, process.pid);
    // Under envd's wrapper: `sh -c 'echo 100 > /proc/$$/oom_score_adj && exec ...'`.
    // The wrapper shell writes it just after the start.
    let oom_path = format!("/proc/{}/oom_score_adj", process.pid);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut oom = std::fs::read_to_string(&oom_path).unwrap();
    while oom.trim() != "100" && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
        oom = std::fs::read_to_string(&oom_path).unwrap();
    }
    assert_eq!(oom.trim(), "100");
    envd.signal(process.pid, dsh_proto::process::Signal::Sigkill, Default::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn on_e2b_envd_the_backend_starts_each_command_as_its_groups_leader_and_kills_the_tree() {
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let backend = SandboxBackend::new(client(&daemon), None);
    let process =
        dsh_core::Subprocess::spawn(&backend, sh_spec(&daemon.home, "sleep 100 & sleep 100"))
            .await
            .unwrap();
    let pid = process.pid();
    // The wrapper's `setsid` runs just after the start: the group is whole soon after.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while group_members(pid) < 3 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(group_and_session(pid), (pid, pid));
    assert_eq!(group_members(pid), 3);
    let started = std::time::Instant::now();
    let status = tokio::time::timeout(Duration::from_secs(10), process.terminate()).await.unwrap();
    while group_members(pid) > 0 && started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let took = started.elapsed();
    eprintln!("[e2b-strict] terminate of a tree of 3: all gone in {took:?}");
    assert_eq!(status.signal, Some(libc::SIGTERM));
    assert_eq!(group_members(pid), 0);
}

/// Waits until `pid` leads its own session (its `setsid` ran).
async fn left_the_group(pid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while group_and_session(pid) != (pid, pid) {
        assert!(std::time::Instant::now() < deadline, "{pid} never left the group");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Live (not zombie) processes of group `pgid` on this host.
fn group_members(pgid: u32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit_once(')').is_some_and(|(_, rest)| {
                    let f: Vec<&str> = rest.split_whitespace().collect();
                    f.len() > 2 && f[0] != "Z" && f[2] == pgid.to_string()
                })
            })
        })
        .count()
}

/// Starts `script` (which prints the pid of a child that left the group and holds the
/// output pipes), terminates it with a 200 ms grace and waits at most `limit`; the
/// status and how long the end took. The escapee is killed afterwards.
async fn terminate_with_an_escapee(
    backend: &SandboxBackend,
    home: &std::path::Path,
    script: &str,
    limit: Duration,
) -> (dsh_core::ExitStatus, Duration) {
    let mut spec = sh_spec(home, script);
    spec.grace = Duration::from_millis(200);
    let process = dsh_core::Subprocess::spawn(backend, spec).await.unwrap();
    process.stdout().wait_beyond(0).await;
    let escaped: u32 = process.stdout().snapshot().to_string_lossy().trim().parse().unwrap();
    left_the_group(escaped).await;
    let started = std::time::Instant::now();
    let status = tokio::time::timeout(limit, process.terminate()).await;
    let took = started.elapsed();
    // SAFETY: kill(2) with plain integers, on the test's own child.
    unsafe { libc::kill(escaped as i32, libc::SIGKILL) };
    (status.expect("the wait after a kill must end"), took)
}

/// A child that left the group (its own `setsid`) holds the output pipes: E2B's envd
/// reports no end until they close or a SendSignal TERM/KILL cuts them (`outCancel()`),
/// so a kill of the group alone left `wait` hanging. The backend also asks envd to kill
/// the pid, and the end comes when the leader is reaped.
#[tokio::test]
async fn on_e2b_envd_a_kill_ends_the_wait_even_when_a_child_that_left_the_group_holds_the_pipes() {
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let backend = SandboxBackend::new(client(&daemon), None);
    let script = "setsid sleep 100 & echo $!; exec sleep 100";
    let (status, took) =
        terminate_with_an_escapee(&backend, &daemon.home, script, Duration::from_secs(10)).await;
    eprintln!("[e2b-strict] kill with a pipe-holding escapee: ended in {took:?}");
    assert_eq!(
        (status.signal, status.reason),
        (Some(libc::SIGTERM), dsh_core::EndReason::Terminated)
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// An envd that never reports the end after a kill (dsh-envd's own, whose end waits for
/// the pipes and whose pid-level SIGKILL does not cut them): the backend's bound
/// reports the process killed [`dsh_e2b::KILL_WAIT`] after the kill, never a hang.
#[tokio::test]
async fn the_wait_after_a_kill_is_bounded_when_envd_reports_no_end() {
    let daemon = dsh_envd::testing::start_with(EnvdConfig {
        default_user: "user".into(),
        ..EnvdConfig::default()
    })
    .await
    .unwrap();
    let backend = SandboxBackend::new(client(&daemon), None);
    let script = "trap '' TERM; setsid sleep 100 & echo $!; sleep 100";
    let (status, took) =
        terminate_with_an_escapee(&backend, &daemon.home, script, Duration::from_secs(15)).await;
    eprintln!("[dsh-envd] kill with a pipe-holding escapee: ended in {took:?}");
    assert_eq!(
        (status.signal, status.reason),
        (Some(libc::SIGKILL), dsh_core::EndReason::Terminated)
    );
    assert!(
        took >= dsh_e2b::KILL_WAIT && took < dsh_e2b::KILL_WAIT + Duration::from_secs(2),
        "{took:?}"
    );
}

// 2. EntryInfo: fields 1-11 only on E2B's envd.

#[tokio::test]
async fn on_e2b_envd_links_are_told_by_symlink_target_alone() {
    use dsh_core::{FileKind, Fs as _};
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let home = daemon.home.clone();
    std::fs::write(home.join("target.txt"), b"twelve bytes").unwrap();
    std::os::unix::fs::symlink(home.join("target.txt"), home.join("link")).unwrap();
    std::os::unix::fs::symlink(home.join("missing"), home.join("dangling")).unwrap();
    std::fs::create_dir(home.join("dir")).unwrap();
    std::os::unix::fs::symlink(home.join("dir"), home.join("dirlink")).unwrap();
    let envd = client(&daemon);
    // utils.go `entryInfo`: no field beyond 11; the type is the target's.
    let link = envd.stat(home.join("link").to_str().unwrap(), None).await.unwrap();
    assert!(!link.is_symlink);
    assert_eq!(link.r#type, dsh_proto::filesystem::FileType::File as i32);
    assert_eq!(link.symlink_target.as_deref(), home.join("target.txt").to_str());
    let plain = envd.stat(home.join("target.txt").to_str().unwrap(), None).await.unwrap();
    assert_eq!(plain.symlink_target, None);

    let backend = SandboxBackend::new(client(&daemon), None);
    let lstat = backend.lstat(&home.join("link")).await.unwrap();
    assert_eq!(lstat.kind, FileKind::Symlink);
    let stat = backend.stat(&home.join("link")).await.unwrap();
    assert_eq!((stat.kind, stat.size), (FileKind::File, 12));
    assert_eq!(backend.lstat(&home.join("dangling")).await.unwrap().kind, FileKind::Symlink);
    let err = backend.stat(&home.join("dangling")).await.unwrap_err();
    assert!(matches!(err, dsh_core::FsError::NotFound { .. }), "{err}");
    let mut listed: Vec<(String, FileKind)> = backend
        .list_dir(&home)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.kind))
        .filter(|(name, _)| {
            ["link", "dangling", "dirlink", "dir", "target.txt"].contains(&name.as_str())
        })
        .collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        listed,
        [
            ("dangling".to_owned(), FileKind::Symlink),
            ("dir".to_owned(), FileKind::Directory),
            ("dirlink".to_owned(), FileKind::Symlink),
            ("link".to_owned(), FileKind::Symlink),
            ("target.txt".to_owned(), FileKind::File),
        ]
    );
    // A link to a directory is removed as a link, not refused as a directory.
    backend.remove(&home.join("dirlink"), false).await.unwrap();
    assert!(home.join("dir").is_dir());
    assert!(!home.join("dirlink").exists());
}

// 8. `/files` on E2B's envd: ENOTDIR is a 500, a FIFO blocks, a device is empty.

#[tokio::test]
async fn on_e2b_envd_reads_of_special_paths_are_typed_never_empty_or_hung() {
    use dsh_core::{Fs as _, FsError};
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let home = daemon.home.clone();
    std::fs::write(home.join("file"), b"x").unwrap();
    let fifo = home.join("fifo");
    let fifo_c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo_c.as_ptr(), 0o644) }, 0);
    // What E2B's envd answers (internal/api/download.go), raw.
    let envd = client(&daemon);
    let through = home.join("file/x");
    let err = envd.read_file(through.to_str().unwrap(), None).await.unwrap_err();
    let shown = through.display();
    assert!(
        matches!(&err, Error::Http { status: 500, message }
            if *message == format!("error checking if path exists '{shown}': stat {shown}: not a directory")),
        "{err}"
    );
    assert_eq!(envd.read_file("/dev/zero", None).await.unwrap(), Bytes::new());
    let blocked = tokio::time::timeout(
        Duration::from_millis(500),
        envd.read_file(fifo.to_str().unwrap(), None),
    );
    assert!(blocked.await.is_err(), "E2B's envd blocks on a FIFO");
    // What the backend makes of it.
    let backend = SandboxBackend::new(client(&daemon), None);
    let err = backend.read_text(&through, 1024).await.unwrap_err();
    assert!(matches!(err, FsError::NotADirectory { .. }), "{err}");
    for special in [fifo.as_path(), std::path::Path::new("/dev/zero")] {
        let read = tokio::time::timeout(Duration::from_secs(5), backend.read_text(special, 1024));
        let err = read.await.expect("a read of a special file must not hang").unwrap_err();
        assert!(matches!(err, FsError::InvalidArgument(_)), "{err}");
    }
    assert_eq!(backend.read_text(&home.join("file"), 1024).await.unwrap().text, "x");
}

// 3. envdVersion gates, against E2B's envd of that version.

#[tokio::test]
async fn envd_0_5_1_gets_multipart_uploads_and_close_stdin_is_unsupported_not_exited() {
    let daemon = strict_envd(StrictVersion(0, 5, 1)).await;
    let path = format!("{}/up.txt", daemon.home.display());
    // Told nothing, the client sends what envd 0.5.1 refuses.
    let naive = client(&daemon);
    let err = naive.write_file(&path, Bytes::from_static(b"x"), None).await.unwrap_err();
    assert!(matches!(err, Error::Http { status: 400, .. }), "{err}");
    let process = naive.start(sleeper()).await.unwrap();
    // A 404 without a Connect body is a missing procedure, not a missing process.
    let err = naive.close_stdin(process.pid).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err}");
    // Told the version, it shapes its requests for it.
    let told = client(&daemon).with_envd_version("0.5.1");
    let written = told.write_file(&path, Bytes::from_static(b"multipart\n"), None).await.unwrap();
    assert_eq!(written.path, path);
    assert_eq!(std::fs::read(&path).unwrap(), b"multipart\n");
    let err = told.close_stdin(process.pid).await.unwrap_err();
    assert!(
        matches!(err, Error::Unsupported { feature: "closing stdin", ref envd_version } if envd_version == "0.5.1"),
        "{err}"
    );
    naive
        .signal(process.pid, dsh_proto::process::Signal::Sigkill, Default::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn envd_0_3_0_is_told_the_user_it_has_no_default_for() {
    let daemon = strict_envd(StrictVersion(0, 3, 0)).await;
    let naive = client(&daemon);
    // internal/permissions/authenticate.go `GetAuthUser`: unauthenticated, "no user
    // specified" (was invalid_argument here).
    let err = naive.stat("/tmp", None).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated, "{err}");
    assert!(matches!(&err, Error::Rpc(rpc) if rpc.message == "no user specified"), "{err}");
    let err = naive.read_file("/tmp", None).await.unwrap_err();
    assert!(
        matches!(&err, Error::Http { status: 400, message } if message == "no user specified"),
        "{err}"
    );
    let told = client(&daemon).with_envd_version("0.3.0");
    assert_eq!(told.stat("/tmp", None).await.unwrap().path, "/tmp");
    let path = format!("{}/file", daemon.home.display());
    told.write_file(&path, Bytes::from_static(b"u"), None).await.unwrap();
    assert_eq!(told.read_file(&path, None).await.unwrap(), Bytes::from_static(b"u"));
    let (stdout, _, exit) = told.start(whoami()).await.unwrap().wait().await.unwrap();
    assert_eq!(exit.exit_code, 0);
    let me = String::from_utf8(stdout).unwrap();
    // Runs as `user` (uid 1000) when the tests run as root; else as this host user.
    if std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0 {
        assert_eq!(me.trim(), "1000");
    }
}

fn sleeper() -> dsh_e2b::StartOptions {
    dsh_e2b::StartOptions {
        cmd: "/bin/sleep".into(),
        args: vec!["30".into()],
        stdin: true,
        ..dsh_e2b::StartOptions::default()
    }
}

fn whoami() -> dsh_e2b::StartOptions {
    dsh_e2b::StartOptions {
        cmd: "/usr/bin/id".into(),
        args: vec!["-u".into()],
        ..dsh_e2b::StartOptions::default()
    }
}

// 4. Timeouts and retries on the connection.

/// A peer that accepts connections and answers `answer` (maybe nothing), then stalls:
/// an edge that stopped forwarding.
async fn stalled_peer(answer: &'static [u8]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            let _ = socket.write_all(answer).await;
            held.push(socket);
        }
    });
    url
}

#[tokio::test]
async fn a_stalled_health_check_and_a_stalled_download_end_with_typed_timeouts() {
    let url = stalled_peer(b"").await;
    let client = EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(&url), None)
        .with_health_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = tokio::time::timeout(Duration::from_secs(5), client.health()).await.unwrap();
    assert!(matches!(err, Err(Error::Timeout(t)) if t == Duration::from_millis(300)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));

    let url = stalled_peer(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nfirst").await;
    let client = EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(&url), None)
        .with_transfer_idle_timeout(Duration::from_millis(300));
    let mut chunks = Box::pin(client.download("/f", None).await.unwrap());
    let first = tokio::time::timeout(Duration::from_secs(5), chunks.next()).await.unwrap();
    assert_eq!(first.unwrap().unwrap(), Bytes::from_static(b"first"));
    let stalled = tokio::time::timeout(Duration::from_secs(5), chunks.next()).await.unwrap();
    assert!(matches!(stalled, Some(Err(Error::Timeout(_)))), "{stalled:?}");
}

#[tokio::test]
async fn a_stalled_streamed_upload_ends_with_a_typed_timeout() {
    // Never reads the body: after the socket buffers fill, the upload makes no progress.
    let url = stalled_peer(b"").await;
    let client = EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(&url), None)
        .with_transfer_idle_timeout(Duration::from_millis(500));
    let endless = futures_util::stream::repeat_with(|| {
        Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; 64 * 1024]))
    });
    let body = dsh_e2b::UploadBody::wrap_stream(endless);
    let answer = tokio::time::timeout(Duration::from_secs(10), client.upload("/f", body, None))
        .await
        .unwrap();
    assert!(
        matches!(answer, Err(Error::Timeout(t)) if t == Duration::from_millis(500)),
        "{answer:?}"
    );
}

/// A loopback address that is free now, and the listener bound to it after `delay` (a
/// peer still starting: connections are refused until then).
fn listened_on_later(
    delay: Duration,
) -> (std::net::SocketAddr, impl std::future::Future<Output = tokio::net::TcpListener>) {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = probe.local_addr().unwrap();
    drop(probe);
    let listening = async move {
        tokio::time::sleep(delay).await;
        tokio::net::TcpListener::bind(address).await.unwrap()
    };
    (address, listening)
}

#[tokio::test]
async fn a_connection_refused_at_first_is_retried_as_the_sdk_does() {
    // A port that is free now and served 250 ms later (envd still starting).
    let (address, listening) = listened_on_later(Duration::from_millis(250));
    let server = tokio::spawn(async move {
        let listener = listening.await;
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await;
        socket.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await.unwrap();
    });
    let url = format!("http://{address}");
    let client = EnvdClient::new(dsh_e2b::http_client().unwrap(), EnvdTarget::direct(&url), None);
    let healthy = tokio::time::timeout(Duration::from_secs(5), client.health()).await.unwrap();
    assert!(matches!(healthy, Ok(true)), "{healthy:?}");
    server.await.unwrap();
}

// 2. Domains and self-hosting.

#[test]
fn the_api_url_and_envd_hosts_follow_the_domain_as_in_the_sdks() {
    let cloud = Connection::resolve(None, "k".into(), None, None);
    assert_eq!(cloud.api_url, "https://api.e2b.app");
    assert_eq!(cloud.domain.as_deref(), Some("e2b.app"));
    let hosted = Connection::resolve(None, "k".into(), None, Some("e2b.corp.test"));
    assert_eq!(hosted.api_url, "https://api.e2b.corp.test");
    assert_eq!(hosted.domain.as_deref(), Some("e2b.corp.test"));
    assert_eq!(hosted.envd_url, None);
    let by_url = Connection::resolve(Some("https://api.e2b.test:8443/"), "k".into(), None, None);
    assert_eq!(by_url.api_url, "https://api.e2b.test:8443");
    assert_eq!(by_url.domain.as_deref(), Some("e2b.test"));
    let other =
        Connection::resolve(Some("https://e2b.corp.test"), "k".into(), None, Some("x.test"));
    assert_eq!(
        (other.api_url.as_str(), other.domain.as_deref()),
        ("https://e2b.corp.test", Some("x.test"))
    );
    assert_eq!(
        EnvdTarget::cloud("sbx1", "x.test"),
        EnvdTarget::direct("https://49983-sbx1.x.test")
    );
}

// 5. Paging, the sandbox's deadline, and a gone sandbox, against a real daemon.

fn daemon_connection(daemon: &dsh_sandboxd::testing::TestDaemon) -> Connection {
    Connection {
        api_url: daemon.url(),
        api_key: daemon.api_key(),
        envd_url: Some(daemon.url()),
        domain: None,
    }
}

#[tokio::test]
async fn lists_follow_next_token_past_one_page() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let control =
        dsh_e2b::ControlPlane::new(dsh_e2b::http_client().unwrap(), daemon.url(), daemon.api_key());
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            control.create(&dsh_e2b::NewSandbox::from_template("base")).await.unwrap().sandbox_id,
        );
    }
    let mut listed: Vec<String> =
        control.list_paged(2).await.unwrap().into_iter().map(|s| s.sandbox_id).collect();
    listed.sort();
    ids.sort();
    assert_eq!(listed, ids);
    for id in &ids {
        assert!(control.kill(id).await.unwrap());
    }
    daemon.stop().await.unwrap();
}

#[tokio::test]
async fn a_held_sandbox_outlives_its_timeout_and_a_killed_one_is_a_typed_gone_within_a_second() {
    let daemon = dsh_sandboxd::testing::TestDaemon::start().await.unwrap();
    let config = dsh_e2b::SandboxConfig {
        template: Some("base".into()),
        timeout_secs: 3,
        keepalive_secs: Some(1),
        ..dsh_e2b::SandboxConfig::default()
    };
    let (runtime, sandbox) =
        dsh_e2b::open_runtime(&daemon_connection(&daemon), &config).await.unwrap();
    // Old dsh-e2b never extended it: the daemon killed it at 3 s.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let detail = sandbox.control().get(sandbox.id()).await.unwrap();
    assert_eq!(detail.state, "running");
    assert_eq!(sandbox.backend().run_helper(&["echo", "alive"]).await.unwrap(), "alive\n");

    let envd = sandbox.backend().envd().clone();
    let mut stream = envd
        .start(dsh_e2b::StartOptions {
            cmd: "/bin/sleep".into(),
            args: vec!["30".into()],
            ..dsh_e2b::StartOptions::default()
        })
        .await
        .unwrap();
    assert!(sandbox.control().kill(sandbox.id()).await.unwrap());
    let started = std::time::Instant::now();
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.next()).await.unwrap() {
            Ok(Some(_)) => continue,
            other => break other,
        }
    };
    assert!(matches!(ended, Err(Error::SandboxGone(_))), "{ended:?}");
    let err = envd.stat("/tmp", None).await.unwrap_err();
    assert!(err.is_sandbox_gone(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    let _ = runtime.dispose().await;
    daemon.stop().await.unwrap();
}

#[tokio::test]
async fn e2b_strict_envd_takes_term_and_kill_to_the_pid_only() {
    use dsh_proto::process::{Signal as Wire, SignalTarget};
    let daemon = strict_envd(StrictVersion(0, 6, 13)).await;
    let envd = client(&daemon);
    let mut process = envd.start(sleeper()).await.unwrap();
    let err = envd.signal(process.pid, Wire::Sigint, SignalTarget::Process).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err}");
    let err = envd.signal(process.pid, Wire::Unspecified, SignalTarget::ProcessGroup).await;
    assert_eq!(err.unwrap_err().code(), Code::Unimplemented);
    // `target` is not a field E2B's envd knows: the pid is signalled, no group reported.
    let pgid = envd.signal(process.pid, Wire::Sigkill, SignalTarget::ForegroundGroup).await;
    assert_eq!(pgid.unwrap(), 0);
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(10), process.next()).await.unwrap() {
            Ok(Some(dsh_e2b::ProcessOutput::End(exit))) => break exit,
            Ok(Some(_)) => continue,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(ended.status, "signal: killed");
}

// Control plane answers as E2B's API gives them.

#[tokio::test]
async fn snapshot_lists_retry_connection_setup_and_stop_at_an_empty_next_token() {
    // A port that is free now and served 250 ms later; its one page ends with an empty
    // `x-next-token`, which is no next page.
    let (address, listening) = listened_on_later(Duration::from_millis(250));
    let server = tokio::spawn(async move {
        let listener = listening.await;
        let mut served = 0;
        while let Ok(Ok((mut socket, _))) =
            tokio::time::timeout(Duration::from_secs(2), listener.accept()).await
        {
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            let body = r#"[{"snapshotID":"snap1","names":["team/snap1:default"]}]"#;
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-next-token: \r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(answer.as_bytes()).await.unwrap();
            served += 1;
        }
        served
    });
    let control = dsh_e2b::ControlPlane::new(
        dsh_e2b::http_client().unwrap(),
        format!("http://{address}"),
        "k",
    );
    let listed = tokio::time::timeout(Duration::from_secs(5), control.list_snapshots(None))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].snapshot_id, "snap1");
    assert_eq!(server.await.unwrap(), 1);
}

#[test]
fn the_create_answer_keeps_the_traffic_access_token() {
    // The API's `Sandbox` schema as E2B answers a create with restricted public traffic.
    let answer = br#"{"sandboxID":"i1a2b3c4d5e6f7g8h9j0","templateID":"base","clientID":"6532622b",
        "envdVersion":"0.6.13","envdAccessToken":"ea-token","trafficAccessToken":"ta-token",
        "domain":null}"#;
    let info: dsh_e2b::SandboxInfo = serde_json::from_slice(answer).unwrap();
    assert_eq!(info.traffic_access_token.as_deref(), Some("ta-token"));
    assert_eq!(info.envd_access_token.as_deref(), Some("ea-token"));
}

#[tokio::test]
async fn a_timeout_of_zero_is_refused_before_any_request() {
    // Nothing listens here: a request sent would be a transport error, not this one.
    let control =
        dsh_e2b::ControlPlane::new(dsh_e2b::http_client().unwrap(), "http://127.0.0.1:9", "k");
    let mut new = dsh_e2b::NewSandbox::from_template("base");
    new.timeout = Some(0);
    let refused = |err: Error| matches!(&err, Error::Invalid(m) if m.contains("greater than 0"));
    assert!(refused(control.create(&new).await.unwrap_err()));
    assert!(refused(control.set_timeout("abc", 0).await.unwrap_err()));
    assert!(refused(control.connect("abc", 0).await.unwrap_err()));
}
