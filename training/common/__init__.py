"""The floor every trainer stands on: config base and game section (``config``), run
folders, metadata and evaluation glue (``run``), the batched games with scripted roles
(``games``), the policy-conditioned belief (``belief``) and the greedy evaluation
on the batched engine (``evaluate``). Imports no trainer."""
