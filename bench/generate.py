"""Deterministic generator of canonical JSONL memory stores for the benchmark.

`generate(n, path, seed=0)` writes n canonical records (the 12 fields of SPEC section 2), one
JSON object per line. The store is shaped like a long-lived agent memory:

- one hot entity (`platform-core`) holds 10% of the facts: the stress case for every
  per-entity pass (duplicates, near duplicates, slot conflicts);
- the other 90% spread over about n/20 entities (services, people, companies);
- explicit slot/value records (FULL) with several slots per entity, values that change across
  dates (conflicts), version bumps (`redis 6` -> `redis 7`), restated values, closed history
  records carrying `valid_to`;
- prose claims with slot "" (PARTIAL, a few RESIDUAL), some of them transitions that name the
  entity's current value (`left Northwind`, `moved off redis 6`), a few exact duplicates and
  near duplicates;
- some records undated, some unsourced, some both.

Observation dates run from 2025-01-01 to 2026-10-31, drifting forward with the position in the
file plus jitter, so file order and observation order mostly agree but not always.

Everything is drawn from one `random.Random(seed)` and plain lists, so the output is
byte-identical for a seed across runs, machines and Python versions (no set or hash order).
Stdlib only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import hashlib
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

HOT_ENTITY = "platform-core"
HOT_SHARE = 0.10
FACTS_PER_ENTITY = 20

FIRST_DAY = _dt.date(2025, 1, 1)
LAST_DAY = _dt.date(2026, 10, 31)
DAYS = [
    (FIRST_DAY + _dt.timedelta(days=i)).isoformat()
    for i in range((LAST_DAY - FIRST_DAY).days + 1)
]
JITTER_DAYS = 30
# DAYS padded with its first and last day, so a day +/- JITTER_DAYS clamps by indexing alone.
_JITTERED_DAYS = [DAYS[0]] * JITTER_DAYS + DAYS + [DAYS[-1]] * JITTER_DAYS


def pick(rng: random.Random, seq: Sequence[T]) -> T:
    """`rng.choice`, about three times faster (one `random()` call)."""
    return seq[int(rng.random() * len(seq))]


def below(rng: random.Random, k: int) -> int:
    """An int in [0, k)."""
    return int(rng.random() * k)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _w(text: str) -> list[str]:
    return _unique(text.split())


def _l(text: str) -> list[str]:
    return _unique([part.strip() for part in text.split("|") if part.strip()])


# --- vocabulary -------------------------------------------------------------------------------

TECH: dict[str, list[tuple[str, list[str]]]] = {
    "database": [
        ("PostgreSQL", _w("11 12 13 14 15 16 17")), ("MySQL", _w("5.7 8.0 8.4")),
        ("MongoDB", _w("5.0 6.0 7.0 8.0")), ("Cassandra", _w("3.11 4.0 4.1 5.0")),
        ("ClickHouse", _w("23.8 24.3 24.8")), ("MariaDB", _w("10.6 10.11 11.4")),
        ("CockroachDB", _w("23.1 23.2 24.1")), ("SQLite", _w("3.40 3.45 3.46")),
    ],
    "cache": [
        ("redis", _w("5 6 7 7.2")), ("Memcached", _w("1.5 1.6")), ("Valkey", _w("7.2 8.0")),
        ("KeyDB", _w("6.2 6.3")), ("Hazelcast", _w("5.2 5.3 5.4")),
    ],
    "queue": [
        ("Kafka", _w("2.8 3.4 3.5 3.6 3.7")), ("RabbitMQ", _w("3.11 3.12 3.13 4.0")),
        ("NATS", _w("2.9 2.10")), ("Pulsar", _w("2.11 3.0 3.2")), ("ActiveMQ", _w("5.17 5.18")),
    ],
    "search": [
        ("Elasticsearch", _w("6 7 8")), ("OpenSearch", _w("1 2")),
        ("Meilisearch", _w("1.5 1.8 1.10")), ("Solr", _w("8 9")), ("Typesense", _w("0.25 26")),
    ],
    "runtime": [
        ("Node", _w("14 16 18 20 22")), ("Python", _w("3.8 3.9 3.10 3.11 3.12 3.13")),
        ("Java", _w("8 11 17 21")), ("Go", _w("1.19 1.20 1.21 1.22 1.23")),
        (".NET", _w("6 7 8")), ("Ruby", _w("3.0 3.1 3.2 3.3")), ("PHP", _w("7.4 8.1 8.2 8.3")),
    ],
    "framework": [
        ("Django", _w("3.2 4.2 5.0 5.1")), ("Rails", _w("6.1 7.0 7.1 7.2")),
        ("Spring Boot", _w("2.7 3.1 3.2 3.3")), ("Express", _w("4 5")),
        ("FastAPI", _w("0.95 0.110 0.115")), ("Flask", _w("2.2 2.3 3.0")),
        ("Laravel", _w("9 10 11")), ("Next.js", _w("12 13 14 15")),
    ],
    "orchestrator": [
        ("Kubernetes", _w("1.26 1.27 1.28 1.29 1.30 1.31")), ("Nomad", _w("1.5 1.6 1.7")),
        ("ECS", _w("2023 2024")), ("OpenShift", _w("4.12 4.14 4.16")),
    ],
    "os": [
        ("Ubuntu", _w("18.04 20.04 22.04 24.04")), ("Debian", _w("10 11 12")),
        ("Alpine", _w("3.17 3.18 3.19 3.20")), ("RHEL", _w("8 9")),
        ("Amazon Linux", _w("2 2023")),
    ],
    "proxy": [
        ("nginx", _w("1.22 1.24 1.26")), ("Envoy", _w("1.27 1.28 1.29 1.30")),
        ("HAProxy", _w("2.6 2.8 3.0")), ("Traefik", _w("2.10 2.11 3.0 3.1")),
        ("Caddy", _w("2.6 2.7 2.8")),
    ],
}
TECH_SLOTS = list(TECH)

DOMAINS = _w(
    "billing auth search checkout ledger payments inventory catalog shipping notifications "
    "analytics identity reporting pricing orders invoice media profile session recommendation "
    "fraud audit metrics logging email sms webhook scheduler export import sync cart loyalty "
    "tax refund subscription onboarding support ticketing chat feed upload thumbnail geo "
    "routing dispatch fleet booking calendar quote contract compliance kyc risk warehouse "
    "forecast payroll expense procurement vendor survey review rating coupon wallet kiosk "
    "telemetry consent archive translation"
)
ROLES = _w(
    "store api service worker db cache queue gateway frontend backend pipeline cron proxy index "
    "etl bus engine hub portal app bridge daemon controller router broker vault registry scanner "
    "monitor exporter"
)
ROLE_SUFFIXES = ["", "-eu", "-us", "-apac", "-v2", "-legacy", "-canary", "-staging",
                 "-west", "-east", "-internal", "-batch"]
FIRST_NAMES = _w(
    "Ana Ben Carla Dev Elena Farid Grace Hiro Ines Jonas Kavya Liam Mara Nikhil Olga Pablo "
    "Quinn Rosa Sami Tara Umar Vera Wes Xenia Yusuf Zoe Aaron Bianca Chen Dario Emeka Fatima "
    "Gustav Hana Ivan Julia Kofi Lena Mateo Nadia Oscar Priya Rafael Sofia Tomas Uma Victor "
    "Wanda Yara Zain Adele Bruno Celia Dmitri Esme Felix Gita Hugo Ilse Jamal Kira Lucas Maya "
    "Noah Oren Petra Rahul Selma Theo Ulla Vikram Wren Ximena Yosef Zara Amir Beatriz Cyrus "
    "Daria Elif Finn Greta Hamza Irene Joel Keiko Leon Mina Nils Ona Pedro Rina Stefan Tanvi "
    "Ugo Valeria Willem Yuki Zuri Alma Boris Chiara Diego Eva Florin Gabe Helga Ishaan Jana "
    "Karim Lotte Marco Nell Odile Pia Ravi Sven Talia Uri Vida Wim Yasmin Zeno Agnes Basil "
    "Cosima Dante Edda Fynn Gemma Henrik Iris Jorge Kaia Lars Milo Nour Otto Paz Rumi Saul "
    "Tova Ulf Vance Wilma Yael Zelda Arlo Bodhi Cleo Dov Elio Faye Gil Hedy Ike Juno Kit Lior"
)
LAST_NAMES = _w(
    "Silva Okafor Novak Tanaka Muller Haddad Rossi Kowalski Singh Larsen Costa Ivanova Dubois "
    "Nakamura Schmidt Oliveira Petrov Moreau Fischer Kim Andersen Garcia Lindqvist Mensah Rahman "
    "Yilmaz Bauer Ferreira Horvat Jansen Kaur Lopez Marino Nilsen Otieno Park Quintero Reyes "
    "Sato Torres Ueda Varga Weber Xu Young Zhou Abara Berg Conti Dahl Eze Fontaine Gallo Hansen "
    "Ito Jovanovic Koch Lund Mwangi Nowak Ortiz Pohl Ramos Santos Toth Urban Vogel Wagner Yamada "
    "Zielinski Adeyemi Brandt Cruz Duarte Engel Falk Gomez Hoffmann Iqbal Jensen Kraus Lang "
    "Meyer Nunez Olsen Pereira Romero Sousa Takahashi Ullah Vasquez Wolf Yadav Zimmer Alves "
    "Baker Castro Diaz Ekstrom Frank Grant Hughes Ibrahim Jones Keller Lewis Morales Nash "
    "Ogawa Price Quinn Reed Shaw Turner Upton Vance Walsh Yates Zamora Acosta Blake Chandra "
    "Dorsey Ellis Flores Greene Holm Irwin Joshi Kaplan Lowe Mendes Nolan Owens Pham Rowe "
    "Stone Tran Unger Vidal Webb Young Zhang Arora Boyd Carvalho Dunn Estrada Fox Guerra Hale "
    "Ikeda Jacobs Kowal Leroy Molina Nair Osei Patel Rivas Sharma Tiwari Uddin Valdez Ward"
)
COMPANY_HEADS = _w(
    "Northwind Globex Initech Umbrella Contoso Fabrikam Acme Hooli Vandelay Wayne Stark Tyrell "
    "Cyberdyne Soylent Wonka Oscorp Aperture Massive Dunder Pied Gringotts Monarch Virtucon "
    "Weyland Zorg Octan Nakatomi Sirius Tessier Blue Red Green Silver Golden Iron Bright North "
    "South Summit Harbor River Cedar Maple Pine Oak Falcon Eagle Orbit Quantum Vertex Apex Nimbus "
    "Polar Solar Lunar Prism Helix Nova Stellar Zenith Pioneer Beacon Atlas Titan Keystone "
    "Meridian Horizon Crescent Evergreen Granite Cobalt Sapphire Emerald Ruby Onyx Amber Coral "
    "Juniper Willow Aspen Birch Sequoia Cascade Tundra Mesa Canyon Delta Sierra Lattice Vector "
    "Kepler Halcyon Borealis Ember Vireo Kestrel Osprey Heron Marlin"
)
COMPANY_TAILS = ["", " Labs", " Systems", " Analytics", " Health", " Logistics", " Bank",
                 " Foods", " Energy", " Media", " Robotics", " Capital", " Cloud", " Networks",
                 " Traders", " Group", " Studios", " Motors", " Pharma", " Insurance"]
TEAMS = _w(
    "platform payments growth identity data search infra sre mobile web checkout risk "
    "ml-platform observability developer-experience security billing fulfilment core-api "
    "integrations"
)
REGIONS = _w(
    "us-east-1 us-east-2 us-west-2 eu-west-1 eu-central-1 eu-north-1 ap-southeast-1 "
    "ap-northeast-1 ap-south-1 sa-east-1 ca-central-1 europe-west4 us-central1 asia-east1"
)
CITIES = _l(
    "Lisbon|Berlin|Toronto|Austin|Nairobi|Seoul|Sao Paulo|Warsaw|Dublin|Bangalore|Oslo|"
    "Mexico City|Amsterdam|Singapore|Melbourne|Lagos|Barcelona|Vancouver|Helsinki|Tokyo|"
    "Cape Town|Zurich|Montreal|Denver|Prague|Istanbul|Buenos Aires|Copenhagen|Kyoto|Porto"
)
PURPOSES = _l(
    "billing store|session store|audit trail|event log|feature store|search index|job queue|"
    "rate limiter|leaderboard|order history|invoice archive|user profiles|product catalog|"
    "analytics warehouse|notification fan-out|payment ledger|inventory snapshots|"
    "fraud signals|webhook retries|cart state|recommendation cache|metrics rollups|"
    "email outbox|thumbnail cache|geo lookups|pricing rules|tax tables|consent records|"
    "reporting marts|export jobs|import staging|search suggestions|refund queue|loyalty points|"
    "subscription state|onboarding funnel|support tickets|chat history|upload manifests|"
    "translation memory|kyc documents|risk scores|vendor contracts|payroll runs"
)
COMPONENTS = _w(
    "ingest writer reader compactor scheduler dispatcher indexer resolver validator enricher "
    "aggregator notifier exporter importer renderer uploader downloader poller listener "
    "reconciler sweeper replicator balancer throttler limiter router matcher scorer ranker "
    "tokenizer parser encoder decoder signer verifier archiver pruner warmer loader syncer "
    "mirror relay buffer batcher splitter joiner tracker auditor planner builder packer "
    "migrator seeder watcher prober collector emitter checker fetcher"
)
PARAMS = _w(
    "max_connections timeout_ms pool_size batch_size retry_limit backoff_ms queue_depth "
    "cache_ttl log_level workers threads buffer_kb max_payload_kb compression read_timeout "
    "write_timeout idle_timeout keepalive replicas shards partitions prefetch concurrency "
    "rate_limit burst heap_mb gc_mode sample_rate flush_interval lease_ms ack_mode isolation "
    "tls_mode region_pin cpu_limit mem_limit max_retries dedupe_window ttl_days"
)
CONFIG_VALUES = _w(
    "1 2 4 8 16 32 64 100 128 200 250 256 500 512 1000 1024 2048 4096 5s 10s 30s 60s 5m "
    "true false on off info debug warn error gzip zstd lz4 none strict relaxed at-least-once "
    "exactly-once read-committed serializable 0.1 0.25 0.5"
)
PACKAGES = _w(
    "requests urllib3 boto3 pydantic sqlalchemy alembic celery gunicorn uvicorn httpx numpy "
    "pandas lodash axios express react webpack babel jest typescript eslint prettier zod "
    "prisma sequelize mongoose jackson guava netty log4j slf4j hibernate lombok junit grpc "
    "protobuf openssl libcurl zlib nokogiri rack puma sidekiq devise rspec serde tokio hyper "
    "reqwest clap anyhow tracing cobra viper gin gorm zap testify chi echo fiber"
)
FLAG_ADJ = _w(
    "new fast smart async bulk instant lazy early beta dark silent strict partial live shared "
    "guest unified modern legacy express simple secure auto quick rich compact dynamic static "
    "offline inline nested grouped pinned saved scheduled tiered weighted sticky tracked "
    "verified muted archived draft hybrid adaptive predictive"
)
FLAG_NOUN = _w(
    "checkout search onboarding pricing export import invoices refunds cart profile dashboard "
    "reports alerts billing login signup uploads comments reviews ratings coupons wallet "
    "payouts receipts shipping tracking returns catalog filters sorting pagination previews "
    "thumbnails notifications digest inbox sharing mentions reactions bookmarks history "
    "settings themes routing"
)
FLAG_VALUES = ["on", "off", "10%", "25%", "50%", "100%", "beta only", "internal only",
               "EU only", "disabled pending review"]
ENV_HEADS = _w(
    "DB CACHE QUEUE AUTH API SMTP S3 OTEL SENTRY STRIPE KAFKA REDIS SEARCH FEATURE LOG HTTP "
    "GRPC TLS JWT OAUTH CDN METRICS TRACE WORKER CRON"
)
ENV_TAILS = _w(
    "URL HOST PORT TIMEOUT POOL KEY REGION BUCKET LEVEL MODE ENDPOINT TOKEN_TTL RETRIES "
    "SAMPLE_RATE DSN USER"
)
ENV_VALUES = _w(
    "prod staging dev internal.example.net:5432 cache.internal:6379 1 0 true false 30 60 "
    "120 debug info eu-west-1 us-east-1 bucket-a bucket-b strict lax 0.05 0.5"
)
ROLE_TITLES = _l(
    "staff engineer|engineering manager|product manager|data scientist|designer|"
    "site reliability engineer|CTO|VP engineering|tech lead|security engineer|analyst|"
    "founder|consultant|recruiter|support lead|solutions architect|QA engineer|"
    "developer advocate|platform engineer|ML engineer"
)
EDITORS = _l("VS Code|Neovim|Vim|Emacs|IntelliJ IDEA|PyCharm|Zed|Sublime Text|Helix|Cursor")
LANGUAGES = _w("Portuguese English German Japanese Spanish Hindi Swahili Korean French Polish "
               "Dutch Turkish Arabic Italian Mandarin")
TIMEZONES = _w("UTC Europe/Lisbon Europe/Berlin America/Toronto America/Chicago Asia/Tokyo "
               "Asia/Kolkata Africa/Nairobi Australia/Melbourne America/Sao_Paulo")
DIETS = _w("vegetarian vegan pescatarian omnivore gluten-free keto halal kosher")
PETS = _l("dog|cat|parrot|rabbit|two cats|a hamster|no pets|a tortoise")
PET_NAMES = _w("Biscuit Miso Pixel Luna Tofu Pepper Olive Mango Noodle Ziggy Kiwi Basil")
HOBBIES = _l("climbing|chess|sourdough baking|running|cycling|painting|birdwatching|"
             "woodworking|piano|board games|photography|surfing|gardening|pottery")
FOODS = _w("peanuts shellfish gluten lactose sesame soy eggs")
INDUSTRIES = _l("fintech|logistics|healthcare|retail|media|energy|insurance|gaming|"
                "education|manufacturing|telecom|travel")
PLANS = _w("free starter team business enterprise enterprise-plus")
CRMS = _w("Salesforce HubSpot Pipedrive Zoho Dynamics Attio")
CLOUDS = _w("AWS GCP Azure Hetzner OVH DigitalOcean")
STATUSES = _l("active|deprecated|in migration|sunset planned|frozen|read-only|experimental")
TIERS = _w("tier-0 tier-1 tier-2 tier-3")
SLAS = _w("99.0% 99.5% 99.9% 99.95% 99.99%")
DATA_KINDS = _l("PII|card tokens|audit events|raw clicks|session blobs|invoices|images|"
                "embeddings|logs|metrics|backups|model weights|exports")
SOURCES_PRIMARY = _l("infra-doc|runbook|hr|profile|user|architecture-review|billing-system")
SOURCES_SECONDARY = _l("slack:#ops|slack:#eng|slack:#random|email|chat|meeting-notes|standup")
SOURCES_OTHER = _l("agent-inference|wiki|onboarding-notes|ticket|commit-message|calendar")
WIKI_SPACES = _w("eng ops sales people platform data security finance")

SERVICE_SLOTS = TECH_SLOTS + _w("owner oncall region tier status cloud repo replicas sla port")
PERSON_SLOTS = _w("employer role location manager team editor language timezone diet pet "
                  "hobby favorite_tool")
COMPANY_SLOTS = _w("hq ceo industry plan headcount crm cloud account_manager renewal "
                   "support_tier")
FIXED_SLOTS = {"service": SERVICE_SLOTS, "person": PERSON_SLOTS, "company": COMPANY_SLOTS}
CATEGORIES: dict[str, list[str]] = {
    "owner": TEAMS, "team": TEAMS, "region": REGIONS, "tier": TIERS,
    "status": STATUSES, "cloud": CLOUDS, "sla": SLAS, "role": ROLE_TITLES,
    "location": CITIES, "hq": CITIES, "editor": EDITORS, "language": LANGUAGES,
    "timezone": TIMEZONES, "diet": DIETS, "pet": PETS, "hobby": HOBBIES,
    "industry": INDUSTRIES, "plan": PLANS, "crm": CRMS, "support_tier": TIERS,
    "config": CONFIG_VALUES, "feature": FLAG_VALUES, "env": ENV_VALUES,
}
KIND_SHARE = (("service", 0.5), ("person", 0.38), ("company", 0.12))


# --- entities ---------------------------------------------------------------------------------

def _entity_pools(rng: random.Random) -> dict[str, list[str]]:
    services = [f"{d}-{r}{s}" for d in DOMAINS for r in ROLES for s in ROLE_SUFFIXES]
    people = [f"{f} {la}" for f in FIRST_NAMES for la in LAST_NAMES]
    companies = [f"{h}{t}" for h in COMPANY_HEADS for t in COMPANY_TAILS]
    pools = {"service": services, "person": people, "company": companies}
    for pool in pools.values():
        rng.shuffle(pool)
    return pools


def _pick_entities(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """`count` distinct (name, kind) pairs in a seeded order."""
    pools = _entity_pools(rng)
    taken = {kind: 0 for kind in pools}
    chosen: list[tuple[str, str]] = []
    for i in range(count):
        kind = _kind_for(i, count)
        pool = pools[kind]
        k = taken[kind]
        taken[kind] = k + 1
        name = pool[k % len(pool)]
        if k >= len(pool):  # only past ~100k entities: numbered copies
            name = f"{name} {k // len(pool) + 1}"
        chosen.append((name, kind))
    return chosen


def _kind_for(i: int, count: int) -> str:
    position = (i + 0.5) / max(count, 1)
    acc = 0.0
    for kind, share in KIND_SHARE:
        acc += share
        if position < acc:
            return kind
    return KIND_SHARE[-1][0]


@dataclass
class Entity:
    name: str
    kind: str
    slots: dict[str, Any] = field(default_factory=dict)
    slot_dates: dict[str, str | None] = field(default_factory=dict)
    last_line: str = ""
    last_prose: str = ""


# --- values -----------------------------------------------------------------------------------

def _tech_value(slot: str, state: Any) -> str:
    tech, versions = TECH[slot][state[0]]
    return f"{tech} {versions[state[1]]}"


def _new_tech_state(slot: str, rng: random.Random) -> tuple[int, int]:
    t = below(rng, len(TECH[slot]))
    versions = TECH[slot][t][1]
    return (t, below(rng, max(1, len(versions) - 1)))


def _bump_tech_state(slot: str, state: tuple[int, int], rng: random.Random) -> tuple[int, int]:
    t, v = state
    if v + 1 < len(TECH[slot][t][1]):
        return (t, v + 1)
    return _new_tech_state(slot, rng)


class Values:
    """Value pickers per slot; a slot's state is what `render` turns into the value string."""

    def __init__(self, rng: random.Random, entities: list[tuple[str, str]]) -> None:
        self.rng = rng
        self.names = [name for name, _ in entities]
        self.services = [name for name, kind in entities if kind == "service"] or self.names
        self.people = [f"{f} {la}" for f in FIRST_NAMES[:60] for la in LAST_NAMES[:60]]
        self.companies = [f"{h}{t}" for h in COMPANY_HEADS for t in COMPANY_TAILS[:4]]

    def fresh(self, slot: str) -> Any:
        rng = self.rng
        if slot in TECH or slot == "favorite_tool":
            return _new_tech_state(self._tech_slot(slot), rng)
        if slot.startswith("dep:"):
            return (below(rng, 6), below(rng, 20), below(rng, 12))
        return self._categorical(slot)

    def changed(self, slot: str, state: Any) -> tuple[Any, bool]:
        """A new state for the slot and whether it is a version bump."""
        rng = self.rng
        if slot in TECH or slot == "favorite_tool":
            if rng.random() < 0.6:
                return _bump_tech_state(self._tech_slot(slot), state, rng), True
            return _new_tech_state(self._tech_slot(slot), rng), False
        if slot.startswith("dep:"):
            major, minor, _ = state
            if rng.random() < 0.3:
                return (major + 1, 0, 0), True
            return (major, minor + 1, below(rng, 5)), True
        for _ in range(4):
            new = self._categorical(slot)
            if new != state:
                return new, False
        return new, False

    def render(self, slot: str, state: Any) -> str:
        if slot in TECH:
            return _tech_value(slot, state)
        if slot == "favorite_tool":
            return _tech_value(self._tech_slot(slot), state)
        if slot.startswith("dep:"):
            return ".".join(str(part) for part in state)
        return str(state)

    @staticmethod
    def _tech_slot(slot: str) -> str:
        return "runtime" if slot == "favorite_tool" else slot

    def _categorical(self, slot: str) -> str:
        rng = self.rng
        head = slot.split(":", 1)[0]
        if head in CATEGORIES:
            return pick(rng, CATEGORIES[head])
        if head in ("oncall", "manager", "ceo", "account_manager"):
            return pick(rng, self.people)
        if head == "employer":
            return pick(rng, self.companies)
        if head == "route":
            return pick(rng, self.names)
        if head == "repo":
            return f"github.com/{pick(rng, TEAMS)}/{pick(rng, DOMAINS)}-{pick(rng, ROLES)}"
        if head in ("replicas", "port", "headcount"):
            return str({"replicas": 1 + below(rng, 24), "port": 8000 + below(rng, 200),
                        "headcount": 10 * (1 + below(rng, 900))}[head])
        if head == "renewal":
            return pick(rng, DAYS)
        return pick(rng, CONFIG_VALUES)


def _parameterized_slot(kind: str, rng: random.Random) -> str:
    roll = rng.random()
    if kind == "person":
        if roll < 0.6:
            runtime = pick(rng, TECH["runtime"])[0]
            return f"skill:{runtime.lower()}"
        return f"contact:{pick(rng, ['email', 'phone', 'slack', 'signal', 'matrix'])}"
    if kind == "company":
        return f"product:{pick(rng, FLAG_NOUN)}" if roll < 0.7 else f"env:{pick(rng, ENV_HEADS)}"
    if roll < 0.34:
        return f"feature:{pick(rng, FLAG_ADJ)}-{pick(rng, FLAG_NOUN)}"
    if roll < 0.48:
        return f"config:{pick(rng, COMPONENTS)}.{pick(rng, PARAMS)}"
    if roll < 0.62:  # per-domain overrides: a large slot space for the hot entity
        domain = pick(rng, DOMAINS[:12])
        return f"config:{domain}.{pick(rng, COMPONENTS)}.{pick(rng, PARAMS)}"
    if roll < 0.78:
        return f"env:{pick(rng, ENV_HEADS)}_{pick(rng, ENV_TAILS)}"
    if roll < 0.92:
        return f"route:/{pick(rng, DOMAINS)}/{pick(rng, FLAG_NOUN)}"
    return f"dep:{pick(rng, PACKAGES)}"


# --- prose ------------------------------------------------------------------------------------

def _tech_phrase(rng: random.Random, slot: str | None = None) -> str:
    slot = slot or pick(rng, TECH_SLOTS)
    tech, versions = pick(rng, TECH[slot])
    return f"{tech} {pick(rng, versions)}" if rng.random() < 0.8 else tech


def _service_prose(ent: Entity, rng: random.Random, vals: Values) -> tuple[str, str | None]:
    current = [s for s in TECH_SLOTS if s in ent.slots]
    roll = rng.random()
    if roll < 0.08 and current:
        slot = pick(rng, current)
        old = vals.render(slot, ent.slots[slot])
        verb = pick(rng, ["moved off", "migrated from", "switched from", "replaced",
                           "stopped using", "retired", "no longer uses", "decommissioned"])
        tail = f" in favor of {_tech_phrase(rng, slot)}" if rng.random() < 0.5 else ""
        status = verb if verb in ("retired", "replaced", "decommissioned") else None
        return f"{verb} {old}{tail}", status
    templates: tuple[Callable[[], str], ...] = (
        lambda: f"uses {_tech_phrase(rng)} for the {pick(rng, PURPOSES)}",
        lambda: f"runs on {pick(rng, TECH['orchestrator'])[0]} in {pick(rng, REGIONS)}",
        lambda: f"stores {pick(rng, DATA_KINDS)} in {_tech_phrase(rng, 'database')}",
        lambda: f"is owned by the {pick(rng, TEAMS)} team",
        lambda: f"pages {pick(rng, vals.people)} for {pick(rng, COMPONENTS)} incidents",
        lambda: f"depends on {pick(rng, vals.services)} for the {pick(rng, PURPOSES)}",
        lambda: (f"caps the {pick(rng, COMPONENTS)} at {50 * (1 + below(rng, 200))} "
                 f"requests per second"),
        lambda: f"deprecated the /{pick(rng, DOMAINS)}/{pick(rng, FLAG_NOUN)} endpoint",
        lambda: (f"the {pick(rng, COMPONENTS)} {pick(rng, ROLES)} times out after "
                 f"{pick(rng, ['5s', '10s', '30s', '60s', '2m'])} under load"),
        lambda: f"ships the {pick(rng, FLAG_ADJ)} {pick(rng, FLAG_NOUN)} flow behind a flag",
        lambda: (f"backs up {pick(rng, PURPOSES)} to {pick(rng, CLOUDS)} every "
                 f"{pick(rng, ['hour', 'night', 'week', '15 minutes'])}"),
        lambda: (f"had a {pick(rng, ['short', 'long', 'partial', 'full'])} outage in the "
                 f"{pick(rng, COMPONENTS)} {pick(rng, ['last week', 'this month', 'again'])}"),
        lambda: f"plans to move the {pick(rng, PURPOSES)} to {_tech_phrase(rng)}",
    )
    claim = pick(rng, templates)()
    return claim, ("deprecated" if claim.startswith("deprecated") else None)


def _person_prose(ent: Entity, rng: random.Random, vals: Values) -> tuple[str, str | None]:
    roll = rng.random()
    if roll < 0.10 and "employer" in ent.slots:
        verb = pick(rng, ["left", "left", "quit", "departed"])
        return f"{verb} {ent.slots['employer']}", verb
    if roll < 0.14 and "location" in ent.slots:
        return f"moved away from {ent.slots['location']} to {pick(rng, CITIES)}", None
    templates: tuple[Callable[[], str], ...] = (
        lambda: f"works at {pick(rng, vals.companies)} as {pick(rng, ROLE_TITLES)}",
        lambda: f"joined {pick(rng, vals.companies)} in {pick(rng, DAYS)[:7]}",
        lambda: f"lives in {pick(rng, CITIES)}",
        lambda: f"prefers {pick(rng, EDITORS)} over {pick(rng, EDITORS)}",
        lambda: f"is allergic to {pick(rng, FOODS)}",
        lambda: f"speaks {pick(rng, LANGUAGES)} and {pick(rng, LANGUAGES)}",
        lambda: f"reports to {pick(rng, vals.people)}",
        lambda: f"is learning {_tech_phrase(rng)}",
        lambda: f"has a {pick(rng, PETS[:4])} named {pick(rng, PET_NAMES)}",
        lambda: f"likes {pick(rng, HOBBIES)} on weekends",
        lambda: f"is on call for {pick(rng, vals.services)} this quarter",
        lambda: f"wants standups moved to {pick(rng, ['9:00', '9:30', '10:00', '14:00'])}",
        lambda: f"mentors {pick(rng, vals.people)} on {pick(rng, TEAMS)} work",
    )
    return pick(rng, templates)(), None


def _company_prose(ent: Entity, rng: random.Random, vals: Values) -> tuple[str, str | None]:
    templates: tuple[Callable[[], str], ...] = (
        lambda: f"is headquartered in {pick(rng, CITIES)}",
        lambda: f"acquired {pick(rng, vals.companies)}",
        lambda: (f"switched from {_tech_phrase(rng)} to {_tech_phrase(rng)} for the "
                 f"{pick(rng, PURPOSES)}"),
        lambda: f"has about {10 * (1 + below(rng, 900))} employees",
        lambda: f"signed a {pick(rng, PLANS)} contract in {pick(rng, DAYS)[:7]}",
        lambda: f"is a {pick(rng, INDUSTRIES)} customer on {pick(rng, CLOUDS)}",
        lambda: f"asked for a discount on the {pick(rng, PLANS)} plan",
        lambda: f"churned from the {pick(rng, FLAG_NOUN)} product",
        lambda: f"runs its {pick(rng, PURPOSES)} on {_tech_phrase(rng)}",
    )
    return pick(rng, templates)(), None


PROSE = {"service": _service_prose, "person": _person_prose, "company": _company_prose}
STATUS_PREFIXES = (("confirmed", "confirmed: "), ("verified", "verified: "),
                   ("rumor", "rumor: "), ("unconfirmed", "unconfirmed: "))


# --- records ----------------------------------------------------------------------------------

FIELDS = ("id", "entity", "slot", "value", "claim", "observed_at", "valid_from", "valid_to",
          "source", "source_class", "fidelity", "status_verb")
_quote: Callable[[str], str] = json.encoder.py_encode_basestring  # C version below if present
try:
    from _json import encode_basestring as _c_quote  # the C helper json itself uses

    _quote = _c_quote
except ImportError:  # pragma: no cover - pure-Python builds
    pass


def record_id(rec: dict[str, Any]) -> str:
    """16 hex chars of SHA-256 over the record's normalized content (never its position).

    Normalized: the content fields (all but id, fidelity and status_verb) joined with NUL,
    case-folded, runs of whitespace collapsed to one space.
    """
    payload = (
        f'{rec["entity"]}\0{rec["slot"]}\0{rec["value"]}\0{rec["claim"]}\0'
        f'{rec["observed_at"] or ""}\0{rec["valid_from"] or ""}\0{rec["valid_to"] or ""}\0'
        f'{rec["source"] or ""}\0{rec["source_class"]}'
    )
    payload = " ".join(payload.casefold().split())
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _q(text: str | None) -> str:
    return "null" if text is None else _quote(text)


def _s(text: str | None) -> str:
    """A string known to need no escaping (hex id, ISO date, class, fidelity)."""
    return "null" if text is None else f'"{text}"'


def to_line(r: dict[str, Any]) -> str:
    """`json.dumps(r, ensure_ascii=False)` for a canonical record, in field order, faster."""
    return (
        f'{{"id": "{r["id"]}", "entity": {_quote(r["entity"])}, "slot": {_quote(r["slot"])}, '
        f'"value": {_quote(r["value"])}, "claim": {_quote(r["claim"])}, '
        f'"observed_at": {_s(r["observed_at"])}, "valid_from": {_s(r["valid_from"])}, '
        f'"valid_to": {_s(r["valid_to"])}, "source": {_q(r["source"])}, '
        f'"source_class": "{r["source_class"]}", "fidelity": "{r["fidelity"]}", '
        f'"status_verb": {_q(r["status_verb"])}}}'
    )


class Generator:
    def __init__(self, n: int, seed: int, hot_share: float = HOT_SHARE) -> None:
        self.n = n
        self.hot_share = hot_share
        self.rng = random.Random(seed)
        n_entities = max(1, round(n * (1 - hot_share) / FACTS_PER_ENTITY))
        picked = _pick_entities(n_entities, self.rng)
        self.hot = Entity(HOT_ENTITY, "service")
        self.entities = [Entity(name, kind) for name, kind in picked]
        self.values = Values(self.rng, picked + [(HOT_ENTITY, "service")])

    def lines(self) -> Iterator[str]:
        """Yield n JSON lines; exactly round(n * hot_share) of them on the hot entity."""
        rng = self.rng
        hot_left = round(self.n * self.hot_share)
        for i in range(self.n):
            if rng.random() * (self.n - i) < hot_left:
                hot_left -= 1
                ent = self.hot
            else:
                ent = pick(rng, self.entities)
            yield self._fact(ent, i)

    def _fact(self, ent: Entity, i: int) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.006 and ent.last_line:  # the same record written twice
            return ent.last_line
        date = self._date(i)
        if roll < 0.52:
            rec = self._explicit(ent, date)
        else:
            rec = self._prose(ent, date, roll)
        self._stamp(rec)
        line = to_line(rec)
        ent.last_line = line
        return line

    def _date(self, i: int) -> str | None:
        rng = self.rng
        if rng.random() < 0.06:
            return None
        centre = (i * (len(DAYS) - 1)) // max(self.n - 1, 1)
        day = _JITTERED_DAYS[centre + int(rng.random() * (2 * JITTER_DAYS + 1))]
        if rng.random() < 0.12:
            return f"{day}T{below(rng, 24):02d}:{below(rng, 60):02d}:00Z"
        return day

    def _explicit(self, ent: Entity, date: str | None) -> dict[str, Any]:
        rng = self.rng
        vals = self.values
        fixed_share = 0.05 if ent is self.hot else 0.75
        if rng.random() < fixed_share:
            slot = pick(rng, FIXED_SLOTS[ent.kind])
        else:
            slot = _parameterized_slot(ent.kind, rng)
        valid_from = valid_to = None
        if slot not in ent.slots:
            state = vals.fresh(slot)
        else:
            state = ent.slots[slot]
            roll = rng.random()
            since = ent.slot_dates.get(slot)
            if roll < 0.06:
                pass  # restated, word for word
            elif roll < 0.18 and since and date:
                # closed history: the old value with the window it held
                valid_from, valid_to = sorted((since, date[:10]))
                if rng.random() < 0.02:  # a broken window now and then
                    valid_from, valid_to = valid_to, valid_from
                new_state, _ = vals.changed(slot, state)
                value = vals.render(slot, state)
                ent.slots[slot], ent.slot_dates[slot] = new_state, date[:10]
                return self._record(ent, slot, value, date, valid_from, valid_to)
            else:
                state, _ = vals.changed(slot, state)
        if date and rng.random() < 0.05:
            valid_from = date[:10]
        ent.slots[slot] = state
        ent.slot_dates[slot] = date[:10] if date else None
        return self._record(ent, slot, vals.render(slot, state), date, valid_from, valid_to)

    def _record(self, ent: Entity, slot: str, value: str, date: str | None,
                valid_from: str | None, valid_to: str | None) -> dict[str, Any]:
        return {
            "id": "", "entity": ent.name, "slot": slot, "value": value,
            "claim": f'{slot} = "{value}"', "observed_at": date,
            "valid_from": valid_from, "valid_to": valid_to,
            "source": None, "source_class": "unclassified",
            "fidelity": "FULL", "status_verb": None,
        }

    def _prose(self, ent: Entity, date: str | None, roll: float) -> dict[str, Any]:
        rng = self.rng
        status: str | None = None
        if roll > 0.985 and ent.last_prose:
            claim = ent.last_prose  # the same claim again, on another date
        elif roll > 0.975 and ent.last_prose:
            claim = _near_copy(ent.last_prose, rng)
        else:
            claim, status = PROSE[ent.kind](ent, rng, self.values)
            if status is None and rng.random() < 0.05:
                status, prefix = pick(rng, STATUS_PREFIXES)
                claim = prefix + claim
        ent.last_prose = claim
        return {
            "id": "", "entity": ent.name, "slot": "", "value": "", "claim": claim,
            "observed_at": date, "valid_from": None, "valid_to": None,
            "source": None, "source_class": "unclassified",
            "fidelity": "RESIDUAL" if rng.random() < 0.04 else "PARTIAL",
            "status_verb": status,
        }

    def _stamp(self, rec: dict[str, Any]) -> None:
        """Source, source class and id."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.10 or (rec["observed_at"] is None and roll < 0.5):
            source, klass = None, "unclassified"
        elif roll < 0.40:
            source, klass = pick(rng, SOURCES_PRIMARY), "primary"
        elif roll < 0.65:
            source, klass = pick(rng, SOURCES_SECONDARY), "secondary"
        elif roll < 0.80:
            space, page = pick(rng, WIKI_SPACES), pick(rng, DOMAINS)
            source, klass = f"https://wiki.example.com/{space}/{page}", "unclassified"
        else:
            source, klass = pick(rng, SOURCES_OTHER), "unclassified"
        if source is not None and rng.random() < 0.15:
            klass = "unclassified"  # a named source that nobody classified
        rec["source"], rec["source_class"] = source, klass
        rec["id"] = record_id(rec)


def _near_copy(claim: str, rng: random.Random) -> str:
    """A near duplicate: one small edit to a long claim."""
    words = claim.split()
    if len(words) > 4:
        k = 1 + below(rng, len(words) - 1)
        swap = {"the": "our", "for": "for all", "in": "within", "to": "into", "a": "one"}
        words[k] = swap.get(words[k], words[k] + ("s" if not words[k].endswith("s") else ""))
        return " ".join(words)
    return claim + " again"


def generate(n: int, path: str | Path, seed: int = 0) -> Path:
    """Write a canonical JSONL store of n facts to `path`; deterministic for a seed."""
    return generate_shape("jsonl", n, path, seed)


# --- the other input shapes -------------------------------------------------------------------
#
# Each shape is a writer of (n, seed) -> lines. The JSON document and the markdown shapes hold
# the same facts as the JSONL store of the same n and seed (rendered from its records); the
# other three are the degenerate stores that catch a quadratic pass: one graph node with n
# observations, one slot with n values, one entity with n facts.

def _records(n: int, seed: int, hot_share: float = HOT_SHARE) -> Iterator[dict[str, Any]]:
    loads = json.loads
    for line in Generator(n, seed, hot_share).lines():
        yield loads(line)


def _jsonl(n: int, seed: int) -> Iterator[str]:
    return Generator(n, seed).lines()


def _json_document(n: int, seed: int) -> Iterator[str]:
    """memlint's input: a JSON list of `{id, content, created_at}`, in json.dump(indent=2) layout.

    content is `entity: claim`; created_at is the observation date (left out when undated).
    """
    yield "["
    first = True
    for rec in _records(n, seed):
        fields = [f'    "id": {_quote(rec["id"])}',
                  f'    "content": {_quote(rec["entity"] + ": " + rec["claim"])}']
        if rec["observed_at"]:
            fields.append(f'    "created_at": "{_memlint_time(rec["observed_at"])}"')
        yield ("  {\n" if first else "  },\n  {\n") + ",\n".join(fields)
        first = False
    yield "  }\n]" if not first else "]"


def _memlint_time(stamp: str) -> str:
    """ISO date-time without a zone: memlint compares naive datetimes."""
    return stamp.rstrip("Z") if "T" in stamp else f"{stamp}T00:00:00"


def _by_day(n: int, seed: int, render: Callable[[dict[str, Any]], str]) -> tuple[list[str], dict[str, list[str]]]:
    """The records rendered, undated ones apart and the rest grouped by observation day."""
    undated: list[str] = []
    days: dict[str, list[str]] = {}
    for rec in _records(n, seed):
        stamp = rec["observed_at"]
        if stamp:
            days.setdefault(stamp[:10], []).append(render(rec))
        else:
            undated.append(render(rec))
    return undated, days


def _bullet(rec: dict[str, Any]) -> str:
    """`- entity: slot = "value"; valid_from=…` (an explicit record) or `- entity: claim`."""
    if rec["slot"]:
        text = f'{rec["entity"]}: {rec["slot"]} = "{rec["value"]}"'
        if rec["valid_from"]:
            text += f'; valid_from={rec["valid_from"]}'
        if rec["valid_to"]:
            text += f'; valid_to={rec["valid_to"]}'
    else:
        text = f'{rec["entity"]}: {rec["claim"]}'
    if rec["source"]:
        klass = rec["source_class"]
        text += f' (source: {rec["source"]}, class: {klass})' if klass in ("primary", "secondary") \
            else f' (source: {rec["source"]})'
    return "- " + text


def _markdown(n: int, seed: int) -> Iterator[str]:
    """The JSONL store's facts as a markdown memory file: `## YYYY-MM-DD` headings in date
    order, one `- entity: claim` bullet per fact (the time of day of a full datetime is
    dropped), undated facts first under the file's title."""
    undated, days = _by_day(n, seed, _bullet)
    yield "# Agent memory\n"
    yield from undated
    for day in sorted(days):
        yield f"\n## {day}\n"
        yield from days[day]


def _table_row(rec: dict[str, Any]) -> str:
    claim = f'{rec["slot"]} = "{rec["value"]}"' if rec["slot"] else rec["claim"]
    return f'| {rec["entity"]} | {claim.replace("|", "/")} |'


def _markdown_tables(n: int, seed: int) -> Iterator[str]:
    """The same facts as rows of `| entity | fact |` tables, one table per dated heading."""
    undated, days = _by_day(n, seed, _table_row)
    yield "# Agent memory\n"
    for title, rows in [("Undated", undated)] + [(day, days[day]) for day in sorted(days)]:
        if rows:
            yield f"\n## {title}\n\n| entity | fact |\n|---|---|"
            yield from rows


def _sentence(rec: dict[str, Any]) -> str:
    claim = f'{rec["slot"]} is {rec["value"]}' if rec["slot"] else rec["claim"]
    return f'{rec["entity"]} {claim}.'


def _markdown_paragraph(n: int, seed: int) -> Iterator[str]:
    """The facts as one paragraph of n lines (a wall of notes with no blank line), a sentence
    per line."""
    yield "# Agent memory\n"
    for rec in _records(n, seed):
        yield _sentence(rec)


def _markdown_continued(n: int, seed: int) -> Iterator[str]:
    """One bullet continued over n lines (each a fact's sentence, indented): one claim as long
    as the file."""
    yield "# Agent memory\n"
    for i, rec in enumerate(_records(n, seed)):
        yield ("- " if i == 0 else "  ") + _sentence(rec)


def _claims_twice(n: int, seed: int) -> list[str]:
    """n facts' claims, then the same claims again in another order: n exact copies, none in a
    block of three (each copy is a fix of its own)."""
    claims = [f"{_sentence(rec)[:-1]} (fact {i})" for i, rec in enumerate(_records(n, seed))]
    again = claims[:]
    random.Random(seed).shuffle(again)
    return claims + again


def _markdown_copies(n: int, seed: int) -> Iterator[str]:
    """`_claims_twice` as bullets of one markdown file (`report --apply` deletes n of them)."""
    yield "# Agent memory\n"
    for claim in _claims_twice(n, seed):
        yield f"- {claim}"


def _json_copies(n: int, seed: int) -> Iterator[str]:
    """`_claims_twice` as a JSON document of `{id, content}` records, one per line."""
    claims = _claims_twice(n, seed)
    yield "["
    for i, claim in enumerate(claims):
        yield f'  {{"id": "{i}", "content": {_quote(claim)}}}' + ("," if i < len(claims) - 1 else "")
    yield "]"


def _graph(n: int, seed: int) -> Iterator[str]:
    """MCP memory-server JSONL: one node (`platform-core`) with n observations on one line,
    plus n/100 small nodes of 5 observations and one relation each."""
    dumps = json.dumps
    observations = [_observation(rec) for rec in _records(n, seed, hot_share=1.0)]
    yield dumps({"type": "entity", "name": HOT_ENTITY, "entityType": "service",
                 "observations": observations}, ensure_ascii=False)
    del observations
    small = max(1, n // 100)
    records = _records(5 * small, seed + 1)
    for i in range(small):
        recs = [next(records) for _ in range(5)]
        name = f"{recs[0]['entity']} {i}"
        yield dumps({"type": "entity", "name": name, "entityType": "thing",
                     "observations": [_observation(r) for r in recs]}, ensure_ascii=False)
        yield dumps({"type": "relation", "from": name, "to": HOT_ENTITY, "relationType": "depends_on"})


def _observation(rec: dict[str, Any]) -> str:
    text = f'{rec["slot"]} is {rec["value"]}' if rec["slot"] else rec["claim"]
    return f'{text} ({rec["observed_at"][:10]})' if rec["observed_at"] else text


def _one_slot(n: int, seed: int) -> Iterator[str]:
    """Canonical JSONL: `platform-core`'s slot `release` takes n distinct values over time."""
    rng = random.Random(seed)
    for i in range(n):
        value = f"{i // 10_000}.{(i // 100) % 100}.{i % 100}"
        centre = (i * (len(DAYS) - 1)) // max(n - 1, 1)
        day = _JITTERED_DAYS[centre + int(rng.random() * (2 * JITTER_DAYS + 1))]
        source, klass = (pick(rng, SOURCES_PRIMARY), "primary") if rng.random() < 0.7 else (None, "unclassified")
        rec = {"id": "", "entity": HOT_ENTITY, "slot": "release", "value": value,
               "claim": f'release = "{value}"', "observed_at": day, "valid_from": None,
               "valid_to": None, "source": source, "source_class": klass,
               "fidelity": "FULL", "status_verb": None}
        rec["id"] = record_id(rec)
        yield to_line(rec)


def _one_entity(n: int, seed: int) -> Iterator[str]:
    """Canonical JSONL: every one of the n facts is on `platform-core` (the hot entity's mix)."""
    return Generator(n, seed, hot_share=1.0).lines()


# shape -> (writer, file suffix, what n counts)
SHAPES: dict[str, tuple[Callable[[int, int], Iterator[str]], str, str]] = {
    "jsonl": (_jsonl, ".jsonl", "facts"),
    "json": (_json_document, ".json", "facts"),
    "md": (_markdown, ".md", "facts"),
    "table": (_markdown_tables, ".md", "facts"),
    "prose": (_markdown_paragraph, ".md", "lines of one paragraph"),
    "continued": (_markdown_continued, ".md", "lines of one bullet"),
    "copies": (_markdown_copies, ".md", "facts, each written twice"),
    "copiesjson": (_json_copies, ".json", "facts, each written twice"),
    "graph": (_graph, ".jsonl", "observations on one node"),
    "slot": (_one_slot, ".jsonl", "values of one slot"),
    "entity": (_one_entity, ".jsonl", "facts on one entity"),
}


def generate_shape(shape: str, n: int, path: str | Path, seed: int = 0) -> Path:
    """Write the store of a shape (see SHAPES) with n facts to `path`; deterministic for a seed."""
    if n < 0:
        raise ValueError("n must be >= 0")
    writer = SHAPES[shape][0]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # no cycles are made; collections only slow the long-lived state down
    try:
        with path.open("w", encoding="utf-8", newline="\n") as out:
            batch: list[str] = []
            for line in writer(n, seed) if n else ():
                batch.append(line)
                if len(batch) >= 10_000:
                    out.write("\n".join(batch) + "\n")
                    batch.clear()
            if batch:
                out.write("\n".join(batch) + "\n")
    finally:
        if gc_was_enabled:
            gc.enable()
    return path


def parse_size(text: str) -> int:
    """`10000`, `100k`, `1m`, `1_000_000`."""
    text = text.strip().lower().replace("_", "")
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate a deterministic memory store.")
    parser.add_argument("n", type=parse_size, help="number of facts (10000, 100k, 1m)")
    parser.add_argument("path", type=Path, help="output file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="jsonl",
                        help="jsonl (default), json (memlint's list), md (bullets), table (markdown "
                        "tables), graph (one MCP node with n observations), slot (one slot with n "
                        "values), entity (one entity with n facts)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    generate_shape(args.shape, args.n, args.path, seed=args.seed)
    elapsed = time.perf_counter() - start
    size_mib = args.path.stat().st_size / 2**20
    print(f"wrote {args.n} {SHAPES[args.shape][2]} ({args.shape}) to {args.path} "
          f"({size_mib:.1f} MiB) in {elapsed:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
