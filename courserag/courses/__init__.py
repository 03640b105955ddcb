"""Courses: the course directory and its safe edits, course codes in questions, the directory's
facts as passages, and the incremental index build."""
