//! Typed failures, and a failed start leaves nothing running.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Command;

use dsh_sandboxd::{Error, Launcher, Missing, Payload, template};

use crate::common::{Shell, base_spec, host_mounts_under, launcher};

#[test]
fn unknown_templates_are_a_typed_error() {
    assert!(matches!(template::builtin("no-such-template"), Err(Error::UnknownTemplate { .. })));
}

#[test]
fn missing_binaries_are_reported_before_anything_starts() {
    let (_dir, spec) = base_spec("missing");
    let err = launcher().spawn(&spec, Payload::new("/no/such/program")).unwrap_err();
    assert!(matches!(err, Error::ProgramNotFound { .. }), "{err:?}");
    let err = Launcher::new("/no/such/init").spawn(&spec, Payload::new("/bin/sh")).unwrap_err();
    assert!(matches!(err, Error::InitBinaryNotFound { .. }), "{err:?}");
    assert!(!spec.state_dir.exists());
}

#[test]
fn a_failing_setup_step_is_reported_with_the_step() {
    let (_dir, spec) = base_spec("bad-state");
    // A damaged state directory: a file where the overlay layers should go.
    fs::create_dir_all(&spec.state_dir).unwrap();
    fs::write(spec.state_dir.join("overlay"), "not a directory").unwrap();
    let state_dir = fs::canonicalize(&spec.state_dir).unwrap();
    let err = Shell::try_start(&spec, "true").err().unwrap();
    match &err {
        Error::Setup { step, source } => {
            assert_eq!(
                step,
                &format!(
                    "mkdir {}/overlay/usr/upper (mode 0755, owner {root}:{root})",
                    state_dir.display(),
                    root = spec.isolation.host_id(0)
                )
            );
            assert_eq!(source.raw_os_error(), Some(libc::ENOTDIR));
        }
        other => panic!("{other:?}"),
    }
    assert!(host_mounts_under(&state_dir).is_empty());
    dsh_sandboxd::destroy(&spec).unwrap();
    assert!(!state_dir.exists());
}

#[test]
fn a_program_that_cannot_execute_is_a_spawn_error() {
    let (dir, spec) = base_spec("noexec");
    let program = dir.path().join("not-executable");
    fs::write(&program, "#!/bin/sh\necho hi\n").unwrap();
    fs::set_permissions(&program, fs::Permissions::from_mode(0o644)).unwrap();
    let err = launcher().spawn(&spec, Payload::new(&program)).unwrap_err();
    match &err {
        Error::PayloadSpawn { program, source } => {
            assert_eq!(program, std::path::Path::new("/.dsh/bin/not-executable"));
            assert_eq!(source.raw_os_error(), Some(libc::EACCES));
        }
        other => panic!("{other:?}"),
    }
    dsh_sandboxd::destroy(&spec).unwrap();
}

const PROBE_ENV: &str = "DSH_SANDBOXD_UNPRIVILEGED_PROBE";

/// Runs as "nobody" when `unprivileged_users_get_a_clear_error` re-executes this test
/// binary; a no-op otherwise.
#[test]
fn unprivileged_probe() {
    if std::env::var_os(PROBE_ENV).is_none() {
        return;
    }
    let dir = std::env::var_os(PROBE_ENV).unwrap();
    let spec = dsh_sandboxd::SandboxSpec::new(
        "probe",
        std::path::PathBuf::from(dir).join("state"),
        dsh_sandboxd::Template::base(),
    );
    match launcher().spawn(&spec, Payload::new("/bin/sh")) {
        Err(Error::NamespacesUnavailable(missing)) => {
            assert!(matches!(
                missing,
                Missing::Root { euid: 65534 } | Missing::RootAndUserNamespaces { euid: 65534, .. }
            ));
            println!("PROBE: {missing}");
        }
        other => panic!("expected NamespacesUnavailable, got {other:?}"),
    }
}

#[test]
fn unprivileged_users_get_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "suite::errors::unprivileged_probe", "--nocapture"])
        .env(PROBE_ENV, dir.path())
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("PROBE: not running as root (euid 65534)"), "{stdout}");
    assert!(!dir.path().join("state").exists());
}

#[test]
fn one_sandbox_per_state_directory() {
    let (_dir, spec) = base_spec("twice");
    let mut first = Shell::start(&spec, "echo ready; sleep 1000");
    assert_eq!(first.read_line(), "ready");
    let err = Shell::try_start(&spec, "true").err().unwrap();
    assert!(matches!(err, Error::AlreadyRunning { pid } if pid == first.process.pid()), "{err:?}");
    first.process.kill().unwrap();
    first.process.wait().unwrap();
    assert_eq!(crate::common::run_ok(&spec, "echo again"), "again\n");
}
