@preconcurrency import CNCurses
import LibraryLoader

/// The ncurses and terminfo functions ``CursesScreen`` calls, resolved with `dlopen` / `dlsym`
/// when the TUI starts: libncursesw.so.6, which brings libtinfo.so.6 (its `tigetstr`, `curs_set`,
/// `stdscr`, … are found through the same handle). No line-mode command loads either
/// (PERFORMANCE.md). Field names are the C names; `stdscr`, `COLORS` and `COLOR_PAIRS` are read
/// through their addresses.
struct NCurses: @unchecked Sendable {
    let newterm: authdeck_newterm_fn
    let set_term: authdeck_set_term_fn
    let cbreak: authdeck_cbreak_fn
    let noecho: authdeck_noecho_fn
    let nonl: authdeck_nonl_fn
    let keypad: authdeck_keypad_fn
    let nodelay: authdeck_nodelay_fn
    let curs_set: authdeck_curs_set_fn
    let set_escdelay: authdeck_set_escdelay_fn
    let mouseinterval: authdeck_mouseinterval_fn
    let has_colors: authdeck_has_colors_fn
    let start_color: authdeck_start_color_fn
    let use_default_colors: authdeck_use_default_colors_fn
    let endwin: authdeck_endwin_fn
    let delscreen: authdeck_delscreen_fn
    let getmaxx: authdeck_getmaxx_fn
    let getmaxy: authdeck_getmaxy_fn
    let init_extended_pair: authdeck_init_extended_pair_fn
    let werase: authdeck_werase_fn
    let wnoutrefresh: authdeck_wnoutrefresh_fn
    let doupdate: authdeck_doupdate_fn
    let clearok: authdeck_clearok_fn
    let wget_wch: authdeck_wget_wch_fn
    let def_prog_mode: authdeck_def_prog_mode_fn
    let reset_prog_mode: authdeck_reset_prog_mode_fn
    let refresh: authdeck_refresh_fn
    let setcchar: authdeck_setcchar_fn
    let mvwadd_wch: authdeck_mvwadd_wch_fn
    let mousemask: authdeck_mousemask_fn
    let getmouse: authdeck_getmouse_fn
    let tigetstr: authdeck_tigetstr_fn
    private let stdscrAddress: UnsafeMutableRawPointer
    private let colorsAddress: UnsafeMutableRawPointer
    private let colorPairsAddress: UnsafeMutableRawPointer

    /// ncurses' `stdscr` (nil before `newterm`).
    var stdscr: UnsafeMutablePointer<WINDOW>? { authdeck_window_at(stdscrAddress) }
    /// ncurses' `COLORS` (valid after `start_color`).
    var colors: Int32 { authdeck_int_at(colorsAddress) }
    /// ncurses' `COLOR_PAIRS` (valid after `start_color`).
    var colorPairs: Int32 { authdeck_int_at(colorPairsAddress) }

    static func load(_ spec: LibrarySpec = .ncurses) throws(LibraryLoadError) -> NCurses {
        let library = try DynamicLibrary.open(spec)
        return NCurses(
            newterm: try library.function("newterm"),
            set_term: try library.function("set_term"),
            cbreak: try library.function("cbreak"),
            noecho: try library.function("noecho"),
            nonl: try library.function("nonl"),
            keypad: try library.function("keypad"),
            nodelay: try library.function("nodelay"),
            curs_set: try library.function("curs_set"),
            set_escdelay: try library.function("set_escdelay"),
            mouseinterval: try library.function("mouseinterval"),
            has_colors: try library.function("has_colors"),
            start_color: try library.function("start_color"),
            use_default_colors: try library.function("use_default_colors"),
            endwin: try library.function("endwin"),
            delscreen: try library.function("delscreen"),
            getmaxx: try library.function("getmaxx"),
            getmaxy: try library.function("getmaxy"),
            init_extended_pair: try library.function("init_extended_pair"),
            werase: try library.function("werase"),
            wnoutrefresh: try library.function("wnoutrefresh"),
            doupdate: try library.function("doupdate"),
            clearok: try library.function("clearok"),
            wget_wch: try library.function("wget_wch"),
            def_prog_mode: try library.function("def_prog_mode"),
            reset_prog_mode: try library.function("reset_prog_mode"),
            refresh: try library.function("refresh"),
            setcchar: try library.function("setcchar"),
            mvwadd_wch: try library.function("mvwadd_wch"),
            mousemask: try library.function("mousemask"),
            getmouse: try library.function("getmouse"),
            tigetstr: try library.function("tigetstr"),
            stdscrAddress: try library.symbol("stdscr"),
            colorsAddress: try library.symbol("COLORS"),
            colorPairsAddress: try library.symbol("COLOR_PAIRS"))
    }

    /// The process's ncurses, loaded once.
    static let shared = Result { () throws(LibraryLoadError) -> NCurses in try load() }
}
