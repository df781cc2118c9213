/// The scriptable hostile identity provider (Python, test fixture only), kept as Swift source
/// like ``HTTPFixtureScript``; ``FixtureServer`` writes it to a temporary file and runs it.
enum HostileProviderScript {
    static let source = #"""
"""Scriptable hostile OpenID provider for AuthEngineLiveTests (test fixture only).

Binds 127.0.0.1 on a free port and prints the port as the first line of stdout. It serves
whatever the test scripts, byte for byte (duplicate JSON members, wrong content types,
crafted ID tokens signed by the test), and records every request.

Control endpoints (used by the test itself):
    POST /_script     body: {"routes": {"GET /path": [response, ...], ...}}; replaces the script.
                      A response is {"status": 200, "headers": [[name, value]], "body": "text",
                      "delay": seconds}; the responses of a route are served in turn and the last
                      one repeats. "{base}" in a body or header becomes http://127.0.0.1:PORT.
    GET /_requests    JSON list of "METHOD /path" for every other request, in order.
    GET /_recorded    the same requests with their headers (names lower-cased) and bodies:
                      [{"request": "METHOD /path", "query": "...", "headers": {...}, "body": "..."}].
Any other unscripted request: 404.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

lock = threading.Lock()
routes = {}
served = {}
requests = []
recorded = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def _reply(self, status, body, headers):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self):
        global routes
        path = urlsplit(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.command == "POST" and path == "/_script":
            with lock:
                routes = json.loads(body.decode("utf-8"))["routes"]
                served.clear()
                requests.clear()
                recorded.clear()
            self._reply(204, b"", [])
            return
        if self.command == "GET" and path == "/_requests":
            with lock:
                payload = json.dumps(requests).encode()
            self._reply(200, payload, [("Content-Type", "application/json")])
            return
        if self.command == "GET" and path == "/_recorded":
            with lock:
                payload = json.dumps(recorded).encode()
            self._reply(200, payload, [("Content-Type", "application/json")])
            return
        key = self.command + " " + path
        with lock:
            requests.append(key)
            recorded.append({"request": key, "query": urlsplit(self.path).query,
                             "headers": {name.lower(): value for name, value in self.headers.items()},
                             "body": body.decode("utf-8", "replace")})
            responses = routes.get(key)
            if not responses:
                response = None
            else:
                index = min(served.get(key, 0), len(responses) - 1)
                served[key] = served.get(key, 0) + 1
                response = responses[index]
        if response is None:
            self._reply(404, b"not scripted", [("Content-Type", "text/plain")])
            return
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        if response.get("delay"):
            time.sleep(float(response["delay"]))
        headers = [(name, value.replace("{base}", base)) for name, value in response.get("headers", [])]
        text = response.get("body", "").replace("{base}", base)
        self._reply(int(response.get("status", 200)), text.encode("utf-8"), headers)

    do_GET = do_POST = do_HEAD = _handle


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
"""#
}
