"""The in-memory database behind the fake Weaviate server: schemas, objects, filters, search.

Plain Python (no protobuf or HTTP here), so that the REST and gRPC front ends stay thin.
It follows Weaviate's documented semantics closely enough for the real client to be
exercised honestly:

* filters: Equal/NotEqual/Like/ContainsAny/ContainsAll/ContainsNone/IsNull, comparisons
  and And/Or/Not, on properties and on `_id`; text values are compared after the
  property's tokenization (`field` = the whole trimmed value, `whitespace` = split on
  white space, `word` = lower-cased alphanumeric runs, `lowercase` = lower-cased
  white-space split);
* near_vector: cosine distance (1 - cos), certainty = 1 - distance / 2;
* bm25: Lucene's BM25 (k1, b from the collection's invertedIndexConfig), statistics over
  the whole collection -- not only the filtered objects -- as in Weaviate, query tokens
  tokenized like the property and stopwords removed per the collection's preset;
* hybrid: relativeScoreFusion (default) or rankedFusion, alpha weighting the vector side;
* the `QUERY_MAXIMUM_RESULTS` limit (offset + limit, and objects per batch delete).
"""

from __future__ import annotations

import copy
import math
import re
import threading
import time
import uuid as uuid_lib
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

PROPERTY_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]{0,230}$")
RESERVED_PROPERTY_NAMES = {"_additional", "_id", "id"}
DEFAULT_QUERY_LIMIT = 10

# Weaviate's "en" stopword preset (usecases/stopwords/presets.go).
EN_STOPWORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with""".split()
)


class WeaviateError(Exception):
    """An error the front ends turn into an HTTP status or a gRPC status code."""

    def __init__(self, message: str, status: int = 422, grpc_code: str = "INVALID_ARGUMENT"):
        super().__init__(message)
        self.message = message
        self.status = status
        self.grpc_code = grpc_code


# --------------------------------------------------------------------------- schema


def _default_vector_index_config(distance: str = "cosine") -> dict:
    return {
        "skip": False,
        "cleanupIntervalSeconds": 300,
        "maxConnections": 32,
        "efConstruction": 128,
        "ef": -1,
        "dynamicEfMin": 100,
        "dynamicEfMax": 500,
        "dynamicEfFactor": 8,
        "vectorCacheMaxObjects": 1000000000000,
        "flatSearchCutoff": 40000,
        "distance": distance,
        "filterStrategy": "sweeping",
        "pq": {
            "enabled": False,
            "bitCompression": False,
            "segments": 0,
            "centroids": 256,
            "trainingLimit": 100000,
            "encoder": {"type": "kmeans", "distribution": "log-normal"},
        },
        "bq": {"enabled": False},
        "sq": {"enabled": False, "trainingLimit": 100000, "rescoreLimit": 20},
        "rq": {"enabled": False, "bits": 8, "rescoreLimit": 20},
        "multivector": {
            "enabled": False,
            "muvera": {"enabled": False, "ksim": 4, "dprojections": 16, "repetitions": 10},
            "aggregation": "maxSim",
        },
        "skipDefaultQuantization": False,
        "trackDefaultQuantization": False,
    }


def _normalise_property(prop: dict) -> dict:
    name = prop.get("name", "")
    if not PROPERTY_NAME.match(name) or name in RESERVED_PROPERTY_NAMES:
        raise WeaviateError(f"'{name}' is not a valid property name")
    data_type = prop.get("dataType")
    if not data_type:
        raise WeaviateError(f"property '{name}': dataType is required")
    out = dict(prop)
    out["dataType"] = list(data_type)
    is_text = data_type[0] in ("text", "text[]", "string", "string[]")
    out.setdefault("indexFilterable", True)
    out.setdefault("indexSearchable", is_text)
    out.setdefault("indexRangeFilters", False)
    if is_text:
        tokenization = out.get("tokenization") or "word"
        if tokenization not in ("word", "lowercase", "whitespace", "field", "trigram", "gse", "kagome_kr", "kagome_ja"):
            raise WeaviateError(f"property '{name}': unknown tokenization '{tokenization}'")
        out["tokenization"] = tokenization
    else:
        if out.get("tokenization"):
            raise WeaviateError(f"property '{name}': tokenization is only allowed on text properties")
        out.pop("tokenization", None)
    out.setdefault("description", "")
    return out


def normalise_class(body: dict) -> dict:
    """What Weaviate stores for a POST /v1/schema body: the input plus every default."""
    name = body.get("class") or ""
    if not name or not re.match(r"^[A-Z][_0-9A-Za-z]{0,230}$", name[0].upper() + name[1:]):
        raise WeaviateError(f"'{name}' is not a valid class name")
    cls = copy.deepcopy(body)
    cls["class"] = name[0].upper() + name[1:]
    inverted = cls.setdefault("invertedIndexConfig", {})
    bm25 = inverted.setdefault("bm25", {})
    bm25.setdefault("b", 0.75)
    bm25.setdefault("k1", 1.2)
    inverted.setdefault("cleanupIntervalSeconds", 60)
    stopwords = inverted.setdefault("stopwords", {})
    stopwords.setdefault("preset", "en")
    stopwords.setdefault("additions", None)
    stopwords.setdefault("removals", None)
    if stopwords["preset"] not in ("en", "none"):
        raise WeaviateError(f"unknown stopword preset '{stopwords['preset']}'")
    inverted.setdefault("usingBlockMaxWAND", True)
    cls.setdefault("multiTenancyConfig", {"enabled": False, "autoTenantCreation": False, "autoTenantActivation": False})
    cls.setdefault(
        "replicationConfig", {"factor": 1, "asyncEnabled": False, "deletionStrategy": "NoAutomatedResolution"}
    )
    cls.setdefault(
        "shardingConfig",
        {
            "virtualPerPhysical": 128,
            "desiredCount": 1,
            "actualCount": 1,
            "desiredVirtualCount": 128,
            "actualVirtualCount": 128,
            "key": "_id",
            "strategy": "hash",
            "function": "murmur3",
        },
    )
    if "vectorConfig" not in cls:
        cls.setdefault("vectorizer", "none")
        cls.setdefault("vectorIndexType", "hnsw")
        given = cls.get("vectorIndexConfig") or {}
        merged = _default_vector_index_config(given.get("distance", "cosine"))
        merged.update(given)
        cls["vectorIndexConfig"] = merged
        if merged["distance"] not in ("cosine", "dot", "l2-squared"):
            raise WeaviateError(f"unsupported distance '{merged['distance']}' in the fake server")
    cls.setdefault("moduleConfig", {})
    cls["properties"] = [_normalise_property(p) for p in cls.get("properties") or []]
    names = [p["name"] for p in cls["properties"]]
    if len(names) != len(set(names)):
        raise WeaviateError(f"class '{cls['class']}' has duplicate property names")
    return cls


# --------------------------------------------------------------------------- tokenization


def tokenize(text: str, tokenization: str | None) -> list[str]:
    """Weaviate's tokenizers (the ones a fake needs)."""
    if tokenization == "field":
        value = text.strip()
        return [value] if value else []
    if tokenization == "whitespace":
        return text.split()
    if tokenization == "lowercase":
        return text.lower().split()
    # "word" (the default): alphanumeric runs, lower-cased.
    return [t for t in re.split(r"[^\w]|_", text.lower()) if t]


# --------------------------------------------------------------------------- objects


@dataclass
class StoredObject:
    uuid: str
    properties: dict[str, Any]
    vector: np.ndarray | None
    created_ms: int = field(default_factory=lambda: int(time.time() * 1000))
    updated_ms: int = field(default_factory=lambda: int(time.time() * 1000))


@dataclass
class Collection:
    schema: dict
    objects: dict[str, StoredObject] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.schema["class"]

    def prop(self, name: str) -> dict | None:
        for p in self.schema["properties"]:
            if p["name"] == name:
                return p
        return None

    @property
    def distance_metric(self) -> str:
        return (self.schema.get("vectorIndexConfig") or {}).get("distance", "cosine")

    @property
    def bm25_params(self) -> tuple[float, float]:
        bm25 = self.schema["invertedIndexConfig"]["bm25"]
        return float(bm25["k1"]), float(bm25["b"])

    @property
    def stopwords(self) -> frozenset[str]:
        config = self.schema["invertedIndexConfig"]["stopwords"]
        words = set(EN_STOPWORDS if config.get("preset") == "en" else ())
        words |= set(config.get("additions") or [])
        words -= set(config.get("removals") or [])
        return frozenset(words)


def _infer_data_type(value: Any) -> list[str]:
    if isinstance(value, bool):
        return ["boolean"]
    if isinstance(value, int):
        return ["int"]
    if isinstance(value, float):
        return ["number"]
    if isinstance(value, str):
        return ["text"]
    if isinstance(value, list):
        if value and isinstance(value[0], bool):
            return ["boolean[]"]
        if value and isinstance(value[0], (int, float)):
            return ["number[]"]
        return ["text[]"]
    if isinstance(value, dict):
        return ["object"]
    raise WeaviateError(f"cannot infer a data type for {value!r}")


def _check_value(prop: dict, value: Any, class_name: str) -> Any:
    data_type = prop["dataType"][0]
    name = prop["name"]
    if value is None:
        return None
    if data_type in ("text", "string", "uuid", "date", "blob"):
        if not isinstance(value, str):
            raise WeaviateError(
                f"invalid text property '{name}' on class '{class_name}': not a string, but {type(value).__name__}"
            )
        return value
    if data_type in ("int",):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != int(value):
            raise WeaviateError(f"invalid integer property '{name}' on class '{class_name}'")
        return int(value)
    if data_type == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise WeaviateError(f"invalid number property '{name}' on class '{class_name}'")
        return float(value)
    if data_type == "boolean":
        if not isinstance(value, bool):
            raise WeaviateError(f"invalid boolean property '{name}' on class '{class_name}'")
        return value
    if data_type.endswith("[]"):
        if not isinstance(value, list):
            raise WeaviateError(f"invalid {data_type} property '{name}' on class '{class_name}': not a list")
        return list(value)
    return value


# --------------------------------------------------------------------------- filters

# A filter, as the front ends hand it over: {"op": "And"/"Or"/"Not", "filters": [...]} or
# {"op": "Equal", "path": "course_id", "value": "c1"}.
Filter = dict


def _text_tokens(coll: Collection, path: str, value: Any) -> list[str]:
    prop = coll.prop(path)
    tokenization = prop.get("tokenization") if prop else "field"
    if isinstance(value, list):
        return [t for v in value for t in tokenize(str(v), tokenization)]
    return tokenize(str(value), tokenization)


def _object_value(obj: StoredObject, path: str) -> Any:
    if path in ("_id", "id"):
        return obj.uuid
    if path == "_creationTimeUnix":
        return obj.created_ms
    if path == "_lastUpdateTimeUnix":
        return obj.updated_ms
    return obj.properties.get(path)


def _like(pattern: str, value: str) -> bool:
    regex = "^" + re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".") + "$"
    return re.match(regex, value, flags=re.IGNORECASE) is not None


def matches(coll: Collection, obj: StoredObject, flt: Filter | None) -> bool:
    """Whether `obj` passes the filter tree (None passes everything)."""
    if flt is None:
        return True
    op = flt["op"]
    if op == "And":
        return all(matches(coll, obj, f) for f in flt["filters"])
    if op == "Or":
        return any(matches(coll, obj, f) for f in flt["filters"])
    if op == "Not":
        return not any(matches(coll, obj, f) for f in flt["filters"])
    path = flt["path"]
    value = flt["value"]
    if path not in ("_id", "id", "_creationTimeUnix", "_lastUpdateTimeUnix"):
        prop = coll.prop(path)
        if prop is None:
            raise WeaviateError(f"no such prop with name '{path}' found in class '{coll.name}' in the schema")
        if op != "IsNull" and not prop.get("indexFilterable", True) and not prop.get("indexRangeFilters"):
            raise WeaviateError(
                f"Filtering by property '{path}' requires inverted index. Is `indexFilterable` option of property '{path}' enabled?"
            )
    actual = _object_value(obj, path)
    if op == "IsNull":
        return (actual is None) == bool(value)
    if actual is None:
        return op in ("NotEqual", "ContainsNone")
    is_text = isinstance(actual, str) or (isinstance(actual, list) and actual and isinstance(actual[0], str))
    if path in ("_id", "id"):
        have = {str(actual).lower()}
        want = [str(v).lower() for v in (value if isinstance(value, list) else [value])]
    elif is_text:
        have = set(_text_tokens(coll, path, actual))
        want = _text_tokens(coll, path, value)
    else:
        have = set(actual) if isinstance(actual, list) else {actual}
        want = list(value) if isinstance(value, list) else [value]
    if op == "Equal":
        return bool(want) and all(w in have for w in want)
    if op == "NotEqual":
        return not (bool(want) and all(w in have for w in want))
    if op == "ContainsAny":
        return any(w in have for w in want)
    if op == "ContainsAll":
        return all(w in have for w in want)
    if op == "ContainsNone":
        return not any(w in have for w in want)
    if op == "Like":
        values = actual if isinstance(actual, list) else [actual]
        return any(_like(str(value), str(v)) for v in values)
    if op in ("GreaterThan", "GreaterThanEqual", "LessThan", "LessThanEqual"):
        left = actual
        right = value
        if isinstance(left, list) or isinstance(right, list):
            raise WeaviateError(f"operator {op} needs a single value")
        return {
            "GreaterThan": left > right,
            "GreaterThanEqual": left >= right,
            "LessThan": left < right,
            "LessThanEqual": left <= right,
        }[op]
    raise WeaviateError(f"operator {op} is not supported by the fake server", grpc_code="UNIMPLEMENTED")


# --------------------------------------------------------------------------- search results


@dataclass
class Hit:
    obj: StoredObject
    distance: float | None = None
    score: float | None = None
    explain: str | None = None


def _distance(metric: str, query: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    if metric == "cosine":
        qn = query / (np.linalg.norm(query) or 1.0)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        return 1.0 - (vectors @ qn) / norms
    if metric == "dot":
        return -(vectors @ query)
    return ((vectors - query) ** 2).sum(axis=1)


class Database:
    """Every collection of one fake server, behind one lock."""

    def __init__(self, autoschema: bool = True, query_maximum_results: int = 10000):
        self.autoschema = autoschema
        self.query_maximum_results = query_maximum_results
        self.collections: dict[str, Collection] = {}
        self.lock = threading.RLock()
        self.request_log: list[str] = []
        self._batch_faults: list[str] = []
        # Seconds every gRPC call waits before it is answered (a slow or hung server).
        self.delay_s = 0.0

    # -- fault injection (tests) --------------------------------------------------------

    def inject_batch_errors(self, *messages: str) -> None:
        """Make each of the next BatchObjects calls fail every object with the given message."""
        with self.lock:
            self._batch_faults.extend(messages)

    def next_batch_fault(self) -> str | None:
        with self.lock:
            return self._batch_faults.pop(0) if self._batch_faults else None

    # -- schema -------------------------------------------------------------------------

    def _key(self, name: str) -> str:
        return name[:1].upper() + name[1:]

    def get_collection(self, name: str) -> Collection | None:
        return self.collections.get(self._key(name))

    def require_collection(self, name: str) -> Collection:
        coll = self.get_collection(name)
        if coll is None:
            raise WeaviateError(f"could not find class {name} in schema", status=404, grpc_code="NOT_FOUND")
        return coll

    def create_collection(self, body: dict) -> dict:
        with self.lock:
            cls = normalise_class(body)
            if cls["class"] in self.collections:
                raise WeaviateError(f"class name {cls['class']} already exists")
            self.collections[cls["class"]] = Collection(schema=cls)
            return copy.deepcopy(cls)

    def delete_collection(self, name: str) -> None:
        with self.lock:
            self.collections.pop(self._key(name), None)

    def add_property(self, name: str, prop: dict) -> dict:
        with self.lock:
            coll = self.require_collection(name)
            new = _normalise_property(prop)
            if coll.prop(new["name"]) is not None:
                raise WeaviateError(f"property '{new['name']}' already exists in class '{coll.name}'")
            coll.schema["properties"].append(new)
            return copy.deepcopy(new)

    def schema(self) -> dict:
        with self.lock:
            return {"classes": [copy.deepcopy(c.schema) for c in self.collections.values()]}

    # -- writes -------------------------------------------------------------------------

    def put_object(self, class_name: str, uuid: str, properties: dict, vector: np.ndarray | None) -> None:
        """Insert or replace one object (batch semantics); raises WeaviateError per object."""
        with self.lock:
            coll = self.get_collection(class_name)
            if coll is None:
                if not self.autoschema:
                    raise WeaviateError(f"class '{class_name}' not found in schema")
                coll = self.collections.setdefault(
                    self._key(class_name), Collection(schema=normalise_class({"class": class_name}))
                )
            try:
                uuid = str(uuid_lib.UUID(uuid))
            except ValueError as exc:
                raise WeaviateError(f"invalid uuid {uuid!r}") from exc
            checked: dict[str, Any] = {}
            new_props = []
            for name, value in properties.items():
                prop = coll.prop(name)
                if prop is None:
                    if not self.autoschema:
                        raise WeaviateError(
                            f"no such prop with name '{name}' found in class '{coll.name}' in the schema. "
                            "Check your schema files for which properties in this class are available"
                        )
                    if value is None:
                        continue
                    prop = _normalise_property({"name": name, "dataType": _infer_data_type(value)})
                    new_props.append(prop)
                checked[name] = _check_value(prop, value, coll.name)
            if vector is not None:
                vector = np.asarray(vector, dtype=np.float32)
                existing = next((o.vector for o in coll.objects.values() if o.vector is not None), None)
                if existing is not None and existing.shape != vector.shape:
                    raise WeaviateError(
                        f"new node has a vector with length {vector.shape[0]}. Existing nodes have vectors with length {existing.shape[0]}"
                    )
            coll.schema["properties"].extend(new_props)
            old = coll.objects.get(uuid)
            obj = StoredObject(uuid=uuid, properties=checked, vector=vector)
            if old is not None:
                obj.created_ms = old.created_ms
            coll.objects[uuid] = obj

    def delete_where(self, class_name: str, flt: Filter | None, dry_run: bool) -> list[str]:
        """Delete (at most QUERY_MAXIMUM_RESULTS) objects matching `flt`; returns their uuids."""
        with self.lock:
            coll = self.require_collection(class_name)
            if flt is None:
                raise WeaviateError("batch delete needs a filter")
            hits = [o.uuid for o in self._ordered(coll) if matches(coll, o, flt)]
            hits = hits[: self.query_maximum_results]
            if not dry_run:
                for uuid in hits:
                    coll.objects.pop(uuid, None)
            return hits

    # -- reads --------------------------------------------------------------------------

    @staticmethod
    def _ordered(coll: Collection) -> list[StoredObject]:
        return sorted(coll.objects.values(), key=lambda o: uuid_lib.UUID(o.uuid).int)

    def filtered(self, coll: Collection, flt: Filter | None) -> list[StoredObject]:
        return [o for o in self._ordered(coll) if matches(coll, o, flt)]

    def _page(self, hits: list[Hit], offset: int, limit: int) -> list[Hit]:
        limit = limit or DEFAULT_QUERY_LIMIT
        if offset + limit > self.query_maximum_results:
            raise WeaviateError(
                f"query maximum results exceeded: offset ({offset}) + limit ({limit}) > "
                f"QUERY_MAXIMUM_RESULTS ({self.query_maximum_results})"
            )
        return hits[offset : offset + limit]

    def fetch(
        self,
        coll: Collection,
        flt: Filter | None,
        limit: int,
        offset: int = 0,
        after: str = "",
        sort: Iterable[tuple[str, bool]] = (),
    ) -> list[Hit]:
        with self.lock:
            objects = self.filtered(coll, flt)
            if after:
                if flt is not None:
                    raise WeaviateError("a cursor (after) cannot be combined with a where filter")
                pivot = uuid_lib.UUID(after).int
                objects = [o for o in objects if uuid_lib.UUID(o.uuid).int > pivot]
            for path, ascending in reversed(list(sort)):
                objects.sort(
                    key=lambda o: (_object_value(o, path) is None, _object_value(o, path) or ""),
                    reverse=not ascending,
                )
            return self._page([Hit(o) for o in objects], offset, limit)

    def vector_hits(
        self, coll: Collection, flt: Filter | None, vector: np.ndarray, max_distance: float | None = None
    ) -> list[Hit]:
        objects = [o for o in self.filtered(coll, flt) if o.vector is not None]
        if not objects:
            return []
        matrix = np.vstack([o.vector for o in objects])
        if matrix.shape[1] != vector.shape[0]:
            raise WeaviateError(
                f"vector search: knn search: search layer at level 0: could not compute distance: "
                f"vector lengths don't match: {matrix.shape[1]} vs {vector.shape[0]}"
            )
        distances = _distance(coll.distance_metric, np.asarray(vector, dtype=np.float32), matrix)
        order = np.argsort(distances, kind="stable")
        hits = [Hit(objects[i], distance=float(distances[i])) for i in order]
        if max_distance is not None:
            hits = [h for h in hits if h.distance <= max_distance]
        return hits

    def near_vector(
        self,
        coll: Collection,
        flt: Filter | None,
        vector: np.ndarray,
        limit: int,
        offset: int = 0,
        distance: float | None = None,
        certainty: float | None = None,
    ) -> list[Hit]:
        with self.lock:
            max_distance = distance
            if certainty is not None:
                max_distance = (1.0 - certainty) * 2.0
            return self._page(self.vector_hits(coll, flt, vector, max_distance), offset, limit)

    def _searchable_properties(self, coll: Collection, requested: list[str]) -> list[tuple[str, float]]:
        out = []
        if requested:
            for spec in requested:
                name, _, boost = spec.partition("^")
                prop = coll.prop(name)
                if prop is None:
                    raise WeaviateError(f"property '{name}' not found in class '{coll.name}'")
                if not prop.get("indexSearchable"):
                    raise WeaviateError(f"property '{name}' is not indexed for searching: set indexSearchable to true")
                out.append((name, float(boost) if boost else 1.0))
        else:
            out = [
                (p["name"], 1.0)
                for p in coll.schema["properties"]
                if p.get("indexSearchable") and p["dataType"][0] in ("text", "text[]")
            ]
        return out

    def bm25_hits(self, coll: Collection, flt: Filter | None, query: str, properties: list[str]) -> list[Hit]:
        """BM25 over the whole collection's statistics, then restricted to the filter."""
        k1, b = coll.bm25_params
        stop = coll.stopwords
        everything = list(coll.objects.values())
        allowed = {o.uuid for o in self.filtered(coll, flt)}
        scores: dict[str, float] = {}
        explain: dict[str, list[str]] = {}
        for name, boost in self._searchable_properties(coll, properties):
            tokenization = coll.prop(name).get("tokenization")
            query_terms = [t for t in dict.fromkeys(tokenize(query, tokenization)) if t not in stop]
            if not query_terms:
                continue
            docs: dict[str, list[str]] = {}
            for obj in everything:
                value = obj.properties.get(name)
                if value is None:
                    continue
                text = " ".join(value) if isinstance(value, list) else str(value)
                docs[obj.uuid] = tokenize(text, tokenization)
            n_docs = len(docs)
            if n_docs == 0:
                continue
            avgdl = sum(len(t) for t in docs.values()) / n_docs or 1.0
            counts = {uuid: _counter(tokens) for uuid, tokens in docs.items()}
            for term in query_terms:
                df = sum(1 for c in counts.values() if term in c)
                if df == 0:
                    continue
                idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
                for uuid, c in counts.items():
                    tf = c.get(term, 0)
                    if tf == 0 or uuid not in allowed:
                        continue
                    dl = len(docs[uuid])
                    part = boost * idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl))
                    scores[uuid] = scores.get(uuid, 0.0) + part
                    explain.setdefault(uuid, []).append(f"BM25F_{term}_frequency:{tf}, BM25F_{term}_propLength:{dl}")
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], uuid_lib.UUID(kv[0]).int))
        return [
            Hit(coll.objects[uuid], score=float(score), explain=", ".join(explain[uuid]))
            for uuid, score in ranked
            if score > 0
        ]

    def bm25(
        self, coll: Collection, flt: Filter | None, query: str, properties: list[str], limit: int, offset: int = 0
    ) -> list[Hit]:
        with self.lock:
            return self._page(self.bm25_hits(coll, flt, query, properties), offset, limit)

    def hybrid(
        self,
        coll: Collection,
        flt: Filter | None,
        query: str,
        vector: np.ndarray | None,
        alpha: float,
        properties: list[str],
        fusion: str,
        limit: int,
        offset: int = 0,
        max_vector_distance: float | None = None,
    ) -> list[Hit]:
        """Weaviate's hybrid: a keyword and a vector sub-search fused with weights (1-alpha, alpha)."""
        with self.lock:
            # Each sub-search returns at most max(limit, 100) results, as Weaviate's default
            # hybrid sub-search limit does.
            depth = max((limit or DEFAULT_QUERY_LIMIT) + offset, 100)
            sets: list[tuple[float, list[tuple[StoredObject, float]], str]] = []
            if alpha < 1.0 and query:
                keyword = self.bm25_hits(coll, flt, query, properties)[:depth]
                sets.append((1.0 - alpha, [(h.obj, h.score) for h in keyword], "keyword,bm25"))
            if alpha > 0.0:
                if vector is None:
                    raise WeaviateError(
                        "hybrid: no vector given and the collection has no vectorizer (vectorizer: none)"
                    )
                vec = self.vector_hits(coll, flt, vector, max_vector_distance)[:depth]
                sets.append((alpha, [(h.obj, 1.0 - h.distance) for h in vec], "vector,nearVector"))
            fused: dict[str, float] = {}
            objects: dict[str, StoredObject] = {}
            explain: dict[str, list[str]] = {}
            for weight, results, label in sets:
                if not results:
                    continue
                values = [s for _, s in results]
                high, low = max(values), min(values)
                for rank, (obj, raw) in enumerate(results):
                    if fusion == "ranked":
                        part = weight / (rank + 60.0)
                    elif high == low:
                        part = weight
                    else:
                        part = weight * (raw - low) / (high - low)
                    fused[obj.uuid] = fused.get(obj.uuid, 0.0) + part
                    objects[obj.uuid] = obj
                    explain.setdefault(obj.uuid, []).append(
                        f"(Result Set {label}) Document {obj.uuid}: original score {raw}, normalized score: {part}"
                    )
            ranked = sorted(fused.items(), key=lambda kv: (-kv[1], uuid_lib.UUID(kv[0]).int))
            hits = [Hit(objects[u], score=float(s), explain=" - ".join(explain[u])) for u, s in ranked]
            return self._page(hits, offset, limit)

    def aggregate(
        self,
        coll: Collection,
        flt: Filter | None,
        group_by: str | None,
        group_limit: int | None,
    ) -> list[tuple[Any, list[StoredObject]]]:
        """Groups of matching objects: [(group value or None, objects)]."""
        with self.lock:
            objects = self.filtered(coll, flt)
            if group_by is None:
                return [(None, objects)]
            prop = coll.prop(group_by)
            if prop is None:
                raise WeaviateError(f"no such prop with name '{group_by}' found in class '{coll.name}'")
            groups: dict[Any, list[StoredObject]] = {}
            for obj in objects:
                value = obj.properties.get(group_by)
                if value is None:
                    continue
                for v in value if isinstance(value, list) else [value]:
                    groups.setdefault(v, []).append(obj)
            ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))
            if group_limit:
                ordered = ordered[:group_limit]
            return ordered


def _counter(tokens: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in tokens:
        out[t] = out.get(t, 0) + 1
    return out


def top_occurrences(objects: list[StoredObject], prop: str, limit: int) -> tuple[int, list[tuple[str, int]]]:
    """(count of values, [(value, occurrences)] most frequent first) of a text property."""
    counts: dict[str, int] = {}
    total = 0
    for obj in objects:
        value = obj.properties.get(prop)
        if value is None:
            continue
        for v in value if isinstance(value, list) else [value]:
            counts[str(v)] = counts.get(str(v), 0) + 1
            total += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return total, ranked[: limit or 5]
