"""The on-call engineer's notebook in a drill: state the symptom and its scope, record hypotheses,
apply a mitigation (action, target, value), name the root cause, write the long-term fix and the
monitoring, and the log of what was done. Every button records one action on the session
(``session.<verb>``); ``acted`` tells the window to redraw. Outcomes of mitigations (whether one
fixes the incident) are the hidden truth and never shown here: the dashboards show the effect."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QPlainTextEdit, QPushButton, QTabWidget, QVBoxLayout, QWidget)

from inferboard.drills.engine import DrillError, DrillSession, RecordedAction
from inferboard.drills.mitigate import VALUE_SPECS
from inferboard.drills.schema import MITIGATIONS

from desktop.theme import LIGHT_INK

MITIGATION_TITLES = {
    "rollback_canary": "Roll back the canary", "scale_out": "Scale out a pool", "fail_over": "Fail over a region",
    "restore_region": "Restore a region", "switch_to_fallback": "Switch to the fallback model",
    "shed": "Shed low-priority traffic", "warm_cache": "Warm a cache", "flush_cache": "Flush a cache",
    "revert_config": "Revert a config change", "restart_replicas": "Restart a pool's replicas",
    "move_to_dedicated_gpus": "Move to dedicated GPUs", "pin_previous_model": "Pin the previous model",
    "retrain": "Start retraining", "set_batcher_delay": "Set a batcher's delay", "move_traffic": "Move traffic",
}
VERB_TITLES = {"state_symptom": "stated the symptom", "open_dashboard": "opened a dashboard",
               "slice_by_segment": "sliced by segment", "check_changes": "checked recent changes",
               "record_hypothesis": "hypothesis", "apply_mitigation": "mitigation",
               "name_root_cause": "named the root cause", "write_follow_up": "follow-up", "wait": "waited"}


def minute(t_s: float) -> str:
    """Seconds as minutes to one decimal ("12.5")."""
    return f"{t_s / 60:.1f}"


def describe(action: RecordedAction, notice_s: float) -> str:
    """One line of the log, as the candidate may see it (no outcome of a mitigation)."""
    a = action.args
    when = f"min {minute(action.t_s)} ({(action.t_s - notice_s) / 60:+.1f})"
    if action.verb == "apply_mitigation":
        what = MITIGATION_TITLES.get(a.get("action", ""), a.get("action", ""))
        detail = " ".join(str(x) for x in (a.get("target", ""), "" if a.get("value") is None else f"= {a['value']:g}")
                          if x)
        return f"{when}  {what}{': ' + detail if detail else ''}"
    if action.verb in ("open_dashboard", "slice_by_segment"):
        return f"{when}  {VERB_TITLES[action.verb]}: {a.get('name', '')}"
    text = a.get("text") or a.get("fix") or ""
    if action.verb == "state_symptom" and a.get("scope"):
        text += f" — scope: {a['scope']}"
    if action.verb == "write_follow_up":
        text = f"fix: {a.get('fix', '')} — monitoring: {a.get('monitoring', '')}"
    return f"{when}  {VERB_TITLES.get(action.verb, action.verb)}{': ' + text if text else ''}"


def _button(text: str, parent: QWidget, name: str) -> QPushButton:
    button = QPushButton(text, parent)
    button.setObjectName(name)
    button.setAccessibleName(text.replace("&", ""))
    return button


def _editor(parent: QWidget, name: str, placeholder: str, height: int = 70) -> QPlainTextEdit:
    edit = QPlainTextEdit(parent)
    edit.setObjectName(name)
    edit.setAccessibleName(placeholder)
    edit.setPlaceholderText(placeholder)
    edit.setMaximumHeight(height)
    return edit


class MitigationPicker(QWidget):
    """Action, target (from ``session.mitigation_targets()``) and a value where the action takes one."""

    def __init__(self, session: DrillSession, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.targets = session.mitigation_targets()
        self.action = QComboBox(self)
        self.action.setObjectName("mitigation_action")
        self.action.setAccessibleName("Mitigation")
        for action in self.targets:
            self.action.addItem(MITIGATION_TITLES.get(action, action), action)
        self.target = QComboBox(self)
        self.target.setObjectName("mitigation_target")
        self.target.setAccessibleName("Mitigation target")
        self.value = QDoubleSpinBox(self)
        self.value.setObjectName("mitigation_value")
        self.value.setAccessibleName("Mitigation value")
        self.value_label = QLabel("Value:", self)
        self.about = QLabel(self)
        self.about.setWordWrap(True)
        self.about.setStyleSheet(f"color: {LIGHT_INK.muted};")
        self.apply_button = _button("&Apply mitigation", self, "apply_mitigation")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Action:", self.action)
        form.addRow("Target:", self.target)
        form.addRow(self.value_label, self.value)
        form.addRow(self.about)
        form.addRow(self.apply_button)
        self.action.currentIndexChanged.connect(self._action_changed)
        self._action_changed()

    def choose(self, action: str, target: str = "", value: float | None = None) -> None:
        """Pick mitigation ``action`` on ``target`` with ``value``."""
        self.action.setCurrentIndex(self.action.findData(action))
        if target:
            self.target.setCurrentIndex(self.target.findData(target))
        if value is not None:
            self.value.setValue(value)

    def chosen(self) -> tuple[str, str, float | None]:
        """The (action, target, value) picked; value is None for an action that takes none."""
        action = self.action.currentData() or ""
        return action, self.target.currentData() or "", self.value.value() if action in VALUE_SPECS else None

    def _action_changed(self) -> None:
        action = self.action.currentData() or ""
        self.target.clear()
        design = self.session.design
        for node_id in self.targets.get(action, [""]):
            if not node_id:
                continue
            node = design.nodes.get(node_id)
            kind = node.kind.replace("_", " ") if node is not None else ""
            self.target.addItem(f"{node_id} ({kind})" if kind else node_id, node_id)
        self.target.setEnabled(self.target.count() > 0)
        if self.target.count() == 0:
            self.target.addItem("(no target)", "")
        spec = VALUE_SPECS.get(action)
        self.value.setVisible(spec is not None)
        self.value_label.setVisible(spec is not None)
        if spec is not None:
            self.value_label.setText(spec.label.capitalize() + ":")
            self.value.setDecimals(2 if spec.step < 1 else 1)
            self.value.setRange(spec.low + (spec.step if spec.low_open else 0.0), spec.high)
            self.value.setSingleStep(spec.step)
            self.value.setValue(spec.default)
        self.about.setText(MITIGATIONS.get(action, "").capitalize() + ".")


class Notebook(QTabWidget):
    """The tabs of the investigation; ``status`` is called with an error message or ''."""

    acted = Signal()

    def __init__(self, session: DrillSession, parent: QWidget | None = None, status=None):
        super().__init__(parent)
        self.setObjectName("drill_notebook")
        self.setAccessibleName("Investigation")
        self.session = session
        self.status = status or (lambda _text: None)
        # ---- symptom and scope
        page = QWidget(self)
        self.symptom = QLineEdit(page)
        self.symptom.setObjectName("symptom")
        self.symptom.setAccessibleName("Symptom")
        self.symptom.setPlaceholderText("What is wrong, in numbers: p99 3× the SLO, errors at 4%…")
        self.scope = QLineEdit(page)
        self.scope.setObjectName("scope")
        self.scope.setAccessibleName("Scope")
        self.scope.setPlaceholderText("How far it reaches: one region, one segment, since minute 10…")
        self.symptom_button = _button("&State symptom and scope", page, "state_symptom")
        self.symptom_button.clicked.connect(self.state_symptom)
        form = QFormLayout(page)
        form.addRow("Symptom:", self.symptom)
        form.addRow("Scope:", self.scope)
        form.addRow(self.symptom_button)
        self.addTab(page, "Symptom")
        # ---- hypotheses
        page = QWidget(self)
        self.hypothesis = QLineEdit(page)
        self.hypothesis.setObjectName("hypothesis")
        self.hypothesis.setAccessibleName("Hypothesis")
        self.hypothesis.setPlaceholderText("A cause you could test: the canary build is slower…")
        self.hypothesis.returnPressed.connect(self.record_hypothesis)
        self.hypothesis_button = _button("Recor&d", page, "record_hypothesis")
        self.hypothesis_button.clicked.connect(self.record_hypothesis)
        self.hypotheses = QListWidget(page)
        self.hypotheses.setObjectName("hypotheses")
        self.hypotheses.setAccessibleName("Hypotheses recorded")
        row = QHBoxLayout()
        row.addWidget(self.hypothesis, 1)
        row.addWidget(self.hypothesis_button)
        column = QVBoxLayout(page)
        column.addLayout(row)
        column.addWidget(self.hypotheses, 1)
        self.addTab(page, "Hypotheses")
        # ---- mitigate
        self.picker = MitigationPicker(session, self)
        self.picker.apply_button.clicked.connect(self.apply_mitigation)
        self.addTab(self.picker, "Mitigate")
        # ---- root cause
        page = QWidget(self)
        self.root_cause = _editor(page, "root_cause", "The root cause, in a sentence or two", 110)
        self.root_cause_button = _button("&Name root cause", page, "name_root_cause")
        self.root_cause_button.clicked.connect(self.name_root_cause)
        column = QVBoxLayout(page)
        column.addWidget(self.root_cause)
        column.addWidget(self.root_cause_button)
        column.addStretch(1)
        self.addTab(page, "Root cause")
        # ---- follow-up
        page = QWidget(self)
        self.fix = _editor(page, "long_term_fix", "The long-term fix (so it cannot happen again)")
        self.monitoring = _editor(page, "monitoring", "The monitoring or alert to add (so it is caught sooner)")
        self.follow_up_button = _button("Save follo&w-up", page, "write_follow_up")
        self.follow_up_button.clicked.connect(self.write_follow_up)
        column = QVBoxLayout(page)
        column.addWidget(self.fix)
        column.addWidget(self.monitoring)
        column.addWidget(self.follow_up_button)
        column.addStretch(1)
        self.addTab(page, "Follow-up")
        # ---- log
        self.log = QListWidget(self)
        self.log.setObjectName("drill_log")
        self.log.setAccessibleName("What you did")
        self.log.setWordWrap(True)
        self.addTab(self.log, "Log")

    # ------------------------------------------------------------------ actions
    def _do(self, call) -> bool:
        try:
            call()
        except DrillError as error:
            self.status(str(error))
            return False
        self.status("")
        self.acted.emit()
        return True

    def state_symptom(self) -> bool:
        """Record the symptom written; False (with a word why) when it is empty."""
        text = self.symptom.text().strip()
        if not text:
            self.status("Write the symptom first.")
            return False
        return self._do(lambda: self.session.state_symptom(text, self.scope.text().strip()))

    def record_hypothesis(self) -> bool:
        """Record the hypothesis written; False when it is empty."""
        text = self.hypothesis.text().strip()
        if not text:
            return False
        if self._do(lambda: self.session.record_hypothesis(text)):
            self.hypotheses.addItem(f"min {minute(self.session.now_s)}: {text}")
            self.hypothesis.clear()
            return True
        return False

    def apply_mitigation(self) -> bool:
        """Apply the picked mitigation; False when the session refuses it."""
        action, target, value = self.picker.chosen()
        return self._do(lambda: self.session.apply_mitigation(action, target, value))

    def name_root_cause(self) -> bool:
        """Record the root cause written; False when it is empty."""
        text = self.root_cause.toPlainText().strip()
        if not text:
            self.status("Write the root cause first.")
            return False
        return self._do(lambda: self.session.name_root_cause(text))

    def write_follow_up(self) -> bool:
        """Record the long-term fix and the monitoring; False when both are empty."""
        fix, monitoring = self.fix.toPlainText().strip(), self.monitoring.toPlainText().strip()
        if not (fix or monitoring):
            self.status("Write the long-term fix and the monitoring first.")
            return False
        return self._do(lambda: self.session.write_follow_up(fix, monitoring))

    def show_log(self) -> None:
        """List the actions taken so far, each at its minute."""
        lines = [describe(a, self.session.notice_s) for a in self.session.actions]
        if lines != [self.log.item(i).text() for i in range(self.log.count())]:
            self.log.clear()
            self.log.addItems(lines)
            self.log.scrollToBottom()

    def set_finished(self) -> None:
        """Disable every action: the drill is over."""
        for button in (self.symptom_button, self.hypothesis_button, self.picker.apply_button,
                       self.root_cause_button, self.follow_up_button):
            button.setEnabled(False)
