"""Views the fixture adds to django-oauth-toolkit (DOT):

- an authorization endpoint that adds the RFC 9207 `iss` to error responses as well;
- OpenID discovery that also lists revocation_endpoint, introspection_endpoint and
  device_authorization_endpoint (DOT's own document leaves them out);
- RFC 8414 metadata for the path issuer, served at /.well-known/oauth-authorization-server/o
  (RFC 8414 §3.1 insertion), with the same additions;
- a device authorization endpoint whose device_code lifetime comes from
  settings.DEVICE_CODE_EXPIRE_SECONDS (DOT's pre-configured server fixes 1800 s);
- a token endpoint that marks an expired device code as expired before answering, so that
  polling gets `expired_token` (DOT only does so when someone types the user code), refuses a
  device code used twice (`invalid_grant`) and, with IDP_DEVICE_SLOW_DOWN=1, answers
  `slow_down` to polls that come sooner than the interval (DOT never does);
- introspection (RFC 7662) that also answers for refresh tokens and adds `sub`, `iss`
  and `token_type` (DOT answers `active:false` for every refresh token);
- a small home page (where the login and logout pages land without a `next`).
"""
import hashlib
import json
import threading
import time
from urllib.parse import parse_qsl, urlsplit

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.utils import timezone
from django.views import View
from oauth2_provider import views as dot_views
from oauth2_provider.compat import login_not_required
from oauth2_provider.oauth2_backends import _add_iss_to_redirect
from oauth2_provider.models import (
    get_access_token_model,
    get_device_grant_model,
    get_refresh_token_model,
    refresh_token_expire_timedelta,
)
from django.utils.decorators import method_decorator

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"


def _additions():
    issuer = settings.ISSUER
    return {
        "revocation_endpoint": issuer + "/revoke_token/",
        "introspection_endpoint": issuer + "/introspect/",
        "device_authorization_endpoint": issuer + "/device-authorization/",
        "end_session_endpoint": issuer + "/logout/",
        "userinfo_endpoint": issuer + "/userinfo/",
        "revocation_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "introspection_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT_TYPE, "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
        # Every fixture client signs RS256 (DOT's own list also names HS256).
        "id_token_signing_alg_values_supported": ["RS256"],
    }


def _patched(response):
    data = json.loads(response.content)
    data.update(_additions())
    patched = JsonResponse(data)
    patched["Access-Control-Allow-Origin"] = "*"
    return patched


class DiscoveryView(dot_views.ConnectDiscoveryInfoView):
    """OpenID Connect Discovery 1.0 §4 at ISSUER/.well-known/openid-configuration."""

    def get(self, request, *args, **kwargs):
        return _patched(super().get(request, *args, **kwargs))


class AuthorizationServerMetadataView(dot_views.OAuthServerMetadataView):
    """RFC 8414 §3 metadata, for the issuer ORIGIN/o."""

    def get(self, request, *args, **kwargs):
        return _patched(super().get(request, *args, **kwargs))


class AuthorizationView(dot_views.AuthorizationView):
    """RFC 6749 §4.1; RFC 9207 §2: `iss` in error responses too (DOT adds it to successful
    ones only), e.g. `error=access_denied&state=…&iss=…` when the consent is denied."""

    def redirect(self, redirect_to, application):
        query = dict(parse_qsl(urlsplit(redirect_to).query, keep_blank_values=True))
        if "error" in query and "iss" not in query:
            redirect_to = _add_iss_to_redirect(redirect_to, settings.ISSUER)
        return super().redirect(redirect_to, application)


class DeviceAuthorizationView(dot_views.DeviceAuthorizationView):
    """RFC 8628 §3.1/3.2 with a configurable expires_in."""

    @classmethod
    def get_server(cls):
        server = super().get_server()
        server._expires_in = settings.DEVICE_CODE_EXPIRE_SECONDS
        return server


_polls = {}  # device_code -> (monotonic time of the last poll, interval in force)
_polls_lock = threading.Lock()


def _too_fast(device_code):
    """Whether this poll came sooner than the interval in force since the previous poll
    (the first poll is never too fast). Every poll restarts the wait; each slow_down adds 5 s."""
    now = time.monotonic()
    with _polls_lock:
        last, interval = _polls.get(device_code, (None, settings.OAUTH2_PROVIDER["DEVICE_FLOW_INTERVAL"]))
        too_fast = last is not None and now - last < interval - 0.05
        if too_fast:
            interval += 5
        _polls[device_code] = (now, interval)
        return too_fast


class TokenView(dot_views.TokenView):
    """RFC 6749 §3.2; for the device grant, expiry is checked on every poll (RFC 8628 §3.5)."""

    CONSUMED = "consumed"  # our own status: tokens were issued for this device code

    def device_flow_token_response(self, request, device_code, *args, **kwargs):
        model = get_device_grant_model()
        device = model.objects.filter(device_code=device_code).first()
        if device is not None and device.status == model.AUTHORIZATION_PENDING:
            device.is_expired()  # sets status EXPIRED once past `expires`
        if device is not None and device.status == model.AUTHORIZATION_PENDING and settings.DEVICE_SLOW_DOWN:
            if _too_fast(device_code):
                # RFC 8628 §3.5: still pending, and the client must add 5 s to its interval.
                return JsonResponse({"error": "slow_down"}, status=400)
        if device is not None and device.status == self.CONSUMED:
            # RFC 8628 §3.5 / RFC 6749 §5.2: a device code is good for one token response.
            return JsonResponse(
                {"error": "invalid_grant", "error_description": "The device code was already used."}, status=400
            )
        response = super().device_flow_token_response(request, device_code, *args, **kwargs)
        if device is not None and response.status_code == 200:
            model.objects.filter(pk=device.pk).update(status=self.CONSUMED)
        return response


class IntrospectionView(dot_views.IntrospectTokenView):
    """RFC 7662 §2.2: active, scope, client_id, sub, username, exp, iat, iss, token_type."""

    @staticmethod
    def get_token_response(token_value=None):
        if token_value is None:
            return JsonResponse(
                {"error": "invalid_request", "error_description": "Token parameter is missing."}, status=400
            )
        checksum = hashlib.sha256(token_value.encode("utf-8")).hexdigest()
        access = (
            get_access_token_model()
            .objects.select_related("user", "application")
            .filter(token_checksum=checksum)
            .first()
        )
        if access is not None:
            if not access.is_valid():
                return JsonResponse({"active": False})
            data = {
                "active": True,
                "token_type": "Bearer",
                "scope": access.scope,
                "exp": int(access.expires.timestamp()),
                "iat": int(access.created.timestamp()),
            }
            return JsonResponse(_about(data, access.application, access.user))
        refresh = (
            get_refresh_token_model()
            .objects.select_related("user", "application", "access_token")
            .filter(token_checksum=checksum)
            .first()
        )
        if refresh is None or refresh.revoked is not None or refresh.access_token is None:
            return JsonResponse({"active": False})
        data = {"active": True, "scope": refresh.access_token.scope, "iat": int(refresh.created.timestamp())}
        lifetime = refresh_token_expire_timedelta()
        if lifetime:
            expires = refresh.access_token.expires + lifetime
            if expires <= timezone.now():
                return JsonResponse({"active": False})
            data["exp"] = int(expires.timestamp())
        return JsonResponse(_about(data, refresh.application, refresh.user))


def _about(data, application, user):
    if application is not None:
        data["client_id"] = application.client_id
    if user is not None:
        data["sub"] = str(user.pk)
        data["username"] = user.get_username()
    data["iss"] = settings.ISSUER
    return data


@method_decorator(login_not_required, name="dispatch")
class HomeView(View):
    def get(self, request):
        who = request.user.get_username() if request.user.is_authenticated else "nobody"
        body = (
            "<!DOCTYPE html><html><head><title>authdeck local provider</title></head><body>"
            f"<h1>authdeck local OpenID provider</h1><p>Issuer: {settings.ISSUER}</p>"
            f"<p>Signed in: {who}</p></body></html>"
        )
        return HttpResponse(body)


@method_decorator(login_not_required, name="dispatch")
class LogoutView(View):
    """Ends the provider session (POST only, CSRF-protected)."""

    def post(self, request):
        logout(request)
        return HttpResponseRedirect("/")
