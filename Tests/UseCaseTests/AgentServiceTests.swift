import AppCore
import AuthEngine
import Foundation
import StrictJSON
import Synchronization
import Testing

/// `authdeck agent`'s decisions, in process: the served accounts, the token through
/// the one refresh path, the refusals, `--confirm` and the log; the wire's parsing.
@Suite("Agent service (use case, stub environment)")
struct AgentServiceTests {
    final class Recorder: Sendable {
        let entries = Mutex<[AgentService.LogEntry]>([])
        let questions = Mutex<[AgentService.Question]>([])
    }

    let peer = AgentService.Peer(pid: 42, uid: 1000)

    func service(_ world: StubWorld, _ ids: [AccountID], allowIDToken: Bool = false, confirm: Bool = false,
                 answer: Bool = true, recorder: Recorder = Recorder()) -> AgentService {
        AgentService(env: world.environment(), policy: .init(accounts: ids, allowIDToken: allowIDToken, confirm: confirm),
                     ask: { question in recorder.questions.withLock { $0.append(question) }; return answer },
                     record: { entry in recorder.entries.withLock { $0.append(entry) } })
    }

    func request(_ account: String? = nil, idToken: Bool = false, command: String = "token") -> AgentRequest {
        AgentRequest(operation: .token, account: account, idToken: idToken, command: command, host: "buildbox")
    }

    @Test("The default served account's access token, as 'token' gets it, logged; the answer holds no refresh token, ID token or secret")
    func servesAccessTokenOnly() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let recorder = Recorder()
        let ids = try AgentService.servedAccounts([], environmentAccount: nil, env: world.environment())
        #expect(ids == [alice.record.id])
        let answer = await service(world, ids, recorder: recorder).answer(request(), peer: peer)
        let secrets = try #require(world.storedSecrets())
        guard case .token(let issued) = answer else { Issue.record("\(answer)"); return }
        #expect(issued.token.exposedValue == secrets.defaultAccessToken?.token.exposedValue)
        #expect(issued.kind == "access_token")
        let wire = String(decoding: answer.json.serialized(), as: UTF8.self)
        let refresh = try #require(secrets.refreshToken?.exposedValue), id = try #require(secrets.idToken?.exposedValue)
        #expect(!wire.contains(refresh) && !wire.contains(id))
        #expect(try AgentAnswer.parse(Array(answer.json.serialized())) == answer, "the remote reads what the agent wrote")
        let entries = recorder.entries.withLock { $0 }
        #expect(entries.map(\.outcome) == ["allowed"] && entries.first?.account == "op/alice" && entries.first?.host == "buildbox")
    }

    @Test("An account not forwarded is not found by the remote, and is named as such; an ID token only when allowed")
    func refusesWhatIsNotServed() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        _ = try await signedIn(world, as: "bob")
        let recorder = Recorder()
        let agent = service(world, [alice.record.id], recorder: recorder)
        guard case .failure(let other) = await agent.answer(request("op/bob"), peer: peer) else { Issue.record("bob was served"); return }
        #expect(other.code == .usage && other.title.contains("op/bob"), "\(other)")
        guard case .failure(let id) = await agent.answer(request(idToken: true), peer: peer) else { Issue.record("an ID token was served"); return }
        #expect(id.code == .refused && id.nextStep?.contains("--allow-id-token") == true)
        guard case .token(let issued) = await service(world, [alice.record.id], allowIDToken: true).answer(request(idToken: true), peer: peer) else {
            Issue.record("an allowed ID token was not served"); return
        }
        #expect(issued.kind == "id_token" && issued.token.exposedValue == world.storedSecrets()?.idToken?.exposedValue)
        #expect(recorder.entries.withLock { $0.map(\.outcome) } == ["usage", "refused"])
    }

    @Test("A DPoP-bound account is refused with the reason: its key stays here (RFC 9449)")
    func refusesDPoPBoundAccount() async throws {
        let world = StubWorld()
        world.provider.script.withLock { $0.dpopAlgorithms = ["ES256"] }
        let alice = try await signedIn(world)
        #expect(alice.record.isSenderConstrained)
        guard case .failure(let failure) = await service(world, [alice.record.id]).answer(request(), peer: peer) else {
            Issue.record("a DPoP-bound token was forwarded"); return
        }
        #expect(failure.code == .refused && failure.title.contains("DPoP"))
    }

    @Test("--confirm: answered no is denied (named, logged); answered yes is asked once per account, host and program")
    func confirmAsksOncePerProgram() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        let recorder = Recorder()
        guard case .failure(let denied) = await service(world, [alice.record.id], confirm: true, answer: false, recorder: recorder)
            .answer(request(), peer: peer) else { Issue.record("served without an answer"); return }
        #expect(denied.code == .denied)
        let agent = service(world, [alice.record.id], confirm: true, recorder: recorder)
        for _ in 0..<2 { guard case .token = await agent.answer(request(command: "git-credential get"), peer: peer) else { Issue.record("not served"); return } }
        guard case .token = await agent.answer(request(command: "token"), peer: peer) else { Issue.record("not served"); return }
        #expect(recorder.questions.withLock { $0.map(\.command) } == ["token", "git-credential get", "token"])
        #expect(recorder.entries.withLock { $0.map(\.outcome) } == ["denied", "allowed", "allowed", "allowed"])
    }

    @Test("--confirm: the question and the log show the resource; an approval is keyed on the resource too; git's erase (a refresh) is asked")
    func confirmKeyedOnResource() async throws {
        let world = StubWorld()
        GitCredentialsTests.served(world)
        let alice = try await signedIn(world)
        let recorder = Recorder()
        let agent = service(world, [alice.record.id], confirm: true, recorder: recorder)
        func token(_ resource: String) async -> AgentAnswer {
            await agent.answer(AgentRequest(operation: .token, resource: resource, command: "token", host: "buildbox"), peer: peer)
        }
        _ = await token("https://a.example/")
        _ = await token("https://a.example/")
        _ = await token("https://b.example/")
        #expect(recorder.questions.withLock { $0.map(\.resource) } == ["https://a.example/", "https://b.example/"])
        #expect(recorder.entries.withLock { $0.map(\.resource) } == ["https://a.example/", "https://a.example/", "https://b.example/"])
        let denying = service(world, [alice.record.id], confirm: true, answer: false, recorder: recorder)
        let erase = AgentRequest(operation: .gitCredentialErase, command: "git-credential erase", host: "buildbox",
                                 helperInput: "protocol=https\nhost=git.example.com\n\n")
        guard case .failure(let denied) = await denying.answer(erase, peer: peer) else { Issue.record("an erase was not asked"); return }
        #expect(denied.code == .denied)
    }

    @Test("8 agent requests and 8 local 'token' callers at an expiry: exactly one refresh request")
    func remoteAndLocalCallersShareOneRefresh() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        world.advance(3600 - 30)
        let agent = service(world, [alice.record.id])
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    guard case .token(let issued) = await agent.answer(request(), peer: peer) else { return nil }
                    return issued.token.exposedValue
                }
                group.addTask {
                    try? await TokenForScripts(world.environment()).accessToken(alice.record.id, minimumValidity: .seconds(60)).value.exposedValue
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(world.provider.count("/token") == 2, "one exchange, one refresh")
        #expect(Set(tokens).count == 1 && tokens.allSatisfy { $0 != nil }, "\(tokens.count) callers, one token")
    }

    @Test("git's request through the agent: the helper's own rules over the served accounts only; an unserved account is never chosen")
    func gitCredentialOverServedAccounts() async throws {
        let world = StubWorld()
        GitCredentialsTests.served(world)
        let alice = try await signedIn(world)
        _ = try await signedIn(world, as: "bob")
        let agent = service(world, [alice.record.id])
        func ask(_ lines: String, _ operation: AgentRequest.Operation = .gitCredentialGet) async -> AgentAnswer {
            await agent.answer(AgentRequest(operation: operation, command: "git-credential get", host: "buildbox", helperInput: lines), peer: peer)
        }
        // Locally alice and bob both serve git.example.com (no choice); forwarded, only alice is there.
        guard case .token(let issued) = await ask("protocol=https\nhost=git.example.com\n\n") else { Issue.record("no credential"); return }
        #expect(issued.username == "oauth2" && issued.account == "op/alice")
        #expect(issued.token.exposedValue == world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        #expect(await ask("protocol=https\nhost=github.com\n\n") == .nothing, "a host no provider serves: nothing, as locally")
        guard case .failure(let bob) = await ask("protocol=https\nhost=git.example.com\nusername=op/bob\n\n") else {
            Issue.record("bob was served"); return
        }
        #expect(bob.code == .usage, "\(bob)")
        guard case .failure(let bad) = await ask("no equals sign\n\n") else { Issue.record("a bad request was read"); return }
        #expect(bad.code == .badRequest)
    }

    @Test("docker's request through the agent: the registry's account; plain http off loopback refused by the helper's own rule")
    func dockerCredentialThroughAgent() async throws {
        let world = StubWorld()
        world.files.withLock { $0.providers[0].containerRegistries = [CredentialHost(host: "*.gcr.io")] }
        let alice = try await signedIn(world)
        let agent = service(world, [alice.record.id])
        func ask(_ url: String) async -> AgentAnswer {
            await agent.answer(AgentRequest(operation: .dockerCredentialGet, command: "docker-credential get", host: "h", helperInput: url), peer: peer)
        }
        guard case .token(let issued) = await ask("https://eu.gcr.io") else { Issue.record("no credential"); return }
        #expect(issued.username != nil && issued.token.exposedValue == world.storedSecrets()?.defaultAccessToken?.token.exposedValue)
        guard case .failure(let http) = await ask("http://eu.gcr.io") else { Issue.record("a token for plain http"); return }
        #expect(http.title.contains("only over https"), "\(http)")
        #expect(await ask("https://quay.io") == .nothing)
    }

    @Test("accounts: the served ones only, the chosen one marked; the directory rules of the agent's own place play no part")
    func accountsListsServedOnly() async throws {
        let world = StubWorld()
        let alice = try await signedIn(world)
        _ = try await signedIn(world, as: "bob")
        let answer = await service(world, [alice.record.id]).answer(AgentRequest(operation: .accounts, command: "status", host: "h"), peer: peer)
        guard case .accounts(let accounts) = answer else { Issue.record("\(answer)"); return }
        #expect(accounts.map(\.handle) == ["op/alice"] && accounts[0].isDefault && accounts[0].expiresAt != nil)
        #expect(try AgentAnswer.parse(Array(answer.json.serialized())) == answer)
    }

    @Test("The remote's place (its git config, its 'bind' rule) chooses among the served accounts by the one rule; a rule naming one not served is an error, never another account")
    func remotePlaceChoosesServedAccount() async throws {
        let world = StubWorld()
        GitCredentialsTests.served(world)
        let alice = try await signedIn(world)
        let bob = try await signedIn(world, as: "bob")
        let carol = try await signedIn(world, as: "carol")
        let agent = service(world, [alice.record.id, bob.record.id])
        let rule = AccountPlace(directory: "/srv/work/app", rule: DirectoryBinding(directory: "/srv/work", account: bob.record.id))
        func ask(_ operation: AgentRequest.Operation, _ place: AccountPlace?, environment: String? = nil,
                 input: String? = nil) async -> AgentAnswer {
            let request = AgentRequest(operation: operation, environmentAccount: environment, command: "token", host: "buildbox",
                                       helperInput: input, place: place)
            #expect((try? AgentRequest.parse(Array(request.json.serialized()))) == request, "the place crosses the wire as it is")
            return await agent.answer(request, peer: peer)
        }
        func account(_ answer: AgentAnswer) -> String? { if case .token(let issued) = answer { issued.account } else { nil } }
        #expect(account(await ask(.token, nil)) == "op/alice", "no place: the agent's default (carol is not served)")
        #expect(account(await ask(.token, rule)) == "op/bob", "the rule's account")
        #expect(account(await ask(.token, rule, environment: "op/alice")) == "op/alice", "AUTHDECK_ACCOUNT before the rule, as locally")
        let git = AccountPlace(directory: "/srv/work", gitConfig: GitConfigAccount(value: "alice", file: "/home/r/.gitconfig", scope: "global"),
                               rule: rule.rule)
        #expect(account(await ask(.token, git)) == "op/alice", "git config before the rule")
        let helper = await ask(.gitCredentialGet, rule, input: "protocol=https\nhost=git.example.com\n\n")
        #expect(account(helper) == "op/bob", "git's helper: the rule settles two served accounts; \(helper)")
        guard case .accounts(let listed) = await ask(.accounts, rule) else { Issue.record("no accounts"); return }
        #expect(listed.filter(\.isDefault).map(\.id) == [bob.record.id.rawValue], "the rule's account is marked, with its id (bind keeps it)")
        let elsewhere = AccountPlace(directory: "/srv/x", rule: DirectoryBinding(directory: "/srv/x", account: carol.record.id))
        guard case .failure(let missing) = await ask(.token, elsewhere) else { Issue.record("a rule's unserved account fell back"); return }
        #expect(missing.code == .usage && missing.title.contains("/srv/x") && missing.title.contains(carol.record.id.rawValue), "\(missing)")
        let damaged = AccountPlace(directory: "/srv/x", rulesProblem: "bindings.json is damaged")
        guard case .failure(let unreadable) = await ask(.token, damaged) else { Issue.record("damaged rules were passed over"); return }
        #expect(unreadable.title.contains("bindings.json is damaged"), "\(unreadable)")
    }

    @Test("The wire: another version, a duplicate member and a request too long are refused by name")
    func wireRefusals() throws {
        let version = #"{"version":2,"operation":"token","command":"token","host":"h"}"#
        #expect(throws: AgentAnswer.Failure.self) { try AgentRequest.parse(Array(version.utf8)) }
        do { _ = try AgentRequest.parse(Array(version.utf8)) } catch { #expect(error.title.contains("version 2")) }
        let twice = #"{"version":1,"operation":"token","operation":"accounts","command":"token","host":"h"}"#
        do { _ = try AgentRequest.parse(Array(twice.utf8)); Issue.record("a duplicate member was read") } catch { #expect(error.code == .badRequest) }
        do { _ = try AgentRequest.parse([UInt8](repeating: 32, count: AgentRequest.maximumSize + 1)) } catch { #expect(error.title.contains("longer")) }
        let request = AgentRequest(operation: .accounts, account: "op/alice", resource: "https://api.example", command: "status", host: "h")
        #expect(try AgentRequest.parse(Array(request.json.serialized())) == request)
    }
}
