"""Wires are routed orthogonally and around cards: checked by walking along each drawn path and
looking for points inside a card, not by re-running the router's own crossing count."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt

from desktop.editor.canvas.routing import route


def walk(points, step=2.0):
    for (ax, ay), (bx, by) in zip(points, points[1:]):
        n = max(1, int((abs(bx - ax) + abs(by - ay)) / step))
        for i in range(n + 1):
            yield ax + (bx - ax) * i / n, ay + (by - ay) * i / n


def inside(rect, x, y, pad=3.0):
    return rect[0] + pad < x < rect[0] + rect[2] - pad and rect[1] + pad < y < rect[1] + rect[3] - pad


def orthogonal(points):
    return all(a[0] == b[0] or a[1] == b[1] for a, b in zip(points, points[1:]))


SOURCE = (0.0, 0.0, 176.0, 100.0)


def test_a_forward_wire_bends_in_a_free_channel_around_a_card_between():
    target = (500.0, 200.0, 176.0, 100.0)
    blocker = (250.0, 40.0, 176.0, 200.0)  # right in the middle
    points = route((180.0, 58.0), (494.0, 258.0), SOURCE, target, [blocker])
    assert orthogonal(points)
    assert points[0] == (180.0, 58.0) and points[-1] == (494.0, 258.0)
    assert not any(inside(r, x, y) for x, y in walk(points) for r in (SOURCE, target, blocker))
    # the last run enters the input port from the left
    assert points[-2][1] == points[-1][1] and points[-2][0] < points[-1][0]


def test_a_backward_wire_goes_round_both_cards_instead_of_through_them():
    target = (-300.0, 30.0, 176.0, 100.0)  # to the left, overlapping vertically
    points = route((180.0, 58.0), (-306.0, 88.0), SOURCE, target)
    assert orthogonal(points)
    assert not any(inside(r, x, y) for x, y in walk(points) for r in (SOURCE, target))
    assert points[1][0] > 180.0 and points[-2][0] < -306.0  # leaves right, enters from the left


def test_drawn_wires_of_the_multi_region_example_avoid_the_cards(make_window):
    from desktop.shell.templates import templates
    from inferboard.store import read_design

    design, _ = read_design(templates()["multi-region"])
    window = make_window(design)
    scene = window.scene
    cards = {node_id: item.mapRectToScene(item.rect()) for node_id, item in scene.nodes.items()
             if not design.catalog.kind(design.node(node_id).kind).container}
    through = []
    for edge_id, item in scene.edges.items():
        edge = design.edge(edge_id)
        path = item.path_in_scene()
        for i in range(401):
            p = path.pointAtPercent(i / 400)
            for node_id, rect in cards.items():
                if node_id not in (edge.source, edge.target) and rect.adjusted(3, 3, -3, -3).contains(p):
                    through.append((edge_id, node_id))
                    break
    assert sorted(set(through)) == []
    assert all(orthogonal(item.points) for item in scene.edges.values())


def through_card(edge_item, card) -> bool:
    rect = card.mapRectToScene(card.rect()).adjusted(3, 3, -3, -3)
    path = edge_item.path_in_scene()
    return any(rect.contains(path.pointAtPercent(i / 400)) for i in range(401))


def test_a_card_dragged_onto_a_wire_it_is_not_part_of_makes_the_wire_go_round_it(make_window, qtbot):
    """The wire users -> lb is re-routed when another card is dragged onto it (its own ends did not
    move), and goes straight again when the card is moved back by undo."""
    from inferboard.model import ops

    from tests.desktop.gestures import demo_design, drag, header_of

    design = demo_design()
    design.apply(ops.MoveNodes({"users": (-700.0, 80.0)}))  # room between users and lb for a card
    design.apply(ops.AddNode(design.make_node("cache", -260, 420, {}, "stray")))
    window = make_window(design)
    scene = window.scene
    wire, card = scene.edges["e1"], scene.nodes["stray"]
    straight = list(wire.points)
    assert not through_card(wire, card)
    wire_y = wire.points[0][1]
    # drag the stray card by its header so that the card sits across the wire, between the two ends
    start = header_of(window, "stray")
    offset = start - card.mapToScene(card.rect().topLeft())
    target = QPointF(wire.points[0][0] + 150, wire_y - card.rect().height() / 2) + offset
    drag(window.view, start, target, steps=6)
    qtbot.waitUntil(lambda: window.document.design.node("stray").y != 420)
    assert card.mapRectToScene(card.rect()).contains(QPointF(card.mapRectToScene(card.rect()).center().x(), wire_y))
    assert not through_card(wire, card), wire.points
    assert wire.points != straight
    window.document.undo_stack.undo()  # the model moves it back: the wire goes straight again
    qtbot.waitUntil(lambda: wire.points == straight)


def test_a_large_selection_drags_its_wires_along_and_routes_them_all_when_dropped(make_window, qtbot):
    """More cards than ``REROUTE_WHILE_DRAGGING`` in flight: the wires between them move with them
    unchanged, the wires leaving the selection follow their ports (without the detours), and once
    dropped every wire has the route a fresh routing gives it."""
    from PySide6.QtCore import QEvent

    from inferboard.model import Design

    from desktop.editor.canvas.interactions import REROUTE_WHILE_DRAGGING
    from tests.desktop.gestures import header_of, send_mouse

    design = Design()
    design.add_node("traffic_source", -400, 0, node_id="users")
    chain = [f"c{i}" for i in range(REROUTE_WHILE_DRAGGING + 2)]
    for i, node_id in enumerate(chain):
        design.add_node("cache", i * 240, 0 if i % 2 else 120, node_id=node_id)
    design.connect("users", "requests", chain[0], "requests", edge_id="in")
    for i, (a, b) in enumerate(zip(chain, chain[1:])):
        design.connect(a, "requests", b, "requests", edge_id=f"w{i}")
    design.add_node("cache", -200, 300, node_id="stray")
    window = make_window(design)
    scene, view = window.scene, window.view
    scene.select_ids(chain)
    inner = [scene.edges[f"w{i}"] for i in range(len(chain) - 1)]
    shapes = [list(edge.points) for edge in inner]
    viewport = view.viewport()
    start = view.mapFromScene(header_of(window, chain[0]))
    send_mouse(viewport, QEvent.Type.MouseButtonPress, start)
    for step in range(1, 6):
        send_mouse(viewport, QEvent.Type.MouseMove, start + QPointF(step * 12, step * 30).toPoint(),
                   button=Qt.MouseButton.NoButton)
    offset = scene.edges["w0"].pos()
    assert offset.y() > 0  # the cards are in flight: the model has not moved yet
    assert offset == scene.nodes[chain[0]].pos() - QPointF(design.node(chain[0]).x, design.node(chain[0]).y)
    assert [list(edge.points) for edge in inner] == shapes  # carried along, not routed
    assert all(edge.pos() == offset for edge in inner)
    boundary = scene.edges["in"]
    assert boundary.pos().isNull() and boundary.points[-1][1] > boundary.points[0][1]  # follows the moved port
    send_mouse(viewport, QEvent.Type.MouseButtonRelease, start + QPointF(60, 150).toPoint(),
               buttons=Qt.MouseButton.NoButton)
    qtbot.waitUntil(lambda: window.document.design.node(chain[0]).y != 120)
    for edge in scene.edges.values():
        assert edge.pos().isNull()
        dropped = list(edge.points)
        edge.update_path()
        assert edge.points == dropped, edge.edge_id  # already routed as a fresh routing routes it
