"""供应商审计清单：按 checklist.json 逐项核对供应商指标，给出得分、结论与整改建议。"""

from __future__ import annotations

import json
import select
import string
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PASS_SCORE = 80
REWORK_SCORE = 60
_OPS = {
    "==": lambda a, b: a == b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}
_LABELS = {"pass": "✅ 通过", "fail": "❌ 不通过", "missing": "⚠️ 未提供"}


class UsageError(Exception):
    pass


def read_arguments(argv: list[str]) -> dict[str, Any]:
    raw = argv[1] if len(argv) > 1 else ""
    if not raw and not sys.stdin.isatty():
        ready, _, _ = select.select([sys.stdin], [], [], 1.0)
        raw = sys.stdin.read() if ready else ""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise UsageError(f"参数不是合法 JSON：{exc}") from exc
    if not isinstance(args, dict):
        raise UsageError("参数必须是 JSON 对象")
    if not str(args.get("supplier_name", "")).strip():
        raise UsageError("缺少 supplier_name")
    return args


def _same_kind(value: object, expected: object) -> bool:
    if isinstance(expected, bool):
        return isinstance(value, bool)
    return isinstance(value, int | float) and not isinstance(value, bool)


def audit(args: dict[str, Any], checklist: dict[str, Any]) -> dict[str, Any]:
    results = []
    score = 0
    for item in checklist["items"]:
        value = args.get(item["field"])
        if value is None:
            outcome = "missing"
        elif not _same_kind(value, item["value"]):
            raise UsageError(f"{item['field']} 的类型不对：{value!r}")
        else:
            outcome = "pass" if _OPS[item["op"]](value, item["value"]) else "fail"
        if outcome == "pass":
            score += item["weight"]
        results.append(
            {
                "id": item["id"],
                "category": item["category"],
                "title": item["title"],
                "value": value,
                "outcome": outcome,
                "weight": item["weight"],
                "advice": item["advice"] if outcome != "pass" else None,
            }
        )
    if score >= PASS_SCORE:
        verdict = "通过"
    elif score >= REWORK_SCORE:
        verdict = "限期整改"
    else:
        verdict = "不通过"
    return {
        "supplier": str(args["supplier_name"]).strip(),
        "score": score,
        "verdict": verdict,
        "items": results,
        "version": checklist["version"],
    }


def render_markdown(report: dict[str, Any]) -> str:
    rows = "\n".join(
        f"| {r['category']} | {r['title']} | {_LABELS[r['outcome']]} | {r['weight']} |"
        for r in report["items"]
    )
    todo = [f"- {r['title']}：{r['advice']}" for r in report["items"] if r["advice"]]
    advice = "整改建议：\n\n" + "\n".join(todo) + "\n" if todo else "无整改项。\n"
    template = string.Template((HERE / "templates" / "checklist.md").read_text(encoding="utf-8"))
    return template.substitute(
        supplier=report["supplier"],
        rows=rows,
        score=report["score"],
        verdict=report["verdict"],
        advice=advice,
        version=report["version"],
    )


def main(argv: list[str]) -> int:
    try:
        args = read_arguments(argv)
        checklist = json.loads((HERE / "checklist.json").read_text(encoding="utf-8"))
        report = audit(args, checklist)
    except UsageError as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 2
    if str(args.get("format", "markdown")) == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(render_markdown(report), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
