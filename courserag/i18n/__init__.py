"""What the product says, in English and Chinese: messages by code, UI texts by key, and the
words for a place in a file (page, slide, cell)."""
