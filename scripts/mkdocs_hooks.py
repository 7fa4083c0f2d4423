"""MkDocs hook: links from docs/ pages to files of the repository outside docs/.

On GitHub, a page such as docs/rules.md links to the code it cites (``../tests``,
``../shipwreck_env/cards.py``); the site holds only docs/, so there such a link would be
broken. This hook turns each one into the path in code style when the file exists, and
fails the build when it does not (so a broken link never passes ``--strict``).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def on_page_markdown(
    markdown: str, page, config, files
) -> str:  # mkdocs passes page, config, files
    """Rewrite links that leave docs/ (mkdocs ``on_page_markdown`` event)."""
    docs_dir = Path(config["docs_dir"]).resolve()
    page_dir = Path(page.file.src_path).parent

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return match.group(0)
        path = target.split("#")[0]
        in_site = (docs_dir / page_dir / path).resolve()
        if docs_dir in in_site.parents or in_site == docs_dir:
            return match.group(0)  # a page of the site: mkdocs checks it
        # the repository's own docs/ folder, wherever the site is built from
        resolved = (ROOT / "docs" / page_dir / path).resolve()
        if not resolved.exists() or ROOT not in resolved.parents:
            raise PluginError(f"{page.file.src_path}: link to {target!r} points to nothing")
        shown = resolved.relative_to(ROOT).as_posix() + ("/" if resolved.is_dir() else "")
        return text if shown in text else f"{text} (`{shown}`)"

    return _LINK.sub(rewrite, markdown)
