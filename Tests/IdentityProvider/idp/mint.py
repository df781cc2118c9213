"""Mints signed-in grants straight into a running provider's database, for benchmarks that need
many accounts at once (scripts/bench's refresh storm): N users, each with an access token
expiring at one chosen second, a refresh token of a new family, and an ID token signed by the
provider's key exactly as django-oauth-toolkit signs one (its validator's finalize_id_token).
With --id-token-expires-at in the past the ID token is back-dated (iat a minute before that exp,
auth_time the same): an expired ID token for tests of its rejection, without waiting for one.

Prints one JSON line per grant on stdout: {"username", "subject", "expires_at" (epoch seconds),
"token_response": a token endpoint response (RFC 6749 §5.1, OIDC Core §3.1.3.3) whose
expires_in counts from the moment of printing}. The values are fixture tokens of a throw-away
provider on 127.0.0.1; the caller keeps them in a 0600 file and never logs them.
"""
import argparse
import base64
import hashlib
import json
import os
import sys
import time
import uuid
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mint-grants", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="the running provider's --data-dir")
    parser.add_argument("--port", type=int, required=True, help="the running provider's port (its issuer)")
    parser.add_argument("--count", type=int, required=True, help="how many users and grants")
    parser.add_argument("--expires-at", type=int, required=True, help="epoch second every access token expires at")
    parser.add_argument("--id-token-expires-at", type=int, default=None,
                        help="epoch second the ID tokens expire at, may be in the past (default: the provider's ID token lifetime from now)")
    parser.add_argument("--prefix", default="storm", help="user names are PREFIX0001 … (default storm)")
    parser.add_argument("--scope", default="openid profile email offline_access")
    args = parser.parse_args(argv)
    if args.count <= 0 or args.count > 100000:
        parser.error("--count must be between 1 and 100000")
    if args.expires_at <= time.time():
        parser.error("--expires-at must be in the future")

    os.environ["IDP_DATA_DIR"] = str(Path(args.data_dir))
    os.environ["IDP_PORT"] = str(args.port)
    os.environ["DJANGO_SETTINGS_MODULE"] = "idp.settings"
    import django

    django.setup()
    from datetime import datetime, timezone as dt_timezone

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone
    from oauthlib.common import Request, generate_token
    from oauth2_provider.models import AccessToken, RefreshToken, get_application_model, set_token_value
    from oauth2_provider.oauth2_validators import OAuth2Validator  # noqa: F401 (settings check)
    from oauth2_provider.settings import oauth2_settings

    from idp import fixture

    validator = oauth2_settings.OAUTH2_VALIDATOR_CLASS()
    id_expires = args.id_token_expires_at
    if id_expires is not None:
        # The claims django-oauth-toolkit computes, with the exp asked for (its own is now + lifetime).
        computed = validator.get_id_token_dictionary

        def backdated(token, token_handler, request):
            claims, _ = computed(token, token_handler, request)
            claims["exp"] = id_expires
            return claims, datetime.fromtimestamp(id_expires, tz=dt_timezone.utc)

        validator.get_id_token_dictionary = backdated
    application = get_application_model().objects.get(client_id=fixture.NATIVE_CLIENT_ID)
    scopes = args.scope.split()
    expires = datetime.fromtimestamp(args.expires_at, tz=dt_timezone.utc)
    User = get_user_model()
    # auth_time is the user's last_login (DOT); set once, so every refreshed ID token keeps it
    # (OIDC Core §12.2: authdeck refuses a refresh whose auth_time changed).
    login = timezone.now().replace(microsecond=0)
    issued = int(time.time())
    if id_expires is not None and id_expires - 60 < issued:
        issued = id_expires - 60
        login = datetime.fromtimestamp(issued, tz=dt_timezone.utc)
    lines = []
    with transaction.atomic():
        for i in range(1, args.count + 1):
            username = f"{args.prefix}{i:04d}"
            user, _ = User.objects.get_or_create(username=username)
            user.first_name, user.last_name = "Storm", f"User {i}"
            user.email = f"{username}@example.test"
            user.set_unusable_password()
            user.last_login = login
            user.save()
            access = generate_token()
            refresh = generate_token()
            request = Request("http://127.0.0.1/o/token/")
            request.client, request.user, request.scopes, request.nonce = application, user, scopes, None
            request.scope = " ".join(scopes)
            digest = hashlib.sha256(access.encode("ascii")).digest()
            at_hash = base64.urlsafe_b64encode(digest[: len(digest) // 2]).decode("ascii").rstrip("=")
            id_token = validator.finalize_id_token(
                {"aud": application.client_id, "iat": issued, "at_hash": at_hash}, {}, None, request)
            token = AccessToken(user=user, scope=" ".join(scopes), expires=expires, id_token=request.id_token,
                                application=application)
            set_token_value(token, access)
            token.save()
            refresh_row = RefreshToken(user=user, application=application, access_token=token, token_family=uuid.uuid4())
            set_token_value(refresh_row, refresh)
            refresh_row.save()
            lines.append({"username": username, "subject": str(user.pk), "expires_at": args.expires_at,
                          "access_token": access, "refresh_token": refresh, "id_token": id_token})
    now = int(time.time())
    for line in lines:
        response = {"access_token": line.pop("access_token"), "token_type": "Bearer",
                    "expires_in": args.expires_at - now, "refresh_token": line.pop("refresh_token"),
                    "id_token": line.pop("id_token"), "scope": " ".join(scopes)}
        sys.stdout.write(json.dumps(dict(line, issued_at=now, token_response=response)) + "\n")
    sys.stdout.flush()
