"""The Stable-Baselines3 trainer: MaskablePPO (:mod:`shipwreck_training.sb3.train`)."""
