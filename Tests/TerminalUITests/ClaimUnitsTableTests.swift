import AppCore
import Foundation
import Testing
@testable import TerminalUI

@Suite("Claims table: timestamp units from the provider")
struct ClaimUnitsTableTests {
    @Test("Logto's claimTimeUnits: a millisecond created_at below the 1e11 guess shows its 1973 date marked (ms); without the provider it is seconds")
    func logtoUnitsInTheClaimTable() throws {
        var logto = ProviderConfig(id: ProviderID("logto"), issuer: URL(string: "https://t.logto.app/oidc"), clientID: "app")
        logto.claimTimeUnits = ["created_at": .ms, "updated_at": .ms]
        let claims = ClaimValue.object([ClaimMember(key: "created_at", value: .number(99_000_000_000))])
        let utc = DisplayTimeZone.utc
        let now = Date(timeIntervalSince1970: 1_796_032_800)
        let withUnits = try #require(ClaimTable.rows(claims, now: now, timeZone: utc, provider: logto).first)
        #expect(withUnits.value == "1973-02-19 20:00:00 +00:00 (ms)")
        #expect(withUnits.isTimestamp)
        let guessed = try #require(ClaimTable.rows(claims, now: now, timeZone: utc).first)
        #expect(!guessed.value.hasSuffix("(ms)"))
    }
}
