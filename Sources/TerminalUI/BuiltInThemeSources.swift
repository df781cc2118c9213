// Kept identical to themes/*.json (ThemeTests checks that both parse to the same theme).
// Built-in themes, so the app works without the themes/ folder.

public enum BuiltInThemes {
    /// Names of the built-in themes in `t` (next theme) order.
    public static let names = ["default", "light", "high-contrast", "monochrome"]

    /// The JSON source of each built-in theme (identical to themes/<name>.json).
    public static let sources: [String: String] = [
        "default": #"""
        {
          "name": "default",
          "palette": {
            "fg": "default",
            "dim": "brightBlack",
            "accent": "cyan",
            "info": "blue",
            "ok": "green",
            "warn": "yellow",
            "bad": "red",
            "selFg": "black",
            "selBg": "cyan",
            "selDimBg": "236",
            "headerFg": "brightWhite",
            "headerBg": "24",
            "headerDimFg": "152",
            "keyFg": "black",
            "keyBg": "cyan",
            "badgeFg": "brightWhite"
          },
          "roles": {
            "text": {
              "fg": "fg"
            },
            "textDim": {
              "fg": "dim"
            },
            "border": {
              "fg": "dim"
            },
            "borderFocused": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "title": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "selection": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "selectionUnfocused": {
              "fg": "fg",
              "bg": "selDimBg"
            },
            "header": {
              "fg": "headerFg",
              "bg": "headerBg",
              "attrs": [
                "bold"
              ]
            },
            "headerDim": {
              "fg": "headerDimFg",
              "bg": "headerBg"
            },
            "activeMarker": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "statusValid": {
              "fg": "ok"
            },
            "statusExpiringSoon": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "statusExpired": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "statusRefreshing": {
              "fg": "info"
            },
            "statusError": {
              "fg": "bad",
              "attrs": [
                "bold",
                "underline"
              ]
            },
            "statusNeutral": {
              "fg": "dim"
            },
            "barEmpty": {
              "fg": "dim"
            },
            "flashInfo": {
              "fg": "info"
            },
            "flashWarn": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "flashError": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "claimKey": {
              "fg": "accent"
            },
            "claimValue": {
              "fg": "fg"
            },
            "claimTime": {
              "fg": "info"
            },
            "treeGuide": {
              "fg": "dim"
            },
            "secretMasked": {
              "fg": "dim"
            },
            "secretRevealed": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "keyHint": {
              "fg": "keyFg",
              "bg": "keyBg",
              "attrs": [
                "bold"
              ]
            },
            "keyHintLabel": {
              "fg": "fg"
            },
            "keyDisabled": {
              "fg": "dim"
            },
            "tabActive": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "tabInactive": {
              "fg": "dim"
            },
            "badgeInsecure": {
              "fg": "badgeFg",
              "bg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "dialog": {
              "fg": "fg"
            },
            "dialogBorder": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "dialogTitle": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "input": {
              "fg": "fg",
              "attrs": [
                "underline"
              ]
            },
            "inputFocused": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "userCode": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "link": {
              "fg": "info",
              "attrs": [
                "underline"
              ]
            },
            "qr": {
              "fg": "black",
              "bg": "brightWhite"
            },
            "diffAdded": {
              "fg": "ok"
            },
            "diffRemoved": {
              "fg": "bad"
            },
            "stepOK": {
              "fg": "ok",
              "attrs": [
                "bold"
              ]
            },
            "stepFailed": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "stepPending": {
              "fg": "dim"
            },
            "stepSkipped": {
              "fg": "dim"
            }
          }
        }
        """#,
        "light": #"""
        {
          "name": "light",
          "palette": {
            "fg": "default",
            "dim": "244",
            "accent": "24",
            "info": "25",
            "ok": "22",
            "warn": "130",
            "bad": "124",
            "selFg": "brightWhite",
            "selBg": "24",
            "selDimBg": "254",
            "headerFg": "brightWhite",
            "headerBg": "24",
            "headerDimFg": "254",
            "keyFg": "brightWhite",
            "keyBg": "24",
            "badgeFg": "brightWhite"
          },
          "roles": {
            "text": {
              "fg": "fg"
            },
            "textDim": {
              "fg": "dim"
            },
            "border": {
              "fg": "dim"
            },
            "borderFocused": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "title": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "selection": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "selectionUnfocused": {
              "fg": "fg",
              "bg": "selDimBg"
            },
            "header": {
              "fg": "headerFg",
              "bg": "headerBg",
              "attrs": [
                "bold"
              ]
            },
            "headerDim": {
              "fg": "headerDimFg",
              "bg": "headerBg"
            },
            "activeMarker": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "statusValid": {
              "fg": "ok"
            },
            "statusExpiringSoon": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "statusExpired": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "statusRefreshing": {
              "fg": "info"
            },
            "statusError": {
              "fg": "bad",
              "attrs": [
                "bold",
                "underline"
              ]
            },
            "statusNeutral": {
              "fg": "dim"
            },
            "barEmpty": {
              "fg": "dim"
            },
            "flashInfo": {
              "fg": "info"
            },
            "flashWarn": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "flashError": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "claimKey": {
              "fg": "accent"
            },
            "claimValue": {
              "fg": "fg"
            },
            "claimTime": {
              "fg": "info"
            },
            "treeGuide": {
              "fg": "dim"
            },
            "secretMasked": {
              "fg": "dim"
            },
            "secretRevealed": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "keyHint": {
              "fg": "keyFg",
              "bg": "keyBg",
              "attrs": [
                "bold"
              ]
            },
            "keyHintLabel": {
              "fg": "fg"
            },
            "keyDisabled": {
              "fg": "dim"
            },
            "tabActive": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "tabInactive": {
              "fg": "dim"
            },
            "badgeInsecure": {
              "fg": "badgeFg",
              "bg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "dialog": {
              "fg": "fg"
            },
            "dialogBorder": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "dialogTitle": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "input": {
              "fg": "fg",
              "attrs": [
                "underline"
              ]
            },
            "inputFocused": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "userCode": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "link": {
              "fg": "info",
              "attrs": [
                "underline"
              ]
            },
            "qr": {
              "fg": "black",
              "bg": "brightWhite"
            },
            "diffAdded": {
              "fg": "ok"
            },
            "diffRemoved": {
              "fg": "bad"
            },
            "stepOK": {
              "fg": "ok",
              "attrs": [
                "bold"
              ]
            },
            "stepFailed": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "stepPending": {
              "fg": "dim"
            },
            "stepSkipped": {
              "fg": "dim"
            }
          }
        }
        """#,
        "high-contrast": #"""
        {
          "name": "high-contrast",
          "palette": {
            "fg": "brightWhite",
            "dim": "white",
            "accent": "brightYellow",
            "info": "brightCyan",
            "ok": "brightGreen",
            "warn": "brightYellow",
            "bad": "brightRed",
            "selFg": "black",
            "selBg": "brightYellow",
            "selDimBg": "blue",
            "headerFg": "black",
            "headerBg": "brightWhite",
            "headerDimFg": "black",
            "keyFg": "black",
            "keyBg": "brightYellow",
            "badgeFg": "brightWhite"
          },
          "roles": {
            "text": {
              "fg": "fg"
            },
            "textDim": {
              "fg": "white"
            },
            "border": {
              "fg": "brightWhite"
            },
            "borderFocused": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "title": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "selection": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "selectionUnfocused": {
              "fg": "fg",
              "bg": "selDimBg"
            },
            "header": {
              "fg": "headerFg",
              "bg": "headerBg",
              "attrs": [
                "bold"
              ]
            },
            "headerDim": {
              "fg": "headerDimFg",
              "bg": "headerBg"
            },
            "activeMarker": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "statusValid": {
              "fg": "ok"
            },
            "statusExpiringSoon": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "statusExpired": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "statusRefreshing": {
              "fg": "info"
            },
            "statusError": {
              "fg": "bad",
              "attrs": [
                "bold",
                "underline"
              ]
            },
            "statusNeutral": {
              "fg": "dim"
            },
            "barEmpty": {
              "fg": "dim"
            },
            "flashInfo": {
              "fg": "info"
            },
            "flashWarn": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "flashError": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "claimKey": {
              "fg": "accent"
            },
            "claimValue": {
              "fg": "fg"
            },
            "claimTime": {
              "fg": "info"
            },
            "treeGuide": {
              "fg": "dim"
            },
            "secretMasked": {
              "fg": "white"
            },
            "secretRevealed": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "keyHint": {
              "fg": "keyFg",
              "bg": "keyBg",
              "attrs": [
                "bold"
              ]
            },
            "keyHintLabel": {
              "fg": "fg"
            },
            "keyDisabled": {
              "fg": "dim"
            },
            "tabActive": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "tabInactive": {
              "fg": "dim"
            },
            "badgeInsecure": {
              "fg": "badgeFg",
              "bg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "dialog": {
              "fg": "fg"
            },
            "dialogBorder": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "dialogTitle": {
              "fg": "accent",
              "attrs": [
                "bold"
              ]
            },
            "input": {
              "fg": "fg",
              "attrs": [
                "underline"
              ]
            },
            "inputFocused": {
              "fg": "selFg",
              "bg": "selBg",
              "attrs": [
                "bold"
              ]
            },
            "userCode": {
              "fg": "warn",
              "attrs": [
                "bold"
              ]
            },
            "link": {
              "fg": "info",
              "attrs": [
                "underline"
              ]
            },
            "qr": {
              "fg": "black",
              "bg": "brightWhite"
            },
            "diffAdded": {
              "fg": "ok"
            },
            "diffRemoved": {
              "fg": "bad"
            },
            "stepOK": {
              "fg": "ok",
              "attrs": [
                "bold"
              ]
            },
            "stepFailed": {
              "fg": "bad",
              "attrs": [
                "bold"
              ]
            },
            "stepPending": {
              "fg": "dim"
            },
            "stepSkipped": {
              "fg": "dim"
            }
          }
        }
        """#,
        "monochrome": #"""
        {
          "name": "monochrome",
          "roles": {
            "text": {},
            "textDim": {
              "attrs": [
                "dim"
              ]
            },
            "border": {},
            "borderFocused": {
              "attrs": [
                "bold"
              ]
            },
            "title": {
              "attrs": [
                "bold"
              ]
            },
            "selection": {
              "attrs": [
                "reverse"
              ]
            },
            "selectionUnfocused": {
              "attrs": [
                "underline"
              ]
            },
            "header": {
              "attrs": [
                "reverse",
                "bold"
              ]
            },
            "headerDim": {
              "attrs": [
                "reverse"
              ]
            },
            "activeMarker": {
              "attrs": [
                "bold"
              ]
            },
            "statusValid": {},
            "statusExpiringSoon": {
              "attrs": [
                "bold"
              ]
            },
            "statusExpired": {
              "attrs": [
                "bold",
                "underline"
              ]
            },
            "statusRefreshing": {
              "attrs": [
                "dim"
              ]
            },
            "statusError": {
              "attrs": [
                "bold",
                "reverse"
              ]
            },
            "statusNeutral": {
              "attrs": [
                "dim"
              ]
            },
            "barEmpty": {
              "attrs": [
                "dim"
              ]
            },
            "flashInfo": {},
            "flashWarn": {
              "attrs": [
                "bold"
              ]
            },
            "flashError": {
              "attrs": [
                "bold",
                "reverse"
              ]
            },
            "claimKey": {
              "attrs": [
                "bold"
              ]
            },
            "claimValue": {},
            "claimTime": {
              "attrs": [
                "dim"
              ]
            },
            "treeGuide": {
              "attrs": [
                "dim"
              ]
            },
            "secretMasked": {
              "attrs": [
                "dim"
              ]
            },
            "secretRevealed": {
              "attrs": [
                "bold",
                "underline"
              ]
            },
            "keyHint": {
              "attrs": [
                "reverse"
              ]
            },
            "keyHintLabel": {},
            "keyDisabled": {
              "attrs": [
                "dim"
              ]
            },
            "tabActive": {
              "attrs": [
                "reverse",
                "bold"
              ]
            },
            "tabInactive": {
              "attrs": [
                "dim"
              ]
            },
            "badgeInsecure": {
              "attrs": [
                "reverse",
                "bold"
              ]
            },
            "dialog": {},
            "dialogBorder": {
              "attrs": [
                "bold"
              ]
            },
            "dialogTitle": {
              "attrs": [
                "bold"
              ]
            },
            "input": {
              "attrs": [
                "underline"
              ]
            },
            "inputFocused": {
              "attrs": [
                "reverse"
              ]
            },
            "userCode": {
              "attrs": [
                "bold"
              ]
            },
            "link": {
              "attrs": [
                "underline"
              ]
            },
            "qr": {
              "attrs": [
                "reverse"
              ]
            },
            "diffAdded": {
              "attrs": [
                "bold"
              ]
            },
            "diffRemoved": {
              "attrs": [
                "dim"
              ]
            },
            "stepOK": {
              "attrs": [
                "bold"
              ]
            },
            "stepFailed": {
              "attrs": [
                "bold",
                "reverse"
              ]
            },
            "stepPending": {
              "attrs": [
                "dim"
              ]
            },
            "stepSkipped": {
              "attrs": [
                "dim"
              ]
            }
          }
        }
        """#,
    ]
}
