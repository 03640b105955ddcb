"""Step 5: the report, as a record (JSON) and as a Markdown table for docs/EVALUATION.md."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Report:
    set_name: str
    scope: str
    fusion: str
    top_k: int
    passages: int
    chunks: int
    courses: int
    questions: int
    systems: dict[str, dict[str, float]]
    refusals: dict[str, float]
    timings: dict[str, float]
    settings: dict[str, str]
    command: str = ""

    def to_json(self) -> dict:
        return {
            "set": self.set_name,
            "scope": self.scope,
            "fusion": self.fusion,
            "top_k": self.top_k,
            "passages": self.passages,
            "chunks": self.chunks,
            "courses": self.courses,
            "questions": self.questions,
            "systems": self.systems,
            "refusals": self.refusals,
            "timings": self.timings,
            "settings": self.settings,
            "command": self.command,
        }


def _refusal_lines(report: Report) -> list[str]:
    ref = report.refusals
    lines = [f"- right-course refusals (answerable questions, top_k={report.top_k}): {ref['right_course_refused']:.3f}"]
    if "wrong_course_refused" in ref:
        lines.append(
            f"- wrong-course refusals (asked against another title's course): {ref['wrong_course_refused']:.3f}"
        )
        lines.append(f"- balanced refusal accuracy: {ref['balanced_refusal_accuracy']:.3f}")
    if "unanswerable_refused" in ref:
        lines.append(
            f"- unanswerable questions refused: {ref['unanswerable_refused']:.3f} of {int(ref['unanswerable'])}"
        )
    else:
        lines.append("- refusal accuracy on unanswerable questions: n/a (the set has none)")
    return lines


def format_report(report: Report) -> str:
    """The result table as Markdown (pasteable into docs/EVALUATION.md)."""
    r5 = "section hit@5" if report.set_name.startswith("d2l") else "R@5"
    lines = [
        f"### {report.set_name}, {report.scope} scope ({report.questions} questions, {report.passages} passages, "
        f"{report.chunks} chunks, {report.courses} course{'s' if report.courses != 1 else ''})",
        "",
        f"| system | R@1 | {r5} | MRR@10 | refused | p50 ms | p95 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, m in report.systems.items():
        lines.append(
            f"| {name} | {m['R@1']:.3f} | {m['R@5']:.3f} | {m['MRR@10']:.3f} | {m['refused']:.3f} "
            f"| {m['p50_ms']:.1f} | {m['p95_ms']:.1f} |"
        )
    lines.append("")
    lines.extend(_refusal_lines(report))
    st, t = report.settings, report.timings
    lines.append(
        f"- product: ranking module {st.get('ranking')}, fusion {st.get('fusion')}, min_candidates {st.get('min_candidates')}, "
        f"sentence_weight {st.get('sentence_weight')}, "
        f"chunk_tokens {st.get('chunk_tokens')}, embedder {st.get('embedder')}"
    )
    lines.append(
        f"- latency: retrieval with the query vector cached; embedding one query takes p50 "
        f"{t['embed_query_p50_ms']:.1f} ms more. Ingest {t['ingest_s']:.1f} s ({int(t['texts_embedded'])} texts embedded), "
        f"questions {t['questions_s']:.1f} s"
    )
    return "\n".join(lines)
