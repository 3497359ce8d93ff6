"""Small builders shared by the core tests."""

from inferboard.model import Design


def serving_chain(design: Design | None = None) -> Design:
    """traffic source -> regional LB -> batcher -> GPU pool, inside one region."""
    design = design or Design()
    design.add_node("region", 0, 0, {"location": "us-east"}, node_id="use1")
    design.add_node("traffic_source", 20, 40, node_id="users")
    design.add_node("regional_load_balancer", 200, 40, node_id="lb", region="use1")
    design.add_node("dynamic_batcher", 380, 40, node_id="batcher", region="use1")
    design.add_node("gpu_pool", 560, 40, node_id="gpus", region="use1")
    design.connect("users", "requests", "lb", "requests", edge_id="e1")
    design.connect("lb", "requests", "batcher", "requests", edge_id="e2")
    design.connect("batcher", "requests", "gpus", "requests", edge_id="e3")
    return design
