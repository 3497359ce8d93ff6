"""The Workshop menu: write a scenario from the open design, grade a room's submissions, look at
cohorts, and present designs in projector mode. Handed to the main window by ``desktop.app`` (see
``desktop.shell.features``); each handler takes the window first."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from desktop.shell.actions import ActionSpec
from desktop.shell.features import Feature

WORKSHOP = "&Workshop"


def new_scenario_from_design(window):
    """Workshop › New Scenario from Design."""
    # loaded when first opened, not with the first window
    from desktop.workshop.authoring import open_authoring

    return open_authoring(window)


def enter_projector(window, paths=None):
    """Workshop › Projector Mode, on the open design or on ``paths``."""
    # loaded when first opened, not with the first window
    from desktop.workshop.projector import projector_mode

    return projector_mode(window).enter(paths)


def grade_submissions(window, paths=()):
    """Workshop › Grade Submissions, with ``paths`` listed already."""
    # loaded when first opened, not with the first window
    from desktop.workshop.grading_dialog import open_grade_submissions

    return open_grade_submissions(window, paths=paths)


def open_cohorts(window, cohort_id=None):
    """Workshop › Cohorts, showing ``cohort_id`` when given."""
    # loaded when first opened, not with the first window
    from desktop.workshop.cohort_view import open_cohorts as open_cohort_view

    return open_cohort_view(window, cohort_id=cohort_id)


def present_design_files(window, paths=None, scenario_id: str | None = None):
    """Projector mode over design files, scored on their own requirements or in a scenario
    (asked for when the files are chosen here)."""
    # loaded when first opened, not with the first window
    from desktop.practice.common import open_library
    from desktop.workshop.projector import projector_mode

    library = open_library(window.data_dir)
    if paths is None:
        chosen, _ = QFileDialog.getOpenFileNames(window, "Present design files", str(Path.home()),
                                                 "Inferboard designs (*.json)")
        if not chosen:
            return None
        paths = chosen
        ids = [None, *library.entries]
        titles = ["Each design on its own requirements",
                  *(f"{entry.scenario.title} ({entry.id})" for entry in library.entries.values())]
        choice, ok = QInputDialog.getItem(window, "Present design files", "Score the designs in:", titles, 0, False)
        if not ok:
            return None
        scenario_id = ids[titles.index(choice)]
    scenario = library.get(scenario_id).scenario if scenario_id else None
    return projector_mode(window).enter(paths, scenario=scenario)


def present_cohort(window, cohort_id: int | None = None):
    """Projector mode over a saved cohort's submissions, scored in the cohort's scenario."""
    # loaded when first opened, not with the first window
    from inferboard.workshop.cohorts import CohortStore

    from desktop.practice.common import open_library
    from desktop.workshop.projector import projector_mode
    from desktop.workshop.projector_slides import slides_from_run

    with CohortStore(window.data_dir) as store:
        if cohort_id is None:
            cohorts = store.cohorts()
            if not cohorts:
                QMessageBox.information(window, "Present a cohort", "No cohort is saved yet: grade a room's "
                                        "submissions first and keep them as a cohort.")
                return None
            titles = [f"{c['name']} ({c['submissions']} submissions)" for c in cohorts]
            choice, ok = QInputDialog.getItem(window, "Present a cohort", "Cohort:", titles, 0, False)
            if not ok:
                return None
            cohort_id = cohorts[titles.index(choice)]["id"]
        run = store.load(cohort_id)
    library = open_library(window.data_dir)
    entry = library.entries.get(run.scenario_id)
    stage = projector_mode(window).enter(scenario=entry.scenario if entry else None, slides=slides_from_run(run))
    return stage


WORKSHOP_FEATURE = Feature("workshop", actions=(
    ActionSpec("workshop.new_scenario", "&New Scenario from This Design…", WORKSHOP, "", "new_scenario_from_design",
               "Write a scenario whose reference is this design: prompt, facts, questions, phases, rubrics, "
               "follow-ups; save it or export it as a pack", separator_after=True),
    ActionSpec("workshop.projector", "&Projector Mode", WORKSHOP, "F11", "enter_projector",
               "Full screen for a room: high contrast, large type, the findings one by one while the day plays "
               "(Esc leaves)"),
    ActionSpec("workshop.present_files", "Present &Design Files…", WORKSHOP, "", "present_design_files",
               "Projector mode over several design files (a folder of submissions), stepping design to design"),
    ActionSpec("workshop.present_cohort", "Present a &Cohort…", WORKSHOP, "", "present_cohort",
               "Projector mode over a graded room kept as a cohort, in its scenario, submission by submission"),
    ActionSpec("workshop.grade", "&Grade Submissions…", WORKSHOP, "", "grade_submissions",
               "Grade a room's design files, folders or zips against a scenario, on every core"),
    ActionSpec("workshop.cohorts", "C&ohorts…", WORKSHOP, "", "open_cohorts",
               "Graded rooms: the table, the distribution per rubric, common findings, two designs side by side"),
), handlers={
    "new_scenario_from_design": new_scenario_from_design,
    "enter_projector": enter_projector,
    "present_design_files": present_design_files,
    "present_cohort": present_cohort,
    "grade_submissions": grade_submissions,
    "open_cohorts": open_cohorts,
})
