"""What the app does once before it serves: settle any course-file replace a killed process
left halfway, warm the model, and index courses that have no index yet when
BUILD_INDEX_ON_START says so (a fresh Space has no data/ folder)."""

from __future__ import annotations

import logging

from courserag.instructor.course_files import CourseFiles

log = logging.getLogger(__name__)


def prepare(engine, settings) -> None:
    """Warm the model, then build or report every course whose index is missing.

    A missing or unreachable store never stops the app: the course card says what is wrong
    and the learner's own notes still answer. A course whose folder a killed replace left
    halfway is settled first (`CourseFiles.recover`) and indexed again, as the replace would
    have done.
    """
    settled = set(CourseFiles(engine, settings).recover())
    engine.warm_up()
    for course in engine.courses:
        status = engine.index_status(course.id)
        if status.state == "other_model" and settings.build_index_on_start and settings.store_kind == "local":
            summary = engine.build_course(course.id)  # a Space that changed models re-embeds its courses
            if summary is not None:
                log.info("re-embedded the index on start: %s", summary.text())
        elif status.state in ("unavailable", "other_model"):
            log.warning("course store unavailable for %s: %s", course.id, status.detail)
        elif status.state == "missing" and settings.build_index_on_start and settings.store_kind == "local":
            summary = engine.build_course(course.id)
            if summary is not None:
                log.info("built the index on start: %s", summary.text())
        elif status.state == "missing":
            log.warning(
                "course %s has no index yet; run `python build_weaviate_index.py --course %s`", course.id, course.id
            )
        elif status.state == "ready" and course.id in settled:
            summary = engine.build_course(course.id)  # the replaced file, as the replace would have
            if summary is not None:
                log.info("indexed again after an interrupted replace: %s", summary.text())
