"""Test-only controls, served under /fixture/ only when the provider runs with
IDP_FIXTURE_CONTROL=1 (127.0.0.1 only, like everything else here):

POST /fixture/rotate-signing-key   a new RSA signing key becomes active at once; the previous
                                   ones stay published in the JWKS (OIDC Core §10.1.1 rollover).
                                   Answers {"kid": new, "previous_kids": [...]}.
POST /fixture/jwks-status          body {"status": N}: the JWKS answers HTTP N with an empty
                                   body until set back to 200 (an outage of jwks_uri).
POST /fixture/revoke-grants        body {"username": U}: every refresh and access token of user U
                                   is revoked, as when the person removes the app's access at the
                                   provider. Answers {"revoked": N} (refresh tokens revoked).
POST /fixture/expire-access-token  body {"checksum": SHA-256 hex of the token}: that access token
                                   expires now (introspection: inactive) while its grant lives on
                                   (RFC 7009 revocation would end the refresh token too here).
                                   Answers {"expired": n}.
"""
import json
import threading

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.http import HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider import views as dot_views
from oauth2_provider.compat import login_not_required
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.utils import jwk_from_pem

_lock = threading.Lock()
_jwks_status = 200


def _kid(pem):
    return jwk_from_pem(pem).thumbprint()


@method_decorator(csrf_exempt, name="dispatch")
@method_decorator(login_not_required, name="dispatch")
class RotateSigningKeyView(View):
    def post(self, request):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        with _lock:
            previous = [oauth2_settings.OIDC_RSA_PRIVATE_KEY, *oauth2_settings.OIDC_RSA_PRIVATE_KEYS_INACTIVE]
            oauth2_settings.OIDC_RSA_PRIVATE_KEYS_INACTIVE = previous
            oauth2_settings.OIDC_RSA_PRIVATE_KEY = pem
        return JsonResponse({"kid": _kid(pem), "previous_kids": [_kid(p) for p in previous]})


@method_decorator(csrf_exempt, name="dispatch")
@method_decorator(login_not_required, name="dispatch")
class JWKSStatusView(View):
    def post(self, request):
        global _jwks_status
        status = int(json.loads(request.body)["status"])
        with _lock:
            _jwks_status = status
        return HttpResponse(status=204)


@method_decorator(csrf_exempt, name="dispatch")
@method_decorator(login_not_required, name="dispatch")
class ExpireAccessTokenView(View):
    def post(self, request):
        from datetime import timedelta

        from django.utils import timezone
        from oauth2_provider.models import get_access_token_model

        checksum = json.loads(request.body)["checksum"]
        count = get_access_token_model().objects.filter(token_checksum=checksum).update(expires=timezone.now() - timedelta(seconds=1))
        return JsonResponse({"expired": count})


class JwksView(dot_views.JwksInfoView):
    """DOT's JWKS, or the status set through /fixture/jwks-status."""

    def get(self, request, *args, **kwargs):
        with _lock:
            status = _jwks_status
        if status != 200:
            return HttpResponse(status=status)
        return super().get(request, *args, **kwargs)


@method_decorator(csrf_exempt, name="dispatch")
@method_decorator(login_not_required, name="dispatch")
class RevokeGrantsView(View):
    def post(self, request):
        from oauth2_provider.models import get_access_token_model, get_refresh_token_model

        username = json.loads(request.body)["username"]
        refresh_tokens = get_refresh_token_model().objects.filter(user__username=username, revoked__isnull=True)
        count = 0
        for token in refresh_tokens:
            token.revoke()
            count += 1
        get_access_token_model().objects.filter(user__username=username).delete()
        return JsonResponse({"revoked": count})
