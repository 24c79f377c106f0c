//! `sudo` inside a sandbox: envd's privilege service and the planted client, driven as
//! the default user `user` through envd, as the SDKs do (`sudo echo "$FOO"` is in E2B's
//! own tests; agents run `sudo apt-get install …`).

use serde_json::{Value, json};

use super::harness::Harness;

async fn sandbox(h: &Harness) -> Value {
    h.client.create(json!({"templateID": "base", "timeout": 120})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudo_runs_commands_as_root_or_another_user() {
    let h = Harness::start().await;
    let s = sandbox(&h).await;
    let c = &h.client;
    // The caller is `user`; sudo makes it root, or anyone else.
    assert_eq!(
        c.run_output(&s, "id -un; sudo id -u").await,
        ("user\n0\n".into(), String::new(), 0)
    );
    assert_eq!(c.run(&s, "sudo -u user id -un").await, ("user\n".into(), 0));
    assert_eq!(c.run(&s, "sudo -n -u root id -gn").await, ("root\n".into(), 0));
    // stdin, stdout and stderr are the caller's own.
    assert_eq!(c.run(&s, "echo hi | sudo cat").await, ("hi\n".into(), 0));
    assert_eq!(
        c.run_output(&s, "sudo sh -c 'echo out; echo err >&2' 2>&1 >/dev/null").await,
        ("err\n".into(), String::new(), 0)
    );
    // Exit codes and deaths by signal come back as the command's own.
    assert_eq!(c.run(&s, "sudo sh -c 'exit 7'").await, (String::new(), 7));
    assert_eq!(c.run(&s, "sudo sh -c 'kill -TERM $$'; echo $?").await, ("143\n".into(), 0));
    // A reset environment (sudo's env_reset) unless -E, and sudo's own variables.
    assert_eq!(c.run(&s, "FOO=bar sudo sh -c 'echo ${FOO:-unset}'").await, ("unset\n".into(), 0));
    assert_eq!(c.run(&s, "FOO=bar sudo -E sh -c 'echo ${FOO:-unset}'").await, ("bar\n".into(), 0));
    assert_eq!(
        c.run(
            &s,
            "FOO=bar sudo --preserve-env=FOO sh -c 'echo $FOO $HOME $USER $SUDO_USER $SUDO_UID'"
        )
        .await,
        ("bar /root root user 1000\n".into(), 0)
    );
    // The caller's directory; -i is root's login shell in its home; -s a shell.
    assert_eq!(c.run(&s, "cd /tmp && sudo pwd").await, ("/tmp\n".into(), 0));
    assert_eq!(c.run(&s, "cd /tmp && sudo -i pwd").await, ("/root\n".into(), 0));
    assert_eq!(c.run(&s, "echo 'id -u' | sudo -s").await, ("0\n".into(), 0));
    assert_eq!(c.run(&s, "sudo -s echo '$USER'").await, ("root\n".into(), 0));
    // Root inside may install into /usr (the sandbox's own overlay).
    assert_eq!(
        c.run(&s, "sudo touch /usr/local/bin/dsh-installed && ls /usr/local/bin/dsh-installed")
            .await,
        ("/usr/local/bin/dsh-installed\n".into(), 0)
    );
    // No-ops, and clear errors.
    assert_eq!(c.run(&s, "sudo -v && sudo -k && sudo -K && echo ok").await, ("ok\n".into(), 0));
    let (out, err, code) = c.run_output(&s, "sudo -x true").await;
    assert_eq!((out.as_str(), code), ("", 1));
    assert!(err.starts_with("sudo: invalid option -- 'x'\nusage: sudo"), "{err}");
    assert_eq!(
        c.run_output(&s, "sudo -u nobody-here true").await,
        (String::new(), "sudo: unknown user nobody-here\n".into(), 1)
    );
    assert_eq!(
        c.run_output(&s, "sudo no-such-command").await,
        (String::new(), "sudo: no-such-command: command not found\n".into(), 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signals_to_sudo_reach_the_command_and_a_killed_sudo_kills_it() {
    let h = Harness::start().await;
    let s = sandbox(&h).await;
    // Every wait in these scripts gives up after 10 s (200 × 50 ms).
    let relay = r#"
for sig in INT TERM HUP; do
  rm -f /tmp/out
  sudo sh -c 'trap "echo got $0; exit 3" '$sig'; echo ready; while :; do sleep 0.05; done' $sig > /tmp/out & c=$!
  i=0; until grep -q ready /tmp/out 2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.05; done
  kill -$sig $c; wait $c; rc=$?; echo "$(tail -n1 /tmp/out) $rc"
done
"#;
    assert_eq!(h.client.run(&s, relay).await, ("got INT 3\ngot TERM 3\ngot HUP 3\n".into(), 0));

    // A client that dies (SIGKILL: it cannot relay anything) takes its command along:
    // nothing is left in the sandbox's process list.
    let killed = r#"
sleepers() { for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && echo ${p#/proc/}; done; }
sudo sleep 1234 & c=$!
i=0; while [ -z "$(sleepers)" ]; do i=$((i+1)); [ $i -gt 200 ] && { echo never started; exit 1; }; sleep 0.05; done
echo "root's sleep: $(stat -c %u /proc/$(sleepers))"
kill -KILL $c
i=0; while [ -n "$(sleepers)" ]; do i=$((i+1)); [ $i -gt 200 ] && { echo leaked; exit 1; }; sleep 0.05; done
echo gone
"#;
    assert_eq!(h.client.run(&s, killed).await, ("root's sleep: 0\ngone\n".into(), 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_an_error_and_envd_keeps_serving() {
    let h = Harness::start().await;
    let s = sandbox(&h).await;
    let program = r#"
import json, socket, struct
def ask(payload, fds=()):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(20)
    s.connect("/run/dsh/sudo.sock")
    if fds:
        socket.send_fds(s, [payload[:4]], list(fds))
        s.sendall(payload[4:])
    else:
        s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    print(json.loads(data[4:])["message"])
def frame(body):
    return struct.pack(">I", len(body)) + body
request = json.dumps({"argv": ["id"]}).encode()
ask(frame(b"hello"))
ask(struct.pack(">I", 0xFFFFFFFF))
ask(b"\x00\x00")
ask(frame(request))
ask(frame(request), fds=(0, 1))
ask(frame(json.dumps({"argv": ["id"], "user": "nobody-here"}).encode()), fds=(0, 1, 2))
ask(frame(json.dumps({"argv": []}).encode()), fds=(0, 1, 2))
ask(frame(json.dumps({"argv": "id"}).encode()), fds=(0, 1, 2))
"#;
    let script = format!("python3 -c '{}' && sudo id -u", program.replace('\'', "'\\''"));
    let (out, err, code) = h.client.run_output(&s, &script).await;
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            "sudo: malformed request: expected value at line 1 column 1\n\
             sudo: the request is too large (4294967295 bytes; at most 524288): fewer arguments or variables, please\n\
             sudo: the request ended early\n\
             sudo: expected stdin, stdout and stderr (3 descriptors) with the request, got 0\n\
             sudo: expected stdin, stdout and stderr (3 descriptors) with the request, got 2\n\
             sudo: unknown user nobody-here\n\
             sudo: no command given\n\
             sudo: malformed request: invalid type: string \"id\", expected a sequence at line 1 column 13\n\
             0\n",
            "",
            0
        )
    );
    // The socket is the sandbox's: mode 0666 in a directory only root may write.
    assert_eq!(
        h.client.run(&s, "stat -c '%a %U %F' /run/dsh /run/dsh/sudo.sock").await,
        ("755 root directory\n666 root socket\n".into(), 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudo_is_disabled_where_root_inside_is_the_hosts_root() {
    let h = Harness::start_with(|config| {
        config.isolation = dsh_sandboxd::IsolationLevel::Namespaces;
    })
    .await;
    let s = sandbox(&h).await;
    assert_eq!(s["isolation"], "namespaces");
    assert_eq!(
        h.client
            .run_output(&s, "sudo true; echo $?; test -e /run/dsh/sudo.sock || echo no socket")
            .await,
        (
            "1\nno socket\n".into(),
            "sudo: disabled in this sandbox, because its root would be the host's root \
             (isolation \"namespaces\"); sudo is offered only under strict isolation, where root \
             inside is an unprivileged host uid\n"
                .into(),
            0
        )
    );
}
