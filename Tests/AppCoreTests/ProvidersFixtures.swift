// Metadata files exactly as the Codable code (JSONEncoder: pretty, sorted keys, ISO 8601 dates)
// wrote them before the StrictJSON mappings, generated with that code (commit a2688cc) from the
// values in RecordsJSONCompatibilityTests: every optional member populated ("full"), and the
// minimum ("minimal"). Never regenerate them with the new writer: they stand for files already on
// users' disks.
enum ProvidersFixtures {
    /// `providers.json`: a provider with the defaults and one with every member.
    static let full = #"""
        [
          {
            "clientAuthentication" : "none",
            "clientID" : "gh",
            "displayName" : "github",
            "endpoints" : {

            },
            "extraAuthorizationParameters" : {

            },
            "extraHeaders" : {

            },
            "id" : "github",
            "resources" : [

            ],
            "scopes" : [
              "openid",
              "profile",
              "email",
              "offline_access"
            ]
          },
          {
            "additionalTrustedAudiences" : [
              "https:\/\/api.example.com",
              "other"
            ],
            "appleClientSecret" : {
              "days" : 90,
              "keyID" : "KEY1234567",
              "keyPath" : "\/home\/u\/AuthKey_ABC.p8",
              "teamID" : "TEAM123456"
            },
            "audience" : "https:\/\/api.example.com\/",
            "booleanStringClaims" : [
              "email_verified",
              "is_private_email"
            ],
            "caBundlePath" : "\/etc\/ssl\/ca.pem",
            "claimTimeUnits" : {
              "auth_time" : "s",
              "created_at" : "ms"
            },
            "clientAuthentication" : "client_secret_post",
            "clientID" : "cli-é\/1",
            "displayName" : "Work IdP",
            "dpop" : "never",
            "endpoints" : {
              "authorization" : "https:\/\/id.example.com\/auth?x=1",
              "deviceAuthorization" : "https:\/\/id.example.com\/device",
              "endSession" : "https:\/\/id.example.com\/logout",
              "introspection" : "https:\/\/id.example.com\/introspect",
              "jwks" : "https:\/\/id.example.com\/jwks",
              "revocation" : "https:\/\/id.example.com\/revoke",
              "token" : "https:\/\/id.example.com\/token",
              "userinfo" : "https:\/\/id.example.com\/userinfo"
            },
            "extraAuthorizationParameters" : {
              "access_type" : "offline",
              "prompt" : "consent"
            },
            "extraHeaders" : {
              "Accept" : "application\/json",
              "X-Two" : "2"
            },
            "id" : "work",
            "issuer" : "https:\/\/id.example.com\/realms\/a%20b\/",
            "logoutStyle" : "endSessionOrAuth0V2Logout",
            "multiTenantEntra" : true,
            "par" : "always",
            "preset" : "keycloak",
            "resources" : [
              "https:\/\/r1.example\/",
              "urn:x:y"
            ],
            "revocationStyle" : "githubApplicationToken",
            "scopes" : [
              "openid",
              "email"
            ]
          }
        ]
        """# + "\n"

    /// `providers.json`: one provider with only the required members.
    static let minimal = #"""
        [
          {
            "clientAuthentication" : "none",
            "clientID" : "authdeck",
            "displayName" : "local",
            "endpoints" : {

            },
            "extraAuthorizationParameters" : {

            },
            "extraHeaders" : {

            },
            "id" : "local",
            "issuer" : "http:\/\/127.0.0.1:8080",
            "resources" : [

            ],
            "scopes" : [

            ]
          }
        ]
        """# + "\n"

    /// A discovery cache file (`<cache>/work/discovery.json`).
    static let discoveryCache = #"""
        {
          "body" : "{\"issuer\":\"https:\/\/id.example.com\/\",\n \"x\": \"\\u00e9\/\"}",
          "fetchedAt" : "2030-03-17T17:46:40Z",
          "kind" : "discovery",
          "maxAgeSeconds" : 86400,
          "url" : "https:\/\/id.example.com\/.well-known\/openid-configuration"
        }
        """# + "\n"

    /// A JWKS cache file with an empty body.
    static let jwksCache = #"""
        {
          "body" : "",
          "fetchedAt" : "2030-03-17T17:46:40Z",
          "kind" : "jwks",
          "maxAgeSeconds" : 300,
          "url" : "http:\/\/127.0.0.1:8080\/jwks"
        }
        """# + "\n"
}
