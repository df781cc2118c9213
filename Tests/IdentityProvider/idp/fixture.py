"""The provider's fixture: users, clients and paths. Imported by the provider and by the
browser stand-in (no Django imports here). The passwords and the client secret are invented
test values that only ever exist on a throw-away provider bound to 127.0.0.1."""

# Users seeded on every start. Passwords are fixture values, not secrets.
USERS = {
    "alice": {
        "password": "alice-fixture-password-7d1",
        "name": "Alice Example",
        "given_name": "Alice",
        "family_name": "Example",
        "email": "alice@example.test",
    },
    "bob": {
        "password": "bob-fixture-password-3c9",
        "name": "Bob Example",
        "given_name": "Bob",
        "family_name": "Example",
        "email": "bob@example.test",
    },
}

# Loopback redirect URIs: django-oauth-toolkit ignores the port for http://127.0.0.1 and
# http://[::1] (RFC 8252 §7.3); scheme, host, path and query must match exactly.
REDIRECT_URIS = ["http://127.0.0.1/callback", "http://[::1]/callback"]
POST_LOGOUT_REDIRECT_URIS = ["http://127.0.0.1/logout-callback", "http://[::1]/logout-callback"]

NATIVE_CLIENT_ID = "authdeck-native"
CONFIDENTIAL_CLIENT_ID = "authdeck-confidential"
CONFIDENTIAL_CLIENT_SECRET = "authdeck-confidential-fixture-secret-5b7e0c2a"

# Grants allowed per client beyond the one django-oauth-toolkit stores per application.
EXTRA_GRANT_TYPES = {
    NATIVE_CLIENT_ID: {"urn:ietf:params:oauth:grant-type:device_code"},
    # RFC 6749 §4.4: the confidential client also acts as a machine (authdeck's machine accounts).
    CONFIDENTIAL_CLIENT_ID: {"client_credentials"},
}

SCOPES = {
    "openid": "OpenID Connect sign-in",
    "profile": "Your name and username",
    "email": "Your email address",
    "offline_access": "Stay signed in (refresh tokens)",
    "read": "Read access",
    "write": "Write access",
}

# URL layout (relative to http://127.0.0.1:PORT). The issuer is ORIGIN + ISSUER_PATH.
ISSUER_PATH = "/o"
LOGIN_PATH = "/accounts/login/"
LOGOUT_PATH = "/accounts/logout/"
