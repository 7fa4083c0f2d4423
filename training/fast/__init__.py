"""The fast trainer: PPO in torch on the batched engine (see :mod:`training.fast.ppo`)."""
