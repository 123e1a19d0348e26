r"""The uncased BERT WordPiece tokenizer of a checkpoint's ``vocab.txt``, by the Hugging Face
`tokenizers <https://github.com/huggingface/tokenizers>`_ library (``pip install
'symbolic-tf[models]'``), enough to embed a sentence for the reference check of the forward
pass (:func:`symbolic_tf.models._forward.sentence_embeddings`).

The pipeline is BERT's (``BertWordPieceTokenizer`` with ``lowercase=True``): clean the text
(drop control characters, map whitespace to spaces), put spaces around CJK ideographs,
lower-case and strip accents, split on whitespace and punctuation, WordPiece each word (greedy
longest match, continuation pieces ``##…``; no segmentation → ``[UNK]``), wrap in
``[CLS] … [SEP]``.  tests/models/test_tokenizer.py checks that it agrees token for token with
an independent implementation of these steps on a sample corpus.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..spec.errors import ModelError

__all__ = ["load_vocab", "bert_tokenizer", "wordpiece_tokens", "encode_text"]


@lru_cache(maxsize=4)
def load_vocab(path: str | Path) -> dict:
    """token → id from a ``vocab.txt`` (one token per line, id = line number)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ModelError(f"cannot read vocabulary {str(path)!r}: {exc.strerror or exc}") from None
    return {tok: i for i, tok in enumerate(lines)}


@lru_cache(maxsize=4)
def bert_tokenizer(vocab_path: str | Path):
    """A ``tokenizers`` uncased BERT WordPiece tokenizer for ``vocab.txt`` (cached per path)."""
    try:
        from tokenizers import BertWordPieceTokenizer
    except ImportError:
        raise ModelError("the tokenizer needs the `tokenizers` package: pip install 'symbolic-tf[models]'") from None
    vocab = load_vocab(str(vocab_path))
    for special in ("[CLS]", "[SEP]", "[UNK]"):
        if special not in vocab:
            raise ModelError(f"vocabulary {str(vocab_path)!r} has no {special} token")
    return BertWordPieceTokenizer(vocab, lowercase=True, strip_accents=True, clean_text=True,
                                  handle_chinese_chars=True, wordpieces_prefix="##")


def wordpiece_tokens(text: str, vocab_path: str | Path) -> list[str]:
    """The WordPiece tokens of ``text`` (no [CLS]/[SEP])."""
    return bert_tokenizer(str(vocab_path)).encode(text, add_special_tokens=False).tokens


def encode_text(text: str, vocab_path: str | Path, *, max_length: int = 256) -> list[int]:
    """Token ids ``[CLS] wordpieces(text) [SEP]``, truncated to ``max_length`` ids."""
    tok = bert_tokenizer(str(vocab_path))
    ids = tok.encode(text, add_special_tokens=False).ids[: max(0, max_length - 2)]
    vocab = load_vocab(str(vocab_path))
    return [vocab["[CLS]"]] + list(ids) + [vocab["[SEP]"]]
