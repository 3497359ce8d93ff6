"""The welcome screen and the template gallery: each template with its picture, title and one
line; the welcome screen adds Open, recent files and the getting-started guide."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QListView, QListWidget,
                               QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from inferboard.store import DesignFileError, read_design

from desktop.editor.canvas.scene import DesignScene
from desktop.editor.document import DesignDocument
from desktop.editor.export import clean_scene, export_rect
from desktop.shell.templates import Template, template_list
from desktop.theme import DARK, LIGHT
from desktop.window_placement import fit_window

NAME_ROLE = Qt.ItemDataRole.UserRole + 1
THUMB = QSize(240, 140)
_thumbnails: dict[tuple[str, bool], QPixmap] = {}


def thumbnail(template: Template, dark: bool = False) -> QPixmap:
    """The template's diagram drawn small (cached; a blank design gets an empty card outline)."""
    key = (template.name, dark)
    if key in _thumbnails:
        return _thumbnails[key]

    theme = DARK if dark else LIGHT
    image = QImage(THUMB, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(theme.canvas))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                           | QPainter.RenderHint.SmoothPixmapTransform)
    if template.path is None:
        painter.setPen(QColor(theme.text))
        painter.drawText(QRectF(0, 0, THUMB.width(), THUMB.height()), Qt.AlignmentFlag.AlignCenter, "+")
    else:
        try:
            design, _ = read_design(template.path)
        except DesignFileError:
            design = None
        if design is not None:
            document = DesignDocument(design)
            scene = DesignScene(document, theme)
            source = export_rect(scene)
            scale = min(THUMB.width() / source.width(), THUMB.height() / source.height())
            target = QRectF(0, 0, source.width() * scale, source.height() * scale)
            target.moveCenter(QRectF(0, 0, THUMB.width(), THUMB.height()).center())
            with clean_scene(scene):
                scene.render(painter, target, source)
            scene.deleteLater()
            document.deleteLater()
    painter.end()
    pixmap = QPixmap.fromImage(image)
    _thumbnails[key] = pixmap
    return pixmap


class TemplateGallery(QListWidget):
    """Templates as tiles: picture, title, and one line underneath."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None, dark: bool = False):
        super().__init__(parent)
        self.setAccessibleName("Templates")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setIconSize(THUMB)
        self.setGridSize(QSize(THUMB.width() + 40, THUMB.height() + 100))
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setWordWrap(True)
        self.setSpacing(6)
        self.setUniformItemSizes(True)
        self.templates = template_list()
        for template in self.templates:
            item = QListWidgetItem(QIcon(thumbnail(template, dark)), f"{template.title}\n{template.summary}")
            item.setData(NAME_ROLE, template.name)
            item.setToolTip(f"<b>{template.title}</b><br>{template.summary}")
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            item.setSizeHint(self.gridSize() - QSize(8, 8))
            self.addItem(item)
        self.itemActivated.connect(lambda item: self.chosen.emit(item.data(NAME_ROLE)))
        self.select("starter")

    def select(self, name: str) -> None:
        """Select the template called ``name``."""
        for row in range(self.count()):
            if self.item(row).data(NAME_ROLE) == name:
                self.setCurrentRow(row)

    def current_name(self) -> str | None:
        """The selected template's name, or None."""
        item = self.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def titles(self) -> list[str]:
        """The templates' titles, in order."""
        return [self.item(row).text() for row in range(self.count())]


class TemplateDialog(QDialog):
    """File > New from Template: pick one tile (double-click or Create)."""

    def __init__(self, parent: QWidget | None = None, title: str = "New from Template"):
        super().__init__(parent)
        self.setObjectName("template_dialog")
        self.setWindowTitle(title)
        dark = bool(getattr(getattr(getattr(parent, "theme_manager", None), "theme", None), "dark", False))
        self.gallery = TemplateGallery(self, dark)
        self.gallery.chosen.connect(lambda _name: self.accept())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.create_button = self.buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.intro = QLabel("Start from a blank canvas or from an example you can change. The example files "
                            "themselves stay as they are: your design is a new, untitled one.", self)
        self.intro.setWordWrap(True)
        self.layout_ = QVBoxLayout(self)
        self.layout_.addWidget(self.intro)
        self.layout_.addWidget(self.gallery, 1)
        self.layout_.addWidget(self.buttons)
        fit_window(self, 900, 560)

    def choice(self) -> str | None:
        """The template chosen."""
        return self.gallery.current_name()


class WelcomeDialog(TemplateDialog):
    """Shown when the app starts without a file: templates, Open, recent files, the guide."""

    #: "template:<name>", "open", "recent:<path>", "guide"
    picked = Signal(str)

    def __init__(self, recent_paths: list[str], show_at_start: bool, parent: QWidget | None = None):
        super().__init__(parent, "Welcome to Inferboard")
        self.setObjectName("welcome")
        self.intro.setText("<h2 style='margin:0'>Welcome to Inferboard</h2>"
                           "Draw an ML-inference serving design, check it against interview rubrics and watch it "
                           "run. Pick a template to start (the examples open as untitled copies), or open a design.")
        self.intro.setTextFormat(Qt.TextFormat.RichText)
        side = QVBoxLayout()
        self.open_button = QPushButton("Open a Design…", self)
        self.open_button.clicked.connect(lambda: self._pick("open"))
        self.guide_button = QPushButton("Getting Started", self)
        self.guide_button.clicked.connect(lambda: self._pick("guide"))
        side.addWidget(self.open_button)
        side.addWidget(self.guide_button)
        self.recent = QListWidget(self)
        self.recent.setAccessibleName("Recent designs")
        for path in recent_paths[:8]:
            item = QListWidgetItem(Path(path).name)
            item.setToolTip(path)
            item.setData(NAME_ROLE, path)
            self.recent.addItem(item)
        self.recent.itemActivated.connect(lambda item: self._pick(f"recent:{item.data(NAME_ROLE)}"))
        if recent_paths:
            side.addWidget(QLabel("Recent designs:", self))
            side.addWidget(self.recent, 1)
        else:
            self.recent.hide()
            side.addStretch(1)
        self.show_at_start = QCheckBox("Show this at start", self)
        self.show_at_start.setChecked(show_at_start)
        side.addWidget(self.show_at_start)
        body = QHBoxLayout()
        self.layout_.removeWidget(self.gallery)
        body.addWidget(self.gallery, 1)
        body.addLayout(side)
        self.layout_.insertLayout(1, body, 1)
        self.create_button.setText("Start with Template")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Close")
        fit_window(self, 1040, 600)

    def _pick(self, what: str) -> None:
        self.result_choice = what
        self.accept()

    def outcome(self) -> str | None:
        """What the user picked, after ``exec``; None if they closed the screen."""
        if self.result() != QDialog.DialogCode.Accepted:
            return None
        choice = getattr(self, "result_choice", None)
        return choice or f"template:{self.gallery.current_name()}"
