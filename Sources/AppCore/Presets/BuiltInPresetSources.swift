// Generated from presets/*.json by scripts/embed-presets (PresetTests checks each source is
// identical to its file), so the binary works without the presets/ folder.

extension BuiltInPresets {
    /// The JSON source of each built-in preset (identical to presets/<name>.json).
    public static let sources: [String: String] = [
        "apple": #"""
        {
          "name": "apple",
          "displayName": "Sign in with Apple",
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "none",
          "note": "Apple: pipe the client-secret JWT to --client-secret-stdin; sign in with 'authdeck login apple --code -' (a code handed over \#
        by your app or web page)",
          "provider": {
            "displayName": "Sign in with Apple",
            "issuer": "https://appleid.apple.com",
            "clientAuthentication": "client_secret_post",
            "scopes": ["openid", "name", "email"],
            "extraAuthorizationParameters": {
              "response_mode": "form_post"
            },
            "endpoints": {
              "revocation": "https://appleid.apple.com/auth/revoke"
            },
            "booleanStringClaims": ["email_verified", "is_private_email"]
          },
          "sources": {
            "provider.issuer": "https://developer.apple.com/documentation/sign_in_with_apple/sign_in_with_apple_rest_api/authenticating_users_\#
        with_sign_in_with_apple",
            "provider.extraAuthorizationParameters": "https://developer.apple.com/documentation/sign_in_with_apple/request_an_authorization_to_\#
        the_sign_in_with_apple_server",
            "provider.endpoints.revocation": "https://developer.apple.com/documentation/sign_in_with_apple/revoke_tokens",
            "provider.clientAuthentication": "https://developer.apple.com/documentation/sign_in_with_apple/generate_and_validate_tokens",
            "provider.booleanStringClaims": "https://developer.apple.com/documentation/sign_in_with_apple/authenticating_users_with_sign_in_with_\#
        apple"
          }
        }
        """#,
        "auth0": #"""
        {
          "name": "auth0",
          "displayName": "Auth0",
          "domain": {
            "meaning": "the tenant domain",
            "example": "example.eu.auth0.com",
            "required": true
          },
          "audience": {
            "meaning": "the API identifier your access tokens are for (without it Auth0 issues an opaque or encrypted access token)",
            "example": "https://api.example.com"
          },
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "endSessionOrAuth0V2Logout",
          "note": "Auth0: offline_access (a default scope) gives a refresh token; add --audience for your API's access token (without it the \#
        access token is opaque or encrypted); DPoP is an Auth0 early-access feature, used when discovery advertises it (--dpop never turns it off)",
          "provider": {
            "displayName": "Auth0 ({domain})",
            "issuer": "https://{domain}/",
            "scopes": ["openid", "profile", "email", "offline_access"],
            "endpoints": {
              "revocation": "https://{domain}/oauth/revoke"
            },
            "revocableTokens": ["refresh_token"],
            "postsIDTokenHint": true
          },
          "sources": {
            "provider.issuer": "https://auth0.com/docs/get-started/applications/configure-applications-with-oidc-discovery",
            "provider.scopes": "https://auth0.com/docs/secure/tokens/refresh-tokens/get-refresh-tokens",
            "provider.endpoints.revocation": "https://auth0.com/docs/api/authentication/revoke-refresh-token",
            "provider.revocableTokens": "https://auth0.com/docs/secure/tokens/revoke-tokens",
            "audience": "https://auth0.com/docs/secure/tokens/access-tokens/get-access-tokens",
            "logout": "https://auth0.com/docs/authenticate/login/logout/log-users-out-of-auth0",
            "provider.postsIDTokenHint": "https://auth0.com/docs/authenticate/login/logout/log-users-out-of-auth0",
            "note": "https://auth0.com/docs/secure/tokens/access-tokens/get-access-tokens"
          }
        }
        """#,
        "entra": #"""
        {
          "name": "entra",
          "displayName": "Microsoft Entra ID",
          "tenant": {
            "meaning": "the directory (tenant) ID or domain, or common, organizations, consumers",
            "example": "contoso.onmicrosoft.com",
            "default": "common"
          },
          "identity": "idToken",
          "revocation": "none",
          "logout": "endSession",
          "note": "Entra: --tenant selects the tenant (default common); for common and organizations the issuer's {tenantid} is the token's tid",
          "provider": {
            "displayName": "Microsoft Entra ID ({tenant})",
            "issuer": "https://login.microsoftonline.com/{tenant}/v2.0",
            "scopes": ["openid", "profile", "email", "offline_access"]
          },
          "sources": {
            "provider.issuer": "https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc#find-your-apps-openid-configuration-\#
        document-uri",
            "tenant": "https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols#endpoints",
            "note": "https://learn.microsoft.com/en-us/entra/identity-platform/access-tokens#validate-the-issuer"
          }
        }
        """#,
        "github": #"""
        {
          "name": "github",
          "displayName": "GitHub",
          "identity": "api",
          "revocation": "githubApplicationToken",
          "logout": "none",
          "note": "GitHub: no OpenID Connect; the identity comes from api.github.com/user",
          "provider": {
            "displayName": "GitHub",
            "scopes": ["read:user", "user:email"],
            "subjectClaim": "id",
            "extraHeaders": {
              "Accept": "application/json"
            },
            "endpoints": {
              "authorization": "https://github.com/login/oauth/authorize",
              "token": "https://github.com/login/oauth/access_token",
              "deviceAuthorization": "https://github.com/login/device/code",
              "userinfo": "https://api.github.com/user",
              "revocation": "https://api.github.com/applications"
            },
            "gitHosts": [{"host": "github.com", "username": "x-access-token"}]
          },
          "sources": {
            "provider.endpoints": "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps",
            "provider.extraHeaders": "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#2-users-are-\#
        redirected-back-to-your-site-by-github",
            "provider.scopes": "https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps",
            "identity": "https://docs.github.com/en/rest/users/users#get-the-authenticated-user",
            "provider.subjectClaim": "https://docs.github.com/en/rest/users/users#get-the-authenticated-user",
            "revocation": "https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-token",
            "provider.endpoints.revocation": "https://docs.github.com/en/rest/apps/oauth-applications#delete-an-app-token",
            "provider.gitHosts": "https://docs.github.com/en/apps/creating-github-apps/authenticating-with-a-github-app/authenticating-as-a-\#
        github-app-installation#using-an-installation-access-token-to-authenticate-as-an-app-installation"
          }
        }
        """#,
        "gitlab": #"""
        {
          "name": "gitlab",
          "displayName": "GitLab",
          "domain": {
            "meaning": "a self-managed instance",
            "example": "gitlab.example.com",
            "default": "gitlab.com"
          },
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "none",
          "provider": {
            "displayName": "GitLab ({domain})",
            "issuer": "https://{domain}",
            "scopes": ["openid", "profile", "email"],
            "gitHosts": [{"host": "{domain}", "username": "oauth2"}]
          },
          "sources": {
            "provider.issuer": "https://docs.gitlab.com/integration/openid_connect_provider/",
            "provider.scopes": "https://docs.gitlab.com/integration/oauth_provider/#view-all-authorized-applications",
            "revocation": "https://docs.gitlab.com/api/oauth2/#revoke-a-token",
            "provider.gitHosts": "https://docs.gitlab.com/api/oauth2/#access-git-over-https-with-access-token"
          }
        }
        """#,
        "google": #"""
        {
          "name": "google",
          "displayName": "Google",
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "none",
          "note": "Google: desktop clients also need --client-secret-stdin (the secret of a desktop client is not confidential)",
          "provider": {
            "displayName": "Google",
            "issuer": "https://accounts.google.com",
            "scopes": ["openid", "profile", "email"],
            "extraAuthorizationParameters": {
              "access_type": "offline",
              "prompt": "consent"
            },
            "containerRegistries": [
              {"host": "gcr.io", "username": "oauth2accesstoken"},
              {"host": "*.gcr.io", "username": "oauth2accesstoken"},
              {"host": "*-docker.pkg.dev", "username": "oauth2accesstoken"}
            ]
          },
          "sources": {
            "provider.issuer": "https://developers.google.com/identity/openid-connect/openid-connect#discovery",
            "provider.extraAuthorizationParameters": "https://developers.google.com/identity/protocols/oauth2/native-app#step-2:-send-a-request-\#
        to-googles-oauth-2.0-server",
            "note": "https://developers.google.com/identity/protocols/oauth2/native-app#creatingcred",
            "provider.containerRegistries": "https://cloud.google.com/artifact-registry/docs/docker/authentication#token"
          }
        }
        """#,
        "keycloak": #"""
        {
          "name": "keycloak",
          "displayName": "Keycloak",
          "domain": {
            "meaning": "the Keycloak host",
            "example": "sso.example.com",
            "required": true
          },
          "tenant": {
            "meaning": "the realm",
            "example": "myrealm",
            "required": true
          },
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "endSession",
          "note": "Keycloak: --tenant is the realm",
          "provider": {
            "displayName": "Keycloak ({tenant})",
            "issuer": "https://{domain}/realms/{tenant}",
            "scopes": ["openid", "profile", "email", "offline_access"]
          },
          "sources": {
            "provider.issuer": "https://www.keycloak.org/securing-apps/oidc-layers#_oidc_available_endpoints",
            "logout": "https://www.keycloak.org/securing-apps/oidc-layers#_logout"
          }
        }
        """#,
        "logto": #"""
        {
          "name": "logto",
          "displayName": "Logto",
          "domain": {
            "meaning": "the Logto endpoint host",
            "example": "example.logto.app",
            "required": true
          },
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "endSessionWithoutRedirect",
          "note": "Logto: add --resource for API access tokens",
          "provider": {
            "displayName": "Logto ({domain})",
            "issuer": "https://{domain}/oidc",
            "scopes": ["openid", "profile", "offline_access"],
            "consentForOfflineAccess": true,
            "claimTimeUnits": {"created_at": "ms", "updated_at": "ms"}
          },
          "sources": {
            "provider.issuer": "https://docs.logto.io/integrate-logto/application-data-structure#openid-provider-configuration-endpoint",
            "provider.scopes": "https://docs.logto.io/quick-starts/swift",
            "provider.claimTimeUnits": "https://docs.logto.io/user-management/user-data",
            "provider.consentForOfflineAccess": "https://openid.net/specs/openid-connect-core-1_0.html#OfflineAccess",
            "logout": "https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RedirectionAfterLogout",
            "note": "https://docs.logto.io/authorization/api-resources"
          }
        }
        """#,
        "okta": #"""
        {
          "name": "okta",
          "displayName": "Okta",
          "domain": {
            "meaning": "the Okta domain",
            "example": "example.okta.com",
            "required": true
          },
          "tenant": {
            "meaning": "the custom authorization server ID",
            "example": "aus1a2b3c4d5e6f7g8h9",
            "default": "default"
          },
          "identity": "idToken",
          "revocation": "rfc7009",
          "logout": "endSession",
          "provider": {
            "displayName": "Okta ({domain})",
            "issuer": "https://{domain}/oauth2/{tenant}",
            "scopes": ["openid", "profile", "email", "offline_access"]
          },
          "sources": {
            "provider.issuer": "https://developer.okta.com/docs/concepts/auth-servers/#discovery-endpoints-custom-authorization-servers",
            "tenant": "https://developer.okta.com/docs/concepts/auth-servers/#custom-authorization-server",
            "logout": "https://developer.okta.com/docs/api/openapi/okta-oauth/oauth/tag/CustomAS/#tag/CustomAS/operation/logoutCustomAS"
          }
        }
        """#,
    ]
}
