"""ABC 分类：按金额降序累计，累计占比 ≤ A 阈值为 A 类，≤ B 阈值为 B 类，其余为 C 类。"""


def handler(arguments: dict[str, object]) -> dict[str, object]:
    values = arguments.get("values")
    if not isinstance(values, list) or not values:
        raise ValueError("values 必须是非空数组")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ValueError("values 的每一项都必须是非负数")
    labels = arguments.get("labels") or [f"#{i + 1}" for i in range(len(values))]
    if not isinstance(labels, list) or len(labels) != len(values):
        raise ValueError("labels 与 values 长度不一致")
    thresholds = arguments.get("thresholds") or [0.8, 0.95]
    if (
        not isinstance(thresholds, list | tuple)
        or len(thresholds) != 2
        or not all(isinstance(t, int | float) and not isinstance(t, bool) for t in thresholds)
    ):
        raise ValueError("thresholds 必须是两个数字 [A, B]")
    a_limit, b_limit = thresholds
    if not 0 < a_limit < b_limit <= 1:
        raise ValueError("thresholds 须满足 0 < A < B ≤ 1")
    total = float(sum(values))
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    items = []
    cumulative = 0.0
    counts = {"A": 0, "B": 0, "C": 0}
    for i in order:
        share = values[i] / total if total else 0.0
        before = cumulative
        cumulative += share
        # 一项跨过阈值时按它进入前的累计占比归类，保证第一项总是 A 类。
        cls = "A" if before < a_limit else "B" if before < b_limit else "C"
        counts[cls] += 1
        items.append(
            {
                "label": labels[i],
                "value": values[i],
                "share": round(share, 4),
                "cumulative_share": round(cumulative, 4),
                "class": cls,
            }
        )
    return {"total": total, "counts": counts, "items": items}
