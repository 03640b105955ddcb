"""DS2010 第7周：K-means 聚类的纯 Python 实现（不依赖 NumPy，便于阅读每一步）。

算法（Lloyd 算法）：
    1. 初始化：选出 k 个初始中心（本文件实现 k-means++ 初始化）；
    2. 分配步骤：把每个样本分配给距离最近的中心；
    3. 更新步骤：把每个中心移动到其所属样本的均值；
    4. 重复 2、3，直到中心不再变化或达到最大迭代次数。

目标函数是簇内平方和（SSE，也叫 inertia）：每个样本到其所属中心的欧氏距离平方之和。
每一轮迭代都不会使 SSE 增大，因此算法一定收敛，但可能收敛到局部最优，
所以实际使用时通常用不同的随机种子运行多次（n_init），取 SSE 最小的结果。

运行 ``python kmeans.py`` 可以看到一个二维小数据集上的演示。
"""

from __future__ import annotations

import math
import random
from typing import List, Sequence, Tuple

Point = Tuple[float, ...]


def squared_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """两个点之间欧氏距离的平方（比较大小时不必开方，省去 sqrt 的开销）。"""
    return sum((x - y) ** 2 for x, y in zip(a, b))


def mean_point(points: List[Point]) -> Point:
    """一组点的均值（逐维求平均），即该簇新的中心。"""
    dim = len(points[0])
    return tuple(sum(p[d] for p in points) / len(points) for d in range(dim))


def kmeans_plus_plus_init(data: List[Point], k: int, rng: random.Random) -> List[Point]:
    """k-means++ 初始化：让初始中心彼此尽量分散。

    第一个中心均匀随机选取；之后每个样本被选为下一个中心的概率
    与它到"最近已选中心"的距离平方成正比。
    """
    centers = [rng.choice(data)]
    while len(centers) < k:
        # 每个样本到最近中心的距离平方
        d2 = [min(squared_distance(p, c) for c in centers) for p in data]
        total = sum(d2)
        if total == 0:  # 所有点都与已有中心重合
            centers.append(rng.choice(data))
            continue
        r = rng.uniform(0, total)  # 按距离平方加权抽样
        acc = 0.0
        for p, w in zip(data, d2):
            acc += w
            if acc >= r:
                centers.append(p)
                break
    return centers


def assign(data: List[Point], centers: List[Point]) -> List[int]:
    """分配步骤：返回每个样本所属中心的下标。"""
    labels = []
    for p in data:
        distances = [squared_distance(p, c) for c in centers]
        labels.append(distances.index(min(distances)))
    return labels


def sse(data: List[Point], centers: List[Point], labels: List[int]) -> float:
    """簇内平方和（SSE / inertia），肘部法则中画的就是它随 k 的变化曲线。"""
    return sum(squared_distance(p, centers[j]) for p, j in zip(data, labels))


def kmeans(data: List[Point], k: int, max_iter: int = 100, seed: int = 0) -> Tuple[List[Point], List[int], float]:
    """对 data 做 K-means 聚类，返回 (中心列表, 标签列表, SSE)。

    参数：
        data: 样本列表，每个样本是等长的数值元组；
        k: 簇的个数，必须满足 1 <= k <= len(data)；
        max_iter: 最大迭代次数；
        seed: 随机种子，固定后结果可复现。
    """
    if not 1 <= k <= len(data):
        raise ValueError("k 必须在 1 和样本数之间")
    rng = random.Random(seed)
    centers = kmeans_plus_plus_init(data, k, rng)
    labels = assign(data, centers)
    for _ in range(max_iter):
        # 更新步骤：每个中心移到所属样本的均值；空簇则保留原中心
        new_centers = []
        for j in range(k):
            members = [p for p, lab in zip(data, labels) if lab == j]
            new_centers.append(mean_point(members) if members else centers[j])
        new_labels = assign(data, new_centers)
        converged = new_labels == labels  # 分配不再变化即收敛
        centers, labels = new_centers, new_labels
        if converged:
            break
    return centers, labels, sse(data, centers, labels)


def silhouette(data: List[Point], labels: List[int]) -> float:
    """平均轮廓系数：s(i) = (b - a) / max(a, b)，取值范围 [-1, 1]，越大越好。

    a：样本 i 到同簇其他样本的平均距离（簇内紧密程度）；
    b：样本 i 到最近的其他簇中所有样本的平均距离（簇间分离程度）。
    只有一个样本的簇，其轮廓系数按惯例记为 0。
    """
    scores = []
    clusters = sorted(set(labels))
    for i, p in enumerate(data):
        same = [q for j, q in enumerate(data) if labels[j] == labels[i] and j != i]
        if not same:
            scores.append(0.0)
            continue
        a = sum(math.dist(p, q) for q in same) / len(same)
        b = min(
            sum(math.dist(p, q) for q, lab in zip(data, labels) if lab == c) / labels.count(c)
            for c in clusters
            if c != labels[i]
        )
        scores.append((b - a) / max(a, b))
    return sum(scores) / len(scores)


def make_blobs(seed: int = 42) -> List[Point]:
    """生成三团二维高斯数据（每团 20 个点），用于演示。"""
    rng = random.Random(seed)
    centers = [(0.0, 0.0), (5.0, 5.0), (0.0, 6.0)]
    return [
        (round(cx + rng.gauss(0, 0.8), 3), round(cy + rng.gauss(0, 0.8), 3)) for cx, cy in centers for _ in range(20)
    ]


if __name__ == "__main__":
    points = make_blobs()
    # 肘部法则：观察 SSE 随 k 增大而下降的速度，拐点处的 k 通常是较好的选择
    for k in range(1, 6):
        _, labels, inertia = kmeans(points, k, seed=0)
        sil = silhouette(points, labels) if k > 1 else float("nan")
        print(f"k={k}  SSE={inertia:8.2f}  轮廓系数={sil:.3f}")
    centers, labels, _ = kmeans(points, 3, seed=0)
    print("k=3 的簇中心：", [tuple(round(v, 2) for v in c) for c in centers])
