"""Generate ``instances.yaml`` of the supply_chain demo network (deterministic).

    python examples/supply_chain/generate_instances.py            # rewrite instances.yaml
    python examples/supply_chain/generate_instances.py --check    # exit 1 if it is stale
    python examples/supply_chain/generate_instances.py -o out.yaml

The output is committed; edit this script (not the YAML) and regenerate. Every relation
endpoint exists. Some objects are deliberately isolated (no relation at all) so that
``explore_subgraph`` has ``isolated_objects`` to report:

* suppliers ``S-0028`` .. ``S-0030`` (no purchase order, no parent company),
* materials ``MAT-0059``, ``MAT-0060`` (never ordered, not stored anywhere),
* warehouse ``WH-XA01`` (opened 2025-03, still empty),
* customers ``C-0039``, ``C-0040`` (registered, no order yet).

The self-referencing relation ``rel_supplier_parent`` (subsidiary -> parent) contains the
two-hop chain ``S-0004 -> S-0002 -> S-0001``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from pathlib import Path
from typing import Any

import yaml

SEED = 20250101
HERE = Path(__file__).resolve().parent
DEFAULT_OUTPUT = HERE / "instances.yaml"
TZ = dt.timezone(dt.timedelta(hours=8))

N_SUPPLIERS, N_ISOLATED_SUPPLIERS = 30, 3
N_PURCHASE_ORDERS = 120
N_CUSTOMERS, N_ISOLATED_CUSTOMERS = 40, 2
N_SALES_ORDERS = 150
ISOLATED_MATERIALS = 2
ISOLATED_WAREHOUSE = "WH-XA01"

REGIONS: dict[str, tuple[str, ...]] = {
    "华东": ("上海", "苏州", "杭州", "宁波", "南京", "无锡", "合肥", "厦门"),
    "华北": ("北京", "天津", "石家庄", "太原"),
    "华南": ("广州", "深圳", "东莞", "佛山"),
    "华中": ("武汉", "长沙", "郑州"),
    "西南": ("成都", "重庆", "昆明"),
    "西北": ("西安", "兰州"),
    "东北": ("沈阳", "大连"),
}
REGION_WEIGHTS = {"华东": 8, "华北": 3, "华南": 4, "华中": 2, "西南": 2, "西北": 1, "东北": 1}
REGION_OF = {city: region for region, cities in REGIONS.items() for city in cities}

_BRANDS_TEXT = """
恒信 华瑞 鼎盛 远航 宏达 金源 嘉禾 瑞丰 永固 新锐
博远 天成 明德 联创 海纳 德力 凯隆 安捷 泰和 龙腾
星辰 启航 弘毅 同舟 锦程 长青 鸿运 润通 精工 中拓
立新 万邦 卓越 东升 蓝海 银河 汇丰源 佳联 盛和 北辰
"""
BRANDS = tuple(_BRANDS_TEXT.split())

#: supplier industry -> material category it supplies
SUPPLIER_INDUSTRIES: dict[str, str] = {
    "精密电子": "电子元器件",
    "电子科技": "电子元器件",
    "半导体": "电子元器件",
    "机械制造": "机械零件",
    "五金制品": "机械零件",
    "化工材料": "化工品",
    "包装材料": "包装材料",
    "新材料": "原材料",
    "金属材料": "原材料",
    "橡塑制品": "原材料",
}
CUSTOMER_INDUSTRIES: dict[str, str] = {
    "汽车零部件": "汽车",
    "家电": "家电",
    "新能源": "新能源",
    "医疗器械": "医疗器械",
    "消费电子": "消费电子",
    "智能装备": "工业自动化",
    "通信设备": "通信",
}

#: category -> (unit, price range, [(name, hazardous), ...])
MATERIALS: dict[str, tuple[str, tuple[float, float], list[tuple[str, bool]]]] = {
    "电子元器件": (
        "件",
        (0.05, 45.0),
        [
            ("贴片电阻 0603 10kΩ", False),
            ("贴片电容 0805 100nF", False),
            ("铝电解电容 470μF/25V", False),
            ("肖特基二极管 SS34", False),
            ("MOSFET 场效应管 AO3400", False),
            ("稳压芯片 LM1117-3.3", False),
            ("无源晶振 8MHz", False),
            ("继电器 12V 10A", False),
            ("2.54mm 排针 40P", False),
            ("有源蜂鸣器 5V", False),
            ("光耦 PC817", False),
            ("NTC 温度传感器 10K", False),
            ("USB Type-C 母座", False),
            ("18650 锂电池 2600mAh", True),
        ],
    ),
    "机械零件": (
        "件",
        (0.2, 1800.0),
        [
            ("深沟球轴承 6204", False),
            ("不锈钢螺栓 M8×30", False),
            ("同步带轮 20 齿", False),
            ("直线导轨 HGR15", False),
            ("弹性联轴器 D25", False),
            ("齿轮减速机 1:10", False),
            ("O 型密封圈 20×2.4", False),
            ("弹簧垫圈 M6", False),
            ("铝型材 4040", False),
            ("标准气缸 SC50×100", False),
            ("伺服电机 750W", False),
            ("液压阀组 4WE6", False),
            ("链轮 08B-20T", False),
            ("光轴导向轴 Φ16", False),
        ],
    ),
    "原材料": (
        "千克",
        (4.0, 95.0),
        [
            ("冷轧钢板 1.0mm", False),
            ("6061 铝棒 Φ30", False),
            ("紫铜排 3×30", False),
            ("ABS 塑料粒子", False),
            ("PP 聚丙烯粒子", False),
            ("304 不锈钢卷", False),
            ("镀锌钢管 DN25", False),
            ("环氧树脂 E-51", False),
            ("尼龙 PA66 粒子", False),
            ("无取向硅钢片", False),
            ("黄铜棒 H59", False),
        ],
    ),
    "包装材料": (
        "个",
        (0.1, 85.0),
        [
            ("五层瓦楞纸箱", False),
            ("气泡膜卷 1.2m", False),
            ("缠绕膜 50cm", False),
            ("EPE 珍珠棉板", False),
            ("木托盘 1200×1000", False),
            ("PP 打包带", False),
            ("防静电屏蔽袋", False),
            ("硅胶干燥剂 10g", False),
            ("热敏标签 100×150", False),
            ("封箱胶带 48mm", False),
        ],
    ),
    "化工品": (
        "升",
        (8.0, 260.0),
        [
            ("工业酒精 95%", True),
            ("防锈油", False),
            ("导热硅脂", False),
            ("三防漆", True),
            ("免清洗助焊剂", True),
            ("水溶性切削液", False),
            ("2# 锂基润滑脂", False),
            ("异丙醇 IPA", True),
            ("工业丙酮", True),
            ("UV 无影胶", False),
            ("环保清洗剂", False),
        ],
    ),
}

WAREHOUSES = (
    # id, name, city, capacity, cold_chain, opened
    ("WH-SH01", "上海青浦中心仓", "上海", 12000, True, "2019-04-01"),
    ("WH-SU01", "苏州工业园区仓", "苏州", 8000, False, "2020-09-15"),
    ("WH-BJ01", "北京顺义仓", "北京", 9000, False, "2018-06-20"),
    ("WH-GZ01", "广州白云仓", "广州", 10000, True, "2019-11-11"),
    ("WH-SZ01", "深圳宝安仓", "深圳", 6000, False, "2021-03-08"),
    ("WH-CD01", "成都双流仓", "成都", 7000, False, "2021-08-18"),
    ("WH-WH01", "武汉东西湖仓", "武汉", 7500, False, "2022-05-20"),
    (ISOLATED_WAREHOUSE, "西安国际港务区仓", "西安", 5000, False, "2025-03-01"),
)

CARRIERS = (("SF", "顺丰速运"), ("JD", "京东物流"), ("YT", "圆通速递"), ("ZT", "中通快递"))
#: CNY per unit (the finance service's fixed table): amounts are priced in CNY, then converted
CNY_PER_UNIT = {"CNY": 1.0, "USD": 7.20, "EUR": 7.80, "JPY": 0.048, "HKD": 0.92}
CURRENCIES = (("CNY", 70), ("USD", 15), ("EUR", 8), ("JPY", 4), ("HKD", 3))
PO_STATUSES = (("待审批", 15), ("已审批", 30), ("已结算", 50), ("已取消", 5))
SO_STATUSES = (("待发货", 20), ("已发货", 30), ("已签收", 45), ("已取消", 5))

#: subsidiary -> parent (S-0004 -> S-0002 -> S-0001 is a two-hop chain)
PARENTS = {2: 1, 3: 1, 4: 2, 11: 10, 21: 20, 22: 20}


def weighted(rng: random.Random, pairs: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def pick_city(rng: random.Random) -> str:
    region = weighted(rng, tuple(REGION_WEIGHTS.items()))
    return rng.choice(REGIONS[region])


def timestamp(rng: random.Random, start: dt.date, end: dt.date) -> dt.datetime:
    day = start + dt.timedelta(days=rng.randrange((end - start).days + 1))
    return dt.datetime(
        day.year, day.month, day.day, rng.randint(8, 18), rng.choice((0, 15, 30, 45)), tzinfo=TZ
    )


def iso(value: dt.datetime) -> str:
    return value.isoformat()


def phone(rng: random.Random) -> str:
    return f"1{rng.choice('3578')}{rng.randrange(10**9):09d}"


def make_suppliers(rng: random.Random) -> list[dict[str, Any]]:
    brands = rng.sample(BRANDS, N_SUPPLIERS)
    rows: list[dict[str, Any]] = []
    for n in range(1, N_SUPPLIERS + 1):
        city = pick_city(rng)
        industry = rng.choice(tuple(SUPPLIER_INDUSTRIES))
        brand = brands[n - 1]
        if n in PARENTS:  # a subsidiary shares its parent's brand and industry
            parent = rows[PARENTS[n] - 1]
            brand, industry = parent["_brand"], parent["_industry"]
        if n in PARENTS.values():
            name = f"{city}{brand}{industry}集团有限公司"
        elif n in PARENTS:
            name = f"{brand}{industry}（{city}）有限公司"
        else:
            name = f"{city}{brand}{industry}有限公司"
        if any(r["name"] == name for r in rows):
            raise AssertionError(f"duplicate supplier name {name}")
        rows.append(
            {
                "supplier_id": f"S-{n:04d}",
                "name": name,
                "city": city,
                "region": REGION_OF[city],
                "rating": round(rng.uniform(2.5, 5.0), 1),
                "certified": rng.random() < 0.7,
                "established_at": iso(timestamp(rng, dt.date(1995, 1, 1), dt.date(2020, 12, 31))),
                "contact_phone": phone(rng),
                "_brand": brand,
                "_industry": industry,
            }
        )
    return rows


def make_materials(rng: random.Random) -> list[dict[str, Any]]:
    entries = [(cat, name, hz) for cat, (_, _, items) in MATERIALS.items() for name, hz in items]
    rows = []
    for n, (category, name, hazardous) in enumerate(entries, start=1):
        unit, (low, high), _ = MATERIALS[category]
        safety = rng.choice((50, 100, 200, 500, 1000))
        rows.append(
            {
                "material_code": f"MAT-{n:04d}",
                "name": name,
                "category": category,
                "unit": unit,
                "unit_price": round(rng.uniform(low, high), 2),
                "stock_qty": rng.randint(0, safety * 6),
                "safety_stock": safety,
                "hazardous": hazardous,
            }
        )
    return rows


def make_warehouses(rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    for wid, name, city, capacity, cold, opened in WAREHOUSES:
        day = dt.date.fromisoformat(opened)
        rows.append(
            {
                "warehouse_id": wid,
                "name": name,
                "city": city,
                "region": REGION_OF[city],
                "capacity": capacity,
                "utilization": 0.0
                if wid == ISOLATED_WAREHOUSE
                else round(rng.uniform(0.45, 0.95), 2),
                "cold_chain": cold,
                "opened_at": iso(dt.datetime(day.year, day.month, day.day, 9, 0, tzinfo=TZ)),
            }
        )
    return rows


def make_customers(rng: random.Random) -> list[dict[str, Any]]:
    brands = rng.sample(BRANDS, N_CUSTOMERS)
    rows = []
    for n in range(1, N_CUSTOMERS + 1):
        city = pick_city(rng)
        business = rng.choice(tuple(CUSTOMER_INDUSTRIES))
        suffix = rng.choice(("有限公司", "股份有限公司"))
        rows.append(
            {
                "customer_id": f"C-{n:04d}",
                "name": f"{city}{brands[n - 1]}{business}{suffix}",
                "city": city,
                "region": REGION_OF[city],
                "industry": CUSTOMER_INDUSTRIES[business],
                "credit_limit": float(rng.choice((50, 100, 200, 300, 500, 800, 1000)) * 10_000),
                "vip": rng.random() < 0.25,
                "contact_phone": phone(rng),
            }
        )
    return rows


def numbered(prefix: str, rows: list[dict[str, Any]], key: str) -> None:
    """Give orders ids ``<prefix>-<year>-<seq>`` in order-date order."""
    rows.sort(key=lambda r: r["order_date"])
    per_year: dict[str, int] = {}
    for row in rows:
        year = row["order_date"][:4]
        per_year[year] = per_year.get(year, 0) + 1
        row[key] = f"{prefix}-{year}-{per_year[year]:04d}"


def make_purchase_orders(
    rng: random.Random, suppliers: list[dict[str, Any]], materials: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]], list[tuple[str, str]]]:
    active = suppliers[: N_SUPPLIERS - N_ISOLATED_SUPPLIERS]
    orderable = materials[: len(materials) - ISOLATED_MATERIALS]
    drafts = []
    for n in range(N_PURCHASE_ORDERS):
        supplier = active[n] if n < len(active) else rng.choice(active)
        category = SUPPLIER_INDUSTRIES[supplier["_industry"]]
        items = rng.sample([m for m in orderable if m["category"] == category], rng.randint(1, 3))
        ordered = timestamp(rng, dt.date(2024, 7, 1), dt.date(2025, 3, 31))
        status = weighted(rng, PO_STATUSES)
        quantity = rng.randint(1, 50) * 10 * (10 if category in ("电子元器件", "包装材料") else 1)
        amount = quantity * sum(m["unit_price"] for m in items) * rng.uniform(0.9, 1.1)
        currency = weighted(rng, CURRENCIES)
        drafts.append(
            (
                {
                    "po_id": "",
                    "order_date": iso(ordered),
                    "amount": round(max(amount, 1000.0) / CNY_PER_UNIT[currency], 2),
                    "currency": currency,
                    "quantity": quantity,
                    "status": status,
                    "settled": status == "已结算",
                    "expected_delivery": iso(ordered + dt.timedelta(days=rng.randint(7, 45))),
                },
                supplier,
                items,
            )
        )
    rows = [d[0] for d in drafts]
    numbered("PO", rows, "po_id")
    drafts.sort(key=lambda d: d[0]["po_id"])
    supplier_po = sorted((s["supplier_id"], po["po_id"]) for po, s, _ in drafts)
    po_material = [(po["po_id"], m["material_code"]) for po, _, items in drafts for m in items]
    return rows, supplier_po, po_material


def make_sales_orders(
    rng: random.Random,
    customers: list[dict[str, Any]],
    materials: list[dict[str, Any]],
    warehouses: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, list[tuple[str, str]]]]:
    active = customers[: N_CUSTOMERS - N_ISOLATED_CUSTOMERS]
    orderable = materials[: len(materials) - ISOLATED_MATERIALS]
    shipping = [w for w in warehouses if w["warehouse_id"] != ISOLATED_WAREHOUSE]
    drafts = []
    for n in range(N_SALES_ORDERS):
        customer = active[n] if n < len(active) else rng.choice(active)
        items = rng.sample(orderable, rng.randint(1, 3))
        local = [w for w in shipping if w["region"] == customer["region"]]
        warehouse = rng.choice(local) if local and rng.random() < 0.8 else rng.choice(shipping)
        ordered = timestamp(rng, dt.date(2024, 9, 1), dt.date(2025, 3, 31))
        status = weighted(rng, SO_STATUSES)
        quantity = rng.randint(1, 40) * 5
        amount = quantity * sum(m["unit_price"] for m in items) * rng.uniform(1.15, 1.45)
        currency = weighted(rng, (("CNY", 85), ("USD", 8), ("HKD", 4), ("EUR", 3)))
        order = {
            "so_id": "",
            "order_date": iso(ordered),
            "amount": round(max(amount, 500.0) / CNY_PER_UNIT[currency], 2),
            "currency": currency,
            "quantity": quantity,
            "status": status,
            "paid": status == "已签收" and rng.random() < 0.85,
        }
        shipment = None
        if status in ("已发货", "已签收"):
            prefix, carrier = rng.choice(CARRIERS)
            shipment = {
                "shipment_id": f"{prefix}{rng.randrange(10**9, 10**10)}",
                "carrier": carrier,
                "origin_city": warehouse["city"],
                "destination_city": customer["city"],
                "weight_kg": round(rng.uniform(0.5, 300.0), 1),
                "shipped_at": iso(ordered + dt.timedelta(days=rng.randint(1, 3), hours=2)),
                "delivered": status == "已签收",
            }
        drafts.append((order, customer, items, warehouse, shipment))
    orders = [d[0] for d in drafts]
    numbered("SO", orders, "so_id")
    drafts.sort(key=lambda d: d[0]["so_id"])
    shipments = [d[4] for d in drafts if d[4] is not None]
    relations = {
        "rel_customer_so": sorted((c["customer_id"], o["so_id"]) for o, c, _, _, _ in drafts),
        "rel_so_material": [
            (o["so_id"], m["material_code"]) for o, _, items, _, _ in drafts for m in items
        ],
        "rel_so_warehouse": [(o["so_id"], w["warehouse_id"]) for o, _, _, w, _ in drafts],
        "rel_so_shipment": [(o["so_id"], s["shipment_id"]) for o, _, _, _, s in drafts if s],
    }
    return orders, shipments, relations


def generate() -> dict[str, Any]:
    rng = random.Random(SEED)
    suppliers = make_suppliers(rng)
    materials = make_materials(rng)
    warehouses = make_warehouses(rng)
    customers = make_customers(rng)
    purchase_orders, supplier_po, po_material = make_purchase_orders(rng, suppliers, materials)
    sales_orders, shipments, so_relations = make_sales_orders(rng, customers, materials, warehouses)
    stored = [w["warehouse_id"] for w in warehouses if w["warehouse_id"] != ISOLATED_WAREHOUSE]
    material_warehouse = [
        (m["material_code"], w)
        for m in materials[: len(materials) - ISOLATED_MATERIALS]
        for w in sorted(rng.sample(stored, rng.randint(1, 2)))
    ]
    parent = [(f"S-{child:04d}", f"S-{p:04d}") for child, p in sorted(PARENTS.items())]
    for s in suppliers:
        del s["_brand"], s["_industry"]
    keys = {
        "supplier": "supplier_id",
        "purchase_order": "po_id",
        "material": "material_code",
        "warehouse": "warehouse_id",
        "customer": "customer_id",
        "sales_order": "so_id",
        "shipment": "shipment_id",
    }
    objects = {
        "supplier": suppliers,
        "purchase_order": purchase_orders,
        "material": materials,
        "warehouse": warehouses,
        "customer": customers,
        "sales_order": sales_orders,
        "shipment": shipments,
    }
    for ot_id, rows in objects.items():
        ids = [row[keys[ot_id]] for row in rows]
        if len(set(ids)) != len(ids):
            raise AssertionError(f"duplicate {ot_id} ids")
    return {
        "kind": "Instances",
        "network": "supply_chain",
        "objects": objects,
        "relations": {
            "rel_supplier_po": supplier_po,
            "rel_po_material": po_material,
            "rel_material_warehouse": material_warehouse,
            "rel_customer_so": so_relations["rel_customer_so"],
            "rel_so_material": so_relations["rel_so_material"],
            "rel_so_warehouse": so_relations["rel_so_warehouse"],
            "rel_so_shipment": so_relations["rel_so_shipment"],
            "rel_supplier_parent": parent,
        },
    }


def render(doc: dict[str, Any]) -> str:
    """YAML with one JSON flow mapping (or pair) per line: diffable and still plain YAML."""

    def flow(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    counts = ", ".join(f"{k} {len(v)}" for k, v in doc["objects"].items())
    lines = [
        f"# Generated by generate_instances.py (random.Random({SEED})); do not edit by hand.",
        f"# objects: {counts}",
        f"kind: {doc['kind']}",
        f"network: {doc['network']}",
        "objects:",
    ]
    for ot_id, rows in doc["objects"].items():
        lines.append(f"  {ot_id}:")
        lines.extend(f"    - {flow(row)}" for row in rows)
    lines.append("relations:")
    for rt_id, pairs in doc["relations"].items():
        lines.append(f"  {rt_id}:")
        lines.extend(f"    - {flow(list(pair))}" for pair in pairs)
    text = "\n".join(lines) + "\n"
    expected = json.loads(json.dumps(doc))
    if yaml.safe_load(text) != expected:  # e.g. a float YAML would read back as a string
        raise AssertionError("rendered YAML does not read back as the generated data")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="fail if the output file is stale")
    args = parser.parse_args(argv)
    text = render(generate())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
