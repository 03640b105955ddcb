"""Answers without a language model: quote the units of the sources that answer the question.

- sentences.py: sentence splitting that respects abbreviations and decimals
- units.py: quotable units (sentences with what follows a colon, list items with their
  lead-in, table rows with their headers, notebook outputs)
- entities.py: the kinds of fact a text holds (courserag/lang/intent.py: the kinds a question asks for)
- compose.py: scoring, choosing and refusing
"""

from courserag.answers.extractive.compose import Composition, compose, render

__all__ = ["Composition", "compose", "render"]
