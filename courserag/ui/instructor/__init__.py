"""The Instructor tab (token-checked on every call): handlers, layout and wiring, its tables,
and the course-file actions."""
