import AppCore
import AuthEngine
import FoundationEssentials
import Testing

/// One precedence everywhere — argument, `$AUTHDECK_ACCOUNT`, git config, the
/// directory rule, the active account, the only account — with the source of the choice.
@Suite("Account precedence: argument, environment, git config, directory rule, active")
struct AccountPrecedenceTests {
    static let alice = record("alice"), bob = record("bob"), carol = record("carol"), dave = record("dave"), erin = record("erin")
    static let accounts = [alice, bob, carol, dave, erin]
    static let gitConfig = GitConfigAccount(value: "local/carol", file: "/home/u/.gitconfig", scope: "global")
    static let rule = DirectoryBinding(directory: "/home/u/work", account: dave.id)

    /// One row: which inputs are set, and the account and source expected.
    struct Row: Sendable, CustomTestStringConvertible {
        var argument: String?
        var environment: String?
        var git: Bool
        var rule: Bool
        var active: Bool
        var expected: AccountID
        var source: AccountSource
        var testDescription: String {
            [argument.map { _ in "argument" }, environment.map { _ in "environment" }, git ? "git config" : nil, rule ? "rule" : nil, active ? "active" : nil]
                .compactMap { $0 }.joined(separator: "+") + " → \(source.label)"
        }
    }

    static let table: [Row] = [
        Row(argument: "local/alice", environment: "local/bob", git: true, rule: true, active: true, expected: alice.id, source: .argument),
        Row(argument: nil, environment: "local/bob", git: true, rule: true, active: true, expected: bob.id, source: .environment),
        Row(argument: nil, environment: "", git: true, rule: true, active: true, expected: carol.id, source: .gitConfig(file: "/home/u/.gitconfig")),
        Row(argument: nil, environment: nil, git: true, rule: true, active: true, expected: carol.id, source: .gitConfig(file: "/home/u/.gitconfig")),
        Row(argument: nil, environment: nil, git: false, rule: true, active: true, expected: dave.id, source: .rule(directory: "/home/u/work")),
        Row(argument: nil, environment: nil, git: false, rule: false, active: true, expected: erin.id, source: .active),
        Row(argument: "local/alice", environment: nil, git: false, rule: false, active: false, expected: alice.id, source: .argument),
        Row(argument: nil, environment: "local/bob", git: false, rule: false, active: false, expected: bob.id, source: .environment),
    ]

    @Test("Each input wins over the ones after it", arguments: table)
    func precedence(_ row: Row) throws {
        let place = AccountPlace(directory: "/home/u/work/repo", gitConfig: row.git ? Self.gitConfig : nil, rule: row.rule ? Self.rule : nil)
        let choice = try AccountResolution.choose(row.argument, accounts: Self.accounts, active: row.active ? Self.erin.id : nil,
                                                  environmentAccount: row.environment, place: place)
        #expect(choice.record.id == row.expected)
        #expect(choice.source == row.source)
    }

    @Test("With nothing set: the only account, else no default")
    func nothingSet() throws {
        #expect(try AccountResolution.choose(nil, accounts: [Self.alice], active: nil, environmentAccount: nil, place: .nowhere).source == .onlyAccount)
        #expect(throws: AccountResolutionError.noDefault(known: ["local/alice", "local/bob"])) {
            try AccountResolution.choose(nil, accounts: [Self.alice, Self.bob], active: nil, environmentAccount: nil, place: .nowhere)
        }
    }

    @Test("A rule to an account that is gone is an error naming the rule, never the active account")
    func ruleToRemovedAccount() {
        let place = AccountPlace(directory: "/home/u/work", rule: DirectoryBinding(directory: "/home/u/work", account: "local/zed"))
        #expect(throws: AccountResolutionError.ruleAccountMissing(directory: "/home/u/work", account: "local/zed")) {
            try AccountResolution.choose(nil, accounts: Self.accounts, active: Self.erin.id, environmentAccount: nil, place: place)
        }
        let unreadable = AccountPlace(directory: "/home/u/work", rulesProblem: "bindings.json is damaged")
        #expect(throws: AccountResolutionError.rulesUnreadable("bindings.json is damaged")) {
            try AccountResolution.choose(nil, accounts: Self.accounts, active: Self.erin.id, environmentAccount: nil, place: unreadable)
        }
    }

    @Test("A git config value that names nothing is an error naming its file")
    func gitConfigNamesNothing() {
        let place = AccountPlace(gitConfig: GitConfigAccount(value: "zed", file: "/r/.git/config", scope: "local"))
        #expect(throws: AccountResolutionError.noMatch(query: "zed", source: .gitConfig(file: "/r/.git/config"), known: Self.accounts.map(AccountResolution.describe))) {
            try AccountResolution.choose(nil, accounts: Self.accounts, active: Self.erin.id, environmentAccount: nil, place: place)
        }
    }

    @Test("Rules match by whole components of the real path, the longest wins, byte for byte")
    func ruleMatching() {
        let rules = [DirectoryBinding(directory: "/w", account: "a"), DirectoryBinding(directory: "/w/deep", account: "b"),
                     DirectoryBinding(directory: "/caf\u{E9}", account: "c")]
        #expect(DirectoryBinding.match("/w/deep/x", in: rules)?.account == "b")
        #expect(DirectoryBinding.match("/w/deeper", in: rules)?.account == "a")
        #expect(DirectoryBinding.match("/w", in: rules)?.account == "a")
        #expect(DirectoryBinding.match("/wx", in: rules) == nil)
        #expect(DirectoryBinding.match("/cafe\u{301}/x", in: rules) == nil)
        #expect(DirectoryBinding.match("/anything", in: [DirectoryBinding(directory: "/", account: "r")])?.account == "r")
    }

    @Test("Git config: the user's scopes and the repository's .git count; a file the repository includes from its work tree does not")
    func gitConfigScopes() {
        let output = "global\0file:/home/u/.gitconfig\0g\0global\0file:/home/u/work.inc\0inc\0local\0file:.git/config\0loc\0local\0file:/repo/.gitconfig\0committed\0"
        let entries = GitConfigAccount.entries(output, directory: "/repo")
        #expect(entries.map(\.file) == ["/home/u/.gitconfig", "/home/u/work.inc", "/repo/.git/config", "/repo/.gitconfig"])
        let counted = GitConfigAccount.counted(entries, gitDirectories: ["/repo/.git"])
        #expect(counted.account?.value == "loc", "the last value that counts wins; the committed file's does not count")
        #expect(counted.notes.count == 1 && counted.notes[0].contains("/repo/.gitconfig"))
        let command = GitConfigAccount.entries("command\0command line:\0cmd\0", directory: "/repo")
        #expect(GitConfigAccount.counted(command, gitDirectories: []).account == GitConfigAccount(value: "cmd", file: "command line", scope: "command"))
        // Outside a repository (no git directory), a local-scope entry cannot count.
        #expect(GitConfigAccount.counted(entries.filter { $0.scope == "local" }, gitDirectories: []).account == nil)
    }

    @Test("bindings.json reads back what it writes; a wrong member is named")
    func bindingsJSON() throws {
        let rules = [DirectoryBinding(directory: "/w", account: "local/alice")]
        #expect(try DirectoryBinding.list(json: DirectoryBinding.json(rules)) == rules)
        #expect(try DirectoryBinding.list(json: .object([:])) == [])
        #expect(throws: JSONShapeError.self) { try DirectoryBinding.list(json: .object(["bindings": .array([.object(["directory": .string("/w")])])])) }
    }
}
