"""The ``tokenizers``-based WordPiece tokenizer against an independent implementation of BERT's
BasicTokenizer + WordpieceTokenizer (the hand-written one this project used before, kept here
as the reference): they must agree token for token on a sample corpus.

Reference steps (``do_lower_case=True``): drop NUL/U+FFFD/control characters, map whitespace to
spaces, put spaces around CJK ideographs; lower-case, strip accents (NFD, drop combining marks);
split on whitespace and around punctuation (ASCII symbols and Unicode P*); WordPiece each word
(greedy longest match, ``##`` continuation, ``[UNK]`` if unsegmentable or > 100 characters).
"""
from __future__ import annotations

import unicodedata

import pytest

from symbolic_tf.models.loader import load_bert
from symbolic_tf.models._tokenizer import encode_text, load_vocab, wordpiece_tokens

CORPUS = [
    "He drove to the stadium.",
    "The weather is lovely today, and it is so sunny outside!",
    "It's so sunny outside!",
    "Café  TRANSFORMERS à la carte — naïve façade, résumé; coöperate.",
    "Mean-field limits of deep Transformers: tokens as a probability measure μ_t.",
    "σ̇ = vσaσ, α̇ = v(i + σa)α (softmax attention, lower-case Greek).",
    "e-mail: someone@example.com, URL https://example.org/a_b?c=d&e=f#g",
    "Numbers 3.14159, 1/3, 10^-12, 2,718 and 1e308!!!",
    "symbolic numerics certification supercalifragilisticexpialidocious",
    "東京は日本の首都です。中文字符 and 한국어 mixed with English.",
    "Tabs\tand\nnewlines\r\nand  multiple   spaces",
    "Control\x00chars\x07and\ufffdreplacement",
    "Emoji 😀 and symbols ©®™ §¶ † ‡ • … ‰ ′ ″",
    "ALL CAPS SHOUTING, MiXeD cAsE, and don't/won't/can't contractions",
    "x" * 120,
    "",
]


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _basic_words(text: str) -> list[str]:
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif unicodedata.category(ch).startswith("C"):
            continue
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = unicodedata.normalize("NFD", "".join(out).lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    words = []
    for word in text.split():
        cur = ""
        for ch in word:
            if _is_punct(ch):
                if cur:
                    words.append(cur)
                    cur = ""
                words.append(ch)
            else:
                cur += ch
        if cur:
            words.append(cur)
    return words


def reference_wordpiece_tokens(text: str, vocab: dict, *, unk: str = "[UNK]", max_chars: int = 100) -> list[str]:
    """The WordPiece tokens of ``text`` (no [CLS]/[SEP])."""
    tokens = []
    for word in _basic_words(text):
        if len(word) > max_chars:
            tokens.append(unk)
            continue
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            piece = None
            while start < end:
                cand = word[start:end] if start == 0 else "##" + word[start:end]
                if cand in vocab:
                    piece = cand
                    break
                end -= 1
            if piece is None:
                pieces = [unk]
                break
            pieces.append(piece)
            start = end
        tokens.extend(pieces)
    return tokens




@pytest.fixture(scope="module")
def vocab_path():
    return load_bert().vocab_path


@pytest.mark.parametrize("text", CORPUS)
def test_tokenizers_library_agrees_with_the_reference(text, vocab_path):
    vocab = load_vocab(str(vocab_path))
    assert wordpiece_tokens(text, vocab_path) == reference_wordpiece_tokens(text, vocab)


def test_known_difference_final_sigma(vocab_path):
    """The one divergence found: Python's ``str.lower`` applies the Greek final-sigma rule
    (word-final Σ → ς), the Rust library lower-cases Σ → σ everywhere.  Elsewhere they agree."""
    vocab = load_vocab(str(vocab_path))
    text = "Σ̇ = VΣAΣ + ΣAᵀΣVᵀ"
    ours, ref = wordpiece_tokens(text, vocab_path), reference_wordpiece_tokens(text, vocab)
    assert ours != ref and [t.replace("ς", "σ") for t in ref] == ours


def test_encode_text_wraps_and_truncates(vocab_path):
    vocab = load_vocab(str(vocab_path))
    ids = encode_text("He drove to the stadium.", vocab_path)
    assert ids[0] == vocab["[CLS]"] and ids[-1] == vocab["[SEP]"]
    assert [vocab[t] for t in reference_wordpiece_tokens("He drove to the stadium.", vocab)] == ids[1:-1]
    assert len(encode_text("word " * 500, vocab_path, max_length=16)) == 16
