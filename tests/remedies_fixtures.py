"""Shared helpers for the remedy tests: case raw texts and shape-alike script copies."""

from __future__ import annotations

from pathlib import Path

CASES = Path("/work/shared/cases")
if not CASES.is_dir():  # the repo copy, when the shared folder is not mounted
    CASES = Path(__file__).resolve().parents[1] / "assets" / "cases"


def raw_text(name: str) -> str:
    """The text between the RAW TEXT markers of a case file."""
    text = (CASES / name).read_text(encoding="utf-8")
    return text.split("--- RAW TEXT BEGIN ---", 1)[1].split("--- RAW TEXT END ---", 1)[0]


# A copy with the same shape as lerobot's augment_dataset_quantile_stats.py at the pinned commit:
# write_stats(...) then dataset.push_to_hub() and the Hub tag calls, inside a function.
QUANTILE_SCRIPT = '''#!/usr/bin/env python
import argparse
import logging
from pathlib import Path


def write_stats(stats, root):
    Path(root or ".", "meta").mkdir(parents=True, exist_ok=True)


def augment_dataset_with_quantile_stats(repo_id, root=None, overwrite=False):
    logging.info(f"Loading dataset: {repo_id}")
    new_stats = {}
    write_stats(new_stats, root)

    logging.info("Successfully updated dataset with quantile statistics")
    dataset.push_to_hub()

    hub_api = HfApi()
    hub_api.create_tag(repo_id, tag="v3.0", revision=None, repo_type="dataset")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo-id", required=True)
    args = parser.parse_args()
    augment_dataset_with_quantile_stats(repo_id=args.repo_id)


if __name__ == "__main__":
    main()
'''

# DrivingSDK test/train_full.sh shape (RECIPE.md "Training scripts"): world_size=16, accelerate launch.
def write_train_scripts(root):
    """DrivingSDK's two training scripts (`TRAIN_SCRIPT`, world_size=16) under a `--root` folder; returns their folder."""
    scripts = root / "root/DrivingSDK/model_examples/Pi-0.5/lerobot/test"
    scripts.mkdir(parents=True)
    for name in ("train_full.sh", "train_performance.sh"):
        (scripts / name).write_text(TRAIN_SCRIPT)
    return scripts


TRAIN_SCRIPT = '''#!/bin/bash
source test/env_npu.sh
world_size=16
batch_size=8
dataset_path=$1
accelerate launch --num_processes=${world_size} src/lerobot/scripts/lerobot_train.py \\
    --dataset.root=${dataset_path} --batch_size=${batch_size} --policy.push_to_hub=false \\
    --steps=30000 > test/output/train_full_bf16.log 2>&1
'''
