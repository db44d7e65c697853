"""Named errors. Each message says what was expected, what was found, and how to fix it.

`exit_code` is the command line's exit status for the error (the one table of docs/exit-codes.md): 2 for
input the user can fix, 3 for a refusal by a gate, 4 for a problem of the environment. A run that wrote its
artifacts but whose system failed queries ends in SYSTEM_FAILED (6); one whose queries failed by a fault of the
harness in INTERNAL (5). A `run` whose own end-of-run validation is not ELIGIBLE ends as the validator would:
CHECK_FAILED (1) when a check failed, NOT_VERIFIED (7) when nothing failed but something could not be verified.
"""

CHECK_FAILED, USAGE, REFUSED, ENVIRONMENT, INTERNAL, SYSTEM_FAILED, NOT_VERIFIED = 1, 2, 3, 4, 5, 6, 7


class HarnessError(Exception):
    """Base class: every error the harness raises on purpose. By default, input the user can fix."""

    exit_code = USAGE


class RefusedError(HarnessError):
    """A gate refused the command: an existing artifact, the freeze order, another run writing the same files."""

    exit_code = REFUSED


class EnvironmentProblem(HarnessError):
    """The machine, the network or another process stands in the way: unwritable paths, locks, downloads."""

    exit_code = ENVIRONMENT


class DownloadError(EnvironmentProblem):
    """The archive could not be downloaded intact."""


class ArchiveSafetyError(HarnessError):
    """The zip archive has a member or layout that is unsafe to read."""


class PayloadDigestMismatch(HarnessError):
    """A payload member's sha256 differs from the pinned digest."""

    def __init__(self, member: str, expected: str, found: str, dataset: str = "beir-scifact") -> None:
        self.member = member
        self.expected = expected
        self.found = found
        super().__init__(
            f"payload member {member!r} has sha256 {found}, but the contract pins {expected}. "
            f"The archive is not the verified {dataset} data. Use the verified archive, or pass "
            "--allow-unpinned to proceed; the fixture and every receipt will then say 'unpinned'."
        )


class ArchiveDigestMismatch(HarnessError):
    """The archive's size or md5 differs from the contract's pin, and no member pin vouches for its content."""

    def __init__(self, archive: str, dataset: str, found: tuple[int, str],
                 pinned: tuple[int | None, str | None]) -> None:
        super().__init__(
            f"archive {archive} has {found[0]} bytes and md5 {found[1]}; the {dataset} contract pins the "
            f"publisher's archive at {pinned[0]} bytes, md5 {pinned[1]} (ir_datasets' pin), and nothing else vouches "
            "for this one. Use the publisher's archive (download it, or pass it with --archive), or pass "
            "--allow-unpinned to proceed; the fixture and every receipt will then say 'unpinned'."
        )


class DatasetFormatError(HarnessError):
    """A BEIR file is malformed (bad JSON, duplicate ids, dangling qrels, ...)."""

    def __init__(self, file: str, line: int | None, problem: str) -> None:
        self.file = file
        self.line = line
        where = f"{file}, line {line}" if line is not None else file
        super().__init__(f"{where}: {problem}")


class ShapeMismatchError(HarnessError):
    """The dataset does not have the shape its contract requires."""

    def __init__(self, what: str, expected: int, found: int, dataset: str = "beir-scifact") -> None:
        self.what = what
        self.expected = expected
        self.found = found
        super().__init__(
            f"{what}: the contract requires {expected}, the archive has {found}. "
            f"This is not the {dataset} test set its contract describes."
        )


class EmbeddingError(EnvironmentProblem):
    """An embedder failed or returned an unusable vector."""


class InvalidVectorError(EmbeddingError):
    """A vector is empty, zero-norm, non-finite or of the wrong dimension."""

    def __init__(self, text_id: str, problem: str) -> None:
        self.text_id = text_id
        self.problem = problem
        super().__init__(f"embedding of {text_id!r} rejected: {problem}")


class CacheCorruptionError(HarnessError):
    """The embedding cache has a damaged record that is not a torn tail."""


class FixtureError(HarnessError):
    """A corpus fixture is missing, inconsistent or fails its schema."""


class CacheAccessError(EnvironmentProblem):
    """The embedding cache cannot be opened, read or written (permissions, a read-only or full disk)."""


class CachePathError(HarnessError):
    """A path of the embedding cache is of the wrong kind (a directory where a file belongs, or the reverse)."""


class LockTimeout(EnvironmentProblem):
    """A lock stayed held by another process longer than the wait allows."""
