"""The Hugging Face Space entry point: `python app.py` serves the study assistant.

HOST / PORT choose the address (default 127.0.0.1:7860; 0.0.0.0 on a Space, where SPACE_ID
is set; GRADIO_SERVER_NAME / GRADIO_SERVER_PORT work too). A port already in use is one
line on stderr and exit status 1. The app starts even when a course has no index yet: its
answers then come from the learner's uploads, and the course card says to run
`python build_weaviate_index.py`.
"""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from courserag.config.logs import configure_logging, quiet_environment  # noqa: E402

quiet_environment()

from courserag.ui import build_demo  # noqa: E402
from courserag.ui.launch import launch  # noqa: E402


def port_in_use(host: str, port: int) -> bool:
    """Whether another process already listens on host:port (checked before the slow start)."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def main() -> int:
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine
    from courserag.engine.startup import prepare
    from courserag.errors import ConfigError

    configure_logging()
    try:  # a wrong setting (or MiniLM without requirements-minilm.txt) is one line, not a traceback
        settings = Settings.from_env()
        in_use = f"error: port {settings.port} on {settings.host} is already in use; set PORT to a free port (e.g. PORT=7861)"
        if port_in_use(settings.host, settings.port):
            print(in_use, file=sys.stderr)
            return 1
        engine = RagEngine.from_settings(settings)
        prepare(engine, settings)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    demo = build_demo(engine, settings)
    try:
        launch(demo, settings)
    except OSError as exc:  # taken between the check and the start: still one line
        print(in_use if "port" in str(exc).lower() else f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
