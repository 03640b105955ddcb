"""The Weaviate course store, one module per job.

- `config.py`: WeaviateConfig, the few settings the store needs.
- `endpoint.py`: WEAVIATE_URL / WEAVIATE_GRPC_URL as hosts and ports.
- `schema.py`: the collection, and a Chunk as an object and back.
- `client.py`: the lazy connection, deadlines, failures as StoreUnavailableError, key masking.
- `batch.py`: writes in batches, with retries of transient rejections.
- `store.py`: WeaviateCourseStore, the CourseStore (reads, searches, writes).

Importing this package does not import weaviate-client; connecting does.
"""

from courserag.stores.weaviate.config import WeaviateConfig
from courserag.stores.weaviate.endpoint import Endpoint, parse_endpoint
from courserag.stores.weaviate.schema import collection_schema
from courserag.stores.weaviate.store import WeaviateCourseStore

__all__ = ["Endpoint", "WeaviateConfig", "WeaviateCourseStore", "collection_schema", "parse_endpoint"]
