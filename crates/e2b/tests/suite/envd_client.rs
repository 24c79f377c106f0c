use std::time::Duration;

use bytes::Bytes;
use dsh_e2b::{EnvdClient, EnvdTarget, Error, ProcessOutput, StartOptions};
use dsh_proto::connect::{Code, Codec};
use dsh_proto::process::{Signal, SignalTarget};

async fn client(codec: Codec) -> (dsh_envd::testing::TestDaemon, EnvdClient) {
    let daemon = dsh_envd::testing::start().await.unwrap();
    let client = EnvdClient::new(
        dsh_e2b::http_client().unwrap(),
        EnvdTarget::direct(&daemon.base_url),
        None,
    )
    .with_codec(codec);
    (daemon, client)
}

fn bash(script: &str) -> StartOptions {
    StartOptions {
        cmd: "/bin/bash".into(),
        args: vec!["-c".into(), script.into()],
        envs: [("PATH".to_owned(), "/usr/bin:/bin".to_owned())].into(),
        ..StartOptions::default()
    }
}

#[tokio::test]
async fn commands_round_trip_with_both_codecs() {
    for codec in [Codec::Proto, Codec::Json] {
        let (_daemon, client) = client(codec).await;
        let (stdout, stderr, exit) = client
            .start(bash("printf 'out-é'; printf err >&2; exit 4"))
            .await
            .unwrap()
            .wait()
            .await
            .unwrap();
        assert_eq!(
            (stdout.as_slice(), stderr.as_slice()),
            ("out-é".as_bytes(), &b"err"[..]),
            "{codec:?}"
        );
        assert_eq!((exit.exit_code, exit.exited, exit.status.as_str()), (4, true, "exit status 4"));
        assert_eq!(exit.error.as_deref(), Some("exit status 4"));
    }
}

#[tokio::test]
async fn filesystem_calls_report_exact_entries_and_codes() {
    let (daemon, client) = client(Codec::Proto).await;
    let home = daemon.home.to_str().unwrap().to_owned();
    let made = client.make_dir("proj/src", None).await.unwrap();
    assert_eq!((made.path.as_str(), made.mode), (format!("{home}/proj/src").as_str(), 0o755));
    let err = client.make_dir("proj", None).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    client.write_file("proj/src/a.txt", Bytes::from_static(b"hello"), None).await.unwrap();
    let stat = client.stat("proj/src/a.txt", None).await.unwrap();
    assert_eq!((stat.name.as_str(), stat.size, stat.owner.as_str()), ("a.txt", 5, "user"));
    let moved = client.rename("proj/src/a.txt", "proj/b.txt", None).await.unwrap();
    assert_eq!(moved.path, format!("{home}/proj/b.txt"));
    let listed: Vec<String> =
        client.list_dir("proj", 2, None).await.unwrap().into_iter().map(|e| e.name).collect();
    assert_eq!(listed, ["b.txt", "src"]);
    client.remove("proj", None).await.unwrap();
    let err = client.stat("proj", None).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let err = client.read_file("/no/such/file", None).await.unwrap_err();
    assert!(
        matches!(&err, Error::Http { status: 404, message } if message == "path '/no/such/file' does not exist"),
        "{err}"
    );
}

#[tokio::test]
async fn uploads_and_downloads_stream_large_files_byte_exact() {
    let (_daemon, client) = client(Codec::Proto).await;
    let data: Vec<u8> =
        (0..8 * 1024 * 1024u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        data.chunks(64 * 1024).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let written = client.upload("/tmp/dsh-e2b-big.bin", body, None).await.unwrap();
    assert_eq!((written.path.as_str(), written.kind.as_str()), ("/tmp/dsh-e2b-big.bin", "file"));
    let read = client.read_file("/tmp/dsh-e2b-big.bin", None).await.unwrap();
    assert_eq!(read.len(), data.len());
    assert!(read == data);
    client.remove("/tmp/dsh-e2b-big.bin", None).await.unwrap();
}

#[tokio::test]
async fn stdin_stream_input_connect_and_close() {
    let (_daemon, client) = client(Codec::Proto).await;
    let mut options = bash("cat");
    options.stdin = true;
    let started = client.start(options).await.unwrap();
    let pid = started.pid;
    let watcher = client.connect(pid).await.unwrap();
    assert_eq!(watcher.pid, pid);
    client.send_stdin(pid, Bytes::from_static(b"a-")).await.unwrap();
    let chunks =
        futures_util::stream::iter([Bytes::from_static(b"b-"), Bytes::from_static("ć".as_bytes())]);
    client.stream_input(pid, chunks, false).await.unwrap();
    let listed = client.list_processes().await.unwrap();
    assert_eq!(listed.iter().map(|p| p.pid).collect::<Vec<_>>(), [pid]);
    client.close_stdin(pid).await.unwrap();
    let (stdout, _, exit) = started.wait().await.unwrap();
    assert_eq!(String::from_utf8(stdout).unwrap(), "a-b-ć");
    assert_eq!(exit.exit_code, 0);
    let (watched, _, _) = watcher.wait().await.unwrap();
    assert_eq!(String::from_utf8(watched).unwrap(), "a-b-ć");
}

#[tokio::test]
async fn pty_resize_and_foreground_signal_through_the_extension() {
    let (_daemon, client) = client(Codec::Proto).await;
    let options = StartOptions {
        cmd: "/bin/bash".into(),
        args: vec!["--norc".into(), "--noprofile".into(), "-i".into()],
        envs: [
            ("PS1".to_owned(), "$ ".to_owned()),
            ("PATH".to_owned(), "/usr/bin:/bin".to_owned()),
        ]
        .into(),
        pty: Some((80, 24)),
        ..StartOptions::default()
    };
    let mut shell = client.start(options).await.unwrap();
    let pid = shell.pid;
    let mut screen = String::new();
    async fn until(shell: &mut dsh_e2b::ProcessStream, screen: &mut String, needle: &str) {
        while !screen.contains(needle) {
            match tokio::time::timeout(Duration::from_secs(10), shell.next())
                .await
                .unwrap()
                .unwrap()
            {
                Some(ProcessOutput::Pty(bytes)) => {
                    screen.push_str(&String::from_utf8_lossy(&bytes))
                }
                other => panic!("unexpected {other:?} while waiting for {needle:?} in {screen:?}"),
            }
        }
    }
    client.resize(pid, 100, 30).await.unwrap();
    client.send_pty(pid, Bytes::from_static(b"stty size\n")).await.unwrap();
    until(&mut shell, &mut screen, "30 100\r\n").await;
    client.send_pty(pid, Bytes::from_static(b"sleep 30\n")).await.unwrap();
    // SIGINT reaches `sleep` only once the job has exec'd it (envd runs on this host).
    let job_of = |procs: &[dsh_core::host::HostProcess]| {
        procs.iter().find(|p| p.parent == pid && p.name == "sleep").map(|p| p.group)
    };
    let settle = Duration::from_secs(5);
    assert!(dsh_core::host::wait_for_processes(settle, |procs| job_of(procs).is_some()).await);
    let job = job_of(&dsh_core::host::live_processes());
    let pgid = client.signal(pid, Signal::Sigint, SignalTarget::ForegroundGroup).await.unwrap();
    assert_eq!(Some(pgid), job);
    assert_ne!(pgid, pid);
    client.send_pty(pid, Bytes::from_static(b"echo after-$((40+2))\n")).await.unwrap();
    until(&mut shell, &mut screen, "after-42\r\n").await;
    client.signal(pid, Signal::Sigkill, SignalTarget::Process).await.unwrap();
    let exit = loop {
        match shell.next().await.unwrap() {
            Some(ProcessOutput::End(exit)) => break exit,
            Some(_) => continue,
            None => panic!("no end event"),
        }
    };
    assert_eq!(exit.status, "signal: killed");
}

#[tokio::test]
async fn process_deadline_is_a_typed_timeout_and_unknown_pids_are_not_found() {
    let (_daemon, client) = client(Codec::Proto).await;
    let mut options = bash("sleep 30");
    options.timeout = Some(Duration::from_millis(300));
    let err = client.start(options).await.unwrap().wait().await.unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err}");
    let err = client.signal(4_000_000, Signal::Sigkill, SignalTarget::Process).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let err = client.connect(4_000_000).await.err().unwrap();
    assert_eq!(err.code(), Code::NotFound);
}

#[tokio::test]
async fn a_daemon_that_dies_mid_stream_is_a_typed_error_not_a_hang() {
    let (daemon, client) = client(Codec::Proto).await;
    let mut stream = client.start(bash("echo first; sleep 30")).await.unwrap();
    assert_eq!(
        stream.next().await.unwrap(),
        Some(ProcessOutput::Stdout(Bytes::from_static(b"first\n")))
    );
    drop(daemon); // stops the server and kills its process groups
    let outcome = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match stream.next().await {
                Ok(Some(ProcessOutput::End(exit))) => break Ok(exit),
                Ok(Some(_)) => continue,
                Ok(None) => break Err(None),
                Err(err) => break Err(Some(err)),
            }
        }
    })
    .await
    .expect("the client must not hang when the daemon goes away");
    // Either the daemon managed to report the kill, or the stream broke: both are typed.
    match outcome {
        Ok(exit) => assert_eq!(exit.status, "signal: killed"),
        Err(Some(Error::Transport(_) | Error::Protocol(_))) => {}
        other => panic!("unexpected outcome {other:?}"),
    }
}
