"""Provider emulators for the authdeck tests: small scripted servers on 127.0.0.1 that reproduce
the quirks listed in the providers' documentation (GitHub, Auth0). Standard library only; the
RS256 signatures of the Auth0 emulator come from the `openssl` command (never hand-rolled).

Prints one JSON line when ready: {"provider": ..., "base_url": "http://127.0.0.1:PORT", ...}.
Stops on SIGTERM/SIGINT/SIGHUP or when the watched parent process is gone. Never prints or logs a
token, a code or a secret (request lines are not logged at all).

Test-only control endpoints (under /_emulator/):
  POST /_emulator/approve?user_code=X   approve a pending device code (GitHub)
  POST /_emulator/deny?user_code=X      deny it: the next poll gets access_denied (GitHub)
  POST /_emulator/expire?user_code=X    expire it: the next poll gets expired_token (GitHub)
  POST /_emulator/spend-refresh-tokens  mark every refresh token used (GitHub: the next refresh
                                        gets HTTP 200 bad_refresh_token, as after a reuse)
  GET  /_emulator/state                 what happened (poll answers, revocations, refreshes) as
                                        JSON; holds no token values, only counts and flags
"""
import argparse
import base64
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def parent_alive(parent_pid: int, original_ppid: int) -> bool:
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
    try:  # a zombie parent still answers kill(0)
        with open(f"/proc/{parent_pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except OSError:
        return False


class RSAKey:
    """An RSA key generated at start with openssl; signs RS256 through `openssl dgst`."""

    def __init__(self, directory: str):
        self.path = os.path.join(directory, "key.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                        "-out", self.path], check=True, capture_output=True)
        os.chmod(self.path, 0o600)
        out = subprocess.run(["openssl", "rsa", "-in", self.path, "-noout", "-modulus"],
                             check=True, capture_output=True, text=True).stdout.strip()
        modulus = bytes.fromhex(out.split("=", 1)[1])
        self.kid = b64url(hashlib.sha256(modulus).digest()[:12])
        self.jwk = {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                    "n": b64url(modulus), "e": b64url((65537).to_bytes(3, "big"))}

    def sign_jwt(self, claims: dict) -> str:
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
                         + b64url(json.dumps(claims, separators=(",", ":")).encode()))
        signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.path],
                                   input=signing_input.encode(), check=True, capture_output=True).stdout
        return signing_input + "." + b64url(signature)


class State:
    def __init__(self, args, base_url: str, key):
        self.lock = threading.Lock()
        self.args = args
        self.base_url = base_url
        self.key = key
        self.devices = {}  # device_code -> dict
        self.codes = {}  # authorization code -> dict
        self.access_tokens = {}  # token -> dict
        self.refresh_tokens = {}  # token -> {"active": bool, ...}
        self.events = {"polls": [], "token_requests": [], "revoked_refresh_tokens": 0,
                       "revocation_requests": [], "refreshes": 0, "refresh_reuse": 0,
                       "user_requests": 0, "authorize_requests": [], "token_deletions": [],
                       "refresh_attempts": 0}


USER = {"login": "octocat", "id": 583231, "name": "The Octocat", "email": "octocat@github.example"}
AUTH0_USER = {"sub": "auth0|5f7c8ec7c33c6c004bbafe82", "name": "Jane Example", "nickname": "jane",
              "email": "jane@example.test", "email_verified": True}


class Handler(BaseHTTPRequestHandler):
    server_version = "ProviderEmulator/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # never log (queries can hold codes)
        pass

    # -- helpers ---------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.server.state

    def body_params(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/json":
            try:
                value = json.loads(raw or b"{}")
                return {k: str(v) for k, v in value.items()}
            except ValueError:
                return {}
        return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True).items()}

    def send(self, status: int, body: bytes, content_type: str, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status: int, value, headers=None):
        self.send(status, json.dumps(value).encode(), "application/json; charset=utf-8", headers)

    def wants_json(self) -> bool:
        return "application/json" in (self.headers.get("Accept") or "")

    def github_answer(self, value: dict, status: int = 200):
        """GitHub answers form-encoded unless the request accepts JSON (or --token-format form)."""
        if self.state.args.token_format == "form" or not self.wants_json():
            body = urlencode({k: ("" if v is None else str(v)) for k, v in value.items()}).encode()
            self.send(status, body, "application/x-www-form-urlencoded; charset=utf-8")
        else:
            self.send_json(status, value)

    def bearer(self):
        header = self.headers.get("Authorization") or ""
        if header[:7].lower() == "bearer ":
            return header[7:].strip()
        if header[:6].lower() == "token ":  # GitHub's own scheme
            return header[6:].strip()
        return None

    # -- routing ---------------------------------------------------------------------------
    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")

    def route(self, method: str):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        path = url.path
        if path == "/_emulator/state" and method == "GET":
            with self.state.lock:
                return self.send_json(200, self.state.events)
        if path in ("/_emulator/approve", "/_emulator/deny", "/_emulator/expire") and method == "POST":
            return self.control_device(query.get("user_code", ""), path.rsplit("/", 1)[1])
        if path == "/_emulator/spend-refresh-tokens" and method == "POST":
            with self.state.lock:
                for entry in self.state.refresh_tokens.values():
                    entry["active"] = False
            return self.send_json(200, {"ok": True})
        table = GITHUB_ROUTES if self.state.args.provider == "github" else AUTH0_ROUTES
        handler = table.get((method, path))
        if handler is None and self.state.args.provider == "github" and method == "DELETE" \
                and path.startswith("/applications/") and (path.endswith("/token") or path.endswith("/grant")):
            handler = Handler.gh_delete_token
        if handler is None:
            return self.send_json(404, {"message": "Not Found"})
        handler(self, query)

    def control_device(self, user_code: str, action: str):
        with self.state.lock:
            for device in self.state.devices.values():
                if device["user_code"] == user_code:
                    device["status"] = {"approve": "approved", "deny": "denied", "expire": "expired"}[action]
                    return self.send_json(200, {"ok": True})
        self.send_json(404, {"ok": False, "error": "unknown user_code"})

    # -- GitHub ----------------------------------------------------------------------------
    def gh_device_code(self, query):
        params = self.body_params()
        if params.get("client_id") != self.state.args.client_id:
            return self.github_answer({"error": "incorrect_client_credentials"})
        device_code = secrets.token_hex(20)
        user_code = "%04X-%04X" % (secrets.randbelow(0x10000), secrets.randbelow(0x10000))
        interval = self.state.args.interval
        with self.state.lock:
            self.state.devices[device_code] = {
                "user_code": user_code, "status": "pending", "interval": interval, "last_poll": None,
                "expires": time.time() + self.state.args.device_expires_in, "polls": 0,
                "scope": params.get("scope", "").replace(" ", ","),
                "slow_downs_left": self.state.args.slow_down}
        self.github_answer({"device_code": device_code, "user_code": user_code,
                            "verification_uri": self.state.base_url + "/login/device",
                            "expires_in": self.state.args.device_expires_in, "interval": interval})

    def gh_access_token(self, query):
        params = self.body_params()
        with self.state.lock:
            self.state.events["token_requests"].append(
                {"accept": self.headers.get("Accept"), "grant_type": params.get("grant_type")})
        if params.get("client_id") != self.state.args.client_id:
            return self.github_answer({"error": "incorrect_client_credentials"})
        if params.get("grant_type") == "refresh_token" and self.state.args.app_tokens:
            return self.gh_refresh(params)
        if params.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code":
            return self.github_answer({"error": "unsupported_grant_type"})
        now = time.time()
        with self.state.lock:
            device = self.state.devices.get(params.get("device_code", ""))
            if device is None:
                return self.github_answer({"error": "bad_verification_code"})
            device["polls"] += 1
            early = device["last_poll"] is not None and now - device["last_poll"] < device["interval"] - 0.05
            gap = None if device["last_poll"] is None else round(now - device["last_poll"], 3)
            device["last_poll"] = now

            def answer(value, name):
                self.state.events["polls"].append({"answer": name, "gap": gap, "interval": device["interval"]})
                return self.github_answer(value)

            if now > device["expires"] or device["status"] == "expired":
                return answer({"error": "expired_token"}, "expired_token")
            if device["slow_downs_left"] > 0 or early:
                # GitHub adds 5 s to the interval on slow_down and sends the new one.
                device["slow_downs_left"] = max(0, device["slow_downs_left"] - 1)
                device["interval"] += 5
                return answer({"error": "slow_down", "error_description": "Too many requests.",
                               "interval": device["interval"]}, "slow_down")
            if device["status"] == "pending":
                return answer({"error": "authorization_pending"}, "authorization_pending")
            if device["status"] == "denied":
                del self.state.devices[params["device_code"]]
                return answer({"error": "access_denied"}, "access_denied")
            del self.state.devices[params["device_code"]]
            token = "gho_" + secrets.token_hex(18)
            scope = device["scope"] or "repo,gist"
            self.state.access_tokens[token] = {"scope": scope}
            # OAuth-app tokens: no expires_in, no refresh_token; scope comma-separated.
            # GitHub-App user tokens (--app-tokens): expires_in, refresh_token, refresh_token_expires_in.
            return answer(self.gh_token_members(token, scope), "access_token")

    def gh_token_members(self, token: str, scope: str) -> dict:
        members = {"access_token": token, "token_type": "bearer", "scope": scope}
        if self.state.args.app_tokens:
            # A GitHub App's user token has no scopes: "scope" is always the empty string (the app's
            # and the user's permissions apply). https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-user-access-token-for-a-github-app
            members["scope"] = ""
            refresh = "ghr_" + secrets.token_hex(38)
            self.state.refresh_tokens[refresh] = {"active": True, "scope": scope}
            members.update({"expires_in": 28800, "refresh_token": refresh, "refresh_token_expires_in": 15897600})
        return members

    def gh_delete_token(self, query):
        """DELETE /applications/{client_id}/token, basic auth with the client id and secret, JSON
        body {"access_token": ...}: 204, or 404 for an unknown token; 401 without the secret.
        DELETE /applications/{client_id}/grant (same request): the whole authorization goes, its
        refresh tokens too ("Delete an app authorization",
        https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-authorization)."""
        client_id = self.path.split("?")[0].split("/")[2]
        whole_grant = self.path.split("?")[0].endswith("/grant")
        expected = "Basic " + base64.b64encode(
            ("%s:%s" % (self.state.args.client_id, self.state.args.client_secret)).encode()).decode()
        authorized = client_id == self.state.args.client_id and self.headers.get("Authorization") == expected
        body = self.body_params()
        json_body = (self.headers.get("Content-Type") or "").startswith("application/json")
        with self.state.lock:
            known = body.get("access_token", "") in self.state.access_tokens
            self.state.events["token_deletions"].append({"basic_auth_ok": authorized, "json_body": json_body, "known_token": known,
                                                         "grant": whole_grant})
            if authorized and known:
                del self.state.access_tokens[body["access_token"]]
                if whole_grant:  # the authorization and every token of it
                    self.state.access_tokens.clear()
                    for entry in self.state.refresh_tokens.values():
                        entry["active"] = False
        if not authorized:
            return self.send_json(401, {"message": "Requires authentication"})
        if not known:
            return self.send_json(404, {"message": "Not Found"})
        self.send(204, b"", "application/json")

    def gh_refresh(self, params):
        with self.state.lock:
            self.state.events["refresh_attempts"] += 1
            entry = self.state.refresh_tokens.get(params.get("refresh_token", ""))
            if entry is None or not entry["active"]:
                if entry is not None:
                    self.state.events["refresh_reuse"] += 1
                return self.github_answer({"error": "bad_refresh_token",
                                           "error_description": "The refresh token passed is incorrect or expired."})
            entry["active"] = False  # GitHub rotates the refresh token
            self.state.events["refreshes"] += 1
            token = "ghu_" + secrets.token_hex(18)
            self.state.access_tokens[token] = {"scope": entry["scope"]}
            return self.github_answer(self.gh_token_members(token, entry["scope"]))

    def gh_user(self, query):
        token = self.bearer()
        with self.state.lock:
            self.state.events["user_requests"] += 1
            info = self.state.access_tokens.get(token or "")
        if info is None:
            return self.send_json(401, {"message": "Requires authentication"})
        scopes = ", ".join(s for s in info["scope"].split(",") if s)
        self.send_json(200, USER, {"X-OAuth-Scopes": scopes, "X-Accepted-OAuth-Scopes": ""})

    # -- Auth0 -----------------------------------------------------------------------------
    @property
    def issuer(self) -> str:
        return self.state.base_url + "/"  # trailing slash, like https://{tenant}.auth0.com/

    def a0_discovery(self, query):
        issuer = self.issuer
        self.send_json(200, a0_dpop_par_metadata(self, {
            "issuer": issuer,
            "authorization_endpoint": issuer + "authorize",
            "token_endpoint": issuer + "oauth/token",
            "device_authorization_endpoint": issuer + "oauth/device/code",
            "userinfo_endpoint": issuer + "userinfo",
            "jwks_uri": issuer + ".well-known/jwks.json",
            "revocation_endpoint": issuer + "oauth/revoke",
            **({} if self.state.args.no_end_session else {"end_session_endpoint": issuer + "oidc/logout"}),
            "scopes_supported": ["openid", "profile", "offline_access", "name", "email", "read:events"],
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256", "plain"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["HS256", "RS256", "PS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "grant_types_supported": ["authorization_code", "refresh_token",
                                      "urn:ietf:params:oauth:grant-type:device_code"],
        }))

    def a0_jwks(self, query):
        self.send_json(200, {"keys": [self.state.key.jwk]})

    def a0_authorize(self, query):
        """Auto-approves: redirects straight back with code and state (no login page)."""
        query = a0_par_resolve(self, query)
        if query is None:
            return
        redirect_uri = query.get("redirect_uri", "")
        parsed = urlsplit(redirect_uri)
        with self.state.lock:
            self.state.events["authorize_requests"].append(
                {"has_audience": "audience" in query, "code_challenge_method": query.get("code_challenge_method"),
                 "scope": query.get("scope"), "has_state": "state" in query, "has_nonce": "nonce" in query,
                 "acr_values": query.get("acr_values"), "max_age": query.get("max_age")})
        if query.get("client_id") != self.state.args.client_id or parsed.hostname not in ("127.0.0.1", "localhost", "::1") \
                or parsed.scheme != "http":
            return self.send_json(400, {"error": "invalid_request", "error_description": "unknown client or redirect_uri"})
        if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256" \
                or not query.get("code_challenge"):
            target = redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(
                {"error": "invalid_request", "error_description": "PKCE S256 is required", "state": query.get("state", "")})
            return self.redirect(target)
        code = secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.codes[code] = {"redirect_uri": redirect_uri, "challenge": query["code_challenge"],
                                      "scope": query.get("scope", ""), "audience": query.get("audience"),
                                      "nonce": query.get("nonce"), "expires": time.time() + 60,
                                      "dpop_jkt": query.get("dpop_jkt"), "acr": a0_acr(self.state.args, query),
                                      "max_age": query.get("max_age")}
        params = {"code": code}
        if "state" in query:
            params["state"] = query["state"]
        self.redirect(redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(params))

    def redirect(self, location: str):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def a0_token(self, query):
        params = self.body_params()
        grant = params.get("grant_type")
        with self.state.lock:
            self.state.events["token_requests"].append({"grant_type": grant})
        if params.get("client_id") != self.state.args.client_id:
            return self.send_json(401, {"error": "access_denied", "error_description": "Unauthorized"})
        jkt = a0_dpop_token_check(self)
        if jkt is False:
            return
        if grant == "authorization_code":
            with self.state.lock:
                entry = self.state.codes.pop(params.get("code", ""), None)
            if entry is None or entry["expires"] < time.time():
                return self.send_json(403, {"error": "invalid_grant", "error_description": "Invalid authorization code"})
            if params.get("redirect_uri") != entry["redirect_uri"]:
                return self.send_json(403, {"error": "invalid_grant", "error_description": "redirect_uri mismatch"})
            challenge = b64url(hashlib.sha256(params.get("code_verifier", "").encode()).digest())
            if challenge != entry["challenge"]:
                return self.send_json(403, {"error": "invalid_grant", "error_description": "Failed to verify code verifier"})
            if entry.get("dpop_jkt") and entry["dpop_jkt"] != jkt:
                return self.send_json(400, {"error": "invalid_dpop_proof", "error_description": "dpop_jkt mismatch"})
            return self.send_json(200, self.a0_issue(entry["scope"], entry["audience"], entry["nonce"], with_id_token=True, jkt=jkt,
                                                     acr=entry.get("acr"), max_age=entry.get("max_age")))
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            return self.a0_device_token(params, jkt)
        if grant == "refresh_token":
            token = params.get("refresh_token", "")
            if self.state.args.refresh_error == "mfa_required":
                # A rule/action asks for MFA on refresh: 403 mfa_required with an mfa_token.
                return self.send_json(403, {"error": "mfa_required", "error_description": "Multifactor authentication required",
                                            "mfa_token": secrets.token_urlsafe(16)})
            if self.state.args.refresh_error == "rate_limited":
                # Auth0's rate limits: 429 too_many_requests with X-RateLimit-* headers (reset: epoch seconds).
                reset = int(time.time()) + 42
                return self.send_json(429, {"error": "too_many_requests", "error_description": "Global limit has been reached"},
                                      {"x-ratelimit-limit": "30", "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)})
            with self.state.lock:
                entry = self.state.refresh_tokens.get(token)
                if entry is not None and entry.get("jkt") and entry["jkt"] != jkt:  # RFC 9449 §5: bound to the key
                    return self.send_json(400, {"error": "invalid_grant", "error_description": "DPoP key mismatch"})
                if entry is None or not entry["active"]:
                    if entry is not None:  # reuse of a rotated token: revoke the whole family
                        self.state.events["refresh_reuse"] += 1
                        for other in self.state.refresh_tokens.values():
                            if other["family"] == entry["family"]:
                                other["active"] = False
                    return self.send_json(403, {"error": "invalid_grant", "error_description": "Unknown or invalid refresh token."})
                entry["active"] = False  # rotation: the old one is spent
                self.state.events["refreshes"] += 1
                if self.state.args.refresh_changes:  # the grant narrows on refresh: email dropped
                    entry["scope"] = " ".join(s for s in entry["scope"].split() if s != "email")
            return self.send_json(200, self.a0_issue(entry["scope"], entry["audience"], None,
                                                     with_id_token="openid" in entry["scope"].split(),
                                                     family=entry["family"], jkt=jkt))
        return self.send_json(403, {"error": "unsupported_grant_type"})

    def a0_issue(self, scope: str, audience, nonce, with_id_token: bool, family=None, jkt=None, acr=None, max_age=None) -> dict:
        now = int(time.time())
        issuer = self.issuer
        scopes = scope.split()
        # --dpop-bound no: the API does not take sender-constrained tokens, so a proof still gets a
        # Bearer access token (Auth0's default for an API without "Require Token Sender-Constraining").
        bound = jkt if self.state.args.dpop_bound == "yes" else None
        response = {"token_type": "DPoP" if bound else "Bearer", "expires_in": self.state.args.expires_in, "scope": scope}
        if audience:
            # API access token: RS256 JWT, aud array [API, userinfo], scope string, azp, permissions.
            response["access_token"] = self.state.key.sign_jwt({
                "iss": issuer, "sub": AUTH0_USER["sub"], "aud": [audience, issuer + "userinfo"],
                "iat": now, "exp": now + self.state.args.expires_in, "azp": self.state.args.client_id,
                # A unique id, as Auth0's tokens differ per issuance: without it two tokens issued
                # in the same second were identical and "refresh stored a new token" could not tell.
                "jti": secrets.token_urlsafe(12),
                "scope": scope, "permissions": [s for s in scopes if ":" in s] or ["read:events"]})
        elif self.state.args.access_token_format == "jwe":
            # Without an audience newer tenants answer a JWE (five parts, dir/A256GCM): readable only
            # by Auth0 itself. Random bytes stand in for the ciphertext.
            header = b64url(json.dumps({"alg": "dir", "enc": "A256GCM", "iss": issuer}).encode())
            response["access_token"] = ".".join([header, "", b64url(secrets.token_bytes(12)),
                                                 b64url(secrets.token_bytes(48)), b64url(secrets.token_bytes(16))])
        else:
            response["access_token"] = secrets.token_urlsafe(24)  # opaque: good for /userinfo only
        with self.state.lock:
            self.state.access_tokens[response["access_token"]] = {"scope": scope, "jkt": bound, "acr": acr}
        if with_id_token and "openid" in scopes:
            aud = self.state.args.client_id
            if self.state.args.id_token_audience:
                aud = [aud] + self.state.args.id_token_audience
            claims = {"iss": issuer, "sub": AUTH0_USER["sub"], "aud": aud, "azp": self.state.args.client_id,
                      "iat": now, "exp": now + 36000, "sid": "emulator-session",
                      "updated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                      "https://example.test/roles": ["tester"]}
            claims.update(AUTH0_USER)
            if family is not None and self.state.args.refresh_changes:  # a refreshed ID token with another role
                claims["https://example.test/roles"] = ["tester", "admin"]
            if nonce:
                claims["nonce"] = nonce
            # OIDC Core §3.1.2.1: acr as chosen at /authorize; auth_time required with max_age (--step-up omit-auth-time: a
            # provider that forgets it).
            if acr:
                claims["acr"] = acr
            if max_age is not None and self.state.args.step_up != "omit-auth-time":
                claims["auth_time"] = now
            response["id_token"] = self.state.key.sign_jwt(claims)
        if "offline_access" in scopes:
            token = "v1." + secrets.token_urlsafe(32)
            with self.state.lock:
                self.state.refresh_tokens[token] = {"active": True, "scope": scope, "audience": audience,
                                                    "family": family or secrets.token_hex(8), "jkt": jkt}
            response["refresh_token"] = token
        return response

    def a0_userinfo(self, query):
        with self.state.lock:
            self.state.events["user_requests"] += 1
            ok = (self.bearer() or "") in self.state.access_tokens
        if not ok:
            return self.send(401, b"Unauthorized", "text/plain", {"WWW-Authenticate": 'Bearer error="invalid_token"'})
        info = dict(AUTH0_USER)
        info["updated_at"] = "2026-01-02T03:04:05.678Z"
        self.send_json(200, info)

    def a0_revoke(self, query):
        params = self.body_params()
        token = params.get("token", "")
        with self.state.lock:
            entry = self.state.refresh_tokens.get(token)
            kind = "refresh_token" if entry is not None else (
                "access_token" if token in self.state.access_tokens else "unknown")
            self.state.events["revocation_requests"].append(
                {"kind": kind, "token_type_hint": params.get("token_type_hint"),
                 "client_id_matches": params.get("client_id") == self.state.args.client_id})
            if params.get("client_id") != self.state.args.client_id:
                return self.send_json(401, {"error": "invalid_client"})
            if entry is not None:
                if entry["active"]:
                    self.state.events["revoked_refresh_tokens"] += 1
                entry["active"] = False
        # Auth0 revokes refresh tokens only; anything else is accepted and ignored (RFC 7009 §2.2).
        self.send(200, b"", "application/json")

    def a0_logout(self, query):
        """OIDC RP-Initiated Logout (/oidc/logout, GET or POST as §2 requires) or Auth0's /v2/logout
        (returnTo): back to the client's loopback URI with `state`, else a plain page. An
        id_token_hint (recommended by Auth0) must be an ID token issued to this client."""
        if self.command == "POST":
            query = self.body_params()
        hint = query.get("id_token_hint")
        hint_ok = None
        if hint is not None:
            try:
                payload = json.loads(b64d(hint.split(".")[1]))
                hint_ok = payload.get("aud") == self.state.args.client_id or self.state.args.client_id in (payload.get("aud") or [])
            except (ValueError, IndexError):
                hint_ok = False
            if not hint_ok:
                return self.send_json(400, {"error": "invalid_request", "error_description": "id_token_hint is not valid"})
        with self.state.lock:
            self.state.events["end_session_methods"] = self.state.events.get("end_session_methods", []) + [self.command]
            self.state.events["end_session_requests"] = self.state.events.get("end_session_requests", 0) + 1
            self.state.events["end_session"] = {"has_id_token_hint": "id_token_hint" in query,
                                                "client_id_matches": query.get("client_id") == self.state.args.client_id,
                                                "path": urlsplit(self.path).path, "has_return_to": "returnTo" in query}
        target = query.get("post_logout_redirect_uri") or query.get("returnTo")
        if target and urlsplit(target).scheme == "http" and urlsplit(target).hostname in ("127.0.0.1", "localhost", "::1"):
            params = {"state": query["state"]} if "state" in query else {}
            return self.redirect(target + (("&" if "?" in target else "?") + urlencode(params) if params else ""))
        self.send(200, b"<html><body>Signed out.</body></html>", "text/html; charset=utf-8")

    def a0_device_code(self, query):
        """POST /oauth/device/code (client_id, scope, audience): Auth0's device authorization; the
        audience decides the access token as in the browser flow."""
        params = self.body_params()
        with self.state.lock:
            self.state.events.setdefault("device_requests", []).append(
                {"audience": params.get("audience"), "scope": params.get("scope")})
        if params.get("client_id") != self.state.args.client_id:
            return self.send_json(401, {"error": "unauthorized_client", "error_description": "Unknown client"})
        device_code = secrets.token_urlsafe(24)
        user_code = "%04X-%04X" % (secrets.randbelow(0x10000), secrets.randbelow(0x10000))
        with self.state.lock:
            self.state.devices[device_code] = {"user_code": user_code, "status": "pending", "scope": params.get("scope", ""),
                                               "audience": params.get("audience"), "expires": time.time() + 900}
        self.send_json(200, {"device_code": device_code, "user_code": user_code, "verification_uri": self.issuer + "activate",
                             "verification_uri_complete": self.issuer + "activate?user_code=" + user_code,
                             "expires_in": 900, "interval": 1})

    def a0_device_token(self, params, jkt):
        """Device polling at /oauth/token: HTTP 403 authorization_pending / access_denied /
        expired_token (Auth0 answers these with 403), then the tokens for the device's audience."""
        with self.state.lock:
            device = self.state.devices.get(params.get("device_code", ""))
            self.state.events["polls"].append({"answer": device["status"] if device else "unknown"})
            if device is None:
                return self.send_json(403, {"error": "invalid_grant", "error_description": "Invalid or expired device code."})
            if device["status"] == "pending":
                return self.send_json(403, {"error": "authorization_pending", "error_description": "User has yet to authorize device code."})
            del self.state.devices[params["device_code"]]
        if device["status"] == "denied":
            return self.send_json(403, {"error": "access_denied", "error_description": "User refused to authorize."})
        if device["status"] == "expired" or device["expires"] < time.time():
            return self.send_json(403, {"error": "expired_token", "error_description": "Device code expired."})
        return self.send_json(200, self.a0_issue(device["scope"], device["audience"], None, with_id_token=True, jkt=jkt))


GITHUB_ROUTES = {
    ("POST", "/login/device/code"): Handler.gh_device_code,
    ("POST", "/login/oauth/access_token"): Handler.gh_access_token,
    ("GET", "/user"): Handler.gh_user,
}
# -- DPoP (RFC 9449) and PAR (RFC 9126), flag-enabled (--dpop, --par) ---------------------------

DPOP_TOKEN_NONCE = secrets.token_urlsafe(12)
DPOP_RESOURCE_NONCE = secrets.token_urlsafe(12)
P256_SPKI_PREFIX = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")


STEP_UP_ACR = "urn:emulator:mfa"


def a0_acr(args, query):
    """The acr an authorization satisfies: the first acr_values value the emulator offers (urn:emulator:pwd, STEP_UP_ACR),
    or urn:emulator:pwd; --step-up lower-acr answers urn:emulator:pwd whatever was asked."""
    asked = (query.get("acr_values") or "").split()
    if not asked:
        return None
    offered = [value for value in asked if value in ("urn:emulator:pwd", STEP_UP_ACR)]
    return "urn:emulator:pwd" if args.step_up == "lower-acr" or not offered else offered[0]


def a0_step_up_resource(handler, query):
    """GET /api/step-up: 200 for an access token issued with acr STEP_UP_ACR, else 401 with RFC 9470 §3's challenge."""
    with handler.state.lock:
        handler.state.events.setdefault("step_up_requests", 0)
        handler.state.events["step_up_requests"] += 1
        entry = handler.state.access_tokens.get(handler.bearer() or "")
    if entry is not None and entry.get("acr") == STEP_UP_ACR:
        return handler.send_json(200, {"ok": True, "acr": STEP_UP_ACR})
    challenge = ('Bearer error="insufficient_user_authentication", error_description="A different authentication level is'
                 f' required", acr_values="{STEP_UP_ACR}", max_age=300')
    handler.send(401, b"", "text/plain", {"WWW-Authenticate": challenge})


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def a0_dpop_par_metadata(handler, document: dict) -> dict:
    if handler.state.args.dpop:
        document["dpop_signing_alg_values_supported"] = ["ES256"]
    if handler.state.args.par:
        document["pushed_authorization_request_endpoint"] = handler.issuer + "oauth/par"
        document["require_pushed_authorization_requests"] = True
    return document


def a0_der_int(value: bytes) -> bytes:
    value = value.lstrip(b"\x00") or b"\x00"
    if value[0] & 0x80:
        value = b"\x00" + value
    return b"\x02" + bytes([len(value)]) + value


def a0_verify_proof(handler, method: str, url: str, access_token=None):
    """(jkt, None) for a valid proof, (None, None) without one, (None, reason) for a bad one."""
    proof = handler.headers.get("DPoP")
    if not proof:
        return None, None
    try:
        h, p, s = proof.split(".")
        header, claims, signature = json.loads(b64d(h)), json.loads(b64d(p)), b64d(s)
        jwk = header["jwk"]
        x, y = b64d(jwk["x"]), b64d(jwk["y"])
    except (ValueError, KeyError, TypeError):
        return None, "malformed proof"
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "d" in jwk \
            or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256" or len(signature) != 64:
        return None, "bad proof header"
    if claims.get("htm") != method or claims.get("htu") != url or abs(time.time() - claims.get("iat", 0)) > 60:
        return None, "bad htm, htu or iat"
    with handler.state.lock:
        seen = handler.state.events.setdefault("dpop_jtis", [])
        if not claims.get("jti") or claims["jti"] in seen:
            return None, "jti missing or replayed"
        seen.append(claims["jti"])
    if access_token is not None and claims.get("ath") != b64url(hashlib.sha256(access_token.encode()).digest()):
        return None, "bad ath"
    with tempfile.TemporaryDirectory() as work:
        for name, data in (("pub.der", P256_SPKI_PREFIX + b"\x04" + x + y),
                           ("sig.der", b"\x30" + bytes([len(a0_der_int(signature[:32]) + a0_der_int(signature[32:]))])
                            + a0_der_int(signature[:32]) + a0_der_int(signature[32:])),
                           ("input", (h + "." + p).encode())):
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
        checked = subprocess.run(["openssl", "dgst", "-sha256", "-verify", os.path.join(work, "pub.der"), "-keyform", "DER",
                                  "-signature", os.path.join(work, "sig.der"), os.path.join(work, "input")],
                                 capture_output=True, text=True)
    if "Verified OK" not in checked.stdout:
        return None, "signature does not verify"
    thumbprint_input = json.dumps({"crv": jwk["crv"], "kty": "EC", "x": jwk["x"], "y": jwk["y"]}, separators=(",", ":"), sort_keys=True)
    with handler.state.lock:
        handler.state.events.setdefault("dpop_proofs", []).append(
            {"htm": method, "htu": url, "nonce": claims.get("nonce"), "has_ath": "ath" in claims})
    return b64url(hashlib.sha256(thumbprint_input.encode()).digest()), claims.get("nonce")


def a0_dpop_token_check(handler):
    """The proof's jkt (None without a proof when DPoP is off); False when an error was sent."""
    if not handler.state.args.dpop:
        return None
    result = a0_verify_proof(handler, "POST", handler.issuer + "oauth/token")
    jkt, detail = result
    if jkt is None:
        if detail is None:
            return None  # no proof: a Bearer token
        handler.send_json(400, {"error": "invalid_dpop_proof", "error_description": detail})
        return False
    if detail != DPOP_TOKEN_NONCE:
        handler.send_json(400, {"error": "use_dpop_nonce", "error_description": "nonce required"}, {"DPoP-Nonce": DPOP_TOKEN_NONCE})
        return False
    return jkt


def a0_par(handler, query):
    params = handler.body_params()
    with handler.state.lock:
        handler.state.events.setdefault("par_requests", []).append(
            {"has_request_uri": "request_uri" in params, "has_state": "state" in params, "dpop_jkt": params.get("dpop_jkt")})
    if params.get("client_id") != handler.state.args.client_id:
        return handler.send_json(401, {"error": "invalid_client"})
    if "request_uri" in params:
        return handler.send_json(400, {"error": "invalid_request", "error_description": "request_uri is not allowed"})
    uri = "urn:ietf:params:oauth:request_uri:" + secrets.token_urlsafe(16)
    with handler.state.lock:
        handler.state.events.setdefault("pushed", {})[uri] = params
    handler.send_json(201, {"request_uri": uri, "expires_in": 60})


def a0_par_resolve(handler, query):
    """The pushed parameters for a request_uri (used once); None when an error was sent."""
    if not handler.state.args.par:
        return query
    with handler.state.lock:
        pushed = handler.state.events.setdefault("pushed", {}).pop(query.get("request_uri", ""), None)
        handler.state.events.setdefault("par_authorize", []).append(sorted(query.keys()))
    if pushed is None or query.get("client_id") != pushed.get("client_id"):
        handler.send_json(400, {"error": "invalid_request", "error_description": "PAR required: unknown or used request_uri"})
        return None
    return pushed


def a0_dpop_resource(handler, query):
    header = handler.headers.get("Authorization") or ""
    token = header[5:] if header.lower().startswith("dpop ") else None
    with handler.state.lock:
        entry = handler.state.access_tokens.get(token or "")
    if token is None or entry is None or not entry.get("jkt"):
        return handler.send(401, b"", "text/plain", {"WWW-Authenticate": 'DPoP error="invalid_token"'})
    jkt, nonce = a0_verify_proof(handler, "GET", handler.state.base_url + "/api/dpop", access_token=token)
    if jkt != entry["jkt"]:
        return handler.send(401, b"", "text/plain", {"WWW-Authenticate": 'DPoP error="invalid_dpop_proof"'})
    if nonce != DPOP_RESOURCE_NONCE:
        return handler.send(401, b"", "text/plain",
                            {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": DPOP_RESOURCE_NONCE})
    handler.send_json(200, {"ok": True, "jkt": jkt})


AUTH0_ROUTES = {
    ("GET", "/.well-known/openid-configuration"): Handler.a0_discovery,
    ("GET", "/.well-known/jwks.json"): Handler.a0_jwks,
    ("GET", "/authorize"): Handler.a0_authorize,
    ("POST", "/oauth/token"): Handler.a0_token,
    ("GET", "/userinfo"): Handler.a0_userinfo,
    ("POST", "/oauth/revoke"): Handler.a0_revoke,
    ("POST", "/oauth/device/code"): Handler.a0_device_code,
    ("GET", "/oidc/logout"): Handler.a0_logout,
    ("POST", "/oidc/logout"): Handler.a0_logout,
    ("GET", "/v2/logout"): Handler.a0_logout,
    ("POST", "/oauth/par"): lambda handler, query: a0_par(handler, query),
    ("GET", "/api/dpop"): lambda handler, query: a0_dpop_resource(handler, query),
    ("GET", "/api/step-up"): lambda handler, query: a0_step_up_resource(handler, query),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="authdeck provider emulator")
    from oidc_presets import MODES, OIDCHandler, prepare
    parser.add_argument("provider", choices=["github", "auth0", *MODES])
    parser.add_argument("--tenant", default=None,
                        help="entra: tenant (default common); okta: authorization server (default default); keycloak: realm")
    parser.add_argument("--client-id", default=None, help="the registered client id")
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this process is gone")
    parser.add_argument("--token-format", choices=["auto", "form"], default="auto",
                        help="GitHub: auto = JSON only with Accept: application/json; form = always form-encoded")
    parser.add_argument("--interval", type=int, default=1, help="GitHub: device polling interval (s)")
    parser.add_argument("--slow-down", type=int, default=1, help="GitHub: answer slow_down to the first N polls")
    parser.add_argument("--app-tokens", action="store_true",
                        help="GitHub: GitHub-App user tokens (expiring, with a rotating refresh token)")
    parser.add_argument("--device-expires-in", type=int, default=900)
    parser.add_argument("--expires-in", type=int, default=86400, help="Auth0: access token lifetime (s)")
    parser.add_argument("--client-secret", default="gh-emulator-secret",
                        help="GitHub: the client secret DELETE /applications/{client_id}/token expects")
    parser.add_argument("--no-end-session", action="store_true",
                        help="Auth0: discovery without end_session_endpoint (sign-out uses /v2/logout)")
    parser.add_argument("--access-token-format", choices=["opaque", "jwe"], default="opaque",
                        help="Auth0: the access token without an audience")
    parser.add_argument("--id-token-audience", action="append", default=[],
                        help="Auth0: another aud of the ID token besides the client id (repeatable)")
    parser.add_argument("--dpop", action="store_true", help="Auth0: DPoP (RFC 9449) with nonces, proofs checked with openssl")
    parser.add_argument("--par", action="store_true", help="Auth0: pushed authorization requests (RFC 9126), required")
    parser.add_argument("--dpop-bound", choices=["yes", "no"], default="yes",
                        help="Auth0 with --dpop: no = the API does not bind tokens (token_type Bearer after a proof)")
    parser.add_argument("--refresh-error", choices=["none", "mfa_required", "rate_limited"], default="none",
                        help="Auth0: every refresh answers 403 mfa_required, or 429 with X-RateLimit-Reset")
    parser.add_argument("--step-up", choices=["honour", "omit-auth-time", "lower-acr"], default="honour",
                        help="Auth0: acr_values/max_age at /authorize (RFC 9470): honoured, or an ID token without auth_time,"
                             " or a lower acr than asked")
    parser.add_argument("--refresh-changes", action="store_true",
                        help="Auth0: a refresh drops the email scope and adds the admin role to the ID token")
    parser.add_argument("--verification-uri-complete", choices=["none", "absolute", "relative"], default="none",
                        help="OIDC presets: verification_uri_complete in device answers (relative: a path, as a broken provider sends)")
    args = parser.parse_args(argv)
    if args.client_id is None:
        args.client_id = {"github": "Iv1.test", "auth0": "a0-native-client"}.get(args.provider, args.provider + "-native-client")
    if args.tenant is None:
        args.tenant = {"entra": "common", "okta": "default", "keycloak": "staff"}.get(args.provider, "")
    if args.provider == "google" and args.client_secret == "gh-emulator-secret":
        args.client_secret = "google-desktop-secret"

    def ready_extra(base_url):
        if args.provider == "auth0":
            return {"issuer": base_url + "/"}
        if args.provider in MODES:
            from oidc_presets import issuer_path
            return {"issuer": base_url + issuer_path(args)}
        return {}

    serve(args, OIDCHandler if args.provider in MODES else Handler,
          lambda workdir: RSAKey(workdir) if args.provider != "github" else None, ready_extra, prepare)


def serve(args, handler_class, make_key, ready_extra, prepare=None):
    """Runs `handler_class` on 127.0.0.1 (a free port) until a signal or the parent's exit;
    `make_key(workdir)` makes the signing key in a 0700 temp dir removed at exit; `prepare(state,
    workdir)` adds what a mode needs; prints the ready line with `ready_extra(base_url)` added.
    Shared by every emulator (apple.py, logto.py, oidc_presets.py)."""
    original_ppid = os.getppid()
    parent_pid = args.parent_pid if args.parent_pid is not None else original_ppid
    workdir = tempfile.mkdtemp(prefix="authdeck-emulator-")
    os.chmod(workdir, 0o700)

    def shutdown(code=0):
        shutil.rmtree(workdir, ignore_errors=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: shutdown(0))

    def watchdog():
        while True:
            time.sleep(0.25)
            if not parent_alive(parent_pid, original_ppid):
                sys.stderr.write("emulator: parent process is gone; stopping\n")
                shutdown(0)

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        key = make_key(workdir)
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        httpd.daemon_threads = True
        base_url = "http://127.0.0.1:%d" % httpd.server_address[1]
        httpd.state = State(args, base_url, key)
        if prepare is not None:
            prepare(httpd.state, workdir)
        ready = {"provider": args.provider, "base_url": base_url, "client_id": args.client_id, "pid": os.getpid()}
        ready.update(ready_extra(base_url))
        sys.stdout.write(json.dumps(ready) + "\n")
        sys.stdout.flush()
        httpd.serve_forever()
    except Exception as error:  # noqa: BLE001
        sys.stderr.write("emulator: %s\n" % type(error).__name__)
        shutdown(1)


if __name__ == "__main__":
    main()
