"""The projector's day strip: the simulated day's p99 against its SLO and the traffic offered, the
planned faults as bands, and the playhead moving as the timeline plays. Thick lines, large labels."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from inferboard import humanize

from desktop.workshop.projector_theme import PROJECTOR, SMALL_PX, pixel_font


class DayStrip(QWidget):
    """The projector's strip of the simulated day: p99 latency against the SLO, fault spans and the current tick."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("projector_day")
        self.setAccessibleName("Simulated day")
        self.timeline = None
        self.index = 0
        self.slo_ms: float | None = None
        self.faults: tuple = ()
        #: Shown while there is no timeline.
        self.placeholder = "Simulating the day…"
        self.setFont(pixel_font(SMALL_PX))
        self.setMinimumHeight(150)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def show_timeline(self, timeline, slo_ms: float | None, faults=()) -> None:
        """Draw ``timeline``'s p99 with the SLO line and the faults' spans."""
        self.timeline, self.slo_ms, self.faults = timeline, slo_ms, tuple(faults)
        self.update()

    def set_index(self, index: int) -> None:
        """Mark tick ``index`` as the current one."""
        self.index = index
        self.update()

    def _series(self, key: str) -> list[float]:
        values = self.timeline.series.get(key) if self.timeline is not None else None
        return [float(v) if v == v else 0.0 for v in values] if values is not None else []

    def paintEvent(self, _event) -> None:
        """Draw the day: background, SLO line, fault spans, the p99 curve and the current tick."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(PROJECTOR.canvas))
        metrics = painter.fontMetrics()
        label_w = metrics.horizontalAdvance("Traffic") + 16
        area = QRectF(label_w, 6, self.width() - label_w - 12, self.height() - metrics.height() - 14)
        times = list(self.timeline.times_s) if self.timeline is not None else []
        if len(times) < 2:
            painter.setPen(QColor(PROJECTOR.text))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder)
            return
        t0, t1 = times[0], times[-1]

        def x_of(t: float) -> float:
            return area.left() + (t - t0) / max(t1 - t0, 1.0) * area.width()

        for fault in self.faults:
            band = QRectF(x_of(fault.start_s), area.top(), x_of(fault.start_s + fault.duration_s) - x_of(fault.start_s),
                          area.height())
            tint = QColor(PROJECTOR.bad)
            tint.setAlphaF(0.12)
            painter.fillRect(band.intersected(area), tint)
        half = area.height() / 2
        lanes = (("p99", "p99_ms", QRectF(area.left(), area.top(), area.width(), half - 6), PROJECTOR.signals["requests"]),
                 ("Traffic", "offered_rps", QRectF(area.left(), area.top() + half + 6, area.width(), half - 6),
                  PROJECTOR.muted))
        for title, key, lane, colour in lanes:
            values = self._series(key)
            top = max(values + [self.slo_ms or 0.0] if key == "p99_ms" else values) or 1.0
            top *= 1.1

            def y_of(v: float, lane=lane, top=top) -> float:
                return lane.bottom() - min(v, top) / top * lane.height()

            painter.setPen(QPen(QColor(PROJECTOR.grid_major), 2))
            painter.drawLine(QPointF(lane.left(), lane.bottom()), QPointF(lane.right(), lane.bottom()))
            path = QPainterPath(QPointF(x_of(times[0]), y_of(values[0])))
            for t, v in zip(times[1:], values[1:]):
                path.lineTo(QPointF(x_of(t), y_of(v)))
            painter.setPen(QPen(QColor(colour), 4))
            painter.drawPath(path)
            if key == "p99_ms" and self.slo_ms:
                painter.setPen(QPen(QColor(PROJECTOR.bad), 3, Qt.PenStyle.DashLine))
                painter.drawLine(QPointF(lane.left(), y_of(self.slo_ms)), QPointF(lane.right(), y_of(self.slo_ms)))
            painter.setPen(QColor(PROJECTOR.text))
            painter.drawText(QRectF(0, lane.top(), label_w - 8, lane.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, title)
        for hour in range(0, int((t1 - t0) // 3600) + 1, 6):
            x = x_of(t0 + hour * 3600)
            painter.setPen(QColor(PROJECTOR.text))
            painter.drawText(QRectF(x - 60, area.bottom() + 4, 120, metrics.height()), Qt.AlignmentFlag.AlignCenter,
                             humanize.clock(t0 + hour * 3600))
        index = max(0, min(self.index, len(times) - 1))
        x = x_of(times[index])
        painter.setPen(QPen(QColor(PROJECTOR.highlight), 5))
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
