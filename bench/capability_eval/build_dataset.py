"""Generate the capability evaluation set (capabilities.jsonl, queries.jsonl).

    python bench/capability_eval/build_dataset.py

Capabilities are rendered from the semantic catalogue (spec_catalog.py, spec_skills.py):
every (entity, operation) pair becomes one tool exposed as an OpenAPI operation, a plain
function or an MCP tool (some pairs twice, by two systems), in Chinese, English or mixed
text.  Queries are hand-written (spec_queries.py) with intent annotations, and graded labels
come from :func:`grade`, i.e. from meaning (entity/operation semantics) only — no ranker
is consulted.  Output is deterministic (fixed seed).
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spec_catalog import DOMAIN_ZH, ENTITIES, SYSTEMS, Entity, Op  # noqa: E402
from spec_queries import QUERIES  # noqa: E402
from spec_skills import SKILLS  # noqa: E402

SEED = 20240611
LETTER_OPS = {
    "C": "create",
    "G": "get",
    "L": "list",
    "U": "update",
    "X": "cancel",
    "A": "approve",
    "E": "export",
    "R": "report",
}
GENERIC_REL = {"get": ("list",), "list": ("get",), "export": ("report",), "report": ("export",)}

_T = tuple[
    tuple[str, ...], tuple[str, ...], tuple[str, ...]
]  # name verbs, en templates, zh templates
GENERIC: dict[str, _T] = {
    "create": (
        ("create", "add", "new"),
        (
            "Create a new {e} with {f}.",
            "Creates a {e} record. Required: {f}.",
            "Register a new {e} in the system.",
        ),
        ("新建{e}，需填写{f}。", "创建一条新的{e}记录。", "在系统中录入{e}，包括{f}。"),
    ),
    "get": (
        ("get", "query", "fetch"),
        (
            "Get the details of a {e} by ID, including {f}.",
            "Retrieve a single {e} and return {f}.",
            "Look up one {e} by its identifier.",
        ),
        ("根据编号查询{e}详情，返回{f}。", "获取单个{e}的详细信息。", "按ID查看{e}，包括{f}。"),
    ),
    "list": (
        ("list", "search", "query"),
        (
            "List {e} records filtered by status, date range or keyword, with paging.",
            "Search {e} records and return a paged result.",
            "Query a list of {e} entries matching the given filters.",
        ),
        (
            "按状态、日期范围或关键字分页查询{e}列表。",
            "检索{e}记录，支持多条件筛选和分页。",
            "获取符合条件的{e}清单。",
        ),
    ),
    "update": (
        ("update", "modify", "edit"),
        (
            "Update an existing {e} ({f}).",
            "Modify fields of a {e}.",
            "Edit a {e}; only changed fields are required.",
        ),
        ("修改已有{e}的{f}。", "更新{e}信息。", "编辑{e}，仅需传入需要变更的字段。"),
    ),
    "cancel": (
        ("cancel", "void", "delete"),
        (
            "Cancel a {e} that has not been completed.",
            "Void or delete a {e}; a reason is required.",
            "Withdraw a {e}.",
        ),
        ("取消尚未完成的{e}。", "作废{e}，需填写原因。", "撤销{e}。"),
    ),
    "approve": (
        ("approve", "review"),
        (
            "Approve or reject a pending {e}.",
            "Record an approval decision (approve/reject) on a {e}.",
            "Review a {e} in the approval workflow.",
        ),
        ("审批待处理的{e}，可通过或驳回。", "对{e}进行审核，记录审批意见。", "在审批流中处理{e}。"),
    ),
    "export": (
        ("export", "download"),
        (
            "Export {e} data to Excel or CSV for a date range.",
            "Download {e} records as a spreadsheet.",
        ),
        ("按日期范围将{e}数据导出为Excel或CSV。", "下载{e}数据文件。"),
    ),
    "report": (
        ("stats", "summary", "report"),
        (
            "Aggregate {e} statistics by period and dimension.",
            "Summary report of {e}: counts, amounts and trends.",
        ),
        ("按期间和维度统计{e}数据，生成汇总报表。", "{e}统计分析：数量、金额和趋势。"),
    ),
}
GENERIC_ZH_VERB = {
    "create": "新建",
    "get": "查询",
    "list": "查询",
    "update": "修改",
    "cancel": "取消",
    "approve": "审批",
    "export": "导出",
    "report": "统计",
}
LIST_PARAMS = ("status", "start_date", "end_date", "keyword", "page", "page_size")
RULES_ZH = (
    "调用前需先获取{idp}。",
    "仅限有{dom}权限的用户使用。",
    "不要用于批量处理。",
    "结果最多返回100条，需分页。",
    "金额默认币种为人民币。",
)
RULES_EN = (
    "Requires {idp}; call the list tool first if unknown.",
    "Only for users with {dom} permissions.",
    "Not for bulk operations.",
    "Returns at most 100 rows; paginate.",
    "Amounts are in CNY unless stated.",
)


@dataclass
class Cap:
    capability_id: str
    capability_type: str
    metadata_type: str | None
    name: str
    description: str
    use_rule: str
    param_names: list[str]
    domain: str
    entity: str
    op: str
    covers: list[str]


def _camel(ident: str) -> str:
    return "".join(p.upper() if len(p) <= 3 else p.capitalize() for p in ident.split("_"))


def _camel_param(p: str) -> str:
    head, *rest = p.split("_")
    return head + "".join(x.capitalize() for x in rest)


def _render(
    rng: random.Random,
    ent: Entity,
    op_key: str,
    spec: Op | None,
    kind: str,
    meta: str | None,
    system: str,
) -> tuple[str, str, str, list[str]]:
    ident = rng.choice(ent.ids)
    verbs = spec.verbs if spec else GENERIC[op_key][0]
    verb = rng.choice(verbs)
    # ---- name
    zh_name = ""
    if kind == "function" and meta == "function" and rng.random() < 0.15:
        zh_name = spec.zhn if spec else GENERIC_ZH_VERB[op_key] + ent.zh[0]
    if zh_name:
        name = zh_name
    elif meta == "openapi":
        name = (
            verb.split("_")[0]
            + _camel(ident)
            + ("s" if op_key == "list" and not ident.endswith("s") else "")
        )
        name = name[0].lower() + name[1:]
    elif kind == "mcp_tool":
        name = f"{system}_{ident}_{verb}" if rng.random() < 0.5 else f"{system}_{verb}_{ident}"
    else:
        name = f"{verb}_{ident}" if rng.random() < 0.6 else f"{ident}_{verb}"
    # ---- description
    roll = rng.random()
    lang = "zh" if roll < 0.45 else "en" if roll < 0.8 else "mixed"
    e_en, e_zh = rng.choice(ent.en), rng.choice(ent.zh)
    en_t: tuple[str, ...]
    zh_t: tuple[str, ...]
    if spec:
        en_t, zh_t = (spec.en,), (spec.zh,)
    else:
        _, en_t, zh_t = GENERIC[op_key]
        if not ent.f_en:
            en_t = tuple(t for t in en_t if "{f}" not in t) or en_t
            zh_t = tuple(t for t in zh_t if "{f}" not in t) or zh_t
    if lang == "en":
        desc = rng.choice(en_t).format(e=e_en, f=ent.f_en or "key fields")
    elif lang == "zh":
        desc = rng.choice(zh_t).format(e=e_zh, f=ent.f_zh or "关键信息")
    else:
        desc = rng.choice(zh_t).format(e=f"{e_zh}（{e_en}）", f=ent.f_zh or "关键信息")
    # ---- use rule
    rule = ""
    if rng.random() < 0.35:
        rule_zh = lang == "zh" or (lang == "mixed" and rng.random() < 0.5)
        n_rules = (
            len(RULES_EN)
            if ent.domain in ("finance", "procurement", "sales")
            else len(RULES_EN) - 1
        )
        tmpl = (RULES_ZH if rule_zh else RULES_EN)[rng.randrange(n_rules)]
        rule = tmpl.format(idp=ent.idp, dom=DOMAIN_ZH[ent.domain] if rule_zh else ent.domain)
    # ---- params
    if spec:
        params = list(spec.params)
    elif op_key == "create":
        params = list(ent.params or (ent.idp,))
    elif op_key == "list":
        params = [p for p in LIST_PARAMS if rng.random() < 0.6] or ["keyword"]
    elif op_key == "update":
        params = [ent.idp] + [p for p in ent.params if rng.random() < 0.5]
    elif op_key == "cancel":
        params = [ent.idp, "reason"]
    elif op_key == "approve":
        params = [ent.idp, "decision", "comment"]
    elif op_key == "export":
        params = ["start_date", "end_date", "format"]
    elif op_key == "report":
        params = ["period", "group_by"]
    else:
        params = [ent.idp]
    if meta == "openapi" and rng.random() < 0.5:
        params = [_camel_param(p) for p in params]
    return name, desc, rule, params


def build_capabilities(rng: random.Random) -> list[Cap]:
    caps: list[Cap] = []
    used: set[str] = set()

    def new_id() -> str:
        while True:
            cid = f"cap-{rng.getrandbits(32):08x}"
            if cid not in used:
                used.add(cid)
                return cid

    kinds = (("function", "openapi"), ("function", "function"), ("mcp_tool", None))
    for ent in ENTITIES:
        ops: list[tuple[str, Op | None]] = [(LETTER_OPS[c], None) for c in ent.ops.split()]
        ops += [(o.key, o) for o in ent.extra]
        for op_key, spec in ops:
            first = rng.choices(range(3), weights=(0.38, 0.3, 0.32))[0]
            exposures = [first]
            if rng.random() < 0.3:
                exposures.append(rng.choice([k for k in range(3) if k != first]))
            systems = list(SYSTEMS[ent.domain])
            rng.shuffle(systems)
            for n, k in enumerate(exposures):
                kind, meta = kinds[k]
                system = systems[n % len(systems)]
                name, desc, rule, params = _render(rng, ent, op_key, spec, kind, meta, system)
                caps.append(
                    Cap(
                        new_id(),
                        kind,
                        meta,
                        name,
                        desc,
                        rule,
                        params,
                        ent.domain,
                        ent.key,
                        op_key,
                        [],
                    )
                )
    domain_of = {e.key: e.domain for e in ENTITIES}
    for sk in SKILLS:
        caps.append(
            Cap(
                new_id(),
                "skill",
                None,
                sk.name,
                sk.desc,
                sk.rule,
                list(sk.params),
                domain_of[sk.entity],
                sk.entity,
                sk.op,
                list(sk.covers),
            )
        )
    rng.shuffle(caps)
    return caps


# ------------------------------------------------------------------ relevance from semantics
def _related_entities() -> dict[str, set[str]]:
    rel: dict[str, set[str]] = {e.key: set() for e in ENTITIES}
    for e in ENTITIES:
        for r in e.rel:
            rel[e.key].add(r)
            rel[r].add(e.key)
    return rel


def _related_ops() -> dict[tuple[str, str], set[str]]:
    rel: dict[tuple[str, str], set[str]] = {}
    for e in ENTITIES:
        for o in e.extra:
            for r in o.rel:
                rel.setdefault((e.key, o.key), set()).add(r)
                rel.setdefault((e.key, r), set()).add(o.key)
    return rel


REL_ENT = _related_entities()
REL_OP = _related_ops()
SKILL_COVERS = {(s.entity, s.op): set(s.covers) for s in SKILLS}


def _ops_related(entity: str, a: str, b: str) -> bool:
    return b in GENERIC_REL.get(a, ()) or b in REL_OP.get((entity, a), set())


def _covered(covers: set[str] | list[str], entity: str, op: str) -> bool:
    return f"{entity}.{op}" in covers or f"{entity}.*" in covers


def grade(intent: str, cap: Cap) -> int:
    """Graded relevance of *cap* for one intent, from entity/operation semantics only."""
    qe, qo = intent.split(".")
    ce, co = cap.entity, cap.op
    if qo == "*":
        if ce == qe:
            return 2
        return 1 if any(c.split(".")[0] == qe for c in cap.covers) else 0
    if ce == qe and co == qo:
        return 3
    if ce == qe and _ops_related(qe, qo, co):
        return 2
    if _covered(cap.covers, qe, qo):
        return 2
    if ce == qe:
        return 1
    if ce in REL_ENT.get(qe, set()) and (co == qo or _ops_related(ce, qo, co)):
        return 1
    if _covered(SKILL_COVERS.get((qe, qo), set()), ce, co):
        return 1  # a step of the workflow the user asked for
    return 0


def build_queries(caps: list[Cap]) -> list[dict[str, object]]:
    names = {re.sub(r"\W+", "", c.name.lower()) for c in caps}
    out: list[dict[str, object]] = []
    for i, (text, lang, intents) in enumerate(QUERIES):
        if re.sub(r"\W+", "", text.lower()) in names:
            raise ValueError(f"query copies a capability name: {text}")
        labels: dict[str, int] = {}
        for cap in caps:
            g = max(grade(it, cap) for it in intents.split("|"))
            if g:
                labels[cap.capability_id] = g
        if 3 not in labels.values() and not all(it.endswith(".*") for it in intents.split("|")):
            raise ValueError(f"no exact answer for query {text!r} ({intents})")
        out.append(
            {
                "query_id": f"q{i + 1:03d}",
                "query": text,
                "lang": lang,
                "split": "dev" if i % 2 == 0 else "test",
                "intents": intents.split("|"),
                "relevance": dict(sorted(labels.items())),
            }
        )
    return out


def main() -> None:
    rng = random.Random(SEED)
    caps = build_capabilities(rng)
    queries = build_queries(caps)
    with (HERE / "capabilities.jsonl").open("w", encoding="utf-8") as fh:
        for c in caps:
            rec = {
                "capability_id": c.capability_id,
                "capability_type": c.capability_type,
                "metadata_type": c.metadata_type,
                "name": c.name,
                "description": c.description,
                "use_rule": c.use_rule,
                "param_names": c.param_names,
                "domain": c.domain,
                "semantics": {"entity": c.entity, "op": c.op, "covers": c.covers},
            }
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    with (HERE / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for c in caps:
        key = c.capability_type + (f"/{c.metadata_type}" if c.metadata_type else "")
        kinds[key] = kinds.get(key, 0) + 1
    langs: dict[str, int] = {}
    for q in queries:
        langs[str(q["lang"])] = langs.get(str(q["lang"]), 0) + 1
    print(f"{len(caps)} capabilities {dict(sorted(kinds.items()))}; {len(queries)} queries {langs}")


if __name__ == "__main__":
    main()
