import AppCore
import TerminalUI

/// The accounts pane's selection: one rule for what is selected after the rows change.
public enum Selection {
    /// The selection once the visible rows went from `visibleBefore` to `visibleAfter` (a reload,
    /// a sign-out here or elsewhere, a sign-in, the filter):
    /// - a selected account still visible stays selected (by id, wherever its row moved);
    /// - one that disappeared gives way to the row now at its place (the one that followed it),
    ///   else to the last row;
    /// - with nothing selected (or an id that was not visible), the active account if it is
    ///   visible (`active`, ``AppState/effectiveActiveAccountID``), else the first row;
    /// - nil when no row is visible.
    public static func after(_ selection: AccountID?, visibleBefore: [AccountID], visibleAfter: [AccountID], active: AccountID?) -> AccountID? {
        guard !visibleAfter.isEmpty else { return nil }
        if let selection {
            if visibleAfter.contains(selection) { return selection }
            if let place = visibleBefore.firstIndex(of: selection) { return visibleAfter[min(place, visibleAfter.count - 1)] }
        }
        if let active, visibleAfter.contains(active) { return active }
        return visibleAfter[0]
    }

    /// The ids of the rows the filter shows, in display order.
    static func visibleIDs(_ state: AccountsScreen.State) -> [AccountID] {
        state.view.filter.visible(ScreenMapping.rows(state.app)).map(\.id)
    }

    /// The selection moved by `delta` rows over the visible ones (clamped to the first and last).
    static func moved(_ selection: AccountID?, by delta: Int, visible: [AccountID]) -> AccountID? {
        guard !visible.isEmpty else { return selection }
        let current = selection.flatMap { visible.firstIndex(of: $0) } ?? 0
        return visible[min(visible.count - 1, max(0, current + delta))]
    }
}
