"""courserag: a course-aware study assistant (dual-path retrieval with citations)."""

__version__ = "0.1.0"
