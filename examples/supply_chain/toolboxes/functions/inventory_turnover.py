"""库存周转率：turnover = 销售成本 / 平均库存，周转天数 = 期间天数 / turnover。"""


def _number(arguments: dict[str, object], name: str, default: float | None = None) -> float:
    value = arguments.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} 必须是数字")
    if value < 0:
        raise ValueError(f"{name} 不能为负数")
    return float(value)


def handler(arguments: dict[str, object]) -> dict[str, object]:
    cogs = _number(arguments, "cost_of_goods_sold")
    opening = _number(arguments, "opening_inventory")
    closing = _number(arguments, "closing_inventory")
    period_days = arguments.get("period_days", 365)
    if isinstance(period_days, bool) or not isinstance(period_days, int) or period_days < 1:
        raise ValueError("period_days 必须是正整数")
    average = (opening + closing) / 2
    if average == 0:
        raise ValueError("平均库存为 0，无法计算周转率")
    turnover = cogs / average
    days = period_days / turnover if turnover else None
    return {
        "average_inventory": round(average, 2),
        "turnover": round(turnover, 4),
        "days_inventory_outstanding": round(days, 1) if days is not None else None,
        "period_days": period_days,
    }
