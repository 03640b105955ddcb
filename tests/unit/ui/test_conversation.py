from courserag.ui.study.turns import ChatTurn, conversation


def turn(question, answer, course="csc3100"):
    return ChatTurn(1, question, answer, (), course, "both", False, "extractive")


def test_the_engine_reads_each_question_with_the_answer_it_got_in_this_course():
    turns = [turn("Q1", "- A [1]\n- B [1]"), turn("其他课", "答", "ds2010"), turn("Q2", "B")]
    assert conversation(turns, "csc3100") == [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "- A [1]\n- B [1]"},
        {"role": "user", "content": "Q2"},
        {"role": "assistant", "content": "B"},
    ]
    assert conversation(turns, "other") == []
