"""Wire two components with the keyboard: choose a component and output, then a component and
input; the dialog says at once whether (and why not) the wire may be drawn."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QWidget

from inferboard.model import ConnectionRefused, Design

from desktop.theme import LIGHT, LIGHT_INK


class ConnectDialog(QDialog):
    """The keyboard way to draw a connection: pick the source, its port, the target and its port."""

    def __init__(self, design: Design, source: str | None = None, target: str | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.design = design
        self.setWindowTitle("Connect components")
        self.source = QComboBox(self)
        self.source_port = QComboBox(self)
        self.target = QComboBox(self)
        self.target_port = QComboBox(self)
        for combo, name in ((self.source, "From component"), (self.source_port, "From output"),
                            (self.target, "To component"), (self.target_port, "To input")):
            combo.setAccessibleName(name)
        for node in design.nodes.values():
            kind = design.catalog.kind(node.kind)
            text = f"{node.label or kind.title} ({node.id})"
            if kind.outputs:
                self.source.addItem(text, node.id)
            if kind.inputs:
                self.target.addItem(text, node.id)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Connection check")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("&From", self.source)
        form.addRow("O&utput", self.source_port)
        form.addRow("&To", self.target)
        form.addRow("&Input", self.target_port)
        form.addRow(self.status)
        form.addRow(self.buttons)
        self.source.currentIndexChanged.connect(self._fill_source_ports)
        self.target.currentIndexChanged.connect(self._fill_target_ports)
        self.source_port.currentIndexChanged.connect(self.check)
        self.target_port.currentIndexChanged.connect(self.check)
        if source is not None and self.source.findData(source) >= 0:
            self.source.setCurrentIndex(self.source.findData(source))
        if target is not None and self.target.findData(target) >= 0:
            self.target.setCurrentIndex(self.target.findData(target))
        self._fill_source_ports()
        self._fill_target_ports()

    def _fill_source_ports(self) -> None:
        self._fill(self.source, self.source_port, "out")

    def _fill_target_ports(self) -> None:
        self._fill(self.target, self.target_port, "in")

    def _fill(self, combo: QComboBox, ports: QComboBox, direction: str) -> None:
        ports.blockSignals(True)
        ports.clear()
        node_id = combo.currentData()
        if node_id:
            kind = self.design.catalog.kind(self.design.node(node_id).kind)
            for port in kind.outputs if direction == "out" else kind.inputs:
                ports.addItem(f"{port.name} ({port.signal})", port.name)
        ports.blockSignals(False)
        self.check()

    def endpoints(self) -> tuple[str, str, str, str]:
        """(source node, source port, target node, target port) as chosen."""
        return (self.source.currentData(), self.source_port.currentData(), self.target.currentData(),
                self.target_port.currentData())

    def check(self) -> str:
        """Check the chosen ends against the model and say why they cannot connect; returns the verdict."""
        ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if None in self.endpoints():
            self.status.setText("Choose both ends.")
            ok_button.setEnabled(False)
            return "incomplete"
        try:
            self.design.check_connect(*self.endpoints())
        except ConnectionRefused as error:
            self.status.setText(f"<span style='color:{LIGHT_INK.invalid}'>Cannot connect: {error.reason}</span>")
            ok_button.setEnabled(False)
            return error.reason
        self.status.setText(f"<span style='color:{LIGHT.ok}'>This wire can be drawn.</span>")
        ok_button.setEnabled(True)
        return ""
