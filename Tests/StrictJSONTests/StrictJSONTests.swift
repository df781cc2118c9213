import Foundation
import StrictJSON
import Testing

@Suite("StrictJSON: parse, serialize, typed reading")
struct StrictJSONTests {
    private func parse(_ text: String) -> Result<JSONValue, JSONSyntaxError> { parseJSON(Data(text.utf8)) }

    @Test("RFC 8259: a value written and read back is the same value (sorted keys, integers, reals, escapes)")
    func roundTrip() throws {
        let value: JSONValue = .object([
            "b": .array([.int(180), .number(1_764_585_649.123_456), .number(-0.5), .null, .bool(true), .bool(false)]),
            "a": .string("caf\u{E9} \"q\" \\ / \n \u{1F600}"),
            "nested": .object(["empty": .array([]), "obj": .object([:])]),
        ])
        for pretty in [false, true] {
            let data = value.serialized(pretty: pretty)
            #expect(try parseJSON(data).get() == value)
        }
        let compact = String(decoding: value.serialized(), as: UTF8.self)
        #expect(compact.hasPrefix(#"{"a":"#))
        #expect(compact.contains(#""b":[180,1764585649.123456"#))
        #expect(compact.contains("/"), "slashes are not escaped")
        #expect(!compact.contains("180.0"))
    }

    @Test("Pretty output: two-space indentation, sorted members, one per line")
    func prettyLayout() {
        let text = String(decoding: JSONValue.object(["z": .int(1), "a": .strings(["x"])]).serialized(pretty: true), as: UTF8.self)
        #expect(text == "{\n  \"a\": [\n    \"x\"\n  ],\n  \"z\": 1\n}")
    }

    @Test("A non-finite number is written as null, never as invalid JSON")
    func nonFinite() {
        #expect(String(decoding: JSONValue.array([.number(.infinity), .number(.nan)]).serialized(), as: UTF8.self) == "[null,null]")
    }

    @Test("RFC 8259 §4 hardening: duplicate names are refused with the name and its place")
    func duplicateNamed() {
        guard case .failure(let error) = parse("{\n \"a\": 1,\n \"a\": 2}") else { Issue.record("parsed"); return }
        #expect(error.kind == .duplicateMember("a"))
        #expect(error.line == 3)
    }

    @Test("Damage is classified: empty, cut short, text after the value, invalid (with a location, never the text)")
    func damageKinds() {
        #expect(parse("  \n").failureKind == .empty)
        #expect(parse("[{\"a\": 1}").failureKind == .prematureEnd)
        #expect(parse("[1] [2]").failureKind == .trailingData)
        #expect(parse("{\"secret-value\" 1}").failureKind == .invalid)
        if case .failure(let error) = parse("{\"secret-value\" 1}") {
            #expect(!error.description.contains("secret-value"))
            #expect(error.description.contains("line 1"))
        }
        #expect(parse("\"top-level string\"").failureKind == .invalid)
        #expect(parse(String(repeating: "[", count: 70) + String(repeating: "]", count: 70)).failureKind == .invalid)
    }

    @Test("JSONReader: types, null as absent, and errors naming the path")
    func readerPaths() throws {
        let value = try parse(#"{"s":"x","n":null,"i":3,"f":1.5,"b":true,"list":[{"d":"2026-12-01T10:20:49Z"},{"d":"yesterday"}],"m":{"k":"v"}}"#).get()
        let reader = try JSONReader(value)
        #expect(try reader.string("s") == "x")
        #expect(try reader.optionalString("n") == nil)
        #expect(try reader.optionalString("absent") == nil)
        #expect(try reader.int("i") == 3)
        #expect(throws: JSONShapeError(path: [.member("f")], expected: "a whole number")) { try reader.int("f") }
        #expect(throws: JSONShapeError(path: [.member("s")], expected: "true or false")) { try reader.bool("s") }
        #expect(throws: JSONShapeError(path: [.member("absent")], expected: "a string")) { try reader.string("absent") }
        #expect(try reader.stringMap("m") == ["k": "v"])
        let error = #expect(throws: JSONShapeError.self) {
            try reader.array("list") { (element, path) throws(JSONShapeError) in try JSONReader(element, path: path).date("d", .iso8601) }
        }
        #expect(error?.path == [.member("list"), .index(1), .member("d")])
        #expect(error?.description == "expected an ISO 8601 date at 'list[1].d'")
    }

    @Test("Dates: ISO 8601 with whole seconds and seconds since 1970, both round trip")
    func dates() throws {
        let date = Date(timeIntervalSince1970: 1_764_585_649)
        #expect(JSONValue.date(date, .iso8601) == .string("2025-12-01T10:40:49Z"))
        let reader = try JSONReader(.object(["a": .date(date, .iso8601), "b": .date(date.addingTimeInterval(0.25), .secondsSince1970)]))
        #expect(try reader.date("a", .iso8601) == date)
        #expect(try reader.date("b", .secondsSince1970) == date.addingTimeInterval(0.25))
    }

    @Test("object(omittingNil:) leaves nil members out")
    func omittingNil() {
        #expect(JSONValue.object(omittingNil: ["a": .int(1), "b": nil]) == .object(["a": .int(1)]))
    }
}

private extension Result where Failure == JSONSyntaxError {
    var failureKind: JSONSyntaxError.Kind? { if case .failure(let error) = self { error.kind } else { nil } }
}

@Suite("parseJSONValue: the throwing form of parseJSON")
struct ParseJSONValueTests {
    @Test("RFC 8259: the same value as parseJSON, and the same located error when refused")
    func sameAsResult() throws {
        let text = Data(#"{"a":[1,2.5,"x",true,null]}"#.utf8)
        #expect(try parseJSONValue(text) == (try parseJSON(text).get()))
        for bad in [" ", #"{"a":1"#, #"{"a":1}{"#, #"{"a":1,"a":2}"#, "nope"] {
            let data = Data(bad.utf8)
            #expect(throws: (parseJSON(data).failureValue!)) { try parseJSONValue(data) }
        }
    }
}

private extension Result {
    var failureValue: Failure? { if case .failure(let error) = self { error } else { nil } }
}

@Suite("StrictJSON: numbers written with their shortest digits")
struct StrictJSONNumberTests {
    @Test("0.1 stays 0.1; a 16-digit time keeps its digits; every real reads back to the same Double")
    func shortest() throws {
        #expect(String(decoding: JSONValue.array([.number(0.1), .number(2.5)]).serialized(), as: UTF8.self) == "[0.1,2.5]")
        let values: [Double] = [1_764_585_649.123456, 0.1, 1e-7, 123.456, 5e20, 0.30000000000000004, 2.0.nextUp, 1.0 / 3.0]
        for value in values {
            let text = JSONValue.array([.number(value), .number(0.1)]).serialized()
            #expect(try parseJSONValue(text) == .array([.number(value), .number(0.1)]), "\(value)")
        }
        #expect(String(decoding: JSONValue.number(1e-7).serialized(), as: UTF8.self) == "1e-7")
    }
}

@Suite("StrictJSON: a byte order mark")
struct StrictJSONByteOrderMarkTests {
    @Test("RFC 8259 §8.1: a leading UTF-8 BOM (an editor's) is ignored; one inside the text is not")
    func leadingBOM() throws {
        #expect(try parseJSONValue(Data([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))) == .object(["a": .int(1)]))
        #expect(throws: JSONSyntaxError.self) { try parseJSONValue(Data(Array(#"{"a":1}"#.utf8) + [0xEF, 0xBB, 0xBF])) }
        #expect(throws: JSONSyntaxError.self) { try parseJSONValue(Data([0xEF, 0xBB, 0xBF])) }
    }
}
