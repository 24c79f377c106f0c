"""A stand-in for an API a sandbox's code calls (tests/control/credentials.rs).

Listens on ADDRESS:80 (HTTP), ADDRESS:443 (HTTPS with CERT/KEY, a certificate of the
test's own CA) and ADDRESS:8080 (HTTP, a port that is never intercepted), and records
every request it receives as one JSON line in LOG: the port, whether it came over TLS,
the path and every header as received (names lower-cased, repeats kept). It answers
`ok <path>` and never echoes a header back, so what the sandbox reads of the answer
holds no injected value.

Usage: api_server.py ADDRESS CERT KEY LOG
"""

import http.server
import json
import ssl
import sys
import threading

ADDRESS, CERT, KEY, LOG = sys.argv[1:5]
lock = threading.Lock()


class Recorder(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def handle_any(self):
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        entry = {
            "port": self.server.server_address[1],
            "tls": isinstance(self.connection, ssl.SSLSocket),
            "path": self.path,
            "headers": [[name.lower(), value] for name, value in self.headers.items()],
        }
        with lock, open(LOG, "a") as log:
            log.write(json.dumps(entry) + "\n")
        body = ("ok %s\n" % self.path).encode()
        self.send_response(200)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = handle_any

    def log_message(self, *args):
        pass


def serve(port, tls):
    server = http.server.ThreadingHTTPServer((ADDRESS, port), Recorder)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(CERT, KEY)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


for port, tls in ((80, False), (8080, False)):
    threading.Thread(target=serve, args=(port, tls), daemon=True).start()
serve(443, True)
