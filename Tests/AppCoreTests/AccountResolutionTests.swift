import AppCore
import FoundationEssentials
import Testing

/// ``AccountResolution``: the one rule for "which account" under the CLI and the accounts screen.
@Suite("Account resolution: argument, AUTHDECK_ACCOUNT, the active account, the only account")
struct AccountResolutionTests {
    let alice = record("alice"), bob = record("bob")

    @Test("No query: AUTHDECK_ACCOUNT (alias, id or prefix), else the active account, else the only one")
    func defaultAccount() throws {
        var work = alice
        work.alias = "work"
        #expect(try AccountResolution.resolve(nil, accounts: [work, bob], active: bob.id, environmentAccount: "work").id == alice.id)
        #expect(try AccountResolution.resolve(nil, accounts: [work, bob], active: bob.id, environmentAccount: "local/al").id == alice.id)
        #expect(try AccountResolution.resolve(nil, accounts: [work, bob], active: bob.id, environmentAccount: "").id == bob.id)
        #expect(try AccountResolution.resolve(nil, accounts: [work, bob], active: bob.id, environmentAccount: nil).id == bob.id)
        // A damaged or stale active.json: with exactly one account, that one.
        #expect(try AccountResolution.resolve(nil, accounts: [alice], active: nil, environmentAccount: nil).id == alice.id)
        #expect(try AccountResolution.resolve(nil, accounts: [alice], active: bob.id, environmentAccount: nil).id == alice.id)
        #expect(throws: AccountResolutionError.noDefault(known: ["local/alice", "local/bob"])) {
            try AccountResolution.resolve(nil, accounts: [alice, bob], active: nil, environmentAccount: nil)
        }
        #expect(throws: AccountResolutionError.noAccounts) { try AccountResolution.resolve(nil, accounts: [], active: nil, environmentAccount: "x") }
    }

    @Test("A query: exact alias, id or handle first, then one prefix; none or several are errors naming the source")
    func queries() throws {
        #expect(try AccountResolution.resolve("bob", accounts: [alice, bob], active: alice.id, environmentAccount: "alice").id == bob.id)
        #expect(try AccountResolution.resolve("local/b", accounts: [alice, bob], active: nil, environmentAccount: nil).id == bob.id)
        #expect(throws: AccountResolutionError.ambiguous(query: "local/", source: .argument, matches: ["local/alice", "local/bob"])) {
            try AccountResolution.resolve("local/", accounts: [alice, bob], active: nil, environmentAccount: nil)
        }
        #expect(throws: AccountResolutionError.noMatch(query: "", source: .argument, known: ["local/alice", "local/bob"])) {
            try AccountResolution.resolve("", accounts: [alice, bob], active: alice.id, environmentAccount: nil)
        }
        #expect(throws: AccountResolutionError.noMatch(query: "carol", source: .environment, known: ["local/alice", "local/bob"])) {
            try AccountResolution.resolve(nil, accounts: [alice, bob], active: nil, environmentAccount: "carol")
        }
    }

    @Test("Names are compared byte for byte: a canonically equivalent alias (é vs e + U+0301) is another name")
    func exactComparison() {
        var composed = alice
        composed.alias = "caf\u{E9}"
        #expect(throws: AccountResolutionError.noMatch(query: "cafe\u{301}", source: .argument, known: ["caf\u{E9} (local/alice)", "local/bob"])) {
            try AccountResolution.resolve("cafe\u{301}", accounts: [composed, bob], active: nil, environmentAccount: nil)
        }
    }

    @Test("The accounts screen marks what the CLI resolves: an alias in AUTHDECK_ACCOUNT, and the only account when none is active")
    func screenAgreesWithTheCLI() {
        var work = alice
        work.alias = "work"
        var state = loadedState([work, bob], active: bob.id)
        state.environmentAccount = "work"
        #expect(state.effectiveActiveAccountID == alice.id)
        let single = loadedState([alice], active: nil)
        #expect(single.effectiveActiveAccountID == alice.id)
    }

    @Test("Aliases: blank, '/', control or invisible characters are refused; look-alikes and shadowed usernames are noted")
    func aliasRules() {
        for bad in ["", " ", "\t", "a/b", "x\ty", "x\u{1B}[31m", "zero\u{200B}width"] {
            #expect(AccountResolution.aliasProblem(bad) != nil, "\(bad.debugDescription)")
        }
        #expect(AccountResolution.aliasProblem("café work") == nil)
        var composed = alice
        composed.alias = "caf\u{E9}"
        #expect(AccountResolution.aliasConflicts("cafe\u{301}", among: [composed, bob]).first?.contains("looks the same") == true)
        #expect(AccountResolution.aliasConflicts("caf\u{E9}", among: [composed, bob]).first?.contains("is used by local/alice") == true)
        #expect(AccountResolution.aliasConflicts("alice", among: [composed, bob]).first?.contains("is also local/alice's name") == true)
        #expect(AccountResolution.aliasConflicts("work", among: [composed, bob]).isEmpty)
    }
}
