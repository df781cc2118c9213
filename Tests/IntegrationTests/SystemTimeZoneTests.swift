// DisplayTimeZone.system: the local zone from the C library (TZ, else /etc/localtime), with
// daylight saving time per instant — the shipped binary's Foundation (Essentials) has no zone names.
import AppCore
import AppCoreLive
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("DisplayTimeZone.system: the C library's local time", .serialized)
struct SystemTimeZoneTests {
    /// Runs `body` with `TZ` set, then restores the process's zone.
    private func withTZ(_ zone: String, _ body: () -> Void) {
        let old = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        body()
        if let old { setenv("TZ", old, 1) } else { unsetenv("TZ") }
        tzset()
    }

    @Test("Asia/Kolkata is +05:30; Europe/Berlin is +01:00 in winter and +02:00 in summer; UTC is +00:00")
    func offsetsFollowTZ() {
        let winter = Date(timeIntervalSince1970: 1_796_032_800)  // 2026-11-30 10:00 UTC
        let summer = Date(timeIntervalSince1970: 1_783_000_000)  // 2026-07-02 UTC
        withTZ("Asia/Kolkata") {
            #expect(DisplayTimeZone.system.secondsFromGMT(for: winter) == 19_800)
            #expect(TimeText.absolute(winter, timeZone: .system) == "2026-11-30 15:30:00 +05:30")
        }
        withTZ("Europe/Berlin") {
            #expect(DisplayTimeZone.system.secondsFromGMT(for: winter) == 3600)
            #expect(DisplayTimeZone.system.secondsFromGMT(for: summer) == 7200)
        }
        withTZ("UTC") { #expect(DisplayTimeZone.system.secondsFromGMT(for: winter) == 0) }
    }

    @Test("An absurd date (exp: 1e300) is clamped, not trapped")
    func absurdDates() {
        withTZ("Europe/Berlin") {
            #expect(!TimeText.absolute(Date(timeIntervalSince1970: 1e300), timeZone: .system).isEmpty)
            #expect(!TimeText.absolute(Date(timeIntervalSince1970: -1e300), timeZone: .system).isEmpty)
        }
    }
}
