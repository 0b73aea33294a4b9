"""The static embedder: a word-embedding model shipped inside a package, in this process, offline.

WordLlama (the `semantic` extra) carries its 256-dimension weights in its wheel and needs numpy
alone: no server, no download, a few milliseconds for a store. It is imported only when a run
embeds. Version 0.4 looks for its bundled tokenizer file under the wrong folder name; a copy in
`<cache dir>/wordllama/tokenizers/` (made once, atomically) lets it load with downloads off. Any
failure, the extra missing included, is an EmbedError: the layer reports `degraded` and the
heuristic findings stand.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_autopsy import install_hint
from memory_autopsy.cachedir import write_atomic
from memory_autopsy.embed.protocol import EmbedError

CONFIG = "l2_supercat"
DIM = 256
EXTRA = install_hint("semantic")


def installed() -> bool:
    """Whether the static model's package is installed (found, not imported: numpy and the model
    load only when a run embeds)."""
    from importlib.util import find_spec

    return find_spec("wordllama") is not None


class StaticEmbedder:
    """Implements the Embedder protocol with the packaged model; loaded on first use."""

    def __init__(self, cache_dir: str | Path) -> None:
        self._cache_dir = Path(cache_dir)
        self._model: Any = None
        self._version = ""

    @property
    def endpoint(self) -> str:
        return f"static:wordllama-{self._loaded_version()}"

    @property
    def model(self) -> str:
        return f"{CONFIG}_{DIM}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.matrix(texts)] if texts else []

    def matrix(self, texts: Sequence[str]) -> Any:
        """One normalized float32 row per text, as one numpy array: what layer 3 scores pairs
        with in bulk (a row per text of a 100k-fact store is 100 MB; Python lists of floats
        would be ten times that)."""
        model = self._load()
        try:
            return model.embed(list(texts), norm=True)
        except Exception as error:  # the model's own failure, whatever its type, is the layer's degraded
            raise EmbedError(f"the static model failed: {type(error).__name__}: {error}") from None

    def _loaded_version(self) -> str:
        if not self._version:
            try:
                from importlib.metadata import version

                self._version = version("wordllama")
            except Exception:
                self._version = "missing"
        return self._version

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        try:
            import wordllama
            from wordllama import WordLlama
        except ImportError:
            raise EmbedError(f"no embedding server is configured and the static model is not installed ({EXTRA}, "
                             "or set [embed] url)") from None
        folder = self._cache_dir / "wordllama"
        try:
            _tokenizer_copy(Path(wordllama.__file__).parent, folder)
            self._model = WordLlama.load(CONFIG, cache_dir=folder, dim=DIM, disable_download=True)
        except Exception as error:  # a broken install: its own exception types, never a traceback
            raise EmbedError(f"the static model could not be loaded: {type(error).__name__}: {error}") from None
        return self._model


def _tokenizer_copy(package: Path, folder: Path) -> None:
    """The bundled tokenizer file where the loader looks for it, written atomically once (a
    folder that cannot be written leaves it out, and the load that follows says so)."""
    bundled = sorted((package / "tokenizers").glob(f"{CONFIG}_tokenizer*.json"))
    if not bundled:
        return  # a release that finds its own file, or downloads are off and it says so
    target = folder / "tokenizers" / bundled[0].name
    if target.is_file() and target.stat().st_size == bundled[0].stat().st_size:
        return
    with bundled[0].open("rb") as source:
        write_atomic(target, lambda out: shutil.copyfileobj(source, out), binary=True)
