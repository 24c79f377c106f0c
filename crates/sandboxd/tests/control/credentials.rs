//! Credentials that never enter the sandbox: E2B's `network.rules` (headers set on a
//! domain's HTTP and HTTPS requests by the daemon's egress path), `/secrets` named in
//! them, and `network.egressProxy` (outbound TCP through a SOCKS5 proxy).
//!
//! The API the sandbox calls is a stand-in (`standins/api_server.py`) in the test's own
//! "internet" namespace (see `network.rs`), at 198.51.100.3 as `api.example.test`, with a
//! certificate of a CA the test makes and gives the daemon's trust (`egress_trust`); it
//! records every request's headers in a file the test reads. The proxy is a stand-in
//! too (`standins/socks5_proxy.py`, RFC 1928/1929) on the host's loopback.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{Client, KillOnDrop, config, wait_until};
use super::network::{INTERNET, Internet};

/// The API stand-in's address and names.
const API: &str = "198.51.100.3";
const NAME: &str = "api.example.test";
/// A name of the same server without rules: its connections pass through untouched.
const OTHER: &str = "other.example.test";
/// An address nothing is allowed to reach in the proxy test.
const DENIED: &str = "198.51.100.4";
/// The secret's value: long and random enough that finding it anywhere is no accident.
const SECRET: &str = "dsh-secret-7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c2e";
const ROTATED: &str = "dsh-secret-rotated-0b1c2d3e4f5a6b7c8d9e";

/// A child process killed (and reaped) on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The test's own CA and a certificate for both names, made with `openssl`.
struct TestCa {
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl").args(args).current_dir(dir).output().unwrap();
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn make_test_ca(dir: &Path) -> TestCa {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    let mut args = vec!["req", "-x509"];
    args.extend(ec);
    args.extend(["-days", "2", "-subj", "/CN=dsh test CA", "-keyout", "ca.key", "-out", "ca.pem"]);
    openssl(dir, &args);
    let mut args = vec!["req"];
    args.extend(ec);
    args.extend(["-subj", "/CN=api.example.test", "-keyout", "api.key", "-out", "api.csr"]);
    openssl(dir, &args);
    std::fs::write(
        dir.join("api.ext"),
        format!("subjectAltName=DNS:{NAME},DNS:{OTHER}\nextendedKeyUsage=serverAuth\n"),
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "api.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "api.ext",
            "-out",
            "api.pem",
        ],
    );
    TestCa { ca: dir.join("ca.pem"), cert: dir.join("api.pem"), key: dir.join("api.key") }
}

/// The stand-in internet with the API stand-in on it, and what the daemon is told.
struct World {
    _internet: Internet,
    _api: Running,
    log: PathBuf,
    ca: TestCa,
    hosts: PathBuf,
    _dir: tempfile::TempDir,
}

fn standin(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/control/standins").join(name)
}

async fn world() -> World {
    let mut internet = Internet::start();
    internet.serve_tls();
    internet.add_address(API);
    let dir = tempfile::Builder::new().prefix("dsh-cred-").tempdir().unwrap();
    let ca = make_test_ca(dir.path());
    let log = dir.path().join("requests.jsonl");
    std::fs::write(&log, "").unwrap();
    let script = standin("api_server.py");
    let api = internet.spawn(
        "python3",
        &[
            script.to_str().unwrap(),
            API,
            ca.cert.to_str().unwrap(),
            ca.key.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, format!("{API} {NAME} {OTHER}\n")).unwrap();
    let api = Running(api);
    wait_until("the API stand-in listens", Duration::from_secs(15), async || {
        [80, 443, 8080].iter().all(|port| {
            Command::new("ip")
                .args(["netns", "exec", &internet_name(&internet), "python3", "-c"])
                .arg(format!(
                    "import socket; socket.create_connection(('{API}', {port}), timeout=1)"
                ))
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success()
        })
    })
    .await;
    World { _internet: internet, _api: api, log, ca, hosts, _dir: dir }
}

fn internet_name(internet: &Internet) -> String {
    internet.name().to_owned()
}

/// The requests the API stand-in received since the last call (and forgets them).
fn received(log: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap();
    std::fs::write(log, "").unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The values a received request had for header `name`, in order.
fn header_values(request: &Value, name: &str) -> Vec<String> {
    request["headers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|pair| pair[0] == name)
        .map(|pair| pair[1].as_str().unwrap().to_owned())
        .collect()
}

/// A daemon on a private network that resolves and trusts the stand-in as the world's.
async fn daemon(world: &World, state: &Path) -> (dsh_sandboxd::Daemon, Client) {
    daemon_with_pool(world, state, 0).await
}

async fn daemon_with_pool(
    world: &World,
    state: &Path,
    pool: usize,
) -> (dsh_sandboxd::Daemon, Client) {
    let mut settings = config(state);
    settings.net = dsh_sandboxd::Net::Private;
    settings.pool = dsh_sandboxd::server::PoolSize::Fixed(pool);
    settings.egress_hosts = Some(world.hosts.clone());
    settings.egress_trust = Some(world.ca.ca.clone());
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let client = Client::new(&daemon.url(), daemon.api_key());
    (daemon, client)
}

/// The sandbox knows the stand-in's names (its own `/etc/hosts`, as root inside) and
/// has the Python packages of `sandbox-python.txt` under `/home/user/py`.
async fn prepare(c: &Client, sandbox: &Value) {
    let (out, code) =
        c.run_as(sandbox, "root", &format!("echo '{API} {NAME} {OTHER}' >> /etc/hosts")).await;
    assert_eq!(code, 0, "{out}");
    let packages = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/sandbox-python");
    assert!(
        packages.join("requests").is_dir(),
        "{} has no requests: scripts/test's sandbox_python step installs it",
        packages.display()
    );
    let tar = Command::new("tar")
        .args(["-c", "--exclude=__pycache__", "-C"])
        .arg(&packages)
        .args(["requests", "urllib3", "idna", "certifi", "chardet"])
        .output()
        .unwrap();
    assert!(tar.status.success());
    let response = c
        .envd(sandbox, Method::POST, "/files?path=/home/user/py.tar")
        .header("Content-Type", "application/octet-stream")
        .body(tar.stdout)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (out, code) = c
        .run(sandbox, "mkdir -p /home/user/py && tar -xf /home/user/py.tar -C /home/user/py")
        .await;
    assert_eq!(code, 0, "{out}");
}

async fn create_secret(c: &Client, name: &str, value: &str) -> Value {
    let reply = c.call(Method::POST, "/secrets", Some(json!({"name": name, "value": value}))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    reply.body
}

fn rules() -> Value {
    json!({ NAME: [{"transform": {"headers": {
        "Authorization": "Bearer ${e2b.secrets.API_TOKEN}",
        "X-Dsh-Rule": "on",
    }}}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_set_headers_over_http_and_https_from_every_client_and_only_for_their_domain() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-rules-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (daemon, c) = daemon(&world, &state).await;
    let secret = create_secret(&c, "api_token", SECRET).await;
    let sandbox = c.create(json!({"templateID": "base", "network": {"rules": rules()}})).await;
    prepare(&c, &sandbox).await;

    // Each client, as it is (no proxy setting, no flag): over HTTPS it trusts the
    // daemon's CA through the system store or the variables envd's /init set.
    let clients = [
        ("curl-http", format!("curl -sS -H 'Authorization: forged' http://{NAME}/curl-http")),
        ("curl-https", format!("curl -sS -H 'Authorization: forged' https://{NAME}/curl-https")),
        (
            "requests",
            format!(
                "PYTHONPATH=/home/user/py python3 -c \"import requests; print(requests.get('https://{NAME}/requests').text, end='')\""
            ),
        ),
        (
            "urllib",
            format!(
                "python3 -c \"import urllib.request as u; print(u.urlopen('https://{NAME}/urllib').read().decode(), end='')\""
            ),
        ),
        (
            "node",
            format!(
                "node -e \"fetch('https://{NAME}/node').then(r => r.text()).then(t => process.stdout.write(t))\""
            ),
        ),
    ];
    for (what, command) in &clients {
        let (out, stderr, code) = c.run_output(&sandbox, command).await;
        assert_eq!((out.as_str(), code), (format!("ok /{what}\n").as_str(), 0), "{what}: {stderr}");
    }
    // git, pip and npm reach it too (the stand-in is no repository or index: their
    // requests arriving, verified and with the header, is what counts).
    let tools = [
        format!("git ls-remote https://{NAME}/git-repo"),
        format!(
            "python3 -m pip download --no-deps --no-cache-dir -d /tmp/pip --index-url https://{NAME}/pip-index/ dsh-none"
        ),
        format!("npm view dsh-none --registry https://{NAME}/npm-registry/"),
    ];
    for command in &tools {
        let (_, stderr, _) = c.run_output(&sandbox, command).await;
        for refused in ["certificate", "SSL", "CERT_"] {
            assert!(!stderr.contains(refused), "{command}: {stderr}");
        }
    }
    let requests = received(&world.log);
    let paths: Vec<&str> = requests.iter().map(|r| r["path"].as_str().unwrap()).collect();
    for expected in ["/curl-http", "/curl-https", "/requests", "/urllib", "/node"] {
        assert!(paths.contains(&expected), "{expected} not in {paths:?}");
    }
    for prefix in ["/git-repo/info/refs", "/pip-index/dsh-none/", "/npm-registry/dsh-none"] {
        assert!(paths.iter().any(|p| p.starts_with(prefix)), "{prefix} not in {paths:?}");
    }
    for request in &requests {
        let path = request["path"].as_str().unwrap();
        assert_eq!(header_values(request, "authorization"), [format!("Bearer {SECRET}")], "{path}");
        assert_eq!(header_values(request, "x-dsh-rule"), ["on"], "{path}");
        assert_eq!(request["tls"], path != "/curl-http", "{path}");
    }

    // A name of the same server without rules: passed through as it is (the
    // sandbox sees the stand-in's own certificate, which only the test CA verifies).
    c.write_file(
        &sandbox,
        "/home/user/test-ca.pem",
        &std::fs::read_to_string(&world.ca.ca).unwrap(),
    )
    .await;
    let (out, code) = c
        .run(&sandbox, &format!("curl -sS --cacert /home/user/test-ca.pem https://{OTHER}/passed"))
        .await;
    assert_eq!((out.as_str(), code), ("ok /passed\n", 0));
    let requests = received(&world.log);
    assert_eq!(requests.len(), 1);
    assert_eq!(header_values(&requests[0], "authorization"), Vec::<String>::new());
    assert_eq!(header_values(&requests[0], "x-dsh-rule"), Vec::<String>::new());

    // The rule's name sent to another address: plain HTTP there gets nothing (the name
    // does not have that address), HTTPS there fails the daemon's check of the server.
    let (out, code) =
        c.run(&sandbox, &format!("curl -sS -H 'Host: {NAME}' http://{INTERNET}/spoofed")).await;
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!(
            "dsh: {NAME} has header rules, which are sent only to its own addresses; {INTERNET} is not one ({NAME} resolves to [{API}] for the daemon)\n"
        )
    );
    let (out, code) = c
        .run(&sandbox, &format!("curl -sS --resolve {NAME}:443:{INTERNET} https://{NAME}/spoofed"))
        .await;
    assert_eq!(code, 0);
    assert!(out.starts_with(&format!("dsh: the TLS connection to {NAME} failed (its certificate is checked against the host's trust store): ")), "{out}");
    assert!(received(&world.log).is_empty());

    // The secret is read at each request: a new value applies at once.
    let id = secret["secretID"].as_str().unwrap();
    let reply =
        c.call(Method::POST, &format!("/secrets/{id}"), Some(json!({"value": ROTATED}))).await;
    assert!(reply.status.is_success(), "{}: {}", reply.status, reply.body);
    let (out, _) = c.run(&sandbox, &format!("curl -sS https://{NAME}/rotated")).await;
    assert_eq!(out, "ok /rotated\n");
    let requests = received(&world.log);
    assert_eq!(header_values(&requests[0], "authorization"), [format!("Bearer {ROTATED}")]);
    // Deleted: the request is answered by the daemon, naming the secret, not sent.
    let reply = c.call(Method::DELETE, &format!("/secrets/{id}"), None).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let (out, _) = c.run(&sandbox, &format!("curl -sS https://{NAME}/deleted")).await;
    assert_eq!(
        out,
        "dsh: the secret \"api_token\" that header \"authorization\" names does not exist\n"
    );
    assert!(received(&world.log).is_empty());

    // Rules replaced at runtime (cleared): the name passes through, so the sandbox sees
    // the stand-in's certificate, which it does not trust (curl's error 60).
    let sandbox_id = sandbox["sandboxID"].as_str().unwrap();
    let reply =
        c.call(Method::PUT, &format!("/sandboxes/{sandbox_id}/network"), Some(json!({}))).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let (_, code) = c.run(&sandbox, &format!("curl -sS https://{NAME}/cleared")).await;
    assert_eq!(code, 60);
    // And set again.
    create_secret(&c, "api_token", SECRET).await;
    let reply = c
        .call(
            Method::PUT,
            &format!("/sandboxes/{sandbox_id}/network"),
            Some(json!({"rules": rules()})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let (out, _) = c.run(&sandbox, &format!("curl -sS https://{NAME}/again")).await;
    assert_eq!(out, "ok /again\n");
    let requests = received(&world.log);
    assert_eq!(header_values(&requests[0], "authorization"), [format!("Bearer {SECRET}")]);

    // A domain in rules is not thereby allowed (E2B's spec): allowOut still decides.
    let closed = c
        .create(json!({"templateID": "base", "allow_internet_access": false, "network": {"rules": rules()}}))
        .await;
    let (_, code) =
        c.run(&closed, &format!("curl -sS --resolve {NAME}:443:{API} https://{NAME}/closed")).await;
    assert_ne!(code, 0);
    assert!(received(&world.log).is_empty());

    daemon.shutdown().await.unwrap();
    drop(world);
}

/// The attack: root inside, and `user`, look for the secret wherever a sandbox can look
/// once it has been used: every process's environment and memory, every file outside
/// `/proc`, `/sys` and `/dev` (the host's `/usr`, shared read-only, but its own
/// `/usr/local`), and the CA's private key the same way. They find neither; the daemon's
/// answers and the sandbox's record hold no value either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_finds_neither_the_secret_nor_the_ca_key_anywhere_it_can_look() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-leak-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (daemon, c) = daemon(&world, &state).await;
    create_secret(&c, "api_token", SECRET).await;
    let sandbox = c
        .create(json!({"templateID": "base", "envVars": {"NOT_A_SECRET": "x"}, "network": {"rules": rules()}}))
        .await;
    prepare(&c, &sandbox).await;
    // Used, over both paths, and kept in use while the search runs: a connection held
    // open by a client whose memory is searched too.
    let (out, code) =
        c.run(&sandbox, &format!("curl -sS http://{NAME}/a && curl -sS https://{NAME}/b")).await;
    assert_eq!((out.as_str(), code), ("ok /a\nok /b\n", 0));
    assert_eq!(received(&world.log).len(), 2);
    let key = std::fs::read(state.join("egress-ca/ca.key")).unwrap();
    let masked =
        |bytes: &[u8]| bytes.iter().map(|b| format!("{:02x}", b ^ 0x5a)).collect::<String>();
    let (key_hex, secret_hex) = (masked(&key), masked(SECRET.as_bytes()));
    const CANARY: &str = "dsh-canary-1d2c3b4a5f6e7d8c";
    let canary_hex = masked(CANARY.as_bytes());
    let probe = format!(
        r#"import os, re, sys
import base64
# The needles come masked (this file and envd, which wrote it, hold no needle) and are
# unmasked only in this process's memory, which is not searched.
unmask = lambda text: bytes(b ^ 0x5A for b in bytes.fromhex(text))
key = unmask({key_hex:?})
# The secret, the CA's key as the daemon keeps it (DER) and as PEM would show it.
# And a canary the test planted where each search looks (a process's environment and
# memory, a file): found, it shows the search works.
needles = {{"secret": unmask({secret_hex:?}), "ca key": key, "ca key pem": base64.b64encode(key)[:60], "canary": unmask({canary_hex:?})}}
me = str(os.getpid())
found = []
# Every process's environment, command line and readable memory.
for pid in [p for p in os.listdir("/proc") if p.isdigit() and p != me]:
    for part in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{{pid}}/{{part}}", "rb").read()
        except OSError:
            continue
        found += [f"{{label}} {{part}}" for label, n in needles.items() if n in data]
    try:
        maps = open(f"/proc/{{pid}}/maps").read().splitlines()
        mem = open(f"/proc/{{pid}}/mem", "rb", 0)
    except OSError:
        continue
    for line in maps:
        start, end = (int(x, 16) for x in line.split()[0].split("-"))
        if "r" not in line.split()[1] or end - start > 256 << 20:
            continue
        try:
            mem.seek(start)
            data = mem.read(end - start)
        except (OSError, ValueError, OverflowError):
            continue
        found += [f"{{label}} memory" for label, n in needles.items() if n in data]
# Every file it can read but the kernel's views and the host's shared /usr.
skip = ("/proc", "/sys", "/dev", "/usr")
roots = [os.path.join("/", d) for d in os.listdir("/") if os.path.join("/", d) not in skip] + ["/usr/local"]
for root in roots:
    for path, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(path, d) not in skip]
        for name in files:
            file = os.path.join(path, name)
            try:
                if os.path.islink(file) or os.path.getsize(file) > 64 << 20:
                    continue
                data = open(file, "rb").read()
            except OSError:
                continue
            found += [f"{{label}} file {{file}}" for label, n in needles.items() if n in data]
print("\n".join(sorted(set(found))))
"#
    );
    c.write_file(&sandbox, "/tmp/probe.py", &probe).await;
    // The canary: a file, and a process of the probing user holding it in its
    // environment and its memory.
    c.write_file(&sandbox, "/tmp/canary.txt", CANARY).await;
    let holder = "import os, sys, time\ncanary = open('/tmp/canary.txt').read()\nif 'CANARY_ENV' not in os.environ:\n    os.execve(sys.executable, [sys.executable, __file__], {**os.environ, 'CANARY_ENV': canary})\nkept = canary * 2\ntime.sleep(600)\n";
    c.write_file(&sandbox, "/tmp/holder.py", holder).await;
    for user in ["root", "user"] {
        let (out, code) = c
            .run_as(&sandbox, user, "setsid -f python3 /tmp/holder.py >/dev/null 2>&1; sleep 0.5; pgrep -u $(id -u) -f 'python3 /tmp/holder.py' >/dev/null && echo started")
            .await;
        assert_eq!((out.as_str(), code), ("started\n", 0), "as {user}");
        let (out, code) = c.run_as(&sandbox, user, "python3 /tmp/probe.py").await;
        assert_eq!(
            (out.as_str(), code),
            ("canary environ\ncanary file /tmp/canary.txt\ncanary memory\n", 0),
            "as {user}"
        );
    }
    // The system store it trusts holds the CA's certificate, no key.
    let (out, _) = c.run(&sandbox, "grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt >/dev/null && grep -c 'PRIVATE' /etc/ssl/certs/ca-certificates.crt").await;
    assert_eq!(out, "0\n");
    // Nor does anything the daemon answers, or the sandbox's record on disk.
    let id = sandbox["sandboxID"].as_str().unwrap();
    for path in [
        format!("/sandboxes/{id}"),
        "/sandboxes".to_owned(),
        "/v2/sandboxes".to_owned(),
        "/secrets".to_owned(),
        "/secrets/api_token".to_owned(),
    ] {
        let reply = c.call_raw(Method::GET, &path, None).await;
        assert!(reply.status.is_success(), "{path}: {}", reply.status);
        assert!(!reply.body.contains(SECRET), "{path}: {}", reply.body);
    }
    let record = std::fs::read_to_string(state.join(format!("sandboxes/{id}.json"))).unwrap();
    assert!(!record.contains(SECRET));
    assert!(record.contains("${e2b.secrets.API_TOKEN}"), "{record}");
    daemon.shutdown().await.unwrap();
}

/// An egress proxy carries every TCP connection the rules let out, by name where the
/// daemon read one (the proxy resolves it), else by address; what the rules refuse never
/// reaches it, and rules still set their headers inside the tunnel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_egress_proxy_carries_the_flows_the_rules_let_out() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-socks-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let proxy_log = dir.path().join("socks.jsonl");
    std::fs::write(&proxy_log, "").unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let _proxy = Running(
        Command::new("python3")
            .arg(standin("socks5_proxy.py"))
            .args([&port.to_string(), "dsh", "pw", proxy_log.to_str().unwrap()])
            .arg(format!("{NAME}={API}"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_until("the proxy stand-in listens", Duration::from_secs(10), async || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;
    let (daemon, c) = daemon(&world, &state).await;
    create_secret(&c, "api_token", SECRET).await;
    let proxy =
        json!({"address": format!("127.0.0.1:{port}"), "username": "dsh", "password": "pw"});
    let sandbox = c
        .create(json!({"templateID": "base", "network": {
            "egressProxy": proxy, "denyOut": [DENIED], "rules": rules()}}))
        .await;
    prepare(&c, &sandbox).await;
    let runs = [
        (format!("curl -sS http://{INTERNET}/index.txt"), "the internet"),
        (format!("curl -sS http://{API}:8080/other-port"), "ok /other-port\n"),
        (format!("curl -sS https://{NAME}/tunnelled"), "ok /tunnelled\n"),
    ];
    for (command, expected) in &runs {
        let (out, stderr, code) = c.run_output(&sandbox, command).await;
        assert_eq!((out.as_str(), code), (*expected, 0), "{command}: {stderr}");
    }
    // Refused by the rules before the proxy: the daemon's 403 (and no CONNECT below).
    let (out, _) = c
        .run(&sandbox, &format!("curl -sS -m 5 -o /dev/null -w '%{{http_code}}' http://{DENIED}/"))
        .await;
    assert_eq!(out, "403");
    let connects: Vec<Value> = std::fs::read_to_string(&proxy_log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        connects,
        [
            json!({"atyp": 1, "host": INTERNET, "port": 80, "reply": 0}),
            json!({"atyp": 1, "host": API, "port": 8080, "reply": 0}),
            json!({"atyp": 3, "host": NAME, "port": 443, "reply": 0}),
        ]
    );
    let requests = received(&world.log);
    assert_eq!(requests.len(), 2);
    assert_eq!(header_values(&requests[1], "authorization"), [format!("Bearer {SECRET}")]);
    // The settings are answered as E2B answers them: the rules as given, the proxy
    // without its password.
    let id = sandbox["sandboxID"].as_str().unwrap();
    let reply = c.call(Method::GET, &format!("/sandboxes/{id}"), None).await;
    assert_eq!(
        reply.body["network"],
        json!({"denyOut": [DENIED], "rules": rules(),
            "egressProxy": {"address": format!("127.0.0.1:{port}"), "username": "dsh"}})
    );
    daemon.shutdown().await.unwrap();
}

/// Bad rules and proxies: a 400 that says what is wrong, at create and at
/// `PUT .../network`, and nothing changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_rules_and_proxies_are_refused_with_what_is_wrong() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-badrules-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (daemon, c) = daemon(&world, &state).await;
    let header =
        |name: &str, value: &str| json!({NAME: [{"transform": {"headers": {name: value}}}]});
    let cases = [
        (
            json!({"rules": header("X-A", "a\r\nX-Evil: 1")}),
            "Value for header \"X-A\" in rule for domain \"api.example.test\" contains invalid characters.",
        ),
        (
            json!({"rules": header("Bad Name", "1")}),
            "Header name \"Bad Name\" in rule for domain \"api.example.test\" must contain only valid HTTP token characters.",
        ),
        (
            json!({"rules": header("X-A", &"v".repeat(2049))}),
            "Value for header \"X-A\" in rule for domain \"api.example.test\" exceeds maximum length of 2048 characters.",
        ),
        (
            json!({"rules": header("X-A", "${e2b.secrets.missing")}),
            "Network transform header contains a malformed E2B placeholder.",
        ),
        (
            json!({"rules": header("X-A", "${e2b.secrets.nope}")}),
            "Header \"x-a\" in rule for domain \"api.example.test\" names secret \"nope\", which does not exist (POST /secrets makes it).",
        ),
        (json!({"rules": {"a b": []}}), "Rule domain \"a b\" is not a valid domain name."),
        (
            json!({"egressProxy": {"address": "127.0.0.1"}}),
            "egressProxy: the address \"127.0.0.1\" must be in host:port form",
        ),
        (
            json!({"egressProxy": {"address": "127.0.0.1:1080", "password": "x"}}),
            "egressProxy: the password must be empty when the username is",
        ),
    ];
    let sandbox = c.create(json!({"templateID": "base"})).await;
    let id = sandbox["sandboxID"].as_str().unwrap();
    for (network, message) in &cases {
        let reply = c
            .call(
                Method::POST,
                "/sandboxes",
                Some(json!({"templateID": "base", "network": network})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{network}: {}", reply.body);
        assert_eq!(reply.body["message"], *message, "{network}");
        let reply =
            c.call(Method::PUT, &format!("/sandboxes/{id}/network"), Some(network.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{network}: {}", reply.body);
        assert_eq!(reply.body["message"], *message, "{network}");
    }
    let listed = c.call(Method::GET, "/sandboxes", None).await;
    assert_eq!(listed.body.as_array().unwrap().len(), 1);
    daemon.shutdown().await.unwrap();
}

/// Under gVisor too: its guest's connections leave through the same egress path, and
/// its system store gets the daemon's CA from envd's `/init` the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_apply_to_a_gvisor_sandbox_too() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-gvrules-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (daemon, c) = daemon(&world, &state).await;
    create_secret(&c, "api_token", SECRET).await;
    let sandbox = c
        .create(json!({"templateID": "base", "runtime": "gvisor", "network": {"rules": rules()}}))
        .await;
    let (kernel, _) = c.run(&sandbox, "uname -r").await;
    assert_eq!(kernel, "4.4.0\n", "a gVisor sandbox");
    let (out, code) =
        c.run_as(&sandbox, "root", &format!("echo '{API} {NAME} {OTHER}' >> /etc/hosts")).await;
    assert_eq!(code, 0, "{out}");
    for (scheme, tls) in [("http", false), ("https", true)] {
        let (out, stderr, code) =
            c.run_output(&sandbox, &format!("curl -sS {scheme}://{NAME}/gvisor-{scheme}")).await;
        assert_eq!(
            (out.as_str(), code),
            (format!("ok /gvisor-{scheme}\n").as_str(), 0),
            "{stderr}"
        );
        let requests = received(&world.log);
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0]["tls"], tls);
        assert_eq!(header_values(&requests[0], "authorization"), [format!("Bearer {SECRET}")]);
    }
    daemon.shutdown().await.unwrap();
}

/// A sandbox the warm pool started before anyone asked for rules gets its owner's at
/// create: its domain filter serves them and its network diverts for them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_reach_a_sandbox_taken_from_the_warm_pool() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-poolrules-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (daemon, c) = daemon_with_pool(&world, &state, 1).await;
    create_secret(&c, "api_token", SECRET).await;
    let sandbox = super::network::created_from_the_pool(
        &c,
        &state,
        json!({"templateID": "base", "network": {"rules": rules()}}),
    )
    .await;
    let (out, code) =
        c.run_as(&sandbox, "root", &format!("echo '{API} {NAME} {OTHER}' >> /etc/hosts")).await;
    assert_eq!(code, 0, "{out}");
    let (out, stderr, code) =
        c.run_output(&sandbox, &format!("curl -sS https://{NAME}/pooled")).await;
    assert_eq!((out.as_str(), code), ("ok /pooled\n", 0), "{stderr}");
    let requests = received(&world.log);
    assert_eq!(header_values(&requests[0], "authorization"), [format!("Bearer {SECRET}")]);
    daemon.shutdown().await.unwrap();
}

/// Across a restart of the daemon: the sandbox's rules (its record), the secret (the
/// store's files) and the CA (its directory) are the same, so a resumed sandbox's
/// requests get the header again, and its trust store holds the CA once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_secrets_and_the_ca_outlive_a_restart_of_the_daemon() {
    let world = world().await;
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-restartrules-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let (first, c) = daemon(&world, &state).await;
    create_secret(&c, "api_token", SECRET).await;
    let sandbox = c
        .create(json!({"templateID": "base", "timeout": 600, "network": {"rules": rules()}}))
        .await;
    let id = sandbox["sandboxID"].as_str().unwrap().to_owned();
    let (out, code) =
        c.run_as(&sandbox, "root", &format!("echo '{API} {NAME} {OTHER}' >> /etc/hosts")).await;
    assert_eq!(code, 0, "{out}");
    let (out, _) = c.run(&sandbox, &format!("curl -sS https://{NAME}/before")).await;
    assert_eq!(out, "ok /before\n");
    let ca = std::fs::read(state.join("egress-ca/ca.crt")).unwrap();
    let reply = c.call(Method::POST, &format!("/sandboxes/{id}/pause"), Some(json!({}))).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    first.shutdown().await.unwrap();

    let (second, c) = daemon(&world, &state).await;
    assert_eq!(std::fs::read(state.join("egress-ca/ca.crt")).unwrap(), ca);
    let reply = c
        .call(Method::POST, &format!("/sandboxes/{id}/connect"), Some(json!({"timeout": 600})))
        .await;
    assert!(reply.status.is_success(), "{}: {}", reply.status, reply.body);
    let mut sandbox = sandbox;
    sandbox["envdAccessToken"] = reply.body["envdAccessToken"].clone();
    let (out, stderr, code) =
        c.run_output(&sandbox, &format!("curl -sS https://{NAME}/after")).await;
    assert_eq!((out.as_str(), code), ("ok /after\n", 0), "{stderr}");
    let requests = received(&world.log);
    assert_eq!(requests.len(), 2);
    assert_eq!(header_values(&requests[1], "authorization"), [format!("Bearer {SECRET}")]);
    let ca_pem = pem_of(&ca);
    let (out, _) = c
        .run(
            &sandbox,
            &format!(
                "grep -c -F '{}' /etc/ssl/certs/ca-certificates.crt",
                ca_pem.lines().nth(1).unwrap()
            ),
        )
        .await;
    assert_eq!(out, "1\n", "the CA once in the trust store");
    second.shutdown().await.unwrap();
}

/// A DER certificate as PEM (base64 in lines of 64), to find it in a bundle.
fn pem_of(der: &[u8]) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> =
        encoded.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    format!("-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n", lines.join("\n"))
}
