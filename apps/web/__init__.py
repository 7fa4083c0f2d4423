"""The browser table: a local Starlette web app to play Shipwreck Arcana with AI teammates
and other people, and to watch replays (:mod:`shipwreck_apps.web.app`; pages in ``static/``).
"""
