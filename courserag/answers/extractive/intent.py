"""What a question asks for: the kinds of fact an answer must hold, in English and Chinese.

"When is the midterm?" needs a date or a time; "When and where…" needs both a date/time
and a place; "What is the TA's phone number?" needs a phone number, and a sentence that
only has her e-mail address does not answer it. Rules are about the wording of questions,
never about a particular course.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# kind of question -> (pattern, the fact kinds any one of which answers it)
_RULES: tuple[tuple[str, re.Pattern, frozenset[str]], ...] = (
    (
        "when",
        re.compile(
            # "when" as a question word (not "can it be used when …"): first, or before a verb.
            r"^\s*when\b(?! (?:does|do|did|will) (?:it|this|that|they) (?:happen|occur|apply))"
            r"|\bwhen (?:is|are|was|were|does|do|did|will|would|should|can|must|has|have)\b"
            r"(?! (?:it|this|that|they) (?:happen|occur|apply))"
            r"|\bwhat (?:date|day|days|time|times|year)\b|\bwhich (?:date|day|days|week|year)\b|\boffice hours?\b"
            r"|什么时候|何时|哪[一几]?天|几号|几点|什么时间|日期|哪一?周|哪一?年|几月|时间(?!复杂度)|答疑",
            re.IGNORECASE,
        ),
        frozenset({"date", "time"}),
    ),
    # A deadline named in the question asks for its date only when nothing else is asked:
    # "how many points do I lose after the deadline?" asks for a number.
    ("deadline", re.compile(r"\bdeadlines?\b|\bdue\b|截止", re.IGNORECASE), frozenset({"date", "time"})),
    (
        "where",
        re.compile(
            r"\bwhere\b|\bwhich (?:room|building|hall|lab|classroom)\b|\bwhat (?:room|building|location|venue)\b|\blocation\b|\bvenue\b"
            r"|哪里|哪儿|在哪(?![一几]?[天周年])|哪个(?:教室|地方|楼|机房)|什么地[点方]|地点",
            re.IGNORECASE,
        ),
        frozenset({"place"}),
    ),
    (
        "who",
        re.compile(
            r"\bwho(?:m|se)?\b|\bwhich (?:ta|instructor|professor|lecturer|person|teacher)\b|\bwrite to\b|\bcontact\b"
            r"|谁|哪位|找谁|联系(?:谁|哪位)|负责人",
            re.IGNORECASE,
        ),
        frozenset({"person", "email"}),
    ),
    # The address, not the verb: "who do I email about an extension?" asks for a person.
    (
        "email",
        re.compile(
            r"\be-?mail address(?:es)?\b|\b(?:the|an|their|her|his|its|your|my|whose)\s+e-?mails?\b|'s\s+e-?mail\b"
            r"|邮箱|邮件地址|电子邮件",
            re.IGNORECASE,
        ),
        frozenset({"email"}),
    ),
    (
        "phone",
        re.compile(r"\b(?:tele)?phone\b|\bmobile(?: number)?\b|\bcell number\b|电话|手机号?", re.IGNORECASE),
        frozenset({"phone"}),
    ),
    # A messaging account (WeChat, QQ, WhatsApp…): an e-mail address does not answer it.
    (
        "messaging",
        re.compile(
            r"\bwe-?chat\b|\bqq\b|\bwhatsapp\b|\btelegram\b|\bsignal (?:number|account)\b|微信|企业微信", re.IGNORECASE
        ),
        frozenset({"messaging"}),
    ),
    (
        "complexity",
        re.compile(
            r"\bhow fast\b|\brunning time\b|\btime complexity\b|\bcomplexity\b|\bworst[- ]case\b|\bbig-?o\b|复杂度|多快",
            re.IGNORECASE,
        ),
        frozenset({"complexity"}),
    ),
    (
        "percent",
        re.compile(
            r"\bwhat percent(?:age)?\b|\bpercent(?:age)?\b|\bweight(?:ing)?\b|\bhow much (?:does|is) .{1,40} (?:worth|count)\b"
            r"|比例|百分之|权重|占.{0,8}(?:多少|几)",
            re.IGNORECASE,
        ),
        frozenset({"percent"}),
    ),
    (
        "quantity",
        re.compile(
            r"\bhow (?:many|much|long)\b|\bwhat (?:is the )?(?:number|amount|score|value|size)\b|\bdeducted\b"
            r"|多少|几个|几次|几分|几学分|多长|多久|扣.{0,4}分",
            re.IGNORECASE,
        ),
        frozenset({"number", "percent", "duration", "complexity"}),
    ),
)
# When one of these fired, a "how many / 多少" in the same question asks for it, not for any number.
_NARROWER = ("percent", "complexity", "when", "phone", "email", "messaging")  # ("deadline" gave way above)
_YES_NO = re.compile(
    r"^\s*(?:is|are|can|could|may|do|does|did|will|would|should|am|must|has|have|was|were)\b|吗[？?。.!！]*\s*$|能否|是否|可不可以|能不能|有没有|会不会|算不算|可以.{0,20}吗",
    re.IGNORECASE,
)
_LIST = re.compile(
    r"\bwhich (?:topics|files|chapters|weeks|two|three|four)\b|\bwhat (?:are|topics)\b|\blist\b|\ball the\b|\bboth\b"
    r"|哪些|有什么|包括|哪两|哪三|哪几",
    re.IGNORECASE,
)
_WHY_HOW = re.compile(r"^\s*(?:why|how)\b|\b(?:and|,) why\b|为什么|为何|怎么|如何|怎样", re.IGNORECASE)


@dataclass(frozen=True)
class Ask:
    """What a question wants: fact kinds it needs (each a set of acceptable kinds), and its form."""

    needs: tuple[frozenset[str], ...]  # every need must be met; any kind in a need meets it
    labels: tuple[str, ...]  # the rule names that fired ("when", "where"…), for reading and tests
    yes_no: bool = False
    wants_list: bool = False
    explanation: bool = False  # "why" / "how": an explanation, not a fact
    procedure: bool = (
        False  # "how …" even with a fact asked for ("how are late days deducted?"): the rule, not one number
    )

    @property
    def factual(self) -> bool:
        return bool(self.needs)


def classify(question: str) -> Ask:
    """The needs and form of a question (pure, table-driven)."""
    labels: list[str] = []
    needs: list[frozenset[str]] = []
    for label, pattern, kinds in _RULES:
        if pattern.search(question):
            labels.append(label)
            needs.append(kinds)
    if "email" in labels and "who" in labels:
        needs.remove(frozenset({"person", "email"}))  # "who … and what is their e-mail": the e-mail answers both
        labels.remove("who")
        needs.append(frozenset({"person"}))
        labels.append("who")
    if "deadline" in labels and (len(labels) > 1):
        index = labels.index("deadline")  # the date of a deadline is asked only when nothing else is
        labels.pop(index)
        needs.pop(index)
    if "quantity" in labels and any(label in labels for label in _NARROWER):
        index = labels.index("quantity")  # "what percentage…", "phone number 是多少": the narrower need wins
        labels.pop(index)
        needs.pop(index)
    how = bool(_WHY_HOW.search(question))
    return Ask(
        needs=tuple(needs),
        labels=tuple(labels),
        yes_no=bool(_YES_NO.search(question)) and not labels,
        wants_list=bool(_LIST.search(question)),
        # "why", or "how" without a fact kind ("how is the LR case fixed?"); "…, and why?" too.
        explanation=how and (not needs or bool(re.search(r"\bwhy\b|为什么", question, re.I))),
        procedure=how,
    )
