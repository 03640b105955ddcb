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


REWRITE_PROMPT = (
    "Rewrite the student's last question as one standalone search query, using the earlier "
    "questions only to fill in what the last one leaves out. Keep its language. Reply with the "
    "query only."
)


def rewrite_messages(question: str, previous_questions: Sequence[str]) -> list[dict]:
    """Chat messages asking an LLM for the standalone query (the last three turns only)."""
    turns = "\n".join(f"- {q}" for q in previous_questions[-3:])
    return [
        {"role": "system", "content": REWRITE_PROMPT},
        {"role": "user", "content": f"Earlier questions:\n{turns}\n\nLast question: {question}"},
    ]


def clean_rewrite(question: str, rewritten: str) -> str:
    """Accept the model's rewrite only if it looks like a query, else keep the question."""
    lines = rewritten.strip().splitlines()
    text = lines[0].strip().strip('"“”').strip() if lines else ""
    if not text or len(text) > 4 * max(len(question), 60):
        return question
    return text
