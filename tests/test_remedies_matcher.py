"""The matcher on every handed case, on our own variants per kind, and on hostile input."""

from __future__ import annotations

import pytest

from tests.remedies_fixtures import raw_text
from wizard.events import Line
from wizard.remedies.matcher import RemedyMatcher, classify_numpy_line, match_text, worst_severity

# case file -> ids that must be found (from each header's "Wizard should conclude").
CASES = {
    "01-healthy-a3-cann83rc1-torch271-env-and-EL0004-oom.txt": {"npu-oom"},
    "02-npu-smi-910b4-hbm-held-by-other-service.txt": {"npu-device-busy"},
    "03-npu-smi-dcmi-8005-in-container.txt": {"dcmi-init-failed"},
    "07-torch-npu-import-libhccl-missing-set-env-not-sourced.txt": {"cann-env-not-sourced"},
    "08-docker-driver-lib64-not-mounted-libascend_hal.txt": {"driver-not-mounted"},
    "11-libatb-missing-nnal-not-installed.txt": {"nnal-missing"},
    "12-numpy2-vs-cann-500001-and-pip-conflict.txt": {"numpy-conflict"},
    "15-shm-dataloader-bus-error-no-space-left.txt": {"shm-too-small"},
    "21-lerobot-dataset-v21-needs-v30-conversion.txt": {"dataset-needs-v30", "dataset-conversion-failed"},
    "23-lerobot-pi05-missing-quantile-stats.txt": {"quantile-stats-missing", "torchcodec-fallback"},
    "25-hfvalidationerror-local-path-treated-as-repo-id.txt": {"hub-push-local-path"},
    "28-git-apply-patch-does-not-apply.txt": {"patch-does-not-apply", "patch-already-applied"},
}
HEALTHY = ["06-version-files-driver-241rc3-cann800-atb.txt", "27-lerobot-pi05-train-log-lines.txt"]


@pytest.mark.parametrize("name, expected", sorted(CASES.items()))
def test_case_gives_expected_ids(name, expected):
    ids = {m.id for m in match_text(raw_text(name))}
    assert expected <= ids, (expected - ids)
    # nothing from an unrelated family of faults
    assert not ids & {"exec-format-error", "ascend-runtime-missing", "world-size-mismatch", "paligemma-offline"}


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_cases_give_no_error(name):
    assert [m for m in match_text(raw_text(name)) if m.severity == "error"] == []


def test_case01_healthy_part_gives_nothing_before_the_error():
    text = raw_text("01-healthy-a3-cann83rc1-torch271-env-and-EL0004-oom.txt")
    healthy = text.split("[... issue body continues")[0]  # env, LD_LIBRARY_PATH with atb dirs, npu-smi table
    assert [m.id for m in match_text(healthy) if m.severity != "info"] == []


def test_case12_is_blocking_and_keeps_benign_lines_classified():
    m = {x.id: x for x in match_text(raw_text("12-numpy2-vs-cann-500001-and-pip-conflict.txt"))}["numpy-conflict"]
    assert m.severity == "error"
    classes = dict(m.numpy_lines)
    assert any(c == "blocking" and "500001" in t for t, c in m.numpy_lines)
    headless = [c for t, c in m.numpy_lines if t.startswith("opencv-python-headless")]
    assert headless == ["benign"]
    assert "unknown" in classes.values()  # opencv-python (not headless) is not on the recipe's list


# Variants written for these tests: other libraries of a family, other wordings, Chinese text.
VARIANTS = [
    ("OSError: libascendcl.so: cannot open shared object file: No such file or directory", "cann-env-not-sourced"),
    ("ImportError: libge_runner.so: 无法打开共享对象文件: 没有那个文件或目录", "cann-env-not-sourced"),
    ("\tlibruntime.so => not found", "cann-env-not-sourced"),
    ("python3: error while loading shared libraries: libhccl_alg.so: cannot open shared object file", "cann-env-not-sourced"),
    ("OSError: libasdops.so: cannot open shared object file: No such file or directory", "nnal-missing"),
    ("报错 libatb.so 找不到", "nnal-missing"),
    ("ImportError: libdcmi.so: cannot open shared object file: No such file or directory", "driver-not-mounted"),
    ("bash: npu-smi: command not found", "driver-not-mounted"),
    ("bash: npu-smi: 未找到命令", "driver-not-mounted"),
    ("dcmi module initialize failed. ret is -8020", "dcmi-init-failed"),
    ("npu-smi info 执行失败，dcmi 初始化失败", "dcmi-init-failed"),
    ("| 3     0                 | 123456        | python3                  | 51271                   |", "npu-device-busy"),
    ("NPU 2 已被占用，请更换设备", "npu-device-busy"),
    ("RuntimeError: Invalid device ID 8, ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "visible-devices-out-of-range"),
    ("RuntimeError: ... aclrtSetDevice ... error code is 107001", "visible-devices-out-of-range"),
    ("ImportError: /usr/local/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: aclnnFooGetWorkspaceSize", "torch-npu-cann-mismatch"),
    ("libop_plugin_atb.so: 未定义的符号: _ZN3atb9Operation", "torch-npu-cann-mismatch"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "shm-too-small"),
    ("RuntimeError: unable to allocate shared memory(shm) for file </torch_12_345_6>: Resource temporarily unavailable (11)", "shm-too-small"),
    ("写入 /dev/shm 失败：没有剩余空间", "shm-too-small"),
    ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)", "npu-oom"),
    ("NPU 显存不足，请减小 batch size", "npu-oom"),
    ("EI0002: The wait execution of the Notify register times out.", "hccl-timeout"),
    ("[ERROR] HCCL(1234,python3):... HcclCommInitRootInfo connect timed out", "hccl-timeout"),
    ("hccl 建链超时", "hccl-timeout"),
    ("RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use", "hccl-port-in-use"),
    ("HCCL 端口 60000 被占用", "hccl-port-in-use"),
    ("cat: /etc/hccn.conf: No such file or directory", "hccn-conf-missing"),
    ("exec /usr/bin/python3: exec format error", "exec-format-error"),
    ("bash: ./npu-smi: 无法执行二进制文件: 可执行文件格式错误", "exec-format-error"),
    ("WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8)", "exec-format-error"),
    ("docker: Error response from daemon: unknown or invalid runtime name: ascend.", "ascend-runtime-missing"),
    ("exec: \"ascend-docker-runtime\": executable file not found in $PATH", "ascend-runtime-missing"),
    ("Reversed (or previously applied) patch detected!  Assume -R? [n]", "patch-already-applied"),
    ("Hunk #2 FAILED at 120.", "patch-does-not-apply"),
    ("lerobot.datasets.backward_compatibility.BackwardCompatibilityError:", "dataset-needs-v30"),
    ("The dataset you requested (/data/tiny_v21) is in 2.1 format.", "dataset-needs-v30"),
    ("av.error.InvalidDataError: [Errno 1094995529] Invalid data found when processing input", "dataset-conversion-failed"),
    ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d] moov atom not found", "dataset-conversion-failed"),
    ("KeyError: 'q01'", "quantile-stats-missing"),
    ("OSError: Can't load tokenizer for 'google/paligemma-3b-pt-224'. If you were trying to load it from 'https://huggingface.co/models'", "paligemma-offline"),
    ("huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/google/paligemma-3b-pt-224/resolve/main/config.json.", "paligemma-offline"),
    ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /google/paligemma-3b-pt-224/resolve/main/tokenizer.model", "paligemma-offline"),
    ("world_size=16 but only 8 visible NPUs", "world-size-mismatch"),
    ("world_size 与可见 NPU 数量不一致", "world-size-mismatch"),
    ("RuntimeError: Could not load libtorchcodec. Likely causes: 1. FFmpeg is not properly installed", "torchcodec-unavailable"),
    ("OSError: libavutil.so.58: cannot open shared object file: No such file or directory", "torchcodec-unavailable"),
    ("ARM64 平台缺少 torchcodec，训练时会 fallback 到 pyav 解码视频", "torchcodec-fallback"),
    ("huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.', '--' and '..' are forbidden, '-' and '.' cannot start or end the name, max length is 96: '/data/koch_test'.", "hub-push-local-path"),
    ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/data/tiny_v30'. Use `repo_type` argument if needed.", "hub-push-local-path"),
    ("A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.2 as it may crash.", "numpy-conflict"),
    ("WARNING: Running pip as the 'root' user can result in broken permissions", "benign-warning"),
    ("tar: ./x: Cannot change ownership to uid 1000, gid 1000: Operation not permitted", "benign-warning"),
    # Docker engine texts as `docker pull` prints them (the pull's own plain lines carry a [remedy: id] marker)
    ("Error response from daemon: manifest for swr.cn-south-1.myhuaweicloud.com/ascendhub/cann:9.9-nope not found: manifest unknown: manifest unknown", "image-not-found"),
    ("Error response from daemon: pull access denied for pi05/base, repository does not exist or may require 'docker login'", "image-not-found"),
    ("  engine said: not found [remedy: image-not-found]", "image-not-found"),
    ('Error response from daemon: Get "https://swr.cn-south-1.myhuaweicloud.com/v2/": dial tcp: lookup swr.cn-south-1.myhuaweicloud.com: no such host', "registry-unreachable"),
    ('Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: TLS handshake timeout', "registry-unreachable"),
    ("the existing container pi differs from the recipe in what matters:", "container-drift"),
    ("not recreating pi without your confirmation; re-run with --yes to remove and recreate it", "container-drift"),
]


@pytest.mark.parametrize("line, rid", VARIANTS)
def test_variant_lines(line, rid):
    assert rid in {m.id for m in match_text(line)}


def test_missing_cann_image_is_not_read_as_cann_env():
    # the image name holds "cann:"; this is a registry answer, not a missing toolkit
    line = ("Error response from daemon: manifest for swr.cn-south-1.myhuaweicloud.com/ascendhub/"
            "cann:8.1.rc1-910b-ubuntu22.04-py3.10 not found: manifest unknown: manifest unknown")
    assert {m.id for m in match_text(line)} == {"image-not-found"}


@pytest.mark.parametrize("line, cls", [
    ("opencv-python-headless 4.12.0.88 requires numpy<2.3.0,>=2; python_version >= \"3.9\", but you have numpy 1.26.0 which is incompatible.", "benign"),
    ("rerun-sdk 0.24.0 requires numpy>=2, but you have numpy 1.26.0 which is incompatible.", "benign"),
    ("te 0.4.0 requires ml-dtypes, which is not installed.", "benign"),
    ("te 0.4.0 requires tornado, which is not installed.", "benign"),
    ("opencv-python-headless requires numpy>=2, but numpy 1.26.0 (降级后可正常运行)", "benign"),
    ("opencv-python-headless 4.12.0.88 has requirement numpy>=2, but you have numpy 1.26.0.", "benign"),
    ("mindspeed 0.12.1 requires numpy==1.26.0, but you have numpy 2.2.6 which is incompatible.", "blocking"),
    ("RuntimeError: SetPrecisionMode: ... error code is 500001", "blocking"),
    ("Successfully installed numpy-2.0.2 torch-npu-2.7.1.dev20250724", "blocking"),
    ("scipy 1.15.0 requires numpy<2.5,>=1.23.5, but you have numpy 1.22.0 which is incompatible.", "unknown"),
])
def test_numpy_classification(line, cls):
    assert classify_numpy_line(line) == cls


def test_benign_only_numpy_conflict_is_info():
    text = ("te 0.4.0 requires ml-dtypes, which is not installed.\n"
            "rerun-sdk 0.24.0 requires numpy>=2, but you have numpy 1.26.0 which is incompatible.\n")
    (m,) = match_text(text)
    assert (m.id, m.severity, m.count) == ("numpy-conflict", "info", 2)


def test_hbm_rows_below_half_are_not_busy():
    row = "| 0     0                   | 0000:9D:00.0  | 0           0    / 0          3173 / 65536         |"
    assert match_text(row) == []
    busy = row.replace("3173 / 65536", "53401/ 65536")
    assert [m.id for m in match_text(busy)] == ["npu-device-busy"]


def test_line_numbers_dedup_and_worst_severity():
    text = "ok\nlibhccl.so: cannot open shared object file\nfine\nlibhccl.so: cannot open shared object file\n"
    (m,) = match_text(text)
    assert (m.line_no, m.count) == (2, 2)
    assert worst_severity([m]) == "error" and worst_severity([]) is None


@pytest.mark.parametrize("text", ["", "\n\n\n", "\x00\x01\xff" * 1000, "a" * 2_000_000,
                                  "libhccl.so" + "x" * 100_000, "\r\r\r", "(" * 5000])
def test_hostile_input_never_raises(text):
    assert isinstance(match_text(text), list)


def test_long_line_is_matched_on_its_start():
    assert [m.id for m in match_text("EL0004 " + "y" * 100_000)] == ["npu-oom"]


def test_sink_collects_per_stage_and_skips_wizard_and_progress_lines():
    seen = []
    sink = RemedyMatcher(on_remedy=seen.append)
    sink.stage_started("torch", [])
    sink.line(Line("collecting", "stdout"))
    sink.line(Line("EL0004 in progress", "stdout", progress=True))
    sink.line(Line("libatb.so: cannot open shared object file", "wizard"))
    sink.line_batch(["a", "ImportError: libhccl.so: cannot open shared object file", "b"], "stderr", 0.0, 0, False)
    assert sink.ids == ["cann-env-not-sourced"]
    assert sink.matches[0].line_no == 3 and [m.id for m in seen] == ["cann-env-not-sourced"]
    sink.stage_started("torch", [])
    assert sink.ids == [] and sink.matches == []


def test_sink_is_a_runner_line_matcher():
    from wizard.runner import LineMatcher

    assert isinstance(RemedyMatcher(), LineMatcher)
