"""The browser table: a local Starlette web app to play Shipwreck Arcana with AI teammates
and other people, and to watch replays. Routes: :mod:`shipwreck_apps.web.app`; request
checks: :mod:`shipwreck_apps.web.guard`; games, limits and expiry:
:mod:`shipwreck_apps.web.games`; the replay folder: :mod:`shipwreck_apps.web.shelf`; pages
in ``static/``.
"""
