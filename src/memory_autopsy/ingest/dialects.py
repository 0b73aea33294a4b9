"""The memory systems the tool reads, recognised by path and content (the README's table).

Every dialect is read by one of two readers: the shared markdown structure reader or the
JSON reader; a dialect only decides which, and names the file in the report."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import NamedTuple

# The default scope's one location named by a folder alone: a folder of notes, unless it holds
# source code (a module called memory), whose files are then the code's (scope._not_code).
GENERIC_MEMORY_FOLDER = "**/memory/**"
CODE_SUFFIXES = (".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".kt",
                 ".rb", ".php", ".cs", ".c", ".h", ".cc", ".cpp", ".hpp", ".swift", ".scala", ".sh")


class Dialect(NamedTuple):
    name: str
    system: str
    reader: str  # "markdown" | "json" | "jsonl"
    where: str
    reads: str
    # Where the system keeps memory in a repository (gitignore-style globs, matched without
    # regard to case): the default scope when no rule file says which files are memory.
    scope: tuple[str, ...] = ()


DIALECTS: tuple[Dialect, ...] = (
    Dialect("claude-code", "Claude Code", "markdown",
            "`CLAUDE.md`, `.claude/**/memory/MEMORY.md` and topic files",
            "front matter (`name`, `description`, `type`); index link lines are references, not facts;"
            " a summary (an index line's, a `description`) gives a status the status layer reads",
            ("**/CLAUDE.md", "**/CLAUDE.local.md", "**/MEMORY.md", "**/.claude/**/memory/**")),
    Dialect("memory-bank", "Cline / Roo memory bank", "markdown",
            "`memory-bank/*.md` (`activeContext`, `progress`, `decisionLog`, …)",
            "`[YYYY-MM-DD HH:MM:SS]` entries, checkboxes, section kinds, `---` entries",
            ("**/memory-bank/**", "**/.memory-bank/**", "**/.clinerules", "**/.clinerules/**",
             "**/.windsurfrules")),
    Dialect("serena", "Serena", "markdown", "`.serena/memories/**/*.md`", "front matter, sections",
            ("**/.serena/memories/**",)),
    Dialect("cursor-rules", "Cursor rules", "markdown", "`.cursor/rules/*.mdc`",
            "front matter (`description`, `globs`, `alwaysApply`), rule bullets as guidelines",
            ("**/.cursor/rules/**/*.mdc", "**/.cursorrules")),
    Dialect("gemini", "Gemini CLI", "markdown", "`GEMINI.md`", "`## Gemini Added Memories` bullets",
            ("**/GEMINI.md",)),
    Dialect("agents-md", "AGENTS.md notes", "markdown", "`AGENTS.md`", "sections, bullets, prose",
            ("**/AGENTS.md",)),
    Dialect("daily-log", "Dated daily logs (OpenClaw and others)", "markdown",
            "`memory/YYYY-MM-DD.md`", "the file name dates every line", (GENERIC_MEMORY_FOLDER,)),
    Dialect("mcp-graph", "MCP memory server", "json",
            "`memory.jsonl`, `memory.json` (`{entities, relations}`)",
            "each observation is a fact (`path:line#obs-N`), relations are facts",
            ("**/memory.jsonl", "**/memory.json")),
    Dialect("mem0", "mem0 export", "json", "`*.json` with `memory`, `created_at`, `updated_at`",
            "`updated_at` over `created_at`, `metadata`"),
    Dialect("letta", "Letta agent file", "json", "`*.af`", "the memory blocks (`label`, `value`)",
            ("**/*.af",)),
    Dialect("markdown", "Plain markdown notes", "markdown", "`*.md`, `*.markdown`",
            "explicit records, entity claims, sections, bullets"),
    Dialect("json", "JSON / JSONL fact stores", "json", "`*.json`, `*.jsonl`",
            "flexible keys, wrappers, entity maps, canonical records"),
)
BY_NAME = {d.name: d for d in DIALECTS}

KNOWN_NAMES = frozenset({
    "claude.md", "claude.local.md", "memory.md", "gemini.md", "agents.md", "memory.jsonl",
    "memory.json", "activecontext.md", "progress.md", "productcontext.md", "systempatterns.md",
    "techcontext.md", "decisionlog.md", "projectbrief.md", ".clinerules", ".windsurfrules",
    ".cursorrules",
})
MEMORY_SUFFIXES = (".md", ".markdown", ".mdc", ".json", ".jsonl", ".af")
# Dot-folders that hold agent memory; every other dot-folder is skipped in a folder walk.
MEMORY_DOT_FOLDERS = frozenset({
    ".claude", ".serena", ".cursor", ".roo", ".cline", ".clinerules", ".gemini", ".windsurf",
    ".kilocode", ".memory", ".memory-bank", ".remember", ".mem0", ".letta", ".agents", ".kiro",
})

# The default scope, when no rule file lists the memory files: every dialect's locations.
DEFAULT_SCOPE = tuple(dict.fromkeys(glob for dialect in DIALECTS for glob in dialect.scope))
NEVER_MEMORY_FOLDERS = ("**/docs/**", "**/node_modules/**")  # left out of the default scope
# Files that are never memory whatever their suffix: the default scope and folder walks skip
# them. A project document named on the command line is still read (the user asked for it);
# a manifest or tool configuration named is a usage error.
PROJECT_DOCUMENTS = frozenset({"readme", "changelog", "contributing", "code_of_conduct", "license",
                               "licence"})
MANIFESTS = frozenset({
    "package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
    "composer.json", "composer.lock", "tsconfig.json", "jsconfig.json", "deno.json", "deno.jsonc",
    "bower.json", "lerna.json", "nx.json", "turbo.json", "angular.json", "vercel.json",
    "renovate.json", "biome.json", ".eslintrc.json", ".prettierrc.json", ".babelrc",
    "babel.config.json", "pyrightconfig.json", "pyproject.toml", "setup.cfg", "pipfile",
    "pipfile.lock", "poetry.lock", "uv.lock", "requirements.txt", "cargo.toml", "cargo.lock",
    "go.mod", "go.sum", "gemfile", "gemfile.lock", "pom.xml", "devcontainer.json",
    ".devcontainer.json", "settings.json", "settings.local.json", ".mcp.json", "mcp.json",
    "memory-autopsy.toml", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml",
})


def hook_files_pattern() -> str:
    """The pre-commit hook's `files` pattern (`.pre-commit-hooks.yaml`), from the same table as
    the default scope: a memory suffix, or a rules file or folder some dialects name without one
    (`.clinerules`, `.windsurfrules`, `.cursorrules`). A commit of any such file runs the hook; a
    test holds the manifest equal to this."""
    suffixes = "|".join(suffix.lstrip(".") for suffix in MEMORY_SUFFIXES)
    bare = "|".join(sorted(name.lstrip(".") for name in KNOWN_NAMES if not name.endswith(MEMORY_SUFFIXES)))
    return rf"(?i)(\.({suffixes})$|(^|/)\.({bare})(/|$))"


def is_manifest(name: str) -> bool:
    return name.lower() in MANIFESTS


def never_memory(name: str) -> bool:
    """A package manifest, tool configuration or project document (README, CHANGELOG, …)."""
    lowered = name.lower()
    return lowered in MANIFESTS or lowered.split(".", 1)[0] in PROJECT_DOCUMENTS


def hidden_folder(name: str) -> bool:
    """A dot-folder a folder walk skips (`.git`, `.venv`), unlike the memory dot-folders."""
    return name.startswith(".") and name.lower() not in MEMORY_DOT_FOLDERS


def is_memory_file(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith(MEMORY_SUFFIXES) or lowered in KNOWN_NAMES


def detect(path: str, head: bytes = b"") -> Dialect:
    """The dialect of one file, from its path and the first bytes of its content."""
    pure = PurePosixPath(path.replace("\\", "/").lower())
    parts, name, suffix = pure.parts, pure.name, pure.suffix
    if suffix == ".af":
        return BY_NAME["letta"]
    if suffix == ".mdc" or name in (".cursorrules",):
        return BY_NAME["cursor-rules"]
    if ".serena" in parts:
        return BY_NAME["serena"]
    if name in ("claude.md", "claude.local.md") or ".claude" in parts:
        return BY_NAME["claude-code"]
    if name == "gemini.md":
        return BY_NAME["gemini"]
    if name == "agents.md":
        return BY_NAME["agents-md"]
    if any(p in ("memory-bank", ".memory-bank") for p in parts) or name in KNOWN_NAMES - {
        "memory.md", "memory.jsonl", "memory.json"
    }:
        return BY_NAME["memory-bank"] if suffix == ".md" else BY_NAME["markdown"]
    if suffix in (".json", ".jsonl"):
        return _json_dialect(head)
    if name == "memory.md" and "memory" in parts[:-1]:
        return BY_NAME["claude-code"]
    if _dated_name(pure.stem):
        return BY_NAME["daily-log"]
    return BY_NAME["markdown"]


def _json_dialect(head: bytes) -> Dialect:
    text = head[:4096]
    if b'"observations"' in text or b'"entityType"' in text or b'"relationType"' in text:
        return BY_NAME["mcp-graph"]
    if b'"memory"' in text and (b'"created_at"' in text or b'"updated_at"' in text):
        return BY_NAME["mem0"]
    return BY_NAME["json"]


def _dated_name(stem: str) -> bool:
    return len(stem) >= 10 and stem[:4].isdigit() and stem[4] == "-" and stem[7] == "-"
