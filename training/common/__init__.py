"""The floor every trainer stands on: config base and game section (``config``), run
folders, metadata and evaluation glue (``run``), the batched games with scripted roles
(``games``) and the policy-conditioned belief (``belief``). Imports no trainer."""
