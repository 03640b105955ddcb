"""The names of the converted E5 graph's outputs: the sentence vector (before L2
normalisation) and the last layer's token states. One definition for the graph that
computes them (e5_graph.py), the conversion that caches it (e5_convert.py) and the embedder
that reads them (e5.py). Changing what the graph computes bumps e5_convert.GRAPH_REVISION."""

OUTPUT, TOKENS = "embedding", "token_states"
