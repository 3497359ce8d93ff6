"""Small pieces the drill windows share: a read-only table, a plot widget set up the way every
drill plot is (no mouse zoom, no buttons, a title in the theme's ink), and the clock-speed box."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHeaderView, QTableWidget, QWidget

from desktop.drills.clock import SPEEDS, DrillClock, speed_text
from desktop.readouts.plots import TidyAxis
from desktop.theme import PLOT_BACKGROUND, PLOT_INK


def read_only_table(parent: QWidget, name: str, accessible: str, headers: Sequence[str], stretch: int,
                    widths: dict[int, int] | None = None, rows: int = 0, select_rows: bool = False) -> QTableWidget:
    """A table the user reads but does not edit, with ``headers``, column ``stretch`` filling the width."""
    table = QTableWidget(rows, len(headers), parent)
    table.setObjectName(name)
    table.setAccessibleName(accessible)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setWordWrap(True)
    table.horizontalHeader().setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    for column, width in (widths or {}).items():
        table.setColumnWidth(column, width)
    if select_rows:
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    return table


def plot_widget(parent: QWidget, title: str, accessible: str, dark: bool, min_height: int) -> tuple[Any, Any]:
    """A ``pg.PlotWidget`` (one per plot, never a ``GraphicsLayoutWidget``) and its PlotItem."""
    # pyqtgraph is slow to import: loaded when a plot is first built
    import pyqtgraph as pg

    widget = pg.PlotWidget(parent, background=PLOT_BACKGROUND[bool(dark)], axisItems={"left": TidyAxis("left")})
    widget.setAccessibleName(accessible)
    widget.setMinimumHeight(min_height)
    plot = widget.getPlotItem()
    if title:
        plot.setTitle(title, color=PLOT_INK[bool(dark)], size="10pt")
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.getAxis("bottom").setLabel("minutes since the drill started")
    return widget, plot


def speed_box(parent: QWidget, clock: DrillClock) -> QComboBox:
    """The clock's speed, offered from :data:`SPEEDS` (and the one it runs at)."""
    box = QComboBox(parent)
    box.setObjectName("drill_speed")
    box.setAccessibleName("Clock speed")
    for speed in sorted(set(SPEEDS) | {clock.session.speed}):
        box.addItem(speed_text(speed), speed)
    box.setCurrentIndex(box.findData(clock.session.speed))
    box.currentIndexChanged.connect(lambda _i: clock.set_speed(box.currentData()))
    return box
