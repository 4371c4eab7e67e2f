"""Writes docs/reference/config.md from CrawlConfig's fields and the crawl command's flags.

Run it after changing a field: ``python scripts/config_reference.py``.
tests/docs/test_config_reference.py fails while the checked-in page is stale.
"""

from pathlib import Path

from deepbot.cli.crawl import config_flags
from deepbot.config.reference import reference_page

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "config.md"

if __name__ == "__main__":
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(reference_page(config_flags()), encoding="utf-8")
    print(f"wrote {PAGE}")
