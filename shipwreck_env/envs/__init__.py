"""The environments: the game as PettingZoo and Gymnasium see it.

What lives here:

* ``aec_env`` -- the PettingZoo AEC env (``shipwreck_env.env`` / ``raw_env``);
* ``gym_env`` -- the single Gymnasium env behind the three ids (self-play, play, predict);
* ``gym_vector`` and ``gym_roles`` -- their batched vector envs on the compiled rules
  (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``);
* ``policy`` -- the policy interface the envs take for partners (and its batched twin);
* ``episodes`` -- episode seeds and reset options;
* ``render``, ``render_text``, ``render_image`` -- the render modes, the table as text
  and as an image.

This room sits on top of the other two: it imports the reference rules
(:mod:`shipwreck_env.rules`) and the compiled rules (:mod:`shipwreck_env.vector`), and
nothing imports it from below. Only ``aec_env``, ``gym_env``, ``gym_vector`` and
``gym_roles`` need gymnasium or pettingzoo.
"""
