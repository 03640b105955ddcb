"""Follow-up questions: rewrite "what about week 5?" into a standalone retrieval query.

With an LLM configured the engine may ask it; without one this heuristic runs: a short
question that leans on the conversation ("what about", "and", "那…呢", a lone pronoun) gets
the previous question's content words appended. The original question is still the one
that is answered.
"""

from __future__ import annotations

import re
from typing import Sequence

from courserag.textnorm import is_chinese, word_tokens

_EN_FOLLOWUP = re.compile(
    r"^\s*(what about|how about|and (for|in|about|the)?|what of|same for|also|then)\b|\b(it|its|that|this|they|them|those|these)\b",
    re.IGNORECASE,
)
_ZH_FOLLOWUP = re.compile(r"^\s*(那|那么|还有|另外|而|它|这个|那个)|呢[？?]?\s*$")


def looks_like_followup(question: str) -> bool:
    """A short question that refers back instead of standing on its own."""
    if is_chinese(question):
        return len(question.strip()) <= 20 and bool(_ZH_FOLLOWUP.search(question))
    return len(word_tokens(question)) <= 6 and bool(_EN_FOLLOWUP.search(question))


def rewrite_followup(question: str, previous_questions: Sequence[str]) -> str:
    """The retrieval query: the question itself, plus the last question's content words
    when it is a follow-up."""
    if not previous_questions or not looks_like_followup(question):
        return question
    previous = previous_questions[-1]
    own = set(word_tokens(question))
    # Numbers are left behind: "what about week 5?" after "week 3" must not search week 3.
    carried = [t for t in word_tokens(previous) if t not in own and not t.isdigit()]
    if not carried:
        return question
    return question.strip() + " " + " ".join(dict.fromkeys(carried))
