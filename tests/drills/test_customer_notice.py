"""A customer complains only about something a customer can notice: where the planted cause hurts
nothing visible on a design and nothing alerted, the candidate comes to it on a routine look."""

from __future__ import annotations

from inferboard.drills.engine import DrillSession
from inferboard.drills.library import get_drill
from inferboard.drills.views import VISIBLE_LOSS, customer_visible
from inferboard.paths import data_dir
from inferboard.store import read_design
from tests.drills.conftest import without_observability


def test_a_cause_nobody_can_see_is_found_on_a_routine_look_not_by_a_complaint():
    design = read_design(data_dir("assets") / "examples" / "starter.json")[0]
    session = DrillSession(get_drill("replica-leak"), design, 0)
    series = session.series()
    assert not customer_visible(session, series, session.impact_s, session.notice_s)
    assert "routine look" in session.notice and "customer reports" not in session.notice
    # what a customer would have noticed, checked by hand on the same minutes
    told = (series["times_s"] >= session.impact_s) & (series["times_s"] <= session.notice_s)
    assert (series["p99_ms"][told] <= design.requirements.slo_p99_ms).all()
    assert (series["error_rate"][told] + series["shed_rate"][told] <= VISIBLE_LOSS).all()


def test_a_cause_that_hurts_customers_is_reported_by_one_when_nothing_alerts():
    design = without_observability(read_design(data_dir("assets") / "drills" / "designs" / "ranker-drill.json")[0])
    session = DrillSession(get_drill("replica-leak"), design, 0)
    assert customer_visible(session, session.series(), session.impact_s, session.notice_s)
    assert "a customer reports the problem" in session.notice
