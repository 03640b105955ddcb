"""Does LlamaIndex earn its place in the Weaviate store? The measurements behind the answer
in docs/WEAVIATE.md.

    python -m bench.weaviate_llamaindex [--chunks 2000] [--runs 5] [--json PATH]

Against the local wire-level Weaviate (tests/weaviate_server, REST + gRPC on 127.0.0.1):

- write throughput: the chunks of one new file, 100 objects per batch request, built and
  sent (a) the way the store does, with weaviate-client's batch API, and (b) the way it
  used to, through LlamaIndex's `WeaviateVectorStore.add` (`llamaindex_write` below is that
  code). Runs are interleaved (A, B, B, A, ...) after one warm-up each; median and ratio.
- retrieval, in case LlamaIndex should carry more: top-50 vector search of one course
  through the store vs `WeaviateVectorStore.query` with a course_id metadata filter.
- lines of code on our side for each write path (no blank, comment or docstring lines);
- what LlamaIndex brings: the installed distributions that only llama-index-* need (from
  their metadata, against requirements.txt), their size on disk, and the import time
  `llama_index.vector_stores.weaviate` adds once weaviate-client is imported.

The fake server does its own work in the same process, so absolute times are not
Weaviate's; the ratio is the client side's difference.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from bench.common import PROJECT_ROOT, interleave, speedup, summary
from courserag.records import Chunk
from courserag.stores.weaviate import WeaviateConfig, WeaviateCourseStore, schema
from courserag.stores.weaviate.batch import INSERT_GROUP, send_batch

DIM = 384
COLLECTION = "CourseChunks"

# -- the two write paths --------------------------------------------------------------------


def client_write(
    client: Any, course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray
) -> None:
    """The store's write path: objects from schema.py, sent with weaviate-client's batch API."""
    collection = client.collections.get(COLLECTION)
    objects = schema.file_objects(course_id, source, file_hash, chunks, vectors)
    for start in range(0, len(objects), INSERT_GROUP):
        rejected = send_batch(collection, objects[start : start + INSERT_GROUP])
        assert not rejected, rejected[:1]


def llamaindex_nodes(course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> list:
    """The store's former `_nodes`: one LlamaIndex TextNode per chunk."""
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    nodes = []
    for chunk, vector in zip(chunks, vectors):
        metadata = schema.chunk_metadata(course_id, source, file_hash, chunk)
        nodes.append(
            TextNode(
                id_=schema.object_uuid(course_id, chunk),
                text=chunk.text,
                embedding=[float(x) for x in vector],
                metadata=metadata,
                excluded_embed_metadata_keys=list(metadata),
                excluded_llm_metadata_keys=list(metadata),
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=f"{course_id}/{source}")},
            )
        )
    return nodes


def llamaindex_add(client: Any, nodes: list) -> list[str]:
    """The store's former `_add_nodes`: one LlamaIndex add of `nodes`."""
    from llama_index.vector_stores.weaviate import WeaviateVectorStore

    batch = client.batch.fixed_size(batch_size=len(nodes), concurrent_requests=1)
    try:
        store = WeaviateVectorStore(
            weaviate_client=client, index_name=COLLECTION, text_key="text", client_kwargs={"custom_batch": batch}
        )
    except BaseException:
        with batch:
            pass
        raise
    store.add(nodes)
    return [str(err.message) for err in client.batch.failed_objects]


def llamaindex_write(
    client: Any, course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray
) -> None:
    """The former write path: TextNodes, then WeaviateVectorStore.add per group."""
    nodes = llamaindex_nodes(course_id, source, file_hash, chunks, vectors)
    for start in range(0, len(nodes), INSERT_GROUP):
        rejected = llamaindex_add(client, nodes[start : start + INSERT_GROUP])
        assert not rejected, rejected[:1]


# The code each path needs on our side, from chunks to a sent batch (the group loop and the
# retries around it are the same for both, so are not counted).
WRITE_PATHS: dict[str, tuple[Callable, ...]] = {
    "weaviate-client": (schema.file_objects, schema.object_properties, schema._node_json, send_batch),
    "llamaindex": (llamaindex_nodes, llamaindex_add),
}

# -- data -----------------------------------------------------------------------------------


def course_chunks(course_id: str, n: int) -> list[Chunk]:
    """n chunks of one file, ~900 characters each, every text distinct."""
    topics = ["binary search trees", "hash tables", "dynamic programming", "graph traversal", "heaps", "sorting"]
    return [
        Chunk.make(
            " ".join(
                f"Section {i}.{j}: {topics[(i + j) % len(topics)]} keep their invariants; lecture {i % 13} explains why."
                for j in range(9)
            ),
            "notes/week1.pdf",
            f"page {i + 1}",
            "course",
            course_id=course_id,
            doc_type="pdf",
            file_hash="sha-bench",
        )
        for i in range(n)
    ]


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# -- measurements ---------------------------------------------------------------------------


def measure_writes(client: Any, n: int, runs: int) -> dict:
    vectors = unit_vectors(n, 1)
    paths = {"weaviate-client": client_write, "llamaindex": llamaindex_write}

    def one(name: str) -> Callable[[int], None]:
        def run(i: int) -> None:
            course = f"{name}-{i}"  # a new file every run: inserts, never overwrites
            paths[name](client, course, "notes/week1.pdf", "sha-bench", course_chunks(course, n), vectors)

        return run

    samples = interleave({name: one(name) for name in paths}, runs, warmup=1)
    written = client.collections.get(COLLECTION).aggregate.over_all(total_count=True).total_count
    assert written == len(paths) * (runs + 1) * n, f"{written} objects written, expected {len(paths) * (runs + 1) * n}"
    stats = {name: summary(values) for name, values in samples.items()}
    for name in paths:
        stats[name]["chunks_per_s"] = round(n / (stats[name]["median_ms"] / 1000), 1)
    return {
        "chunks": n,
        "runs": runs,
        **stats,
        "llamaindex_time_over_client_time": speedup(stats["llamaindex"], stats["weaviate-client"]),
    }


def measure_building(n: int, runs: int) -> dict:
    """Client-side work alone: the objects of n chunks, as each path builds them to send."""
    from llama_index.vector_stores.weaviate.utils import get_data_object

    vectors = unit_vectors(n, 1)
    chunks = course_chunks("building", n)
    samples = interleave(
        {
            "weaviate-client": lambda i: schema.file_objects(
                "building", "notes/week1.pdf", "sha-bench", chunks, vectors
            ),
            "llamaindex": lambda i: [
                get_data_object(node, text_key="text")
                for node in llamaindex_nodes("building", "notes/week1.pdf", "sha-bench", chunks, vectors)
            ],
        },
        runs,
        warmup=1,
    )
    stats = {name: summary(values) for name, values in samples.items()}
    return {
        "chunks": n,
        **stats,
        "llamaindex_time_over_client_time": speedup(stats["llamaindex"], stats["weaviate-client"]),
    }


def measure_retrieval(client: Any, server: Any, n: int, queries: int) -> dict:
    from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters, VectorStoreQuery
    from llama_index.vector_stores.weaviate import WeaviateVectorStore

    vectors = unit_vectors(n, 2)
    for course in ("retrieval-a", "retrieval-b"):
        client_write(client, course, "notes/week1.pdf", "sha-bench", course_chunks(course, n), vectors)
    questions = unit_vectors(queries + 1, 3)
    store = WeaviateCourseStore(WeaviateConfig(url=server.url, grpc_url=server.grpc_url, timeout_s=10), DIM)
    llama = WeaviateVectorStore(weaviate_client=client, index_name=COLLECTION, text_key="text")
    course_only = MetadataFilters(filters=[MetadataFilter(key="course_id", value="retrieval-a")])
    try:
        samples = interleave(
            {
                "store.vector_search": lambda i: store.vector_search("retrieval-a", questions[i], 50),
                "llamaindex.query": lambda i: llama.query(
                    VectorStoreQuery(query_embedding=questions[i].tolist(), similarity_top_k=50, filters=course_only)
                ),
            },
            queries,
            warmup=1,
        )
    finally:
        store.close()
    stats = {name: summary(values) for name, values in samples.items()}
    return {
        "top_k": 50,
        "chunks_per_course": n,
        **stats,
        "llamaindex_time_over_store_time": speedup(stats["llamaindex.query"], stats["store.vector_search"]),
    }


def code_lines(fn: Callable) -> int:
    """Lines of `fn` that are code: no blank lines, comments or docstring."""
    source = textwrap.dedent(inspect.getsource(fn))
    body = ast.parse(source).body[0]
    doc = set()
    first = body.body[0] if body.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        doc = set(range(first.lineno, first.end_lineno + 1))
    return sum(
        1
        for i, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and i not in doc
    )


def llamaindex_footprint() -> dict:
    """The distributions only llama-index-* need at run time, and their size on disk."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def requires(name: str) -> list[str]:
        out = []
        for spec in metadata.distribution(name).requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                out.append(canonicalize_name(req.name))
        return out

    def closure(roots: Sequence[str]) -> set[str]:
        seen: set[str] = set()
        todo = [canonicalize_name(r) for r in roots]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            try:
                todo.extend(requires(name))
            except metadata.PackageNotFoundError:
                continue
            seen.add(name)
        return seen

    roots = [
        Requirement(line.split("#")[0].strip()).name
        for line in (PROJECT_ROOT / "requirements.txt").read_text().splitlines()
        + ["llama-index-core", "llama-index-vector-stores-weaviate"]
        if line.split("#")[0].strip()
    ]
    llama = {canonicalize_name(r) for r in roots if canonicalize_name(r).startswith("llama-index")}
    only = sorted(closure(sorted(llama)) - closure([r for r in roots if canonicalize_name(r) not in llama]))

    def size(name: str) -> int:
        total = 0
        for file in metadata.distribution(name).files or []:
            path = Path(file.locate())
            if path.is_file():
                total += path.stat().st_size
        return total

    sizes = {name: size(name) for name in only}
    return {
        "distributions": len(only),
        "megabytes": round(sum(sizes.values()) / 1e6, 1),
        "largest": {name: round(sizes[name] / 1e6, 1) for name in sorted(sizes, key=sizes.get, reverse=True)[:5]},
    }


def import_seconds(runs: int) -> float:
    """Median seconds `import llama_index.vector_stores.weaviate` adds after `import weaviate`."""
    code = (
        "import time, weaviate, numpy\nstarted = time.perf_counter()\n"
        "import llama_index.core.schema, llama_index.vector_stores.weaviate\nprint(time.perf_counter() - started)"
    )
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]
    return round(statistics.median(times), 3)


def on_fresh_server(measure: Callable[[Any, Any], dict]) -> dict:
    """measure(client, server) on a new local Weaviate with an empty collection."""
    import weaviate

    from tests.weaviate_server import start_server

    server = start_server(autoschema=False)
    try:
        client = weaviate.connect_to_custom(
            "127.0.0.1", server.http_port, False, "127.0.0.1", server.grpc_port, False, skip_init_checks=True
        )
        try:
            client.collections.create_from_dict(schema.collection_schema(COLLECTION))
            return measure(client, server)
        finally:
            client.close()
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)

    results = {
        "building_objects": measure_building(args.chunks, args.runs),
        "writes": on_fresh_server(lambda client, server: measure_writes(client, args.chunks, args.runs)),
        # A server of its own: the fake server's search time grows with what the writes left.
        "retrieval": on_fresh_server(
            lambda client, server: measure_retrieval(client, server, args.chunks, 20 * args.runs)
        ),
    }
    results["code_lines"] = {name: sum(code_lines(fn) for fn in fns) for name, fns in WRITE_PATHS.items()}
    results["llamaindex_install"] = llamaindex_footprint()
    results["llamaindex_import_s"] = import_seconds(args.runs)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
