"""Writing objects with weaviate-client's batch API: groups, retries, and telling a
retryable rejection apart from a wrong object.

One `send_batch` call is one BatchObjects request: `fixed_size(batch_size=len(objects))`
sends as soon as the last object is queued (dynamic batching waits up to a second for
more). The objects the server rejected come back as `failed_objects`, each with the
server's message as its only description, so whether a rejection is worth retrying can
only be read from that message: `is_transient_batch_error`, the one place that does so.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from courserag.errors import StoreUnavailableError
from courserag.stores.weaviate.client import deadline_passed, short
from courserag.stores.weaviate.schema import WeaviateObject

logger = logging.getLogger(__name__)

# Objects per batch request.
INSERT_GROUP = 100
# Write attempts per group; the pauses between them (seconds).
INSERT_ATTEMPTS = 3
RETRY_PAUSES = (0.5, 1.5)

# Words in a rejected object's message that mean "try again" rather than "this object is
# wrong": timeouts, an unreachable or restarting shard, a read-only or overloaded node.
TRANSIENT_WORDS = (
    "timeout",
    "timed out",
    "deadline",
    "unavailable",
    "temporarily",
    "connection",
    "reset",
    "not ready",
    "read-only",
    "readonly",
    "429",
    "502",
    "503",
    "504",
    "too many",
)


def is_transient_batch_error(message: str) -> bool:
    """Whether the server's message for a rejected object means the write may succeed if
    retried (Weaviate reports per-object batch errors only as text)."""
    lowered = message.lower()
    return any(word in lowered for word in TRANSIENT_WORDS)


def send_batch(collection: Any, objects: Sequence[WeaviateObject]) -> list[str]:
    """Write `objects` to `collection` in one request; the messages of those rejected."""
    with collection.batch.fixed_size(batch_size=len(objects), concurrent_requests=1) as batch:
        for obj in objects:
            batch.add_object(properties=obj.properties, uuid=obj.uuid, vector=obj.vector)
    return [str(error.message) for error in collection.batch.failed_objects]


@dataclass(frozen=True)
class WriteContext:
    """What an insert is writing, for its error messages."""

    url: str
    course_id: str
    source: str


def insert_in_groups(
    send: Callable[[list[WeaviateObject]], list[str]], objects: Sequence[WeaviateObject], context: WriteContext
) -> None:
    """send() every object, INSERT_GROUP at a time, retrying a group whose failure may pass.

    `send(group)` writes one group under its deadline and returns the messages of the
    rejected objects, or raises StoreUnavailableError. A group is tried INSERT_ATTEMPTS
    times, unless a call ran past its deadline (Weaviate is down: retrying only makes the
    caller wait) or an object was rejected for a reason that will not pass.
    """
    where = f"{context.source!r} of course {context.course_id!r}"
    for start in range(0, len(objects), INSERT_GROUP):
        group = list(objects[start : start + INSERT_GROUP])
        for attempt in range(INSERT_ATTEMPTS):
            last = attempt == INSERT_ATTEMPTS - 1
            try:
                errors = send(group)
            except StoreUnavailableError as exc:
                if last or deadline_passed(exc):
                    raise StoreUnavailableError(f"cannot index {where}: {exc}") from exc
                logger.warning("indexing %s failed, retrying: %s", where, exc)
                time.sleep(RETRY_PAUSES[attempt])
                continue
            if not errors:
                break
            if last or not all(is_transient_batch_error(e) for e in errors):
                raise StoreUnavailableError(
                    f"Weaviate at {context.url} rejected {len(errors)} of {len(group)} chunks of {context.source!r} "
                    f"(course {context.course_id!r}): {short(errors[0])}"
                )
            logger.warning("Weaviate rejected %d chunks of %s, retrying: %s", len(errors), where, short(errors[0]))
            time.sleep(RETRY_PAUSES[attempt])
