"""Language: normalisation and word tokens for English and Chinese, the dictionary bridge
from Chinese words to English ones, what a question asks for (intent.py, its words as data)
and the one reading of a question every later step shares (query.py). Imports nothing else of ours but errors."""
