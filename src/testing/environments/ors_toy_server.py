"""A toy Open Reward Standard server for the remote environment's tests (stdlib only).

Environment `arith`: the task spec is a Curricula problem ({id, prompt, answer, ...}); tools `calc`
({expression}: exact integer + - * and parentheses, reward 0) and `submit` ({answer}: reward 1 when it
equals the task's answer, else 0, and the episode is finished). Tool calls answer over SSE: a task_id
event, a keep-alive comment, the result's JSON in `chunk` events of 7 characters and an `end` event,
written a few bytes at a time so the client sees events split anywhere.

A base URL of /fault/<mode> selects a misbehaviour for every request under it:
  garbage   every endpoint answers 200 with text that is not JSON
  flaky     the first request to each path answers 500, the next succeeds (and so on, alternating)
  hang      tool calls never answer
  huge      the prompt is 5 MB of JSON (with its Content-Length)
  hugecall  a tool call streams 5 MB of chunks (no Content-Length)
  badsse    a tool call streams an `end` whose data is not JSON
  cutsse    a tool call's stream stops before its `end` event
  ssesession  /create_session answers as the Python SDK does (SSE: task_id, end)
Prints `ORS_READY <port>` once listening on 127.0.0.1 (port 0: a free one).
"""

import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SESSIONS = {}
COUNTS = {}
LOCK = threading.Lock()
TOOLS = [
    {
        "name": "calc",
        "description": "Exact integer arithmetic",
        "input_schema": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
    },
    {
        "name": "submit",
        "description": "Submit the final answer",
        "input_schema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
    },
]


def calc(expression):
    if len(expression) > 100 or not re.fullmatch(r"[0-9+\-* ()]+", expression):
        raise ValueError("only integers, + - * and parentheses")
    return str(eval(expression, {"__builtins__": {}}, {}))  # the charset above admits no names


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def json(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def sse(self, text):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        data = text.encode()
        for start in range(0, len(data), 5):
            self.wfile.write(data[start : start + 5])
            self.wfile.flush()

    def route(self, method):
        path = self.path
        mode = ""
        match = re.match(r"^/fault/([a-z]+)(/.*)$", path)
        if match:
            mode, path = match.group(1), match.group(2)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        sid = self.headers.get("X-Session-ID")
        if mode == "garbage":
            return self.raw(200, b"<html>surely not json</html>")
        if mode == "flaky":
            with LOCK:
                COUNTS[path] = COUNTS.get(path, 0) + 1
                first = COUNTS[path] % 2 == 1
            if first:
                return self.json(500, {"detail": "flaky: try again"})
        return self.endpoint(method, path, body, sid, mode)

    def raw(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(data)

    def endpoint(self, method, path, body, sid, mode):
        if path == "/health":
            return self.json(200, {"status": "ok"})
        if path == "/list_environments":
            return self.json(200, ["arith"])
        if path == "/create_session":
            new = str(uuid.uuid4())
            if mode == "ssesession":
                return self.sse(f"event: task_id\ndata: {new}\n\nevent: end\ndata: \n\n")
            return self.json(200, {"sid": new})
        if path == "/create":
            if body.get("env_name") != "arith" or not isinstance(body.get("task_spec"), dict):
                return self.json(400, {"detail": "need env_name arith and a task_spec"})
            with LOCK:
                SESSIONS[sid] = {"task": body["task_spec"]}
            return self.json(200, {"sid": sid})
        if path in ("/delete", "/delete_session"):
            with LOCK:
                SESSIONS.pop(sid, None)
            return self.json(200, {"sid": sid})
        match = re.match(r"^/([^/]+)/(tools|task_tools|splits|tasks|prompt|call)$", path)
        if not match or match.group(1) != "arith":
            return self.json(404, {"detail": f"no route {path}"})
        what = match.group(2)
        if what in ("tools", "task_tools"):
            return self.json(200, {"tools": TOOLS})
        if what == "splits":
            return self.json(200, [{"name": "train", "type": "train"}])
        if what == "tasks":
            return self.json(200, {"tasks": [{"prompt": "1+1", "answer": "2"}], "env_name": "arith"})
        session = SESSIONS.get(sid)
        if session is None:
            return self.json(404, {"detail": "Active environment not found"})
        if what == "prompt":
            if mode == "huge":
                return self.json(200, [{"type": "text", "text": "x" * 5_000_000}])
            return self.json(200, [{"type": "text", "text": session["task"].get("prompt", ""), "detail": None}])
        return self.call(session, body, mode)

    def call(self, session, body, mode):
        if mode == "hang":
            time.sleep(60)
            return None
        name, given = body.get("name"), body.get("input") or {}
        if name == "calc":
            try:
                result = {"ok": True, "output": {"blocks": [{"type": "text", "text": calc(str(given.get("expression", "")))}], "reward": None, "finished": False}}
            except ValueError as error:
                result = {"ok": False, "error": str(error)}
        elif name == "submit":
            right = str(given.get("answer", "")).strip() == str(session["task"].get("answer"))
            text = "correct" if right else "wrong"
            result = {"ok": True, "output": {"blocks": [{"type": "text", "text": text}], "reward": 1.0 if right else 0.0, "finished": True}}
        else:
            result = {"ok": False, "error": f"unknown tool {name}"}
        data = json.dumps(result)
        if mode == "hugecall":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for _ in range(80):
                self.wfile.write(b"event: chunk\ndata: " + b"x" * 65_536 + b"\n\n")
            return None
        if mode == "badsse":
            return self.sse("event: task_id\ndata: t1\n\nevent: end\ndata: {not json\n\n")
        pieces = [data[i : i + 7] for i in range(0, len(data), 7)]
        events = ["event: task_id\ndata: t1\n\n", ": ping\n\n"]
        events += [f"event: chunk\ndata: {piece}\n\n" for piece in pieces[:-1]]
        if mode == "cutsse":
            return self.sse("".join(events))
        events.append(f"event: end\ndata: {pieces[-1]}\n\n")
        return self.sse("".join(events))

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print(f"ORS_READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
