"""Provides the package half of the `python` check inside the container: installed torch, torch_npu,
numpy, transformers and lerobot against the recipe.

One `python3 -c` call prints the installed versions as a JSON object read with
`importlib.metadata` (our own program and shape: `{"torch": "2.7.1", "torch_npu": null, ...}`,
null for a package that is not installed). The rules come from RECIPE.md and the cases:
torch and torch_npu are exact pins (PEP 440 equality via `packaging`); a dev/nightly torch_npu of
the pinned release (`2.7.1.dev20251014`, case 01) is a warning; numpy 2 or newer is an error,
because CANN's Python parts are built for numpy 1.x (case 12, error code 500001).
"""

from __future__ import annotations

import json

from packaging.version import InvalidVersion, Version

from checks.common import error, info, one_line, quoted, warn
from checks.host import Host
from checks.result import Message

#: Distributions asked for, in report order.
PACKAGES: tuple[str, ...] = ("torch", "torch_npu", "numpy", "transformers", "lerobot")

#: The program `python3 -c` runs: one JSON object, package -> version or null.
PROGRAM = (
    "import importlib.metadata as m, json\n"
    "def v(n):\n"
    "    try:\n"
    "        return m.version(n)\n"
    "    except Exception:\n"
    "        return None\n"
    f"print(json.dumps({{n: v(n) for n in {PACKAGES!r}}}))\n"
)


def parse_versions(stdout: str) -> dict[str, str | None]:
    """The JSON object `PROGRAM` prints, checked: every key of `PACKAGES`, each a string or None.

    The last line that parses is used (a sitecustomize may print before it).

    Raises:
        ValueError: no line is such an object (empty, truncated, binary or foreign output).
    """
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and all(k in data for k in PACKAGES) and all(
                v is None or isinstance(v, str) for v in (data[k] for k in PACKAGES)):
            return {k: data[k] for k in PACKAGES}
    raise ValueError("no package-version JSON in the output")


def probe_versions(host: Host, python: str = "python3",
                   timeout_s: float = 5.0) -> tuple[dict[str, str | None] | None, str]:
    """Run `PROGRAM` with `python -c` on `host` and read the installed versions.

    Returns:
        (versions, "") on success (`parse_versions` output); (None, why) when the command failed, timed
        out or printed no version JSON, `why` being one plain line (the command's last stderr line).
    """
    run = host.run([python, "-c", PROGRAM], timeout=timeout_s)
    try:
        return parse_versions(run.stdout), ""
    except ValueError:
        if run.timed_out:
            return None, f"no answer within {timeout_s:g} s"
        if run.not_found:
            return None, f"{python} not found"
        last = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
        return None, one_line(last, 200)


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _pin(name: str, found: str | None, want: str, install: str, remedy: str | None) -> Message | None:
    if found is None:
        return info(f"{name} is not installed yet (the torch stage installs {name}=={want}).")
    have, need = _version(found), _version(want)
    if have is None:
        return error(f"{name} reports version {quoted(found)}, which is not a PEP 440 version; reinstall: pip install {install}=={want}.",
                     remedy)
    if need is not None and have == need:
        return None
    if need is not None and have.is_devrelease and Version(have.base_version) == need:
        return warn(f"{name}=={found} is a nightly/dev wheel; the recipe pins the stable {name}=={want}: "
                    f"pip install {install}=={want}.")
    return error(f"{name} {found} is installed; the recipe pins {name}=={want}: pip install {install}=={want}.", remedy)


def package_messages(versions: dict[str, str | None], torch: str, torch_npu: str) -> list[Message]:
    """Messages for the installed versions against the recipe's pins.

    Args:
        versions: `parse_versions` output.
        torch, torch_npu: the recipe's exact pins (`[python]` torch / torch_npu).
    """
    msgs: list[Message] = []
    for m in (_pin("torch", versions.get("torch"), torch, "torch", None),
              _pin("torch_npu", versions.get("torch_npu"), torch_npu, "torch-npu", "torch-npu-cann-mismatch")):
        if m is not None:
            msgs.append(m)
    numpy = versions.get("numpy")
    have = _version(numpy) if numpy else None
    if have is not None and have.major >= 2:
        msgs.append(error(f"numpy {numpy} is installed; CANN needs numpy < 2 (NPU calls fail with error code 500001): "
                          "pip install \"numpy<2\".", "numpy-conflict"))
    for name in ("transformers", "lerobot"):
        if versions.get(name) is None:
            msgs.append(info(f"{name} is not installed yet (the model-code stage installs it)."))
    return msgs
