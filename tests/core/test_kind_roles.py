"""Kind roles live in the catalog files and every grouping of kinds reads them."""

from __future__ import annotations

import shutil

import pytest

from inferboard.catalog.loader import Catalog, CatalogError
from inferboard.model.design import Design
from inferboard.model.faults import FAULT_KINDS, fault_targets
from inferboard.paths import data_dir


@pytest.fixture
def catalog_copy(tmp_path):
    folder = tmp_path / "components"
    shutil.copytree(data_dir("components"), folder)
    return folder


def test_an_unknown_role_is_refused_naming_file_and_field(catalog_copy):
    path = catalog_copy / "cache.yaml"
    path.write_text(path.read_text().replace("roles: [cache, can_fail]", "roles: [cache, teapot]"))
    with pytest.raises(CatalogError) as info:
        Catalog.load(catalog_copy)
    assert "cache.yaml" in str(info.value) and "roles" in str(info.value)


def test_every_fault_can_hit_some_kind_of_the_shipped_catalog():
    catalog = Catalog.load()
    for kind, spec in FAULT_KINDS.items():
        if spec.on_segment:  # drift hits a traffic segment, not a node
            assert not spec.target_roles, kind
            continue
        assert spec.target_roles, kind
        assert catalog.kinds_with_role(*spec.target_roles), f"{kind}: no kind has roles {spec.target_roles}"


def test_replica_pools_are_serving_pools_and_gpu_pools_are_replica_pools():
    catalog = Catalog.load()
    serving = set(catalog.kinds_with_role("serving_pool"))
    replica = set(catalog.kinds_with_role("replica_pool"))
    gpu = set(catalog.kinds_with_role("gpu_pool"))
    assert gpu <= replica <= serving
    # every serving pool is sized in replicas; the replica pools are the ones an autoscaler can range
    for kind in serving:
        assert catalog.kinds[kind].param("replicas") is not None, kind
    assert replica == {kind for kind in serving if catalog.kinds[kind].param("max_replicas") is not None}


def test_a_role_given_to_a_new_kind_makes_it_a_fault_target(catalog_copy):
    text = (catalog_copy / "cpu_pool.yaml").read_text()
    (catalog_copy / "tpu_pool.yaml").write_text(
        text.replace("id: cpu_pool", "id: tpu_pool").replace(
            "roles: [serving_pool, replica_pool, can_fail, batched_pool, model_pool]", "roles: [serving_pool, gpu_pool]"))
    design = Design(Catalog.load(catalog_copy))
    tpu = design.add_node("tpu_pool", node_id="tpu")
    cache = design.add_node("cache", node_id="c1")
    assert ("tpu", tpu.label or "tpu") in fault_targets(design, "slow_replica")
    assert [t for t, _ in fault_targets(design, "gpu_shortage")] == ["*", "tpu"]
    # the new kind has no can_fail role; the cache has
    assert [t for t, _ in fault_targets(design, "dependency_errors")] == ["*", cache.id]
    # a fault that cannot say "everywhere" offers it only when the design has nothing to hit
    assert fault_targets(design, "region_outage") == [("*", "Everywhere")]
    region = design.add_node("region", node_id="r1")
    assert [t for t, _ in fault_targets(design, "region_outage")] == [region.id]
