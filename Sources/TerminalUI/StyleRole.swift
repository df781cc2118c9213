// Style roles: what a cell *means*; a Theme maps each role to colours and attributes.

/// The meaning of a cell. Themes map every role to colours and attributes (roles × palette).
public enum StyleRole: String, CaseIterable, Hashable, Sendable, Codable {
    case text, textDim, border, borderFocused, title, selection, selectionUnfocused, header, headerDim
    case activeMarker
    case statusValid, statusExpiringSoon, statusExpired, statusRefreshing, statusError, statusNeutral
    case barEmpty
    case flashInfo, flashWarn, flashError
    case claimKey, claimValue, claimTime, treeGuide
    case secretMasked, secretRevealed
    case keyHint, keyHintLabel, keyDisabled
    case tabActive, tabInactive
    case badgeInsecure
    case dialog, dialogBorder, dialogTitle, input, inputFocused
    case userCode, link
    case qr
    case diffAdded, diffRemoved
    case stepOK, stepFailed, stepPending, stepSkipped

    /// A one-character code for role maps in golden files.
    public var code: Character {
        switch self {
        case .text: "."
        case .textDim: ","
        case .border: "-"
        case .borderFocused: "="
        case .title: "T"
        case .selection: "S"
        case .selectionUnfocused: "s"
        case .header: "H"
        case .headerDim: "h"
        case .activeMarker: "*"
        case .statusValid: "V"
        case .statusExpiringSoon: "W"
        case .statusExpired: "X"
        case .statusRefreshing: "R"
        case .statusError: "E"
        case .statusNeutral: "N"
        case .barEmpty: "_"
        case .flashInfo: "i"
        case .flashWarn: "w"
        case .flashError: "e"
        case .claimKey: "k"
        case .claimValue: "v"
        case .claimTime: "t"
        case .treeGuide: "|"
        case .secretMasked: "m"
        case .secretRevealed: "M"
        case .keyHint: "K"
        case .keyHintLabel: "l"
        case .keyDisabled: "d"
        case .tabActive: "A"
        case .tabInactive: "a"
        case .badgeInsecure: "!"
        case .dialog: "D"
        case .dialogBorder: "#"
        case .dialogTitle: "Y"
        case .input: "n"
        case .inputFocused: "F"
        case .userCode: "U"
        case .link: "L"
        case .qr: "Q"
        case .diffAdded: "+"
        case .diffRemoved: "~"
        case .stepOK: "O"
        case .stepFailed: "x"
        case .stepPending: "p"
        case .stepSkipped: "/"
        }
    }
}
