"""A stand-in for a user's SOCKS5 egress proxy (tests/control/credentials.rs).

A SOCKS5 server as RFC 1928 describes it, with the user name and password method of
RFC 1929, CONNECT only. It requires USER and PASSWORD (method 2, RFC 1928 section 3;
RFC 1929 section 2), answers the CONNECT request (section 4) with a reply (section 6),
then relays bytes both ways. Names (ATYP 3) are resolved here, as a proxy doing remote
DNS does, from the NAME=ADDRESS pairs given (nothing else resolves: this machine may not
reach public DNS). Every CONNECT is recorded as one JSON line in LOG: the address type,
the host and the port, and the reply code it got.

Usage: socks5_proxy.py PORT USER PASSWORD LOG [NAME=ADDRESS ...]
"""

import json
import socket
import struct
import sys
import threading

PORT, USER, PASSWORD, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
NAMES = dict(pair.split("=", 1) for pair in sys.argv[5:])
lock = threading.Lock()


def exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed mid-message")
        data += chunk
    return data


def record(entry):
    with lock, open(LOG, "a") as log:
        log.write(json.dumps(entry) + "\n")


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def handle(conn):
    try:
        # Section 3: VER, NMETHODS, METHODS; this proxy takes method 2 only.
        version, count = exact(conn, 2)
        methods = exact(conn, count)
        if version != 5 or 2 not in methods:
            conn.sendall(b"\x05\xff")
            return
        conn.sendall(b"\x05\x02")
        # RFC 1929 section 2: VER 1, ULEN, UNAME, PLEN, PASSWD; STATUS 0 = success.
        _, ulen = exact(conn, 2)
        user = exact(conn, ulen).decode()
        (plen,) = exact(conn, 1)
        password = exact(conn, plen).decode()
        if (user, password) != (USER, PASSWORD):
            conn.sendall(b"\x01\x01")
            record({"auth": "refused", "user": user})
            return
        conn.sendall(b"\x01\x00")
        # Section 4: VER, CMD, RSV, ATYP, DST.ADDR, DST.PORT.
        _, command, _, atyp = exact(conn, 4)
        if atyp == 1:
            host = socket.inet_ntoa(exact(conn, 4))
        elif atyp == 3:
            (length,) = exact(conn, 1)
            host = exact(conn, length).decode()
        else:
            conn.sendall(b"\x05\x08\x00\x01" + bytes(6))
            return
        (port,) = struct.unpack("!H", exact(conn, 2))
        address = NAMES.get(host, host) if atyp == 3 else host
        reply = 0
        upstream = None
        if command != 1:
            reply = 7
        elif atyp == 3 and host not in NAMES:
            reply = 4
        else:
            try:
                upstream = socket.create_connection((address, port), timeout=5)
            except OSError:
                reply = 5
        record({"atyp": atyp, "host": host, "port": port, "reply": reply})
        # Section 6: VER, REP, RSV, ATYP 1, BND.ADDR, BND.PORT.
        conn.sendall(struct.pack("!BBBB4sH", 5, reply, 0, 1, bytes(4), 0))
        if upstream is None:
            return
        upstream.settimeout(None)
        threading.Thread(target=pump, args=(upstream, conn), daemon=True).start()
        pump(conn, upstream)
    except (OSError, ConnectionError, ValueError):
        pass


server = socket.create_server(("127.0.0.1", PORT))
while True:
    client, _ = server.accept()
    threading.Thread(target=handle, args=(client,), daemon=True).start()
