import pytest

from inferboard.paths import data_dir
from inferboard.store import read_design


@pytest.fixture(scope="session")
def drill_design():
    design, _ = read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")
    return design


@pytest.fixture(scope="session")
def starter_design():
    design, _ = read_design(data_dir("assets") / "examples" / "starter.json")
    return design
