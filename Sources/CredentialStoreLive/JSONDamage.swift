import CredentialStore
import FoundationEssentials
import StrictJSON

/// What is wrong with a JSON file that did not read: empty, not JSON, cut short, written twice,
/// the wrong shape, or one record that does not read. The JSON is judged by StrictJSON's parser
/// (jansson: ``JSONSyntaxError``) and the shape by ``JSONShapeError``; neither quotes the file's
/// text (it may hold a secret), only positions, field paths and a duplicated member's name.
enum JSONDamage {
    /// The damage of `data`, which ``parseJSON(_:)`` refused with `error`.
    static func classify(_ error: JSONSyntaxError, data: Data) -> SecretStoreError.CorruptionReason {
        SecretStoreError.CorruptionReason(syntax: error, in: data)
    }

    /// Valid JSON that is not what authdeck writes: one record of the top-level list at fault, or
    /// the wrong shape.
    static func classify(_ error: JSONShapeError) -> SecretStoreError.CorruptionReason {
        SecretStoreError.CorruptionReason(shape: error)
    }

    /// Reads `data` as one JSON document through `read`.
    /// - Throws: ``SecretStoreError/corrupt(file:reason:)`` naming `file` and the damage.
    static func read<Value>(_ data: Data, file: String, _ read: (JSONValue) throws(JSONShapeError) -> Value) throws(SecretStoreError) -> Value {
        let value: JSONValue
        do {
            value = try parseJSONValue(data, maximumDepth: maximumStoredJSONDepth)
        } catch {
            throw .corrupt(file: file, reason: classify(error, data: data))
        }
        do {
            return try read(value)
        } catch {
            throw .corrupt(file: file, reason: classify(error))
        }
    }
}
