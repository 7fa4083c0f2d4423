#!/usr/bin/env bash
# Train every config with seeds 0, 1, 2 (selfplay_long: seed 0 only) on this 2-core
# machine: two workers, one core each (vec_env=dummy). Runs land in results/runs/; logs
# in $LOGS (default /tmp/train_logs). The reference engine, as the runs of the report
# were trained (the configs default to the batched engine since).
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
LOGS=${LOGS:-/tmp/train_logs}
mkdir -p "$LOGS"
run() {  # config seed
    "$PY" -m shipwreck_training.sb3 --config "configs/sb3/$1.yaml" "seed=$2" vec_env=dummy \
        engine=reference n_envs=8 ppo.n_steps=1024 \
        > "$LOGS/$1_$2.log" 2>&1
}
worker_a() {
    for s in 0 1 2; do run selfplay $s; run predict $s; done
    run alternating 2; run selfplay_bc 0; run selfplay_bc 2
}
worker_b() {
    for s in 0 1 2; do run play $s; done
    run alternating 0; run alternating 1; run selfplay_bc 1; run selfplay_long 0
}
worker_a & worker_b & wait
