// Metadata files exactly as the Codable code (JSONEncoder: pretty, sorted keys, ISO 8601 dates)
// wrote them before the StrictJSON mappings, generated with that code (commit a2688cc) from the
// values in RecordsJSONCompatibilityTests: every optional member populated ("full"), and the
// minimum ("minimal"). Never regenerate them with the new writer: they stand for files already on
// users' disks.
enum AccountsFixtures {
    /// `accounts.json`: three records (every member; a GitHub one with an unverified ID token; a verified one without `kid`).
    static let full = #"""
        [
          {
            "accessTokens" : [
              {
                "issuedAt" : "2030-03-17T17:46:40Z",
                "scopes" : [

                ],
                "tokenType" : "Bearer"
              }
            ],
            "displayName" : "octo",
            "grantedScopes" : [

            ],
            "hasRefreshToken" : false,
            "id" : "github\/42",
            "idToken" : {
              "claims" : {

              },
              "header" : {

              },
              "signature" : {
                "notVerified" : {
                  "reason" : "no JWKS \"here\""
                }
              }
            },
            "providerID" : "github",
            "requestedScopes" : [

            ],
            "signedInAt" : "2030-03-17T17:46:40Z",
            "storage" : "vault",
            "subject" : "42"
          },
          {
            "accessTokens" : [
              {
                "expiresAt" : "2030-03-17T17:56:40Z",
                "format" : "jwt",
                "informationalClaims" : {
                  "aud" : [
                    "a",
                    "b"
                  ],
                  "exp" : 1900000600,
                  "frac" : 1.5,
                  "iss" : "https:\/\/id.example.com\/",
                  "nested" : {
                    "x" : -3
                  },
                  "nothing" : null,
                  "ok" : true
                },
                "issuedAt" : "2030-03-17T17:46:40Z",
                "scopes" : [
                  "openid",
                  "email"
                ],
                "tokenType" : "DPoP"
              },
              {
                "format" : "opaque",
                "issuedAt" : "2030-03-17T17:46:41Z",
                "resource" : "https:\/\/r1.example\/",
                "scopes" : [

                ],
                "tokenType" : "Bearer"
              },
              {
                "expiresAt" : "2030-03-17T17:51:40Z",
                "format" : "encrypted",
                "issuedAt" : "2030-03-17T17:46:42Z",
                "resource" : "urn:logto:organization:o1",
                "scopes" : [
                  "x"
                ],
                "tokenType" : "Bearer"
              }
            ],
            "alias" : "me",
            "displayName" : "Alice Ä",
            "dpopThumbprint" : "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
            "email" : "alice@example.com",
            "emailVerified" : true,
            "grantedScopes" : [
              "openid",
              "email"
            ],
            "hasRefreshToken" : true,
            "id" : "work\/sub-1",
            "idToken" : {
              "claims" : {
                "aud" : [
                  "a",
                  "b"
                ],
                "exp" : 1900000600,
                "frac" : 1.5,
                "iss" : "https:\/\/id.example.com\/",
                "nested" : {
                  "x" : -3
                },
                "nothing" : null,
                "ok" : true
              },
              "expiresAt" : "2030-03-17T17:56:40Z",
              "header" : {
                "alg" : "RS256",
                "kid" : "k1"
              },
              "issuedAt" : "2030-03-17T17:46:40Z",
              "signature" : {
                "verified" : {
                  "algorithm" : "RS256",
                  "keyID" : "k1"
                }
              }
            },
            "idTokenProblem" : "iss mismatch",
            "isPrivateEmail" : false,
            "issuer" : "https:\/\/id.example.com\/realms\/a%20b\/",
            "lastRefreshAt" : "2030-03-17T17:46:40Z",
            "needsSignInSince" : "2030-03-17T17:48:20Z",
            "previousGrantedScopes" : [
              "openid"
            ],
            "providerID" : "work",
            "refreshSentAt" : "2030-03-17T17:47:30Z",
            "refreshTokenExpiresAt" : "2030-03-18T17:46:40Z",
            "requestedScopes" : [
              "openid",
              "email",
              "offline_access"
            ],
            "signedInAt" : "2030-03-17T17:30:00Z",
            "storage" : "secret-service",
            "subject" : "sub-1",
            "tokenWarnings" : [
              "token_type missing",
              "expires_in \"3600\" is a string"
            ],
            "username" : "alice"
          },
          {
            "accessTokens" : [

            ],
            "displayName" : "y",
            "emailVerified" : false,
            "grantedScopes" : [
              "openid"
            ],
            "hasRefreshToken" : true,
            "id" : "x\/y",
            "idToken" : {
              "claims" : {
                "sub" : "y"
              },
              "header" : {
                "alg" : "ES256"
              },
              "signature" : {
                "verified" : {
                  "algorithm" : "ES256"
                }
              }
            },
            "issuer" : "https:\/\/x\/",
            "providerID" : "x",
            "requestedScopes" : [
              "openid"
            ],
            "signedInAt" : "2030-03-17T17:46:40Z",
            "storage" : "plaintext",
            "subject" : "y"
          }
        ]
        """# + "\n"

    /// `accounts.json`: one record with only the required members.
    static let minimal = #"""
        [
          {
            "accessTokens" : [

            ],
            "displayName" : "a",
            "grantedScopes" : [

            ],
            "hasRefreshToken" : false,
            "id" : "local\/a",
            "providerID" : "local",
            "requestedScopes" : [

            ],
            "signedInAt" : "2030-03-17T17:46:40Z",
            "storage" : "memory",
            "subject" : "a"
          }
        ]
        """# + "\n"
}
