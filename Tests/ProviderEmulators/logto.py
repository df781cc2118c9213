"""Logto emulator for the authdeck tests (standard library; RS256 through `openssl`, by
emulator.py's RSAKey; Logto's default signing key is EC P-384, an RSA key is one of its options).
Facts (Logto docs, checked with their pages):
- OIDC issuer `{endpoint}/oidc`; discovery, `/oidc/jwks`, `/oidc/auth`, `/oidc/token`, `/oidc/me`
  (userinfo), `/oidc/token/revocation`, `/oidc/session/end` (post_logout_redirect_uri).
  https://docs.logto.io/integrate-logto/ (endpoints), https://docs.logto.io/quick-starts/swift
- API resources (RFC 8707): `resource` parameters in the authorization request; the access token
  for one resource comes from a refresh_token grant with `resource=<indicator>`: a JWT whose `aud`
  is the indicator; without `resource` the access token is opaque (userinfo only).
  https://docs.logto.io/authorization/global-api-resources
- Organization tokens: scope `urn:logto:scope:organizations`, then a refresh_token grant with
  `organization_id` → a JWT with `aud` `urn:logto:organization:{id}`.
  https://docs.logto.io/authorization/organization-template
- Userinfo extras by scope: `custom_data`, `identities`, `organizations`, `roles`;
  `created_at` / `updated_at` in milliseconds since the epoch (the user's profile claims).
- Refresh tokens rotate (oidc-provider's rotation); a spent one is `invalid_grant`.
- `offline_access` is dropped from the grant unless the authorization request carries
  `prompt=consent` (node-oidc-provider's rule, OIDC Core §11; Logto's SDKs add `prompt=consent`
  whenever they ask for `offline_access`): no refresh token then.
  https://github.com/panva/node-oidc-provider (lib/actions/authorization/check_scope.js),
  https://github.com/logto-io/js (packages/client: `prompt: 'consent'` with offline_access)
- A code exchange with `resource` answers that resource's JWT (audience-bound), which `/oidc/me`
  refuses (401 `invalid_token`: userinfo takes only the opaque token); Logto's SDKs leave
  `resource` out of the code exchange and ask for each resource's JWT by refresh.
- Post-logout redirect URIs are compared exactly with the registered ones (no loopback port
  exception: RFC 8252 §7.3 is about the sign-in redirect); the registered one here is
  `--post-logout-redirect-uri` (default `http://127.0.0.1/logout-callback`). Any other is refused
  with 400 `invalid_request`. Without one the session ends on a "signed out" page.

Test controls: GET /_emulator/state (counts and flags, never token values).
"""
import argparse
import hashlib
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

from emulator import Handler, RSAKey, b64url, serve

SUBJECT = "u7x1k9p2q4m6"
CREATED_AT_MS = 1700000000123
UPDATED_AT_MS = 1760000000456
ORGANIZATIONS = ["org-acme", "org-globex"]


class LogtoHandler(Handler):
    def route(self, method: str):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path == "/_emulator/state" and method == "GET":
            with self.state.lock:
                return self.send_json(200, self.state.events)
        handler = LOGTO_ROUTES.get((method, url.path))
        if handler is None:
            return self.send_json(404, {"error": "not_found"})
        handler(self, query)

    @property
    def issuer(self) -> str:
        return self.state.base_url + "/oidc"

    def note(self, name: str, value):
        with self.state.lock:
            self.state.events.setdefault(name, []).append(value)

    def discovery(self, query):
        issuer = self.issuer
        self.send_json(200, {
            "issuer": issuer, "authorization_endpoint": issuer + "/auth", "token_endpoint": issuer + "/token",
            "userinfo_endpoint": issuer + "/me", "jwks_uri": issuer + "/jwks",
            "revocation_endpoint": issuer + "/token/revocation", "end_session_endpoint": issuer + "/session/end",
            "response_types_supported": ["code"], "subject_types_supported": ["public"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"], "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "offline_access", "profile", "email", "custom_data", "identities", "roles",
                                 "urn:logto:scope:organizations", "urn:logto:scope:organization_roles"]})

    def jwks(self, query):
        self.send_json(200, {"keys": [self.state.key.jwk]})

    # -- authorize: auto-approve, PKCE S256 required ---------------------------------------
    def authorize(self, query):
        # Several `resource` parameters: parse_qs keeps them all.
        resources = parse_qs(urlsplit(self.path).query).get("resource", [])
        self.note("authorize_requests", {"resources": resources, "scope": query.get("scope"), "prompt": query.get("prompt"),
                                         "code_challenge_method": query.get("code_challenge_method")})
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.state.args.client_id or query.get("code_challenge_method") != "S256":
            return self.send_json(400, {"error": "invalid_request"})
        scopes = query.get("scope", "").split()
        if "consent" not in query.get("prompt", "").split():
            # node-oidc-provider: offline_access without prompt=consent is ignored (no refresh token).
            scopes = [s for s in scopes if s != "offline_access"]
        code = secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.codes[code] = {"redirect_uri": redirect_uri, "challenge": query.get("code_challenge"),
                                      "nonce": query.get("nonce"), "scope": " ".join(scopes),
                                      "resources": resources, "expires": time.time() + 60}
        params = {"code": code, "state": query.get("state", "")}
        self.redirect(redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(params))

    # -- token -----------------------------------------------------------------------------
    def token(self, query):
        params = self.body_params()
        grant = params.get("grant_type")
        self.note("token_requests", {"grant_type": grant, "resource": params.get("resource"),
                                     "organization_id": params.get("organization_id"), "scope": params.get("scope")})
        if params.get("client_id") != self.state.args.client_id:
            return self.send_json(401, {"error": "invalid_client"})
        if grant == "authorization_code":
            with self.state.lock:
                entry = self.state.codes.pop(params.get("code", ""), None)
            if entry is None or entry["expires"] < time.time() or params.get("redirect_uri") != entry["redirect_uri"]:
                return self.send_json(400, {"error": "invalid_grant"})
            if b64url(hashlib.sha256(params.get("code_verifier", "").encode()).digest()) != entry["challenge"]:
                return self.send_json(400, {"error": "invalid_grant", "error_description": "PKCE verification failed"})
            return self.send_json(200, self.issue(entry, params, with_id_token=True))
        if grant == "refresh_token":
            resource, organization = params.get("resource"), params.get("organization_id")
            with self.state.lock:
                entry = self.state.refresh_tokens.get(params.get("refresh_token", ""))
            if entry is None:
                return self.send_json(400, {"error": "invalid_grant", "error_description": "grant request is invalid"})
            # A target that was not granted is refused before the refresh token is spent.
            if resource and resource not in entry["resources"]:
                return self.send_json(400, {"error": "invalid_target", "error_description": "resource indicator is not granted"})
            if organization and ("urn:logto:scope:organizations" not in entry["scope"].split() or organization not in ORGANIZATIONS):
                return self.send_json(403, {"error": "invalid_target", "error_description": "organization is not granted"})
            with self.state.lock:
                if self.state.refresh_tokens.pop(params.get("refresh_token", ""), None) is None:
                    return self.send_json(400, {"error": "invalid_grant", "error_description": "grant request is invalid"})
                self.state.events["refreshes"] = self.state.events.get("refreshes", 0) + 1
            return self.send_json(200, self.issue(entry, params, with_id_token="openid" in entry["scope"].split()))
        return self.send_json(400, {"error": "unsupported_grant_type"})

    def issue(self, entry: dict, params: dict, with_id_token: bool) -> dict:
        now = int(time.time())
        lifetime = self.state.args.expires_in
        resource, organization = params.get("resource"), params.get("organization_id")
        if resource or (params.get("grant_type") == "refresh_token" and organization):
            audience = resource or "urn:logto:organization:" + organization
            claims = {"iss": self.issuer, "sub": SUBJECT, "aud": audience, "iat": now, "exp": now + lifetime,
                      "client_id": self.state.args.client_id, "jti": secrets.token_urlsafe(12),
                      "scope": " ".join(s for s in entry["scope"].split() if ":" in s and not s.startswith("urn:"))}
            if organization:
                claims["organization_id"] = organization
            access = self.state.key.sign_jwt(claims)
        else:
            access = secrets.token_urlsafe(32)  # opaque: userinfo only
        with self.state.lock:
            self.state.access_tokens[access] = {"scope": entry["scope"], "audience_bound": access.count(".") == 2}
        response = {"access_token": access, "token_type": "Bearer", "expires_in": lifetime, "scope": entry["scope"]}
        if "offline_access" in entry["scope"].split():
            refresh = secrets.token_urlsafe(32)
            with self.state.lock:
                self.state.refresh_tokens[refresh] = {"scope": entry["scope"], "resources": entry["resources"],
                                                      "nonce": None}
            response["refresh_token"] = refresh
        if with_id_token:
            claims = {"iss": self.issuer, "sub": SUBJECT, "aud": self.state.args.client_id, "iat": now,
                      "exp": now + 3600, "name": "Lee Logto", "username": "lee", "picture": None,
                      "created_at": CREATED_AT_MS, "updated_at": UPDATED_AT_MS}
            if entry.get("nonce"):
                claims["nonce"] = entry["nonce"]
            response["id_token"] = self.state.key.sign_jwt(claims)
        return response

    # -- userinfo --------------------------------------------------------------------------
    def userinfo(self, query):
        with self.state.lock:
            info = self.state.access_tokens.get(self.bearer() or "")
            self.state.events["user_requests"] = self.state.events.get("user_requests", 0) + 1
        if info is None or info["audience_bound"]:
            # A resource's JWT is not for userinfo (Logto: 401 invalid_token).
            return self.send(401, b"", "application/json", {"WWW-Authenticate": 'Bearer error="invalid_token"'})
        scopes = info["scope"].split()
        answer = {"sub": SUBJECT, "name": "Lee Logto", "username": "lee", "picture": None,
                  "created_at": CREATED_AT_MS, "updated_at": UPDATED_AT_MS}
        if "email" in scopes:
            answer.update({"email": "lee@example.test", "email_verified": True})
        if "custom_data" in scopes:
            answer["custom_data"] = {"plan": "pro", "seats": 5}
        if "identities" in scopes:
            answer["identities"] = {"github": {"userId": "583231", "details": {"name": "Lee"}}}
        if "roles" in scopes:
            answer["roles"] = ["admin", "billing"]
        if "urn:logto:scope:organizations" in scopes:
            answer["organizations"] = ORGANIZATIONS
        self.send_json(200, answer)

    # -- revocation and end session --------------------------------------------------------
    def revoke(self, query):
        params = self.body_params()
        token = params.get("token", "")
        with self.state.lock:
            kind = "refresh_token" if token in self.state.refresh_tokens else (
                "access_token" if token in self.state.access_tokens else "unknown")
            self.state.events.setdefault("revocation_requests", []).append(
                {"kind": kind, "client_id_matches": params.get("client_id") == self.state.args.client_id})
            if self.state.refresh_tokens.pop(token, None) is not None:
                self.state.events["revoked_refresh_tokens"] = self.state.events.get("revoked_refresh_tokens", 0) + 1
            self.state.access_tokens.pop(token, None)
        self.send(200, b"", "application/json")

    def end_session(self, query):
        target = query.get("post_logout_redirect_uri")
        self.note("end_session_requests", {"has_post_logout_redirect_uri": target is not None,
                                           "client_id_matches": query.get("client_id") == self.state.args.client_id,
                                           "has_id_token_hint": "id_token_hint" in query})
        if target is not None and target != self.state.args.post_logout_redirect_uri:
            # Exact comparison with the registered URI (oidc-provider's post_logout_redirect_uri check).
            return self.send_json(400, {"error": "invalid_request",
                                        "error_description": "post_logout_redirect_uri not registered"})
        with self.state.lock:
            self.state.events["sessions_ended"] = self.state.events.get("sessions_ended", 0) + 1
        if target:
            params = {"state": query["state"]} if "state" in query else {}
            return self.redirect(target + (("&" if "?" in target else "?") + urlencode(params) if params else ""))
        self.send(200, b"<html><body>Signed out.</body></html>", "text/html; charset=utf-8")


LOGTO_ROUTES = {
    ("GET", "/oidc/.well-known/openid-configuration"): LogtoHandler.discovery,
    ("GET", "/oidc/jwks"): LogtoHandler.jwks,
    ("GET", "/oidc/auth"): LogtoHandler.authorize,
    ("POST", "/oidc/token"): LogtoHandler.token,
    ("GET", "/oidc/me"): LogtoHandler.userinfo,
    ("POST", "/oidc/token/revocation"): LogtoHandler.revoke,
    ("GET", "/oidc/session/end"): LogtoHandler.end_session,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Logto emulator")
    parser.add_argument("provider", choices=["logto"])
    parser.add_argument("--client-id", default="logto-native-app")
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this process is gone")
    parser.add_argument("--expires-in", type=int, default=3600, help="access token lifetime (s)")
    parser.add_argument("--post-logout-redirect-uri", default="http://127.0.0.1/logout-callback",
                        help="the registered post sign-out redirect URI (compared exactly)")
    args = parser.parse_args(argv)
    serve(args, LogtoHandler, RSAKey, lambda base_url: {"issuer": base_url + "/oidc"})


if __name__ == "__main__":
    main()
