"""The policy interface every agent implements, and a team of two policies.

They are defined in the core (:mod:`shipwreck_env.envs.policy`, beside :func:`decide`, the
one function that asks a policy for a decision) and re-exported here, where agents have
always imported them from. Every policy is a valid partner of the Gymnasium
environments (``partner=make_policy("...")``).
"""

from __future__ import annotations

from shipwreck_env.envs.policy import Policy, Team, active_decides

__all__ = ["Policy", "Team", "active_decides"]
