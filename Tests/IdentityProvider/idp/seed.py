"""Creates (or resets) the fixture's users and clients. Idempotent."""
from django.contrib.auth import get_user_model
from oauth2_provider.models import get_application_model

from idp import fixture


def seed():
    User = get_user_model()
    for username, info in fixture.USERS.items():
        user, _ = User.objects.get_or_create(username=username)
        user.first_name = info["given_name"]
        user.last_name = info["family_name"]
        user.email = info["email"]
        user.set_password(info["password"])
        user.save()

    Application = get_application_model()
    common = {
        "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        "redirect_uris": " ".join(fixture.REDIRECT_URIS),
        "post_logout_redirect_uris": " ".join(fixture.POST_LOGOUT_REDIRECT_URIS),
        "algorithm": Application.RS256_ALGORITHM,
        "skip_authorization": False,
    }
    Application.objects.update_or_create(
        client_id=fixture.NATIVE_CLIENT_ID,
        defaults={
            **common,
            "name": "authdeck (native, public)",
            "client_type": Application.CLIENT_PUBLIC,
            "client_secret": "",
        },
    )
    Application.objects.update_or_create(
        client_id=fixture.CONFIDENTIAL_CLIENT_ID,
        defaults={
            **common,
            "name": "authdeck (confidential)",
            "client_type": Application.CLIENT_CONFIDENTIAL,
            "client_secret": fixture.CONFIDENTIAL_CLIENT_SECRET,
        },
    )
