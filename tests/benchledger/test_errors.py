"""benchledger.errors: the one spelling of a system call's failure in messages."""

import errno

import pytest

from benchledger.errors import os_reason


def test_a_failed_open_reads_as_its_reason_without_errno_or_path(tmp_path):
    with pytest.raises(OSError) as caught:
        open(tmp_path / "absent")
    assert os_reason(caught.value) == "No such file or directory"


def test_an_oserror_without_text_reads_as_its_errno():
    # a short write turned into ENOSPC by atomic.write_all, or an error made with an empty text
    assert os_reason(OSError(errno.ENOSPC, "")) == "No space left on device"


def test_other_errors_read_as_their_own_text():
    assert os_reason(ValueError("embedded null byte")) == "embedded null byte"
    assert os_reason(OSError("no errno")) == "no errno"
