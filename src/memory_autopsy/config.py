"""The rule file: find it, read it, validate it, and turn it into one frozen Settings.

`memory-autopsy.toml`, or a `[tool.memory-autopsy]` table in `pyproject.toml`, found by walking
up from the working directory (stopping at the repository root); `--config FILE` names one,
`--isolated` ignores them. Paths inside the file are relative to the file's folder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.errors import ConfigError
from memory_autopsy.settings import EmbedSettings, Settings

CONFIG_NAME = "memory-autopsy.toml"
MAX_RULE_FILE_BYTES = 4 * 1024 * 1024  # a rule file is a page of settings: past this, it is refused
PYPROJECT = "pyproject.toml"
_TABLE_MENTION = lazyre.compile(r"""tool\s*\.\s*["']?memory-autopsy""")


def locate(config_path: str | None = None, *, isolated: bool = False,
           start: Path | None = None) -> Path | None:
    """The rule file in force: the named one, else the nearest one upward, else None."""
    if isolated:
        return None
    if config_path:
        path = Path(config_path)
        if not path.is_file():
            raise ConfigError(f"{config_path}: no such rule file")
        return path
    return find_config(start or Path.cwd())


def find_config(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _mentions_table(pyproject):
            return pyproject
        if (directory / ".git").exists():
            return None
    return None


def settings_for(config_path: str | None = None, *, isolated: bool = False) -> Settings:
    """Settings from the rule file in force (defaults when there is none)."""
    path = locate(config_path, isolated=isolated)
    return Settings() if path is None else load_settings(path)


def load_settings(path: Path) -> Settings:
    from memory_autopsy.config_schema import validate

    checked = validate(read_table(path), str(path))
    return build_settings(checked, path.parent)


def read_table(path: Path) -> dict[str, Any]:
    """The rule file's table (the `[tool.memory-autopsy]` table of a pyproject.toml)."""
    toml = _toml_module()
    try:
        data: dict[str, Any] = toml.loads(_rule_file_text(path))
    except toml.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # the TOML parser recurses once per level of nesting
        raise ConfigError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
    except OSError as error:  # its strerror says it whole (read_inside)
        raise ConfigError(f"{path}: {error.strerror or f'unreadable: {error}'}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: unreadable: {error}") from None
    if path.name != PYPROJECT:
        return data
    table = data.get("tool", {}).get("memory-autopsy")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: no [tool.memory-autopsy] table")
    return table


def build_settings(checked: dict[str, Any], base: Path) -> Settings:
    settings = Settings()
    changes: dict[str, Any] = {}
    for key, field_name in (("include", "include"), ("exclude", "exclude"), ("engine", "engine")):
        if key in checked:
            changes[field_name] = checked[key]
    changes["engine_chosen"] = "engine" in checked
    if "fail-on" in checked:
        changes["fail_on"] = checked["fail-on"]
    if "baseline" in checked:
        changes["baseline"] = _relative(base, checked["baseline"])
    if "rules" in checked:
        changes["severities"] = MappingProxyType(dict(checked["rules"]))
    if "stores" in checked:
        changes["store_groups"] = checked["stores"]
    if "grounding" in checked:
        changes["grounding"] = checked["grounding"]
    if "weights" in checked:
        changes["weights"] = MappingProxyType(dict(checked["weights"]))
    if "max-age-days" in checked.get("staleness", {}):
        changes["max_age_days"] = checked["staleness"]["max-age-days"]
    if "vocabulary" in checked:
        words = checked["vocabulary"]
        changes["vocabulary"] = settings.vocabulary.extended(
            words.get("transitions", ()), words.get("anchors"), words.get("synonyms"))
        if "status-words" in words or "section-kinds" in words:
            from memory_autopsy.lexicon import default_lexicon

            changes["lexicon"] = (settings.lexicon or default_lexicon()).extended(
                words.get("section-kinds"), words.get("status-words"))
    if "embed" in checked:
        changes["embed"] = _embed(checked["embed"], base)
    if "reachability" in checked:
        from memory_autopsy.lexicon.budgets import default_budgets, overridden

        changes["budgets"] = overridden(default_budgets(), checked["reachability"])
    return replace(settings, **changes)


def _embed(table: dict[str, Any], base: Path) -> EmbedSettings:
    names = {"provider": "provider", "url": "url", "model": "model", "api-key-env": "api_key_env",
             "timeout": "timeout", "batch-size": "batch_size", "cache-dir": "cache_dir"}
    values = {names[k]: v for k, v in table.items()}
    if "cache_dir" in values:
        values["cache_dir"] = _relative(base, values["cache_dir"])
    return replace(EmbedSettings(), **values, rule_file_keys=frozenset(table))


def _relative(base: Path, value: str) -> str:
    """A path from the rule file, re-expressed relative to the working directory."""
    path = Path(value)
    if path.is_absolute():
        return value
    return os.path.relpath(base / path).replace(os.sep, "/")


def _rule_file_text(path: Path) -> str:
    """The rule file read inside its own folder: a link to a file elsewhere (a runner's secrets,
    on a pull request that commits the rule file as a link) is refused by name, never read."""
    from memory_autopsy.ingest.confined import LeadsOutside, Roots, read_inside

    roots = Roots((os.path.realpath(os.path.dirname(os.path.abspath(path))),))
    try:
        return read_inside(str(path), roots, MAX_RULE_FILE_BYTES).decode("utf-8")
    except LeadsOutside:
        raise ConfigError(f"{path}: a link that leads outside its folder (not read)") from None


def _mentions_table(pyproject: Path) -> bool:
    """Cheap text test first, so a pyproject without our table is never parsed."""
    try:
        text = _rule_file_text(pyproject)
    except (OSError, UnicodeDecodeError, ConfigError):
        return False
    if not _TABLE_MENTION.search(text):
        return False
    try:
        read_table(pyproject)
    except ConfigError as error:
        if "no [tool.memory-autopsy] table" in str(error):
            return False
        raise
    return True


def _toml_module() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    else:  # an else block, so type checkers on 3.11+ skip it (tomli is not installed there)
        import tomli

        return tomli
