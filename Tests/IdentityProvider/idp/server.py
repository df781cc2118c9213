"""`run`: start the local OpenID provider on 127.0.0.1 and print one JSON line describing it.

Steps: bind the listening socket first (port 0 = the kernel picks a free port, so there is no
race), write a fresh RSA key and Django secret into the data dir, set up Django with the issuer
pinned to the bound port, migrate a fresh SQLite database, seed users and clients, serve with
Django's development server (the WSGIServer + WSGIRequestHandler that `runserver --noreload`
uses, threaded), wait until discovery answers, print the JSON line, then keep running until
SIGTERM/SIGINT/SIGHUP or until the watched parent process is gone.
"""
import argparse
import json
import os
import secrets
import shutil
import signal
import socketserver
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # Tests/IdentityProvider


def _write_private(path: Path, text: str):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def _prepare_data_dir(data_dir: Path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key_path = data_dir / "oidc-rsa-key.pem"
    if not key_path.exists():
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        _write_private(key_path, pem)
    secret_path = data_dir / "django-secret-key"
    if not secret_path.exists():
        _write_private(secret_path, secrets.token_urlsafe(50))


def _create_database(data_dir: Path, call_command):
    """A fresh database for this run: a copy of a migrated template, made once per virtual
    environment (migrating from scratch costs 2-7 s; copying a few ms). The template lives in
    .venv (rebuilt whenever requirements.txt changes) and is built under a lock."""
    import fcntl
    import hashlib

    from django.db import connections

    database = data_dir / "db.sqlite3"
    if database.exists():  # a kept --data-dir: bring it up to date
        call_command("migrate", verbosity=0, interactive=False)
        return
    venv = Path(sys.prefix)
    stamp = hashlib.sha256((HERE / "requirements.txt").read_bytes()).hexdigest()[:16]
    template = venv / f"idp-template-{stamp}.sqlite3"
    if not template.exists():
        with open(venv / "idp-template.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not template.exists():
                call_command("migrate", verbosity=0, interactive=False)
                connections.close_all()
                partial = template.with_suffix(f".{os.getpid()}.tmp")
                shutil.copyfile(database, partial)
                os.replace(partial, template)
                return
    connections.close_all()
    shutil.copyfile(template, database)
    os.chmod(database, 0o600)


def _parent_alive(parent_pid: int, original_ppid: int) -> bool:
    if parent_pid <= 1:
        return True
    if parent_pid == original_ppid and os.getppid() != original_ppid:
        return False  # re-parented: our parent died
    try:
        os.kill(parent_pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie parent (dead, not yet reaped) still answers kill(0).
    try:
        with open(f"/proc/{parent_pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except OSError:
        return False


def main(argv=None):
    parser = argparse.ArgumentParser(prog="run", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--data-dir", help="keep the database and key here (default: a new temp dir, removed on exit)")
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit when this process is gone (default: $IDP_PARENT_PID, else the parent process)")
    args = parser.parse_args(argv)

    started = time.monotonic()
    original_ppid = os.getppid()
    parent_pid = args.parent_pid
    if parent_pid is None and os.environ.get("IDP_PARENT_PID"):
        parent_pid = int(os.environ["IDP_PARENT_PID"])
    if parent_pid is None:
        parent_pid = original_ppid

    if args.data_dir:
        data_dir = Path(args.data_dir).resolve()
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        remove_data_dir = False
    else:
        data_dir = Path(tempfile.mkdtemp(prefix="authdeck-idp-"))
        remove_data_dir = True

    def shutdown(code=0):
        if remove_data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: shutdown(0))

    def watchdog():  # from the very start: a parent that dies during startup counts too
        while True:
            time.sleep(0.25)
            if not _parent_alive(parent_pid, original_ppid):
                sys.stderr.write("run: parent process is gone; stopping\n")
                shutdown(0)

    threading.Thread(target=watchdog, name="idp-watchdog", daemon=True).start()

    try:
        from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

        class QuietRequestHandler(WSGIRequestHandler):
            """Logs method and path only (never the query: it can carry id_token_hint), and
            only when IDP_LOG_REQUESTS=1."""

            def log_message(self, format, *args):
                if os.environ.get("IDP_LOG_REQUESTS") == "1":
                    line = self.requestline.split("?", 1)[0].split(" HTTP/")[0]
                    sys.stderr.write(f"idp: {line} -> {args[1] if len(args) > 1 else ''}\n")

        server_class = type("ThreadedWSGIServer", (socketserver.ThreadingMixIn, WSGIServer), {})
        try:
            httpd = server_class(("127.0.0.1", args.port), QuietRequestHandler, ipv6=False)
        except OSError as error:
            sys.stderr.write(f"run: cannot listen on 127.0.0.1:{args.port}: {error.strerror}\n")
            shutdown(2)
        httpd.daemon_threads = True
        port = httpd.server_port

        _prepare_data_dir(data_dir)
        os.environ["IDP_DATA_DIR"] = str(data_dir)
        os.environ["IDP_PORT"] = str(port)
        os.environ["DJANGO_SETTINGS_MODULE"] = "idp.settings"
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.core.wsgi import get_wsgi_application

        _create_database(data_dir, call_command)
        from idp.seed import seed

        seed()
        httpd.set_app(get_wsgi_application())
        threading.Thread(target=httpd.serve_forever, name="idp-http", daemon=True).start()

        issuer = settings.ISSUER
        discovery_url = issuer + "/.well-known/openid-configuration"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 30
        while True:
            try:
                with opener.open(discovery_url, timeout=5) as response:
                    discovery = json.loads(response.read())
                if discovery.get("issuer") != issuer:
                    raise RuntimeError(f"discovery issuer {discovery.get('issuer')!r} != {issuer!r}")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

        from idp import fixture

        oauth = settings.OAUTH2_PROVIDER
        info = {
            "issuer": issuer,
            "origin": settings.ORIGIN,
            "port": port,
            "pid": os.getpid(),
            "pgid": os.getpgid(0),
            "data_dir": str(data_dir),
            "discovery_url": discovery_url,
            "rfc8414_url": settings.ORIGIN + "/.well-known/oauth-authorization-server" + fixture.ISSUER_PATH,
            "endpoints": {
                "authorization": discovery["authorization_endpoint"],
                "token": discovery["token_endpoint"],
                "userinfo": discovery["userinfo_endpoint"],
                "jwks": discovery["jwks_uri"],
                "revocation": discovery["revocation_endpoint"],
                "introspection": discovery["introspection_endpoint"],
                "device_authorization": discovery["device_authorization_endpoint"],
                "end_session": discovery["end_session_endpoint"],
                "verification": oauth["OAUTH_DEVICE_VERIFICATION_URI"],
                "login": settings.ORIGIN + fixture.LOGIN_PATH,
            },
            "clients": {
                "native": {
                    "client_id": fixture.NATIVE_CLIENT_ID,
                    "client_type": "public",
                    "token_endpoint_auth_method": "none",
                    "grant_types": ["authorization_code", "refresh_token",
                                    "urn:ietf:params:oauth:grant-type:device_code"],
                    "redirect_uris": fixture.REDIRECT_URIS,
                    "post_logout_redirect_uris": fixture.POST_LOGOUT_REDIRECT_URIS,
                },
                "confidential": {
                    "client_id": fixture.CONFIDENTIAL_CLIENT_ID,
                    "client_secret": fixture.CONFIDENTIAL_CLIENT_SECRET,
                    "client_type": "confidential",
                    "token_endpoint_auth_methods": ["client_secret_basic", "client_secret_post"],
                    "grant_types": ["authorization_code", "refresh_token", "client_credentials"],
                    "redirect_uris": fixture.REDIRECT_URIS,
                    "post_logout_redirect_uris": fixture.POST_LOGOUT_REDIRECT_URIS,
                },
            },
            "users": [
                {"username": name, "password": user["password"], "name": user["name"],
                 "email": user["email"]}
                for name, user in fixture.USERS.items()
            ],
            "settings": {
                "access_token_seconds": settings.ACCESS_TOKEN_SECONDS,
                "sign_in_access_token_seconds": settings.SIGN_IN_ACCESS_TOKEN_SECONDS,
                "id_token_seconds": oauth["ID_TOKEN_EXPIRE_SECONDS"],
                "refresh_token_seconds": oauth["REFRESH_TOKEN_EXPIRE_SECONDS"],
                "device_code_seconds": settings.DEVICE_CODE_EXPIRE_SECONDS,
                "device_interval": oauth["DEVICE_FLOW_INTERVAL"],
                "device_slow_down": settings.DEVICE_SLOW_DOWN,
            },
            "tools": {
                "browser": str(HERE / "browser"),
                "approve_device": str(HERE / "approve-device"),
            },
            "startup_seconds": round(time.monotonic() - started, 3),
        }
        sys.stdout.write(json.dumps(info) + "\n")
        sys.stdout.flush()
    except Exception as error:  # startup failed: say why on stderr, leave nothing behind
        import traceback

        traceback.print_exc()
        sys.stderr.write(f"run: startup failed: {error}\n")
        shutdown(1)

    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
