"""The kgmem exception hierarchy.

Every error kgmem raises is a :class:`KgmemError`. Driver errors are mapped to these once, at the store
boundary (:mod:`kgmem.store.session`); nothing above the store sees a ``neo4j`` exception. The CLI maps
the classes to the contract's exit codes: 1 bad input, 3 database unreachable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import IngestReport


class KgmemError(Exception):
    """Base class of every kgmem error. ``fix`` says what the user can do about it."""

    exit_code = 1

    def __init__(self, message: str, *, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} ({self.fix})" if self.fix else self.message


class InputError(KgmemError):
    """Bad input from the caller: a malformed record, an unknown id, an unparseable date."""

    def __init__(self, message: str, *, field: str | None = None, line: int | None = None, fix: str | None = None):
        where = []
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message, fix=fix)
        self.field = field
        self.line = line
        self.detail = message

    def without_line(self) -> str:
        """The message as an ingest report shows it: the line number is in the report's own field."""
        text = (f"field '{self.field}': " if self.field else "") + self.detail
        return f"{text} ({self.fix})" if self.fix else text


class NotFoundError(InputError):
    """An id or name the caller gave does not exist in this tenant."""


class DatabaseUnavailable(KgmemError):
    """Neo4j cannot be reached or refused the credentials."""

    exit_code = 3


class DatabaseError(KgmemError):
    """Neo4j answered with an error that is not the caller's fault."""

    exit_code = 1


class SchemaError(DatabaseError):
    """The schema could not be applied, or an index did not come ONLINE in time."""


class ServerError(KgmemError):
    """The local Neo4j server (``kgmem server``) could not be fetched, started or stopped."""

    exit_code = 1


class ModelMismatch(KgmemError):
    """Stored vectors were made by another embedding model than the one loaded now."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) during an ingest, with what was stored by then: ``report`` (an
    :class:`~kgmem.results.IngestReport`; each batch is one transaction, so a record is stored or not: ``created``
    counts those written by this run, ``unchanged`` those that were already there) and ``phase``: ``"read"``
    (reading and checking the input: nothing was written), ``"write"`` (some batches were written) or
    ``"derived"`` (every record is stored; the passes that link them did not finish). Running the same ingest
    again resumes: stored records are found unchanged and their unfinished passes run. A KeyboardInterrupt, so
    code that stops on Ctrl-C still does."""

    def __init__(self, report: IngestReport, phase: str):
        super().__init__(phase)
        self.report = report
        self.phase = phase
