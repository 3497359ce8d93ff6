"""The projector's high-contrast theme: black on white (a lit room washes a dark screen out), every
colour that carries meaning at least 7:1 against the white it sits on, lines drawn twice as thick,
and the sizes of its type in pixels (read from the back of a room at 1920x1080)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette

from desktop.theme import Theme

PROJECTOR = Theme(
    "projector", False, canvas="#ffffff", grid_minor="#f4f4f4", grid_major="#e4e4e4", card="#ffffff",
    card_header="#eef2f7", card_border="#000000", text="#000000", muted="#1f2937", selection="#0033a0",
    highlight="#a3007d", region_fill="#f3f7ff", region_border="#0033a0", drop_target="#0033a0",
    snap_line="#b00020", ok="#005a00", warn="#7a3d00", bad="#b00020", line_scale=2.0,
    signals={"requests": "#0033a0", "telemetry": "#374151", "control": "#7a3d00", "artifacts": "#6b21a8",
             "alerts": "#b00020", "triggers": "#00524d"},
    severity={"blocker": "#8b0000", "major": "#9a3412", "minor": "#713f12", "advice": "#1e3a8a"})
#: The stage's own background (around the canvas, behind the figures and the finding).
PANEL = "#ffffff"

#: Type sizes in pixels: the finding's title, its text, a figure's value and the small print.
TITLE_PX = 40
HEAD_PX = 36
BODY_PX = 28
FIGURE_PX = 50
TILE_TITLE_PX = 28
SMALL_PX = 24
#: Below this zoom (its 9 pt card titles 20 px and more) a finding's components are closed in on.
MIN_CANVAS_ZOOM = 1.5


def pixel_font(px: int, bold: bool = False) -> QFont:
    """A font ``px`` pixels high, bold or not (pixels: a projector's type is sized for the room, not the screen)."""
    font = QFont()
    font.setPixelSize(px)
    font.setBold(bold)
    return font


def projector_palette() -> QPalette:
    """The high-contrast widget palette of the projector stage."""
    palette = QPalette()
    role = QPalette.ColorRole
    for r, colour in ((role.Window, PANEL), (role.WindowText, "#000000"), (role.Base, PANEL),
                      (role.Text, "#000000"), (role.Button, "#eef2f7"), (role.ButtonText, "#000000"),
                      (role.Highlight, "#0033a0"), (role.HighlightedText, "#ffffff")):
        palette.setColor(r, QColor(colour))
    return palette
