"""The one error tree. Every error a user can cause is a BenchledgerError; `cli.main` is the
only place that catches it, prints it and exits non-zero (`serve` reports a failed rebuild and
goes on serving the last good site). Messages say what is wrong, where, and what to do."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def os_reason(err: BaseException) -> str:
    """Why a system call failed, as a person reads it ("Permission denied", "No space left on
    device"), without the errno and path of `str(err)`: the message around it names the file.
    An error without a system reason reads as its own text."""
    if isinstance(err, OSError):
        if err.strerror:
            return err.strerror
        if err.errno:
            return os.strerror(err.errno)
    return str(err)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input: `file: $.json.path: message`."""

    file: str
    path: str  # JSONPath-like location, e.g. "$.cases[0].id"; "" when the whole file is meant
    message: str
    line: int | None = None  # for text sources (articles, plans), 1-based

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.path:
            where += f": {self.path}"
        return f"{where}: {self.message}"


class BenchledgerError(Exception):
    """Base of every error a user can cause; its message is shown as is."""

    exit_code = 1

    def lines(self) -> list[str]:
        """The lines to print: one, unless the error lists several problems."""
        return [str(self)]


class ProblemsError(BenchledgerError):
    """Several problems found at once (validation reports all of them, not the first)."""

    def __init__(self, problems: list[Problem], summary: str | None = None):
        self.problems = list(problems)
        self.summary = summary or f"{len(self.problems)} problem(s) found"
        super().__init__(self.summary if len(self.problems) != 1 else str(self.problems[0]))

    def lines(self) -> list[str]:
        if len(self.problems) == 1:
            return [str(self.problems[0])]
        return [str(p) for p in self.problems] + [self.summary]


class InputError(ProblemsError):
    """A file the user gave is unreadable or malformed (not JSON, not UTF-8, too large...)."""

    def __init__(self, file: str | Path, path: str, message: str, line: int | None = None):
        super().__init__([Problem(str(file), path, message, line)])


class SchemaError(ProblemsError):
    """A record violates its JSON Schema; every violation is listed."""


class ConsistencyError(ProblemsError):
    """A record's derived numbers do not follow from their inputs."""


class LedgerError(ProblemsError):
    """The ledger or the store does not hold together (tampering, unsealed files...)."""


class MergeError(ProblemsError):
    """Records of another store could not be merged (their paths hold other bytes here)."""


class SealError(BenchledgerError):
    """Sealing was refused (same bytes twice, target exists, target outside the store...)."""


class PlanError(ProblemsError):
    """A collection plan is invalid; every bad key is listed."""


class ProjectError(ProblemsError):
    """`benchledger.toml` is invalid; every problem is listed."""


class RowsError(ProblemsError):
    """An imported tool's file (llama-bench's rows) is not what that tool writes; every problem listed."""


class BuildError(BenchledgerError):
    """The site could not be built (MkDocs failure, a citation that does not resolve...)."""


class CollectError(BenchledgerError):
    """A collection could not run at all, or ran and every case failed (its record is sealed
    all the same: a failure is a result worth keeping; one case failing is not an error)."""
