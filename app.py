"""The Hugging Face Space entry point: `python app.py` serves the study assistant.

HOST / PORT choose the address (default 127.0.0.1:7860; 0.0.0.0 on a Space, where SPACE_ID
is set). The app starts even when a course has no index yet: its answers then come from
the learner's uploads, and the course card says to run `python build_weaviate_index.py`.
"""

import logging
import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from courserag.ui import build_demo, launch_options  # noqa: E402

log = logging.getLogger("app")


def main() -> None:
    from courserag.engine import RagEngine
    from courserag.indexer import build_course
    from courserag.textnorm import word_tokens
    from courserag.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for name in ("httpx", "sentence_transformers", "transformers", "jieba", "urllib3"):
        logging.getLogger(name).setLevel(logging.WARNING)
    settings = Settings.from_env()
    engine = RagEngine.from_settings(settings)
    engine.embedder.embed_query("warm up")  # load the model now, not on the first question
    word_tokens("预热")  # and jieba's dictionary (about half a second)
    build_on_start = os.environ.get("BUILD_INDEX_ON_START", "1" if os.environ.get("SPACE_ID") else "0") == "1"
    for course in engine.directory.courses:
        try:
            if engine.store.count(course.id) > 0:
                continue
            if build_on_start and settings.store_kind == "local":
                # A fresh Space has no data/ folder: index the shipped courses once.
                summary = build_course(course, engine.store, engine.embedder, settings)
                log.info("built the index on start: %s", summary.text())
            else:
                log.warning(
                    "course %s has no index yet; run `python build_weaviate_index.py --course %s`",
                    course.id, course.id,
                )
        except Exception as exc:  # noqa: BLE001 - a missing or unreachable store must not stop the app
            log.warning("course store unavailable for %s: %s", course.id, exc)
    demo = build_demo(engine, settings)
    host = os.environ.get("HOST") or ("0.0.0.0" if os.environ.get("SPACE_ID") else "127.0.0.1")
    demo.queue().launch(
        server_name=host,
        server_port=int(os.environ.get("PORT", 7860)),
        show_error=False,
        **launch_options(settings),
    )


if __name__ == "__main__":
    main()
