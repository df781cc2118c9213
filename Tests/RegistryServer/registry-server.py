#!/usr/bin/env python3
"""A container registry stub for tests (OCI distribution / Docker Registry HTTP API v2, read only):
one image `demo:latest` (an empty schema-2 image), served only to Basic auth whose password is an
access token the local provider's RFC 7662 introspection calls active (issue 23 §2 tests).

    registry-server.py --introspect URL --client-id ID --client-secret-file FILE

Listens on 127.0.0.1 on a free port, prints `PORT <n>` on stdout once ready, logs `auth ok <user>`
or `auth denied <reason>` per request on stderr. Python's standard library only.
"""
import argparse
import base64
import hashlib
import http.server
import json
import signal
import sys
import threading
import urllib.parse
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--introspect", required=True)
parser.add_argument("--client-id", required=True)
parser.add_argument("--client-secret-file", required=True)
args = parser.parse_args()
with open(args.client_secret_file, encoding="utf-8") as f:
    client_auth = "Basic " + base64.b64encode(f"{args.client_id}:{f.read().strip()}".encode()).decode()
lock = threading.Lock()

config = json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}}).encode()
config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
manifest = json.dumps({
    "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
    "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "size": len(config), "digest": config_digest},
    "layers": [],
}).encode()
manifest_digest = "sha256:" + hashlib.sha256(manifest).hexdigest()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def active(token):
    body = urllib.parse.urlencode({"token": token, "token_type_hint": "access_token"}).encode()
    request = urllib.request.Request(args.introspect, data=body, headers={"Authorization": client_auth})
    with lock, urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response).get("active") is True


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *values):
        pass

    def reply(self, status, body=b"", content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Docker-Distribution-API-Version", "registry/2.0")
        if body or status == 200:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        header = self.headers.get("Authorization", "")
        user, _, password = (base64.b64decode(header[6:]).decode(errors="replace") if header.startswith("Basic ") else "").partition(":")
        if not password or not active(password):
            log(f"auth denied {'no credentials' if not password else 'inactive token'} {self.path}")
            return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', extra=[("WWW-Authenticate", 'Basic realm="authdeck test registry"')])
        log(f"auth ok {user} {self.path}")
        path = self.path.split("?")[0]
        if path == "/v2/":
            return self.reply(200, b"{}")
        if path == "/v2/demo/tags/list":
            return self.reply(200, json.dumps({"name": "demo", "tags": ["latest"]}).encode())
        if path in ("/v2/demo/manifests/latest", f"/v2/demo/manifests/{manifest_digest}"):
            return self.reply(200, manifest, "application/vnd.docker.distribution.manifest.v2+json", [("Docker-Content-Digest", manifest_digest)])
        if path == f"/v2/demo/blobs/{config_digest}":
            return self.reply(200, config, "application/octet-stream", [("Docker-Content-Digest", config_digest)])
        return self.reply(404, b'{"errors":[{"code":"NAME_UNKNOWN"}]}')

    do_GET = handle_any
    do_HEAD = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
