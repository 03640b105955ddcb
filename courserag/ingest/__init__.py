"""Ingestion: one file in, its chunks out. Parsers per format (run in a sandboxed worker with a
budget), structure-aware chunking sized in model tokens, and upload progress."""
