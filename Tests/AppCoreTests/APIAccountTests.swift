import AppCore
import AuthEngine
import FoundationEssentials
import Testing

/// `api URL` chooses by the URL. A URL inside a signed-in resource uses that
/// resource's account; a token bound to a resource (RFC 8707) goes nowhere else; an explicit
/// account that does not fit the URL is an error, not a silent send.
@Suite("api URL: the account the URL calls for (RFC 8707, RFC 9728)")
struct APIAccountTests {
    static let mcp: ProviderID = "mcp.example"
    static let op: ProviderID = "op"

    static func account(_ name: String, provider: ProviderID) -> AccountRecord {
        AccountRecord(id: AccountID(provider: provider, subject: name), providerID: provider, issuer: "https://as.example", subject: name,
                      displayName: name, username: name, requestedScopes: [], grantedScopes: [], accessTokens: [], hasRefreshToken: true,
                      signedInAt: Date(timeIntervalSince1970: 0), storage: .memory)
    }

    static let alice = account("alice", provider: op)
    static let grant = account("grant", provider: mcp)

    static func snapshot(accounts: [AccountRecord] = [alice, grant], active: AccountID? = alice.id) -> LoadedSnapshot {
        var resource = ProviderConfig(id: mcp, issuer: URL(string: "https://as.example"), clientID: "dcr-1")
        resource.protectedResource = ProtectedResourceBinding(resource: "https://mcp.example/mcp", metadataURL: "https://mcp.example/.well-known/oauth-protected-resource/mcp",
                                                              discovery: .oauthAuthorizationServer, clientOrigin: .registered)
        let plain = ProviderConfig(id: op, issuer: URL(string: "https://op.example"), clientID: "c")
        return LoadedSnapshot(providers: [plain, resource], accounts: accounts, activeAccountID: active, credentialStore: StoreInfo(backend: .memory))
    }

    /// The choice with `query` (nil: the default, which is the active account here).
    static func choose(_ url: String, query: String? = nil, in snapshot: LoadedSnapshot = snapshot()) throws(APIAccountFailure) -> AccountRecord {
        try APIAccount.choose(url: url, in: snapshot, explicit: query != nil) { () throws(AccountResolutionError) in
            try AccountResolution.choose(query, accounts: snapshot.accounts, active: snapshot.activeAccountID, environmentAccount: nil, place: .nowhere)
        }.record
    }

    static func failure(_ url: String, query: String? = nil, in snapshot: LoadedSnapshot = snapshot()) -> AppError? {
        do {
            let record = try choose(url, query: query, in: snapshot)
            Issue.record("chose \(record.id) for \(url)")
            return nil
        } catch {
            guard case .mismatch(let error) = error else { Issue.record("\(error)"); return nil }
            return error
        }
    }

    @Test("RFC 8707: a URL inside a signed-in resource uses its account, not the active one (another audience)",
          arguments: ["https://mcp.example/mcp", "https://mcp.example/mcp/", "https://mcp.example/mcp/tools?x=1", "HTTPS://MCP.example:443/mcp"])
    func resourceURLUsesItsAccount(_ url: String) throws {
        #expect(try Self.choose(url).id == Self.grant.id)
    }

    @Test("Outside every resource the default choice stands (the active account)", arguments: ["https://api.example/items", "https://mcp.example/mcpx",
                                                                                              "https://mcp.example/", "http://mcp.example/mcp"])
    func outsideUsesDefault(_ url: String) throws {
        #expect(try Self.choose(url).id == Self.alice.id)
    }

    @Test("RFC 8707: a token bound to a resource is never sent elsewhere, whether named or the default")
    func boundTokenStaysHome() {
        let named = Self.failure("https://api.example/items", query: "grant")
        #expect(named?.disposition == .usage)
        #expect(named?.title.contains("https://mcp.example/mcp") == true, "\(named?.title ?? "")")
        let active = Self.failure("https://mcp.example/mcpx", in: Self.snapshot(active: Self.grant.id))
        #expect(active?.disposition == .usage)
    }

    @Test("An explicit account that does not fit the URL is a clear error naming the resource's account")
    func explicitMismatch() {
        let error = Self.failure("https://mcp.example/mcp/tools", query: "alice")
        #expect(error?.disposition == .usage)
        let text = "\(error?.title ?? "") \(error?.detail ?? "")"
        #expect(text.contains("grant"), "\(text)")
        #expect((try? Self.choose("https://mcp.example/mcp", query: "grant").id) == Self.grant.id, "naming the resource's own account")
    }

    @Test("Two accounts at one resource: the default when it is one of them, else an error asking for one")
    func severalAtResource() throws {
        let other = Self.account("other", provider: Self.mcp)
        #expect(try Self.choose("https://mcp.example/mcp", in: Self.snapshot(accounts: [Self.alice, Self.grant, other], active: other.id)).id == other.id)
        #expect(Self.failure("https://mcp.example/mcp", in: Self.snapshot(accounts: [Self.alice, Self.grant, other]))?.disposition == .usage)
    }

    @Test("covers: same scheme, host and port (the default filled in), the path the resource's or below it by whole segments")
    func covers() {
        #expect(APIAccount.covers(resource: "https://mcp.example", url: "https://mcp.example/anything"))
        #expect(APIAccount.covers(resource: "https://mcp.example/mcp", url: "https://mcp.example:443/mcp#x"))
        #expect(!APIAccount.covers(resource: "https://mcp.example/mcp", url: "https://mcp.example:8443/mcp"))
        #expect(!APIAccount.covers(resource: "https://mcp.example/mcp", url: "https://mcp.example/mc"))
        #expect(!APIAccount.covers(resource: "https://mcp.example/mcp", url: "https://mcp.example.evil/mcp"))
        #expect(!APIAccount.covers(resource: "https://mcp.example/mcp", url: "https://user@mcp.example/mcp"))
    }
}
