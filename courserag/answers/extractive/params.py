"""Every number the extractive composer reads, in one object, with how each was set.

The order of the units, the passage quoted and the answer-or-refuse decision are fitted
(unit_weights.json, passage_weights.json, refusal_weights.json, by scripts/fit_units.py,
fit_passages.py and fit_refusal.py), and which kinds of fact may be required is measured
(kind_recall.json, scripts/measure_kinds.py); what is left here are measurements of the
models' scales, limits on how much an answer quotes, the hand-set sum the refusal model was
fitted on, and the neighbours select.py adds when no embedder is given. A module reads them
from `PARAMS`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ComposerParams:
    """The composer's parameters; `PARAMS` holds the shipped values."""

    # -- how much is read and quoted ---------------------------------------------------------
    max_scored_units: int = 80  # units scored per answer (the top sources' units come first)
    max_units: int = 3  # units quoted, unless a list is asked for
    max_list_units: int = 5
    max_answer_words: int = 120  # answer_eval.py's window: what a learner reads of an answer
    # A quoted passage's budget (passages.py), in answer words (a CJK character counts one):
    # about a paragraph, and no longer than the answers were (median 61 English words on
    # SyllabusQA, 105-141 characters on the Chinese sets, issue 19). It holds the best
    # passage and a second one on the subject that fits beside it: 55 is the largest budget
    # in steps of 5 whose answers to SyllabusQA's train questions stay within 61 words (60: 62).
    passage_words: int = 55
    passage_cjk_words: int = 100
    # The likeliest runs read again whole (reread.py), at most this many, and only those the
    # passage model rates within `reread_reach` (its logit) of the best. Each costs an
    # embedding, 12-13 ms a 60-token passage on 2 cores. On the fitting questions' rows
    # (scripts/fit_passages.py) the choice holds the answer 0.689 of the time without a second
    # look, 0.698 with two runs, 0.702 with four or six; four made the whole ask's p95 on
    # SyllabusQA val 269 ms, over issue 19's 200. With two, a reach of 2 reads 1.6 runs a
    # question at the same 0.698 as any reach (1: 0.697, 0.5: 0.695).
    reread_runs: int = 2
    reread_reach: float = 2.0
    max_fact_words: int = 8  # the short fact said before the quotes
    max_heading_chars: int = 40  # a longer line is not a heading
    max_lead_in: int = 160  # a longer lead-in is a sentence of its own, not a prefix
    max_items_joined: int = 6  # a colon sentence takes at most this many following items
    short_words: int = 8  # a line this short with no end punctuation reads as a title
    grid_tokens: int = 12  # a line this long, mostly numbers, with no end punctuation, is a grid
    grid_number_share: float = 0.4

    # -- the models' scales (measured on the shared sets) -----------------------------------
    # A sentence's similarity margin over the question's floor (calibration.py): in one
    # language answers sit 0.14-0.19 above the floor and others below 0.10; across
    # languages 0.05-0.15 against below 0.06. A margin of one span is full evidence.
    sentence_span: float = 0.20
    cross_sentence_span: float = 0.12
    # On course material (one domain) every unit sits a little above the floor; the unit
    # that answers sits 0.13-0.2 above it.
    on_subject_margin: float = 0.12
    cross_on_subject_margin: float = 0.07
    # A question word and a word of the other language mean the same at this cosine of their
    # word vectors (USE multilingual v3; measured on course terms: 期末/final 0.66, 迟交/late
    # 0.70, 学习率/learning rate 0.86, against at most ~0.5 for unrelated pairs).
    translation_similarity: float = 0.55
    synonym_similarity: float = 0.65  # an English near-synonym ("sick" / "illness")
    # A Chinese question word that no unit uses (the learner's own wording: 晚交, 没修) is
    # matched through the unit word it means, at a stricter similarity than English: on the
    # sample courses' pools, 晚交/迟交 0.77, 没修/未修过 0.81, 被扣/扣除 0.87, against up to
    # ~0.74 for unrelated pairs (定好/更好). Words the materials do use match as themselves
    # only: 期末考试 must not match 考前.
    chinese_synonym_similarity: float = 0.76
    max_pool_words: int = 1500  # words of the cited units looked up for translations

    # -- the hand-set sum (the refusal model's features are read in its order) ---------------
    # Share of a unit's subject coverage counted with its section heading (the rest: its own
    # words); 0.5 and 0.6 gave the same on course_qa_dev, 0.4 less.
    headed_share: float = 0.5
    # A dated notice that says something changed ("moved to LH-1", "改为") gains this much,
    # and is quoted first when it is about what the best unit is about and scores within
    # newer_reach of it.
    newer_bonus: float = 0.1
    newer_reach: float = 0.35
    # A yes/no question is answered by the sentence that states the rule: it gains this much.
    rule_bonus: float = 0.15
    # The unit that holds the kind of fact asked for must also be about the question's
    # subject: "Which room is the final exam in?" is not answered by the midterm's room.
    need_coverage: float = 0.6
    # ...and only where the detectors find that kind in the unit that answers at least this
    # share of the time, over at least this many fitting questions (kinds.py): a detector
    # that misses one answer in ten refuses answerable questions about as often as it
    # catches an unanswerable one (SyllabusQA train: 158 answerable against 44 "no answer").
    required_kind_recall: float = 0.9
    required_kind_questions: int = 20
    # Without an embedder (select.py), a neighbour of the best unit (at most near_positions
    # units away in its source) is quoted with it when it scores within near_reach of it
    # (adjacent_reach for the very next unit of the same section); with one, the fitted
    # passage model chooses what is quoted with it.
    near_positions: int = 3
    near_reach: float = 0.35
    adjacent_reach: float = 0.5


PARAMS = ComposerParams()
