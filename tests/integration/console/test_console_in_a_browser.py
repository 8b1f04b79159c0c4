"""The console in a real browser (Debian's chromium, headless, over the DevTools protocol) on a
real mesh: a managed turn with two executions, one failing; log in with the operator key, find
the interaction in the list (and a later turn appear in it without a reload), open it, one
timeline bar per operation in its outcome's colour, open a receipt; no CSP violation and no
script from the trace runs. Screenshots land in tests/.artifacts/console/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.observability.support import (
    API,
    BAD_INVOICE,
    FX,
    eventually,
    operator,
    settled,
    turn,
)
from tests.support.browser import chromium_executable, headless_page
from tests.support.mesh import RunningMesh

ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts" / "console"
COLOURS = {"completed": "rgb(46, 125, 50)", "failed": "rgb(198, 40, 40)"}  # console.css --ok / --failed
QUESTION = "Convert 10 USD, then fetch invoice <script>alert('trace')</script>?"

pytestmark = pytest.mark.skipif(chromium_executable() is None,
                                reason="chromium is not installed (scripts/chromium.sh installs it)")


async def test_an_sre_follows_a_turn_in_the_console(mesh: RunningMesh) -> None:
    ids = turn(mesh, "dev", "console-agent", [("execute_tool", FX), ("execute_tool", BAD_INVOICE)],
               question=QUESTION)
    iid = ids["interaction_id"]
    with operator(mesh) as client:
        recorded = eventually(lambda: client.get(f"{API}/interactions/{iid}").json(), settled)
    outcomes = {op["operation_id"]: op["receipt_status"] for op in recorded["operations"]}
    assert sorted(outcomes.values()) == ["completed", "failed"]
    executable = chromium_executable()
    assert executable is not None

    async with headless_page(executable) as page:
        await page.goto(f"{mesh.gateway}/console/")
        await page.wait_for("location.pathname === '/console/login'")
        await page.screenshot(ARTIFACTS / "1-login.png")
        key = json.dumps(mesh.keys["operator"])
        await page.evaluate(f"document.getElementById('app_key').value = {key}; "
                            "document.getElementById('login-submit').click(); true")
        await page.wait_for("location.pathname === '/console/interactions' && document.readyState === 'complete'")
        row = f"tr[data-interaction='{iid}'] a"
        await page.wait_for(f"!!document.querySelector(\"{row}\")")
        await page.screenshot(ARTIFACTS / "2-interactions.png")

        # live: a turn that starts now appears in the open list without a reload
        marker = await page.evaluate("document.getElementById('rows').dataset.marker = 'same page'; true")
        later = turn(mesh, "dev", "live-agent", [], question="A later question")["interaction_id"]
        await page.wait_for(f"!!document.querySelector(\"tr[data-interaction='{later}']\")", seconds=30)
        assert marker and await page.evaluate("document.getElementById('rows').dataset.marker") == "same page"

        await page.evaluate(f"document.querySelector(\"{row}\").click(); true")
        await page.wait_for(f"location.pathname === '/console/interactions/{iid}'")
        await page.wait_for("document.readyState === 'complete'")
        bars = await page.wait_for(
            "(() => { const b = [...document.querySelectorAll('svg.timeline rect.bar')];"
            " return b.length && b.map(r => [r.dataset.operation, r.dataset.outcome, getComputedStyle(r).fill]); })()")
        assert {op: outcome for op, outcome, _ in bars} == outcomes  # one bar per operation
        assert all(fill == COLOURS[outcome] for _, outcome, fill in bars), bars
        shown = await page.evaluate("document.getElementById('question').textContent")
        assert shown == QUESTION  # the script tag is text on the page
        scripts = await page.evaluate("[...document.scripts].map(s => s.src)")
        assert scripts == [f"{mesh.gateway}/console/static/console.js"]
        assert await page.evaluate("document.getElementById('execution-status').textContent")
        await page.screenshot(ARTIFACTS / "3-interaction.png")
        # the README's picture (docs/images/console.jpg is a copy): the top of the page
        await page.screenshot(ARTIFACTS / "readme-console.jpg", fmt="jpeg", quality=55, whole_page=False)

        completed = next(op for op, outcome in outcomes.items() if outcome == "completed")
        assert not await page.evaluate(f"document.getElementById('op-{completed}').open")
        await page.evaluate(f"document.querySelector(\"rect.bar[data-operation='{completed}']\")"
                            ".parentElement.dispatchEvent(new MouseEvent('click', {bubbles: true})); true")
        await page.wait_for(f"document.getElementById('op-{completed}').open")
        receipt = await page.evaluate(f"document.querySelector('#op-{completed} pre.execution-receipt').textContent")
        assert recorded["operations"][0]["execution_receipts"][0]["receipt_id"] in receipt or \
            any(r["receipt_id"] in receipt for op in recorded["operations"] for r in op["execution_receipts"])
        await page.screenshot(ARTIFACTS / "4-receipt.png")

        await page.goto(f"{mesh.gateway}/console/projections")
        await page.wait_for("!!document.querySelector(\"tr[data-service='trace-recorder']\")")
        await page.screenshot(ARTIFACTS / "5-projections.png")
        await page.goto(f"{mesh.gateway}/console/dead-letters")
        await page.wait_for("!!document.getElementById('dlq-trace-recorder')")

    assert page.dialogs == []
    assert not [m for m in page.messages if "Content Security Policy" in m], page.messages
