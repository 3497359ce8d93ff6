"""Practice > Host Interview… and Practice > Join Interview…

``HostInterviewDialog`` (the candidate): choose the scenario, the address and the port (this
machine's LAN addresses are listed), start listening; the dialog then shows the join code to read
aloud, the connection's state and, once the interviewer joined, the verification string both
people compare. End session stops it at any time.

``JoinInterviewDialog`` (the interviewer): the candidate's address and port and the code; on
joining, the interviewer console opens and mirrors the candidate's design live.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtNetwork import QAbstractSocket, QNetworkInterface
from PySide6.QtWidgets import (QComboBox, QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QMessageBox,
                               QPushButton, QSpinBox, QStackedWidget, QVBoxLayout, QWidget)

from inferboard.practice.history import History
from inferboard.practice.library import ScenarioLibrary
from inferboard.remote.peer import DEFAULT_PORT, Status
from inferboard.remote.words import BadCode, normalize_code

from desktop.practice.common import esc, wrapped_label
from desktop.practice.remote_session import STATE_TEXT, RemoteCandidate, RemoteInterviewer, status_html
from desktop.theme import LIGHT_INK
from desktop.window_placement import fit_window

LOOPBACK = "127.0.0.1"
EVERY_NETWORK = "0.0.0.0"


def lan_addresses() -> list[str]:
    """This machine's addresses other than loopback and link-local, IPv4 first."""
    out = []
    for address in QNetworkInterface.allAddresses():
        if address.isLoopback() or address.isLinkLocal():
            continue
        if address.protocol() == QAbstractSocket.NetworkLayerProtocol.IPv4Protocol:
            out.insert(0, address.toString())
        elif address.protocol() == QAbstractSocket.NetworkLayerProtocol.IPv6Protocol and address.isGlobal():
            out.append(address.toString())
    return list(dict.fromkeys(out))


def port_box(parent: QWidget) -> QSpinBox:
    """A port field from 1 to 65535, 0 shown as "any free port"."""
    box = QSpinBox(parent)
    box.setRange(0, 65535)
    box.setSpecialValueText("any free port")
    box.setValue(DEFAULT_PORT)
    box.setAccessibleName("Port")
    return box


def form_page(page: QWidget, intro: str, rows, message: QLabel, button: QPushButton) -> QVBoxLayout:
    """An explanation, a form, a message line, and the action button at the bottom right."""
    form = QFormLayout()
    for label, field in rows:
        form.addRow(label, field)
    layout = QVBoxLayout(page)
    layout.addWidget(wrapped_label(intro, page))
    layout.addLayout(form)
    layout.addWidget(message)
    layout.addStretch(1)
    row = QHBoxLayout()
    row.addStretch(1)
    row.addWidget(button)
    layout.addLayout(row)
    return layout


# ------------------------------------------------------------------------------ candidate
class HostInterviewDialog(QDialog):
    """Practice › Host Interview: pick the scenario, listen, show the join code, then open the candidate's window."""

    def __init__(self, library: ScenarioLibrary, parent: QWidget | None = None, data_folder=None,
                 theme_mode: str | None = None, clock: Callable[[], float] | None = None,
                 scenario_id: str | None = None):
        super().__init__(parent)
        self.setWindowTitle("Host a remote mock interview")
        self.setAccessibleName("Host a remote mock interview")
        self.setWindowFlag(Qt.WindowType.Window)
        self.library = library
        self.data_folder = data_folder
        self.theme_mode = theme_mode
        self.clock = clock
        self.remote: RemoteCandidate | None = None
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self._setup_page(scenario_id))
        self.pages.addWidget(self._session_page())
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages)
        fit_window(self, 560, 380)

    def _setup_page(self, scenario_id: str | None) -> QWidget:
        page = QWidget(self)
        self.scenario = QComboBox(page)
        self.scenario.setAccessibleName("Scenario")
        for entry in sorted(self.library.entries.values(), key=lambda e: e.scenario.title.lower()):
            self.scenario.addItem(f"{entry.scenario.title} ({entry.scenario.difficulty}, "
                                  f"{entry.scenario.total_minutes:g} min)", entry.id)
        if scenario_id is not None:
            self.scenario.setCurrentIndex(max(0, self.scenario.findData(scenario_id)))
        self.address = QComboBox(page)
        self.address.setEditable(True)
        self.address.setAccessibleName("Address to listen on")
        self.address.addItem(LOOPBACK, LOOPBACK)
        self.address.setItemData(0, "This machine only: the interviewer comes through an SSH tunnel",
                                 Qt.ItemDataRole.ToolTipRole)
        for address in lan_addresses():
            self.address.addItem(address, address)
            self.address.setItemData(self.address.count() - 1, "This machine's address on a LAN or VPN",
                                     Qt.ItemDataRole.ToolTipRole)
        self.address.addItem(EVERY_NETWORK, EVERY_NETWORK)
        self.address.setItemData(self.address.count() - 1, "Every network this machine is on",
                                 Qt.ItemDataRole.ToolTipRole)
        self.port = port_box(page)
        self.start_button = QPushButton("&Start hosting", page)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(lambda: self.start_hosting())
        self.setup_problem = QLabel("", page)
        self.setup_problem.setStyleSheet(f"color: {LIGHT_INK.bad};")
        self.setup_problem.setWordWrap(True)
        form_page(page, "You are the candidate: the interviewer joins from their machine with a code you read to "
                        "them. Listen on 127.0.0.1 when they come through an SSH tunnel; choose this machine's LAN "
                        "or VPN address otherwise.",
                  (("&Scenario:", self.scenario), ("&Address:", self.address), ("&Port:", self.port)),
                  self.setup_problem, self.start_button)
        return page

    def _session_page(self) -> QWidget:
        page = QWidget(self)
        self.code_label = QLabel("", page)
        self.code_label.setObjectName("join_code")
        self.code_label.setAccessibleName("Join code")
        self.code_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code_label.setStyleSheet("font-size: 22pt; font-weight: 600; font-family: monospace; padding: 8px;")
        self.code_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.where_label = QLabel("", page)
        self.where_label.setAccessibleName("Where the interviewer connects")
        self.where_label.setWordWrap(True)
        self.status_label = QLabel(STATE_TEXT["idle"], page)
        self.status_label.setObjectName("host_status")
        self.status_label.setAccessibleName("Connection status")
        self.status_label.setWordWrap(True)
        self.verification_label = QLabel("", page)
        self.verification_label.setObjectName("verification")
        self.verification_label.setAccessibleName("Verification string")
        self.verification_label.setWordWrap(True)
        self.end_button = QPushButton("&End session", page)
        self.end_button.clicked.connect(lambda: self.end_session())
        self.new_code_button = QPushButton("&New code for the interviewer", page)
        self.new_code_button.setToolTip("While the interviewer is disconnected: a code with which they join this "
                                        "session again, for example after their app restarted")
        self.new_code_button.clicked.connect(lambda: self.issue_new_code())
        self.new_code_button.hide()
        layout = QVBoxLayout(page)
        self.lead = wrapped_label("Read this code to your interviewer (it works once):", page)
        layout.addWidget(self.lead)
        layout.addWidget(self.code_label)
        layout.addWidget(self.where_label)
        layout.addWidget(self.status_label)
        layout.addWidget(self.verification_label)
        layout.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.new_code_button)
        row.addStretch(1)
        row.addWidget(self.end_button)
        layout.addLayout(row)
        return page

    # ------------------------------------------------------------------ actions
    def start_hosting(self) -> RemoteCandidate | None:
        """Listen for the interviewer with a fresh join code; returns the session, or None when it cannot listen."""
        entry = self.library.get(self.scenario.currentData())
        address = self.address.currentText().strip() or LOOPBACK
        remote = RemoteCandidate(entry, address, self.port.value(), self.data_folder, self.theme_mode, self.clock)
        try:
            remote.start()
        except OSError as error:
            remote.candidate.files.ask_unsaved = lambda: "discard"
            remote.candidate.close()
            self.setup_problem.setText(f"Cannot listen on {esc(address)}:{self.port.value()}: {esc(str(error))}")
            return None
        self.remote = remote
        remote.status_changed.connect(self.show_status)
        self.code_label.setText(remote.code or "")
        where = f"{address}:{remote.port}"
        self.where_label.setText(f"The interviewer chooses Practice › Join Interview… and enters <b>{esc(where)}</b>"
                                 + (" (through their SSH tunnel)" if address == LOOPBACK else "") + " and the code.")
        self.pages.setCurrentIndex(1)
        self.show_status(remote.peer.status)
        remote.candidate.show()
        remote.candidate.raise_()
        self.raise_()
        return remote

    def show_status(self, status: Status) -> None:
        """Show the link's state and the verification words to read out."""
        remote = self.remote
        if remote is None:
            return
        self.status_label.setText(status_html(status, other="the interviewer"))
        self.new_code_button.setVisible(remote.peer.joins > 0 and status.state != "ended")
        self.new_code_button.setEnabled(status.state == "lost")
        if status.state in ("code_replaced", "rejoin"):
            self.code_label.setText(remote.code or "")
            self.code_label.setEnabled(True)
        if remote.verification and status.state not in ("ended", "rejoin", "code_replaced") \
                and remote.peer.code is None:
            self.verification_label.setText(
                f"Verification: <b style='font-size:14pt; font-family:monospace'>{esc(remote.verification)}</b><br>"
                "Ask your interviewer to read theirs aloud. If the two differ, someone is in between: end the "
                "session.")
            self.code_label.setText("joined")
            self.code_label.setEnabled(False)
            self.lead.setText("Your interviewer joined with the code; it cannot be used again.")
        if status.state == "ended":
            self.end_button.setText("&Close")
            self.verification_label.setText("")

    def issue_new_code(self) -> str | None:
        """While the interviewer is disconnected: a new code to join this session again."""
        remote = self.remote
        if remote is None:
            return None
        try:
            code = remote.new_code()
        except RuntimeError as error:
            self.status_label.setText(f"<b style='color:{LIGHT_INK.bad}'>{esc(str(error))}</b>")
            return None
        self.code_label.setText(code)
        self.code_label.setEnabled(True)
        self.lead.setText("Read this new code to your interviewer: with it they join this session again (after "
                          "their app restarted, say), and their old connection can no longer come back. It works "
                          "once.")
        self.verification_label.setText("")
        self.new_code_button.setEnabled(False)
        return code

    def end_session(self, confirm: bool = True) -> None:
        """End the session (after asking with ``confirm``) and close."""
        remote = self.remote
        if remote is None or remote.peer.ended:
            self.close()
            return
        if confirm and QMessageBox.question(self, "End session", "End the remote interview now? The interviewer "
                                            "is disconnected; your design stays in your window.") \
                != QMessageBox.StandardButton.Yes:
            return
        remote.end("the candidate ended the session")

    def closeEvent(self, event) -> None:
        """End the session if it is still up."""
        if self.remote is not None and not self.remote.peer.ended:
            self.remote.end("the candidate closed the session")
        super().closeEvent(event)


# ------------------------------------------------------------------------------ interviewer
class JoinInterviewDialog(QDialog):
    """Practice › Join Interview: the candidate's address and join code, then the interviewer's console."""

    def __init__(self, library: ScenarioLibrary, history: History | None, parent: QWidget | None = None, theme=None,
                 clock: Callable[[], float] | None = None):
        super().__init__(parent)
        self.setWindowTitle("Join a remote mock interview")
        self.setAccessibleName("Join a remote mock interview")
        self.library = library
        self.history = history
        self.theme = theme
        self.clock = clock
        self.remote: RemoteInterviewer | None = None
        self.address = QLineEdit(LOOPBACK, self)
        self.address.setAccessibleName("Candidate's address")
        self.port = port_box(self)
        self.port.setMinimum(1)
        self.code = QLineEdit(self)
        self.code.setObjectName("code_entry")
        self.code.setAccessibleName("Join code")
        self.code.setPlaceholderText("e.g. 7-amber-falcon")
        self.code.returnPressed.connect(lambda: self.join())
        self.join_button = QPushButton("&Join", self)
        self.join_button.setDefault(True)
        self.join_button.clicked.connect(lambda: self.join())
        self.status_label = QLabel("", self)
        self.status_label.setObjectName("join_status")
        self.status_label.setAccessibleName("Connection status")
        self.status_label.setWordWrap(True)
        form_page(self, "You are the interviewer: enter the address the candidate's dialog shows (127.0.0.1 when "
                        "you come through an SSH tunnel) and the code they read to you.",
                  (("Candidate's &address:", self.address), ("&Port:", self.port), ("&Code:", self.code)),
                  self.status_label, self.join_button)
        fit_window(self, 480, 240)

    def join(self) -> RemoteInterviewer | None:
        """Connect with the code typed; returns the session, or None when the code or address is refused."""
        try:
            code = normalize_code(self.code.text())
        except BadCode as error:
            self.status_label.setText(f"<b style='color:{LIGHT_INK.bad}'>{esc(str(error))}</b>")
            return None
        if self.remote is not None and not self.remote.peer.ended:
            return self.remote
        self.remote = RemoteInterviewer(self.library, self.history, self.address.text().strip() or LOOPBACK,
                                        self.port.value(), code, self.theme, self.clock)
        self.remote.status_changed.connect(self.show_status)
        self.remote.console_opened.connect(lambda _c: self.hide())
        self.join_button.setEnabled(False)
        self.code.clear()  # single use: never kept
        self.remote.start()
        return self.remote

    def show_status(self, status: Status) -> None:
        """Show the link's state and the verification words to read out."""
        remote = self.remote
        self.status_label.setText(status_html(status, remote.verification if remote else "", "the candidate"))
        if status.state in ("refused", "ended"):
            self.join_button.setEnabled(True)
            if remote is not None and remote.console is None:
                self.show()
