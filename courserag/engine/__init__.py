"""The engine: the `RagEngine` façade (engine/facade.py) and the services behind it: uploads,
retrieval and answer routing, each taking a typed request (engine/requests.py)."""
