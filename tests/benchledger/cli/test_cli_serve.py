"""`benchledger serve` refuses a port outside 0-65535 before it builds anything."""

from __future__ import annotations

import pytest

from benchledger.cli.main import main


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_bad_port_is_one_usage_error_not_a_traceback(port, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--records", str(tmp_path / "absent"), "--out", str(tmp_path / "site"), f"--port={port}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid port value: '{port}'" in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()
