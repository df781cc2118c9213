"""Django settings of the local OpenID provider, all taken from the environment that
`run` prepares (never edit per machine):

IDP_DATA_DIR   directory holding db.sqlite3, the per-run RSA key and Django secret (required)
IDP_PORT       the TCP port on 127.0.0.1 already bound by `run` (required)
IDP_ACCESS_TOKEN_SECONDS   access-token lifetime in seconds (default 3600)
IDP_SIGN_IN_ACCESS_TOKEN_SECONDS  lifetime of the access tokens a sign-in gets (authorization_code
                           and device_code grants; default IDP_ACCESS_TOKEN_SECONDS); a refresh gets
                           IDP_ACCESS_TOKEN_SECONDS (short-lived first tokens, no waiting in tests)
IDP_ID_TOKEN_SECONDS       ID-token lifetime in seconds (default 3600)
IDP_REFRESH_TOKEN_SECONDS  refresh-token lifetime in seconds (default: unlimited)
IDP_DEVICE_CODE_SECONDS    device_code/user_code lifetime in seconds (default 1800)
IDP_DEVICE_INTERVAL        device polling interval in seconds (default 5)
IDP_DEVICE_SLOW_DOWN       1: answer slow_down to device polls sooner than the interval
IDP_FIXTURE_CONTROL        1: serve the test controls under /fixture/ (idp.fixture_control)
"""
import os
from pathlib import Path

from idp import fixture


def _int_env(name, default):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    number = int(value)
    if number <= 0:
        raise ValueError(f"{name} must be a positive number of seconds")
    return number


ACCESS_TOKEN_SECONDS = _int_env("IDP_ACCESS_TOKEN_SECONDS", 3600)
SIGN_IN_ACCESS_TOKEN_SECONDS = _int_env("IDP_SIGN_IN_ACCESS_TOKEN_SECONDS", ACCESS_TOKEN_SECONDS)


def _access_token_seconds(request):
    """oauthlib's BearerToken asks this for each access token it issues (`expires_in`, also the
    expiry django-oauth-toolkit stores): a refresh gets ACCESS_TOKEN_SECONDS, a sign-in
    SIGN_IN_ACCESS_TOKEN_SECONDS."""
    if request.grant_type == "refresh_token":
        return ACCESS_TOKEN_SECONDS
    return SIGN_IN_ACCESS_TOKEN_SECONDS


DATA_DIR = Path(os.environ["IDP_DATA_DIR"])
PORT = int(os.environ["IDP_PORT"])
ORIGIN = f"http://127.0.0.1:{PORT}"
ISSUER = ORIGIN + fixture.ISSUER_PATH

SECRET_KEY = (DATA_DIR / "django-secret-key").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "oauth2_provider",
    "idp",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "idp.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ]
        },
    }
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(DATA_DIR / "db.sqlite3"),
        # Concurrent requests (threaded server): transactions take the write lock up front
        # (BEGIN IMMEDIATE) and wait for it, instead of failing with "database is locked"
        # when a read transaction has to be upgraded; WAL lets readers run meanwhile.
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
STATIC_URL = "/static/"

# Distinct cookie names: the browser (and the stand-in) send these cookies to every port of
# 127.0.0.1, including the client's loopback listener and other local test servers.
SESSION_COOKIE_NAME = "idp_sessionid"
CSRF_COOKIE_NAME = "idp_csrftoken"
LANGUAGE_COOKIE_NAME = "idp_language"
LOGIN_URL = fixture.LOGIN_PATH
LOGIN_REDIRECT_URL = "/"
PASSWORD_HASHERS = ["idp.hashers.FixturePBKDF2PasswordHasher"]

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (DATA_DIR / "oidc-rsa-key.pem").read_text(),
    # Pinned: otherwise the issuer follows the Host header (localhost vs 127.0.0.1).
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": [
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code",
    ],
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": True,
    "OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS": True,
    "SCOPES": fixture.SCOPES,
    "DEFAULT_SCOPES": ["openid"],
    "OAUTH2_VALIDATOR_CLASS": "idp.validators.AuthdeckOAuth2Validator",
    "OIDC_SERVER_CLASS": "idp.oidc_server.AuthdeckOIDCServer",
    "REQUEST_APPROVAL_PROMPT": "force",
    # PKCE with S256 only; RFC 9207 iss in authorization responses; no implicit or
    # password grant; no access token in query strings (RFC 9700).
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    # Every refresh rotates; replaying a used refresh token revokes the whole family.
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "ACCESS_TOKEN_EXPIRE_SECONDS": (ACCESS_TOKEN_SECONDS if SIGN_IN_ACCESS_TOKEN_SECONDS == ACCESS_TOKEN_SECONDS
                                    else _access_token_seconds),
    "ID_TOKEN_EXPIRE_SECONDS": _int_env("IDP_ID_TOKEN_SECONDS", 3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": _int_env("IDP_REFRESH_TOKEN_SECONDS", None),
    # RFC 8628. DEVICE_CODE_EXPIRE_SECONDS is ours (idp.views.DeviceAuthorizationView).
    "OAUTH_DEVICE_VERIFICATION_URI": ISSUER + "/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": ISSUER + "/device/?user_code={user_code}",
    "DEVICE_FLOW_INTERVAL": _int_env("IDP_DEVICE_INTERVAL", 5),
}
DEVICE_CODE_EXPIRE_SECONDS = _int_env("IDP_DEVICE_CODE_SECONDS", 1800)
# RFC 8628 §3.5 slow_down for polls sooner than the interval (each adds 5 s); off by default.
DEVICE_SLOW_DOWN = os.environ.get("IDP_DEVICE_SLOW_DOWN", "") == "1"

# Errors to stderr with their traceback (never request bodies); nothing else.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
        "django.server": {"handlers": [], "level": "CRITICAL", "propagate": False},
        "oauth2_provider": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
    },
}
