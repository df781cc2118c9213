"""The fixture's OAuth2Validator: releases the standard claims per scope (OIDC Core 5.4) and
lets one client use more than the single grant type django-oauth-toolkit stores for it."""
from oauth2_provider.oauth2_validators import OAuth2Validator

from idp import fixture


class AuthdeckOAuth2Validator(OAuth2Validator):
    # Request-agnostic (one-argument) signature: the claims are then also listed in
    # discovery's claims_supported. Each is released only with its scope (oidc_claim_scope):
    # profile -> preferred_username, name, given_name, family_name; email -> email, email_verified.
    def get_additional_claims(self):
        return {
            "preferred_username": lambda request: request.user.get_username(),
            "name": lambda request: request.user.get_full_name(),
            "given_name": lambda request: request.user.first_name,
            "family_name": lambda request: request.user.last_name,
            "email": lambda request: request.user.email,
            "email_verified": lambda request: True,
        }

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        extra = fixture.EXTRA_GRANT_TYPES.get(request.client.client_id, set())
        if grant_type in extra:
            return True
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)
