"""The lexical tokenizer, applied identically to documents and queries.

bm25s does not save its stemmer or stopwords with an index, so the record written beside the index
holds the exact stopword list, the stemmer algorithm and PyStemmer's version; a reload refuses to
proceed when the running stemmer or list differs from the recorded one.
"""

import re
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import Stemmer
from bm25s.stopwords import STOPWORDS_EN

from harness.errors import HarnessError
from harness.hashing import sha256_canonical
from harness.systems.builtin.config.search_config import LexicalConfig


@dataclass
class Tokenizer:
    config: LexicalConfig

    def __post_init__(self) -> None:
        self._pattern = re.compile(self.config.token_pattern)
        self._stopwords = frozenset(STOPWORDS_EN)
        self._stemmer = Stemmer.Stemmer("english")

    def words(self, text: str) -> list[str]:
        """What the token pattern finds, lowercased as configured; stopwords still in, nothing stemmed."""
        found: list[str] = self._pattern.findall(text.lower() if self.config.lowercase else text)
        return found

    def term(self, word: str) -> str | None:
        """One word's token: None for a stopword, else its stem (`tokens` is this, word by word)."""
        return None if word in self._stopwords else str(self._stemmer.stemWord(word))

    def tokens(self, text: str) -> list[str]:
        return list(self._stemmer.stemWords([w for w in self.words(text) if w not in self._stopwords]))

    def record(self) -> dict[str, Any]:
        return {
            "token_pattern": self.config.token_pattern,
            "lowercase": self.config.lowercase,
            "stopwords": sorted(self._stopwords),
            "stopwords_sha256": sha256_canonical(sorted(self._stopwords)),
            "stemmer": {"library": "PyStemmer", "algorithm": "english", "version": metadata.version("PyStemmer")},
        }

    def check_matches(self, recorded: dict[str, Any]) -> None:
        current = self.record()
        for key in ("token_pattern", "lowercase", "stopwords_sha256", "stemmer"):
            if recorded.get(key) != current[key]:
                raise HarnessError(
                    f"the lexical index was built with tokenizer {key}={recorded.get(key)!r}, but this "
                    f"environment has {current[key]!r}; rebuild the store in a fresh --store-dir"
                )
