import AppCore
import FoundationEssentials
import Glibc

extension DisplayTimeZone {
    /// The system's local time: `TZ`, else `/etc/localtime`, through the C library's zone database
    /// (`localtime_r(3)`'s `tm_gmtoff`), so daylight saving time is right for every instant.
    public static let system = DisplayTimeZone(name: "system") { date in
        // time_t of a date clamped to the years 1–9999 (a claim may say `exp: 1e300`).
        var seconds = time_t(min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799))
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else { return 0 }
        return Int(fields.tm_gmtoff)
    }
}
