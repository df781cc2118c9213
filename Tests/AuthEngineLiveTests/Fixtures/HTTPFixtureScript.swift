/// The HTTP(S) fixture server (Python, test fixture only), kept as Swift source so that the test
/// target has no unhandled files; ``FixtureServer`` writes it to a temporary file and runs it.
enum HTTPFixtureScript {
    static let source = #"""
"""HTTP(S) fixture server for AuthEngineLiveTests (test fixture only).

Binds 127.0.0.1 on a free port and prints the port as the first line of stdout.

    python3 http_fixture.py                 plain HTTP
    python3 http_fixture.py CERT KEY        HTTPS with that certificate chain and key
    python3 http_fixture.py CERT KEY tls1.1 HTTPS that offers only TLS 1.0 and 1.1 (TLS-02)
    python3 http_fixture.py proxy PORT      a forward proxy: CONNECT tunnels to 127.0.0.1:PORT
                                            whatever host is asked for; other requests are
                                            answered 200 "via proxy: <request line>"

Endpoints:
    /echo           JSON {method, path, query, headers: [[name, value], ...], body}
    /redirect       302 (or ?status=NNN) with Location: ?to=... (default /echo)
    /bytes          ?n=N bytes of "a"; ?length=0 omits Content-Length (read until close)
    /slow           sleeps ?seconds=S before answering 200
    /count          the number of /count requests so far, cacheable for an hour (TLS-04)
"""
import json
import select
import socket
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    count = 0

    def log_message(self, *args):
        pass

    def _send(self, status, body=b"", headers=(), content_length=True):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if content_length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self):
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if parts.path == "/echo":
            payload = {
                "method": self.command,
                "path": parts.path,
                "query": parts.query,
                "headers": [[k, v] for k, v in self.headers.items()],
                "body": body.decode("latin-1"),
            }
            self._send(200, json.dumps(payload).encode(), [("Content-Type", "application/json"), ("X-Fixture", "Echo")])
        elif parts.path == "/redirect":
            status = int(query.get("status", ["302"])[0])
            target = query.get("to", ["/echo"])[0]
            self._send(status, b"moved", [("Location", target)])
        elif parts.path == "/bytes":
            n = int(query.get("n", ["0"])[0])
            with_length = query.get("length", ["1"])[0] != "0"
            self._send(200, b"a" * n, [("Content-Type", "application/octet-stream")], content_length=with_length)
        elif parts.path == "/count":
            Handler.count += 1
            self._send(200, str(Handler.count).encode(), [("Content-Type", "text/plain"), ("Cache-Control", "public, max-age=3600")])
        elif parts.path == "/hangup":
            # The request was read; the connection closes without a byte of answer.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif parts.path == "/slow":
            time.sleep(float(query.get("seconds", ["5"])[0]))
            self._send(200, b"slow")
        else:
            self._send(404, b"not found")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _handle


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    target_port = 0

    def log_message(self, *args):
        pass

    def do_CONNECT(self):
        upstream = socket.create_connection(("127.0.0.1", self.target_port))
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = True
        peers = [self.connection, upstream]
        try:
            while True:
                readable, _, _ = select.select(peers, [], [], 10)
                if not readable:
                    return
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is self.connection else self.connection).sendall(data)
        finally:
            upstream.close()

    def _answer(self):
        body = ("via proxy: " + self.requestline).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "proxy":
        ProxyHandler.target_port = int(sys.argv[2])
        proxy = ThreadingHTTPServer(("127.0.0.1", 0), ProxyHandler)
        proxy.daemon_threads = True
        print(proxy.server_address[1], flush=True)
        proxy.serve_forever()
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) >= 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        if sys.argv[3:] == ["tls1.1"]:
            context.minimum_version = ssl.TLSVersion.TLSv1
            context.maximum_version = ssl.TLSVersion.TLSv1_1
            context.set_ciphers("DEFAULT:@SECLEVEL=0")
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
"""#
}
