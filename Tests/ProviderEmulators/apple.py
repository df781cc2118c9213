"""Sign in with Apple emulator for the authdeck tests (standard library; RS256 through `openssl`,
by emulator.py's RSAKey). Facts (checked against Apple's documentation):
- Sign in with Apple REST API, "Generate and validate tokens" (POST /auth/token): form fields
  client_id, client_secret, code, grant_type, redirect_uri (only when the authorization request had
  one); a refresh_token grant answers access_token, token_type, expires_in and id_token, no new
  refresh token. https://developer.apple.com/documentation/signinwithapplerestapi/generate-and-validate-tokens
- "Revoke tokens" (POST /auth/revoke): client_id, client_secret, token, token_type_hint; HTTP 200.
- "Fetch Apple's public key for verifying token signature" (GET /auth/keys): a JWKS of RS256 keys.
- Sign in with Apple JS, "Incorporating Sign in with Apple into other platforms": with the `name` or
  `email` scope, response_mode must be form_post; the `user` form field (JSON: name.firstName,
  name.lastName, email) comes only on the user's first authorization.
- The identity token (Apple, "Authenticating users with Sign in with Apple" / id_token): iss
  https://appleid.apple.com, sub, aud = client_id, iat, exp, nonce (present only if sent; native
  apps send the SHA-256 hex of a raw nonce), nonce_supported, email, email_verified and
  is_private_email (a boolean or the string "true"/"false"), real_user_status (0, 1, 2).
- The client secret is an ES256 JWT: iss = team id, sub = client id, aud = https://appleid.apple.com
  ("Creating a client secret"); checked here by decoding only (no signature check).

The issuer is the emulator's base URL (Apple's is https://appleid.apple.com): discovery at
/.well-known/openid-configuration, as Apple publishes one.

Test controls:
  POST /_emulator/app-authorize   the native app's AuthenticationServices answer: form field
                                  `raw_nonce` (hashed with SHA-256 hex into the token's nonce, as
                                  the app does) → JSON {code, id_token, user (first time only)}
  GET  /_emulator/state           counts and flags (never token values)
"""
import argparse
import base64
import hashlib
import html
import json
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

from emulator import Handler, RSAKey, b64url, serve

APPLE_AUDIENCE = "https://appleid.apple.com"
SUBJECT = "001234.5d3f0c7e9b2a4f6e8d1c3b5a7f9e0d2c.0815"
EMAIL = "k7x2q9m4pd@privaterelay.appleid.com"
NAME = {"firstName": "Jane", "lastName": "Appleseed"}


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class AppleHandler(Handler):
    # -- routing ---------------------------------------------------------------------------
    def route(self, method: str):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path == "/_emulator/state" and method == "GET":
            with self.state.lock:
                return self.send_json(200, self.state.events)
        handler = APPLE_ROUTES.get((method, url.path))
        if handler is None:
            return self.send_json(404, {"error": "not_found"})
        handler(self, query)

    @property
    def events(self) -> dict:
        return self.state.events

    def count(self, name: str):
        with self.state.lock:
            self.events[name] = self.events.get(name, 0) + 1

    # -- documents -------------------------------------------------------------------------
    def discovery(self, query):
        base = self.state.base_url
        self.send_json(200, {
            "issuer": base, "authorization_endpoint": base + "/auth/authorize",
            "token_endpoint": base + "/auth/token", "revocation_endpoint": base + "/auth/revoke",
            "jwks_uri": base + "/auth/keys", "response_types_supported": ["code", "code id_token"],
            "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": ["pairwise"], "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "name"],
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "claims_supported": ["aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss",
                                 "nonce", "nonce_supported", "real_user_status", "sub", "transfer_sub"]})

    def keys(self, query):
        self.send_json(200, {"keys": [self.state.key.jwk]})

    # -- identity tokens -------------------------------------------------------------------
    def boolean(self, value: bool):
        """Apple sends email_verified / is_private_email as booleans on some answers and as the
        strings "true"/"false" on others: alternate per token (the first one strings)."""
        with self.state.lock:
            issued = self.events.get("id_tokens", 0)
        mode = self.state.args.booleans
        as_string = mode == "strings" or (mode == "alternate" and issued % 2 == 0)
        return ("true" if value else "false") if as_string else value

    def identity_token(self, nonce, with_email: bool, from_app: bool, auth_time: int) -> str:
        now = int(time.time())
        claims = {"iss": self.state.base_url, "aud": self.state.args.client_id, "exp": now + 600, "iat": now,
                  "sub": SUBJECT, "auth_time": auth_time, "nonce_supported": True}
        if nonce is not None:
            claims["nonce"] = nonce
        if with_email:
            claims.update({"email": EMAIL, "email_verified": self.boolean(True), "is_private_email": self.boolean(True)})
            with self.state.lock:
                self.events.setdefault("boolean_kinds", []).append(type(claims["email_verified"]).__name__)
        if from_app:
            claims["real_user_status"] = 2  # LikelyReal; only on the app's first token
        self.count("id_tokens")
        return self.state.key.sign_jwt(claims)

    def new_code(self, redirect_uri, nonce, query) -> tuple:
        """An authorization code (single use, 5 minutes) and whether this is the first one."""
        code = "c" + secrets.token_hex(16) + ".0.abcd." + secrets.token_urlsafe(12)
        with self.state.lock:
            first = not self.state.args.first_done
            self.state.args.first_done = True
            self.state.codes[code] = {"redirect_uri": redirect_uri, "nonce": nonce, "first": first, "auth_time": int(time.time()),
                                      "expires": time.time() + 300,
                                      "challenge": query.get("code_challenge"), "scope": query.get("scope", "")}
        return code, first

    # -- /auth/authorize (web flow) --------------------------------------------------------
    def authorize(self, query):
        args = self.state.args
        redirect_uri = query.get("redirect_uri", "")
        scopes = query.get("scope", "").split()
        with self.state.lock:
            self.events.setdefault("authorize_requests", []).append(
                {"response_mode": query.get("response_mode"), "has_state": "state" in query,
                 "has_nonce": "nonce" in query, "scope": query.get("scope")})
        if query.get("client_id") != args.client_id or query.get("response_type") != "code":
            return self.send(400, b"<html><body>invalid_request</body></html>", "text/html; charset=utf-8")
        target = urlsplit(redirect_uri)
        loopback = target.scheme == "http" and target.hostname in ("127.0.0.1", "::1")
        if target.scheme != "https" and not (loopback and args.accept_loopback):
            # Apple: only registered https redirect URIs (a relay forwards to the loopback listener).
            return self.send(400, b"<html><body>invalid_request: redirect_uri</body></html>", "text/html; charset=utf-8")
        if ({"name", "email"} & set(scopes)) and query.get("response_mode") != "form_post":
            return self.send(400, b"<html><body>response_mode must be form_post</body></html>", "text/html; charset=utf-8")
        code, first = self.new_code(redirect_uri, query.get("nonce"), query)
        fields = {"code": code, "state": query.get("state", "")}
        if first and scopes:
            fields["user"] = json.dumps({"name": NAME, "email": EMAIL})
        if query.get("response_mode") == "form_post":
            inputs = "".join('<input type="hidden" name="%s" value="%s">' % (html.escape(k), html.escape(v))
                             for k, v in fields.items())
            page = ('<html><body onload="document.forms[0].submit()"><form method="post" action="%s">%s'
                    '</form></body></html>') % (html.escape(redirect_uri), inputs)
            return self.send(200, page.encode(), "text/html; charset=utf-8")
        self.redirect(redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(fields))

    # -- the native app (AuthenticationServices) stand-in -----------------------------------
    def app_authorize(self, query):
        params = self.body_params()
        raw = params.get("raw_nonce")
        nonce = hashlib.sha256(raw.encode()).hexdigest() if raw else None
        code, first = self.new_code(None, nonce, {"scope": "name email"})
        answer = {"code": code, "id_token": self.identity_token(nonce, with_email=first, from_app=True, auth_time=int(time.time()))}
        if first:
            answer["user"] = json.dumps({"name": NAME, "email": EMAIL})
        self.send_json(200, answer)

    # -- /auth/token -----------------------------------------------------------------------
    def client_error(self, params) -> bool:
        """invalid_client unless client_id matches and client_secret is a JWT with Apple's claims
        (iss team id, sub client id, aud https://appleid.apple.com; decoded, signature not checked)."""
        args = self.state.args
        if params.get("client_id") != args.client_id:
            return True
        parts = params.get("client_secret", "").split(".")
        try:
            claims = json.loads(b64url_decode(parts[1])) if len(parts) == 3 else {}
        except ValueError:
            claims = {}
        return not (claims.get("iss") == args.team_id and claims.get("sub") == args.client_id
                    and claims.get("aud") == APPLE_AUDIENCE)

    def token(self, query):
        params = self.body_params()
        grant = params.get("grant_type")
        with self.state.lock:
            self.events.setdefault("token_requests", []).append(
                {"grant_type": grant, "has_redirect_uri": "redirect_uri" in params,
                 "has_code_verifier": "code_verifier" in params})
        if self.client_error(params):
            return self.send_json(400, {"error": "invalid_client"})
        now = int(time.time())
        if grant == "authorization_code":
            with self.state.lock:
                entry = self.state.codes.pop(params.get("code", ""), None)
            if entry is None or entry["expires"] < time.time():
                return self.send_json(400, {"error": "invalid_grant"})
            if entry["redirect_uri"] is not None and params.get("redirect_uri") != entry["redirect_uri"]:
                return self.send_json(400, {"error": "invalid_grant"})
            if entry["challenge"] and b64url(hashlib.sha256(params.get("code_verifier", "").encode()).digest()) != entry["challenge"]:
                return self.send_json(400, {"error": "invalid_grant"})
            refresh = "r" + secrets.token_hex(16) + ".0.abcd." + secrets.token_urlsafe(16)
            with self.state.lock:
                self.state.refresh_tokens[refresh] = {"active": True, "auth_time": entry["auth_time"]}
            return self.send_json(200, {
                "access_token": "a" + secrets.token_hex(16) + ".0.abcd." + secrets.token_urlsafe(16),
                "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh,
                "id_token": self.identity_token(entry["nonce"], with_email=entry["first"], from_app=False,
                                               auth_time=entry["auth_time"])})
        if grant == "refresh_token":
            with self.state.lock:
                entry = self.state.refresh_tokens.get(params.get("refresh_token", ""))
                ok = entry is not None and entry["active"]
                if ok:
                    self.events["refreshes"] = self.events.get("refreshes", 0) + 1
            if not ok:
                return self.send_json(400, {"error": "invalid_grant"})
            # No new refresh token (Apple keeps the one from the code exchange); no email.
            return self.send_json(200, {
                "access_token": "a" + secrets.token_hex(16) + ".0.abcd." + secrets.token_urlsafe(16),
                "token_type": "Bearer", "expires_in": 3600, "id_token": self.identity_token(None, False, False, entry["auth_time"])})
        return self.send_json(400, {"error": "unsupported_grant_type"})

    # -- /auth/revoke ----------------------------------------------------------------------
    def revoke(self, query):
        params = self.body_params()
        with self.state.lock:
            entry = self.state.refresh_tokens.get(params.get("token", ""))
            self.events.setdefault("revocation_requests", []).append(
                {"kind": "refresh_token" if entry is not None else "other",
                 "token_type_hint": params.get("token_type_hint"), "has_client_secret": "client_secret" in params})
        if self.client_error(params):
            return self.send_json(400, {"error": "invalid_client"})
        with self.state.lock:
            if entry is not None and entry["active"]:
                entry["active"] = False
                self.events["revoked_refresh_tokens"] = self.events.get("revoked_refresh_tokens", 0) + 1
        self.send(200, b"", "application/json")


APPLE_ROUTES = {
    ("GET", "/.well-known/openid-configuration"): AppleHandler.discovery,
    ("GET", "/auth/keys"): AppleHandler.keys,
    ("GET", "/auth/authorize"): AppleHandler.authorize,
    ("POST", "/auth/token"): AppleHandler.token,
    ("POST", "/auth/revoke"): AppleHandler.revoke,
    ("POST", "/_emulator/app-authorize"): AppleHandler.app_authorize,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Sign in with Apple emulator")
    parser.add_argument("provider", choices=["apple"])
    parser.add_argument("--client-id", default="com.example.authdeck.web", help="the Services ID")
    parser.add_argument("--team-id", default="A1B2C3D4E5", help="the client secret's expected iss")
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this process is gone")
    parser.add_argument("--booleans", choices=["alternate", "strings", "booleans"], default="alternate",
                        help="email_verified / is_private_email as strings, booleans, or alternating")
    parser.add_argument("--accept-loopback", action="store_true",
                        help="accept an http loopback redirect_uri (stands in for a relay on a verified domain)")
    args = parser.parse_args(argv)
    args.first_done = False
    serve(args, AppleHandler, RSAKey, lambda base_url: {"issuer": base_url, "team_id": args.team_id})


if __name__ == "__main__":
    main()
