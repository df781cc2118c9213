"""Exact-redirect OpenID provider emulator for the authdeck tests (standard library; RS256 through
`openssl`, by emulator.py's RSAKey): an independent, self-hosted-style provider behind a gateway
that compares redirect URIs exactly and answers refusals with bare statuses. Written from the specs:
- RFC 6749 §3.1.2.3: a registered redirect URI is compared by simple string comparison (RFC 3986
  §6.2.1) — no loopback port exception here (RFC 8252 §7.3 asks for one; this provider does not
  give it). §4.1.2.1: with a missing or unregistered redirect URI the server MUST NOT redirect;
  here the gateway answers 403 (bare). §4.1.3: the token request's redirect_uri equals the
  authorization request's. §4.1.2: a code is used once (a second use: invalid_grant, and the tokens
  issued for it are revoked). §5.2: token errors as JSON.
- RFC 7636 (PKCE): S256 only; §4.6 a verifier that does not match → invalid_grant.
- RFC 9126 (PAR) with `--par`: `POST /par` (201 request_uri, expires_in 60; request_uri one-use)
  and `require_pushed_authorization_requests`; §4 only the pushed parameters count.
- RFC 9207: `iss` in every authorization response (`authorization_response_iss_parameter_supported`).
- RFC 7009 / RFC 7662: revocation and introspection take client_secret_basic only; the client
  here is public (no secret), so both answer 401 with `WWW-Authenticate: Basic realm="exact"` and
  an empty body (RFC 6749 §5.2: invalid_client with a 401 and WWW-Authenticate).
- OpenID Connect RP-Initiated Logout 1.0: end_session_endpoint `/logout` (GET only here: a POST
  gets 405 bare with `Allow: GET`). §2/§4: without `id_token_hint` the OP asks the user to confirm
  (a "Confirm sign-out" page that ends nothing and never redirects); with a hint that this emulator
  issued to the client the session (`sid`) ends, then 302 to `post_logout_redirect_uri` (exactly
  registered, §3) with `state`; an unregistered one, an unknown hint, or a `client_id` that is not
  the hint's `aud` → 400 bare, nothing ended. An expired hint is still accepted (§2).
- RFC 8628 with `--device`: `POST /device`, the device grant at `/token` (400
  authorization_pending / slow_down / access_denied / expired_token).
- OIDC Core: ID tokens RS256 with iss, sub, aud, azp, exp, iat, auth_time, nonce (when sent), sid,
  at_hash; refresh tokens rotate (a spent one: invalid_grant; OIDC Core §12.2: an ID token on
  refresh without nonce); sign-out ends the session, not the refresh tokens (offline access).

Test controls: POST /_emulator/approve|deny|expire?user_code=X (device grant),
POST /_emulator/spend-refresh-tokens, GET /_emulator/state (counts and flags, never token values).
"""
import argparse
import base64
import hashlib
import html
import json
import re
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

from emulator import Handler, RSAKey, b64url, serve

CLIENT_ID = "exact-native-client"
USER = {"sub": "alice-sub", "name": "Alice Exact", "preferred_username": "alice",
        "email": "alice@exact.example.test", "email_verified": True}
SCOPES = ["openid", "profile", "email", "offline_access"]
REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:"
PKCE_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")
PKCE_VERIFIER = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
KNOWN_GRANTS = ("authorization_code", "refresh_token", DEVICE_GRANT)


def with_query(uri: str, params: dict) -> str:
    return uri + ("&" if "?" in uri else "?") + urlencode(params) if params else uri


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def b64url_json(part: str):
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class ExactHandler(Handler):
    # -- routing ---------------------------------------------------------------------------
    def route(self, method: str):
        url = urlsplit(self.path)
        if url.path.startswith("/_emulator/"):
            return super().route(method)  # approve/deny/expire, spend-refresh-tokens, state
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        table = ROUTES
        if not self.state.args.par:
            table = {k: v for k, v in table.items() if k != "/par"}
        if not self.state.args.device:
            table = {k: v for k, v in table.items() if k not in ("/device", "/activate")}
        methods = table.get(url.path)
        if methods is None:
            self.drain()
            return self.bare(404, b"Not Found")
        handler = methods.get(method)
        if handler is None:
            self.drain()
            return self.bare(405, b"", {"Allow": ", ".join(sorted(methods))})
        handler(self, query)

    # -- helpers ---------------------------------------------------------------------------
    @property
    def issuer(self) -> str:
        return self.state.base_url

    @property
    def events(self) -> dict:
        return self.state.events

    def count(self, name: str, by: int = 1):
        with self.state.lock:
            self.events[name] = self.events.get(name, 0) + by

    def drain(self):
        """Reads an unread request body (keeps the HTTP/1.1 connection usable after a refusal)."""
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    def bare(self, status: int, body: bytes = b"", headers=None):
        """A refusal as a gateway sends it: a status, no JSON (text/plain when there is a body)."""
        self.send_response(status)
        if body:
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def form_params(self):
        """The form-encoded body (RFC 6749 §3.2, RFC 9126 §2.1); None (and 400 sent) for another type."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            self.drain()
            self.send_json(400, {"error": "invalid_request",
                                 "error_description": "application/x-www-form-urlencoded required"})
            return None
        return self.body_params()

    def registered(self, redirect_uri) -> bool:
        """RFC 6749 §3.1.2.3: simple string comparison with a registered URI (no port flexibility)."""
        return redirect_uri is not None and redirect_uri in self.state.args.redirect_uri

    def refuse_redirect(self, endpoint: str, redirect_uri):
        with self.state.lock:
            self.events["redirect_uris_refused"].append(redirect_uri)
            self.events[endpoint + "_refused"] += 1

    def pkce_error(self, params):
        if params.get("code_challenge_method") != "S256":
            return "code_challenge_method S256 is required"
        if not PKCE_CHALLENGE.match(params.get("code_challenge", "")):
            return "code_challenge is required (S256: 43 base64url characters)"
        return None

    # -- documents -------------------------------------------------------------------------
    def discovery(self, query):
        issuer = self.issuer
        grants = ["authorization_code", "refresh_token"] + ([DEVICE_GRANT] if self.state.args.device else [])
        document = {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "jwks_uri": issuer + "/jwks",
            "userinfo_endpoint": issuer + "/userinfo",
            "revocation_endpoint": issuer + "/revoke",
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic"],
            "introspection_endpoint": issuer + "/introspect",
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic"],
            "end_session_endpoint": issuer + "/logout",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": grants,
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": SCOPES,
            "claims_supported": ["iss", "sub", "aud", "azp", "exp", "iat", "auth_time", "nonce", "sid", "at_hash",
                                 "name", "preferred_username", "email", "email_verified"],
            "authorization_response_iss_parameter_supported": True,
        }
        if self.state.args.par:
            document["pushed_authorization_request_endpoint"] = issuer + "/par"
            document["require_pushed_authorization_requests"] = True
        if self.state.args.device:
            document["device_authorization_endpoint"] = issuer + "/device"
        self.send_json(200, document)

    def jwks(self, query):
        self.send_json(200, {"keys": [self.state.key.jwk]})

    # -- PAR (RFC 9126) --------------------------------------------------------------------
    def par(self, query):
        params = self.form_params()
        if params is None:
            return
        self.count("par_count")
        if params.get("client_id") != self.state.args.client_id:
            return self.send_json(401, {"error": "invalid_client"})
        if not self.registered(params.get("redirect_uri")):
            # The gateway in front of the provider: 403, empty body, no JSON.
            self.refuse_redirect("par", params.get("redirect_uri"))
            return self.bare(403)
        if "request_uri" in params:
            return self.send_json(400, {"error": "invalid_request", "error_description": "request_uri is not allowed"})
        if params.get("response_type") != "code":
            return self.send_json(400, {"error": "unsupported_response_type"})
        problem = self.pkce_error(params)
        if problem:
            return self.send_json(400, {"error": "invalid_request", "error_description": problem})
        request_uri = REQUEST_URI_PREFIX + secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.pushed[request_uri] = {"params": params, "expires": time.time() + 60}
        self.send_json(201, {"request_uri": request_uri, "expires_in": 60})

    # -- authorize -------------------------------------------------------------------------
    def authorize(self, query):
        args = self.state.args
        record = {"parameters": sorted(query), "pushed_parameters": None, "redirect_uri": None, "outcome": None}
        with self.state.lock:
            self.events["authorize_count"] += 1
            self.events["authorize_requests"].append(record)

        def refuse(status: int, body: bytes, outcome: str):
            record["outcome"] = outcome
            return self.bare(status, body)

        if "redirect_uri" in query and not self.registered(query["redirect_uri"]):
            # The gateway sees the query first (RFC 6749 §4.1.2.1: never redirect to it).
            record["redirect_uri"] = query["redirect_uri"]
            self.refuse_redirect("authorize", query["redirect_uri"])
            return refuse(403, b"Forbidden", "redirect_uri_refused")
        if "request_uri" in query:
            with self.state.lock:
                pushed = self.state.pushed.pop(query["request_uri"], None)  # one-use
            if pushed is None or pushed["expires"] < time.time():
                return refuse(400, b"Bad Request", "request_uri_unknown")
            if query.get("client_id") != pushed["params"].get("client_id"):
                return refuse(400, b"Bad Request", "client_id_mismatch")
            params = pushed["params"]  # RFC 9126 §4: only the pushed parameters count
            record["pushed_parameters"] = sorted(params)
        elif args.par:
            return refuse(400, b"Bad Request", "par_required")
        else:
            params = query
        redirect_uri = params.get("redirect_uri")
        record["redirect_uri"] = redirect_uri
        if params.get("client_id") != args.client_id:
            return refuse(400, b"Bad Request", "unknown_client")
        if not self.registered(redirect_uri):
            self.refuse_redirect("authorize", redirect_uri)
            return refuse(403, b"Forbidden", "redirect_uri_refused")
        # The redirect URI is verified: other errors go back to it (RFC 6749 §4.1.2.1, RFC 9207 iss).
        answer = {"state": params["state"]} if "state" in params else {}
        answer["iss"] = self.issuer
        error = None
        if params.get("response_type") != "code":
            error = {"error": "unsupported_response_type"}
        elif self.pkce_error(params):
            error = {"error": "invalid_request", "error_description": self.pkce_error(params)}
        if error:
            record["outcome"] = error["error"]
            return self.redirect(with_query(redirect_uri, dict(error, **answer)))
        # Auto-approve alice: a new session at the provider.
        sid = secrets.token_urlsafe(12)
        code = secrets.token_urlsafe(32)
        now = time.time()
        with self.state.lock:
            self.state.sessions[sid] = {"active": True, "auth_time": int(now)}
            self.state.codes[code] = {"redirect_uri": redirect_uri, "challenge": params["code_challenge"],
                                      "scope": params.get("scope", ""), "nonce": params.get("nonce"),
                                      "client_id": args.client_id, "sid": sid, "expires": now + 60,
                                      "used": False, "issued": []}
        record["outcome"] = "code"
        self.redirect(with_query(redirect_uri, dict({"code": code}, **answer)))

    # -- token -----------------------------------------------------------------------------
    def token(self, query):
        params = self.form_params()
        if params is None:
            return
        grant = params.get("grant_type")
        with self.state.lock:
            name = grant if grant in KNOWN_GRANTS else "other"
            self.events["token_requests"][name] = self.events["token_requests"].get(name, 0) + 1
        if grant == "refresh_token" and self.state.args.bare_refresh_error:
            return self.bare(400)
        if params.get("client_id") != self.state.args.client_id:
            return self.token_error(401, "invalid_client")
        if grant == "authorization_code":
            return self.code_grant(params)
        if grant == "refresh_token":
            return self.refresh_grant(params)
        if grant == DEVICE_GRANT and self.state.args.device:
            return self.device_grant(params)
        return self.token_error(400, "unsupported_grant_type")

    def token_error(self, status: int, error: str, description=None):
        with self.state.lock:
            self.events["token_errors"][error] = self.events["token_errors"].get(error, 0) + 1
        value = {"error": error}
        if description:
            value["error_description"] = description
        self.send_json(status, value)

    def code_grant(self, params):
        with self.state.lock:
            entry = self.state.codes.get(params.get("code", ""))
            if entry is not None and entry["used"]:
                # RFC 6749 §4.1.2: a second use; the tokens issued for the code are revoked.
                self.events["code_reuse"] += 1
                for token in entry["issued"]:
                    self.state.access_tokens.pop(token, None)
                    if token in self.state.refresh_tokens:
                        self.state.refresh_tokens[token]["active"] = False
                entry = None
            elif entry is not None:
                entry["used"] = True  # one-use, whatever the outcome
        if entry is None or entry["expires"] < time.time():
            return self.token_error(400, "invalid_grant", "unknown, expired or used code")
        if params.get("redirect_uri") != entry["redirect_uri"]:
            return self.token_error(400, "invalid_grant", "redirect_uri differs from the authorization request")
        verifier = params.get("code_verifier", "")
        if not PKCE_VERIFIER.match(verifier) or b64url(hashlib.sha256(verifier.encode()).digest()) != entry["challenge"]:
            return self.token_error(400, "invalid_grant", "PKCE verification failed")
        response = self.issue(entry["scope"], entry["sid"], entry["nonce"], entry["issued"])
        self.send_json(200, response)

    def refresh_grant(self, params):
        with self.state.lock:
            entry = self.state.refresh_tokens.get(params.get("refresh_token", ""))
            spent = entry is not None and not entry["active"]
            if spent:
                self.events["refresh_reuse"] += 1
        if entry is None or spent:
            return self.token_error(400, "invalid_grant", "unknown or spent refresh token")
        scope = params.get("scope", entry["scope"])
        if not set(scope.split()) <= set(entry["scope"].split()):
            return self.token_error(400, "invalid_scope")  # RFC 6749 §6: no wider than granted
        with self.state.lock:
            spent = not entry["active"]  # spent by a concurrent request meanwhile
            if spent:
                self.events["refresh_reuse"] += 1
            else:
                entry["active"] = False  # rotation
                self.events["refreshes"] += 1
        if spent:
            return self.token_error(400, "invalid_grant", "unknown or spent refresh token")
        self.send_json(200, self.issue(scope, entry["sid"], None, None, keep_scope=entry["scope"]))

    def issue(self, scope: str, sid: str, nonce, issued, keep_scope=None) -> dict:
        now = int(time.time())
        args = self.state.args
        access = secrets.token_urlsafe(32)  # opaque
        refresh = secrets.token_urlsafe(48)
        response = {"access_token": access, "token_type": "Bearer", "expires_in": args.expires_in,
                    "refresh_token": refresh, "scope": scope}
        with self.state.lock:
            self.state.access_tokens[access] = {"scope": scope, "expires": now + args.expires_in}
            self.state.refresh_tokens[refresh] = {"active": True, "scope": keep_scope or scope, "sid": sid}
            auth_time = self.state.sessions.get(sid, {}).get("auth_time", now)
            if issued is not None:
                issued.extend([access, refresh])
        if "openid" in scope.split():
            claims = {"iss": self.issuer, "sub": USER["sub"], "aud": args.client_id, "azp": args.client_id,
                      "exp": now + 3600, "iat": now, "auth_time": auth_time, "sid": sid,
                      "at_hash": b64url(hashlib.sha256(access.encode()).digest()[:16])}
            if nonce:
                claims["nonce"] = nonce
            scopes = scope.split()
            if "profile" in scopes:
                claims.update(name=USER["name"], preferred_username=USER["preferred_username"])
            if "email" in scopes:
                claims.update(email=USER["email"], email_verified=USER["email_verified"])
            id_token = self.state.key.sign_jwt(claims)
            with self.state.lock:
                self.state.id_tokens[token_hash(id_token)] = {"sid": sid}  # a record, never shown
            response["id_token"] = id_token
        return response

    # -- device grant (RFC 8628, --device) -------------------------------------------------
    def device(self, query):
        params = self.form_params()
        if params is None:
            return
        self.count("device_requests")
        if params.get("client_id") != self.state.args.client_id:
            return self.send_json(401, {"error": "invalid_client"})
        device_code = secrets.token_urlsafe(32)
        user_code = "%04d-%04d" % (secrets.randbelow(10000), secrets.randbelow(10000))
        interval = self.state.args.interval
        with self.state.lock:
            self.state.devices[device_code] = {"user_code": user_code, "status": "pending", "interval": interval,
                                               "scope": params.get("scope", ""), "expires": time.time() + 600,
                                               "last_poll": None}
        self.send_json(200, {"device_code": device_code, "user_code": user_code,
                             "verification_uri": self.issuer + "/activate",
                             "verification_uri_complete": self.issuer + "/activate?" + urlencode({"user_code": user_code}),
                             "expires_in": 600, "interval": interval})

    def activate(self, query):
        self.send(200, b"<html><body><h1>Enter the code shown on your device</h1></body></html>", "text/html; charset=utf-8")

    def device_grant(self, params):
        now = time.time()
        with self.state.lock:
            device = self.state.devices.get(params.get("device_code", ""))
            if device is None:
                answer = "invalid_grant"
            else:
                early = device["last_poll"] is not None and now - device["last_poll"] < device["interval"] - 0.05
                device["last_poll"] = now
                if device["status"] == "expired" or device["expires"] < now:
                    answer = "expired_token"
                elif device["status"] == "denied":
                    answer = "access_denied"
                elif early:
                    device["interval"] += 5  # RFC 8628 §3.5: slow_down adds 5 seconds
                    answer = "slow_down"
                elif device["status"] == "pending":
                    answer = "authorization_pending"
                else:
                    answer = "approved"
                if answer in ("expired_token", "access_denied", "approved"):
                    del self.state.devices[params["device_code"]]
            self.events["polls"].append(answer)
        if answer != "approved":
            return self.token_error(400, answer)
        sid = secrets.token_urlsafe(12)
        with self.state.lock:
            self.state.sessions[sid] = {"active": True, "auth_time": int(now)}
        self.send_json(200, self.issue(device["scope"], sid, None, None))

    # -- userinfo, revocation, introspection -----------------------------------------------
    def userinfo(self, query):
        if self.command == "POST":
            self.drain()
        self.count("user_requests")
        with self.state.lock:
            info = self.state.access_tokens.get(self.bearer() or "")
        if info is None or info["expires"] < time.time():
            return self.bare(401, b"", {"WWW-Authenticate": 'Bearer realm="exact", error="invalid_token"'})
        scopes = info["scope"].split()
        answer = {"sub": USER["sub"]}
        if "profile" in scopes:
            answer.update(name=USER["name"], preferred_username=USER["preferred_username"])
        if "email" in scopes:
            answer.update(email=USER["email"], email_verified=USER["email_verified"])
        self.send_json(200, answer)

    def revoke(self, query):
        """client_secret_basic only; the public client has no secret: every request is refused."""
        self.drain()
        with self.state.lock:
            self.events["revocations_attempted"] += 1
            self.events["revocations_refused"] += 1
            if (self.headers.get("Authorization") or "").lower().startswith("basic "):
                self.events["revocations_with_basic"] += 1
        self.bare(401, b"", {"WWW-Authenticate": 'Basic realm="exact"'})

    def introspect(self, query):
        self.drain()
        with self.state.lock:
            self.events["introspections_attempted"] += 1
            self.events["introspections_refused"] += 1
        self.bare(401, b"", {"WWW-Authenticate": 'Basic realm="exact"'})

    # -- end session (RP-Initiated Logout 1.0; GET only) -----------------------------------
    def hint_session(self, hint: str):
        """The sid of an ID token this emulator issued to the client (checked against the record of
        issued tokens, the kid, iss and aud), else None. An expired one still counts (§2)."""
        try:
            head, payload, _ = hint.split(".")
            header, claims = b64url_json(head), b64url_json(payload)
        except (ValueError, TypeError):
            return None
        if not isinstance(header, dict) or not isinstance(claims, dict):
            return None
        aud = claims.get("aud")
        aud_ok = aud == self.state.args.client_id or (isinstance(aud, list) and self.state.args.client_id in aud)
        if header.get("alg") != "RS256" or header.get("kid") != self.state.key.kid \
                or claims.get("iss") != self.issuer or not aud_ok:
            return None
        with self.state.lock:
            record = self.state.id_tokens.get(token_hash(hint))
        return None if record is None else record["sid"]

    def end_session(self, query):
        args = self.state.args
        hint = query.get("id_token_hint")
        if not hint:
            # §2/§4: no hint: ask the user to confirm; nothing ends and nothing redirects.
            self.count("end_session_without_hint")
            page = ("<!DOCTYPE html><html><head><title>Confirm sign-out</title></head><body>"
                    "<h1>Confirm sign-out</h1><p>Do you want to sign out of %s?</p>"
                    "<p>Signing out needs a confirmation at the provider.</p></body></html>") % html.escape(self.issuer)
            return self.send(200, page.encode(), "text/html; charset=utf-8")
        self.count("end_session_with_hint")
        sid = self.hint_session(hint)
        target = query.get("post_logout_redirect_uri")
        if sid is None or ("client_id" in query and query["client_id"] != args.client_id):
            self.count("end_session_refused")
            return self.bare(400, b"Bad Request")
        if target is not None and target not in args.post_logout_redirect_uri:
            self.count("end_session_refused")
            with self.state.lock:
                self.events["post_logout_redirect_uris_refused"].append(target)
            return self.bare(400, b"Bad Request")
        with self.state.lock:
            session = self.state.sessions.get(sid)
            if session is not None and session["active"]:
                session["active"] = False
                self.events["sessions_ended"] += 1
        if target is not None:
            self.count("post_logout_redirects")
            return self.redirect(with_query(target, {"state": query["state"]} if "state" in query else {}))
        self.send(200, b"<!DOCTYPE html><html><body><h1>Signed out</h1></body></html>", "text/html; charset=utf-8")

    def end_session_post(self, query):
        self.drain()
        self.count("end_session_post_refused")
        self.bare(405, b"", {"Allow": "GET"})


ROUTES = {
    "/.well-known/openid-configuration": {"GET": ExactHandler.discovery},
    "/jwks": {"GET": ExactHandler.jwks},
    "/par": {"POST": ExactHandler.par},
    "/authorize": {"GET": ExactHandler.authorize},
    "/token": {"POST": ExactHandler.token},
    "/userinfo": {"GET": ExactHandler.userinfo, "POST": ExactHandler.userinfo},
    "/revoke": {"POST": ExactHandler.revoke},
    "/introspect": {"POST": ExactHandler.introspect},
    "/logout": {"GET": ExactHandler.end_session, "POST": ExactHandler.end_session_post},
    "/device": {"POST": ExactHandler.device},
    "/activate": {"GET": ExactHandler.activate},
}


def prepare(state, workdir: str):
    """This mode's stores and its own event counters (replacing the shared ones)."""
    state.pushed = {}  # request_uri -> pushed parameters
    state.sessions = {}  # sid -> {"active", "auth_time"}
    state.id_tokens = {}  # SHA-256 of an issued ID token -> {"sid"} (never shown)
    state.events = {
        "authorize_count": 0, "authorize_requests": [], "authorize_refused": 0,
        "redirect_uris_refused": [],
        "par_count": 0, "par_refused": 0,
        "token_requests": {}, "token_errors": {}, "code_reuse": 0, "refreshes": 0, "refresh_reuse": 0,
        "device_requests": 0, "polls": [], "user_requests": 0,
        "revocations_attempted": 0, "revocations_refused": 0, "revocations_with_basic": 0,
        "introspections_attempted": 0, "introspections_refused": 0,
        "end_session_with_hint": 0, "end_session_without_hint": 0, "end_session_refused": 0,
        "end_session_post_refused": 0, "sessions_ended": 0, "post_logout_redirects": 0,
        "post_logout_redirect_uris_refused": [],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description="exact-redirect OpenID provider emulator")
    parser.add_argument("provider", choices=["exact"])
    parser.add_argument("--client-id", default=CLIENT_ID, help="the public client's id (no secret)")
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this process is gone")
    parser.add_argument("--redirect-uri", action="append", default=None,
                        help="a registered redirect URI, compared exactly "
                             "(repeatable; default http://127.0.0.1:8765/callback)")
    parser.add_argument("--post-logout-redirect-uri", action="append", default=None,
                        help="a registered post-logout redirect URI, compared exactly "
                             "(repeatable; default http://127.0.0.1:8765/logout)")
    parser.add_argument("--par", action="store_true", help="pushed authorization requests (RFC 9126), required")
    parser.add_argument("--device", action="store_true", help="the device authorization grant (RFC 8628) at /device")
    parser.add_argument("--interval", type=int, default=1, help="device polling interval (s)")
    parser.add_argument("--expires-in", type=int, default=3600, help="access token lifetime (s)")
    parser.add_argument("--bare-refresh-error", action="store_true",
                        help="every refresh answers HTTP 400 with an empty body")
    args = parser.parse_args(argv)
    args.redirect_uri = args.redirect_uri or ["http://127.0.0.1:8765/callback"]
    args.post_logout_redirect_uri = args.post_logout_redirect_uri or ["http://127.0.0.1:8765/logout"]
    serve(args, ExactHandler, RSAKey, lambda base_url: {"issuer": base_url}, prepare)


if __name__ == "__main__":
    main()
