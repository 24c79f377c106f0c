//! Private sandbox networks: egress through pasta to a stand-in "internet" (a listener in
//! a network namespace this test makes, on a TEST-NET address: nothing leaves the
//! machine), the host out of reach, and E2B's egress rules, also changed at runtime.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::harness::{Client, KillOnDrop, config, wait_until};
use super::pool::pooled;

/// The stand-in internet: namespace `dsh-inet-<pid>` behind a veth pair, the host at
/// 198.51.100.1 and a web server at 198.51.100.2 (TEST-NET-2, routed nowhere).
pub(super) struct Internet {
    /// Held while it exists: every internet has the same addresses, so two at once (tests
    /// run side by side, each in its own process) would take each other's traffic.
    _one_at_a_time: std::fs::File,
    name: String,
    /// Its end of the veth pair.
    inet_if: String,
    server: Child,
    host_server: Child,
    pub(super) host_port: u16,
    tls_server: Option<Child>,
}

pub(super) const INTERNET: &str = "198.51.100.2";
pub(super) const HOST_SIDE: &str = "198.51.100.1";

fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().unwrap();
    assert!(status.success(), "ip {args:?}");
}

/// Each test's internet is its own (tests may share a process).
static INTERNETS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Internet {
    pub(super) fn start() -> Internet {
        let lock =
            std::fs::File::create(std::env::temp_dir().join("dsh-test-internet.lock")).unwrap();
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
        let n = INTERNETS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tag = format!("{}{n}", std::process::id() % 100_000);
        let name = format!("dsh-inet-{tag}");
        let (host_if, inet_if) = (format!("dsh{tag}h"), format!("dsh{tag}i"));
        ip(&["netns", "add", &name]);
        ip(&["link", "add", &host_if, "type", "veth", "peer", "name", &inet_if]);
        ip(&["link", "set", &inet_if, "netns", &name]);
        ip(&["addr", "add", &format!("{HOST_SIDE}/24"), "dev", &host_if]);
        ip(&["link", "set", &host_if, "up"]);
        ip(&["-n", &name, "addr", "add", &format!("{INTERNET}/24"), "dev", &inet_if]);
        ip(&["-n", &name, "link", "set", &inet_if, "up"]);
        ip(&["-n", &name, "link", "set", "lo", "up"]);
        let www = std::env::temp_dir().join(format!("{name}-www"));
        std::fs::create_dir_all(&www).unwrap();
        std::fs::write(www.join("index.txt"), "the internet").unwrap();
        let server = Command::new("ip")
            .args([
                "netns",
                "exec",
                &name,
                "python3",
                "-m",
                "http.server",
                "80",
                "--bind",
                INTERNET,
            ])
            .current_dir(&www)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A service the host offers only on its loopback (and every address, for the veth).
        let host_port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let host_server = Command::new("python3")
            .args(["-m", "http.server", &host_port.to_string(), "--bind", "0.0.0.0"])
            .current_dir(&www)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Internet {
            _one_at_a_time: lock,
            name,
            inet_if,
            server,
            host_server,
            host_port,
            tls_server: None,
        }
    }

    /// Its namespace's name (`ip netns exec <name> ...`).
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Gives the internet's server side one more address (on the same /24).
    pub(super) fn add_address(&self, address: &str) {
        ip(&["-n", &self.name, "addr", "add", &format!("{address}/24"), "dev", &self.inet_if]);
    }

    /// Starts `program` with `args` inside the internet's namespace.
    pub(super) fn spawn(&self, program: &str, args: &[&str]) -> Child {
        Command::new("ip")
            .args(["netns", "exec", &self.name, program])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// A TLS server on port 443 (a self-signed certificate) that answers every
    /// connection with the server name its client sent: `tls to <name>`.
    /// URLs of the host's own page as a sandbox could try it: on the host's loopback,
    /// at its addresses (every interface's), at pasta's gateway.
    pub(super) fn host_urls(&self) -> Vec<String> {
        let port = self.host_port;
        let mut urls = vec![
            format!("http://127.0.0.1:{port}/index.txt"),
            format!("http://{HOST_SIDE}:{port}/index.txt"),
            format!("http://198.18.0.1:{port}/index.txt"),
        ];
        for address in dsh_sandboxd::server::network::host_addresses() {
            urls.push(format!("http://{address}:{port}/index.txt"));
        }
        urls
    }

    pub(super) fn serve_tls(&mut self) {
        let dir = std::env::temp_dir().join(format!("{}-www", self.name));
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        let made = Command::new("openssl")
            .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"])
            .args(["-subj", "/CN=stand-in.test", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(made.success(), "openssl req");
        let script = format!(
            "import socket, ssl\nctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\nctx.load_cert_chain({cert:?}, {key:?})\nnames = {{}}\nctx.sni_callback = lambda sock, name, _: names.__setitem__(id(sock), name)\nserver = socket.create_server(({INTERNET:?}, 443))\nwhile True:\n    conn, _ = server.accept()\n    try:\n        with ctx.wrap_socket(conn, server_side=True) as tls:\n            tls.sendall(('tls to %s\\n' % names.pop(id(tls), None)).encode())\n    except (OSError, ssl.SSLError):\n        pass\n",
        );
        std::fs::write(dir.join("tls.py"), script).unwrap();
        let server = Command::new("ip")
            .args(["netns", "exec", &self.name, "python3"])
            .arg(dir.join("tls.py"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.tls_server = Some(server);
    }
}

impl Drop for Internet {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = self.host_server.kill();
        let _ = self.host_server.wait();
        if let Some(mut server) = self.tls_server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
        // Deleting the namespace deletes its veth end, and with it the host's.
        let _ = Command::new("ip").args(["netns", "del", &self.name]).status();
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("{}-www", self.name)));
    }
}

/// A create with `body` answered by the warm pool's one sandbox. A pooled sandbox shows (a
/// live init without a record) before it is ready to be handed out (envd healthy,
/// network attached), and a create in between gets a fresh one: such a sandbox is
/// killed and the create tried again.
pub(super) async fn created_from_the_pool(
    c: &Client,
    state: &std::path::Path,
    body: Value,
) -> Value {
    let mut attempts = 0;
    loop {
        wait_until("the pool fills", Duration::from_secs(20), async || pooled(state).len() == 1)
            .await;
        let warm = pooled(state);
        let sandbox = c.create(body.clone()).await;
        let id = sandbox["sandboxID"].as_str().unwrap();
        if warm.contains(id) {
            return sandbox;
        }
        attempts += 1;
        assert!(attempts < 20, "never pooled: {warm:?}");
        let killed = c.call(Method::DELETE, &format!("/sandboxes/{id}"), None).await;
        assert_eq!(killed.status, StatusCode::NO_CONTENT);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// From inside: for each URL, the status, or the error's name.
pub(super) async fn reach(c: &Client, sandbox: &Value, urls: &[String]) -> Vec<String> {
    let script = format!(
        "import urllib.request as u\nfor url in {urls:?}:\n    try:\n        print(u.urlopen(url, timeout=3).status)\n    except Exception as e:\n        print(type(getattr(e, 'reason', e)).__name__)\n"
    );
    c.write_file(sandbox, "/tmp/reach.py", &script).await;
    let (out, code) = c.run(sandbox, "python3 /tmp/reach.py").await;
    assert_eq!(code, 0, "{out}");
    out.lines().map(str::to_owned).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_network_reaches_the_internet_but_never_the_host() {
    let internet = Internet::start();
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-net-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let mut settings = config(&state);
    settings.net = dsh_sandboxd::Net::Private;
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());

    let open = c.create(json!({"templateID": "base"})).await;
    let (out, _) = c.run(&open, "ip -4 -br addr show eth0; ip route; cat /etc/resolv.conf").await;
    assert_eq!(
        out,
        "eth0             UNKNOWN        198.18.0.2/24 \ndefault via 198.18.0.1 dev eth0 \n198.18.0.0/24 dev eth0 proto kernel scope link src 198.18.0.2 \nnameserver 198.18.0.53\n"
    );
    let web = format!("http://{INTERNET}/index.txt");
    wait_until("the stand-in internet answers", Duration::from_secs(15), async || {
        reach(&c, &open, std::slice::from_ref(&web)).await == ["200"]
    })
    .await;
    let port = internet.host_port;
    let host_urls = internet.host_urls();
    let refused = reach(&c, &open, &host_urls).await;
    assert!(refused.iter().all(|r| r != "200"), "{host_urls:?} -> {refused:?}");
    // The host does reach its own service (the check above is not vacuous).
    let direct = reqwest::get(format!("http://127.0.0.1:{port}/index.txt")).await.unwrap();
    assert_eq!(direct.text().await.unwrap(), "the internet");

    // allow_internet_access: false, and allowOut over a deny-all. The first comes from a
    // network set up ahead with the default rules (`spare_netns.rs`): its own are loaded
    // over them.
    let netns = state.join("netns");
    let spare_pastas = || {
        std::fs::read_dir(&netns)
            .unwrap()
            .flatten()
            .filter(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                name.starts_with("spare-") && name.ends_with(".pasta.pid")
            })
            .count()
    };
    wait_until("two networks set up ahead", Duration::from_secs(15), async || spare_pastas() == 2)
        .await;
    let closed = c.create(json!({"templateID": "base", "allow_internet_access": false})).await;
    let closed_id = closed["sandboxID"].as_str().unwrap();
    let pasta: u32 = std::fs::read_to_string(netns.join(format!("{closed_id}.pasta.pid")))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let cmdline = std::fs::read_to_string(format!("/proc/{pasta}/cmdline")).unwrap();
    assert!(cmdline.contains(&format!("{}/spare-", netns.display())), "{cmdline:?}");
    assert_ne!(reach(&c, &closed, std::slice::from_ref(&web)).await, ["200"]);
    let (out, code) = c.run(&closed, "ip -4 -br addr show eth0").await;
    assert_eq!((out.as_str(), code), ("eth0             UNKNOWN        198.18.0.2/24 \n", 0));
    let listed = c
        .create(json!({"templateID": "base", "network": {"denyOut": ["0.0.0.0/0"], "allowOut": [INTERNET]}}))
        .await;
    assert_eq!(reach(&c, &listed, std::slice::from_ref(&web)).await, ["200"]);

    // Rules replaced at runtime take effect for new connections; {} clears them.
    let id = open["sandboxID"].as_str().unwrap();
    let path = format!("/sandboxes/{id}/network");
    let put = |body: Value| c.call(Method::PUT, &path, Some(body));
    assert_eq!(
        put(json!({"denyOut": [format!("{INTERNET}/32")]})).await.status,
        StatusCode::NO_CONTENT
    );
    assert_ne!(reach(&c, &open, std::slice::from_ref(&web)).await, ["200"]);
    assert_eq!(put(json!({})).await.status, StatusCode::NO_CONTENT);
    assert_eq!(reach(&c, &open, std::slice::from_ref(&web)).await, ["200"]);

    // Bad rules: typed 400s, nothing changed.
    for body in [
        json!({"denyOut": ["10.0.0.0/33"]}),
        json!({"allowOut": [""]}),
        json!({"allowOut": vec!["198.51.100.9"; 10_000]}),
    ] {
        let reply = put(body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {}", reply.body);
    }
    assert_eq!(reach(&c, &open, std::slice::from_ref(&web)).await, ["200"]);
    // Root inside cannot change the rules.
    let (out, _) = c.run(&open, "nft flush ruleset 2>&1; echo status=$?").await;
    assert!(out.ends_with("status=1\n"), "{out}");

    // A sandbox flooding its egress (3 s of UDP as fast as it can, bounded) leaves the
    // daemon and its neighbours working: they still answer and reach the internet.
    let flood = "import socket, time\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\nend = time.time() + 3\nwhile time.time() < end:\n    try:\n        s.sendto(b'x' * 1400, ('198.51.100.2', 9))\n    except OSError:\n        pass\n";
    c.write_file(&open, "/tmp/flood.py", flood).await;
    let (_, code) = c.run(&open, "python3 /tmp/flood.py >/dev/null 2>&1 &").await;
    assert_eq!(code, 0);
    let started = std::time::Instant::now();
    let mut answered = 0;
    while started.elapsed() < Duration::from_secs(3) {
        assert_eq!(reach(&c, &listed, std::slice::from_ref(&web)).await, ["200"]);
        let (out, code) = c.run(&closed, "echo alive").await;
        assert_eq!((out.as_str(), code), ("alive\n", 0));
        answered += 1;
    }
    assert!(answered >= 2, "only {answered} rounds answered during the flood");

    daemon.shutdown().await.unwrap();
    // No pinned namespace and no pasta left behind.
    let left: Vec<_> = std::fs::read_dir(state.join("netns")).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// From inside, for each name: an HTTP request to the stand-in internet with that `Host`
/// (`<name> <status> <body>`), and a TLS connection with that server name (`<name>
/// <the server's answer>`, or the error's reason or name).
pub(super) async fn by_name(
    c: &Client,
    sandbox: &Value,
    names: &[&str],
) -> (Vec<String>, Vec<String>) {
    let http = format!(
        "import sys, urllib.request as u, urllib.error\nfor host in sys.argv[1:]:\n    try:\n        r = u.urlopen(u.Request('http://{INTERNET}/index.txt', headers={{'Host': host}}), timeout=5)\n        print(host, r.status, r.read().decode())\n    except urllib.error.HTTPError as e:\n        print(host, e.code, e.read().decode().strip())\n    except Exception as e:\n        print(host, type(getattr(e, 'reason', e)).__name__)\n"
    );
    let tls = format!(
        "import socket, ssl, sys\nctx = ssl.create_default_context()\nctx.check_hostname = False\nctx.verify_mode = ssl.CERT_NONE\nfor name in sys.argv[1:]:\n    try:\n        with socket.create_connection(('{INTERNET}', 443), timeout=5) as s:\n            with ctx.wrap_socket(s, server_hostname=name) as t:\n                print(name, t.recv(100).decode().strip())\n    except Exception as e:\n        print(name, getattr(e, 'reason', None) or type(e).__name__)\n"
    );
    c.write_file(sandbox, "/tmp/http_by_name.py", &http).await;
    c.write_file(sandbox, "/tmp/tls_by_name.py", &tls).await;
    let names = names.join(" ");
    let mut results = Vec::new();
    for script in ["http_by_name", "tls_by_name"] {
        let (out, code) = c.run(sandbox, &format!("python3 /tmp/{script}.py {names}")).await;
        assert_eq!(code, 0, "{out}");
        results.push(out.lines().map(str::to_owned).collect());
    }
    let tls = results.pop().unwrap();
    (results.pop().unwrap(), tls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn domains_in_allow_out_match_the_http_host_and_the_tls_server_name() {
    let mut internet = Internet::start();
    internet.serve_tls();
    let dir = tempfile::Builder::new().prefix("dsh-sandboxd-dom-").tempdir().unwrap();
    let state = dir.path().join("state");
    let _guard = KillOnDrop(state.clone());
    let mut settings = config(&state);
    settings.net = dsh_sandboxd::Net::Private;
    // The first sandbox comes from the warm pool, which started it without these rules.
    settings.pool = dsh_sandboxd::server::PoolSize::Fixed(1);
    let daemon = dsh_sandboxd::Daemon::start(settings).await.unwrap();
    let c = Client::new(&daemon.url(), daemon.api_key());
    let sandbox = created_from_the_pool(
        &c,
        &state,
        json!({"templateID": "base", "network": {
            "denyOut": ["0.0.0.0/0"], "allowOut": ["allowed.test", "*.wild.test"]}}),
    )
    .await;
    let refused = |name: &str, port: u16| {
        format!(
            "{name} 403 dsh: egress to {name} ({INTERNET}:{port}) is refused by this sandbox's network rules; allowOut names the domains it may reach"
        )
    };
    wait_until("the stand-in TLS server answers", Duration::from_secs(15), async || {
        by_name(&c, &sandbox, &["allowed.test"]).await.1 == ["allowed.test tls to allowed.test"]
    })
    .await;
    let names = ["allowed.test", "API.Wild.test", "wild.test", "other.test"];
    let (http, tls) = by_name(&c, &sandbox, &names).await;
    assert_eq!(
        http,
        [
            "allowed.test 200 the internet".to_owned(),
            "API.Wild.test 200 the internet".to_owned(),
            refused("wild.test", 80),
            refused("other.test", 80),
        ]
    );
    assert_eq!(
        tls,
        [
            "allowed.test tls to allowed.test",
            "API.Wild.test tls to API.Wild.test",
            "wild.test TLSV1_ALERT_ACCESS_DENIED",
            "other.test TLSV1_ALERT_ACCESS_DENIED"
        ]
    );
    // The address alone (no name to match) and other ports follow the address rules.
    let (plain, _) = by_name(&c, &sandbox, &[INTERNET]).await;
    assert_eq!(plain, [refused(INTERNET, 80)]);
    let other_port = reach(&c, &sandbox, &[format!("http://{INTERNET}:8080/")]).await;
    // Refused by the rules (no route: OSError), not by the stand-in (nothing listens on
    // 8080 there: ConnectionRefusedError).
    assert_eq!(other_port, ["OSError"]);
    // Nothing inside can wear the mark the daemon's own connections carry.
    let (out, _) = c
        .run(&sandbox, "python3 -c \"import socket; socket.socket().setsockopt(socket.SOL_SOCKET, socket.SO_MARK, 0x64736801)\" 2>&1 | tail -1")
        .await;
    assert_eq!(out, "PermissionError: [Errno 1] Operation not permitted\n");

    // Replaced at runtime: new connections follow the new names.
    let id = sandbox["sandboxID"].as_str().unwrap();
    let path = format!("/sandboxes/{id}/network");
    let reply = c
        .call(
            Method::PUT,
            &path,
            Some(json!({"denyOut": ["0.0.0.0/0"], "allowOut": ["other.test"]})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.body);
    let (http, tls) = by_name(&c, &sandbox, &["allowed.test", "other.test"]).await;
    assert_eq!(http, [refused("allowed.test", 80), "other.test 200 the internet".to_owned()]);
    assert_eq!(tls, ["allowed.test TLSV1_ALERT_ACCESS_DENIED", "other.test tls to other.test"]);
    // Names are for allowOut only (E2B's rule); a bad name is a 400.
    for body in [json!({"denyOut": ["other.test"]}), json!({"allowOut": ["a..test"]})] {
        let reply = c.call(Method::PUT, &path, Some(body.clone())).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {}", reply.body);
    }

    // allow_internet_access: false with a name allowed: that name only.
    let closed = c
        .create(json!({"templateID": "base", "allow_internet_access": false,
            "network": {"allowOut": ["allowed.test"]}}))
        .await;
    let (http, _) = by_name(&c, &closed, &["allowed.test", "other.test"]).await;
    assert_eq!(http, ["allowed.test 200 the internet".to_owned(), refused("other.test", 80)]);

    daemon.shutdown().await.unwrap();
    let left: Vec<_> = std::fs::read_dir(state.join("netns")).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}
