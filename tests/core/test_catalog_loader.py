"""Loading the catalog: safe YAML, clear errors naming file, item and field."""

import shutil
from pathlib import Path

import pytest

from inferboard.catalog import Catalog, CatalogError, default_catalog
from inferboard.paths import data_dir
from inferboard.safe_yaml import YamlFileError, load_yaml_text

BOMB = """
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]
"""


def test_alias_bomb_is_refused_for_its_aliases_before_it_is_expanded():
    """The first alias met is named, not the billions of strings it would expand to."""
    with pytest.raises(YamlFileError, match=r"bomb.yaml: aliases .* \(line \d+, column \d+\)$"):
        load_yaml_text(BOMB, "bomb.yaml")


def test_python_tags_are_refused():
    with pytest.raises(YamlFileError):
        load_yaml_text("x: !!python/object/apply:os.system ['true']", "evil.yaml")


@pytest.fixture
def catalog_copy(tmp_path):
    folder = tmp_path / "components"
    shutil.copytree(data_dir("components"), folder)
    return folder


def test_shipped_catalog_loads_with_every_kind_and_gpu():
    catalog = default_catalog()
    assert len(catalog.kinds) >= 19
    assert {"t4", "l4", "a10g", "a100_40gb", "a100_80gb", "h100"} <= set(catalog.gpus)


@pytest.mark.parametrize("edit,fragment", [
    (lambda t: t.replace("title: GPU pool", "title: GPU pool\ncolour: red"), "field 'colour': unknown field"),
    (lambda t: t.replace("id: gpu_pool", "id: gpu_pools"), "must equal the file name"),
    (lambda t: t.replace("default: l4", "default: tpu"), "not one of its choices"),
    (lambda t: t + "\n  - [", "not valid YAML"),
])
def test_malformed_component_files_name_file_kind_and_field(catalog_copy, edit, fragment):
    path = catalog_copy / "gpu_pool.yaml"
    path.write_text(edit(path.read_text()))
    with pytest.raises(CatalogError) as info:
        Catalog.load(catalog_copy)
    assert "gpu_pool.yaml" in str(info.value) and fragment in str(info.value)


def test_unknown_accepted_kind_is_refused(catalog_copy):
    path = catalog_copy / "autoscaler.yaml"
    path.write_text(path.read_text().replace("accepts: [metrics_collector]", "accepts: [prometheus]"))
    with pytest.raises(CatalogError, match="unknown kind 'prometheus'"):
        Catalog.load(catalog_copy)
