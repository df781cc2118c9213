#!/usr/bin/env python3
"""A git smart-HTTP server for tests: Debian's `git http-backend` (CGI) behind Basic auth that
accepts a request only when its password is an access token the local provider's RFC 7662
introspection calls active (issue 23 §1 tests).

    git-server.py --root DIR --introspect URL --client-id ID --client-secret-file FILE

Listens on 127.0.0.1 on a free port, prints `PORT <n>` on stdout once ready, and logs one line
per request to stderr: `auth ok <user>`, `auth denied <reason>`, then the method and path. The
client secret is read from a file (never argv). Python's standard library only. Stops on SIGTERM.
"""
import argparse
import base64
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import urllib.parse
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--root", required=True)
parser.add_argument("--introspect", required=True)
parser.add_argument("--client-id", required=True)
parser.add_argument("--client-secret-file", required=True)
args = parser.parse_args()
with open(args.client_secret_file, encoding="utf-8") as f:
    client_secret = f.read().strip()
client_auth = "Basic " + base64.b64encode(f"{args.client_id}:{client_secret}".encode()).decode()
# The provider's SQLite database refuses concurrent writers: one introspection at a time.
introspection_lock = threading.Lock()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def active(token):
    body = urllib.parse.urlencode({"token": token, "token_type_hint": "access_token"}).encode()
    request = urllib.request.Request(args.introspect, data=body, headers={
        "Authorization": client_auth, "Content-Type": "application/x-www-form-urlencoded"})
    with introspection_lock:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.load(response)
    return answer.get("active") is True, answer.get("username")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *values):
        pass

    def refuse(self, reason):
        log(f"auth denied {reason}")
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="authdeck test git"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def handle_any(self):
        payload = self.body() if self.command == "POST" else b""
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return self.refuse("no credentials")
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return self.refuse("malformed")
        ok, subject = active(password)
        if not ok:
            return self.refuse("inactive token")
        log(f"auth ok {user} {subject} {self.command} {self.path}")
        path, _, query = self.path.partition("?")
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": args.root, "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command, "PATH_INFO": urllib.parse.unquote(path), "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(payload)),
            "REMOTE_USER": user, "REMOTE_ADDR": "127.0.0.1", "GATEWAY_INTERFACE": "CGI/1.1",
        }
        for name in ("Content-Encoding", "Git-Protocol"):
            if self.headers.get(name):
                environment["HTTP_" + name.upper().replace("-", "_")] = self.headers[name]
        result = subprocess.run(["git", "http-backend"], input=payload, env=environment, capture_output=True, timeout=120)
        head, _, content = result.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, content = result.stdout.partition(b"\n\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    do_GET = handle_any
    do_POST = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
