"""The reader at run time: E5 fine-tuned to read a question and a passage together.

tokens.py   the product's E5 tokenizer with each token's characters
windows.py  question + passage windows, the layout training used
delta.py    the trained layers and heads (only what differs from E5), checked on load
graph.py    E5's ONNX graph with those layers in place and the span and answerability heads
convert.py  that graph converted once (fp32, int8) into the model cache
spans.py    the best span of a window from its start and end logits
reader.py   Reader: built once, `read(question, passages)` -> every window's best span

Training lives in training/reader/ (torch); nothing here imports it.
"""
