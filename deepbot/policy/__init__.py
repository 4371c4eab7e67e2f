"""Which links to follow first: the focused crawl's policies.

- ``topic``: best-first by similarity to a topic (term vectors).
- ``hmm``: a hidden Markov model of the paths that led to relevant pages.
- ``structure``: INDESIT, pages built like a sample (``--like``).
"""
