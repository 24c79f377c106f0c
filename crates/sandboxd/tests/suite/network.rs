//! Networking: the host's by default, or a namespace with only loopback.

use std::io::Read;
use std::net::{TcpListener, TcpStream};

use dsh_sandboxd::Net;

use crate::common::{Shell, base_spec, run_ok};

const SERVE_ONCE: &str = r#"python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
c.sendall(b"hello from the sandbox")
c.close()
'"#;

#[test]
fn with_the_host_network_a_server_inside_is_reachable_from_the_host() {
    let (_dir, spec) = base_spec("net-host");
    assert_eq!(spec.net, Net::Host);
    let mut shell = Shell::start(&spec, SERVE_ONCE);
    let port: u16 = shell.read_line().parse().unwrap();
    let mut reply = String::new();
    TcpStream::connect(("127.0.0.1", port)).unwrap().read_to_string(&mut reply).unwrap();
    assert_eq!(reply, "hello from the sandbox");
    assert!(shell.finish().status.success());
}

#[test]
fn without_network_only_loopback_exists_and_the_host_is_unreachable() {
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = host.local_addr().unwrap().port();
    let (_dir, mut spec) = base_spec("net-none");
    spec.net = Net::None;
    let script = format!(
        r#"ls /sys/class/net; cat /sys/class/net/lo/flags; python3 -c '
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("host reachable")
except OSError:
    print("host unreachable")
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname(), timeout=2)
print("loopback works")
'"#
    );
    assert_eq!(run_ok(&spec, &script), "lo\n0x9\nhost unreachable\nloopback works\n");
}
