"""Editing the selection: add from the palette, delete, copy, cut, paste, duplicate, nudge. Each
is one undo command built from model ops."""

from __future__ import annotations

import json
import time
from typing import Any, Iterable

from PySide6.QtCore import QMimeData, QObject, QPointF
from PySide6.QtWidgets import QApplication

from inferboard.model import Edge, EditRefused, ops

from desktop.editor.canvas import placement, style
from desktop.editor.canvas.node_item import card_size
from desktop.editor.canvas.scene import DesignScene
from desktop.editor.commands import NUDGE_MERGE_ID
from desktop.editor.document import DesignDocument

FRAGMENT_MIME = "application/x-inferboard-fragment"
PASTE_OFFSET = 30.0
NUDGE_PAUSE_S = 1.0


def fresh_id(prefix: str, taken: set[str]) -> str:
    """The first free id "prefix-N" not in ``taken``, added to ``taken``."""
    n = 1
    while f"{prefix}-{n}" in taken:
        n += 1
    taken.add(f"{prefix}-{n}")
    return f"{prefix}-{n}"


def fresh_edge_id(taken: set[str]) -> str:
    """The first free edge id "eN" not in ``taken``, added to ``taken``."""
    n = len(taken) + 1
    while f"e{n}" in taken:
        n += 1
    taken.add(f"e{n}")
    return f"e{n}"


class CanvasEditor(QObject):
    """The canvas's edit commands: delete, copy, cut, paste, duplicate, select all; each is one undo step."""

    def __init__(self, document: DesignDocument, scene: DesignScene, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.scene = scene
        self._nudge_session = 0
        self._last_nudge: tuple | None = None

    @property
    def design(self):
        """The design being edited."""
        return self.document.design

    # ------------------------------------------------------------------ adding
    def add_kind_at(self, kind_id: str, pos: QPointF, select: bool = True, free: bool = False) -> str | None:
        """Add a component of ``kind_id`` centred at ``pos`` (in the region there, if any); with
        ``free``, at the free spot nearest ``pos`` instead, so it lands on no other card."""
        kind = self.design.catalog.kinds.get(kind_id)
        if kind is None:
            self.document.refused.emit(f"unknown component kind '{kind_id}'")
            return None
        width, height = (360.0, 260.0) if kind.container else card_size(kind, kind.defaults())
        if kind.container:
            x, y = pos.x() - 180.0, pos.y() - 130.0
        else:
            x, y = pos.x() - style.CARD_WIDTH / 2, pos.y() - style.HEADER_HEIGHT / 2
        if free:
            x, y = placement.free_position(width, height, x, y, placement.obstacles(self.design, kind.container))
            pos = QPointF(x + width / 2, y + style.HEADER_HEIGHT / 2)
        elif self.scene.snap_to_grid:
            x, y = style.snap(x), style.snap(y)
        region = None if kind.container else self.region_at(pos.x(), pos.y())
        node = self.design.make_node(kind_id, x, y, region=region)
        where = f" in {region}" if region else ""
        if not self.document.execute(ops.AddNode(node), f"Add {kind.title}{where}"):
            return None
        if select:
            self.scene.select_ids([node.id])
        return node.id

    def region_at(self, x: float, y: float, exclude: Iterable[str] = ()) -> str | None:
        """The region whose rectangle holds the point (the model's, not the scene's)."""
        skip = set(exclude)
        for node in reversed(list(self.design.nodes.values())):
            if node.id not in skip and self.design.catalog.kind(node.kind).container and \
                    placement.contains_point(placement.node_rect(self.design, node), x, y):
                return node.id
        return None

    # ------------------------------------------------------------------ removing
    def delete_selection(self) -> bool:
        """Delete the selected nodes and wires in one undo step; False when nothing is selected."""
        nodes = self.scene.selected_node_ids()
        doomed = set(nodes)
        edges = [e for e in self.scene.selected_edge_ids()
                 if self.design.edge(e).source not in doomed and self.design.edge(e).target not in doomed]
        if not nodes and not edges:
            return False
        children = [ops.RemoveEdge(e) for e in edges] + [ops.RemoveNode(n) for n in nodes]
        parts = []
        if nodes:
            parts.append(f"{len(nodes)} component{'s' if len(nodes) != 1 else ''}" if len(nodes) > 1 else nodes[0])
        if edges:
            parts.append(f"{len(edges)} link{'s' if len(edges) != 1 else ''}")
        title = "Delete " + " and ".join(parts)
        return self.document.execute(ops.Compound(tuple(children), title), title)

    # ------------------------------------------------------------------ clipboard
    def fragment(self, node_ids: Iterable[str]) -> dict[str, Any]:
        """The nodes ``node_ids`` (a region with its contents) and the wires between them, as plain data."""
        ids = list(node_ids)
        chosen = set(ids)
        for node_id in ids:  # a region takes its contents along
            if self.design.catalog.kind(self.design.node(node_id).kind).container:
                chosen.update(m.id for m in self.design.members(node_id))
        nodes = [self.design.node(i) for i in self.design.nodes if i in chosen]
        edges = [e for e in self.design.edges.values() if e.source in chosen and e.target in chosen]
        return {
            "nodes": [{"id": n.id, "kind": n.kind, "params": dict(n.params), "x": n.x, "y": n.y, "region": n.region,
                       "label": n.label, "width": n.width, "height": n.height} for n in nodes],
            "edges": [{"id": e.id, "source": e.source, "source_port": e.source_port, "target": e.target,
                       "target_port": e.target_port} for e in edges],
        }

    def copy(self) -> bool:
        """Copy the selected nodes to the clipboard as a fragment (and as text); False when nothing is selected."""
        ids = self.scene.selected_node_ids()
        if not ids:
            return False
        data = json.dumps(self.fragment(ids)).encode("utf-8")
        mime = QMimeData()
        mime.setData(FRAGMENT_MIME, data)
        mime.setText(data.decode("utf-8"))
        QApplication.clipboard().setMimeData(mime)
        return True

    def cut(self) -> bool:
        """Copy the selection, then delete it."""
        return self.copy() and self.delete_selection()

    def paste(self) -> bool:
        """Insert the clipboard's fragment beside the originals, under fresh ids; False when there is none."""
        mime = QApplication.clipboard().mimeData()
        if mime is None or not mime.hasFormat(FRAGMENT_MIME):
            return False
        try:
            fragment = json.loads(bytes(mime.data(FRAGMENT_MIME)).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return False
        return self.insert_fragment(fragment, self.free_offset(fragment), "Paste")

    def duplicate(self) -> bool:
        """Copy the selection into the design at a free spot, without the clipboard."""
        ids = self.scene.selected_node_ids()
        if not ids:
            return False
        fragment = self.fragment(ids)
        return self.insert_fragment(fragment, self.free_offset(fragment), "Duplicate")

    def free_offset(self, fragment: dict[str, Any]) -> tuple[float, float]:
        """How far to shift a pasted group so that it lands on no existing card: the free spot
        nearest a little below and to the right of where it was copied from."""
        rects = []
        container = False
        for raw in fragment.get("nodes", []):
            kind = self.design.catalog.kinds.get(raw.get("kind"))
            if kind is None:
                continue
            container = container or kind.container
            if kind.container:
                rects.append((raw["x"], raw["y"], raw.get("width") or 360.0, raw.get("height") or 260.0))
            else:
                rects.append((raw["x"], raw["y"], *card_size(kind, {**kind.defaults(), **(raw.get("params") or {})})))
        if not rects:
            return 0.0, 0.0
        left, top, width, height = placement.bounds(rects)
        x, y = placement.free_position(width, height, left + PASTE_OFFSET, top + PASTE_OFFSET,
                                       placement.obstacles(self.design, container))
        return x - left, y - top

    def insert_fragment(self, fragment: dict[str, Any], offset: tuple[float, float], verb: str) -> bool:
        """Add ``fragment`` moved by ``offset`` under fresh ids, as one undo step named after ``verb``."""
        design = self.design
        taken_nodes = set(design.nodes)
        taken_edges = set(design.edges)
        mapping: dict[str, str] = {}
        raw_nodes = sorted(fragment.get("nodes", []),  # regions first, so members can name them
                           key=lambda n: not getattr(design.catalog.kinds.get(n.get("kind")), "container", False))
        adds = []
        try:
            for raw in raw_nodes:
                mapping[raw["id"]] = fresh_id(raw["kind"], taken_nodes)
            dx, dy = offset
            for raw in raw_nodes:
                region = raw.get("region")
                if region in mapping:
                    region = mapping[region]
                else:  # a copied member without its region joins the region it lands in
                    region = self.region_at(raw["x"] + dx + style.CARD_WIDTH / 2, raw["y"] + dy + style.HEADER_HEIGHT / 2)
                node = design.make_node(raw["kind"], raw["x"] + dx, raw["y"] + dy, raw.get("params"),
                                        node_id=mapping[raw["id"]], region=region, label=raw.get("label", ""))
                if raw.get("width") is not None:
                    node = node.with_changes(width=raw["width"], height=raw["height"])
                adds.append(ops.AddNode(node))
            for raw in fragment.get("edges", []):
                if raw["source"] in mapping and raw["target"] in mapping:
                    adds.append(ops.AddEdge(Edge(fresh_edge_id(taken_edges), mapping[raw["source"]],
                                                 raw["source_port"], mapping[raw["target"]], raw["target_port"])))
        except (KeyError, TypeError, EditRefused) as error:
            self.document.refused.emit(f"cannot paste: {error}")
            return False
        if not adds:
            return False
        count = len(mapping)
        title = f"{verb} {count} component{'s' if count != 1 else ''}"
        if not self.document.execute(ops.Compound(tuple(adds), title), title):
            return False
        self.scene.select_ids(mapping.values())
        return True

    def select_all(self) -> None:
        """Select every node and wire."""
        self.scene.select_ids(self.design.nodes, self.design.edges)

    # ------------------------------------------------------------------ nudging
    def moving_ids(self) -> list[str]:
        """The nodes a move of the selection moves: the selected ones and the contents of selected regions."""
        ids = self.scene.selected_node_ids()
        out = list(ids)
        for node_id in ids:
            if self.design.catalog.kind(self.design.node(node_id).kind).container:
                out.extend(m.id for m in self.design.members(node_id) if m.id not in out)
        return out

    def nudge(self, dx: float, dy: float, auto_repeat: bool = False) -> bool:
        """Move the selection by (dx, dy). Nudges while a key repeats (or taps less than a second
        apart) on the same selection merge into one undo step; drags never merge."""
        ids = self.moving_ids()
        if not ids:
            return False
        stack = self.document.undo_stack
        now = time.monotonic()
        last = self._last_nudge
        continuing = (last is not None and last[0] == tuple(ids) and last[1] == stack.index()
                      and stack.index() > 0 and stack.command(stack.index() - 1).id() == NUDGE_MERGE_ID
                      and (auto_repeat or now - last[2] < NUDGE_PAUSE_S))
        if not continuing:
            self._nudge_session += 1
        positions = {i: (self.design.node(i).x + dx, self.design.node(i).y + dy) for i in ids}
        title = f"Nudge {ids[0]}" if len(ids) == 1 else f"Nudge {len(ids)} components"
        ok = self.document.execute(ops.MoveNodes(positions), title, NUDGE_MERGE_ID, (self._nudge_session, tuple(ids)))
        self._last_nudge = (tuple(ids), stack.index(), now)
        return ok
