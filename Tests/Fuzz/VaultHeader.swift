// libFuzzer target (scripts/fuzz vault): the vault file reader's header decoding and its
// accounts document. Compiled together with CredentialStoreLive's VaultFormat, Sodium and
// JSONDamage files (internal types). When the first input byte is even, the header checksum
// (BLAKE2b-256 of bytes 0..<108, at 108..<140) is fixed up first, so the fuzzer gets past it
// to the fields behind it.
import CredentialStore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVaultHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let fixChecksum = data[0] % 2 == 0
    var file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if fixChecksum, file.count >= VaultHeader.length {
        let body = Array(file[0..<VaultHeader.bodyLength])
        file.replaceSubrange(VaultHeader.bodyLength..<VaultHeader.length, with: Sodium.genericHash(body, length: 32))
    }
    do {
        let header = try VaultHeader.decode(file, path: "vault")
        _ = String(describing: header)
    } catch {
        _ = String(describing: error)
    }
    // The decrypted accounts document, as if the plaintext were these bytes.
    _ = try? AccountsDocument.decode(file, path: "vault")
    return 0
}

// FileLock.swift's helper, which VaultFormat uses for the key cache id; the rest of that file
// (locks, private files) is not part of this target.
extension Sequence<UInt8> {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
