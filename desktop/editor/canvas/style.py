"""Card metrics and value formatting shared by the canvas items, the inspector and the outline."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtGui import QFont

from inferboard.catalog.schema import ComponentKind, ParamSpec

GRID = 10.0
CARD_WIDTH = 176.0
HEADER_HEIGHT = 40.0
LINE_HEIGHT = 17.0
PORT_SPACING = 18.0
PORT_RADIUS = 5.0
REGION_HEADER = 30.0
REGION_MIN = (120.0, 80.0)


def card_height(kind: ComponentKind, extra_lines: int = 0) -> float:
    """A card's height: its header, then its parameter rows (``extra_lines`` more where a row's
    value takes a line of its own) or its ports, whichever needs more."""
    body = 10.0 + (len(kind.card_params) + extra_lines) * LINE_HEIGHT + 8.0
    ports = 16.0 + max(len(kind.inputs), len(kind.outputs)) * PORT_SPACING
    raw = HEADER_HEIGHT + max(body, ports, 24.0)
    return math.ceil(raw / GRID) * GRID  # whole grid cells, so edges and centres line up


def port_y(index: int) -> float:
    """The height of port number ``index`` on a card's edge."""
    return HEADER_HEIGHT + 18.0 + index * PORT_SPACING


def snap(value: float, step: float = GRID) -> float:
    """``value`` rounded to the nearest multiple of ``step``."""
    return round(value / step) * step


def format_value(spec: ParamSpec | None, value: Any) -> str:
    """A parameter value as the card shows it: ``30 %`` for fractions, ``on``/``off``, units."""
    if spec is None:
        return str(value)
    if spec.type == "bool":
        return "on" if value else "off"
    if spec.type == "schedule":
        return f"{len(value)} step{'s' if len(value) != 1 else ''}" if value else "none"
    if spec.type in ("int", "float"):
        if spec.unit == "fraction":
            return f"{value * 100:.3g} %"
        text = f"{value:,}" if spec.type == "int" else f"{value:.4g}"
        return f"{text} {spec.unit}".strip()
    if spec.type == "choice":
        return str(value).replace("_", " ")
    text = str(value)
    return text if len(text) <= 18 else text[:17] + "…"


def ui_font(point_size: float = 9.0, bold: bool = False) -> QFont:
    """A font of ``point_size`` points, bold or not."""
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font
