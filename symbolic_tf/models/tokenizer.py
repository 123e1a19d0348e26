r"""A minimal uncased BERT WordPiece tokenizer (the ``BertTokenizer`` of the checkpoint's
``vocab.txt``), enough to embed a sentence for the reference check of the forward pass.

Steps (as in BERT's ``BasicTokenizer`` + ``WordpieceTokenizer``, ``do_lower_case=True``):

1. drop NUL/U+FFFD/control characters, map whitespace to spaces, put spaces around CJK
   ideographs;
2. lower-case, strip accents (NFD, drop combining marks);
3. split on whitespace and around every punctuation character (ASCII symbols
   ``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~`` and Unicode categories P*);
4. WordPiece each word: greedy longest match from the left, continuation pieces prefixed
   ``##``; a word with no segmentation (or longer than 100 characters) becomes ``[UNK]``;
5. wrap in ``[CLS] … [SEP]``.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

from ..spec.errors import ModelError

__all__ = ["load_vocab", "wordpiece_tokens", "encode_text"]


@lru_cache(maxsize=4)
def load_vocab(path: str | Path) -> dict:
    """token → id from a ``vocab.txt`` (one token per line, id = line number)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ModelError(f"cannot read vocabulary {str(path)!r}: {exc.strerror or exc}") from None
    return {tok: i for i, tok in enumerate(lines)}


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


def wordpiece_tokens(text: str, vocab: dict, *, unk: str = "[UNK]", max_chars: int = 100) -> list[str]:
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


def encode_text(text: str, vocab_path: str | Path, *, max_length: int = 256) -> list[int]:
    """Token ids ``[CLS] wordpieces(text) [SEP]``, truncated to ``max_length`` ids."""
    vocab = load_vocab(str(vocab_path))
    for special in ("[CLS]", "[SEP]", "[UNK]"):
        if special not in vocab:
            raise ModelError(f"vocabulary {str(vocab_path)!r} has no {special} token")
    toks = wordpiece_tokens(text, vocab)[: max(0, max_length - 2)]
    return [vocab["[CLS]"]] + [vocab[t] for t in toks] + [vocab["[SEP]"]]
