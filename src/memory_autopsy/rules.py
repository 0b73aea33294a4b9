"""The rule catalogue: every finding class with its id, code, layer, default severity and help.

The ids are the finding classes of the product contract and never change meaning; each has a
short code people type (`--ignore MA401`). The same text serves `memory-autopsy rules`, SARIF
`tool.driver.rules` and the README.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.severity import Severity


class Rule(NamedTuple):
    id: str
    name: str
    layer: str
    severity: Severity
    summary: str
    help: str
    bad: str
    good: str
    code: str = ""


# The short codes, by family: MA1 copies, MA2 disagreements, MA3 time, MA4 provenance and
# identity, MA5 what the agent loads, MA6 the repository memory lives in, MA9 the run itself. A code is never reassigned nor reused,
# even for a retired rule: tests/test_cli_conventions.py holds the list as it was published.
CODES: Mapping[str, str] = MappingProxyType({
    "duplicate": "MA101", "near_duplicate": "MA102", "duplicate_id": "MA103",
    "contradicted_explicit": "MA201", "contradicted_implicit": "MA202", "likely_conflict": "MA203",
    "status_conflict": "MA204", "numeric_drift": "MA205",
    "stale": "MA301", "superseded": "MA302", "aged": "MA303", "validity_order": "MA304",
    "unsourced": "MA401", "unresolved_alias": "MA402", "orphan_entity": "MA403",
    "beyond_budget": "MA501", "broken_link": "MA502", "unlinked_memory": "MA503",
    "missing_path": "MA601", "missing_command": "MA602",
    "bad_input": "MA901", "degraded": "MA902",
})


def _rule(id: str, layer: str, severity: Severity, summary: str, help: str, bad: str, good: str) -> Rule:
    name = "".join(part.capitalize() for part in id.split("_"))
    return Rule(id, name, layer, severity, summary, " ".join(help.split()), bad, good, CODES.get(id, ""))


RULES: tuple[Rule, ...] = (
    _rule("duplicate", "1", Severity.INFO, "The same claim is stored twice.",
          """The same entity holds the same claim twice once case, whitespace and punctuation are
          normalized, whatever the dates. A sentence of six words or more is a copy under another
          heading, graph entity or file of the store too, unless it is a predicate of its heading
          ("Runs on the shared cluster" under two services) or a result a log reports again on
          another day. A claim of 15 words or more pasted into another dated entry is a copy all
          the same, and so is a plain claim beside its copy marked done (a progress file and an
          active context); one task with two statuses is a `status_conflict`, never a copy. The
          later copy is flagged; the fix plan deletes it.""",
          "- cache-tier: uses redis 7\n- cache-tier: uses Redis 7.", "- cache-tier: uses redis 7"),
    _rule("near_duplicate", "1", Severity.WARNING, "The same claim is stored twice in other words.",
          """Two claims of one entity are lexically almost identical (character-trigram similarity
          at or above 0.91) without being exact copies: usually one claim recorded twice with a typo
          or a trailing word. The later copy is flagged. So is a restatement in other words in
          the same file: a sentence sharing at least 0.7 of its stemmed content words with an
          earlier one ("Updates X to support Y" / "X was updated to support Y"), read without
          the `entity:` a bullet may open with (it is no content, and both claims share it); under one label
          only the values count, as they do for one long list under two labels ("Risk mitigation:
          feature flags, testing, rollback plan" / "Strategy included: feature flags, …"). The same holds
          anywhere in the store (under two headings or graph entities, in two files), compared claim by
          claim and sentence by sentence (a sentence said again inside a longer claim is one claim
          stored twice), when the words are the same or one claim says more: a heading above a restatement is
          no new subject. Quiet there: a task listed in two files (a plan and its progress), one frame
          of two things ("the builder backend" / "the aggregator backend"), two claims each naming its
          own entity, two claims opening with a verb under two entities (each subject is its entity;
          one restated as a field, "Uses TanStack Query" / "**Data Fetching:** TanStack Query", is one
          claim; "use" is no content word), two records (their entity is their subject), two observations of two graph nodes
          opening with a participle ("Located in src/x.ts", said of each node) or sharing less than 0.9
          of their words (a description each node fits), and a result a log reports again on another day. Claims that state different numbers are never near-duplicates
          (that is a change of value); a restatement may add a count the other leaves out. Nor is a
          claim beside its denial ("Workers read the cache" / "Workers do not read the cache"); a
          negation of what the other claim does not say adds a point ("Never install x: GPL-3.0" /
          "x is GPL-3.0"). With the
          static embedding model, layer 3 also reports a restatement in words of its own anywhere in the
          store, at severity review (docs/embed.md).""",
          "- Globex: the deploy runs every night at the edge\n- Globex: the deploy runs every night at the edges",
          "- Globex: the deploy runs every night at the edge"),
    _rule("contradicted_explicit", "2", Severity.ERROR, "A newer fact retracts what this fact asserts.",
          """A fact of the same entity carries a transition trigger ("left", "migrated off",
          "switched from", "replaced by", "deprecated", "no longer", "renamed X to Y", "Y (formerly X)",
          "X removed from …", "X is gone", "Y supersedes X", "Y (was X)", "no more X", ...; never
          under a plan, a question, a negation or a condition) on an anchor this fact
          asserts, and it is newer or there is no observation order between them. Across the
          entities of one store, a dated log entry that names no subject of its own ("## 2026-03-01
          / - Migrated the job queue off Redis" in a decision log) retracts the whole phrase from an
          older or undated fact of another file ("The job queue runs on BullMQ backed by Redis").
          The older claim is flagged; the fix plan keeps it as history (a record gets valid_to, a
          markdown bullet is struck through: `~~…~~ (superseded DATE, see path:line)`).""",
          "## Globex\n- works at Northwind (2026-01-01)\n- left Northwind (2026-05-01)",
          'Globex: employer = "Northwind" ; valid_to=2026-05-01 -- 2026-01-01\n- left Northwind (2026-05-01)'),
    _rule("contradicted_implicit", "2b", Severity.ERROR, "Same slot, different value, nothing retracted.",
          """Two facts of one entity fill the same slot with different values and neither retracts
          the other. With an observation order the older fact is flagged. With no order (equal
          dates or an undated side) the conflict is confirmed only when both sides are explicit
          slot = "value" records; then the first in file order is flagged. Two prose claims that
          each name a subject of their own before the verb, sharing no word ("The API runs on
          Node 18" / "The web app runs on Node 20" under one heading), are about two things:
          no slot rule (this one, `likely_conflict`, a versioned `stale`) compares them.""",
          '- billing-store: uses PostgreSQL 14 (2026-01-05)\n- billing-store: uses MySQL 8 (2026-06-02)',
          'billing-store: tool = "PostgreSQL 14" ; valid_to=2026-06-02 -- 2026-01-05\n- billing-store: uses MySQL 8 (2026-06-02)'),
    _rule("likely_conflict", "2c", Severity.REVIEW, "Two prose claims probably disagree; nothing proves it.",
          """A pair of claims with prose evidence only and no observation order probably disagrees
          (same slot read from a verb frame, different value), or a guideline still uses a tool
          another rule replaced ("Use kk lint" beside "use cargo run instead of relying on kk").
          Two dated rows of one log table are two entries: what their columns say is never
          compared. It carries a reason and a composite confidence. It is a review item: never a verdict,
          never auto-fixed, never a block on admit.""",
          "- billing: uses PostgreSQL\n- billing: uses MySQL",
          'billing: tool = "MySQL" -- 2026-06-02 (source: infra-doc)'),
    _rule("stale", "2b", Severity.WARNING, "A value the store has since superseded or withdrawn.",
          """A versioned slot (version, release, deadline, role, status, ...) or a bare version bump
          of the same thing ("redis 6" then "redis 7") was updated by a later observation, whether
          a verb frame says it ("We use Django 4.2") or the name and its version alone ("The cache
          runs Redis 6", "Node version 18", "pydantic v1 for the models"). The older fact is flagged. With no observation order, the lower version is flagged. Also stale: an
          install line pinned to a release (`npx think-tank@2.0.7`) when a later line says the
          project is currently at a higher version; a line that gives the project's current
          version ("Current Version: 1.0.0", "**Version:** 1.0.0") when its store records a later
          release (a changelog row, "Released v1.0.1", "RELEASED 2026-07-17: Version 1.0.1 - …")
          or another line gives a higher current version ("Canonical current version: 1.0.1");
          and a line that still names a memory file
          which retired itself in its opening lines ("DEPRECATED: this memory has been moved to
          …"): the agent is sent to knowledge its author withdrew. A state line that still takes
          a code-like name as its value ("arena from `table_matchmaking`") after another line
          rejects it ("Do NOT use `table_matchmaking`", "`venv/` (legacy)") is stale, as is a
          state line naming anywhere a name recorded gone ("Deleted: tests/test_quick.py",
          "`x.py` was removed", "renamed from X → Y", "Renamed `x` to `y`", each code-like name of "Dropped
          columns: seed, output_size, image_data"), and so is
          a claim still marked open ("(needs confirmation)", "(TBD)", "要確認") whose code-like
          name another line, not older, states as plain fact. In a git work tree (the grounding
          layer), a dependency or tool version the repository's manifests do not admit ("React
          18" against `"react": "^19.0.0"`; "React Hook Form 7.56" against `react-hook-form`;
          "pnpm 10.10.0" against `"packageManager": "pnpm@10.12.4"`), or a "Current Version"
          other than the manifest's, is stale too, naming the manifest line. Across one store, one tool
          given two versions no release satisfies ("Python 3.8+" in the brief, "Python 3.13+:
          minimum version" in the tech context; "react-native 0.76.1" and "React Native Version:
          0.81.5") flags the older statement, or the lower with no dates; "React 18" and "React
          18.2.0", or "Node 20+" and "Node 22.19.0", agree, and a history, a support matrix or a
          plan says nothing of the current version. Judged as a slot's two values in prose.""",
          "- cache-tier: uses redis 6 (2026-01-01)\n- cache-tier: uses redis 7 (2026-05-01)",
          "- cache-tier: uses redis 7 (2026-05-01)"),
    _rule("missing_path", "G", Severity.WARNING, "A path memory names is not in the repository.",
          """A present-tense or done claim names a file or folder of the repository (`src/api/client.ts`,
          `docs/`, a file name in code quotes) that git does not list and the disk does not hold:
          the agent opens a file that is gone. A heading that names a path ("### C. `lib/chat.ts`")
          says it exists as its section's claims do, and a claim that reports work done on a file
          ("Created `verify_grouping.py` …", a checked item) says so of a bare file name too, when
          no listed file has that name. When one listed file has that name, the finding
          names it: usually the file moved; failing that, where git's rename detection followed
          the path (one `git log`, run only when a path is missing). A path is read from the
          folder the repository has that it opens with (`supabase/migrations/` is not
          `upload/supabase/migrations/`); a folder in code quotes without its closing slash and a
          path an item gives alone are paths too, where the repository has their first folder and
          no file they name as an import does (`lib/utils` for `lib/utils.ts`); a knowledge graph's
          observations name files bare, and a claim that sends its reader to a file ("consult
          `notes.mdc`") says it is there. A path is read as a link is: "../src/x.py" from the memory file's folder, "src/x.py:42", "src/x.py::test_x" and
          "src/x.py:run()" as the file, "@src/x.py" as the file attached (in CLAUDE.md an import:
          `broken_link`). Silent for code blocks, URLs, globs, placeholders
          (`<name>`, `path/to/…`, `PAGE_NAME/`, `snake_case.py`), absolute and home paths, paths
          that lead outside the repository,
          examples ("e.g. `x.py`"), paths a claim says were deleted, renamed or moved away from
          (where a move or rename led, "Moved the job to `jobs/retry.py`", is said to be there),
          files a plan, an open task, an instruction to create or move them ("Create `x.py`") or
          a modal word ("will add", "should go in") names, a section whose heading names a
          folder or file the repository lacks (another tree), a heading under an example, sample
          or template heading, and what the rule file excludes. Each sentence of a line is its own
          claim, and a removal, plan or example in one clause of an item leaves the paths its other
          clauses name to be checked.
          Part of the grounding layer: on when the memory sits in a git work tree, off with
          `--no-grounding` or `grounding = false`. Judged by how the repository answered: a path
          whose name git lists elsewhere (one file or several, or a rename it followed) was right
          at least 0.95 of the time on the grounding eval's dev part and fails as a warning; a
          path git lists nowhere is `review` (`[rules] missing_path = "warning"` to fail on it
          too). Fix: write the path the repository has now, or drop the line.""",
          "- The client lives in `src/api/client.ts`  (git lists src/lib/api/client.ts)",
          "- The client lives in `src/lib/api/client.ts`"),
    _rule("missing_command", "G", Severity.REVIEW, "A command memory names is defined nowhere in the repository.",
          """A claim runs a script, target or recipe (`npm run test:e2e`, `pnpm lint`, `make deploy`,
          `just fmt`) that no package.json `scripts`, Makefile target or justfile recipe of the
          repository defines: the agent runs a command that fails. The finding lists what is
          defined. Only checked where the repository has that kind of file; package managers' own
          commands (`pnpm install`, `yarn add`) and a dependency's own binary (`pnpm vitest`) are
          not scripts. `review` until the grounding eval measures it. Fix: name the script that
          exists now.""",
          "- Run `npm run test:e2e` before merging  (package.json has test, test:unit)",
          "- Run `npm run test:unit` before merging"),
    _rule("status_conflict", "2b", Severity.WARNING, "A task is done in one place and pending in another.",
          """The same task or item is done in one place (a checked box, ✅, "(Completed)", a
          Completed section, a past-tense log line) and still pending, a next step, in progress or
          blocked in another (a checkbox, a status marker, a Next Steps section, a table's status
          column). A task may be named by its verb or its noun ("migrate the billing tables",
          "Billing tables migration"); work only begun ("Began …") or done in part ("✅ …
          (partial)", "✅ … (80% complete)") is no evidence it is done, and a heading that gives its
          title a share done ("### 4. Integrations - 50% complete") is in progress. Most of a
          task's words (seven in ten, where both are written with spaces) in the evidence name it, unless the evidence qualifies a
          word they share with another ("billing tables" is not "invoice tables"). A numbered unit
          whose predicate is a status has it ("**Phase 4** — Active (…)", "Phase 5 (Convoy): Not
          started — …"), and a claim that gives several units each its status tells each one
          ("Phase 1+2 done, Phase 3 (Testing) open"). With the static
          model (`--engine embed`), a task and its evidence written in other words are paired by
          meaning too (for review). A numbered unit of work inside a run of them is one
          task ("Phases 3-6 planned" against "## Phase 4 ✅ COMPLETE"; "Phases 0-12 complete
          (Phase 11 deferred)" says nothing done of Phase 11); so are all units of a kind said done
          ("All phases complete", "ALL 8 SPRINTS DONE": the first 8; "(0-10, 12-20; 11 deferred)": the
          runs listed), unless under a condition ("once all phases are complete"). A field of a task's record ("Priority:
          High", "Branch: feature/x") takes the task's status and is no task of its own, and a
          heading that only names a kind of task ("### Tasks") is a category. Newer evidence wins: the older side is flagged;
          with no observation order the pending side is. The fix plan keeps the done copy of a
          checkbox pair.""",
          "## Next Steps\n- add retry to the sync job\n\n## Completed\n- [x] add retry to the sync job",
          "## Completed\n- [x] add retry to the sync job"),
    _rule("numeric_drift", "2b", Severity.WARNING, "One quantity is stated with different numbers.",
          """One quantity of one subject (a count with its state, a percentage, a label naming a
          count: "1800+ tests pass", "Tests: 2129 passing", "90% complete", "40% remaining",
          "Test count: 1,800") is
          stated with numbers that disagree within one memory store, in one file or across files.
          The older statement is flagged and the newer one named. An undated statement that
          differs from its store's newest is flagged as unordered: no date says which is current,
          so it is for review. Items of one list and counts under two labels are two quantities
          (a label holding the other's words, "Overall" / "Overall Progress", names one subject),
          and so are statements that each name a subject before the number, neither holding the
          other ("The project is 90% complete" / "The auth module is 100% complete"); a date or a
          session before the number names no subject, nor does a word of the measure ("Overall
          Status" and "Overall Progress" are one subject). Where a quantity is reported per part,
          each part is compared with its own other reports (a summary's "UI (85% done)" and the
          section heading "### 5. UI - 70% done"). A count an event makes is its change
          ("Fixed 5 failing tests"), a count it tells in a clause of its own is a state
          ("Added the exporter; 145 tests passing").""",
          "- 1800+ tests pass (2026-01-05)\n- 2129 tests pass (2026-03-01)",
          "- 2129 tests pass (2026-03-01)"),
    _rule("beyond_budget", "R", Severity.WARNING, "The fact sits past the load budget of its file.",
          """An always-loaded index holds facts past what the memory system loads (Claude Code reads
          the first 200 lines or 25 KB of MEMORY.md at the start of a conversation): the agent never
          sees them. One finding per file names the first fact past the budget, how far past it is
          and how many lines would have to leave the file to bring it in.""",
          "(line 240 of MEMORY.md) - billing moved to MySQL 8",
          "(line 12 of MEMORY.md, or a topic file it links) - billing moved to MySQL 8"),
    _rule("broken_link", "R", Severity.ERROR, "An index link or @import names nothing the agent can load.",
          """An index line or markdown link of a memory file names a file that does not exist, or a
          CLAUDE.md / GEMINI.md `@path` import is missing, loops back on itself, or chains past the
          import depth limit (five hops): what the link promises is never loaded. A link or import
          that leads outside the repository (`~/…`, an absolute path, `../..`) is reported as
          outside: it is never read, and whether it exists is never looked up.""",
          "- [Billing](billing_notes.md) — where billing lives  (billing_notes.md was renamed)",
          "- [Billing](project_billing.md) — where billing lives"),
    _rule("unlinked_memory", "R", Severity.WARNING, "A topic file that nothing links.",
          """A topic file sits in a Claude Code memory folder but no line of MEMORY.md (within its
          load budget) or of a file it links leads to it: the agent reads topic files only when the
          index leads there, so this one is never read.""",
          "memory/project_ledger.md (no link to it in MEMORY.md)",
          "- [Ledger](project_ledger.md) — ledger tables and owners  (a line in MEMORY.md)"),
    _rule("unsourced", "0", Severity.INFO, "The claim has neither a date nor a source.",
          """A claim with no observation date and no source cannot be ranked against anything: nobody
          knows when or where it was true. Front matter date/source keys, dated headings and entries
          count. It is the exception, not the rule: in a mostly undated file (more than three
          undated facts, and most of them) one file-level finding says how many; an undated
          section of a dated file is one finding; undated facts scattered through a dated file
          (more than four places) are one finding for the file. Guidelines and relations never
          need a date.""",
          "- the API rate limit is 600 requests per minute",
          "- the API rate limit is 600 requests per minute (2026-02-01) (source: api-docs)"),
    _rule("superseded", "0", Severity.INFO, "The claim is resolved history (it carries valid_to).",
          """The record already carries valid_to: a resolved conflict kept as history. This is
          expected, reported for completeness, and never fails a run.""",
          'Globex: employer = "Northwind" ; valid_to=2026-05-01', "(nothing to change)"),
    _rule("duplicate_id", "0", Severity.INFO, "Two store lines claim one id with different content.",
          """Two records carry the same explicit id but different content: one of them was edited
          without a new id, or two stores were merged badly. The later line is flagged.""",
          '{"id": "a1", "claim": "uses redis 6"}\n{"id": "a1", "claim": "uses redis 7"}',
          '{"id": "a1", "claim": "uses redis 6"}\n{"id": "a2", "claim": "uses redis 7"}'),
    _rule("unresolved_alias", "0", Severity.REVIEW, "Two entity names look alike and were not merged.",
          """Two entity names differ by an edit or two (after case, punctuation and legal suffixes
          fold) the way one name is written twice: a plural, a mistyped word, the same words
          spaced apart. Two different words close in letters ("Stack" / "Start", "EU" / "AU",
          "0x0B" / "0x0C", a changed character of Chinese or Japanese) are two entities and are
          not reported. Nothing is merged silently: declare (aka "...") if they are one, rename
          one if they are not. Flagged on the later name.""",
          "- Acme Corp: left Globex\n- Acma: uses Jira",
          '- Acme Corp (aka "Acma"): tool = "Jira"'),
    _rule("validity_order", "0", Severity.ERROR, "valid_from is after valid_to: an empty window.",
          """The record's validity window is empty: it starts after it ends. Usually two dates were
          swapped or a typo moved a year.""",
          'svc: tool = "x" ; valid_from=2026-05-01 ; valid_to=2026-04-01',
          'svc: tool = "x" ; valid_from=2026-04-01 ; valid_to=2026-05-01'),
    _rule("orphan_entity", "0", Severity.WARNING, "An entity is declared but holds no facts.",
          """An entity is declared (a heading with nothing under it, an entity-map key with an empty
          list, a graph node with no observations and no relations) and nothing is known about it.
          An empty heading or JSON key is `review`: a section or category is often written
          before its content. A graph node, a record that says it is an entity, keeps
          `warning`.""",
          "## LegacyCron\n\n## Globex\n- works at Initech", "## Globex\n- works at Initech"),
    _rule("aged", "0", Severity.WARNING, "The fact is older than max-age-days, uncorroborated.",
          """The fact was observed longer ago than max-age-days (at the as-of date), nothing
          corroborates it and no newer fact fills its slot. Off until max-age-days is configured.""",
          "- deploy window is Friday (2024-01-01)", "- deploy window is Friday (2026-11-01)"),
    _rule("bad_input", "0", Severity.INFO, "Input that could not be read as memory.",
          """An empty, unreadable, binary, non-UTF-8 or malformed file (or a broken JSONL line): the
          scan never crashes on it and reports it here. Whole-file problems are on line 1. A memory
          file that is a link leading outside the repository is reported by its own name and never
          read; a line over 1 MiB (in a JSON document, a run of 1 MiB with no quote or line break)
          is left out of the reading and reported on its line, and the rest of the file is read. A
          markdown or JSON file with bytes that are not UTF-8 (a stray Latin-1 character) is read
          with them replaced, reported on the line of the first; a fix keeps them as they were.""",
          '{"facts": [', '{"facts": []}'),
    _rule("degraded", "3", Severity.WARNING, "The embedding layer did not run; heuristics still did.",
          """The embedding endpoint was unreachable, answered with an error or a malformed payload, or
          timed out; or no server is configured and the packaged static model (the `semantic`
          extra) is not installed. The heuristic layers still ran and their findings stand.""",
          "--engine embed with no server listening", "start the embedding server, or use --engine heuristic"),
)

BY_ID: Mapping[str, Rule] = MappingProxyType({rule.id: rule for rule in RULES})
BY_CODE: Mapping[str, Rule] = MappingProxyType({rule.code: rule for rule in RULES})
NEVER_FAILS = frozenset({"superseded"})
HELP_URI = "https://github.com/memory-autopsy/memory-autopsy#rule-{id}"

_CODE_PREFIX = lazyre.compile(r"MA\d{0,3}")


def rule_of(name: str) -> str | None:
    """The rule id a name or a code stands for (`near-duplicate`, `MA102`), or None."""
    key = name.strip()
    rule = BY_CODE.get(key.upper())
    if rule is not None:
        return rule.id
    key = key.lower().replace("-", "_")
    return key if key in BY_ID else None


def resolve(tokens: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """Rule ids named by names, codes or code prefixes (`MA2` is every MA2xx rule, `ALL` every
    rule), and the tokens that name no rule."""
    chosen: set[str] = set()
    unknown: list[str] = []
    for token in tokens:
        rule = rule_of(token)
        prefix = token.strip().upper()
        prefix = "MA" if prefix == "ALL" else prefix
        if rule is not None:
            chosen.add(rule)
        elif _CODE_PREFIX.fullmatch(prefix) and any(r.code.startswith(prefix) for r in RULES):
            chosen.update(r.id for r in RULES if r.code.startswith(prefix))
        else:
            unknown.append(token)
    return frozenset(chosen), tuple(unknown)


def suggestion(token: str) -> str:
    """` (did you mean 'x'?)` for a near miss, else empty."""
    import difflib

    key = token.strip().lower().replace("-", "_")
    close = difflib.get_close_matches(key, list(BY_ID), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""
