"""What a crawl is told: its configuration and the domain definitions it pursues.

- ``crawl``: ``CrawlConfig``, every knob of a crawl.
- ``load``: a ``CrawlConfig`` from a YAML file and command-line values.
- ``domain``: domain definitions (attributes, aliases, specificity, queries, µ).
- ``yamlfile``: safe YAML into pydantic models, errors naming file, line and field.
"""

from deepbot.config.crawl import DEFAULT_STORE, CrawlConfig

__all__ = ["DEFAULT_STORE", "CrawlConfig"]
