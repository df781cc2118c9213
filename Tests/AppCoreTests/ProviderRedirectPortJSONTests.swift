import AppCore
import Foundation
import StrictJSON
import Testing

@Suite("providers.json: redirectPort")
struct ProviderRedirectPortJSONTests {
    @Test("redirectPort is kept as a number and read back; absent is nil; 0, 65536 and a string are refused naming the member")
    func roundTrip() throws {
        var config = ProviderConfig(id: "exact", issuer: URL(string: "https://op.example"), clientID: "c")
        config.redirectPort = 8765
        #expect(try ProviderConfig(json: config.json).redirectPort == 8765)
        #expect(try ProviderConfig(json: ProviderConfig(id: "p", issuer: nil, clientID: "c").json).redirectPort == nil)
        for bad: JSONValue in [.number(0), .number(65536), .string("8765"), .number(80.5)] {
            guard case .object(var object) = config.json else { Issue.record("not an object"); return }
            object["redirectPort"] = bad
            #expect(throws: JSONShapeError.self) { try ProviderConfig(json: .object(object)) }
        }
        #expect(config.redirectURIsToRegister.signIn == "http://127.0.0.1:8765/callback")
        #expect(config.redirectURIsToRegister.signOut == "http://127.0.0.1:8765/logout-callback")
    }

    @Test("A preset may set the registered port (provider.redirectPort), as a provider that registers one fixed URI needs")
    func presetData() throws {
        let preset = try ProviderPreset.parse(Data("""
            {"name": "fixed-port", "displayName": "Fixed port", "identity": "idToken", "revocation": "rfc7009", "logout": "endSession",
             "provider": {"issuer": "https://op.example", "redirectPort": 8765},
             "sources": {"provider.redirectPort": "https://op.example/docs/redirect-uris"}}
            """.utf8), file: "fixed-port.json")
        let config = try preset.makeProvider(id: "fp", clientID: "c", domain: nil, tenant: nil)
        #expect(config.redirectPort == 8765 && config.fixedRedirectPort == 8765)
    }
}
