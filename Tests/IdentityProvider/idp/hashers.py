"""A cheaper PBKDF2 for the throw-away fixture database: every password and client secret
check costs a fraction of Django's default (tests make many confidential-client requests).
Still a real salted PBKDF2-SHA256; the iteration count is stored in each hash."""
from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FixturePBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1000
