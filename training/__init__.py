"""Training code beside the product: nothing in `courserag/` imports it, and it may import torch."""
