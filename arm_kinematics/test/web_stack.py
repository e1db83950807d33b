"""A running arm with its web page, and helpers to read the page, for the browser tests
(test_web_page*.py) and bench/bench_web.py."""

from __future__ import annotations

import math
import re
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pip_only import require
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    PACKAGE_DIR,
    installed_executable,
    start_node_process,
    stop_process,
    wait_for,
)

from arm_kinematics.config import ArmConfig

_sync_api = require("playwright.sync_api")  # pip only: the browser tests skip where it is absent
Browser, Page, sync_playwright = _sync_api.Browser, _sync_api.Page, _sync_api.sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = PACKAGE_DIR.parent / "tmp" / "test-artifacts"
TIMEOUT_MS = DEFAULT_TIMEOUT_S * 1000
URL_LINE = re.compile(r"(http://127\.0\.0\.1:\d+/)")


class Stack:
    """A bringup process with its web bridge on a free port; its output kept for messages."""

    def __init__(
        self, config: Path, port: int = 0, namespace: str = "", ros_args: tuple[str, ...] = ()
    ) -> None:
        """bringup on `config`; `ros_args` are its nodes' parameters, as `--ros-args -p
        node:name:=value ...` gives them."""
        self.config = config
        self.arm = ArmConfig.from_file(config).make_arm()
        self.lines: list[str] = []
        namespace_args = ("--namespace", namespace) if namespace else ()
        self.process = start_node_process(
            installed_executable("bringup"),
            "--config",
            str(config),
            "--web-port",
            str(port),
            *namespace_args,
            *(("--ros-args", *ros_args) if ros_args else ()),
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.url = wait_for(self._url, what="the web bridge's URL in bringup's output")

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def _url(self) -> str | None:
        if self.process.poll() is not None:
            raise AssertionError(
                f"bringup exited {self.process.returncode}:\n{''.join(self.lines)}"
            )
        for line in self.lines:
            if "/ws" not in line and (match := URL_LINE.search(line)):
                return match.group(1)
        return None

    def stop(self) -> None:
        stop_process(self.process)


@contextmanager
def headless_chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, under Playwright (which never downloads a browser here)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            browser.close()


# --- the page: open it, drag with real pointer events, read what it shows ---------------------


def new_page(browser, url: str, width: int, height: int, init_script: str | None = None) -> Page:
    """A page of `width` x `height` px at `url`, its uncaught errors collected in `page.errors`;
    `init_script` runs before the page's own scripts (e.g. a stubbed browser API)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    if init_script is not None:
        page.add_init_script(init_script)
    page.goto(url)
    return page


def open_page(
    browser, url: str, width: int = 1200, height: int = 760, init_script: str | None = None
) -> Page:
    page = new_page(browser, url, width, height, init_script)
    page.wait_for_selector("#live-tip")  # the URDF and joint_states arrived and were drawn
    page.wait_for_selector("#region-reachable_region", state="attached")
    return page


def pixel_of(page: Page, x: float, y: float) -> tuple[float, float]:
    """Viewport pixel of the base-frame point (x, y) m, from the view the page reports."""
    view = page.evaluate("window.armStats.view")
    box = page.locator("#arm-view").bounding_box()
    return box["x"] + view["cx"] + view["k"] * x, box["y"] + view["cy"] - view["k"] * y


def centre_of(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def metres_of(page: Page, selector: str) -> tuple[float, float]:
    element = page.locator(selector)
    return float(element.get_attribute("data-x-m")), float(element.get_attribute("data-y-m"))


def drag_to(page: Page, x: float, y: float) -> tuple[float, float]:
    """Press near the base, drag with real pointer events to (x, y) m; wait for its answer."""
    start = pixel_of(page, x * 0.9, y * 0.9)
    end = pixel_of(page, x, y)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()
    wait_for_answer_at(page, *metres_of(page, "#target-mark"))
    return end


def answers_drawn(page: Page) -> int:
    return page.evaluate("window.armStats.ik.responses")


def wait_for_answer_at(page: Page, x: float, y: float, after: int = 0) -> None:
    """Until the answer drawn last is for (x, y) m, nothing is in flight, and more than `after`
    answers have come."""
    page.wait_for_function(
        """([x, y, after]) => { const s = window.armStats.ik, d = s.lastDrawn;
             return d && d.x === x && d.y === y && s.inFlight === 0 && s.responses > after; }""",
        arg=[x, y, after],
    )


def shown_status(page: Page) -> str:
    return page.locator("#status").get_attribute("data-status")


def background_of(page: Page, selector: str) -> str:
    return page.locator(selector).evaluate("e => getComputedStyle(e).backgroundColor")


def type_target(page: Page, key: str = "Enter", **texts: str) -> None:
    """Type into the target's number fields (x, y, heading: the page's cm and degrees), each
    filled in turn, then press `key` in the last one (Enter solves; Tab leaves the field)."""
    for name, text in texts.items():
        page.fill(f"#target-{name}", text)
    page.press(f"#target-{name}", key)


def shown_joint_rad(page: Page, name: str) -> float:
    return float(page.locator(f'tr[data-joint="{name}"] td.solution').get_attribute("data-rad"))


def shown_joint_text(page: Page, name: str) -> str:
    return page.locator(f'tr[data-joint="{name}"] td.solution').inner_text().strip()


def ghost_points(page: Page) -> list[tuple[float, float]]:
    circles = page.locator("#layer-ghost circle")
    return [
        (float(c.get_attribute("data-x-m")), float(c.get_attribute("data-y-m")))
        for c in circles.all()
    ]


def choose_branch(page: Page, value: int) -> None:
    before = answers_drawn(page)
    page.select_option("#branch", str(value))
    wait_for_answer_at(page, *metres_of(page, "#target-mark"), after=before)


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


# --- a spatial arm's page: three views (top, side, orbit), each with its own projection --------


def open_spatial_page(browser, url: str, width: int = 1280, height: int = 800) -> Page:
    """The page of a spatial arm, once its views have drawn the live arm."""
    page = new_page(browser, url, width, height)
    for view in ("top", "side", "orbit"):
        page.wait_for_selector(f"#{view}-live-tip")
    return page


def plane_of(page: Page, view: str, x: float, y: float, z: float) -> tuple[float, float]:
    """The (u, v) m on `view`'s plane of the base-frame point (x, y, z) m, from the projection
    the page reports (window.armStats.views): from above (x, y); from the side the distance
    along the plane's direction and z; the 3D view's two projection rows."""
    seen = page.evaluate(f"window.armStats.views.{view}")
    if view == "top":
        return x, y
    if view == "side":
        d = seen["direction"]
        return x * math.cos(d) + y * math.sin(d), z
    right, up = seen["right"], seen["up"]
    return (
        right[0] * x + right[1] * y + right[2] * z,
        up[0] * x + up[1] * y + up[2] * z,
    )


def plane_pixel(page: Page, view: str, u: float, v: float) -> tuple[float, float]:
    """The viewport pixel of (u, v) m on `view`'s plane."""
    seen = page.evaluate(f"window.armStats.views.{view}")
    box = page.locator(f"#{view}-view .arm-layer").bounding_box()
    return box["x"] + seen["cx"] + seen["k"] * u, box["y"] + seen["cy"] - seen["k"] * v


def view_pixel(page: Page, view: str, x: float, y: float, z: float) -> tuple[float, float]:
    """The viewport pixel where `view` draws the base-frame point (x, y, z) m."""
    return plane_pixel(page, view, *plane_of(page, view, x, y, z))


def metres_3d(page: Page, selector: str) -> tuple[float, float, float]:
    element = page.locator(selector)
    return tuple(float(element.get_attribute(f"data-{a}-m")) for a in "xyz")


def wait_for_answer_3d(page: Page, x: float, y: float, z: float, after: int = 0) -> None:
    """Until the answer drawn last is for (x, y, z) m, nothing is in flight, and more than
    `after` answers have come."""
    page.wait_for_function(
        """([x, y, z, after]) => { const s = window.armStats.ik, d = s.lastDrawn;
             return d && d.x === x && d.y === y && d.z === z && s.inFlight === 0
               && s.responses > after; }""",
        arg=[x, y, z, after],
    )


def drag_in_view(page: Page, view: str, u: float, v: float) -> tuple[float, float]:
    """Press near (u, v) m of `view`'s plane, drag with real pointer events to it; wait for the
    answer to the target it set. Returns the pointer's last pixel."""
    before = answers_drawn(page)
    start = plane_pixel(page, view, u * 0.92, v * 0.92)
    end = plane_pixel(page, view, u, v)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()
    wait_for_answer_3d(page, *metres_3d(page, f"#{view}-target-mark"), after=before)
    return end
