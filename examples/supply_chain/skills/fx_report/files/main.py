"""汇率月报：按内置月度汇率表出某月各币种对基准币种的汇率与环比。"""

from __future__ import annotations

import json
import select
import string
import sys
from pathlib import Path
from typing import Any

#: 月均结算汇率：1 单位外币折合人民币。2025-01 与财务服务 get_rates 的固定汇率表一致。
MONTHLY_CNY_PER_UNIT: dict[str, dict[str, float]] = {
    "2024-10": {"USD": 7.10, "EUR": 7.74, "JPY": 0.0475, "HKD": 0.913},
    "2024-11": {"USD": 7.15, "EUR": 7.62, "JPY": 0.0468, "HKD": 0.919},
    "2024-12": {"USD": 7.18, "EUR": 7.55, "JPY": 0.0466, "HKD": 0.923},
    "2025-01": {"USD": 7.20, "EUR": 7.80, "JPY": 0.048, "HKD": 0.92},
    "2025-02": {"USD": 7.19, "EUR": 7.49, "JPY": 0.0476, "HKD": 0.924},
    "2025-03": {"USD": 7.21, "EUR": 7.78, "JPY": 0.0483, "HKD": 0.927},
}
CURRENCIES = ("CNY", "USD", "EUR", "JPY", "HKD")
TEMPLATE = Path(__file__).parent / "templates" / "report.md"


class UsageError(Exception):
    pass


def read_arguments(argv: list[str]) -> dict[str, Any]:
    raw = argv[1] if len(argv) > 1 else ""
    if not raw and not sys.stdin.isatty():
        ready, _, _ = select.select([sys.stdin], [], [], 1.0)
        raw = sys.stdin.read() if ready else ""
    if not raw.strip():
        return {}
    try:
        args = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"参数不是合法 JSON：{exc}") from exc
    if not isinstance(args, dict):
        raise UsageError("参数必须是 JSON 对象")
    return args


def rate(month: str, currency: str, base: str) -> float:
    """1 单位 currency 折合多少 base。"""
    table = {"CNY": 1.0, **MONTHLY_CNY_PER_UNIT[month]}
    return table[currency] / table[base]


def previous_month(month: str) -> str | None:
    months = sorted(MONTHLY_CNY_PER_UNIT)
    i = months.index(month)
    return months[i - 1] if i > 0 else None


def build_report(args: dict[str, Any]) -> dict[str, Any]:
    month = str(args.get("month", "2025-01"))
    if month not in MONTHLY_CNY_PER_UNIT:
        raise UsageError(f"没有 {month} 的汇率（可选 {', '.join(sorted(MONTHLY_CNY_PER_UNIT))}）")
    base = str(args.get("base", "CNY")).upper()
    if base not in CURRENCIES:
        raise UsageError(f"不支持的基准币种：{base}")
    wanted = args.get("currencies") or [c for c in CURRENCIES if c != base]
    currencies = [str(c).upper() for c in wanted]
    unknown = [c for c in currencies if c not in CURRENCIES]
    if unknown:
        raise UsageError(f"不支持的币种：{', '.join(unknown)}")
    prev = previous_month(month)
    rows = []
    for currency in currencies:
        current = rate(month, currency, base)
        before = rate(prev, currency, base) if prev else None
        change = (current - before) / before if before else None
        rows.append(
            {
                "currency": currency,
                "rate": round(current, 6),
                "previous": round(before, 6) if before is not None else None,
                "change": round(change, 4) if change is not None else None,
            }
        )
    return {"month": month, "base": base, "previous_month": prev, "rows": rows}


def render_markdown(report: dict[str, Any]) -> str:
    lines = []
    for row in report["rows"]:
        previous = f"{row['previous']:.6f}" if row["previous"] is not None else "—"
        change = f"{row['change'] * 100:+.2f}%" if row["change"] is not None else "—"
        lines.append(f"| {row['currency']} | {row['rate']:.6f} | {previous} | {change} |")
    note = (
        f"环比对比 {report['previous_month']}。"
        if report["previous_month"]
        else "无上月数据，未计算环比。"
    )
    template = string.Template(TEMPLATE.read_text(encoding="utf-8"))
    return template.substitute(
        month=report["month"], base=report["base"], rows="\n".join(lines), note=note
    )


def main(argv: list[str]) -> int:
    try:
        args = read_arguments(argv)
        report = build_report(args)
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
