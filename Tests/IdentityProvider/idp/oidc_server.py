"""The oauthlib OpenID server with one change: the device authorization grant (RFC 8628)
also returns an ID token when the `openid` scope was granted, like the authorization code
grant does (oauthlib's DeviceCodeGrant never adds one). Lets the client validate device-flow
tokens exactly as code-flow tokens."""
import json

from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc8628.grant_types import DeviceCodeGrant
from oauthlib.openid import Server

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"


class DeviceCodeGrantWithIDToken(DeviceCodeGrant):
    def __init__(self, request_validator, add_id_token, **kwargs):
        super().__init__(request_validator, **kwargs)
        self._add_id_token = add_id_token

    def create_token_response(self, request, token_handler):
        # RFC 8628 §3.4/3.5 and RFC 6749 §5.1; the same steps as DeviceCodeGrant, plus the
        # ID token before the token is stored (so it is linked to the access token).
        headers = self._get_default_headers()
        try:
            if self.request_validator.client_authentication_required(
                request
            ) and not self.request_validator.authenticate_client(request):
                raise errors.InvalidClientError(request=request)
            self.validate_token_request(request)
        except errors.OAuth2Error as error:
            headers.update(error.headers)
            return headers, error.json, error.status_code
        token = token_handler.create_token(request, self.refresh_token)
        if request.scopes and "openid" in request.scopes:
            token = self._add_id_token(token, token_handler, request)
        self.request_validator.save_token(token, request)
        return headers, json.dumps(token), 200


class AuthdeckOIDCServer(Server):
    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        self.device_code_grant = DeviceCodeGrantWithIDToken(
            request_validator, self.openid_connect_auth.add_id_token, **kwargs
        )
        self._grant_types[DEVICE_GRANT_TYPE] = self.device_code_grant
