import AppCore
import Synchronization
import Testing

@Suite("Effect")
struct EffectTests {
    @Test("map (a parent scoping a child's effect): sent and run actions come back transformed, the ids kept for cancelling")
    func map() async throws {
        let child = Effect<Int>.merge(.send(1), Effect<Int>.run { send in send(2) }.cancellable(EffectID("child")), .cancel(EffectID("other")))
        let parent = child.map { "child \($0)" }
        guard case .merge(let effects) = parent.operation, effects.count == 3 else {
            Issue.record("not a merge of three: \(parent.operation)")
            return
        }
        guard case .send(let sent) = effects[0].operation else { Issue.record("not a send"); return }
        #expect(sent == "child 1")
        guard case .cancellable(let id, let inner) = effects[1].operation, case .run(let body) = inner.operation else {
            Issue.record("not a cancellable run")
            return
        }
        #expect(id == EffectID("child"))
        let received = Mutex<[String]>([])
        await body(Send { action in received.withLock { $0.append(action) } })
        #expect(received.withLock { $0 } == ["child 2"])
        guard case .cancel(let cancelled) = effects[2].operation else { Issue.record("not a cancel"); return }
        #expect(cancelled == EffectID("other"))
        #expect(Effect<Int>.none.map { "\($0)" }.isNone)
    }
}
