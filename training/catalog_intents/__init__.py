"""The catalog's intent model (courserag/catalog/intents.py): its data and its fitting."""
