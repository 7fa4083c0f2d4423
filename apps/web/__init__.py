"""The browser table: a local Starlette web app to play Shipwreck Arcana with AI teammates
and other people, and to watch replays. Routes: :mod:`shipwreck_apps.web.app`; request
checks: :mod:`shipwreck_apps.web.guard`; games in progress, limits and expiry:
:mod:`shipwreck_apps.web.games`; finished games on disk: :mod:`shipwreck_apps.web.archive`;
the teams a browser may ask for: :mod:`shipwreck_apps.web.teams`; ``serve`` and its
server settings: :mod:`shipwreck_apps.web.server`; the replay folder:
:mod:`shipwreck_apps.web.shelf`; pages in ``static/``.
"""
