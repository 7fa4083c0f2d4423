"""The floor every trainer stands on: config base and game section (``config``), run
folders, metadata and evaluation glue (``run``), the batched games with scripted roles
(``games``), the policy-conditioned belief over batched games (``policy_belief_batched``,
the batched form of ``shipwreck_agents.learned.policy_belief``) and the greedy evaluation
of a network on the batched engine (``greedy_eval``). Imports no trainer.

Old paths (``common.belief``, ``common.evaluate``) still import, with a warning
(:mod:`shipwreck_training._moved`)."""
