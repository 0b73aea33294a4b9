"""Whose settings say where the embedding key goes, in `ci`.

In a pull request from a fork the rule file is the pull request's. Its `[embed]` url would
have the runner post the memory's text to a server of the pull request's choosing, and its
api-key-env would name the variable whose value goes along: `api-key-env = "GITHUB_TOKEN"`
sends the job's token there. So `ci` takes the endpoint and key from the runner's environment
(OLLAMA_BASE_URL, EMBED_API_KEY), the workflow's own, and leaves out the rule file's (and its
cache-dir, a folder anywhere on the runner the answers would be written to), with one
warning, unless the workflow sets MEMORY_AUTOPSY_TRUST_RULE_FILE_EMBED=1 (the Action's
`trust-rule-file-embed` input). Other commands run where the user chose to run them, on a
rule file they can read, and keep reading it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TextIO

from memory_autopsy.settings import Settings

TRUST_VARIABLE = "MEMORY_AUTOPSY_TRUST_RULE_FILE_EMBED"
TRUE = ("1", "true", "yes", "on")
# The rule file's keys that say where a request goes, what it carries, and where its answers are
# written (a cache folder outside the checkout: files written anywhere on the runner)
ENDPOINT_KEYS = ("url", "api-key-env", "cache-dir")
WARNING = (
    "memory-autopsy: warning: `ci` does not use the rule file's [embed] {keys} (in a pull "
    "request they are the pull request's); the endpoint and key come from OLLAMA_BASE_URL and "
    f"EMBED_API_KEY, the cache is the default folder; set {TRUST_VARIABLE}=1 to use the rule file's\n"
)


def trusted(environ: Mapping[str, str]) -> bool:
    """Whether the workflow said the rule file may choose the endpoint and the key."""
    return environ.get(TRUST_VARIABLE, "").strip().lower() in TRUE


def runner_embed(settings: Settings, err: TextIO, environ: Mapping[str, str] | None = None) -> Settings:
    """`ci`'s settings: the rule file's embed url and api-key-env left out unless trusted; one
    warning on `err` when the embed engine runs without them."""
    env = os.environ if environ is None else environ
    embed = settings.embed
    named = [key for key in ENDPOINT_KEYS if key in embed.rule_file_keys]
    if not named or trusted(env):
        return settings
    if settings.engine == "embed":  # a heuristic run sends nothing: nothing to say
        err.write(WARNING.format(keys=" and ".join(named)))
    kept = replace(embed, url=None if "url" in named else embed.url,
                   api_key_env=None if "api-key-env" in named else embed.api_key_env,
                   cache_dir=None if "cache-dir" in named else embed.cache_dir,
                   rule_file_keys=embed.rule_file_keys - set(named))
    return replace(settings, embed=kept)
