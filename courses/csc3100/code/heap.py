"""CSC3100 Week 4 — a binary min-heap implemented on top of a Python list.

A binary heap is a complete binary tree stored level by level in an array:

* the root is at index 0;
* the children of the node at index ``i`` are at ``2 * i + 1`` and ``2 * i + 2``;
* the parent of the node at index ``i`` (for ``i > 0``) is at ``(i - 1) // 2``.

The *min-heap property* says that every node's key is less than or equal to the keys of its
children, so the smallest key is always at the root.

Running times for a heap holding ``n`` keys:

================  ============
operation         time
================  ============
``peek``          O(1)
``push``          O(log n)
``pop``           O(log n)
``heapify``       O(n)
``heapsort``      O(n log n)
================  ============

Run ``python heap.py`` to see a short demonstration.
"""

from __future__ import annotations

from typing import Any, Iterable, List


class MinHeap:
    """A binary min-heap of comparable keys (numbers, strings, tuples, ...).

    Duplicate keys are allowed. Keys must support ``<``; tuples such as
    ``(priority, item)`` are a common way to store items with a priority.
    """

    def __init__(self, items: Iterable[Any] = ()) -> None:
        """Create a heap, optionally from an iterable of keys (built in O(n) time)."""
        self._data: List[Any] = list(items)
        if self._data:
            self._heapify()

    # ------------------------------------------------------------------
    # Index arithmetic for the implicit tree stored in self._data.
    # ------------------------------------------------------------------
    @staticmethod
    def _parent(i: int) -> int:
        return (i - 1) // 2

    @staticmethod
    def _left(i: int) -> int:
        return 2 * i + 1

    @staticmethod
    def _right(i: int) -> int:
        return 2 * i + 2

    # ------------------------------------------------------------------
    # Public operations.
    # ------------------------------------------------------------------
    def __len__(self) -> int:
        """Number of keys in the heap."""
        return len(self._data)

    def is_empty(self) -> bool:
        """True if the heap holds no keys."""
        return not self._data

    def peek(self) -> Any:
        """Return the smallest key without removing it. O(1).

        Raises IndexError if the heap is empty.
        """
        if not self._data:
            raise IndexError("peek from an empty heap")
        return self._data[0]

    def push(self, key: Any) -> None:
        """Insert ``key`` in O(log n) time.

        The new key is appended at the end of the array (the next free leaf position, which
        keeps the tree complete) and then moved up until its parent is not larger.
        """
        self._data.append(key)
        self._sift_up(len(self._data) - 1)

    def pop(self) -> Any:
        """Remove and return the smallest key in O(log n) time.

        The last leaf replaces the root, and is then moved down (sift-down) until both of its
        children are not smaller. Raises IndexError if the heap is empty.
        """
        if not self._data:
            raise IndexError("pop from an empty heap")
        last = self._data.pop()  # remove the last leaf: O(1)
        if not self._data:  # the heap had exactly one key
            return last
        smallest = self._data[0]
        self._data[0] = last  # move the last leaf to the root ...
        self._sift_down(0)  # ... and restore the heap property
        return smallest

    def pushpop(self, key: Any) -> Any:
        """Push ``key`` and then pop the smallest key, faster than push() + pop().

        If ``key`` is not larger than the root, it would be popped straight away, so it is
        returned without touching the heap.
        """
        if self._data and self._data[0] < key:
            key, self._data[0] = self._data[0], key
            self._sift_down(0)
        return key

    # ------------------------------------------------------------------
    # Helpers that restore the heap property.
    # ------------------------------------------------------------------
    def _sift_up(self, i: int) -> None:
        """Move the key at index ``i`` up while it is smaller than its parent.

        At most one swap per level, so O(log n) swaps in total.
        """
        data = self._data
        while i > 0:
            parent = self._parent(i)
            if data[i] < data[parent]:
                data[i], data[parent] = data[parent], data[i]
                i = parent
            else:
                break  # heap property holds: stop early

    def _sift_down(self, i: int) -> None:
        """Move the key at index ``i`` down while a child is smaller than it.

        At each level the key is swapped with its *smaller* child; swapping with the larger
        child would put the larger key above the smaller one and break the heap property.
        """
        data = self._data
        n = len(data)
        while True:
            left, right = self._left(i), self._right(i)
            smallest = i
            if left < n and data[left] < data[smallest]:
                smallest = left
            if right < n and data[right] < data[smallest]:
                smallest = right
            if smallest == i:
                return  # both children are >= data[i]
            data[i], data[smallest] = data[smallest], data[i]
            i = smallest

    def _heapify(self) -> None:
        """Bottom-up heap construction (Floyd's method) in O(n) time.

        Leaves (indices n // 2 .. n - 1) are already heaps, so we sift down every internal
        node from the last one up to the root. Most nodes are near the bottom and move only
        a short distance, which is why the total work is O(n) and not O(n log n).
        """
        for i in range(len(self._data) // 2 - 1, -1, -1):
            self._sift_down(i)

    def is_valid(self) -> bool:
        """Check the min-heap property for every parent/child pair (used in tests)."""
        data = self._data
        return all(data[self._parent(i)] <= data[i] for i in range(1, len(data)))

    def __repr__(self) -> str:
        return f"MinHeap({self._data!r})"


def heapsort(items: Iterable[Any]) -> List[Any]:
    """Return a new list with the keys of ``items`` in ascending order.

    Builds a heap in O(n) and pops n times, O(n log n) in total. Heapsort is *not* stable:
    equal keys may come out in a different order from the one they went in.
    """
    heap = MinHeap(items)
    return [heap.pop() for _ in range(len(heap))]


if __name__ == "__main__":
    h = MinHeap()
    for key in [15, 9, 21, 4, 12, 7]:
        h.push(key)
        print(f"push({key:2d}) -> array {h._data}")
    print("peek():", h.peek())
    print("pop():", h.pop(), "-> array", h._data)
    print("valid heap:", h.is_valid())
    print("heapsort([5, 3, 8, 1, 9, 2]):", heapsort([5, 3, 8, 1, 9, 2]))
