"""OIDC provider emulators for the other presets (Google, Microsoft Entra ID, Okta, Keycloak,
GitLab): discovery, authorization code + PKCE (auto-approved), token (code and refresh), JWKS,
userinfo, revocation, and each provider's documented quirk. Reuses emulator.py's helpers.

  google    issuer = base; a refresh answer carries no refresh_token (the old one stays valid);
            records access_type / prompt; the token endpoint wants the desktop client secret;
            the device endpoint answers `verification_url` (not `verification_uri`).
  entra     issuer = base/{tenant}/v2.0; for common/organizations discovery holds the literal
            {tenantid} and tokens the tenant's tid; JWKS keys without alg; expires_in a string.
  okta      issuer = base/oauth2/{server} (a custom authorization server, default "default").
  keycloak  issuer = base/realms/{realm}; refresh_expires_in; realm_access / resource_access
            roles; the JWKS lists an enc key with the same kid before the sig key.
  gitlab    issuer = base; every refresh rotates the refresh token (a reused one: invalid_grant).
"""
import base64
import hashlib
import os
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

from emulator import Handler, RSAKey, b64url

MODES = ("google", "entra", "okta", "keycloak", "gitlab")
ENTRA_TID = "9188040d-6c67-4c5b-b112-36a304b66dad"
USER = {"sub": "user-1234", "name": "Pat Example", "email": "pat@example.test", "email_verified": True,
        "preferred_username": "pat"}


def issuer_path(args) -> str:
    return {"google": "", "gitlab": "", "entra": "/%s/v2.0" % args.tenant,
            "okta": "/oauth2/%s" % args.tenant, "keycloak": "/realms/%s" % args.tenant}[args.provider]


class OIDCHandler(Handler):
    @property
    def mode(self) -> str:
        return self.state.args.provider

    @property
    def root(self) -> str:
        return self.state.base_url + issuer_path(self.state.args)

    def token_issuer(self) -> str:
        if self.mode == "entra":
            return self.state.base_url + "/%s/v2.0" % ENTRA_TID
        return self.root

    def route(self, method: str):
        url = urlsplit(self.path)
        if url.path.startswith("/_emulator/"):
            return super().route(method)
        prefix = issuer_path(self.state.args)
        if not url.path.startswith(prefix):
            return self.send_json(404, {"error": "not_found"})
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        handler = {("GET", "/.well-known/openid-configuration"): OIDCHandler.discovery,
                   ("GET", "/jwks"): OIDCHandler.jwks, ("GET", "/authorize"): OIDCHandler.authorize,
                   ("POST", "/token"): OIDCHandler.token, ("GET", "/userinfo"): OIDCHandler.userinfo,
                   ("POST", "/revoke"): OIDCHandler.revoke, ("POST", "/device"): OIDCHandler.device}.get((method, url.path[len(prefix):]))
        if handler is None:
            return self.send_json(404, {"error": "not_found"})
        handler(self, query)

    def discovery(self, query):
        root = self.root
        issuer = root
        if self.mode == "entra" and self.state.args.tenant in ("common", "organizations"):
            issuer = self.state.base_url + "/{tenantid}/v2.0"
        self.send_json(200, {
            "issuer": issuer, "authorization_endpoint": root + "/authorize", "token_endpoint": root + "/token",
            "jwks_uri": root + "/jwks", "userinfo_endpoint": root + "/userinfo", "revocation_endpoint": root + "/revoke",
            "device_authorization_endpoint": root + "/device",
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
        })

    def jwks(self, query):
        sig = dict(self.state.key.jwk)
        if self.mode == "entra":
            sig.pop("alg", None)  # Entra's keys carry no alg
        keys = [sig]
        if self.mode == "keycloak":
            enc = dict(self.state.enc_key.jwk, use="enc", alg="RSA-OAEP", kid=sig["kid"])
            keys = [enc, sig]  # the same kid twice; only the sig key verifies
        self.send_json(200, {"keys": keys})

    def authorize(self, query):
        with self.state.lock:
            self.state.events["authorize_requests"].append(
                {"access_type": query.get("access_type"), "prompt": query.get("prompt"), "scope": query.get("scope"),
                 "code_challenge_method": query.get("code_challenge_method")})
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.state.args.client_id or urlsplit(redirect_uri).hostname != "127.0.0.1" \
                or query.get("code_challenge_method") != "S256":
            return self.send_json(400, {"error": "invalid_request"})
        code = secrets.token_urlsafe(24)
        with self.state.lock:
            self.state.codes[code] = {"redirect_uri": redirect_uri, "challenge": query.get("code_challenge", ""),
                                      "scope": query.get("scope", ""), "nonce": query.get("nonce")}
        params = {"code": code, "state": query.get("state", "")}
        self.redirect(redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(params))

    def device(self, query):
        """RFC 8628 §3.2; Google names the page `verification_url`."""
        params = self.body_params()
        device_code, user_code = secrets.token_hex(20), "%04d-%04d" % (secrets.randbelow(10000), secrets.randbelow(10000))
        with self.state.lock:
            self.state.devices[device_code] = {"user_code": user_code, "status": "pending", "scope": params.get("scope", "")}
        page = "verification_url" if self.mode == "google" else "verification_uri"
        answer = {"device_code": device_code, "user_code": user_code, page: self.state.base_url + "/device",
                  "expires_in": 1800, "interval": 1}
        complete = self.state.args.verification_uri_complete
        if complete != "none":
            answer["verification_uri_complete"] = ("" if complete == "relative" else self.state.base_url) \
                + "/device?" + urlencode({"user_code": user_code})
        self.send_json(200, answer)

    def device_token(self, params):
        with self.state.lock:
            device = self.state.devices.get(params.get("device_code", ""))
            self.state.events["polls"].append({"answer": None if device is None else device["status"]})
        if device is None:
            return self.send_json(400, {"error": "invalid_grant"})
        if device["status"] == "pending":
            return self.send_json(428, {"error": "authorization_pending"})
        if device["status"] != "approved":
            return self.send_json(403, {"error": "access_denied"})
        with self.state.lock:
            del self.state.devices[params["device_code"]]
        return self.send_json(200, self.issue(device["scope"], None, new_refresh=True))

    def client_ok(self, params) -> bool:
        if self.mode != "google":
            return params.get("client_id", self.state.args.client_id) == self.state.args.client_id
        basic = "Basic " + base64.b64encode(("%s:%s" % (self.state.args.client_id, self.state.args.client_secret)).encode()).decode()
        return self.headers.get("Authorization") == basic or params.get("client_secret") == self.state.args.client_secret

    def token(self, query):
        params = self.body_params()
        grant = params.get("grant_type")
        with self.state.lock:
            self.state.events["token_requests"].append({"grant_type": grant})
        if not self.client_ok(params):
            return self.send_json(401, {"error": "invalid_client"})
        if grant == "authorization_code":
            with self.state.lock:
                entry = self.state.codes.pop(params.get("code", ""), None)
            challenge = b64url(hashlib.sha256(params.get("code_verifier", "").encode()).digest())
            if entry is None or challenge != entry["challenge"] or params.get("redirect_uri") != entry["redirect_uri"]:
                return self.send_json(400, {"error": "invalid_grant"})
            return self.send_json(200, self.issue(entry["scope"], entry["nonce"], new_refresh=True))
        if grant == "refresh_token":
            with self.state.lock:
                entry = self.state.refresh_tokens.get(params.get("refresh_token", ""))
                if entry is None or not entry["active"]:
                    if entry is not None:
                        self.state.events["refresh_reuse"] += 1
                    return self.send_json(400, {"error": "invalid_grant"})
                self.state.events["refreshes"] += 1
                rotate = self.mode != "google"
                if self.mode == "gitlab":
                    entry["active"] = False  # GitLab rotates on every refresh
            return self.send_json(200, self.issue(entry["scope"], None, new_refresh=rotate))
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            return self.device_token(params)
        return self.send_json(400, {"error": "unsupported_grant_type"})

    def issue(self, scope: str, nonce, new_refresh: bool) -> dict:
        now = int(time.time())
        access = secrets.token_urlsafe(24)
        expires_in = 3599
        response = {"token_type": "Bearer", "access_token": access, "scope": scope,
                    "expires_in": str(expires_in) if self.mode == "entra" else expires_in}
        with self.state.lock:
            self.state.access_tokens[access] = {"scope": scope}
        claims = dict(USER, iss=self.token_issuer(), aud=self.state.args.client_id, iat=now, exp=now + 3600)
        if nonce:
            claims["nonce"] = nonce
        if self.mode == "entra":
            claims["tid"] = ENTRA_TID
        if self.mode == "keycloak":
            claims["realm_access"] = {"roles": ["offline_access", "staff"]}
            claims["resource_access"] = {self.state.args.client_id: {"roles": ["editor"]}}
            response["refresh_expires_in"] = 1800
        if "openid" in scope.split():
            response["id_token"] = self.state.key.sign_jwt(claims)
        wants_refresh = self.mode == "google" or "offline_access" in scope.split() or self.mode in ("gitlab", "keycloak")
        if new_refresh and wants_refresh:
            token = secrets.token_urlsafe(32)
            with self.state.lock:
                self.state.refresh_tokens[token] = {"active": True, "scope": scope}
            response["refresh_token"] = token
        return response

    def userinfo(self, query):
        with self.state.lock:
            self.state.events["user_requests"] += 1
            known = (self.bearer() or "") in self.state.access_tokens
        if not known:
            return self.send_json(401, {"error": "invalid_token"})
        self.send_json(200, USER)

    def revoke(self, query):
        params = self.body_params()
        with self.state.lock:
            self.state.events["revocation_requests"].append({"kind": params.get("token_type_hint")})
            entry = self.state.refresh_tokens.get(params.get("token", ""))
            if entry is not None:
                entry["active"] = False
                self.state.events["revoked_refresh_tokens"] += 1
        self.send(200, b"", "application/json")


def prepare(state, workdir: str):
    """The keys a mode needs (Keycloak: a second, encryption key under the same kid)."""
    state.enc_key = None
    if state.args.provider == "keycloak":
        os.makedirs(workdir + "/enc", mode=0o700)
        state.enc_key = RSAKey(workdir + "/enc")
