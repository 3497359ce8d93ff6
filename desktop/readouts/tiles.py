"""The headline tiles: one per figure (title, value against its limit, and the basis it is on),
laid out two rows of four, or four rows of two where the panel is narrow (a candidate's window
beside the interviewer's console), so that every number fits; with the sentence saying what the
figures are under them and a switch between the playhead and the steady state."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from inferboard import humanize

from desktop.readouts.readings import HEADLINE, PEAK, PLAYHEAD, STEADY, Reading
from desktop.theme import LIGHT, Theme
from desktop.wrapping import LinesLabel

#: tile key -> (title, field of the requirements holding its limit, or None)
TILES = {
    "p50_ms": ("p50 latency", "slo_p50_ms"),
    "p95_ms": ("p95 latency", "slo_p95_ms"),
    "p99_ms": ("p99 latency", "slo_p99_ms"),
    "throughput_rps": ("Served", None),
    "shed_rate": ("Shed or timed out", None),
    "error_rate": ("Errors", None),
    "cost_per_hour": ("Cost per hour", "budget_per_hour"),
    "cost_per_1k": ("Cost per 1k requests", "budget_per_1k"),
}
assert tuple(TILES) == HEADLINE
COLUMNS = 4
#: Where there is no room for four across, two (the board is never narrower than two tiles).
NARROW_COLUMNS = 2
#: Between them, three across (three rows instead of four: a short, middling-wide readouts dock).
MIDDLE_COLUMNS = 3
#: The widest text each line of a tile may have to show (sizes the tiles; see ``Tile.minimumSizeHint``).
WIDEST = {"title": "Cost per 1k requests", "value": "12.3k req/s", "detail": "budget $0.0040 · steady, peak"}


def limit_text(key: str, limit: float | None) -> str:
    """The limit a tile's figure is held to, in words ("budget $12.00", "SLO 250 ms"), or ""."""
    if limit is None:
        return ""
    if key.startswith("cost"):
        return f"budget {humanize.money(limit)}"
    return f"SLO {humanize.figure(key, limit)}"


class Tile(QFrame):
    """A clickable figure: title on top, the value large, its limit and basis below."""

    activated = Signal(str)

    def __init__(self, key: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.key = key
        self.title, self.limit_field = TILES[key]
        self.setObjectName(f"tile:{key}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.title_label = QLabel(self.title, self)
        self.value_label = QLabel(humanize.DASH, self)
        self.detail_label = QLabel("", self)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 3, 6, 3)
        column.setSpacing(0)
        for label in (self.title_label, self.value_label, self.detail_label):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            column.addWidget(label)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.explanation = ""
        #: How the figure was obtained and its stated error (set by the readouts; shown on hover).
        self.trust = ""
        self.theme: Theme = LIGHT
        self.set_scale(1.0)
        self.show_value(None, None, "", LIGHT)

    def set_scale(self, scale: float) -> None:
        """Size the tile's text for ``scale`` from the application's font."""
        # From the application's font: the panel's own may already be scaled (Projector View).
        app_font = QApplication.font()
        base = app_font.pointSizeF() if app_font.pointSizeF() > 0 else 9.0
        for label, factor, bold in ((self.title_label, 1.0, False), (self.value_label, 1.55, True),
                                    (self.detail_label, 0.9, False)):
            font = QFont(self.font())
            font.setPointSizeF(base * factor * scale)
            font.setBold(bold)
            label.setFont(font)
        self.updateGeometry()

    def text(self) -> str:
        """Everything the tile says, one line each."""
        return "\n".join(label.text() for label in self.lines().values() if label.text())

    def lines(self) -> dict[str, QLabel]:
        """The tile's labels by role: title, value and detail."""
        return {"title": self.title_label, "value": self.value_label, "detail": self.detail_label}

    def minimumSizeHint(self):
        """Wide enough for the widest text any figure can have, so no number is ever cut."""
        hint = super().minimumSizeHint()
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 12 + 6  # + rounding slack
        width = max(label.fontMetrics().horizontalAdvance(max(WIDEST[name], label.text(), key=len))
                    for name, label in self.lines().items()) + margins
        hint.setWidth(max(hint.width(), width))
        return hint

    def show_value(self, value: float | None, limit: float | None, basis: str, theme: Theme) -> None:
        """Show ``value`` against ``limit`` (red when over it) with the basis in the detail line."""
        self.theme = theme
        colour = theme.text
        over = value is not None and limit is not None and value > limit
        if value is not None and limit is not None:
            colour = theme.bad if over else theme.ok
        text = humanize.figure(self.key, value)
        detail = " · ".join(part for part in (limit_text(self.key, limit), basis) if part)
        self.value_label.setText(text)
        self.detail_label.setText(detail)
        self.value_label.setStyleSheet(f"color: {colour};")
        self.title_label.setStyleSheet(f"color: {theme.text};")
        self.detail_label.setStyleSheet(f"color: {theme.muted};")
        within = "" if value is None or limit is None else (" (over the limit)" if over else " (within the limit)")
        self.setAccessibleName(f"{self.title}: {text}{within}, {detail}")
        self.updateGeometry()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A click picks the tile: its working is shown."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.setFocus()
            self.activated.emit(self.key)
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter or Space on a focused tile shows its working."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.activated.emit(self.key)
            return
        super().keyPressEvent(event)


class TileBoard(QWidget):
    """The tiles, the basis switch and the sentence saying what the figures are."""

    #: STEADY, PEAK or PLAYHEAD chosen by the user.
    basis_chosen = Signal(str)
    tile_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.basis_combo = QComboBox(self)
        self.basis_combo.setAccessibleName("Figures shown")
        self.basis_combo.addItem("At the playhead", PLAYHEAD)
        self.basis_combo.addItem("Steady state, mean rate", STEADY)
        self.basis_combo.addItem("Steady state at peak", PEAK)
        self.basis_combo.setToolTip("At the playhead: the simulated timeline's moment under the plots' cursor.\n"
                                    "Steady state, mean rate: the analytic answer at the requirements' mean rate, "
                                    "replicas as configured.\n"
                                    "Steady state at peak: the same at the requirements' peak rate.\n"
                                    "The load test runs at the rate of the figures chosen here.")
        self.basis_combo.activated.connect(lambda _i: self.basis_chosen.emit(self.basis_combo.currentData()))
        self.basis_label = LinesLabel("", self)
        self.basis_label.setObjectName("basis_label")
        self.basis_label.setAccessibleName("What the figures are")
        self.basis_label.setWordWrap(True)
        self.basis_label.setTextFormat(Qt.TextFormat.PlainText)
        self.basis_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.basis_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._fix_basis_height()
        self.grid = grid = QGridLayout()
        grid.setSpacing(3)
        self.tiles: dict[str, Tile] = {}
        for key in TILES:
            tile = Tile(key, self)
            tile.activated.connect(self.tile_activated.emit)
            self.tiles[key] = tile
        self.columns = 0
        self.set_columns(COLUMNS)
        #: "Figures: [basis]", for the panel to place in its row of controls (saving the board a row).
        self.head = QWidget(parent)
        head = QHBoxLayout(self.head)
        head.setContentsMargins(0, 0, 0, 0)
        head.setSpacing(6)
        head.addWidget(QLabel("Figures:", self.head))
        self.basis_combo.setParent(self.head)
        head.addWidget(self.basis_combo)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        column.addLayout(grid)
        column.addWidget(self.basis_label)
        column.addStretch(1)

    # ------------------------------------------------------------------ columns
    def set_columns(self, columns: int) -> None:
        """Lay the tiles out ``columns`` across (in the figures' order, row by row)."""
        if columns == self.columns:
            return
        self.columns = columns
        for tile in self.tiles.values():
            self.grid.removeWidget(tile)
        for column in range(COLUMNS):
            self.grid.setColumnStretch(column, 1 if column < columns else 0)
        for index, tile in enumerate(self.tiles.values()):
            self.grid.addWidget(tile, index // columns, index % columns)
        self.updateGeometry()

    def width_for(self, columns: int) -> int:
        """The narrowest the board can be with ``columns`` tiles across."""
        tile = max(t.minimumSizeHint().width() for t in self.tiles.values())
        return tile * columns + self.grid.horizontalSpacing() * (columns - 1)

    def minimumSizeHint(self):
        """As narrow as two tiles across (then it lays them out two across); as tall as its layout now is."""
        hint = super().minimumSizeHint()
        hint.setWidth(self.width_for(NARROW_COLUMNS))
        return hint

    def columns_for(self, width: int) -> int:
        """The most tiles across (four, three or two) that fit in ``width``."""
        return next((n for n in (COLUMNS, MIDDLE_COLUMNS) if width >= self.width_for(n)), NARROW_COLUMNS)

    def resizeEvent(self, event) -> None:
        """Four tiles across when they fit, else three, else two."""
        super().resizeEvent(event)
        self.set_columns(self.columns_for(event.size().width()))

    def set_mode(self, mode: str) -> None:
        """Show ``mode`` as the chosen basis."""
        self.basis_combo.setCurrentIndex(max(0, self.basis_combo.findData(mode)))

    def show_reading(self, reading: Reading | None, requirements, theme: Theme) -> None:
        """Show ``reading``'s figures on the tiles, each against its limit in ``requirements``."""
        for key, tile in self.tiles.items():
            limit = (getattr(requirements, tile.limit_field, None)
                     if requirements is not None and tile.limit_field else None)
            value = reading.values.get(key) if reading is not None else None
            tile.show_value(value, limit, reading.short_basis if reading is not None else "", theme)
        self.basis_label.setText(reading.basis if reading is not None else "No figures yet.")
        self.basis_label.setToolTip(self.basis_label.text())
        self.basis_label.setStyleSheet(f"color: {theme.muted};")

    def _fix_basis_height(self, lines: int = 3) -> None:
        """Three lines (two on a short screen) whatever the sentence: a longer basis never makes the
        dock taller; the whole sentence is in the tooltip."""
        self.basis_lines = lines
        self.basis_label.setFixedHeight(self.basis_label.fontMetrics().lineSpacing() * lines + 4)

    def set_compact(self, compact: bool) -> None:
        """Give the basis line two lines on a short screen, three otherwise."""
        self._fix_basis_height(2 if compact else 3)

    def set_scale(self, scale: float) -> None:
        """Size every tile's text for ``scale``."""
        for tile in self.tiles.values():
            tile.set_scale(scale)
