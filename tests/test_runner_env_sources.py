"""Container steps run with the set_env.sh scripts the env fixes recorded, argv quoting intact.

The container host is a stand-in here (`LocalHost`, this machine's bash); the scripts are our own
small set_env.sh files exporting what the real ones export (ASCEND_TOOLKIT_HOME, LD_LIBRARY_PATH).
"""

from __future__ import annotations

import json
import sys
import threading

from runner_fixtures import Collect
from wizard.hosts.local import LocalHost
from wizard.locations import Locations
from wizard.remedies.fixes import FixContext, apply_fix, stage_env_sources
from wizard.runner import run_stage
from wizard.stages.base import Stage, StageContext, Step, Where
from wizard.state import StageStatus, StateStore

HOSTILE = ["it's", '"quoted"', "$(touch /tmp/pwned-by-test)", "a b", "; rm -rf x", "$HOME", "`id`"]
SHOW = "import json, os, sys; print(json.dumps([os.environ.get('ASCEND_TOOLKIT_HOME'), os.environ.get('ATB_HOME_PATH'), sys.argv[1:]]))"


def _stage(where: Where) -> Stage:
    return Stage(id="torch", title="Torch", description="test", where=where,
                 steps=lambda ctx: [Step("show env", argv=[sys.executable, "-c", SHOW, *HOSTILE], timeout_s=60)])


def _world(tmp_path, with_nnal: bool = True):
    tk = tmp_path / "Ascend dir/ascend-toolkit/set_env.sh"
    tk.parent.mkdir(parents=True)
    tk.write_text('export ASCEND_TOOLKIT_HOME="/usr/local/Ascend/ascend-toolkit/latest"\n'
                  'export LD_LIBRARY_PATH="$ASCEND_TOOLKIT_HOME/lib64:$LD_LIBRARY_PATH"\n')
    nnal = tmp_path / "Ascend dir/nnal/atb/set_env.sh"
    if with_nnal:
        nnal.parent.mkdir(parents=True)
        nnal.write_text('export ATB_HOME_PATH="/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1"\n')
    locs = Locations.under(tmp_path / "wiz")
    return locs, str(tk), str(nnal)


def _run(tmp_path, locs, where=Where.CONTAINER):
    sink = Collect()
    ctx = StageContext(recipe=None, host=LocalHost(), locations=locs, container=LocalHost)  # type: ignore[arg-type]
    rec = run_stage(_stage(where), ctx, [sink], threading.Event(), StateStore(locs))
    return rec, sink


def test_without_a_record_nothing_is_sourced(tmp_path):
    locs, _, _ = _world(tmp_path)
    rec, sink = _run(tmp_path, locs)
    assert rec.status is StageStatus.SUCCEEDED
    assert json.loads(sink.texts("stdout")[-1]) == [None, None, HOSTILE]


def test_recorded_sources_apply_to_container_steps_with_exact_argv(tmp_path):
    locs, tk, nnal = _world(tmp_path)
    fix = FixContext(host=LocalHost(), locations=locs, toolkit_set_env=tk, nnal_set_env=nnal,
                     profile=str(tmp_path / "bashrc"))
    assert apply_fix("nnal-missing", fix).ok
    assert stage_env_sources(locs) == [tk, nnal]
    rec, sink = _run(tmp_path, locs)
    assert rec.status is StageStatus.SUCCEEDED
    home, atb, argv = json.loads(sink.texts("stdout")[-1])
    assert home == "/usr/local/Ascend/ascend-toolkit/latest" and atb.endswith("cxx_abi_1")
    assert argv == HOSTILE  # every hostile argument arrived as one literal element
    assert any("sourcing" in t and tk in t for t in sink.texts("wizard"))


def test_host_steps_are_not_wrapped(tmp_path):
    locs, tk, nnal = _world(tmp_path)
    apply_fix("nnal-missing", FixContext(host=LocalHost(), locations=locs, toolkit_set_env=tk, nnal_set_env=nnal,
                                         profile=str(tmp_path / "bashrc")))
    rec, sink = _run(tmp_path, locs, where=Where.HOST)
    assert json.loads(sink.texts("stdout")[-1])[:2] == [None, None]


def test_a_recorded_script_missing_in_the_container_is_left_out_and_said(tmp_path):
    locs, tk, nnal = _world(tmp_path)
    apply_fix("cann-env-not-sourced", FixContext(host=LocalHost(), locations=locs, toolkit_set_env=tk,
                                                 profile=str(tmp_path / "bashrc")))
    (tmp_path / "Ascend dir/ascend-toolkit/set_env.sh").unlink()  # e.g. a new container before the CANN stage
    rec, sink = _run(tmp_path, locs)
    assert rec.status is StageStatus.SUCCEEDED
    assert json.loads(sink.texts("stdout")[-1])[0] is None
    assert any("not sourcing" in t and "does not exist" in t for t in sink.texts("wizard"))
