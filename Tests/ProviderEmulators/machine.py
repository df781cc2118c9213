#!/usr/bin/env python3
"""An authorization server for machine accounts: the client credentials grant (RFC 6749 §4.4)
with `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OIDC Core §9), the
assertion's signature checked by Authlib's JOSE (authlib.jose) with the client's registered
public JWK. Written refusals first: each check below is a reason a request is refused with
`invalid_client` (RFC 6749 §5.2), named in `error_description` and counted in `/stats`.

Runs with the identity provider's pinned Python (Tests/IdentityProvider/.venv, where Authlib is):

    Tests/IdentityProvider/.venv/bin/python Tests/ProviderEmulators/machine.py [--parent-pid PID]
        [--audience token_endpoint|issuer] [--max-lifetime S] [--expires-in S] [--register CLIENT_ID=JWK_FILE]...

Federated assertions (issue 38 §2): a stand-in for GitHub Actions' OIDC token service signs JWTs
with the emulator's own P-256 key (issuer BASE/actions), which the token endpoint trusts for the
`--federated-client` ids when `aud` is `--federated-audience`: `GET /actions/token?audience=A` with
`Authorization: Bearer` the ready line's `actions_request_token` answers {"value": JWT} (sub
`repo:authdeck/ci:ref:refs/heads/main`, 5 minutes); `GET /actions/mint?sub=S&lifetime=L&audience=A`
answers the same for a test to write into a file (a Kubernetes projected token). `/stats` adds
`federated`: the `sub` of each accepted federated assertion, in order.

Token exchange (RFC 8693, issue 38 §3): `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`
from an authenticated client, its subject an access token this server issued and still live,
for a `resource` or `audience` among `--exchange-target`; refusals as `check_exchange` says,
counted in `refused`; `/stats` adds `exchanged`: the target of each exchange, in order.
`POST /forget` forgets every issued token (a revocation): a subject sent later is invalid.

Prints one JSON line when ready: {"provider": "machine", "base_url", "issuer", "token_endpoint",
"actions_request_url", "actions_request_token", "pid"}.
`POST /register` with JSON {"client_id": ID, "jwk": {public JWK}} registers a client (no `d`
accepted). `GET /stats` answers {"issued": N, "refused": [reasons]}. Logs nothing; prints no token.
"""
import argparse
import base64
import itertools
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import warnings

warnings.simplefilter("ignore")  # authlib.jose says it moves to joserfc in 2.0; the pinned 1.9.6 has it
from authlib.jose import JsonWebKey, jwt  # noqa: E402
from authlib.jose.errors import JoseError  # noqa: E402

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


class State:
    def __init__(self, args, base_url):
        self.args = args
        self.base_url = base_url
        self.lock = threading.Lock()
        self.clients = {}
        self.seen_jti = {}
        self.issued = 0
        self.refused = []
        self.counter = itertools.count(1)
        self.actions_key = JsonWebKey.generate_key("EC", "P-256", is_private=True)
        self.actions_request_token = base64.urlsafe_b64encode(os.urandom(18)).decode()
        self.federated = []
        self.live_tokens = {}
        self.exchanged = []

    @property
    def actions_issuer(self):
        return self.base_url + "/actions"

    def mint(self, sub, audience, lifetime):
        now = int(time.time())
        claims = {"iss": self.actions_issuer, "sub": sub, "aud": audience, "iat": now, "exp": now + lifetime,
                  "jti": base64.urlsafe_b64encode(os.urandom(12)).decode()}
        return jwt.encode({"alg": "ES256", "typ": "JWT"}, claims, self.actions_key).decode()

    @property
    def token_endpoint(self):
        return self.base_url + "/token"

    @property
    def audience(self):
        return self.base_url if self.args.audience == "issuer" else self.token_endpoint


class Refusal(Exception):
    pass


def check_assertion(state: State, form: dict) -> str:
    """The client id of a good assertion; raises Refusal naming the first check that fails."""
    if form.get("client_assertion_type") != ASSERTION_TYPE:
        raise Refusal("client_assertion_type is not jwt-bearer")
    assertion = form.get("client_assertion")
    if not assertion:
        raise Refusal("no client_assertion")
    if "client_secret" in form:
        raise Refusal("two client authentication methods")
    unverified = json.loads(base64.urlsafe_b64decode(assertion.split(".")[1] + "=="))
    if unverified.get("iss") == state.actions_issuer:
        return check_federated(state, form, assertion)
    client_id = unverified.get("iss")
    if form.get("client_id") not in (None, client_id):
        raise Refusal("client_id is not the assertion's iss")
    with state.lock:
        jwk = state.clients.get(client_id)
    if jwk is None:
        raise Refusal("unknown client")
    try:
        claims = jwt.decode(assertion, JsonWebKey.import_key(jwk))
    except JoseError:
        raise Refusal("bad signature")
    if claims.header.get("alg") != "ES256":
        raise Refusal("alg is not ES256")
    if claims.get("sub") != client_id:
        raise Refusal("sub is not the client id")
    aud = claims.get("aud")
    if (aud if isinstance(aud, list) else [aud]) != [state.audience]:
        raise Refusal("wrong aud")
    now = time.time()
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or exp <= now:
        raise Refusal("expired assertion")
    if exp > now + state.args.max_lifetime:
        raise Refusal("exp too far ahead")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti:
        raise Refusal("no jti")
    with state.lock:
        state.seen_jti = {k: v for k, v in state.seen_jti.items() if v > now}
        if (client_id, jti) in state.seen_jti:
            raise Refusal("reused jti")
        state.seen_jti[(client_id, jti)] = exp
    return client_id


def check_federated(state: State, form: dict, assertion: str) -> str:
    """A workload's token from the Actions stand-in (RFC 7523 §3 with a federated issuer): the
    client named by `client_id`, the stand-in's signature, `aud` the federated audience, not expired."""
    client_id = form.get("client_id")
    if client_id not in state.args.federated_client:
        raise Refusal("unknown client")
    try:
        claims = jwt.decode(assertion, state.actions_key)
    except JoseError:
        raise Refusal("bad signature")
    if claims.get("aud") != state.args.federated_audience:
        raise Refusal("wrong aud")
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or exp <= time.time():
        raise Refusal("expired assertion")
    with state.lock:
        state.federated.append(claims.get("sub"))
    return client_id


class Refused(Exception):
    """An RFC 6749 §5.2 / RFC 8693 §2.2.2 error answer: (error, description)."""


def check_exchange(state: State, form: dict) -> dict:
    """RFC 8693 §2.1 for a client already authenticated, refusals first: the subject must be an
    access token (`invalid_request`, unsupported subject_token_type), one this server issued and
    still live (`invalid_request`, invalid subject token), only access tokens or JWTs asked for,
    and the resource or audience one of `--exchange-target` (`invalid_target`). Answers §2.2.1."""
    if form.get("subject_token_type") != ACCESS_TOKEN_TYPE:
        raise Refused("invalid_request", "unsupported subject_token_type")
    with state.lock:
        expiry = state.live_tokens.get(form.get("subject_token", ""))
    if expiry is None or expiry <= time.time():
        raise Refused("invalid_request", "invalid subject token")
    requested = form.get("requested_token_type")
    if requested not in (None, ACCESS_TOKEN_TYPE, "urn:ietf:params:oauth:token-type:jwt"):
        raise Refused("invalid_request", "unsupported requested_token_type")
    target = form.get("resource") or form.get("audience")
    if target not in state.args.exchange_target:
        raise Refused("invalid_target", "no token for this audience")
    with state.lock:
        state.exchanged.append(target)
    return {"issued_token_type": requested or ACCESS_TOKEN_TYPE}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def send_json(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self):
        state = self.server.state
        path = urllib.parse.urlsplit(self.path).path
        if path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
            self.send_json(200, {
                "issuer": state.base_url, "token_endpoint": state.token_endpoint,
                "authorization_endpoint": state.base_url + "/authorize", "jwks_uri": state.base_url + "/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["ES256"],
                "grant_types_supported": ["client_credentials", TOKEN_EXCHANGE],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            })
        elif path == "/jwks":
            self.send_json(200, {"keys": []})
        elif path == "/stats":
            with state.lock:
                self.send_json(200, {"issued": state.issued, "refused": list(state.refused), "federated": list(state.federated),
                                     "exchanged": list(state.exchanged)})
        elif path in ("/actions/token", "/actions/mint"):
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
            if path == "/actions/token" and self.headers.get("Authorization") != "Bearer " + state.actions_request_token:
                self.send_json(401, {"message": "bad request token"})
                return
            sub = query.get("sub", "repo:authdeck/ci:ref:refs/heads/main")
            self.send_json(200, {"value": state.mint(sub, query.get("audience", ""), int(query.get("lifetime", "300")))})
        else:
            self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        state = self.server.state
        path = urllib.parse.urlsplit(self.path).path
        if path == "/register":
            document = json.loads(self.body())
            jwk = document["jwk"]
            if "d" in jwk:
                self.send_json(400, {"error": "invalid_client_metadata", "error_description": "a private key"})
                return
            with state.lock:
                state.clients[document["client_id"]] = jwk
            self.send_json(201, {"client_id": document["client_id"]})
            return
        if path == "/forget":
            with state.lock:
                state.live_tokens.clear()
            self.send_json(200, {})
            return
        if path != "/token":
            self.send_json(404, {"error": "not_found"})
            return
        form = dict(urllib.parse.parse_qsl(self.body().decode(), keep_blank_values=True))
        if form.get("grant_type") not in ("client_credentials", TOKEN_EXCHANGE):
            self.send_json(400, {"error": "unsupported_grant_type"})
            return
        try:
            check_assertion(state, form)
        except Refusal as refusal:
            with state.lock:
                state.refused.append(str(refusal))
            self.send_json(401, {"error": "invalid_client", "error_description": str(refusal)})
            return
        except (ValueError, KeyError, IndexError):
            with state.lock:
                state.refused.append("malformed assertion")
            self.send_json(401, {"error": "invalid_client", "error_description": "malformed assertion"})
            return
        extra = {}
        if form["grant_type"] == TOKEN_EXCHANGE:
            try:
                extra = check_exchange(state, form)
            except Refused as refused:
                error, description = refused.args
                with state.lock:
                    state.refused.append(description)
                self.send_json(400, {"error": error, "error_description": description})
                return
        with state.lock:
            state.issued += 1
            token = ("m-xt-%d" if extra else "m-at-%d") % next(state.counter)
            state.live_tokens[token] = time.time() + state.args.expires_in
        answer = dict(extra, access_token=token, token_type="Bearer", expires_in=state.args.expires_in)
        if form.get("scope"):
            answer["scope"] = form["scope"]
        self.send_json(200, answer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parent-pid", type=int)
    parser.add_argument("--audience", choices=["token_endpoint", "issuer"], default="token_endpoint")
    parser.add_argument("--max-lifetime", type=int, default=300)
    parser.add_argument("--expires-in", type=int, default=3600)
    parser.add_argument("--federated-client", action="append", default=[], metavar="CLIENT_ID")
    parser.add_argument("--federated-audience", default="api://authdeck-machine")
    parser.add_argument("--exchange-target", action="append", default=[], metavar="RESOURCE_OR_AUDIENCE",
                        help="what a token exchange (RFC 8693) may ask a token for")
    parser.add_argument("--register", action="append", default=[], metavar="CLIENT_ID=JWK_FILE",
                        help="a client and the file of its public JWK")
    args = parser.parse_args()
    parent = args.parent_pid or os.getppid()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: os._exit(0))

    def watchdog():
        while True:
            time.sleep(0.25)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)

    threading.Thread(target=watchdog, daemon=True).start()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    base_url = "http://127.0.0.1:%d" % httpd.server_address[1]
    httpd.state = State(args, base_url)
    for registration in args.register:
        client_id, path = registration.split("=", 1)
        with open(path) as file:
            jwk = json.load(file)
        if "d" in jwk:
            sys.exit("machine.py: --register takes a public JWK (it has `d`)")
        httpd.state.clients[client_id] = jwk
    sys.stdout.write(json.dumps({"provider": "machine", "base_url": base_url, "issuer": base_url,
                                 "token_endpoint": httpd.state.token_endpoint, "pid": os.getpid(),
                                 "actions_request_url": base_url + "/actions/token?api-version=2.0",
                                 "actions_request_token": httpd.state.actions_request_token}) + "\n")
    sys.stdout.flush()
    httpd.serve_forever()


if __name__ == "__main__":
    main()
