"""The official course catalog: courses, sections per term and programs, answered exactly.

Modules: `model` (typed records), `load` (reading and checking the CSV files), `codes`
(codes and titles as typed), `prereq` (prerequisite expressions), `questions` (which
questions are catalog questions), `answers` (the cited replies). Nothing here is imported
by `courserag.i18n.messages` but `messages`, so this file stays import-free.
"""
