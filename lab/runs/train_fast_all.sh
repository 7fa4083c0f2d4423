#!/usr/bin/env bash
# Train every fast config (configs/fast/*.yaml) with seeds 0, 1, 2, one run at a time
# (a run fills both cores), then rebuild the fast trainer's report. Runs land in
# results/runs/fast/; logs in $LOGS (default /tmp/train_fast_logs). A run that stops can
# be continued with: python -m shipwreck_training.fast --resume results/runs/fast/<run>
set -eu
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
LOGS=${LOGS:-/tmp/train_fast_logs}
CONFIGS=${CONFIGS:-"selfplay selfplay_literal selfplay_aux imitation play predict"}
mkdir -p "$LOGS"
for config in $CONFIGS; do
    for seed in 0 1 2; do
        "$PY" -m shipwreck_training.fast --config "configs/fast/$config.yaml" "seed=$seed" \
            > "$LOGS/fast_${config}_$seed.log" 2>&1
    done
done
"$PY" lab/reports/make_fast_training_report.py
