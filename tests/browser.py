"""Headless Chromium driven through the DevTools protocol, as a user's browser: open
a page from a file, run a click or a change in it, read what it then shows, take a
screenshot. For tests of report.html; nothing here reaches a network."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

# headless, no first-run work, nothing fetched in the background
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def need_chromium() -> str:
    browser = chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium for this test")
        pytest.skip("chromium is not installed here")
    return browser


class Page:
    """One tab, spoken to by DevTools commands."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv(timeout=60))
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if a promise)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path) -> None:
        self.send("Page.enable")
        self.send("Page.navigate", url=path.as_uri())
        for _ in range(200):
            if self.evaluate("document.readyState") == "complete":
                return
            time.sleep(0.05)
        raise TimeoutError(f"{path} did not load")

    def screenshot(self, to: Path, width: int = 1200) -> None:
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=min(height, 6000),
            deviceScaleFactor=1,
            mobile=False,
        )
        shot = self.send("Page.captureScreenshot", format="png")
        to.write_bytes(base64.b64decode(shot["data"]))


@contextmanager
def browser_page() -> Iterator[Page]:
    """A fresh headless Chromium (its own profile, no network use) and one tab."""
    binary = need_chromium()
    # Chromium's helper processes may still be exiting when the profile is removed:
    # the whole process group is killed below, and what they leave is not an error
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: ended whole, below
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            for _ in range(600):
                if port_file.exists() and port_file.read_text().strip():
                    break
                time.sleep(0.05)
            port = port_file.read_text().split()[0]
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
                tabs = json.load(r)
            url = next(t["webSocketDebuggerUrl"] for t in tabs if t["type"] == "page")
            with connect(url, max_size=None, open_timeout=30) as socket:
                yield Page(socket)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
