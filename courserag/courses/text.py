"""What text may enter the course directory: text a browser, YAML and UTF-8 can all carry.

A course's name, description and examples are shown to every visitor. A lone surrogate
("A\\ud800B", sent as escaped JSON to the save handler) was once written to
course_directory.yaml; from then every page load failed and the app no longer started. So
each field is checked when it is saved and again when the file is loaded: encodable as UTF-8,
no control characters (tab and new line aside, where a field may hold them), no bidirectional
controls (U+202E turns "exe.txt" around on screen), within its length.
"""

from __future__ import annotations

import unicodedata

# Explicit embedding/override/isolate controls and the invisible direction marks.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def text_problem(value: str, limit: int, allow_newlines: bool = False) -> str | None:
    """Why `value` cannot be stored (a short English phrase naming the first bad character),
    or None when it can."""
    if not isinstance(value, str):
        return f"must be text, not {type(value).__name__}"
    if len(value) > limit:
        return f"is {len(value)} characters long (at most {limit})"
    for position, char in enumerate(value):
        code = f"U+{ord(char):04X} at position {position + 1}"
        category = unicodedata.category(char)
        if category == "Cs":
            return f"holds a lone surrogate ({code}), which is not text"
        if char in BIDI_CONTROLS:
            return f"holds a bidirectional control character ({code})"
        if category == "Cc" and not (allow_newlines and char in "\n\t"):
            return f"holds a control character ({code})"
        if category == "Cn" and 0xFDD0 <= ord(char) <= 0xFDEF or (ord(char) & 0xFFFE) == 0xFFFE:
            return f"holds a noncharacter ({code})"
    return None
