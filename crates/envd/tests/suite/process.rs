//! Every process RPC: events, exit reporting, environment, users, stdin, PTYs, signals
//! (and dsh's group-signal extension), timeouts and late connects.

use std::time::{Duration, Instant};

use bytes::Bytes;
use dsh_proto::connect::Code;
use dsh_proto::process::*;

use dsh_core::host::HostProcess;

use crate::common::{self, bash};

fn output_of(events: &[StartResponse]) -> (String, String, Option<process_event::EndEvent>) {
    let (mut out, mut err, mut end) = (Vec::new(), Vec::new(), None);
    for event in events.iter().filter_map(|r| r.event.as_ref()).filter_map(|e| e.event.as_ref()) {
        match event {
            process_event::Event::Data(data) => match &data.output {
                Some(process_event::data_event::Output::Stdout(b)) => out.extend_from_slice(b),
                Some(process_event::data_event::Output::Stderr(b)) => err.extend_from_slice(b),
                Some(process_event::data_event::Output::Pty(b)) => out.extend_from_slice(b),
                None => {}
            },
            process_event::Event::End(e) => end = Some(e.clone()),
            _ => {}
        }
    }
    (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap(), end)
}

fn start_request(config: ProcessConfig) -> StartRequest {
    StartRequest { process: Some(config), stdin: Some(false), ..Default::default() }
}

#[tokio::test]
async fn start_streams_start_data_and_end_with_go_wording() {
    let envd = common::start().await;
    let outcome = envd
        .stream::<_, StartResponse>(
            "/process.Process/Start",
            &start_request(bash("echo out; echo err >&2; exit 3")),
            &[],
        )
        .await;
    assert!(outcome.end.error.is_none());
    let Some(process_event::Event::Start(start)) =
        outcome.messages[0].event.as_ref().unwrap().event.as_ref()
    else {
        panic!("first event must be start");
    };
    assert!(start.pid > 1);
    let (stdout, stderr, end) = output_of(&outcome.messages);
    assert_eq!((stdout.as_str(), stderr.as_str()), ("out\n", "err\n"));
    let end = end.unwrap();
    assert_eq!((end.exit_code, end.exited, end.status.as_str()), (3, true, "exit status 3"));
    assert_eq!(end.error.as_deref(), Some("exit status 3"));

    let ok = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start_request(bash("true")), &[])
        .await;
    let end = output_of(&ok.messages).2.unwrap();
    assert_eq!(
        (end.exit_code, end.exited, end.status.as_str(), end.error),
        (0, true, "exit status 0", None)
    );
}

#[tokio::test]
async fn environment_is_assembled_from_scratch_in_order() {
    let envd = common::start().await;
    let config = ProcessConfig {
        cmd: "/usr/bin/env".into(),
        args: vec![],
        envs: [("CUSTOM".to_owned(), "1".to_owned()), ("USER".to_owned(), "override".to_owned())]
            .into(),
        cwd: None,
    };
    let outcome = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start_request(config), &[])
        .await;
    let (stdout, _, _) = output_of(&outcome.messages);
    let mut lines: Vec<&str> = stdout.lines().collect();
    lines.sort_unstable();
    let path = std::env::var("PATH").unwrap();
    let home = envd.home.to_str().unwrap();
    assert_eq!(
        lines,
        [
            "CUSTOM=1".to_owned(),
            "E2B_SANDBOX=true".to_owned(),
            format!("HOME={home}"),
            "LOGNAME=user".to_owned(),
            format!("PATH={path}"),
            "USER=override".to_owned(),
        ]
    );
}

#[tokio::test]
async fn processes_run_as_the_selected_user_in_the_resolved_cwd() {
    let envd = common::start().await;
    std::fs::create_dir(envd.home.join("proj")).unwrap();
    let mut config = bash("id -u; id -g; pwd");
    config.cwd = Some("proj".into());
    let as_user = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start_request(config.clone()), &[])
        .await;
    assert_eq!(
        output_of(&as_user.messages).0,
        format!("1000\n1000\n{}/proj\n", envd.home.display())
    );
    let as_root = envd
        .stream::<_, StartResponse>(
            "/process.Process/Start",
            &start_request(config),
            &[("authorization", "Basic cm9vdDo=")],
        )
        .await;
    // Relative cwd resolves against root's home, which has no `proj`.
    assert_eq!(as_root.end.error.unwrap().message, "cwd '/root/proj' does not exist");
    let root_id = envd
        .stream::<_, StartResponse>(
            "/process.Process/Start",
            &start_request(bash("id -u")),
            &[("authorization", "Basic cm9vdDo=")],
        )
        .await;
    assert_eq!(output_of(&root_id.messages).0, "0\n");
}

#[tokio::test]
async fn a_missing_program_is_exit_127_not_an_rpc_error() {
    let envd = common::start().await;
    let config = ProcessConfig {
        cmd: "definitely-not-a-program".into(),
        envs: [("PATH".to_owned(), "/usr/bin:/bin".to_owned())].into(),
        ..Default::default()
    };
    let outcome = envd
        .stream::<_, StartResponse>("/process.Process/Start", &start_request(config), &[])
        .await;
    assert!(outcome.end.error.is_none());
    let (_, stderr, end) = output_of(&outcome.messages);
    assert_eq!(end.unwrap().exit_code, 127);
    assert!(stderr.contains("definitely-not-a-program: not found"), "{stderr}");
}

#[tokio::test]
async fn the_deadline_kills_the_whole_process_group() {
    let envd = common::start().await;
    let began = Instant::now();
    let outcome = envd
        .stream::<_, StartResponse>(
            "/process.Process/Start",
            &start_request(bash("sleep 100 & sleep 100")),
            &[("connect-timeout-ms", "300")],
        )
        .await;
    assert!(began.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.end.error.unwrap().code, Code::DeadlineExceeded);
    let Some(process_event::Event::Start(start)) =
        outcome.messages[0].event.as_ref().unwrap().event.as_ref()
    else {
        panic!("first event must be start");
    };
    // The reply comes once the process is reaped: the list no longer holds it.
    let list: ListResponse = envd.unary("/process.Process/List", &ListRequest {}).await.unwrap();
    assert!(list.processes.is_empty(), "{list:?}");
    assert!(common::group_settles(start.pid, 0).await);
}

async fn first_pid(stream: &mut common::LiveStream) -> u32 {
    let first: StartResponse = stream.next().await.unwrap();
    match first.event.unwrap().event.unwrap() {
        process_event::Event::Start(start) => start.pid,
        other => panic!("expected start, got {other:?}"),
    }
}

fn selector(pid: u32) -> Option<ProcessSelector> {
    Some(ProcessSelector { selector: Some(process_selector::Selector::Pid(pid)) })
}

#[tokio::test]
async fn stdin_send_stream_and_close() {
    let envd = common::start().await;
    let request = StartRequest {
        process: Some(ProcessConfig { cmd: "cat".into(), ..Default::default() }),
        stdin: Some(true),
        ..Default::default()
    };
    let mut stream = envd.open_stream("/process.Process/Start", &request, &[]).await;
    let pid = first_pid(&mut stream).await;
    let listed: ListResponse = envd.unary("/process.Process/List", &ListRequest {}).await.unwrap();
    assert_eq!(listed.processes.len(), 1);
    assert_eq!(
        (listed.processes[0].pid, listed.processes[0].config.as_ref().unwrap().cmd.as_str()),
        (pid, "cat")
    );

    let _: SendInputResponse = envd
        .unary(
            "/process.Process/SendInput",
            &SendInputRequest {
                process: selector(pid),
                input: Some(ProcessInput {
                    input: Some(process_input::Input::Stdin(Bytes::from_static(b"one "))),
                }),
            },
        )
        .await
        .unwrap();
    // Client streaming: start, then two data messages.
    let mut body = Vec::new();
    for message in [
        serde_json::json!({"start": {"process": {"pid": pid}}}),
        serde_json::json!({"data": {"input": {"stdin": "dHdvIA=="}}}),
        serde_json::json!({"data": {"input": {"stdin": "dGhyZWU="}}}),
    ] {
        body.extend_from_slice(
            &dsh_proto::connect::encode_envelope(0, message.to_string().as_bytes()).unwrap(),
        );
    }
    let streamed = envd
        .stream_raw::<StreamInputResponse>("/process.Process/StreamInput", body.into(), &[])
        .await;
    assert!(streamed.end.error.is_none(), "{:?}", streamed.end);
    assert_eq!(streamed.messages, [StreamInputResponse {}]);
    let err = envd
        .unary::<_, SendInputResponse>(
            "/process.Process/SendInput",
            &SendInputRequest {
                process: selector(pid),
                input: Some(ProcessInput {
                    input: Some(process_input::Input::Pty(Bytes::from_static(b"x"))),
                }),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::Internal);
    let _: CloseStdinResponse = envd
        .unary("/process.Process/CloseStdin", &CloseStdinRequest { process: selector(pid) })
        .await
        .unwrap();
    let mut rest = Vec::new();
    while let Some(message) = stream.next::<StartResponse>().await {
        rest.push(message);
    }
    let (stdout, _, end) = output_of(&rest);
    assert_eq!(stdout, "one two three");
    assert_eq!(end.unwrap().exit_code, 0);
}

#[tokio::test]
async fn close_stdin_is_idempotent() {
    let envd = common::start().await;
    let request = StartRequest {
        process: Some(bash("exec 0<&-; sleep 5")),
        stdin: Some(true),
        ..Default::default()
    };
    let mut stream = envd.open_stream("/process.Process/Start", &request, &[]).await;
    let pid = first_pid(&mut stream).await;
    for _ in 0..2 {
        let _: CloseStdinResponse = envd
            .unary("/process.Process/CloseStdin", &CloseStdinRequest { process: selector(pid) })
            .await
            .unwrap();
    }
    let err = envd
        .unary::<_, SendInputResponse>(
            "/process.Process/SendInput",
            &SendInputRequest {
                process: selector(pid),
                input: Some(ProcessInput {
                    input: Some(process_input::Input::Stdin(Bytes::from_static(b"x"))),
                }),
            },
        )
        .await
        .unwrap_err();
    assert_eq!((err.code, err.message.as_str()), (Code::Internal, "stdin not enabled or closed"));
    let _: SendSignalResponse = envd
        .unary(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(pid),
                signal: Signal::Sigkill as i32,
                target: 0,
            },
        )
        .await
        .unwrap();
    let mut rest = Vec::new();
    while let Some(message) = stream.next::<StartResponse>().await {
        rest.push(message);
    }
    assert_eq!(output_of(&rest).2.unwrap().status, "signal: killed");
}

#[tokio::test]
async fn end_waits_for_background_output_like_envd() {
    let envd = common::start().await;
    let outcome = envd
        .stream::<_, StartResponse>(
            "/process.Process/Start",
            &start_request(bash("(sleep 0.3; echo late) & echo early")),
            &[],
        )
        .await;
    assert_eq!(output_of(&outcome.messages).0, "early\nlate\n");
}

#[tokio::test]
async fn connect_sees_live_output_and_late_connect_gets_the_retained_exit() {
    let envd = common::start().await;
    let request = StartRequest {
        process: Some(bash("read line; echo got-$line")),
        stdin: Some(true),
        ..Default::default()
    };
    let mut starter = envd.open_stream("/process.Process/Start", &request, &[]).await;
    let pid = first_pid(&mut starter).await;
    let mut watcher = envd
        .open_stream("/process.Process/Connect", &ConnectRequest { process: selector(pid) }, &[])
        .await;
    let watcher_first: ConnectResponse = watcher.next().await.unwrap();
    assert!(
        matches!(watcher_first.event.unwrap().event, Some(process_event::Event::Start(s)) if s.pid == pid)
    );
    let _: SendInputResponse = envd
        .unary(
            "/process.Process/SendInput",
            &SendInputRequest {
                process: selector(pid),
                input: Some(ProcessInput {
                    input: Some(process_input::Input::Stdin(Bytes::from_static(b"x\n"))),
                }),
            },
        )
        .await
        .unwrap();
    let mut seen = Vec::new();
    while let Some(message) = watcher.next::<ConnectResponse>().await {
        seen.push(StartResponse { event: message.event });
    }
    let (stdout, _, end) = output_of(&seen);
    assert_eq!(stdout, "got-x\n");
    assert_eq!(end.unwrap().exit_code, 0);
    while starter.next::<StartResponse>().await.is_some() {}

    let late = envd
        .stream::<_, ConnectResponse>(
            "/process.Process/Connect",
            &ConnectRequest { process: selector(pid) },
            &[],
        )
        .await;
    assert_eq!(late.messages.len(), 2);
    assert!(
        matches!(&late.messages[1].event.as_ref().unwrap().event, Some(process_event::Event::End(e)) if e.exit_code == 0)
    );
    let unknown = envd
        .stream::<_, ConnectResponse>(
            "/process.Process/Connect",
            &ConnectRequest { process: selector(4_000_000) },
            &[],
        )
        .await;
    assert_eq!(unknown.end.error.unwrap().code, Code::NotFound);
}

#[tokio::test]
async fn signals_follow_e2b_and_the_group_extension() {
    let envd = common::start().await;
    let err = envd
        .unary::<_, SendSignalResponse>(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(4_000_000),
                signal: Signal::Sigkill as i32,
                target: 0,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::NotFound);

    let mut stream = envd
        .open_stream(
            "/process.Process/Start",
            &start_request(bash("sleep 100 & sleep 100; echo never")),
            &[],
        )
        .await;
    let pid = first_pid(&mut stream).await;
    for bad in [0, 7, 64] {
        // Binary codec: the JSON encoder refuses enum values it does not know.
        let err = envd
            .unary_as::<_, SendSignalResponse>(
                "/process.Process/SendSignal",
                &SendSignalRequest { process: selector(pid), signal: bad, target: 0 },
                dsh_proto::connect::Codec::Proto,
                &[],
            )
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::Unimplemented, "signal {bad}");
    }
    assert!(common::group_settles(pid, 3).await, "bash and two sleeps");
    let signalled: SendSignalResponse = envd
        .unary(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(pid),
                signal: Signal::Sigterm as i32,
                target: SignalTarget::ProcessGroup as i32,
            },
        )
        .await
        .unwrap();
    assert_eq!(signalled.target_pgid, pid);
    let mut rest = Vec::new();
    while let Some(message) = stream.next::<StartResponse>().await {
        rest.push(message);
    }
    let end = output_of(&rest).2.unwrap();
    assert_eq!((end.exit_code, end.status.as_str()), (-1, "signal: terminated"));
    assert!(common::group_settles(pid, 0).await);
}

#[tokio::test]
async fn pty_size_resize_foreground_signal_and_multibyte_output() {
    let envd = common::start().await;
    let request = StartRequest {
        process: Some(ProcessConfig {
            cmd: "/bin/bash".into(),
            args: vec!["--norc".into(), "--noprofile".into(), "-i".into()],
            envs: [("PS1".to_owned(), "$ ".to_owned()), ("TERM".to_owned(), "xterm".to_owned())]
                .into(),
            cwd: None,
        }),
        pty: Some(Pty { size: Some(pty::Size { cols: 80, rows: 24 }) }),
        ..Default::default()
    };
    let mut stream = envd.open_stream("/process.Process/Start", &request, &[]).await;
    let pid = first_pid(&mut stream).await;
    let send = |text: &'static str| {
        let envd = &envd;
        async move {
            let _: SendInputResponse = envd
                .unary(
                    "/process.Process/SendInput",
                    &SendInputRequest {
                        process: selector(pid),
                        input: Some(ProcessInput {
                            input: Some(process_input::Input::Pty(Bytes::from(text))),
                        }),
                    },
                )
                .await
                .unwrap();
        }
    };
    let mut transcript = String::new();
    let read_until =
        async |stream: &mut common::LiveStream, needle: &str, transcript: &mut String| {
            while !transcript.contains(needle) {
                let message: StartResponse = stream.next().await.expect("stream ended early");
                if let Some(process_event::Event::Data(data)) = message.event.unwrap().event
                    && let Some(process_event::data_event::Output::Pty(bytes)) = data.output
                {
                    transcript.push_str(&String::from_utf8_lossy(&bytes));
                }
            }
        };
    send("stty size; echo 'PTY-你好'\n").await;
    read_until(&mut stream, "24 80\r\n", &mut transcript).await;
    read_until(&mut stream, "PTY-你好\r\n", &mut transcript).await;

    let _: UpdateResponse = envd
        .unary(
            "/process.Process/Update",
            &UpdateRequest {
                process: selector(pid),
                pty: Some(Pty { size: Some(pty::Size { cols: 100, rows: 30 }) }),
            },
        )
        .await
        .unwrap();
    send("stty size\n").await;
    read_until(&mut stream, "30 100\r\n", &mut transcript).await;

    send("sleep 30\n").await;
    // SIGINT reaches `sleep` only once the job has exec'd it.
    let settle = Duration::from_secs(5);
    let job_started =
        |procs: &[HostProcess]| procs.iter().any(|p| p.parent == pid && p.name == "sleep");
    assert!(dsh_core::host::wait_for_processes(settle, job_started).await);
    let signalled: SendSignalResponse = envd
        .unary(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(pid),
                signal: Signal::Sigint as i32,
                target: SignalTarget::ForegroundGroup as i32,
            },
        )
        .await
        .unwrap();
    assert_ne!(signalled.target_pgid, pid, "the foreground job, not the shell");
    assert!(signalled.target_pgid > 0);
    send("echo back-$((6*7))\n").await;
    read_until(&mut stream, "back-42\r\n", &mut transcript).await;
    let probed: SendSignalResponse = envd
        .unary(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(pid),
                signal: 0,
                target: SignalTarget::ForegroundGroup as i32,
            },
        )
        .await
        .unwrap();
    assert_eq!(probed.target_pgid, pid, "with the job gone, the shell is the foreground group");

    let err = envd
        .unary::<_, CloseStdinResponse>(
            "/process.Process/CloseStdin",
            &CloseStdinRequest { process: selector(pid) },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::Unknown);
    let _: SendSignalResponse = envd
        .unary(
            "/process.Process/SendSignal",
            &SendSignalRequest {
                process: selector(pid),
                signal: Signal::Sigkill as i32,
                target: 0,
            },
        )
        .await
        .unwrap();
    while stream.next::<StartResponse>().await.is_some() {}
}
