"""URL layout (issuer = http://127.0.0.1:PORT/o):

/o/.well-known/openid-configuration   OpenID discovery (fixture view, complete)
/.well-known/oauth-authorization-server/o   RFC 8414 metadata (path insertion)
/o/authorize/  /o/token/  /o/revoke_token/  /o/introspect/  /o/userinfo/  /o/logout/
/o/.well-known/jwks.json   /o/device-authorization/   /o/device/ (verification_uri)
/accounts/login/   /accounts/logout/ (POST)
/fixture/…   test controls, only with IDP_FIXTURE_CONTROL=1 (idp.fixture_control)
"""
import os

from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from idp import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path(
        ".well-known/oauth-authorization-server/o",
        views.AuthorizationServerMetadataView.as_view(),
        name="rfc8414-metadata",
    ),
    # Fixture overrides first: they take precedence over DOT's routes of the same path.
    re_path(r"^o/\.well-known/openid-configuration/?$", views.DiscoveryView.as_view()),
    path("o/.well-known/oauth-authorization-server", views.AuthorizationServerMetadataView.as_view()),
    path("o/authorize/", views.AuthorizationView.as_view()),
    path("o/device-authorization/", views.DeviceAuthorizationView.as_view()),
    path("o/token/", views.TokenView.as_view()),
    path("o/introspect/", views.IntrospectionView.as_view()),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]

if os.environ.get("IDP_FIXTURE_CONTROL") == "1":
    from idp import fixture_control

    urlpatterns = [
        path("fixture/rotate-signing-key", fixture_control.RotateSigningKeyView.as_view()),
        path("fixture/jwks-status", fixture_control.JWKSStatusView.as_view()),
        path("fixture/revoke-grants", fixture_control.RevokeGrantsView.as_view()),
        path("fixture/expire-access-token", fixture_control.ExpireAccessTokenView.as_view()),
        re_path(r"^o/\.well-known/jwks\.json$", fixture_control.JwksView.as_view()),
    ] + urlpatterns
