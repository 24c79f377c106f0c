//! Who a sandboxed process is: root of a user namespace of its own whose ids are an
//! unprivileged block of host ids, with Docker's capabilities, `no_new_privs` and the
//! seccomp filters; seen from the host, root inside is uid `host_base` and `user` is
//! `host_base + 1000`, never 0 or 1000.

use super::probe::{
    PROBE_PATH, assert_lines, expected, host_base, host_pid_of, host_status, python,
};
use crate::common::{Shell, base_spec};

/// Docker's 14 default capabilities (CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID,
/// SETUID, SETPCAP, NET_BIND_SERVICE, NET_RAW, SYS_CHROOT, MKNOD, AUDIT_WRITE, SETFCAP).
const DOCKER_CAPS: &str = "00000000a80425fb";
const NO_CAPS: &str = "0000000000000000";

#[test]
fn root_inside_is_an_unprivileged_host_uid_block_with_dockers_capabilities() {
    let (_dir, spec) = base_spec("identity");
    let base = host_base(&spec);
    let body = r#"
out("uid_map", " ".join(open("/proc/self/uid_map").read().split()))
out("gid_map", " ".join(open("/proc/self/gid_map").read().split()))
out("resuid", os.getresuid())
out("resgid", os.getresgid())
out("groups", os.getgroups())
for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Seccomp_filters"):
    out(field, status(field))
out("setresuid(0, 0, 0)", attempt(lambda: os.setresuid(0, 0, 0)))
if ROLE == "root":
    # A set-user-id-root copy of python, made by root inside on the /usr overlay (which
    # is not nosuid): no_new_privs must keep it from raising `user` to root.
    import shutil
    shutil.copy("/usr/bin/python3", "/usr/local/bin/dsh-setuid-python")
    os.chmod("/usr/local/bin/dsh-setuid-python", 0o4755)
out("euid of a setuid-root python", subprocess.run(
    ["/usr/local/bin/dsh-setuid-python", "-c", "import os; print(os.geteuid())"],
    capture_output=True, text=True).stdout.strip())
"#;
    let script = format!(
        "cat > {PROBE_PATH} <<'DSH_PROBE_END'\n{}DSH_PROBE_END\n\
         for role in root user; do echo \"[$role]\"; python3 {PROBE_PATH} $role 2>&1; done\n\
         sleep 30 & r=$!; echo \"root sleeper $r\"\n\
         setpriv --reuid=1000 --regid=1000 --clear-groups sleep 30 & u=$!; echo \"user sleeper $u\"\n\
         # Ready once both run sleep (setpriv has switched ids by then).\n\
         for p in $r $u; do c=; while [ \"$c\" != sleep ]; do read c < /proc/$p/comm; done; done\n\
         echo ready; wait\n",
        python(body)
    );
    let mut shell = Shell::start(&spec, &script);
    let mut probe_output = String::new();
    let (mut root_sleeper, mut user_sleeper) = (0, 0);
    loop {
        let line = shell.read_line();
        if let Some(pid) = line.strip_prefix("root sleeper ") {
            root_sleeper = pid.parse().unwrap();
        } else if let Some(pid) = line.strip_prefix("user sleeper ") {
            user_sleeper = pid.parse().unwrap();
        } else if line == "ready" || line.is_empty() {
            break;
        } else {
            probe_output.push_str(&line);
            probe_output.push('\n');
        }
    }

    // From the host: the init is host root outside the user namespace (by design: it is
    // pid 1 and nothing inside can reach it); everything inside runs as the block's ids.
    let ids = |id: u32| format!("{id} {id} {id} {id}");
    let init = host_status(shell.process.pid());
    assert_eq!(init["Uid"], ids(0));
    assert_eq!(init["NSpid"].split(' ').next_back(), Some("1"));
    for (inside, uid, what) in [
        (3, base, "the payload"),
        (root_sleeper, base, "root's sleep"),
        (user_sleeper, base + 1000, "user's sleep"),
    ] {
        let status = host_status(host_pid_of(&shell, inside));
        assert_eq!(
            (status["Uid"].as_str(), status["Gid"].as_str()),
            (ids(uid).as_str(), ids(uid).as_str()),
            "{what}"
        );
        assert_eq!(status["Groups"], "", "{what}");
        let caps = if uid == base { DOCKER_CAPS } else { NO_CAPS };
        assert_eq!(status["CapEff"], caps, "{what}");
        assert_eq!(status["CapBnd"], DOCKER_CAPS, "{what}");
        assert_eq!(status["NoNewPrivs"], "1", "{what}");
        assert_eq!(status["Seccomp"], "2", "{what}");
    }
    eprintln!("uid block of {}: host {base}-{}", spec.id, base + 65535);
    shell.process.kill().unwrap();

    let map = format!("0 {base} 65536");
    assert_lines(
        &probe_output,
        &expected(&[
            ("uid_map", &map, &map),
            ("gid_map", &map, &map),
            ("resuid", "(0, 0, 0)", "(1000, 1000, 1000)"),
            ("resgid", "(0, 0, 0)", "(1000, 1000, 1000)"),
            ("groups", "[]", "[]"),
            ("CapInh", NO_CAPS, NO_CAPS),
            ("CapPrm", DOCKER_CAPS, NO_CAPS),
            ("CapEff", DOCKER_CAPS, NO_CAPS),
            ("CapBnd", DOCKER_CAPS, DOCKER_CAPS),
            ("CapAmb", NO_CAPS, NO_CAPS),
            ("NoNewPrivs", "1", "1"),
            ("Seccomp", "2", "2"),
            ("Seccomp_filters", "2", "2"),
            ("setresuid(0, 0, 0)", "ok", "EPERM"),
            ("euid of a setuid-root python", "0", "1000"),
        ]),
        "",
    );
}
