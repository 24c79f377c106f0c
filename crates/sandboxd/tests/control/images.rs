//! Templates built `fromImage`: an OCI image pushed to a real registry on this machine
//! (Debian's `docker-registry`, 127.0.0.1 only) is pulled by the daemon, its build runs on
//! the image's files instead of the host's, and sandboxes of the template do too. The
//! image is made here from a few of the host's own programs and the libraries they load
//! (what `ldd` names), so it runs on this machine's kernel without any download.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::harness::{Harness, envd_binary, init_binary};
use super::templates::{request_build, wait_for_build};
use crate::registry::{Layer, Pusher, Registry, push_image};

/// What the image's `/etc/dsh-image-release` says: no host has it.
const RELEASE: &str = "dsh test image 1\n";

/// The programs the image holds (with `sh` as dash), besides what envd and the init load.
const PROGRAMS: [&str; 11] =
    ["bash", "dash", "cat", "id", "whoami", "env", "sleep", "ls", "mkdir", "test", "stat"];

/// The libraries `binary` loads, as `ldd` names them (the loader included).
fn libraries(binary: &Path) -> Vec<PathBuf> {
    let out = std::process::Command::new("ldd").arg(binary).output().unwrap();
    assert!(
        out.status.success(),
        "ldd {}: {}",
        binary.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let path = match line.split_once("=>") {
                Some((_, after)) => after.trim().split(' ').next()?,
                None => line.trim().split(' ').next()?,
            };
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

/// `/lib/x`, `/lib64/x`, `/bin/x` as the merged `/usr` has them.
fn under_usr(path: &Path) -> PathBuf {
    for top in ["lib", "lib64", "bin", "sbin"] {
        if let Ok(rest) = path.strip_prefix(Path::new("/").join(top)) {
            return Path::new("/usr").join(top).join(rest);
        }
    }
    path.to_owned()
}

/// One layer: a merged-`/usr` root with the programs, their libraries, an `/etc` of
/// its own and a release file; `passwd_link`: `/etc/passwd` is that symlink instead.
fn host_made_image(passwd_link: Option<&str>) -> Layer {
    let programs: Vec<PathBuf> = PROGRAMS.iter().map(|p| Path::new("/usr/bin").join(p)).collect();
    let mut files = BTreeSet::new();
    let mut links = BTreeSet::new();
    let loaders = programs.iter().cloned().chain([envd_binary(), init_binary()]);
    for binary in loaders {
        for library in libraries(&binary) {
            let path = under_usr(&library);
            if std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink() {
                links.insert((path.clone(), std::fs::read_link(&path).unwrap()));
                files.insert(under_usr(&std::fs::canonicalize(&path).unwrap()));
            } else {
                files.insert(path);
            }
        }
    }
    files.extend(programs);
    let mut dirs = BTreeSet::from([PathBuf::from("/usr/local/bin"), PathBuf::from("/etc")]);
    for path in files.iter().chain(links.iter().map(|(path, _)| path)) {
        dirs.extend(path.ancestors().skip(1).filter(|d| *d != Path::new("/")).map(Path::to_owned));
    }
    let mut dirs: Vec<PathBuf> = dirs.into_iter().collect();
    dirs.sort_by_key(|d| d.components().count());
    let name = |path: &Path| path.strip_prefix("/").unwrap().to_str().unwrap().to_owned();

    let mut layer = Layer::new();
    for dir in &dirs {
        layer.dir(&name(dir), 0o755, 0);
    }
    for top in ["bin", "sbin", "lib", "lib64"] {
        layer.link(tar::EntryType::Symlink, top, &format!("usr/{top}"));
    }
    for file in &files {
        let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o7777;
        layer.file(&name(file), mode, 0, &std::fs::read(file).unwrap());
    }
    for (path, target) in &links {
        layer.link(tar::EntryType::Symlink, &name(path), target.to_str().unwrap());
    }
    // An attacker's image: a setuid-root program (no_new_privs makes it run as its caller).
    layer.file("usr/bin/id-setuid", 0o4755, 0, &std::fs::read("/usr/bin/id").unwrap());
    match passwd_link {
        Some(target) => layer.link(tar::EntryType::Symlink, "etc/passwd", target),
        None => layer.file("etc/passwd", 0o644, 0, b"root:x:0:0:root:/root:/bin/bash\n"),
    };
    layer
        .link(tar::EntryType::Symlink, "usr/bin/sh", "dash")
        .file("etc/group", 0o644, 0, b"root:x:0:\n")
        .file("etc/dsh-image-release", 0o644, 0, RELEASE.as_bytes());
    layer
}

const FIRST_STEP: &str = "cat /etc/dsh-image-release; echo \"greeting=$GREETING\"; \
    test -e /usr/bin/python3 || echo no python3 here; whoami";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_built_from_an_image_runs_its_steps_and_sandboxes_on_the_image_s_files() {
    let registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let digest = push_image(&pusher, "dsh/mini", "1", vec![host_made_image(None)]).await;
    let reference = format!("{}/dsh/mini:1", registry.host());
    let h = Harness::start().await;
    let c = h.client.clone();
    let start = |template: String, build: String| {
        let (c, reference) = (c.clone(), reference.clone());
        async move {
            let body = json!({"fromImage": reference, "steps": [
                {"type": "RUN", "args": [FIRST_STEP]},
                {"type": "RUN", "args": ["echo built > /home/user/built.txt"]},
            ]});
            let path = format!("/v2/templates/{template}/builds/{build}");
            let reply = c.call(Method::POST, &path, Some(body)).await;
            assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
            wait_for_build(&c, &template, &build).await
        }
    };

    let (template, build) = request_build(&c, "mini:v1").await;
    let (status, logs) = start(template.clone(), build).await;
    assert_eq!(status["status"], "ready", "{logs:?}");
    let base = logs.iter().position(|l| l.starts_with("[base] ")).unwrap();
    assert_eq!(
        logs[..=base].first().map(String::as_str),
        Some(format!("Pulling {reference} from {}", registry.host()).as_str()),
        "{logs:?}"
    );
    assert_eq!(
        &logs[base..base + 7],
        [
            format!("[base] FROM {reference} ({digest})"),
            format!("[1/2] RUN {FIRST_STEP}"),
            "dsh test image 1".to_owned(),
            // The image's ENV (the pushed config says GREETING=a=b).
            "greeting=a=b".to_owned(),
            "no python3 here".to_owned(),
            "user".to_owned(),
            "[2/2] RUN echo built > /home/user/built.txt".to_owned(),
        ],
        "{logs:?}"
    );

    // A sandbox of the template: the image's files and the build's, not the host's.
    let sandbox = c.create(json!({"templateID": "mini:v1"})).await;
    assert_eq!(sandbox["templateID"], json!(template));
    assert_eq!(
        c.run(&sandbox, "cat /etc/dsh-image-release /home/user/built.txt; whoami; echo $GREETING; test -e /usr/bin/python3; echo $?")
            .await,
        (format!("{RELEASE}built\nuser\na=b\n1\n"), 0)
    );
    // The image's setuid-root program keeps its mode and gives nothing: it runs as `user`.
    assert_eq!(
        c.run(&sandbox, "stat -c %a /usr/bin/id-setuid; id -u; /usr/bin/id-setuid -u").await,
        ("4755\n1000\n1000\n".to_owned(), 0)
    );

    // The same template under gVisor: the image's files and the build's too (a gVisor
    // sandbox keeps its files in a native sandbox's layout, the image's directories below).
    let gvisor = c.create(json!({"templateID": "mini:v1", "runtime": "gvisor"})).await;
    let (kernel, _) = c.run(&gvisor, "cat /proc/version").await;
    assert!(kernel.starts_with("Linux version 4.4.0"), "not gVisor's kernel: {kernel}");
    assert_eq!(
        c.run(&gvisor, "cat /etc/dsh-image-release /home/user/built.txt; whoami; echo $GREETING; test -e /usr/bin/python3; echo $?")
            .await,
        (format!("{RELEASE}built\nuser\na=b\n1\n"), 0)
    );
    assert_eq!(
        c.run(&gvisor, "stat -c %a /usr/bin/id-setuid; id -u; /usr/bin/id-setuid -u").await,
        ("4755\n1000\n1000\n".to_owned(), 0)
    );
    let gvisor_id = gvisor["sandboxID"].as_str().unwrap();
    let reply = c.call(Method::DELETE, &format!("/sandboxes/{gvisor_id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);

    // A rebuild finds the image pulled (the tag still names the same digest) and every
    // step in the cache.
    let (_, build2) = request_build(&c, "mini:v2").await;
    let (status2, logs2) = start(template.clone(), build2).await;
    assert_eq!(status2["status"], "ready", "{logs2:?}");
    for line in [
        format!("{reference}: {digest} already pulled"),
        format!("CACHED [1/2] RUN {FIRST_STEP}"),
        "CACHED [2/2] RUN echo built > /home/user/built.txt".to_owned(),
    ] {
        assert!(logs2.contains(&line), "{line:?} not in {logs2:?}");
    }

    // An image that cannot be pulled fails the build at its base, saying why.
    let (broken, build3) = request_build(&c, "nowhere").await;
    let path = format!("/v2/templates/{broken}/builds/{build3}");
    let missing = format!("{}/dsh/missing:1", registry.host());
    let body = json!({"fromImage": missing, "steps": [{"type": "RUN", "args": ["true"]}]});
    assert_eq!(c.call(Method::POST, &path, Some(body)).await.status, StatusCode::ACCEPTED);
    let (failed, _) = wait_for_build(&c, &broken, &build3).await;
    assert_eq!(failed["status"], "error");
    assert_eq!(failed["reason"]["step"], "base");
    let message = failed["reason"]["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("pulling {missing}: image not found")), "{message}");

    // The image stays while anything runs on it: here a sandbox outlives its template.
    let images = || -> Vec<String> {
        let dir = h.state().join("images");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with("sha256-"))
            .collect();
        names.sort();
        names
    };
    let kept = vec![digest.replace(':', "-")];
    assert_eq!(images(), kept);
    for name in ["nowhere", "mini"] {
        let deleted = c.call(Method::DELETE, &format!("/templates/{name}"), None).await;
        assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{name}");
    }
    assert_eq!(images(), kept, "a sandbox still runs on the image");
    let id = sandbox["sandboxID"].as_str().unwrap();
    let killed = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(killed.status, StatusCode::NO_CONTENT);
    // A kill collects nothing; `POST /gc` (`dsh sandbox gc`) does, and says what went.
    assert_eq!(images(), kept);
    let collected = c.call(Method::POST, "/gc", None).await;
    assert_eq!(
        (collected.status, collected.body),
        (StatusCode::OK, json!({"cacheEntries": [], "uploads": [], "images": [digest]}))
    );
    assert_eq!(images(), Vec::<String>::new());
    let again = c.call(Method::POST, "/gc", None).await;
    assert_eq!(again.body, json!({"cacheEntries": [], "uploads": [], "images": []}));
}

/// An attacker's image whose `/etc/passwd` links to a host file (one any user may read):
/// the daemon reads an image's account files inside the image, so the link leads
/// nowhere and the host's text never reaches the sandbox, which gets `root` and `user`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_s_account_files_never_lead_to_the_host_s() {
    let host = tempfile::Builder::new().prefix("dsh-host-only-").tempdir().unwrap();
    std::fs::set_permissions(host.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let secret = host.path().join("passwd");
    std::fs::write(&secret, "host-only:x:4242:4242::/nonexistent:/bin/sh\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();

    let registry = Registry::start(None).await;
    let pusher = Pusher::new(&registry, None);
    let image = host_made_image(Some(secret.to_str().unwrap()));
    push_image(&pusher, "dsh/linked", "1", vec![image]).await;
    let h = Harness::start().await;
    let c = h.client.clone();
    let (template, build) = request_build(&c, "linked").await;
    let body = json!({
        "fromImage": format!("{}/dsh/linked:1", registry.host()),
        "steps": [{"type": "RUN", "args": ["cat /etc/passwd"]}],
    });
    let path = format!("/v2/templates/{template}/builds/{build}");
    assert_eq!(c.call(Method::POST, &path, Some(body)).await.status, StatusCode::ACCEPTED);
    let (status, logs) = wait_for_build(&c, &template, &build).await;
    assert_eq!(status["status"], "ready", "{logs:?}");
    let step = logs.iter().position(|l| l == "[1/1] RUN cat /etc/passwd").unwrap();
    assert_eq!(
        &logs[step + 1..step + 3],
        ["root:x:0:0:root:/root:/bin/bash", "user:x:1000:1000::/home/user:/bin/bash"],
        "{logs:?}"
    );
    assert!(!logs.iter().any(|l| l.contains("host-only")), "{logs:?}");
    // A gVisor sandbox of the template reads the same account files.
    let gvisor = c.create(json!({"templateID": "linked", "runtime": "gvisor"})).await;
    assert_eq!(
        c.run(&gvisor, "cat /etc/passwd").await,
        ("root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/bash\n".to_owned(), 0)
    );
}
