"""Language: normalisation and word tokens for English and Chinese, and the dictionary bridge
from Chinese words to English ones. Imports nothing else of ours but errors."""
