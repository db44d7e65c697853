"""The semantic-text rule: title and text joined, at most 700 code points before the role prefix."""

import pytest

from harness.embedding.semantic_text import cut, document_text, query_text
from harness.errors import EmbeddingError

ASTRAL = "\U0001d6fd"  # MATHEMATICAL ITALIC SMALL BETA: one code point, two UTF-16 units, four UTF-8 bytes


def test_exactly_700_code_points_is_not_truncated() -> None:
    text = "a" * 700
    result = document_text("d", "", text, 700)
    assert result.text == text and not result.truncated


def test_701_code_points_is_cut_to_700() -> None:
    result = document_text("d", "", "a" * 701, 700)
    assert len(result.text) == 700 and result.truncated


def test_non_bmp_characters_count_once_and_are_never_split() -> None:
    text = ASTRAL * 700
    assert len(text.encode("utf-16-le")) == 2800  # 1,400 UTF-16 units, yet 700 code points
    kept = document_text("d", "", text, 700)
    assert kept.text == text and not kept.truncated
    over = document_text("d", "", text + ASTRAL, 700)
    assert over.text == text and over.truncated
    assert over.text.encode("utf-8").decode("utf-8") == over.text


def test_cut_lands_right_after_an_astral_character() -> None:
    result = cut("a" * 699 + ASTRAL + "b", 700)
    assert result.text.endswith(ASTRAL) and len(result.text) == 700


def test_title_and_text_are_stripped_and_joined_by_one_space() -> None:
    assert document_text("d", "  Title ", "\tBody text \n", 700).text == "Title Body text"
    assert document_text("d", "", "Body", 700).text == "Body"
    assert document_text("d", "Title", "  ", 700).text == "Title"


def test_the_ceiling_counts_title_and_separator() -> None:
    result = document_text("d", "T" * 10, "x" * 690, 700)
    assert result.text == "T" * 10 + " " + "x" * 689 and result.truncated


def test_empty_document_and_query_are_refused_by_id() -> None:
    with pytest.raises(EmbeddingError, match="document 'd7'"):
        document_text("d7", " ", "\n", 700)
    with pytest.raises(EmbeddingError, match="query 'q7'"):
        query_text("q7", "   ", 700)


def test_query_text_is_stripped_and_cut() -> None:
    assert query_text("q", "  claim. ", 700).text == "claim."
    assert query_text("q", "x" * 800, 700).truncated
