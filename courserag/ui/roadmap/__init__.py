"""The catalog's tab: a program's roadmap (courses by year and module) and a course's card."""
