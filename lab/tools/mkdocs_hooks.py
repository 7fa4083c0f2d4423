"""MkDocs hook: links from docs/ pages to files of the repository outside docs/.

On GitHub, a page such as docs/rules.md links to the code it cites (``../tests``,
``../shipwreck_env/rules/cards.py``); the site holds only docs/, so there such a link would be
broken. This hook turns each one into the path in code style when the file exists, and
fails the build when it does not (so a broken link never passes ``--strict``). Pictures
of ``results/`` (``![...](../results/x.png)``) are copied into the site instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
_RESULT_IMAGE = re.compile(r"(!\[[^\]]*\]\()\.\./results/([\w./-]+\.png)\)")


def on_files(files, config):  # mkdocs passes files, config
    """Add the pictures of ``results/`` to the site, as ``results/STUDY/NAME.png``."""
    for png in sorted((ROOT / "results").rglob("*.png")):
        files.append(
            File(
                png.relative_to(ROOT).as_posix(),
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


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

    def picture(match: re.Match[str]) -> str:
        if not (ROOT / "results" / match.group(2)).exists():
            raise PluginError(f"{page.file.src_path}: picture results/{match.group(2)} is missing")
        depth = "../" * len(page_dir.parts)
        return f"{match.group(1)}{depth}results/{match.group(2)})"

    return _RESULT_IMAGE.sub(picture, _LINK.sub(rewrite, markdown))
