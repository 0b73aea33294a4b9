"""The one frozen settings object the engine runs with (the rule file builds it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from memory_autopsy.lexicon import Lexicon
from memory_autopsy.lexicon.budgets import Budgets
from memory_autopsy.severity import Severity
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY, Vocabulary


@dataclass(frozen=True)
class EmbedSettings:
    """The embedding layer's provider, model and limits."""

    provider: str = ""  # "": the packaged static model unless a url names a server (embed.client.is_static)
    url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    timeout: float = 30.0
    batch_size: int = 64
    cache_dir: str | None = None
    use_cache: bool = True
    # The keys of the `[embed]` table the rule file set: `ci` leaves out the endpoint and key a
    # rule file names (embed.trust), which in a pull request are the pull request's.
    rule_file_keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Settings:
    """Everything one run is configured with: the rule file, the command line and the caller's."""

    engine: str = "heuristic"
    engine_chosen: bool = False  # the rule file names an engine (`ci` then keeps it)
    # info informs and never fails a run unless asked: a hook that fails on notes gets uninstalled
    fail_on: Severity = Severity.WARNING
    severities: Mapping[str, Severity | None] = field(default_factory=lambda: MappingProxyType({}))
    max_age_days: int | None = None
    as_of: str | None = None
    vocabulary: Vocabulary = DEFAULT_VOCABULARY
    lexicon: Lexicon | None = None  # None: the built-in words (lexicon/*.json)
    budgets: Budgets | None = None  # load budgets per memory system; None: lexicon/budgets.json
    parse_cache: str | None = None  # a folder for per-file parse results; None: no cache
    # The files whose findings will be shown (the hook's changed files): the per-entity layers
    # then skip entities those files never mention. None: everything.
    focus: frozenset[str] | None = None
    weights: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    embed: EmbedSettings = EmbedSettings()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    baseline: str | None = None
    # Processes a large store may be read, derived and judged in (memory_autopsy.parallel): 1
    # keeps this process, 0 uses the CPUs (at most 4). The command line runs with 0 (`--jobs`).
    jobs: int = 1
    # The rule file's `stores`: groups of globs whose files are compared as one store (engine.stores).
    store_groups: tuple[tuple[str, ...], ...] = ()
    # Check memory against the git work tree it lives in (engine.grounding): paths, versions,
    # commands. Off with `--no-grounding` or `grounding = false`.
    grounding: bool = True

    def severity_of(self, rule: str, default: Severity) -> Severity | None:
        """The configured severity, or None when the rule is off."""
        if rule in self.severities:
            return self.severities[rule]
        if rule == "aged" and self.max_age_days is None:
            return None
        return default
