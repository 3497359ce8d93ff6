"""Load-test confidence intervals: do the 95% intervals cover the exact value 95% of the time?"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from inferboard.sim.loadtest import intervals as iv
from inferboard.sim.loadtest.loadtest import run_load_test
from inferboard.sim.design.network import Network, Path, Station

from .oracles import erlang_c, mmc_sojourn_quantile, mmc_tandem_quantile


def mmc_net(lam: float, c: int, stations: int = 1) -> Network:
    ids = [f"s{i}" for i in range(stations)]
    return Network({s: Station(s, servers=c, service_mean_s=1.0, service_cv=1.0) for s in ids},
                   (Path(tuple(ids), 1.0, "p"),), arrival_rate=lam)


def coverage(net: Network, n: int, truth: dict[str, float], seeds: int = 30) -> dict[str, int]:
    hits = dict.fromkeys(truth, 0)
    for seed in range(seeds):
        r = run_load_test(net, n, seed=seed)
        for key, value in truth.items():
            est = getattr(r, key + "_s")
            hits[key] += est.ci_low <= value <= est.ci_high
    return hits


@pytest.mark.slow
def test_p99_interval_covers_at_rho_094_mmc():
    c, rho = 4, 0.94
    lam = rho * c
    truth = {"p99": mmc_sojourn_quantile(lam, 1.0, c, 0.99), "p50": mmc_sojourn_quantile(lam, 1.0, c, 0.5),
             "mean": 1.0 + erlang_c(c, lam) / (c - lam)}
    hits = coverage(mmc_net(lam, c), 1_000_000, truth)
    assert hits["p99"] >= 27, hits
    assert hits["p50"] >= 27 and hits["mean"] >= 27, hits


@pytest.mark.slow
def test_p99_interval_covers_on_an_mm2_tandem():
    c, rho = 2, 0.9
    lam = rho * c
    truth = {"p99": mmc_tandem_quantile(lam, 1.0, c, 0.99), "p95": mmc_tandem_quantile(lam, 1.0, c, 0.95)}
    hits = coverage(mmc_net(lam, c, stations=2), 600_000, truth)
    assert hits["p99"] >= 27 and hits["p95"] >= 27, hits


def test_short_run_warns_with_the_length_that_reaches_the_precision():
    lam = 0.94 * 4
    short = run_load_test(mmc_net(lam, 4), 50_000, seed=1)
    assert any(w.startswith("p99") for w in short.warnings), short.warnings
    assert "requests" in " ".join(short.warnings)
    light = run_load_test(mmc_net(0.3 * 4, 4), 200_000, seed=1)  # light load: p99 is precise
    assert not [w for w in light.warnings if w.startswith("p99")], light.warnings
    assert light.to_dict()["warnings"] == list(light.warnings)


def test_warning_asks_for_the_run_length_that_reaches_the_target():
    """The suggested length, run, gives about the requested precision (width ~ 1/sqrt(n))."""
    lam = 0.8 * 2
    first = run_load_test(mmc_net(lam, 2), 40_000, seed=3, target_precision=0.02)
    line = next(w for w in first.warnings if w.startswith("p99"))
    count = line.split("run ")[1].split(" requests")[0]
    n = int(float(count[:-1]) * (1e6 if count.endswith("M") else 1e3)) if count[-1] in "Mk" else int(count)
    assert n > 40_000
    second = run_load_test(mmc_net(lam, 2), n, seed=4, target_precision=0.02)
    est = second.p99_s
    half = 0.5 * (est.ci_high - est.ci_low) / est.value
    assert half < 0.03, (line, half)


def ar1(phi: float, white: np.ndarray) -> np.ndarray:
    out = np.empty_like(white)
    acc = 0.0
    for i, e in enumerate(white.tolist()):
        acc = phi * acc + e
        out[i] = acc
    return out


def test_batch_means_variance_and_correlated_runs():
    rng = np.random.default_rng(0)
    white = rng.normal(size=400_000)
    walk = np.cumsum(white)  # no steady state: batches never decorrelate, the run is flagged
    assert iv.batch_variance(white).reliable and not iv.batch_variance(walk).reliable
    assert iv.batch_variance(white).batch_size < iv.batch_variance(walk).batch_size
    phi = 0.999
    ar = ar1(phi, white)
    # the AR(1) time-average variance constant is sigma^2/(1 - phi)^2
    want = 1.0 / (1 - phi) ** 2 / len(ar)
    got = iv.batch_variance(ar).var_of_mean
    assert 0.6 * want < got < 1.6 * want
    assert iv.batch_variance(white).var_of_mean == pytest.approx(1.0 / len(white), rel=0.5)


def test_t_quantiles():
    for dof, want in ((5, 2.571), (10, 2.228), (19, 2.093), (30, 2.042), (1000, 1.962)):
        assert iv.t975(dof) == pytest.approx(want, abs=3e-3)
    assert math.isinf(iv.t975(0))


def test_cli_prints_the_precision_warning(capsys):
    from inferboard.cli import main, templates

    design = str(templates()["cpu-small"])
    assert main(["simulate", design, "--load-test", "3000", "--seed", "2", "--precision", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(line.startswith("p99 ±") and "for ±1%" in line for line in data["warnings"]), data["warnings"]
    assert main(["simulate", design, "--load-test", "3000", "--seed", "2", "--precision", "1"]) == 0
    text = capsys.readouterr().out
    assert "warning: p99 ±" in text
    assert main(["simulate", design, "--load-test", "3000", "--precision", "0"]) == 2
