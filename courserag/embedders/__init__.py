"""Embedders beyond the default MiniLM (see courserag/embedding.py for the base class)."""
