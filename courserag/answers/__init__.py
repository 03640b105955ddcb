"""Answers: from packed sources to the learner's answer. The LLM path (grounded prompt,
streaming client), the extractive composer, the answer's words, which sources an answer cites,
and answer-level evaluation."""
