// The token path's cheaper reading: whole-second UTC dates by arithmetic instead of
// building Date.ISO8601FormatStyle, and parsing without a Result type; both must agree exactly
// with what they replace.
import Foundation
import Testing
@testable import StrictJSON

@Suite("StrictJSON: whole-second ISO 8601 dates and parseJSONValue")
struct DateAndThrowingParseTests {
    static let style = Date.ISO8601FormatStyle()

    @Test("RFC 3339 §5.6 YYYY-MM-DDTHH:MM:SSZ: the arithmetic gives the ISO8601FormatStyle date (epoch, leap days, centuries, 1900 to 9999, before 1970)",
          arguments: ["1970-01-01T00:00:00Z", "2030-03-17T17:46:40Z", "2000-02-29T23:59:59Z", "2024-02-29T12:00:00Z", "2100-03-01T00:00:00Z",
                      "1900-01-01T00:00:00Z", "1900-02-28T01:02:03Z", "1969-12-31T23:59:59Z", "9999-12-31T23:59:59Z", "2026-12-01T10:20:49Z"])
    func wholeSecondsAgree(text: String) throws {
        #expect(JSONDateEncoding.wholeSecondsUTC(text) == (try Self.style.parse(text)))
    }

    @Test("Every day of 1999-2001 (leap rules and month ends) agrees with ISO8601FormatStyle")
    func everyDay() throws {
        var date = try Self.style.parse("1999-01-01T13:14:15Z")
        while date < (try Self.style.parse("2002-01-01T00:00:00Z")) {
            let text = Self.style.format(date)
            #expect(JSONDateEncoding.wholeSecondsUTC(text) == date, "\(text)")
            date += 86_400
        }
    }

    @Test("Writing by arithmetic gives ISO8601FormatStyle's text (UTC, seconds rounded down): every 29 d 3 h 17 min 41.25 s from 1899-12-25 to 10000-01-07 and every 6 h 0.25 s through 1999–2001 (fractions, before 1970, leap days, centuries); nil outside 1900–9999")
    func wholeSecondsTextAgrees() throws {
        let gmt = Date.ISO8601FormatStyle(timeZone: .gmt)
        var interval = try Self.style.parse("1899-12-25T00:00:00Z").timeIntervalSince1970
        let end = try Self.style.parse("9999-12-31T23:59:59Z").timeIntervalSince1970 + 7 * 86_400
        var compared = 0
        while interval < end {
            let date = Date(timeIntervalSince1970: interval)
            let inRange = interval >= -2_208_988_800 && interval < 253_402_300_800
            #expect(JSONDateEncoding.wholeSecondsUTCText(date) == (inRange ? gmt.format(date) : nil), "\(interval)")
            compared += inRange ? 1 : 0
            interval += 29 * 86_400 + 11_861.25
        }
        #expect(compared > 90_000)
        var dense = try Self.style.parse("1999-01-01T00:00:00Z").timeIntervalSince1970
        while dense < (try Self.style.parse("2002-01-01T00:00:00Z")).timeIntervalSince1970 {
            let date = Date(timeIntervalSince1970: dense)
            #expect(JSONDateEncoding.wholeSecondsUTCText(date) == gmt.format(date), "\(dense)")
            dense += 21_600.25
        }
        for interval in [0, 0.999, -0.001, -1, -2_208_988_800, 253_402_300_799.9, 951_782_399.75] {
            let date = Date(timeIntervalSince1970: interval)
            #expect(JSONDateEncoding.wholeSecondsUTCText(date) == gmt.format(date), "\(interval)")
        }
        #expect(JSONDateEncoding.wholeSecondsUTCText(Date(timeIntervalSince1970: -2_208_988_800.5)) == nil)
        #expect(JSONDateEncoding.wholeSecondsUTCText(Date(timeIntervalSince1970: .infinity)) == nil)
    }

    @Test("Anything else is left to ISO8601FormatStyle (offsets, fractions, impossible fields, years before 1900 (Julian in Foundation), other shapes): the reader's answer is unchanged",
          arguments: ["2030-03-17T17:46:40+01:00", "2030-03-17T17:46:40.5Z", "2030-13-01T00:00:00Z", "2031-02-29T00:00:00Z",
                      "2030-03-17T24:00:00Z", "2030-03-17T17:46:60Z", "2030-03-17 17:46:40Z", "2030-03-17T17:46:40z", "2030-03-17T17:46:40Z ",
                      "yesterday", "", "２０３０-03-17T17:46:40Z", "0001-01-01T00:00:00Z", "1582-10-15T00:00:00Z", "1899-12-31T23:59:59Z"])
    func otherShapes(text: String) throws {
        #expect(JSONDateEncoding.wholeSecondsUTC(text) == nil)
        let reader = try JSONReader(.object(["d": .string(text)]))
        let old = try? Self.style.parse(text)
        #expect((try? reader.optionalDate("d", .iso8601)) == old)
    }

    @Test("parseJSONValue is parseJSON as a throwing function: the same value, the same located error")
    func throwingParse() throws {
        for text in [#"{"a": [1, 2.5, "x", null, true]}"#, "[1] [2]", "", "{\"a\": 1, \"a\": 2}", "[{", "nope"] {
            let data = Data(text.utf8)
            switch parseJSON(data) {
            case .success(let value): #expect(try parseJSONValue(data) == value)
            case .failure(let error): #expect(throws: error) { try parseJSONValue(data) }
            }
        }
    }
}
