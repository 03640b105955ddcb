import pytest

from courserag.records import Chunk, ScoredChunk
from courserag.retrieval import ranking


def chunk(text: str, origin: str = "course", cid: str = "c1") -> Chunk:
    return Chunk.make(text, f"{text[:8]}.md", "page 1", origin, cid if origin == "course" else None)


def vec(c: Chunk, v: float) -> ScoredChunk:
    return ScoredChunk(c, vector=v, score=v, store="local", signals=("vector",))


def lex(c: Chunk, score: float) -> ScoredChunk:
    return ScoredChunk(c, lexical=score, score=score, store="local", signals=("lexical",))


@pytest.mark.parametrize(
    "tokens, text, expected",
    [
        (["late", "policy"], "The late policy: 10% per day.", 1.0),
        (["art"], "start the engine", 0.0),  # whole words only for Latin tokens
        (["迟交", "政策"], "本课程的迟交政策如下", 1.0),
        (["迟交", "考试"], "迟交扣分", 0.5),
        ([], "anything", 0.0),
    ],
)
def test_text_overlap(tokens, text, expected):
    assert ranking.text_overlap(tokens, text) == expected


def test_merge_fills_both_signals_and_normalises_bm25():
    a, b, c = chunk("alpha"), chunk("beta"), chunk("gamma", "upload")
    merged = ranking.merge_candidates(
        [[vec(a, 0.8), vec(b, 0.4)], [vec(c, 0.6)]],
        [[lex(b, 10.0), lex(a, 5.0)], [lex(c, 2.0)]],
    )
    by_text = {m.chunk.text: m for m in merged}
    assert by_text["alpha"].vector == 0.8 and by_text["alpha"].lexical == 0.5
    assert by_text["beta"].lexical == 1.0
    assert by_text["gamma"].lexical == 1.0  # normalised within its own (session) list
    assert len(merged) == 3


def test_merge_gives_lexical_only_hits_the_vector_floor():
    a, b = chunk("alpha"), chunk("beta")
    merged = {m.chunk.text: m for m in ranking.merge_candidates([[vec(a, 0.7), vec(chunk("x"), 0.3)]], [[lex(b, 3.0)]])}
    assert merged["beta"].vector == 0.3


def test_merge_does_not_mutate_inputs():
    a = chunk("alpha")
    hits = [vec(a, 0.5)]
    ranking.merge_candidates([hits], [[lex(a, 1.0)]])
    assert hits[0].lexical == 0.0


@pytest.mark.parametrize(
    "vectors, expected_order",
    [
        ({"late policy ten percent": 0.6, "hash tables": 0.5}, ["late policy ten percent", "hash tables"]),
        ({"late policy ten percent": 0.1, "hash tables": 0.2}, ["late policy ten percent"]),  # weak: overlap only
        ({"late policy ten percent": 0.2, "hash tables": 0.6}, ["hash tables"]),  # below threshold dropped
    ],
)
def test_rerank_reference(vectors, expected_order):
    candidates = [vec(chunk(t), v) for t, v in vectors.items()]
    ranked = ranking.rerank_reference(candidates, ["late", "policy"], top_k=4)
    assert [r.chunk.text for r in ranked] == expected_order


def test_rerank_reference_formula():
    c = vec(chunk("late policy"), 0.5)
    [ranked] = ranking.rerank_reference([c], ["late", "policy"], top_k=1)
    assert ranked.score == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)


def test_hybrid_puts_exact_identifier_first():
    semantic = ScoredChunk(chunk("Prerequisites are listed in the course outline"), vector=0.7, lexical=1.0)
    exact = ScoredChunk(chunk("MAT-2040 Linear Algebra is required"), vector=0.3, lexical=0.2)
    ranked = ranking.rerank_hybrid([semantic, exact], ["mat", "2040", "prerequisites"], {"MAT2040"}, False, 2)
    assert ranked[0].chunk.text.startswith("MAT-2040")


def test_hybrid_chinese_weighs_the_question_words_and_the_similarity_margin():
    noisy = ScoredChunk(chunk("第一周介绍课程安排"), vector=0.60, lexical=0.1)
    right = ScoredChunk(chunk("迟交政策：每天扣百分之十"), vector=0.62, lexical=1.0)
    ranked = ranking.rerank_hybrid([noisy, right], ["迟交", "政策"], set(), True, 2, floor=0.5)
    # the noisy one has no question word and a small margin over the floor: left out
    assert [r.chunk.text for r in ranked] == ["迟交政策：每天扣百分之十"]


def test_chinese_rests_on_bm25_when_the_embedder_cannot_read_chinese():
    """all-MiniLM-L6-v2 reads most CJK characters as [UNK]: its similarities say nothing."""
    loud = ScoredChunk(chunk("第一周介绍课程安排"), vector=0.95, lexical=0.1)
    right = ScoredChunk(chunk("迟交政策：每天扣百分之十"), vector=0.20, lexical=1.0)
    blind = ranking.rerank_hybrid(
        [loud, right], ["迟交", "政策"], set(), True, 2, floor=0.5, vectors_read_chinese=False
    )
    # BM25 orders, word evidence decides: the loud chunk holds no question word and is left out
    assert [(r.chunk.text, round(r.score, 6)) for r in blind] == [("迟交政策：每天扣百分之十", 1.0)]
    english = ScoredChunk(chunk("late policy"), vector=0.9, lexical=1.0)
    assert ranking.rerank_hybrid([english], ["late", "policy"], set(), False, 1, vectors_read_chinese=False)


@pytest.mark.parametrize(
    "similarity, floor, cross, expected",
    [
        (0.75, 0.50, False, 1.0),  # a margin of a full span (0.25) or more is full evidence
        (0.60, 0.50, False, 0.4),
        (0.50, 0.55, False, 0.0),  # below the floor: no evidence
        (0.535, 0.50, True, 1.0),  # across languages margins are about a seventh as wide
    ],
)
def test_vector_evidence_is_the_margin_over_the_questions_floor(similarity, floor, cross, expected):
    assert ranking.vector_evidence(similarity, floor, cross) == pytest.approx(expected)


def test_a_question_across_languages_counts_its_margin_on_the_cross_lingual_scale():
    english = [
        ScoredChunk(chunk(f"Late submissions lose ten percent per day, rule {i}"), vector=0.56 - i / 100)
        for i in range(5)
    ]
    # A Chinese question over an English course: no shared words, the margin decides.
    assert ranking.rerank_hybrid(english, ["迟交", "扣分"], (), True, 4, floor=0.52)
    # The same margins for a Chinese candidate in a Chinese course are not enough.
    chinese = [ScoredChunk(chunk(f"聚类方法第{i}种"), vector=0.56 - i / 100) for i in range(5)]
    assert ranking.rerank_hybrid(chinese, ["迟交", "扣分"], (), True, 4, floor=0.52) == []


def test_unrelated_question_yields_nothing():
    off_topic = ScoredChunk(chunk("Hash tables store keys"), vector=0.1, lexical=0.0)  # relevance 0.2
    ranked = ranking.rerank_hybrid([off_topic], ["capital", "france"], set(), False, 4)
    assert not ranking.confident(ranked, False, ranking.ENGLISH_GATE, ranking.CHINESE_GATE)
    nothing = ScoredChunk(chunk("Hash tables store keys"), vector=0.04, lexical=0.0)  # 0.08
    assert ranking.rerank_hybrid([nothing], ["capital", "france"], set(), False, 4) == []


@pytest.mark.parametrize("chinese, expected", [(False, ranking.ENGLISH_WEIGHTS), (True, ranking.CHINESE_WEIGHTS)])
def test_choose_weights_follows_language(chinese, expected):
    assert ranking.choose_weights(chinese) == expected


@pytest.mark.parametrize(
    "vector, text, tokens, chinese, expected",
    [
        (0.2, "hash tables store keys", ["hash", "tables"], False, 0.5 * 0.2 / 0.25 + 0.5 * 1.0),
        (0.05, "nothing relevant", ["hash", "tables"], False, 0.5 * 0.05 / 0.25),
        # long questions: the word share counts at most 6 words
        (0.0, "a b c", ["a", "b", "c", "d", "e", "f", "g", "h"], False, 0.5 * 3 / 6),
        # Chinese: the rare name outweighs the common word
        (0.9, "硕塞是皇太极的第五子", ["硕塞", "儿子"], True, None),
    ],
)
def test_relevance(vector, text, tokens, chinese, expected):
    got = ranking.relevance(ScoredChunk(chunk(text), vector=vector), tokens, chinese)
    if expected is None:
        assert got > 0.5
    else:
        assert got == pytest.approx(expected)


@pytest.mark.parametrize(
    "relevance, identifier, threshold, expected",
    [(0.4, 0.0, 0.33, True), (0.2, 0.0, 0.33, False), (0.0, 1.0, 0.33, True), (0.0, 0.5, 0.33, True)],
)
def test_is_relevant(relevance, identifier, threshold, expected):
    assert ranking.is_relevant(relevance, identifier, threshold) is expected


@pytest.mark.parametrize(
    "values, expected",
    [([1.0, 1.0], [0.0, 0.0]), ([0.0, 2.0], [-1.0, 1.0]), ([], []), ([3.0], [0.0])],
)
def test_zscores(values, expected):
    assert ranking.zscores(values) == pytest.approx(expected)


def test_refusal_is_per_question_but_weak_candidates_are_dropped():
    strong = ScoredChunk(chunk("late policy: ten percent per day"), vector=0.6, lexical=1.0)
    weak = ScoredChunk(chunk("hash tables"), vector=0.02, lexical=0.0)
    ranked = ranking.rerank_hybrid([strong, weak], ["late", "policy"], (), False, 4)
    assert [r.chunk.text for r in ranked] == [strong.chunk.text]
    assert ranking.rerank_hybrid([weak], ["late", "policy"], (), False, 4) == []


def test_gates_are_settings():
    middling = ScoredChunk(chunk("late fees"), vector=0.03, lexical=1.0)  # relevance 0.31
    for gate, confident in ((0.33, False), (0.3, True)):
        ranked = ranking.rerank_hybrid([middling], ["late", "policy"], (), False, 4, english_gate=gate)
        assert ranking.confident(ranked, False, gate, 0.3) is confident


@pytest.mark.parametrize(
    "sentences, weight, expected_first",
    [
        ((None, None), 0.5, "chunk-level"),  # no sentence vectors: chunk similarity orders
        ((0.40, 0.90), 0.5, "one-sentence"),  # its best sentence matches the question
        ((0.40, 0.90), 0.0, "chunk-level"),  # weight 0: chunk vectors alone
        ((0.70, None), 0.5, "chunk-level"),  # only one has sentences, and a weaker one
    ],
)
def test_the_best_sentence_orders_candidates(sentences, weight, expected_first):
    texts = ["chunk-level match about graphs", "one-sentence match about graphs"]
    candidates = [
        ScoredChunk(chunk(t), vector=v, lexical=0.5, sentence=s) for t, v, s in zip(texts, (0.60, 0.55), sentences)
    ]
    ranked = ranking.rerank_hybrid(candidates, ["graphs"], (), False, 4, sentence_weight=weight)
    assert ranked[0].chunk.text.startswith(expected_first)


def test_the_relevance_gate_reads_the_chunk_similarity_not_the_best_sentence():
    """The gates and MARGIN_SPAN were measured on chunk similarities: a strong sentence in an
    off-topic chunk must not turn a refusal into an answer."""
    off_topic = ScoredChunk(chunk("Hash tables store keys"), vector=0.1, lexical=0.0, sentence=0.95)
    ranked = ranking.rerank_hybrid([off_topic], ["capital", "france"], set(), False, 4)
    assert not ranking.confident(ranked, False, ranking.ENGLISH_GATE, ranking.CHINESE_GATE)


def test_ranker_for_passes_the_sentence_weight():
    from courserag.config.settings import RetrievalSettings

    assert ranking.ranker_for(RetrievalSettings(sentence_weight=0.25)).sentence_weight == 0.25
    assert ranking.ranker_for(RetrievalSettings()).sentence_weight == ranking.SENTENCE_WEIGHT


def test_ranked_candidates_carry_the_relevance_the_gate_read():
    """The composer's fitted refusal weighs it (answers/extractive/refusal.py)."""
    hit = ScoredChunk(chunk("late fees"), vector=0.03, lexical=1.0)
    (ranked,) = ranking.rerank_hybrid([hit], ["late", "policy"], (), False, 4)
    assert ranked.relevance == pytest.approx(0.5 * 0.03 / ranking.MARGIN_SPAN + 0.5 * 0.5)
    assert hit.relevance is None  # as a store returns it


@pytest.mark.parametrize(
    "vector, kept, confident",
    [
        (0.03, True, True),  # relevance 0.31: passes the gate (0.30)
        (0.0, True, False),  # 0.25: below the gate, above the evidence floor (0.10): kept, not confident
        (-0.2, True, False),  # words alone: 0.25
    ],
)
def test_below_the_gate_the_evidence_is_kept_but_not_confident(vector, kept, confident):
    hit = ScoredChunk(chunk("late fees"), vector=vector, lexical=1.0)
    ranked = ranking.rerank_hybrid([hit], ["late", "policy"], (), False, 4)
    assert bool(ranked) is kept
    assert ranking.confident(ranked, False, ranking.ENGLISH_GATE, ranking.CHINESE_GATE) is confident


def test_below_the_evidence_floor_retrieval_refuses():
    nothing = ScoredChunk(chunk("hash tables"), vector=0.02, lexical=0.0)  # relevance 0.04
    assert ranking.rerank_hybrid([nothing], ["late", "policy"], (), False, 4) == []
    assert ranking.rerank_hybrid([nothing], ["late", "policy"], (), False, 4, evidence_floor=0.03)


def test_a_confident_question_keeps_only_what_reaches_the_candidate_floor():
    strong = ScoredChunk(chunk("late policy: ten percent per day"), vector=0.6, lexical=1.0)
    middling = ScoredChunk(chunk("hash tables"), vector=0.04, lexical=0.0)  # relevance 0.08 < 0.25
    ranked = ranking.rerank_hybrid([strong, middling], ["late", "policy"], (), False, 4, evidence_floor=0.05)
    assert [r.chunk.text for r in ranked] == [strong.chunk.text]


def test_confidence_is_per_language_and_identifiers_always_count():
    weak = ScoredChunk(chunk("x"), relevance=0.2)
    assert not ranking.confident([weak], False, 0.3, 0.1) and ranking.confident([weak], True, 0.3, 0.1)
    assert ranking.confident([ScoredChunk(chunk("MAT-2040"), relevance=0.0, identifier=1.0)], False, 0.3, 0.3)
    assert ranking.confident([ScoredChunk(chunk("x"))], False, 0.3, 0.3)  # not measured (reference ranker)


def test_confidence_reads_every_kept_candidate_not_only_the_top_k():
    """A source that reached the gate may rank below a stronger-looking one that did not:
    the retriever asks the ranker for all it keeps before cutting to top_k (engine/retriever.py)."""
    looks_strong = ScoredChunk(chunk("late submissions"), vector=0.0, lexical=1.0, sentence=0.99)  # relevance 0.25
    reaches_gate = ScoredChunk(chunk("late policy: ten percent"), vector=0.03, lexical=0.0)  # 0.56
    kept = ranking.rerank_hybrid([looks_strong, reaches_gate], ["late", "policy"], (), False, 2)
    assert [h.chunk.text for h in kept] == ["late submissions", "late policy: ten percent"]
    assert not ranking.confident(kept[:1], False, ranking.ENGLISH_GATE, ranking.CHINESE_GATE)
    assert ranking.confident(kept, False, ranking.ENGLISH_GATE, ranking.CHINESE_GATE)
