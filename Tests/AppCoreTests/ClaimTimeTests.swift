import AppCore
import Foundation
import Testing

/// Timestamp units of known claims are preset data (`claimTimeUnits`), read by the one
/// function every claim view uses (``ClaimTime/date(claim:_:provider:)``).
@Suite("Claim timestamp units from the provider (ClaimTime)")
struct ClaimTimeTests {
    private func logto() throws -> ProviderConfig {
        let preset = try #require(PresetCatalog.builtIn.preset(named: "logto"))
        return try preset.makeProvider(id: ProviderID("logto"), clientID: "app", domain: "tenant.logto.app", tenant: nil)
    }

    @Test("Logto preset: created_at and updated_at declared in milliseconds")
    func logtoPresetDeclaresMilliseconds() throws {
        #expect(try logto().claimTimeUnits == ["created_at": .ms, "updated_at": .ms])
    }

    @Test("Logto: a millisecond created_at below the 1e11 guess (1973) is read as milliseconds only with the setting")
    func logtoSmallMillisecondValue() throws {
        let value = 99_000_000_000.0  // 1973-02-19 as milliseconds; year 5107 as seconds
        let logto = try #require(ClaimTime.date(claim: "created_at", value, provider: try logto()))
        #expect(logto.date.timeIntervalSince1970 == 99_000_000 && logto.isMilliseconds)
        let guessed = try #require(ClaimTime.date(claim: "created_at", value, provider: nil))
        #expect(guessed.date.timeIntervalSince1970 == value && !guessed.isMilliseconds)
    }

    @Test("Logto: exp and iat stay RFC 7519 §2 NumericDate seconds; updated_at in ms as the right date")
    func logtoOtherClaimsAreSeconds() throws {
        let provider = try logto()
        #expect(ClaimTime.date(claim: "exp", 1_900_000_000, provider: provider)?.date.timeIntervalSince1970 == 1_900_000_000)
        let updated = try #require(ClaimTime.date(claim: "updated_at", 1_760_000_000_456, provider: provider))
        #expect(abs(updated.date.timeIntervalSince1970 - 1_760_000_000.456) < 0.001 && updated.isMilliseconds)
    }

    @Test("A declared unit makes a claim a timestamp even without the _at suffix; 's' overrides the guess")
    func declaredUnitsWin() {
        var provider = ProviderConfig(id: ProviderID("custom"), issuer: URL(string: "https://op.example"), clientID: "c")
        provider.claimTimeUnits = ["last_login": .ms, "big_at": .s]
        #expect(ClaimTime.date(claim: "last_login", 1_700_000_000_000, provider: provider)?.date.timeIntervalSince1970 == 1_700_000_000)
        #expect(ClaimTime.date(claim: "last_login", 1_700_000_000_000, provider: nil) == nil, "not a timestamp claim without the setting")
        #expect(ClaimTime.date(claim: "big_at", 2e11, provider: provider)?.isMilliseconds == false)
        #expect(ClaimTime.date(claim: "big_at", 2e11, provider: nil)?.isMilliseconds == true, "the fallback for providers without a setting")
    }

    @Test("No setting (decode, a hand-added or older stored provider): values above 1e11 are still milliseconds")
    func fallbackKeepsOldProvidersRight() {
        let stored = ProviderConfig(id: ProviderID("logto-old"), issuer: URL(string: "https://t.logto.app/oidc"), clientID: "c")
        let read = ClaimTime.date(claim: "created_at", 1_700_000_000_123, provider: stored)
        #expect(read?.isMilliseconds == true)
        #expect(ClaimTime.date(claim: "exp", -1, provider: stored) == nil)
        #expect(ClaimTime.date(claim: "name", 5, provider: stored) == nil)
    }

    @Test("The registered NumericDate claims are seconds whatever their size (RFC 7519 §4.1.4): exp 9999-12-31 is not 1978, exp in ms is far ahead")
    func registeredClaimsAreSeconds() {
        for claim in ["exp", "nbf", "iat", "auth_time"] {
            let far = ClaimTime.date(claim: claim, 253_402_300_799, provider: nil)
            #expect(far?.date.timeIntervalSince1970 == 253_402_300_799 && far?.isMilliseconds == false, "\(claim)")
        }
        #expect(ClaimTime.date(claim: "exp", 1_796_165_785_000, provider: nil)?.date.timeIntervalSince1970 == 1_796_165_785_000)
        #expect(ClaimTime.date(claim: "updated_at", 1_796_165_785_000, provider: nil)?.isMilliseconds == true, "other *_at claims keep the guess")
    }
}

@Suite("Countdowns of absurdly far times do not trap")
struct FarTimeTests {
    @Test("exp: 1e300 and -1e300 (a claim) give the clamped count, not a trapping Int conversion")
    func farTimes() {
        let now = Date(timeIntervalSince1970: 1_764_585_649)
        #expect(TimeText.secondsUntil(Date(timeIntervalSince1970: 1e300), now: now) == Int(TimeText.farSeconds))
        #expect(TimeText.secondsUntil(Date(timeIntervalSince1970: -1e300), now: now) == -Int(TimeText.farSeconds))
        #expect(!TimeText.countdown(to: Date(timeIntervalSince1970: 1e300), now: now).isEmpty)
        #expect(!TimeText.relative(Date(timeIntervalSince1970: -1e300), now: now).isEmpty)
        #expect(!TimeText.absolute(Date(timeIntervalSince1970: 1e300), timeZone: .utc).isEmpty)
    }
}
