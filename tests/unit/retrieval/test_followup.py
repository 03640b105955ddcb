import pytest

from courserag.retrieval.followup import looks_like_followup, rewrite_followup


@pytest.mark.parametrize(
    "question, expected",
    [
        ("what about week 5?", True),
        ("And for HW4?", True),
        ("那 ECE 专业呢？", True),
        ("What is the late policy for homework in CSC3100?", False),
        ("迟交作业会扣多少分？", False),
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
