"""How similar is "similar" for this question? A per-question floor for vector similarity.

Embedding models differ in how they use the cosine range: MiniLM gives unrelated texts
~0.1 and related ones ~0.5; multilingual-e5 gives unrelated texts ~0.75 and related ones
~0.85, and a Chinese question sits higher against everything than an English one. A fixed
threshold cannot serve them all. Instead each question is compared with a small set of
background sentences about everyday topics that no course is about: how similar the
question is to them is how similar it is to text that does not answer it. A candidate's
calibrated similarity is its margin over that floor, in units of the floor's spread.

The background sentences below were written for this purpose (English and Chinese, one
topic each, none about teaching, courses or exams).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BACKGROUND = (
    "The bakery on the corner sells fresh sourdough bread every morning.",
    "Heavy rain is expected along the coast for the rest of the week.",
    "The striker scored twice in the second half to win the match.",
    "Add the onions to the pan and cook them until they are soft and golden.",
    "The museum's new exhibition shows paintings from the eighteenth century.",
    "Our flight was delayed for three hours because of fog at the airport.",
    "Cats often sleep for more than twelve hours a day.",
    "The band released its first album after touring for two years.",
    "Tomatoes grow best in warm weather with plenty of sunlight.",
    "The mountain trail is closed in winter because of avalanches.",
    "She bought a red bicycle and rides it to the market on Saturdays.",
    "The river flooded the old town after the dam was opened.",
    "A cup of green tea contains less caffeine than a cup of coffee.",
    "The hotel room had a balcony with a view of the harbour.",
    "Elephants can recognise themselves in a mirror.",
    "The orchestra played a symphony by Beethoven at the summer festival.",
    "Fresh snow covered the village roofs overnight.",
    "The recipe calls for two eggs, a cup of flour and some milk.",
    "The marathon runners passed the bridge just after nine o'clock.",
    "A new coffee shop opened next to the train station.",
    "面包店每天早上都出售新鲜出炉的面包。",
    "本周沿海地区将持续出现大雨天气。",
    "前锋在下半场打进两球，帮助球队赢得了比赛。",
    "把洋葱放进锅里，炒到变软变黄。",
    "博物馆的新展览展出了十八世纪的油画。",
    "因为机场有雾，我们的航班延误了三个小时。",
    "猫每天经常要睡十二个小时以上。",
    "这支乐队巡演两年后发行了第一张专辑。",
    "西红柿在阳光充足的温暖天气里长得最好。",
    "冬天因为有雪崩危险，山路会关闭。",
    "她买了一辆红色自行车，每周六骑车去市场。",
    "大坝开闸后，河水淹没了老城区。",
    "一杯绿茶的咖啡因比一杯咖啡少。",
    "酒店房间有一个可以看到港口的阳台。",
    "大象能在镜子里认出自己。",
    "夏季音乐节上，乐团演奏了贝多芬的交响曲。",
    "一夜之间，新雪覆盖了村里的屋顶。",
    "这道菜需要两个鸡蛋、一杯面粉和一些牛奶。",
    "马拉松选手九点刚过就跑过了大桥。",
    "火车站旁边新开了一家咖啡馆。",
)


@dataclass(frozen=True)
class Floor:
    """A question's similarity to text that does not answer it: mean and spread."""

    mean: float
    spread: float

    def margin(self, similarity: float) -> float:
        """How far above the floor a similarity is, in spreads (0 at the floor's mean)."""
        return (similarity - self.mean) / self.spread


def floor_of(query_vector: np.ndarray, background: np.ndarray) -> Floor:
    """The floor from the question's cosines to the background sentences' vectors."""
    sims = background @ np.asarray(query_vector, dtype=np.float32)
    return Floor(float(sims.mean()), max(float(sims.std()), 0.01))
