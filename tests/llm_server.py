"""A local OpenAI-compatible chat endpoint on 127.0.0.1 for tests.

It speaks the real wire format (POST /v1/chat/completions, JSON or server-sent events when
stream=true), records every request it receives, and can be told to misbehave: HTTP 500,
malformed JSON, a stream that stops halfway, a reply slower than the client's timeout, a
reply that trickles (one word, or one keep-alive comment, every `delay_s`: each read is
quick, the answer never ends) or one far longer than asked for.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class FakeLLM:
    mode: str = "ok"  # ok | error500 | malformed | truncated | slow | refuse | trickle | keepalive | long
    reply: str | None = None  # in mode "ok": this answer to every question, when set
    delay_s: float = 5.0
    trickle_limit: int = 400  # a trickle stops by itself after this many writes
    disconnected: threading.Event = field(default_factory=threading.Event)  # a trickling client went away
    requests: list[dict] = field(default_factory=list)
    headers: list[dict] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reply_for(self, body: dict) -> str:
        """A grounded-looking answer that cites the first source it was given."""
        if self.mode == "refuse":
            return "NOT_IN_MATERIALS"
        if self.mode == "long":
            return "According to the course materials [1], " + "the answer goes on and on. " * 800
        if "standalone search query" in body["messages"][0]["content"]:
            last = body["messages"][-1]["content"].rsplit("Last question:", 1)[-1].strip()
            return f"rewritten: {last} (late policy)"
        if self.reply is not None:
            return self.reply
        user = body["messages"][-1]["content"]
        numbers = re.findall(r'<source n="(\d+)"', user)
        first = numbers[0] if numbers else "1"
        return f"According to the course materials, this is answered in source [{first}]."

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()


def _chunk(content: str | None, finish: str | None = None) -> bytes:
    event = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "fake",
        "choices": [{"index": 0, "delta": {"content": content} if content else {}, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def start_fake_llm(mode: str = "ok") -> FakeLLM:
    fake = FakeLLM(mode=mode)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output clean
            pass

        def do_POST(self):  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            if fake.mode == "slow":
                time.sleep(fake.delay_s)
            if fake.mode == "error500":
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "boom", "type": "server_error"}}')
                return
            if fake.mode == "malformed":
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream" if body.get("stream") else "application/json")
                self.end_headers()
                self.wfile.write(b"data: {this is not json\n\n" if body.get("stream") else b"{not json")
                return
            text = fake.reply_for(body)
            if fake.mode in ("trickle", "keepalive"):
                self._trickle(bool(body.get("stream")))
                return
            if not body.get("stream"):
                payload = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "fake",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            words = text.split(" ")
            if fake.mode == "truncated":
                words = words[: max(1, len(words) // 2)]
            try:
                for i, word in enumerate(words):
                    self.wfile.write(_chunk(word if i == 0 else " " + word))
                    self.wfile.flush()
                if fake.mode != "truncated":
                    self.wfile.write(_chunk(None, "stop"))
                    self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:  # the client stopped reading (e.g. an answer over its length cap)
                fake.disconnected.set()
            self.close_connection = True

        def _trickle(self, stream: bool) -> None:
            """Quick writes that never make a whole answer, until the client hangs up."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
            self.end_headers()
            wait = threading.Event()
            try:
                for i in range(fake.trickle_limit):
                    if not stream:
                        self.wfile.write(b" ")  # JSON allows leading whitespace, forever
                    elif fake.mode == "keepalive":
                        self.wfile.write(b": still thinking\n\n")
                    else:
                        self.wfile.write(_chunk("word" if i == 0 else " word"))
                    self.wfile.flush()
                    wait.wait(fake.delay_s)
            except OSError:
                fake.disconnected.set()
            self.close_connection = True

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False  # a deliberately slow reply must not hold up the test's teardown

    fake.server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=fake.server.serve_forever, daemon=True).start()
    return fake
