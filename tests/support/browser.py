"""Debian's ``chromium``, headless, driven over the DevTools protocol (a websocket; aiohttp is
the client). Only what the console's browser test needs: navigate, evaluate, wait, screenshot,
and the console messages the page logged (CSP violations among them).

``scripts/chromium.sh`` installs the browser; nothing is downloaded from elsewhere."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp


def chromium_executable() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.messages: list[str] = []  # console and log entries of the page
        self.dialogs: list[str] = []  # alert() and friends: none may open
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self._ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._waiting:
                self._waiting.pop(data["id"]).set_result(data)
            elif data.get("method") == "Log.entryAdded":
                self.messages.append(data["params"]["entry"].get("text", ""))
            elif data.get("method") == "Runtime.consoleAPICalled":
                self.messages.append(" ".join(str(a.get("value", "")) for a in data["params"]["args"]))
            elif data.get("method") == "Page.javascriptDialogOpening":
                self.dialogs.append(data["params"].get("message", ""))
                await self.send("Page.handleJavaScriptDialog", accept=False)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        await self._ws.send_str(json.dumps({"id": call_id, "method": method, "params": params}))
        answer = await asyncio.wait_for(future, 30)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    async def evaluate(self, expression: str) -> Any:
        found = await self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                                awaitPromise=True)
        if "exceptionDetails" in found:
            raise RuntimeError(f"{expression}: {found['exceptionDetails']}")
        return found["result"].get("value")

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait_for("document.readyState === 'complete'")

    async def wait_for(self, expression: str, seconds: float = 20) -> Any:
        deadline = time.monotonic() + seconds
        while True:
            try:
                value = await self.evaluate(expression)
            except RuntimeError:
                value = None  # the page is navigating
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {seconds} s: {expression}")
            await asyncio.sleep(0.1)

    async def screenshot(self, path: Path, *, fmt: str = "png", quality: int | None = None,
                         whole_page: bool = True) -> Path:
        options: dict[str, Any] = {"format": fmt, "captureBeyondViewport": whole_page}
        if quality is not None:
            options["quality"] = quality
        shot = await self.send("Page.captureScreenshot", **options)
        await asyncio.to_thread(_write, path, base64.b64decode(shot["data"]))
        return path

    async def close(self) -> None:
        self._reader.cancel()
        await self._ws.close()


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@asynccontextmanager
async def headless_page(executable: str, *, width: int = 1366, height: int = 900,
                        language: str = "en-US") -> AsyncIterator[Page]:
    """A fresh browser profile and one page of it, sized like a laptop screen."""
    with tempfile.TemporaryDirectory(prefix="console-browser-") as profile:
        process = await asyncio.create_subprocess_exec(
            executable, *["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", f"--lang={language}",
             f"--accept-lang={language}", "--remote-debugging-port=0", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 30
            while not port_file.exists() or not port_file.read_text().strip():
                if time.monotonic() > deadline or process.returncode is not None:
                    raise RuntimeError("chromium did not open its DevTools port")
                await asyncio.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json/list") as listed:
                    target = next(t for t in await listed.json() if t["type"] == "page")
                async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    for domain in ("Page", "Runtime", "Log"):
                        await page.send(f"{domain}.enable")
                    await page.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                                    deviceScaleFactor=1, mobile=False)
                    try:
                        yield page
                    finally:
                        await page.close()
        finally:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
