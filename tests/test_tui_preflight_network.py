"""The preflight screen when some download hosts are unreachable: an honest banner, host names shown as
they are, and full-screen details (`d`) that wrap inside the screen at 80x24 and at 120 columns.

The network is simulated by replacing `checks.network.probe` (the one function that touches it):
only pypi.org and github.com answer, the other 6 of the recipe's 8 download hosts time out.
"""

from __future__ import annotations

import asyncio

import pytest

import checks.network
from screens.app import make_app
from screens.preflight import PreflightScreen
from tui_fixtures import sim_session, visible_lines, wait_for

LONG_HOST = "ascend-repo.obs.cn-east-2.myhuaweicloud.com"


@pytest.fixture
def six_hosts_down(monkeypatch):
    monkeypatch.setattr(checks.network, "probe",
                        lambda url, timeout_s: None if ("pypi.org" in url or "github.com" in url) else "ConnectTimeout")


async def _preflight(app, pilot) -> PreflightScreen:
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, PreflightScreen), what="preflight screen")
    screen = app.screen
    await wait_for(pilot, lambda: not screen.running and "network" in screen.results, what="results", timeout=30)
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 30)])
def test_network_warning_banner_and_full_screen_details_wrap(tmp_path, six_hosts_down, size):
    from wizard.stages.registry import all_stages

    async def go():
        app = make_app(sim_session(tmp_path), all_stages(), welcome=False, check_ids=["network"], offline=False)
        async with app.run_test(size=size) as pilot:
            screen = await _preflight(app, pilot)
            shown = " ".join(" ".join(visible_lines(app)).split())
            assert "ready for the next stage" not in shown and "does not block the next stage, but deserves" not in shown
            assert "Ready, but 6 of 8 download hosts are unreachable: Container, CANN upgrade, Model code will fail " \
                   "until the network is fixed" in shown
            await pilot.press("d")
            await pilot.pause()
            assert screen.maximized is screen.query_one("#check-details")
            lines = visible_lines(app)
            body = [ln for ln in lines[:-1] if ln.strip()]  # without the Footer
            assert body[0].startswith("╭") and body[0].rstrip().endswith("╮")  # the whole border, right side too
            assert all(ln.rstrip()[-1] in "│▁▂▃▄▅▆▇█╮╯" for ln in body), "\n".join(body)  # no line runs past it
            flat = " ".join(" ".join(ln.strip("│ ") for ln in body).split())
            # The warning's long list wraps: its middle and its end are on screen.
            assert "gitcode.com (ConnectTimeout)" in flat and "stages that use them will fail." in flat
            # Host names are data: never prettified ("ascend repo.obs.cn east 2").
            assert "ascend repo" not in flat and "cn east" not in flat
            assert "swr.cn-south-1.myhuaweicloud.com ConnectTimeout" in flat
            await pilot.press("escape")
            await pilot.pause()
            assert screen.maximized is None

    asyncio.run(go())
