@testable import AppCore
import AuthEngine
import Foundation
import Testing

/// Advice that ignores what was given. A note to add `--audience` after it was given;
/// a host name that does not resolve called "temporary" after `provider add` had said it does not resolve.
@Suite("Advice fits what was given")
struct AdviceTests {
    @Test("The Auth0 preset's note says to add --audience only when no audience was given; Logto's --resource note likewise")
    func presetNoteLeavesOutWhatWasGiven() throws {
        let auth0 = try #require(PresetCatalog.builtIn.preset(named: "auth0"))
        var config = try auth0.makeProvider(id: ProviderID("work"), clientID: "c", domain: "example.eu.auth0.com", tenant: nil)
        let without = try #require(auth0.note(for: config))
        #expect(without.hasPrefix("Auth0: ") && without.contains("add --audience"), "\(without)")
        config.audience = "https://api.example"
        let with = try #require(auth0.note(for: config))
        #expect(with.hasPrefix("Auth0: ") && !with.contains("--audience") && with.contains("DPoP"), "\(with)")
        let logto = try #require(PresetCatalog.builtIn.preset(named: "logto"))
        var logtoConfig = try logto.makeProvider(id: ProviderID("l"), clientID: "c", domain: "auth.example.com", tenant: nil)
        #expect(logto.note(for: logtoConfig)?.contains("add --resource") == true)
        logtoConfig.resources = ["https://api.example"]
        #expect(logto.note(for: logtoConfig) == nil)
    }

    @Test("A host name that does not resolve is said as such, with what to check, never only 'temporary'; other connection failures keep no step")
    func unresolvedHostNotOnlyTemporary() {
        let dns = ErrorMapping.appError(AuthError.transport(.connection(url: "https://op.test/o/token/", detail: "Could not resolve host: op.test")))
        #expect(dns.nextStep?.contains("op.test does not resolve") == true, "\(String(describing: dns.nextStep))")
        #expect(dns.nextStep?.contains("typo") == true && dns.nextStep?.contains("temporar") == false)
        if case .transient = dns.disposition {} else { Issue.record("still retried by check: \(dns.disposition)") }
        let nested = ErrorMapping.appError(AuthError.resourceStep(.resourceChallenge, url: "https://mcp.test/mcp",
                                                                  cause: .transport(.connection(url: "https://mcp.test/mcp", detail: "Could not resolve host: mcp.test"))))
        #expect(nested.nextStep?.contains("mcp.test does not resolve") == true)
        let refused = ErrorMapping.appError(AuthError.transport(.connection(url: "https://op.test/o/token/", detail: "Connection refused")))
        #expect(refused.nextStep == nil)
    }
}
