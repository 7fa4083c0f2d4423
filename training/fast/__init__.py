"""The fast trainer: PPO in torch on the batched engine (see :mod:`shipwreck_training.fast.ppo`)."""
