"""Every action of the main window as data: id, title, menu, shortcut, handler. The menus, the
command palette (Ctrl+Shift+P) and the keyboard-shortcut help are all built from ``ACTIONS``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence


@dataclass(frozen=True)
class ActionSpec:
    """One command of the window: its id, menu title and menu, shortcuts, and the window method that runs it."""

    id: str
    title: str
    menu: str
    #: Keys as portable strings ("Ctrl+D"), the first one shown in menus; a tuple for alternates,
    #: empty for none. Not Qt's standard keys: their bindings differ by platform (on X11 Delete
    #: includes Ctrl+D and Redo lacks Ctrl+Y), so the clash test could not see every key.
    shortcut: Any = ()
    #: Name of the main-window method to call; None for keys handled by a widget (listed for help).
    handler: str | None = None
    tip: str = ""
    checkable: bool = False
    #: Exclusive group name for radio-style actions (themes).
    group: str = ""
    #: Argument passed to the handler (theme mode, dock name, ...).
    arg: Any = None
    #: Where the keys work: "window", or "canvas" for keys the canvas handles while it has focus.
    scope: str = "window"
    #: Ends a group of items in its menu.
    separator_after: bool = False
    #: A submenu of ``menu`` to put the action in.
    submenu: str = ""

    def shortcuts(self) -> list[Any]:
        """The command's keys as a list (empty when it has none)."""
        if not self.shortcut:
            return []
        return list(self.shortcut) if isinstance(self.shortcut, tuple) else [self.shortcut]


FILE, EDIT, VIEW, SIMULATE, HELP = "&File", "&Edit", "&View", "&Simulate", "&Help"

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("file.new", "&New", FILE, "Ctrl+N", "new_blank", "Start a blank design"),
    ActionSpec("file.new_from_template", "New from &Template…", FILE, "Ctrl+Shift+N", "new_design",
               "Start a design from a template: a blank canvas or an example"),
    ActionSpec("file.open", "&Open…", FILE, "Ctrl+O", "open_design", "Open a design file"),
    ActionSpec("file.save", "&Save", FILE, "Ctrl+S", "save_design", "Save the design"),
    ActionSpec("file.save_as", "Save &As…", FILE, "Ctrl+Shift+S", "save_design_as", "Save under another name",
               separator_after=True),
    ActionSpec("file.export_png", "Export &PNG…", FILE, "Ctrl+E", "export_png", "Export the diagram as a PNG",
               arg=1),
    ActionSpec("file.export_png_2x", "Export PNG at &2x…", FILE, "", "export_png", "Export a high-DPI PNG", arg=2),
    ActionSpec("file.export_svg", "Export S&VG…", FILE, "Ctrl+Shift+E", "export_svg",
               "Export the diagram as SVG (text stays text)", separator_after=True),
    ActionSpec("file.quit", "&Quit", FILE, "Ctrl+Q", "close", "Quit Inferboard"),

    ActionSpec("edit.undo", "&Undo", EDIT, "Ctrl+Z", "undo"),
    ActionSpec("edit.redo", "&Redo", EDIT, ("Ctrl+Shift+Z", "Ctrl+Y"), "redo", separator_after=True),
    ActionSpec("edit.cut", "Cu&t", EDIT, ("Ctrl+X", "Shift+Del"), "cut"),
    ActionSpec("edit.copy", "&Copy", EDIT, ("Ctrl+C", "Ctrl+Ins"), "copy"),
    ActionSpec("edit.paste", "&Paste", EDIT, ("Ctrl+V", "Shift+Ins"), "paste"),
    ActionSpec("edit.duplicate", "D&uplicate", EDIT, "Ctrl+D", "duplicate"),
    ActionSpec("edit.delete", "&Delete", EDIT, ("Del", "Backspace"), "delete_selection",
               separator_after=True),
    ActionSpec("edit.select_all", "Select &All", EDIT, "Ctrl+A", "select_all"),
    ActionSpec("edit.add_component", "Add C&omponent…", EDIT, "Ctrl+Shift+A", "focus_palette",
               "Search the palette; Enter adds the component"),
    ActionSpec("edit.connect", "Co&nnect…", EDIT, "Ctrl+L", "connect_dialog",
               "Wire two components with the keyboard", separator_after=True),
    ActionSpec("edit.find", "&Find on Canvas…", EDIT, "Ctrl+F", "find_on_canvas",
               "Find components by id, label, kind or parameter value, and findings by rule id"),
    ActionSpec("edit.find_next", "Find Ne&xt", EDIT, "F3", "find_next", "Go to the next match (Enter in the find bar)"),
    ActionSpec("edit.find_previous", "Find Pre&vious", EDIT, "Shift+F3", "find_previous",
               "Go to the previous match (Shift+Enter in the find bar)", separator_after=True),
    *(ActionSpec(f"edit.align_{edge}", title, EDIT, key, "align_selection", tip, arg=edge, submenu="&Arrange")
      for edge, title, key, tip in (
          ("left", "Align &Left Edges", "Ctrl+Shift+Left", "Line the selection up on its leftmost edge"),
          ("right", "Align &Right Edges", "Ctrl+Shift+Right", "Line the selection up on its rightmost edge"),
          ("top", "Align &Top Edges", "Ctrl+Shift+Up", "Line the selection up on its topmost edge"),
          ("bottom", "Align &Bottom Edges", "Ctrl+Shift+Down", "Line the selection up on its lowest edge"),
          ("centre_x", "Align &Centres in a Column", "Ctrl+Shift+C", "Centre the selection on one vertical line"),
          ("centre_y", "Align &Middles in a Row", "Ctrl+Shift+M", "Centre the selection on one horizontal line"))),
    ActionSpec("edit.distribute_x", "Distribute &Across", EDIT, "Ctrl+Shift+H", "distribute_selection",
               "Equal gaps between three or more components, left to right", arg="x", submenu="&Arrange"),
    ActionSpec("edit.distribute_y", "Distribute &Down", EDIT, "Ctrl+Shift+V", "distribute_selection",
               "Equal gaps between three or more components, top to bottom", arg="y", submenu="&Arrange"),
    ActionSpec("edit.group", "&Group in a Region", EDIT, "Ctrl+G", "group_selection",
               "Put the selected components in a new region fitted round them"),
    ActionSpec("edit.ungroup", "Ungrou&p Region", EDIT, "Ctrl+Shift+G", "ungroup_selection",
               "Remove the selected region; its components stay where they are", separator_after=True),
    ActionSpec("edit.nudge", "Nudge selection", EDIT, ("Left", "Right", "Up", "Down"), None,
               "Arrow keys move the selection one grid step (Shift: five, Alt: one pixel)", scope="canvas"),
    ActionSpec("edit.cancel", "Cancel gesture / clear selection", EDIT, "Esc", None, scope="canvas"),

    ActionSpec("view.command_palette", "&Command Palette…", VIEW, "Ctrl+Shift+P", "command_palette",
               "Find and run any command", separator_after=True),
    ActionSpec("view.zoom_in", "Zoom &In", VIEW, ("Ctrl++", "Ctrl+="), "zoom_in"),
    ActionSpec("view.zoom_out", "Zoom &Out", VIEW, "Ctrl+-", "zoom_out"),
    ActionSpec("view.reset_zoom", "&Reset Zoom", VIEW, "Ctrl+0", "reset_zoom"),
    ActionSpec("view.fit_all", "&Fit Everything", VIEW, "Shift+1", "fit_all"),
    ActionSpec("view.fit_selection", "Fit &Selection", VIEW, "Shift+2", "fit_selection"),
    ActionSpec("view.minimap", "&Minimap", VIEW, "Ctrl+M", "set_minimap",
               "The whole design in the canvas's corner: click or drag in it to move the view", checkable=True,
               separator_after=True),
    ActionSpec("view.snap_grid", "Snap to &Grid", VIEW, "Ctrl+'", "set_snap_grid", checkable=True),
    ActionSpec("view.snap_lines", "Snap &Lines", VIEW, "Ctrl+Shift+'", "set_snap_lines",
               "Align with other nodes while dragging (hold a modifier to suspend)", checkable=True,
               separator_after=True),
    ActionSpec("view.projector", "Pro&jector View", VIEW, "", "set_projector",
               "Large type in the readouts and plots, for a room", checkable=True, separator_after=True),
    ActionSpec("view.focus_canvas", "Focus Ca&nvas", VIEW, "F6", "focus_canvas"),
    ActionSpec("view.focus_outline", "Focus Ou&tline", VIEW, "Ctrl+Shift+O", "focus_outline"),
    ActionSpec("view.focus_inspector", "Focus Ins&pector", VIEW, "Ctrl+I", "focus_inspector"),
    ActionSpec("view.focus_requirements", "Focus Re&quirements", VIEW, "F7", "focus_requirements",
               "Edit the design's workload and SLOs from the keyboard (Tab between fields, Up/Down step a number)",
               separator_after=True),
    *(ActionSpec(f"view.panel.{name}", title, VIEW, "", "toggle_dock", f"Show or hide the {title.lower()} panel",
                 checkable=True, arg=name, submenu="&Panels")
      for name, title in (("palette", "Palette"), ("outline", "Outline"), ("inspector", "Inspector"),
                          ("requirements", "Requirements"), ("history", "History"), ("findings", "Findings"),
                          ("warnings", "Warnings"), ("readouts", "Readouts"))),
    ActionSpec("view.theme_system", "Follow &System", VIEW, "", "set_theme_mode", checkable=True,
               group="theme", arg="system", submenu="&Theme"),
    ActionSpec("view.theme_light", "&Light", VIEW, "", "set_theme_mode", checkable=True, group="theme",
               arg="light", submenu="&Theme"),
    ActionSpec("view.theme_dark", "&Dark", VIEW, "", "set_theme_mode", checkable=True, group="theme",
               arg="dark", submenu="&Theme"),

    ActionSpec("sim.evaluate", "&Re-evaluate Now", SIMULATE, "F9", "evaluate_now",
               "Check rules and simulate the design again"),
    ActionSpec("sim.play", "&Play / Pause Timeline", SIMULATE, "F5", "toggle_play"),
    ActionSpec("sim.load_test", "Run &Load Test", SIMULATE, "Ctrl+R", "run_load_test",
               "Simulate individual requests in the background"),
    ActionSpec("sim.cancel_load_test", "&Cancel Load Test", SIMULATE, "Ctrl+Shift+R", "cancel_load_test"),
    ActionSpec("sim.edit_faults", "Planned &Faults…", SIMULATE, "Ctrl+Shift+F", "edit_faults",
               "Plan faults on the simulated day: what fails, when and for how long (saved with the design)"),
    ActionSpec("sim.clear_faults", "Clear Fa&ults", SIMULATE, "", "clear_faults"),

    ActionSpec("help.getting_started", "&Getting Started", HELP, "", "show_getting_started",
               "A short guide: draw, read the warnings and findings, plan faults, practise"),
    ActionSpec("help.welcome", "&Welcome Screen", HELP, "", "show_welcome", "Templates, recent designs and the guide",
               separator_after=True),
    ActionSpec("help.shortcuts", "&Keyboard Shortcuts", HELP, "F1", "show_shortcuts"),
    ActionSpec("help.about", "&About Inferboard", HELP, "", "show_about"),
)


def key_sequences(spec: ActionSpec) -> list[QKeySequence]:
    """Every key of ``spec``, primary first, each a sequence that parsed (see ``unreadable_keys``)."""
    unique: list[QKeySequence] = []
    for shortcut in spec.shortcuts():
        seq = QKeySequence(shortcut)
        if not seq.isEmpty() and seq not in unique:
            unique.append(seq)
    return unique


def unreadable_keys(specs=ACTIONS) -> list[str]:
    """Shortcut strings Qt does not read back as the same key (a typo would silently drop a key)."""
    bad = []
    for spec in specs:
        for shortcut in spec.shortcuts():
            if not isinstance(shortcut, str):
                bad.append(f"{spec.id}: {shortcut!r} is not a portable key string")
                continue
            seq = QKeySequence(shortcut)
            if seq.isEmpty() or seq.count() != 1 or QKeySequence(seq.toString()) != seq:
                bad.append(f"{spec.id}: {shortcut!r}")
    return bad


def native_key(seq: QKeySequence) -> str:
    """A key sequence as this platform writes it in menus (⌘ on macOS, Ctrl elsewhere)."""
    return seq.toString(QKeySequence.SequenceFormat.NativeText)


def shortcut_text(spec: ActionSpec) -> str:
    """The keys as the platform names them: "Ctrl+Shift+Z or Ctrl+Y"."""
    return " or ".join(native_key(seq) for seq in key_sequences(spec))


def clashes(specs=ACTIONS) -> dict[str, list[str]]:
    """Keys bound to more than one action, alternates included: portable key text -> action ids."""
    seen: dict[str, list[str]] = {}
    for spec in specs:
        for seq in key_sequences(spec):
            seen.setdefault(seq.toString(QKeySequence.SequenceFormat.PortableText), []).append(spec.id)
    return {key: ids for key, ids in seen.items() if len(ids) > 1}


def build_actions(window, specs=ACTIONS) -> dict[str, QAction]:
    """Create a QAction for each spec with a handler, wired to ``window.<handler>``."""
    actions: dict[str, QAction] = {}
    groups: dict[str, QActionGroup] = {}
    for spec in specs:
        if spec.handler is None:
            continue
        action = QAction(spec.title, window)
        action.setObjectName(spec.id)
        keys = key_sequences(spec)
        if keys:
            action.setShortcuts(keys)
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        tip = spec.tip or spec.title.replace("&", "").rstrip("…")
        action.setStatusTip(tip)
        action.setToolTip(f"{tip} ({shortcut_text(spec)})" if keys else tip)
        action.setCheckable(spec.checkable)
        if spec.group:
            group = groups.setdefault(spec.group, QActionGroup(window))
            group.setExclusive(True)
            group.addAction(action)
        handler: Callable = getattr(window, spec.handler)
        if spec.checkable and spec.arg is None:
            action.toggled.connect(handler)
        elif spec.arg is not None:
            action.triggered.connect(lambda _checked=False, h=handler, a=spec.arg: h(a))
        else:
            action.triggered.connect(lambda _checked=False, h=handler: h())
        window.addAction(action)
        actions[spec.id] = action
    return actions


def menu_order(specs=ACTIONS) -> list[str]:
    """The menus in the order their first action comes, Help last (a feature's menu comes after
    the window's own)."""
    out: list[str] = []
    for spec in specs:
        if spec.menu not in out:
            out.append(spec.menu)
    return sorted(out, key=lambda menu: menu == HELP)
