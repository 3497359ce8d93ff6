"""Mutated design files only ever raise typed validation errors."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferboard.cli import templates
from inferboard.store import DesignFileError, design_to_bytes, parse_design

BASE = templates()["multi-region"].read_bytes()
BASE_DICT = json.loads(BASE)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, prefix + (index,))


ALL_PATHS = [p for p in paths(BASE_DICT) if p]


def mutate(data, path, action, value):
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if action == "replace":
        parent[key] = value
    elif action == "delete":
        del parent[key]
    elif action == "duplicate" and isinstance(parent, list):
        parent.append(json.loads(json.dumps(parent[key])))
    elif isinstance(parent, dict):
        parent[f"{key}_extra"] = value


def accept_or_typed_error(data: bytes):
    try:
        design = parse_design(data, "fuzz.json")
    except DesignFileError as error:
        assert error.problems and str(error).startswith("fuzz.json")
    else:
        # What is accepted is a whole, valid design: it saves and reads back to the same file.
        saved = design_to_bytes(design)
        assert design_to_bytes(parse_design(saved, "fuzz-resaved.json")) == saved


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), st.sampled_from(["replace", "delete", "duplicate", "add"]),
                          json_values), min_size=1, max_size=4))
def test_structural_mutations_raise_only_typed_errors(mutations):
    data = json.loads(BASE)
    for path, action, value in mutations:
        try:
            mutate(data, path, action, value)
        except (KeyError, IndexError, TypeError):
            continue  # the path no longer exists after an earlier mutation
    accept_or_typed_error(json.dumps(data).encode())


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20))
def test_byte_level_corruption_raises_only_typed_errors(seed, flips):
    rng = random.Random(seed)
    data = bytearray(BASE)
    for _ in range(flips):
        choice = rng.random()
        position = rng.randrange(len(data))
        if choice < 0.4:
            data[position] = rng.randrange(256)
        elif choice < 0.7:
            del data[position]
        else:
            data = data[:position]
            break
    accept_or_typed_error(bytes(data))
