"""The site-wide SHA256SUMS: what `sha256sum` would list, with hashes of files untouched since
the last build taken from that build's list only while their size and mtime still match."""

import hashlib
import os
import subprocess

from site_gen.checksums import site_sums


def test_sums_are_what_sha256sum_lists_and_known_hashes_hold_only_for_unchanged_stats(tmp_path):
    (tmp_path / "a.html").write_text("page a")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "b.svg").write_text("<svg/>")
    fresh = site_sums(tmp_path)
    by_sha256sum = subprocess.run(["sha256sum", "a.html", "assets/b.svg"], cwd=tmp_path, capture_output=True, check=True).stdout
    assert fresh == by_sha256sum

    st = (tmp_path / "a.html").stat()
    marker = "0" * 64  # not a.html's hash: shows whether the file was read
    known = {"a.html": (st.st_size, st.st_mtime_ns, marker)}
    assert site_sums(tmp_path, known).startswith(f"{marker}  a.html\n".encode())
    # rewritten (same size, new mtime, as any writer leaves it): hashed again
    (tmp_path / "a.html").write_text("page A")
    os.utime(tmp_path / "a.html", ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert site_sums(tmp_path, known).startswith(hashlib.sha256(b"page A").hexdigest().encode())
