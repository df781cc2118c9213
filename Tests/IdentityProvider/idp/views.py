"""Views the fixture adds to django-oauth-toolkit (DOT):

- OpenID discovery that also lists revocation_endpoint, introspection_endpoint and
  device_authorization_endpoint (DOT's own document leaves them out);
- RFC 8414 metadata for the path issuer, served at /.well-known/oauth-authorization-server/o
  (RFC 8414 §3.1 insertion), with the same additions;
- a device authorization endpoint whose device_code lifetime comes from
  settings.DEVICE_CODE_EXPIRE_SECONDS (DOT's pre-configured server fixes 1800 s);
- a token endpoint that marks an expired device code as expired before answering, so that
  polling gets `expired_token` (DOT only does so when someone types the user code);
- a small home page (where the login and logout pages land without a `next`).
"""
from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.views import View
from oauth2_provider import views as dot_views
from oauth2_provider.compat import login_not_required
from oauth2_provider.models import get_device_grant_model
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
        "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT_TYPE],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
        # Every fixture client signs RS256 (DOT's own list also names HS256).
        "id_token_signing_alg_values_supported": ["RS256"],
    }


def _patched(response):
    import json

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


class DeviceAuthorizationView(dot_views.DeviceAuthorizationView):
    """RFC 8628 §3.1/3.2 with a configurable expires_in."""

    @classmethod
    def get_server(cls):
        server = super().get_server()
        server._expires_in = settings.DEVICE_CODE_EXPIRE_SECONDS
        return server


class TokenView(dot_views.TokenView):
    """RFC 6749 §3.2; for the device grant, expiry is checked on every poll (RFC 8628 §3.5)."""

    def device_flow_token_response(self, request, device_code, *args, **kwargs):
        model = get_device_grant_model()
        device = model.objects.filter(device_code=device_code).first()
        if device is not None and device.status == model.AUTHORIZATION_PENDING:
            device.is_expired()  # sets status EXPIRED once past `expires`
        return super().device_flow_token_response(request, device_code, *args, **kwargs)


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
