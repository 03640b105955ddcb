"""Retrieval: from a question to ranked, packed sources. Follow-up rewriting, BM25 and FAISS
indexes, session pools, sentence vectors, fusion and ranking with the relevance gate,
calibration, and packing to the token budget."""
