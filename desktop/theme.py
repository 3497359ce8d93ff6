"""Light and dark themes: the application palette (Fusion) and the canvas colours.

The default mode, ``system``, follows the platform's colour scheme and switches live when it
changes; the View menu can pin light or dark.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

MODES = ("system", "light", "dark")


@dataclass(frozen=True)
class Theme:
    """The canvas colours of one theme: cards, regions, selection, grid, signals and severities."""

    name: str
    dark: bool
    canvas: str
    grid_minor: str
    grid_major: str
    card: str
    card_header: str
    card_border: str
    text: str
    muted: str
    selection: str
    highlight: str
    region_fill: str
    region_border: str
    drop_target: str
    snap_line: str
    ok: str = "#16a34a"
    warn: str = "#d97706"
    bad: str = "#dc2626"
    #: The shadow under a card, as #AARRGGBB (deeper on a dark canvas).
    card_shadow: str = "#1c000000"
    #: Multiplies the canvas's line widths (the projector theme draws them thicker; at most 2, the
    #: items' bounding margins allow no more).
    line_scale: float = 1.0
    signals: dict = field(default_factory=dict)
    severity: dict = field(default_factory=dict)

    def color(self, name: str) -> QColor:
        """The theme's colour called ``name`` (a field of this class) as a QColor."""
        return QColor(getattr(self, name))

    def signal_color(self, signal: str) -> QColor:
        """The colour wires of ``signal`` are drawn in (muted for a signal the theme does not name)."""
        return QColor(self.signals.get(signal, self.muted))


_SIGNALS_LIGHT = {"requests": "#2563eb", "telemetry": "#64748b", "control": "#ea580c", "artifacts": "#7c3aed",
                  "alerts": "#dc2626", "triggers": "#0d9488"}
_SIGNALS_DARK = {"requests": "#60a5fa", "telemetry": "#94a3b8", "control": "#fb923c", "artifacts": "#a78bfa",
                 "alerts": "#f87171", "triggers": "#2dd4bf"}
_SEVERITY = {"blocker": "#b91c1c", "major": "#ea580c", "minor": "#ca8a04", "advice": "#2563eb"}

LIGHT = Theme("light", False, canvas="#f8fafc", grid_minor="#eef2f6", grid_major="#dde3ea", card="#ffffff",
              card_header="#f1f5f9", card_border="#cbd5e1", text="#0f172a", muted="#64748b", selection="#2563eb",
              highlight="#f59e0b", region_fill="#e0f2fe", region_border="#7dd3fc", drop_target="#0284c7",
              snap_line="#e11d48", signals=_SIGNALS_LIGHT, severity=_SEVERITY)
DARK = Theme("dark", True, canvas="#0f172a", grid_minor="#172033", grid_major="#1f2a40", card="#1e293b",
             card_header="#273549", card_border="#475569", text="#e2e8f0", muted="#94a3b8", selection="#60a5fa",
             highlight="#fbbf24", region_fill="#0c2a3f", region_border="#0369a1", drop_target="#38bdf8",
             snap_line="#fb7185", ok="#4ade80", warn="#fbbf24", bad="#f87171", card_shadow="#3c000000",
             signals=_SIGNALS_DARK,
             severity={"blocker": "#f87171", "major": "#fb923c", "minor": "#facc15", "advice": "#60a5fa"})


@dataclass(frozen=True)
class Ink:
    """Colours of text and marks in panels and windows (the canvas has its own above): the states a
    reader must tell apart, each dark enough on a light palette and light enough on a dark one."""

    good: str       # done, held, within the SLO, connected
    caution: str    # pending, partly, a notice that wants attention
    bad: str        # failed, lost, refused, an error
    muted: str      # secondary text
    answer: str     # what the interviewer or the scenario answered
    follow_up: str  # a follow-up the interviewer played
    info: str       # a neutral state
    invalid: str    # the border of a field whose value is refused
    warning_mark: str   # the live-warning mark on a card
    warning_rim: str
    warning_glyph: str
    notice_fg: str  # a notice banner: text on its background
    notice_bg: str
    success_fg: str
    success_bg: str
    follow_up_fg: str
    follow_up_bg: str
    banner_bg: str  # a plain banner behind status text


LIGHT_INK = Ink(good="#15803d", caution="#b45309", bad="#b91c1c", muted="#64748b", answer="#0f766e",
                follow_up="#6d28d9", info="#1d4ed8", invalid="#dc2626", warning_mark="#e0a100",
                warning_rim="#5a4500", warning_glyph="#1a1400", notice_fg="#92400e", notice_bg="#fef3c7",
                success_fg="#14532d", success_bg="#dcfce7", follow_up_fg="#4c1d95", follow_up_bg="#ede9fe",
                banner_bg="#f1f5f9")
DARK_INK = Ink(good="#4ade80", caution="#fbbf24", bad="#f87171", muted="#94a3b8", answer="#5eead4",
               follow_up="#c4b5fd", info="#60a5fa", invalid="#f87171", warning_mark="#e0a100",
               warning_rim="#5a4500", warning_glyph="#1a1400", notice_fg="#fde68a", notice_bg="#451a03",
               success_fg="#bbf7d0", success_bg="#14532d", follow_up_fg="#ede9fe", follow_up_bg="#4c1d95",
               banner_bg="#1e293b")

#: Plot series that must be told apart (pools, rubrics), the same in both themes.
SERIES = ("#2563eb", "#16a34a", "#ea580c", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#ca8a04", "#4f46e5",
          "#dc2626", "#64748b")
#: The latency percentiles, everywhere they are drawn.
PERCENTILES = {"p50_ms": "#16a34a", "p95_ms": "#d97706", "p99_ms": "#dc2626"}
#: Named plot pens.
PLOT = {"offered": "#64748b", "served": "#2563eb", "shed": "#ea580c", "errors": "#dc2626", "cost": "#7c3aed",
        "cursor": "#94a3b8", "event": "#e11d48", "bar_fill": "#60a5fa", "bar_edge": "#2563eb",
        "distribution_fill": "#0ea5e9", "distribution_mark": "#f97316", "outage": "#d9534f",
        "fault_span": "#1ce11d48",  # fault_span: the event colour, faint (#AARRGGBB)
        "accuracy": "#0f766e", "labelled": "#64748b", "accuracy_target": "#dc2626", "threshold": "#dc2626",
        "business": "#7c3aed"}
#: Plot backgrounds and text by theme.
PLOT_BACKGROUND = {False: "w", True: "#0f172a"}
PLOT_INK = {False: "#0f172a", True: "#e2e8f0"}
#: The strokes of the component icons, on a light and on a dark theme.
ICON_STROKE = {False: "#334155", True: "#cbd5e1"}
#: Softer series for plots with many lines (rubrics over time, a drill's dashboards).
SERIES_SOFT = ("#0ea5e9", "#f97316", "#22c55e", "#a855f7", "#ef4444", "#14b8a6", "#eab308", "#6366f1", "#64748b",
               "#ec4899", "#84cc16")
#: A drill's dashboards and the interviewer's view of them.
DRILL_PLOT = {"limit": "#dc2626", "told": "#dc2626", "mitigation": "#16a34a", "cursor": "#7c3aed", "truth": "#0ea5e9"}
#: Banners of a drill: the page the on-call engineer gets, and the ticket.
PAGE_STYLE = "background:#fef2f2; color:#7f1d1d; border:1px solid #fca5a5; border-radius:4px; padding:6px;"
TICKET_STYLE = "background:#fffbeb; color:#78350f; border:1px solid #fcd34d; border-radius:4px; padding:6px;"
#: The inspector's strip of live warnings: (background, text) on a light and on a dark theme.
WARNING_STRIP = {False: ("#fde68a", "#3b2f0b"), True: ("#4a3b0a", "#fde68a")}
#: Text drawn on a coloured badge.
ON_BADGE = "#ffffff"


def is_dark(widget) -> bool:
    """Whether ``widget`` is drawn on a dark palette."""
    return widget.palette().color(QPalette.ColorRole.Base).lightness() < 128


def ink_for(widget) -> Ink:
    """The ink for ``widget``'s palette, for windows that are not handed a theme."""
    return DARK_INK if is_dark(widget) else LIGHT_INK


def system_prefers_dark() -> bool:
    """Whether the operating system asks for a dark colour scheme."""
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hints is not None else Qt.ColorScheme.Unknown
    return scheme == Qt.ColorScheme.Dark


def palette_for(theme: Theme) -> QPalette:
    """The widget palette that goes with ``theme``: the style's own when light, a dark palette when dark."""
    pal = QPalette()
    if not theme.dark:
        return QApplication.style().standardPalette() if QApplication.style() else pal
    role = QPalette.ColorRole
    colours = {
        role.Window: "#1e2430", role.WindowText: "#e2e8f0", role.Base: "#151b26", role.AlternateBase: "#1b2230",
        role.ToolTipBase: "#273549", role.ToolTipText: "#f1f5f9", role.Text: "#e2e8f0", role.Button: "#273044",
        role.ButtonText: "#e2e8f0", role.BrightText: "#ffffff", role.Highlight: "#2563eb",
        role.HighlightedText: "#ffffff", role.Link: "#60a5fa", role.PlaceholderText: "#7c8799",
        role.Mid: "#3b4556", role.Midlight: "#323c4d", role.Dark: "#0f141c", role.Shadow: "#000000",
        role.Light: "#3d4759",
    }
    for r, c in colours.items():
        pal.setColor(r, QColor(c))
    for r in (role.WindowText, role.Text, role.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, r, QColor("#6b7280"))
    return pal


class ThemeManager(QObject):
    """Holds the current theme; emits ``changed`` when it switches (mode or system scheme)."""

    changed = Signal(object)

    def __init__(self, mode: str = "system", parent: QObject | None = None):
        super().__init__(parent)
        self._mode = mode if mode in MODES else "system"
        self._theme = self._resolve()
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._system_changed)

    @property
    def mode(self) -> str:
        """The chosen mode: "light", "dark" or "system"."""
        return self._mode

    @property
    def theme(self) -> Theme:
        """The theme in use now (the system's choice resolved when the mode is "system")."""
        return self._theme

    def set_mode(self, mode: str) -> None:
        """Choose "light", "dark" or "system" and apply it; raises ValueError for any other mode."""
        if mode not in MODES:
            raise ValueError(f"unknown theme mode {mode!r}")
        self._mode = mode
        self._update()

    def _resolve(self) -> Theme:
        if self._mode == "dark" or (self._mode == "system" and system_prefers_dark()):
            return DARK
        return LIGHT

    def _system_changed(self, *_args) -> None:
        if self._mode == "system":
            self._update()

    def _update(self) -> None:
        theme = self._resolve()
        if theme is not self._theme:
            self._theme = theme
            self.apply_palette()
            self.changed.emit(theme)

    def apply_palette(self) -> None:
        """Give the whole application the palette of the current theme."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setPalette(palette_for(self._theme))
