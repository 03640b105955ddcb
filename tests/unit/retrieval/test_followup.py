import pytest

from courserag.retrieval.followup import looks_like_followup, ordinal_of, resolve_followup, rewrite_followup, words


@pytest.mark.parametrize(
    "question, expected",
    [
        ("what about week 5?", True),
        ("And for HW4?", True),
        ("那 ECE 专业呢？", True),
        ("What is the late policy for homework in CSC3100?", False),
        ("迟交作业会扣多少分？", False),
        ("她的邮箱是什么？", True),
        ("第二种呢？", True),
        ("其他作业的截止时间是什么时候？", False),  # 其他 holds 他 but points at nothing
        ("What is her email?", True),
    ],
)
def test_looks_like_followup(question, expected):
    assert looks_like_followup(question) is expected


@pytest.mark.parametrize(
    "question, history, expected",
    [
        ("what about week 5?", ["What topics are covered in week 3?"], "what about week 5? topics covered"),
        ("What is the grading breakdown?", ["What is the late policy?"], "What is the grading breakdown?"),
        ("what about week 5?", [], "what about week 5?"),
        # "那X呢": X takes the place of the word of the same kind in the previous question.
        ("那 ECE 专业呢？", ["计算机科学专业的学生什么时候修这门课？"], "ECE 专业的学生什么时候修这门课？"),
        ("那期末考试呢？", ["期中考试可以带什么进考场？"], "期末考试可以带什么进考场？"),
        ("And Dr. Okoye's?", ["What are Dr. Marsh's office hours?"], "What are Dr. Okoye's office hours?"),
        ("And HW4?", [{"role": "user", "content": "When was HW3 released?"}], "When was HW4 released?"),
        ("Is it stable?", ["What does quicksort do?"], "Is it stable? quicksort"),
        (
            "and the second one?",
            [
                {"role": "user", "content": "Which two heuristics?"},
                {"role": "assistant", "content": "- Union by rank [1]\n- Path compression [1]"},
            ],
            "and the second one? Path compression",
        ),
    ],
)
def test_rewrite_followup(question, history, expected):
    assert rewrite_followup(question, history) == expected


@pytest.mark.parametrize(
    "question, reply, expected",
    [
        ("what about week 5?", "Week 5 topics in CSC3100", "Week 5 topics in CSC3100"),
        ("what about week 5?", '"Week 5 topics"\nextra line', "Week 5 topics"),
        ("what about week 5?", "", "what about week 5?"),
        ("what about week 5?", "x" * 1000, "what about week 5?"),
    ],
)
def test_clean_rewrite(question, reply, expected):
    from courserag.retrieval.followup import clean_rewrite

    assert clean_rewrite(question, reply) == expected


ROTATIONS = [
    {"role": "user", "content": "What are the four rotation cases?"},
    {
        "role": "assistant",
        "content": "From the materials:\n- LL case: one right rotation. [1]\n- RR case: one left rotation. [1]\n"
        "- LR case: a double rotation. [1]\n- RL case: a double rotation. [1]",
    },
]
GRADING = [
    {"role": "user", "content": "课程的评分由哪几部分组成？"},
    {
        "role": "assistant",
        "content": "根据资料：\n- 平时作业 — 比例: 25% [2]\n- 期中考试 — 比例: 25% [2]\n- 课程项目 — 比例: 20% [2]",
    },
]


@pytest.mark.parametrize(
    "question, previous, expected",
    [
        ("What about the second one?", "", 2),
        ("And the 3rd one?", "", 3),
        ("and the last one?", "", -1),
        ("the second to last one?", "", -2),
        ("What about the second case?", "What are the four rotation cases?", 2),  # a word of the question before
        ("What is the date of the first exam?", "What are the four rotation cases?", None),
        ("第二个呢？", "", 2),
        ("那最后一项呢？", "", -1),
        ("第 3 条是什么？", "", 3),
        ("倒数第二种呢？", "", -2),
        ("第二周讲什么？", "", None),  # a week, not a list position
        ("What about HW4?", "", None),
    ],
)
def test_ordinal_of(question, previous, expected):
    assert ordinal_of(question, previous) == expected


@pytest.mark.parametrize(
    "question, history, query, item",
    [
        (
            "What about the second one?",
            ROTATIONS,
            "What about the second one? RR case: one left rotation",
            "RR case: one left rotation",
        ),
        (
            "And the last case?",
            ROTATIONS,
            "And the last case? RL case: a double rotation",
            "RL case: a double rotation",
        ),
        ("the third?", ROTATIONS, "the third? LR case: a double rotation", "LR case: a double rotation"),
        ("第二个呢？", GRADING, "第二个呢？ 期中考试 — 比例: 25%", "期中考试 — 比例: 25%"),
        ("那最后一项呢？", GRADING, "那最后一项呢？ 课程项目 — 比例: 20%", "课程项目 — 比例: 20%"),
        # "What about X?" / "那X呢？" where X names one item of the list just given.
        (
            "What about the RR case?",
            ROTATIONS,
            "What about the RR case? RR case: one left rotation",
            "RR case: one left rotation",
        ),
        ("那课程项目呢？", GRADING, "那课程项目呢？ 课程项目 — 比例: 20%", "课程项目 — 比例: 20%"),
        ("What about the double rotation?", ROTATIONS, None, ""),  # two items hold it: no one item
        ("那期末考试呢？", GRADING, None, ""),  # no item holds it
        # Past the end of the list, or no list: an ordinary follow-up.
        ("What about the fifth one?", GRADING[:1] + [{"role": "assistant", "content": "- A [1]\n- B [1]"}], None, ""),
        ("What is the first exam?", ROTATIONS, "What is the first exam?", ""),
        # A later answer with one item: the list before it still counts.
        (
            "And the third one?",
            ROTATIONS
            + [
                {"role": "user", "content": "What about the second one?"},
                {"role": "assistant", "content": "From the materials:\n- RR case: one left rotation. [1]"},
            ],
            "And the third one? LR case: a double rotation",
            "LR case: a double rotation",
        ),
    ],
)
def test_resolve_ordinal(question, history, query, item):
    resolution = resolve_followup(question, history)
    assert resolution.item == item
    if query is not None:
        assert resolution.query == query
    if item:
        assert item not in resolution.others and len(resolution.others) >= 1


@pytest.mark.parametrize(
    "question, history, expected",
    [
        # A person pronoun becomes the person the question before named.
        ("What is her email?", ["What are Dr. Marsh's office hours?"], "What is Dr. Marsh's email?"),
        ("How do I contact her?", ["What are Dr. Marsh's office hours?"], "How do I contact Dr. Marsh?"),
        ("她的邮箱是什么？", ["李明华老师的答疑时间是什么时候？"], "李明华老师的邮箱是什么？"),
        ("那他的办公室呢？", ["陈思远老师的答疑时间是什么时候？"], "那陈思远老师的办公室呢？"),
        # ... the person of the question before that when it was itself a follow-up.
        (
            "What is his email?",
            ["What are Dr. Marsh's office hours?", "And Dr. Okoye's?"],
            "What is Dr. Okoye's email?",
        ),
        # No person named: the subject's words are carried, as for "it".
        ("Is it stable?", ["What does quicksort do?"], "Is it stable? quicksort"),
    ],
)
def test_resolve_references(question, history, expected):
    assert rewrite_followup(question, history) == expected


def test_word_lists_are_data():
    """Every ordinal the resolver knows is in followup_words.yaml, and each language's reads."""
    table = words()["ordinals"]
    assert set(table) == {"en", "zh"}
    for lang, entries in table.items():
        for word, n in entries.items():
            question = f"What about the {word} one?" if lang == "en" else f"{word}个呢？"
            assert ordinal_of(question) == n, (lang, word)
