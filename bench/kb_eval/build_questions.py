# ruff: noqa: E501  (a data table: one question per line)
"""Write ``questions.jsonl``: the labelled evaluation set over ``examples/knowledge_base``.

Grades: 3 = the page that answers, 2 = the same answer in the other language's twin page or an
equally good page, 1 = related context. ``kind`` says what the question tests; ``split``
alternates DEV / TEST inside each kind (tune on DEV only; report TEST and ALL).
"""

from __future__ import annotations

import json
from pathlib import Path

HR, FIN, IT, SEC, LEG, SUP, ENG, FAC, ZH = ("pages/hr/", "pages/finance/", "pages/it/",
                                             "pages/security/", "pages/legal/", "pages/support/",
                                             "pages/engineering/", "pages/facilities/", "pages/zh/")
LEAVE, SICK, PARENT, REMOTE = HR + "annual-leave.md", HR + "sick-leave.md", HR + "parental-leave.md", HR + "remote-work.md"
ONBOARD, OFFBOARD, REVIEW, CONDUCT = HR + "onboarding.md", HR + "offboarding.md", HR + "performance-review.md", HR + "code-of-conduct.md"
EXPENSE, TRAVEL_OLD, TRAVEL, PERDIEM = FIN + "expense-policy.md", FIN + "travel-policy-2023.md", FIN + "travel-policy-2025.md", FIN + "per-diem.md"
PROCURE, INVOICE = FIN + "procurement.md", FIN + "invoices.md"
LAPTOP, PASSWORD, VPN, BACKUP = IT + "laptop-policy.md", IT + "password-policy.md", IT + "vpn.md", IT + "backup.md"
INCIDENT, CLASSIFY, VENDOR = SEC + "incident-reporting.md", SEC + "data-classification.md", SEC + "vendor-security.md"
RENEW, GDPR, BRIBE = LEG + "contract-renewals.md", LEG + "data-protection.md", LEG + "anti-bribery.md"
SLA, ESCALATE = SUP + "sla.md", SUP + "escalation.md"
ONCALL, RELEASE, CODEREVIEW = ENG + "on-call.md", ENG + "release-process.md", ENG + "code-review.md"
ACCESS, ROOMS = FAC + "office-access.md", FAC + "meeting-rooms.md"
ZLEAVE, ZEXP, ZSEC, ZONB, ZREM, ZSLA = (ZH + "nianjia.md", ZH + "baoxiao.md", ZH + "xinxi-anquan.md",
                                        ZH + "ruzhi.md", ZH + "yuancheng.md", ZH + "kehu-fuwu.md")
BOOK = "pages/handbook/employee-handbook.md"

# (kind, lang, question, {path: grade})
Q: list[tuple[str, str, str, dict[str, int]]] = [
    # English, paraphrased (no title words copied where possible)
    ("en", "en", "How many paid vacation days does a full-time worker get each year?", {LEAVE: 3, ZLEAVE: 2}),
    ("en", "en", "Do I need a doctor's certificate when I'm ill, and from which day?", {SICK: 3}),
    ("en", "en", "How long can new mothers and fathers stay home with pay after a baby arrives?", {PARENT: 3}),
    ("en", "en", "How many days a week am I allowed to work from my house?", {REMOTE: 3, ZREM: 2}),
    ("en", "en", "Who approves a reimbursement claim of 3000 euros?", {EXPENSE: 3, ZEXP: 2}),
    ("en", "en", "What is the nightly hotel limit in a capital city?", {TRAVEL: 3, TRAVEL_OLD: 1}),
    ("en", "en", "How much meal money do I get per day on a trip to France?", {PERDIEM: 3, TRAVEL: 1}),
    ("en", "en", "When do we need three written quotes before buying something?", {PROCURE: 3}),
    ("en", "en", "What payment terms do suppliers get on their bills?", {INVOICE: 3}),
    ("en", "en", "How often is my work computer replaced?", {LAPTOP: 3}),
    ("en", "en", "What is the minimum length of a password?", {PASSWORD: 3}),
    ("en", "en", "How long does a remote connection session to the internal network last?", {VPN: 3}),
    ("en", "en", "How many days are nightly copies of the file shares retained?", {BACKUP: 3}),
    ("en", "en", "I clicked a suspicious link in an email, how quickly must I tell someone?", {INCIDENT: 3, ZSEC: 2}),
    ("en", "en", "Where may strictly confidential information like salaries be stored?", {CLASSIFY: 3}),
    ("en", "en", "What does a new supplier fill in before handling our data?", {VENDOR: 3, PROCURE: 1}),
    ("en", "en", "How many days before the renewal date must a supplier agreement be cancelled?", {RENEW: 3}),
    ("en", "en", "Within how many hours do we tell the regulator about a personal data leak?", {GDPR: 3, INCIDENT: 2, ZSEC: 1}),
    ("en", "en", "Can I accept a present worth 80 euros from a vendor?", {CONDUCT: 3, BRIBE: 3}),
    ("en", "en", "How fast do we answer a customer whose service is completely down?", {SLA: 3, ZSLA: 2, ESCALATE: 1}),
    ("en", "en", "When does a high priority ticket go to the engineers on duty?", {ESCALATE: 3, ONCALL: 1}),
    ("en", "en", "What do engineers get paid for a week of being on pager duty?", {ONCALL: 3}),
    ("en", "en", "Can we ship to production on a Friday?", {RELEASE: 3}),
    ("en", "en", "How many approvals does a pull request touching security code need?", {CODEREVIEW: 3}),
    ("en", "en", "What are the opening hours of the office building?", {ACCESS: 3}),
    ("en", "en", "What happens to a room booking nobody shows up for?", {ROOMS: 3}),
    ("en", "en", "How are ratings calibrated in the twice-yearly appraisal?", {REVIEW: 3}),
    ("en", "en", "When are departing employees' accounts switched off?", {OFFBOARD: 3}),
    ("en", "en", "What does a new hire do on their first day?", {ONBOARD: 3, ZONB: 2}),
    ("en", "en", "How big is the yearly training budget per person?", {BOOK: 3}),
    # Chinese
    ("zh", "zh", "全职员工一年有多少天带薪假？", {ZLEAVE: 3, LEAVE: 2}),
    ("zh", "zh", "没休完的年假能留到明年吗？", {ZLEAVE: 3, LEAVE: 2}),
    ("zh", "zh", "超过五千欧元的报销谁来批？", {ZEXP: 3, EXPENSE: 2}),
    ("zh", "zh", "哪些费用公司一定不给报销？", {ZEXP: 3, EXPENSE: 2}),
    ("zh", "zh", "收到可疑的钓鱼邮件应该怎么办？", {ZSEC: 3, INCIDENT: 2}),
    ("zh", "zh", "电脑丢了多久之内要上报？", {ZSEC: 3, INCIDENT: 2, LAPTOP: 2}),
    ("zh", "zh", "新同事入职第一天要做什么？", {ZONB: 3, ONBOARD: 2}),
    ("zh", "zh", "入职前经理需要准备哪些东西？", {ZONB: 3, ONBOARD: 2}),
    ("zh", "zh", "每周可以在家办公几天？", {ZREM: 3, REMOTE: 2}),
    ("zh", "zh", "在国外工作多少天以上需要人事批准？", {ZREM: 3, REMOTE: 2}),
    ("zh", "zh", "服务中断的工单多久必须响应？", {ZSLA: 3, SLA: 2}),
    ("zh", "zh", "三级工单的解决时限是多少？", {ZSLA: 3, SLA: 2}),
    ("zh", "zh", "居家办公设备补贴有多少钱？", {ZREM: 3, REMOTE: 2}),
    ("zh", "zh", "报销要在费用发生后多少天内提交？", {ZEXP: 3, EXPENSE: 2}),
    ("zh", "zh", "连续休假超过十天需要谁批准？", {ZLEAVE: 3, LEAVE: 2}),
    # mixed Chinese and English in one question
    ("mixed", "mixed", "VPN 会话多长时间后自动断开？", {VPN: 3}),
    ("mixed", "mixed", "MFA 对哪些系统是强制的？", {PASSWORD: 3}),
    ("mixed", "mixed", "On-call 一周的补贴是多少 EUR？", {ONCALL: 3}),
    ("mixed", "mixed", "Pull request 需要几个 review 才能合并？", {CODEREVIEW: 3}),
    ("mixed", "mixed", "GDPR 下客户数据保存多少年？", {GDPR: 3}),
    ("mixed", "mixed", "per diem 在中国每天多少 CNY？", {PERDIEM: 3}),
    ("mixed", "mixed", "purchase order 在多少金额以上是必须的？", {PROCURE: 3, INVOICE: 1}),
    ("mixed", "mixed", "Badge 丢了应该什么时候报告？", {ACCESS: 3}),
    ("mixed", "mixed", "Release 失败以后多久要 rollback？", {RELEASE: 3}),
    ("mixed", "mixed", "P1 ticket 升级到 on-call engineer 的规则是什么？", {ESCALATE: 3, ONCALL: 1, SLA: 1}),
    # cross-lingual: Chinese question, answer only in English pages (and vice versa)
    ("cross", "zh", "病假第几天开始需要医生证明？", {SICK: 3}),
    ("cross", "zh", "育儿假一共有几周？", {PARENT: 3}),
    ("cross", "zh", "酒店每晚的住宿上限是多少？", {TRAVEL: 3, TRAVEL_OLD: 1}),
    ("cross", "zh", "供应商发票的付款期限是多久？", {INVOICE: 3}),
    ("cross", "zh", "笔记本电脑多久换一次？", {LAPTOP: 3}),
    ("cross", "zh", "文件共享的备份保留多少天？", {BACKUP: 3}),
    ("cross", "zh", "合同自动续约的通知期是多少天？", {RENEW: 3}),
    ("cross", "zh", "收到供应商价值超过五十欧元的礼物怎么办？", {CONDUCT: 3, BRIBE: 3}),
    ("cross", "zh", "绩效评估一年做几次？", {REVIEW: 3}),
    ("cross", "zh", "会议室预订后多久不用会被自动释放？", {ROOMS: 3}),
    ("cross", "zh", "工作满五年可以申请多长的停薪休假？", {BOOK: 3}),
    ("cross", "zh", "推荐候选人成功入职有多少奖金？", {BOOK: 3}),
    ("cross", "en", "How do I report a security incident according to the Chinese guide?", {ZSEC: 3, INCIDENT: 3}),
    ("cross", "en", "Which strictly confidential data may never leave approved systems?", {CLASSIFY: 3}),
    ("cross", "en", "How many weekly remote days does the Chinese remote work rule allow?", {ZREM: 3, REMOTE: 3}),
    # multi-hop: the answer needs a page reached from another one
    ("multihop", "en", "For the meal allowance on business trips, which document sets the daily rates referred to by the travel rules?", {PERDIEM: 3, TRAVEL: 2}),
    ("multihop", "en", "A laptop was stolen: which policy says how fast to report it and where is the reporting procedure?", {LAPTOP: 3, INCIDENT: 3, ZSEC: 1}),
    ("multihop", "en", "Before engaging a new supplier, which security review and which contract rules apply?", {PROCURE: 3, VENDOR: 2, RENEW: 2}),
    ("multihop", "en", "What does the on-call engineer do when a priority 1 ticket is escalated?", {ESCALATE: 3, ONCALL: 3, SLA: 1}),
    ("multihop", "en", "Which current travel rules replaced the 2023 travel policy?", {TRAVEL: 3, TRAVEL_OLD: 2}),
    ("multihop", "en", "The home office allowance is claimed under which reimbursement rules?", {REMOTE: 3, EXPENSE: 3}),
    ("multihop", "en", "A personal data breach: who is notified and how does data classification apply?", {GDPR: 3, CLASSIFY: 2, INCIDENT: 2}),
    ("multihop", "en", "What equipment and accounts must a new employee set up, and under which password rules?", {ONBOARD: 3, PASSWORD: 2, LAPTOP: 1, ZONB: 2}),
    ("multihop", "zh", "出差住酒店和吃饭的标准分别在哪里规定？", {TRAVEL: 3, PERDIEM: 3}),
    ("multihop", "zh", "离职时电脑和门禁卡要交给谁，账号何时停用？", {OFFBOARD: 3, LAPTOP: 1, ACCESS: 1}),
    # exact title (must rank first)
    ("title", "en", "Annual Leave Policy", {LEAVE: 3}),
    ("title", "en", "Travel Policy", {TRAVEL: 3}),
    ("title", "en", "Code Review Guidelines", {CODEREVIEW: 3}),
    ("title", "en", "Security Incident Reporting", {INCIDENT: 3}),
    ("title", "en", "Vendor Security Review", {VENDOR: 3}),
    ("title", "en", "Per Diem Rates", {PERDIEM: 3}),
    ("title", "zh", "费用报销制度", {ZEXP: 3}),
    ("title", "zh", "信息安全事件上报", {ZSEC: 3}),
    ("title", "zh", "客户服务响应时限", {ZSLA: 3}),
    ("title", "en", "PTO policy", {LEAVE: 3}),
    ("title", "en", "GDPR", {GDPR: 3}),
    ("title", "zh", "员工手册", {BOOK: 3}),
    # path
    ("path", "en", "pages/it/vpn.md", {VPN: 3}),
    ("path", "en", "pages/legal/contract-renewals.md", {RENEW: 3}),
    ("path", "en", "finance/per-diem.md", {PERDIEM: 3}),
    ("path", "en", "pages/zh/nianjia.md", {ZLEAVE: 3}),
    ("path", "en", "pages/support/escalation", {ESCALATE: 3}),
    ("path", "en", "hr/remote-work.md", {REMOTE: 3}),
    ("path", "en", "pages/engineering/on-call.md", {ONCALL: 3}),
    ("path", "en", "pages/finance/travel-policy-2023.md", {TRAVEL_OLD: 3}),
    # no answer in the base (nothing relevant; gibberish must be no_candidates)
    ("noanswer", "en", "qxzvv blorftang zzkqpw", {}),
    ("noanswer", "en", "flurbish gnorptang vexillum quazzle", {}),
    ("noanswer", "zh", "嘁嚓咔哒噼啪", {}),
    ("noanswer", "en", "How do I configure a Kubernetes ingress controller?", {}),
    ("noanswer", "en", "What is the capital of Australia?", {}),
    ("noanswer", "zh", "明天北京的天气怎么样？", {}),
    ("noanswer", "en", "Recipe for sourdough bread with rye flour", {}),
    ("noanswer", "mixed", "Photosynthesis 的化学方程式是什么？", {}),
]


def main() -> None:
    out = Path(__file__).with_name("questions.jsonl")
    counts: dict[str, int] = {}
    with out.open("w", encoding="utf-8") as fh:
        for n, (kind, lang, question, labels) in enumerate(Q, start=1):
            counts[kind] = counts.get(kind, 0) + 1
            split = "dev" if counts[kind] % 2 else "test"
            fh.write(json.dumps({"id": f"kq{n:03d}", "kind": kind, "lang": lang, "split": split,
                                 "query": question, "relevance": labels}, ensure_ascii=False) + "\n")
    print(f"{len(Q)} questions -> {out}: {counts}")


if __name__ == "__main__":
    main()
