//! The first part of the gVisor runtime (`gvisor.rs`): envd in a runsc container, in a
//! network namespace the daemon made and pinned, reached on its loopback as a native
//! sandbox's envd is, and what root inside makes stored as a uid block's root on the
//! host (the root shown to runsc through an idmapped mount).

use std::io::{Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsh_sandboxd::gvisor::{GvisorSpec, Runsc, container_id};
use dsh_sandboxd::spec::IdRange;

use super::harness::{envd_binary, scopeguard};

/// `GET /health` on 127.0.0.1:49983 inside the namespace pinned at `pin`: the status
/// line, or the error.
fn health_inside(pin: &Path) -> Result<String, String> {
    let namespace = std::fs::File::open(pin).unwrap();
    std::thread::spawn(move || {
        // SAFETY: setns(2) of this thread (which ends here) into a namespace file.
        let joined = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(joined, 0, "{}", std::io::Error::last_os_error());
        let mut stream =
            std::net::TcpStream::connect(("127.0.0.1", 49983)).map_err(|e| e.to_string())?;
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).map_err(|e| e.to_string())?;
        Ok(reply.lines().next().unwrap_or_default().to_owned())
    })
    .join()
    .unwrap()
}

/// Processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(needle)
        })
        .collect()
}

#[test]
fn envd_runs_under_gvisor_in_a_pinned_namespace_and_root_inside_is_a_block_of_its_own() {
    let dir = tempfile::Builder::new().prefix("dsh-gvisor-").tempdir().unwrap();
    // runsc's gofer and sandbox run as the block's root and as nobody: they must reach
    // the root and the bundle (a tempdir is 0700).
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let id = format!("gv{}", std::process::id());
    let pin = dir.path().join("netns");
    std::fs::File::create(&pin).unwrap();
    drop(dsh_sandboxd::server::spare_netns::new_namespace_pinned_at(&pin).unwrap());

    // The root: the host's merged-usr links as they are, the rest shown read-only.
    let ids = IdRange { host_base: IdRange::DEFAULT_BASE + 4000 * IdRange::SIZE };
    let rootfs = dir.path().join("rootfs");
    std::fs::create_dir(&rootfs).unwrap();
    std::os::unix::fs::chown(&rootfs, Some(ids.host_base), Some(ids.host_base)).unwrap();
    let mut read_only: Vec<PathBuf> = vec!["/usr".into(), "/etc".into()];
    for path in ["/bin", "/sbin", "/lib", "/lib64"] {
        match std::fs::read_link(path) {
            Ok(target) => std::os::unix::fs::symlink(target, rootfs.join(&path[1..])).unwrap(),
            Err(_) if Path::new(path).is_dir() => read_only.push(path.into()),
            Err(_) => {}
        }
    }
    let envd = envd_binary();
    read_only.push(envd.clone());
    let runsc = Runsc::new(None, dir.path().join("runsc")).unwrap();
    let spec = GvisorSpec {
        id: id.clone(),
        bundle: dir.path().join("bundle"),
        rootfs: rootfs.clone(),
        read_only,
        binds: Vec::new(),
        netns: Some(pin.clone()),
        ids: Some(ids),
        cgroup: None,
        memory_bytes: None,
        args: vec![
            envd.display().to_string(),
            "--listen".into(),
            "127.0.0.1:49983".into(),
            "--default-user".into(),
            "root".into(),
        ],
        env: vec!["PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin".into()],
        cwd: "/".into(),
        log: dir.path().join("envd.log"),
    };
    let started = Instant::now();
    runsc.start(&spec).unwrap();
    let destroy = scopeguard(|| {
        let _ = runsc.destroy(&spec);
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let health = loop {
        let health = health_inside(&pin);
        if health.is_ok() || Instant::now() > deadline {
            break health;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = std::fs::read_to_string(dir.path().join("envd.log")).unwrap_or_default();
    assert_eq!(health.as_deref(), Ok("HTTP/1.1 204 No Content"), "{log}");
    eprintln!("envd answered under gVisor {:?} after runsc create", started.elapsed());
    assert_eq!(runsc.state(&id).unwrap(), "running");

    // gVisor's kernel answers, not the host's.
    let (version, code) = runsc.exec(&id, &["cat", "/proc/version"]).unwrap();
    assert_eq!(code, 0);
    let host = std::fs::read_to_string("/proc/version").unwrap();
    assert_ne!(version, host);
    assert!(version.starts_with("Linux version 4.4.0"), "{version}");
    // Root inside makes files of its block's root on the host.
    // (Python: coreutils' `stat` asks statx for more than this gVisor answers: EINVAL.)
    let script =
        "import os; open('/made', 'w').write('made'); print(os.getuid(), os.stat('/made').st_uid)";
    let (out, code) = runsc.exec(&id, &["python3", "-c", script]).unwrap();
    assert_eq!((out.as_str(), code), ("0 0\n", 0));
    assert_eq!(std::fs::metadata(rootfs.join("made")).unwrap().uid(), ids.host_base);
    // The host's shown directories stay read-only.
    let (out, code) = runsc.exec(&id, &["sh", "-c", "touch /usr/x 2>&1; echo $?"]).unwrap();
    assert_eq!(code, 0);
    assert_ne!(out.lines().last(), Some("0"), "{out}");
    assert!(!Path::new("/usr/x").exists());

    drop(destroy);
    assert!(runsc.state(&id).is_err(), "the container is gone");
    assert_eq!(processes_mentioning(&container_id(&id)), Vec::<u32>::new());
    assert_eq!(health_inside(&pin), Err("Connection refused (os error 111)".to_owned()));
    // SAFETY: umount2 of the pin made above.
    let pin_c = std::ffi::CString::new(pin.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::umount2(pin_c.as_ptr(), libc::MNT_DETACH) }, 0);
}

/// Through the control plane, as a user asks for it: `runtime: "gvisor"` at create. The
/// sandbox is the same product (envd's commands and files, the default `user`, the
/// private network's address) on gVisor's kernel; its kill leaves nothing of runsc.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_created_with_the_gvisor_runtime_runs_envd_under_gvisor() {
    use reqwest::{Method, StatusCode};
    use serde_json::json;

    let mut h = super::harness::Harness::start().await;
    let c = h.client.clone();

    let reply = c
        .call(Method::POST, "/sandboxes", Some(json!({"templateID": "base", "runtime": "kata"})))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.body,
        json!({"code": 400, "message": "runtime: \"native\" or \"gvisor\", not \"kata\""})
    );

    let sandbox = c.create(json!({"templateID": "base", "runtime": "gvisor"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) = c.run(&sandbox, "head -c 19 /proc/version; echo; id -un; pwd").await;
    assert_eq!((out.as_str(), code), ("Linux version 4.4.0\nuser\n/home/user\n", 0));
    let (out, _) = c
        .run(
            &sandbox,
            "ip -4 -br addr show eth0 2>&1 || cat /proc/net/fib_trie | grep -c 198.18.0.2",
        )
        .await;
    assert!(out.contains("198.18.0.2"), "{out}");
    // gVisor's own /dev, with its terminals: a process gets one.
    let pty = "python3 -c \"import os, pty\npid, fd = pty.fork()\nif pid == 0:\n    os.execv('/bin/echo', ['echo', 'in-pty'])\nprint(os.read(fd, 100))\"";
    let (out, code) = c.run(&sandbox, pty).await;
    assert_eq!((out.as_str(), code), ("b'in-pty\\r\\n'\n", 0));
    c.write_file(&sandbox, "/home/user/note.txt", "from the host").await;
    assert_eq!(
        c.read_file(&sandbox, "/home/user/note.txt").await,
        (StatusCode::OK, "from the host".to_owned())
    );
    // (Python: coreutils ask statx for more than this gVisor answers.)
    let owner = "python3 -c \"import os, pwd; print(pwd.getpwuid(os.stat('/home/user/note.txt').st_uid).pw_name)\"";
    let (out, code) = c.run(&sandbox, owner).await;
    assert_eq!((out.as_str(), code), ("user\n", 0));
    // On the host the file is the sandbox's block's `user`, in its own directory.
    let root = h.state().join("sandboxes").join(&id).join("gvisor-root");
    let block = std::fs::metadata(&root).unwrap().uid();
    assert!(block >= IdRange::DEFAULT_BASE, "the root is host uid {block}");
    assert_eq!(std::fs::metadata(root.join("home/user/note.txt")).unwrap().uid(), block + 1000);
    let bundles = h.state().join("runsc-bundles");
    assert!(bundles.join(&id).join("config.json").is_file());
    let runsc_processes = processes_mentioning(&container_id(&id));
    assert!(!runsc_processes.is_empty(), "runsc's processes of {id}");

    let reply = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    super::harness::wait_until("runsc's processes to go", Duration::from_secs(20), async || {
        processes_mentioning(&container_id(&id)).is_empty() && !bundles.join(&id).exists()
    })
    .await;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mountinfo.contains(&id), "a mount of {id} is left");
    h.stop().await;
}
