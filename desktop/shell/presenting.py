"""Shows evaluation results: findings in their panel, figures in the readouts, live badges on the
cards, the selected node's figures in the inspector; and sends the readouts' choices (pattern,
faults, load test) back to the evaluator. Nothing here edits the design."""

from __future__ import annotations

import html
from inferboard import humanize
from inferboard.sim.explain.trust import node_trust

from desktop.readouts.moment import build_moment
from desktop.shell.window_parts import WindowParts



def behaviour_rule_ids() -> set[str]:
    """The ids of the shipped rules that need the simulator (their findings are kept while the
    structural ones refresh). A malformed rubric gives none: the evaluator reports its error."""
    # the rule set loads after the first paint, not with the window
    from inferboard.rules import RuleFileError, default_rules

    try:
        rules = default_rules()
    except RuleFileError:
        return set()
    return {rule.id for rule in rules if rule.behaviour}


class Presenter:
    """Puts the evaluator's results on screen: findings, readouts, canvas badges and the inspector's live figures."""

    def __init__(self, window: WindowParts):
        self.window = window
        self.full_report = None
        self._behaviour_ids: set[str] | None = None

    def connect(self) -> None:
        """Connect the evaluator's, the readouts' and the load test's signals to the window."""
        w = self.window
        ev = w.evaluator
        ev.structural_ready.connect(self.on_structural)
        ev.report_ready.connect(self.on_report)
        ev.steady_ready.connect(self.on_steady)
        ev.steady_peak_ready.connect(w.readouts.show_steady_peak)
        w.readouts.reading_changed.connect(self.on_reading)
        ev.timeline_ready.connect(w.readouts.show_timeline)
        ev.failed.connect(self.on_failed)
        ev.busy_changed.connect(lambda busy: w.eval_label.setText("Evaluating…" if busy else "Up to date"))
        ev.estimate_changed.connect(w.readouts.set_estimate)
        w.findings.finding_selected.connect(self.on_finding)
        w.readouts.pattern_changed.connect(lambda pattern: ev.set_settings(pattern=pattern))
        w.readouts.fault_plan.faults_changed.connect(lambda faults: ev.set_settings(faults=tuple(faults)))
        w.readouts.load_test.requested.connect(w.run_load_test)
        w.readouts.load_test.cancelled.connect(w.cancel_load_test)
        w.load_runner.progress.connect(w.readouts.load_test.set_progress)
        w.load_runner.finished.connect(self.on_load_finished)
        w.load_runner.failed.connect(self.on_load_failed)
        w.document.replaced.connect(self.on_replaced)

    def on_replaced(self) -> None:
        """A different design: forget the old one's results (its planned faults come with it:
        see fault_plan.py)."""
        self.full_report = None

    # ------------------------------------------------------------------ findings
    def on_structural(self, report) -> None:
        """Structural findings arrive at once; keep the last behaviour findings until new ones come."""
        if self.full_report is None:
            self.window.findings.show_report(report, pending_behaviour=True)
            return
        if self._behaviour_ids is None:
            self._behaviour_ids = behaviour_rule_ids()
        kept = [f for f in self.full_report.findings if f.rule_id in self._behaviour_ids]
        merged = type(report)(list(report.findings) + kept, self.full_report.scores, self.full_report.overall,
                              self.full_report.grade, list(report.skipped), True)
        self.window.findings.show_report(merged, pending_behaviour=True)

    def on_report(self, report) -> None:
        """Show the full report (structural and behaviour rules) in the findings panel."""
        self.full_report = report
        self.window.findings.show_report(report)

    def on_finding(self, finding) -> None:
        """Select and highlight the nodes and wires of the finding picked."""
        w = self.window
        nodes = [n for n in finding.node_ids if n in w.scene.nodes]
        edges = [e for e in finding.edge_ids if e in w.scene.edges]
        w.scene.select_ids(nodes, edges)
        w.scene.highlight(nodes, edges)
        if nodes:
            rect = w.scene.nodes_rect(nodes)
            visible = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
            if not visible.contains(rect):
                if rect.width() < visible.width() and rect.height() < visible.height():
                    w.view.centerOn(rect.center())
                else:
                    w.view.fit_rect(rect, max_zoom=w.view.zoom())
        w.show_message(f"{finding.rule_id}: {finding.message}", 10000)

    # ------------------------------------------------------------------ figures
    def on_steady(self, result) -> None:
        """Show a new steady state in the readouts and the inspector."""
        self.window.readouts.show_steady(result)
        self.selection_changed(self.window.scene.selected_node_ids())

    def on_reading(self, reading) -> None:
        """The tiles show a new moment: the cards show the same one."""
        w = self.window
        design = w.document.design
        steady = w.readouts.steady
        moment = build_moment(design, reading, steady, w.readouts.fault_plan.faults,
                              explain=lambda key: self.explain(steady, key), slo_p99_ms=design.requirements.slo_p99_ms)
        w.scene.show_moment(moment)

    @staticmethod
    def explain(result, key: str) -> str:
        """The steady state's working for ``key`` as HTML ("" when it has none)."""
        try:
            return html.escape(str(result.explain(key))).replace("\n", "<br>")
        except Exception:
            return ""

    def selection_changed(self, node_ids: list[str]) -> None:
        """Highlight the selected pool in the plots and show its live figures in the inspector."""
        w = self.window
        if w.readouts.plots is not None:
            w.readouts.plots.highlight_pool(node_ids[0] if len(node_ids) == 1 else None)
        result = w.evaluator.latest.get("steady")
        if len(node_ids) != 1 or result is None:
            w.inspector.set_live("")
            return
        node_result = result.nodes.get(node_ids[0])
        if node_result is None:
            w.inspector.set_live("")
            return
        rows = []
        for key, title, show in (("arrival_rps", "Arrivals", humanize.rate), ("utilisation", "Utilisation", humanize.share),
                                 ("replicas", "Replicas", humanize.count), ("capacity_rps", "Capacity", humanize.rate),
                                 ("queue_ms", "Queueing", humanize.duration_ms),
                                 ("ttft_p95_ms", "TTFT p95", humanize.duration_ms), ("tpot_ms", "TPOT", humanize.duration_ms)):
            value = getattr(node_result, key)
            if value is None:
                continue
            tip = self.explain(result, f"nodes.{node_ids[0]}.{key}")
            rows.append(f"<tr><td title='{tip}'>{title}</td><td align='right' title='{tip}'>"
                        f"<b>{html.escape(show(value))}</b></td></tr>")
        fit = node_result.memory_fit
        if fit is not None:
            rows.append(f"<tr><td>Memory</td><td align='right'><b>{'fits' if fit else 'does not fit'}</b></td></tr>")
        trust = node_trust(result, node_ids[0])
        how = f"<p><i>{html.escape(trust.text())}</i></p>" if trust is not None else ""
        w.inspector.set_live("<p><b>Simulated: steady state at the mean rate</b> (hover a figure for its working)</p>"
                             "<table width='100%'>"
                             + "".join(rows) + "</table>" + how if rows else "")

    def on_failed(self, step: str, message: str) -> None:
        """Say in the findings or the readouts that ``step`` failed."""
        w = self.window
        if step in ("report", "structural"):
            if w.findings.report is None:
                w.findings.show_unavailable(message)
        else:
            w.readouts.show_failed(step, message)

    # ------------------------------------------------------------------ load test
    def on_load_finished(self, summary) -> None:
        """Show the load test's result and say whether it finished or was cancelled."""
        w = self.window
        w.readouts.show_load_result(summary)
        state = "cancelled" if summary.cancelled else "finished"
        w.show_message(f"Load test {state}.")

    def on_load_failed(self, message: str) -> None:
        """Say the load test failed."""
        self.window.readouts.show_load_failed(message)
        self.window.show_message("Load test failed.")
