"""供应商评分：准时率 40 分、质量 30 分、价格 20 分、信用 10 分，合计 0–100 分。"""

_GRADES = ((85.0, "A"), (70.0, "B"), (55.0, "C"))


def _ratio(arguments: dict[str, object], name: str) -> float:
    value = arguments.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name} 必须是 0–1 之间的数字")
    return float(value)


def handler(arguments: dict[str, object]) -> dict[str, object]:
    on_time = _ratio(arguments, "on_time_rate")
    defect = _ratio(arguments, "defect_rate")
    price_index = arguments.get("price_index", 1.0)
    if (
        isinstance(price_index, bool)
        or not isinstance(price_index, (int, float))
        or price_index <= 0
    ):
        raise ValueError("price_index 必须是正数")
    rating = arguments.get("rating")
    if rating is not None and (
        isinstance(rating, bool) or not isinstance(rating, (int, float)) or not 0 <= rating <= 5
    ):
        raise ValueError("rating 必须是 0–5 之间的数字")
    delivery = 40.0 * on_time
    quality = 30.0 * max(0.0, 1.0 - defect * 10)  # 次品率 10% 及以上不得分
    price = 20.0 * min(1.0, max(0.0, 1.0 - (price_index - 0.8) / 0.4))  # 0.8 满分，1.2 零分
    credit = 10.0 * (rating / 5 if rating is not None else 0.5)
    score = round(delivery + quality + price + credit, 1)
    grade = next((g for floor, g in _GRADES if score >= floor), "D")
    return {
        "score": score,
        "grade": grade,
        "breakdown": {
            "delivery": round(delivery, 1),
            "quality": round(quality, 1),
            "price": round(price, 1),
            "credit": round(credit, 1),
        },
    }
