"""Hand-written skills (multi-step workflows) of the evaluation catalogue.

``entity``/``op`` is the skill's own intent; ``covers`` lists the finer intents it
orchestrates ("entity.op" or "entity.*").
"""

from __future__ import annotations

from spec_catalog import Skill


def S(
    key: str, intent: str, name: str, desc: str, rule: str, covers: str = "", params: str = ""
) -> Skill:
    entity, op = intent.split(".")
    cov = tuple(c.strip() for c in covers.split("|") if c.strip())
    prm = tuple(p.strip() for p in params.split("|") if p.strip())
    return Skill(key, entity, op, name, desc, rule, cov, prm)


SKILLS: tuple[Skill, ...] = (
    # finance
    S(
        "s_three_way",
        "ap_invoice.match",
        "invoice_three_way_match",
        "对供应商发票、采购订单和收货单进行三单匹配，自动标记数量、单价、金额差异并给出处理建议。",
        "当用户要核对发票与订单、收货是否一致时使用；需要发票号或采购订单号。",
        "ap_invoice.get|purchase_order.get|goods_receipt.get",
        "invoice_id|po_number",
    ),
    S(
        "s_month_close",
        "journal_entry.month_end_close",
        "月末结账助手",
        "Guides the period-end close: posts pending vouchers, runs depreciation, reconciles bank "
        "accounts "
        "and produces the financial statements.",
        "Use when finance staff want to close an accounting period. Requires period (YYYY-MM).",
        "journal_entry.post|fixed_asset.depreciate|bank_statement.reconcile|financial_statement.*",
        "period",
    ),
    S(
        "s_travel_expense",
        "expense_claim.create",
        "travel_expense_assistant",
        "差旅费用报销助手：识别机票、酒店、打车票据，自动填写报销单并做预算校验。",
        "员工出差结束后提交报销时使用；不适用于对公付款。",
        "expense_claim.*|budget.check",
        "receipts|trip_id",
    ),
    S(
        "s_payment_run",
        "payment.execute",
        "payment_run",
        "Selects due supplier invoices, proposes a payment run, routes it for approval and sends "
        "it to the bank.",
        "Use for weekly supplier payment runs. Only treasury role.",
        "ap_invoice.list|payment.approve|payment.create",
        "due_date|bank_account_id",
    ),
    S(
        "s_fx",
        "fx_rate.convert",
        "多币种金额换算",
        "按中国银行牌价或央行中间价把外币金额换算为本位币，支持指定历史日期。",
        "用户提到外币金额需要换算时使用。",
        "fx_rate.get",
        "amount|currency|date",
    ),
    S(
        "s_invoice_check",
        "ap_invoice.verify",
        "发票验真助手",
        "识别发票图片中的发票代码、号码、开票日期和校验码，并到国家税务总局平台查验真伪。",
        "收到纸质或电子发票、需要确认是否为真票时使用。",
        "",
        "image|invoice_number",
    ),
    S(
        "s_vat_filing",
        "tax.file",
        "vat_filing_assistant",
        "Prepares the monthly VAT return: totals output and input invoices, computes the payable "
        "tax and files it.",
        "Use at the start of each month for the previous month's VAT. Tax team only.",
        "tax.calculate|ap_invoice.list|ar_invoice.list",
        "period",
    ),
    S(
        "s_fin_analysis",
        "financial_statement.analyze",
        "经营分析报告",
        "基于利润表和资产负债表计算毛利率、费用率、周转天数等指标，生成经营分析报告。",
        "管理层需要经营分析或财务指标解读时使用。",
        "financial_statement.income_statement|financial_statement.balance_sheet",
        "period",
    ),
    S(
        "s_expense_audit",
        "expense_claim.approve",
        "expense_audit",
        "Audits submitted expense claims against the travel policy and budget before the manager "
        "approves.",
        "Use when reviewing expense claims for policy violations.",
        "budget.check|policy.search",
        "claim_id",
    ),
    # procurement
    S(
        "s_p2p",
        "purchase_order.p2p",
        "procure_to_pay",
        "端到端采购到付款流程：请购、下采购订单、收货、发票匹配、付款。",
        "当用户想了解或推进完整采购流程时使用。",
        "purchase_requisition.create|purchase_order.create|goods_receipt.create|ap_invoice.match|p"
        "ayment.create",
    ),
    S(
        "s_supplier_onboard",
        "supplier.onboard",
        "供应商准入",
        "新供应商准入流程：收集资质、制裁名单筛查、尽职调查后在系统中建档。",
        "引入新供应商时使用；完成后供应商状态为合格。",
        "supplier.create|sanctions_screening.screen|kyc.verify",
        "supplier_name|tax_id",
    ),
    S(
        "s_sourcing",
        "rfq.compare",
        "sourcing_assistant",
        "Runs a sourcing event: sends RFQs, collects quotes, builds a comparison sheet with price "
        "history and "
        "recommends an award.",
        "Use when buyers need to pick the best offer among several suppliers.",
        "rfq.create|rfq.award|purchase_price.history",
        "items|supplier_ids",
    ),
    S(
        "s_contract_watch",
        "purchase_contract.expiry",
        "合同到期提醒",
        "定期扫描采购合同，提前30天提醒即将到期的合同并建议续签。",
        "每周自动执行或用户询问合同到期情况时使用。",
        "purchase_contract.list",
        "days",
    ),
    # warehouse
    S(
        "s_stock_lookup",
        "inventory.get",
        "stock_availability",
        "Answers 'do we have it in stock': real-time on-hand and available quantities across "
        "warehouses, by batch.",
        "Use for any stock availability question.",
        "inventory.list|batch_lot.get",
        "sku|warehouse_id",
    ),
    S(
        "s_stocktake",
        "stocktake.run",
        "盘点助手",
        "组织库存盘点：生成盘点任务、录入实盘数、出具盘盈盘亏差异并发起库存调整。",
        "仓库月度或年度盘点时使用。",
        "stocktake.create|stocktake.record_result|stocktake.variance|inventory.adjust",
        "warehouse_id",
    ),
    S(
        "s_replenish",
        "replenishment.suggest",
        "smart_replenishment",
        "智能补货：识别低于安全库存的物料，结合销量预测给出补货量，并一键生成请购单。",
        "库存不足或需要补货计划时使用。",
        "replenishment.alert|purchase_requisition.create",
        "warehouse_id",
    ),
    S(
        "s_fulfill",
        "sales_order.fulfill",
        "order_fulfillment",
        "Fulfills a sales order end to end: reserves stock, creates the outbound order, waves "
        "picking and books "
        "the shipment.",
        "Use once a sales order is approved and should be shipped.",
        "inventory.reserve|outbound_order.create|outbound_order.pick|shipment.create",
        "order_id",
    ),
    # logistics
    S(
        "s_track",
        "shipment.track",
        "物流查询助手",
        "根据运单号或订单号查询快递/零担物流轨迹，预计送达时间和异常情况。",
        "用户询问包裹、货物到哪里了时使用。",
        "shipment.get|delivery.get",
        "tracking_number|order_id",
    ),
    S(
        "s_freight",
        "freight_rate.calculate",
        "freight_quote_compare",
        "Gets freight quotes from several carriers for a lane and compares price and transit time.",
        "Use before booking a shipment to choose a carrier.",
        "carrier.list|carrier.evaluate",
        "origin|destination|weight",
    ),
    S(
        "s_route",
        "route.optimize",
        "智能排线",
        "根据订单地址、车辆载重和时间窗进行智能排线并派车。",
        "每天配送前使用。",
        "vehicle.dispatch|delivery.schedule",
    ),
    S(
        "s_customs",
        "customs_declaration.create",
        "customs_clearance",
        "Customs clearance helper: classifies goods to HS codes, estimates duties and prepares "
        "the declaration.",
        "Use for import/export shipments crossing borders.",
        "customs_declaration.hs_code|customs_declaration.duty",
        "invoice|packing_list",
    ),
    # sales
    S(
        "s_lead_follow",
        "lead.assign",
        "线索跟进",
        "对新线索自动评分、按区域分配给销售，并在合格后转化为商机。",
        "市场活动带来大量线索时使用。",
        "lead.score|lead.convert",
    ),
    S(
        "s_forecast",
        "opportunity.forecast",
        "sales_forecast_assistant",
        "Builds the quarterly revenue forecast from the pipeline and compares it with targets.",
        "Use for forecast calls and pipeline reviews.",
        "opportunity.list|sales_performance.report",
        "quarter",
    ),
    S(
        "s_quote2order",
        "sales_quote.convert",
        "报价转订单",
        "客户确认报价后，校验信用额度并将报价单转换为销售订单。",
        "客户接受报价时使用。",
        "sales_quote.get|sales_order.create|credit_limit.get",
        "quote_id",
    ),
    S(
        "s_c360",
        "customer.get",
        "customer_360",
        "One-page customer view: profile, contacts, open opportunities, receivables and open "
        "support cases.",
        "Use before a customer meeting or when asked about a customer's overall status.",
        "contact.list|opportunity.list|receivable.get|support_case.list",
        "customer_id",
    ),
    S(
        "s_return",
        "sales_return.create",
        "退货退款处理",
        "处理客户退货：登记退货申请、审批、收货入库并退款。",
        "客户要求退货或退款时使用。",
        "sales_return.approve|sales_return.refund",
        "order_id",
    ),
    S(
        "s_credit",
        "credit_limit.get",
        "credit_check",
        "Checks a customer's credit exposure: limit, used credit and overdue receivables, before "
        "accepting an order.",
        "Use before confirming large orders.",
        "receivable.aging",
        "customer_id",
    ),
    # hr
    S(
        "s_onboard",
        "employee.onboard",
        "新员工入职助手",
        "新员工入职一站式办理：建档、开通邮箱和系统账号、分配权限、报名入职培训。",
        "HR办理入职时使用。",
        "user_account.create|access_permission.grant|training.enroll",
        "candidate_id|start_date",
    ),
    S(
        "s_offboard",
        "employee.offboard",
        "offboarding_checklist",
        "Runs the leaver checklist: disables accounts, revokes access, collects equipment and "
        "final pay.",
        "Use when an employee resigns or is terminated.",
        "user_account.disable|access_permission.revoke",
        "employee_id|last_day",
    ),
    S(
        "s_leave",
        "leave_request.create",
        "请假助手",
        "帮员工查询假期余额并提交请假申请，自动找到审批人。",
        "员工想请假、休年假时使用。",
        "leave_request.balance",
        "leave_type|start_date|end_date",
    ),
    S(
        "s_recruit",
        "candidate.screen",
        "recruiting_assistant",
        "Screens incoming resumes against the job description, shortlists candidates and books "
        "interviews.",
        "Use when a hiring manager has many applications to review.",
        "job_posting.publish|interview.schedule",
        "job_id",
    ),
    S(
        "s_payroll",
        "payroll.calculate",
        "月度算薪助手",
        "汇总考勤、加班和社保数据，完成月度工资计算并生成工资表。",
        "每月发薪前由薪酬专员使用。",
        "attendance.report|overtime.list|social_insurance.calculate",
        "period",
    ),
    S(
        "s_handbook",
        "policy.search",
        "employee_handbook_qa",
        "Answers employee questions about the handbook and internal policies (leave, travel, "
        "gifts, code of conduct).",
        "Use for policy questions; cite the policy section.",
        "",
        "question",
    ),
    # it ops
    S(
        "s_incident",
        "incident.respond",
        "故障应急助手",
        "线上故障应急：汇总相关告警、检索错误日志、查看主机指标，必要时回滚发布并创建故障单。",
        "生产环境出现故障或大量告警时使用。",
        "alert.list|log.search|server.metrics|deployment.rollback|incident.create",
    ),
    S(
        "s_release",
        "deployment.create",
        "release_assistant",
        "Releases a service version with canary checks and automatic rollback on error-rate "
        "spikes.",
        "Use for production deployments.",
        "deployment.rollback|deployment.get",
        "service|version",
    ),
    S(
        "s_access",
        "access_permission.grant",
        "权限申请助手",
        "员工申请系统权限：创建IT工单、走审批并自动授权。",
        "员工需要开通某个系统权限时使用。",
        "it_ticket.create|access_permission.approve",
        "system|role",
    ),
    S(
        "s_pwd",
        "user_account.reset_password",
        "password_reset_helper",
        "Self-service password reset with identity verification via SMS code.",
        "Use when a user forgot their password or is locked out.",
        "user_account.unlock",
        "user_id",
    ),
    S(
        "s_cert",
        "certificate.renew",
        "证书自动续期",
        "巡检即将过期的SSL证书并自动续期、部署到网关。",
        "证书快到期时使用。",
        "certificate.expiry",
        "domain",
    ),
    S(
        "s_db_recover",
        "database.restore",
        "database_recovery",
        "Guides point-in-time recovery of a database from the latest backup.",
        "Use after accidental data deletion or corruption.",
        "database.backup",
        "instance_id|point_in_time",
    ),
    S(
        "s_vuln",
        "vulnerability.scan",
        "漏洞管理",
        "定期漏洞扫描、按严重程度排序并派发补丁修复任务。",
        "安全巡检或出现高危CVE时使用。",
        "vulnerability.patch|vulnerability.list",
    ),
    # compliance
    S(
        "s_kyc",
        "kyc.verify",
        "customer_onboarding_kyc",
        "KYC onboarding for corporate clients: document checks, beneficial owner identification "
        "and sanctions screening.",
        "Use when opening an account for a new client.",
        "sanctions_screening.screen",
        "customer_id",
    ),
    S(
        "s_sanctions",
        "sanctions_screening.screen",
        "制裁合规筛查",
        "对客户、供应商或交易对手进行制裁名单与负面清单筛查，输出命中明细。",
        "涉及跨境交易或新交易对手时使用。",
        "sanctions_screening.batch",
        "name|country",
    ),
    S(
        "s_contract_review",
        "contract_review.clause_check",
        "合同审查助手",
        "Reviews a contract draft, highlights risky clauses and suggests fallback wording.",
        "Use before signing any third-party contract.",
        "contract_review.create",
        "document",
    ),
    S(
        "s_privacy",
        "privacy.dsar",
        "个人信息权利请求处理",
        "处理用户的个人信息查阅、更正、删除请求，定位数据并在必要时脱敏或删除。",
        "收到用户个人信息权利请求时使用。",
        "privacy.mask|privacy.discover",
        "subject_id",
    ),
    S(
        "s_audit_evidence",
        "audit_finding.evidence",
        "audit_evidence_collector",
        "Collects audit evidence: pulls audit trails and exports them for the auditors.",
        "Use during internal or external audits.",
        "audit_log.search|audit_log.export",
        "period",
    ),
    S(
        "s_aml",
        "aml.investigate",
        "反洗钱调查",
        "对可疑交易预警进行调查：查看客户KYC、交易明细，决定是否报送。",
        "反洗钱专员处理预警时使用。",
        "aml.list|kyc.get|aml.report",
        "case_id",
    ),
    # manufacturing
    S(
        "s_wo_progress",
        "work_order.get",
        "production_progress",
        "Reports where a production order stands: operations completed, quantities and expected "
        "finish.",
        "Use when sales or planners ask about production progress.",
        "work_order.list|work_order.report_progress",
        "wo_number",
    ),
    S(
        "s_8d",
        "nonconformance.8d",
        "质量问题8D处理",
        "按8D方法处理质量问题：登记不合格、分析根因、制定纠正措施并验证。",
        "出现客户投诉或批量质量问题时使用。",
        "nonconformance.create|nonconformance.disposition|quality_inspection.record",
    ),
    S(
        "s_repair",
        "maintenance_order.create",
        "equipment_repair",
        "Report a machine breakdown: creates a repair order, checks equipment status and reserves "
        "spare parts.",
        "Use when a machine fails on the shop floor.",
        "equipment.get|spare_part.requisition",
        "equipment_id",
    ),
    S(
        "s_shortage",
        "mrp.report",
        "缺料分析",
        "展开BOM、对比库存和在途，找出影响生产的缺料物料。",
        "计划员排产前使用。",
        "mrp.run|bom.explode|inventory.get",
        "plant|horizon",
    ),
    S(
        "s_aps",
        "production_schedule.generate",
        "aps_scheduler",
        "Creates an optimized production schedule and releases the work orders to the shop floor.",
        "Use weekly for production planning.",
        "work_order.release",
        "plant",
    ),
    S(
        "s_oee",
        "equipment.oee",
        "设备效率分析",
        "统计设备OEE及停机原因帕累托分析。",
        "生产例会分析设备效率时使用。",
        "equipment.downtime",
        "line|period",
    ),
)
