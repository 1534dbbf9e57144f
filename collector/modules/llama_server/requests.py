"""Requests to a running llama-server over plain HTTP on 127.0.0.1 (http.client, one kept-alive
connection): synthetic prompts made with the server's own tokenizer, and timed ``/completion``
calls with the server's ``timings``."""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from typing import Any

from benchledger.records.digest import sha256_hex
from collector.modules.llama_server.server import HOST

# The text synthetic prompts are cut from: tokenized once by the server (add_special false),
# repeated, then truncated to each context length. Its sha256 is the record's
# settings.synthetic_prompt_sha256.
SYNTHETIC_TEXT = (
    "The measurement repeats this paragraph until the prompt has exactly the planned number of "
    "tokens. It is plain English with digits 0123456789, punctuation (commas, periods; colons: "
    "and dashes - too) and a few longer words such as characterisation, reproducibility and "
    "throughput, so that the tokenizer sees an ordinary mix of pieces.\n"
)
TOKENIZATION = "model_tokenizer_add_special_false_repeat_then_truncate"


class RequestError(Exception):
    """A request got no usable answer (connection refused or reset, timeout, HTTP error, a
    response without the expected fields). ``timed_out`` tells a timeout apart."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


@dataclass(frozen=True)
class Completion:
    """One completed ``/completion`` request."""

    response_seconds: float  # wall clock from sending the request to its last byte
    prompt_n: int
    prompt_ms: float
    predicted_n: int
    predicted_ms: float
    predicted_per_second: float | None

    def as_json(self) -> dict[str, Any]:
        """The request's own figures as the record keeps them (server timings in ms)."""
        return {
            "predicted_ms": self.predicted_ms,
            "predicted_n": self.predicted_n,
            "predicted_per_second": self.predicted_per_second,
            "prompt_ms": self.prompt_ms,
            "prompt_n": self.prompt_n,
            "response_seconds": self.response_seconds,
        }

    @property
    def first_token_seconds(self) -> float:
        """The synthetic first-token latency: the server's prompt-processing time up to the
        first sampled token (timings.prompt_ms / 1000); no network, queueing or HTTP time."""
        return self.prompt_ms / 1000.0

    @property
    def decode_tokens_per_second(self) -> float | None:
        """(predicted_n - 1) / predicted_ms x 1000: predicted_ms starts at the first sampled
        token, so it covers predicted_n - 1 decode steps (comparable to TPOT). None when fewer
        than two tokens were predicted."""
        if self.predicted_n < 2 or self.predicted_ms <= 0:
            return None
        return (self.predicted_n - 1) / self.predicted_ms * 1000.0


class Client:
    """A kept-alive HTTP connection to one server; reconnects after an error."""

    def __init__(self, port: int, timeout_s: float):
        self.port = port
        self.timeout_s = timeout_s
        self._conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST JSON, return the decoded JSON answer; RequestError on any failure."""
        body = json.dumps(payload).encode()
        if self._conn is None:
            self._conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout_s)
        try:
            self._conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
            response = self._conn.getresponse()
            data = response.read()
        except TimeoutError as err:
            self.close()
            raise RequestError(f"POST {path}: no answer within {self.timeout_s:g} s", timed_out=True) from err
        except (OSError, http.client.HTTPException) as err:
            self.close()
            raise RequestError(f"POST {path}: {type(err).__name__}: {err}") from err
        if response.status != 200:
            raise RequestError(f"POST {path}: HTTP {response.status}: {data[:200].decode('utf-8', 'replace')}")
        try:
            return json.loads(data)
        except ValueError as err:
            raise RequestError(f"POST {path}: answer is not JSON ({err})") from err

    def tokenize(self, text: str) -> list[int]:
        """The server's tokens for ``text`` without special tokens (no BOS)."""
        answer = self.post("/tokenize", {"content": text, "add_special": False})
        tokens = answer.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise RequestError("POST /tokenize: answer has no list of token ids")
        return tokens

    def complete(self, prompt: list[int], output_tokens: int, seed: int) -> Completion:
        """One timed ``/completion``: exactly ``output_tokens`` tokens (ignore_eos), greedy,
        no prompt cache, so every request processes its whole prompt."""
        payload = {
            "prompt": prompt,
            "n_predict": output_tokens,
            "ignore_eos": True,
            "temperature": 0,
            "seed": seed,
            "cache_prompt": False,
            "stream": False,
        }
        started = time.perf_counter()
        answer = self.post("/completion", payload)
        elapsed = time.perf_counter() - started
        timings = answer.get("timings")
        try:
            return Completion(
                response_seconds=elapsed,
                prompt_n=int(timings["prompt_n"]),
                prompt_ms=float(timings["prompt_ms"]),
                predicted_n=int(timings["predicted_n"]),
                predicted_ms=float(timings["predicted_ms"]),
                predicted_per_second=timings.get("predicted_per_second"),
            )
        except (TypeError, KeyError, ValueError) as err:
            raise RequestError(f"POST /completion: answer lacks timings ({err})") from err


@dataclass(frozen=True)
class Prompt:
    tokens: list[int]
    tokens_sha256: str  # of the token ids, comma-separated ASCII


def text_sha256() -> str:
    return sha256_hex(SYNTHETIC_TEXT.encode())


def synthetic_prompt(base_tokens: list[int], length: int) -> Prompt:
    """``base_tokens`` repeated, then cut to exactly ``length`` tokens."""
    if not base_tokens:
        raise RequestError("the synthetic text tokenized to no tokens")
    repeats = -(-length // len(base_tokens))
    tokens = (base_tokens * repeats)[:length]
    digest = sha256_hex(",".join(map(str, tokens)).encode())
    return Prompt(tokens, digest)
