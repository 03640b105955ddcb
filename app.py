"""The Hugging Face Space entry point: `python app.py` serves the study assistant.

HOST / PORT choose the address (default 127.0.0.1:7860; 0.0.0.0 on a Space, where SPACE_ID
is set; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT work too). The app starts even when a course
has no index yet: its answers then come from the learner's uploads, and the course card
says to run `python build_weaviate_index.py`.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from courserag.logs import configure_logging, quiet_environment  # noqa: E402

quiet_environment()

from courserag.ui import build_demo, launch_options  # noqa: E402


def main() -> None:
    from courserag.engine import RagEngine
    from courserag.settings import Settings
    from courserag.startup import prepare

    configure_logging()
    settings = Settings.from_env()
    engine = RagEngine.from_settings(settings)
    prepare(engine, settings)
    demo = build_demo(engine, settings)
    demo.queue().launch(server_name=settings.host, server_port=settings.port, show_error=False, **launch_options(settings))


if __name__ == "__main__":
    main()
