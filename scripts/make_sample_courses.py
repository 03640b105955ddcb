#!/usr/bin/env python3
"""Generate the binary files of the two sample courses shipped in ``courses/``.

The text of every generated file is held in this script, so the files can be rebuilt
(and reviewed) from source. Re-running the script reproduces byte-identical files: PDF
creation dates and ZIP member timestamps are fixed, and notebook JSON is written with
sorted keys.

Generated files
---------------
courses/csc3100/lectures/week03_hashing.pdf     6 pages  (fpdf2, core font Helvetica)
courses/csc3100/lectures/week05_trees.docx      Heading 1 / Heading 2 sections
courses/csc3100/slides/week07_graphs.pptx       9 slides
courses/csc3100/notebooks/sorting_lab.ipynb     nbformat 4, outputs computed by running it
courses/csc3100/announcements.txt               UTF-8 *with* BOM
courses/ds2010/讲义/第3周_线性回归.pdf           5 pages  (fpdf2, embedded CJK font subset)
courses/ds2010/讲义/第5周_分类.docx
courses/ds2010/幻灯片/第7周_聚类.pptx            9 slides
courses/ds2010/代码/数据清洗.ipynb
courses/ds2010/通知_gbk.txt                      GB18030 (every character is also valid GBK)

The Markdown and Python files of the courses (syllabus, homework, heap.py, kmeans.py) are
ordinary source files in the repository and are not touched by this script.

The Chinese PDF needs a CJK TrueType font. The script looks for, in order, the path in the
environment variable ``COURSERAG_CJK_FONT`` and a few Debian font paths
(``apt-get install fonts-wqy-microhei`` provides the first one).

Usage::

    python scripts/make_sample_courses.py            # (re)generate the files
    python scripts/make_sample_courses.py --verify   # generate, then re-open and check them
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: docgen lives at the project root

import docgen  # noqa: E402

COURSES = ROOT / "courses"
EN = COURSES / "csc3100"
ZH = COURSES / "ds2010"

FIXED_DATETIME = dt.datetime(2026, 8, 24, 9, 0, 0, tzinfo=dt.timezone.utc)


def dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


# ======================================================================================
# Content: CSC3100 Week 3 lecture notes (PDF). One page per sub-topic.
# Element kinds: ("h", heading) ("p", paragraph) ("b", bullet) ("code", monospace lines)
# ======================================================================================

HASHING_TITLE = "CSC3100 Data Structures - Week 3 Lecture Notes: Hashing"

HASHING_PAGES = [
    [
        ("h", "1. Hash Tables and Hash Functions"),
        (
            "p",
            "A hash table stores key-value pairs in an array of m slots (also called buckets). "
            "A hash function h maps every key k to a slot index h(k) between 0 and m - 1. If the "
            "keys are spread evenly over the slots, insert, search and delete take O(1) expected "
            "time, compared with O(log n) for a balanced binary search tree (Week 5).",
        ),
        ("p", "A good hash function has three properties:"),
        ("b", "Deterministic: the same key always produces the same index."),
        ("b", "Fast: computing h(k) takes O(1) time for fixed-size keys and O(L) time for a string of length L."),
        ("b", "Uniform: keys are spread evenly, so that each slot receives about n/m of the n keys."),
        (
            "p",
            "When two different keys hash to the same slot we have a collision. Collisions cannot "
            "be avoided when there are more possible keys than slots (pigeonhole principle), so "
            "every hash table needs a collision-resolution strategy: separate chaining (page 2) "
            "or open addressing (page 3).",
        ),
        (
            "p",
            "Division method: h(k) = k mod m. Choose m to be a prime number that is not close to "
            "a power of 2. If m = 2^p, then h(k) is just the lowest p bits of k, and keys that "
            "differ only in their high-order bits all collide.",
        ),
        (
            "p",
            "Multiplication method: h(k) = floor(m * (k * A mod 1)) with a constant 0 < A < 1. "
            "Knuth suggests A = (sqrt(5) - 1) / 2, approximately 0.6180339887. The choice of m is "
            "not critical for this method, so m is usually a power of 2.",
        ),
        (
            "p",
            "Hashing strings: treat the characters as the coefficients of a polynomial, "
            "h(s) = (s[0]*31^(L-1) + s[1]*31^(L-2) + ... + s[L-1]) mod m, and evaluate it with "
            "Horner's rule in O(L) time. Java's String.hashCode() uses the base 31. Python "
            "randomizes string hashes in every process (see PYTHONHASHSEED) to make hash-flooding "
            "attacks harder (page 5).",
        ),
        (
            "p",
            "Example: with m = 11 and the division method, the keys 22, 7, 35 and 18 hash to the "
            "slots 0, 7, 2 and 7. The keys 7 and 18 collide in slot 7.",
        ),
    ],
    [
        ("h", "2. Collision Resolution by Separate Chaining"),
        (
            "p",
            "In separate chaining, each slot of the table holds a linked list (a chain) of all the "
            "entries whose keys hash to that slot.",
        ),
        (
            "b",
            "Insert(k, v): compute h(k) and add the entry at the front of chain h(k). This is O(1) "
            "if we know the key is new; checking for an existing key first costs the length of "
            "the chain.",
        ),
        ("b", "Search(k): compute h(k) and scan chain h(k) from the front."),
        ("b", "Delete(k): search for k, then unlink its node; O(1) after the search with a doubly linked list."),
        (
            "p",
            "Analysis. Under simple uniform hashing (every key is equally likely to hash to any "
            "slot, independently of the other keys) the expected length of a chain is the load "
            "factor alpha = n/m. An unsuccessful search therefore takes Theta(1 + alpha) expected "
            "time, and a successful search also takes Theta(1 + alpha) expected time. If the "
            "number of slots m grows in proportion to n, alpha is O(1) and every operation takes "
            "O(1) expected time.",
        ),
        (
            "p",
            "Worst case. If all n keys hash to the same slot, the table degenerates into one "
            "linked list and a search takes Theta(n) time.",
        ),
        (
            "p",
            "Chaining keeps working when alpha > 1 (more keys than slots); performance degrades "
            "gradually instead of failing. Java 8's HashMap goes one step further: when a single "
            "chain grows beyond 8 entries (and the table has at least 64 slots) the chain is "
            "converted into a red-black tree, which bounds the worst-case search in that bucket by "
            "O(log n).",
        ),
        ("p", "Example (continued from page 1, m = 11, new entries inserted at the front):"),
        ("code", "slot 0 : 22\nslot 2 : 35\nslot 7 : 18 -> 7\nall other slots are empty"),
        (
            "p",
            "Memory: each entry needs an extra pointer for its list node. Chains of small nodes "
            "are spread over memory, so chaining is less cache-friendly than open addressing.",
        ),
    ],
    [
        ("h", "3. Open Addressing"),
        (
            "p",
            "In open addressing every entry is stored in the table array itself; there are no "
            "lists, so the load factor alpha must stay below 1. To insert a key we examine (probe) "
            "the slots h(k, 0), h(k, 1), h(k, 2), ... until an empty slot is found. A search "
            "follows the same probe sequence and stops, unsuccessfully, at the first empty slot.",
        ),
        (
            "p",
            "Linear probing: h(k, i) = (h'(k) + i) mod m. It is simple and cache-friendly, but "
            "suffers from primary clustering: long runs of occupied slots form, and any key that "
            "hashes into a run makes the run even longer.",
        ),
        (
            "p",
            "Quadratic probing: h(k, i) = (h'(k) + c1*i + c2*i^2) mod m. It avoids primary "
            "clustering, but keys with the same initial slot follow the same sequence (secondary "
            "clustering). With m prime and the probe (h'(k) + i^2) mod m, an empty slot is always "
            "found as long as the table is at most half full.",
        ),
        (
            "p",
            "Double hashing: h(k, i) = (h1(k) + i * h2(k)) mod m. The step h2(k) must never be 0 "
            "and must be relatively prime to m, so that the probe sequence can reach every slot. "
            "A standard choice is m prime and h2(k) = 1 + (k mod (m - 1)). Double hashing comes "
            "closest to ideal uniform hashing of the three methods.",
        ),
        (
            "p",
            "Deletion. We cannot simply empty a slot: that would cut the probe sequence of every "
            "key inserted after it, and those keys would no longer be found. Instead the slot is "
            "marked with a special DELETED marker, called a tombstone. Searches skip over "
            "tombstones; insertions may reuse them. Many tombstones make searches slow, so they "
            "are discarded when the table is rebuilt (page 4).",
        ),
        ("p", "Expected number of probes under uniform hashing with load factor alpha < 1:"),
        ("b", "unsuccessful search (and insertion): at most 1 / (1 - alpha);"),
        ("b", "successful search: at most (1 / alpha) * ln(1 / (1 - alpha))."),
        (
            "p",
            "For example, at alpha = 0.5 an unsuccessful search needs at most 2 probes on average, "
            "but at alpha = 0.9 it needs up to 10.",
        ),
        (
            "p",
            "Example: with m = 11 and linear probing, inserting 22, 7, 35, 18 stores 22 in slot 0, "
            "7 in slot 7 and 35 in slot 2; key 18 hashes to the occupied slot 7, probes slot 8, "
            "and is stored there.",
        ),
    ],
    [
        ("h", "4. Load Factor and Rehashing"),
        (
            "p",
            "The load factor alpha = n / m (n keys stored in m slots) is the main parameter that "
            "controls the speed of a hash table. As alpha grows, chains get longer (chaining) or "
            "probe sequences get longer (open addressing).",
        ),
        (
            "p",
            "In this course, and in the reference implementation used for HW2, the default maximum "
            "load factor before rehashing is 0.75. When an insertion would make alpha exceed 0.75, "
            "the table is rehashed before the new key is added. For open addressing we recommend a "
            "lower maximum load factor of 0.5, because the expected number of probes, "
            "1 / (1 - alpha), grows quickly as alpha approaches 1.",
        ),
        ("p", "Rehashing works in three steps:"),
        (
            "b",
            "Allocate a new table with about twice as many slots. With the division method, use "
            "the smallest prime that is at least 2m.",
        ),
        (
            "b",
            "Re-insert every key with the new hash function. The keys cannot be copied to the "
            "same indices, because h(k) depends on m and m has changed. Tombstones are dropped.",
        ),
        ("b", "Discard the old table."),
        (
            "p",
            "Cost. One rehash takes Theta(n + m) time. Because the capacity doubles each time, the "
            "total cost of all rehashes during n insertions is O(n), so the amortized cost of an "
            "insertion is still O(1). This is the same argument as for dynamic arrays in Week 2.",
        ),
        (
            "p",
            "Worked example: a table with m = 8 slots and maximum load factor 0.75 can hold 6 keys "
            "(alpha = 6/8 = 0.75). Inserting the 7th key would give alpha = 7/8 = 0.875 > 0.75, "
            "so the table first grows to 16 slots (or to 17, the next prime, with the division "
            "method) and all 6 keys are re-inserted.",
        ),
        (
            "p",
            "Real libraries: Java's HashMap starts with a capacity of 16 and a load factor of 0.75, "
            "so its resize threshold is 16 * 0.75 = 12 and inserting the 13th entry doubles the "
            "capacity to 32. CPython's dict resizes when it becomes two-thirds full.",
        ),
        (
            "p",
            "Shrinking. After many deletions a table may be halved when alpha falls below 0.25. "
            "The shrink threshold is deliberately much lower than the grow threshold: if both were "
            "close, alternating inserts and deletes near the threshold would trigger a costly "
            "rehash on every operation (thrashing).",
        ),
    ],
    [
        ("h", "5. Universal Hashing"),
        (
            "p",
            "Problem. Any fixed hash function has bad inputs: an adversary who knows h can choose n "
            "keys that all land in the same slot, so every operation costs Theta(n). Such "
            "hash-flooding attacks were used against web servers that stored request parameters in "
            "hash tables.",
        ),
        (
            "p",
            "Idea. Choose the hash function at random from a carefully designed family H when the "
            "table is created. The running time is then random because of our choice of function, "
            "not because of the input, so no single input is bad for most functions.",
        ),
        (
            "p",
            "Definition. A family H of hash functions from the key universe U to {0, 1, ..., m - 1} "
            "is universal if, for every pair of distinct keys x and y, at most |H| / m functions "
            "in H satisfy h(x) = h(y). Equivalently, Pr[h(x) = h(y)] <= 1/m when h is chosen "
            "uniformly at random from H.",
        ),
        (
            "p",
            "Theorem. With chaining and h chosen from a universal family, the expected length of "
            "the chain that contains a key k is at most 1 + alpha if k is in the table, and at "
            "most alpha if it is not. Hence every operation takes O(1 + alpha) expected time for "
            "any input sequence.",
        ),
        (
            "p",
            "Carter-Wegman construction (1979). Choose a prime p larger than every possible key. "
            "For a in {1, ..., p - 1} and b in {0, ..., p - 1} define",
        ),
        ("code", "h_ab(k) = ((a * k + b) mod p) mod m"),
        (
            "p",
            "The family of all p(p - 1) such functions is universal. Picking a hash function means "
            "picking a and b at random, which takes O(1) time.",
        ),
        (
            "p",
            "Example: p = 17, m = 6, a = 5, b = 2 and key k = 9: a*k + b = 47, 47 mod 17 = 13, and "
            "13 mod 6 = 1, so h(9) = 1.",
        ),
        (
            "p",
            "In practice, Python hashes str and bytes objects with SipHash, a keyed hash function "
            "whose secret key is chosen at random when the interpreter starts. This is the same "
            "idea: an attacker who does not know the key cannot construct colliding inputs.",
        ),
    ],
    [
        ("h", "6. Summary and Practice Questions"),
        (
            "p",
            "Running times for a dictionary holding n keys (expected time for hash tables with a bounded load factor):",
        ),
        (
            "code",
            "operation    chaining        open addressing    balanced BST\n"
            "search       O(1) expected   O(1) expected      O(log n) worst case\n"
            "insert       O(1) amortized  O(1) amortized     O(log n) worst case\n"
            "delete       O(1) expected   O(1) (tombstone)   O(log n) worst case\n"
            "worst case   O(n)            O(n)               O(log n)\n"
            "sorted order no              no                 yes, in-order traversal",
        ),
        (
            "p",
            "When to choose a balanced search tree instead of a hash table: when you need the keys "
            "in sorted order, range queries (all keys between a and b), the minimum or maximum "
            "key, or a guaranteed worst-case bound instead of an expected one.",
        ),
        ("p", "Key facts to remember:"),
        (
            "b",
            "Load factor alpha = n / m; the default maximum load factor before rehashing is 0.75 "
            "(0.5 recommended for open addressing).",
        ),
        (
            "b",
            "Chaining: expected search time Theta(1 + alpha). Open addressing: at most "
            "1 / (1 - alpha) expected probes for an unsuccessful search.",
        ),
        ("b", "Deleting from an open-addressing table uses tombstones, not empty slots."),
        (
            "b",
            "Universal hashing: Pr[h(x) = h(y)] <= 1/m for distinct keys, which gives O(1 + alpha) "
            "expected time for every input.",
        ),
        ("p", "Practice questions (not graded):"),
        (
            "b",
            "Q1. Insert 10, 22, 31, 4, 15, 28, 17, 88, 59 into a table with m = 11 using linear "
            "probing and h(k) = k mod 11. Show the final table.",
        ),
        ("b", "Q2. Repeat Q1 with double hashing, h2(k) = 1 + (k mod 10)."),
        (
            "b",
            "Q3. Explain why m = 1024 is a poor choice for the division method when the keys are "
            "memory addresses that are multiples of 8.",
        ),
        (
            "p",
            "HW2 (hash tables) is due on Friday 2026-10-02 at 23:59. It asks you to implement a "
            "chaining hash table with rehashing at load factor 0.75.",
        ),
    ],
]

# ======================================================================================
# Content: CSC3100 Week 5 lecture notes (DOCX)
# Element kinds: ("title", t) ("h1", t) ("h2", t) ("p", t) ("b", t) ("n", numbered item)
#                ("grid", [header_row, row, ...]) (a table with a bold header row)
# ======================================================================================

TREES_DOC = [
    ("title", "CSC3100 Week 5 Lecture Notes: Search Trees"),
    (
        "p",
        "Instructor: Dr. Elena Marsh. These notes cover binary search trees, AVL trees, red-black "
        "trees and B-trees. All four store keys in sorted order and support search, insert and "
        "delete; they differ in how they keep the tree height small. HW3 (due Friday 2026-10-16) "
        "is based on this material.",
    ),
    ("h1", "1. Binary Search Trees"),
    ("h2", "1.1 The BST property"),
    (
        "p",
        "A binary search tree (BST) is a binary tree in which every node x stores a key, and for "
        "every node x all keys in the left subtree of x are smaller than x.key and all keys in "
        "the right subtree of x are larger than x.key. (We assume distinct keys; duplicates can "
        "be stored in a counter field.) An in-order traversal (left subtree, node, right subtree) "
        "therefore visits the keys in sorted order in O(n) time.",
    ),
    ("h2", "1.2 Search, insertion and deletion"),
    (
        "p",
        "Search starts at the root and moves to the left child if the key is smaller than the "
        "current key, and to the right child if it is larger, until the key is found or an empty "
        "subtree is reached. Insertion performs the same search and attaches the new key as a leaf "
        "where the search ended.",
    ),
    ("p", "Deletion of a node z has three cases:"),
    ("n", "z is a leaf: remove it."),
    ("n", "z has one child: splice z out by linking its parent directly to its child."),
    (
        "n",
        "z has two children: replace the key of z with the key of its in-order successor (the "
        "minimum of the right subtree of z), and then delete the successor node, which has no "
        "left child and is therefore handled by case 1 or 2.",
    ),
    ("h2", "1.3 Why the height matters"),
    (
        "p",
        "Search, insertion and deletion all take O(h) time, where h is the height of the tree. "
        "The height is between floor(log2 n) and n - 1. Inserting the keys 1, 2, ..., n in "
        "increasing order produces a degenerate tree that is a single path of height n - 1, so "
        "every operation becomes O(n). If the keys arrive in random order, the expected height is "
        "O(log n), but we cannot rely on the input order. Balanced search trees (AVL, red-black, "
        "B-trees) guarantee a height of O(log n) in the worst case.",
    ),
    ("h1", "2. AVL Trees"),
    ("h2", "2.1 Balance factor and height bound"),
    (
        "p",
        "AVL trees were introduced by Adelson-Velsky and Landis in 1962 and were the first "
        "self-balancing binary search trees. The balance factor of a node is height(left subtree) "
        "- height(right subtree), where an empty tree has height -1 and a single node has height "
        "0. The AVL invariant requires the balance factor of every node to be -1, 0 or +1.",
    ),
    (
        "p",
        "Let N(h) be the minimum number of nodes in an AVL tree of height h. Then N(0) = 1, "
        "N(1) = 2 and N(h) = N(h - 1) + N(h - 2) + 1, a Fibonacci-like recurrence. It follows that "
        "the height of an AVL tree with n nodes is at most about 1.44 log2(n + 2), so search, "
        "insertion and deletion take O(log n) time in the worst case.",
    ),
    ("h2", "2.2 Rotations"),
    (
        "p",
        "After inserting a key as in an ordinary BST, walk back up towards the root and update "
        "the heights. Let z be the first (lowest) node whose balance factor becomes +2 or -2. "
        "There are four cases, named by the first two steps of the path from z down to the new "
        "key:",
    ),
    ("b", "LL case (the key went into the left subtree of z's left child): one right rotation at z."),
    ("b", "RR case (right subtree of z's right child): one left rotation at z."),
    (
        "b",
        "LR case (right subtree of z's left child): a left rotation at z's left child, followed "
        "by a right rotation at z (a double rotation).",
    ),
    (
        "b",
        "RL case (left subtree of z's right child): a right rotation at z's right child, followed "
        "by a left rotation at z.",
    ),
    (
        "p",
        "A rotation changes a constant number of pointers, so it takes O(1) time, and it preserves "
        "the BST order (the in-order sequence of keys does not change). After an insertion, a "
        "single rebalancing step (one single or one double rotation) at z restores the balance of "
        "the whole tree. A deletion may need a rotation at every level on the path to the root, "
        "that is, O(log n) rotations.",
    ),
    ("h2", "2.3 Example"),
    (
        "p",
        "Insert 3, 2, 1 into an empty AVL tree. After inserting 1, node 3 has balance factor +2 "
        "and the new key lies in the left subtree of its left child: the LL case. One right "
        "rotation at 3 makes 2 the root, with 1 as its left child and 3 as its right child. "
        "Inserting 1, 3, 2 instead gives the RL case at node 1 and needs a double rotation.",
    ),
    ("h1", "3. Red-Black Trees"),
    ("h2", "3.1 The five red-black properties"),
    (
        "p",
        "A red-black tree is a binary search tree with one extra bit per node, its colour, that "
        "satisfies five properties:",
    ),
    ("n", "Every node is either red or black."),
    ("n", "The root is black."),
    ("n", "Every leaf (NIL sentinel) is black."),
    ("n", "If a node is red, then both of its children are black (no two red nodes in a row)."),
    (
        "n",
        "For every node, all simple paths from the node down to descendant leaves contain the "
        "same number of black nodes. This number is the black-height bh(x) of the node.",
    ),
    ("h2", "3.2 Height guarantee"),
    (
        "p",
        "A red-black tree with n internal nodes has height at most 2 log2(n + 1). Proof idea: by "
        "induction, the subtree rooted at any node x contains at least 2^bh(x) - 1 internal "
        "nodes. By property 4, at least half of the nodes on any path from the root to a leaf are "
        "black, so bh(root) >= h/2. Therefore n >= 2^(h/2) - 1, which gives h <= 2 log2(n + 1).",
    ),
    ("h2", "3.3 Insertion and fix-up"),
    (
        "p",
        "A new node is inserted as in a BST and coloured red, which keeps property 5. The "
        "insertion can only violate property 2 (the new node is the root) or property 4 (its "
        "parent is red). The fix-up looks at the uncle (the sibling of the parent):",
    ),
    (
        "b",
        "Uncle red: recolour the parent and the uncle black and the grandparent red, then repeat "
        "the check at the grandparent. This moves the problem two levels up.",
    ),
    (
        "b",
        "Uncle black: perform one or two rotations at the grandparent and recolour; the tree is "
        "then valid and the fix-up stops.",
    ),
    (
        "p",
        "Insertion therefore performs at most 2 rotations and deletion at most 3 rotations; both "
        "take O(log n) time including the recolouring.",
    ),
    ("h2", "3.4 AVL trees versus red-black trees"),
    (
        "p",
        "AVL trees are more strictly balanced (height at most about 1.44 log2 n, versus "
        "2 log2(n + 1) for red-black trees), so lookups are slightly faster. Red-black trees do "
        "fewer rotations per update, which makes them popular in libraries: Java's TreeMap and "
        "the typical implementation of C++ std::map are red-black trees, and the Linux kernel uses "
        "red-black trees in its CPU scheduler.",
    ),
    (
        "grid",
        [
            ["Property", "AVL tree", "Red-black tree"],
            ["Height bound", "about 1.44 log2(n + 2)", "2 log2(n + 1)"],
            ["Rotations per insertion", "at most 1 (single or double)", "at most 2"],
            ["Rotations per deletion", "O(log n)", "at most 3"],
            ["Best for", "lookup-heavy workloads", "update-heavy workloads"],
        ],
    ),
    ("h1", "4. B-Trees"),
    ("h2", "4.1 Definition"),
    (
        "p",
        "A B-tree is a balanced search tree whose nodes hold many keys. We use the minimum degree "
        "t >= 2 (the convention of Cormen et al.):",
    ),
    ("b", "every node other than the root has at least t - 1 keys and at most 2t - 1 keys;"),
    ("b", "the root of a non-empty tree has at least 1 key;"),
    (
        "b",
        "an internal node with k keys has exactly k + 1 children, and its sorted keys separate "
        "the key ranges of the children;",
    ),
    ("b", "all leaves have the same depth."),
    ("p", "A 2-3-4 tree is a B-tree with t = 2: every node has 2, 3 or 4 children."),
    ("h2", "4.2 Search and height"),
    (
        "p",
        "To search, find the position of the key inside the current node (binary search over at "
        "most 2t - 1 keys) and descend into the matching child. A B-tree with n keys has height "
        "h <= log_t((n + 1) / 2), so a search reads O(log_t n) nodes, and the largest number of "
        "keys a tree of height h can hold is (2t)^(h + 1) - 1.",
    ),
    ("h2", "4.3 Insertion with node splitting"),
    (
        "p",
        "New keys are always inserted into a leaf. A full node (2t - 1 keys) is split around its "
        "median key: the median moves up into the parent, and the t - 1 keys on each side become "
        "two separate nodes. The single-pass (proactive) insertion algorithm splits every full "
        "node it meets on the way down from the root, so the parent of a node being split always "
        "has room for the median. The tree grows in height only when the root splits; B-trees "
        "grow at the top, while ordinary BSTs grow at the bottom.",
    ),
    ("h2", "4.4 Why databases use B-trees"),
    (
        "p",
        "Disks and SSDs read whole blocks (pages of, for example, 4 KB or 16 KB) at a time. A "
        "B-tree node is sized to fill one block, so it can hold hundreds of keys. With t = 500, a "
        "tree of height 2 (three levels) can store about one billion keys, and because the root "
        "is usually cached in memory, a lookup needs only about two block reads. A red-black "
        "tree with the same number of keys would have height at least 30 and could need 30 or "
        "more block reads. Databases such as PostgreSQL and MySQL (InnoDB) and many file systems use the "
        "B+ tree variant, in which all records live in the leaves and the leaves are linked "
        "together for fast range scans.",
    ),
    ("h1", "5. Summary"),
    (
        "grid",
        [
            ["Structure", "Search (worst case)", "Insert (worst case)", "Typical use"],
            ["Unbalanced BST", "O(n)", "O(n)", "teaching; random inputs"],
            ["AVL tree", "O(log n)", "O(log n)", "in-memory, lookup-heavy"],
            ["Red-black tree", "O(log n)", "O(log n)", "language libraries (TreeMap, std::map)"],
            ["B-tree / B+ tree", "O(log n)", "O(log n)", "databases and file systems on disk"],
        ],
    ),
    ("p", "Reading: Cormen et al., Introduction to Algorithms, 4th edition, chapters 12, 13 and 18."),
]

# ======================================================================================
# Content: CSC3100 Week 7 slides (PPTX). (title, [bullets], notes); "  " prefix = level 1.
# ======================================================================================

GRAPHS_TITLE = ("CSC3100 Week 7: Graph Algorithms", "Dr. Rafael Okoye - Data Structures, Fall 2026")

GRAPHS_SLIDES = [
    (
        "Graph representations",
        [
            "A graph G = (V, E) has a set of vertices V and a set of edges E",
            "Adjacency list: for each vertex, a list of its neighbours; O(V + E) space",
            "Adjacency matrix: V x V table of 0/1 (or weights); O(V^2) space",
            "Edge test (u, v): O(1) with a matrix, O(deg(u)) with a list",
            "Use adjacency lists for sparse graphs (E much smaller than V^2), the usual case",
            "All running times on the following slides assume adjacency lists",
        ],
        "Ask the class: which representation does a road map need? Sparse, so lists.",
    ),
    (
        "Breadth-first search (BFS)",
        [
            "Explores the graph in layers: first all vertices at distance 1 from the source s, then "
            "distance 2, and so on",
            "Uses a FIFO queue; a vertex is marked when it is discovered, so it is enqueued only once",
            "Running time O(V + E)",
            "Finds shortest paths measured in number of edges (unweighted graphs)",
            "Parent pointers form the BFS tree; follow them back from v to recover a shortest path",
            "Applications: bipartiteness test, connected components, web crawling",
        ],
        "Trace BFS on the 8-vertex example graph from vertex A on the whiteboard.",
    ),
    (
        "Depth-first search (DFS)",
        [
            "Goes as deep as possible along each branch before backtracking",
            "Uses recursion or an explicit stack; running time O(V + E)",
            "Records a discovery time and a finish time for every vertex",
            "Classifies edges as tree, back, forward or cross edges",
            "A directed graph has a cycle if and only if DFS finds a back edge",
            "Applications: cycle detection, topological sort, strongly connected components (Kosaraju, Tarjan)",
        ],
        "Recursion depth can reach V; for very large graphs use an explicit stack in Python.",
    ),
    (
        "Dijkstra's algorithm",
        [
            "Single-source shortest paths when all edge weights are non-negative",
            "Greedy: repeatedly extract the vertex u with the smallest tentative distance d[u] from a "
            "min-priority queue (the binary heap from Week 4)",
            "Relax each edge (u, v): if d[u] + w(u, v) < d[v], set d[v] = d[u] + w(u, v) and parent[v] = u",
            "Running time O((V + E) log V) with a binary heap; O(E + V log V) with a Fibonacci heap",
            "Gives wrong answers if some edge weight is negative",
            "  With negative weights use Bellman-Ford: O(V E), and it also detects negative cycles",
        ],
        "Common exam mistake: running Dijkstra on a graph with a negative edge.",
    ),
    (
        "Topological sort",
        [
            "A linear order of the vertices such that for every edge (u, v), u comes before v",
            "Exists if and only if the graph is a directed acyclic graph (DAG)",
            "Kahn's algorithm: repeatedly remove a vertex with in-degree 0 (keep them in a queue) and "
            "decrease the in-degrees of its neighbours",
            "  If some vertices are never removed, the graph contains a cycle",
            "DFS method: output the vertices in decreasing order of finish time (reverse postorder)",
            "Both methods run in O(V + E)",
            "Example: course prerequisites, MAT-2040 and CSC1001 must come before CSC3100",
        ],
        "A DAG can have many valid topological orders.",
    ),
    (
        "Minimum spanning trees: Kruskal and Prim",
        [
            "MST of a connected, undirected, weighted graph: V - 1 edges connecting all vertices with "
            "minimum total weight",
            "Cut property: the lightest edge crossing any cut belongs to some MST",
            "Kruskal: sort the edges by weight; add an edge if its endpoints are in different "
            "components (checked with union-find); O(E log E)",
            "Prim: grow a single tree from a start vertex; repeatedly add the cheapest edge leaving the "
            "tree, using a min-heap; O(E log V)",
            "Kruskal suits sparse graphs; Prim with an array (O(V^2)) suits dense graphs",
            "If all edge weights are distinct, the MST is unique",
        ],
        "Both algorithms are greedy and both are justified by the cut property.",
    ),
    (
        "Union-find (disjoint-set union)",
        [
            "Maintains a partition of elements into disjoint sets, each stored as a tree",
            "make_set(x); find(x) returns the representative (root) of x's set; union(x, y) merges two sets",
            "Union by rank: attach the root of the shorter tree under the root of the taller tree",
            "Path compression: during find, make every node on the path point directly to the root",
            "With both heuristics, m operations take O(m alpha(n)) time",
            "  alpha(n) is the inverse Ackermann function: at most 4 for any practical n",
            "Kruskal uses find(u) == find(v) to test whether edge (u, v) would create a cycle",
        ],
        "Union-find returns in Week 10 with the amortized analysis.",
    ),
    (
        "Summary: complexity at a glance",
        [
            "BFS and DFS: O(V + E)",
            "Dijkstra (binary heap): O((V + E) log V); Bellman-Ford: O(V E)",
            "Topological sort (Kahn or DFS): O(V + E)",
            "Kruskal: O(E log E); Prim (binary heap): O(E log V)",
            "Union-find with rank and path compression: O(alpha(n)) amortized per operation",
            "HW4 (graph algorithms) is due on Friday 2026-11-06 at 23:59",
            "The midterm on Tuesday 2026-10-20 does not cover graphs",
        ],
        "Next week: midterm on Tuesday, graph problem-solving session on Thursday.",
    ),
]

# ======================================================================================
# Content: CSC3100 sorting lab notebook. ("md", text) or ("code", source); code cells are
# executed in order by this script and their printed output is stored in the notebook.
# ======================================================================================

SORTING_NOTEBOOK = [
    (
        "md",
        """
        # CSC3100 Week 6 Lab: Merge Sort and Quicksort

        In this lab we implement two O(n log n) sorting algorithms, count how many key
        comparisons they make, and look at an important property of sorting algorithms:
        **stability**.

        Run the cells from top to bottom. The random generator is seeded, so you should see
        exactly the outputs stored in this notebook.
        """,
    ),
    (
        "md",
        """
        ## 1. Merge sort

        Merge sort is a divide-and-conquer algorithm:

        1. **Divide** the list into two halves.
        2. **Conquer**: sort each half recursively.
        3. **Combine**: merge the two sorted halves into one sorted list.

        Merging two sorted lists with a total of n elements takes at most n - 1 comparisons, so
        the running time satisfies T(n) = 2T(n/2) + Theta(n), which gives **Theta(n log n) in the
        best, average and worst case**. The standard array version needs O(n) extra memory for
        merging.
        """,
    ),
    (
        "code",
        """
        import random

        comparisons = 0  # global counter of key comparisons


        def merge(left, right, key):
            \"\"\"Merge two sorted lists. Ties are taken from `left` first (this makes it stable).\"\"\"
            global comparisons
            result = []
            i = j = 0
            while i < len(left) and j < len(right):
                comparisons += 1
                if key(left[i]) <= key(right[j]):   # '<=' keeps equal keys in input order
                    result.append(left[i])
                    i += 1
                else:
                    result.append(right[j])
                    j += 1
            result.extend(left[i:])    # at most one of these two is non-empty
            result.extend(right[j:])
            return result


        def merge_sort(items, key=lambda x: x):
            \"\"\"Return a new sorted list (stable, Theta(n log n) time, O(n) extra memory).\"\"\"
            if len(items) <= 1:
                return list(items)
            mid = len(items) // 2
            return merge(merge_sort(items[:mid], key), merge_sort(items[mid:], key), key)
        """,
    ),
    (
        "code",
        """
        data = [38, 27, 43, 3, 9, 82, 10]
        comparisons = 0
        print("sorted:", merge_sort(data))
        print("comparisons:", comparisons)
        """,
    ),
    (
        "md",
        """
        ## 2. Why merge sort is stable

        A sorting algorithm is **stable** if records with equal keys appear in the output in the
        same relative order as in the input. Stability matters when we sort by several keys one
        after another, for example first by name and then by grade: a stable sort by grade keeps
        students with the same grade in alphabetical order.

        Merge sort is stable because of one detail in `merge`: when the two front elements have
        **equal keys** (`key(left[i]) <= key(right[j])`), we take the element from the **left**
        half first. Every element of the left half came before every element of the right half in
        the input, so equal keys never overtake each other. If we wrote `<` instead of `<=`,
        merge sort would still sort correctly but would no longer be stable.

        Python's built-in `sorted()` and `list.sort()` (Timsort, a merge sort variant) are also
        stable.
        """,
    ),
    (
        "code",
        """
        students = [("Chen", 85), ("Adams", 92), ("Baker", 85), ("Diaz", 78), ("Evans", 92)]
        by_grade = merge_sort(students, key=lambda s: s[1])
        for name, grade in by_grade:
            print(grade, name)
        """,
    ),
    (
        "md",
        """
        ## 3. Quicksort

        Quicksort picks a **pivot**, partitions the list into elements smaller than the pivot and
        elements not smaller than it, and sorts both parts recursively. We use the Lomuto
        partition scheme with a **random pivot**.

        * Expected running time: **O(n log n)** for every input (about 1.39 n log2 n comparisons).
        * Worst case: **O(n^2)**, when the pivot is always the smallest or largest element, for
          example when the first element is used as pivot on an already sorted list.
        * It sorts **in place** (O(log n) expected stack depth) and is usually faster than merge
          sort in practice, but it is **not stable**.
        """,
    ),
    (
        "code",
        """
        rng = random.Random(3100)


        def quicksort(a, lo=0, hi=None, key=lambda x: x, random_pivot=True):
            \"\"\"Sort list `a` in place between indices lo and hi (inclusive).\"\"\"
            global comparisons
            if hi is None:
                hi = len(a) - 1
            if lo >= hi:
                return
            if random_pivot:
                p = rng.randint(lo, hi)
                a[p], a[hi] = a[hi], a[p]          # move the pivot to the end
            else:
                a[lo], a[hi] = a[hi], a[lo]        # first element as pivot
            pivot = key(a[hi])
            i = lo                                 # a[lo:i] holds keys < pivot
            for j in range(lo, hi):
                comparisons += 1
                if key(a[j]) < pivot:
                    a[i], a[j] = a[j], a[i]
                    i += 1
            a[i], a[hi] = a[hi], a[i]              # pivot goes to its final position i
            quicksort(a, lo, i - 1, key, random_pivot)
            quicksort(a, i + 1, hi, key, random_pivot)
        """,
    ),
    (
        "code",
        """
        values = [rng.randint(0, 10_000) for _ in range(1000)]

        comparisons = 0
        merged = merge_sort(values)
        print(f"merge sort, n=1000 random:            {comparisons:6d} comparisons")

        comparisons = 0
        quick = values[:]
        quicksort(quick)
        print(f"quicksort (random pivot), n=1000:     {comparisons:6d} comparisons")
        assert merged == quick == sorted(values)

        comparisons = 0
        already_sorted = list(range(300))
        quicksort(already_sorted, random_pivot=False)
        print(f"quicksort (first pivot), sorted n=300: {comparisons:6d} comparisons = 300*299/2")
        """,
    ),
    (
        "code",
        """
        records = [(2, "a"), (1, "b"), (2, "c"), (1, "d"), (2, "e"), (1, "f")]
        q = records[:]
        quicksort(q, key=lambda r: r[0], random_pivot=False)
        print("quicksort :", q)
        print("merge sort:", merge_sort(records, key=lambda r: r[0]))
        """,
    ),
    (
        "md",
        """
        The quicksort output shows that it is **not stable**: the records with key 1 were
        `b, d, f` in the input but come out in a different order, because partitioning swaps
        elements over long distances. Merge sort keeps `b, d, f` and `a, c, e` in input order.

        ## 4. Summary

        | Algorithm | Best | Average | Worst | Extra memory | Stable |
        |-----------|------|---------|-------|--------------|--------|
        | Merge sort | n log n | n log n | n log n | O(n) | yes |
        | Quicksort (random pivot) | n log n | n log n (expected) | n^2 | O(log n) stack | no |
        | Heapsort (Week 4) | n log n | n log n | n log n | O(1) | no |
        | Insertion sort | n | n^2 | n^2 | O(1) | yes |

        Any comparison-based sort needs Omega(n log n) comparisons in the worst case (decision-tree
        lower bound), so merge sort and heapsort are asymptotically optimal.

        **Exercise (not graded):** change `<=` to `<` in `merge` and re-run the stability cell.
        What happens to Chen and Baker?
        """,
    ),
]

EN_ANNOUNCEMENTS = (
    dedent("""
    CSC3100 Data Structures - Course Announcements (Fall 2026)
    ==========================================================

    [2026-09-01] Welcome to CSC3100!
    Lectures are on Tuesdays and Thursdays, 10:30–11:50, in SCI-201. The first tutorial is on
    Friday 2026-09-04 at 09:00 in Computer Lab C2. Please read the syllabus, in particular the
    late policy and Academic Integrity Policy AI-2026-01, before HW1 is released.

    [2026-09-10] TA office hours confirmed
    Priya Nair: Fridays 13:00–15:00, Lab C2. Tom Lindqvist: Thursdays 16:00–17:30, Lab C2.
    Dr. Marsh (Mondays 14:00–16:00, SCI-412) and Dr. Okoye (Wednesdays 10:00–12:00, SCI-418)
    keep their office hours as listed in the syllabus.

    [2026-10-06] Midterm exam: room and rules
    The midterm is on Tuesday 2026-10-20, 10:30–11:50, in Lecture Hall LH-1 (not our usual room
    SCI-201). Students with family names A–L sit in rows 1–15, M–Z in rows 16–30. Bring your
    student ID card. One A4 sheet of handwritten notes (both sides) is allowed; calculators and
    phones are not. The midterm covers Weeks 1–6 (up to and including sorting); graphs are not
    on the midterm.

    [2026-10-13] Midterm review session
    The TAs run a review session on Friday 2026-10-16, 15:00–17:00, in SCI-201. Two past midterm
    papers with solutions are on the course portal under "Exam preparation".

    [2026-10-27] Midterm results
    Midterm scores are on the portal. The average was 71/100. Regrade requests must be submitted
    through the portal within 7 days, i.e. by 2026-11-03 at 23:59, with a short explanation.

    [2026-11-10] No live lecture on Thursday 2026-11-12
    Dr. Okoye is at a conference. A recorded lecture on Fenwick trees will be posted on the
    portal by Wednesday evening; the Friday tutorial takes place as usual.
    """)
    + "\n"
)

# ======================================================================================
# Content: DS2010 第3周讲义（PDF，中文）
# ======================================================================================

REGRESSION_TITLE = "DS2010 数据科学导论 · 第3周讲义：线性回归"

REGRESSION_PAGES = [
    [
        ("h", "一、线性回归模型与最小二乘法"),
        (
            "p",
            "线性回归假设目标变量 y 与特征 x1, x2, ..., xp 之间近似满足线性关系："
            "y = β0 + β1·x1 + ... + βp·xp + ε，其中 ε 是均值为 0 的随机误差。",
        ),
        (
            "p",
            "写成矩阵形式为 y = Xβ + ε。这里 X 是 n×(p+1) 的设计矩阵，第一列全为 1，"
            "对应截距 β0；n 是样本数，p 是特征数。",
        ),
        (
            "p",
            "最小二乘法（least squares）选择使残差平方和（RSS）最小的参数："
            "RSS(β) = Σ(yi − ŷi)² = ‖y − Xβ‖²，其中 ŷi 是第 i 个样本的预测值。",
        ),
        (
            "p",
            "对 β 求导并令导数为 0，得到正规方程（normal equation）：X^T X β = X^T y。"
            "若 X^T X 可逆，则最小二乘解为 β = (X^T X)^(-1) X^T y。",
        ),
        (
            "p",
            "当特征之间高度相关（多重共线性），或特征数 p 大于样本数 n 时，X^T X 不可逆"
            "或接近奇异，解会非常不稳定，这时需要使用正则化（见第 3 页）。",
        ),
        (
            "p",
            "计算代价：求解正规方程大约需要 O(np² + p³) 的时间。当特征数很大"
            "（例如 p 超过一万）时，通常改用梯度下降（见第 2 页）。",
        ),
        (
            "p",
            "例：对三个数据点 (1, 2)、(2, 3)、(3, 5) 做一元线性回归。x 的均值为 2，"
            "y 的均值为 10/3。斜率 = Σ(xi − 2)(yi − 10/3) / Σ(xi − 2)² = 3 / 2 = 1.5，"
            "截距 = 10/3 − 1.5 × 2 = 1/3，所以回归直线为 y = 0.333 + 1.5x。",
        ),
        (
            "p",
            "统计解释：如果误差独立同分布且服从正态分布，最小二乘估计就是极大似然估计。"
            "根据高斯–马尔可夫定理，在所有线性无偏估计中，最小二乘估计的方差最小。",
        ),
    ],
    [
        ("h", "二、梯度下降"),
        (
            "p",
            "梯度下降（gradient descent）是一种迭代优化方法，不需要求矩阵的逆。"
            "线性回归的损失函数取 J(β) = (1/2n)‖y − Xβ‖²。",
        ),
        ("p", "损失函数的梯度为 ∇J(β) = −(1/n) X^T (y − Xβ)。"),
        ("p", "每一步沿负梯度方向更新参数：β ← β − α∇J(β)，其中 α 称为学习率（learning rate）。"),
        (
            "p",
            "学习率的选择非常关键：α 过大时，损失会来回震荡甚至发散；α 过小时，收敛非常慢。"
            "本课程作业中梯度下降的默认设置是学习率 α = 0.01，迭代 1000 次。",
        ),
        (
            "p",
            "特征标准化：如果各特征的量纲相差很大（例如面积以平方米计、房间数只有 1 到 5），"
            "损失函数的等高线会变成狭长的椭圆，梯度下降沿“之”字形前进，收敛很慢。"
            "把每个特征减去均值、再除以标准差之后，收敛会快得多。",
        ),
        ("p", "三种常见的梯度下降："),
        ("b", "批量梯度下降（batch GD）：每一步使用全部 n 个样本计算梯度，方向准确但每步代价高。"),
        ("b", "随机梯度下降（SGD）：每一步只用 1 个样本，每步代价低，但更新方向噪声大。"),
        ("b", "小批量梯度下降（mini-batch GD）：每一步使用 b 个样本，b 常取 32 到 256，是深度学习中最常用的方式。"),
        (
            "p",
            "线性回归的损失函数是凸函数，只有一个全局最小值。因此只要学习率合适，梯度下降会收敛到与正规方程相同的解。",
        ),
        ("p", "常用的停止条件：达到最大迭代次数；相邻两次损失的下降量小于阈值（例如 1e-6）；或者梯度的范数足够小。"),
    ],
    [
        ("h", "三、正则化：岭回归与 Lasso"),
        (
            "p",
            "当特征很多或模型很复杂时，模型可能过拟合：训练误差很小，但测试误差很大。"
            "正则化（regularization）在损失函数中加入惩罚项，限制系数的大小。",
        ),
        (
            "p",
            "岭回归（Ridge，L2 正则化）最小化 RSS + λΣβj²，截距 β0 不参与惩罚。"
            "岭回归有闭式解 β = (X^T X + λI)^(-1) X^T y。加上 λI 之后矩阵一定可逆，"
            "所以岭回归能够缓解多重共线性。岭回归会把系数整体缩小，但一般不会让系数恰好等于 0。",
        ),
        (
            "p",
            "Lasso（L1 正则化）最小化 RSS + λΣ|βj|。L1 惩罚会把一部分系数压缩为恰好 0，"
            "相当于自动进行特征选择，得到稀疏模型。Lasso 没有闭式解，通常用坐标下降法"
            "（coordinate descent）求解。",
        ),
        (
            "p",
            "几何解释：L1 约束区域是菱形，有尖角，损失函数的等高线往往在尖角处（坐标轴上）"
            "与它相切，所以会出现等于 0 的系数；L2 约束区域是圆，切点一般不在坐标轴上。",
        ),
        (
            "p",
            "λ 的作用：λ = 0 时就是普通最小二乘；λ 越大，系数越小，模型越简单，"
            "偏差增大而方差减小。λ 应该用交叉验证来选择（见第 4 页）。",
        ),
        ("p", "注意：使用正则化之前必须先对特征做标准化，否则惩罚项对量纲不同的特征不公平。"),
        ("p", "弹性网络（Elastic Net）同时使用 L1 和 L2 惩罚，适合多个特征高度相关的情况。"),
        ("p", "在 scikit-learn 中，正则化强度的参数名是 alpha 而不是 λ，例如 Ridge(alpha=1.0) 和 Lasso(alpha=0.1)。"),
    ],
    [
        ("h", "四、模型评估"),
        (
            "p",
            "数据划分：通常按 8:2 把数据划分为训练集和测试集。测试集只在最后评估时使用一次；"
            "调参（例如选择 λ）应使用验证集或交叉验证。",
        ),
        ("p", "常用的回归评价指标："),
        ("b", "均方误差 MSE = (1/n)Σ(yi − ŷi)²。"),
        ("b", "均方根误差 RMSE = √MSE，单位与 y 相同，便于解释。"),
        ("b", "平均绝对误差 MAE = (1/n)Σ|yi − ŷi|，对异常值不如 MSE 敏感。"),
        (
            "b",
            "决定系数 R² = 1 − RSS/TSS，其中 TSS = Σ(yi − m)²，m 是 y 的均值。R² = 1 表示完美拟合；"
            "R² = 0 相当于总是预测均值；在测试集上 R² 可以为负数。",
        ),
        (
            "p",
            "例：真实值 y = (3, 5, 7, 9)，预测值为 (2.5, 5.5, 7, 8)。误差为 0.5、−0.5、0、1，"
            "MSE = 1.5/4 = 0.375，RMSE ≈ 0.612，MAE = 2/4 = 0.5。y 的均值为 6，"
            "TSS = 20，所以 R² = 1 − 1.5/20 = 0.925。",
        ),
        (
            "p",
            "k 折交叉验证（k-fold cross-validation）：把训练数据平均分成 k 份，"
            "轮流用其中 1 份做验证、其余 k − 1 份做训练，最后取 k 次结果的平均值。"
            "常用 k = 5 或 k = 10。",
        ),
        ("p", "偏差–方差权衡：欠拟合（高偏差）时训练误差和测试误差都高；过拟合（高方差）时训练误差低而测试误差高。"),
        (
            "p",
            "残差图：好的模型的残差应随机分布在 0 附近。残差呈漏斗形说明存在异方差；"
            "残差呈弯曲形状说明存在非线性关系，可以考虑加入多项式特征或对变量做变换。",
        ),
    ],
    [
        ("h", "五、小结与练习"),
        ("p", "本周要点："),
        ("b", "最小二乘解满足正规方程 X^T X β = X^T y，X^T X 可逆时 β = (X^T X)^(-1) X^T y。"),
        ("b", "梯度下降的更新规则是 β ← β − α∇J(β)；作业默认学习率 α = 0.01，迭代 1000 次。"),
        ("b", "岭回归（L2）缩小系数但一般不为 0；Lasso（L1）能把部分系数压缩为 0，实现特征选择。"),
        ("b", "回归模型常用 RMSE、MAE 和 R² 评估，用 k 折交叉验证选择超参数。"),
        ("p", "课后练习（不计分）："),
        ("b", "练习 1：对数据点 (0, 1)、(1, 3)、(2, 5) 用正规方程求回归直线，并验证 R² = 1。"),
        ("b", "练习 2：用学习率 α = 1.0 对练习 1 的数据运行梯度下降，观察损失是否发散，并解释原因。"),
        ("b", "练习 3：举例说明为什么在特征未标准化时，Lasso 可能错误地把重要特征的系数压缩为 0。"),
        ("p", "作业二（HW2：数据清洗与线性回归）的截止时间为 2026 年 10 月 16 日（周五）23:59。"),
        ("p", "下周（第 4 周）内容：概率与统计推断基础。10 月 1 日至 10 月 8 日为国庆假期，停课一周。"),
    ],
]

# ======================================================================================
# Content: DS2010 第5周讲义（DOCX，中文）
# ======================================================================================

CLASSIFICATION_DOC = [
    ("title", "DS2010 第5周讲义：分类"),
    (
        "p",
        "主讲教师：李明华。本讲介绍四部分内容：逻辑回归、决策树、支持向量机和分类模型的评价指标。"
        "作业三（HW3：分类模型与评价指标）将于 2026 年 10 月 30 日（周五）23:59 截止。",
    ),
    ("h1", "一、逻辑回归"),
    ("h2", "1.1 模型与 Sigmoid 函数"),
    (
        "p",
        "逻辑回归（logistic regression）虽然名字里有“回归”，但它是一种二分类模型。"
        "模型给出样本属于正类的概率：P(y = 1 | x) = σ(w^T x + b)，"
        "其中 Sigmoid 函数 σ(z) = 1 / (1 + e^(−z)) 把任意实数映射到 (0, 1) 区间。",
    ),
    (
        "p",
        "默认以 0.5 为阈值：概率大于等于 0.5 时预测为正类。决策边界 w^T x + b = 0 "
        "是一个超平面，所以逻辑回归是线性分类器。",
    ),
    ("h2", "1.2 损失函数与训练"),
    (
        "p",
        "逻辑回归使用交叉熵损失（对数损失）："
        "L = −(1/n) Σ [yi·log(pi) + (1 − yi)·log(1 − pi)]。"
        "这个损失函数是凸函数，可以用梯度下降求得全局最优解。"
        "不使用平方损失，是因为平方损失与 Sigmoid 组合后不是凸函数。",
    ),
    (
        "p",
        "为了防止过拟合，通常加入 L2 正则化。注意 scikit-learn 中 LogisticRegression "
        "的参数 C 是正则化强度的倒数（C = 1/λ）：C 越小，正则化越强。",
    ),
    ("h2", "1.3 系数解释与多分类"),
    (
        "p",
        "系数 wj 的含义：其他特征不变时，xj 每增加 1 个单位，对数几率（log-odds）增加 wj，"
        "即几率（odds）变为原来的 e^wj 倍。",
    ),
    ("p", "多分类问题可以使用 Softmax 回归（多项逻辑回归），也可以用“一对其余”（one-vs-rest）策略训练多个二分类器。"),
    ("h1", "二、决策树"),
    ("h2", "2.1 划分准则"),
    ("p", "决策树从根结点开始，每次选择一个特征和划分点，把数据划分得尽可能“纯”。常用准则："),
    ("b", "信息熵：H(D) = −Σ pk·log2(pk)，其中 pk 是第 k 类样本所占比例。"),
    ("b", "信息增益（ID3 算法）：划分前的熵减去划分后各子集熵的加权平均。信息增益偏好取值多的特征。"),
    ("b", "信息增益率（C4.5 算法）：用特征本身的熵对信息增益做归一化，减轻上述偏好。"),
    ("b", "基尼系数（CART 算法）：Gini(D) = 1 − Σ pk²，scikit-learn 默认使用基尼系数。"),
    (
        "p",
        "例：10 个样本中有 6 个正例、4 个负例，则信息熵 = −0.6·log2(0.6) − 0.4·log2(0.4) ≈ 0.971，"
        "基尼系数 = 1 − 0.6² − 0.4² = 0.48。",
    ),
    ("h2", "2.2 剪枝与过拟合"),
    (
        "p",
        "不加限制的决策树会一直生长到每个叶结点只含一类样本，很容易过拟合。"
        "预剪枝在生长过程中提前停止，例如限制最大深度 max_depth 或叶结点最少样本数 "
        "min_samples_leaf；后剪枝先生成完整的树，再剪掉对验证集没有帮助的子树，"
        "例如 CART 的代价复杂度剪枝（参数 ccp_alpha）。",
    ),
    ("h2", "2.3 优点与缺点"),
    (
        "p",
        "优点：模型容易解释，可以画成流程图；不需要对特征做标准化；可以处理类别特征和非线性关系。"
        "缺点：对训练数据的微小变化很敏感（不稳定），容易过拟合。"
        "把多棵树组合起来的随机森林和梯度提升（第 8 周）可以明显改善这些问题。",
    ),
    ("h1", "三、支持向量机"),
    ("h2", "3.1 最大间隔"),
    (
        "p",
        "支持向量机（SVM）寻找一个超平面 w^T x + b = 0，使两类样本之间的间隔（margin）最大。"
        "间隔的宽度为 2 / ‖w‖。离超平面最近、恰好落在间隔边界上的样本称为支持向量"
        "（support vectors）；超平面只由支持向量决定，删除其他样本不会改变结果。",
    ),
    ("h2", "3.2 软间隔与参数 C"),
    (
        "p",
        "真实数据通常不是线性可分的。软间隔 SVM 引入松弛变量，允许部分样本落在间隔内甚至被分错。"
        "参数 C 控制对违反间隔的惩罚：C 越大，惩罚越重，间隔越窄，越容易过拟合；"
        "C 越小，间隔越宽，容错越多，模型越简单。",
    ),
    ("h2", "3.3 核函数"),
    (
        "p",
        "核技巧（kernel trick）把样本隐式地映射到高维空间，在高维空间中寻找线性超平面，"
        "而无需显式计算映射。常用核函数：线性核、多项式核，以及 RBF（高斯）核 "
        "K(x, z) = exp(−γ‖x − z‖²)。γ 越大，决策边界越复杂。"
        "SVM 对特征尺度敏感，训练前必须做标准化。",
    ),
    ("h1", "四、评价指标"),
    ("h2", "4.1 混淆矩阵"),
    (
        "p",
        "二分类的混淆矩阵有四个格子：TP（真正例，实际为正、预测为正）、FP（假正例，实际为负、"
        "预测为正）、FN（假负例，实际为正、预测为负）和 TN（真负例，实际为负、预测为负）。",
    ),
    ("h2", "4.2 准确率、精确率、召回率与 F1"),
    (
        "grid",
        [
            ["指标", "公式", "含义"],
            ["准确率（Accuracy）", "(TP + TN) / (TP + FP + FN + TN)", "预测正确的样本比例"],
            ["精确率（Precision）", "TP / (TP + FP)", "预测为正的样本中真正为正的比例"],
            ["召回率（Recall）", "TP / (TP + FN)", "实际为正的样本中被找出来的比例"],
            ["F1 分数", "2 × P × R / (P + R)", "精确率和召回率的调和平均"],
        ],
    ),
    ("p", "精确率 = TP / (TP + FP)，召回率 = TP / (TP + FN)，F1 = 2PR / (P + R)。"),
    (
        "p",
        "例：TP = 40，FP = 10，FN = 20，TN = 930。准确率 = 970 / 1000 = 0.97，"
        "精确率 = 40 / 50 = 0.8，召回率 = 40 / 60 ≈ 0.667，F1 ≈ 0.727。",
    ),
    (
        "p",
        "类别不平衡时准确率会产生误导：例如 1000 个样本中只有 10 个正例，"
        "把所有样本都预测为负类，准确率高达 99%，但召回率为 0。"
        "这时应该关注精确率、召回率、F1 或 AUC。",
    ),
    ("h2", "4.3 ROC 曲线与 AUC"),
    (
        "p",
        "改变分类阈值，可以得到一系列（FPR, TPR）点，连成 ROC 曲线。"
        "横轴是假正例率 FPR = FP / (FP + TN)，纵轴是真正例率 TPR（即召回率）。"
        "ROC 曲线下的面积 AUC 越接近 1 越好；AUC = 0.5 相当于随机猜测。",
    ),
    ("p", "阈值的选择取决于应用：疾病筛查更重视召回率（漏诊代价高），垃圾邮件过滤更重视精确率（误判正常邮件代价高）。"),
]

# ======================================================================================
# Content: DS2010 第7周幻灯片（PPTX，中文）
# ======================================================================================

CLUSTERING_TITLE = ("DS2010 第7周：聚类与降维", "陈思远 · 数据科学导论 · 2026 秋季")

CLUSTERING_SLIDES = [
    (
        "聚类概述",
        [
            "聚类属于无监督学习：数据没有标签",
            "目标：同一簇内的样本尽量相似，不同簇之间尽量不同",
            "应用：客户分群、图像分割、文档归类、异常检测",
            "常用距离：欧氏距离、曼哈顿距离、余弦相似度",
            "聚类前通常需要对特征做标准化，否则量纲大的特征主导距离",
        ],
        "提醒学生：聚类结果没有“标准答案”，需要结合业务解释。",
    ),
    (
        "K-means 算法",
        [
            "步骤 1：选出 k 个初始中心（推荐 k-means++ 初始化）",
            "步骤 2（分配）：把每个样本分配给距离最近的中心",
            "步骤 3（更新）：把每个中心移动到所属样本的均值",
            "重复步骤 2 和 3，直到分配不再变化",
            "目标函数：簇内平方和 SSE（inertia），每次迭代都不会增大",
            "可能收敛到局部最优：用不同随机种子运行多次（n_init），取 SSE 最小的结果",
            "局限：需要预先指定 k；假设簇近似球形、大小相近；对异常值敏感",
        ],
        "代码见 代码/kmeans.py，纯 Python 实现，包含 k-means++ 初始化。",
    ),
    (
        "如何选择 k：肘部法则",
        [
            "SSE 随 k 增大单调下降，k 等于样本数时 SSE = 0",
            "画出 SSE–k 曲线，下降速度明显变缓的拐点（“肘部”）就是较好的 k",
            "kmeans.py 的示例数据（三团点）：k = 3 时 SSE 从 312.27 降到 60.55，之后下降很少",
            "同一数据上 k = 3 的平均轮廓系数最高（0.758）",
            "肘部不明显时，结合轮廓系数和业务需求来决定",
        ],
        "运行 python kmeans.py 可以看到 k = 1 到 5 的 SSE 和轮廓系数。",
    ),
    (
        "层次聚类",
        [
            "凝聚式（自底向上）：每个样本先自成一簇，反复合并距离最近的两个簇",
            "分裂式（自顶向下）：从一个大簇开始，逐步拆分",
            "簇间距离（链接方式）：",
            "  单链接：两簇最近样本的距离，容易产生“链式”长条簇",
            "  全链接：两簇最远样本的距离；平均链接：所有样本对距离的平均",
            "  Ward 方法：选择合并后 SSE 增量最小的两个簇",
            "树状图（dendrogram）在某一高度横切，即得到相应数量的簇",
            "需要 O(n²) 的距离矩阵，不适合非常大的数据集",
        ],
        "层次聚类不需要预先指定 k，可以事后在树状图上选择。",
    ),
    (
        "DBSCAN 密度聚类",
        [
            "两个参数：邻域半径 eps 和最少点数 MinPts（scikit-learn 中为 min_samples）",
            "核心点：eps 邻域内（包含自身）至少有 MinPts 个样本",
            "边界点：不是核心点，但落在某个核心点的 eps 邻域内",
            "噪声点：既不是核心点也不是边界点，标签为 −1",
            "优点：不需要指定簇的个数；能发现任意形状的簇；能识别噪声",
            "缺点：对 eps 敏感；各簇密度差异很大时效果差",
            "选择 eps：画出 k-距离图（k = MinPts），取曲线的拐点",
        ],
        "与 K-means 对比：月牙形数据上 DBSCAN 明显更好。",
    ),
    (
        "轮廓系数（Silhouette Coefficient）",
        [
            "a(i)：样本 i 到同簇其他样本的平均距离（簇内紧密度）",
            "b(i)：样本 i 到最近的其他簇中所有样本的平均距离（簇间分离度）",
            "s(i) = (b(i) − a(i)) / max(a(i), b(i))，取值范围 [−1, 1]",
            "接近 1：聚类合理；接近 0：样本位于两簇边界；负值：样本可能被分错",
            "所有样本的平均轮廓系数可以用来比较不同的 k",
            "属于内部指标，不需要真实标签；但对非凸形状的簇（如 DBSCAN 结果）评价偏低",
        ],
        "kmeans.py 中的 silhouette 函数就是按这个定义实现的。",
    ),
    (
        "降维：主成分分析（PCA）",
        [
            "目的：去除特征相关性、压缩数据、二维或三维可视化、加速后续建模",
            "步骤：标准化 → 计算协方差矩阵 → 特征分解 → 按特征值从大到小取前 k 个特征向量 → 投影",
            "第一主成分是数据方差最大的方向，各主成分相互正交",
            "解释方差比 = λi / Σλj，其中 λi 是第 i 个特征值",
            "常选择累计解释方差比达到 90% 的最小 k",
            "PCA 是线性方法；可以先用 PCA 降维，再做聚类",
        ],
        "PCA 也可以用奇异值分解（SVD）计算，数值上更稳定。",
    ),
    (
        "小结",
        [
            "K-means：快速、简单，需要指定 k，适合球形簇",
            "层次聚类：得到树状图，无需预先指定 k，适合小数据集",
            "DBSCAN：基于密度，能发现任意形状的簇并识别噪声",
            "用肘部法则和轮廓系数选择簇的个数",
            "PCA：线性降维，按解释方差比选择主成分个数",
            "作业四（HW4：聚类与降维）截止时间：2026 年 11 月 13 日（周五）23:59",
        ],
        "下周：集成学习（随机森林与梯度提升）。",
    ),
]

# ======================================================================================
# Content: DS2010 数据清洗 notebook（中文）
# ======================================================================================

CLEANING_NOTEBOOK = [
    (
        "md",
        """
        # DS2010 第2周实验：数据清洗

        真实数据几乎总是"脏"的：有缺失值、重复记录、异常值，以及类型不一致的字段。
        本实验用一个很小的二手房数据集演示数据清洗的基本步骤。为了让代码不依赖第三方库，
        这里只使用 Python 标准库（`csv`、`statistics`）；课后作业中请使用 pandas 完成同样的操作。

        清洗步骤：

        1. 读取数据并检查缺失值；
        2. 删除重复记录；
        3. 类型转换；
        4. 用 IQR 规则检测异常值；
        5. 填补缺失值；
        6. 标准化。
        """,
    ),
    (
        "code",
        """
        import csv
        import io
        import statistics

        raw = \"\"\"id,area,rooms,age,district,price
        1,89.5,3,12,东区,520
        2,65.0,2,,西区,310
        3,120.3,4,5,东区,780
        4,,2,20,南区,240
        5,78.2,3,8,西区,415
        3,120.3,4,5,东区,780
        6,1500,3,10,南区,380
        7,55.0,1,25,,198
        8,102.4,3,NA,东区,640
        9,95.0,3,15,西区,
        10,70.8,2,18,东区,265
        \"\"\"

        rows = list(csv.DictReader(io.StringIO(raw)))
        print(f"共读入 {len(rows)} 行，字段：{list(rows[0].keys())}")
        """,
    ),
    (
        "md",
        """
        ## 1. 检查缺失值

        缺失值可能以空字符串、`NA`、`null` 等多种形式出现，需要先统一识别。
        """,
    ),
    (
        "code",
        """
        MISSING = {"", "NA", "null"}

        for col in rows[0]:
            n_missing = sum(1 for r in rows if r[col].strip() in MISSING)
            print(f"{col:9s} 缺失 {n_missing} 个（{n_missing / len(rows):.0%}）")
        """,
    ),
    (
        "md",
        """
        ## 2. 删除重复记录

        第 3 号房屋被录入了两次。完全相同的记录只保留第一条。
        """,
    ),
    (
        "code",
        """
        seen, deduped = set(), []
        for r in rows:
            key = tuple(r.values())
            if key not in seen:
                seen.add(key)
                deduped.append(r)
        print(f"删除重复记录 {len(rows) - len(deduped)} 行，剩余 {len(deduped)} 行")
        rows = deduped
        """,
    ),
    (
        "md",
        """
        ## 3. 类型转换

        CSV 读入的都是字符串。把数值列转换为浮点数，缺失值统一表示为 `None`。
        """,
    ),
    (
        "code",
        """
        NUMERIC = ["area", "rooms", "age", "price"]


        def to_float(text):
            text = text.strip()
            return None if text in MISSING else float(text)


        for r in rows:
            for col in NUMERIC:
                r[col] = to_float(r[col])
            r["district"] = r["district"].strip() or None

        print(rows[1])
        """,
    ),
    (
        "md",
        """
        ## 4. 用 IQR 规则检测异常值

        四分位距 IQR = Q3 − Q1。小于 Q1 − 1.5·IQR 或大于 Q3 + 1.5·IQR 的值被视为异常值。
        IQR 规则基于分位数，不受极端值本身的影响，比"均值 ± 3 倍标准差"更稳健。
        """,
    ),
    (
        "code",
        """
        areas = sorted(r["area"] for r in rows if r["area"] is not None)
        q1, q2, q3 = statistics.quantiles(areas, n=4, method="inclusive")
        iqr = q3 - q1
        low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
        print(f"Q1={q1:.2f}, 中位数={q2:.2f}, Q3={q3:.2f}, IQR={iqr:.2f}")
        print(f"正常范围：[{low:.2f}, {high:.2f}]")

        outliers = [r for r in rows if r["area"] is not None and not low <= r["area"] <= high]
        print("异常值：", [(int(r["id"]), r["area"]) for r in outliers])
        """,
    ),
    (
        "md",
        """
        面积 1500 平方米的普通住宅显然不合理，很可能是录入错误（例如把 150.0 录成了 1500）。
        无法确认正确值时，把它当作缺失值处理，在下一步统一填补。
        """,
    ),
    (
        "code",
        """
        for r in outliers:
            r["area"] = None

        # 目标变量 price 缺失的行无法用于训练，直接删除
        before = len(rows)
        rows = [r for r in rows if r["price"] is not None]
        print(f"删除 price 缺失的行 {before - len(rows)} 行，剩余 {len(rows)} 行")
        """,
    ),
    (
        "md",
        """
        ## 5. 填补缺失值

        * 数值特征用**中位数**填补：中位数不受异常值影响，比均值更稳健；
        * 类别特征用**众数**（出现次数最多的类别）填补。

        注意：严格来说，中位数和众数应只在训练集上计算，再用于填补测试集，以避免数据泄漏。
        """,
    ),
    (
        "code",
        """
        for col in ["area", "rooms", "age"]:
            median = statistics.median(r[col] for r in rows if r[col] is not None)
            filled = 0
            for r in rows:
                if r[col] is None:
                    r[col] = median
                    filled += 1
            print(f"{col:6s} 中位数 = {median:7.2f}，填补 {filled} 个")

        mode = statistics.mode(r["district"] for r in rows if r["district"] is not None)
        for r in rows:
            if r["district"] is None:
                r["district"] = mode
        print(f"district 众数 = {mode}")
        """,
    ),
    (
        "md",
        """
        ## 6. 标准化（z-score）

        z = (x − 均值) / 标准差。标准化后各特征均值为 0、标准差为 1，
        梯度下降、正则化、K-means 和 SVM 等方法都要求先做标准化。
        """,
    ),
    (
        "code",
        """
        mean_area = statistics.mean(r["area"] for r in rows)
        std_area = statistics.pstdev(r["area"] for r in rows)
        for r in rows:
            r["area_z"] = round((r["area"] - mean_area) / std_area, 3)

        print(f"area 均值 = {mean_area:.2f}，标准差 = {std_area:.2f}")
        print(f"{'id':>3} {'area':>7} {'rooms':>5} {'age':>5} {'district':>8} {'price':>6} {'area_z':>7}")
        for r in rows:
            print(f"{int(r['id']):>3} {r['area']:>7.1f} {int(r['rooms']):>5} {r['age']:>5.1f} "
                  f"{r['district']:>8} {r['price']:>6.0f} {r['area_z']:>7.3f}")
        """,
    ),
    (
        "md",
        """
        ## 小结

        | 问题 | 本实验的处理方法 |
        |------|------------------|
        | 缺失值 | 数值列用中位数填补，类别列用众数填补；目标变量缺失的行删除 |
        | 重复记录 | 完全相同的记录只保留第一条 |
        | 异常值 | IQR 规则检测，确认为录入错误后当作缺失值处理 |
        | 量纲不同 | z-score 标准化 |

        作业二（HW2）要求用 pandas 在完整的 `housing_2026.csv` 数据集上完成同样的清洗流程。
        """,
    ),
]

ZH_NOTICE = (
    dedent("""
    DS2010 数据科学导论 —— 期中考试通知

    各位同学：

    本课程期中考试安排如下，请相互转告。

    一、考试时间：2026年10月21日（星期三）14:00—16:00，共120分钟。请提前15分钟入场。

    二、考试地点：学号末位为奇数的同学在理学楼101教室，学号末位为偶数的同学在理学楼102教室。

    三、考试范围：第1—5周的内容（数据科学概述、数据清洗、线性回归、概率与统计推断基础、分类）。第7周的聚类不在考试范围内。

    四、考试形式：闭卷。允许携带一张A4纸手写笔记（可双面）和不可编程计算器，禁止使用手机及其他电子设备。

    五、请携带学生证或身份证，以备核验身份。

    六、因病不能参加考试的同学，须在考试开始前向李明华教授提交书面申请和医院证明。缓考安排在2026年10月28日（星期三）14:00，地点另行通知。

    七、考前答疑：2026年10月19日（星期一）15:30—17:00，理学楼305教室，由王悦、赵一凡两位助教负责。

    DS2010 课程组
    2026年10月9日
    """)
    + "\n"
)


# ======================================================================================
# Builders: the layouts are docgen's (shared with the tests and the benchmarks)
# ======================================================================================

CREATOR = "scripts/make_sample_courses.py"


def _save(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def find_cjk_font() -> Path:
    font = docgen.find_cjk_font()
    if font is None:
        sys.exit(
            "No CJK font found. Install one, e.g. `apt-get install fonts-wqy-microhei`, "
            "or set COURSERAG_CJK_FONT to a .ttf/.ttc file."
        )
    return font


def build_pdf(path: Path, title: str, pages, *, lang: str, author: str, cjk_font: Path | None):
    _save(
        path,
        docgen.handout_pdf_bytes(
            title, pages, lang=lang, author=author, creator=CREATOR, created=FIXED_DATETIME, cjk_font=cjk_font
        ),
    )


def build_docx(path: Path, elements, *, author: str, language: str, east_asian_font=None):
    title = next(t for k, t in elements if k == "title")
    meta = docgen.DocMeta(title, author, language, FIXED_DATETIME)
    _save(path, docgen.docx_bytes(elements, meta, east_asian_font, normal_pt=11))


def build_pptx(path: Path, title_slide, slides, *, author: str, language: str):
    specs = [{"title": heading, "body": bullets, "notes": notes} for heading, bullets, notes in slides]
    meta = docgen.DocMeta(title_slide[0], author, language, FIXED_DATETIME)
    _save(path, docgen.pptx_bytes(specs, meta, title_slide=title_slide, widescreen=True, body_pt=20))


def build_notebook(path: Path, cells, *, language_code: str):
    """An nbformat 4.5 notebook; code cells are executed here to produce real outputs."""
    lines = [(kind, dedent(text).splitlines(keepends=True)) for kind, text in cells]
    specs = [{"markdown": source} if kind == "md" else {"code": source} for kind, source in lines]
    metadata = {"language_info": {"name": "python", "version": "3.11"}, "courserag": {"language": language_code}}
    _save(path, docgen.notebook_bytes(docgen.execute_cells(specs, path.name), metadata))


def write_text_files() -> None:
    # UTF-8 with a byte-order mark, as written by Windows Notepad.
    (EN / "announcements.txt").write_bytes(EN_ANNOUNCEMENTS.encode("utf-8-sig"))
    # GB18030; every character is chosen to be inside GBK too, so a GBK decoder also works.
    encoded = ZH_NOTICE.encode("gb18030")
    assert encoded == ZH_NOTICE.encode("gbk"), "notice must stay GBK-compatible"
    (ZH / "通知_gbk.txt").write_bytes(encoded)


# ======================================================================================
# Output files and verification
# ======================================================================================

OUT = {
    "en_pdf": EN / "lectures" / "week03_hashing.pdf",
    "en_docx": EN / "lectures" / "week05_trees.docx",
    "en_pptx": EN / "slides" / "week07_graphs.pptx",
    "en_ipynb": EN / "notebooks" / "sorting_lab.ipynb",
    "zh_pdf": ZH / "讲义" / "第3周_线性回归.pdf",
    "zh_docx": ZH / "讲义" / "第5周_分类.docx",
    "zh_pptx": ZH / "幻灯片" / "第7周_聚类.pptx",
    "zh_ipynb": ZH / "代码" / "数据清洗.ipynb",
}


def generate() -> None:
    cjk = find_cjk_font()
    build_pdf(OUT["en_pdf"], HASHING_TITLE, HASHING_PAGES, lang="en", author="Dr. Elena Marsh", cjk_font=None)
    build_docx(OUT["en_docx"], TREES_DOC, author="Dr. Elena Marsh", language="en-US")
    build_pptx(OUT["en_pptx"], GRAPHS_TITLE, GRAPHS_SLIDES, author="Dr. Rafael Okoye", language="en-US")
    build_notebook(OUT["en_ipynb"], SORTING_NOTEBOOK, language_code="en")
    build_pdf(OUT["zh_pdf"], REGRESSION_TITLE, REGRESSION_PAGES, lang="zh-CN", author="李明华", cjk_font=cjk)
    build_docx(OUT["zh_docx"], CLASSIFICATION_DOC, author="李明华", language="zh-CN", east_asian_font="Microsoft YaHei")
    build_pptx(OUT["zh_pptx"], CLUSTERING_TITLE, CLUSTERING_SLIDES, author="陈思远", language="zh-CN")
    build_notebook(OUT["zh_ipynb"], CLEANING_NOTEBOOK, language_code="zh")
    write_text_files()
    print(f"CJK font used for the Chinese PDF: {cjk}")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def verify() -> None:
    import docx
    import pptx
    import pypdf

    problems = []
    for key, path in OUT.items():
        size = path.stat().st_size
        if size > 200_000:
            problems.append(f"{path} is {size} bytes (> 200 KB)")
        rel = path.relative_to(ROOT)
        if path.suffix == ".pdf":
            reader = pypdf.PdfReader(str(path))
            pages = [p.extract_text() for p in reader.pages]
            source = HASHING_PAGES if key == "en_pdf" else REGRESSION_PAGES
            # every sentence of every page must come back from text extraction, on its page
            for number, (page_text, elements) in enumerate(zip(pages, source), start=1):
                squashed = _squash(page_text)
                for _, text in elements:
                    for sentence in re.split(r"(?<=[。；：:])|(?<=\. )", text):
                        if _squash(sentence) and _squash(sentence) not in squashed:
                            problems.append(f"{rel} p{number}: not extracted: {sentence!r}")
            print(f"{rel}: {len(pages)} pages, {size} bytes, text extraction OK")
        elif path.suffix == ".docx":
            d = docx.Document(str(path))
            h1 = [p.text for p in d.paragraphs if p.style.name == "Heading 1"]
            h2 = [p.text for p in d.paragraphs if p.style.name == "Heading 2"]
            print(
                f"{rel}: {len(d.paragraphs)} paragraphs, {len(h1)} Heading 1, "
                f"{len(h2)} Heading 2, {len(d.tables)} tables, {size} bytes"
            )
        elif path.suffix == ".pptx":
            p = pptx.Presentation(str(path))
            for i, slide in enumerate(p.slides, start=1):
                if not slide.shapes.title or not slide.shapes.title.text:
                    problems.append(f"{rel} slide {i} has no title")
            print(f"{rel}: {len(p.slides)} slides, {size} bytes")
        elif path.suffix == ".ipynb":
            nb = json.loads(path.read_text(encoding="utf-8"))
            kinds = [c["cell_type"] for c in nb["cells"]]
            print(
                f"{rel}: nbformat {nb['nbformat']}.{nb['nbformat_minor']}, "
                f"{kinds.count('markdown')} markdown + {kinds.count('code')} code cells, "
                f"{size} bytes"
            )
    raw = (EN / "announcements.txt").read_bytes()
    if not raw.startswith(b"\xef\xbb\xbf"):
        problems.append("announcements.txt has no UTF-8 BOM")
    notice = (ZH / "通知_gbk.txt").read_bytes()
    try:
        notice.decode("utf-8")
        problems.append("通知_gbk.txt unexpectedly decodes as UTF-8")
    except UnicodeDecodeError:
        pass
    if "理学楼101教室" not in notice.decode("gb18030"):
        problems.append("通知_gbk.txt does not decode as GB18030")
    print(f"courses/csc3100/announcements.txt: UTF-8 with BOM, {len(raw)} bytes")
    print(f"courses/ds2010/通知_gbk.txt: GB18030/GBK, {len(notice)} bytes")
    if problems:
        print("\n".join(["PROBLEMS:"] + problems))
        sys.exit(1)
    print("all checks passed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verify", action="store_true", help="re-open and check the outputs")
    args = parser.parse_args()
    generate()
    for path in OUT.values():
        print(f"wrote {path.relative_to(ROOT)}")
    if args.verify:
        verify()


if __name__ == "__main__":
    main()
