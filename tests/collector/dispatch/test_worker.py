"""What a worker sends back: the result part's bytes with their SHA-256, checked by the driver."""

import hashlib

from collector.dispatch.worker import decode_part


def test_the_driver_uses_a_result_only_when_its_bytes_hash_to_the_sha256_sent_with_them():
    part = b'{"id": "x", "status": "completed"}\n'
    assert decode_part({"part": part, "sha256": hashlib.sha256(part).hexdigest()}) == {"id": "x", "status": "completed"}
    assert decode_part({"part": part.replace(b"x", b"y"), "sha256": hashlib.sha256(part).hexdigest()}) is None
    assert decode_part({"part": "not bytes", "sha256": hashlib.sha256(b"not bytes").hexdigest()}) is None
