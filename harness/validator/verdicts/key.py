"""The key that seals stored verdicts and re-embedding records: a per-user file outside every output directory.

`$SCIFACT_VALIDATOR_KEY` names the key file (default `~/.cache/scifact-harness/validator-key`, under
`$XDG_CACHE_HOME` when that is set); it is made on first use with 32 random bytes, readable by its owner only. A
key file another user owns, or that others may read or write, is not used: nothing is stored or believed then,
and the validator says so. A seal shows that a validator holding this key wrote the record; it is an attestation
of this machine, not a proof for anyone else.
"""

import contextlib
import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

from ..core.digests import canonical
from ..core.reading import skip

KEY_VARIABLE = "SCIFACT_VALIDATOR_KEY"
SEAL_PREFIX = "hmac-sha256:"
RECORDS = "re-embeddings"  # beside the key: the full re-embeddings, one per fixture, verifier and embedding code


class KeyUnusable(Exception):
    """The key file cannot be trusted or made; stored verdicts are neither written nor believed."""


def key_path() -> Path:
    named = os.environ.get(KEY_VARIABLE)
    if named:
        return Path(named).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME")
    return (Path(cache) if cache else Path.home() / ".cache") / "scifact-harness" / "validator-key"


def state_directory() -> Path:
    """Where the key lives; re-embedding records are kept beside it."""
    return key_path().parent


def _make(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, name = tempfile.mkstemp(prefix=".validator-key-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(name, path)  # never replaces a key another validator made meanwhile
    finally:
        os.unlink(name)


def load_key() -> bytes:
    path = key_path()
    skip(path)
    skip(path.parent / RECORDS)
    try:
        if not path.exists():
            _make(path)
        found = os.stat(path)
        if found.st_uid != os.getuid() or found.st_mode & 0o077:
            whose = "not yours" if found.st_uid != os.getuid() else "open to others"
            raise KeyUnusable(f"the key file {path} is {whose}: stored verdicts are neither written nor reused; run "
                              f"`chmod 600 {path}` (or remove it to make a new one)")
        text = path.read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise KeyUnusable(f"the key file {path} cannot be used ({exc}): stored verdicts are neither written nor "
                          f"reused; remove it to make a new one, or set ${KEY_VARIABLE}") from exc
    if len(key) < 32:
        raise KeyUnusable(f"the key file {path} holds fewer than 32 bytes: remove it to make a new one")
    return key


def seal(document: dict[str, Any], key: bytes) -> str:
    """The HMAC of the document's canonical JSON without its own `seal` field."""
    body = canonical({name: value for name, value in document.items() if name != "seal"})
    return SEAL_PREFIX + hmac.new(key, body, hashlib.sha256).hexdigest()


def sealed(document: dict[str, Any], key: bytes) -> bool:
    stated = document.get("seal")
    return isinstance(stated, str) and hmac.compare_digest(stated, seal(document, key))
