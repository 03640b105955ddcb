"""The gRPC half of the fake Weaviate server: `weaviate.v1.Weaviate` plus the health check.

It uses the protobuf modules the installed weaviate-client itself picks at runtime
(`weaviate.proto.v1`, which selects v4216/v5261/v6300 by the protobuf version), so the wire
format is exactly what the client sends and parses.

Implemented RPCs: Search (fetch with filters/sort/offset/after, near_vector, bm25, hybrid),
BatchObjects, BatchDelete, Aggregate (objects count, text metrics, group by a property)
and grpc.health.v1.Health/Check. BatchReferences, BatchStream and TenantsGet answer
UNIMPLEMENTED, as do search features a course store never uses (group_by, generative,
rerank, near_text/near_object/media).
"""

from __future__ import annotations

import struct
import time
import uuid as uuid_lib
from concurrent import futures
from typing import Any

import grpc
import numpy as np
from google.protobuf.json_format import MessageToDict
from weaviate.proto.v1 import (
    aggregate_pb2,
    base_pb2,
    base_search_pb2,
    batch_delete_pb2,
    batch_pb2,
    health_weaviate_pb2,
    properties_pb2,
    search_get_pb2,
    weaviate_pb2_grpc,
)

from .state import Collection, Database, Filter, Hit, WeaviateError, top_occurrences

_F = base_pb2.Filters
_OPERATORS = {
    _F.OPERATOR_EQUAL: "Equal",
    _F.OPERATOR_NOT_EQUAL: "NotEqual",
    _F.OPERATOR_GREATER_THAN: "GreaterThan",
    _F.OPERATOR_GREATER_THAN_EQUAL: "GreaterThanEqual",
    _F.OPERATOR_LESS_THAN: "LessThan",
    _F.OPERATOR_LESS_THAN_EQUAL: "LessThanEqual",
    _F.OPERATOR_AND: "And",
    _F.OPERATOR_OR: "Or",
    _F.OPERATOR_NOT: "Not",
    _F.OPERATOR_LIKE: "Like",
    _F.OPERATOR_IS_NULL: "IsNull",
    _F.OPERATOR_CONTAINS_ANY: "ContainsAny",
    _F.OPERATOR_CONTAINS_ALL: "ContainsAll",
    _F.OPERATOR_CONTAINS_NONE: "ContainsNone",
}


def filter_from_proto(flt: base_pb2.Filters) -> Filter:
    """The wire filter as the plain dict `state.matches` evaluates."""
    op = _OPERATORS.get(flt.operator)
    if op is None:
        raise WeaviateError(
            f"filter operator {flt.operator} is not supported by the fake server", grpc_code="UNIMPLEMENTED"
        )
    if op in ("And", "Or", "Not"):
        return {"op": op, "filters": [filter_from_proto(f) for f in flt.filters]}
    if flt.HasField("target"):
        if flt.target.WhichOneof("target") != "property":
            raise WeaviateError("reference filters are not supported by the fake server", grpc_code="UNIMPLEMENTED")
        path = flt.target.property
    elif flt.on:
        path = flt.on[0]
    else:
        raise WeaviateError("filter without a target property")
    which = flt.WhichOneof("test_value")
    if which is None:
        raise WeaviateError(f"filter on '{path}' has no value")
    raw = getattr(flt, which)
    if which in ("value_text_array", "value_int_array", "value_boolean_array", "value_number_array"):
        value: Any = list(raw.values)
    elif which == "value_geo":
        raise WeaviateError("geo filters are not supported by the fake server", grpc_code="UNIMPLEMENTED")
    else:
        value = raw
    return {"op": op, "path": path, "value": value}


def _vector_from(vector_bytes: bytes, floats, vectors) -> np.ndarray | None:
    if vector_bytes:
        return np.frombuffer(vector_bytes, dtype="<f4").astype(np.float32)
    if len(floats):
        return np.asarray(list(floats), dtype=np.float32)
    if len(vectors):
        if len(vectors) > 1 or vectors[0].type == base_pb2.Vectors.VECTOR_TYPE_MULTI_FP32:
            raise WeaviateError(
                "multi-vectors and several named vectors are not supported by the fake server",
                grpc_code="UNIMPLEMENTED",
            )
        return np.frombuffer(vectors[0].vector_bytes, dtype="<f4").astype(np.float32)
    return None


def _near_vector(nv: base_search_pb2.NearVector) -> np.ndarray:
    vec = _vector_from(nv.vector_bytes, nv.vector, nv.vectors)
    if vec is None and len(nv.vector_for_targets):
        target = nv.vector_for_targets[0]
        vec = _vector_from(target.vector_bytes, [], target.vectors)
    if vec is None:
        raise WeaviateError("near_vector without a vector")
    return vec


def _properties_from_batch(props: batch_pb2.BatchObject.Properties) -> dict[str, Any]:
    out: dict[str, Any] = MessageToDict(props.non_ref_properties) if props.HasField("non_ref_properties") else {}
    for arr in props.text_array_properties:
        out[arr.prop_name] = list(arr.values)
    for arr in props.int_array_properties:
        out[arr.prop_name] = [int(v) for v in arr.values]
    for arr in props.boolean_array_properties:
        out[arr.prop_name] = list(arr.values)
    for arr in props.number_array_properties:
        if arr.values_bytes:
            out[arr.prop_name] = list(np.frombuffer(arr.values_bytes, dtype="<f8").astype(float))
        else:
            out[arr.prop_name] = list(arr.values)
    for name in props.empty_list_props:
        out[name] = []
    if len(props.object_properties) or len(props.object_array_properties):
        raise WeaviateError("object properties are not supported by the fake server")
    if len(props.single_target_ref_props) or len(props.multi_target_ref_props):
        raise WeaviateError("references are not supported by the fake server")
    return out


def _value_to_proto(data_type: str, value: Any) -> properties_pb2.Value:
    if value is None:
        return properties_pb2.Value(null_value=0)
    if data_type == "date":
        return properties_pb2.Value(date_value=str(value))
    if data_type == "uuid":
        return properties_pb2.Value(uuid_value=str(value))
    if isinstance(value, bool):
        return properties_pb2.Value(bool_value=value)
    if isinstance(value, int) and data_type == "int":
        return properties_pb2.Value(int_value=value)
    if isinstance(value, (int, float)):
        return properties_pb2.Value(number_value=float(value))
    if isinstance(value, str):
        return properties_pb2.Value(text_value=value)
    if isinstance(value, list):
        if data_type in ("text[]", "string[]"):
            lv = properties_pb2.ListValue(text_values=properties_pb2.TextValues(values=[str(v) for v in value]))
        elif data_type == "int[]":
            lv = properties_pb2.ListValue(
                int_values=properties_pb2.IntValues(values=struct.pack(f"<{len(value)}q", *value))
            )
        elif data_type == "number[]":
            lv = properties_pb2.ListValue(
                number_values=properties_pb2.NumberValues(values=struct.pack(f"<{len(value)}d", *value))
            )
        elif data_type == "boolean[]":
            lv = properties_pb2.ListValue(bool_values=properties_pb2.BoolValues(values=value))
        else:
            lv = properties_pb2.ListValue(text_values=properties_pb2.TextValues(values=[str(v) for v in value]))
        return properties_pb2.Value(list_value=lv)
    raise WeaviateError(f"cannot serialise {value!r}")


def _result(coll: Collection, hit: Hit, request: search_get_pb2.SearchRequest) -> search_get_pb2.SearchResult:
    obj = hit.obj
    if not request.HasField("properties") or request.properties.return_all_nonref_properties:
        names = list(obj.properties)
    else:
        names = [n for n in request.properties.non_ref_properties if n in obj.properties]
        if len(request.properties.ref_properties) or len(request.properties.object_properties):
            raise WeaviateError(
                "references and nested properties are not supported by the fake server", grpc_code="UNIMPLEMENTED"
            )
    fields = {}
    for name in names:
        prop = coll.prop(name)
        fields[name] = _value_to_proto(prop["dataType"][0] if prop else "text", obj.properties[name])
    props = search_get_pb2.PropertiesResult(
        non_ref_props=properties_pb2.Properties(fields=fields),
        target_collection=coll.name,
    )
    meta = search_get_pb2.MetadataResult(id=obj.uuid, id_as_bytes=uuid_lib.UUID(obj.uuid).bytes)
    wanted = request.metadata if request.HasField("metadata") else search_get_pb2.MetadataRequest()
    if wanted.vector and obj.vector is not None:
        meta.vector_bytes = obj.vector.astype("<f4").tobytes()
    if wanted.creation_time_unix:
        meta.creation_time_unix = obj.created_ms
        meta.creation_time_unix_present = True
    if wanted.last_update_time_unix:
        meta.last_update_time_unix = obj.updated_ms
        meta.last_update_time_unix_present = True
    if hit.distance is not None:
        if wanted.distance:
            meta.distance = hit.distance
            meta.distance_present = True
        if wanted.certainty and coll.distance_metric == "cosine":
            meta.certainty = 1.0 - hit.distance / 2.0
            meta.certainty_present = True
    if hit.score is not None and wanted.score:
        meta.score = hit.score
        meta.score_present = True
    if hit.explain is not None and wanted.explain_score:
        meta.explain_score = hit.explain
        meta.explain_score_present = True
    if wanted.is_consistent:
        meta.is_consistent = True
        meta.is_consistent_present = True
    return search_get_pb2.SearchResult(properties=props, metadata=meta)


class WeaviateServicer(weaviate_pb2_grpc.WeaviateServicer):
    """weaviate.v1.Weaviate over the shared in-memory Database."""

    def __init__(self, db: Database):
        self.db = db

    def _wait(self) -> None:
        if self.db.delay_s > 0:
            time.sleep(self.db.delay_s)

    def _abort(self, context: grpc.ServicerContext, exc: WeaviateError):
        context.abort(getattr(grpc.StatusCode, exc.grpc_code, grpc.StatusCode.UNKNOWN), exc.message)

    # -- Search -------------------------------------------------------------------------

    def Search(self, request: search_get_pb2.SearchRequest, context):
        kinds = [k for k in ("near_vector", "bm25_search", "hybrid_search") if request.HasField(k)]
        self.db.request_log.append("gRPC Search " + (",".join(kinds) or "fetch"))
        self._wait()
        start = time.perf_counter()
        try:
            for unsupported in (
                "group_by",
                "generative",
                "rerank",
                "near_object",
                "near_text",
                "near_image",
                "near_audio",
                "near_video",
                "near_depth",
                "near_thermal",
                "near_imu",
                "boost",
            ):
                if request.HasField(unsupported):
                    raise WeaviateError(f"{unsupported} is not supported by the fake server", grpc_code="UNIMPLEMENTED")
            if request.tenant:
                raise WeaviateError(
                    f"class {request.collection} has multi-tenancy disabled, but request was with tenant"
                )
            coll = self.db.require_collection(request.collection)
            flt = filter_from_proto(request.filters) if request.HasField("filters") else None
            limit, offset = request.limit, request.offset
            if request.HasField("near_vector"):
                nv = request.near_vector
                hits = self.db.near_vector(
                    coll,
                    flt,
                    _near_vector(nv),
                    limit,
                    offset,
                    distance=nv.distance if nv.HasField("distance") else None,
                    certainty=nv.certainty if nv.HasField("certainty") else None,
                )
            elif request.HasField("bm25_search"):
                bm = request.bm25_search
                hits = self.db.bm25(coll, flt, bm.query, list(bm.properties), limit, offset)
            elif request.HasField("hybrid_search"):
                h = request.hybrid_search
                vector = _vector_from(h.vector_bytes, h.vector, h.vectors)
                if vector is None and h.HasField("near_vector"):
                    vector = _near_vector(h.near_vector)
                if h.HasField("near_text"):
                    raise WeaviateError("hybrid near_text needs a vectorizer", grpc_code="UNIMPLEMENTED")
                alpha = h.alpha_param if h.use_alpha_param and h.HasField("alpha_param") else h.alpha
                fusion = "ranked" if h.fusion_type == base_search_pb2.Hybrid.FUSION_TYPE_RANKED else "relative"
                hits = self.db.hybrid(
                    coll,
                    flt,
                    h.query,
                    vector,
                    float(alpha),
                    list(h.properties),
                    fusion,
                    limit,
                    offset,
                    max_vector_distance=h.vector_distance if h.HasField("vector_distance") else None,
                )
            else:
                sort = [(".".join(s.path), s.ascending) for s in request.sort_by]
                hits = self.db.fetch(coll, flt, limit, offset, request.after, sort)
            with self.db.lock:
                results = [_result(coll, hit, request) for hit in hits]
        except WeaviateError as exc:
            self._abort(context, exc)
        return search_get_pb2.SearchReply(took=time.perf_counter() - start, results=results)

    # -- writes -------------------------------------------------------------------------

    def BatchObjects(self, request: batch_pb2.BatchObjectsRequest, context):
        self.db.request_log.append(f"gRPC BatchObjects {len(request.objects)}")
        self._wait()
        start = time.perf_counter()
        errors = []
        injected = self.db.next_batch_fault()
        for index, obj in enumerate(request.objects):
            try:
                if injected is not None:
                    raise WeaviateError(injected)
                if obj.tenant:
                    raise WeaviateError(
                        f"class {obj.collection} has multi-tenancy disabled, but request was with tenant"
                    )
                properties = _properties_from_batch(obj.properties) if obj.HasField("properties") else {}
                vector = _vector_from(obj.vector_bytes, obj.vector, obj.vectors)
                self.db.put_object(obj.collection, obj.uuid or str(uuid_lib.uuid4()), properties, vector)
            except WeaviateError as exc:
                errors.append(batch_pb2.BatchObjectsReply.BatchError(index=index, error=exc.message))
        return batch_pb2.BatchObjectsReply(took=time.perf_counter() - start, errors=errors)

    def BatchDelete(self, request: batch_delete_pb2.BatchDeleteRequest, context):
        self.db.request_log.append("gRPC BatchDelete")
        self._wait()
        start = time.perf_counter()
        try:
            if request.tenant:
                raise WeaviateError(
                    f"class {request.collection} has multi-tenancy disabled, but request was with tenant"
                )
            flt = filter_from_proto(request.filters) if request.HasField("filters") else None
            uuids = self.db.delete_where(request.collection, flt, request.dry_run)
        except WeaviateError as exc:
            self._abort(context, exc)
        objects = (
            [
                batch_delete_pb2.BatchDeleteObject(uuid=uuid_lib.UUID(u).bytes, successful=not request.dry_run)
                for u in uuids
            ]
            if request.verbose
            else []
        )
        return batch_delete_pb2.BatchDeleteReply(
            took=time.perf_counter() - start,
            failed=0,
            matches=len(uuids),
            successful=0 if request.dry_run else len(uuids),
            objects=objects,
        )

    # -- Aggregate ----------------------------------------------------------------------

    def Aggregate(self, request: aggregate_pb2.AggregateRequest, context):
        self.db.request_log.append("gRPC Aggregate")
        self._wait()
        start = time.perf_counter()
        A = aggregate_pb2.AggregateReply
        try:
            if request.WhichOneof("search") is not None:
                raise WeaviateError(
                    "aggregations with a search are not supported by the fake server", grpc_code="UNIMPLEMENTED"
                )
            if request.tenant:
                raise WeaviateError(
                    f"class {request.collection} has multi-tenancy disabled, but request was with tenant"
                )
            coll = self.db.require_collection(request.collection)
            flt = filter_from_proto(request.filters) if request.HasField("filters") else None
            metrics = []
            for agg in request.aggregations:
                if agg.WhichOneof("aggregation") != "text":
                    raise WeaviateError("only text metrics are supported by the fake server", grpc_code="UNIMPLEMENTED")
                if coll.prop(agg.property) is None:
                    raise WeaviateError(f"no such prop with name '{agg.property}' found in class '{coll.name}'")
                limit = agg.text.top_occurences_limit if agg.text.HasField("top_occurences_limit") else 5
                metrics.append((agg, limit))
            group_prop = request.group_by.property if request.HasField("group_by") else None
            groups = self.db.aggregate(coll, flt, group_prop, request.limit if request.HasField("limit") else None)

            def aggregations(objects) -> A.Aggregations:
                out = []
                for agg, limit in metrics:
                    count, top = top_occurrences(objects, agg.property, limit)
                    text = A.Aggregations.Aggregation.Text()
                    if agg.text.count:
                        text.count = count
                    if agg.text.type:
                        text.type = "text"
                    if agg.text.top_occurences:
                        text.top_occurences.CopyFrom(
                            A.Aggregations.Aggregation.Text.TopOccurrences(
                                items=[
                                    A.Aggregations.Aggregation.Text.TopOccurrences.TopOccurrence(value=v, occurs=n)
                                    for v, n in top
                                ]
                            )
                        )
                    out.append(A.Aggregations.Aggregation(property=agg.property, text=text))
                return A.Aggregations(aggregations=out)

            if group_prop is None:
                _, objects = groups[0]
                single = A.Single(aggregations=aggregations(objects))
                if request.objects_count:
                    single.objects_count = len(objects)
                return A(took=time.perf_counter() - start, single_result=single)
            out_groups = []
            for value, objects in groups:
                group = A.Group(
                    aggregations=aggregations(objects),
                    grouped_by=A.Group.GroupedBy(path=[group_prop], text=str(value)),
                )
                if request.objects_count:
                    group.objects_count = len(objects)
                out_groups.append(group)
            return A(took=time.perf_counter() - start, grouped_results=A.Grouped(groups=out_groups))
        except WeaviateError as exc:
            self._abort(context, exc)


class _AuthInterceptor(grpc.ServerInterceptor):
    """UNAUTHENTICATED unless the call carries `authorization: Bearer <api key>`."""

    def __init__(self, api_key: str):
        self._expected = f"Bearer {api_key}"

        def deny(request, context):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "unauthorized: invalid api key")

        self._deny = grpc.unary_unary_rpc_method_handler(deny)

    def intercept_service(self, continuation, handler_call_details):
        if handler_call_details.method.startswith("/grpc.health."):
            return continuation(handler_call_details)
        metadata = dict(handler_call_details.invocation_metadata or ())
        if metadata.get("authorization") != self._expected:
            return self._deny
        return continuation(handler_call_details)


def _health_handler() -> grpc.GenericRpcHandler:
    def check(request, context):
        return health_weaviate_pb2.WeaviateHealthCheckResponse(
            status=health_weaviate_pb2.WeaviateHealthCheckResponse.SERVING
        )

    return grpc.method_handlers_generic_handler(
        "grpc.health.v1.Health",
        {
            "Check": grpc.unary_unary_rpc_method_handler(
                check,
                request_deserializer=health_weaviate_pb2.WeaviateHealthCheckRequest.FromString,
                response_serializer=health_weaviate_pb2.WeaviateHealthCheckResponse.SerializeToString,
            )
        },
    )


class GrpcServer:
    """A running gRPC server on 127.0.0.1 (port 0 picks a free port)."""

    def __init__(self, db: Database, api_key: str | None, port: int = 0):
        interceptors = [_AuthInterceptor(api_key)] if api_key is not None else []
        self._server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="fake-weaviate-grpc"),
            interceptors=interceptors,
            options=[
                ("grpc.so_reuseport", 0),
                ("grpc.max_receive_message_length", 104858000),
                ("grpc.max_send_message_length", 104858000),
            ],
        )
        weaviate_pb2_grpc.add_WeaviateServicer_to_server(WeaviateServicer(db), self._server)
        self._server.add_generic_rpc_handlers((_health_handler(),))
        self.port = self._server.add_insecure_port(f"127.0.0.1:{port}")
        if self.port == 0:
            raise OSError(f"cannot bind the fake gRPC server to 127.0.0.1:{port}")
        self._server.start()

    def stop(self) -> None:
        self._server.stop(grace=None).wait(5)
