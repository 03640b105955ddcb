"""The Weaviate collection: its schema, and how a Chunk becomes an object and back.

One collection holds every course; every read filters on `course_id`. We supply the
vectors (no vectorizer) and a `lexical` property holding `courserag.lang.textnorm.word_tokens(text)`
joined by spaces, with whitespace tokenization and no stopword preset, so that Weaviate's
BM25 sees exactly the tokens the local store's BM25 sees, in English and Chinese.

Sentence vectors (courserag/retrieval/sentence_vectors.py) live in a second collection, `<name>_Sentences`:
one object per sentence with its vector and the course, file and chunk id it belongs to, so
the candidates' sentences are found by one filtered vector query. Every chunk object says
the `index_format` it was written in; chunks of an older format make the model guard ask
for a rebuild.

The object layout is the one LlamaIndex's `WeaviateVectorStore.add` writes (the store used
to write through it; see docs/WEAVIATE.md for why it no longer does): the text under
`text`, every metadata key as a top-level property, and `_node_content` (the node as JSON),
`_node_type`, `document_id`, `doc_id`, `ref_doc_id`. Collections written before keep
working, and LlamaIndex can still read what we write. The object UUID is
`generate_uuid5(chunk.id, course_id)`, so a re-indexed unchanged chunk is overwritten in place.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from courserag.lang.textnorm import word_tokens
from courserag.records import Chunk
from courserag.retrieval.sentence_vectors import INDEX_FORMAT, SentenceVectors

logger = logging.getLogger(__name__)

# Properties a search returns (not `lexical` or `_node_content`: not needed to cite).
RETURN_PROPERTIES = ["text", "course_id", "source_file", "locator", "doc_type", "content_hash", "chunk_id", "origin"]


def _text(
    name: str, description: str, *, tokenization: str | None = None, filterable: bool = False, searchable: bool = False
) -> dict:
    prop = {
        "name": name,
        "dataType": ["text"],
        "description": description,
        "indexFilterable": filterable,
        "indexSearchable": searchable,
    }
    if tokenization is not None:
        prop["tokenization"] = tokenization
    return prop


PROPERTIES = (
    _text("text", "The chunk text (LlamaIndex text_key).", tokenization="word", searchable=True),
    _text("lexical", "word_tokens(text) joined by spaces, for BM25.", tokenization="whitespace", searchable=True),
    _text("course_id", "The course the chunk belongs to.", tokenization="field", filterable=True),
    _text("source_file", "Path of the file relative to the course folder.", tokenization="field", filterable=True),
    _text("locator", "Page, slide, heading path, cell or lines."),
    _text("doc_type", "Kind of document.", tokenization="field", filterable=True),
    _text("content_hash", "SHA-256 of the source file.", tokenization="field", filterable=True),
    _text("chunk_id", "courserag chunk id.", tokenization="field", filterable=True),
    _text("origin", "course or upload.", tokenization="field", filterable=True),
    _text("index_format", "courserag index format the object was written in.", tokenization="field", filterable=True),
    # LlamaIndex's bookkeeping (llama_index.core.vector_stores.utils.node_to_metadata_dict).
    _text("_node_content", "The LlamaIndex node as JSON."),
    _text("_node_type", "LlamaIndex node class."),
    _text("document_id", "LlamaIndex ref doc id.", tokenization="field", filterable=True),
    _text("doc_id", "LlamaIndex ref doc id.", tokenization="field", filterable=True),
    _text("ref_doc_id", "LlamaIndex ref doc id (course_id/source_file).", tokenization="field", filterable=True),
)


def collection_schema(name: str) -> dict:
    """The collection as sent to POST /v1/schema (Weaviate fills in the other defaults)."""
    return {
        "class": name,
        "description": "Course chunks for courserag; vectors are supplied by the app.",
        "vectorizer": "none",
        "vectorIndexType": "hnsw",
        "vectorIndexConfig": {"distance": "cosine"},
        # k1/b as in courserag.retrieval.bm25; no stopword preset: word_tokens already dropped ours.
        "invertedIndexConfig": {"bm25": {"k1": 1.2, "b": 0.75}, "stopwords": {"preset": "none"}},
        "properties": [dict(prop) for prop in PROPERTIES],
    }


SENTENCE_PROPERTIES = (
    _text("course_id", "The course the sentence's chunk belongs to.", tokenization="field", filterable=True),
    _text("source_file", "Path of the file relative to the course folder.", tokenization="field", filterable=True),
    _text("chunk_id", "courserag id of the chunk the sentence is part of.", tokenization="field", filterable=True),
)


def sentence_collection(name: str) -> str:
    """The collection of the sentence vectors of collection `name`."""
    return f"{name}_Sentences"


def sentence_collection_schema(name: str) -> dict:
    """The sentence collection (`name` is the chunk collection's)."""
    return {
        "class": sentence_collection(name),
        "description": "Sentence vectors of courserag chunks; vectors are supplied by the app.",
        "vectorizer": "none",
        "vectorIndexType": "hnsw",
        "vectorIndexConfig": {"distance": "cosine"},
        "properties": [dict(prop) for prop in SENTENCE_PROPERTIES],
    }


# -- Chunk <-> object --------------------------------------------------------------------


@dataclass(frozen=True)
class WeaviateObject:
    """One object to write: its UUID, its properties and its vector."""

    uuid: str
    properties: dict[str, str]
    vector: list[float]


def file_objects(
    course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray
) -> list[WeaviateObject]:
    """The objects of one file's chunks (`vectors`: one row per chunk)."""
    objects = []
    for chunk, vector in zip(chunks, vectors):
        uuid = object_uuid(course_id, chunk)
        properties = object_properties(course_id, source, file_hash, chunk, uuid)
        objects.append(WeaviateObject(uuid, properties, np.asarray(vector, dtype=np.float32).tolist()))
    return objects


def sentence_objects(
    course_id: str, source: str, chunks: Sequence[Chunk], sentences: SentenceVectors
) -> list[WeaviateObject]:
    """The objects of one file's sentence vectors (owners are rows of `chunks`). A UUID is
    the chunk's id and the sentence's place in it: a re-indexed unchanged chunk overwrites
    its sentences in place."""
    from weaviate.util import generate_uuid5

    objects = []
    place = 0
    for i, (owner, vector) in enumerate(zip(sentences.owners.tolist(), sentences.vectors)):
        place = place + 1 if i and owner == sentences.owners[i - 1] else 0
        chunk = chunks[owner]
        properties = {"course_id": course_id, "source_file": source, "chunk_id": chunk.id}
        uuid = generate_uuid5(f"{chunk.id}\x1f{place}", course_id)
        objects.append(WeaviateObject(uuid, properties, np.asarray(vector, dtype=np.float32).tolist()))
    return objects


def object_uuid(course_id: str, chunk: Chunk) -> str:
    """The object's UUID: stable for the same chunk of the same course."""
    from weaviate.util import generate_uuid5

    # The chunk id already hashes the course, but a chunk built without a course id
    # must not collide with the same text in another course: namespace it.
    return generate_uuid5(chunk.id, course_id)


def chunk_metadata(course_id: str, source: str, file_hash: str, chunk: Chunk) -> dict[str, str]:
    """A chunk's own properties (what LlamaIndex calls a node's metadata)."""
    return {
        "course_id": course_id,
        "source_file": source,
        "locator": chunk.locator,
        "doc_type": chunk.doc_type,
        "content_hash": file_hash,
        "chunk_id": chunk.id,
        "origin": chunk.origin,
        "lexical": " ".join(word_tokens(chunk.text)),
        "index_format": str(INDEX_FORMAT),
    }


def object_properties(course_id: str, source: str, file_hash: str, chunk: Chunk, uuid: str) -> dict[str, str]:
    """The properties of one chunk's object, in the layout LlamaIndex writes."""
    metadata = chunk_metadata(course_id, source, file_hash, chunk)
    ref_doc_id = f"{course_id}/{source}"
    return {
        "text": chunk.text,
        **metadata,
        "_node_content": _node_json(uuid, metadata, ref_doc_id),
        "_node_type": "TextNode",
        "document_id": ref_doc_id,
        "doc_id": ref_doc_id,
        "ref_doc_id": ref_doc_id,
    }


def _node_json(node_id: str, metadata: dict[str, str], ref_doc_id: str) -> str:
    """`TextNode.model_dump_json` as LlamaIndex stores it: text and embedding left out (they
    are the object's `text` and vector), our metadata excluded from LLM and embedding text,
    the file as the node's SOURCE relationship ("1")."""
    keys = list(metadata)
    node = {
        "id_": node_id,
        "embedding": None,
        "metadata": metadata,
        "excluded_embed_metadata_keys": keys,
        "excluded_llm_metadata_keys": keys,
        "relationships": {
            "1": {
                "node_id": ref_doc_id,
                "node_type": None,
                "metadata": {},
                "hash": None,
                "class_name": "RelatedNodeInfo",
            }
        },
        "metadata_template": "{key}: {value}",
        "metadata_separator": "\n",
        "text": "",
        "mimetype": "text/plain",
        "start_char_idx": None,
        "end_char_idx": None,
        "text_template": "{metadata_str}\n\n{content}",
        "class_name": "TextNode",
    }
    return json.dumps(node, ensure_ascii=False)


def chunk_from(props: dict[str, Any]) -> Chunk:
    """The Chunk an object's RETURN_PROPERTIES describe."""
    return Chunk(
        id=str(props.get("chunk_id") or ""),
        text=str(props.get("text") or ""),
        source=str(props.get("source_file") or ""),
        locator=str(props.get("locator") or ""),
        origin=props.get("origin") or "course",
        course_id=props.get("course_id"),
        doc_type=str(props.get("doc_type") or ""),
        file_hash=str(props.get("content_hash") or ""),
    )


def course_filter(course_id: str) -> Any:
    """Objects of one course: every read carries this filter."""
    from weaviate.classes.query import Filter

    return Filter.by_property("course_id").equal(course_id)


def file_filter(course_id: str, source: str) -> Any:
    """Objects of one file of one course."""
    from weaviate.classes.query import Filter

    return course_filter(course_id) & Filter.by_property("source_file").equal(source)


# -- on the server -----------------------------------------------------------------------


def _create(client: Any, schema: dict) -> bool:
    """Create a collection unless it exists; whether this call created it."""
    from weaviate.exceptions import UnexpectedStatusCodeError

    name = schema["class"]
    if client.collections.exists(name):
        return False
    try:
        client.collections.create_from_dict(schema)
        logger.info("created Weaviate collection %s", name)
        return True
    except UnexpectedStatusCodeError as exc:
        # Another process may have created it in the meantime.
        if not client.collections.exists(name):
            raise
        logger.debug("collection %s appeared concurrently: %s", name, exc.status_code)
        return False


def ensure_collection(client: Any, name: str) -> None:
    """Create the chunk and sentence collections if missing; add the properties an older
    chunk schema lacks."""
    _create(client, sentence_collection_schema(name))
    if _create(client, collection_schema(name)):
        return
    from weaviate.classes.config import DataType, Property, Tokenization

    collection = client.collections.get(name)
    have = {p.name for p in collection.config.get().properties}
    for prop in PROPERTIES:
        if prop["name"] in have:
            continue
        tokenization = prop.get("tokenization")
        collection.config.add_property(
            Property(
                name=prop["name"],
                data_type=DataType.TEXT,
                description=prop["description"],
                index_filterable=prop["indexFilterable"],
                index_searchable=prop["indexSearchable"],
                tokenization=Tokenization(tokenization) if tokenization else None,
            )
        )
        logger.info("added property %s to Weaviate collection %s", prop["name"], name)
