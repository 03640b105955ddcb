"""An extractive reader fine-tuned from the shipped multilingual-e5-small (issue 41).

It reads a question and a passage together and gives, per token, how likely the answer
starts and ends there (the span head), and from the first token's state whether the passage
answers the question at all (the answerability head). One module a job:

- `sets`: the pinned training sets (data_pins.json): read, hash-checked, split held-out;
- `tokens`: the product's E5 tokenizer, plus each token's character span in the text;
- `data`: question + passage windows with their answer's token span (pure functions);
- `weights`: the E5 file's weights as BERT's parameters, and the word-table lookup;
- `model`: BertModel from those weights, the two heads, which layers train;
- `train`: the loop (AdamW, warm-up then linear decay, checkpoints, resume);
- `checkpoints`: a run's folder (config.json, log.jsonl, checkpoints written atomically);
- `metrics`, `evaluate`: exact match, F1 and answerability accuracy on the held-out part;
- `export`: only what differs from E5 (the trained layers and the heads) plus a manifest;
- `cli`: `python -m training.reader train|evaluate|export|windows|time`.

docs/READER.md says how to run it. Nothing here is on the product's run path.
"""
